"""The eval datasets: JSONL (one case a line) or YAML (a list of cases), validated whole before anything runs.

Two kinds of case: the support agent's (``turns`` of messages and approvals, the Structs below) and any
registered graph's (``agent.evaluation.graph_cases``: ``input`` or ``messages``, ``resume``, ``expect``).
The Structs are the schema (docs/evaluation.md describes it for people); every bad case is named at once,
with its place in the file, its id and the field, so a dataset can be fixed in one pass.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

import msgspec

from agent.errors import AgentError
from agent.evaluation.graph_cases import GraphCase, check_case
from agent.guardrails import RefusalReason
from contracts import AnswerKind, TurnStatus

if TYPE_CHECKING:
    from collections.abc import Collection

__all__ = (
    "BUNDLED_DATASETS",
    "DEV_DATASET",
    "HELDOUT_DATASET",
    "SEALED_DATASET",
    "Case",
    "CaseCategory",
    "DatasetError",
    "Expectation",
    "ExpectedAction",
    "RefusalReason",
    "Turn",
    "is_support_dataset",
    "load_dataset",
    "load_graph_dataset",
    "read_entries",
    "resolve_dataset",
)

_DATASETS = Path(__file__).parent / "datasets"
DEV_DATASET = _DATASETS / "support-v2-dev.jsonl"
"""The development part: look at its misses, tune against it."""
HELDOUT_DATASET = _DATASETS / "support-v2-heldout.jsonl"
"""The old held-out part, written beside the rules it measures: now the regression set the gate also reads."""
SEALED_DATASET = _DATASETS / "support-sealed-heldout.jsonl"
"""The sealed held-out set, written after the rules and never tuned against: the gate's honest figures."""
BUNDLED_DATASETS = {"dev": DEV_DATASET, "heldout": HELDOUT_DATASET, "sealed": SEALED_DATASET}
"""The bundled parts by the name ``harness eval --dataset`` accepts."""

CaseCategory = Literal[
    "answerable",
    "paraphrase",
    "typo",
    "benign_lookalike",
    "prompt_injection",
    "secret_request",
    "pii",
    "action",
    "impossible_action",
    "out_of_scope",
    "multi_turn",
]
CaseId = Annotated[str, msgspec.Meta(pattern=r"^[a-z0-9][a-z0-9-]*$", max_length=80)]


class DatasetError(AgentError, ValueError):
    """A dataset that cannot be used; the message names the file and line of each problem."""


