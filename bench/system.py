"""What the benchmarks read from the operating system: a process's memory and CPU time, and the core it runs on.

Servers run on core 0 (``taskset -c 0``) and clients on core 1, so a figure of the server is not shared
with the client that drives it. Memory is ``VmRSS`` of ``/proc/PID/status``; CPU time is the on-CPU time
of every thread of the process (the SQLite worker threads included) in nanoseconds from ``schedstat``,
the same as ``utime + stime`` of ``/proc/PID/stat`` but not rounded to 10 ms ticks.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = (
    "SERVER_CORE",
    "CpuMeter",
    "any_core",
    "cpu_seconds",
    "pin_client",
    "raise_open_files",
    "rss_kb",
    "stat_cpu_seconds",
    "taskset_prefix",
    "until_quiet",
)

SERVER_CORE = 0
CLIENT_CORE = 1
_TICKS = os.sysconf("SC_CLK_TCK")


def rss_kb(pid: int) -> int:
    """The resident set of ``pid`` in KiB."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"/proc/{pid}/status has no VmRSS line")


def cpu_seconds(pid: int) -> float:
    """CPU time of ``pid`` so far, all its threads: the nanosecond on-CPU time of each thread
    (``/proc/PID/task/TID/schedstat``) where the kernel has it, else ``utime + stime``."""
    try:
        return sum(_thread_cpu_ns(pid, tid) for tid in os.listdir(f"/proc/{pid}/task")) / 1e9
    except OSError:
        return stat_cpu_seconds(pid)


def _thread_cpu_ns(pid: int, tid: str) -> int:
    try:
        with open(f"/proc/{pid}/task/{tid}/schedstat", encoding="ascii") as schedstat:
            return int(schedstat.read().split()[0])
    except FileNotFoundError:  # the thread ended meanwhile
        return 0


def stat_cpu_seconds(pid: int) -> float:
    """``utime + stime`` of ``/proc/PID/stat``: every thread, in clock ticks (10 ms: too coarse for the
    baselines' few tens of milliseconds in a hold)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS  # utime and stime, fields 14 and 15 of the whole line


@dataclass
class CpuMeter:
    """CPU time of a process over a stretch of wall-clock time, as a share of one core."""

    pid: int
    _cpu: float = 0.0
    _wall: float = 0.0

    def start(self) -> None:
        self._cpu = cpu_seconds(self.pid)
        self._wall = time.monotonic()

    def stop(self) -> tuple[float, float]:
        """CPU seconds used and wall seconds elapsed since ``start``."""
        return cpu_seconds(self.pid) - self._cpu, time.monotonic() - self._wall


async def until_quiet(pid: int, *, window_s: float = 1.0, quiet_pct: float = 5.0, timeout_s: float = 120.0) -> float:
    """Wait until ``pid`` uses less than ``quiet_pct`` of a core over a ``window_s`` window: the work still
    going on after the streams' heads came (graphs running up to their model, replays) is done. The
    seconds waited; a warning when it did not settle within ``timeout_s``."""
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        before = cpu_seconds(pid)
        await asyncio.sleep(window_s)
        if 100 * (cpu_seconds(pid) - before) / window_s < quiet_pct:
            return time.monotonic() - started
    print(f"warning: process {pid} still used {quiet_pct:g}% of a core or more after {timeout_s:g} s", flush=True)
    return time.monotonic() - started


@contextlib.contextmanager
def any_core() -> Iterator[None]:
    """Processes started in the block may run on any core (this one may be pinned to the clients' core):
    the instances of ``bench.cluster_load`` and the benchmark's own Redis."""
    pinned = os.sched_getaffinity(0)
    os.sched_setaffinity(0, range(os.cpu_count() or 1))
    try:
        yield
    finally:
        os.sched_setaffinity(0, pinned)


def pin_client() -> None:
    """Run this process (the clients) on the core the servers do not use."""
    if len(os.sched_getaffinity(0)) > 1:
        os.sched_setaffinity(0, {CLIENT_CORE})


def taskset_prefix() -> list[str]:
    """The command prefix that pins a server to its core (nothing on a single-core machine)."""
    return ["taskset", "-c", str(SERVER_CORE)] if (os.cpu_count() or 1) > 1 else []


def raise_open_files() -> int:
    """Lift this process's open-file limit to its hard limit (thousands of sockets); the new soft limit."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard
