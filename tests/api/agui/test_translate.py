"""Contract envelopes to AG-UI events, without a server: every turn shape, and conformance of each result."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from ag_ui.core import EventType
from ag_ui_validate.pytest_plugin import assert_valid_agui

from api.agui.translate import AgUiTranslator, interrupt_id
from contracts import (
    Answer,
    ChatResponse,
    CostUpdated,
    CostUpdatedEvent,
    Envelope,
    ErrorEvent,
    ErrorInfo,
    GraphTopology,
    GraphTopologyEvent,
    InteractionLogged,
    InteractionLoggedEvent,
    NodeCompleted,
    NodeCompletedEvent,
    NodeStarted,
    NodeStartedEvent,
    Paused,
    PausedEvent,
    PendingApproval,
    RunStatus,
    TokenDelta,
    TokenDeltaEvent,
    TurnCompleted,
    TurnCompletedEvent,
    Usage,
)

RUN = "r_0001"
SESSION = "s_0001"
APPROVAL = PendingApproval(approval_id="apv_0001", action="issue_refund", summary="Refund invoice INV-1001 ($42.00)")


class Run:
    """Builds one harness run's envelopes, seq by seq, as the registry would."""

    def __init__(self, first_seq: int = 1) -> None:
        self.seq = first_seq - 1
        self.step = 0

    def _next(self, cls: type[Any], data: Any, status: RunStatus = "running", **extra: Any) -> Envelope:
        self.seq += 1
        at = f"2026-11-30T04:12:{self.seq:02d}.000000Z"
        envelope: Envelope = cls(1, RUN, self.seq, status, at, data, **extra)
        return envelope

    def topology(self) -> Envelope:
        return self._next(GraphTopologyEvent, GraphTopology(session_id=SESSION, nodes=[], edges=[]))

    def node(self, name: str, outcome: str = "ok") -> list[Envelope]:
        self.step += 1
        step = self.step
        return [
            self._next(NodeStartedEvent, NodeStarted(node=name, step=step)),
            self._next(
                NodeCompletedEvent,
                NodeCompleted(node=name, step=step, latency_ms=1.5, outcome=outcome, summary=outcome),
            ),
        ]

    def started(self, name: str) -> Envelope:
        self.step += 1
        return self._next(NodeStartedEvent, NodeStarted(node=name, step=self.step))

    def completed(self, name: str) -> Envelope:
        return self._next(
            NodeCompletedEvent,
            NodeCompleted(node=name, step=self.step, latency_ms=2.0, outcome="answered", summary="ok"),
        )

    def token(self, text: str, delta: str | None = None) -> Envelope:
        data = TokenDelta(
            delta=text if delta is None else delta,
            text=text,
            finish_reason=None,
            input_tokens=0,
            output_tokens=0,
            latency_ms=1.0,
            model="stub-1",
            metadata={},
        )
        return self._next(TokenDeltaEvent, data)

    def cost(self) -> Envelope:
        return self._next(
            CostUpdatedEvent, CostUpdated(model="stub-1", input_tokens=500, output_tokens=40, cost_usd=0.0)
        )

    def paused(self) -> Envelope:
        return self._next(PausedEvent, Paused(approval=APPROVAL), status="waiting")

    def completed_turn(
        self, text: str, status: str = "completed", kind: str = "answer", **extra: Any
    ) -> list[Envelope]:
        response = ChatResponse(
            session_id=SESSION,
            run_id=RUN,
            status=status,  # type: ignore[arg-type]
            answer=Answer(kind=kind, text=text),  # type: ignore[arg-type]
            citations=[],
            pending_approval=None,
            trace=[],
            usage=Usage(model="stub-1", input_tokens=500, output_tokens=40, cost_usd=0.0),
        )
        return [
            self._next(InteractionLoggedEvent, InteractionLogged(interaction_id="int_0001")),
            self._next(TurnCompletedEvent, TurnCompleted(response=response), status="completed", **extra),
        ]

    def error(self, code: str, status: RunStatus, node: str | None) -> Envelope:
        info = ErrorInfo(code=code, message=f"{code} happened", retryable=False, node=node)
        return self._next(ErrorEvent, info, status=status)


