"""The Redis log's stream entries (docs/adr/0027): one entry per commit of a run, and reads that stay seq-exact.

On the real Redis and PostgreSQL: a commit's events are one entry whose id is its last seq; a read from any
seq returns exactly the events after it; the replay window and the trim point are what they were with one
entry per event, the one entry the trim cuts included; a retried commit is skipped, a stale writer fenced;
a sealed entry moved to another place does not open; entries written one event each are still read.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import pytest
import redis.asyncio

from agent.encryption import EncryptionKey
from agent.sealing import Sealer, TamperedError
from agent.stores.postgres import apply_migrations, migration_lock, open_pool
from api.runs.log.archive import RunArchive
from api.runs.log.ownership import SessionAccess
from api.runs.log.records import StoredEvent
from api.runs.log.redis import RedisEventLog
from api.runs.log.redis_entries import entry_blob
from api.runs.log.redis_keys import RunKeys
from api.runs.log.redis_scripts import APPEND
from api.runs.log.session_owners import SessionOwners
from tests.support.run_records import run_record

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable

    from tests.support.shared_stores import SharedStores

ANYONE = SessionAccess(owner=None, any_session=True)


@pytest.fixture
async def open_log(redis_client: redis.asyncio.Redis, shared: SharedStores) -> AsyncIterator[Callable[..., Any]]:
    """``await open_log(window=..., sealer=...)``: a log on the test's stores, closed at the end."""
    opened: list[RedisEventLog] = []
    async with open_pool(shared.database_url) as pool:
        async with migration_lock(pool) as connection:
            await apply_migrations(connection, "runs", RunArchive.MIGRATIONS)
            await apply_migrations(connection, "sessions", SessionOwners.MIGRATIONS)

        async def start(*, window: int = 1000, sealer: Sealer | None = None, instance: str = "a") -> RedisEventLog:
            log = RedisEventLog(
                redis_client,
                RunArchive(pool, sealer),
                SessionOwners(pool),
                keys=RunKeys(shared.redis_prefix),
                instance=instance,
                lease_s=10,
                replay_window=window,
                sealer=sealer,
            )
            await log.open(lambda run_id, seq: None, lambda run_id: None)
            opened.append(log)
            return log

        try:
            yield start
        finally:
            for log in opened:
                await log.close()


def event(seq: int) -> StoredEvent:
    kind = "graph_topology" if seq == 1 else "token_delta"
    return StoredEvent(seq, kind, f'{{"type":"{kind}","seq":{seq}}}'.encode())


def frame(seq: int) -> bytes:
    """Event ``seq`` as versions before envelopes stored it: its whole SSE frame."""
    stored = event(seq)
    return b"id: r:%d\nevent: %s\ndata: %s\n\n" % (seq, stored.type.encode(), stored.envelope)


async def begun(log: RedisEventLog, run_id: str) -> None:
    assert await log.begin_run(run_record(run_id, f"s_{run_id}"), ANYONE, new_session=True) is None


async def committed(log: RedisEventLog, run_id: str, seqs: range) -> None:
    for seq in seqs:
        log.append(run_id, event(seq))
    await log.flush()


async def test_a_commit_is_one_entry_and_a_read_from_any_seq_returns_exactly_what_follows(
    open_log: Callable[..., Any], redis_client: Any
) -> None:
    log = await open_log()
    await begun(log, "r_one")
    await committed(log, "r_one", range(1, 301))
    await committed(log, "r_one", range(301, 321))

    assert await redis_client.xlen(log.keys.events("r_one")) == 2
    assert [entry_id for entry_id, _ in await redis_client.xrange(log.keys.events("r_one"))] == [b"300-0", b"320-0"]
    for after in (0, 1, 2, 150, 299, 300, 301, 319, 320):
        events, trimmed = await log.read("r_one", after)
        assert [e.seq for e in events] == list(range(after + 1, 321)), after
        assert events == [event(seq) for seq in range(after + 1, 321)]
        assert trimmed == 1


