"""What the event log stores: encoded events and the record of each run."""

from __future__ import annotations

import msgspec

from contracts import RunSnapshot

__all__ = (
    "FINISHED",
    "EncodedRecord",
    "RunRecord",
    "StoredEvent",
    "decode_record",
    "trim_point",
)

FINISHED = frozenset({"completed", "failed", "cancelled"})
"""Run statuses after a terminal event."""


class StoredEvent(msgspec.Struct, frozen=True, gc=False, array_like=True):
    """One event of a run's log. Not tracked by the garbage collector (it holds no containers): a run keeps
    thousands of them in memory, which a tracked type would make every collection walk."""

    seq: int
    type: str
    frame: bytes
    """The whole SSE frame, encoded once; a replay sends these very bytes."""


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


_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder(RunRecord).decode


def decode_record(data: bytes) -> RunRecord:
    return _decode(data)


def trim_point(last_seq: int, window: int) -> int:
    """The highest seq a log with this replay ``window`` no longer keeps (1 when nothing is trimmed).

    The topology (seq 1) is always kept, so a client joining late can still draw the graph.
    """
    return max(1, last_seq - window)
