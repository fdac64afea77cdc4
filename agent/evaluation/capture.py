"""``harness eval capture``: a case of the graph dataset format made from a real run, to review and keep.

A run of a registered graph is read as its event log has it (``GET /runs/{run_id}/events``: the envelopes)
and becomes one case: the input (the run's first ``values`` part), each resume decision, and what the run did
as the expectation — its trajectory, its tool calls, its interrupts and its final state. Every string is
redacted (``agent.guardrails.redact``) before it is written. The expectation is what happened, not what
should have: a person reads it and corrects it before the case is trusted.

Where runs come from is a ``RunSource`` (the service's run store; ``agent`` does not import ``api``, so
the service hands one in). The source says who started a run: with a subject given, a run of another
subject is refused, as are an unknown run and a run still running.
"""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from agent.errors import AgentError
from agent.evaluation.graph_cases import GraphCase, check_case
from agent.evaluation.trajectory import steps_of
from agent.guardrails import redact

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from contextlib import AbstractAsyncContextManager

    from agent.evaluation.records import NodeStep

__all__ = (
    "CaptureError",
    "CapturedRun",
    "RunSource",
    "add_capture_parser",
    "append_cases",
    "capture_case",
    "capture_runs",
    "case_id_of",
    "run_capture_command",
)

FINISHED = frozenset({"completed", "failed", "cancelled"})
_ID_CHARACTERS = re.compile(r"[^a-z0-9_-]+")


class CaptureError(AgentError, ValueError):
    """A run that cannot be captured; the message says which and why."""


class CapturedRun(msgspec.Struct, kw_only=True):
    """A run as its store has it: enough to write it as a case."""

    run_id: str
    status: str
    """The run's status (``running``, ``waiting``, ``completed``, ``failed``, ``cancelled``, ``pending``)."""
    owner: str | None
    """The subject who started it; ``None`` when identity was off."""
    graph_id: str | None
    """The registered graph it ran; ``None`` for a turn of the support agent's ``/chat``."""
    envelopes: list[dict[str, Any]]
    """Its logged events, in order, as ``GET /runs/{run_id}/events`` sends them."""
    resumes: list[Any] = msgspec.field(default_factory=list)
    """The values its interrupts were answered with, in order (each ``Command(resume=value)``)."""


class RunSource(Protocol):
    """Where captured runs are read from: the service's run store."""

    async def load_run(self, run_id: str) -> CapturedRun | None:
        """The run, or ``None`` when the store does not know it."""
        ...


async def capture_runs(source: RunSource, run_ids: list[str], *, subject: str | None = None) -> list[dict[str, Any]]:
    """One case per run, in order; the first run that cannot be captured raises ``CaptureError``, before
    anything is written."""
    cases = []
    for run_id in run_ids:
        run = await source.load_run(run_id)
        if run is None:
            raise CaptureError(f"run {run_id} is not in the run store")
        cases.append(capture_case(run, subject=subject))
    return cases


def capture_case(run: CapturedRun, *, subject: str | None = None) -> dict[str, Any]:
    """``run`` as a case of the graph dataset format (a JSON object), redacted and validated."""
    if subject is not None and run.owner != subject:
        raise CaptureError(f"run {run.run_id} was started by another subject than {subject}; it is not captured")
    if run.status not in FINISHED:
        raise CaptureError(f"run {run.run_id} is {run.status}; capture a run once it has finished")
    if run.graph_id is None:
        raise CaptureError(
            f"run {run.run_id} is a turn of the support agent's /chat; capture a run of a registered graph"
        )
    case: dict[str, Any] = {"id": case_id_of(run.run_id), "category": "captured", **_input_of(run)}
    if run.resumes:
        case["resume"] = _redacted(run.resumes)
    case["expect"] = _expectation(run)
    try:
        problems = check_case(msgspec.convert(case, GraphCase))
    except msgspec.ValidationError as exc:
        problems = [str(exc)]
    if problems:
        raise CaptureError(f"run {run.run_id} does not make a valid case: {'; '.join(problems)}")
    return case


def append_cases(path: Path, cases: list[dict[str, Any]]) -> None:
    """Append ``cases`` to the JSONL dataset at ``path`` (created when missing); an id it has already is refused."""
    if path.suffix != ".jsonl":
        raise CaptureError(f"{path}: capture appends to a JSONL dataset (a .jsonl file)")
    existing = path.read_bytes() if path.exists() else b""
    known = {msgspec.json.decode(line).get("id") for line in existing.splitlines() if line.strip()}
    for case in cases:
        if case["id"] in known:
            raise CaptureError(f"{path} has a case '{case['id']}' already")
        known.add(case["id"])
    prefix = b"" if not existing or existing.endswith(b"\n") else b"\n"
    with path.open("ab") as out:
        out.write(prefix + b"".join(msgspec.json.encode(case) + b"\n" for case in cases))


def case_id_of(run_id: str) -> str:
    """The id of the case made from run ``run_id``."""
    slug = _ID_CHARACTERS.sub("-", run_id.lower()).strip("-_")
    return f"captured-{slug}"[:80].rstrip("-_")


def _parts(run: CapturedRun, mode: str) -> list[Any]:
    """The root graph's parts of one stream mode, in order."""
    return [
        data["data"]
        for envelope in run.envelopes
        if envelope.get("type") == "graph_part"
        and (data := envelope.get("data") or {}).get("mode") == mode
        and not data.get("ns")
    ]


