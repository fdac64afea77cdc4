"""The embedded event log's batches, written on the loop thread: one transaction per batch of the writer's, a run's
events of a batch in one row (MessagePack, sealed when a key is set), and the run trimmed to its replay window."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from api.runs.log.records import EncodedRecord, StoredEvent, as_envelopes, trim_point, where_batch, where_record

if TYPE_CHECKING:
    import sqlite3

    from agent import Sealer

__all__ = ("Op", "SessionRow", "SqliteBatches", "ThreadRow", "encode_events")

encode_events = msgspec.msgpack.Encoder().encode
_decode_events = msgspec.msgpack.Decoder(list[StoredEvent]).decode


class SessionRow(msgspec.Struct, frozen=True):
    session_id: str
    owner: str | None


class ThreadRow(msgspec.Struct, frozen=True):
    thread_id: str
    record: bytes


Op = tuple[str, StoredEvent] | EncodedRecord | SessionRow | ThreadRow
"""What a batch holds: an event of a run, a run's record, a session's owner, a thread."""


class SqliteBatches:
    def __init__(self, *, replay_window: int, sealer: Sealer | None) -> None:
        self._window = replay_window
        self._sealer = sealer
        self.unchecked_bytes = 0
        """How much was written since the last checkpoint."""

    def write(self, db: sqlite3.Connection, batch: list[Op]) -> dict[str, int]:
        """Write ``batch`` in one transaction; the last seq committed of each run."""
        sessions: list[tuple[str, str | None]] = []
        threads: list[tuple[str, bytes]] = []
        events: dict[str, list[StoredEvent]] = {}
        records: list[tuple[str, str, str, bytes, str, str | None]] = []
        held: list[StoredEvent] = []
        held_for = None
        for op in batch:
            if op.__class__ is tuple:  # an event: nearly every op of a batch
                run_id, event = op
                if run_id is not held_for:
                    held, held_for = events.setdefault(run_id, []), run_id
                held.append(event)
            elif isinstance(op, SessionRow):
                sessions.append((op.session_id, op.owner))
            elif isinstance(op, ThreadRow):
                threads.append((op.thread_id, op.record))
            else:
                assert isinstance(op, EncodedRecord)
                data = op.data if self._sealer is None else self._sealer.seal(op.data, where_record(op.run_id))
                records.append((op.run_id, op.session_id, op.status, data, op.changed_at, op.account_id))
        rows = [
            (run_id, held[-1].seq, held[0].seq, len(held), self._blob(run_id, held)) for run_id, held in events.items()
        ]
        db.execute("BEGIN")
        try:
            db.executemany("INSERT OR IGNORE INTO sessions VALUES (?, ?)", sessions)
            db.executemany("INSERT OR REPLACE INTO threads VALUES (?, ?)", threads)
            db.executemany("INSERT INTO event_batches VALUES (?, ?, ?, ?, ?)", rows)
            db.executemany(
                "INSERT INTO runs (run_id, session_id, status, record, changed_at, account_id) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (run_id) DO UPDATE SET status = excluded.status, "
                "record = excluded.record, changed_at = excluded.changed_at",
                records,
            )
            for run_id, last_seq, *_ in rows:
                self._trim(db, run_id, last_seq)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        self.unchecked_bytes += sum(len(row[-1]) for row in rows) + sum(len(record[3]) for record in records)
        return {run_id: last_seq for run_id, last_seq, *_ in rows}

    def _trim(self, db: sqlite3.Connection, run_id: str, last_seq: int) -> None:
        through = trim_point(last_seq, self._window)
        if through <= 1:
            return
        cursor = db.execute(
            "UPDATE runs SET trimmed_through = ? WHERE run_id = ? AND trimmed_through < ?",
            (through, run_id, through),
        )
        if not cursor.rowcount:
            return
        db.execute("DELETE FROM event_batches WHERE run_id = ? AND first_seq > 1 AND last_seq <= ?", (run_id, through))
        # What is left to trim: seqs 2.. of the run's first batch, and the start of the batch the trim point cuts
        # (the one after it): two lookups on the key, however many batches the run has
        next_batch = (
            "SELECT last_seq, held, events FROM event_batches WHERE run_id = ? AND last_seq > ? "
            "ORDER BY last_seq LIMIT 1"
        )
        candidates = {db.execute(next_batch, (run_id, after)).fetchone() for after in (0, through)}
        for batch_last_seq, held, blob in filter(None, candidates):
            stored = self.events(run_id, batch_last_seq, blob)
            kept = [event for event in stored if event.seq == 1 or event.seq > through]
            if len(kept) == held:
                continue
            db.execute(
                "UPDATE event_batches SET last_seq = ?, first_seq = ?, held = ?, events = ? "
                "WHERE run_id = ? AND last_seq = ?",
                (kept[-1].seq, kept[0].seq, len(kept), self._blob(run_id, kept), run_id, batch_last_seq),
            )

    def _blob(self, run_id: str, held: list[StoredEvent]) -> bytes:
        """A batch's events as the row stores them: MessagePack, sealed with a key."""
        blob = encode_events(held)
        return blob if self._sealer is None else self._sealer.seal(blob, where_batch(run_id, held[-1].seq))

    def events(self, run_id: str, last_seq: int, blob: bytes) -> list[StoredEvent]:
        if self._sealer is not None:
            blob = self._sealer.unseal(blob, where_batch(run_id, last_seq))
        return as_envelopes(_decode_events(blob))
