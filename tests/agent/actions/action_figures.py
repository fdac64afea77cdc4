"""Action recall and proposals nobody asked for, from a ``harness eval`` report and its dataset (ADR 42).

``python tests/agent/actions/action_figures.py DATASET.jsonl REPORT.json``. Over message turns: recall is
the share of turns that expect an action whose proposal has that name and arguments; a proposal nobody
asked for is any proposal on a turn expected to complete (a question, a negation, a look-alike, an
impossible action). Both come with a 95% Wilson interval.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path


def wilson(hits: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (math.nan, math.nan)
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (round(max(0.0, centre - half), 3), round(min(1.0, centre + half), 3))


def figures(dataset: Path, report: Path) -> dict[str, object]:
    expected = {}
    for line in dataset.read_text(encoding="utf-8").splitlines():
        if line.strip():
            case = json.loads(line)
            expected[case["id"]] = case["expect"]["turns"]
    asked = hit = quiet = proposed = 0
    for case in json.loads(report.read_text(encoding="utf-8"))["runs"][0]["cases"]:
        for turn, expect in zip(case["turns"], expected[case["id"]], strict=False):
            if turn["kind"] != "message":
                continue
            action = expect.get("action")
            if action:
                asked += 1
                got = turn.get("action")
                hit += bool(got) and got["name"] == action["name"] and got["arguments"] == action["arguments"]
            elif expect["status"] == "completed":
                quiet += 1
                proposed += bool(turn.get("action")) or turn["status"] == "paused"
    return {
        "action_recall": f"{hit}/{asked} = {hit / asked if asked else math.nan:.3f} {wilson(hit, asked)}",
        "proposed_unasked": f"{proposed}/{quiet} {wilson(proposed, quiet)}",
    }


if __name__ == "__main__":
    for name, value in figures(Path(sys.argv[1]), Path(sys.argv[2])).items():
        print(f"{name}: {value}")
