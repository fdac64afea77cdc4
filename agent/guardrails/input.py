"""The input guardrail's rule layers: normalization, then the intent families, then pasted secrets and PII.

Pure and fast (``bench/guardrails.py``: well under a millisecond a message). The optional model-based
check (``model_check``) runs after it, in the node, only for messages these layers allow. The learned
classifier (``learned``) runs after the rules in ``check_input`` (either may refuse); ``check_rules`` and
``check_learned`` are each layer alone, as ``harness eval redteam --layer`` measures them (ADR 43).
"""

from __future__ import annotations

from typing import Literal

import msgspec

from agent.guardrails.learned import learned_reason
from agent.guardrails.normalize import NormalizedText, normalize
from agent.guardrails.pasted_secrets import find_pasted_secret
from agent.guardrails.pii import find_pii
from agent.guardrails.reasons import RefusalReason
from agent.guardrails.rules import first_matching_rule

__all__ = ("InputVerdict", "check_input", "check_learned", "check_rules")


class InputVerdict(msgspec.Struct, frozen=True, kw_only=True):
    allowed: bool
    reason: RefusalReason | None = None
    rule: str | None = None
    """What matched: an intent family (``repeat_previous_text``), ``pasted_<kind>``, a PII kind, ``classifier``
    or ``model``."""
    layer: Literal["rules", "classifier", "model"] | None = None
    """Which layer refused."""


def check_input(message: str) -> InputVerdict:
    """The rule layers, then the learned classifier on what they allow: either may refuse, and ``layer`` says
    which (ADR 43). The classifier's threshold sits above every benign message of its held-out split by a
    margin, so the rules' verdict stands on what the classifier is unsure of."""
    text = normalize(message)
    verdict = _rules(message, text)
    return verdict if not verdict.allowed else _learned(text)


def check_rules(message: str) -> InputVerdict:
    """The rule layers alone (normalization, intent families, pasted secrets, personal numbers)."""
    return _rules(message, normalize(message))


def check_learned(message: str) -> InputVerdict:
    """The learned classifier alone (``agent.guardrails.learned``), as ``harness eval redteam --layer
    classifier`` measures it; ``layer`` and ``rule`` are ``classifier`` on its refusals."""
    return _learned(normalize(message))


def _rules(message: str, text: NormalizedText) -> InputVerdict:
    rule = first_matching_rule(text)
    if rule is not None:
        return InputVerdict(allowed=False, reason=rule.reason, rule=rule.name, layer="rules")
    secret = find_pasted_secret(text.raw)
    if secret is not None:
        return InputVerdict(allowed=False, reason="secret_in_message", rule=f"pasted_{secret}", layer="rules")
    pii = find_pii(message)
    if pii is not None:
        return InputVerdict(allowed=False, reason=pii, rule=pii.removeprefix("pii_"), layer="rules")
    return InputVerdict(allowed=True)


def _learned(text: NormalizedText) -> InputVerdict:
    reason = learned_reason(text)
    if reason is None:
        return InputVerdict(allowed=True)
    return InputVerdict(allowed=False, reason=reason, rule="classifier", layer="classifier")
