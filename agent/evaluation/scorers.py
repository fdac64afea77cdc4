"""Scorers: what turns a case's ``expect`` and its ``GraphRecord`` into checks, one registry for all of them.

Each key of ``expect`` that is set runs the scorer registered under its name (``state`` covers the six
``state*`` keys); ``expect.scorers`` names custom ones as ``module:function``. A scorer takes the case and
the record and returns a ``Check``, a list of them, a bool or a float in [0, 1] (sync or async). The LLM
judge registers itself as ``judge`` (``register_scorer``), and the support agent's per-turn expectations as
``turns``; each module is imported the first time a case asks for it.
"""

from __future__ import annotations

import importlib
import inspect
import re
from typing import TYPE_CHECKING, Any

from agent.evaluation.graph_cases import parse_path
from agent.evaluation.records import Check

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Sequence

    from agent.evaluation.graph_cases import GraphCase, ToolExpect, TrajectoryExpect
    from agent.evaluation.records import GraphRecord, ToolCall

    ScorerResult = Check | list[Check] | bool | float
    Scorer = Callable[[GraphCase, GraphRecord], ScorerResult | Awaitable[ScorerResult]]

__all__ = (
    "is_subset",
    "match_tools",
    "match_trajectory",
    "read_path",
    "register_scorer",
    "resolve_scorer",
    "score_case",
)

_REGISTRY: dict[str, Scorer] = {}
_LAZY = {"judge": "agent.evaluation.judge", "turns": "agent.evaluation.support_results"}
"""Scorers registered by a module of their own, imported when a case first names them."""
_MISSING = object()


def register_scorer(name: str, scorer: Scorer) -> None:
    """Make ``scorer`` run for every case whose ``expect`` sets ``name`` (or that lists it in ``scorers``)."""
    _REGISTRY[name] = scorer


def resolve_scorer(spec: str) -> Scorer:
    """A registered scorer by name, or ``module:function``; ``ValueError`` saying why it cannot be used."""
    if spec in _REGISTRY:
        return _REGISTRY[spec]
    if spec in _LAZY:
        try:
            importlib.import_module(_LAZY[spec])
        except ImportError as exc:
            raise ValueError(f"the {spec} scorer cannot be loaded: {exc}") from None
        if spec in _REGISTRY:
            return _REGISTRY[spec]
        raise ValueError(f"{_LAZY[spec]} registers no {spec!r} scorer")
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"{spec!r} is neither a registered scorer nor module:function")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"cannot import {module_name}: {exc}") from None
    found = getattr(module, attribute, None)
    if not callable(found):
        raise ValueError(f"{module_name} has no function {attribute}")
    return found  # type: ignore[no-any-return]


async def score_case(case: GraphCase, record: GraphRecord) -> list[Check]:
    """Every check the case asks for, in the order of ``expect``'s keys, then its custom scorers."""
    expect = case.expect
    names = [name for name in _BUILT_IN if _BUILT_IN[name](case)]
    if expect.turns is not None:
        names.append("turns")
    if expect.judge is not None:
        names.append("judge")
    checks: list[Check] = []
    for name in [*names, *expect.scorers]:
        try:
            result = resolve_scorer(name)(case, record)
            if inspect.isawaitable(result):
                result = await result
            checks += _as_checks(name, result)
        except Exception as exc:  # a scorer that raises fails its check, it does not stop the eval
            checks.append(Check(name=name, passed=False, detail=f"the scorer raised {type(exc).__name__}: {exc}"))
    return checks


def _as_checks(name: str, result: ScorerResult) -> list[Check]:
    if isinstance(result, Check):
        return [result]
    if isinstance(result, list):
        return result
    if isinstance(result, bool):
        return [Check(name=name, passed=result, detail="" if result else "the scorer said no")]
    score = float(result)
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"a score is within [0, 1], got {score}")
    return [Check(name=name, passed=score >= 0.5, score=score, detail="" if score >= 0.5 else f"scored {score:.3f}")]


