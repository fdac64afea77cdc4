from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from agent import open_agent
from agent.clock import SequentialIds, SteppingClock
from agent.config import AgentConfig, StubConfig
from agent.graphs import open_registry
from tests.support.graph_projects import isolated_loading, support_of

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator

    from agent.graphs import GraphRegistry

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """Each test imports the examples afresh (their chat model is made when they are imported), with the fake
    chat model unless it says otherwise."""
    yield from isolated_loading(monkeypatch, EXAMPLES, tmp_path)


@pytest.fixture
def chat_model_variables(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """What is set before the examples are loaded: nothing (the fake model), or, parametrized with
    ``{"HARNESS_CHAT_MODEL": "local"}``, the real local model's server (the ``local_model`` fixture)."""
    monkeypatch.delenv("HARNESS_CHAT_MODEL", raising=False)
    variables = dict(getattr(request, "param", {}))
    if variables.get("HARNESS_CHAT_MODEL") == "local":
        server = request.getfixturevalue("local_model")
        variables |= {"HARNESS_LLM_LOCAL_BASE_URL": server.base_url, "HARNESS_LLM_TIMEOUT_S": "300"}
    return variables


@pytest.fixture
async def registry(
    tmp_path: Path, chat_model_variables: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[GraphRegistry]:
    """The service's registry with examples/langgraph.json, on the service's own embedded stores."""
    for name, value in chat_model_variables.items():
        monkeypatch.setenv(name, value)
    config = AgentConfig(data_dir=tmp_path / "data", stub=StubConfig(token_delay_ms=0))
    async with open_agent(config, clock=SteppingClock(), ids=SequentialIds()) as agent:
        yield await open_registry(EXAMPLES / "langgraph.json", **support_of(agent))
