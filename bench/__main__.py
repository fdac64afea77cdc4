"""``python -m bench``: every benchmark of issue 12 in one run, its figures written to docs/benchmarks.md.

1. throughput of one 20,000-event stream (raw ASGI, FastAPI, harness; median of 3 rounds);
2. first token p50/p99 over 200 turns (and what the guardrail and retrieval cost on their own);
3. 10,000 paused runs with an open stream each, heartbeat 15 s and 5 s (RSS, jitter, CPU);
4. 1,000 streams of running runs on a silent model (CPU, RSS);
5. replay of a finished 20,000-event run (embedded log, Redis; each plain and sealed);
6. a profile of the harness under the throughput load;
7. concurrent streamed turns over two instances on the shared stores (issue 29), against one embedded instance;
8. the Agent Protocol stream (issue 26, ``bench.agent_protocol``): events/s, first token and a reconnect with
   ``Last-Event-ID``, beside ``/chat``'s, and against ``langgraph dev`` and Aegra (installed from PyPI into
   their own virtual environments on first use; Aegra needs PostgreSQL on 127.0.0.1:5432). ``--quick``
   measures this service alone; ``--ap-peers`` chooses. Beside this service's Agent Protocol figures, its A2A
   stream on the same server and graph (issue 38, ``bench.a2a_stream``), with the ratio.

Throughput, first token, paused streams and replay also measure the harness on the shared stores (Redis for
the run log, PostgreSQL for checkpoints; ``bench.shared``) beside the embedded path, in the same run.

    .venv/bin/python -m bench                  # everything, 15-25 minutes; writes docs/benchmarks.md
    .venv/bin/python -m bench --quick          # small sizes, a few minutes
    .venv/bin/python -m bench --only throughput first_token --no-write

Servers run pinned to core 0, this process (the clients) to core 1. Every server process and its data
directory is removed when the run ends, Ctrl-C included.
"""

from __future__ import annotations

import argparse
import datetime
import shlex
import signal
import sys
from typing import TYPE_CHECKING, Any

from bench import docs
from bench.agent_protocol import PEERS
from bench.replay import STORES
from bench.system import pin_client, raise_open_files

if TYPE_CHECKING:
    from collections.abc import Callable

    from bench.report import Section

BENCHMARKS = (
    "throughput",
    "first_token",
    "paused_streams",
    "silent_streams",
    "replay",
    "profile",
    "cluster_load",
    "agent_protocol",
)


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="small sizes everywhere (a smoke run)")
    parser.add_argument("--only", nargs="+", choices=BENCHMARKS, help="run only these")
    parser.add_argument("--skip", nargs="+", choices=BENCHMARKS, default=[], help="do not run these")
    parser.add_argument("--no-write", action="store_true", help="print the report, do not touch docs/benchmarks.md")
    parser.add_argument("--tokens", type=int, help="events of the long stream (throughput, replay, profile)")
    parser.add_argument("--rounds", type=int, help="throughput and replay rounds")
    parser.add_argument("--turns", type=int, help="first-token turns per path")
    parser.add_argument("--streams", type=int, help="paused runs held, each with a stream")
    parser.add_argument("--heartbeats", type=float, nargs="+", help="heartbeat periods of the paused hold (s)")
    parser.add_argument("--silent-streams", type=int, help="streams of running runs on the silent model")
    parser.add_argument("--hold-s", type=float, help="the silent hold (s)")
    parser.add_argument("--stores", nargs="+", choices=STORES, help="replay stores (default: all)")
    parser.add_argument(
        "--ap-peers", nargs="+", choices=PEERS, help="Agent Protocol servers (default: all; --quick: harness)"
    )
    parser.add_argument("--concurrent-turns", type=int, help="turns of the two-instance load (cluster_load)")
    return parser.parse_args(argv)


def sizes(args: argparse.Namespace) -> dict[str, Any]:
    quick = args.quick
    return {
        "tokens": args.tokens or (5_000 if quick else 20_000),
        "rounds": args.rounds or (1 if quick else 3),
        "turns": args.turns or (40 if quick else 200),
        "streams": args.streams or (300 if quick else 10_000),
        "heartbeats": tuple(args.heartbeats or ((2.0,) if quick else (15.0, 5.0))),
        "silent_streams": args.silent_streams or (100 if quick else 1_000),
        "hold_s": args.hold_s or (5.0 if quick else 15.0),
        "stores": tuple(args.stores or STORES),
        "concurrent_turns": args.concurrent_turns or (100 if quick else 500),
        "ap_peers": tuple(args.ap_peers or (PEERS[:1] if quick else PEERS)),
        "ap_turns": 20 if quick else 100,
        "reconnects": 5 if quick else 10,
    }


def plan(size: dict[str, Any]) -> dict[str, Callable[[], Section]]:
    from bench import (
        agent_protocol,
        cluster_load,
        first_token,
        paused_streams,
        profile,
        replay,
        silent_streams,
        throughput,
    )

    return {
        "throughput": lambda: throughput.run(size["tokens"], size["rounds"]),
        "first_token": lambda: first_token.run(size["turns"]),
        "paused_streams": lambda: paused_streams.run(size["streams"], size["heartbeats"]),
        "silent_streams": lambda: silent_streams.run(size["silent_streams"], size["hold_s"]),
        "replay": lambda: replay.run(size["tokens"], size["rounds"], size["stores"]),
        "profile": lambda: profile.run(size["tokens"], 3 if size["rounds"] == 1 else 5),
        "cluster_load": lambda: cluster_load.run(size["concurrent_turns"]),
        "agent_protocol": lambda: agent_protocol.run(
            size["tokens"], size["ap_turns"], 2_000, size["reconnects"], size["ap_peers"]
        ),
    }


def main(argv: list[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # unwind: every Server stops its process
    pin_client()
    raise_open_files()
    started = datetime.datetime.now(datetime.UTC)
    revision = docs.commit()
    chosen = [name for name in (args.only or BENCHMARKS) if name not in args.skip]
    steps = plan(sizes(args))
    sections: list[Section] = []
    for name in chosen:
        print(f"== {name}", flush=True)
        section = steps[name]()
        print(section.markdown(), flush=True)
        sections.append(section)
    options = shlex.join(["python", "-m", "bench", *(sys.argv[1:] if argv is None else argv)])
    block = docs.render(sections, started=started, revision=revision, options=options)
    print(block.split("### 1.")[0] if "### 1." in block else block)
    if not args.no_write:
        docs.write(block)
        print(f"wrote {docs.DOC.relative_to(docs.ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
