"""Runs that came in through another protocol, in the SPA's live graph (issue 38): a run of an example graph started
with the official ``a2a-sdk`` client (``POST /a2a/{assistant_id}``; the task is a run, its context the thread)
against the same ``harness serve --config examples/langgraph.json`` the browser uses, then found in the page's
"Recent threads" (``POST /threads/search``), opened (its newest run of ``GET /threads/{id}/runs``) and drawn by the
same code as a run the page started: replayed to its end when it has ended, followed live and decided in place when
it waits at an interrupt. In Chromium; synchronisation by selectors only.
"""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.request
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from a2a.client import ClientConfig, ClientFactory
from a2a.helpers import get_text_parts, new_text_message
from a2a.types.a2a_pb2 import Role, SendMessageRequest, TaskState

from tests.spa.test_browser import TIMEOUT_MS, answer_text, open_app, wait_status

if TYPE_CHECKING:
    from playwright.sync_api import Page, Request

    from tests.spa.conftest import Server

pytestmark = pytest.mark.browser

POLICY = "What is the refund policy?"
REFUND = "Please refund order A-1001."
SUMMARY = "Refund 42.00 EUR for order A-1001 (Rain jacket)"
REFUNDED = "Refunded 42.00 EUR for order A-1001."


def send_over_a2a(server: Server, assistant: str, text: str) -> Any:
    """One blocking A2A message with the official client; the task it answers (ended, or waiting for input).

    The client is asynchronous and Playwright's sync API keeps an event loop of its own on this thread: the
    message goes from a thread of its own."""

    async def send() -> Any:
        async with httpx.AsyncClient(timeout=30) as http:
            factory = ClientFactory(ClientConfig(streaming=False, httpx_client=http))
            client = await factory.create_from_url(f"{server.url}/a2a/{assistant}")
            request = SendMessageRequest(message=new_text_message(text, role=Role.ROLE_USER))
            answers = [answer async for answer in client.send_message(request)]
            await client.close()
        (answer,) = answers
        return answer.task

    found: dict[str, Any] = {}

    def run() -> None:
        try:
            found["task"] = asyncio.run(send())
        except BaseException as error:  # handed to the test's thread
            found["error"] = error

    worker = threading.Thread(target=run)
    worker.start()
    worker.join(timeout=60)
    if "error" in found:
        raise found["error"]
    return found["task"]


def get(server: Server, path: str) -> Any:
    with urllib.request.urlopen(f"{server.url}{path}", timeout=30) as response:
        return json.load(response)


def open_thread(page: Page, thread_id: str) -> None:
    row = page.locator(f"[data-role=thread][data-thread-id={thread_id}]")
    row.wait_for(timeout=TIMEOUT_MS)
    row.locator("[data-action=open-thread]").click()


def drawn_nodes(page: Page) -> dict[str, str]:
    states: dict[str, str] = page.eval_on_selector_all(
        "[data-region=graph] [data-node]",
        "nodes => Object.fromEntries(nodes.map(n => [n.dataset.node, n.dataset.state]))",
    )
    return states


