"""A run's envelopes to A2A task events, without a server: what each becomes, where the task settles, and that
every event and task is A2A 1.0 as the official SDK's types read it, strictly."""

from __future__ import annotations

from typing import Any

import msgspec
from a2a.types.a2a_pb2 import StreamResponse as ProtoStreamResponse
from a2a.types.a2a_pb2 import Task as ProtoTask
from google.protobuf.json_format import ParseDict

from api.a2a.task import TaskProjection
from api.a2a.types import INPUT_REQUIRED, Message, Part, StreamResponse
from tests.api.agui.test_translate import SESSION, Run

TASK = "r_0001"


def project(projection: TaskProjection, envelopes: list[Any], *, more: bool = False) -> list[StreamResponse]:
    out = []
    for index, envelope in enumerate(envelopes):
        out += projection.project(envelope, more=more or index < len(envelopes) - 1)
    for event in out:
        ParseDict(msgspec.to_builtins(event), ProtoStreamResponse())  # strictly: an unknown field fails
    ParseDict(msgspec.to_builtins(projection.task()), ProtoTask())
    return out


def states(events: list[StreamResponse]) -> list[str]:
    return [event.status_update.status.state for event in events if event.status_update is not None]


def paused_run() -> tuple[Run, list[Any]]:
    run = Run()
    return run, [run.topology(), *run.node("intake"), run.started("human_approval"), run.paused()]


def test_steps_and_text_are_working_updates_and_the_answer_is_the_output() -> None:
    run = Run()
    envelopes = [
        run.topology(),
        run.started("answer"),
        run.token("Hello"),
        run.token(" there"),
        run.completed("answer"),
    ]
    envelopes += run.completed_turn("Hello there")
    projection = TaskProjection(task_id=TASK, context_id=SESSION)

    events = project(projection, envelopes)

    assert states(events)[:-1] == ["TASK_STATE_WORKING"] * (len(states(events)) - 1)
    assert states(events)[-1] == "TASK_STATE_COMPLETED"
    said = [
        part.text
        for event in events
        if event.status_update is not None and event.status_update.status.message is not None
        for part in event.status_update.status.message.parts
        if part.text is not None
    ]
    assert said == ["Hello", " there"]
    (artifact,) = [event.artifact_update.artifact for event in events if event.artifact_update is not None]
    assert artifact.parts[0].text == "Hello there"
    assert projection.settled
    task = projection.task()
    assert [part.text for message in task.history for part in message.parts] == ["Hello there"], "one message, whole"
    assert task.metadata == {"seq": envelopes[-1].seq}


def test_a_pause_is_input_required_after_the_steps_it_closes() -> None:
    _, envelopes = paused_run()
    projection = TaskProjection(task_id=TASK, context_id=SESSION)

    events = project(projection, envelopes)

    assert states(events)[-1] == INPUT_REQUIRED
    asked = events[-1].status_update
    assert asked is not None
    assert asked.status.message is not None
    assert asked.status.message.metadata == {"approvalId": "apv_0001", "action": "issue_refund"}
    assert projection.settled
    assert projection.task().status.state == INPUT_REQUIRED


def test_a_replay_past_a_pause_does_not_settle_and_an_answer_goes_on() -> None:
    run, envelopes = paused_run()
    replayed = TaskProjection(task_id=TASK, context_id=SESSION)
    project(replayed, envelopes, more=True)
    assert not replayed.settled

    answering = TaskProjection(task_id=TASK, context_id=SESSION)
    project(answering, envelopes)
    answering.answered(Message(message_id="m-2", role="ROLE_USER", parts=[Part(text="approve")]))
    events = project(answering, [run.topology(), run.completed("human_approval"), *run.completed_turn("Done.")])

    assert states(events)[0] == "TASK_STATE_WORKING"
    assert states(events)[-1] == "TASK_STATE_COMPLETED"
    history = answering.task().history
    assert [message.role for message in history] == ["ROLE_USER", "ROLE_AGENT"], "the answer, then the agent's"


def test_a_cancelled_run_is_a_canceled_task() -> None:
    run = Run()
    projection = TaskProjection(task_id=TASK, context_id=SESSION)

    events = project(projection, [run.topology(), run.started("answer"), run.error("cancelled", "cancelled", None)])

    assert states(events)[-1] == "TASK_STATE_CANCELED"
    assert projection.settled
