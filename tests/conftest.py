from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from litestar.testing import AsyncTestClient

from agent.config import AgentConfig, StubConfig
from api.app import create_app
from api.settings import Settings
from tests.support.fakes import FakeClock, SequentialIds

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from pathlib import Path


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
    app = create_app(settings, clock=FakeClock(), ids=SequentialIds())
    async with AsyncTestClient(app) as test_client:
        yield test_client
