"""Benchmark 2: time to the first ``token_delta``, the harness against raw ASGI and FastAPI over the same graph.

Each turn: ``POST /chat`` with ``Accept: text/event-stream`` on a fresh connection, the clock started just
before the request is written and stopped when the first ``event: token_delta`` frame arrives; the
rest of the stream is read to its end before the next turn. Every path runs the real input guardrail
(``admit_message``) and retrieval (the ``retrieve_context`` node) before the model, a ``firehose`` of
``--answer-tokens`` tokens. After a warm-up, the paths take turns one by one, so drift in the machine's
load hits all alike. There is no pause between turns: on this virtual machine an idle core wakes slowly, and
a pause of 50 ms made every path's first token about twice as slow.

What the guardrail and retrieval cost on their own is measured in this process on the same question:
``redact`` and ``check_input`` (what ``admit_message`` runs) and ``KnowledgeIndex.search``.

    .venv/bin/python -m bench.first_token --turns 200
"""

from __future__ import annotations

import argparse
import asyncio
import time
from contextlib import ExitStack
from typing import TYPE_CHECKING

from bench.client import TOKEN_DELTA, count_until_closed, open_stream
from bench.report import Section, Target, percentile, table
from bench.servers import APPS, Server
from bench.shared import shared_stores
from bench.system import pin_client
from bench.throughput import LABELS, QUESTION, SHARED, SHARED_LABEL

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ("run",)

MESSAGE = "How do I reset my password?"
P50_BUDGET_MS = 1.0
P99_BUDGET_MS = 3.0
SHARED_P50_BUDGET_MS = 2.0


async def first_token_ms(port: int) -> float:
    response = await open_stream(port, "POST", "/chat", body=QUESTION)
    counted = await count_until_closed(response, TOKEN_DELTA)
    if counted.first_at is None:
        raise RuntimeError(f"the server on port {port} sent no token_delta")
    return (counted.first_at - response.sent_at) * 1000


async def interleaved(ports: dict[str, int], turns: int, warmup: int) -> dict[str, list[float]]:
    for _ in range(warmup):
        for port in ports.values():
            await first_token_ms(port)
    samples: dict[str, list[float]] = {app: [] for app in ports}
    for _ in range(turns):
        for app, port in ports.items():
            samples[app].append(await first_token_ms(port))
    return samples


def in_process_costs(rounds: int = 2000) -> dict[str, list[float]]:
    """Microseconds per call of the input guardrail and of retrieval, on the benchmark's question."""
    from agent.guardrails import check_input, redact
    from agent.knowledge import KnowledgeIndex, load_bundled_corpus

    index = KnowledgeIndex(load_bundled_corpus())
    calls: dict[str, Callable[[], object]] = {
        "input guardrail (`redact` + `check_input`)": lambda: (redact(MESSAGE), check_input(MESSAGE)),
        "retrieval (`KnowledgeIndex.search`, k=3)": lambda: index.search(MESSAGE, 3),
    }
    timings: dict[str, list[float]] = {}
    for name, call in calls.items():
        call()  # first call builds lazy tables
        timings[name] = []
        for _ in range(rounds):
            started = time.perf_counter_ns()
            call()
            timings[name].append((time.perf_counter_ns() - started) / 1000)
    return timings


def run(turns: int = 200, warmup: int = 20, answer_tokens: int = 40) -> Section:
    with ExitStack() as stack:
        ports = {app: stack.enter_context(Server(app, f"firehose:{answer_tokens}")).port for app in APPS}
        stores = stack.enter_context(shared_stores())
        ports[SHARED] = stack.enter_context(Server("harness", f"firehose:{answer_tokens}", shared=stores.urls)).port
        samples = asyncio.run(interleaved(ports, turns, warmup))
    p50 = {app: percentile(values, 50) for app, values in samples.items()}
    p99 = {app: percentile(values, 99) for app, values in samples.items()}
    rows = [
        (
            {**LABELS, SHARED: SHARED_LABEL}[app],
            f"{p50[app]:.2f}",
            f"{p99[app]:.2f}",
            f"{p50[app] - p50['raw']:+.2f}",
            f"{p99[app] - p99['raw']:+.2f}",
        )
        for app in samples
    ]
    costs = in_process_costs()
    cost_rows = [(name, f"{percentile(v, 50):.1f}", f"{percentile(v, 99):.1f}") for name, v in costs.items()]
    over50, over99 = p50["harness"] - p50["raw"], p99["harness"] - p99["raw"]
    shared50 = p50[SHARED] - p50["harness"]
    return Section(
        title="2. First token",
        intro=(
            f"Time from writing `POST /chat` (`Accept: text/event-stream`) to the first `event: token_delta` frame, "
            f"{turns} turns of {answer_tokens} tokens per path after {warmup} warm-up turns, the paths taking turns; "
            "the real input guardrail and retrieval run in every path, the harness also on the shared stores "
            "(Redis + PostgreSQL, `bench.shared`)."
        ),
        tables=[
            table(("path", "p50 (ms)", "p99 (ms)", "p50 - raw", "p99 - raw"), rows),
            "What the two steps before the model cost on their own, in-process, on the same question "
            f"({len(next(iter(costs.values()))):,} calls each):\n\n"
            + table(("step", "p50 (µs)", "p99 (µs)"), cost_rows),
        ],
        targets=[
            Target("first token p50 <= raw + 1 ms", f"raw {over50:+.2f} ms", over50 <= P50_BUDGET_MS),
            Target("first token p99 <= raw + 3 ms", f"raw {over99:+.2f} ms", over99 <= P99_BUDGET_MS),
            Target(
                "first token p50, shared stores <= embedded + 2 ms (issue 29)",
                f"embedded {shared50:+.2f} ms",
                shared50 <= SHARED_P50_BUDGET_MS,
            ),
        ],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--answer-tokens", type=int, default=40)
    args = parser.parse_args()
    pin_client()
    print(run(args.turns, args.warmup, args.answer_tokens).markdown())


if __name__ == "__main__":
    main()
