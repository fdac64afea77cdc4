"""Progress of an eval on stderr: a bar with an ETA on a terminal, one plain line per case otherwise (CI logs)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from agent.evaluation.console import on_a_terminal

if TYPE_CHECKING:
    from types import TracebackType

    from rich.console import Console

__all__ = ("EvalProgress",)


class EvalProgress:
    """``with EvalProgress(console, total, label) as progress: ... progress.advance(case_id, passed)``."""

    def __init__(self, console: Console, total: int, label: str, *, already: int = 0) -> None:
        self._console = console
        self._total = total
        self._label = label
        self._done = already
        self._already = already
        self._failed = 0
        self._started = time.perf_counter()
        self._bar: Progress | None = None
        if on_a_terminal(console):  # not rich's is_terminal: FORCE_COLOR in CI would draw bars in the log
            self._bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("[red]{task.fields[failed]} failing"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=console,
            )
            self._task = self._bar.add_task(label, total=total, completed=already, failed=0)

    def __enter__(self) -> EvalProgress:
        if self._bar is not None:
            self._bar.start()
        elif self._done:
            self._line(f"resuming: {self._done} already done")
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._bar is not None:
            self._bar.stop()

    def advance(self, case_id: str, epoch: int, passed: bool) -> None:
        self._done += 1
        self._failed += 0 if passed else 1
        if self._bar is not None:
            self._bar.update(self._task, advance=1, failed=self._failed)
            return
        self._line(f"{case_id} (epoch {epoch}) {'passed' if passed else 'FAILED'}, ETA {self.eta()}")

    def eta(self) -> str:
        """The time left at the pace so far (cases resumed from a file do not count towards the pace)."""
        ran = self._done - self._already
        left = self._total - self._done
        if ran <= 0 or left <= 0:
            return "0s" if left <= 0 else "unknown"
        seconds = (time.perf_counter() - self._started) / ran * left
        return f"{seconds:.0f}s" if seconds < 120 else f"{seconds / 60:.1f}min"

    def _line(self, text: str) -> None:
        print(f"{self._label} [{self._done}/{self._total}] {text}", file=self._console.file, flush=True)
