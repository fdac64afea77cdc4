"""Benchmark 3: ten thousand paused runs, each with an open SSE stream, in one server process.

For each path and heartbeat period: a server on the stub model; a few warm-up runs (created, streamed,
closed); the resident set idle; ``--streams`` runs created with ``POST /chat`` (JSON, "Please refund invoice
INV-1001.", which pauses for approval), ``--create-concurrency`` at a time; the resident set again; one
``GET /runs/{run_id}/events`` stream per run opened from this process on raw sockets and held; the
resident set with every stream open. Then a hold of three heartbeat periods and a bit, with nothing
happening but heartbeats: the server's CPU time over it (``/proc/PID/stat``) as a share of one core, and
the arrival times of ``: hb`` on ``--samples`` of the streams, whose intervals (both ends inside the hold)
give the jitter, max |interval - heartbeat_s|.

The runs are created once per path: for the next heartbeat period the server is restarted on the same
data directory (a pause survives a restart) and the streams are opened on the same paused runs, so its
idle figure already holds them.

On the shared stores (``bench.shared``: Redis of the benchmark's own, the machine's PostgreSQL) two harness
instances run and the streams are held on one of them; the Redis commands per second over the hold are
reported (nothing happens but heartbeats: no stream should cost Redis anything).

The baseline is the raw-ASGI app holding the same streams: the graph run to its interrupt (checkpointed
in SQLite, as in the harness), then the response held open, a ``: hb`` every ``heartbeat_s``.

    .venv/bin/python -m bench.paused_streams --streams 500 --heartbeats 5     # a quick look
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import itertools
import tempfile
import time
from contextlib import AbstractContextManager, ExitStack, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import httpx

from bench.held import LABELS, HeldFigures, hold_streams
from bench.report import Section, Target, table
from bench.servers import Server
from bench.shared import shared_stores
from bench.system import CpuMeter, pin_client, raise_open_files, until_quiet

if TYPE_CHECKING:
    from bench.shared import SharedStores, StoreCosts

__all__ = ("HoldFigures", "run")

REFUND = {"message": "Please refund invoice INV-1001."}
WARMUP_RUNS = 5
SETTLE_S = 2.0
KB_BUDGET = 20.0
SHARED_KB_BUDGET = 25.0
SHARED = "harness-shared"
SHARED_LABEL = "harness on Redis + PostgreSQL, one instance of two"
JITTER_BUDGET_S = 1.0
CPU_BUDGET_PCT = 5.0
APPS = ("raw", "harness", SHARED)
SERVICE_HEARTBEAT_S = 15.0
"""``HARNESS_HEARTBEAT_S``'s default: the targets hold at it; other periods are shown beside the baseline."""


@dataclass(frozen=True, kw_only=True)
class HoldFigures(HeldFigures):
    heartbeat_s: float
    runs_kb: int
    create_s: float
    jitter_s: float
    intervals: int
    redis_commands_per_s: float | None = None


