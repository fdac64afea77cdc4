"""``generate_answer``: a proposal that cannot happen becomes one plain ``action_not_possible`` answer.

The model's promise ("I can refund ... once a person approves it") is never streamed for such a turn: the
token deltas add up to the registry's statement alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec
import pytest
from opentelemetry.sdk.trace import TracerProvider

from agent.actions import ActionRegistry, SqliteLedger
from agent.clock import SequentialIds, SteppingClock
from agent.deps import AgentDeps
from agent.graph import build_graph
from agent.intake import admit_message
from agent.knowledge import KnowledgeIndex, load_bundled_corpus
from agent.llm.pricing import PriceTable
from agent.llm.types import Chunk, Completion, ToolCall
from agent.response import chat_response
from contracts import TokenDelta

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator, Sequence
    from pathlib import Path

    from agent.llm.types import ChatMessage, LLMParams
    from contracts import ChatResponse


class ScriptedLLM:
    """Streams one fixed structured answer in small pieces, whatever it is asked."""

    def __init__(self, answer: dict[str, Any] | None, tool_calls: tuple[ToolCall, ...] = ()) -> None:
        self._text = "" if answer is None else msgspec.json.encode(answer).decode()
        self._tool_calls = tool_calls

    @property
    def model(self) -> str:
        return "scripted-1"

    async def complete(self, messages: Sequence[ChatMessage], params: LLMParams) -> Completion:
        raise NotImplementedError

    async def stream(self, messages: Sequence[ChatMessage], params: LLMParams) -> AsyncIterator[Chunk]:
        pieces = [self._text[i : i + 7] for i in range(0, len(self._text), 7)]
        for piece in pieces:
            yield Chunk(delta=piece, model=self.model, provider="scripted")
        yield Chunk(
            delta="",
            model=self.model,
            provider="scripted",
            finish_reason="stop",
            output_tokens=len(pieces),
            tool_calls=self._tool_calls,
        )


def proposal(name: str, **arguments: str) -> dict[str, Any]:
    return {
        "kind": "action_proposal",
        "text": f"I can do {name} once a person approves it.",
        "citations": [],
        "action": {"name": name, "arguments": arguments},
    }


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[SqliteLedger]:
    opened = SqliteLedger(tmp_path / "ledger.sqlite")
    yield opened
    opened.close()


async def turn(
    answer: dict[str, Any] | None,
    actions: ActionRegistry,
    tool_calls: tuple[ToolCall, ...] = (),
    *,
    account_id: str | None = None,
    message: str = "Please refund invoice INV-1003.",
) -> tuple[ChatResponse, list[TokenDelta]]:
    deps = AgentDeps(
        llm=ScriptedLLM(answer, tool_calls),
        knowledge=KnowledgeIndex(load_bundled_corpus()),
        actions=actions,
        prices=PriceTable.with_overrides(None),
        tracer=TracerProvider().get_tracer("test"),
        clock=SteppingClock(),
        ids=SequentialIds(),
    )
    graph = build_graph(deps)
    deltas: list[TokenDelta] = []
    state: dict[str, Any] = {}
    start = await admit_message(
        deps,
        message,
        run_id="r_1",
        session_id="s_1",
        principal={"subject": "alice" if account_id else None, "account_id": account_id},
    )
    async for mode, part in graph.astream(start, stream_mode=["custom", "values"]):
        if mode == "custom" and isinstance(part, TokenDelta):
            deltas.append(part)
        elif mode == "values":
            state = part
    return chat_response(state, paused=False), deltas  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("answer", "reason", "says"),
    [
        (proposal("issue_refund", invoice_id="INV-9999"), "unknown_record", "There is no invoice INV-9999"),
        (proposal("delete_account", account_id="ACC-9999"), "unknown_record", "There is no account ACC-9999"),
        (proposal("issue_refund"), "missing_argument", "Which invoice should I refund?"),
        (proposal("delete_account"), "missing_argument", "Which account should I delete?"),
        (proposal("cancel_subscription"), "unknown_action", "I can't do “cancel_subscription” here"),
        ({"kind": "action_proposal", "text": "Sure.", "citations": []}, "unknown_action", "I can't do that here"),
    ],
)
async def test_an_impossible_proposal_is_answered_plainly_and_never_promised(
    answer: dict[str, Any], reason: str, says: str, ledger: SqliteLedger
) -> None:
    response, deltas = await turn(answer, ActionRegistry.default(ledger))

    assert response.status == "completed"
    assert response.answer.kind == "action_not_possible"
    assert response.answer.reason == reason
    assert response.answer.text.startswith(says)
    assert response.pending_approval is None
    assert response.trace[-2].outcome == "action_not_possible"
    shown = "".join(delta.text for delta in deltas)
    assert shown == response.answer.text
    assert "I can do" not in shown, "the model's promise is never shown"


async def test_an_invoice_of_another_account_is_not_proposed(ledger: SqliteLedger) -> None:
    # INV-1003 is ACC-2002's: the asker of ACC-2001 may not have it refunded
    response, deltas = await turn(
        proposal("issue_refund", invoice_id="INV-1003"), ActionRegistry.default(ledger), account_id="ACC-2001"
    )

    assert (response.answer.kind, response.answer.reason) == ("action_not_possible", "wrong_account")
    assert response.answer.text.startswith("Invoice INV-1003 is not one of your account's invoices")
    assert response.pending_approval is None
    assert "".join(delta.text for delta in deltas) == response.answer.text
    assert msgspec.json.decode(msgspec.json.encode(response.answer))["reason"] == "wrong_account"


async def test_delete_my_account_proposes_deleting_the_askers_account(ledger: SqliteLedger) -> None:
    response, _ = await turn(proposal("delete_account"), ActionRegistry.default(ledger), account_id="ACC-2003")

    assert response.answer.kind == "action_proposal"
    assert [entry.outcome for entry in response.trace if entry.node == "generate_answer"] == ["proposed_action"]


async def test_a_possible_proposal_shows_the_models_text_once_checked(ledger: SqliteLedger) -> None:
    response, deltas = await turn(proposal("issue_refund", invoice_id="INV-1001"), ActionRegistry.default(ledger))

    assert response.answer.kind == "action_proposal"
    assert response.answer.reason is None
    assert "".join(delta.text for delta in deltas) == "I can do issue_refund once a person approves it."
    assert all(delta.text == "" for delta in deltas[:-1]), "held until the action was checked"
    assert b"reason" not in msgspec.json.encode(response.answer), "omitted, not null, outside action_not_possible"


async def test_a_bare_tool_call_is_a_proposal_announced_by_its_summary(ledger: SqliteLedger) -> None:
    call = ToolCall(name="issue_refund", arguments={"invoice_id": "INV-1001"})

    response, deltas = await turn(None, ActionRegistry.default(ledger), (call,))

    assert response.answer.kind == "action_proposal"
    assert response.answer.text == "Refund invoice INV-1001 ($42.00): a person approves it before anything happens."
    assert "".join(delta.text for delta in deltas) == response.answer.text


async def test_a_tool_call_for_a_record_that_does_not_exist_is_not_possible(ledger: SqliteLedger) -> None:
    call = ToolCall(name="issue_refund", arguments={"invoice_id": "INV-9999"})

    response, _ = await turn(None, ActionRegistry.default(ledger), (call,))

    assert (response.answer.kind, response.answer.reason) == ("action_not_possible", "unknown_record")


async def test_a_tool_call_on_an_ambiguous_request_asks_which_record_instead_of_guessing(
    ledger: SqliteLedger,
) -> None:
    call = ToolCall(name="issue_refund", arguments={"invoice_id": "INV-1001"})
    response, _ = await turn(
        None, ActionRegistry.default(ledger), (call,), message="Refund INV-1001 or INV-1002, whichever was doubled"
    )

    assert response.pending_approval is None
    assert response.answer.kind == "action_not_possible"
    assert response.answer.reason == "missing_argument"
    assert response.answer.text.startswith("Which invoice should I refund: INV-1001 or INV-1002?")


async def test_a_tool_calls_record_in_another_spelling_is_read_as_the_record(ledger: SqliteLedger) -> None:
    call = ToolCall(name="issue_refund", arguments={"invoice_id": "inv 1003"})
    response, _ = await turn(None, ActionRegistry.default(ledger), (call,), message="my money back for inv 1003 please")

    assert response.answer.kind == "action_proposal"
    assert response.answer.text.startswith("Refund invoice INV-1003 (")
