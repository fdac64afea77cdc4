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

A judge's metric (``JUDGE_METRICS``: ``min_judge``, the LLM judge's mean score) is an opinion of a model. With
``judge_min_kappa = K`` in the top-level table, its threshold counts only when a saved calibration
(``harness eval calibrate --out``, read by ``harness eval --gate --calibration FILE``) of the same metric and the
same judge has a kappa whose 95% lower bound reaches ``K``. Otherwise the check is *not counted*: it neither
passes nor fails, and the gate says why (ADR 45). Without ``judge_min_kappa`` every threshold counts, as before.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import msgspec

from agent.errors import AgentError
from agent.evaluation.compare import CompareSettings, comparable_names
from agent.evaluation.headline import HEADLINE_METRICS, HeadlineMetric, headline

if TYPE_CHECKING:
    from collections.abc import Mapping

    from agent.evaluation.calibration import Calibration
    from agent.evaluation.report import Report

__all__ = (
    "JUDGE_METRICS",
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
_JUDGE_MIN_KAPPA = "judge_min_kappa"

JUDGE_METRICS: dict[str, HeadlineMetric] = {
    "judge": HeadlineMetric("higher", "the LLM judge's mean score over the judged cases (a graph's ``expect.judge``)"),
}
"""Metrics a model's opinion makes, read from a run's estimates: their thresholds can require a calibrated judge."""


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
    judge_min_kappa: float | None = None
    """``judge_min_kappa``: a judge metric's threshold counts only when a calibration's kappa lower bound reaches
    it; ``None``: every threshold counts."""

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
    """The threshold counted and held; never true for a check that was not counted."""
    not_counted: str | None = None
    """Why the threshold did not count (``judge not calibrated (...)``); ``None`` when it counted."""


class GateResult(msgspec.Struct, frozen=True, kw_only=True):
    checks: list[GateCheck]

    @property
    def passed(self) -> bool:
        """Every counted threshold held, and at least one counted: a gate that counts nothing passes nothing."""
        counted = [check for check in self.checks if check.not_counted is None]
        return all(check.passed for check in counted) and (bool(counted) or not self.checks)

    @property
    def failures(self) -> list[GateCheck]:
        return [check for check in self.checks if check.not_counted is None and not check.passed]

    @property
    def not_counted(self) -> list[GateCheck]:
        return [check for check in self.checks if check.not_counted is not None]


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
    flat = {key: value for key, value in table.items() if not isinstance(value, dict) and key != _JUDGE_MIN_KAPPA}
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
        judge_min_kappa=_judge_min_kappa(table.get(_JUDGE_MIN_KAPPA)),
    )


def _judge_min_kappa(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not -1 <= value <= 1:
        raise GateConfigError(f"[tool.harness.gate] {_JUDGE_MIN_KAPPA!r} must be a kappa within [-1, 1], got {value!r}")
    return float(value)


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
        known_metrics = HEADLINE_METRICS | JUDGE_METRICS
        if bound not in ("min", "max") or metric not in known_metrics:
            known = ", ".join(sorted(known_metrics))
            raise GateConfigError(f"[tool.harness.gate] {key!r} must be min_<metric> or max_<metric>, one of: {known}")
        direction = known_metrics[metric].direction
        expected = _BOUND_OF_DIRECTION[direction]
        if bound != expected:
            raise GateConfigError(
                f"[tool.harness.gate] {key!r}: {metric} is better when {direction}, "
                f"so its threshold is {expected}_{metric}"
            )
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise GateConfigError(f"[tool.harness.gate] {key!r} must be a number, got {value!r}")
        thresholds.append(Threshold(metric=metric, bound=bound, value=float(value)))  # type: ignore[arg-type]
    return thresholds


def evaluate_gate(
    report: Report, thresholds: list[Threshold] | GateConfig, calibration: Calibration | None = None
) -> GateResult:
    """Every threshold against every provider's run of the report (a provider's own table where it has one); a
    judge metric's only when ``calibration`` vouches for the judge, if the config asks for a minimum kappa."""
    config = thresholds if isinstance(thresholds, GateConfig) else GateConfig(thresholds=thresholds)
    checks: list[GateCheck] = []
    for run in report.runs:
        values = headline(run.metrics)
        values.update({name: estimate.value for name in JUDGE_METRICS if (estimate := run.estimates.get(name))})
        for threshold in config.for_run(run.provider, report.dataset.name):
            actual = values.get(threshold.metric)
            not_counted = _not_counted(threshold.metric, config.judge_min_kappa, calibration, report)
            if actual is None or not_counted is not None:
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
                    not_counted=not_counted,
                )
            )
    return GateResult(checks=checks)


def _not_counted(metric: str, minimum: float | None, calibration: Calibration | None, report: Report) -> str | None:
    """Why a judge metric's threshold cannot be trusted on ``report``; ``None`` when it counts."""
    if metric not in JUDGE_METRICS or minimum is None:
        return None
    if calibration is None:
        return f"judge not calibrated (no calibration given; judge_min_kappa is {minimum:g})"
    if calibration.metric != metric:
        return f"judge not calibrated (the calibration is of {calibration.metric}, not {metric})"
    if calibration.judge != report.judge:
        return (
            f"judge not calibrated (the calibration measured {_judge_name(calibration)}, "
            f"this report was judged by {_judge_name(report)})"
        )
    lower = calibration.kappa.ci95[0] if calibration.kappa.ci95 is not None else None
    if lower is None:
        return "judge not calibrated (kappa is undefined on the calibration's labels)"
    if lower < minimum:
        return f"judge not calibrated (kappa lower bound {lower:.3f} < {minimum:g})"
    return None


def _judge_name(source: Calibration | Report) -> str:
    judge = source.judge
    if judge is None:
        return "no recorded judge"
    return f"{judge.provider}/{judge.model} prompt {judge.prompt_version} ({judge.prompt_sha256[:12]})"


def _harness_table(pyproject: Path) -> dict[str, object]:
    try:
        document = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise GateConfigError(f"cannot read {pyproject}: {exc}") from None
    table = document.get("tool", {}).get("harness", {})
    return table if isinstance(table, dict) else {}
