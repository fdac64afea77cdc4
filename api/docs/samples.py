"""Real frames of every event type, from reproducible runs (fixed clock and ids).

The support agent answers with the stub model; a registered graph's run (``graph_part``, a ``paused`` with its
interrupts, ``run_completed``) is the ReAct agent of ``examples/`` on its scripted chat model, through the Agent
Protocol routes. LangGraph makes some ids of its own at random (messages, checkpoints, tasks, interrupts): they are
replaced, in order of appearance, by sequential ones of the same shape, so the generated docs are reproducible.
"""

from __future__ import annotations

import itertools
import re
import tempfile
from pathlib import Path

import msgspec
from litestar.testing import AsyncTestClient

from agent import AgentConfig, SequentialIds, SteppingClock, StubConfig
from api.app import create_app
from api.settings import Settings

__all__ = ("sample_frames",)

_SHORT_REPLAY_WINDOW = 5
_EXAMPLE_GRAPHS = Path(__file__).resolve().parents[2] / "examples" / "langgraph.json"
_RANDOM_IDS = re.compile(
    rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|(?<![0-9a-z_])[0-9a-f]{32}(?![0-9a-z])"
)


async def sample_frames() -> dict[str, list[bytes]]:
    """Frames by event type, in the order they were produced."""
    frames: dict[str, list[bytes]] = {}
    with tempfile.TemporaryDirectory(prefix="harness-docs-") as tmp:
        async with _client(Path(tmp) / "ok") as client:
            answered = (await client.post("/chat", json={"message": "How do I reset my password?"})).json()
            paused = (await client.post("/chat", json={"message": "Please refund invoice INV-1001."})).json()
            decision = {
                "run_id": paused["run_id"],
                "approval_id": paused["pending_approval"]["approval_id"],
                "decision": "approve",
            }
            await client.post("/chat/resume", json=decision)
            for run_id in (answered["run_id"], paused["run_id"]):
                _collect(frames, (await client.get(f"/runs/{run_id}/events")).content)
        async with _client(Path(tmp) / "short-replay", replay_window=_SHORT_REPLAY_WINDOW) as client:
            run_id = (await client.post("/chat", json={"message": "How do I reset my password?"})).json()["run_id"]
            _collect(frames, (await client.get(f"/runs/{run_id}/events", params={"after": 2})).content)
        async with _client(Path(tmp) / "failing", fail_after_tokens=3) as client:
            failed = await client.post("/chat", json={"message": "How do I reset my password?"})
            run_id = msgspec.json.decode(failed.content)["run_id"]
            _collect(frames, (await client.get(f"/runs/{run_id}/events")).content)
        async with _client(Path(tmp) / "graph", graphs_config=_EXAMPLE_GRAPHS) as client:
            _collect(frames, _sequential_ids(await _graph_run_events(client)))
    return frames


async def _graph_run_events(client: AsyncTestClient) -> bytes:  # type: ignore[type-arg]
    """The ReAct agent asked for a refund: it pauses at the approval's interrupt, is approved, and completes."""
    thread_id = (await client.post("/threads", json={})).json()["thread_id"]
    waits = f"/threads/{thread_id}/runs/wait"
    question = {"messages": [{"role": "user", "content": "Please refund order A-1001."}]}
    await client.post(waits, json={"assistant_id": "react_agent", "input": question, "stream_mode": ["updates"]})
    approval = {"resume": {"decision": "approve"}}
    await client.post(waits, json={"assistant_id": "react_agent", "command": approval, "stream_mode": ["updates"]})
    run_id = (await client.get(f"/threads/{thread_id}/runs")).json()[0]["run_id"]
    return (await client.get(f"/runs/{run_id}/events")).content


def _sequential_ids(body: bytes) -> bytes:
    numbers = itertools.count(1)
    assigned: dict[bytes, bytes] = {}

    def replace(found: re.Match[bytes]) -> bytes:
        random_id = found.group()
        if random_id not in assigned:
            number = b"%012x" % next(numbers)
            assigned[random_id] = b"00000000-0000-4000-8000-" + number if b"-" in random_id else b"0" * 20 + number
        return assigned[random_id]

    return _RANDOM_IDS.sub(replace, body)


def _client(
    data_dir: Path,
    *,
    fail_after_tokens: int | None = None,
    replay_window: int = 10_000,
    graphs_config: Path | None = None,
) -> AsyncTestClient:  # type: ignore[type-arg]
    stub = StubConfig(token_delay_ms=0, fail_after_tokens=fail_after_tokens)
    settings = Settings(
        graphs_config=graphs_config,
        allowed_hosts=("testserver.local",),  # the in-process client's host
        rate_limit_per_minute=0,
        replay_window=replay_window,
        agent=AgentConfig(data_dir=data_dir, stub=stub),
    )
    return AsyncTestClient(create_app(settings, clock=SteppingClock(), ids=SequentialIds()))


def _collect(frames: dict[str, list[bytes]], body: bytes) -> None:
    for frame in body.split(b"\n\n"):
        for line in frame.split(b"\n"):
            if line.startswith(b"event: "):
                frames.setdefault(line[7:].decode(), []).append(frame)
