"""Following a run's replay: a reconnect's first write holds its first events, and every event goes out once."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent import SystemClock
from api.runs.log.records import StoredEvent
from api.runs.stream.feed import RunFeed
from api.runs.stream.follow import FIRST_WRITE, RunStreams
from api.runs.stream.frames import EnvelopeEncoder

if TYPE_CHECKING:
    from collections.abc import Sequence

    from api.runs.log.records import RunRecord

RUN_ID = "r_replayed"
OPENING = b"retry: 1000\n\n"


class _Log:
    def __init__(self, count: int) -> None:
        self.events = [StoredEvent(seq, "token_delta", b"{}") for seq in range(1, count + 1)]

    async def read(self, run_id: str, after: int) -> tuple[list[StoredEvent], int]:
        return [event for event in self.events if event.seq > after], len(self.events)

    async def load_run(self, run_id: str) -> RunRecord | None:
        raise AssertionError("the encoder ends the stream at the last event")


class _Seqs:
    """Writes each event's seq; finished with the log's last event."""

    opening = OPENING
    heartbeat = b":\n\n"

    def __init__(self, last: int) -> None:
        self.last = last

    def encode(self, events: Sequence[StoredEvent]) -> bytes:
        return b"".join(b"%d;" % event.seq for event in events)

    def finished(self, events: Sequence[StoredEvent]) -> bool:
        return events[-1].seq == self.last


def _streams(log: _Log) -> RunStreams:
    return RunStreams(
        log=log,
        feed=RunFeed(lambda run_id, count: None),
        live=lambda run_id: None,
        closing=lambda: False,
        envelopes=EnvelopeEncoder(),
        clock=SystemClock(),
        heartbeat_s=60,
        retry_ms=1000,
    )


async def _writes(count: int, after: int) -> list[bytes]:
    return [chunk async for chunk in _streams(_Log(count)).follow(RUN_ID, after, _Seqs(count))]


def _seqs(first: int, last: int) -> bytes:
    return b"".join(b"%d;" % seq for seq in range(first, last + 1))


async def test_a_long_replay_sends_its_first_events_first_then_the_rest_once() -> None:
    writes = await _writes(100, after=40)
    assert writes == [OPENING + _seqs(41, 40 + FIRST_WRITE), _seqs(41 + FIRST_WRITE, 100)]


async def test_a_short_replay_is_one_write() -> None:
    writes = await _writes(FIRST_WRITE + 3, after=3)
    assert writes == [OPENING + _seqs(4, FIRST_WRITE + 3)]
