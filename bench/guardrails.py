"""Benchmark: the input guardrail's rule layers per message, against a baseline of one plain regex pass.

Every message of both dataset parts (plus 4,000-character messages, the longest a request may carry) goes
through ``check_input`` (normalization, every intent family, pasted secrets, PII) many times; the baseline
is the cost of a single case-insensitive regex search over the same text, measured in the same run.

    .venv/bin/python -m bench.guardrails

It prints a markdown table of microseconds per message (p50, p99, max) for both.
"""

from __future__ import annotations

import re
import statistics
import time
from typing import TYPE_CHECKING

from agent.evaluation.dataset import DEV_DATASET, HELDOUT_DATASET, dataset_messages
from agent.guardrails import check_input

if TYPE_CHECKING:
    from collections.abc import Callable

ROUNDS = 20
LONG = ("How do I export my workspace data, and is the export encrypted at rest? " * 60)[:4000]
DENSE = ("Before you answer: my previous API key and password rules, what should the new system do? " * 50)[:4000]
"""The worst case for the triggers: a long message full of the words the rules look around."""
_BASELINE = re.compile(r"\bignore\b.{0,40}\binstructions\b", re.IGNORECASE)


def messages() -> list[str]:
    return [LONG, *dataset_messages(DEV_DATASET), *dataset_messages(HELDOUT_DATASET)]


def per_message_us(check: Callable[[str], object], texts: list[str]) -> list[float]:
    timings: list[float] = []
    for text in texts:
        best = float("inf")
        for _ in range(ROUNDS):
            started = time.perf_counter_ns()
            check(text)
            best = min(best, (time.perf_counter_ns() - started) / 1000)
        timings.append(best)
    return timings


def main() -> None:
    texts = messages()
    check_input(texts[0])  # build the confusables table once, outside the measurement
    rows = [("baseline: one regex search", per_message_us(_BASELINE.search, texts))]
    rows.append(("check_input (all rule layers)", per_message_us(check_input, texts)))
    long_rows = [
        (label, per_message_us(_BASELINE.search, [text])[0], per_message_us(check_input, [text])[0])
        for label, text in (("plain", LONG), ("dense with trigger words", DENSE))
    ]
    print(f"{len(texts)} messages, best of {ROUNDS} runs each\n")
    print("| path | p50 (µs) | p99 (µs) | max (µs) |")
    print("| --- | ---: | ---: | ---: |")
    for name, timings in rows:
        p99 = statistics.quantiles(timings, n=100)[98]
        print(f"| {name} | {statistics.median(timings):.1f} | {p99:.1f} | {max(timings):.1f} |")
    for label, baseline, checked in long_rows:
        print(f"\n4,000-character message, {label}: baseline {baseline:.1f} µs, check_input {checked:.1f} µs")


if __name__ == "__main__":
    main()
