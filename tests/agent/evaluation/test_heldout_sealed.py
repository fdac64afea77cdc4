"""The sealed held-out set stays held out: none of its messages is a test input, a dev case or in the code.

A message written into a unit test, the dev split, a rule, a prompt or a benchmark is one something was
tuned against; its figure would then measure the tuning, not the agent. Compared on normalized text
(case, punctuation and spacing folded), so a copy with another capital letter or quote still counts.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from agent.evaluation.dataset import DEV_DATASET, HELDOUT_DATASET, dataset_messages, load_dataset

ROOT = Path(__file__).parents[3]
SEALED = ROOT / "agent" / "evaluation" / "datasets" / "support-sealed-heldout.jsonl"
SEARCHED = ("tests", "agent", "bench", "examples", "api", "docs")
SUFFIXES = (".py", ".json", ".jsonl", ".yaml", ".yml", ".md", ".ts", ".js", ".mjs", ".toml", ".txt")
SKIPPED = ("node_modules", "__pycache__", ".venv")


def normalized(text: str) -> str:
    return " " + " ".join(re.findall(r"\w+", text.casefold())) + " "


def sealed_messages() -> list[str]:
    """Every message the sealed set sends: each case's first, and its later ones (``then``)."""
    return dataset_messages(SEALED)


@cache
def searched_text() -> dict[Path, str]:
    """Every text file that could hold a copy: tests, code, prompts, benchmarks, docs (not the sealed file)."""
    files: dict[Path, str] = {}
    for folder in SEARCHED:
        for path in (ROOT / folder).rglob("*"):
            if path.suffix not in SUFFIXES or any(part in SKIPPED for part in path.parts) or path == SEALED:
                continue
            try:
                files[path] = normalized(path.read_text(encoding="utf-8"))
            except (UnicodeDecodeError, OSError):
                continue
    return files


def test_the_sealed_set_is_as_large_and_as_varied_as_the_old_held_out_part() -> None:
    sealed, old = load_dataset(SEALED), load_dataset(HELDOUT_DATASET)

    assert len(sealed) >= len(old)
    assert {case.category for case in sealed} == {case.category for case in old}
    reasons = {turn.refusal_reason for case in sealed for turn in case.expect.turns or ()}
    old_reasons = {turn.refusal_reason for case in old for turn in case.expect.turns or ()}
    assert reasons == old_reasons, "every reason code the old part expects, the sealed one does too"
    statuses = {turn.status for case in sealed for turn in case.expect.turns or ()}
    assert statuses == {"completed", "refused", "paused", "rejected"}


def test_no_sealed_message_is_in_the_dev_split() -> None:
    dev = {normalized(message) for message in dataset_messages(DEV_DATASET)}

    copied = [message for message in sealed_messages() if normalized(message) in dev]

    assert copied == []


@pytest.mark.parametrize("message", sealed_messages(), ids=lambda message: message[:40])
def test_no_sealed_message_is_in_a_test_the_code_or_the_docs(message: str) -> None:
    needle = normalized(message)

    found = [str(path.relative_to(ROOT)) for path, text in searched_text().items() if needle in text]

    assert found == [], f"the sealed message {message!r} is copied into {found}: write a new one"


def test_the_seal_catches_a_copy_with_other_case_and_punctuation() -> None:
    written = "Where would a lighthouse keeper file an expense claim?"
    copy = 'cases = ["where WOULD a lighthouse-keeper file an expense claim"]'

    assert normalized(written) in normalized(copy)
    assert normalized(written) not in normalized("a lighthouse keeper files claims")
