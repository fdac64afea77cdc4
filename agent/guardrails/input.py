"""The input guardrail's rule layers: normalization, then the intent families, then pasted secrets and PII.

Pure and fast (``bench/guardrails.py``: well under a millisecond a message). The optional model-based
check (``model_check``) runs after it, in the node, only for messages these layers allow.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from agent.guardrails.normalize import normalize
from agent.guardrails.pasted_secrets import find_pasted_secret
from agent.guardrails.pii import find_pii
from agent.guardrails.reasons import RefusalReason
from agent.guardrails.rules import first_matching_rule

__all__ = ("InputVerdict", "check_input")


class InputVerdict(msgspec.Struct, frozen=True, kw_only=True):
    allowed: bool
    reason: RefusalReason | None = None
    rule: str | None = None
    """What matched: an intent family (``repeat_previous_text``), ``pasted_<kind>``, a PII kind, or ``model``."""
    layer: Literal["rules", "model"] | None = None
    """Which layer refused."""


def check_input(message: str) -> InputVerdict:
    text = normalize(message)
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
