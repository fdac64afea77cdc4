"""Content negotiation of ``POST /chat`` and ``POST /chat/resume``: the stream only when asked for.

``text/event-stream`` is chosen only when the ``Accept`` header names it explicitly and ranks it
strictly above ``application/json`` (q-values; the most specific range decides a type's quality).
Everything else (``*/*``, ``text/*``, a missing header, an unknown type) gets the JSON ``ChatResponse``.
"""

from __future__ import annotations

__all__ = ("EVENT_STREAM", "wants_event_stream")

EVENT_STREAM = "text/event-stream"


def wants_event_stream(accept: str | None) -> bool:
    if not accept or EVENT_STREAM not in accept.lower():
        return False
    ranges = [_parse_range(part) for part in accept.split(",") if part.strip()]
    stream_q = next((q for media, q in ranges if media == EVENT_STREAM), 0.0)
    return stream_q > _quality("application/json", ranges)


def _parse_range(part: str) -> tuple[str, float]:
    media, *params = (piece.strip() for piece in part.split(";"))
    quality = 1.0
    for param in params:
        name, _, value = param.partition("=")
        if name.strip().lower() == "q":
            try:
                quality = min(max(float(value), 0.0), 1.0)
            except ValueError:
                quality = 0.0
    return media.lower(), quality


def _quality(media_type: str, ranges: list[tuple[str, float]]) -> float:
    """The quality the ranges give ``media_type``: exact beats ``type/*`` beats ``*/*``."""
    kind = media_type.split("/", maxsplit=1)[0]
    for candidate in (media_type, f"{kind}/*", "*/*"):
        for media, quality in ranges:
            if media == candidate:
                return quality
    return 0.0