async def create_paused_runs(port: int, count: int, concurrency: int) -> list[str]:
    """``count`` runs paused for approval; their ids."""
    run_ids: list[str] = []
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", limits=limits, timeout=120) as client:

        async def worker(share: int) -> None:
            for _ in range(share):
                answer = (await client.post("/chat", json=REFUND)).raise_for_status().json()
                if answer["status"] != "paused":
                    raise RuntimeError(f"the refund did not pause: {answer['status']}")
                run_ids.append(answer["run_id"])

        shares = [count // concurrency + (1 if index < count % concurrency else 0) for index in range(concurrency)]
        await asyncio.gather(*(worker(share) for share in shares if share))
    return run_ids


async def warm_up(server: Server) -> None:
    run_ids = await create_paused_runs(server.port, WARMUP_RUNS, WARMUP_RUNS)
    held = await hold_streams(server.port, [("GET", f"/runs/{run_id}/events", b"") for run_id in run_ids])
    await asyncio.sleep(0.5)
    await held.close()
    await asyncio.sleep(SETTLE_S)


async def measure_hold(
    server: Server,
    streams: int,
    samples: int,
    create_concurrency: int,
    run_ids: list[str] | None,
    *,
    stores: SharedStores | None = None,
) -> tuple[HoldFigures, list[str]]:
    """The figures of holding a stream on each of ``run_ids`` (created first when None), and the run ids."""
    heartbeat_s = server.options.heartbeat_s
    await warm_up(server)
    idle_kb = server.rss_kb()
    create_s = 0.0
    if run_ids is None:
        started = time.monotonic()
        run_ids = await create_paused_runs(server.port, streams, create_concurrency)
        create_s = time.monotonic() - started
        await asyncio.sleep(SETTLE_S)
    runs_kb = server.rss_kb()
    held = await hold_streams(server.port, [("GET", f"/runs/{r}/events", b"") for r in run_ids], samples=samples)
    try:
        await until_quiet(server.pid)  # every stream has replayed its run's events
        streams_kb = server.rss_kb()
        meter = CpuMeter(server.pid)
        meter.start()
        window_start = time.perf_counter()
        measured: AbstractContextManager[list[StoreCosts]] = (
            stores.measured() if stores is not None else nullcontext([])
        )
        with measured as costs:
            await asyncio.sleep(3 * heartbeat_s + SETTLE_S)
        window_end = time.perf_counter()
        cpu_s, hold_s = meter.stop()
        arrivals = [list(count.arrivals) for count in held.sampled]
    finally:
        await held.close()
    deviations = [
        abs(later - earlier - heartbeat_s)
        for times in arrivals
        for earlier, later in itertools.pairwise(times)
        if earlier >= window_start and later <= window_end
    ]
    if not deviations:
        raise RuntimeError("no heartbeat interval was recorded during the hold")
    figures = HoldFigures(
        app=server.options.app,
        streams=len(held),
        idle_kb=idle_kb,
        streams_kb=streams_kb,
        cpu_s=cpu_s,
        hold_s=hold_s,
        heartbeat_s=heartbeat_s,
        runs_kb=runs_kb,
        create_s=create_s,
        jitter_s=max(deviations),
        intervals=len(deviations),
        redis_commands_per_s=costs[0].redis_commands_per_s if costs else None,
    )
    return figures, run_ids


def run(
    streams: int = 10_000,
    heartbeats: tuple[float, ...] = (15.0, 5.0),
    samples: int = 200,
    create_concurrency: int = 16,
    apps: tuple[str, ...] = APPS,
) -> Section:
    raise_open_files()
    figures = []
    for app in apps:
        with ExitStack() as stack:
            data_dir = stack.enter_context(tempfile.TemporaryDirectory(prefix=f"bench-paused-{app}-"))
            stores = stack.enter_context(shared_stores()) if app == SHARED else None
            urls = stores.urls if stores is not None else None
            if stores is not None:  # the other instance: its presence and leases are part of the deployment
                stack.enter_context(Server("harness", "stub", heartbeat_s=SERVICE_HEARTBEAT_S, shared=urls))
            run_ids = None
            for heartbeat_s in heartbeats:
                kind = "raw" if app == "raw" else "harness"
                server = Server(kind, "stub", heartbeat_s=heartbeat_s, data_dir=Path(data_dir), shared=urls)
                with server:
                    hold, run_ids = asyncio.run(
                        measure_hold(server, streams, samples, create_concurrency, run_ids, stores=stores)
                    )
                figures.append(dataclasses.replace(hold, app=app))
    return section(figures, samples)


def section(figures: list[HoldFigures], samples: int) -> Section:
    rows = [
        (
            {**LABELS, SHARED: SHARED_LABEL}.get(f.app, f.app),
            f"{f.heartbeat_s:g}",
            f"{f.streams:,}",
            f"{f.idle_kb / 1024:,.1f}",
            f"{f.runs_kb / 1024:,.1f}",
            f"{f.streams_kb / 1024:,.1f}",
            f"{f.kb_per_stream:.1f}",
            f"{f.jitter_s * 1000:.0f}",
            f"{f.cpu_pct:.2f}",
            f"{f.create_s:.0f}" if f.create_s else "restarted on them",
            "" if f.redis_commands_per_s is None else f"{f.redis_commands_per_s:,.1f}",
        )
        for f in figures
    ]
    ratios = []
    for harness in (f for f in figures if f.app in ("harness", SHARED)):
        raw = next((f for f in figures if f.app == "raw" and f.heartbeat_s == harness.heartbeat_s), None)
        if raw is not None:
            ratios.append(
                (
                    f"{'harness' if harness.app == 'harness' else 'shared stores'} / raw at {harness.heartbeat_s:g} s",
                    f"{harness.kb_per_stream / raw.kb_per_stream:.2f}x",
                    f"{harness.cpu_pct / raw.cpu_pct:.2f}x" if raw.cpu_pct else "n/a",
                )
            )
    header = (
        "path",
        "heartbeat (s)",
        "streams",
        "RSS idle (MB)",
        "RSS + paused runs (MB)",
        "RSS + streams (MB)",
        "KB per stream beyond idle",
        "heartbeat jitter max (ms)",
        "CPU in hold (% of a core)",
        "creating the runs (s)",
        "Redis commands/s in hold",
    )
    targets = []
    for f in (f for f in figures if f.app == SHARED and f.heartbeat_s == SERVICE_HEARTBEAT_S):
        at = f"at {f.heartbeat_s:g} s, shared stores; issue 29"
        targets += [
            Target(
                f"paused streams: <= 25 KB RSS per stream ({at})",
                f"{f.kb_per_stream:.1f} KB",
                f.kb_per_stream <= SHARED_KB_BUDGET,
            ),
            Target(f"paused streams: CPU < 5% of a core ({at})", f"{f.cpu_pct:.2f}%", f.cpu_pct < CPU_BUDGET_PCT),
        ]
    for f in (f for f in figures if f.app == "harness" and f.heartbeat_s == SERVICE_HEARTBEAT_S):
        at = f"at {f.heartbeat_s:g} s"
        targets += [
            Target(
                f"paused streams: <= 20 KB RSS per stream ({at})",
                f"{f.kb_per_stream:.1f} KB",
                f.kb_per_stream <= KB_BUDGET,
            ),
            Target(
                f"paused streams: heartbeat jitter < 1 s ({at})",
                f"{f.jitter_s * 1000:.0f} ms",
                f.jitter_s < JITTER_BUDGET_S,
            ),
            Target(f"paused streams: CPU < 5% of a core ({at})", f"{f.cpu_pct:.2f}%", f.cpu_pct < CPU_BUDGET_PCT),
        ]
    hold = figures[0]
    return Section(
        title="3. Paused runs, each with an open stream",
        intro=(
            f'{hold.streams:,} runs paused for approval (`POST /chat`, "Please refund invoice INV-1001.", stub '
            "model) and one `GET /runs/{run_id}/events` stream open on each, in one server process. The hold lasts "
            f"three heartbeat periods and {SETTLE_S:g} s; jitter over {samples} sampled streams, intervals with both "
            "ends inside the hold. KB per stream = (RSS with the streams - RSS idle) / streams. The targets are "
            f"checked at the service's default heartbeat ({SERVICE_HEARTBEAT_S:g} s); a shorter period is measured "
            "beside the baseline, whose own CPU grows with it."
        ),
        tables=[
            table(header, rows),
            table(("ratio", "KB per stream", "CPU in hold"), ratios) if ratios else "",
        ],
        targets=targets,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streams", type=int, default=10_000)
    parser.add_argument("--heartbeats", type=float, nargs="+", default=[15.0, 5.0], help="heartbeat periods (s)")
    parser.add_argument("--samples", type=int, default=200, help="streams whose heartbeats are timed")
    parser.add_argument("--create-concurrency", type=int, default=16)
    parser.add_argument("--apps", nargs="+", choices=APPS, default=list(APPS), help="the paths to measure")
    args = parser.parse_args()
    pin_client()
    section = run(args.streams, tuple(args.heartbeats), args.samples, args.create_concurrency, tuple(args.apps))
    print(section.markdown())


if __name__ == "__main__":
    main()
