"""What ``/wait`` and ``/join`` answer: a run's result once it has settled, as the Agent Server writes it.

The body is JSON, sent when the run stops (completed, waiting at an interrupt, failed); until then the
response carries a newline at each heartbeat so proxies keep it (leading whitespace is valid JSON). A finished
run answers its final state; one waiting at an interrupt its state with ``__interrupt__``; one that failed or was
cancelled ``{"__error__": {"error", "message"}}``, all with status 200, as langgraph-sdk expects. A wait that
lasts ``HARNESS_STREAM_MAX_S`` before its run settles (or meets the service shutting down) answers the run's state
as far as it came, its last ``values``; ``Location`` (``.../join``) waits again, within ``HARNESS_DISCONNECT_GRACE_S``
for a run that is not to continue without a follower.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from api.agent_protocol.stream import values_so_far
from contracts import TERMINAL_EVENT_TYPES

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    from api.runs.log.records import RunRecord, StoredEvent
    from api.runs.registry import RunRegistry
    from api.runs.stream.follow import RunStreams

__all__ = ("result_body", "run_result")

_KEEPALIVE = b"\n"
_SETTLED = frozenset({*TERMINAL_EVENT_TYPES, "paused"})
_UNSETTLED = frozenset({"pending", "running"})


class _UntilSettled:
    """A stream encoder that writes nothing but keepalives, and ends when the run pauses or ends."""

    opening = b""
    heartbeat = _KEEPALIVE

    def __init__(self) -> None:
        self._settled = False

    def encode(self, events: Sequence[StoredEvent]) -> bytes:
        self._settled = events[-1].type in _SETTLED  # a pause followed by more events was resumed since
        return b""

    def finished(self, events: Sequence[StoredEvent]) -> bool:
        return self._settled


def run_result(record: RunRecord) -> Any:
    snapshot, graph = record.snapshot, record.graph
    if snapshot.status in ("failed", "cancelled"):
        error = snapshot.error
        return {"__error__": {"error": error.code if error else "error", "message": error.message if error else ""}}
    if graph is None:  # a /chat turn joined through the Agent Protocol
        return msgspec.to_builtins(snapshot.response)
    if snapshot.status == "waiting":
        interrupts = [{"value": interrupt.value, "id": interrupt.id} for interrupt in graph.interrupts]
        values = graph.output if isinstance(graph.output, dict) else {}
        return {**values, "__interrupt__": interrupts}
    return graph.output


async def result_body(runs: RunRegistry, streams: RunStreams, run_id: str, after: int) -> AsyncIterator[bytes]:
    """Keepalives until the run settles after ``after``, then its result (or its state so far, module doc)."""
    async for chunk in streams.follow(run_id, after, _UntilSettled()):
        yield chunk
    found = await runs.find(run_id)
    assert found is not None, "a run followed has a record"
    record = found.record
    if record.snapshot.status in _UNSETTLED:  # the follow lasted HARNESS_STREAM_MAX_S, or the service is stopping
        yield msgspec.json.encode(values_so_far(await streams.committed(run_id)))
    else:  # settled, whether the follow saw its last event or it ended without one (a pending run cancelled)
        yield msgspec.json.encode(run_result(record))
