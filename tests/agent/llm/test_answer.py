"""Reading the model's answer: the structured form, a tool call, or plain text as it was written."""

from __future__ import annotations

from agent.llm.answer import ParsedAnswer, ProposedAction, parse_answer
from agent.llm.types import ToolCall


def test_a_structured_answer_is_read_with_its_citations_and_action() -> None:
    raw = (
        '```json\n{"kind": "action_proposal", "text": "Sure.", "citations": ["kb-a", 3], "action": {"name": "x"}}\n```'
    )

    assert parse_answer(raw) == ParsedAnswer(
        kind="action_proposal", text="Sure.", citations=("kb-a",), action=ProposedAction(name="x", arguments={})
    )


def test_a_raw_line_break_inside_the_text_still_reads_as_the_structured_answer() -> None:
    """llama.cpp's grammar lets a literal newline into a JSON string; strict JSON would reject it."""
    parsed = parse_answer('{"kind": "answer", "citations": ["kb-a"], "text": "Steps:\n1. Open Settings"}')

    assert parsed.well_formed
    assert parsed.text == "Steps:\n1. Open Settings"


def test_anything_else_is_a_plain_answer_that_is_not_well_formed() -> None:
    assert parse_answer("  Open Settings.  ") == ParsedAnswer(kind="answer", text="Open Settings.", well_formed=False)
    assert not parse_answer('{"kind": "answer"}').well_formed
    assert not parse_answer('["text"]').well_formed


def test_a_tool_call_is_the_proposal_whatever_the_text() -> None:
    call = ToolCall(name="issue_refund", arguments={"invoice_id": "INV-1001"})

    assert parse_answer("", (call,)) == ParsedAnswer(
        kind="action_proposal",
        text="",
        action=ProposedAction(name="issue_refund", arguments={"invoice_id": "INV-1001"}),
    )
    assert parse_answer('{"kind": "answer", "text": "On it."}', (call,)).text == "On it."
