"""Where the chat protocols (AG-UI, the AI SDK) meet the runs: one way to start a run or answer its interrupt.

Neither protocol adds run machinery of its own. Each reads its request into a ``NewTurn`` or a ``Decision`` and
opens the run here: on its own routes the support agent's runs are the ``/chat`` contract's
(``RunRegistry.start_turn``, ``RunRegistry.resume``); on ``/ag-ui/{assistant_id}`` and
``/ai-sdk/{assistant_id}/chat`` a registered graph's runs are started and answered on their thread as the Agent
Protocol's are (``api.graph_runs``), with the approver rule of every route. Then each follows the run's committed
events like every other stream (replay, the live tail, heartbeats, the disconnect grace).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec
from langchain_core.messages import convert_to_messages

from agent.graphs import SUPPORT_GRAPH_ID
from api.graph_runs import answer_on_thread, start_on_thread
from api.runs.errors import RunRequestInvalid
from api.runs.log.records import GraphRun
from api.runs.run_options import screen_run_options
from contracts import ChatRequest, ResumeRequest

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from agent.graphs import RegisteredGraph
    from api.auth import Principal
    from api.runs.registry import RunRegistry
    from api.runs.threads import ThreadBook

__all__ = (
    "AG_UI_MODES",
    "AI_SDK_MODES",
    "Decision",
    "NewTurn",
    "OpenedRun",
    "as_graph_input",
    "is_chat_message",
    "open_graph_run",
    "open_support_run",
    "takes_messages",
)

AG_UI_MODES = ("values", "messages", "custom")
"""What an AG-UI run of a graph logs: its state (``STATE_SNAPSHOT``), a chat model's chunks and custom writes."""
AI_SDK_MODES = ("messages", "custom")
"""What an AI SDK run of a graph logs: a chat model's chunks (text, tool calls) and custom writes (``data-*``)."""


@dataclass(frozen=True, slots=True)
class NewTurn:
    """A new run: the graph's input (for the support agent's own routes, its message)."""

    graph_input: Any
    message: str | None = None


@dataclass(frozen=True, slots=True)
class Decision:
    """The answer to the interrupt of ``run_id``, the approval ``approval_id``: ``value`` resumes the graph."""

    run_id: str
    approval_id: str
    value: Any
    approved: bool | None = None
    """Whether the answer approves (the chat protocols' approvals), None when the value says something else."""
    tool_call_id: str | None = None
    """The tool part the client answers in (the AI SDK's)."""


@dataclass(frozen=True, slots=True)
class OpenedRun:
    run_id: str
    session_id: str
    after: int
    """The seq this request's stream picks the run up after."""
    roles: Mapping[str, str] = field(default_factory=dict)
    """The graph's node roles (``RegisteredGraph.node_roles``), for the projection."""
    decision: Decision | None = None
    """The answer this request gave, when it answered an interrupt."""


def is_chat_message(text: str, session_id: str) -> bool:
    """Whether ``/chat`` takes ``text`` as a message on ``session_id`` (``ChatRequest``: 1 to 4000 characters once
    trimmed): the rule of the chat protocols' user messages."""
    try:
        msgspec.convert({"message": text, "session_id": session_id}, ChatRequest)
    except msgspec.ValidationError:
        return False
    return True


async def open_support_run(
    runs: RunRegistry, support: RegisteredGraph, turn: NewTurn | Decision, session_id: str, principal: Principal
) -> OpenedRun:
    """A ``/chat`` turn of the ``support`` agent, or the decision of its paused run, for ``principal``."""
    roles = support.node_roles
    if isinstance(turn, NewTurn):
        assert turn.message is not None, "the support agent's routes read a message"
        run = await runs.start_turn(turn.message, session_id, principal)
        return OpenedRun(run.run_id, run.session_id, 0, roles)
    value = turn.value if isinstance(turn.value, dict) else {}
    resume = ResumeRequest(
        run_id=turn.run_id,
        approval_id=turn.approval_id,
        decision="approve" if turn.approved else "reject",
        comment=value.get("comment"),
        session_id=session_id,
    )
    run, after = await runs.resume(resume, principal)
    return OpenedRun(run.run_id, run.session_id, after, roles, turn)


async def open_graph_run(
    runs: RunRegistry,
    threads: ThreadBook,
    registered: RegisteredGraph,
    thread_id: str,
    turn: NewTurn | Decision,
    *,
    principal: Principal,
    modes: Sequence[str],
    config: dict[str, Any] | None = None,
    context: dict[str, Any] | None = None,
    field_prefix: str = "",
) -> OpenedRun:
    """A run of ``registered`` on the thread ``thread_id`` (made by its first run), or the answer to the interrupt
    it waits at; ``config`` and ``context`` are screened as the Agent Protocol's (``field_prefix``: where they
    stand in the body, for a refusal's message)."""
    screen_run_options(config, None, context, field=field_prefix)
    options = GraphRun(
        graph_id=registered.graph_id,
        assistant_id=registered.assistant_id,
        modes=list(modes),
        stream_modes=list(modes),
        subgraphs=True,
        config=dict(config or {}),
        context=context,
    )
    if isinstance(turn, NewTurn):
        run = await start_on_thread(
            runs, threads, registered, thread_id, turn.graph_input, options=options, principal=principal, create=True
        )
        return OpenedRun(run.run_id, run.session_id, 0, registered.node_roles)
    answering = (turn.run_id, turn.approval_id)
    run, after = await answer_on_thread(
        runs, threads, registered, thread_id, turn.value, options=options, principal=principal, answering=answering
    )
    return OpenedRun(run.run_id, run.session_id, after, registered.node_roles, turn)


def takes_messages(registered: RegisteredGraph) -> bool:
    """Whether ``registered`` takes a conversation (``messages``) as its input: a chat client's messages go in."""
    if registered.graph_id == SUPPORT_GRAPH_ID:
        return True  # its input is the newest user message of ``messages`` (agent.SupportRuns)
    properties = (registered.schemas.input_schema or {}).get("properties") or {}
    return "messages" in properties


def as_graph_input(messages: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """A chat's messages (LangChain's dict form: ``type``, ``content``, ``id``, ``tool_calls``, ``tool_call_id``)
    as a graph's input: LangChain messages, keeping the client's ids, so a reducer (``add_messages``) merges a
    message the thread already holds instead of adding it twice."""
    converted = []
    for index, message in enumerate(messages):
        try:
            converted += convert_to_messages([message])
        except (ValueError, KeyError, TypeError):  # pydantic's ValidationError is a ValueError
            # the message's own words are not repeated: they may hold what is never echoed
            raise RunRequestInvalid(
                f"messages[{index}] is no message a graph takes (a tool message needs the id of its tool call)."
            ) from None
    return {"messages": converted}
