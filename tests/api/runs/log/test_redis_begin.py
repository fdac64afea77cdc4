"""The ``BEGIN`` script's ownership flags against ``SessionAccess.may_continue``: one rule, written twice (the
script must decide atomically with beginning the run), held equal here for every kind of caller and owner."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

import pytest
import redis.asyncio

from api.runs.errors import SessionNotFound
from api.runs.log.ownership import SessionAccess
from api.runs.log.redis import RedisEventLog
from api.runs.log.redis_keys import RunKeys
from tests.support.run_records import run_record

if TYPE_CHECKING:
    from tests.support.shared_stores import SharedStores

OWNERS = [None, "alice", "bob", "legacy"]
"""Who a session may belong to: nobody (begun with identity off), or a subject."""
CALLERS = [
    SessionAccess(owner="alice"),
    SessionAccess(owner="bob"),
    SessionAccess(owner=None),
    SessionAccess(owner=None, any_session=True),
    SessionAccess(owner="legacy", unowned_sessions=True),
    SessionAccess(owner="alice", any_session=True),
]


class Unreachable:
    """PostgreSQL's side, which a session Redis knows never needs."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"BEGIN asked PostgreSQL ({name}) about a session Redis knows")


@pytest.fixture
def log(redis_client: redis.asyncio.Redis, shared: SharedStores) -> RedisEventLog:
    return RedisEventLog(
        redis_client,
        Unreachable(),  # type: ignore[arg-type]
        Unreachable(),  # type: ignore[arg-type]
        keys=RunKeys(shared.redis_prefix),
        instance="test-instance",
        lease_s=10,
        replay_window=100,
    )


@pytest.mark.parametrize(("owner", "caller"), list(itertools.product(OWNERS, CALLERS)))
async def test_begin_lets_a_caller_continue_exactly_the_sessions_the_python_rule_lets_them(
    redis_client: redis.asyncio.Redis, log: RedisEventLog, owner: str | None, caller: SessionAccess
) -> None:
    await redis_client.set(log.keys.owner("s_owned"), owner or "")

    try:
        busy = await log.begin_run(run_record("r_owned", "s_owned"), caller)
    except SessionNotFound:
        begun = False
    else:
        begun = busy is None

    assert begun is caller.may_continue(owner)
    assert (await redis_client.get(log.keys.owner("s_owned"))) == (owner or "").encode(), "the owner never changes"
