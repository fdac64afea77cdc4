"""What the doctor found: one line per check, with what to fix under each one that did not pass."""

from __future__ import annotations

from typing import Literal

import msgspec

__all__ = ("Finding", "Verdict", "render")

Verdict = Literal["ok", "warn", "fail"]


class Finding(msgspec.Struct, frozen=True, kw_only=True):
    check: str
    verdict: Verdict
    detail: str
    fix: str | None = None


def render(url: str, findings: list[Finding]) -> str:
    lines = [f"harness doctor {url}"]
    for finding in findings:
        lines.append(f"  {finding.verdict.upper():<5} {finding.check:<12} {finding.detail}")
        if finding.fix and finding.verdict != "ok":
            lines.append(f"  {'':<5} {'':<12} fix: {finding.fix}")
    failed = sum(finding.verdict == "fail" for finding in findings)
    warned = sum(finding.verdict == "warn" for finding in findings)
    lines.append(f"{len(findings) - failed - warned} ok, {warned} warnings, {failed} failed")
    return "\n".join(lines) + "\n"
