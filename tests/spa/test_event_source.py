"""A browser's own ``EventSource`` on ``GET /runs/{id}/events``: no code of ours on the client side at all.

It must get every event once and in order, reconnect by itself after a dropped connection (sending
``Last-Event-ID``) without losing or repeating an event, and stop for good after the run's terminal event:
the server answers its reconnect with ``204 No Content``, the WHATWG way to say "do not reconnect".
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Page, Response

    from tests.spa.conftest import Server
    from tests.spa.proxy import CuttableProxy

pytestmark = pytest.mark.browser

PASSWORD = "How do I reset my password?"
TIMEOUT_MS = 30_000
RETRY_MS = 2000  # the service's default `retry:` hint, which EventSource honours

# Records, on window.__es, everything an EventSource reports: each contract event (as the browser parsed
# it) and each `error`, told apart as docs/events.md says (a MessageEvent is the contract's `error` event).
LISTEN = """(url) => {
  const types = ['graph_topology', 'node_started', 'node_completed', 'token_delta', 'cost_updated', 'paused',
                 'interaction_logged', 'turn_completed', 'snapshot'];
  const log = { events: [], contractErrors: [], connectionErrors: [], onerror: [] };
  const source = new EventSource(url);
  for (const type of types) {
    source.addEventListener(type, (event) => {
      log.events.push({ type, id: event.lastEventId, seq: JSON.parse(event.data).seq });
    });
  }
  source.addEventListener('error', (event) => {
    if (event instanceof MessageEvent) {
      const envelope = JSON.parse(event.data);
      log.events.push({ type: 'error', id: event.lastEventId, seq: envelope.seq });
      log.contractErrors.push(envelope.data.code);
    } else {
      log.connectionErrors.push(source.readyState);
    }
  });
  source.onerror = (event) => log.onerror.push(event instanceof MessageEvent ? 'message' : 'connection');
  window.__es = { source, log };
}"""


def start_turn_in_page(page: Page) -> str:
    """Start a turn as a streaming POST, take its run id from the `Run-Id` header, and leave the stream."""
    run_id: str = page.evaluate(
        """async (message) => {
          const controller = new AbortController();
          const response = await fetch('/chat', {
            method: 'POST', signal: controller.signal,
            headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
            body: JSON.stringify({ message }),
          });
          const runId = response.headers.get('Run-Id');
          controller.abort();
          return runId;
        }""",
        PASSWORD,
    )
    return run_id


def record_event_requests(page: Page, run_id: str) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []

    def on_response(response: Response) -> None:
        if response.url.endswith(f"/runs/{run_id}/events"):
            last_event_id = response.request.header_value("last-event-id")
            seen.append({"status": response.status, "last_event_id": last_event_id})

    page.on("response", on_response)
    return seen


def log_of(page: Page) -> dict[str, Any]:
    log: dict[str, Any] = page.evaluate("() => window.__es.log")
    return log


def wait_closed(page: Page) -> None:
    page.wait_for_function("() => window.__es.source.readyState === EventSource.CLOSED", timeout=TIMEOUT_MS)


def replay_ids(server: Server, run_id: str) -> list[str]:
    with urllib.request.urlopen(f"{server.url}/runs/{run_id}/events", timeout=30) as response:
        body = response.read().decode()
    return [line.removeprefix("id: ") for line in body.split("\n") if line.startswith("id: ")]


def test_event_source_gets_every_event_once_then_stops_on_204(page: Page, live_server: Server) -> None:
    run_id = live_server.ask_json(PASSWORD)["run_id"]
    page.goto(f"{live_server.url}/healthz")
    requests = record_event_requests(page, run_id)

    page.evaluate(LISTEN, f"/runs/{run_id}/events")
    wait_closed(page)
    log = log_of(page)

    seqs = [event["seq"] for event in log["events"]]
    assert seqs == list(range(1, len(seqs) + 1)), "every event once, in order"
    assert [event["id"] for event in log["events"]] == replay_ids(live_server, run_id)
    assert log["events"][-1]["type"] == "turn_completed"
    assert requests == [
        {"status": 200, "last_event_id": None},
        {"status": 204, "last_event_id": f"{run_id}:{seqs[-1]}"},
    ], "one reconnect after the end, answered 204, and EventSource gave up"
    assert log["connectionErrors"] == [0, 2], "CONNECTING when the stream ended, CLOSED after the 204"

    page.wait_for_timeout(2 * RETRY_MS)  # a loop would have reconnected by now; this proves a negative
    assert len(requests) == 2
    assert log_of(page)["events"] == log["events"]


def test_a_dropped_connection_resumes_from_last_event_id_without_loss(
    page: Page, slow_server: Server, proxy: CuttableProxy
) -> None:
    page.goto(f"{proxy.url}/healthz")
    run_id = start_turn_in_page(page)
    requests = record_event_requests(page, run_id)

    page.evaluate(LISTEN, f"/runs/{run_id}/events")
    page.wait_for_function("() => window.__es.log.events.length >= 8", timeout=TIMEOUT_MS)
    before_cut = log_of(page)["events"]
    assert before_cut[-1]["type"] != "turn_completed", "the cut must come mid-run"
    assert proxy.cut() > 0
    wait_closed(page)
    log = log_of(page)

    seqs = [event["seq"] for event in log["events"]]
    assert seqs == list(range(1, len(seqs) + 1)), "nothing lost, nothing twice"
    assert [event["id"] for event in log["events"]] == replay_ids(slow_server, run_id)
    assert log["events"][-1]["type"] == "turn_completed"
    statuses = [request["status"] for request in requests]
    assert statuses[0] == 200
    assert statuses[-1] == 204
    resumed = requests[1]
    assert resumed["status"] == 200
    assert resumed["last_event_id"] is not None
    assert int(resumed["last_event_id"].split(":")[1]) >= before_cut[-1]["seq"], "it resumed after what it had"
    assert log["connectionErrors"][0] == 0, "the drop: EventSource was reconnecting (CONNECTING)"


def test_the_contract_error_event_and_the_connection_error_are_told_apart(page: Page, failing_server: Server) -> None:
    request = urllib.request.Request(
        f"{failing_server.url}/chat",
        data=json.dumps({"message": PASSWORD}).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with pytest.raises(urllib.error.HTTPError) as failed:
        urllib.request.urlopen(request, timeout=30)
    run_id = json.loads(failed.value.read())["run_id"]
    page.goto(f"{failing_server.url}/healthz")

    page.evaluate(LISTEN, f"/runs/{run_id}/events")
    wait_closed(page)
    log = log_of(page)

    assert log["events"][-1]["type"] == "error"
    assert log["contractErrors"] == ["provider_stream_failed"], "the run's error event, as a MessageEvent"
    assert log["connectionErrors"] == [0, 2], "the connection's error events, plain Events"
    assert log["onerror"] == ["message", "connection", "connection"], "onerror sees both kinds too"
