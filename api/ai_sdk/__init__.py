"""The AI SDK's chat protocol over ``POST /ai-sdk/chat``: the same agent and the same runs, as a UI message stream."""

from __future__ import annotations

from api.ai_sdk.request import requested_turn
from api.ai_sdk.runs import OpenedRun, active_run, open_run
from api.ai_sdk.stream import UI_MESSAGE_STREAM_HEADERS, UIMessageStream
from api.ai_sdk.translate import UIMessageTranslator, tool_approval_id

__all__ = (
    "UI_MESSAGE_STREAM_HEADERS",
    "OpenedRun",
    "UIMessageStream",
    "UIMessageTranslator",
    "active_run",
    "open_run",
    "requested_turn",
    "tool_approval_id",
)
