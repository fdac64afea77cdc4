"""The quality gate: thresholds from ``[tool.harness.gate]`` in pyproject.toml, checked against a report.

A key is ``min_<metric>`` or ``max_<metric>`` for a metric of ``HEADLINE_METRICS``; the bound must agree with
the metric's direction, so a typo or a reversed bound is an error, not a gate that silently passes. A metric
the gate names but the run could not measure fails: the gate never passes on missing evidence. An empty
table is an error too: a gate that checks nothing would pass everything.

Three kinds of sub-table: ``[tool.harness.gate.providers.<name>]`` holds a provider's own thresholds (the
local model's are not the stub's); ``[tool.harness.gate.datasets.<name>]`` a dataset's own (by the file's
stem: the regression set the rules were written against is held to more than the sealed held-out set);
a run is held to its provider's table, else its dataset's, else the top-level one. And
``[tool.harness.gate.compare]``: the paired comparison's ``alpha``, ``min_effect`` and
``min_effect_<metric>`` (``compare.CompareSettings``).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import msgspec

from agent.errors import AgentError
from agent.evaluation.compare import CompareSettings, comparable_names
from agent.evaluation.headline import HEADLINE_METRICS, headline

if TYPE_CHECKING:
    from collections.abc import Mapping

    from agent.evaluation.report import Report

__all__ = (
    "GateCheck",
    "GateConfig",
    "GateConfigError",
    "GateResult",
    "Threshold",
    "evaluate_gate",
    "find_pyproject",
    "load_gate_config",
    "load_thresholds",
    "parse_compare",
    "parse_gate_config",
    "parse_thresholds",
)

_BOUND_OF_DIRECTION = {"higher": "min", "lower": "max"}


class GateConfigError(AgentError, ValueError):
    """Thresholds that cannot be used; the message names the key."""


class Threshold(msgspec.Struct, frozen=True, kw_only=True):
    metric: str
    bound: Literal["min", "max"]
    value: float


class GateConfig(msgspec.Struct, frozen=True, kw_only=True):
    thresholds: list[Threshold]
    """What every provider's run is held to, unless ``providers`` has a table of its own for it."""
    providers: dict[str, list[Threshold]] = msgspec.field(default_factory=dict)
    datasets: dict[str, list[Threshold]] = msgspec.field(default_factory=dict)
    compare: CompareSettings = msgspec.field(default_factory=CompareSettings)

    def for_run(self, provider: str, dataset: str) -> list[Threshold]:
        """The provider's own table, else the dataset's, else the top-level one."""
        return self.providers.get(provider) or self.datasets.get(dataset) or self.thresholds


class GateCheck(msgspec.Struct, frozen=True, kw_only=True):
    provider: str
    metric: str
    bound: Literal["min", "max"]
    threshold: float
    actual: float | None
    passed: bool


class GateResult(msgspec.Struct, frozen=True, kw_only=True):
    checks: list[GateCheck]

    @property
    def passed(self) -> bool:
        return all(check.passed for check in self.checks)

    @property
    def failures(self) -> list[GateCheck]:
        return [check for check in self.checks if not check.passed]


