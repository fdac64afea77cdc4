"""A page built on ``@ai-sdk/react``'s ``useChat``, bundled here with esbuild, in Chromium against ``harness serve``.

The page (tests/e2e/ai-sdk-client/page.jsx) is what a Next.js developer writes: ``useChat`` pointed at
``/ai-sdk/chat``, ``resume: true``, approvals sent by ``addToolApprovalResponse``, and no server code of its own.
It is served on the service's own origin by the browser's request interception (the service has no framework
pages); every request it makes goes to the real service. Synchronisation is by selectors and attributes only.
"""

from __future__ import annotations

import json
import subprocess
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.support.node import node_tool

if TYPE_CHECKING:
    from playwright.sync_api import Page, Route

    from tests.spa.conftest import Server

pytestmark = pytest.mark.browser

CLIENT = Path(__file__).resolve().parents[1] / "e2e" / "ai-sdk-client"
TIMEOUT_MS = 30_000
PAGE = "/__ai_sdk_page/"
HTML = (
    b'<!doctype html><html><head><meta charset="utf-8"><title>useChat</title></head>'
    b'<body><div id="root"></div><script type="module" src="page.js"></script></body></html>'
)


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The page and React, the AI SDK and its React hooks in one ES module, as esbuild bundles an app."""
    node_tool(CLIENT)
    out = tmp_path_factory.mktemp("ai-sdk-page") / "page.js"
    subprocess.run(
        [
            str(CLIENT / "node_modules" / ".bin" / "esbuild"),
            "page.jsx",
            "--bundle",
            "--format=esm",
            "--jsx=automatic",
            "--define:process.env.NODE_ENV='production'",
            f"--outfile={out}",
        ],
        cwd=CLIENT,
        check=True,
        capture_output=True,
        timeout=120,
    )
    return out.read_bytes()


def open_chat(page: Page, server: Server, bundle: bytes, chat_id: str) -> None:
    def serve_page(route: Route) -> None:
        if route.request.url.split("?")[0].endswith("page.js"):
            route.fulfill(body=bundle, content_type="text/javascript")
        else:
            route.fulfill(body=HTML, content_type="text/html")

    page.route(f"{server.url}{PAGE}**", serve_page)
    page.goto(f"{server.url}{PAGE}index.html?chat={chat_id}")
    page.wait_for_selector("main[data-status=ready]", timeout=TIMEOUT_MS)


def send(page: Page, message: str) -> None:
    page.fill("[data-role=input]", message)
    page.click("[data-role=send]")


def run_of(server: Server, run_id: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{server.url}/runs/{run_id}", timeout=10) as response:
        found: dict[str, Any] = json.load(response)
        return found


def assistant_answer(page: Page) -> tuple[str, list[str]]:
    """The assistant message's id and its text parts, once the chat is ready again."""
    page.wait_for_selector("main[data-status=ready] section[data-role=assistant]", timeout=TIMEOUT_MS)
    section = page.locator("section[data-role=assistant]").last
    return section.get_attribute("data-message-id") or "", section.locator("[data-role=text]").all_text_contents()


def test_use_chat_streams_the_answer_with_its_sources(page: Page, live_server: Server, bundle: bytes) -> None:
    open_chat(page, live_server, bundle, "s_usechat_question")
    send(page, "How do I reset my password?")
    page.wait_for_selector("main[data-status=streaming]", timeout=TIMEOUT_MS)
    page.wait_for_selector("main[data-node^=guardrail_post]", timeout=TIMEOUT_MS)  # node progress, transient parts
    run_id, texts = assistant_answer(page)

    run = run_of(live_server, run_id)
    assert run["session_id"] == "s_usechat_question"
    assert texts == [run["response"]["answer"]["text"]]
    sources = page.locator("section[data-role=assistant] [data-role=source]").all_text_contents()
    assert sources == [citation["title"] for citation in run["response"]["citations"]]


def test_use_chat_approves_a_paused_refund(page: Page, live_server: Server, bundle: bytes) -> None:
    open_chat(page, live_server, bundle, "s_usechat_approve")
    send(page, "Please refund invoice INV-1002.")
    page.click("[data-tool=tool-issue_refund][data-state=approval-requested] [data-role=approve]", timeout=TIMEOUT_MS)
    page.wait_for_selector("[data-tool=tool-issue_refund][data-state=output-available]", timeout=TIMEOUT_MS)
    page.wait_for_selector("section[data-role=assistant] [data-role=source]", timeout=TIMEOUT_MS)
    run_id, texts = assistant_answer(page)

    run = run_of(live_server, run_id)
    assert run["status"] == "completed"
    assert run["response"]["status"] == "completed"
    assert texts[-1] == run["response"]["answer"]["text"]


def test_a_reload_mid_answer_resumes_it_once_and_whole(page: Page, slow_server: Server, bundle: bytes) -> None:
    open_chat(page, slow_server, bundle, "s_usechat_reload")
    send(page, "How do I reset my password?")
    page.wait_for_function(
        "() => (document.querySelector('section[data-role=assistant] [data-role=text]')?.textContent ?? '').length > 8",
        timeout=TIMEOUT_MS,
    )
    partial = page.locator("section[data-role=assistant] [data-role=text]").first.text_content() or ""
    page.reload()
    page.wait_for_selector("section[data-role=assistant] [data-role=source]", timeout=TIMEOUT_MS)  # the end
    run_id, texts = assistant_answer(page)

    answer = run_of(slow_server, run_id)["response"]["answer"]["text"]
    assert partial != answer, "the reload came mid-answer"
    assert texts == [answer], "every delta once, in order, in one text part"
    assert page.locator("section[data-role=user]").count() == 1