def _input_of(run: CapturedRun) -> dict[str, Any]:
    values = _parts(run, "values")
    if not values or not isinstance(values[0], dict):
        raise CaptureError(f"run {run.run_id} logged no input (its first `values` part)")
    first = values[0]
    messages = first.get("messages")
    if set(first) == {"messages"} and isinstance(messages, list) and messages and all(map(_is_user_text, messages)):
        contents = [redact(m["content"]) for m in messages]
        return {"messages": contents[0] if len(contents) == 1 else [{"content": c} for c in contents]}
    return {"input": _redacted(first)}


def _is_user_text(message: Any) -> bool:
    return isinstance(message, dict) and message.get("type") == "human" and isinstance(message.get("content"), str)


def _expectation(run: CapturedRun) -> dict[str, Any]:
    expect: dict[str, Any] = {}
    nodes = [step.node for step in _trajectory(run) if step.depth == 0 and not step.node.startswith("__")]
    if nodes:
        expect["trajectory"] = {"nodes": nodes, "match": "strict"}
    expect["tools"] = _tool_calls(run)
    interrupts = [
        interrupt.get("value")
        for envelope in run.envelopes
        if envelope.get("type") == "paused"
        for interrupt in (envelope.get("data") or {}).get("interrupts", [])
    ]
    expect["interrupts"] = _redacted(interrupts) if interrupts else 0
    final = next(
        ((e.get("data") or {}).get("output") for e in reversed(run.envelopes) if e.get("type") == "run_completed"),
        None,
    )
    if isinstance(final, dict):
        messages = final.get("messages")
        if isinstance(messages, list) and messages and isinstance(messages[-1], dict):
            last = messages[-1]
            expect["state"] = {"messages.-1.type": last.get("type"), "messages.-1.content": last.get("content")}
        else:
            expect["state"] = {key: value for key, value in final.items() if "." not in key}
        expect["state"] = _redacted(expect["state"])
    return expect


def _trajectory(run: CapturedRun) -> list[NodeStep]:
    """The trajectory as the eval records it (a node paused and run again on resume counted once)."""
    return steps_of(run.envelopes)


def _tool_calls(run: CapturedRun) -> list[dict[str, Any]]:
    """The tool calls of the AI messages the run wrote: from its ``updates`` parts, or, when it logged none (a run
    asked for ``values`` alone, as ``/runs/wait`` is), the messages its last ``values`` part has beyond its first."""
    updates = _parts(run, "updates")
    messages = [message for update in updates for message in _messages_of(update)] if updates else _new_messages(run)
    return [
        {"name": call["name"], "args": _redacted(call.get("args") or {})}
        for message in messages
        if isinstance(message, dict) and message.get("type") == "ai"
        for call in message.get("tool_calls") or []
        if isinstance(call, dict) and "name" in call
    ]


def _messages_of(update: Any) -> list[Any]:
    """The messages of one ``updates`` part (``{node: {"messages": ...}}``)."""
    found: list[Any] = []
    for node_update in update.values() if isinstance(update, dict) else ():
        messages = node_update.get("messages", []) if isinstance(node_update, dict) else []
        found += messages if isinstance(messages, list) else [messages]
    return found


def _new_messages(run: CapturedRun) -> list[Any]:
    """The messages of the last ``values`` part that its first did not have (by id; by position without ids)."""
    values: list[list[Any]] = [
        messages
        for part in _parts(run, "values")
        if isinstance(part, dict) and isinstance(messages := part.get("messages"), list)
    ]
    if not values:
        return []
    first, last = values[0], values[-1]
    ids = {message.get("id") for message in first if isinstance(message, dict)} - {None}
    if ids or not first:
        return [message for message in last if not (isinstance(message, dict) and message.get("id") in ids)]
    return last[len(first) :]


def _redacted(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        return [_redacted(item) for item in value]
    if isinstance(value, dict):
        return {key: _redacted(item) for key, item in value.items()}
    return value


def add_capture_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "capture",
        help="append finished runs of the service to a graph dataset, as cases to review",
        description="Write each run (input, resume decisions, what it did as the expectation) as a case, redacted.",
    )
    parser.add_argument("run_ids", nargs="+", metavar="RUN_ID")
    parser.add_argument(
        "--dataset", dest="capture_dataset", type=Path, required=True, metavar="FILE", help="a .jsonl file"
    )
    parser.add_argument("--subject", help="capture only runs this subject started; refuse any other")


def run_capture_command(args: argparse.Namespace) -> int:
    """Exit 0 with the cases appended, 2 when a run cannot be captured (nothing is written then).

    ``args.open_run_source`` opens the service's run store as a ``RunSource`` (an async context manager); the
    service's ``harness`` entry point sets it, since ``agent`` cannot import the service."""
    opener: Callable[[], AbstractAsyncContextManager[RunSource]] | None = getattr(args, "open_run_source", None)
    if opener is None:
        print(
            "harness eval capture: no run store to read runs from (run it as the service's `harness`)", file=sys.stderr
        )
        return 2

    async def capture() -> list[dict[str, Any]]:
        async with opener() as source:
            return await capture_runs(source, list(args.run_ids), subject=args.subject)

    try:
        cases = asyncio.run(capture())
        append_cases(args.capture_dataset, cases)
    except CaptureError as exc:
        print(f"harness eval capture: {exc}", file=sys.stderr)
        return 2
    for case in cases:
        print(f"captured {case['id']} into {args.capture_dataset} (review its expect before trusting it)")
    return 0
