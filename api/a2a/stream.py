"""A2A's encodings of a run's stream (``StreamEncoder``s for ``RunStreams.follow``): each committed event's
envelope decoded and projected into task events (``TaskProjection``).

``TaskEventStream`` is ``SendStreamingMessage``'s and ``SubscribeToTask``'s SSE: the task as it stands first, then
each event a JSON-RPC response of its own, its SSE ``id`` the run's seq; heartbeats are SSE comments. It ends when
the task settles (ended, or waiting for its client). ``TaskResult`` is a blocking ``SendMessage``'s JSON: nothing
but a newline at each heartbeat (leading whitespace is valid JSON, and proxies keep the response open), then one
JSON-RPC response with the task once it settles.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from api.a2a.jsonrpc import result_body, result_head, sse_frame
from api.a2a.types import SendMessageResponse, StreamResponse
from api.projection import read_text_chunk
from api.runs.stream.frames import HEARTBEAT
from contracts import Envelope

if TYPE_CHECKING:
    from collections.abc import Sequence

    from api.a2a.task import TaskProjection
    from api.runs.log.records import StoredEvent

__all__ = ("TaskEventStream", "TaskResult", "project_events")

_decode = msgspec.json.Decoder(Envelope).decode
_encode = msgspec.json.Encoder().encode
_GRAPH_PART = "graph_part"


def project_events(
    projection: TaskProjection, events: Sequence[StoredEvent], *, more: bool = False
) -> list[tuple[int, StreamResponse]]:
    """The task events of ``events`` (each with the seq it was made from), up to the one that settles the task; the
    text of a model's message chunks among them one event (the text each made, joined), its seq the last chunk's.
    ``more``: events after these are known already, so an interrupt among them settles nothing."""
    made: list[StreamResponse] = []
    last = len(events) - 1
    for index, event in enumerate(events):
        if event.type == _GRAPH_PART and (chunk := read_text_chunk(event.envelope)) is not None:
            held = projection.project_text(chunk)
            if held is not None:
                made += held
                continue
        made += projection.project(_decode(event.envelope), more=more or index < last, hold_text=True)
        if projection.settled:
            break
    made += projection.release_text()
    return [(_seq_of(response), response) for response in made]


def _seq_of(response: StreamResponse) -> int:
    update = response.status_update or response.artifact_update
    assert update is not None, "a task's events are updates"
    assert update.metadata is not None, "each with the seq it was made from"
    return int(update.metadata["seq"])


class TaskEventStream:
    heartbeat = HEARTBEAT

    def __init__(self, projection: TaskProjection, call_id: str | int | None, *, history_length: int | None = None):
        self._projection = projection
        self._head = result_head(call_id)
        first = StreamResponse(task=projection.task(history_length=history_length))
        self.opening = sse_frame(result_body(call_id, first), projection.seq or None)

    def encode(self, events: Sequence[StoredEvent]) -> bytes:
        head = self._head
        return b"".join(
            sse_frame(b"%s%s}" % (head, _encode(made)), seq) for seq, made in project_events(self._projection, events)
        )

    def finished(self, events: Sequence[StoredEvent]) -> bool:
        return self._projection.settled


class TaskResult:
    opening = b""
    heartbeat = b"\n"

    def __init__(self, projection: TaskProjection, call_id: str | int | None, *, history_length: int | None = None):
        self._projection = projection
        self._call_id = call_id
        self._history_length = history_length

    def encode(self, events: Sequence[StoredEvent]) -> bytes:
        project_events(self._projection, events)
        return self.answer() if self._projection.settled else b""

    def finished(self, events: Sequence[StoredEvent]) -> bool:
        return self._projection.settled

    def answer(self) -> bytes:
        """The response with the task as it stands (settled, or as far as it came when the stream had to end)."""
        task = self._projection.task(history_length=self._history_length)
        return result_body(self._call_id, SendMessageResponse(task=task))