def read_path(state: Any, path: str) -> Any:
    """The value at ``path`` (dotted keys and list indexes, negative from the end), or ``_MISSING``."""
    current = state
    for part in parse_path(path):
        if isinstance(current, list) and isinstance(part, int):
            if not -len(current) <= part < len(current):
                return _MISSING
            current = current[part]
        elif isinstance(current, dict) and str(part) in current:
            current = current[str(part)]
        else:
            return _MISSING
    return current


def is_subset(expected: Any, actual: Any) -> bool:
    """``expected``'s keys all in ``actual`` with values that are subsets in turn; lists and scalars equal."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(k in actual and is_subset(v, actual[k]) for k, v in expected.items())
    return bool(expected == actual)


def match_trajectory(expected: TrajectoryExpect, actual: Sequence[str]) -> str | None:
    """``None`` when ``actual`` matches, else why not.

    ``strict``: the same nodes in the same order; ``unordered``: the same nodes as a multiset;
    ``subset``: every node run is an expected one (the graph did no more than this); ``superset``: every
    expected node was run (the graph did at least this)."""
    wanted = list(expected.nodes)
    mode = expected.match
    if mode == "strict":
        ok = wanted == list(actual)
    elif mode == "unordered":
        ok = sorted(wanted) == sorted(actual)
    elif mode == "subset":
        ok = set(actual) <= set(wanted)
    else:
        ok = set(wanted) <= set(actual)
    if ok:
        return None
    return f"{mode} match failed: expected {' → '.join(wanted)}, ran {' → '.join(actual) or 'nothing'}"


def match_tools(expected: Sequence[ToolExpect], calls: Sequence[ToolCall]) -> str | None:
    """Every expected call found among ``calls`` in order (others may come between); ``[]``: no call at all."""
    if not expected:
        return None if not calls else f"expected no tool call, got {', '.join(c.name for c in calls)}"
    position = 0
    for want in expected:
        while position < len(calls) and not _call_matches(want, calls[position]):
            position += 1
        if position == len(calls):
            made = ", ".join(f"{c.name}({_args(c.args)})" for c in calls) or "none"
            how = "exactly" if want.exact else "with at least"
            return f"no call of {want.name} {how} ({_args(want.args)}) in order; calls: {made}"
        position += 1
    return None


def _call_matches(want: ToolExpect, call: ToolCall) -> bool:
    if want.name != call.name:
        return False
    return want.args == call.args if want.exact else is_subset(want.args, call.args)


def _args(args: dict[str, Any]) -> str:
    return ", ".join(f"{key}={value!r}" for key, value in sorted(args.items()))


def _state(case: GraphCase, record: GraphRecord) -> list[Check]:
    import jsonschema

    expect = case.expect
    misses: list[str] = []
    total = 0

    def at(path: str) -> Any:
        return read_path(record.state, path)

    for path, value in expect.state.items():
        total += 1
        found = at(path)
        if found is _MISSING or found != value:
            misses.append(f"{path}: expected {value!r}, got {_show(found)}")
    for path, part in expect.state_contains.items():
        total += 1
        found = at(path)
        if not ((isinstance(found, str) and isinstance(part, str) and part in found) or _in_list(part, found)):
            misses.append(f"{path}: {_show(found)} does not contain {part!r}")
    for path, pattern in expect.state_regex.items():
        total += 1
        found = at(path)
        if not (isinstance(found, str) and re.search(pattern, found)):
            misses.append(f"{path}: {_show(found)} does not match /{pattern}/")
    for path, options in expect.state_one_of.items():
        total += 1
        found = at(path)
        if found is _MISSING or found not in options:
            misses.append(f"{path}: {_show(found)} is not one of {options!r}")
    for path, bounds in expect.state_range.items():
        total += 1
        found = at(path)
        number = isinstance(found, int | float) and not isinstance(found, bool)
        if (
            not number
            or (bounds.min is not None and found < bounds.min)
            or (bounds.max is not None and found > bounds.max)
        ):
            misses.append(f"{path}: {_show(found)} is not within [{bounds.min}, {bounds.max}]")
    for path, schema in expect.state_schema.items():
        total += 1
        found = at(path)
        error = jsonschema.exceptions.best_match(jsonschema.validators.validator_for(schema)(schema).iter_errors(found))
        if found is _MISSING or error is not None:
            misses.append(f"{path}: not valid against its schema: {error.message if error else 'missing'}")
    score = (total - len(misses)) / total if total else 1.0
    return [Check(name="state", passed=not misses, score=round(score, 6), detail="; ".join(misses))]


def _in_list(part: Any, found: Any) -> bool:
    return isinstance(found, list) and any(item == part or is_subset(part, item) for item in found)


def _show(value: Any) -> str:
    if value is _MISSING:
        return "nothing there"
    text = repr(value)
    return text if len(text) <= 120 else text[:119] + "…"


def _trajectory(case: GraphCase, record: GraphRecord) -> Check:
    expected = case.expect.trajectory
    assert expected is not None
    nested = any(":" in node for node in expected.nodes)
    why = match_trajectory(expected, record.node_names(nested=nested, marked=expected.interrupts == "marked"))
    return Check(name="trajectory", passed=why is None, detail=why or "")


def _tools(case: GraphCase, record: GraphRecord) -> Check:
    assert case.expect.tools is not None
    why = match_tools(case.expect.tools, record.tool_calls)
    return Check(name="tools", passed=why is None, detail=why or "")


def _interrupts(case: GraphCase, record: GraphRecord) -> Check:
    expected = case.expect.interrupts
    raised = record.interrupts
    if isinstance(expected, int):
        ok = len(raised) == expected
        return Check(name="interrupts", passed=ok, detail="" if ok else f"expected {expected}, raised {len(raised)}")
    assert expected is not None
    ok = len(raised) == len(expected) and all(is_subset(w, got) for w, got in zip(expected, raised, strict=True))
    return Check(name="interrupts", passed=ok, detail="" if ok else f"expected {expected!r}, raised {raised!r}")


def _budget(case: GraphCase, record: GraphRecord) -> Check:
    budget = case.expect.budget
    assert budget is not None
    misses = []
    if budget.latency_ms is not None and record.latency_ms > budget.latency_ms:
        misses.append(f"latency {record.latency_ms:.1f} ms over {budget.latency_ms} ms")
    tokens = record.input_tokens + record.output_tokens
    if budget.tokens is not None and tokens > budget.tokens:
        misses.append(f"{tokens} tokens over {budget.tokens}")
    if budget.cost_usd is not None:
        if record.cost_usd is None:
            misses.append("cost not measured (no priced model call)")
        elif record.cost_usd > budget.cost_usd:
            misses.append(f"cost ${record.cost_usd:.6f} over ${budget.cost_usd}")
    return Check(name="budget", passed=not misses, detail="; ".join(misses))


_STATE_KEYS = ("state", "state_contains", "state_regex", "state_one_of", "state_range", "state_schema")
_BUILT_IN: dict[str, Callable[[GraphCase], bool]] = {
    "state": lambda case: any(getattr(case.expect, key) for key in _STATE_KEYS),
    "trajectory": lambda case: case.expect.trajectory is not None,
    "tools": lambda case: case.expect.tools is not None,
    "interrupts": lambda case: case.expect.interrupts is not None,
    "budget": lambda case: case.expect.budget is not None,
}
"""When each built-in scorer runs: the expect keys it reads are set."""

for _name, _scorer in (
    ("state", _state),
    ("trajectory", _trajectory),
    ("tools", _tools),
    ("interrupts", _interrupts),
    ("budget", _budget),
):
    register_scorer(_name, _scorer)
