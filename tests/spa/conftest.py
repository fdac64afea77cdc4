"""Fixtures for the SPA's end-to-end tests: real servers, a real headless Chromium, screenshots.

Each server is ``harness serve`` in a subprocess on a free loopback port with a fresh data directory
and a token delay that makes streaming observable; ``identity_server`` has identity on, with the tokens of
``SUBJECTS`` and the approver role set; ``graphs_server`` serves the graphs of examples/langgraph.json too.
The browser is Debian's ``/usr/bin/chromium`` (``HARNESS_TEST_CHROMIUM`` names another) driven by
Playwright; screenshots go to test-artifacts/spa/.
Without a browser the tests fail under CI (``CI`` set) and skip loudly elsewhere.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.spa.proxy import CuttableProxy
from tests.support.processes import stop

if TYPE_CHECKING:
    from collections.abc import Iterator

    from playwright.sync_api import Browser, ConsoleMessage, Page

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "spa"
CHROMIUM = Path(os.environ.get("HARNESS_TEST_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
SUBJECTS = {
    "alice": {"token": "alice-token-0123456789abcdef", "roles": ["user"], "account_id": "ACC-2001"},
    "bob": {"token": "bob-token-0123456789abcdef", "roles": ["user"], "account_id": "ACC-2002"},
    "carol": {"token": "carol-token-0123456789abcdef", "roles": ["approver"]},
}
"""Two users with accounts of their own and an approver, as tests/e2e/test_identity.py has them."""
TOKEN_DELAY_MS = 40
SLOW_TOKEN_DELAY_MS = 150
STARTUP_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Server:
    url: str
    host: str
    port: int
    log: Path
    data_dir: Path
    """The service's data directory: a test reads what it kept (its SQLite stores) there."""

    def ask_json(self, message: str, *, token: str | None = None) -> dict[str, Any]:
        """One turn over the JSON route, for the answer the SPA must end up showing."""
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        request = urllib.request.Request(
            f"{self.url}/chat", data=json.dumps({"message": message}).encode(), headers=headers, method="POST"
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            answer: dict[str, Any] = json.load(response)
        return answer


def _missing_browser() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the Python package `playwright` is not installed (pip install playwright)"
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing (apt-get install -y chromium)"
    return None


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    missing = _missing_browser()
    if missing is not None:
        message = f"!!! SPA BROWSER TESTS NOT RUN: {missing}. They run in CI, where this is a failure. !!!"
        print(f"\n{message}", file=sys.stderr)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=1) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


@contextlib.contextmanager
def _serve(name: str, data_dir: Path, artifacts: Path, **extra: str) -> Iterator[Server]:
    port = _free_port()
    env = {key: value for key, value in os.environ.items() if not key.startswith("HARNESS_")}
    env.update(
        HARNESS_HOST="127.0.0.1",
        HARNESS_PORT=str(port),
        HARNESS_DATA_DIR=str(data_dir),
        HARNESS_LLM_PROVIDER="stub",
        HARNESS_STUB_TOKEN_DELAY_MS=str(TOKEN_DELAY_MS),
        HARNESS_RATE_LIMIT_PER_MINUTE="0",
    )
    env.update(extra)
    log = artifacts / f"server-{name}.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "api.cli", "serve"], cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT
        )
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + STARTUP_TIMEOUT_S
            while not _healthy(url):
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"harness serve ({name}) did not come up; see {log}")
                time.sleep(0.1)  # polling a subprocess for readiness, not synchronising a test
            yield Server(url=url, host="127.0.0.1", port=port, log=log, data_dir=data_dir)
        finally:
            stop(process, signal.SIGTERM, within_s=20)


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory, artifacts: Path, browser: Browser) -> Iterator[Server]:
    """The stub model answering at a pace a person (and a test) can watch."""
    with _serve("live", tmp_path_factory.mktemp("live-data"), artifacts) as server:
        yield server


@pytest.fixture(scope="session")
def slow_server(tmp_path_factory: pytest.TempPathFactory, artifacts: Path, browser: Browser) -> Iterator[Server]:
    """Slow enough (about 7 s a turn) that a test can act mid-stream even on a loaded machine."""
    with _serve(
        "slow", tmp_path_factory.mktemp("slow-data"), artifacts, HARNESS_STUB_TOKEN_DELAY_MS=str(SLOW_TOKEN_DELAY_MS)
    ) as server:
        yield server


@pytest.fixture(scope="session")
def failing_server(tmp_path_factory: pytest.TempPathFactory, artifacts: Path, browser: Browser) -> Iterator[Server]:
    """The stub model whose stream breaks after three tokens."""
    with _serve(
        "failing", tmp_path_factory.mktemp("failing-data"), artifacts, HARNESS_STUB_FAIL_AFTER_TOKENS="3"
    ) as server:
        yield server


@pytest.fixture(scope="session")
def identity_server(tmp_path_factory: pytest.TempPathFactory, artifacts: Path, browser: Browser) -> Iterator[Server]:
    """Identity on: bearer tokens of alice, bob (users) and carol (the approver); only approvers decide."""
    tokens = tmp_path_factory.mktemp("identity") / "tokens.json"
    tokens.write_text(json.dumps({"tokens": [{"subject": name, **fields} for name, fields in SUBJECTS.items()]}))
    with _serve(
        "identity",
        tmp_path_factory.mktemp("identity-data"),
        artifacts,
        HARNESS_AUTH_TOKENS_FILE=str(tokens),
        HARNESS_APPROVER_ROLE="approver",
    ) as server:
        yield server


@pytest.fixture(scope="session")
def graphs_server(tmp_path_factory: pytest.TempPathFactory, artifacts: Path, browser: Browser) -> Iterator[Server]:
    """The support agent and the example graphs of examples/langgraph.json (react_agent, research)."""
    with _serve(
        "graphs",
        tmp_path_factory.mktemp("graphs-data"),
        artifacts,
        HARNESS_CONFIG=str(ROOT / "examples" / "langgraph.json"),
    ) as server:
        yield server


@pytest.fixture
def proxy(slow_server: Server) -> Iterator[CuttableProxy]:
    cuttable = CuttableProxy(slow_server.host, slow_server.port)
    try:
        yield cuttable
    finally:
        cuttable.close()


@pytest.fixture
def page_errors() -> list[str]:
    return []


@pytest.fixture
def page(browser: Browser, page_errors: list[str]) -> Iterator[Page]:
    """A fresh browser context (its own storage, so its own session) at a desktop size."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="light")
    opened = context.new_page()
    watch_for_errors(opened, page_errors)
    try:
        yield opened
    finally:
        context.close()
    assert not page_errors, f"the page reported errors: {page_errors}"


def watch_for_errors(page: Page, errors: list[str]) -> None:
    """Uncaught exceptions and CSP violations fail the test; network noise from cut streams does not."""

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error" and "Content Security Policy" in message.text:
            errors.append(f"console: {message.text}")

    page.on("pageerror", lambda error: errors.append(f"pageerror: {error}"))
    page.on("console", on_console)


@pytest.fixture
def shoot(page: Page, artifacts: Path) -> Any:
    def take(name: str, target: Page | None = None) -> Path:
        path = artifacts / f"{name}.png"
        (target or page).screenshot(path=str(path), full_page=True)
        return path

    return take
