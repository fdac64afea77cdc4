"""Where the harness's time goes under the throughput load: py-spy attached to the server, or cProfile inside it.

A harness server streams ``--streams`` turns of ``--tokens`` ``token_delta`` events (the ``firehose`` model,
as in ``bench.throughput``) one after another while py-spy samples it:

    py-spy record --native --rate 250 --format raw -o harness.txt --pid <server pid>

(`--native` pauses the process at each sample; where it cannot, `--nonblocking` without native frames)

(``--format flamegraph -o harness.svg`` for a picture). The collapsed stacks are summed two ways: the share of
samples whose stack passes through each package (inclusive), and the innermost Python function of each
sample (self). When py-spy cannot attach (no ptrace in the container), the server runs under cProfile
instead and the table lists the functions with most own time.

    .venv/bin/python -m bench.profile --tokens 20000 --streams 5
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import pstats
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.report import Section, table
from bench.servers import Server
from bench.system import pin_client
from bench.throughput import stream_rate

__all__ = ("run",)

TOP = 15
MODES = ("--native", "--nonblocking")
ENTRY_SHARE = 0.95
_THREAD = re.compile(r"^thread \(\d+\): (.*?)(_\d+|-\d+)?( \(.*\))?$")
_WAITING = re.compile(
    r"^(0x[0-9a-f]+ \([^()]*libc[.-]|epoll_p?wait|__futex|futex|pthread_cond_|sem_\w*wait|poll|select|nanosleep)"
)
_FRAME = re.compile(r"^(?P<function>.*) \((?P<file>[^()]*?)(?::(?P<line>\d+))?\)$")
_ROOT = str(Path(__file__).resolve().parents[1]) + "/"


def package_of(file: str) -> str:
    """The package a frame's file belongs to: ``api/runs``, ``litestar``, ``langgraph``, ``(stdlib) tasks``..."""
    if "site-packages/" in file:
        return file.split("site-packages/")[1].split("/", maxsplit=1)[0].removesuffix(".py")
    if file.startswith(_ROOT):
        parts = file[len(_ROOT) :].split("/")
        return "/".join(parts[:2]) if len(parts) > 2 else parts[0]
    return "(stdlib) " + Path(file).stem


@dataclass
class Profile:
    """Collapsed stacks summed: samples of each thread, and of the busy ones (not waiting in the kernel)
    per package (inclusive), per innermost Python function and per innermost native frame (self)."""

    threads: collections.Counter[str] = field(default_factory=collections.Counter)
    busy_threads: collections.Counter[str] = field(default_factory=collections.Counter)
    packages: collections.Counter[str] = field(default_factory=collections.Counter)
    functions: collections.Counter[str] = field(default_factory=collections.Counter)
    native: collections.Counter[str] = field(default_factory=collections.Counter)

    @property
    def busy(self) -> int:
        return sum(self.busy_threads.values())

    def entered(self) -> collections.Counter[str]:
        """The packages, less those nearly every busy sample passes through (the entry: runpy, uvicorn's
        ``Server.run``, asyncio's runner), which say nothing about where the time goes."""
        return collections.Counter({name: n for name, n in self.packages.items() if n < ENTRY_SHARE * self.busy})

    def add(self, stack: list[str], count: int) -> None:
        thread = _THREAD.sub(r"\1", stack[0]) if stack[0].startswith("thread (") else "?"
        self.threads[thread] += count
        if _WAITING.match(stack[-1]):
            return
        self.busy_threads[thread] += count
        parsed = [(m["function"], m["file"] or "") for m in map(_FRAME.match, stack) if m is not None]
        for package in {package_of(file) for _, file in parsed if file.endswith(".py")}:
            self.packages[package] += count
        python = [(function, file) for function, file in parsed if file.endswith(".py")]
        if python:
            function, file = python[-1]
            self.functions[f"{function} ({_short(file)})"] += count
        if not stack[-1].endswith(".py)") and ".py:" not in stack[-1]:
            self.native[stack[-1].split(" (")[0]] += count


def summarize_collapsed(lines: list[str]) -> Profile:
    profile = Profile()
    for line in lines:
        stack, _, count_text = line.rstrip().rpartition(" ")
        if stack and count_text.isdigit():
            profile.add(stack.split(";"), int(count_text))
    return profile


def _short(file: str) -> str:
    if "site-packages/" in file:
        return file.rsplit("site-packages/", maxsplit=1)[-1]
    if file.startswith(_ROOT):
        return file[len(_ROOT) :]
    return re.sub(r"^.*/lib/python3\.\d+/", "", file)


async def load(port: int, streams: int) -> None:
    for _ in range(streams):
        await stream_rate(port)