def translate(envelopes: list[Envelope], run_id: str = "agui-1") -> list[dict[str, Any]]:
    translator = AgUiTranslator(thread_id=SESSION, run_id=run_id)
    events = [event for envelope in envelopes for event in translator.translate(envelope)]
    assert translator.finished
    wire = [msgspec.json.decode(event.model_dump_json(by_alias=True)) for event in events]
    assert_valid_agui(wire, max_warnings=0)
    return wire


def types(events: list[dict[str, Any]]) -> list[str]:
    return [event["type"] for event in events]


def normal_turn() -> list[Envelope]:
    run = Run()
    return [
        run.topology(),
        *run.node("guardrail_pre", "allowed"),
        *run.node("retrieve_context", "retrieved"),
        run.started("generate_answer"),
        run.token("Reset it", delta='{"kind":"answer","text":"Reset it'),
        run.token("", delta='"}'),
        run.token(" today."),
        run.cost(),
        run.completed("generate_answer"),
        *run.node("guardrail_post", "passed"),
        *run.completed_turn("Reset it today."),
    ]


def test_a_normal_turn_is_steps_a_streamed_message_custom_events_and_success() -> None:
    events = translate(normal_turn())

    assert types(events) == [
        "RUN_STARTED",
        "CUSTOM",
        *["STEP_STARTED", "STEP_FINISHED"] * 2,
        "STEP_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_CONTENT",
        "CUSTOM",
        "TEXT_MESSAGE_END",
        "STEP_FINISHED",
        "STEP_STARTED",
        "STEP_FINISHED",
        "CUSTOM",
        "RUN_FINISHED",
    ]
    started, finished = events[0], events[-1]
    assert started["threadId"] == finished["threadId"] == SESSION
    assert started["runId"] == finished["runId"] == "agui-1", "the client's runId, echoed"
    assert started["protocolVersion"] == "1.0"
    assert started["metadata"] == {"harness_run_id": RUN}
    assert [e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT"] == ["Reset it", " today."]
    assert [e["name"] for e in events if e["type"] == "CUSTOM"] == [
        "harness.graph_topology",
        "harness.cost_updated",
        "harness.interaction_logged",
    ]
    assert finished["outcome"] == {"type": "success"}
    assert finished["result"]["answer"] == {"kind": "answer", "text": "Reset it today."}
    assert finished["usage"] == [{"model": "stub-1", "inputTokens": 500, "outputTokens": 40, "totalTokens": 540}]
    answer_step = next(e for e in events if e["type"] == "STEP_FINISHED" and e["stepName"] == "generate_answer")
    assert answer_step["metadata"] == {"step": 3, "latency_ms": 2.0, "outcome": "answered", "summary": "ok"}


def test_timestamps_are_the_envelopes_in_milliseconds() -> None:
    events = translate(normal_turn())
    assert events[0]["timestamp"] == 1796011921000  # 2026-11-30T04:12:01Z
    assert all(isinstance(event["timestamp"], int) for event in events)


def test_a_refusal_is_a_text_message_from_the_response_and_success() -> None:
    run = Run()
    events = translate(
        [run.topology(), *run.node("guardrail_pre", "refused"), *run.completed_turn("I can't.", "refused", "refusal")]
    )

    assert types(events)[-4:] == ["TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED"]
    assert [e["stepName"] for e in events if e["type"] == "STEP_STARTED"] == ["guardrail_pre"]
    assert next(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT") == "I can't."
    assert events[-1]["result"]["status"] == "refused"
    assert "usage" not in events[-1], "no model call, no usage (never a made-up zero)"


def paused_turn() -> tuple[Run, list[Envelope]]:
    run = Run()
    return run, [
        run.topology(),
        *run.node("guardrail_pre"),
        *run.node("retrieve_context"),
        run.started("generate_answer"),
        run.token("I can refund it."),
        run.cost(),
        run.completed("generate_answer"),
        run.started("human_approval"),
        run.paused(),
    ]


def test_a_pause_closes_what_it_opened_and_ends_with_an_approval_interrupt() -> None:
    _, envelopes = paused_turn()
    events = translate(envelopes)

    assert types(events)[-3:] == ["STEP_STARTED", "STEP_FINISHED", "RUN_FINISHED"]
    assert events[-2]["stepName"] == "human_approval"
    outcome = events[-1]["outcome"]
    assert outcome["type"] == "interrupt"
    (interrupt,) = outcome["interrupts"]
    assert interrupt["id"] == interrupt_id(RUN, "apv_0001") == "r_0001:apv_0001"
    assert interrupt["reason"] == "human_approval"
    assert interrupt["message"] == "Refund invoice INV-1001 ($42.00)"
    assert interrupt["metadata"] == {
        "action": "issue_refund",
        "summary": "Refund invoice INV-1001 ($42.00)",
        "approval_id": "apv_0001",
        "harness_run_id": RUN,
    }
    assert interrupt["responseSchema"]["properties"]["decision"] == {"enum": ["approve", "reject"]}
    assert interrupt["responseSchema"]["required"] == ["decision"]
    assert "result" not in events[-1]


def test_the_resumed_run_streams_the_rest_and_says_the_action_result() -> None:
    run, _ = paused_turn()
    resumed = [
        run.topology(),
        *run.node("human_approval", "approved"),
        *run.node("execute_action", "done"),
        *run.node("guardrail_post", "passed"),
        *run.completed_turn("Refund issued.", "completed", "action_result", human_wait_ms=1234.5),
    ]
    events = translate(resumed, run_id="agui-2")

    assert [e["stepName"] for e in events if e["type"] == "STEP_STARTED"] == [
        "human_approval",
        "execute_action",
        "guardrail_post",
    ]
    assert next(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT") == "Refund issued."
    message_ids = {e["messageId"] for e in events if e["type"].startswith("TEXT_MESSAGE")}
    assert message_ids == {f"{RUN}-{resumed[-1].seq}"}
    assert events[-1]["outcome"] == {"type": "success"}
    assert events[-1]["metadata"] == {"human_wait_ms": 1234.5}
    assert "usage" not in events[-1], "a resumed run reports only its own model calls: none"


def test_a_cancelled_run_closes_its_step_and_message_and_finishes_cancelled() -> None:
    run = Run()
    events = translate(
        [
            run.topology(),
            *run.node("guardrail_pre"),
            run.started("generate_answer"),
            run.token("Half an"),
            run.error("cancelled", "cancelled", "generate_answer"),
        ]
    )

    assert types(events)[-4:] == ["TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "STEP_FINISHED", "RUN_FINISHED"]
    assert events[-1]["outcome"] == {"type": "cancelled"}
    assert "result" not in events[-1]


@pytest.mark.parametrize(("code", "status"), [("provider_stream_failed", "failed"), ("server_shutdown", "failed")])
def test_a_failure_is_run_error_with_the_contract_code(code: str, status: RunStatus) -> None:
    run = Run()
    events = translate(
        [
            run.topology(),
            run.started("generate_answer"),
            run.token("Half"),
            run.cost(),
            run.error(code, status, "generate_answer"),
        ]
    )

    assert events[-1] == {
        "type": "RUN_ERROR",
        "timestamp": events[-1]["timestamp"],
        "message": f"{code} happened",
        "code": code,
        "usage": [{"model": "stub-1", "inputTokens": 500, "outputTokens": 40, "totalTokens": 540}],
    }
    assert "RUN_FINISHED" not in types(events)


def test_a_client_that_left_is_a_cancelled_run_not_a_failure() -> None:
    run = Run()
    events = translate(
        [
            run.topology(),
            run.started("generate_answer"),
            run.error("client_disconnected", "cancelled", "generate_answer"),
        ]
    )
    assert events[-1]["type"] == EventType.RUN_FINISHED
    assert events[-1]["outcome"] == {"type": "cancelled"}


def test_a_blocked_answer_is_restated_as_a_new_message() -> None:
    """The output guardrail can replace what was streamed; AG-UI cannot retract text, so the final says it."""
    run = Run()
    events = translate(
        [
            run.topology(),
            run.started("generate_answer"),
            run.token("sk-live-123"),
            run.completed("generate_answer"),
            *run.node("guardrail_post", "blocked"),
            *run.completed_turn("I can't share that answer.", "refused", "refusal"),
        ]
    )
    assert [e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT"] == [
        "sk-live-123",
        "I can't share that answer.",
    ]
    assert len({e["messageId"] for e in events if e["type"] == "TEXT_MESSAGE_START"}) == 2


def test_nothing_is_translated_after_the_run_ended() -> None:
    _, envelopes = paused_turn()
    translator = AgUiTranslator(thread_id=SESSION, run_id="agui-1")
    for envelope in envelopes:
        translator.translate(envelope)
    late = Run(first_seq=envelopes[-1].seq + 1).topology()
    assert translator.finished
    assert translator.translate(late) == []
