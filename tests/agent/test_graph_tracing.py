"""The GenAI spans of a turn of the support agent and of a run of a registered graph (examples/react_agent)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from agent import open_agent, resume_turn, run_turn
from agent.graph_tracing import tracing_to
from agent.graphs import apply_graphs_config, load_graphs, read_graphs_config

if TYPE_CHECKING:
    import pytest
    from opentelemetry.sdk.trace import ReadableSpan

    from agent import Agent
    from agent.config import AgentConfig

EXAMPLES = Path(__file__).parents[2] / "examples" / "langgraph.json"


def parents(spans: tuple[ReadableSpan, ...]) -> dict[str, str | None]:
    """Each span's name and its parent's name (names are unique within these turns)."""
    names = {span.context.span_id: span.name for span in spans}
    return {span.name: names.get(span.parent.span_id) if span.parent else None for span in spans}


def named(spans: tuple[ReadableSpan, ...], name: str) -> ReadableSpan:
    [span] = [s for s in spans if s.name == name]
    return span


async def test_a_turn_is_an_invoke_agent_span_over_its_nodes_and_its_model_call(
    agent: Agent, spans: InMemorySpanExporter
) -> None:
    await run_turn(agent, "How do I reset my password?", session_id="s_1", run_id="r_1")

    finished = spans.get_finished_spans()
    tree = parents(finished)
    assert tree["invoke_agent support_agent"] is None
    for node in ("guardrail_pre", "retrieve_context", "generate_answer", "guardrail_post"):
        assert tree[f"node {node}"] == "invoke_agent support_agent"
    assert tree["chat stub-1"] == "llm.generate"
    assert tree["llm.generate"] == "node generate_answer"

    run = named(finished, "invoke_agent support_agent")
    assert dict(run.attributes or {}) == {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "support_agent",
        "gen_ai.conversation.id": "s_1",
    }
    chat = named(finished, "chat stub-1")
    attributes = dict(chat.attributes or {})
    assert chat.kind is SpanKind.CLIENT
    assert {k: attributes[k] for k in ("gen_ai.operation.name", "gen_ai.provider.name", "gen_ai.request.model")} == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "stub",
        "gen_ai.request.model": "stub-1",
    }
    assert attributes["gen_ai.usage.input_tokens"] > 0
    assert attributes["gen_ai.usage.output_tokens"] > 0
    assert attributes["gen_ai.response.finish_reasons"] == ("stop",)
    assert not any(key.endswith("messages") for span in finished for key in (span.attributes or {}))


async def test_an_approved_action_is_an_execute_tool_span(agent: Agent, spans: InMemorySpanExporter) -> None:
    paused = await run_turn(agent, "Please refund invoice INV-1001.", session_id="s_1", run_id="r_1")
    assert paused.pending_approval is not None
    await resume_turn(agent, session_id="s_1", approval_id=paused.pending_approval.approval_id, decision="approve")

    finished = spans.get_finished_spans()
    tool = named(finished, "execute_tool issue_refund")
    assert parents(finished)["execute_tool issue_refund"] == "node execute_action"
    assert (tool.attributes or {})["gen_ai.tool.name"] == "issue_refund"
    assert (tool.attributes or {})["gen_ai.tool.call.id"] == paused.pending_approval.approval_id
    runs = [span for span in finished if span.name == "invoke_agent support_agent"]
    assert len(runs) == 2  # the turn that paused and the resume, each one run


async def test_message_content_is_recorded_only_when_the_operator_opts_in(
    agent_config: AgentConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    async with open_agent(agent_config, tracer_provider=provider) as agent:
        await run_turn(agent, "How do I reset my password?", session_id="s_1", run_id="r_1")

    chat = named(spans.get_finished_spans(), "chat stub-1").attributes or {}
    sent = json.loads(str(chat["gen_ai.input.messages"]))
    assert (sent[0]["role"], sent[-1]["role"]) == ("system", "user")
    assert "How do I reset my password?" in sent[-1]["parts"][0]["content"]
    [answer] = json.loads(str(chat["gen_ai.output.messages"]))
    assert (answer["role"], answer["finish_reason"]) == ("assistant", "stop")


async def graph_spans(graph_input: Any, *, then: Any = None) -> tuple[ReadableSpan, ...]:
    config = read_graphs_config(EXAMPLES)
    apply_graphs_config(config)
    [react] = [g for g in await load_graphs(config, InMemorySaver()) if g.spec.graph_id == "react_agent"]
    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    thread = {"configurable": {"thread_id": "t-1"}}
    with tracing_to(provider):
        async with react.graph_for(thread) as graph:
            await graph.ainvoke(graph_input, thread)
            if then is not None:
                await graph.ainvoke(then, thread)
    return spans.get_finished_spans()


async def test_any_graphs_run_model_calls_and_tools_follow_the_conventions() -> None:
    finished = await graph_spans(
        {"messages": [("user", "Please refund order A-1001, it arrived broken.")]},
        then=Command(resume={"decision": "approve"}),
    )

    names = [span.name for span in finished]
    assert names.count("invoke_agent react_agent") == 2
    assert any(name.startswith("chat ") for name in names)
    tools = [span for span in finished if span.name.startswith("execute_tool ")]
    assert {span.name for span in tools} >= {"execute_tool issue_refund"}
    by_id = {span.context.span_id: span for span in finished}
    for span in finished:
        attributes = span.attributes or {}
        if span.name.startswith(("chat ", "execute_tool ")):
            ancestor = span
            while ancestor.parent is not None:
                ancestor = by_id[ancestor.parent.span_id]
            assert ancestor.name == "invoke_agent react_agent"
            assert attributes["gen_ai.operation.name"] == span.name.split(" ")[0]
        if span.name.startswith("execute_tool "):
            assert attributes["gen_ai.tool.name"] == span.name.removeprefix("execute_tool ")
            assert attributes["gen_ai.tool.call.id"]
    run = next(span for span in finished if span.name == "invoke_agent react_agent")
    assert (run.attributes or {})["gen_ai.conversation.id"] == "t-1"


async def test_a_tracer_keeps_nothing_of_the_runs_it_traced(agent: Agent, tracer_provider: TracerProvider) -> None:
    """A server's tracer sees every run of the process for as long as it serves: a run that ended, or paused for
    a person, leaves nothing behind in it (it held on to every run's span once: ~3 KB per paused run)."""
    with tracing_to(tracer_provider) as tracer:
        for number in range(20):
            await run_turn(agent, "How do I reset my password?", session_id=f"s_{number}", run_id=f"r_a{number}")
            await run_turn(agent, "Please refund invoice INV-1001.", session_id=f"s_p{number}", run_id=f"r_p{number}")

    assert tracer.last_run is not None, "the latest run is what an eval case's scores go to"
    assert (len(tracer._spans), len(tracer._parents)) == (0, 0)
    assert [name for name, value in vars(tracer).items() if isinstance(value, (dict, list, set)) and value] == []