def test_a_run_started_over_a2a_is_listed_and_opened_in_the_live_graph(
    page: Page, graphs_server: Server, shoot: Any
) -> None:
    task = send_over_a2a(graphs_server, "react_agent", POLICY)
    assert task.status.state == TaskState.TASK_STATE_COMPLETED
    said = "".join(get_text_parts(task.artifacts[0].parts))
    assert said, "the agent answered in words"
    thread_id = task.context_id
    searches: list[Request] = []
    page.on("request", lambda request: searches.append(request) if request.url.endswith("/threads/search") else None)

    open_app(page, graphs_server.url)
    row = page.locator(f"[data-role=thread][data-thread-id={thread_id}]")
    row.wait_for(timeout=TIMEOUT_MS)
    assert row.get_attribute("data-graph-id") == "react_agent"
    assert row.get_attribute("data-status") == "idle"
    assert POLICY in (row.text_content() or "")
    assert searches[0].post_data_json == {"limit": 10, "sort_by": "updated_at", "sort_order": "desc"}
    assert page.is_visible("[data-region=graph-empty]"), "nothing is opened by itself"

    open_thread(page, thread_id)
    wait_status(page, "completed")
    assert drawn_nodes(page) == {"agent": "completed", "tools": "skipped"}, "its own topology, painted to its end"
    assert answer_text(page) == said
    assert page.get_attribute("[data-role=outcome]", "data-outcome") == "completed"
    assert page.get_attribute("[data-role=connection]", "data-state") == "closed"
    assert page.text_content("[data-turn='1'] .bubble.user .text") == POLICY
    assert page.get_attribute("[data-action=pick-assistant]", "data-chosen") == "react_agent"
    assert row.locator("[data-action=open-thread]").get_attribute("aria-current") == "true"
    [listed] = get(graphs_server, f"/threads/{thread_id}/runs")
    assert listed["run_id"] == task.id, "the task is the run"
    shoot("50-threads-a2a-completed")

    # the Refresh button asks again: a thread started meanwhile shows up on top
    later = send_over_a2a(graphs_server, "react_agent", "How long does shipping take?")
    page.click("[data-action=refresh-threads]")
    page.wait_for_selector(f"[data-role=thread][data-thread-id={later.context_id}]", timeout=TIMEOUT_MS)
    first = page.get_attribute("[data-region=thread-list] [data-role=thread]", "data-thread-id")
    assert first == later.context_id, "the newest first"


def test_a_run_waiting_at_an_interrupt_over_a2a_is_approved_from_the_page(
    page: Page, graphs_server: Server, shoot: Any
) -> None:
    task = send_over_a2a(graphs_server, "react_agent", REFUND)
    assert task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    thread_id, run_id = task.context_id, task.id
    resumes: list[Request] = []

    def watch(request: Request) -> None:
        if request.method == "POST" and request.url == f"{graphs_server.url}/threads/{thread_id}/runs":
            resumes.append(request)

    page.on("request", watch)
    open_app(page, graphs_server.url)
    row = page.locator(f"[data-role=thread][data-thread-id={thread_id}]")
    row.wait_for(timeout=TIMEOUT_MS)
    assert row.get_attribute("data-status") == "interrupted"
    assert "waiting for a decision" in (row.text_content() or "")

    open_thread(page, thread_id)
    wait_status(page, "waiting")
    assert drawn_nodes(page) == {"agent": "completed", "tools": "waiting"}
    card = page.locator("[data-role=approval]")
    card.wait_for(timeout=TIMEOUT_MS)
    assert SUMMARY in (card.text_content() or "")
    assert page.get_attribute("[data-role=connection]", "data-state") == "live", "followed live through the pause"
    assert page.get_attribute("[data-role=outcome]", "data-outcome") == "paused"
    shoot("51-threads-a2a-paused")

    page.click("[data-role=approval] [data-action=approve]")
    wait_status(page, "completed")
    page.wait_for_selector("[data-role=approval]", state="detached", timeout=TIMEOUT_MS)
    assert REFUNDED in answer_text(page)
    page.wait_for_selector(f"[data-role=thread][data-thread-id={thread_id}][data-status=idle]", timeout=TIMEOUT_MS)
    assert drawn_nodes(page) == {"agent": "completed", "tools": "completed"}
    shoot("52-threads-a2a-approved")

    [resume] = resumes
    body: dict[str, Any] = resume.post_data_json or {}
    assert body["command"] == {"resume": {"decision": "approve"}}
    assert body["assistant_id"] == get(graphs_server, f"/threads/{thread_id}")["metadata"]["assistant_id"]
    finished = get(graphs_server, f"/runs/{run_id}")
    assert finished["status"] == "completed", "the run A2A started went on to its end"
    [only] = get(graphs_server, f"/threads/{thread_id}/runs")
    assert only["run_id"] == run_id, "the same run, continued"
