"""The eval datasets: JSONL (one case a line) or YAML (a list of cases), validated whole before anything runs.

One format for every graph (``agent.evaluation.graph_cases``: ``input`` or ``messages``, ``resume``,
``then``, ``expect``); the support agent's cases say what each of their turns should do in ``expect.turns``
(``agent.evaluation.support_cases``). The Structs are the schema (docs/evaluation.md describes it for
people); every bad case is named at once, with its place in the file, its id and the field, so a dataset can
be fixed in one pass.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from agent.errors import AgentError
from agent.evaluation.graph_cases import GraphCase, GraphExpect, check_case
from agent.evaluation.support_cases import case_messages

if TYPE_CHECKING:
    from collections.abc import Callable, Collection

__all__ = (
    "BUNDLED_DATASETS",
    "DEV_DATASET",
    "HELDOUT_DATASET",
    "SEALED_DATASET",
    "DatasetError",
    "dataset_messages",
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
_GRAPH_KEYS = tuple(name for name in GraphExpect.__struct_fields__ if name != "turns")
"""The ``expect`` keys of any graph; the support agent's cases are checked per turn instead."""


class DatasetError(AgentError, ValueError):
    """A dataset that cannot be used; the message names the file and line of each problem."""


def resolve_dataset(name_or_path: str) -> Path:
    """A bundled part by name (``dev``, ``heldout``, ``sealed``), or any other value as a path."""
    return BUNDLED_DATASETS.get(name_or_path, Path(name_or_path))


def load_dataset(path: Path, *, known_doc_ids: Collection[str] | None = None) -> list[GraphCase]:
    """Every case of a dataset for the support agent (JSONL, or YAML for ``.yaml``/``.yml``): each says what
    its turns should do (``expect.turns``), and nothing else.

    ``known_doc_ids`` (the corpus) catches a misspelt expected document, which would otherwise only show as
    a retrieval miss.
    """

    def support_problems(case: GraphCase) -> list[str]:
        if case.expect.turns is None:
            return ["expect.turns: the support agent's cases say what each turn should do"]
        default = GraphExpect()
        problems = [
            f"expect.{key}: the support agent's cases are checked per turn (expect.turns), not with {key}"
            for key in _GRAPH_KEYS
            if getattr(case.expect, key) != getattr(default, key)
        ]
        if known_doc_ids is not None:
            unknown = sorted({d for turn in case.expect.turns for d in turn.doc_ids} - set(known_doc_ids))
            if unknown:
                problems.append(f"expects unknown document(s) {', '.join(unknown)}")
        return problems

    return _load(path, support_problems)


def load_graph_dataset(path: Path) -> list[GraphCase]:
    """Every case of a dataset for a registered graph other than the support agent (JSONL or YAML)."""

    def graph_problems(case: GraphCase) -> list[str]:
        if case.expect.turns is None:
            return []
        return ["expect.turns: only the support agent's cases are checked per turn (a graph's: state, trajectory, ...)"]

    return _load(path, graph_problems)


def dataset_messages(path: Path) -> list[str]:
    """Every message the support agent's dataset at ``path`` sends, in file order."""
    return [message for case in load_dataset(path) for message in case_messages(case)]


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


def _load(path: Path, graph_problems: Callable[[GraphCase], list[str]]) -> list[GraphCase]:
    """The cases of ``path``, each checked beyond its shape and by what its graph asks of a case."""
    cases, problems = _convert_all(path)
    for where, case in cases:
        problems += [f"{where}: case {case.id!r}: {p}" for p in [*check_case(case), *graph_problems(case)]]
    if problems:
        raise DatasetError("invalid dataset:\n  " + "\n  ".join(problems))
    if not cases:
        raise DatasetError(f"the dataset {path} has no cases")
    return [case for _, case in cases]


def _convert_all(path: Path) -> tuple[list[tuple[str, GraphCase]], list[str]]:
    cases: list[tuple[str, GraphCase]] = []
    entries, problems = read_entries(path)
    seen: dict[str, str] = {}
    for where, entry in entries:
        case_id = entry.get("id") if isinstance(entry, dict) else None
        named = f"case {case_id!r}" if isinstance(case_id, str) else "a case without an id"
        try:
            case = msgspec.convert(entry, type=GraphCase)
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
