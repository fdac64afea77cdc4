"""Issue 24, finding 6 (its intake parts): what a client sends is taken exactly or refused cleanly, and what the
service writes to disk is its own.

Over a real uvicorn: an id with a trailing newline (which ``$`` let through, and which then broke the
``Session-Id`` header) is a 422 wherever an id is taken and nothing is stored; a deeply nested JSON body
under the size limit is a 4xx problem with no traceback in the log (it was a ``RecursionError`` and a 500);
a fresh data directory is 0700 and every file in it 0600, and an existing looser one is tightened.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import sqlite3
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import jsonschema_rs
import pytest

from agent.config import AgentConfig, StubConfig
from agent.evaluation.writer import write_reports
from api.openapi import LAST_EVENT_ID_PATTERN
from api.settings import Settings
from contracts import CLIENT_ID_PATTERN, ID_PATTERN, INTERRUPT_ID_PATTERN, PROBLEM_MEDIA_TYPE
from tests.agent.evaluation.test_reports import sample_report

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from tests.e2e.conftest import LiveServer

QUESTION = "How do I reset my password?"
DOCS = Path(__file__).resolve().parents[2] / "docs"


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
    handlers, pytest's among them, so loggers are listened to directly, and the root once the server is up."""
    handler = Records()
    logger = logging.getLogger(name)
    logger.addHandler(handler)
    try:
        yield handler.records
    finally:
        logger.removeHandler(handler)


def runs_stored(settings: Settings) -> int:
    with contextlib.closing(sqlite3.connect(settings.agent.data_dir / "events.sqlite")) as db:
        count: int = db.execute("SELECT count(*) FROM runs").fetchone()[0]
    return count


def assert_problem(response: httpx.Response, status: int, code: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM_MEDIA_TYPE
    problem: dict[str, Any] = response.json()
    if code is not None:
        assert problem["code"] == code
    return problem


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def test_an_id_with_a_trailing_newline_is_422_wherever_an_id_is_taken_and_nothing_is_stored(
    serve: Callable[..., LiveServer],
    local: Settings,
) -> None:
    server = serve(local)
    async with httpx.AsyncClient(base_url=server.url) as client:
        turn = await client.post("/chat", json={"message": QUESTION, "session_id": "s-newline\n"})
        assert assert_problem(turn, 422, "validation_failed")["errors"][0]["path"] == "$.session_id"
        ag_ui = {
            "threadId": "t-newline\n",
            "runId": "r1",
            "messages": [{"id": "m", "role": "user", "content": QUESTION}],
        }
        assert_problem(await client.post("/ag-ui", json=ag_ui), 422, "validation_failed")
        assert runs_stored(local) == 0

        answered = (await client.post("/chat", json={"message": QUESTION, "session_id": "s-ok"})).json()
        run_id = answered["run_id"]
        resume = {"run_id": f"{run_id}\n", "approval_id": "a1", "decision": "approve"}
        assert_problem(await client.post("/chat/resume", json=resume), 422, "validation_failed")
        for path in (f"/runs/{run_id}%0A", f"/runs/{run_id}%0A/events", f"/runs/{run_id}?session_id=s-ok%0A"):
            assert_problem(await client.get(path), 422, "validation_failed")
        assert_problem(await client.post(f"/runs/{run_id}%0A/cancel"), 422, "validation_failed")
        assert_problem(await client.delete("/sessions/s-ok%0A"), 422, "validation_failed")
        assert (await client.get(f"/runs/{run_id}", params={"session_id": "s-ok"})).status_code == 200
        assert runs_stored(local) == 1


CARD = "4111-1111-1111-1111"
"""A card number in the shape every client id pattern admits (digits and dashes)."""


def _ag_ui(**fields: Any) -> dict[str, Any]:
    return {"threadId": "t-ok", "runId": "r1", "messages": [{"id": "m1", "role": "user", "content": QUESTION}]} | fields


def _ai_sdk(message: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"id": "chat-ok", "messages": [message], "trigger": "submit-message"} | fields


USER_MESSAGE = {"id": "m1", "role": "user", "parts": [{"type": "text", "text": QUESTION}]}


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/ag-ui", _ag_ui(runId=CARD), "$.runId"),
        ("/ag-ui", _ag_ui(parentRunId=CARD.replace("-", "")), "$.parentRunId"),
        ("/ag-ui", _ag_ui(messages=[{"id": CARD, "role": "user", "content": QUESTION}]), "$.messages[0].id"),
        ("/ai-sdk/chat", _ai_sdk({**USER_MESSAGE, "id": CARD}), "$.messages[0].id"),
        ("/ai-sdk/chat", _ai_sdk(USER_MESSAGE, messageId=CARD), "$.messageId"),
        (
            "/ai-sdk/chat",
            _ai_sdk({**USER_MESSAGE, "parts": [*USER_MESSAGE["parts"], {"type": "tool-x", "toolCallId": CARD}]}),
            "$.messages[0].parts[1].toolCallId",
        ),
    ],
    ids=[
        "ag-ui runId",
        "ag-ui parentRunId",
        "ag-ui message id",
        "ai-sdk message id",
        "ai-sdk messageId",
        "tool call id",
    ],
)
async def test_a_client_id_holding_a_personal_number_is_refused_never_echoed_and_nothing_is_stored(
    serve: Callable[..., LiveServer], local: Settings, path: str, body: dict[str, Any], field: str
) -> None:
    server = serve(local)
    async with httpx.AsyncClient(base_url=server.url) as client:
        refused = await client.post(path, json=body)

    problem = assert_problem(refused, 422, "id_refused")
    assert [error["path"] for error in problem["errors"]] == [field]
    assert CARD not in refused.text
    assert CARD.replace("-", "") not in refused.text
    assert runs_stored(local) == 0


