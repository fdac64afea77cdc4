"""The shared stores' connection pool hands out live connections without a round trip for each: a connection the
server closed is found by its socket and replaced, a quiet one goes out as it is."""

from __future__ import annotations

import os
import resource

import psycopg

from agent.stores.postgres import open_pool
from tests.support.shared_stores import DATABASE_URL


async def backend_of(connection: psycopg.AsyncConnection[dict[str, int]]) -> int:
    row = await (await connection.execute("SELECT pg_backend_pid() AS pid")).fetchone()
    assert row is not None
    return row["pid"]


async def test_a_connection_the_server_closed_is_replaced_before_anyone_uses_it() -> None:
    async with open_pool(DATABASE_URL) as pool:
        async with pool.connection() as first, pool.connection() as second:  # the pool's two
            pids = {await backend_of(first), await backend_of(second)}
        with psycopg.connect(DATABASE_URL, autocommit=True) as other:
            for pid in pids:  # what a restart, or a proxy that cut them, does to them
                other.execute("SELECT pg_terminate_backend(%s, 5000)", (pid,))  # returns once it has exited

        async with pool.connection() as connection:
            replacement = await backend_of(connection)

    assert replacement not in pids


async def test_a_quiet_connection_goes_out_without_a_round_trip() -> None:
    async with open_pool(DATABASE_URL) as pool:
        async with pool.connection() as first, pool.connection() as second:  # the pool's two, each used once
            await first.execute("SELECT 'the last query of a pooled connection'")
            await second.execute("SELECT 'the last query of a pooled connection'")

        async with pool.connection() as connection:
            last = _last_query(connection.info.backend_pid)

    assert last == "SELECT 'the last query of a pooled connection'", "the pool's check (an empty query) did not run"


def _last_query(pid: int) -> str:
    with psycopg.connect(DATABASE_URL, autocommit=True) as other:
        row = other.execute("SELECT query FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone()
    assert row is not None
    return str(row[0])


async def test_a_connection_past_descriptor_1023_is_checked_like_any_other() -> None:
    """An instance holding thousands of streams opens its new connections on descriptors past 1023 (which
    ``select`` refuses): they go out, and a dead one is still replaced."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 2048:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(2048, hard), hard))
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        async with open_pool(DATABASE_URL) as pool:
            async with pool.connection() as first, pool.connection() as second:
                assert min(first.fileno(), second.fileno()) > 1023
                pids = {await backend_of(first), await backend_of(second)}
            async with pool.connection(timeout=2) as connection:
                assert await backend_of(connection) in pids, "a quiet one goes out as it is"
            with psycopg.connect(DATABASE_URL, autocommit=True) as other:
                for pid in pids:
                    other.execute("SELECT pg_terminate_backend(%s, 5000)", (pid,))
            async with pool.connection(timeout=2) as connection:
                assert await backend_of(connection) not in pids
    finally:
        for fd in held:
            os.close(fd)
