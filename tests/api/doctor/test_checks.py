"""The doctor's verdicts on what it saw, and its report, without a network."""

from __future__ import annotations

import asyncio

from api.doctor import Finding, diagnose, render
from api.doctor.checks import Options, _token_timing
from api.doctor.stream import TimedFrame
from tests.e2e.conftest import free_port


def token(second: float, arrived: float) -> TimedFrame:
    at = f"2026-12-01T10:00:{second:09.6f}Z"
    return TimedFrame(b"", arrived, {"type": "token_delta", "seq": 1, "at": at})


def test_tokens_sent_over_time_and_received_over_time_are_incremental() -> None:
    finding = _token_timing([token(0.0, 100.0), token(1.0, 100.9), token(2.0, 102.0)])
    assert finding.verdict == "ok"
    assert "over 2.00 s arrived over 2.00 s" in finding.detail


def test_tokens_sent_over_time_and_received_at_once_were_held_back() -> None:
    finding = _token_timing([token(0.0, 100.0), token(1.0, 100.0), token(2.0, 100.01)])
    assert finding.verdict == "fail"
    assert finding.fix is not None
    assert "X-Accel-Buffering" in finding.fix


def test_a_model_too_fast_to_measure_is_not_a_verdict() -> None:
    finding = _token_timing([token(0.0, 100.0), token(0.1, 100.0)])
    assert finding.verdict == "ok"
    assert "too fast to compare" in finding.detail
    assert _token_timing([token(0.0, 100.0)]).verdict == "warn"


def test_the_report_says_what_to_fix_under_what_failed() -> None:
    text = render(
        "http://svc",
        [
            Finding(check="health", verdict="ok", detail="fine", fix="never shown"),
            Finding(check="waiting", verdict="fail", detail="held back", fix="turn buffering off"),
        ],
    )
    assert text.splitlines() == [
        "harness doctor http://svc",
        "  OK    health       fine",
        "  FAIL  waiting      held back",
        "                     fix: turn buffering off",
        "1 ok, 0 warnings, 1 failed",
    ]


def test_an_unreachable_service_is_one_failed_check() -> None:
    findings = asyncio.run(diagnose(f"http://127.0.0.1:{free_port()}", Options(timeout_s=2)))
    assert [(f.check, f.verdict) for f in findings] == [("health", "fail")]