class ExpectedAction(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    name: str
    """The action the model should propose, e.g. ``issue_refund``."""
    arguments: dict[str, Any] = msgspec.field(default_factory=dict)
    """Compared for equality with the proposal's arguments."""


class Expectation(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    status: TurnStatus
    answer_kind: AnswerKind | None = None
    """Checked when given; ``no_answer`` is how an out-of-scope question should end."""
    doc_ids: tuple[str, ...] = ()
    """The relevant documents: the retrieval and citation metrics score the turn against them."""
    action: ExpectedAction | msgspec.UnsetType | None = msgspec.UNSET
    """Omitted: no expectation. ``null``: the turn must propose nothing. An object: it must propose exactly this."""
    refusal_reason: RefusalReason | None = None
    """The input guardrail's reason code, checked when given."""

    def __post_init__(self) -> None:
        if isinstance(self.action, ExpectedAction) and self.status != "paused":
            raise ValueError("an expected action means the turn pauses for approval: status must be 'paused'")
        if self.refusal_reason is not None and self.status != "refused":
            raise ValueError("refusal_reason only applies to a turn expected to be 'refused'")


class Turn(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Either a new message in the case's session, or the decision on the approval the previous turn paused for."""

    message: Annotated[str, msgspec.Meta(min_length=1, max_length=4000)] | None = None
    resume: Literal["approve", "reject"] | None = None
    comment: str | None = None
    """The reviewer's note on a ``resume``."""
    expect: Expectation

    def __post_init__(self) -> None:
        if (self.message is None) == (self.resume is None):
            raise ValueError("a turn needs exactly one of 'message' or 'resume'")
        if self.comment is not None and self.resume is None:
            raise ValueError("'comment' only goes with 'resume'")
        if self.resume is not None and (self.expect.doc_ids or self.expect.refusal_reason):
            raise ValueError("a resume turn neither retrieves nor meets the input guardrail: no doc_ids/refusal_reason")

    @property
    def label(self) -> str:
        """What the turn sends, as the reports show it."""
        return self.message if self.message is not None else f"[{self.resume}]"


class Case(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    id: CaseId
    category: CaseCategory
    turns: Annotated[list[Turn], msgspec.Meta(min_length=1)]
    known_issue: str | None = None
    """Why the agent is known to get this case wrong today. The case still counts; the report lists it apart."""

    def __post_init__(self) -> None:
        for index, turn in enumerate(self.turns):
            after_pause = index > 0 and self.turns[index - 1].expect.status == "paused"
            if turn.resume is not None and not after_pause:
                raise ValueError(f"turn {index + 1} resumes, but the turn before it is not expected to pause")
            if turn.message is not None and after_pause:
                raise ValueError(f"turn {index + 1} must resume (approve or reject) the pause of the turn before it")


_C = TypeVar("_C", "Case", GraphCase)


def resolve_dataset(name_or_path: str) -> Path:
    """A bundled part by name (``dev``, ``heldout``, ``sealed``), or any other value as a path."""
    return BUNDLED_DATASETS.get(name_or_path, Path(name_or_path))


def load_dataset(path: Path, *, known_doc_ids: Collection[str] | None = None) -> list[Case]:
    """Every support-agent case of the dataset at ``path`` (JSONL, or YAML for ``.yaml``/``.yml``).

    ``known_doc_ids`` (the corpus) catches a misspelt expected document, which would otherwise only show as
    a retrieval miss.
    """
    cases, problems = _convert_all(path, Case)
    if known_doc_ids is not None:
        for where, case in cases:
            unknown = sorted({d for t in case.turns for d in t.expect.doc_ids} - set(known_doc_ids))
            if unknown:
                problems.append(f"{where}: case {case.id!r}: expects unknown document(s) {', '.join(unknown)}")
    return _usable(path, cases, problems)


def load_graph_dataset(path: Path) -> list[GraphCase]:
    """Every case of a dataset for any registered graph (JSONL or YAML), each checked beyond its shape."""
    cases, problems = _convert_all(path, GraphCase)
    for where, case in cases:
        problems += [f"{where}: case {case.id!r}: {problem}" for problem in check_case(case)]
    return _usable(path, cases, problems)


def is_support_dataset(path: Path) -> bool:
    """Whether the dataset's cases are the support agent's (they have ``turns``), not any graph's."""
    entries, _ = read_entries(path)
    return bool(entries) and isinstance(entries[0][1], dict) and "turns" in entries[0][1]


def read_entries(path: Path) -> tuple[list[tuple[str, Any]], list[str]]:
    """The raw cases of a JSONL or YAML dataset, each with where it is (``file:line``, ``file#index``), and
    the lines that are not JSON."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DatasetError(f"cannot read the dataset {path}: {exc.strerror or exc}") from None
    if path.suffix in (".yaml", ".yml"):
        return _yaml_entries(path, text)
    entries: list[tuple[str, Any]] = []
    problems: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entries.append((f"{path}:{number}", msgspec.json.decode(line)))
        except msgspec.DecodeError as exc:
            problems.append(f"{path}:{number}: not JSON: {exc}")
    return entries, problems


def _yaml_entries(path: Path, text: str) -> tuple[list[tuple[str, Any]], list[str]]:
    import yaml

    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise DatasetError(f"invalid dataset:\n  {path}: not YAML: {exc}") from None
    if isinstance(document, dict) and "cases" in document:
        document = document["cases"]
    if not isinstance(document, list):
        raise DatasetError(f"invalid dataset:\n  {path}: a YAML dataset is a list of cases (or a mapping with 'cases')")
    return [(f"{path}#{index + 1}", entry) for index, entry in enumerate(document)], []


def _convert_all(path: Path, kind: type[_C]) -> tuple[list[tuple[str, _C]], list[str]]:
    cases: list[tuple[str, _C]] = []
    entries, problems = read_entries(path)
    seen: dict[str, str] = {}
    for where, entry in entries:
        case_id = entry.get("id") if isinstance(entry, dict) else None
        named = f"case {case_id!r}" if isinstance(case_id, str) else "a case without an id"
        try:
            case = msgspec.convert(entry, type=kind)
        except msgspec.ValidationError as exc:
            problems.append(f"{where}: {named}: {_field_first(str(exc))}")
            continue
        if case.id in seen:
            problems.append(f"{where}: case {case.id!r}: id is already used at {seen[case.id]}")
        seen.setdefault(case.id, where)
        cases.append((where, case))
    return cases, problems


def _field_first(message: str) -> str:
    """msgspec's ``Expected int, got str - at `$.expect.tokens``` as ``expect.tokens: Expected int, got str``."""
    said, _, at = message.rpartition(" - at `")
    if not said:
        return message
    field = at.rstrip("`").removeprefix("$").removeprefix(".") or "(the case)"
    return f"{field}: {said}"


def _usable(path: Path, cases: list[tuple[str, _C]], problems: list[str]) -> list[_C]:
    if problems:
        raise DatasetError("invalid dataset:\n  " + "\n  ".join(problems))
    if not cases:
        raise DatasetError(f"the dataset {path} has no cases")
    return [case for _, case in cases]
