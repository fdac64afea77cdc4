"""Load check: two instances on shared Redis + PostgreSQL, many concurrent streamed turns, clients that switch.

Starts two ``harness serve`` processes on fresh shared stores (a PostgreSQL schema and a Redis key prefix
of their own, removed afterwards) and runs ``--turns`` concurrent ``POST /chat`` streams spread over both.
Every ``--switch-every``-th client drops its stream after a few events and follows the rest of the run
on the *other* instance with ``Last-Event-ID``. Then it checks every run: seqs 1..N with no gap and no
duplicate, exactly one terminal event at the end. The same turns against one instance on the embedded
store are the baseline, measured in the same run.

    .venv/bin/python -m bench.cluster_load                  # 500 turns
    .venv/bin/python -m bench.cluster_load --turns 100      # a quicker look

It prints a markdown table (events/s over the whole load, first-event latency p50/p99, lost, duplicated,
unfinished, the servers' CPU per turn, and the stores' CPU) and exits 1 if any event was lost or duplicated
or any run did not finish. ``python -m bench`` runs it as its ``cluster_load`` step (issue 29's target: the
two instances on shared stores at >= 0.9x the events/s of one embedded instance). The shared stores are a
Redis of the benchmark's own and the machine's PostgreSQL (``bench.shared``); the instances may run on
either core, the clients stay on theirs.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import httpx
import msgspec

from bench.report import Section, Target
from bench.shared import shared_stores
from bench.system import any_core, cpu_seconds
from tests.support.harness_process import HarnessProcess

if TYPE_CHECKING:
    from bench.shared import StoreCosts

QUESTION = {"message": "How do I reset my password?"}
SSE = {"Accept": "text/event-stream"}


@dataclass
class Outcome:
    seqs: list[int] = field(default_factory=list)
    terminal: int = 0
    last_type: str = ""
    first_event_ms: float | None = None
    switched: bool = False


TARGET_RATIO = 0.9


@dataclass
class Load:
    outcomes: list[Outcome]
    seconds: float
    server_cpu_s: float = 0.0
    """CPU time of every instance over the load."""
    stores: StoreCosts | None = None

    @property
    def events(self) -> int:
        return sum(len(o.seqs) for o in self.outcomes)

    @property
    def lost(self) -> int:
        return sum(max(o.seqs, default=0) - len(set(o.seqs)) for o in self.outcomes)

    @property
    def duplicated(self) -> int:
        return sum(len(o.seqs) - len(set(o.seqs)) for o in self.outcomes)

    @property
    def unfinished(self) -> int:
        return sum(o.terminal != 1 or o.last_type not in ("turn_completed", "error") for o in self.outcomes)

    def first_event_ms(self, quantile: float) -> float:
        values = sorted(o.first_event_ms for o in self.outcomes if o.first_event_ms is not None)
        return values[min(len(values) - 1, int(quantile * len(values)))] if values else float("nan")


class AsyncFrames:
    """The events of an SSE response: ``(id, type, seq)`` per frame, comments skipped."""

    def __init__(self, response: httpx.Response) -> None:
        self._chunks = response.aiter_raw()
        self._buffer = b""

    def __aiter__(self) -> AsyncFrames:
        return self

    async def __anext__(self) -> tuple[str, str, int]:
        while True:
            while b"\n\n" not in self._buffer:
                self._buffer += await anext(self._chunks)
            raw, self._buffer = self._buffer.split(b"\n\n", 1)
            if raw.startswith(b":"):
                continue  # a heartbeat
            fields = dict(line.split(b": ", 1) for line in raw.split(b"\n") if b": " in line)
            if b"data" in fields:
                envelope = msgspec.json.decode(fields[b"data"])
                return fields[b"id"].decode(), envelope["type"], envelope["seq"]


async def one_turn(client: httpx.AsyncClient, urls: tuple[str, str], switch_after: int | None) -> Outcome:
    outcome = Outcome(switched=switch_after is not None)
    started = time.perf_counter()
    last_id = ""
    async with client.stream("POST", f"{urls[0]}/chat", json=QUESTION, headers=SSE) as response:
        async for event_id, kind, seq in AsyncFrames(response):
            if outcome.first_event_ms is None:
                outcome.first_event_ms = (time.perf_counter() - started) * 1000
            outcome.seqs.append(seq)
            outcome.last_type, last_id = kind, event_id
            outcome.terminal += kind in ("turn_completed", "error")
            if kind in ("turn_completed", "error") or (switch_after is not None and len(outcome.seqs) >= switch_after):
                break
    if outcome.terminal:
        return outcome
    run_id = last_id.rpartition(":")[0]
    async with client.stream("GET", f"{urls[1]}/runs/{run_id}/events", headers={"Last-Event-ID": last_id}) as response:
        async for _, kind, seq in AsyncFrames(response):
            outcome.seqs.append(seq)
            outcome.last_type = kind
            outcome.terminal += kind in ("turn_completed", "error")
    return outcome


async def run_load(urls: list[str], turns: int, switch_every: int) -> Load:
    limits = httpx.Limits(max_connections=turns * 2, max_keepalive_connections=turns * 2)
    async with httpx.AsyncClient(timeout=300, limits=limits) as client:
        started = time.perf_counter()
        outcomes = await asyncio.gather(
            *(
                one_turn(
                    client,
                    (urls[i % len(urls)], urls[(i + 1) % len(urls)]),
                    5 if switch_every and i % switch_every == 0 else None,
                )
                for i in range(turns)
            )
        )
        return Load(list(outcomes), time.perf_counter() - started)


async def started(instance: HarnessProcess) -> HarnessProcess:
    with any_core():
        return await instance.start(within_s=120)


async def measured_load(instances: list[HarnessProcess], turns: int, switch_every: int) -> Load:
    pids = [instance.process.pid for instance in instances if instance.process is not None]
    cpu = sum(cpu_seconds(pid) for pid in pids)
    load = await run_load([instance.url for instance in instances], turns, switch_every)
    load.server_cpu_s = sum(cpu_seconds(pid) for pid in pids) - cpu
    return load


async def measure(turns: int, switch_every: int, token_delay_ms: float) -> tuple[Load, Load]:
    common = {
        "HARNESS_STUB_TOKEN_DELAY_MS": str(token_delay_ms),
        "HARNESS_RATE_LIMIT_PER_MINUTE": "0",
        "HARNESS_DISCONNECT_GRACE_S": "30",
        "HARNESS_HEARTBEAT_S": "5",
    }
    with tempfile.TemporaryDirectory() as root:
        embedded = await started(HarnessProcess({**common, "HARNESS_DATA_DIR": f"{root}/embedded"}))
        try:
            baseline = await measured_load([embedded], turns, switch_every)
        finally:
            await asyncio.to_thread(embedded.close)
        with shared_stores() as shared:
            instances = [
                HarnessProcess({**common, **shared.env, "HARNESS_DATA_DIR": f"{root}/shared-{i}"}) for i in range(2)
            ]
            try:
                for instance in instances:
                    await started(instance)
                with shared.measured() as costs:
                    load = await measured_load(instances, turns, switch_every)
                load.stores = costs[0]
            finally:
                for instance in instances:
                    await asyncio.to_thread(instance.close)
    return baseline, load


def table(baseline: Load, load: Load, *, turns: int, switch_every: int) -> str:
    rows = [
        ("embedded store, one instance (baseline)", baseline),
        ("Redis + PostgreSQL, two instances", load),
    ]
    lines = [
        f"{turns} concurrent streamed turns; every {switch_every}th client follows the rest of its run on the other "
        "instance (on the embedded baseline: the same instance)",
        "",
        "| path | events | events/s | first event p50 (ms) | first event p99 (ms) | lost | duplicated | unfinished "
        "| server CPU per turn (ms) | Redis CPU (s) | PostgreSQL CPU (s) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, result in rows:
        stores = result.stores
        lines.append(
            f"| {name} | {result.events:,} | {result.events / result.seconds:,.0f} | {result.first_event_ms(0.5):.1f} "
            f"| {result.first_event_ms(0.99):.1f} | {result.lost} | {result.duplicated} | {result.unfinished} "
            f"| {1000 * result.server_cpu_s / turns:.1f} "
            f"| {'' if stores is None else f'{stores.redis_cpu_s:.2f}'} "
            f"| {'' if stores is None else f'{stores.postgres_cpu_s:.2f}'} |"
        )
    return "\n".join(lines)


def run(turns: int = 500, switch_every: int = 5, token_delay_ms: float = 5.0) -> Section:
    baseline, load = asyncio.run(measure(turns, switch_every, token_delay_ms))
    ratio = (load.events / load.seconds) / (baseline.events / baseline.seconds)
    return Section(
        title="6. Concurrent turns over two instances on the shared stores",
        intro=(
            f"{turns} concurrent `POST /chat` streams (stub model, a token every {token_delay_ms:g} ms) spread over "
            "two `harness serve` instances on Redis + PostgreSQL; every run then checked: seqs 1..N, no gap, no "
            "duplicate, one terminal event. The baseline is one instance on the embedded store under the same "
            "turns, measured in the same run. Server CPU per turn sums every instance's CPU over the load."
        ),
        tables=[table(baseline, load, turns=turns, switch_every=switch_every)],
        targets=[
            Target(
                "concurrent turns: two shared-store instances / one embedded >= 0.9x",
                f"{ratio:.2f}x",
                ratio >= TARGET_RATIO,
            ),
            Target(
                "concurrent turns: 0 lost, 0 duplicated, 0 unfinished (shared stores)",
                f"{load.lost} / {load.duplicated} / {load.unfinished}",
                not (load.lost or load.duplicated or load.unfinished),
            ),
        ],
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--turns", type=int, default=500)
    parser.add_argument("--switch-every", type=int, default=5, help="every Nth client switches instance mid-run")
    parser.add_argument("--token-delay-ms", type=float, default=5.0)
    args = parser.parse_args()
    baseline, load = asyncio.run(measure(args.turns, args.switch_every, args.token_delay_ms))
    print(table(baseline, load, turns=args.turns, switch_every=args.switch_every))
    broken = any(result.lost or result.duplicated or result.unfinished for result in (baseline, load))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
