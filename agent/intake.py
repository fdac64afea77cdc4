"""What enters the graph: a turn's message screened and redacted, a decision with its comment redacted.

The graph checkpoints its input as it is given (the input's writes and the first checkpoint, before any
node runs), so screening inside ``guardrail_pre`` would come too late: the text as sent would already be
stored. Every way into the graph goes through here instead (``run_turn`` and ``resume_turn`` for ``harness
ask``, the eval's admission of its cases' sends, the API's executor for runs): the input guardrail's rules,
and the optional model-based check, see the message here, and the graph is given only what may be stored:
the message with card numbers, national ids, bank accounts and secrets masked, or, when it is refused, a
placeholder naming the reason; with the verdict, which ``guardrail_pre`` applies. The text as sent goes no
further (ADR 16)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langchain_core.messages import BaseMessage
from langgraph.types import Command

from agent.guardrails import check_input, redact
from agent.guardrails.model_check import InputScreen
from agent.history import refused_placeholder

if TYPE_CHECKING:
    from collections.abc import Mapping

    from agent.deps import AgentDeps
    from agent.guardrails import InputVerdict
    from agent.state import AgentState, PrincipalState, ScreenState

__all__ = (
    "admit",
    "admit_decision",
    "admit_message",
    "carries_personal_data",
    "message_text",
    "screen_message",
    "support_decision",
    "support_message",
)

_USER_ROLES = frozenset({"user", "human"})
_DECISIONS = frozenset({"approve", "reject"})


def support_message(graph_input: Any) -> str | None:
    """The turn's message in an input of the support agent's graph, as the Agent Protocol and the eval give it:
    ``{"message": ...}``, or the newest user message of ``{"messages": [...]}``; None when it carries none."""
    if not isinstance(graph_input, dict):
        return None
    message = graph_input.get("message")
    if isinstance(message, str) and message.strip():
        return message
    for message in reversed(graph_input.get("messages") or []):
        # a chat protocol's conversation comes as LangChain messages
        entry = {"type": message.type, "content": message.content} if isinstance(message, BaseMessage) else message
        if isinstance(entry, dict) and (
            _is_one_of(entry.get("role"), _USER_ROLES) or _is_one_of(entry.get("type"), _USER_ROLES)
        ):
            content = entry.get("content")
            if isinstance(content, str) and content.strip():
                return content
    return None


def support_decision(value: Any) -> tuple[str, str | None] | None:
    """The decision and comment of a value resuming the support agent's graph (``{"decision": "approve" |
    "reject", "comment": ...}``); None when it is not one (no such decision, or a comment that is not text)."""
    if not isinstance(value, dict) or not _is_one_of(value.get("decision"), _DECISIONS):
        return None
    comment = value.get("comment")
    if comment is not None and not isinstance(comment, str):
        return None
    return str(value["decision"]), comment


async def admit(deps: AgentDeps, graph_input: Mapping[str, Any], *, resume: bool) -> AgentState | Command[Any]:
    """What the graph is given for a turn (``{"run_id", "session_id", "message"}``) or for the decision that
    resumes one (``{"approval_id", "decision", "comment"}``)."""
    if resume:
        decision = admit_decision(graph_input["approval_id"], graph_input["decision"], graph_input.get("comment"))
        return Command(resume=decision)
    return await admit_message(
        deps,
        graph_input["message"],
        run_id=graph_input["run_id"],
        session_id=graph_input["session_id"],
        principal=graph_input.get("principal"),
    )


async def admit_message(
    deps: AgentDeps, message: str, *, run_id: str, session_id: str, principal: PrincipalState | None = None
) -> AgentState:
    """The graph's input for a turn: the screened, redacted message and the verdict on it, and who asks."""
    redacted = redact(message)
    verdict, model_check = await screen_message(deps, message, redacted)
    screen: ScreenState = {
        "allowed": verdict.allowed,
        "reason": verdict.reason,
        "rule": verdict.rule,
        "layer": verdict.layer,
        "model_check": model_check,
    }
    text = redacted if verdict.allowed else refused_placeholder(verdict.reason or "prompt_injection")
    return {
        "run_id": run_id,
        "session_id": session_id,
        "message": {"text": text, "screen": screen},
        "principal": principal or {"subject": None, "account_id": None},
    }


def admit_decision(approval_id: str, decision: str, comment: str | None) -> dict[str, Any]:
    """The resume value of a paused turn: the reviewer's comment is shown in the answer and kept in the
    history, so the personal numbers and secrets in it are masked, read the way the screen reads a message
    (any separators, case or invisible characters). The decision itself stands: a comment is a note on it,
    and refusing the decision over its note would hold the action up for a reviewer who already decided."""
    return {"approval_id": approval_id, "decision": decision, "comment": None if comment is None else redact(comment)}


async def screen_message(deps: AgentDeps, message: str, redacted: str) -> tuple[InputVerdict, str | None]:
    """The rules' verdict on ``message``; for a message they allow, the model-based check's when the client
    has one (it sees only ``redacted``), with its outcome."""
    verdict = check_input(message)
    if not verdict.allowed or not isinstance(deps.llm, InputScreen):
        return verdict, None
    with deps.tracer.start_as_current_span("guardrail.model_check") as span:
        verdict, outcome = await deps.llm.screen(redacted)
        span.set_attribute("guardrail.model_check.outcome", outcome)
    return verdict, outcome


def carries_personal_data(text: str) -> bool:
    """Whether ``text`` holds what is never stored (a card number, national id, bank account or key): an id
    shaped like one (a session id a client makes up) is refused rather than written everywhere it is used."""
    return redact(text) != text


def message_text(state: AgentState) -> str:
    """The turn's message as the graph holds it (a state checkpointed before ``MessageState`` held a string)."""
    message: Any = state["message"]
    return redact(message) if isinstance(message, str) else str(message["text"])


def _is_one_of(value: Any, names: frozenset[str]) -> bool:
    """Whether ``value`` is one of ``names``: a client's JSON may put a list (unhashable) where a name goes."""
    return isinstance(value, str) and value in names
