"""The AI SDK's chat protocol over ``POST /ai-sdk/chat`` (the support agent) and ``POST /ai-sdk/{assistant_id}/chat``
(any registered graph): the same runs, as a UI message stream of the shared projection of their envelopes."""

from __future__ import annotations

from api.ai_sdk.request import requested_turn
from api.ai_sdk.stream import UI_MESSAGE_STREAM_HEADERS, UIMessageStream
from api.ai_sdk.translate import UIMessageTranslator, tool_approval_id

__all__ = ("UI_MESSAGE_STREAM_HEADERS", "UIMessageStream", "UIMessageTranslator", "requested_turn", "tool_approval_id")
