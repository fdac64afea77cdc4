"""The AI SDK's own chat client (``ai``: ``DefaultChatTransport`` under an ``AbstractChat``, run by Node) against a
real uvicorn.

The transport validates every chunk against the ``ai`` package's schema and the chat builds its message from them
(a chunk it cannot place fails the request), so these tests check what the client made of each turn shape: the
answer, an approval granted and one refused through ``addToolApprovalResponse``, a stream cut mid-answer and
picked up by ``resumeStream()`` (by the same chat, and after a reload, on another instance with shared stores),
and a failed run.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import msgspec
import pytest

from tests.support.node import run_node

if TYPE_CHECKING:
    from collections.abc import Callable

    from api.settings import Settings
    from tests.e2e.conftest import LiveServer
    from tests.support.shared_stores import SharedStores

CLIENT = Path(__file__).parent / "ai-sdk-client"
PIPELINE_STEPS = 4
"""guardrail_pre, retrieve_context, generate_answer, guardrail_post: one step each."""
SLOW_TOKEN_MS = 80.0
"""Slow enough that a stream cut after five text deltas is picked up while the run still answers."""


def with_stub(settings: Settings, **stub: Any) -> Settings:
    agent = msgspec.structs.replace(settings.agent, stub=msgspec.structs.replace(settings.agent.stub, **stub))
    return msgspec.structs.replace(settings, agent=agent)


def drive(server: LiveServer, scenario: str, chat_id: str, reload_url: str | None = None) -> dict[str, Any]:
    result = run_node(CLIENT, "drive.mjs", server.url, scenario, chat_id, *([reload_url] if reload_url else []))
    report: dict[str, Any] = json.loads(result.stdout)
    assert report["warnings"] == [], "the client warns about nothing it received"
    return report


def snapshot(server: LiveServer, run_id: str) -> dict[str, Any]:
    found: dict[str, Any] = httpx.get(f"{server.url}/runs/{run_id}").json()
    return found


def test_a_question_is_one_assistant_message_with_its_answer_steps_and_sources(
    serve: Callable[..., LiveServer], settings: Settings
) -> None:
    server = serve(settings)
    report = drive(server, "question", "s_aisdk_question")

    assert report["status"] == "ready"
    user, assistant = report["messages"]
    assert user["text"] == "How do I reset my password?"
    run = snapshot(server, assistant["id"])
    assert run["session_id"] == "s_aisdk_question", "the chat's id is the session; the message's, the run's"
    assert run["status"] == "completed"
    assert assistant["text"] == run["response"]["answer"]["text"]
    assert assistant["textParts"] == 1
    assert assistant["steps"] == PIPELINE_STEPS
    assert assistant["sources"] == [citation["doc_id"] for citation in run["response"]["citations"]]
    assert assistant["data"] == ["data-cost"], "topology and node progress are transient"
    assert assistant["metadata"]["status"] == "completed"
    assert report["chunkTypes"].count("text-delta") > 3, "the answer streams token by token"
    assert report["chunkTypes"][0] == "start"
    assert report["chunkTypes"][-1] == "finish"
    assert {"data-topology", "data-node", "data-cost"} <= set(report["onData"])
    assert report["read"] == assistant, "readUIMessageStream builds the same message from the same chunks"


def test_a_refusal_is_the_answer_and_finishes_as_filtered(serve: Callable[..., LiveServer], settings: Settings) -> None:
    server = serve(settings)
    report = drive(server, "refusal", "s_aisdk_refusal")

    assistant = report["messages"][-1]
    run = snapshot(server, assistant["id"])
    assert run["response"]["status"] == "refused"
    assert assistant["text"] == run["response"]["answer"]["text"]
    assert assistant["steps"] == 1, "retrieval never starts"


@pytest.mark.parametrize(
    ("scenario", "state", "status"),
    [("approve", "output-available", "completed"), ("reject", "output-denied", "rejected")],
)
def test_a_pause_is_a_tool_approval_request_and_its_answer_continues_the_run(
    serve: Callable[..., LiveServer], settings: Settings, scenario: str, state: str, status: str
) -> None:
    server = serve(settings)
    report = drive(server, scenario, f"s_aisdk_{scenario}")

    requested = report["requested"]
    assert requested["type"] == "tool-issue_refund"
    assert requested["input"] == {"summary": "Refund invoice INV-1001 ($42.00)"}
    run_id, approval_id = requested["approval"]["id"].split(":")
    assert requested["toolCallId"] == approval_id
    assert report["chunkTypes"].count("start") == 2, "the approval's answer was sent by the chat itself"
    assert report["status"] == "ready"
    _user, assistant = report["messages"]
    assert assistant["id"] == run_id, "the decision continues the same run as the same message"
    (tool,) = assistant["tools"]
    assert tool["state"] == state
    assert tool["approval"]["approved"] is (scenario == "approve")
    run = snapshot(server, run_id)
    assert run["status"] == "completed"
    assert run["response"]["status"] == status
    assert run["decided_by"] is None, "identity is off: the one user decided"
    assert assistant["text"].endswith(run["response"]["answer"]["text"])
    if scenario == "approve":
        assert tool["output"] == {"outcome": "done", "summary": "issue_refund: done"}
    else:
        assert "not this one" in run["response"]["answer"]["text"], "the reason is the decision's comment"


def test_a_stream_cut_mid_answer_is_resumed_by_the_same_chat_without_a_lost_or_repeated_delta(
    serve: Callable[..., LiveServer], settings: Settings
) -> None:
    server = serve(with_stub(settings, token_delay_ms=SLOW_TOKEN_MS))
    report = drive(server, "resume", "s_aisdk_resume")

    cut = report["cut"]
    assert report["first"]["status"] == "error", "the chat saw the connection drop"
    assistant = report["messages"][-1]
    run = snapshot(server, assistant["id"])
    answer = run["response"]["answer"]["text"]
    assert cut["text"], "the cut came mid-answer"
    assert answer.startswith(cut["text"])
    assert cut["text"] != answer
    assert assistant["id"] == cut["id"]
    assert assistant["text"] == answer, "every delta exactly once, in order"
    assert assistant["textParts"] == 1
    assert assistant["steps"] == PIPELINE_STEPS
    assert report["status"] == "ready"
    assert report["afterEnd"] is None, "once the run has ended there is nothing to resume (204)"


def test_a_reload_mid_answer_resumes_the_run_from_its_start_on_any_instance(
    serve: Callable[..., LiveServer], settings: Settings, stores: SharedStores | None, tmp_path: Path
) -> None:
    slow = with_stub(settings, token_delay_ms=SLOW_TOKEN_MS)
    server = serve(slow)
    other = server
    if stores is not None:  # a second instance on the same stores: the reload lands there
        other = serve(msgspec.structs.replace(slow, agent=msgspec.structs.replace(slow.agent, data_dir=tmp_path / "b")))
    report = drive(server, "reload", "s_aisdk_reload", other.url)

    reloaded = report["reloaded"]
    assert reloaded["status"] == "ready", reloaded["error"]
    _user, assistant = reloaded["messages"]
    assert assistant["id"] == report["cut"]["id"]
    answer = snapshot(server, assistant["id"])["response"]["answer"]["text"]
    assert report["cut"]["text"] != answer
    assert assistant["text"] == answer
    assert assistant["textParts"] == 1
    assert assistant["sources"]


def test_a_failed_run_is_an_error_the_chat_reports(serve: Callable[..., LiveServer], settings: Settings) -> None:
    server = serve(with_stub(settings, fail_after_tokens=3))
    report = drive(server, "error", "s_aisdk_error")

    assert report["status"] == "error"
    assert report["error"]
    assert report["error"] == report["onError"]
    assert "error" in report["chunkTypes"]
    assistant = report["messages"][-1]
    run = snapshot(server, assistant["id"])
    assert run["status"] == "failed"
    assert report["error"] == run["error"]["message"]
    assert assistant["role"] == "assistant"
    assert assistant["steps"] >= 3, "the message keeps what came before the failure"
    status = httpx.get(f"{server.url}/ai-sdk/chat/s_aisdk_error/stream")
    assert status.status_code == 204, "a failed run is not active"


def test_silences_are_heartbeat_comments_and_a_client_that_leaves_is_the_disconnect_policy(
    serve: Callable[..., LiveServer], settings: Settings
) -> None:
    slow = with_stub(settings, token_delay_ms=300.0)
    server = serve(msgspec.structs.replace(slow, heartbeat_s=0.05, disconnect_grace_s=0.0))
    body = {"id": "s_aisdk_left", "messages": [{"id": "u", "role": "user", "parts": [{"type": "text", "text": "Hi"}]}]}
    lines: list[str] = []
    with httpx.stream("POST", f"{server.url}/ai-sdk/chat", json=body, timeout=30) as response:
        run_id = response.headers["run-id"]
        for line in response.iter_lines():
            lines.append(line)
            if line == ": hb" and any('"text-delta"' in seen for seen in lines):
                break  # the client leaves mid-answer

    assert lines[0].startswith('data: {"type":"start"')
    assert ": hb" in lines, "a silence is an SSE comment, which the AI SDK's parser skips"
    deadline = time.monotonic() + 20
    while (run := snapshot(server, run_id))["status"] == "running" and time.monotonic() < deadline:
        time.sleep(0.05)  # polling the run's snapshot until it settles, as tests/e2e/test_cluster.py does
    assert run["status"] == "cancelled"
    assert run["error"]["code"] == "client_disconnected"
    assert httpx.get(f"{server.url}/ai-sdk/chat/s_aisdk_left/stream").status_code == 204
