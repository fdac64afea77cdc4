"""Input and output checks. Pure functions: each returns a verdict with a stable reason code."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import msgspec

from agent.llm.prompts import SYSTEM_PROMPT_CANARY

if TYPE_CHECKING:
    from collections.abc import Collection

__all__ = ("InputVerdict", "OutputVerdict", "check_input", "check_output", "luhn_valid", "redact")

_INJECTION = [
    re.compile(p, re.IGNORECASE)
    for p in (
        r"\b(ignore|disregard|forget|override|bypass)\b.{0,40}\b(previous|prior|above|earlier|all|your|the)\b.{0,20}"
        r"\b(instructions?|prompts?|rules|directions|guidelines)\b",
        r"\byou are now\b|\bfrom now on,? you\b|\bact as (an? )?(unrestricted|unfiltered|jailbroken|dan)\b",
        r"\b(jailbreak|developer mode|dan mode|do anything now)\b",
        r"\bpretend (that )?you (have|are under) no (rules|restrictions|guidelines|limits)\b",
        r"\bnew (system )?instructions?:",
    )
]
_SECRET = (
    r"(?<!\w)(passwords?|api[ _-]?keys?|secrets?|credentials?|access tokens?|private keys?|env(?:ironment)? var"
    r"|environment variables|\.env\b|connection strings?)"
)
_SECRET_REQUEST = [
    re.compile(p, re.IGNORECASE)
    for p in (
        r"\b(system|hidden|initial|original|developer)\s+(prompt|instructions?|message)\b",
        r"\b(reveal|show|give|tell|print|leak|dump|share|send|list|output|what(?:'s| is| are))\b.{0,40}"
        r"\b(your|admin|administrator|another|other|others'?|someone(?:'s)?|internal|database|server|root|"
        r"production|all (?:the )?users'?|customers'?)\b.{0,30}"
        rf"{_SECRET}",
        rf"\b(reveal|show|give|tell|print|leak|dump|share|send|list|output|what(?:'s| is| are))\b.{{0,20}}{_SECRET}"
        r".{0,30}\b(of|for|from|in)\b.{0,20}\b(your|other|another|all|every|the admin|admins?|production|the server)\b",
        r"\b(reveal|show|print|repeat|what are|tell me)\b.{0,15}\byour (instructions|rules|prompt|guidelines)\b",
    )
]
_MY = re.compile(r"\b(my|our)\b.{0,30}\b(passwords?|api[ _-]?keys?|credentials?|tokens?)\b", re.IGNORECASE)
_CARD_CANDIDATE = re.compile(r"(?<!\d)(?:\d[ -]?){12,18}\d(?!\d)")
_NATIONAL_ID = re.compile(r"\b\d{3}-\d{2}-\d{4}\b")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b")
_LEAKED_KEY = re.compile(r"\b(sk-[A-Za-z0-9_-]{16,}|nmb_(live|test)_[A-Za-z0-9]{8,}|AKIA[0-9A-Z]{16})\b")


class InputVerdict(msgspec.Struct, frozen=True, kw_only=True):
    allowed: bool
    reason: str | None = None
    """`prompt_injection`, `secret_request`, `pii_payment_card`, `pii_national_id` or `pii_bank_account`."""


class OutputVerdict(msgspec.Struct, frozen=True, kw_only=True):
    outcome: str
    """`passed`, `citations_removed` (citations outside the retrieved passages dropped) or `blocked`."""
    citations: tuple[str, ...]
    reason: str | None = None


def check_input(message: str) -> InputVerdict:
    if any(p.search(message) for p in _INJECTION):
        return InputVerdict(allowed=False, reason="prompt_injection")
    if any(p.search(message) for p in _SECRET_REQUEST) and not _is_own_credentials_question(message):
        return InputVerdict(allowed=False, reason="secret_request")
    if any(luhn_valid(re.sub(r"\D", "", m.group())) for m in _CARD_CANDIDATE.finditer(message)):
        return InputVerdict(allowed=False, reason="pii_payment_card")
    if _NATIONAL_ID.search(message):
        return InputVerdict(allowed=False, reason="pii_national_id")
    if any(_iban_valid(m.group()) for m in _IBAN.finditer(message)):
        return InputVerdict(allowed=False, reason="pii_bank_account")
    return InputVerdict(allowed=True)


def check_output(text: str, cited: Collection[str], retrieved: Collection[str]) -> OutputVerdict:
    if SYSTEM_PROMPT_CANARY in text:
        return OutputVerdict(outcome="blocked", citations=(), reason="system_prompt_leak")
    if _LEAKED_KEY.search(text):
        return OutputVerdict(outcome="blocked", citations=(), reason="secret_leak")
    if any(luhn_valid(re.sub(r"\D", "", m.group())) for m in _CARD_CANDIDATE.finditer(text)):
        return OutputVerdict(outcome="blocked", citations=(), reason="pii_leak")
    kept = tuple(doc_id for doc_id in dict.fromkeys(cited) if doc_id in retrieved)
    if len(kept) != len(set(cited)):
        return OutputVerdict(outcome="citations_removed", citations=kept, reason="citation_not_retrieved")
    return OutputVerdict(outcome="passed", citations=kept)


def redact(text: str) -> str:
    """``text`` with card numbers, national ids, bank accounts and key-like strings replaced."""
    text = _CARD_CANDIDATE.sub(
        lambda m: "[REDACTED CARD]" if luhn_valid(re.sub(r"\D", "", m.group())) else m.group(), text
    )
    text = _NATIONAL_ID.sub("[REDACTED ID]", text)
    text = _IBAN.sub(lambda m: "[REDACTED ACCOUNT]" if _iban_valid(m.group()) else m.group(), text)
    return _LEAKED_KEY.sub("[REDACTED KEY]", text)


def _is_own_credentials_question(message: str) -> bool:
    """ "How do I rotate my API key?" asks for help, not for somebody's secret."""
    return bool(_MY.search(message)) and not re.search(r"\b(system|hidden|initial)\s+prompt\b", message, re.I)


def luhn_valid(digits: str) -> bool:
    if not 13 <= len(digits) <= 19:
        return False
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char) * (2 if index % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def _iban_valid(candidate: str) -> bool:
    compact = candidate.replace(" ", "")
    rearranged = compact[4:] + compact[:4]
    number = "".join(str(int(char, 36)) for char in rearranged)
    return int(number) % 97 == 1
