"""The agent's guardrails, in layers.

Input (``check_input``, pure, under a millisecond):

1. ``normalize``: the message with case, confusables, invisible characters, spacing, punctuation and
   leetspeak tricks undone;
2. ``rules``: intent families (reveal instructions, repeat previous text, role and override claims,
   credential and environment requests, ...), each with its reason code; then secrets pasted into the
   message (``pasted_secrets``) and personal numbers (``pii``), read on the message as sent through their
   own folding (``number_fold``), so that any separators, case or invisible characters hide none;
3. ``model_check``: optionally, with a real provider, a small classification on the same model, with a
   strict output format, a timeout and a fail-open or fail-closed setting.

Output (``check_output``): no system-prompt canary, no key, no card number, only retrieved citations.
``redact`` masks what must not be stored, reading personal numbers the same way.
"""

from __future__ import annotations

from agent.guardrails.check_digits import luhn_valid
from agent.guardrails.input import InputVerdict, check_input
from agent.guardrails.output import OutputVerdict, check_output
from agent.guardrails.pasted_secrets import redact_secrets
from agent.guardrails.pii import redact_pii
from agent.guardrails.reasons import REASONS, RefusalReason

__all__ = (
    "REASONS",
    "InputVerdict",
    "OutputVerdict",
    "RefusalReason",
    "check_input",
    "check_output",
    "luhn_valid",
    "redact",
)


def redact(text: str) -> str:
    """``text`` with card numbers, national ids, bank accounts, keys and given passwords replaced."""
    return redact_secrets(redact_pii(text))
