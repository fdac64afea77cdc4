"""The app in process, as a body check's tests send it requests."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from litestar.testing import AsyncTestClient

from agent.config import AgentConfig, StubConfig
from api.app import create_app
from api.settings import Settings

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from pathlib import Path


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[AsyncTestClient]:
    settings = Settings(
        allowed_hosts=("testserver.local",),
        rate_limit_per_minute=0,
        agent=AgentConfig(data_dir=tmp_path / "data", stub=StubConfig(token_delay_ms=0)),
    )
    async with AsyncTestClient(create_app(settings)) as test_client:
        yield test_client
