"""Stopping a process a test started: politely first, then for sure."""

from __future__ import annotations

import subprocess
from typing import Any

__all__ = ("stop",)


def stop(process: subprocess.Popen[Any], signal: int, *, within_s: float) -> None:
    """Send ``signal`` and wait up to ``within_s`` seconds for the process to exit; kill it if it does not."""
    process.send_signal(signal)
    try:
        process.wait(timeout=within_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
