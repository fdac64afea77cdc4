"""The answer's schema: citations only of retrieved passages, actions only on records the user named."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent.actions.registry import DeleteAccount, IssueRefund
from agent.llm.answer_schema import answer_format

ACTIONS = [IssueRefund(None), DeleteAccount(None)]  # type: ignore[arg-type]  # the schema reads no ledger


def objects(schema: Any) -> list[dict[str, Any]]:
    """Every object schema nested in ``schema``."""
    found: list[dict[str, Any]] = []
    if isinstance(schema, dict):
        if schema.get("type") == "object":
            found.append(schema)
        for value in schema.values():
            found += objects(value)
    elif isinstance(schema, list):
        for value in schema:
            found += objects(value)
    return found


def test_the_strict_dialect_keeps_to_the_subset_every_strict_provider_accepts() -> None:
    structured, _ = answer_format(["kb-a", "kb-b"], ACTIONS, "Refund INV-1001 please")
    strict = structured.strict

    assert strict["type"] == "object"
    assert list(strict["properties"]) == ["kind", "citations", "text", "action"], "kind first"
    for schema in objects(strict):
        assert schema["additionalProperties"] is False
        assert sorted(schema["required"]) == sorted(schema["properties"])
    text = json.dumps(strict)
    assert "maxLength" not in text
    assert "minItems" not in text
    assert strict["properties"]["citations"]["items"]["enum"] == ["kb-a", "kb-b"]


def test_an_action_may_only_name_a_record_the_user_named() -> None:
    structured, tools = answer_format(["kb-a"], ACTIONS, "Refund inv-1001, not INV-2000? And delete ACC-2003")
    refund, delete = (
        next(
            o for o in structured.strict["properties"]["action"]["anyOf"][1:] if o["properties"]["name"]["enum"] == [n]
        )
        for n in ("issue_refund", "delete_account")
    )

    assert refund["properties"]["arguments"]["properties"]["invoice_id"]["enum"] == ["INV-1001", "INV-2000"]
    assert delete["properties"]["arguments"]["properties"]["account_id"]["enum"] == ["ACC-2003"]
    assert [t.name for t in tools] == ["issue_refund", "delete_account"]
    assert tools[0].parameters["properties"]["invoice_id"]["enum"] == ["INV-1001", "INV-2000"]


def test_without_a_named_record_an_action_takes_no_arguments_and_asks_for_them() -> None:
    structured, tools = answer_format(["kb-a"], ACTIONS, "Please refund my last invoice")

    refund = structured.strict["properties"]["action"]["anyOf"][1]
    assert refund["properties"]["arguments"] == {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": False,
    }
    assert tools[0].parameters["properties"] == {}


def test_the_guided_dialect_branches_on_the_kind() -> None:
    with_record, _ = answer_format(["kb-a", "kb-b"], ACTIONS, "Refund INV-1001")
    plain, proposal = with_record.guided["anyOf"]
    assert plain["properties"]["kind"]["enum"] == ["answer", "no_answer"]
    assert (plain["properties"]["citations"]["minItems"], plain["properties"]["citations"]["maxItems"]) == (1, 1)
    assert proposal["properties"]["kind"]["enum"] == ["action_proposal"]
    assert list(proposal["properties"]) == ["kind", "action", "text"]

    question, _ = answer_format(["kb-a"], ACTIONS, "How do I reset my password?")
    assert "anyOf" not in question.guided, "no record named: nothing to propose"

    nothing, _ = answer_format([], ACTIONS, "What is the capital of France?")
    assert nothing.guided["properties"]["kind"]["enum"] == ["no_answer"]
    assert nothing.guided["properties"]["citations"]["maxItems"] == 0


@pytest.mark.parametrize("message", ["Refund INV-1001 and delete ACC-2001", "How do I reset my password?"])
def test_the_guided_dialect_compiles_to_a_llama_cpp_grammar(message: str) -> None:
    """llama-cpp-python silently falls back to any JSON when a schema does not convert: it must convert."""
    grammar = pytest.importorskip("llama_cpp.llama_grammar")
    structured, _ = answer_format(["kb-a", "kb-b"], ACTIONS, message)

    assert "kind" in grammar.json_schema_to_gbnf(json.dumps(structured.guided))
