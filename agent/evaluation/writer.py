"""Writing the report files side by side: report.json, report.md, report.html and junit.xml."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from agent.evaluation.html import render_html
from agent.evaluation.junit import render_junit
from agent.evaluation.markdown import render_markdown
from agent.evaluation.report import encode_report
from agent.stores.private_files import private_directory, write_private

if TYPE_CHECKING:
    from agent.evaluation.report import Report

__all__ = ("ReportFiles", "write_reports")


class ReportFiles(msgspec.Struct, frozen=True, kw_only=True):
    json: Path
    markdown: Path
    html: Path
    junit: Path


def write_reports(report: Report, out_dir: Path, *, baseline: Report | None = None) -> ReportFiles:
    """The reports quote the cases' conversations, so they are as private as the stores (0600 in a 0700 folder).

    With a ``baseline``, report.md and report.html say per case what changed since it."""
    private_directory(out_dir)
    files = ReportFiles(
        json=out_dir / "report.json",
        markdown=out_dir / "report.md",
        html=out_dir / "report.html",
        junit=out_dir / "junit.xml",
    )
    write_private(files.json, encode_report(report))
    write_private(files.markdown, render_markdown(report, baseline=baseline).encode())
    write_private(files.html, render_html(report, baseline=baseline).encode())
    write_private(files.junit, render_junit(report).encode())
    return files
