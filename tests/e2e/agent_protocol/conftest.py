"""A real uvicorn serving a ``langgraph.json`` (the examples, or the tests' gated project) and an SDK client of it."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import msgspec
import pytest
from langgraph_sdk import get_client

from api.auth import AuthConfig
from tests.e2e.agent_protocol.turns import ALICE, BOB, EXAMPLES, GATED_GRAPH, SWALLOWING_GRAPH
from tests.support.graph_projects import isolated_loading, write_project

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable, Iterator
    from pathlib import Path

    from langgraph_sdk.client import LangGraphClient

    from api.settings import Settings
    from tests.e2e.conftest import LiveServer


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """Each test's server imports the graphs afresh, the examples with their fake chat model."""
    monkeypatch.delenv("HARNESS_CHAT_MODEL", raising=False)
    yield from isolated_loading(monkeypatch, EXAMPLES, tmp_path)


@pytest.fixture
def examples(serve: Callable[..., LiveServer], settings: Settings) -> LiveServer:
    """The service serving examples/langgraph.json beside its support agent."""
    return serve(msgspec.structs.replace(settings, graphs_config=EXAMPLES / "langgraph.json"))


@pytest.fixture
async def sdk(examples: LiveServer) -> AsyncIterator[LangGraphClient]:
    async with get_client(url=examples.url, timeout=30) as client:
        yield client


@pytest.fixture
def gated(serve: Callable[..., LiveServer], settings: Settings, tmp_path: Path) -> LiveServer:
    """The service serving the tests' gated project (``turns.GATED_GRAPH``) as graph ``gated``."""
    config = write_project(
        tmp_path / "gated", {"gated.py": GATED_GRAPH, "langgraph.json": {"graphs": {"gated": "./gated.py:graph"}}}
    )
    return serve(msgspec.structs.replace(settings, graphs_config=config))


@pytest.fixture
async def gated_sdk(gated: LiveServer) -> AsyncIterator[LangGraphClient]:
    async with get_client(url=gated.url, timeout=30) as client:
        yield client


@pytest.fixture
async def swallowing_sdk(
    serve: Callable[..., LiveServer], settings: Settings, tmp_path: Path
) -> AsyncIterator[LangGraphClient]:
    """An SDK client of the service serving ``turns.SWALLOWING_GRAPH`` as graph ``swallowing``."""
    config = write_project(
        tmp_path / "swallowing",
        {"swallowing.py": SWALLOWING_GRAPH, "langgraph.json": {"graphs": {"swallowing": "./swallowing.py:graph"}}},
    )
    served = serve(msgspec.structs.replace(settings, graphs_config=config))
    async with get_client(url=served.url, timeout=30) as client:
        yield client


@pytest.fixture
def guarded(serve: Callable[..., LiveServer], settings: Settings, tmp_path: Path) -> LiveServer:
    """The examples with identity on: two users, alice (``ALICE``) and bob (``BOB``), each with a bearer token."""
    tokens = tmp_path / "tokens.json"
    subjects = [
        {"token": ALICE, "subject": "alice", "roles": ["user"], "account_id": "ACC-2001"},
        {"token": BOB, "subject": "bob", "roles": ["user"], "account_id": "ACC-2002"},
    ]
    tokens.write_text(json.dumps({"tokens": subjects}))
    auth = AuthConfig(tokens_file=tokens)
    return serve(msgspec.structs.replace(settings, graphs_config=EXAMPLES / "langgraph.json", auth=auth))
