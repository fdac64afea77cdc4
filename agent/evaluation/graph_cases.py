"""A case for any registered graph: its input, the answers to its interrupts, and what it should do.

The Structs are the schema (docs/evaluation.md describes it for people). Decoding validates the shape;
``check_case`` then validates what a shape cannot say (a path's syntax, a regex, a JSON schema, a range, a
scorer that can be imported), so a dataset fails before anything runs, with each problem's case and field.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

import msgspec

from agent.evaluation.support_cases import TurnExpect, turn_problems

__all__ = (
    "Budget",
    "GraphCase",
    "GraphExpect",
    "Message",
    "NumericRange",
    "ToolExpect",
    "TrajectoryExpect",
    "TrajectoryMatch",
    "TrajectoryPauses",
    "check_case",
    "parse_path",
)

CaseId = Annotated[str, msgspec.Meta(pattern=r"^[a-z0-9][a-z0-9_-]*$", max_length=80)]
"""Also in the thread id of each epoch (``eval-<id>-<epoch>``, shortened with a hash beyond a run id's 64
characters), so a run id's characters."""
TrajectoryMatch = Literal["strict", "unordered", "subset", "superset"]
TrajectoryPauses = Literal["hidden", "marked"]
_PATH_PART = re.compile(r"^(-?\d+|[^.]+)$")


class Message(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    role: Literal["user", "human", "assistant", "ai", "system"] = "user"
    content: str


class NumericRange(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    min: float | None = None
    max: float | None = None


class TrajectoryExpect(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    nodes: Annotated[list[str], msgspec.Meta(min_length=1)]
    """Node names in the order the graph ran them; a subgraph's node by its path (``step:search``). A node
    that paused at an interrupt and ran again on resume is named once."""
    match: TrajectoryMatch = "strict"
    interrupts: TrajectoryPauses = "hidden"
    """``hidden``: the nodes alone; ``marked``: each pause is an ``__interrupt__`` among them, where the run
    stopped (after the node that paused, before the nodes its resume ran next)."""


class ToolExpect(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    name: str
    args: dict[str, Any] = msgspec.field(default_factory=dict)
    exact: bool = False
    """``False``: the call's arguments include these (a subset); ``True``: they are exactly these."""


class Budget(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    latency_ms: float | None = None
    """The case's wall time, every turn and resume added up."""
    tokens: int | None = None
    """Input and output tokens of every model call the graph's messages report."""
    cost_usd: float | None = None


class GraphExpect(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    state: dict[str, Any] = msgspec.field(default_factory=dict)
    """Path → the value the final state has there (equal)."""
    state_contains: dict[str, Any] = msgspec.field(default_factory=dict)
    """Path → a substring of the text there, or an element of the list there."""
    state_regex: dict[str, str] = msgspec.field(default_factory=dict)
    state_one_of: dict[str, list[Any]] = msgspec.field(default_factory=dict)
    state_range: dict[str, NumericRange] = msgspec.field(default_factory=dict)
    state_schema: dict[str, dict[str, Any]] = msgspec.field(default_factory=dict)
    """Path → a JSON schema the value there is valid against."""
    trajectory: TrajectoryExpect | None = None
    interrupts: int | list[Any] | None = None
    """How many interrupts were raised, or the values they carried, in order (each a subset of the value)."""
    tools: list[ToolExpect] | None = None
    """Tool calls the model made, in this order among its calls; ``[]``: it called none."""
    budget: Budget | None = None
    scorers: list[str] = msgspec.field(default_factory=list)
    """Custom scorers, ``module:function``."""
    judge: dict[str, Any] | None = None
    """An LLM-judge rubric, read by the ``judge`` scorer when one is registered."""
    turns: Annotated[list[TurnExpect], msgspec.Meta(min_length=1)] | None = None
    """The support agent's: what each send (the input, each resume, each later message) should do, in the
    order they are sent (``agent.evaluation.support_cases``)."""


class GraphCase(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    id: CaseId
    input: Any = None
    """The graph's input, as its input schema has it."""
    messages: list[Message] | str | None = None
    """Shorthand for ``{"messages": [...]}`` (a string is one user message)."""
    resume: list[Any] = msgspec.field(default_factory=list)
    """Values answering the run's interrupts in order, each sent as ``Command(resume=value)``."""
    then: list[Any] = msgspec.field(default_factory=list)
    """Later turns on the same thread, each an input (a string: one user message), sent once the run before
    it finished."""
    expect: GraphExpect = msgspec.field(default_factory=GraphExpect)
    category: str | None = None
    known_issue: str | None = None

    def __post_init__(self) -> None:
        if (self.input is None) == (self.messages is None):
            raise ValueError("a case needs exactly one of 'input' or 'messages'")

    def first_input(self) -> Any:
        if self.messages is not None:
            return as_messages_input(self.messages)
        return self.input


def as_messages_input(messages: list[Message] | str) -> dict[str, Any]:
    if isinstance(messages, str):
        return {"messages": [{"role": "user", "content": messages}]}
    return {"messages": [{"role": m.role, "content": m.content} for m in messages]}


def parse_path(path: str) -> list[str | int]:
    """``messages.-1.content`` → ``["messages", -1, "content"]``; ``ValueError`` on an empty part."""
    if not path:
        raise ValueError("a path cannot be empty")
    parts: list[str | int] = []
    for part in path.split("."):
        if not _PATH_PART.match(part):
            raise ValueError(f"path {path!r} has an empty part")
        parts.append(int(part) if re.fullmatch(r"-?\d+", part) else part)
    return parts


def check_case(case: GraphCase) -> list[str]:
    """What the Structs cannot say, as ``field: problem`` lines (empty: the case is usable)."""
    from agent.evaluation.scorers import resolve_scorer  # the registry imports this module

    expect = case.expect
    problems: list[str] = []
    for key in ("state", "state_contains", "state_regex", "state_one_of", "state_range", "state_schema"):
        for path in getattr(expect, key):
            try:
                parse_path(path)
            except ValueError as exc:
                problems.append(f"expect.{key}.{path}: {exc}")
    for path, pattern in expect.state_regex.items():
        try:
            re.compile(pattern)
        except re.error as exc:
            problems.append(f"expect.state_regex.{path}: not a regular expression: {exc}")
    for path, bounds in expect.state_range.items():
        if bounds.min is None and bounds.max is None:
            problems.append(f"expect.state_range.{path}: give min, max or both")
        elif bounds.min is not None and bounds.max is not None and bounds.min > bounds.max:
            problems.append(f"expect.state_range.{path}: min {bounds.min} is above max {bounds.max}")
    for path, schema in expect.state_schema.items():
        problems += [f"expect.state_schema.{path}: {p}" for p in _schema_problems(schema)]
    if isinstance(expect.interrupts, int) and expect.interrupts < 0:
        problems.append("expect.interrupts: cannot be negative")
    for index, spec in enumerate(expect.scorers):
        try:
            resolve_scorer(spec)
        except ValueError as exc:
            problems.append(f"expect.scorers[{index}]: {exc}")
    if expect.judge is not None:
        try:
            resolve_scorer("judge")
        except ValueError:
            problems.append("expect.judge: no judge scorer is registered")
    if expect.turns is not None:
        problems += turn_problems(case)
    return problems


def _schema_problems(schema: dict[str, Any]) -> list[str]:
    import jsonschema

    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        return [f"not a valid JSON schema: {exc.message}"]
    return []
