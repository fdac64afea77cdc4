"""Re-sealing the run stores under the current key, for ``harness rotate-key`` (as ``agent.stores.reseal``
does the agent's): the embedded log's batches and records, or the Redis runs and their PostgreSQL archive.

A Redis stream entry cannot change in place: a run whose entries are not all under the current key has its
stream written again, entry ids (``<last seq>-0``) kept, in one ``MULTI`` that applies only if neither the stream
nor the run's hash changed since they were read (``WATCH``); a run an instance appended to meanwhile is read
again. Its record and topology fields are re-sealed in the same transaction.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, cast

from redis.exceptions import WatchError

from agent.stores import sealed_record
from agent.stores.reseal import SealedColumn, mark_postgres_sealed, reseal_postgres, reseal_sqlite_file
from api.runs.log.records import where_batch, where_event, where_record
from api.runs.log.redis_entries import where_entry
from api.runs.log.redis_key_check import RedisKeyCheck
from api.runs.log.redis_keys import RunKeys
from api.runs.log.threads import where_thread

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from agent import Sealer
    from agent.stores import AgentStores
    from api.runs.settings import RunSettings

__all__ = ("reseal_run_stores",)

_GLOB_SPECIALS = str.maketrans({character: f"\\{character}" for character in "\\*?[]"})
_MAX_PASSES = 5
SQLITE_COLUMNS = [
    SealedColumn("run events", "event_batches", "events", ("run_id", "last_seq"), where_batch),
    SealedColumn("run records", "runs", "record", ("run_id",), where_record),
    SealedColumn("threads", "threads", "record", ("thread_id",), where_thread),
]
POSTGRES_COLUMNS = [
    SealedColumn("run records", "runs", "record", ("run_id",), where_record, "status <> 'erased'"),
    SealedColumn("threads", "session_threads", "record", ("thread_id",), where_thread),
]


async def reseal_run_stores(settings: RunSettings, stores: AgentStores, batch: int) -> dict[str, int]:
    """The run stores re-sealed, each marked sealed once done: the events' file, or Redis and the archive (and
    with the archive, the PostgreSQL database, whose agent tables the caller re-sealed before)."""
    sealer = stores.sealer
    assert sealer is not None, "rotation needs a key"
    if settings.redis_url is None:
        path = settings.agent.data_dir / "events.sqlite"
        return await asyncio.to_thread(reseal_sqlite_file, path, SQLITE_COLUMNS, sealer, batch)
    from api.runs.log.redis_client import connect_redis

    counts = await reseal_postgres(stores.database, POSTGRES_COLUMNS, sealer, batch)
    await mark_postgres_sealed(stores.database, sealer)
    redis = await connect_redis(settings.redis_url)
    try:
        events, records = await _reseal_redis(redis, RunKeys(settings.redis_prefix), sealer)
    finally:
        await redis.aclose()
    return {"run events": events, "run records": counts["run records"] + records, "threads": counts["threads"]}


async def _reseal_redis(redis: Redis, keys: RunKeys, sealer: Sealer) -> tuple[int, int]:
    """Every run's values under the prefix re-sealed, then the prefix marked sealed: how many events, how many
    records (the Redis copy of each)."""
    events = records = 0
    for _ in range(_MAX_PASSES):
        changed = 0
        async for key in redis.scan_iter(match=f"{keys.prefix.translate(_GLOB_SPECIALS)}:run:*", _type="hash"):
            run_id = key.decode()[len(keys.prefix) + len(":run:") :]
            if ":" not in run_id:  # not a run's own hash (its subscribers have one too)
                run_events, run_records = await _reseal_run(redis, keys, run_id, sealer)
                events, records, changed = (
                    events + run_events,
                    records + run_records,
                    changed + run_events + run_records,
                )
        if not changed:
            await RedisKeyCheck(redis, keys).write_record(sealed_record(sealer))
            return events, records
    raise RuntimeError(
        "Redis kept changing under values not sealed with the current key; is a service without it running?"
    )


async def _reseal_run(redis: Redis, keys: RunKeys, run_id: str, sealer: Sealer) -> tuple[int, int]:
    """Re-seal one run's stream and topology (its events), and its record: how many of each changed."""
    run_key, events_key = keys.run(run_id), keys.events(run_id)
    async with redis.pipeline(transaction=True) as pipe:
        while True:
            try:
                await pipe.watch(run_key, events_key)
                record, topology = cast("list[bytes | None]", await pipe.hmget(run_key, "record", "topology"))
                entries = cast("list[tuple[bytes, dict[bytes, bytes]]]", await pipe.xrange(events_key))
                fields: dict[str, bytes] = {}
                if record is not None and not sealer.is_current(record):
                    fields["record"] = sealer.reseal(record, where_record(run_id))
                if topology is not None and not sealer.is_current(topology):
                    fields["topology"] = sealer.reseal(topology, where_event(run_id, 1))
                stale = sum(not sealer.is_current(entry[b"f"]) for _, entry in entries)
                if not fields and not stale:
                    await pipe.unwatch()  # type: ignore[no-untyped-call]
                    return 0, 0
                pipe.multi()  # type: ignore[no-untyped-call]
                if fields:
                    pipe.hset(run_key, mapping=cast("Any", fields))
                if stale:
                    pipe.delete(events_key)
                    for entry_id, entry in entries:
                        seq = int(entry_id.split(b"-", 1)[0])
                        frame = entry[b"f"]
                        if not sealer.is_current(frame):
                            # an entry of one event (fields t and f) was written before entries held batches
                            where = where_event(run_id, seq) if b"t" in entry else where_entry(run_id, seq)
                            frame = sealer.reseal(frame, where)
                        pipe.xadd(events_key, cast("Any", {**entry, b"f": frame}), id=entry_id)
                await pipe.execute()
                return stale + ("topology" in fields), int("record" in fields)
            except WatchError:
                continue
