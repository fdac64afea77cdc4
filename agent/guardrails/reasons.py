"""The reason codes the input guardrail refuses with: what the eval dataset expects and the spans carry."""

from __future__ import annotations

from typing import Literal, get_args

__all__ = ("REASONS", "PiiReason", "RefusalReason")

PiiReason = Literal["pii_payment_card", "pii_national_id", "pii_bank_account"]
RefusalReason = Literal["prompt_injection", "secret_request", "secret_in_message", PiiReason, "check_unavailable"]
"""``check_unavailable``: the model-based check failed and is configured to fail closed."""
REASONS: tuple[str, ...] = (*get_args(RefusalReason)[:3], *get_args(PiiReason), "check_unavailable")
"""Every code of ``RefusalReason``, in order."""
