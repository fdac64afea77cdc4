"""Benchmark: time-to-first-token overhead of the whole path, from the provider's first token to the browser.

A fake OpenAI-compatible provider (a real HTTP server on loopback) streams an answer and records the
instant it writes its first token. Two readers take that stream:

- baseline: an httpx client reading the provider directly, stopping at the first ``data:`` line;
- harness: the product, ``POST /chat`` with ``Accept: text/event-stream`` on a real uvicorn, where the
  ``openai`` adapter reads the provider, the graph turns the chunk into a ``token_delta``, the run log
  persists it and the SSE stream sends it; the clock stops when the client has the first
  ``event: token_delta`` frame.

Each figure is (client has it) - (provider wrote it), on one process's monotonic clock: the provider, the
app and the client run in three threads of this process. Guardrails and retrieval happen before the model
is called, so they are not part of it.

    .venv/bin/python -m bench.ttft                  # 200 turns of each, after 20 warm-up turns

It prints a markdown table of p50/p99 in milliseconds and the harness's overhead over the baseline.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import socket
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import httpx
import uvicorn

from agent.config import AgentConfig, LLMConfig
from api.app import create_app
from api.settings import Settings
from tests.agent.llm.fake_server import FakeProviderServer, Reply, openai_chunk

if TYPE_CHECKING:
    from collections.abc import Coroutine

T = TypeVar("T")
QUESTION = {"message": "How do I reset my password?"}
PIECES = ('{"kind": "answer", ', '"text": "Open ', "Settings, ", "choose ", "Security ", "and ", 'reset."}')
PROVIDER_REQUEST = {
    "model": "gpt-4o-mini",
    "stream": True,
    "messages": [{"role": "user", "content": QUESTION["message"]}],
}


def provider_reply(pause_s: float) -> Reply:
    """A streamed completion whose first event is the first token (no role-only delta before it)."""
    usage = b'data: {"choices": [], "usage": {"prompt_tokens": 120, "completion_tokens": 7}}\n\n'
    events = [
        *(openai_chunk(piece) for piece in PIECES),
        openai_chunk(finish_reason="stop"),
        usage,
        b"data: [DONE]\n\n",
    ]
    return Reply(events=events, pause_s=pause_s)


class LoopThread:
    """An asyncio loop running in a daemon thread, for the fake provider."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)


class AppThread:
    """The harness under a real uvicorn on a free loopback port, in a daemon thread."""

    def __init__(self, settings: Settings) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        config = uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="warning")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=30)


async def direct_turn(client: httpx.AsyncClient, provider: FakeProviderServer) -> float:
    """Milliseconds from the provider's first token to the first ``data:`` line read by httpx directly."""
    first = 0
    async with client.stream("POST", f"{provider.base_url}/chat/completions", json=PROVIDER_REQUEST) as response:
        async for line in response.aiter_lines():
            if line.startswith("data: ") and not first:
                first = time.perf_counter_ns()
    return (first - provider.first_event_ns[-1]) / 1e6


async def harness_turn(client: httpx.AsyncClient, url: str, provider: FakeProviderServer) -> float:
    """Milliseconds from the provider's first token to the first ``token_delta`` frame at the SSE client."""
    first = 0
    buffer = b""
    headers = {"accept": "text/event-stream"}
    async with client.stream("POST", f"{url}/chat", json=QUESTION, headers=headers) as response:
        async for raw in response.aiter_raw():
            buffer += raw
            *frames, buffer = buffer.split(b"\n\n")
            if not first and any(b"event: token_delta" in frame for frame in frames):
                first = time.perf_counter_ns()
            if any(b"event: error" in frame for frame in frames):
                raise RuntimeError(f"the turn failed: {frames}")
    if not first:
        raise RuntimeError("the turn sent no token_delta")
    return (first - provider.first_event_ns[-1]) / 1e6


async def measure(url: str, provider: FakeProviderServer, turns: int, warmup: int) -> tuple[list[float], list[float]]:
    async with httpx.AsyncClient(timeout=60) as client:
        for _ in range(warmup):
            await direct_turn(client, provider)
            await harness_turn(client, url, provider)
        direct, harness = [], []
        for _ in range(turns):  # interleaved, so drift in the machine's load hits both alike
            direct.append(await direct_turn(client, provider))
            harness.append(await harness_turn(client, url, provider))
    return direct, harness


def percentile(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=200, help="measured turns of each path")
    parser.add_argument("--warmup", type=int, default=20, help="turns of each path run before measuring")
    parser.add_argument("--pause-ms", type=float, default=1.0, help="the provider's pause before each token")
    args = parser.parse_args()
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per request would drown the table

    provider_loop = LoopThread()
    provider = FakeProviderServer([provider_reply(args.pause_ms / 1000)])
    provider_loop.run(provider.start())
    with tempfile.TemporaryDirectory(prefix="bench-ttft-") as data_dir:
        llm = LLMConfig(provider="openai", base_url=provider.base_url, model="gpt-4o-mini", api_key="sk-bench")
        settings = Settings(rate_limit_per_minute=0, agent=AgentConfig(data_dir=Path(data_dir), llm=llm))
        app = AppThread(settings)
        try:
            direct, harness = asyncio.run(measure(app.url, provider, args.turns, args.warmup))
        finally:
            app.stop()
            provider_loop.run(provider.stop())
            provider_loop.stop()

    print(
        f"Time from the provider writing its first token to the client reading it, {args.turns} turns of each "
        f"after {args.warmup} warm-up turns, loopback, one process (provider, app and client in three threads).\n"
    )
    print("| path | p50 (ms) | p99 (ms) |")
    print("| --- | ---: | ---: |")
    rows = (
        ("baseline: provider → httpx client", direct),
        ("harness: provider → openai adapter → graph → run log → SSE client", harness),
    )
    for name, values in rows:
        print(f"| {name} | {percentile(values, 50):.2f} | {percentile(values, 99):.2f} |")
    p50 = percentile(harness, 50) - percentile(direct, 50)
    p99 = percentile(harness, 99) - percentile(direct, 99)
    print(f"| overhead of the harness | {p50:.2f} | {p99:.2f} |")


if __name__ == "__main__":
    main()
