"""A pass of online evaluation lasts no longer than its cluster turn: another instance takes the turn once it has
lapsed and reads the same runs past the same cursor, so a pass that outlived it would have the judge paid twice for
them. The pass stops before a run that might outlast the turn, the cursor where it got; a run whose scoring alone
outlasts a whole turn is cut at its end and left unscored."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec

from agent.evaluation import OnlineScoring
from agent.evaluation.judge import JudgeVerdict
from api.online_eval import OnlineEvalSettings, OnlineEvaluator
from api.runs.log.records import GraphRun, RunRecord, StoredEvent
from contracts import RunSnapshot

START_NS = 1_800_000_000 * 10**9
INTERVAL_S = 10.0
SETTINGS = OnlineEvalSettings(scoring=OnlineScoring(rate=1.0, judge_rubric="Says where the order is."))


class FakeClock:
    def __init__(self) -> None:
        self.now_ns_ = START_NS

    def now_ns(self) -> int:
        return self.now_ns_

    def advance(self, seconds: float) -> None:
        self.now_ns_ += round(seconds * 1e9)


class Turns:
    """The cluster's turn: one holder per period, on the test's clock (as Redis's ``SET NX PX``)."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.held_until_ns = 0

    async def take_turn(self, task: str, period_s: float) -> bool:
        if self.clock.now_ns() < self.held_until_ns:
            return False
        self.held_until_ns = self.clock.now_ns() + round(period_s * 1e9)
        return True


class SlowJudge:
    """Takes ``seconds`` of the test's clock per verdict (``None``: never answers); notes which run it judged and
    whether the turn its pass holds had lapsed when it answered."""

    def __init__(self, clock: FakeClock, turns: Turns, seconds: float | None) -> None:
        self.clock = clock
        self.turns = turns
        self.seconds = seconds
        self.judged: list[str] = []
        self.after_the_turn = 0

    async def grade(self, expectation: Any, *, input: str, output: str) -> JudgeVerdict:
        if self.seconds is None:
            await asyncio.Event().wait()
        self.judged.append(input.rsplit(maxsplit=1)[-1])
        held_until = self.turns.held_until_ns
        self.clock.advance(self.seconds or 0.0)
        self.after_the_turn += self.clock.now_ns() > held_until
        await asyncio.sleep(0)
        return JudgeVerdict(score=1.0, passed=True, label="pass", explanation="fine")


class FinishedRuns:
    """A log of ``count`` completed runs of a registered graph, each asking about itself."""

    def __init__(self, count: int) -> None:
        self.run_ids = [f"r_{n}" for n in range(count)]

    async def finished_runs(self, after: tuple[str, str], before: str, limit: int) -> list[tuple[str, str]]:
        listed = [("2027-01-01T00:00:00.000000Z", run_id) for run_id in self.run_ids]
        return [entry for entry in listed if entry > after][:limit]

    async def load_run(self, run_id: str) -> RunRecord | None:
        snapshot = RunSnapshot(
            run_id=run_id,
            session_id="s",
            status="completed",
            last_seq=2,
            started_at="2027-01-01T00:00:00Z",
            updated_at="2027-01-01T00:00:00Z",
            response=None,
            pending_approval=None,
            error=None,
        )
        return RunRecord(snapshot=snapshot, graph=GraphRun(graph_id="g", assistant_id="g", modes=["values"]))

    async def read(self, run_id: str, after: int) -> tuple[list[StoredEvent], int]:
        question = {"type": "human", "content": f"Where is the order of {run_id}"}
        answer = {"type": "ai", "content": "In transit."}
        envelopes = [
            {"type": "graph_part", "data": {"mode": "values", "data": {"messages": [question]}}},
            {"type": "run_completed", "data": {"output": {"messages": [question, answer]}}},
        ]
        events = [StoredEvent(n + 1, e["type"], msgspec.json.encode(e)) for n, e in enumerate(envelopes)]
        return events, len(events)


class Scores:
    """The score store's cursor and its scored rows, in memory."""

    def __init__(self) -> None:
        self.position = ("", "")
        self.kept: dict[str, int] = {}

    async def cursor(self) -> tuple[str, str]:
        return self.position

    async def advance(self, position: tuple[str, str]) -> None:
        self.position = max(self.position, position)

    async def record(self, run_id: str, scores: Any, *, scored_by: str, scored_at: str) -> bool:
        self.kept[run_id] = self.kept.get(run_id, 0) + 1
        return self.kept[run_id] == 1

    async def purge(self, before: str) -> int:
        return 0


def instances(
    count: int, judge_s: float | None, runs: int, settings: OnlineEvalSettings = SETTINGS
) -> tuple[FakeClock, SlowJudge, Scores, list[Any]]:
    clock = FakeClock()
    turns = Turns(clock)
    judge = SlowJudge(clock, turns, judge_s)
    scores = Scores()
    log = FinishedRuns(runs)
    evaluators = [
        OnlineEvaluator(log, scores, settings, clock=clock, cluster=turns, observe=lambda score: None, judge=judge)
        for _ in range(count)
    ]
    return clock, judge, scores, evaluators


async def test_a_pass_stops_before_its_turn_lapses_so_no_run_is_judged_twice() -> None:
    clock, judge, scores, evaluators = instances(2, judge_s=4.0, runs=7)
    passes: list[int] = []

    async def loop(evaluator: OnlineEvaluator) -> None:
        """An instance's loop: it tries for the turn every half second, while the other may hold it."""
        for _ in range(80):
            passes.append(await evaluator.score_once())
            clock.advance(0.5)
            await asyncio.sleep(0)

    await asyncio.gather(*(loop(evaluator) for evaluator in evaluators))

    assert sorted(judge.judged) == [f"r_{n}" for n in range(7)], "each run judged once"
    assert judge.after_the_turn == 0, "no verdict came after its pass's turn had lapsed"
    assert scores.kept == {f"r_{n}": 1 for n in range(7)}
    assert sum(passes) == 7
    assert max(passes) < 3, "4 s a verdict: no more than two fit in a turn of 10 s"


async def test_a_run_whose_scoring_outlasts_a_whole_turn_is_cut_at_its_end_and_left_unscored() -> None:
    briefly = msgspec.structs.replace(SETTINGS, interval_s=0.05)  # the cut is in real time: the judge never answers
    _, judge, scores, (evaluator,) = instances(1, judge_s=None, runs=2, settings=briefly)

    scored = await evaluator.score_once()

    assert scored == 0
    assert judge.judged == []
    assert scores.kept == {}
    assert scores.position == ("2027-01-01T00:00:00.000000Z", "r_0"), "past the run cut, not past the next"
