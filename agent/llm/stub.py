"""The built-in ``stub`` provider: deterministic, offline, and grounded on the passages in its prompt.

It reads the same messages a real model gets (the passages and the question in the last user message),
answers in the structured form, and proposes ``issue_refund`` / ``delete_account`` when asked.
"""

from __future__ import annotations

import asyncio
import re
from typing import TYPE_CHECKING, Any

import msgspec

from agent.llm.errors import ProviderStreamFailed, ProviderUnavailable
from agent.llm.types import Chunk, Completion

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable, Sequence

    from agent.config import StubConfig
    from agent.llm.types import ChatMessage, LLMParams

__all__ = ("StubLLM", "compose_answer")

_PASSAGE_HEADER = re.compile(r"^\[(?P<doc_id>[\w-]+)\] (?P<title>.+)$")
_SENTENCE_END = re.compile(r"(?<=\.)\s+(?=[A-Z])")
_PIECE = re.compile(r"\s*\S{1,8}")
_INVOICE = re.compile(r"\bINV-\d{4}\b", re.IGNORECASE)
_ACCOUNT = re.compile(r"\bACC-\d{4}\b", re.IGNORECASE)
_REFUND = re.compile(r"\brefund", re.IGNORECASE)
_DELETE_ACCOUNT = re.compile(r"\b(delete|close|remove|erase)\b.*\baccount\b", re.IGNORECASE)
_QUESTION = re.compile(
    r"\?|^\s*(how|what|where|when|why|who|which|can i|could i|do i|does|is|are|should|will)\b|\bhow (do|can|to)\b",
    re.IGNORECASE,
)
"""A question about an action ("How do I delete my account?") is answered from the passages, not acted on."""
_REFUND_REQUEST = re.compile(
    r"\brefund (my|the|this|that|an?|it|me)\b|\b(i want|i'd like|i would like|i need|give me|issue) (a |my )?refund\b",
    re.IGNORECASE,
)
_DELETE_REQUEST = re.compile(r"\b(delete|close|remove|erase) (my|the|this|that|our) account\b", re.IGNORECASE)

_NO_ANSWER = (
    "I couldn't find that in the Nimbus Cloud help centre. I can help with accounts, passwords, billing, "
    "invoices, refunds, data export, API limits and security."
)


class StubLLM:
    """A fake model that is fast, free and always gives the same answer to the same prompt."""

    provider = "stub"

    def __init__(self, config: StubConfig, sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self._config = config
        self._sleep = sleep

    @property
    def model(self) -> str:
        return "stub-1"

    async def complete(self, messages: Sequence[ChatMessage], params: LLMParams) -> Completion:
        if self._config.fail_after_tokens is not None:
            raise ProviderUnavailable("the stub provider is configured to fail")
        text = self._answer(messages)
        return Completion(
            text=text,
            model=self.model,
            provider=self.provider,
            input_tokens=count_words(messages),
            output_tokens=len(_PIECE.findall(text)),
            finish_reason="stop",
        )

    async def stream(self, messages: Sequence[ChatMessage], params: LLMParams) -> AsyncIterator[Chunk]:
        pieces = _PIECE.findall(self._answer(messages))
        delay_s = self._config.token_delay_ms / 1000
        for index, piece in enumerate(pieces):
            if index == self._config.fail_after_tokens:
                raise ProviderStreamFailed(f"the stub's stream broke off after {index} tokens")
            await self._sleep(delay_s)
            last = index == len(pieces) - 1
            yield Chunk(
                delta=piece,
                model=self.model,
                provider=self.provider,
                finish_reason="stop" if last else None,
                input_tokens=count_words(messages) if last else 0,
                output_tokens=len(pieces) if last else 0,
            )

    def _answer(self, messages: Sequence[ChatMessage]) -> str:
        question, passages = read_prompt(messages[-1].content)
        return msgspec.json.encode(compose_answer(question, passages)).decode()


def count_words(messages: Sequence[ChatMessage]) -> int:
    return sum(len(message.content.split()) for message in messages)


def read_prompt(prompt: str) -> tuple[str, list[tuple[str, str, str]]]:
    """The question and the ``(doc_id, title, text)`` passages of a prompt built by ``build_messages``."""
    context, _, question = prompt.rpartition("\nQuestion: ")
    passages: list[tuple[str, str, str]] = []
    lines = context.splitlines()
    for number, line in enumerate(lines):
        header = _PASSAGE_HEADER.match(line)
        if header and number + 1 < len(lines):
            passages.append((header["doc_id"], header["title"], lines[number + 1]))
    return question.strip(), passages


def compose_answer(question: str, passages: Sequence[tuple[str, str, str]]) -> dict[str, Any]:
    cited = [passages[0][0]] if passages else []
    if _REFUND.search(question) and (invoice := _INVOICE.search(question)):
        cited = [doc_id for doc_id, title, _ in passages if _REFUND.search(title)][:1] or cited
        invoice_id = invoice.group().upper()
        return {
            "kind": "action_proposal",
            "text": f"I can refund invoice {invoice_id} once a person approves it.",
            "citations": cited,
            "action": {"name": "issue_refund", "arguments": {"invoice_id": invoice_id}},
        }
    if _DELETE_ACCOUNT.search(question) and (account := _ACCOUNT.search(question)):
        account_id = account.group().upper()
        return {
            "kind": "action_proposal",
            "text": f"I can delete account {account_id} once a person approves it. Deletion cannot be undone.",
            "citations": cited,
            "action": {"name": "delete_account", "arguments": {"account_id": account_id}},
        }
    if not _QUESTION.search(question):
        # asked to act, but without an id: propose with what was given and let the registry ask for the rest
        if _REFUND_REQUEST.search(question):
            return {
                "kind": "action_proposal",
                "text": "I can refund that invoice once a person approves it.",
                "citations": [],
                "action": {"name": "issue_refund", "arguments": {}},
            }
        if _DELETE_REQUEST.search(question):
            return {
                "kind": "action_proposal",
                "text": "I can delete that account once a person approves it.",
                "citations": [],
                "action": {"name": "delete_account", "arguments": {}},
            }
    if not passages:
        return {"kind": "no_answer", "text": _NO_ANSWER, "citations": []}
    _, _, text = passages[0]
    return {"kind": "answer", "text": " ".join(_SENTENCE_END.split(text)[:2]), "citations": cited}
