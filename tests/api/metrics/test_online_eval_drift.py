"""The drift alert of docs/prometheus/alerts.yml (``HarnessOnlineEvalDrift``), run by ``promtool test rules`` on
series shaped as the service writes them from two instances: it fires when the last hour's pass rate is
significantly below the day before it, and not on healthy data, on a fall within chance, or on a handful of runs."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ALERTS = Path(__file__).resolve().parents[3] / "docs" / "prometheus" / "alerts.yml"
ALERT = "HarnessOnlineEvalDrift"
STEP_MIN = 5
"""A scrape (and a rule evaluation) every 5 minutes: the alert's windows hold 12 and 288 of them."""
BASELINE_STEPS = 25 * 60 // STEP_MIN
"""A day and the hour before the window."""
pytestmark = pytest.mark.skipif(
    shutil.which("promtool") is None, reason="promtool (Debian's prometheus, `make prometheus`) is missing"
)


def series(
    scorer: str, *, per_minute: float, passed_per_minute: float, now_per_minute: float, now_passed: float
) -> list:
    """Both instances' counters (runs a minute): the baseline's rate for 25 hours, then an hour at the window's."""
    found: list[dict[str, str]] = []
    for instance in ("a:8000", "b:8000"):
        labels = f'assistant="support",scorer="{scorer}",instance="{instance}",job="agent-harness"'
        for name, rate, now in (
            ("harness_online_eval_score_count", per_minute, now_per_minute),
            ("harness_online_eval_passed_total", passed_per_minute, now_passed),
        ):
            step, now_step = rate * STEP_MIN, now * STEP_MIN
            at_window = step * BASELINE_STEPS
            values = f"0+{step}x{BASELINE_STEPS} {at_window + now_step}+{now_step}x{60 // STEP_MIN - 1}"
            found.append({"series": f"{name}{{{labels}}}", "values": values})
    return found


def promtool_test(tmp_path: Path, tests: list[dict[str, Any]]) -> subprocess.CompletedProcess[str]:
    spec = tmp_path / "drift_test.yml"
    spec.write_text(
        yaml.safe_dump({"rule_files": [str(ALERTS)], "evaluation_interval": f"{STEP_MIN}m", "tests": tests})
    )
    return subprocess.run(["promtool", "test", "rules", str(spec)], capture_output=True, text=True, check=False)


def case(input_series: list[dict[str, str]], fired: list[str]) -> dict[str, Any]:
    """The alert at the end of the window: firing for exactly the scorers ``fired``."""
    expected = [
        {
            "exp_labels": {
                "alertname": "HarnessOnlineEvalDrift",
                "severity": "warn",
                "assistant": "support",
                "scorer": s,
            },
            "exp_annotations": {
                "summary": f"The {s} pass rate of support fell significantly in the last hour",
                "description": (
                    "Its pass rate over the last hour is below the day before it by more than chance explains "
                    "(z-test, 5% level). See which runs failed and why: harness eval online --since 1h "
                    "--baseline-since 25h, then harness eval capture RUN_ID to keep one as a dataset case."
                ),
            },
        }
        for s in fired
    ]
    return {
        "interval": f"{STEP_MIN}m",
        "input_series": input_series,
        "alert_rule_test": [{"eval_time": "26h", "alertname": ALERT, "exp_alerts": expected}],
    }


def test_the_drift_alert_fires_on_a_significant_fall_and_on_nothing_else(tmp_path: Path) -> None:
    healthy = series("outcome", per_minute=5, passed_per_minute=4.5, now_per_minute=5, now_passed=4.5)
    broken = series("guardrail", per_minute=5, passed_per_minute=4.5, now_per_minute=5, now_passed=2.5)
    within_chance = series("trajectory", per_minute=5, passed_per_minute=4.5, now_per_minute=5, now_passed=4.4)
    a_handful = series("budget", per_minute=5, passed_per_minute=4.5, now_per_minute=0.1, now_passed=0.0)

    result = promtool_test(tmp_path, [case(healthy + broken + within_chance + a_handful, ["guardrail"])])

    assert result.returncode == 0, result.stdout + result.stderr


def test_the_test_would_see_an_alert_that_does_not_fire(tmp_path: Path) -> None:
    healthy = series("outcome", per_minute=5, passed_per_minute=4.5, now_per_minute=5, now_passed=4.5)

    result = promtool_test(tmp_path, [case(healthy, ["outcome"])])

    assert result.returncode != 0, "promtool fails a test whose expected alert did not fire"