def find_pyproject(start: Path | None = None) -> Path:
    """The nearest pyproject.toml at or above ``start`` (the working directory) with a gate table."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file() and "gate" in _harness_table(candidate):
            return candidate
    raise GateConfigError(f"no pyproject.toml with a [tool.harness.gate] table at or above {here}")


def load_gate_config(pyproject: Path) -> GateConfig:
    table = _harness_table(pyproject).get("gate")
    if not isinstance(table, dict):
        raise GateConfigError(f"{pyproject} has no [tool.harness.gate] table")
    try:
        return parse_gate_config(table)
    except GateConfigError as exc:
        raise GateConfigError(f"{pyproject}: {exc}") from None


def load_thresholds(pyproject: Path) -> list[Threshold]:
    """The top-level thresholds of the gate table (the whole table is validated)."""
    return load_gate_config(pyproject).thresholds


def parse_gate_config(table: Mapping[str, object]) -> GateConfig:
    flat = {key: value for key, value in table.items() if not isinstance(value, dict)}
    for key, value in table.items():
        if isinstance(value, dict) and key not in ("providers", "datasets", "compare"):
            raise GateConfigError(
                f"[tool.harness.gate.{key}] is not a known table: providers.<name>, datasets.<name> or compare"
            )
    compare_table = table.get("compare", {})
    if not isinstance(compare_table, dict):
        raise GateConfigError("[tool.harness.gate] 'compare' must be a table")
    return GateConfig(
        thresholds=parse_thresholds(flat),
        providers=_named_tables(table, "providers"),
        datasets=_named_tables(table, "datasets"),
        compare=parse_compare(compare_table),
    )


def _named_tables(table: Mapping[str, object], kind: str) -> dict[str, list[Threshold]]:
    named = table.get(kind, {})
    if not isinstance(named, dict):
        raise GateConfigError(f"[tool.harness.gate] {kind!r} must be a table")
    parsed: dict[str, list[Threshold]] = {}
    for name, inner in named.items():
        if not isinstance(inner, dict):
            raise GateConfigError(f"[tool.harness.gate.{kind}] {name!r} must be a table of thresholds")
        try:
            parsed[name] = parse_thresholds(inner)
        except GateConfigError as exc:
            raise GateConfigError(
                str(exc).replace("[tool.harness.gate]", f"[tool.harness.gate.{kind}.{name}]")
            ) from None
    return parsed


def parse_compare(table: Mapping[str, object]) -> CompareSettings:
    """``alpha`` in (0, 0.5], ``min_effect`` and ``min_effect_<metric>`` at least 0; nothing else."""
    defaults = CompareSettings()
    alpha, min_effect = defaults.alpha, defaults.min_effect
    by_metric: dict[str, float] = {}
    for key, value in table.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise GateConfigError(f"[tool.harness.gate.compare] {key!r} must be a number, got {value!r}")
        if key == "alpha":
            if not 0 < value <= 0.5:
                raise GateConfigError(f"[tool.harness.gate.compare] 'alpha' must be within (0, 0.5], got {value!r}")
            alpha = float(value)
            continue
        metric = key.removeprefix("min_effect").removeprefix("_")
        if not key.startswith("min_effect") or (metric and metric not in comparable_names()):
            known = ", ".join(comparable_names())
            raise GateConfigError(
                f"[tool.harness.gate.compare] {key!r} is not a setting: alpha, min_effect or min_effect_<metric>, "
                f"a metric of: {known}"
            )
        if value < 0:
            raise GateConfigError(f"[tool.harness.gate.compare] {key!r} cannot be negative, got {value!r}")
        if metric:
            by_metric[metric] = float(value)
        else:
            min_effect = float(value)
    return CompareSettings(alpha=alpha, min_effect=min_effect, min_effect_by_metric=by_metric)


def parse_thresholds(table: Mapping[str, object]) -> list[Threshold]:
    if not table:
        raise GateConfigError("[tool.harness.gate] holds no threshold: a gate that checks nothing passes everything")
    thresholds: list[Threshold] = []
    for key, value in table.items():
        bound, _, metric = key.partition("_")
        if bound not in ("min", "max") or metric not in HEADLINE_METRICS:
            known = ", ".join(sorted(HEADLINE_METRICS))
            raise GateConfigError(f"[tool.harness.gate] {key!r} must be min_<metric> or max_<metric>, one of: {known}")
        expected = _BOUND_OF_DIRECTION[HEADLINE_METRICS[metric].direction]
        if bound != expected:
            raise GateConfigError(
                f"[tool.harness.gate] {key!r}: {metric} is better when {HEADLINE_METRICS[metric].direction}, "
                f"so its threshold is {expected}_{metric}"
            )
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise GateConfigError(f"[tool.harness.gate] {key!r} must be a number, got {value!r}")
        thresholds.append(Threshold(metric=metric, bound=bound, value=float(value)))  # type: ignore[arg-type]
    return thresholds


def evaluate_gate(report: Report, thresholds: list[Threshold] | GateConfig) -> GateResult:
    """Every threshold against every provider's run of the report (a provider's own table where it has one)."""
    config = thresholds if isinstance(thresholds, GateConfig) else GateConfig(thresholds=thresholds)
    checks: list[GateCheck] = []
    for run in report.runs:
        values = headline(run.metrics)
        for threshold in config.for_run(run.provider, report.dataset.name):
            actual = values.get(threshold.metric)
            if actual is None:
                passed = False
            elif threshold.bound == "min":
                passed = actual >= threshold.value
            else:
                passed = actual <= threshold.value
            checks.append(
                GateCheck(
                    provider=run.provider,
                    metric=threshold.metric,
                    bound=threshold.bound,
                    threshold=threshold.value,
                    actual=actual,
                    passed=passed,
                )
            )
    return GateResult(checks=checks)


def _harness_table(pyproject: Path) -> dict[str, object]:
    try:
        document = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise GateConfigError(f"cannot read {pyproject}: {exc}") from None
    table = document.get("tool", {}).get("harness", {})
    return table if isinstance(table, dict) else {}
