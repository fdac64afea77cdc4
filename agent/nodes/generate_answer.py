"""``generate_answer``: the model answers from the retrieved passages, token by token, or proposes an action.

A proposed action is checked against the registry before anything is said about it: one that cannot
happen as asked (no such invoice, no id given, an action the agent does not have) becomes an
``action_not_possible`` answer whose text is the registry's plain statement, not the model's promise.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langgraph.config import get_stream_writer

from agent.actions.intent import canonical_arguments, read_requests
from agent.actions.registry import unknown_action, which_record
from agent.history import prompt_history
from agent.instrument import NodeResult
from agent.intake import message_text
from agent.knowledge import Passage
from agent.llm.answer import ParsedAnswer, parse_answer
from agent.llm.answer_schema import answer_format
from agent.llm.prompts import build_messages
from agent.llm.types import LLMParams
from agent.nodes.model_call import call_model
from agent.nodes.usage import model_usage

if TYPE_CHECKING:
    from agent.actions import NotPossible
    from agent.deps import AgentDeps
    from agent.llm.types import ToolCall
    from agent.state import AgentState, PrincipalState, ProposalState

__all__ = ("MAX_ANSWER_TOKENS", "generate_answer")

MAX_ANSWER_TOKENS = 400


class _Draft:
    """Decides, once the whole answer is in, what it means: an answer, or an action to approve."""

    def __init__(self, deps: AgentDeps, asker: PrincipalState, message: str) -> None:
        self._deps = deps
        self._asker = asker
        self._requests = read_requests(message)
        """What the message asks for, read by meaning: any model's proposal is held to it."""
        """Who asks: what "my account" means, and which records they may act on."""
        self.parsed = ParsedAnswer(kind="answer", text="")
        self.proposal: ProposalState | None = None
        self.not_possible: NotPossible | None = None

    async def finish(self, raw: str, shown: str, tool_calls: tuple[ToolCall, ...]) -> str:
        """The text still to show: the answer if nothing of it was shown (a held proposal, a buffered
        model), or, for an action that cannot happen, the registry's statement in place of the proposal.
        A proposal made as a bare tool call is announced by its summary."""
        self.parsed = parse_answer(raw, tool_calls)
        if self.parsed.kind == "action_proposal":
            await self._propose()
        if self.not_possible is not None:
            return f" {self.not_possible.text}" if shown else self.not_possible.text
        if self.proposal is not None and not (shown or self.parsed.text):
            return f"{self.proposal['summary']}: a person approves it before anything happens."
        return "" if shown else self.parsed.text

    async def _propose(self) -> None:
        action = self.parsed.action
        registered = self._deps.actions.get(action.name) if action else None
        if action is None or registered is None:
            self.not_possible = unknown_action(action.name if action else None)
            return
        request = self._requests.of(action.name)
        if request is not None and request.ambiguous:
            self.not_possible = which_record(registered, request.record_ids)
            return
        arguments = registered.bind(canonical_arguments(action.arguments), self._asker)
        self.not_possible = await registered.check(arguments, self._asker)
        if self.not_possible is None:
            self.proposal = {
                "approval_id": self._deps.ids.new("apv"),
                "action": action.name,
                "arguments": arguments,
                "summary": await registered.summarize(arguments),
            }


async def generate_answer(state: AgentState, deps: AgentDeps) -> NodeResult:
    passages = [Passage(**p) for p in state.get("passages", [])]
    message = message_text(state)
    asker: PrincipalState = state.get("principal") or {"subject": None, "account_id": None}
    history = prompt_history(state.get("history", []))
    messages = build_messages(message, passages, history, account_id=asker["account_id"])
    structured, tools = answer_format([p.doc_id for p in passages], deps.actions.actions, message)
    params = LLMParams(max_tokens=MAX_ANSWER_TOKENS, temperature=0.0, structured=structured, tools=tools)
    draft = _Draft(deps, asker, message)
    with deps.tracer.start_as_current_span("llm.generate") as span:
        span.set_attribute("llm.model", deps.llm.model)
        reply = await call_model(deps, messages, params, get_stream_writer(), draft.finish)
        span.set_attribute("llm.input_tokens", reply.usage.input_tokens)
        span.set_attribute("llm.output_tokens", reply.usage.output_tokens)
        span.set_attribute("llm.well_formed", draft.parsed.well_formed)
    usage = model_usage(deps, reply.usage.model, reply.usage.input_tokens, reply.usage.output_tokens)
    update: dict[str, Any] = {
        "cited": list(draft.parsed.citations),
        "usage": usage,
        "proposal": draft.proposal,
    }
    if draft.proposal is not None:
        update["answer"] = {"kind": "action_proposal", "text": reply.text}
        return NodeResult(update=update, outcome="proposed_action", summary=draft.proposal["summary"])
    if draft.not_possible is not None:
        reason = draft.not_possible.reason
        update["answer"] = {"kind": "action_not_possible", "text": reply.text, "reason": reason}
        update["cited"] = []
        return NodeResult(update=update, outcome="action_not_possible", summary=f"action not possible: {reason}")
    kind = "answer" if draft.parsed.kind == "action_proposal" else draft.parsed.kind
    update["answer"] = {"kind": kind, "text": reply.text}
    if kind == "no_answer":
        return NodeResult(update=update, outcome="no_answer", summary="no answer in the knowledge base")
    cited = len(draft.parsed.citations)
    summary = f"answered with {cited} citation{'' if cited == 1 else 's'}"
    return NodeResult(
        update=update, outcome="answered" if draft.parsed.well_formed else "answered_plain", summary=summary
    )
