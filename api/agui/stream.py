"""An AG-UI response body: the run's envelopes, translated and SSE-encoded by the official encoder."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ag_ui.encoder import EventEncoder

from api.runs.stream.frames import HEARTBEAT

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from api.agui.runs import OpenedRun
    from api.agui.translate import AgUiTranslator

__all__ = ("agui_stream",)


async def agui_stream(opened: OpenedRun, translator: AgUiTranslator) -> AsyncIterator[bytes]:
    """Every AG-UI event of this request, flushed as it happens, with the service's heartbeats between.

    It ends with the event that ends the AG-UI run: ``RUN_FINISHED`` (completed, interrupted for an
    approval, cancelled) or ``RUN_ERROR``; a paused harness run goes on waiting for its decision.
    """
    encoder = EventEncoder()
    try:
        async for envelope in opened.envelopes:
            if envelope is None:
                yield HEARTBEAT
                continue
            events = translator.translate(envelope)
            if events:
                yield "".join(encoder.encode(event) for event in events).encode()
            if translator.finished:
                return
    finally:
        await opened.envelopes.aclose()
