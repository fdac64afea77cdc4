"""Where ``harness eval`` prints its tables, and in which form: a table on a terminal, plain lines in a log.

A CI log is where the gate and a comparison are read, and it is not a terminal: rich then lays a table out
in 80 columns and cuts every cell ("provi…", "verdi…") or wraps it over three lines. So, not on a terminal,
the default form is plain lines, one per metric with its verdict; a table asked for there (``--format
table``) is printed on a console as wide as its rows, never cut. ``json`` and ``markdown`` are for a machine
and a pull-request comment (a comparison only: a run writes its own ``report.json`` and ``report.md``).
"""

from __future__ import annotations

import argparse
from typing import Literal, cast

from rich.console import Console

__all__ = (
    "FORMATS",
    "LOG_WIDTH",
    "OutputFormat",
    "add_format_argument",
    "on_a_terminal",
    "output_console",
    "output_format",
)

OutputFormat = Literal["table", "text", "json", "markdown"]
FORMATS: tuple[OutputFormat, ...] = ("table", "text", "json", "markdown")
LOG_WIDTH = 1000
"""The width of a console that is not a terminal: wider than any row the eval prints, so none is cut."""


def add_format_argument(parser: argparse.ArgumentParser, *, inherited: bool = False) -> None:
    """``--format``; ``inherited``: a subcommand's, left unset when not given so the parent's ``--format``
    (``harness eval --format json compare ...``) holds."""
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default=argparse.SUPPRESS if inherited else None,
        help="table, text (one line per metric), json or markdown (a comparison's only) "
        "(default: a table on a terminal, text otherwise)",
    )


def output_console() -> Console:
    """Standard output: as it is on a terminal, else ``LOG_WIDTH`` wide (a log, a pipe, a file)."""
    console = Console()
    return console if on_a_terminal(console) else Console(width=LOG_WIDTH)


def output_format(requested: str | None, console: Console) -> OutputFormat:
    """``requested``, or a table on a terminal and plain lines anywhere else."""
    if requested is not None:
        return cast("OutputFormat", requested)
    return "table" if on_a_terminal(console) else "text"


def on_a_terminal(console: Console) -> bool:
    """Whether a person watches ``console``'s output: its file is a terminal. Not rich's ``is_terminal``, which
    ``FORCE_COLOR`` or ``TTY_COMPATIBLE`` (set in CI for colours) make true in a log, 80 columns wide."""
    try:
        return console.file.isatty()
    except (AttributeError, ValueError, OSError):  # closed, or a stream that cannot say
        return False
