"""The built-in ``stub`` provider: offline, grounded on the passages in its prompt, deterministic by default.

It reads the same messages a real model gets (the passages and the question in the last user message),
answers in the structured form, and proposes ``issue_refund`` / ``delete_account`` when asked.

At temperature 0 (``HARNESS_STUB_TEMPERATURE``, the default) it answers from the first passage and cites
it: the same answer to the same prompt, always. Above 0 it samples the way a model does, in the one choice
it has: the passage it answers from and cites is drawn, rank r (0 the best the retrieval found) with
probability proportional to exp(-r / T). At T = 0.5 with three passages that is the first 87% of the time,
the second 12%, the third 2%; as T grows the draw nears uniform. Everything else stays as it was: whether
it answers, refuses to guess or proposes an action, and which one, depends on the question alone, and the
guardrails decide before any model is called. Each draw is a hash of the seed (``HARNESS_STUB_SEED``, or a
random one), the call's index on this client and the prompt: a client with a given seed answers the same
sequence of prompts the same way every time.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import re
import secrets
from typing import TYPE_CHECKING, Any

import msgspec

from agent.actions.intent import DELETE, REFUND, read_requests
from agent.llm.errors import ProviderStreamFailed, ProviderUnavailable
from agent.llm.types import Chunk, Completion

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable, Sequence

    from agent.actions.intent import ActionRequest
    from agent.config import StubConfig
    from agent.llm.types import ChatMessage, LLMParams

__all__ = ("StubLLM", "compose_answer", "derive_seed", "draw_rank")

_PASSAGE_HEADER = re.compile(r"^\[(?P<doc_id>[\w-]+)\] (?P<title>.+)$")
_SENTENCE_END = re.compile(r"(?<=\.)\s+(?=[A-Z])")
_PIECE = re.compile(r"\s*\S{1,8}")
_REFUND = re.compile(r"\brefund", re.IGNORECASE)
_ARGUMENT = {REFUND: "invoice_id", DELETE: "account_id"}
_PROPOSE = {
    REFUND: (
        "I can refund invoice {id} once a person approves it.",
        "I can refund that invoice once a person approves it.",
    ),
    DELETE: (
        "I can delete account {id} once a person approves it. Deletion cannot be undone.",
        "I can delete that account once a person approves it.",
    ),
}

_NO_ANSWER = (
    "I couldn't find that in the Nimbus Cloud help centre. I can help with accounts, passwords, billing, "
    "invoices, refunds, data export, API limits and security."
)


class StubLLM:
    """A fake model that is fast and free; at temperature 0 it always gives the same answer to the same prompt.

    ``LLMParams.temperature`` is not read: the agent asks every model for 0, and an eval that wants the
    stub to sample sets ``StubConfig.temperature`` instead.
    """

    provider = "stub"

    def __init__(self, config: StubConfig, sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self._config = config
        self._sleep = sleep
        self._seed = config.seed if config.seed is not None else secrets.randbits(63)
        self._calls = 0

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
        call, self._calls = self._calls, self._calls + 1
        temperature = self._config.temperature
        if temperature == 0:
            return msgspec.json.encode(compose_answer(question, passages)).decode()
        draw = _uniform(self._seed, call, messages)
        return msgspec.json.encode(
            compose_answer(question, passages, pick=lambda n: draw_rank(n, temperature, draw))
        ).decode()


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


def derive_seed(seed: int, *parts: object) -> int:
    """A seed of its own for ``parts`` (a case id and an epoch), drawn from ``seed``: independent streams
    of draws from one base seed, whatever order they are used in."""
    key = "\x1f".join(str(part) for part in (seed, *parts)).encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "big") >> 1


def draw_rank(count: int, temperature: float, draw: float) -> int:
    """The rank (0 the best) that the uniform ``draw`` in [0, 1) picks of ``count`` choices, rank r weighted
    exp(-r / temperature): the inverse of their cumulative distribution."""
    if count <= 1 or temperature <= 0:
        return 0
    weights = [math.exp(-rank / temperature) for rank in range(count)]
    left = draw * sum(weights)
    for rank, weight in enumerate(weights):
        left -= weight
        if left < 0:
            return rank
    return count - 1


def _uniform(seed: int, call: int, messages: Sequence[ChatMessage]) -> float:
    """A number in [0, 1) fixed by the seed, the call's index and the prompt."""
    digest = hashlib.sha256(f"{seed}\x1f{call}".encode())
    for message in messages:
        digest.update(f"\x1e{message.role}\x1f{message.content}".encode())
    return int.from_bytes(digest.digest()[:8], "big") / 2**64


def _first(count: int) -> int:
    return 0


def compose_answer(
    question: str, passages: Sequence[tuple[str, str, str]], *, pick: Callable[[int], int] = _first
) -> dict[str, Any]:
    """The stub's answer to ``question`` from ``passages``; ``pick(n)`` chooses which of n candidate passages
    (in rank order) it answers from and cites: the first, unless the stub samples."""
    chosen = passages[pick(len(passages))] if passages else None
    cited = [chosen[0]] if chosen else []
    request = read_requests(question).first()
    if request is not None:
        return _proposal(request, passages, cited, pick)
    if chosen is None:
        return {"kind": "no_answer", "text": _NO_ANSWER, "citations": []}
    _, _, text = chosen
    return {"kind": "answer", "text": " ".join(_SENTENCE_END.split(text)[:2]), "citations": cited}


def _proposal(
    request: ActionRequest, passages: Sequence[tuple[str, str, str]], cited: list[str], pick: Callable[[int], int]
) -> dict[str, Any]:
    """The first action the question asks for, read by meaning (``agent.actions.intent``): with the record it
    names, with none when it names none or could mean several (the agent then asks which), or an action
    the agent does not have under its own name (the agent then says so)."""
    if request.name == REFUND:
        refunds = [doc_id for doc_id, title, _ in passages if _REFUND.search(title)]
        cited = [refunds[pick(len(refunds))]] if refunds else cited
    argument = _ARGUMENT.get(request.name)
    record = request.record_ids[0] if request.record_ids and not request.ambiguous else None
    named, unnamed = _PROPOSE.get(request.name, ("I can't do that here.", "I can't do that here."))
    text = named.format(id=record) if record else unnamed
    if record and len(request.record_ids) > 1:
        text += f" Ask me again for {', '.join(request.record_ids[1:])} once this one is decided."
    return {
        "kind": "action_proposal",
        "text": text,
        "citations": cited if argument and record else [],
        "action": {"name": request.name, "arguments": {argument: record} if argument and record else {}},
    }
