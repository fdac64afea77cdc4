"""What every benchmark hands back: markdown tables, and its targets with whether they were met."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

__all__ = ("Section", "Target", "percentile", "table")


@dataclass(frozen=True)
class Target:
    """One of the issue's targets, the figure measured for it, and whether it was met."""

    name: str
    measured: str
    met: bool


@dataclass
class Section:
    """A benchmark's part of the report: a title, what it measured, its tables, its targets."""

    title: str
    intro: str
    tables: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    targets: list[Target] = field(default_factory=list)

    def markdown(self) -> str:
        parts = [f"### {self.title}", self.intro, *self.tables, *self.notes]
        return "\n\n".join(part.strip() for part in parts if part.strip()) + "\n"


def table(header: Sequence[str], rows: Iterable[Sequence[object]], *, align: str | None = None) -> str:
    """A markdown table; ``align`` is one character per column, ``l`` or ``r`` (first left, others right)."""
    align = align or "l" + "r" * (len(header) - 1)
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" if a == "l" else "---:" for a in align) + " |"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def percentile(values: Sequence[float], q: int) -> float:
    """The ``q``-th percentile (inclusive method; the median when ``q`` is 50)."""
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]
