"""What the log keeps of a thread beyond its owner: the graph it runs, its metadata, when it was made and used.

A thread is a session (its id names the LangGraph thread of its checkpoints, and its owner is the session's);
sessions begun by ``POST /chat`` have no record here and are the support agent's. With a key the record is
sealed like a run's (its metadata is the client's to fill).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from agent import is_sealed, place

if TYPE_CHECKING:
    from agent import Sealer

__all__ = ("ThreadRecord", "encode_thread", "open_thread", "where_thread")


class ThreadRecord(msgspec.Struct, kw_only=True):
    thread_id: str
    graph_id: str | None = None
    """The graph its runs run (the first run's), None until one ran."""
    metadata: dict[str, Any] = msgspec.field(default_factory=dict)
    created_at: str
    updated_at: str


_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder(ThreadRecord).decode


def encode_thread(sealer: Sealer | None, thread: ThreadRecord) -> bytes:
    data = _encode(thread)
    return data if sealer is None else sealer.seal(data, where_thread(thread.thread_id))


def open_thread(sealer: Sealer | None, thread_id: str, data: bytes) -> ThreadRecord:
    if sealer is not None and (is_sealed(data) or not sealer.rotating):
        data = sealer.unseal(data, where_thread(thread_id))
    return _decode(data)


def where_thread(thread_id: str) -> bytes:
    return place("thread", thread_id)
