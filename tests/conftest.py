from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from litestar.testing import AsyncTestClient

from agent.clock import SequentialIds, SteppingClock
from agent.config import AgentConfig, StubConfig
from agent.llm.local_server import LocalModelServer
from api.app import create_app
from api.runs.frames import FrameEncoder
from api.settings import Settings
from tests.support.frame_schema import frame_problems

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator
    from pathlib import Path


@pytest.fixture(autouse=True)
def every_frame_meets_the_contract(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Check every SSE frame any in-process server encodes in any test against docs/schemas/envelope.json."""
    problems: list[str] = []
    encode = FrameEncoder.encode

    def checked(self: FrameEncoder, *args: object, **kwargs: object) -> tuple[str, bytes]:
        kind, frame = encode(self, *args, **kwargs)  # type: ignore[arg-type]
        problems.extend(f"{kind}: {problem}" for problem in frame_problems(frame.rstrip(b"\n")))
        return kind, frame

    monkeypatch.setattr(FrameEncoder, "encode", checked)
    yield
    assert not problems, "frames that break the contract:\n" + "\n".join(problems[:20])


@pytest.fixture(scope="session")
def local_model() -> Iterator[LocalModelServer]:
    """The real local model's server, started once for every test that asks for it (the `local` extra)."""
    with LocalModelServer(ready_timeout_s=60) as server:
        yield server


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Fast, deterministic defaults on a fresh data directory."""
    return Settings(
        heartbeat_s=15.0,
        disconnect_grace_s=10.0,
        rate_limit_per_minute=0,
        agent=AgentConfig(data_dir=tmp_path / "data", stub=StubConfig(token_delay_ms=0)),
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
