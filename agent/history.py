"""A session's history: what each turn adds to it, and what of it a model may see.

A refused message enters the history only as a placeholder naming the reason, and the exchange is marked
refused; no refused exchange is ever part of a prompt. Histories written before the marker existed hold
refused messages in full: their exchanges are recognised by the agent's own refusal in reply, and left
out of prompts just the same.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.guardrails import redact
from agent.guardrails.refusals import REFUSAL_TEXTS
from agent.llm.types import ChatMessage

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ("exchange", "prompt_history", "refused_placeholder")


def refused_placeholder(reason: str) -> str:
    """What stands for a refused message in the state, the history and the interaction log: no content."""
    return f"[message refused: {reason}]"


def exchange(message: str, answer: str, *, refused: str | None = None) -> list[dict[str, str]]:
    """The two history entries of a turn; ``refused`` (a reason code) marks a refused one."""
    entries = [{"role": "user", "content": message}, {"role": "assistant", "content": answer}]
    if refused is not None:
        for entry in entries:
            entry["refused"] = refused
    return entries


def prompt_history(history: Sequence[dict[str, str]]) -> list[ChatMessage]:
    """The exchanges a model may see, oldest first: refused ones left out, messages redacted again (answers
    passed the output guardrail)."""
    messages: list[ChatMessage] = []
    for start in range(0, len(history) - 1, 2):
        user, assistant = history[start], history[start + 1]
        if "refused" in user or "refused" in assistant or assistant["content"] in REFUSAL_TEXTS:
            continue
        messages += [ChatMessage("user", redact(user["content"])), ChatMessage("assistant", assistant["content"])]
    return messages
