"""One projection of a run's events for the chat UIs of every protocol (AG-UI, the AI SDK): what a person sees.

``RunProjection`` turns a run's envelopes, of any graph, into ``UiEvent``s: steps, text messages, tool calls
and their results, state snapshots, data, an approval asked for and answered, and one end. Each protocol's
translator maps those, and only those, to its wire events (``api.agui.translate``, ``api.ai_sdk.translate``).
"""

from __future__ import annotations

from api.projection import _events
from api.projection._chunks import TextChunk, read_text_chunk
from api.projection._events import *  # noqa: F403  # every event of the projection is public, as _events lists them
from api.projection._projector import ACTION_ROLE, APPROVAL_ROLE, RunProjection

__all__ = ["ACTION_ROLE", "APPROVAL_ROLE", "RunProjection", "TextChunk", "read_text_chunk"]
__all__ += _events.__all__
