"""The AI SDK's encoding of a run's stream (the UI message stream protocol, v1): each committed event's envelope
decoded, translated into UI message chunks, each chunk one ``data:`` frame of JSON, and
``data: [DONE]`` after the chunk that ends the response; heartbeats are SSE comments, which the SDK skips."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from api.runs.stream.frames import HEARTBEAT
from contracts import Envelope

if TYPE_CHECKING:
    from collections.abc import Sequence

    from api.ai_sdk.translate import UIMessageTranslator
    from api.runs.log.records import StoredEvent

__all__ = ("DONE", "UI_MESSAGE_STREAM_HEADERS", "UIMessageStream")

UI_MESSAGE_STREAM_HEADERS = {"x-vercel-ai-ui-message-stream": "v1"}
"""What tells the AI SDK the body is a UI message stream."""
DONE = b"data: [DONE]\n\n"
_decode = msgspec.json.Decoder(Envelope).decode
_encode = msgspec.json.Encoder().encode


class UIMessageStream:
    """One response's stream. It ends with the chunk that ends the response: ``finish`` (the answer, or a pause
    for approval), ``error`` then ``finish``, or ``abort``, followed by ``[DONE]``."""

    opening = b""
    heartbeat = HEARTBEAT

    def __init__(self, translator: UIMessageTranslator) -> None:
        self._translator = translator

    def encode(self, events: Sequence[StoredEvent]) -> bytes:
        translator = self._translator
        out: list[bytes] = []
        last = len(events) - 1
        for index, event in enumerate(events):
            envelope = _decode(event.envelope)
            out.extend(b"data: %s\n\n" % _encode(chunk) for chunk in translator.translate(envelope, more=index < last))
            if translator.finished:
                out.append(DONE)
                break
        return b"".join(out)

    def finished(self, events: Sequence[StoredEvent]) -> bool:
        return self._translator.finished
