"""Benchmark 4: a thousand streams of running runs whose model never answers, held open.

For each path: a server on the ``silent`` model (its stream awaits forever, so every run stays running
with its SSE stream idle); ``WARM`` streams opened first and left open, then the resident set; ``--streams``
more ``POST /chat`` streams (``Accept: text/event-stream``) opened from this process on raw sockets; the
resident set with all of them open; then the server's CPU time over a ``--hold-s`` hold as a share of one
core. Each figure is taken once the server has settled (``until_quiet``: its CPU in a one-second window
under 5% or no longer falling), i.e. every graph has run up to the model; the head of a stream comes
before that. The baseline is the raw-ASGI app, whose graph waits on the same model inside ``astream``.

    .venv/bin/python -m bench.silent_streams --streams 1000 --hold-s 15
"""

from __future__ import annotations

import argparse
import asyncio

from bench.held import LABELS, HeldFigures, hold_streams
from bench.report import Section, Target, table
from bench.servers import Server
from bench.system import CpuMeter, pin_client, raise_open_files, until_quiet
from bench.throughput import QUESTION

__all__ = ("run",)

WARM = 10
CPU_RATIO_BUDGET = 2.0


async def measure(app: str, streams: int, hold_s: float) -> HeldFigures:
    chat = ("POST", "/chat", QUESTION)
    with Server(app, "silent") as server:
        warm = await hold_streams(server.port, [chat] * WARM)
        held = None
        try:
            await until_quiet(server.pid)
            idle_kb = server.rss_kb()
            held = await hold_streams(server.port, [chat] * streams)
            opened = len(held)
            await until_quiet(server.pid)  # every graph has run up to the model
            streams_kb = server.rss_kb()
            meter = CpuMeter(server.pid)
            meter.start()
            await asyncio.sleep(hold_s)
            cpu_s, wall_s = meter.stop()
        finally:
            await warm.close()
            if held is not None:
                await held.close()
    return HeldFigures(app=app, streams=opened, idle_kb=idle_kb, streams_kb=streams_kb, cpu_s=cpu_s, hold_s=wall_s)


def run(streams: int = 1000, hold_s: float = 15.0) -> Section:
    raise_open_files()
    figures = {app: asyncio.run(measure(app, streams, hold_s)) for app in ("raw", "harness")}
    rows = [
        (
            LABELS[f.app],
            f"{f.streams:,}",
            f"{f.idle_kb / 1024:,.1f}",
            f"{f.streams_kb / 1024:,.1f}",
            f"{f.kb_per_stream:.1f}",
            f"{f.cpu_s:.3f}",
            f"{f.cpu_pct:.2f}",
        )
        for f in figures.values()
    ]
    raw, harness = figures["raw"], figures["harness"]
    ratio = harness.cpu_s / raw.cpu_s if raw.cpu_s else float("inf")
    rows.append(("harness / raw", "", "", "", f"{harness.kb_per_stream / raw.kb_per_stream:.2f}x", f"{ratio:.2f}x", ""))
    header = (
        "path",
        "streams",
        "RSS idle (MB)",
        "RSS + streams (MB)",
        "KB per stream",
        "CPU in hold (s)",
        "% of a core",
    )
    return Section(
        title="4. Running runs on a silent model",
        intro=(
            f"{streams:,} `POST /chat` streams of runs whose model never sends a token, held open (plus {WARM} opened "
            f"before the idle figure); server CPU time over a {hold_s:g} s hold. Both send a heartbeat every 15 s on a "
            "silent stream (the baseline from a task of its own). KB per stream = "
            "(RSS with the streams - RSS idle) / streams."
        ),
        tables=[table(header, rows)],
        targets=[Target("silent streams: server CPU <= 2x raw", f"{ratio:.2f}x", ratio <= CPU_RATIO_BUDGET)],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--hold-s", type=float, default=15.0)
    args = parser.parse_args()
    pin_client()
    print(run(args.streams, args.hold_s).markdown())


if __name__ == "__main__":
    main()
