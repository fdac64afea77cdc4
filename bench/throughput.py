"""Benchmark 1: events/s of one long stream, the harness against raw ASGI and FastAPI over the same graph.

The three servers (``bench.servers``), and the harness again on the shared stores (Redis for the run log,
PostgreSQL for checkpoints: ``bench.shared``), run the real agent graph on a model that streams ``--tokens`` chunks as
fast as it can (``firehose``); one client on the other core posts ``/chat`` with ``Accept:
text/event-stream`` and counts ``token_delta`` frames until the server closes the stream. After a warm-up
stream on each, the three are measured in turn, ``--rounds`` times (the machine is noisy); the table gives
each path's median and its ratio to raw ASGI; the shared stores' against the embedded harness's too.

    .venv/bin/python -m bench.throughput --tokens 20000 --rounds 3
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
from contextlib import ExitStack

from bench.client import TOKEN_DELTA, count_until_closed, open_stream
from bench.report import Section, Target, table
from bench.servers import APPS, Server
from bench.shared import shared_stores
from bench.system import pin_client

__all__ = ("QUESTION", "run")

QUESTION = b'{"message": "How do I reset my password?"}'
LABELS = {
    "raw": "raw ASGI over the graph, no log (baseline)",
    "fastapi": "FastAPI + sse-starlette + pydantic, no log",
    "harness": "harness (Litestar, run log committed before send)",
}
SHARED = "harness-shared"
SHARED_LABEL = "harness on Redis (run log) + PostgreSQL (checkpoints)"
TARGET_RATIO = 0.8
SHARED_TARGET_RATIO = 0.7


async def stream_rate(port: int) -> tuple[int, float]:
    """``token_delta`` events of one turn, and their rate from sending the request to the end of the stream."""
    response = await open_stream(port, "POST", "/chat", body=QUESTION)
    counted = await count_until_closed(response, TOKEN_DELTA)
    return counted.count, counted.count / (counted.closed_at - response.sent_at)


def measure(tokens: int, rounds: int) -> dict[str, list[float]]:
    rates: dict[str, list[float]] = {app: [] for app in (*APPS, SHARED)}
    with ExitStack() as stack:
        servers = {
            app: stack.enter_context(Server(app, f"firehose:{tokens}", replay_window=tokens + 100)) for app in APPS
        }
        stores = stack.enter_context(shared_stores())
        servers[SHARED] = stack.enter_context(
            Server("harness", f"firehose:{tokens}", replay_window=tokens + 100, shared=stores.urls)
        )
        for server in servers.values():
            asyncio.run(stream_rate(server.port))  # warm-up: imports, the first graph run, SQLite pages
        for _ in range(rounds):
            for app, server in servers.items():
                count, rate = asyncio.run(stream_rate(server.port))
                if count != tokens:
                    raise RuntimeError(f"{app} sent {count} token_delta events, not {tokens}")
                rates[app].append(rate)
    return rates


def run(tokens: int = 20_000, rounds: int = 3) -> Section:
    rates = measure(tokens, rounds)
    median = {app: statistics.median(values) for app, values in rates.items()}
    rows = [
        (
            {**LABELS, SHARED: SHARED_LABEL}[app],
            f"{median[app]:,.0f}",
            ", ".join(f"{rate:,.0f}" for rate in rates[app]),
            f"{median[app] / median['raw']:.2f}x",
        )
        for app in rates
    ]
    ratio = median["harness"] / median["raw"]
    shared = median[SHARED] / median["harness"]
    return Section(
        title="1. Throughput: one stream",
        intro=(
            f"One stream of {tokens:,} `token_delta` events (`firehose` model), events/s from sending the request "
            f"to the end of the stream; the median of {rounds} rounds, the paths measured in turn each round. The "
            "shared stores are a Redis server of the benchmark's own and the machine's PostgreSQL (`bench.shared`); "
            "every event is committed to Redis, with the lease check, before it is sent."
        ),
        tables=[table(("path", "events/s (median)", "rounds", "vs raw"), rows)],
        targets=[
            Target("throughput harness / raw >= 0.8x", f"{ratio:.3f}x", ratio >= TARGET_RATIO),
            Target(
                "throughput shared stores / embedded >= 0.7x (issue 29)",
                f"{shared:.3f}x",
                shared >= SHARED_TARGET_RATIO,
            ),
        ],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokens", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    pin_client()
    print(run(args.tokens, args.rounds).markdown())


if __name__ == "__main__":
    main()
