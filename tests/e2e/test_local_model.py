"""A real model end to end: SmolLM2-135M under llama.cpp's OpenAI-compatible server, behind the ``openai``
provider, one streamed turn over HTTP against a real uvicorn.

Under the answer's schema (a llama.cpp grammar) the 135M model writes the JSON object it is asked for, and
the visible text of its ``text`` field streams as it is written; the token deltas add up to the answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import httpx
import msgspec
import pytest

from agent.config import AgentConfig, LLMConfig
from agent.llm.local_server import LocalModelServer
from api.settings import Settings

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.e2e.conftest import LiveServer

pytestmark = pytest.mark.local_model


async def streamed_turn(url: str, message: str) -> list[tuple[int, dict[str, Any]]]:
    """Every event of one ``POST /chat`` stream, each with the index of the network read it came in."""
    events: list[tuple[int, dict[str, Any]]] = []
    buffer = b""
    async with (
        httpx.AsyncClient(timeout=90) as client,
        client.stream(
            "POST", f"{url}/chat", json={"message": message}, headers={"accept": "text/event-stream"}
        ) as response,
    ):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        reads = 0
        async for raw in response.aiter_raw():
            reads += 1
            buffer += raw
            while b"\n\n" in buffer:
                frame, buffer = buffer.split(b"\n\n", 1)
                data = next((line[6:] for line in frame.split(b"\n") if line.startswith(b"data: ")), None)
                if data is not None:
                    events.append((reads, msgspec.json.decode(data)))
    return events


async def test_a_streamed_turn_on_the_local_model(
    local_model: LocalModelServer, serve: Callable[..., LiveServer], tmp_path: Path
) -> None:
    settings = Settings(
        rate_limit_per_minute=0,
        agent=AgentConfig(
            data_dir=tmp_path / "data",
            llm=LLMConfig(provider="openai", base_url=local_model.base_url, model=local_model.model, timeout_s=60),
        ),
    )
    app = serve(settings)

    events = await streamed_turn(app.url, "How do I reset my password?")

    types = [event["type"] for _, event in events]
    assert "error" not in types, events[-1]
    assert types[-1] == "turn_completed"
    deltas = [(read, event["data"]) for read, event in events if event["type"] == "token_delta"]
    completed_read = events[-1][0]
    assert len(deltas) > 1
    assert deltas[0][0] < completed_read, "the first token arrived before the turn was over"
    assert len({read for read, _ in deltas}) > 1, "the tokens came over more than one read"

    last = deltas[-1][1]
    assert last["finish_reason"] is not None
    assert last["input_tokens"] > 0
    assert last["output_tokens"] > 0
    assert last["model"] == local_model.model
    assert last["metadata"]["usage"] in ("estimated", "reported")
    assert all(d["finish_reason"] is None and d["output_tokens"] == 0 for _, d in deltas[:-1])

    response = events[-1][1]["data"]["response"]
    assert response["status"] in ("completed", "refused")
    assert "".join(d["text"] for _, d in deltas) == response["answer"]["text"]
    assert response["usage"]["model"] == local_model.model
    assert response["usage"]["output_tokens"] == last["output_tokens"]
