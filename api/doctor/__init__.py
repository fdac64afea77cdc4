"""``harness doctor --url URL``: checks a deployment from outside, through whatever proxies stand in front.

It talks to the service as a client would: negotiation, a streamed turn, a turn that waits for a person,
replay after a cursor. What it finds, and what to fix, is printed; the exit code is 1 when anything fails.
"""

from __future__ import annotations

from api.doctor.checks import diagnose
from api.doctor.report import Finding, render

__all__ = ("Finding", "diagnose", "render")
