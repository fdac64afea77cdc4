"""Re-sealing a store under the current key, for ``harness rotate-key``: plain values sealed, values under an
old key opened and sealed again.

A table is walked in order, ``batch`` rows at a time, each batch one transaction. A value already under the
current key is left alone, so an interrupted rotation goes on where it stopped when run again. An update
applies only where the value is still the one read: a row the service changed meanwhile keeps the service's
value (sealed under the current key, since the service runs with it), and the next pass looks at it again.
Passes repeat until one changes nothing, and only then is the store's key check record written: "every value
here is sealed", under the current key (``agent.stores.key_check``). A SQLite file is then scrubbed
(``agent.stores.scrubbing``): the pages that held the plain or old-key values leave the file and its log.
"""

from __future__ import annotations

import asyncio
import base64
import json
import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from psycopg.types.json import Jsonb

from agent.interactions import SEALED_COLUMNS, where_comment, where_sealed
from agent.sealing import place
from agent.stores.graph_store import SEALED_FIELD
from agent.stores.key_check import sealed_record
from agent.stores.scrubbing import scrub
from agent.stores.sealed_serde import reseal_checkpoint_value

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path

    from psycopg_pool import AsyncConnectionPool

    from agent.sealing import Sealer
    from agent.stores import AgentStores

__all__ = (
    "POSTGRES_COLUMNS",
    "SQLITE_FILES",
    "SealedColumn",
    "mark_postgres_sealed",
    "reseal_agent_stores",
    "reseal_postgres",
    "reseal_sqlite_file",
)

_MAX_PASSES = 5


@dataclass(frozen=True)
class SealedColumn:
    """A column of sealed values and how to find its rows."""

    label: str
    """What it holds, for the command's report: ``checkpoints``, ``interactions``, ``run events``."""
    table: str
    column: str
    keys: tuple[str, ...]
    """The row's key (PostgreSQL walks the table in its order) and what ``where`` takes."""
    where: Callable[..., bytes] | None
    """The associated data of the row's value, from its key; None for a checkpoint value, whose serializer
    type (the ``type`` column) names its cipher."""
    rows: str = "TRUE"
    """Which rows hold a value (SQL)."""

    def resealed(self, sealer: Sealer, key: Sequence[Any], value_type: str | None, value: Any) -> list[Any] | None:
        """What to store instead (a checkpoint value: its type, then its bytes), or None when the value is under
        the current key already."""
        if self.where is None:
            assert value_type is not None, "a checkpoint value has a type"
            found = reseal_checkpoint_value(sealer, value_type, bytes(value))
            return None if found is None else list(found)
        data = value.encode() if isinstance(value, str) else bytes(value)
        if sealer.is_current(data):
            return None
        return [sealer.reseal(data, self.where(*key))]

    @property
    def json_values(self) -> bool:
        """Whether the column holds JSON (a store item's value), which ``resealed`` answers as JSON text."""
        return False

    @property
    def assignments(self) -> str:
        """The SQL that stores what ``resealed`` gives (``?`` placeholders)."""
        return f"type = ?, {self.column} = ?" if self.where is None else f"{self.column} = ?"


@dataclass(frozen=True)
class StoreValueColumn(SealedColumn):
    """The long-term store's values: JSON objects, a sealed one ``{"__sealed__": "<base64>"}`` bound to its
    namespace (the subject's label first, kept as ``prefix`` joined by dots) and key
    (``agent.stores.graph_store._values``); a plain one is sealed whole."""

    def resealed(self, sealer: Sealer, key: Sequence[Any], value_type: str | None, value: Any) -> list[Any] | None:
        prefix, item_key = key
        stored = json.loads(value) if isinstance(value, str | bytes) else value
        where = place("store", *str(prefix).split("."), item_key)
        sealed = stored.get(SEALED_FIELD) if isinstance(stored, dict) and len(stored) == 1 else None
        if isinstance(sealed, str):
            data = base64.b64decode(sealed)
            if sealer.is_current(data):
                return None
            new = sealer.reseal(data, where)
        else:
            new = sealer.seal(json.dumps(stored, separators=(",", ":")).encode(), where)
        return [json.dumps({SEALED_FIELD: base64.b64encode(new).decode()})]

    @property
    def json_values(self) -> bool:
        return True


