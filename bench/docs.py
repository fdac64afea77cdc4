"""Writing a run's figures into docs/benchmarks.md, between markers, leaving the file's other sections alone."""

from __future__ import annotations

import importlib.metadata
import os
import platform
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from bench.report import table

if TYPE_CHECKING:
    import datetime

    from bench.report import Section

__all__ = ("DOC", "commit", "machine", "render", "write")

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "benchmarks.md"
BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"
HEADING = "## Durable streams against raw ASGI and FastAPI (`make bench`)"
RECIPE = """\
`make bench` (or `.venv/bin/python -m bench`; `--quick` for a small run, `--only NAME ...` for some of them)
starts every server in its own process pinned to core 0 (`taskset -c 0`), on uvicorn with uvloop and
httptools, and drives it from a client pinned to core 1. Three servers run the same agent graph
(`agent.runtime.open_agent` on a fresh data directory): **raw**, a minimal raw-ASGI app with no log and no
framework (`bench/raw_app.py`); **fastapi**, FastAPI + sse-starlette + a pydantic request model with no log
(`bench/fastapi_app.py`); **harness**, the product (`api.app.create_app`), every event committed to its log
before it is sent. Every figure is compared with a baseline measured in the same run; tests never assert
times. Each benchmark also runs on its own: `python -m bench.throughput`, `bench.first_token`,
`bench.paused_streams --streams 500`, `bench.silent_streams`, `bench.replay`, `bench.profile`,
`bench.cluster_load`. The shared-store figures (issue 29) run the harness on Redis (the run log) and
PostgreSQL (checkpoints) beside the embedded path in the same run: a `redis-server` of the benchmark's own,
so that its commands and CPU are the benchmark's alone, and the machine's PostgreSQL (`bench/shared.py`).

Profiling recipe: start the harness under load (`python -m bench.profile` does both) and attach
`py-spy record --native --format flamegraph -o harness.svg --pid <server pid>` (or
`--format raw` for collapsed stacks, which `bench.profile` sums per package and per function); when py-spy
cannot attach, `python -m bench.profile --tool cprofile` runs the server under cProfile instead."""


def commit() -> str:
    """``git rev-parse --short HEAD``, with ``-dirty`` when the work tree has changes."""
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    status = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True, check=False)
    name = head.stdout.strip() or "unknown"
    return f"{name}-dirty" if status.stdout.strip() else name


def machine() -> str:
    versions = ", ".join(
        f"{name} {_version(name)}"
        for name in ("uvicorn", "uvloop", "httptools", "litestar", "fastapi", "sse-starlette")
    )
    return (
        f"{os.cpu_count()} cores ({_cpu_model()}), {_memory_gib()} GiB, Python {platform.python_version()}; {versions}"
    )


def render(sections: list[Section], *, started: datetime.datetime, revision: str, options: str) -> str:
    targets = [target for section in sections for target in section.targets]
    summary = table(
        ("target", "measured", "met"),
        [(t.name, t.measured, "yes" if t.met else "**no**") for t in targets],
        align="lrl",
    )
    parts = [
        HEADING,
        BEGIN,
        RECIPE,
        f"### Run of {started:%Y-%m-%d %H:%M} UTC, commit {revision}",
        f"Machine: {machine()}. Options: `{options}`.",
        "Targets (issues 12 and 29):\n\n" + summary,
        *(section.markdown() for section in sections),
        END,
    ]
    return "\n\n".join(part.strip() for part in parts) + "\n"


def write(block: str, doc: Path = DOC) -> None:
    """Put ``block`` in place of the previous run's in ``doc`` (before its first section when there is none)."""
    text = doc.read_text(encoding="utf-8")
    if BEGIN in text and END in text:
        head = text[: text.index(BEGIN)].rstrip()
        head = head.removesuffix(HEADING).rstrip()
        tail = text[text.index(END) + len(END) :].lstrip()
    else:
        first = text.find("\n## ")
        head, tail = (text.rstrip(), "") if first < 0 else (text[:first].rstrip(), text[first + 1 :])
    doc.write_text(f"{head}\n\n{block}\n{tail}".rstrip() + "\n", encoding="utf-8")


def _version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "(not installed)"


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _memory_gib() -> str:
    try:
        for line in Path("/proc/meminfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("MemTotal:"):
                return f"{int(line.split()[1]) / 1024**2:.0f}"
    except OSError:
        pass
    return "?"
