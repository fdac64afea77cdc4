"""The approvals inbox of an approver holds a registered graph's interrupt too, and decides it the way such a
run is decided: its thread's next run with ``command.resume`` (``POST /threads/{id}/runs``), never
``POST /chat/resume``. A real ``harness serve --config examples/langgraph.json`` with identity on (alice, a
user, owns the run; carol, the approver, decides it), in Chromium; synchronisation by selectors only.
"""

from __future__ import annotations

import json
import urllib.request
from typing import TYPE_CHECKING, Any

import pytest

from tests.spa.conftest import ROOT, SUBJECTS, _serve
from tests.spa.test_browser import PASSWORD, TIMEOUT_MS, open_app, send

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from playwright.sync_api import Browser, Page, Request

    from tests.spa.conftest import Server

pytestmark = pytest.mark.browser

ALICE, CAROL = (SUBJECTS[name]["token"] for name in ("alice", "carol"))
REFUND = {"messages": [{"role": "user", "content": "Please refund order A-1001."}]}
SUMMARY = "Refund 42.00 EUR for order A-1001 (Rain jacket)"


@pytest.fixture(scope="module")
def guarded_graphs(tmp_path_factory: pytest.TempPathFactory, artifacts: Path, browser: Browser) -> Iterator[Server]:
    """The example graphs beside the support agent, with identity on and carol the approver."""
    tokens = tmp_path_factory.mktemp("graph-inbox") / "tokens.json"
    tokens.write_text(json.dumps({"tokens": [{"subject": name, **fields} for name, fields in SUBJECTS.items()]}))
    with _serve(
        "graph-inbox",
        tmp_path_factory.mktemp("graph-inbox-data"),
        artifacts,
        HARNESS_CONFIG=str(ROOT / "examples" / "langgraph.json"),
        HARNESS_AUTH_TOKENS_FILE=str(tokens),
        HARNESS_APPROVER_ROLE="approver",
    ) as server:
        yield server


def call(server: Server, method: str, path: str, token: str, body: Any = None) -> Any:
    headers = {"Accept": "application/json", "Authorization": f"Bearer {token}"}
    data = None
    if body is not None:
        headers["Content-Type"] = "application/json"
        data = json.dumps(body).encode()
    request = urllib.request.Request(f"{server.url}{path}", data=data, headers=headers, method=method)
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def test_carol_approves_alices_graph_interrupt_from_the_inbox(page: Page, guarded_graphs: Server, shoot: Any) -> None:
    thread_id = call(guarded_graphs, "POST", "/threads", ALICE, {})["thread_id"]
    started = {"assistant_id": "react_agent", "input": REFUND}
    call(guarded_graphs, "POST", f"/threads/{thread_id}/runs/wait", ALICE, started)
    [run] = call(guarded_graphs, "GET", f"/threads/{thread_id}/runs", ALICE)
    assert run["status"] == "interrupted", run
    decisions: list[Request] = []

    def watch(request: Request) -> None:
        path = request.url.removeprefix(guarded_graphs.url)
        decisive = path == "/chat/resume" or (path.startswith("/threads/") and path != "/threads/search")
        if request.method == "POST" and decisive:
            decisions.append(request)

    page.on("request", watch)
    open_app(page, guarded_graphs.url)
    send(page, PASSWORD)
    page.wait_for_selector("[data-region=sign-in]", state="visible", timeout=TIMEOUT_MS)
    page.fill("[data-role=token]", CAROL)
    page.click("[data-action=sign-in]")
    page.wait_for_selector("[data-region=inbox]", state="visible", timeout=TIMEOUT_MS)
    item = page.locator(f"[data-role=inbox-item][data-run-id={run['run_id']}]")
    assert item.get_attribute("data-graph-id") == "react_agent"
    text = item.text_content() or ""
    assert SUMMARY in text
    assert "issue_refund · graph react_agent · asked by alice" in text
    shoot("27-graph-inbox")
    (listed,) = call(guarded_graphs, "GET", "/approvals", CAROL)["approvals"]
    interrupt_id = listed["interrupt_id"]
    assert interrupt_id == listed["approval_id"]

    item.locator("[data-decision=approve]").click()
    item.wait_for(state="detached", timeout=TIMEOUT_MS)
    assert page.text_content("[data-region=inbox-note]") == f"You approved “{SUMMARY}”."
    assert page.get_attribute("[data-action=open-inbox]", "data-count") == "0"

    [decided] = decisions
    assert decided.url == f"{guarded_graphs.url}/threads/{thread_id}/runs"
    body = decided.post_data_json
    assert body["command"] == {"resume": {interrupt_id: {"decision": "approve"}}}, "the interrupt answered by its id"
    assert body["assistant_id"] == run["assistant_id"]
    joined = call(guarded_graphs, "GET", f"/threads/{thread_id}/runs/{run['run_id']}/join", ALICE)
    assert "refund" in str(joined["messages"][-1]["content"]).lower()
    finished = call(guarded_graphs, "GET", f"/runs/{run['run_id']}", CAROL)
    assert (finished["status"], finished["decided_by"]) == ("completed", "carol")
