"""What the event log stores: encoded events and the record of each run, and where each is sealed.

With a key (``agent.sealing``), every stored blob is sealed with the place it belongs to as associated data:
a run's record with its run id, an event's envelope with its run id and seq (Redis: one stream entry per event,
the topology field being entry 1's envelope), a batch of events with its run id and last seq (SQLite: one row
per run per batch). So a sealed blob copied to another run, or another row of the same run, does not open.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from agent import is_sealed, place
from contracts import InterruptInfo, RunSnapshot

if TYPE_CHECKING:
    from agent import Sealer

__all__ = (
    "FINISHED",
    "PENDING",
    "EncodedRecord",
    "GraphRun",
    "RunRecord",
    "StoredEvent",
    "as_envelopes",
    "envelope_of_frame",
    "open_record",
    "trim_point",
    "where_batch",
    "where_event",
    "where_record",
)

FINISHED = frozenset({"completed", "failed", "cancelled"})
"""Run statuses after a terminal event."""
PENDING = "pending"
"""A run queued behind its thread's unfinished run (``multitask_strategy`` ``enqueue``): it has no events yet."""


class StoredEvent(msgspec.Struct, frozen=True, gc=False, array_like=True):
    """One event of a run's log. Not tracked by the garbage collector (it holds no containers): a run keeps
    thousands of them in memory, which a tracked type would make every collection walk."""

    seq: int
    type: str
    envelope: bytes
    """The event's envelope as JSON, encoded once; every protocol's stream is made from these very bytes (the
    service's own SSE frames them, ``api.runs.stream.frames.sse_frames``)."""


_FRAME_START = b"id: "
_FRAME_DATA = b"\ndata: "


def as_envelopes(events: list[StoredEvent]) -> list[StoredEvent]:
    """Events read from a log: as they are, or, when a version before envelopes wrote them (each the whole SSE
    frame, ``id: …\nevent: …\ndata: <envelope>\n\n``), with each frame's envelope in its place. What one
    commit wrote is of one version, so its first event tells."""
    if not events or not events[0].envelope.startswith(_FRAME_START):
        return events
    return [StoredEvent(event.seq, event.type, envelope_of_frame(event.envelope)) for event in events]


def envelope_of_frame(frame: bytes) -> bytes:
    """The envelope of an SSE frame the log stored before it held envelopes (an envelope is returned as it is)."""
    if not frame.startswith(_FRAME_START):
        return frame
    start = frame.index(_FRAME_DATA) + len(_FRAME_DATA)
    return frame[start:].removesuffix(b"\n\n")


class GraphRun(msgspec.Struct, kw_only=True):
    """A run of a registered graph (through the Agent Protocol): how it was asked for, and where it stopped."""

    graph_id: str
    assistant_id: str
    modes: list[str]
    """The LangGraph stream modes it logs as ``graph_part`` events (``messages`` is the tuple form)."""
    stream_modes: list[str] = msgspec.field(default_factory=list)
    """The stream modes its requests asked for (it logs ``values`` besides): what a join that names none gets,
    as the SDKs' reconnects do. Empty for a run logged before it was kept: every mode logged."""
    subgraphs: bool = False
    """Whether its streams show the parts of its subgraphs."""
    detached: bool = False
    """It goes on with nobody following it (a background run, or ``on_disconnect: continue``)."""
    metadata: dict[str, Any] = msgspec.field(default_factory=dict)
    config: dict[str, Any] = msgspec.field(default_factory=dict)
    """The client's LangGraph config (``configurable``, ``tags``, ``recursion_limit``, ...)."""
    context: dict[str, Any] | None = None
    """The client's run context (LangGraph's ``context=``)."""
    multitask_strategy: str = "reject"
    interrupts: list[InterruptInfo] = msgspec.field(default_factory=list)
    """What it waits for, while it waits."""
    output: Any = None
    """Its final state, once completed."""
    input: Any = None
    """The input of a run that is ``pending`` (queued behind its thread's run), kept until it starts."""
    webhook: str | None = None
    """The URL the run is POSTed to when it ends (``api.webhooks``), checked against the allowed hosts when the run
    was asked for; a cron's runs carry the cron's."""
    auth_user: dict[str, Any] | None = None
    """The user langgraph.json's ``@auth.authenticate`` returned for whoever started the run (``Principal.user``),
    its ``configurable["langgraph_auth_user"]``; None with the service's own identity."""


class RunRecord(msgspec.Struct, kw_only=True):
    snapshot: RunSnapshot
    paused_at_ns: int | None = None
    """When the run paused for its human, to report ``human_wait_ms`` after the resume."""
    human_wait_ms: float | None = None
    owner: str | None = None
    """The subject who started the run; None when identity was off."""
    account_id: str | None = None
    """The account of the subject who started the run (its token's ``account_id``): the sessions a deleted
    account takes with it are the ones its runs were started in."""
    graph: GraphRun | None = None
    """A run of a registered graph; None for a turn of the support agent's ``/chat``."""

    @property
    def run_id(self) -> str:
        return self.snapshot.run_id

    @property
    def record(self) -> RunRecord:
        """The record itself: a stored record answers ``record`` and ``current_snapshot()`` as a live run does."""
        return self

    def current_snapshot(self) -> RunSnapshot:
        """Where the run stands, as the log has it."""
        return self.snapshot

    def encode(self) -> EncodedRecord:
        """The record as the log writes it, frozen now: later changes to the run do not reach the store."""
        snapshot = self.snapshot
        return EncodedRecord(
            snapshot.run_id,
            snapshot.session_id,
            snapshot.status,
            snapshot.last_seq,
            _encode(self),
            changed_at=snapshot.updated_at,
            account_id=self.account_id,
        )


class EncodedRecord(msgspec.Struct, frozen=True):
    run_id: str
    session_id: str
    status: str
    last_seq: int
    data: bytes
    changed_at: str = ""
    """When the run's status last changed (RFC 3339, the service's clock): for a finished run, when it
    finished, which is what retention counts from."""
    account_id: str | None = None

    def decode(self) -> RunRecord:
        return _decode(self.data)

    def sealed(self, sealer: Sealer) -> EncodedRecord:
        return msgspec.structs.replace(self, data=sealer.seal(self.data, where_record(self.run_id)))


_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder(RunRecord).decode


def open_record(sealer: Sealer | None, run_id: str, data: bytes) -> RunRecord:
    """A stored record: opened with a key, a plain one refused (except by ``harness rotate-key``, which is
    there to seal them), as it is without."""
    if sealer is not None and (is_sealed(data) or not sealer.rotating):
        data = sealer.unseal(data, where_record(run_id))
    return _decode(data)


def where_record(run_id: str) -> bytes:
    return place("run", run_id)


def where_event(run_id: str, seq: int) -> bytes:
    return place("event", run_id, seq)


def where_batch(run_id: str, last_seq: int) -> bytes:
    return place("event_batches", run_id, last_seq)


def trim_point(last_seq: int, window: int) -> int:
    """The highest seq a log with this replay ``window`` no longer keeps (1 when nothing is trimmed).

    The topology (seq 1) is always kept, so a client joining late can still draw the graph.
    """
    return max(1, last_seq - window)
