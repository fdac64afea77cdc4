"""The Agent Protocol's encoding of a run's stream, as langgraph-sdk reads it.

Every frame carries ``id: <seq>``, the event's seq in the run's log, so ``Last-Event-ID`` resumes exactly after
it on any instance. The run's first event (its topology) becomes ``metadata`` (``run_id``, ``thread_id``,
``attempt``); each ``graph_part`` the stream asked for becomes ``<mode>`` (``|<namespace>...`` for a subgraph's
part when the run streams subgraphs), its data the part as LangGraph gave it; the run's end becomes ``end``
(``run_id``, ``status``), after an ``error`` event when it failed. A run that stops at an interrupt ends the
stream with ``end`` ``interrupted``: its ``values`` and ``updates`` carried the ``__interrupt__`` already, and
the run is resumed with a new request whose ``command`` answers it. A pause the run has already gone past (it
was resumed, and the events after it are in the same read) ends nothing: a join that replays such a run goes on
through its resumption (a second ``metadata``) to where the run is now, which is what ``useStream``'s
reconnect-on-mount needs after a resume. Other events of the run (node starts, costs) are not the Agent
Protocol's and are left out; heartbeats are ``: heartbeat`` comments.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from contracts.graph_events import GraphStreamMode

if TYPE_CHECKING:
    from collections.abc import Collection, Sequence

    from api.runs.log.records import StoredEvent

__all__ = ("AgentProtocolStream", "status_name", "values_so_far")

_HEARTBEAT = b": heartbeat\n\n"
_END_STATUS = {"completed": "success", "failed": "error", "cancelled": "interrupted", "waiting": "interrupted"}


class _Part(msgspec.Struct):
    mode: GraphStreamMode
    ns: list[str]
    data: msgspec.Raw


class _Error(msgspec.Struct):
    code: str
    message: str


class _Envelope(msgspec.Struct):
    """What of an envelope this encoder reads; the payload stays raw until its type is known."""

    type: str
    run_id: str
    seq: int
    status: str
    data: msgspec.Raw


class _PartEnvelope(msgspec.Struct):
    """A ``graph_part`` envelope read for its part alone (its type and seq are the stored event's)."""

    data: _Part


_read_envelope = msgspec.json.Decoder(_Envelope).decode
_read_part_envelope = msgspec.json.Decoder(_PartEnvelope).decode
_read_part = msgspec.json.Decoder(_Part).decode
_read_error = msgspec.json.Decoder(_Error).decode
_encode = msgspec.json.encode


def values_so_far(events: Sequence[StoredEvent]) -> Any:
    """The graph's state as the last top-level ``values`` part of ``events`` holds it; ``{}`` before the first."""
    for event in reversed(events):
        if event.type != "graph_part":
            continue
        part = _read_part(_read_envelope(event.envelope).data)
        if part.mode == "values" and not part.ns:
            return msgspec.json.decode(part.data)
    return {}


def status_name(status: str) -> str:
    """A run's status as the Agent Server names it."""
    return {"running": "running", **_END_STATUS}.get(status, status)


class AgentProtocolStream:
    """One request's stream of one run (``modes``: the stream modes it asked for; empty: every one the run logs)."""

    opening = b""
    heartbeat = _HEARTBEAT

    def __init__(self, *, thread_id: str, modes: Collection[str] = (), subgraphs: bool = True) -> None:
        self._thread_id = thread_id
        self._modes = frozenset("messages" if mode == "messages-tuple" else mode for mode in modes)
        self._subgraphs = subgraphs
        self._ended = False

    def encode(self, events: Sequence[StoredEvent]) -> bytes:
        out: list[bytes] = []
        last = len(events) - 1
        for index, event in enumerate(events):
            kind = event.type
            if kind == "graph_part":  # nearly every event of a run
                self._part(out, event)
                continue
            envelope = _read_envelope(event.envelope)
            if kind == "graph_topology":
                self._event(
                    out,
                    b"metadata",
                    envelope.seq,
                    {"run_id": envelope.run_id, "thread_id": self._thread_id, "attempt": 1},
                )
            elif kind == "error":
                error = _read_error(envelope.data)
                self._event(out, b"error", envelope.seq, {"error": error.code, "message": error.message})
                self._end(out, envelope)
            elif kind in ("run_completed", "turn_completed") or (kind == "paused" and index == last):
                self._end(out, envelope)
            if self._ended:
                break
        return b"".join(out)

    def finished(self, events: Sequence[StoredEvent]) -> bool:
        return self._ended

    def _part(self, out: list[bytes], event: StoredEvent) -> None:
        part = _read_part_envelope(event.envelope).data
        if self._modes and part.mode not in self._modes:
            return
        if part.ns and not self._subgraphs:
            return
        name = part.mode if not part.ns else "|".join([part.mode, *part.ns])
        out.append(b"event: %s\ndata: %s\nid: %d\n\n" % (name.encode(), bytes(part.data), event.seq))

    def _end(self, out: list[bytes], envelope: _Envelope) -> None:
        self._event(out, b"end", envelope.seq, {"run_id": envelope.run_id, "status": status_name(envelope.status)})
        self._ended = True

    @staticmethod
    def _event(out: list[bytes], name: bytes, seq: int, data: Any) -> None:
        out.append(b"event: %s\ndata: %s\nid: %d\n\n" % (name, _encode(data), seq))
