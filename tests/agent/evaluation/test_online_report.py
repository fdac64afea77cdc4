"""``harness eval online``: pass rates with intervals over a window of stored scores, and a baseline window compared
by Fisher's exact test: a significant fall is ``regressed`` (exit 1), a fall within chance is not."""

from __future__ import annotations

import asyncio
import json
import math
from typing import TYPE_CHECKING

import pytest

from agent.evaluation import OnlineScore
from agent.evaluation.online_command import parse_moment
from agent.evaluation.online_report import Window, online_report
from agent.evaluation.online_store import ONLINE_EVAL_FILE, SqliteOnlineScores
from agent.evaluation.significance import fisher_exact, unpaired_test
from agent.stores.private_files import private_sqlite_files
from api.cli import main

if TYPE_CHECKING:
    from pathlib import Path

BASELINE = Window(since="2026-12-01T00:00:00.000000Z", until="2026-12-02T00:00:00.000000Z")
WINDOW = Window(since="2026-12-02T00:00:00.000000Z", until="2026-12-03T00:00:00.000000Z")


def scores(window: Window, passed: int, failed: int, *, scorer: str = "outcome", tag: str = "") -> list[OnlineScore]:
    day = window.since[:10]
    return [
        OnlineScore(
            run_id=f"r_{day}{tag}_{n:04d}",
            assistant="support",
            scorer=scorer,
            value=1.0 if n < passed else 0.0,
            passed=n < passed,
            reason="completed" if n < passed else "provider_stream_failed",
            at=f"{day}T12:{n // 60 % 60:02d}:{n % 60:02d}.000000Z",
        )
        for n in range(passed + failed)
    ]


def test_fisher_exact_matches_the_published_two_sided_values() -> None:
    assert fisher_exact(8, 10, 2, 10) == pytest.approx(0.023014, abs=1e-6)  # R: fisher.test(matrix(c(8,2,2,8),2))
    assert fisher_exact(3, 3, 0, 3) == pytest.approx(0.1)
    assert fisher_exact(5, 10, 5, 10) == pytest.approx(1.0)


def test_a_window_gets_its_pass_rate_with_an_interval_and_a_significant_fall_is_regressed() -> None:
    report = online_report(
        WINDOW, scores(WINDOW, 50, 50), baseline=BASELINE, baseline_scores=scores(BASELINE, 90, 10), alpha=0.05
    )

    (row,) = report.rows
    assert (row.runs, row.passed, row.pass_rate.value) == (100, 50, 0.5)
    assert row.pass_rate.ci95 is not None
    assert row.pass_rate.ci95[0] < 0.5 < row.pass_rate.ci95[1]
    assert row.baseline is not None
    assert row.baseline.value == 0.9
    assert row.change is not None
    assert row.change.effect == -0.4
    assert row.change.p_value is not None
    assert row.change.p_value < 0.001
    assert row.verdict == "regressed"
    assert report.regressed


def test_a_fall_within_chance_is_not_a_regression() -> None:
    report = online_report(
        WINDOW, scores(WINDOW, 8, 2), baseline=BASELINE, baseline_scores=scores(BASELINE, 9, 1), alpha=0.05
    )

    assert [row.verdict for row in report.rows] == ["no significant change"]
    assert not report.regressed
    assert unpaired_test([], [True]).test == "none"


def test_the_changes_interval_is_each_sides_bootstrap_drawn_as_a_count_of_passes() -> None:
    """Each side's passes resampled with replacement are a binomial count: drawn as one, a large window takes no
    longer than a small one, and the interval is the bootstrap's (here, with 10,000 runs a side, the normal one)."""
    baseline, candidate = [True] * 9000 + [False] * 1000, [True] * 8800 + [False] * 1200

    change = unpaired_test(baseline, candidate)

    assert change == unpaired_test(baseline, candidate), "the same seed, the same figures"
    assert change.effect == -0.02
    half = 1.96 * math.sqrt(0.9 * 0.1 / 10_000 + 0.88 * 0.12 / 10_000)
    assert change.ci95 == pytest.approx((-0.02 - half, -0.02 + half), abs=0.0005)
    assert unpaired_test([True] * 3, [False] * 3).ci95 == (-1.0, -1.0), "no spread on a side that all passed"


def test_the_command_reads_the_stored_scores_and_exits_1_on_a_regression(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HARNESS_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("HARNESS_DATABASE_URL", raising=False)
    private_sqlite_files(tmp_path, ONLINE_EVAL_FILE)
    store = SqliteOnlineScores(tmp_path / ONLINE_EVAL_FILE)
    kept = [*scores(BASELINE, 45, 5), *scores(WINDOW, 20, 30), *scores(WINDOW, 50, 0, scorer="trajectory", tag="t")]
    for score in kept:
        assert asyncio.run(store.record(score.run_id, [score], scored_by="test", scored_at=score.at))
    store.close()
    window = ["--since", WINDOW.since, "--until", WINDOW.until]

    alone = main(["eval", "online", *window])
    text = capsys.readouterr().out
    compared = main(["eval", "online", *window, "--baseline-since", BASELINE.since, "--json"])
    report = json.loads(capsys.readouterr().out)

    assert alone == 0
    assert "support          outcome         20/50     pass rate 0.400 [" in text
    assert compared == 1
    assert {(row["scorer"], row["verdict"]) for row in report["rows"]} == {
        ("outcome", "regressed"),
        ("trajectory", "not measured"),
    }
    assert report["baseline"] == {"since": BASELINE.since, "until": WINDOW.since}


def test_moments_are_durations_before_now_or_iso_times() -> None:
    now_ns = 1_765_000_000 * 10**9

    assert parse_moment("24h", now_ns=now_ns) == parse_moment("1d", now_ns=now_ns)
    assert parse_moment("2026-12-07T14:00:00Z") == "2026-12-07T14:00:00.000000Z"
    assert parse_moment("2026-12-07T15:00:00+01:00") == "2026-12-07T14:00:00.000000Z"
    with pytest.raises(Exception, match="neither a duration"):
        parse_moment("yesterday")
