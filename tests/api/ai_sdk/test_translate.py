"""Contract envelopes to the AI SDK's UI message chunks, without a server: every turn shape, each response well formed.

Well formed is what the ``ai`` package's chat needs to build a message from the chunks: ``start`` first, a text
delta only inside its open text part, steps opened and finished in pairs, a tool approval only for a tool call
it saw, and one chunk that ends the response (``finish``, or ``abort``) last. The Node tests check the same
chunks with the package itself (tests/e2e/test_ai_sdk_client.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from agent import NODE_ROLES
from api.ai_sdk.stream import DONE, UIMessageStream
from api.ai_sdk.translate import UIMessageTranslator, tool_approval_id
from api.runs.log.records import StoredEvent
from api.runs.stream.frames import EnvelopeEncoder
from contracts import Citation, RunSnapshot, Snapshot, SnapshotEvent
from tests.api.agui.test_translate import APPROVAL, RUN, Run

if TYPE_CHECKING:
    from contracts import Envelope

PIPELINE = ["guardrail_pre", "retrieve_context", "generate_answer", "guardrail_post"]


def well_formed(chunks: list[dict[str, Any]], *, held: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """``held``: tool calls the client's message has already (an approval's response continues it)."""
    assert chunks[0]["type"] == "start"
    assert chunks[-1]["type"] in ("finish", "abort")
    open_text: str | None = None
    steps = 0
    tool_calls = set(held)
    for chunk in chunks[1:-1]:
        kind = chunk["type"]
        assert kind not in ("start", "finish", "abort"), f"{kind} in the middle"
        if kind == "text-start":
            assert open_text is None
            open_text = chunk["id"]
        elif kind in ("text-delta", "text-end"):
            assert chunk["id"] == open_text, f"{kind} outside its text part"
            open_text = None if kind == "text-end" else open_text
        elif kind == "start-step":
            steps += 1
        elif kind == "finish-step":
            steps -= 1
            assert steps >= 0
        elif kind == "tool-input-available":
            tool_calls.add(chunk["toolCallId"])
        elif kind in ("tool-approval-request", "tool-output-available", "tool-output-denied"):
            assert chunk["toolCallId"] in tool_calls
        elif kind.startswith("data-"):
            assert "data" in chunk
    assert open_text is None, "the text part is closed"
    assert steps == 0, "every step is finished"
    return chunks


def translate(envelopes: list[Envelope], *, deciding: str | None = None) -> list[dict[str, Any]]:
    translator = UIMessageTranslator(message_id=RUN, deciding=deciding, roles=NODE_ROLES)
    chunks = [chunk for envelope in envelopes for chunk in translator.translate(envelope)]
    assert translator.finished
    return chunks


def types(chunks: list[dict[str, Any]]) -> list[str]:
    return [chunk["type"] for chunk in chunks]


def texts(chunks: list[dict[str, Any]]) -> str:
    return "".join(chunk["delta"] for chunk in chunks if chunk["type"] == "text-delta")


def answered(run: Run, words: list[str]) -> list[Envelope]:
    envelopes = [run.topology(), *run.node("guardrail_pre"), *run.node("retrieve_context")]
    envelopes += [run.started("generate_answer"), run.token("", '{"kind":'), *(run.token(word) for word in words)]
    envelopes += [run.cost(), run.completed("generate_answer"), *run.node("guardrail_post")]
    return envelopes


def test_a_turn_is_one_message_of_steps_streamed_text_sources_and_finish() -> None:
    run = Run()
    envelopes = answered(run, ["Open ", "Settings."])
    *logged, completed = run.completed_turn("Open Settings.")
    citation = Citation(doc_id="kb-password-reset", title="Reset your password", snippet="Open Settings.")
    response = msgspec.structs.replace(completed.data.response, citations=[citation])  # type: ignore[union-attr]
    completed = msgspec.structs.replace(completed, data=msgspec.structs.replace(completed.data, response=response))
    chunks = well_formed(translate([*envelopes, *logged, completed]))

    assert chunks[0] == {"type": "start", "messageId": RUN, "messageMetadata": {"runId": RUN}}
    assert types(chunks).count("start-step") == len(PIPELINE)
    assert texts(chunks) == "Open Settings.", "the visible text, each delta once; the raw JSON is left out"
    assert types(chunks).count("text-start") == 1
    (source,) = [chunk for chunk in chunks if chunk["type"] == "source-document"]
    assert source == {
        "type": "source-document",
        "sourceId": "kb-password-reset",
        "mediaType": "text/markdown",
        "title": "Reset your password",
        "providerMetadata": {"harness": {"snippet": "Open Settings."}},
    }
    assert chunks[-1]["finishReason"] == "stop"
    assert chunks[-1]["messageMetadata"]["status"] == "completed"
    nodes = [chunk for chunk in chunks if chunk["type"] == "data-node"]
    assert all(chunk["transient"] for chunk in nodes)
    assert [chunk["data"]["node"] for chunk in nodes if chunk["data"]["state"] == "started"] == PIPELINE
    (topology,) = [chunk for chunk in chunks if chunk["type"] == "data-topology"]
    assert topology["transient"] is True
    (cost,) = [chunk for chunk in chunks if chunk["type"] == "data-cost"]
    assert cost["id"] == "cost", "one cost part per message, updated in place"
    assert "transient" not in cost


def test_a_refusal_is_its_text_and_finishes_as_filtered() -> None:
    run = Run()
    envelopes = [run.topology(), *run.node("guardrail_pre", "refused"), *run.completed_turn("I can't.", "refused")]
    chunks = well_formed(translate(envelopes))

    assert texts(chunks) == "I can't."
    assert chunks[-1]["finishReason"] == "content-filter"


def test_a_pause_is_a_tool_call_awaiting_approval_and_ends_the_response() -> None:
    run = Run()
    envelopes = [*answered(run, ["I can refund it."])[:-2], run.started("human_approval"), run.paused()]
    chunks = well_formed(translate(envelopes))

    call, request = [chunk for chunk in chunks if chunk["type"].startswith("tool-")]
    assert call == {
        "type": "tool-input-available",
        "toolCallId": APPROVAL.approval_id,
        "toolName": "issue_refund",
        "input": {"summary": APPROVAL.summary},
        "title": APPROVAL.summary,
    }
    assert request["approvalId"] == tool_approval_id(RUN, APPROVAL.approval_id) == f"{RUN}:{APPROVAL.approval_id}"
    last_step = types(chunks)[len(types(chunks)) - 1 - types(chunks)[::-1].index("start-step") :]
    assert "tool-approval-request" in last_step, "the approval is in the last step, where the chat looks for it"
    assert chunks[-1]["finishReason"] == "tool-calls", "not `interrupted`, which stops the chat's automatic send"


def decided(outcome: str) -> tuple[list[Envelope], list[Envelope]]:
    """A paused run, then the events of its resumption (from the seq after the pause)."""
    run = Run()
    paused = [*answered(run, ["I can refund it."])[:-2], run.started("human_approval"), run.paused()]
    resumed = [run.topology(), *run.node("human_approval", outcome)]
    if outcome == "approved":
        resumed += run.node("execute_action", "done")
    resumed += [*run.node("guardrail_post"), *run.completed_turn("Refunded.", kind="action_result")]
    return paused, resumed


def test_an_approval_continues_the_message_with_the_tool_output_and_the_result() -> None:
    _, resumed = decided("approved")
    deciding = tool_approval_id(RUN, APPROVAL.approval_id)
    chunks = well_formed(translate(resumed, deciding=deciding), held=(APPROVAL.approval_id,))

    assert chunks[0]["messageId"] == RUN, "the same message the client holds"
    kinds = types(chunks)
    assert kinds.index("tool-approval-response") < kinds.index("tool-output-available")
    (output,) = [chunk for chunk in chunks if chunk["type"] == "tool-output-available"]
    assert output["toolCallId"] == APPROVAL.approval_id
    assert output["output"] == {"outcome": "done", "summary": "done"}
    assert texts(chunks) == "Refunded."
    assert chunks[-1]["finishReason"] == "stop"


def test_a_rejection_is_a_denied_tool_output() -> None:
    _, resumed = decided("rejected")
    chunks = translate(resumed, deciding=tool_approval_id(RUN, APPROVAL.approval_id))

    (response,) = [chunk for chunk in chunks if chunk["type"] == "tool-approval-response"]
    assert response["approved"] is False
    assert "tool-output-denied" in types(chunks)
    assert "tool-output-available" not in types(chunks)


def test_a_replay_of_a_decided_run_goes_past_its_pause_as_one_message() -> None:
    paused, resumed = decided("approved")
    events = stored([*paused, *resumed])
    stream = UIMessageStream(UIMessageTranslator(message_id=RUN, roles=NODE_ROLES))
    body = stream.encode(events[: len(paused) + 3])  # the pause and the first events after it, in one read

    assert not stream.finished(events), "a pause the run went past ends nothing"
    chunks = [msgspec.json.decode(line[6:]) for line in body.split(b"\n") if line.startswith(b"data: ")]
    assert types(chunks).count("start") == 1
    assert "tool-approval-request" in types(chunks)
    assert "tool-approval-response" in types(chunks)
    assert "finish" not in types(chunks)


def stored(envelopes: list[Envelope]) -> list[StoredEvent]:
    """The envelopes as the log keeps them."""
    encoder = EnvelopeEncoder()
    return [StoredEvent(e.seq, *encoder.encode(e.data, e.run_id, e.seq, e.status, e.at)) for e in envelopes]


def test_a_stream_ends_with_done_after_its_last_chunk() -> None:
    run = Run()
    envelopes = [run.topology(), *run.node("guardrail_pre", "refused"), *run.completed_turn("No.", "refused")]
    events = stored(envelopes)
    stream = UIMessageStream(UIMessageTranslator(message_id=RUN))
    body = stream.encode(events)

    *frames, done, rest = body.split(b"\n\n")
    assert rest == b""
    assert done + b"\n\n" == DONE
    assert msgspec.json.decode(frames[-1].removeprefix(b"data: "))["type"] == "finish"
    assert all(frame.startswith(b"data: {") for frame in frames)
    assert stream.finished(events)


def test_a_failure_is_an_error_then_finish() -> None:
    run = Run()
    envelopes = [run.topology(), run.started("generate_answer"), run.token("Open"), run.error("x", "failed", "g")]
    chunks = well_formed(translate(envelopes))

    assert types(chunks)[-2:] == ["error", "finish"]
    assert chunks[-2]["errorText"] == "x happened"
    assert chunks[-1]["finishReason"] == "error"


def test_a_cancelled_run_is_an_abort() -> None:
    run = Run()
    envelopes = [
        run.topology(),
        run.started("generate_answer"),
        run.token("Open"),
        run.error("cancelled", "cancelled", None),
    ]
    chunks = well_formed(translate(envelopes))

    assert chunks[-1] == {"type": "abort", "reason": "cancelled: cancelled happened"}
    assert "text-end" in types(chunks)


def test_a_replay_gap_is_a_transient_snapshot_part() -> None:
    run = Run()
    topology = run.topology()
    state = RunSnapshot(
        run_id=RUN,
        session_id="s_0001",
        status="running",
        last_seq=9,
        started_at=topology.at,
        updated_at=topology.at,
        response=None,
        pending_approval=None,
        error=None,
    )
    gap = run._next(SnapshotEvent, Snapshot(gap=True, run=state))
    translator = UIMessageTranslator(message_id=RUN)
    translator.translate(topology)
    (chunk,) = translator.translate(gap)

    assert chunk == {"type": "data-snapshot", "data": msgspec.to_builtins(gap.data), "transient": True}
    assert not translator.finished
