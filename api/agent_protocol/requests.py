"""A ``RunCreate`` read into what the registry runs: the graph, the input or the resume, and the run's options.

Refused with a 422 before anything starts: options that carry a key LangGraph or the service reads itself
(``api.runs.run_options``), a stream mode LangGraph does not have, the
multitask strategies it does not implement (``enqueue``, ``rollback``), both ``input`` and ``command``, a
support agent's input that carries no message (or a resume that is not a decision), an unknown assistant.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent import support_decision, support_message
from agent.graphs import SUPPORT_GRAPH_ID, parse_modes
from api.exceptions import RunRequestInvalid, UnknownAssistant
from api.runs.log.records import GraphRun
from api.runs.run_options import screen_run_options

if TYPE_CHECKING:
    from agent.graphs import GraphRegistry, RegisteredGraph
    from contracts.agent_protocol import RunCreate

__all__ = ("RequestedRun", "read_run_request")

_UNSUPPORTED_STRATEGIES = {
    "enqueue": "multitask_strategy `enqueue` is not served here: use `reject` (a 409 while the thread is busy) "
    "or `interrupt` (the busy run ends first)",
    "rollback": "multitask_strategy `rollback` is not served here: use `interrupt` (the busy run ends, its "
    "checkpoints stay)",
}


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
    if request.multitask_strategy in _UNSUPPORTED_STRATEGIES:
        raise RunRequestInvalid(_UNSUPPORTED_STRATEGIES[request.multitask_strategy])
    requested = [request.stream_mode] if isinstance(request.stream_mode, str) else list(request.stream_mode)
    try:
        modes = list(parse_modes(requested or ["values"]))
    except ValueError as exc:
        raise RunRequestInvalid(f"stream_mode: {exc}") from None
    command = request.command
    resume = command.resume if command is not None else None
    if command is not None and (command.update is not None or command.goto is not None):
        raise RunRequestInvalid("command: only `resume` is served here (`update` and `goto` are not)")
    if resume is not None and request.input is not None:
        raise RunRequestInvalid("A run takes `input` or `command.resume`, not both.")
    if request.interrupt_before or request.interrupt_after:
        raise RunRequestInvalid(
            "interrupt_before and interrupt_after are not served: a graph pauses where its nodes call interrupt()."
        )
    screen_run_options(request.config, request.metadata, request.context)
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
        config=dict(request.config or {}),
        context=request.context,
        multitask_strategy=request.multitask_strategy,
    )
    return RequestedRun(registered, options, [str(mode) for mode in modes], request.input, resume)


def _check_support_request(graph_input: Any, resume: Any) -> None:
    """The support agent takes a message and is resumed with a decision (``agent.SupportRuns``)."""
    if resume is not None:
        if support_decision(resume) is None:
            raise RunRequestInvalid(
                'The support agent is resumed with {"decision": "approve" | "reject", "comment": "..."}.'
            )
    elif support_message(graph_input) is None:
        raise RunRequestInvalid('The support agent takes {"message": "..."} or {"messages": [...]} as input.')
