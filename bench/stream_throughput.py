"""Benchmark: how fast the harness streams a turn, against a minimal raw-ASGI baseline of the same graph.

Both servers run the real agent graph with a model that streams ``--tokens`` chunks as fast as it can,
each in its own process on loopback. The harness path is the product (Litestar, the run registry, the
SQLite event log, a subscription); the baseline runs the same graph's ``astream`` and writes every
``token_delta`` straight to the ASGI ``send``, with no log and no framework.

    .venv/bin/python -m bench.stream_throughput     # a 20,000-event stream, then 100 turns for first-event latency

It prints a markdown table (events/s of one stream, first-event latency p50/p99) with the ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import msgspec

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    from agent.llm.types import ChatMessage, Chunk, LLMParams

QUESTION = b'{"message": "How do I reset my password?"}'
USUAL_ANSWER_TOKENS = 40


class FirehoseLLM:
    """A model that streams ``tokens`` short chunks with no pause between them."""

    provider = "firehose"

    def __init__(self, tokens: int) -> None:
        self._tokens = tokens

    @property
    def model(self) -> str:
        return "firehose-1"

    async def complete(self, messages: Sequence[ChatMessage], params: LLMParams) -> Any:
        raise NotImplementedError

    async def stream(self, messages: Sequence[ChatMessage], params: LLMParams) -> AsyncIterator[Chunk]:
        from agent.llm.types import Chunk

        for index in range(self._tokens):
            last = index == self._tokens - 1
            yield Chunk(
                delta="tok ",
                model=self.model,
                provider=self.provider,
                finish_reason="stop" if last else None,
                input_tokens=10 if last else 0,
                output_tokens=self._tokens if last else 0,
            )
            if index % 64 == 0:
                await asyncio.sleep(0)


# --- servers (each runs in its own process) ---


def serve_harness(port: int, tokens: int, data_dir: Path) -> None:
    import uvicorn

    from agent.config import AgentConfig
    from api.app import create_app
    from api.settings import Settings

    settings = Settings(rate_limit_per_minute=0, replay_window=tokens + 100, agent=AgentConfig(data_dir=data_dir))
    uvicorn.run(create_app(settings, llm=FirehoseLLM(tokens)), host="127.0.0.1", port=port, log_level="warning")


def serve_baseline(port: int, tokens: int, data_dir: Path) -> None:
    import uvicorn

    from agent.config import AgentConfig
    from agent.intake import admit_message
    from agent.runtime import open_agent
    from agent.turns import thread_config
    from contracts import TokenDelta

    encoder = msgspec.json.Encoder()
    state: dict[str, Any] = {}

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await receive()
            context = open_agent(AgentConfig(data_dir=data_dir), llm=FirehoseLLM(tokens))
            state["agent"] = await context.__aenter__()
            await send({"type": "lifespan.startup.complete"})
            await receive()
            await context.__aexit__(None, None, None)
            await send({"type": "lifespan.shutdown.complete"})
            return
        while (await receive()).get("more_body"):
            pass
        if scope["method"] != "POST":
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"ok"})
            return
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]})
        agent = state["agent"]
        session = f"s_{time.monotonic_ns()}"
        turn = await admit_message(agent.deps, "How do I reset my password?", run_id=session, session_id=session)
        seq = 0
        async for part in agent.graph.astream(turn, thread_config(session), stream_mode=["custom"], version="v2"):
            if isinstance(part["data"], TokenDelta):
                seq += 1
                body = b"id: %d\nevent: token_delta\ndata: %s\n\n" % (seq, encoder.encode(part["data"]))
                await send({"type": "http.response.body", "body": body, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")


# --- the client ---


async def one_stream(client: httpx.AsyncClient, url: str) -> tuple[int, float, float]:
    """Token events received, seconds to the first one, seconds to the end of the stream."""
    started = time.perf_counter()
    first = 0.0
    count = 0
    buffer = b""
    async with client.stream("POST", url, content=QUESTION, headers={"Accept": "text/event-stream"}) as response:
        async for chunk in response.aiter_raw():
            buffer += chunk
            *frames, buffer = buffer.split(b"\n\n")
            for frame in frames:
                if b"event: token_delta" in frame:
                    count += 1
                    if count == 1:
                        first = time.perf_counter() - started
    return count, first, time.perf_counter() - started


async def events_per_second(url: str) -> float:
    async with httpx.AsyncClient(timeout=120) as client:
        await one_stream(client, url)  # warm-up: imports, first graph run, SQLite pages
        count, _, elapsed = await one_stream(client, url)
    return count / elapsed


async def first_event_ms(url: str, samples: int) -> list[float]:
    async with httpx.AsyncClient(timeout=120) as client:
        for _ in range(5):
            await one_stream(client, url)
        return [(await one_stream(client, url))[1] * 1000 for _ in range(samples)]


def measure(kind: str, tokens: int, samples: int) -> tuple[float, float, float]:
    """events/s of one ``tokens``-long stream; first-event p50/p99 over ``samples`` turns of a usual length."""
    process, url = start(kind, tokens)
    try:
        rate = asyncio.run(events_per_second(url))
    finally:
        process.terminate()
        process.wait(timeout=30)
    process, url = start(kind, USUAL_ANSWER_TOKENS)
    try:
        firsts = asyncio.run(first_event_ms(url, samples))
    finally:
        process.terminate()
        process.wait(timeout=30)
    return rate, percentile(firsts, 50), percentile(firsts, 99)


def start(kind: str, tokens: int) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    data_dir = tempfile.mkdtemp(prefix=f"bench-{kind}-")
    process = subprocess.Popen(
        [sys.executable, "-m", "bench.stream_throughput", f"serve-{kind}", str(port), str(tokens), data_dir],
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )
    url = f"http://127.0.0.1:{port}/chat"
    for _ in range(600):
        try:
            httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
            return process, url
        except httpx.TransportError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError(f"the {kind} server did not start")


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokens", type=int, default=20_000, help="token_delta events in the measured stream")
    parser.add_argument("--samples", type=int, default=100, help="turns measured for first-event latency")
    parser.add_argument("role", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.role:
        kind, port, tokens, data_dir = args.role
        serve = serve_harness if kind == "serve-harness" else serve_baseline
        serve(int(port), int(tokens), Path(data_dir))
        return

    base = measure("baseline", args.tokens, args.samples)
    ours = measure("harness", args.tokens, args.samples)
    print(
        f"events/s: one stream of {args.tokens:,} token_delta events; first event: time from sending the request "
        f"to the first token_delta, over {args.samples} turns of {USUAL_ANSWER_TOKENS} tokens\n"
    )
    print("| path | events/s | first event p50 (ms) | first event p99 (ms) |")
    print("| --- | ---: | ---: | ---: |")
    for name, (rate, p50, p99) in (("raw ASGI baseline", base), ("harness (Litestar + run log)", ours)):
        print(f"| {name} | {rate:,.0f} | {p50:.2f} | {p99:.2f} |")
    print(f"| harness / baseline | {ours[0] / base[0]:.2f}x | {ours[1] / base[1]:.2f}x | {ours[2] / base[2]:.2f}x |")


if __name__ == "__main__":
    main()