@pytest.mark.parametrize("pattern", [ID_PATTERN, LAST_EVENT_ID_PATTERN, INTERRUPT_ID_PATTERN, CLIENT_ID_PATTERN])
def test_every_published_id_pattern_is_a_full_match_in_python_and_in_ecma_262(pattern: str) -> None:
    valid = "r_0c1d2e3f" if pattern == ID_PATTERN else "r_0c1d2e3f:42"
    ecma = jsonschema_rs.validator_for({"type": "string", "pattern": pattern})
    for text, expected in ((valid, True), (f"{valid}\n", False), (f"\n{valid}", False), (f"{valid}\n\n", False)):
        assert bool(re.search(pattern, text)) is expected, repr(text)
        assert ecma.is_valid(text) is expected, repr(text)
    assert pattern in published_patterns(json.loads((DOCS / "openapi.json").read_bytes()))


def published_patterns(node: object) -> set[str]:
    if isinstance(node, dict):
        own = {node["pattern"]} if isinstance(node.get("pattern"), str) else set()
        return own.union(*(published_patterns(value) for value in node.values()))
    if isinstance(node, list):
        return set().union(*(published_patterns(value) for value in node))
    return set()


DEEP = b"[" * 30_000 + b"]" * 30_000
"""60 KB, under the body limit: ten thousand levels more than the parser's recursion can take."""


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/chat", b"DEEP"),
        ("/chat", b'{"message": "Hi", "x": DEEP}'),
        ("/ag-ui", b'{"threadId": "t", "runId": "r", "messages": [], "forwardedProps": DEEP}'),
        ("/chat/resume", b'{"run_id": "r", "approval_id": "a", "decision": "approve", "comment": DEEP}'),
    ],
    ids=["the body", "an unknown field", "ag-ui forwardedProps", "a decision's comment"],
)
async def test_a_deeply_nested_body_is_a_problem_and_leaves_no_traceback(
    serve: Callable[..., LiveServer],
    local: Settings,
    path: str,
    body: bytes,
) -> None:
    server = serve(local)
    with logged() as records:
        async with httpx.AsyncClient(base_url=server.url) as client:
            response = await client.post(
                path, content=body.replace(b"DEEP", DEEP), headers={"Content-Type": "application/json"}
            )
        logging.getLogger("api.exception_handlers").warning("still listening")  # where the 500's traceback was logged
    assert_problem(response, 422, "body_too_deep")
    assert "still listening" in [record.getMessage() for record in records]
    assert not [record.getMessage() for record in records if record.exc_info or record.levelno >= logging.ERROR]
    assert runs_stored(local) == 0


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
