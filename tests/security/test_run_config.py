"""Finding 10 (issue 34, HIGH): a client's run config must not carry what LangGraph or the service reads itself.

With an approver role required, alice (no approver) cannot answer her own run's interrupt with ``command.resume``.
She could, though, start a new run on her paused thread (``input: null``, ``multitask_strategy: interrupt``) whose
``config.configurable`` held LangGraph's resume map keyed by the interrupt's id, and the paused refund ran. Every
key LangGraph or the service reads is now refused (422) wherever a client's config, configurable, metadata or
context enters a run, and the interrupt still waits for an approver.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import httpx
import msgspec
import pytest
from langgraph_sdk import get_client

from api.auth import AuthConfig
from tests.e2e.agent_protocol.turns import ALICE, EXAMPLES, REFUND, collect
from tests.support.graph_projects import isolated_loading

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from api.settings import Settings
    from tests.e2e.conftest import LiveServer

APPROVER = "carol-token-0123456789abcdef"


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.delenv("HARNESS_CHAT_MODEL", raising=False)
    yield from isolated_loading(monkeypatch, EXAMPLES, tmp_path)


@pytest.fixture
def approvals_required(serve: Callable[..., LiveServer], settings: Settings, tmp_path: Path) -> LiveServer:
    """The examples with identity on and an approver role: alice may start runs, only carol decides them."""
    tokens = tmp_path / "tokens.json"
    subjects = [
        {"token": ALICE, "subject": "alice", "roles": ["user"], "account_id": "ACC-2001"},
        {"token": APPROVER, "subject": "carol", "roles": ["approver"]},
    ]
    tokens.write_text(json.dumps({"tokens": subjects}))
    auth = AuthConfig(tokens_file=tokens, approver_role="approver")
    return serve(msgspec.structs.replace(settings, graphs_config=EXAMPLES / "langgraph.json", auth=auth))


def _reserved_options(interrupt_id: str) -> list[tuple[str, dict[str, Any]]]:
    """Each way a run's options could carry a key LangGraph or the service reads, named for the failure message."""
    resume_map = {interrupt_id: {"decision": "approve"}}
    configurable_keys = {
        "__pregel_resume_map": resume_map,
        "__pregel_scratchpad": {},
        "checkpoint_id": "1f0c0000-0000-6000-8000-000000000000",
        "checkpoint_ns": "tools:1",
        "checkpoint_map": {"": "1f0c0000-0000-6000-8000-000000000000"},
        "thread_id": "another-thread",
        "run_id": "r_another",
        "assistant_id": "another",
        "graph_id": "another",
    }
    options: list[tuple[str, dict[str, Any]]] = [
        (f"config.configurable.{key}", {"config": {"configurable": {key: value}}})
        for key, value in configurable_keys.items()
    ]
    options += [
        ("config.callbacks", {"config": {"callbacks": []}}),
        ("config.run_id", {"config": {"run_id": "r_another"}}),
        ("metadata.__pregel_resume_map", {"metadata": {"__pregel_resume_map": resume_map}}),
        ("metadata.langgraph_node", {"metadata": {"langgraph_node": "tools"}}),
        ("metadata.thread_id", {"metadata": {"thread_id": "another-thread"}}),
        ("context.__pregel_resume_map", {"context": {"__pregel_resume_map": resume_map}}),
        ("config.metadata.__pregel_resume_map", {"config": {"metadata": {"__pregel_resume_map": resume_map}}}),
    ]
    return options


async def test_a_non_approver_cannot_resume_its_run_through_the_run_config(approvals_required: LiveServer) -> None:
    headers = {"Authorization": f"Bearer {ALICE}"}
    async with get_client(url=approvals_required.url, headers=headers, timeout=30) as alice:
        thread_id = (await alice.threads.create())["thread_id"]
        await collect(alice.runs.stream(thread_id, "react_agent", input=REFUND))
        interrupt_id = (await alice.threads.get(thread_id))["interrupts"]
        waiting = next(iter(interrupt_id.values()))[0]["id"]

    routes = [
        f"/threads/{thread_id}/runs",
        f"/threads/{thread_id}/runs/stream",
        f"/threads/{thread_id}/runs/wait",
    ]
    refused: dict[tuple[str, str], int] = {}
    async with httpx.AsyncClient(base_url=approvals_required.url, headers=headers, timeout=30) as http:
        for where, options in _reserved_options(waiting):
            for route in routes:
                body = {"assistant_id": "react_agent", "input": None, "multitask_strategy": "interrupt", **options}
                answer = await http.post(route, json=body)
                refused[(route, where)] = answer.status_code
                assert answer.headers["content-type"].startswith("application/problem+json"), (route, where)
            stateless = {"assistant_id": "react_agent", "input": REFUND, **options}
            refused[("/runs/wait", where)] = (await http.post("/runs/wait", json=stateless)).status_code
        for where, options in _reserved_options(waiting):
            if "metadata" in options:
                continue  # the chat protocols take no run metadata
            ag_ui = {
                "threadId": thread_id,
                "runId": "agui-1",
                "messages": [{"id": "m1", "role": "user", "content": "Please refund order A-1001."}],
                "forwardedProps": options,
            }
            answer = await http.post("/ag-ui/react_agent", json=ag_ui)
            refused[("/ag-ui/react_agent", where)] = answer.status_code
            assert f"$.forwardedProps.{where}" in answer.text, answer.text
            chat = {
                "id": thread_id,
                "messages": [{"id": "m1", "role": "user", "parts": [{"type": "text", "text": "Refund A-1001."}]}],
                **options,
            }
            refused[("/ai-sdk/react_agent/chat", where)] = (
                await http.post("/ai-sdk/react_agent/chat", json=chat)
            ).status_code
        state = (await http.get(f"/threads/{thread_id}/state")).json()
        runs = (await http.get(f"/threads/{thread_id}/runs")).json()

    assert {key: status for key, status in refused.items() if status != 422} == {}
    assert [interrupt["id"] for interrupt in state["interrupts"]] == [waiting], "the interrupt still waits"
    assert not any("Refunded" in str(message.get("content")) for message in state["values"]["messages"])
    assert [run["status"] for run in runs] == ["interrupted"], "no run was started, none was superseded"