_STORE_VALUES = StoreValueColumn("store items", "store", "value", ("prefix", "key"), lambda *key: b"")
"""``where`` is unused: the place is made from the row's prefix and key in ``resealed``."""
_CHECKPOINT_ROWS = "type IS NOT NULL AND type <> 'empty'"
_INTERACTIONS = [
    SealedColumn("interactions", "interactions", column, ("run_id",), lambda run_id, c=column: where_sealed(c, run_id))
    for column in SEALED_COLUMNS
] + [SealedColumn("interactions", "feedback", "comment", ("run_id",), where_comment, "comment IS NOT NULL")]
SQLITE_FILES: dict[str, list[SealedColumn]] = {
    "checkpoints.sqlite": [
        SealedColumn(
            "checkpoints", "checkpoints", "checkpoint", (), None, f"checkpoint IS NOT NULL AND {_CHECKPOINT_ROWS}"
        ),
        SealedColumn("checkpoints", "writes", "value", (), None, f"value IS NOT NULL AND {_CHECKPOINT_ROWS}"),
    ],
    "interactions.sqlite": _INTERACTIONS,
    "store.sqlite": [_STORE_VALUES],
}
"""The agent's embedded files and their sealed columns (a SQLite walk goes by ``rowid``)."""
POSTGRES_COLUMNS = [
    SealedColumn(
        "checkpoints",
        "checkpoint_blobs",
        "blob",
        ("thread_id", "checkpoint_ns", "channel", "version"),
        None,
        f"blob IS NOT NULL AND {_CHECKPOINT_ROWS}",
    ),
    SealedColumn(
        "checkpoints",
        "checkpoint_writes",
        "blob",
        ("thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "idx"),
        None,
        _CHECKPOINT_ROWS,
    ),
    *_INTERACTIONS,
    _STORE_VALUES,
]


def reseal_sqlite_file(path: Path, columns: Sequence[SealedColumn], sealer: Sealer, batch: int) -> dict[str, int]:
    """Re-seal the ``columns`` of the SQLite file at ``path`` (on the calling thread); the values changed, by label."""
    counts = dict.fromkeys((column.label for column in columns), 0)
    if not path.exists():
        return counts
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("PRAGMA busy_timeout=5000")
        db.execute("PRAGMA secure_delete=ON")  # the plain or old-key pages are overwritten, not left behind
        for _ in range(_MAX_PASSES):
            changed = [_reseal_sqlite_column(db, column, sealer, batch) for column in columns]
            for column, count in zip(columns, changed, strict=True):
                counts[column.label] += count
            if not any(changed):
                _mark_sqlite_sealed(db, sealer)
                if any(counts.values()):
                    scrub(db)
                return counts
    finally:
        db.close()
    raise RuntimeError(
        f"{path} kept changing under values not sealed with the current key; is a service without it running?"
    )


def _reseal_sqlite_column(db: sqlite3.Connection, column: SealedColumn, sealer: Sealer, batch: int) -> int:
    selected = ", ".join(["rowid", *column.keys, "NULL" if column.where else "type", column.column])
    after, changed = 0, 0
    while True:
        rows = db.execute(
            f"SELECT {selected} FROM {column.table} WHERE rowid > ? AND {column.rows} ORDER BY rowid LIMIT ?",
            (after, batch),
        ).fetchall()
        if not rows:
            return changed
        after = rows[-1][0]
        updates = []
        for rowid, *key, value_type, value in rows:
            new = column.resealed(sealer, key, value_type, value)
            if new is not None:
                updates.append((*new, rowid, value))
        db.execute("BEGIN")
        db.executemany(
            f"UPDATE {column.table} SET {column.assignments} WHERE rowid = ? AND {column.column} = ?", updates
        )
        db.execute("COMMIT")
        changed += len(updates)


def _mark_sqlite_sealed(db: sqlite3.Connection, sealer: Sealer) -> None:
    db.execute(
        "CREATE TABLE IF NOT EXISTS harness_key_check (id INTEGER PRIMARY KEY CHECK (id = 1), type TEXT, value BLOB)"
    )
    db.execute("INSERT OR REPLACE INTO harness_key_check VALUES (1, ?, ?)", sealed_record(sealer))


async def reseal_postgres(
    pool: AsyncConnectionPool[Any], columns: Sequence[SealedColumn], sealer: Sealer, batch: int
) -> dict[str, int]:
    """Re-seal the ``columns`` of the database, pass after pass until one changes nothing; the values changed."""
    counts = dict.fromkeys((column.label for column in columns), 0)
    for _ in range(_MAX_PASSES):
        changed = [await _reseal_postgres_column(pool, column, sealer, batch) for column in columns]
        for column, count in zip(columns, changed, strict=True):
            counts[column.label] += count
        if not any(changed):
            return counts
    raise RuntimeError(
        "PostgreSQL kept changing under values not sealed with the current key; is a service without it running?"
    )


async def _reseal_postgres_column(
    pool: AsyncConnectionPool[Any], column: SealedColumn, sealer: Sealer, batch: int
) -> int:
    keys = ", ".join(column.keys)
    selected = f"{keys}, {'NULL' if column.where else 'type'} AS value_type, {column.column} AS value"
    matches = " AND ".join(f"{name} = %s" for name in column.keys)
    update = (
        f"UPDATE {column.table} SET {column.assignments.replace('?', '%s')} WHERE {matches} AND {column.column} = %s"
    )
    after: tuple[Any, ...] = ()
    changed = 0
    while True:
        cursor_sql = f" AND ({keys}) > ({', '.join(['%s'] * len(after))})" if after else ""
        async with pool.connection() as connection:
            found = await connection.execute(
                f"SELECT {selected} FROM {column.table} WHERE {column.rows}{cursor_sql} ORDER BY {keys} LIMIT %s",
                (*after, batch),
            )
            rows = await found.fetchall()
            if not rows:
                return changed
            after = tuple(rows[-1][name] for name in column.keys)
            updates = []
            for row in rows:
                key = [row[name] for name in column.keys]
                new = column.resealed(sealer, key, row["value_type"], row["value"])
                if new is not None and column.json_values:
                    updates.append((Jsonb(json.loads(new[0])), *key, Jsonb(row["value"])))
                elif new is not None:
                    updates.append((*new, *key, row["value"]))
            async with connection.transaction(), connection.cursor() as cursor:
                await cursor.executemany(update, updates)
        changed += len(updates)


async def mark_postgres_sealed(pool: AsyncConnectionPool[Any], sealer: Sealer) -> None:
    """Write the database's key check record, once every sealed table of it (the run archive's too) is re-sealed."""
    from agent.stores.pg_key_check import PostgresKeyCheck

    async with pool.connection() as connection:
        await PostgresKeyCheck(connection, "").write_record(sealed_record(sealer))


async def reseal_agent_stores(data_dir: Path, stores: AgentStores, batch: int) -> dict[str, int]:
    """The agent's stores re-sealed: the embedded files (each marked sealed), or PostgreSQL's tables (marked by
    the caller, once the run archive in the same database is done too)."""
    assert stores.sealer is not None, "rotation needs a key"
    counts: dict[str, int] = {}
    if stores.database is not None:
        return await reseal_postgres(stores.database, POSTGRES_COLUMNS, stores.sealer, batch)
    for name, columns in SQLITE_FILES.items():
        found = await asyncio.to_thread(reseal_sqlite_file, data_dir / name, columns, stores.sealer, batch)
        for label, count in found.items():
            counts[label] = counts.get(label, 0) + count
    return counts
