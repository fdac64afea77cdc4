"""Secrets pasted into a message: provider and cloud keys, tokens, private keys, a password given in full.

A secret sent to a support chat is a secret exposed: the agent refuses to process it (so it goes to no
model and no answer) and tells the user to revoke it; the interaction log stores it redacted. The same
patterns find keys in the agent's own answers (``check_output``).
"""

from __future__ import annotations

import re

__all__ = ("KEY_PATTERN", "find_pasted_secret", "may_hold_a_secret", "redact_secrets")

KEY_PATTERN = re.compile(
    r"\b(?:sk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_-]{16,}|nmb_(?:live|test)_[A-Za-z0-9]{8,}|(?:AKIA|ASIA)[0-9A-Z]{16}"
    r"|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}|xox[abprs]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35}"
    r"|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})"
)
"""API keys and tokens by their published prefixes (OpenAI, Anthropic, Nimbus, AWS, GitHub, Slack, Google, JWT)."""
_KEY_PREFIXES = (
    "sk-",
    "nmb_",
    "AKIA",
    "ASIA",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "xox",
    "AIza",
    "eyJ",
)
"""Every match of ``KEY_PATTERN`` holds one: a text without any is not searched."""
_PRIVATE_KEY_WORDS = "PRIVATE KEY-----"
_PASSWORD_STEMS = ("pass", "pwd")
"""Every match of ``_PASSWORD_GIVEN`` holds one, in an ASCII text read in lower case (matching case-blind, the
pattern also reads non-ASCII letters such as ``ſ`` as ``s``, so any other text is searched)."""
_PRIVATE_KEY = re.compile(r"-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----")
_PASSWORD_GIVEN = re.compile(
    r"\b(?:password|passwd|pwd|passcode|passphrase)(?: is|:|=)\s*[\"'“]?(?P<value>[^\s\"'”,;]{6,})", re.IGNORECASE
)


def find_pasted_secret(text: str) -> str | None:
    """What kind of secret ``text`` carries (``key``, ``private_key``, ``password``), or None."""
    if _may_hold_a_key(text) and KEY_PATTERN.search(text):
        return "key"
    if _PRIVATE_KEY_WORDS in text and _PRIVATE_KEY.search(text):
        return "private_key"
    if _may_give_a_password(text) and any(_looks_like_a_password(m["value"]) for m in _PASSWORD_GIVEN.finditer(text)):
        return "password"
    return None


def redact_secrets(text: str) -> str:
    """``text`` with keys, private key headers and given passwords replaced. Each pattern runs only on a text
    that holds what every one of its matches holds: a model's token, the usual text here, holds none."""
    if _may_hold_a_key(text):
        text = KEY_PATTERN.sub("[REDACTED KEY]", text)
    if _PRIVATE_KEY_WORDS in text:
        text = _PRIVATE_KEY.sub("[REDACTED KEY]", text)
    if not _may_give_a_password(text):
        return text
    return _PASSWORD_GIVEN.sub(
        lambda m: m.group().replace(m["value"], "[REDACTED]") if _looks_like_a_password(m["value"]) else m.group(),
        text,
    )


def may_hold_a_secret(text: str) -> bool:
    """False only when ``redact_secrets(text)`` is ``text`` for sure: no key's prefix, no private key's header,
    no word a given password follows."""
    return _may_hold_a_key(text) or _PRIVATE_KEY_WORDS in text or _may_give_a_password(text)


def _may_hold_a_key(text: str) -> bool:
    return any(prefix in text for prefix in _KEY_PREFIXES)


def _may_give_a_password(text: str) -> bool:
    if not text.isascii():
        return True
    lowered = text.lower()
    return any(stem in lowered for stem in _PASSWORD_STEMS)


def _looks_like_a_password(value: str) -> bool:
    """ "my password is Tr0ub4dor&3" gives one; "my password is incorrect" or "is 12 characters" does not."""
    has_letter = any(c.isalpha() for c in value)
    has_other = any(c.isdigit() or not c.isalnum() for c in value.rstrip(".!?"))
    return has_letter and has_other
