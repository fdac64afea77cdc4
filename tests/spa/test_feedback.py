"""Feedback on a finished run from the SPA (issue 39 item 3), in a real Chromium against ``harness serve``: thumbs
up or down with a note under the answer (``POST /runs/{run_id}/feedback``), offered only once the run has finished,
for the support agent's ``/chat`` turns and a registered graph's runs alike. What the service kept is read from its
store (``interactions.sqlite`` in its data directory, the table ``tests/api/test_feedback.py`` reads through the
interaction log); the page shows the same: the score pressed, the note as stored, as text.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from typing import TYPE_CHECKING, Any

import pytest

from tests.spa.test_browser import REFUND, TIMEOUT_MS, open_app, send, wait_status
from tests.spa.test_graphs import pick

if TYPE_CHECKING:
    from playwright.sync_api import Page, Response, Route

    from tests.spa.conftest import Server

pytestmark = pytest.mark.browser

QUESTION = "How do I reset my password?"
CARD = "4111 1111 1111 1111"
NOTE = f"Too vague <b>really</b>, card {CARD}"
FEEDBACK = "[data-role=feedback]"

# Notes the run status shown when the feedback controls first appear.
WATCH_FEEDBACK = """() => {
  window.__feedbackSeenAt = null;
  new MutationObserver(() => {
    if (window.__feedbackSeenAt === null && document.querySelector('[data-role=feedback]')) {
      window.__feedbackSeenAt = document.querySelector('[data-role=outcome]').dataset.status;
    }
  }).observe(document.body, { subtree: true, childList: true });
}"""


def kept(server: Server, run_id: str) -> list[tuple[str, str | None]]:
    """The feedback the service keeps for ``run_id``: ``(score, comment)`` rows (1 up, 0 down), read from its store."""
    path = server.data_dir / "interactions.sqlite"
    with contextlib.closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as db:
        rows = db.execute("SELECT score, comment FROM feedback WHERE run_id = ?", (run_id,)).fetchall()
    return [(score, None if note is None else bytes(note).decode()) for score, note in rows]


def watch_feedback_answers(page: Page) -> list[int]:
    statuses: list[int] = []

    def on_response(response: Response) -> None:
        if response.request.method == "POST" and response.url.endswith("/feedback"):
            statuses.append(response.status)

    page.on("response", on_response)
    return statuses


def wait_kept(page: Page, score: str) -> None:
    page.wait_for_selector(f"{FEEDBACK}[data-state=stored][data-score={score}]", timeout=TIMEOUT_MS)


def pressed(page: Page) -> dict[str, str | None]:
    return {
        score: page.get_attribute(f"{FEEDBACK} [data-feedback={score}]", "aria-pressed") for score in ("up", "down")
    }


def test_thumbs_down_with_a_note_by_keyboard_is_kept_and_a_second_press_replaces_it(
    page: Page, live_server: Server, shoot: Any
) -> None:
    answers = watch_feedback_answers(page)
    open_app(page, live_server.url)
    page.evaluate(WATCH_FEEDBACK)
    send(page, QUESTION)
    wait_status(page, "completed")
    page.wait_for_selector(FEEDBACK, timeout=TIMEOUT_MS)
    assert page.evaluate("() => window.__feedbackSeenAt") == "completed", "offered only once the run has finished"
    run_id = page.get_attribute(FEEDBACK, "data-run-id")
    assert run_id is not None
    assert run_id.startswith("r_")
    assert pressed(page) == {"up": "false", "down": "false"}

    page.focus("[data-role=feedback-note]")
    page.keyboard.type(NOTE)
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("() => document.activeElement.dataset.feedback") == "down"
    page.keyboard.press("Enter")

    wait_kept(page, "down")
    assert answers == [201]
    assert pressed(page) == {"up": "false", "down": "true"}
    assert page.evaluate("() => document.activeElement.dataset.feedback") == "down", "the focus stays on the button"
    [(score, note)] = kept(live_server, run_id)
    assert score == 0
    assert note is not None
    assert "Too vague <b>really</b>" in note
    assert "1111" not in note, "the card number is redacted before it is kept"
    said = page.text_content("[data-role=feedback-said]") or ""
    assert note in said, "the page shows the note as stored"
    assert page.locator(f"{FEEDBACK} b").count() == 0, "the note is text, never markup"
    assert page.input_value("[data-role=feedback-note]") == note
    shoot("50-feedback-down-kept")

    page.fill("[data-role=feedback-note]", "")
    page.click(f"{FEEDBACK} [data-feedback=up]")

    wait_kept(page, "up")
    assert answers == [201, 201]
    assert pressed(page) == {"up": "true", "down": "false"}
    assert kept(live_server, run_id) == [(1, None)], "the second replaces the first"
    assert page.text_content("[data-role=feedback-said]") == "You rated this answer helpful."


def test_a_paused_run_is_rated_only_once_it_finishes_and_a_refusal_shows_its_detail(
    page: Page, live_server: Server
) -> None:
    open_app(page, live_server.url)
    send(page, REFUND)
    page.wait_for_selector("[data-role=approval] [data-action=reject]", timeout=TIMEOUT_MS)
    wait_status(page, "waiting")
    assert page.locator(FEEDBACK).count() == 0, "no feedback while the run waits for a decision"
    page.click("[data-action=reject]")
    wait_status(page, "completed")
    page.wait_for_selector(FEEDBACK, timeout=TIMEOUT_MS)
    run_id = page.get_attribute(FEEDBACK, "data-run-id")
    assert run_id is not None

    detail = f"Run {run_id} is running; feedback is for a finished run."

    def refuse(route: Route) -> None:
        problem = {"type": "about:blank", "title": "Conflict", "status": 409, "code": "run_not_finished"}
        route.fulfill(
            status=409, content_type="application/problem+json", body=json.dumps({**problem, "detail": detail})
        )

    page.route("**/runs/*/feedback", refuse)
    page.click(f"{FEEDBACK} [data-feedback=down]")
    page.wait_for_selector(f"{FEEDBACK}[data-state=failed]", timeout=TIMEOUT_MS)
    assert page.text_content("[data-role=feedback-error]") == f"Your feedback was not kept: {detail}"
    assert page.get_attribute("[data-role=feedback-error]", "role") == "alert"
    assert pressed(page) == {"up": "false", "down": "false"}
    assert kept(live_server, run_id) == []

    page.unroute("**/runs/*/feedback", refuse)
    page.click(f"{FEEDBACK} [data-feedback=down]")
    wait_kept(page, "down")
    assert page.text_content("[data-role=feedback-error]") == ""
    assert kept(live_server, run_id) == [(0, None)]


def test_a_registered_graphs_finished_run_is_rated_the_same_way(page: Page, graphs_server: Server) -> None:
    open_app(page, graphs_server.url)
    pick(page, "research")
    send(page, "shipping")
    wait_status(page, "completed")
    page.wait_for_selector(FEEDBACK, timeout=TIMEOUT_MS)
    run_id = page.get_attribute(FEEDBACK, "data-run-id")
    assert run_id is not None

    page.fill("[data-role=feedback-note]", "  A clear report.  ")
    page.click(f"{FEEDBACK} [data-feedback=up]")

    wait_kept(page, "up")
    assert kept(graphs_server, run_id) == [(1, "A clear report.")]
    assert page.text_content("[data-role=feedback-said]") == (
        "You rated this answer helpful. Your note, as kept: “A clear report.”"
    )
