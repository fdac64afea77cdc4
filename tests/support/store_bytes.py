"""Every byte the service's stores hold, to look for what must never be stored.

SQLite: the files of the data directory, WAL and journal included, read as they lie on disk. PostgreSQL:
every value of every row of every table of the test's schema (``bytea`` as its bytes, anything else as
text). Redis: every value under the test's key prefix, read by type.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import psycopg
import redis
from psycopg import sql

if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.shared_stores import SharedStores

__all__ = ("postgres_bytes", "redis_bytes", "sqlite_bytes", "stored_bytes")


def stored_bytes(data_dir: Path, shared: SharedStores | None) -> dict[str, bytes]:
    """What every store holds, by where it is (a file, a table, the Redis prefix)."""
    found = sqlite_bytes(data_dir)
    if shared is not None:
        found |= postgres_bytes(shared)
        found[f"redis {shared.redis_prefix}"] = redis_bytes(shared)
    return found


def sqlite_bytes(data_dir: Path) -> dict[str, bytes]:
    if not data_dir.exists():
        return {}
    return {path.name: path.read_bytes() for path in sorted(data_dir.iterdir()) if path.is_file()}


def postgres_bytes(shared: SharedStores) -> dict[str, bytes]:
    found: dict[str, bytes] = {}
    with psycopg.connect(shared.database_url, autocommit=True) as connection:
        tables = connection.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s", (shared.schema,)
        ).fetchall()
        for (table,) in tables:
            rows = connection.execute(sql.SQL("SELECT * FROM {}").format(sql.Identifier(shared.schema, table)))
            found[f"postgres {table}"] = b"\n".join(
                value if isinstance(value, bytes) else str(value).encode() for row in rows.fetchall() for value in row
            )
    return found


def redis_bytes(shared: SharedStores) -> bytes:
    client: Any = redis.Redis.from_url(shared.redis_url)
    parts: list[bytes] = []
    try:
        for key in client.scan_iter(match=f"{shared.redis_prefix}:*", count=1000):
            kind = client.type(key).decode()
            parts.append(key)
            if kind == "string":
                parts.append(client.get(key) or b"")
            elif kind == "hash":
                parts += [b for pair in client.hgetall(key).items() for b in pair]
            elif kind == "list":
                parts += client.lrange(key, 0, -1)
            elif kind == "set":
                parts += list(client.smembers(key))
            elif kind == "zset":
                parts += client.zrange(key, 0, -1)
            elif kind == "stream":
                parts += [b for _, fields in client.xrange(key) for pair in fields.items() for b in pair]
    finally:
        client.close()
    return b"\n".join(parts)
