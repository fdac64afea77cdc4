"""The SPA talking to a registered LangGraph graph (issue 26), in a real Chromium against ``harness serve
--config examples/langgraph.json``: picked in the assistant picker, run through the Agent Protocol
(``POST /threads``, ``POST /threads/{id}/runs``), followed on ``GET /runs/{id}/events``, its graph drawn from
its own topology, paused at its ``interrupt()`` and approved, the same run going on to its end.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.spa.test_browser import (
    TIMEOUT_MS,
    answer_text,
    assert_never_success_before_the_end,
    open_app,
    send,
    snapshots,
    wait_status,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page, Request

    from tests.spa.conftest import Server

pytestmark = pytest.mark.browser

REFUND = "Please refund order A-1001."


def pick(page: Page, graph_id: str) -> None:
    page.click("[data-action=pick-assistant]")
    page.check(f"[data-assistant={graph_id}]", timeout=TIMEOUT_MS)
    page.wait_for_selector(f"[data-action=pick-assistant][data-chosen={graph_id}]", timeout=TIMEOUT_MS)
    assert page.is_hidden("[data-region=assistants]")


def node_state(page: Page, node: str) -> str | None:
    return page.get_attribute(f'[data-node="{node}"]', "data-state")


def test_the_support_agent_is_the_default_and_nothing_is_asked_until_the_picker_opens(
    page: Page, graphs_server: Server
) -> None:
    calls: list[str] = []
    page.on("request", lambda request: calls.append(request.url) if request.resource_type == "fetch" else None)
    open_app(page, graphs_server.url)
    assert page.get_attribute("[data-action=pick-assistant]", "data-chosen") == "support"
    page.wait_for_selector("[data-region=threads][data-state=loaded]", timeout=TIMEOUT_MS)
    assert [url.removeprefix(graphs_server.url) for url in calls] == ["/threads/search"], "only the recent threads"
    calls.clear()
    page.click("[data-action=pick-assistant]")
    page.wait_for_selector("[data-assistant=react_agent]", timeout=TIMEOUT_MS)
    names = page.eval_on_selector_all("[data-region=assistant-list] input", "inputs => inputs.map(i => i.value)")
    assert names[0] == "support"
    assert set(names) == {"support", "react_agent", "research"}
    assert page.is_checked("[data-assistant=support]")
    assert [url.removeprefix(graphs_server.url) for url in calls] == ["/assistants/search"]


def test_react_agent_pauses_at_its_interrupt_and_completes_the_same_run_once_approved(
    page: Page, graphs_server: Server, shoot: Any
) -> None:
    runs: list[Request] = []
    events: list[str] = []

    def watch(request: Request) -> None:
        path = request.url.removeprefix(graphs_server.url)
        if request.method == "POST" and path.startswith("/threads/") and path.endswith("/runs"):
            runs.append(request)
        if path.startswith("/runs/") and "/events" in path:
            events.append(path)

    page.on("request", watch)
    open_app(page, graphs_server.url)
    pick(page, "react_agent")
    send(page, REFUND)

    wait_status(page, "waiting")
    drawn = page.eval_on_selector_all("[data-region=graph] [data-node]", "nodes => nodes.map(n => n.dataset.node)")
    assert sorted(drawn) == ["agent", "tools"]
    assert node_state(page, "tools") == "waiting"
    assert node_state(page, "agent") == "completed"
    card = page.locator("[data-role=approval]")
    card.wait_for(timeout=TIMEOUT_MS)
    assert "Refund 42.00 EUR for order A-1001" in (card.text_content() or "")
    assert "issue_refund" in (card.text_content() or "")
    assert '"order_id": "A-1001"' in (card.text_content() or "")
    assert answer_text(page) == "I will ask for the refund of order A-1001."
    assert page.get_attribute("[data-role=outcome]", "data-outcome") == "paused"
    assert page.locator("[data-action=capture-case]").count() == 0, "a waiting run is no case yet"
    shoot("40-graph-react-paused")

    page.click("[data-role=approval] [data-action=approve]")
    wait_status(page, "completed")
    page.wait_for_selector("[data-role=approval]", state="detached", timeout=TIMEOUT_MS)
    assert "Refunded 42.00 EUR for order A-1001" in answer_text(page)
    assert page.get_attribute("[data-role=outcome]", "data-outcome") == "completed"
    assert node_state(page, "tools") == "completed"
    assert node_state(page, "agent") == "completed"
    assert "I will ask for the refund" in (page.text_content("[data-turn='1'] .earlier") or "")
    shoot("41-graph-react-approved")

    start, resume = (json.loads(request.post_data or "{}") for request in runs)
    assert start["input"] == {"messages": [{"role": "user", "content": REFUND}]}
    assert resume["command"] == {"resume": {"decision": "approve"}}
    assert start["assistant_id"] == resume["assistant_id"]
    assert runs[0].url == runs[1].url, "the resume runs on the same thread"
    assert len({path.split("/")[2] for path in events}) == 1, "one run, followed on its own events"
    seen = snapshots(page)
    assert_never_success_before_the_end(seen)
    statuses = [snapshot["status"] for snapshot in seen]
    assert statuses.index("waiting") < statuses.index("completed")

    # the finished run saved as an eval case: the service's case (harness eval capture's), as a one-line JSONL file
    run_id = events[0].split("/")[2]
    with page.expect_download(timeout=TIMEOUT_MS) as saving:
        page.click("[data-turn='1'] [data-action=capture-case]")
    download = saving.value
    assert download.suggested_filename == f"captured-{run_id.lower()}.jsonl"
    [line] = Path(download.path()).read_text(encoding="utf-8").splitlines()
    case = json.loads(line)
    assert case["resume"] == [{"decision": "approve"}]
    assert case["expect"]["trajectory"] == {"nodes": ["agent", "tools", "agent", "tools", "agent"], "match": "strict"}
    page.wait_for_selector("[data-turn='1'] [data-role=capture][data-state=saved]", timeout=TIMEOUT_MS)
    said = page.text_content("[data-turn='1'] [data-role=capture-said]") or ""
    assert said.startswith(f"Saved captured-{run_id.lower()}.jsonl"), said


def test_a_subgraph_in_a_loop_is_drawn_boxed_and_the_report_is_the_answer(
    page: Page, graphs_server: Server, shoot: Any
) -> None:
    open_app(page, graphs_server.url)
    pick(page, "research")
    send(page, "shipping")
    wait_status(page, "completed")
    for node in ("planner", "write_report", "research_step:search", "research_step:summarize"):
        assert node_state(page, node) == "completed", node
    assert page.get_attribute("[data-group=research_step]", "data-state") == "completed"
    assert answer_text(page).startswith("Report on shipping.")
    shoot("42-graph-research-completed")
    page.click("[data-action=new-session]")
    assert page.get_attribute("[data-action=pick-assistant]", "data-chosen") == "research"
