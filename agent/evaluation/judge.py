"""An LLM judge: a model grades an answer against a case's rubric (``expect.judge: {rubric, threshold?}``).

The judge answers a 1-5 score and one sentence of reason as a JSON object under a schema (a llama.cpp
grammar for the local model), so even a small model can only answer a verdict. The score is reported on
0-1 (``(score - 1) / 4``); the case passes the judge when it reaches ``threshold`` (default 0.5, a 3 of 5).

The prompt is versioned: ``JUDGE_PROMPT_VERSION`` changes by hand when its meaning changes, and its SHA-256
is computed, so a report says exactly which prompt graded it and two reports graded differently are never
compared as if they were not. The judge's provider and model are configured apart from the agent's
(``--judge-provider``/``HARNESS_JUDGE_PROVIDER``, ``--judge-model``/``HARNESS_JUDGE_MODEL``): grading with
the model under test flatters it. Its calls go through the eval's cache like the agent's.
"""

from __future__ import annotations

import hashlib
import json
import os
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from agent.config import ConfigError, ProviderSettings
from agent.evaluation.records import Check
from agent.evaluation.scorers import register_scorer
from agent.llm.errors import LLMError
from agent.llm.factory import create_llm_client
from agent.llm.types import ChatMessage, LLMParams, StructuredOutput

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator, Mapping

    from agent.config import AgentConfig
    from agent.evaluation.graph_cases import GraphCase
    from agent.evaluation.model_calls import EvalModelCalls
    from agent.evaluation.records import GraphRecord
    from agent.llm.protocol import LLMClient

__all__ = (
    "JUDGE_PROMPT_SHA256",
    "JUDGE_PROMPT_VERSION",
    "Judge",
    "JudgeExpectation",
    "JudgeInfo",
    "JudgeSettings",
    "JudgeVerdict",
    "Judging",
    "create_judge",
    "judge_scorer",
    "judging",
)

JUDGE_PROMPT_VERSION = "rubric-v1"
_SYSTEM = (
    "You grade an AI assistant's answer against a rubric. Read the rubric, the user's input and the answer. "
    "Score how well the answer meets the rubric from 1 (not at all) to 5 (fully). Judge only what the rubric "
    'asks. Reply with a JSON object only: {"score": <1-5>, "reason": "<one short sentence>"}.'
)
_USER = "Rubric:\n{rubric}\n\nUser input:\n{input}\n\nAnswer to grade:\n{output}"
JUDGE_PROMPT_SHA256 = hashlib.sha256(f"{_SYSTEM}\n\n{_USER}".encode()).hexdigest()
_MAX_REASON = 300
_VERDICT_SCHEMA = StructuredOutput(
    name="verdict",
    strict={
        "type": "object",
        "properties": {"score": {"type": "integer", "enum": [1, 2, 3, 4, 5]}, "reason": {"type": "string"}},
        "required": ["score", "reason"],
        "additionalProperties": False,
    },
    guided={
        "type": "object",
        "properties": {
            "score": {"type": "integer", "enum": [1, 2, 3, 4, 5]},
            "reason": {"type": "string", "maxLength": _MAX_REASON},
        },
        "required": ["score", "reason"],
    },
)
_PARAMS = LLMParams(max_tokens=160, temperature=0.0, structured=_VERDICT_SCHEMA)


