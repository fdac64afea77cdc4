"""A secret pasted into a message is found by its shape; talking about passwords is not a secret."""

from __future__ import annotations

import pytest

from agent.guardrails.pasted_secrets import find_pasted_secret, redact_secrets


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ("key sk-proj-4fJ8kLmN0pQrStUvWxYz1234 returns 401", "key"),
        ("sk-ant-api03-abcdefghijklmnopqrstu", "key"),
        ("nmb_live_8f7e6d5c4b3a2910", "key"),
        ("AKIAIOSFODNN7EXAMPLE leaked", "key"),
        ("ghp_1234567890abcdefghijklmnopqrstuvwxyzAB", "key"),
        ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTYifQ.dozjgNryP4J3jVmNHl0w5N", "key"),
        ("-----BEGIN OPENSSH PRIVATE KEY----- abc", "private_key"),
        ("my password is Tr0ub4dor&3xyz, why can't I log in?", "password"),
        ("Password: Winter2024!!", "password"),
    ],
)
def test_a_pasted_secret_is_found(message: str, kind: str) -> None:
    assert find_pasted_secret(message) == kind


@pytest.mark.parametrize(
    "message",
    [
        "my password is not working",
        "my password is incorrect, apparently",
        "my password is 12 characters long",
        "How do I create an API key?",
        "What does an sk- key look like?",
        "Please refund invoice INV-1001.",
    ],
)
def test_talking_about_secrets_is_not_pasting_one(message: str) -> None:
    assert find_pasted_secret(message) is None


def test_redaction_masks_keys_and_the_value_of_a_given_password() -> None:
    assert redact_secrets("use sk-abcdefghijklmnopqrstu, my password is Tr0ub4dor&3 ok") == (
        "use [REDACTED KEY], my password is [REDACTED] ok"
    )
    assert redact_secrets("my password is incorrect") == "my password is incorrect"
