from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest
from litestar.testing import AsyncTestClient

from agent.clock import SequentialIds, SteppingClock
from agent.config import AgentConfig, StubConfig
from agent.llm.local_server import LocalModelServer
from api.app import create_app
from api.runs.stream.frames import EnvelopeEncoder
from api.settings import Settings
from tests.support.frame_schema import envelope_problems
from tests.support.fuzz_seed import replay_hint
from tests.support.shared_stores import SharedStores, fresh_shared_stores

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator
    from pathlib import Path


def pytest_report_header() -> str:
    return replay_hint()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Under ``CI=true`` a skip is a failure: a test that needs a tool (Node, Chromium, nginx, llama.cpp) skips on
    a developer's machine without it, but CI installs everything, so a skip there means a broken install."""
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("CI") and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        reason = report.longrepr[-1] if isinstance(report.longrepr, tuple) else report.longrepr
        report.longrepr = f"skipped under CI=true, where every tool is installed: {reason}"


@pytest.fixture(autouse=True)
def every_envelope_meets_the_contract(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Check every envelope any in-process server logs in any test against docs/schemas/envelope.json."""
    problems: list[str] = []
    encode = EnvelopeEncoder.encode

    def checked(self: EnvelopeEncoder, *args: object, **kwargs: object) -> tuple[str, bytes]:
        kind, envelope = encode(self, *args, **kwargs)  # type: ignore[arg-type]
        problems.extend(f"{kind}: {problem}" for problem in envelope_problems(kind, envelope))
        return kind, envelope

    monkeypatch.setattr(EnvelopeEncoder, "encode", checked)
    yield
    assert not problems, "envelopes that break the contract:\n" + "\n".join(problems[:20])


@pytest.fixture(params=["embedded", "shared"])
def stores(request: pytest.FixtureRequest) -> Iterator[SharedStores | None]:
    """Every test of the service runs on the embedded stores and on fresh shared ones (Redis + PostgreSQL)."""
    if request.param == "embedded":
        yield None
        return
    with fresh_shared_stores() as shared:
        yield shared


@pytest.fixture(scope="session")
def local_model() -> Iterator[LocalModelServer]:
    """The real local model's server, started once for every test that asks for it (the `local` extra)."""
    with LocalModelServer(ready_timeout_s=60) as server:
        yield server


@pytest.fixture
def settings(tmp_path: Path, stores: SharedStores | None) -> Settings:
    """Fast, deterministic defaults on a fresh data directory, or fresh shared stores."""
    return Settings(
        allowed_hosts=("testserver.local", "127.0.0.1"),  # the in-process client's host, and a real uvicorn's
        heartbeat_s=15.0,
        disconnect_grace_s=10.0,
        rate_limit_per_minute=0,
        redis_url=stores.redis_url if stores else None,
        redis_prefix=stores.redis_prefix if stores else "harness",
        agent=AgentConfig(
            data_dir=tmp_path / "data",
            database_url=stores.database_url if stores else None,
            stub=StubConfig(token_delay_ms=0),
        ),
    )


@pytest.fixture
async def client(settings: Settings) -> AsyncIterator[AsyncTestClient]:
    async with AsyncTestClient(create_app(settings)) as test_client:
        yield test_client


@pytest.fixture
async def deterministic_client(settings: Settings) -> AsyncIterator[AsyncTestClient]:
    """An app whose ids and clock are injected, so its answers are byte-for-byte reproducible."""
    app = create_app(settings, clock=SteppingClock(), ids=SequentialIds())
    async with AsyncTestClient(app) as test_client:
        yield test_client
