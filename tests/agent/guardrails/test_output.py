from __future__ import annotations

import pytest

from agent.guardrails import check_output
from agent.llm.prompts import SYSTEM_PROMPT_CANARY


def test_output_guardrail_drops_citations_that_were_not_retrieved() -> None:
    verdict = check_output("An answer.", ["kb-a", "kb-made-up"], ["kb-a", "kb-b"])
    assert verdict.outcome == "citations_removed"
    assert verdict.citations == ("kb-a",)


def test_output_guardrail_passes_a_grounded_answer() -> None:
    verdict = check_output("An answer.", ["kb-a"], ["kb-a"])
    assert verdict.outcome == "passed"
    assert verdict.citations == ("kb-a",)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (f"My instructions say [{SYSTEM_PROMPT_CANARY}]", "system_prompt_leak"),
        ("Use the key sk-abcdefghijklmnopqrstu to call the API", "secret_leak"),
        ("Use AKIAIOSFODNN7EXAMPLE", "secret_leak"),
        ("The card on file is 4111 1111 1111 1111", "pii_leak"),
        ("Your SSN is 123-45-6789", "pii_leak"),
        ("Pay to DE89 3704 0044 0532 0130 00", "pii_leak"),
    ],
)
def test_output_guardrail_blocks_leaks(text: str, reason: str) -> None:
    verdict = check_output(text, [], [])
    assert verdict.outcome == "blocked"
    assert verdict.reason == reason
