"""A chat model's chunks through A2A's stream encoder, without a server: the chunks committed together go out as
one event carrying their text, seq'd by the last of them; fed one at a time, one event each; the task the same."""

from __future__ import annotations

from typing import Any

import msgspec
from a2a.types.a2a_pb2 import StreamResponse as ProtoStreamResponse
from google.protobuf.json_format import ParseDict

from api.a2a.stream import project_events
from api.a2a.task import TaskProjection
from api.runs.log.records import StoredEvent
from contracts import Envelope, GraphPart, GraphPartEvent
from tests.api.agui.test_translate import RUN, SESSION, Run

MESSAGE = "lc_run--0001"


def chunk(run: Run, content: Any, **fields: Any) -> Envelope:
    message = {"content": content, "type": "AIMessageChunk", "id": MESSAGE, "tool_call_chunks": [], **fields}
    metadata = {"langgraph_node": "model", "langgraph_step": 1, "ls_provider": "stub"}
    return run._next(GraphPartEvent, GraphPart(mode="messages", ns=[], data=[message, metadata]))


def stored(envelopes: list[Envelope]) -> list[StoredEvent]:
    return [
        StoredEvent(envelope.seq, str(envelope.__struct_config__.tag), msgspec.json.encode(envelope))
        for envelope in envelopes
    ]


def a_model_turn() -> list[Envelope]:
    run = Run()
    envelopes = [run.topology(), run.started("model"), chunk(run, "")]
    envelopes += [chunk(run, piece) for piece in ("Hel", "lo", " there")]
    call = {"name": "lookup", "args": '{"q": 1}', "id": "call-1", "index": 0, "type": "tool_call_chunk"}
    envelopes.append(chunk(run, "", tool_call_chunks=[call]))
    envelopes += [chunk(run, piece) for piece in (" and", " more")]
    envelopes += [chunk(run, "", chunk_position="last"), run.completed("model")]
    return envelopes


def texts(events: list[tuple[int, Any]]) -> list[tuple[int, str]]:
    return [
        (seq, "".join(part.text for part in made.status_update.status.message.parts if part.text is not None))
        for seq, made in events
        if made.status_update is not None
        and made.status_update.status.message is not None
        and made.status_update.status.message.parts[0].text is not None
    ]


def test_the_chunks_committed_together_are_one_event_of_their_text_seqd_by_the_last() -> None:
    envelopes = a_model_turn()
    projection = TaskProjection(task_id=RUN, context_id=SESSION)

    events = project_events(projection, stored(envelopes))

    for seq, made in events:
        assert ParseDict(msgspec.to_builtins(made), ProtoStreamResponse()).status_update.metadata["seq"] == seq
    assert [seq for seq, _ in events] == sorted(seq for seq, _ in events), "in the run's order"
    assert texts(events) == [(6, "Hello there"), (9, " and more")], "a tool call's chunk comes between"
    called = [made for _, made in events if made.status_update and "toolCall" in str(made.status_update)]
    assert called, "the call between the texts is its own event"
    assert projection.task().history[0].parts[0].text == "Hello there and more", "the message whole"


def test_chunks_fed_one_at_a_time_are_an_event_each_and_make_the_same_task() -> None:
    envelopes = a_model_turn()
    together = TaskProjection(task_id=RUN, context_id=SESSION)
    one_by_one = TaskProjection(task_id=RUN, context_id=SESSION)
    project_events(together, stored(envelopes))

    events = [made for event in stored(envelopes) for made in project_events(one_by_one, [event])]

    assert texts(events) == [(4, "Hel"), (5, "lo"), (6, " there"), (8, " and"), (9, " more")]
    assert msgspec.to_builtins(one_by_one.task()) == msgspec.to_builtins(together.task())
