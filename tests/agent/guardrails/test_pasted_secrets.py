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


def test_a_password_spelled_with_letters_that_read_as_ascii_ones_is_found() -> None:
    # Matched case-blind, the pattern reads the long s (U+017F) as an s: a lower-case look for "pass" does not
    assert find_pasted_secret("my paſſword is Tr0ub4dor&3") == "password"
    assert redact_secrets("my PAſSWORD is Tr0ub4dor&3") == "my PAſSWORD is [REDACTED]"


@pytest.mark.parametrize(
    "text",
    [
        "ghp_1234567890abcdefghijklmnopqrstuvwxyzAB and gho_1234567890abcdefghijklmnopqrstuvwxyzAB",
        "-----BEGIN RSA PRIVATE KEY----- MIIE",
        "pwd=Winter2024!! and PASSCODE: x9y8z7w6",
        "my paſſword is Tr0ub4dor&3",
        "through the right night",
        " token",
    ],
)
def test_redaction_searches_only_texts_that_can_hold_a_secret_and_misses_none(text: str) -> None:
    from agent.guardrails import pasted_secrets

    every_pattern = pasted_secrets._PASSWORD_GIVEN.sub(
        lambda m: (
            m.group().replace(m["value"], "[REDACTED]")
            if pasted_secrets._looks_like_a_password(m["value"])
            else m.group()
        ),
        pasted_secrets._PRIVATE_KEY.sub("[REDACTED KEY]", pasted_secrets.KEY_PATTERN.sub("[REDACTED KEY]", text)),
    )
    assert redact_secrets(text) == every_pattern