async def test_the_replay_window_and_trim_point_stay_exact_when_the_trim_cuts_an_entry(
    open_log: Callable[..., Any], redis_client: Any
) -> None:
    log = await open_log(window=10)
    await begun(log, "r_trim")
    await committed(log, "r_trim", range(1, 31))  # one entry, 1..30: the trim point 20 cuts it
    await committed(log, "r_trim", range(31, 36))

    assert [entry_id for entry_id, _ in await redis_client.xrange(log.keys.events("r_trim"))] == [b"30-0", b"35-0"]
    events, trimmed = await log.read("r_trim", 0)
    assert trimmed == 25
    assert [e.seq for e in events] == [1, *range(26, 36)]  # the topology, then exactly the window
    events, _ = await log.read("r_trim", 27)
    assert [e.seq for e in events] == list(range(28, 36))
    await committed(log, "r_trim", range(36, 46))
    # neither 1..30 nor 31..35 holds an event above the new trim point (35): both are gone
    assert [entry_id for entry_id, _ in await redis_client.xrange(log.keys.events("r_trim"))] == [b"45-0"]
    events, trimmed = await log.read("r_trim", 0)
    assert (trimmed, [e.seq for e in events]) == (35, [1, *range(36, 46)])


async def test_a_retried_commit_is_skipped_and_a_writer_without_the_lease_is_fenced(
    open_log: Callable[..., Any], redis_client: Any
) -> None:
    log = await open_log()
    await begun(log, "r_retry")
    await committed(log, "r_retry", range(1, 11))
    (entry_id, fields), *_ = await redis_client.xrange(log.keys.events("r_retry"))
    keys = log.keys
    script = redis_client.register_script(APPEND)
    args = ["r_retry", "a", 1000, 10_000, b"", "", "", 1, 10, fields[b"f"], event(1).envelope, 0]

    again = await script(keys=script_keys(keys, "r_retry"), args=[keys.prefix, *args])
    other = await script(keys=script_keys(keys, "r_retry"), args=[keys.prefix, "r_retry", "b", *args[2:]])

    assert again == [b"ok", 10]
    assert other == [b"fenced", -1]
    assert await redis_client.xlen(keys.events("r_retry")) == 1
    assert entry_id == b"10-0"


async def test_a_sealed_entry_opens_in_its_place_only(open_log: Callable[..., Any], redis_client: Any) -> None:
    sealer = Sealer(EncryptionKey(os.urandom(32)))
    log = await open_log(sealer=sealer)
    for run_id in ("r_a", "r_b"):
        await begun(log, run_id)
        await committed(log, run_id, range(1, 6))
    (_, fields), *_ = await redis_client.xrange(log.keys.events("r_a"))

    assert b"token_delta" not in fields[b"f"]
    assert [e.seq for e in (await log.read("r_a", 0))[0]] == [1, 2, 3, 4, 5]
    await redis_client.xadd(log.keys.events("r_b"), {"f": fields[b"f"]}, id="6-0")  # r_a's entry, moved to r_b
    with pytest.raises(TamperedError):
        await log.read("r_b", 0)


async def test_entries_of_one_event_each_written_before_batching_are_still_read(
    open_log: Callable[..., Any], redis_client: Any
) -> None:
    log = await open_log()
    await begun(log, "r_old")
    keys = log.keys
    for seq in range(1, 4):
        await redis_client.xadd(keys.events("r_old"), {"t": event(seq).type, "f": frame(seq)}, id=f"{seq}-0")
    await redis_client.hset(keys.run("r_old"), mapping={"topology": frame(1), "last_seq": 3})
    await committed(log, "r_old", range(4, 8))

    events, _ = await log.read("r_old", 0)
    assert events == [event(seq) for seq in range(1, 8)]


def script_keys(keys: RunKeys, run_id: str) -> list[str]:
    return [keys.run(run_id), keys.events(run_id), keys.lease(run_id), keys.running]


async def test_entries_of_frames_written_before_the_log_held_envelopes_are_read_as_envelopes(
    open_log: Callable[..., Any], redis_client: Any
) -> None:
    log = await open_log()
    await begun(log, "r_frames")
    keys = log.keys
    old = [StoredEvent(seq, event(seq).type, frame(seq)) for seq in range(1, 4)]
    await redis_client.xadd(keys.events("r_frames"), {"f": entry_blob("r_frames", old, None)}, id="3-0")
    await redis_client.hset(keys.run("r_frames"), mapping={"topology": frame(1), "last_seq": 3})
    await committed(log, "r_frames", range(4, 6))

    events, _ = await log.read("r_frames", 0)
    later, _ = await log.read("r_frames", 2)
    assert events == [event(seq) for seq in range(1, 6)]
    assert later == [event(seq) for seq in range(3, 6)]