def with_py_spy(tokens: int, streams: int, out: Path) -> Section | None:
    py_spy = shutil.which("py-spy", path=f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}")
    if py_spy is None:
        return None
    with Server("harness", f"firehose:{tokens}", replay_window=tokens + 100) as server:
        asyncio.run(load(server.port, 1))  # warm-up
        recorder, mode = None, ""
        for mode in MODES:  # native frames need the process paused while it is sampled
            command = [
                py_spy,
                "record",
                mode,
                "--threads",
                "--full-filenames",
                "--rate",
                "250",
                "--format",
                "raw",
                "-o",
                str(out),
            ]
            recorder = _attach([*command, "--pid", str(server.pid)])
            if recorder is not None:
                break
        if recorder is None:
            return None
        try:
            asyncio.run(load(server.port, streams))
        finally:
            recorder.send_signal(signal.SIGINT)
            recorder.communicate(timeout=60)
    if not out.exists():
        print("py-spy wrote no profile")
        return None
    profile = summarize_collapsed(out.read_text(encoding="utf-8").splitlines())
    threads = [
        (f"`{name}`", f"{count:,}", f"{100 * profile.busy_threads[name] / count:.1f}%")
        for name, count in profile.threads.most_common()
    ]
    busy = profile.busy
    return Section(
        title="Profile of the harness under the throughput load (py-spy)",
        intro=(
            f"`py-spy record {mode} --threads --full-filenames --rate 250 --format raw --pid <server pid>` while the "
            f"server streamed {streams} turns of {tokens:,} `token_delta` events. py-spy samples every thread, "
            "waiting or not; a sample whose innermost frame is a wait in the kernel (futex, epoll) counts as "
            f"waiting, the others as busy ({busy:,} samples), and the shares below are of the busy ones."
        ),
        tables=[
            table(("thread", "samples", "busy"), threads),
            table(("package (inclusive)", "share of busy samples"), _shares(profile.entered(), busy)),
            table(("innermost Python function (self)", "share of busy samples"), _shares(profile.functions, busy)),
            table(("innermost native frame (self)", "share of busy samples"), _shares(profile.native, busy, 8)),
        ],
    )


def _attach(command: list[str], attempts: int = 2) -> subprocess.Popen[bytes] | None:
    """py-spy recording the server, or None when it cannot attach (it sometimes fails to read the process
    at its first try: "Failed to find python version")."""
    for _ in range(attempts):
        recorder = subprocess.Popen(command, stderr=subprocess.PIPE)
        time.sleep(1.5)
        if recorder.poll() is None:
            return recorder
        _, error = recorder.communicate()
        print(f"py-spy could not attach: {error.decode(errors='replace').strip().splitlines()[:1]}")
    return None


def with_cprofile(tokens: int, streams: int, out: Path) -> Section:
    with Server("harness", f"firehose:{tokens}", replay_window=tokens + 100, cprofile=out) as server:
        asyncio.run(load(server.port, streams))
    stats = pstats.Stats(str(out))
    entries = sorted(stats.stats.items(), key=lambda item: item[1][2], reverse=True)[:TOP]  # type: ignore[attr-defined]
    total = sum(entry[2] for entry in stats.stats.values())  # type: ignore[attr-defined]
    rows = [
        (f"{function} ({_short(file)}:{line})", f"{own:.2f}", f"{cumulative:.2f}", f"{100 * own / total:.1f}%")
        for (file, line, function), (_, _, own, cumulative, _) in entries
    ]
    return Section(
        title="Profile of the harness under the throughput load (cProfile)",
        intro=f"The whole server process under cProfile while it streamed {streams} turns of {tokens:,} events.",
        tables=[table(("function", "own (s)", "cumulative (s)", "share of own time"), rows)],
    )


def _shares(counter: collections.Counter[str], total: int, top: int = TOP) -> list[tuple[str, str]]:
    return [(f"`{name}`", f"{100 * count / max(total, 1):.1f}%") for name, count in counter.most_common(top)]


def run(tokens: int = 20_000, streams: int = 5, tool: str = "auto") -> Section:
    with tempfile.TemporaryDirectory(prefix="bench-profile-") as folder:
        section = with_py_spy(tokens, streams, Path(folder) / "harness.txt") if tool != "cprofile" else None
        if section is None:
            section = with_cprofile(tokens, streams, Path(folder) / "harness.prof")
    return section


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokens", type=int, default=20_000)
    parser.add_argument("--streams", type=int, default=5)
    parser.add_argument("--tool", choices=("auto", "py-spy", "cprofile"), default="auto")
    args = parser.parse_args()
    pin_client()
    print(run(args.tokens, args.streams, args.tool).markdown())


if __name__ == "__main__":
    main()
