"""A run request the OpenAPI document admits is one the server takes, and one it refuses is one the document does not
admit (issue 34, item 4): a client generated from the schema never meets a 422 for a body the schema allowed.

Each body below is judged twice, by the served document's ``RunCreate`` (JSON Schema) and by the server's own reading
(``read_run_request``), for a service with the support agent alone (as ``make serve`` starts it) and with another
graph beside it (the schema then says the support agent's rules under its own assistant ids only).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from langgraph.graph import START, StateGraph
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from agent.graphs import SUPPORT_GRAPH_ID, GraphRegistry, RegisteredGraph, assistant_id_of, parse_modes
from api.agent_protocol.requests import read_run_request
from api.exceptions import UnknownAssistant
from api.openapi.agent_protocol_runs import BUILT_IN_ASSISTANTS
from api.openapi.document import contract_schemas
from api.runs.errors import RunRequestInvalid
from api.runs.run_options import reserved_key
from contracts import ID_PATTERN
from contracts.agent_protocol import RESERVED_OPTION_KEY_PATTERN, RUN_STREAM_MODES, RunCreate

if TYPE_CHECKING:
    from api.openapi.agent_protocol_runs import ServedAssistant


class _State(TypedDict):
    n: int


def _graph(graph_id: str) -> RegisteredGraph:
    builder = StateGraph(_State)
    builder.add_node("bump", lambda state: {"n": state["n"] + 1})
    builder.add_edge(START, "bump")
    return RegisteredGraph(graph_id, builder.compile())


DOCS = Path(__file__).parents[2] / "docs"
SUPPORT_ONLY = GraphRegistry([_graph(SUPPORT_GRAPH_ID)])
WITH_COUNTER = GraphRegistry([_graph(SUPPORT_GRAPH_ID), _graph("counter")])
DECISION = {"decision": "approve", "comment": "fine"}
TURN = {"message": "How do I reset my password?"}
SUPPORT_BODIES: list[tuple[str, dict[str, Any]]] = [
    ("a message", {"input": TURN}),
    ("by assistant id", {"assistant_id": assistant_id_of(SUPPORT_GRAPH_ID), "input": TURN}),
    ("messages", {"input": {"messages": [{"role": "user", "content": "Refund INV-1001"}]}}),
    ("a human message among others", {"input": {"messages": [{"type": "human", "content": "hi"}, {"type": "ai"}]}}),
    ("a blank message, messages beside", {"input": {"message": " ", "messages": [{"role": "user", "content": "x"}]}}),
    ("a blank message", {"input": {"message": " \n\t"}}),
    ("no input", {}),
    ("input of no message", {"input": {"question": "hi"}}),
    ("input not an object", {"input": "hi"}),
    ("messages not a list", {"input": {"messages": 5}}),
    ("messages of no user text", {"input": {"messages": [{"role": "user", "content": ["blocks"]}]}}),
    ("a message's role not text", {"input": {"messages": [{"role": ["user"], "content": "hi"}]}}),
    ("a message not an object", {"input": {"messages": ["hi", {"role": "user", "content": "hi"}]}}),
    ("a decision", {"command": {"resume": DECISION}}),
    ("a decision without a comment", {"command": {"resume": {"decision": "reject"}}}),
    ("a resume that is not a decision", {"command": {"resume": {"decision": "maybe"}}}),
    ("a comment that is not text", {"command": {"resume": {"decision": "approve", "comment": 5}}}),
    ("a decision that is not text", {"command": {"resume": {"decision": ["approve"]}}}),
    ("a null resume and no input", {"command": {"resume": None}}),
    ("input and resume", {"input": TURN, "command": {"resume": DECISION}}),
    ("input and a null resume", {"input": TURN, "command": {"resume": None, "update": None, "goto": None}}),
    ("command.update", {"input": TURN, "command": {"update": {"n": 1}}}),
    ("command.goto", {"command": {"resume": DECISION, "goto": "bump"}}),
    ("stream modes", {"input": TURN, "stream_mode": ["values", "messages-tuple", "events"]}),
    ("no stream mode", {"input": TURN, "stream_mode": []}),
    ("an unknown stream mode", {"input": TURN, "stream_mode": ["values", "logs"]}),
    ("a stream mode not text", {"input": TURN, "stream_mode": 5}),
    ("interrupt", {"input": TURN, "multitask_strategy": "interrupt"}),
    ("enqueue", {"input": TURN, "multitask_strategy": "enqueue"}),
    ("rollback", {"input": TURN, "multitask_strategy": "rollback"}),
    ("a null strategy", {"input": TURN, "multitask_strategy": None}),
    ("no interrupts at", {"input": TURN, "interrupt_before": [], "interrupt_after": None}),
    ("interrupt before a node", {"input": TURN, "interrupt_before": ["bump"]}),
    ("interrupt after all", {"input": TURN, "interrupt_after": "*"}),
    ("a config", {"input": TURN, "config": {"tags": ["a"], "recursion_limit": 5, "configurable": {"user": "x"}}}),
    ("a whole number as a float", {"input": TURN, "config": {"recursion_limit": 5.0, "max_concurrency": 2.0}}),
    ("a fraction", {"input": TURN, "config": {"recursion_limit": 5.5}}),
    ("a zero", {"input": TURN, "config": {"max_concurrency": 0}}),
    ("a config key of the service's", {"input": TURN, "config": {"callbacks": []}}),
    ("a reserved configurable key", {"input": TURN, "config": {"configurable": {"__pregel_resuming": True}}}),
    ("a thread id in the metadata", {"input": TURN, "metadata": {"thread_id": "s_1"}}),
    ("a checkpoint in the context", {"input": TURN, "context": {"checkpoint_id": "1"}}),
    ("free keys", {"input": TURN, "metadata": {"thread_id_of_origin": 1}, "context": {"_x": 1}}),
]
GRAPH_BODIES: list[tuple[str, dict[str, Any]]] = [
    ("its input", {"input": {"n": 1}}),
    ("no input", {}),
    ("any resume", {"command": {"resume": "yes"}}),
    ("input and resume", {"input": {"n": 1}, "command": {"resume": "yes"}}),
    ("command.update", {"command": {"update": {"n": 1}}}),
]


def _run_create(served: list[ServedAssistant]) -> Draft202012Validator:
    """The ``RunCreate`` schema of a service serving ``served``, with its references resolved."""
    components = contract_schemas(served)
    document = {"components": {"schemas": components}}
    registry = Registry().with_resource("urn:doc", Resource.from_contents(document, default_specification=DRAFT202012))
    return Draft202012Validator({"$ref": "urn:doc#/components/schemas/RunCreate"}, registry=registry)


def _server_takes(body: dict[str, Any], graphs: GraphRegistry) -> bool:
    try:
        read_run_request(msgspec.convert(body, RunCreate), graphs, detached=True)
    except (msgspec.ValidationError, RunRequestInvalid, UnknownAssistant):
        return False
    return True


def _served(graphs: GraphRegistry) -> list[ServedAssistant]:
    return [(graph.graph_id, graph.assistant_id) for graph in graphs]


@pytest.mark.parametrize("graphs", [SUPPORT_ONLY, WITH_COUNTER], ids=["support alone", "with another graph"])
@pytest.mark.parametrize(("case", "body"), SUPPORT_BODIES, ids=[case for case, _ in SUPPORT_BODIES])
def test_a_support_run_is_taken_exactly_when_the_schema_admits_it(
    graphs: GraphRegistry, case: str, body: dict[str, Any]
) -> None:
    request = {"assistant_id": SUPPORT_GRAPH_ID, **body}

    assert _run_create(_served(graphs)).is_valid(request) == _server_takes(request, graphs), case


@pytest.mark.parametrize(("case", "body"), GRAPH_BODIES, ids=[case for case, _ in GRAPH_BODIES])
def test_another_graph_takes_its_own_input_as_the_schema_says(case: str, body: dict[str, Any]) -> None:
    for assistant in ("counter", assistant_id_of("counter")):
        request = {"assistant_id": assistant, **body}

        assert _run_create(_served(WITH_COUNTER)).is_valid(request) == _server_takes(request, WITH_COUNTER), case


def test_only_served_assistants_are_admitted() -> None:
    schema = _run_create(list(BUILT_IN_ASSISTANTS))

    assert not schema.is_valid({"assistant_id": "counter", "input": {"n": 1}})
    assert not _server_takes({"assistant_id": "counter", "input": {"n": 1}}, SUPPORT_ONLY)
    assert schema.is_valid({"assistant_id": "support", "input": TURN})


@given(st.text(max_size=20) | st.sampled_from(["thread_id", "thread_id\n", "__x", "checkpoint_ns", "langgraph_step"]))
def test_the_reserved_keys_pattern_is_the_run_options_rule(key: str) -> None:
    assert bool(re.search(RESERVED_OPTION_KEY_PATTERN, key)) is not reserved_key(key)


@pytest.mark.parametrize("mode", RUN_STREAM_MODES)
def test_every_stream_mode_the_schema_lists_is_served(mode: str) -> None:
    assert parse_modes([mode])


def test_the_document_lists_only_the_cancel_served_and_its_answers() -> None:
    document = json.loads((DOCS / "openapi.json").read_text())
    cancel = document["paths"]["/threads/{thread_id}/runs/{run_id}/cancel"]["post"]
    (action,) = [parameter for parameter in cancel["parameters"] if parameter["name"] == "action"]

    assert action["schema"]["enum"] == ["interrupt"]
    assert {"200", "202"} <= set(cancel["responses"]), "with `wait`, the run's result"


def test_a_thread_id_in_a_path_has_a_session_ids_shape() -> None:
    document = json.loads((DOCS / "openapi.json").read_text())
    thread_ids = [
        parameter["schema"]
        for path, item in document["paths"].items()
        if "{thread_id}" in path
        for operation in item.values()
        for parameter in operation.get("parameters", [])
        if parameter["name"] == "thread_id"
    ]

    assert thread_ids
    assert all(schema["pattern"] == ID_PATTERN for schema in thread_ids)
