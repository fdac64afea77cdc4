"""The SPA against a service with identity on: signing in after a 401, the token on every request and
reconnect, the approvals inbox of an approver, and identity's refusals (401, 403, 404) in plain words.

A real ``harness serve`` with a tokens file of three subjects (alice and bob, users; carol, the approver)
and ``HARNESS_APPROVER_ROLE=approver``, each person in a browser context of their own (so a tab and its
sessionStorage of their own). Synchronisation is by selectors and attributes only.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from typing import TYPE_CHECKING, Any

import pytest

from tests.spa.conftest import SUBJECTS, _serve, watch_for_errors
from tests.spa.test_browser import PASSWORD, REFUND, TIMEOUT_MS, answer_text, open_app, send, wait_status

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from playwright.sync_api import Browser, Page, Request, Route

    from tests.spa.conftest import Server

pytestmark = pytest.mark.browser

ALICE, BOB, CAROL = (SUBJECTS[name]["token"] for name in ("alice", "bob", "carol"))
TOKEN_KEY = "harness.token"


@pytest.fixture
def person(browser: Browser, page_errors: list[str]) -> Iterator[Callable[[], Page]]:
    """Another person's browser: a context of its own, so a tab, a token and a conversation of its own."""
    contexts = []

    def open_page() -> Page:
        context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="light")
        contexts.append(context)
        opened = context.new_page()
        watch_for_errors(opened, page_errors)
        return opened

    try:
        yield open_page
    finally:
        for context in contexts:
            context.close()


def auth_message(page: Page) -> str:
    return page.text_content("[data-role=auth-message]") or ""


def sign_in_after_refusal(page: Page, server: Server, token: str, message: str = PASSWORD) -> None:
    """Open the app, be refused for want of a token, sign in: the refused message is back in the box."""
    open_app(page, server.url)
    send(page, message)
    page.wait_for_selector("[data-region=sign-in]", state="visible", timeout=TIMEOUT_MS)
    page.fill("[data-role=token]", token)
    page.click("[data-action=sign-in]")
    page.wait_for_selector("[data-action=sign-out]", state="visible", timeout=TIMEOUT_MS)
    assert page.is_hidden("[data-region=sign-in]")
    assert page.input_value("[data-role=input]") == message


def stored_token(page: Page) -> str | None:
    token: str | None = page.evaluate(f"() => sessionStorage.getItem({TOKEN_KEY!r})")
    return token


def authorization_of(request: Request) -> str | None:
    return request.all_headers().get("authorization")


