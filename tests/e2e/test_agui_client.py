"""The official AG-UI TypeScript client (``@ag-ui/client``'s HttpAgent, run by Node) against a real uvicorn.

The client verifies the stream itself (event order, open and closed messages and steps, the schema of
every event) and fails the run on any violation; these tests then check what it made of each turn shape.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from tests.support.node import run_node

if TYPE_CHECKING:
    from collections.abc import Callable

    from api.settings import Settings
    from tests.e2e.conftest import LiveServer

CLIENT = Path(__file__).parent / "agui-client"
PIPELINE = ["guardrail_pre", "retrieve_context", "generate_answer", "guardrail_post"]


@pytest.fixture
def drive(serve: Callable[..., LiveServer], settings: Settings) -> Callable[[str], dict[str, Any]]:
    server = serve(settings)

    def run(scenario: str) -> dict[str, Any]:
        result = run_node(CLIENT, "drive.mjs", server.url, scenario, f"s_ts_{scenario}")
        report: dict[str, Any] = json.loads(result.stdout)
        assert report["warnings"] == [], "the client warns about nothing it received"
        report["url"] = server.url
        return report

    return run


def test_a_question_is_steps_a_streamed_answer_and_a_completed_result(drive: Callable[[str], dict[str, Any]]) -> None:
    report = drive("question")
    (run,) = report["runs"]

    assert run["runId"] == "question-1"
    assert run["types"][0] == "RUN_STARTED"
    assert run["types"][-1] == "RUN_FINISHED"
    assert run["types"].count("TEXT_MESSAGE_CONTENT") > 3, "the answer streams token by token"
    assert run["steps"] == PIPELINE
    assert run["custom"] == ["harness.graph_topology", "harness.cost_updated", "harness.interaction_logged"]
    assert run["outcome"]["kind"] == "success"
    assert run["result"]["status"] == "completed"
    assert run["result"]["citations"], "the answer cites the knowledge base"
    user, assistant = report["messages"]
    assert user["content"] == "How do I reset my password?"
    assert assistant["role"] == "assistant"
    assert assistant["content"] == run["result"]["answer"]["text"]


def test_a_refusal_is_a_message_and_retrieval_never_starts(drive: Callable[[str], dict[str, Any]]) -> None:
    report = drive("refusal")
    (run,) = report["runs"]

    assert run["steps"] == ["guardrail_pre"]
    assert run["outcome"]["kind"] == "success"
    assert run["result"]["status"] == "refused"
    assert report["messages"][-1]["content"] == run["result"]["answer"]["text"]


@pytest.mark.parametrize(
    ("decision", "status", "after"), [("approve", "completed", "execute_action"), ("reject", "rejected", None)]
)
def test_a_pause_is_an_interrupt_and_its_decision_a_second_run(
    drive: Callable[[str], dict[str, Any]], decision: str, status: str, after: str | None
) -> None:
    report = drive(decision)
    paused, decided = report["runs"]

    assert paused["outcome"]["kind"] == "interrupt"
    (interrupt,) = paused["outcome"]["interrupts"]
    assert interrupt["reason"] == "human_approval"
    assert interrupt["message"] == "Refund invoice INV-1001 ($42.00)"
    assert interrupt["metadata"]["action"] == "issue_refund"
    assert paused["steps"] == [*PIPELINE[:3], "human_approval"]
    assert paused["pendingInterrupts"] == [interrupt]

    assert decided["runId"] == f"{decision}-2"
    assert decided["harnessRunId"] == paused["harnessRunId"], "the decision continues the same run"
    assert decided["steps"] == ["human_approval", *([after] if after else []), "guardrail_post"]
    assert decided["outcome"]["kind"] == "success"
    assert decided["result"]["status"] == status
    assert decided["pendingInterrupts"] == []
    assert [m["role"] for m in report["messages"]] == ["user", "assistant", "assistant"]
    assert report["messages"][-1]["content"] == decided["result"]["answer"]["text"]
    snapshot = httpx.get(f"{report['url']}/runs/{paused['harnessRunId']}").json()
    assert snapshot["status"] == "completed"
    assert snapshot["response"] == decided["result"]
