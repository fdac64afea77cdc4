"""Runs through langgraph-sdk: streamed token by token, paused at an interrupt, resumed in the same run by a
``Command``, namespaced for a subgraph, waited for without a thread."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from tests.e2e.agent_protocol.turns import REFUND, REFUND_APPROVAL, REPORT, TOPIC, collect, data_of

if TYPE_CHECKING:
    from langgraph_sdk.client import LangGraphClient
    from langgraph_sdk.schema import StreamPart

MODES: Any = ["values", "updates", "messages-tuple"]


def said(parts: list[StreamPart]) -> list[str]:
    """The texts the model streamed (the ``agent`` node's ``messages``), one per message, its chunks joined."""
    texts: dict[str, str] = {}
    for chunk, metadata in data_of(parts, "messages"):
        if metadata["langgraph_node"] == "agent":
            texts[chunk["id"]] = texts.get(chunk["id"], "") + chunk["content"]
    return list(texts.values())


def ids(parts: list[StreamPart]) -> list[int]:
    return [int(part.id) for part in parts if part.id is not None]


async def paused_refund(sdk: LangGraphClient) -> tuple[str, list[StreamPart]]:
    thread = await sdk.threads.create()
    parts = await collect(sdk.runs.stream(thread["thread_id"], "react_agent", input=REFUND, stream_mode=MODES))
    return thread["thread_id"], parts


async def test_a_run_streams_its_tokens_and_stops_at_the_interrupt(sdk: LangGraphClient) -> None:
    thread_id, parts = await paused_refund(sdk)

    metadata, end = parts[0], parts[-1]
    assert metadata.event == "metadata"
    run_id = metadata.data["run_id"]
    assert run_id.startswith("r_")
    assert metadata.data["thread_id"] == thread_id
    assert (end.event, end.data) == ("end", {"run_id": run_id, "status": "interrupted"})
    assert said(parts) == ["Let me look up order A-1001.", "I will ask for the refund of order A-1001."]
    assert len(data_of(parts, "messages")) > 10, "the answers stream word by word"
    updates = data_of(parts, "updates")
    assert [next(iter(update)) for update in updates] == ["agent", "tools", "agent", "__interrupt__"]
    (interrupt,) = updates[-1]["__interrupt__"]
    assert interrupt["value"] == REFUND_APPROVAL
    values = data_of(parts, "values")
    assert values[0]["messages"][0]["content"] == "Please refund order A-1001."
    assert ids(parts) == sorted(set(ids(parts))), "every part's id is its own, in order"


async def test_the_interrupted_thread_shows_its_interrupt(sdk: LangGraphClient) -> None:
    thread_id, _ = await paused_refund(sdk)

    thread = await sdk.threads.get(thread_id)
    state = await sdk.threads.get_state(thread_id)
    (run,) = await sdk.runs.list(thread_id)

    assert thread["status"] == "interrupted"
    (interrupt,) = thread["interrupts"][""]
    assert interrupt["value"] == REFUND_APPROVAL
    assert thread["metadata"]["graph_id"] == "react_agent"
    assert state["next"] == ["tools"]
    assert [task["interrupts"] for task in state["tasks"]] == [[interrupt]]
    assert state["interrupts"] == [interrupt]
    assert [message["type"] for message in state["values"]["messages"]] == ["human", "ai", "tool", "ai"]
    assert run["status"] == "interrupted"
    assert run["assistant_id"] == (await sdk.assistants.get("react_agent"))["assistant_id"]


@pytest.mark.parametrize(
    ("decision", "result"),
    [
        ({"decision": "approve"}, "Refunded 42.00 EUR for order A-1001."),
        ({"decision": "reject", "comment": "not eligible"}, "The refund of order A-1001 was rejected: not eligible"),
    ],
)
async def test_a_command_resumes_the_same_run_to_the_tools_result(
    sdk: LangGraphClient, decision: dict[str, str], result: str
) -> None:
    thread_id, paused = await paused_refund(sdk)
    run_id = paused[0].data["run_id"]

    resumed = await collect(sdk.runs.stream(thread_id, "react_agent", command={"resume": decision}, stream_mode=MODES))

    assert resumed[0].event == "metadata"
    assert resumed[0].data["run_id"] == run_id, "the resume continues the paused run"
    assert (resumed[-1].event, resumed[-1].data) == ("end", {"run_id": run_id, "status": "success"})
    assert min(ids(resumed)) > max(ids(paused)), "the run's events go on from where it paused"
    assert [next(iter(update)) for update in data_of(resumed, "updates")] == ["tools", "agent"]
    *_, tool, answer = data_of(resumed, "values")[-1]["messages"]
    assert (tool["type"], tool["name"], tool["content"]) == ("tool", "issue_refund", result)
    assert (answer["type"], answer["content"]) == ("ai", result)
    assert said(resumed) == [result]
    (run,) = await sdk.runs.list(thread_id)
    assert (run["run_id"], run["status"]) == (run_id, "success")
    thread = await sdk.threads.get(thread_id)
    assert (thread["status"], thread["interrupts"]) == ("idle", {})
    assert thread["values"]["messages"][-1]["content"] == result


async def test_a_subgraphs_parts_come_namespaced_with_its_custom_writes(sdk: LangGraphClient) -> None:
    thread = await sdk.threads.create()

    parts = await collect(
        sdk.runs.stream(
            thread["thread_id"], "research", input=TOPIC, stream_mode=["updates", "custom"], stream_subgraphs=True
        )
    )

    assert parts[-1].event == "end"
    assert parts[-1].data["status"] == "success"
    root = [next(iter(update)) for update in data_of(parts, "updates")]
    assert root == ["planner", "research_step", "planner", "research_step", "planner", "write_report"]
    inner = [part for part in parts if "|" in part.event]
    namespaces = {part.event.split("|", 1)[1] for part in inner}
    assert len(namespaces) == 2, "one namespace per visit of the subgraph"
    assert all(namespace.startswith("research_step:") for namespace in namespaces)
    inner_updates = [next(iter(part.data)) for part in inner if part.event.startswith("updates|")]
    assert inner_updates == ["search", "summarize", "search", "summarize"]
    customs = [part.data for part in inner if part.event.startswith("custom|")]
    assert customs == [{"searching": "clouds"}, {"searching": "rain"}]
    state = await sdk.threads.get_state(thread["thread_id"])
    assert state["values"]["report"] == REPORT


async def test_without_subgraphs_only_the_root_graphs_parts_come(sdk: LangGraphClient) -> None:
    parts = await collect(sdk.runs.stream(None, "research", input=TOPIC, stream_mode=["updates", "custom"]))

    assert [part.event for part in parts if "|" in part.event] == []
    assert data_of(parts, "custom") == [], "the custom writes are the subgraph's"
    assert data_of(parts, "updates")[-1] == {"write_report": {"report": REPORT}}


async def test_a_join_sends_a_subgraphs_parts_only_when_the_run_asked_for_them(sdk: LangGraphClient) -> None:
    thread = await sdk.threads.create()
    modes: Any = ["updates", "custom"]
    parts = await collect(sdk.runs.stream(thread["thread_id"], "research", input=TOPIC, stream_mode=modes))
    run_id = parts[0].data["run_id"]

    joined = await collect(sdk.runs.join_stream(thread["thread_id"], run_id, last_event_id="-1"))

    assert [part.event for part in joined if "|" in part.event] == []
    assert [(part.event, part.data) for part in joined] == [(part.event, part.data) for part in parts]


async def test_a_stateless_wait_answers_the_final_values(sdk: LangGraphClient) -> None:
    values = await sdk.runs.wait(None, "research", input=TOPIC)

    assert isinstance(values, dict)
    assert values["report"] == REPORT
    assert values["plan"] == ["clouds", "rain"]
    assert values["topic"] == TOPIC["topic"]


async def test_a_wait_that_stops_at_the_interrupt_answers_it(sdk: LangGraphClient) -> None:
    thread = await sdk.threads.create()

    values = await sdk.runs.wait(thread["thread_id"], "react_agent", input=REFUND)
    decided = await sdk.runs.wait(thread["thread_id"], "react_agent", command={"resume": {"decision": "approve"}})

    assert isinstance(values, dict)
    assert isinstance(decided, dict)
    (interrupt,) = values["__interrupt__"]
    assert interrupt["value"] == REFUND_APPROVAL
    assert decided["messages"][-1]["content"] == "Refunded 42.00 EUR for order A-1001."
    assert "__interrupt__" not in decided


async def test_stream_mode_events_sends_langchains_callback_events_beside_the_other_modes(
    sdk: LangGraphClient,
) -> None:
    thread = await sdk.threads.create()
    modes: Any = ["events", "values"]

    parts = await collect(sdk.runs.stream(thread["thread_id"], "react_agent", input=REFUND, stream_mode=modes))
    run_id = parts[0].data["run_id"]
    replayed = await collect(sdk.runs.join_stream(thread["thread_id"], run_id, last_event_id="-1"))

    events = data_of(parts, "events")
    tokens = [event["data"]["chunk"]["content"] for event in events if event["event"] == "on_chat_model_stream"]
    assert "".join(tokens) == "Let me look up order A-1001.I will ask for the refund of order A-1001."
    assert {event["name"] for event in events if event["event"] == "on_tool_start"} == {"lookup_order", "issue_refund"}
    assert all(event["metadata"]["thread_id"] == thread["thread_id"] for event in events)
    values = data_of(parts, "values")
    assert [interrupt["value"] for interrupt in values[-1]["__interrupt__"]] == [REFUND_APPROVAL]
    assert parts[-1].data == {"run_id": run_id, "status": "interrupted"}
    assert [(part.event, part.data) for part in replayed[1:]] == [(part.event, part.data) for part in parts[1:]]
