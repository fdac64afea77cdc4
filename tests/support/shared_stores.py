"""Fresh shared stores for a test: a PostgreSQL schema and a Redis key prefix of its own, removed after.

The machine runs PostgreSQL and Redis on loopback (CI included); ``HARNESS_TEST_DATABASE_URL`` and
``HARNESS_TEST_REDIS_URL`` point the tests elsewhere.
"""

from __future__ import annotations

import os
import uuid
from contextlib import contextmanager
from typing import TYPE_CHECKING
from urllib.parse import quote

import msgspec
import psycopg
import redis

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ("DATABASE_URL", "REDIS_URL", "SharedStores", "fresh_shared_stores")

DATABASE_URL = os.environ.get("HARNESS_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("HARNESS_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


class SharedStores(msgspec.Struct, frozen=True):
    database_url: str
    """The test database, its search path set to the test's own schema."""
    redis_url: str
    redis_prefix: str
    schema: str

    @property
    def env(self) -> dict[str, str]:
        """The variables that point ``harness serve`` at these stores."""
        return {
            "HARNESS_DATABASE_URL": self.database_url,
            "HARNESS_REDIS_URL": self.redis_url,
            "HARNESS_REDIS_PREFIX": self.redis_prefix,
        }


@contextmanager
def fresh_shared_stores() -> Iterator[SharedStores]:
    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(DATABASE_URL, autocommit=True) as connection:
        connection.execute(f'CREATE SCHEMA "{schema}"')
    separator = "&" if "?" in DATABASE_URL else "?"
    stores = SharedStores(
        database_url=f"{DATABASE_URL}{separator}options={quote(f'-csearch_path={schema}')}",
        redis_url=REDIS_URL,
        redis_prefix=f"test-{schema}",
        schema=schema,
    )
    try:
        yield stores
    finally:
        with psycopg.connect(DATABASE_URL, autocommit=True) as connection:
            connection.execute(f'DROP SCHEMA "{schema}" CASCADE')
        client = redis.Redis.from_url(REDIS_URL)
        try:
            keys = list(client.scan_iter(match=f"{stores.redis_prefix}:*", count=1000))
            if keys:
                client.delete(*keys)
        finally:
            client.close()
