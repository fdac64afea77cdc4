"""Writing the three report files side by side: report.json, report.md, report.html."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from agent.evaluation.html import render_html
from agent.evaluation.markdown import render_markdown
from agent.evaluation.report import encode_report

if TYPE_CHECKING:
    from agent.evaluation.report import Report

__all__ = ("ReportFiles", "write_reports")


class ReportFiles(msgspec.Struct, frozen=True, kw_only=True):
    json: Path
    markdown: Path
    html: Path


def write_reports(report: Report, out_dir: Path) -> ReportFiles:
    out_dir.mkdir(parents=True, exist_ok=True)
    files = ReportFiles(json=out_dir / "report.json", markdown=out_dir / "report.md", html=out_dir / "report.html")
    files.json.write_bytes(encode_report(report))
    files.markdown.write_text(render_markdown(report), encoding="utf-8")
    files.html.write_text(render_html(report), encoding="utf-8")
    return files
