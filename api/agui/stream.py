"""AG-UI's encoding of a run's stream: each committed event's envelope decoded, translated
into AG-UI events, and SSE-encoded by the official encoder, with the service's heartbeats between."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec
from ag_ui.encoder import EventEncoder

from api.runs.stream.frames import HEARTBEAT
from contracts import Envelope

if TYPE_CHECKING:
    from collections.abc import Sequence

    from api.agui.translate import AgUiTranslator
    from api.runs.log.records import StoredEvent

__all__ = ("AgUiStream",)

_decode = msgspec.json.Decoder(Envelope).decode


class AgUiStream:
    """One AG-UI run's stream. It ends with the event that ends the AG-UI run: ``RUN_FINISHED`` (completed,
    interrupted for an approval, cancelled) or ``RUN_ERROR``; a paused harness run goes on waiting."""

    opening = b""
    heartbeat = HEARTBEAT

    def __init__(self, translator: AgUiTranslator) -> None:
        self._translator = translator
        self._encoder = EventEncoder()

    def encode(self, events: Sequence[StoredEvent]) -> bytes:
        translator, encoder = self._translator, self._encoder
        parts: list[str] = []
        for event in events:
            envelope = _decode(event.envelope)
            parts.extend(encoder.encode(translated) for translated in translator.translate(envelope))
            if translator.finished:
                break
        return "".join(parts).encode()

    def finished(self, events: Sequence[StoredEvent]) -> bool:
        return self._translator.finished
