"""A smaller part of a dataset, chosen by rule rather than by hand: the first N cases of each category.

The local model answers one request at a time on two shared cores (about two seconds a turn when the
machine is quiet), so ``make test`` gates it on a part of the sealed held-out set rather than all of it.
The first N of each category in file order keeps every category and every expected status in the part,
and the choice does not depend on any result.

``python -m agent.evaluation.subset --per-category 3 IN.jsonl OUT.jsonl``
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import msgspec

from agent.evaluation.dataset import DatasetError, load_dataset

__all__ = ("first_per_category", "main")


def first_per_category(lines: list[str], per_category: int) -> list[str]:
    """The lines of the first ``per_category`` cases of each category, in their original order."""
    taken: dict[str, int] = {}
    chosen: list[str] = []
    for line in lines:
        if not line.strip():
            continue
        category = msgspec.json.decode(line, type=_Category).category
        if taken.get(category, 0) < per_category:
            taken[category] = taken.get(category, 0) + 1
            chosen.append(line)
    return chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agent.evaluation.subset", description=__doc__)
    parser.add_argument("--per-category", type=int, required=True)
    parser.add_argument("source", type=Path)
    parser.add_argument("target", type=Path)
    args = parser.parse_args(argv)
    try:
        load_dataset(args.source)
    except DatasetError as exc:
        print(exc, file=sys.stderr)
        return 2
    lines = args.source.read_text(encoding="utf-8").splitlines()
    args.target.parent.mkdir(parents=True, exist_ok=True)
    args.target.write_text("".join(f"{line}\n" for line in first_per_category(lines, args.per_category)), "utf-8")
    return 0


class _Category(msgspec.Struct):
    category: str


if __name__ == "__main__":
    sys.exit(main())
