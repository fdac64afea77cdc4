"""The AG-UI 1.0 ``RunAgentInput`` as ``POST /ag-ui`` (the support agent) and ``POST /ag-ui/{assistant_id}`` (any
registered graph, ``AgUiGraphRunInput``) take it: the fields this service reads, exactly validated.

AG-UI clients send the whole conversation each time (``messages``), and more than this agent uses
(``tools``, ``context``, ``state``, ``forwardedProps``): those are accepted and ignored, as are unknown
fields. What is read is constrained here, so the OpenAPI document says exactly what is accepted:
``threadId`` is the session, so it is a session id; an answer to an interrupt names it by the id the
interrupt carried (``<run_id>:<approval_id>``) and decides it with ``approve`` or ``reject``. A graph's run takes
the conversation as LangChain messages (tool calls and tool results included) when its input has ``messages``,
else ``forwardedProps.input``; ``forwardedProps.config`` and ``forwardedProps.context`` tune the run as the
Agent Protocol's ``config`` and ``context`` do (no key LangGraph or the service reads itself); its interrupt's
answer is any JSON value (the examples and the support agent take ``{decision, comment}``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from contracts.ids import ID_PATTERN, ClientId, SessionId
from contracts.requests import ApprovalDecision

__all__ = (
    "INTERRUPT_ID_PATTERN",
    "AgUiCancelledEntry",
    "AgUiDecision",
    "AgUiGraphResolvedEntry",
    "AgUiGraphRunInput",
    "AgUiMessage",
    "AgUiResolvedEntry",
    "AgUiRunInput",
    "AgUiToolCall",
)

INTERRUPT_ID_PATTERN = ID_PATTERN.removesuffix("$") + ":[A-Za-z0-9_-]{1,64}$"
"""``<run_id>:<approval_id>``: the run that paused and the approval it waits for."""

InterruptId = Annotated[
    str,
    msgspec.Meta(
        pattern=INTERRUPT_ID_PATTERN,
        description="The `id` of the interrupt answered: `<run_id>:<approval_id>`.",
        examples=["r_0c1d2e3f4a5b6c7d:apv_9a8b7c6d5e4f3a2b"],
    ),
]
Role = Literal["developer", "system", "assistant", "user", "tool", "activity", "reasoning"]


class AgUiFunctionCall(msgspec.Struct, kw_only=True):
    name: str
    arguments: Annotated[str, msgspec.Meta(description="The call's arguments as JSON text.")] = ""


class AgUiToolCall(msgspec.Struct, kw_only=True):
    id: ClientId
    type: Literal["function"] = "function"
    function: AgUiFunctionCall


class AgUiMessage(msgspec.Struct, rename="camel", kw_only=True):
    """One message of the conversation so far. The support agent reads only the newest `user` message (it is the
    turn); a graph whose input has `messages` is given them all, as LangChain messages."""

    id: ClientId
    role: Role
    content: Annotated[
        str | list[dict[str, Any]] | dict[str, Any] | None,
        msgspec.Meta(
            description=(
                "A user message's text, or its parts: the `text` of its `{type: text}` parts is the turn's message."
            )
        ),
    ] = None
    tool_calls: Annotated[list[AgUiToolCall] | None, msgspec.Meta(description="An assistant message's tool calls.")] = (
        None
    )
    tool_call_id: Annotated[ClientId | None, msgspec.Meta(description="A tool message's call: what it answers.")] = None
    name: str | None = None


class AgUiDecision(msgspec.Struct, kw_only=True):
    """The answer to an approval interrupt."""

    decision: ApprovalDecision
    comment: Annotated[str, msgspec.Meta(max_length=1000, description="Optional note for the audit trail.")] | (
        None
    ) = None


class AgUiResolvedEntry(msgspec.Struct, tag_field="status", tag="resolved", rename="camel", kw_only=True):
    """A decided interrupt: the action is taken (`approve`) or not (`reject`)."""

    interrupt_id: InterruptId
    payload: AgUiDecision
    metadata: dict[str, Any] | None = None


class AgUiCancelledEntry(msgspec.Struct, tag_field="status", tag="cancelled", rename="camel", kw_only=True):
    """An abandoned interrupt: the action is not taken, as if rejected."""

    interrupt_id: InterruptId
    payload: Any = None
    metadata: dict[str, Any] | None = None


class AgUiRunInput(msgspec.Struct, rename="camel", kw_only=True):
    """AG-UI 1.0 `RunAgentInput`: a new turn (the newest user message), or the answer to a paused run's interrupt."""

    thread_id: Annotated[SessionId, msgspec.Meta(description="The session: turns of a thread share history.")]
    run_id: Annotated[ClientId, msgspec.Meta(description="The client's id for this AG-UI run, echoed in its events.")]
    messages: list[AgUiMessage]
    resume: (
        Annotated[
            list[AgUiResolvedEntry | AgUiCancelledEntry],
            msgspec.Meta(
                max_length=1,
                description=(
                    "The answer to the interrupt that ended the thread's previous run; `messages` are not read then."
                ),
            ),
        ]
        | None
    ) = None
    protocol_version: str | None = None
    parent_run_id: ClientId | None = None
    state: Any = None
    tools: list[dict[str, Any]] | None = None
    context: list[dict[str, Any]] | None = None
    forwarded_props: Any = None


class AgUiGraphResolvedEntry(msgspec.Struct, tag_field="status", tag="resolved", rename="camel", kw_only=True):
    """A decided interrupt of a graph's run: ``payload`` is the value ``interrupt()`` returns."""

    interrupt_id: InterruptId
    payload: Annotated[
        Any,
        msgspec.Meta(description='What the graph is resumed with (the examples take `{"decision": "approve"}`).'),
    ] = None
    metadata: dict[str, Any] | None = None


class AgUiGraphRunInput(msgspec.Struct, rename="camel", kw_only=True):
    """AG-UI 1.0 `RunAgentInput` for a registered graph: a new run of the thread, or the answer to its interrupt."""

    thread_id: Annotated[SessionId, msgspec.Meta(description="The thread: runs of a thread share its state.")]
    run_id: Annotated[ClientId, msgspec.Meta(description="The client's id for this AG-UI run, echoed in its events.")]
    messages: list[AgUiMessage]
    resume: (
        Annotated[
            list[AgUiGraphResolvedEntry | AgUiCancelledEntry],
            msgspec.Meta(
                max_length=1,
                description="The answer to the interrupt that ended the thread's last run; `messages` are not read.",
            ),
        ]
        | None
    ) = None
    forwarded_props: Annotated[
        dict[str, Any] | None,
        msgspec.Meta(
            description=(
                "`input`: the graph's input when it has no `messages`; `config` and `context`: as the Agent Protocol's "
                "(keys LangGraph or the service reads itself are refused)."
            )
        ),
    ] = None
    protocol_version: str | None = None
    parent_run_id: ClientId | None = None
    state: Any = None
    tools: list[dict[str, Any]] | None = None
    context: list[dict[str, Any]] | None = None
