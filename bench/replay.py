"""Benchmark 5: reading a finished run back through ``GET /runs/{run_id}/events``, from the start.

A harness server on a ``firehose`` model of ``--tokens`` tokens (its replay window larger than the run)
streams one turn to its end; then the run, no longer executing, is read back from its log with no
cursor, ``--rounds`` times: events/s from sending the request to the server closing the stream after the
terminal event (every frame counted, ``token_delta`` and the rest). On the embedded SQLite log, and on
Redis (the run log) and PostgreSQL (checkpoints) in a fresh key prefix and schema, removed afterwards; each
plain and sealed (``HARNESS_ENCRYPTION_KEY``: every batch, or every Redis entry, opened as it is read).
The baseline for scale is the same run streamed live by the same server, measured in the same run.

    .venv/bin/python -m bench.replay --tokens 20000 --rounds 3 --stores embedded embedded-sealed
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
from contextlib import ExitStack

from bench.client import TOKEN_DELTA, count_until_closed, open_stream
from bench.report import Section, Target, table
from bench.servers import Server
from bench.shared import shared_stores
from bench.system import pin_client
from bench.throughput import QUESTION

__all__ = ("run",)

FRAME = b"\nevent: "
TARGET_RATE = 100_000
REDIS_TARGET_RATE = 200_000
STORES = ("embedded", "embedded-sealed", "redis", "redis-sealed")
LABELS = {
    "embedded": "embedded SQLite log",
    "embedded-sealed": "embedded SQLite log, sealed",
    "redis": "Redis log + PostgreSQL checkpoints",
    "redis-sealed": "Redis log + PostgreSQL checkpoints, sealed",
}


async def live_then_replays(port: int, rounds: int) -> tuple[str, int, float, list[float], int]:
    """The run's id, its token_delta count, the live events/s, the replay events/s per round, frames replayed."""
    response = await open_stream(port, "POST", "/chat", body=QUESTION)
    live = await count_until_closed(response, TOKEN_DELTA)
    run_id = response.headers["run-id"]
    rates, frames = [], 0
    for _ in range(rounds):
        replay = await open_stream(port, "GET", f"/runs/{run_id}/events")
        counted = await count_until_closed(replay, FRAME)
        frames = counted.count
        rates.append(counted.count / (counted.closed_at - replay.sent_at))
    return run_id, live.count, live.count / (live.closed_at - response.sent_at), rates, frames


def measure(store: str, tokens: int, rounds: int) -> tuple[int, float, list[float], int]:
    with ExitStack() as stack:
        shared = stack.enter_context(shared_stores()).urls if store.startswith("redis") else None
        sealed = store.endswith("-sealed")
        server = stack.enter_context(
            Server("harness", f"firehose:{tokens}", replay_window=tokens + 100, shared=shared, sealed=sealed)
        )
        asyncio.run(live_then_replays(server.port, 1))  # warm-up
        _, count, live, rates, frames = asyncio.run(live_then_replays(server.port, rounds))
    return count, live, rates, frames


def run(tokens: int = 20_000, rounds: int = 3, stores: tuple[str, ...] = STORES) -> Section:
    rows, targets = [], []
    for store in stores:
        count, live, rates, frames = measure(store, tokens, rounds)
        replay = statistics.median(rates)
        rows.append((LABELS[store], f"{frames:,}", f"{live:,.0f}", f"{replay:,.0f}", f"{replay / live:.2f}x"))
        if store.startswith("embedded"):
            which = "embedded, sealed" if store.endswith("-sealed") else "embedded"
            targets.append(Target(f"replay >= 100,000 events/s ({which})", f"{replay:,.0f}/s", replay >= TARGET_RATE))
        else:
            which = "Redis, sealed" if store.endswith("-sealed") else "Redis"
            targets.append(
                Target(
                    f"replay >= 200,000 events/s ({which}; issue 29)", f"{replay:,.0f}/s", replay >= REDIS_TARGET_RATE
                )
            )
        if count != tokens:
            raise RuntimeError(f"the {store} run streamed {count} token_delta events, not {tokens}")
    header = (
        "store",
        "events replayed",
        "live stream events/s (baseline)",
        "replay events/s (median)",
        "replay / live",
    )
    return Section(
        title="5. Replay of a finished run",
        intro=(
            f"A finished run of {tokens:,} `token_delta` events read back with `GET /runs/{{run_id}}/events` from the "
            f"start (no `Last-Event-ID`), the median of {rounds} reads; every frame counted. The live stream of the "
            "same run on the same server is the baseline. A sealed store (`HARNESS_ENCRYPTION_KEY`) opens every "
            "batch (SQLite) or every entry (Redis: one per commit of the run) as it reads it."
        ),
        tables=[table(header, rows)],
        targets=targets,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokens", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--stores", nargs="+", default=list(STORES), choices=STORES)
    args = parser.parse_args()
    pin_client()
    print(run(args.tokens, args.rounds, tuple(args.stores)).markdown())


if __name__ == "__main__":
    main()