def cut_in_half(route: Route) -> None:
    """A turn's whole stream, delivered only up to its middle: the rest must come from a reconnect."""
    body = route.fetch().body()
    half = body[: len(body) // 2]
    route.fulfill(status=200, headers={"content-type": "text/event-stream; charset=utf-8"}, body=half)


def test_with_identity_off_nothing_of_it_shows_or_is_asked(page: Page, live_server: Server) -> None:
    api_calls: list[Request] = []
    page.on("request", lambda request: api_calls.append(request) if request.resource_type == "fetch" else None)
    open_app(page, live_server.url)
    send(page, PASSWORD)
    wait_status(page, "completed")
    for hook in ("[data-region=sign-in]", "[data-action=sign-out]", "[data-action=open-inbox]", "[data-region=inbox]"):
        assert page.is_hidden(hook), hook
    asked = sorted(request.url.removeprefix(live_server.url) for request in api_calls)
    assert asked == ["/chat", "/threads/search"], "the turn and the recent threads, nothing of identity"
    assert all(authorization_of(request) is None for request in api_calls)


def test_sign_in_after_a_401_then_a_streamed_turn_works(page: Page, identity_server: Server, shoot: Any) -> None:
    expected = identity_server.ask_json(PASSWORD, token=ALICE)["answer"]["text"]
    chats: list[Request] = []
    page.on("request", lambda request: chats.append(request) if request.url.endswith("/chat") else None)
    open_app(page, identity_server.url)
    assert page.is_hidden("[data-region=sign-in]"), "nothing asks for a token before the server does"
    send(page, PASSWORD)

    page.wait_for_selector("[data-region=sign-in]", state="visible", timeout=TIMEOUT_MS)
    wait_status(page, "failed")
    assert auth_message(page) == "Sign in to continue: this service needs an access token."
    assert page.evaluate("() => document.activeElement.dataset.role") == "token"
    assert "Sign in to continue" in (page.text_content("[data-role=outcome]") or "")
    assert "{" not in (page.text_content("[data-role=outcome]") or ""), "a message, not JSON"
    assert page.input_value("[data-role=input]") == PASSWORD, "the refused message is kept to send again"
    shoot("20-identity-sign-in")

    page.fill("[data-role=token]", f"  Bearer {ALICE} ")
    page.click("[data-action=sign-in]")
    page.wait_for_selector("[data-action=sign-out]", state="visible", timeout=TIMEOUT_MS)
    assert page.is_hidden("[data-region=sign-in]")
    assert stored_token(page) == ALICE
    assert page.get_attribute("[data-action=open-inbox]", "data-count") == "0"

    page.click("[data-role=send]")
    page.wait_for_function(
        "() => document.querySelector('[data-role=answer]')?.textContent.length > 20", timeout=TIMEOUT_MS
    )
    assert page.get_attribute("[data-role=connection]", "data-state") == "live"
    wait_status(page, "completed")
    assert answer_text(page) == expected
    refused, streamed = chats
    assert authorization_of(refused) is None
    assert authorization_of(streamed) == f"Bearer {ALICE}"
    assert streamed.headers["accept"] == "text/event-stream"
    shoot("21-identity-signed-in-turn")


def test_a_wrong_token_shows_the_401_message(page: Page, identity_server: Server, shoot: Any) -> None:
    open_app(page, identity_server.url)
    send(page, PASSWORD)
    page.wait_for_selector("[data-region=sign-in]", state="visible", timeout=TIMEOUT_MS)
    page.fill("[data-role=token]", "not-a-token-this-service-knows")
    page.click("[data-action=sign-in]")
    page.wait_for_function(
        "() => document.querySelector('[data-role=auth-message]').textContent.includes('not accepted')",
        timeout=TIMEOUT_MS,
    )
    assert auth_message(page) == "That access token was not accepted. Check it and sign in again."
    assert page.is_visible("[data-region=sign-in]")
    assert page.is_hidden("[data-action=sign-out]")
    assert stored_token(page) is None, "a refused token is not kept"
    shoot("22-identity-wrong-token")


def test_the_token_survives_a_reload_and_rides_on_the_reconnecting_stream(page: Page, identity_server: Server) -> None:
    expected = identity_server.ask_json(PASSWORD, token=BOB)["answer"]["text"]
    sign_in_after_refusal(page, identity_server, BOB)

    replays: list[Request] = []
    page.on("request", lambda request: replays.append(request) if "/events" in request.url else None)
    page.route("**/chat", cut_in_half)
    page.reload()
    page.wait_for_selector("html[data-ready=true]")
    assert stored_token(page) == BOB
    assert page.is_visible("[data-action=sign-out]")
    assert page.is_hidden("[data-region=sign-in]")
    send(page, PASSWORD)
    wait_status(page, "completed")
    assert answer_text(page) == expected
    assert replays, "no reconnect to /runs/{id}/events"
    headers = replays[0].all_headers()
    assert headers["authorization"] == f"Bearer {BOB}"
    assert headers["last-event-id"].startswith("r_")

    page.click("[data-action=sign-out]")
    page.wait_for_selector("[data-region=sign-in]", state="visible")
    assert auth_message(page) == "Signed out. Sign in to continue."
    assert stored_token(page) is None
    assert page.is_hidden("[data-action=open-inbox]")
    assert page.locator("[data-region=transcript] > li").count() == 0, "the conversation was bob's"


def test_a_token_refused_mid_run_asks_to_sign_in_and_then_picks_the_run_up(page: Page, identity_server: Server) -> None:
    expected = identity_server.ask_json(PASSWORD, token=BOB)["answer"]["text"]
    sign_in_after_refusal(page, identity_server, BOB)
    page.route("**/chat", cut_in_half)

    def expired_once(route: Route) -> None:
        # the token ran out between the cut and the reconnect
        page.unroute("**/runs/*/events*", expired_once)
        problem = {"code": "token_expired", "detail": "The bearer token has expired.", "status": 401}
        route.fulfill(status=401, headers={"content-type": "application/problem+json"}, body=json.dumps(problem))

    page.route("**/runs/*/events*", expired_once)
    page.click("[data-role=send]")
    page.wait_for_selector("[data-region=sign-in]", state="visible", timeout=TIMEOUT_MS)
    assert auth_message(page) == (
        "Your sign-in has ended: your access token expired. "
        "The run goes on without this page: sign in again to keep watching it."
    )
    page.wait_for_selector("[data-role=connection][data-state=lost]", timeout=TIMEOUT_MS)
    assert page.get_attribute("[data-role=outcome]", "data-status") == "running", "the run is not over for it"
    assert stored_token(page) is None

    page.fill("[data-role=token]", BOB)
    page.click("[data-action=sign-in]")
    wait_status(page, "completed")
    assert answer_text(page) == expected
    assert page.get_attribute("[data-role=connection]", "data-state") == "closed"


def test_alices_refund_is_refused_to_her_and_approved_by_carol_from_the_inbox(
    page: Page, person: Callable[[], Page], identity_server: Server, shoot: Any
) -> None:
    sign_in_after_refusal(page, identity_server, ALICE, REFUND)
    assert page.is_hidden("[data-region=inbox]"), "alice has nothing to decide"
    page.click("[data-role=send]")
    page.wait_for_selector("[data-role=approval] [data-action=approve]", timeout=TIMEOUT_MS)
    wait_status(page, "waiting")
    run_id = json.loads(page.evaluate("() => sessionStorage.getItem('harness.active')"))["runId"]

    page.click("[data-action=approve]")
    page.wait_for_function(
        "() => document.querySelector('[data-region=approval-error]')?.textContent.length > 0", timeout=TIMEOUT_MS
    )
    assert page.text_content("[data-region=approval-error]") == "Only approvers decide: your decision was not recorded."
    assert page.get_attribute("[data-role=outcome]", "data-status") == "waiting", "the run still waits"
    assert page.is_enabled("[data-role=approval] [data-action=approve]")
    shoot("23-identity-owner-refused")

    carol = person()
    sign_in_after_refusal(carol, identity_server, CAROL)
    carol.wait_for_selector("[data-region=inbox]", state="visible", timeout=TIMEOUT_MS)
    item = carol.locator(f"[data-role=inbox-item][data-run-id={run_id}]")
    assert item.count() == 1
    assert "Refund invoice INV-1001 ($42.00)" in (item.text_content() or "")
    assert "issue_refund" in (item.text_content() or "")
    assert "asked by alice" in (item.text_content() or "")
    assert carol.get_attribute("[data-action=open-inbox]", "data-count") == "1"
    shoot("24-identity-inbox", carol)

    item.locator("[data-decision=approve]").click()
    carol.wait_for_selector(f"[data-role=inbox-item][data-run-id={run_id}]", state="detached", timeout=TIMEOUT_MS)
    assert carol.text_content("[data-region=inbox-note]") == "You approved “Refund invoice INV-1001 ($42.00)”."
    assert carol.get_attribute("[data-action=open-inbox]", "data-count") == "0"
    assert carol.is_visible("[data-region=inbox-empty]")
    shoot("25-identity-inbox-approved", carol)

    # alice's page was still following the paused run: it sees the approved action through
    wait_status(page, "completed")
    assert page.get_attribute("[data-role=outcome]", "data-outcome") == "completed"
    assert "Refund of $42.00 for invoice INV-1001 issued" in answer_text(page)
    assert page.locator("[data-role=approval]").count() == 0


def test_a_run_or_conversation_of_someone_else_shows_the_404_message(page: Page, identity_server: Server) -> None:
    alices = identity_server.ask_json(PASSWORD, token=ALICE)
    sign_in_after_refusal(page, identity_server, BOB)

    # a conversation of alice's: refused as one that does not exist, and forgotten
    page.evaluate(f"() => sessionStorage.setItem('harness.session', {json.dumps(alices['session_id'])})")
    page.reload()
    page.wait_for_selector("html[data-ready=true]")
    send(page, PASSWORD)
    wait_status(page, "failed")
    outcome = page.text_content("[data-role=outcome]") or ""
    assert "This conversation does not exist, or it is not yours" in outcome
    assert "{" not in outcome
    send(page, PASSWORD)
    wait_status(page, "completed")

    # a run of alice's that this tab was to pick up again after a reload
    active = json.dumps({"runId": alices["run_id"], "message": "What alice asked"})
    page.evaluate(f"() => sessionStorage.setItem('harness.active', {json.dumps(active)})")
    page.reload()
    page.wait_for_selector("[data-role=outcome][data-status=failed]", timeout=TIMEOUT_MS)
    assert "This run does not exist, or it is not yours." in (page.text_content("[data-role=outcome]") or "")
    assert page.evaluate("() => sessionStorage.getItem('harness.active')") is None


def test_the_inbox_on_a_phone_rejects_in_place(browser: Browser, identity_server: Server, artifacts: Path) -> None:
    paused = identity_server.ask_json(REFUND, token=ALICE)
    assert paused["status"] == "paused", paused
    context = browser.new_context(viewport={"width": 360, "height": 800}, color_scheme="dark")
    try:
        carol = context.new_page()
        sign_in_after_refusal(carol, identity_server, CAROL)
        item = carol.locator(f"[data-role=inbox-item][data-run-id={paused['run_id']}]")
        item.wait_for(timeout=TIMEOUT_MS)
        overflow = carol.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"the page scrolls sideways by {overflow}px"
        carol.screenshot(path=str(artifacts / "26-identity-inbox-phone.png"), full_page=True)
        item.locator("[data-decision=reject]").click()
        item.wait_for(state="detached", timeout=TIMEOUT_MS)
        assert carol.text_content("[data-region=inbox-note]") == "You rejected “Refund invoice INV-1001 ($42.00)”."
    finally:
        context.close()
    assert identity_server.ask_json(PASSWORD, token=ALICE)["status"] == "completed"


def write_tokens(path: Path, *names: str) -> None:
    """The tokens file naming ``names``, replaced as an operator should: a new file renamed over it."""
    fresh = path.with_suffix(".new")
    fresh.write_text(json.dumps({"tokens": [{"subject": name, **SUBJECTS[name]} for name in names]}))
    os.replace(fresh, path)


@pytest.fixture
def revocable(tmp_path: Path, artifacts: Path, browser: Browser) -> Iterator[tuple[Server, Path]]:
    """Identity on with a tokens file of this test's own, which it edits (owners decide their approvals)."""
    tokens = tmp_path / "tokens.json"
    write_tokens(tokens, "alice", "bob")
    with _serve("revocable", tmp_path / "data", artifacts, HARNESS_AUTH_TOKENS_FILE=str(tokens)) as server:
        yield server, tokens


def wait_until_accepted(server: Server, token: str) -> None:
    """Return once the service takes ``token`` (it re-reads its tokens file within seconds of a change)."""
    request = urllib.request.Request(f"{server.url}/approvals", headers={"Authorization": f"Bearer {token}"})
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while True:
        try:
            with urllib.request.urlopen(request, timeout=10):
                return
        except urllib.error.HTTPError as refused:
            status = refused.code
        assert status == 401, status
        assert time.monotonic() < deadline, "the service did not take the token back"
        time.sleep(0.1)  # polling the service for the file's re-read, not synchronising the page


def test_a_token_revoked_while_its_run_is_watched_says_the_sign_in_ended(
    page: Page, revocable: tuple[Server, Path], shoot: Any
) -> None:
    server, tokens = revocable
    sign_in_after_refusal(page, server, BOB, "Please refund invoice INV-1003.")
    page.click("[data-role=send]")
    page.wait_for_selector("[data-role=approval] [data-action=approve]", timeout=TIMEOUT_MS)
    wait_status(page, "waiting")

    write_tokens(tokens, "alice")  # bob's access is withdrawn while his paused run is on screen
    page.wait_for_selector("[data-region=sign-in]", state="visible", timeout=TIMEOUT_MS)
    assert auth_message(page) == (
        "Your sign-in has ended: your access token was withdrawn. "
        "The run goes on without this page: sign in again to keep watching it."
    )
    page.wait_for_selector("[data-role=connection][data-state=lost]", timeout=TIMEOUT_MS)
    assert page.text_content("[data-role=connection]") == "Signed out: sign in again to keep watching this run"
    assert page.get_attribute("[data-role=outcome]", "data-status") == "waiting", "the run is not over"
    assert stored_token(page) is None
    shoot("27-identity-sign-in-ended")

    write_tokens(tokens, "alice", "bob")
    wait_until_accepted(server, BOB)
    page.fill("[data-role=token]", BOB)
    page.click("[data-action=sign-in]")
    page.wait_for_selector("[data-role=connection][data-state=live]", timeout=TIMEOUT_MS)
    page.click("[data-role=approval] [data-action=approve]")
    wait_status(page, "completed")
    assert "for invoice INV-1003 issued" in answer_text(page)
