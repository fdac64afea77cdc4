"""A ``RunCreate`` read into what the registry runs: the graph, the input or the resume, and the run's options.

Refused with a 422 before anything starts, each a rule the OpenAPI document states (``contracts.agent_protocol``
and ``api.openapi.agent_protocol_runs``), so a client that follows the schema is never refused: an unknown
assistant; options that carry a key LangGraph or the service reads itself (``api.runs.run_options``); a stream mode
LangGraph does not have; a multitask strategy LangGraph does not have; a ``command.update`` or
``goto``; ``interrupt_before``/``interrupt_after`` naming nodes; both ``input`` and ``command.resume``; a support
agent's input that carries no message (``SupportMessageInput``, ``SupportMessagesInput``) or a resume that is not
a decision (``SupportDecisionValue``). The fields are decoded loosely and checked here so that each refusal keeps
its code (``run_request_invalid``) and says what is served instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from agent import support_message
from agent.graphs import SUPPORT_GRAPH_ID, parse_modes
from api.exceptions import UnknownAssistant
from api.runs.errors import RunRequestInvalid
from api.runs.log.records import GraphRun
from api.runs.run_options import screen_run_options
from contracts.agent_protocol import (
    SERVED_MULTITASK_STRATEGIES,
    SupportDecisionValue,
    SupportMessageInput,
    SupportMessagesInput,
)

if TYPE_CHECKING:
    from agent.graphs import GraphRegistry, RegisteredGraph
    from contracts.agent_protocol import RunCreate

__all__ = ("RequestedRun", "read_run_request")

_COUNTS = frozenset({"recursion_limit", "max_concurrency"})


class RequestedRun:
    """One ``RunCreate``, read."""

    def __init__(
        self, registered: RegisteredGraph, options: GraphRun, modes: list[str], graph_input: Any, resume: Any
    ) -> None:
        self.registered = registered
        self.options = options
        self.modes = modes
        """The stream modes the client asked for (the run logs ``values`` besides)."""
        self.input = graph_input
        self.resume = resume
        """``command.resume``: the run resumes the thread's run that waits at an interrupt (None: a new run)."""

    @property
    def resumes(self) -> bool:
        return self.resume is not None


def read_run_request(request: RunCreate, graphs: GraphRegistry, *, detached: bool) -> RequestedRun:
    registered = graphs.get(request.assistant_id)
    if registered is None:
        raise UnknownAssistant(
            f"There is no assistant {request.assistant_id!r}; the graphs served are: {', '.join(graphs.graph_ids)}."
        )
    strategy = request.multitask_strategy
    if strategy not in SERVED_MULTITASK_STRATEGIES:
        raise RunRequestInvalid("multitask_strategy is `enqueue` (the default), `reject`, `interrupt` or `rollback`.")
    modes = _stream_modes(request.stream_mode)
    command = request.command
    resume = command.resume if command is not None else None
    if command is not None and (command.update is not None or command.goto is not None):
        raise RunRequestInvalid("command: only `resume` is served here (`update` and `goto` are not)")
    if resume is not None and request.input is not None:
        raise RunRequestInvalid("A run takes `input` or `command.resume`, not both.")
    if request.interrupt_before not in (None, []) or request.interrupt_after not in (None, []):
        raise RunRequestInvalid(
            "interrupt_before and interrupt_after are not served: a graph pauses where its nodes call interrupt()."
        )
    config = _whole_numbers(request.config)
    screen_run_options(config, request.metadata, request.context)
    if registered.graph_id == SUPPORT_GRAPH_ID:
        _check_support_request(request.input, resume)
    options = GraphRun(
        graph_id=registered.graph_id,
        assistant_id=registered.assistant_id,
        modes=[str(mode) for mode in dict.fromkeys([*modes, "values"])],
        stream_modes=[str(mode) for mode in modes],
        subgraphs=request.stream_subgraphs,
        detached=detached,
        metadata=dict(request.metadata or {}),
        config=dict(config or {}),
        context=request.context,
        multitask_strategy=request.multitask_strategy,
        webhook=request.webhook,
    )
    return RequestedRun(registered, options, [str(mode) for mode in modes], request.input, resume)


def _whole_numbers(config: dict[str, Any] | None) -> dict[str, Any] | None:
    """``config`` with its counts as integers: JSON Schema's integers include ``2.0``, and so does the service."""
    if config is None:
        return None
    return {
        key: int(value) if key in _COUNTS and isinstance(value, float) and value.is_integer() else value
        for key, value in config.items()
    }


def _stream_modes(stream_mode: Any) -> list[str]:
    """The LangGraph modes ``stream_mode`` asks for (one mode or a list; none: ``values``)."""
    requested = [stream_mode] if isinstance(stream_mode, str) else stream_mode
    if not isinstance(requested, list) or not all(isinstance(mode, str) for mode in requested):
        raise RunRequestInvalid("stream_mode is one stream mode, or a list of them.")
    try:
        return [str(mode) for mode in parse_modes(requested or ["values"])]
    except ValueError as exc:
        raise RunRequestInvalid(f"stream_mode: {exc}") from None


def _check_support_request(graph_input: Any, resume: Any) -> None:
    """The support agent takes a message and is resumed with a decision (``agent.SupportRuns``)."""
    if resume is not None:
        if not _converts(resume, SupportDecisionValue):
            raise RunRequestInvalid(
                'The support agent is resumed with {"decision": "approve" | "reject", "comment": "..."}.'
            )
    elif not _is_support_turn(graph_input):
        raise RunRequestInvalid('The support agent takes {"message": "..."} or {"messages": [...]} as input.')


def _is_support_turn(graph_input: Any) -> bool:
    """Whether ``graph_input`` carries the support agent's turn: a message that is not blank, or messages (each an
    object, its ``role`` and ``type`` text when given) with a user message of text among them."""
    if _converts(graph_input, SupportMessageInput):
        return True
    return _converts(graph_input, SupportMessagesInput) and support_message(graph_input) is not None


def _converts(value: Any, kind: type[msgspec.Struct]) -> bool:
    try:
        msgspec.convert(value, kind)
    except msgspec.ValidationError:
        return False
    return True