class JudgeExpectation(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``expect.judge`` of a case."""

    rubric: str
    threshold: float = 0.5
    """The 0-1 score the answer must reach."""

    def __post_init__(self) -> None:
        if not self.rubric.strip():
            raise ValueError("judge.rubric must say what a good answer does")
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"judge.threshold must be within 0..1, got {self.threshold}")


class JudgeVerdict(msgspec.Struct, frozen=True, kw_only=True):
    score: float | None
    """0-1; ``None`` when the judge gave no verdict."""
    passed: bool
    label: Literal["pass", "fail", "error"]
    explanation: str


class JudgeInfo(msgspec.Struct, frozen=True, kw_only=True):
    """What report.json records of the judge (``judge``)."""

    provider: str
    model: str
    prompt_version: str = JUDGE_PROMPT_VERSION
    prompt_sha256: str = JUDGE_PROMPT_SHA256


class JudgeSettings(msgspec.Struct, frozen=True, kw_only=True):
    provider: str
    model: str | None = None

    @classmethod
    def from_env(
        cls, environ: Mapping[str, str] | None = None, *, provider: str | None = None, model: str | None = None
    ) -> JudgeSettings | None:
        """The flags' choice over ``HARNESS_JUDGE_PROVIDER`` / ``HARNESS_JUDGE_MODEL``; ``None`` when neither
        names a provider."""
        env = os.environ if environ is None else environ
        chosen = provider or env.get("HARNESS_JUDGE_PROVIDER", "").strip()
        if not chosen:
            return None
        return cls(provider=chosen, model=model or env.get("HARNESS_JUDGE_MODEL", "").strip() or None)


class _Answer(msgspec.Struct, frozen=True):
    score: int
    reason: str = ""


class Judge:
    """Grades answers with ``client``."""

    def __init__(self, client: LLMClient, *, provider: str) -> None:
        self.client = client
        self.info = JudgeInfo(provider=provider, model=client.model)

    @staticmethod
    def messages(expectation: JudgeExpectation, *, input: str, output: str) -> list[ChatMessage]:
        return [
            ChatMessage("system", _SYSTEM),
            ChatMessage("user", _USER.format(rubric=expectation.rubric.strip(), input=input, output=output)),
        ]

    async def grade(self, expectation: JudgeExpectation, *, input: str, output: str) -> JudgeVerdict:
        """The verdict on ``output``; a judge that fails or answers no verdict gives an ``error`` verdict,
        which does not pass (an unjudged answer is not a good one)."""
        try:
            completion = await self.client.complete(self.messages(expectation, input=input, output=output), _PARAMS)
        except LLMError as exc:
            return JudgeVerdict(score=None, passed=False, label="error", explanation=f"the judge failed: {exc}")
        answer = _parse(completion.text)
        if answer is None:
            shown = completion.text.strip()[:120]
            return JudgeVerdict(
                score=None, passed=False, label="error", explanation=f"the judge answered no verdict: {shown!r}"
            )
        score = (answer.score - 1) / 4
        passed = score >= expectation.threshold
        return JudgeVerdict(
            score=score,
            passed=passed,
            label="pass" if passed else "fail",
            explanation=f"{answer.score}/5: {answer.reason.strip()[:_MAX_REASON]}",
        )

    async def aclose(self) -> None:
        close = getattr(self.client, "aclose", None)
        if close is not None:
            await close()


def _parse(text: str) -> _Answer | None:
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        return None
    try:
        answer = msgspec.json.decode(text[start : end + 1], type=_Answer)
    except msgspec.DecodeError:
        return None
    return answer if 1 <= answer.score <= 5 else None


def create_judge(settings: JudgeSettings, config: AgentConfig, calls: EvalModelCalls | None = None) -> Judge:
    """The judge on ``settings.provider``, configured by that provider's own ``HARNESS_LLM_<NAME>_*``
    variables (never by the agent's shared ``HARNESS_LLM_*`` ones, which may be another vendor's), through
    the eval's cache and limits when there are some."""
    if settings.provider == "stub":
        raise ConfigError("the stub model cannot judge: set HARNESS_JUDGE_PROVIDER to a real provider (local, ...)")
    per_provider = dict(config.llm.per_provider)
    if settings.model is not None:
        own = per_provider.get(settings.provider, ProviderSettings())
        per_provider[settings.provider] = msgspec.structs.replace(own, model=settings.model)
    llm = msgspec.structs.replace(
        config.llm, provider=settings.provider, base_url=None, api_key=None, model=None, per_provider=per_provider
    )
    guardrails = msgspec.structs.replace(config.guardrails, model_check=False)
    client = create_llm_client(msgspec.structs.replace(config, llm=llm, guardrails=guardrails))
    if calls is not None:
        client = calls.wrap(client)
    return Judge(client, provider=settings.provider)


class Judging:
    """The eval's judge, made per grading (a model client belongs to the event loop it is used on)."""

    def __init__(self, settings: JudgeSettings | None, config: AgentConfig, calls: EvalModelCalls | None) -> None:
        self.settings = settings
        self.config = config
        self.calls = calls
        self.used = 0
        self.info = create_judge(settings, config).info if settings is not None else None
        """Made once up front, so that a judge that cannot be configured fails the eval before it runs."""

    @asynccontextmanager
    async def judge(self) -> AsyncIterator[Judge]:
        if self.settings is None:
            raise ConfigError("a case has expect.judge but no judge is set: --judge-provider or HARNESS_JUDGE_PROVIDER")
        judge = create_judge(self.settings, self.config, self.calls)
        self.used += 1
        try:
            yield judge
        finally:
            await judge.aclose()


_judging: ContextVar[Judging | None] = ContextVar("harness_eval_judging", default=None)


@contextmanager
def judging(judges: Judging) -> Iterator[Judging]:
    """The ``judge`` scorer grades with ``judges`` in this block."""
    token = _judging.set(judges)
    try:
        yield judges
    finally:
        _judging.reset(token)


async def judge_scorer(case: GraphCase, record: GraphRecord) -> Check:
    """``expect.judge`` of a case of any graph: the case's input and the graph's last message (or its final
    state) graded against the rubric."""
    expectation = msgspec.convert(case.expect.judge, JudgeExpectation)
    judges = _judging.get()
    if judges is None:
        raise ConfigError("a case has expect.judge but no judge is set: --judge-provider or HARNESS_JUDGE_PROVIDER")
    async with judges.judge() as judge:
        verdict = await judge.grade(expectation, input=_input_text(case), output=_output_text(record))
    return Check(
        name="judge", passed=verdict.passed, score=verdict.score, detail="" if verdict.passed else verdict.explanation
    )


_MAX_SHOWN = 4000


def _input_text(case: GraphCase) -> str:
    if isinstance(case.messages, str):
        return case.messages
    given: Any = case.messages if case.messages is not None else case.input
    return _text_of(given)


def _output_text(record: GraphRecord) -> str:
    state = record.state
    messages = state.get("messages") if isinstance(state, dict) else None
    if isinstance(messages, list) and messages and isinstance(messages[-1], dict) and "content" in messages[-1]:
        return _text_of(messages[-1]["content"])
    return _text_of(state)


def _text_of(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(msgspec.to_builtins(value, enc_hook=str), ensure_ascii=False)
    return text[:_MAX_SHOWN]


register_scorer("judge", judge_scorer)
