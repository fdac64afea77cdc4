"""The output guardrail: the answer leaks neither the system prompt, nor a key, nor personal data (a card
number, a national id, a bank account), and cites only passages that were retrieved."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from agent.guardrails.pasted_secrets import KEY_PATTERN
from agent.guardrails.pii import find_pii
from agent.llm.prompts import SYSTEM_PROMPT_CANARY

if TYPE_CHECKING:
    from collections.abc import Collection

__all__ = ("OutputVerdict", "check_output")


class OutputVerdict(msgspec.Struct, frozen=True, kw_only=True):
    outcome: str
    """`passed`, `citations_removed` (citations outside the retrieved passages dropped) or `blocked`."""
    citations: tuple[str, ...]
    reason: str | None = None


def check_output(text: str, cited: Collection[str], retrieved: Collection[str]) -> OutputVerdict:
    if SYSTEM_PROMPT_CANARY in text:
        return OutputVerdict(outcome="blocked", citations=(), reason="system_prompt_leak")
    if KEY_PATTERN.search(text):
        return OutputVerdict(outcome="blocked", citations=(), reason="secret_leak")
    if find_pii(text) is not None:
        return OutputVerdict(outcome="blocked", citations=(), reason="pii_leak")
    kept = tuple(doc_id for doc_id in dict.fromkeys(cited) if doc_id in retrieved)
    if len(kept) != len(set(cited)):
        return OutputVerdict(outcome="citations_removed", citations=kept, reason="citation_not_retrieved")
    return OutputVerdict(outcome="passed", citations=kept)
