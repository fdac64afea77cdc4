"""What the agent says when it refuses: to a message (by reason code), and in place of an answer it blocks."""

from __future__ import annotations

__all__ = ("BLOCKED_ANSWER", "REFUSALS", "REFUSAL_TEXTS")

REFUSALS = {
    "prompt_injection": "I can't follow instructions that try to change how I work. Ask me about Nimbus Cloud instead.",
    "secret_request": "I can't share system instructions, credentials or keys.",
    "secret_in_message": (
        "Please don't send keys or passwords here: anyone who sees this conversation could use them. If it is a "
        "real key or password, revoke or change it now (Settings > API > API keys, or Settings > Security > "
        "Password), then ask again without it."
    ),
    "pii_payment_card": "Please don't send card numbers here. Remove the card number and ask again.",
    "pii_national_id": "Please don't send national identity numbers here. Remove it and ask again.",
    "pii_bank_account": "Please don't send bank account numbers here. Remove it and ask again.",
    "check_unavailable": "I can't answer right now because a safety check is unavailable. Please try again shortly.",
}
"""The refusal of a message, by the input guardrail's reason code."""

BLOCKED_ANSWER = "I can't share that answer because it would reveal protected information."
"""What the output guardrail says in place of an answer it blocks."""

REFUSAL_TEXTS = frozenset((*REFUSALS.values(), BLOCKED_ANSWER))
"""Every refusal the agent writes: how an exchange of a session's history is known to be a refused one."""
