"""The Grafana dashboard and the Prometheus alerts of docs/ ask only for metrics the service exposes, and their
PromQL is valid (``promtool check rules``, on the alerts and on every panel's expression as a recording rule)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

if TYPE_CHECKING:
    from litestar.testing import AsyncTestClient

DOCS = Path(__file__).resolve().parents[3] / "docs"
DASHBOARD = DOCS / "grafana" / "dashboard.json"
ALERTS = DOCS / "prometheus" / "alerts.yml"
METRIC = re.compile(r"\bharness_[a-z_]+\b")
SERIES = {"counter": ("_total",), "histogram": ("_bucket", "_count", "_sum"), "gauge": ("",)}
"""The series a family of each type writes (besides ``_created``)."""
embedded_only = pytest.mark.parametrize("stores", ["embedded"], indirect=True)


async def exposed(client: AsyncTestClient) -> set[str]:
    """Every series name the service can write, from the families it declares (moved or not yet)."""
    response = await client.get("/metrics")
    assert response.status_code == 200
    return {
        family.name + suffix
        for family in text_string_to_metric_families(response.text)
        for suffix in SERIES[family.type]
    }


def dashboard_expressions() -> list[str]:
    dashboard = json.loads(DASHBOARD.read_text())
    return [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]


def alert_expressions() -> list[str]:
    rules = yaml.safe_load(ALERTS.read_text())
    return [rule["expr"] for group in rules["groups"] for rule in group["rules"]]


@embedded_only
async def test_every_dashboard_and_alert_expression_names_metrics_the_service_exposes(client: AsyncTestClient) -> None:
    names = await exposed(client)
    expressions = dashboard_expressions() + alert_expressions()
    named = {name for expression in expressions for name in METRIC.findall(expression)}

    assert len(dashboard_expressions()) >= 15
    assert named, "the expressions name the service's metrics"
    assert named <= names, f"not exposed: {sorted(named - names)}"
    alerts = {rule["alert"] for group in yaml.safe_load(ALERTS.read_text())["groups"] for rule in group["rules"]}
    assert {
        "HarnessLeasesLost",
        "HarnessStoreErrors",
        "HarnessFirstTokenSlow",
        "HarnessApprovalWaitingOverAnHour",
    } <= alerts


@pytest.mark.skipif(
    shutil.which("promtool") is None, reason="promtool (Debian's prometheus, `make prometheus`) is missing"
)
def test_promtool_accepts_the_alerts_and_every_dashboard_expression(tmp_path: Path) -> None:
    panels = tmp_path / "dashboard-rules.yml"
    rules = [{"record": f"dashboard:expression_{n}", "expr": expr} for n, expr in enumerate(dashboard_expressions())]
    panels.write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}))

    checked = subprocess.run(
        ["promtool", "check", "rules", str(ALERTS), str(panels)], capture_output=True, text=True, check=False
    )

    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"SUCCESS: {len(alert_expressions())} rules found" in checked.stdout
    assert f"SUCCESS: {len(rules)} rules found" in checked.stdout
