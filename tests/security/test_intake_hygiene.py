"""Issue 24, finding 6 (its intake parts): what the service writes to disk is its own.

Over a real uvicorn: a fresh data directory is 0700 and every file in it 0600, and an existing looser one is
tightened.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import stat
from typing import TYPE_CHECKING

import httpx
import pytest

from agent.config import AgentConfig, StubConfig
from agent.evaluation.writer import write_reports
from api.settings import Settings
from tests.agent.evaluation.test_reports import sample_report

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from tests.e2e.conftest import LiveServer


@pytest.fixture
def local(tmp_path: Path) -> Settings:
    """What `make serve` runs with (identity off, the default allowed hosts), fast, on a fresh data directory."""
    return Settings(
        rate_limit_per_minute=0, agent=AgentConfig(data_dir=tmp_path / "data", stub=StubConfig(token_delay_ms=0))
    )


@pytest.fixture
def permissive_umask() -> Iterator[None]:
    """The umask most accounts have (022): files are world-readable unless the service says otherwise."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


class Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextlib.contextmanager
def logged(name: str = "") -> Iterator[list[logging.LogRecord]]:
    """What ``name`` (the root: every logger) logs meanwhile. Not caplog: Litestar's start replaces the root's
    handlers, pytest's among them, so loggers are listened to directly."""
    handler = Records()
    logger = logging.getLogger(name)
    logger.addHandler(handler)
    try:
        yield handler.records
    finally:
        logger.removeHandler(handler)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def test_a_fresh_data_directory_and_every_file_in_it_are_private(
    serve: Callable[..., LiveServer],
    local: Settings,
    permissive_umask: None,
) -> None:
    server = serve(local)
    async with httpx.AsyncClient(base_url=server.url) as client:
        paused = (await client.post("/chat", json={"message": "Please refund invoice INV-1001."})).json()
        assert paused["status"] == "paused"
    data_dir = local.agent.data_dir
    files = sorted(path.name for path in data_dir.iterdir())
    for name in ("events", "checkpoints", "interactions", "ledger"):
        assert f"{name}.sqlite" in files
        assert f"{name}.sqlite-wal" in files, files  # the stores are open: their write-ahead logs exist
    assert mode(data_dir) == 0o700
    assert {name: oct(mode(data_dir / name)) for name in files} == dict.fromkeys(files, oct(0o600))


async def test_an_existing_data_directory_open_to_others_is_tightened_with_a_warning(
    serve: Callable[..., LiveServer],
    local: Settings,
    permissive_umask: None,
) -> None:
    data_dir = local.agent.data_dir
    data_dir.mkdir(mode=0o755)
    with contextlib.closing(sqlite3.connect(data_dir / "events.sqlite")) as db:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("CREATE TABLE left_over (x)")
    os.chmod(data_dir / "events.sqlite", 0o644)

    with logged("agent") as records:
        serve(local)

    assert mode(data_dir) == 0o700
    assert {oct(mode(path)) for path in data_dir.iterdir()} == {oct(0o600)}
    warned = [record.getMessage() for record in records if record.levelno == logging.WARNING]
    assert any(str(data_dir) in line and "755" in line for line in warned), warned
    assert any("events.sqlite" in line and "644" in line for line in warned), warned


def test_eval_reports_quote_conversations_so_they_are_private(tmp_path: Path, permissive_umask: None) -> None:
    files = write_reports(sample_report(tmp_path), tmp_path / "eval")
    assert "ignore | the rules" in files.json.read_text(encoding="utf-8")  # a case's message, word for word
    assert mode(tmp_path / "eval") == 0o700
    assert {oct(mode(path)) for path in (files.json, files.markdown, files.html)} == {oct(0o600)}
