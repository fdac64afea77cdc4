"""Real frames of every event type, from reproducible runs of the stub model (fixed clock and ids)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import msgspec
from litestar.testing import AsyncTestClient

from agent import AgentConfig, SequentialIds, SteppingClock, StubConfig
from api.app import create_app
from api.settings import Settings

__all__ = ("sample_frames",)

_SHORT_REPLAY_WINDOW = 5


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
    return frames


def _client(data_dir: Path, *, fail_after_tokens: int | None = None, replay_window: int = 10_000) -> AsyncTestClient:  # type: ignore[type-arg]
    stub = StubConfig(token_delay_ms=0, fail_after_tokens=fail_after_tokens)
    settings = Settings(
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
