"""The real Redis and PostgreSQL of a test of the shared run stores: fresh stores of its own, and a connection to its
Redis."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
import redis.asyncio

from tests.support.shared_stores import fresh_shared_stores

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator

    from tests.support.shared_stores import SharedStores


@pytest.fixture
def shared() -> Iterator[SharedStores]:
    with fresh_shared_stores() as stores:
        yield stores


@pytest.fixture
async def redis_client(shared: SharedStores) -> AsyncIterator[redis.asyncio.Redis]:
    connection = redis.asyncio.Redis.from_url(shared.redis_url)
    try:
        yield connection
    finally:
        await connection.aclose()
