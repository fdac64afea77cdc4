"""A recording fake model provider: an OpenAI-compatible server on loopback that answers every question with
one fixed answer, or a refund of invoice INV-1002 with its proposal (streamed), and every input-screening
call with a verdict; it keeps every request it got.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from tests.agent.llm.fake_server import FakeProviderServer, Reply, json_reply, openai_stream

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.agent.llm.fake_server import Received

__all__ = ("ANSWER_TEXT", "recording_provider")

ANSWER_TEXT = "Open Settings, then Billing, and follow the steps there."


def recording_provider(verdict: Callable[[str], str] | None = None) -> FakeProviderServer:
    """``verdict(message)`` names the screening verdict (``allow``, ``prompt_injection``...); default allow."""

    def reply(request: Received) -> Reply:
        body = request.json
        if body.get("stream"):
            answer: dict[str, object] = {"kind": "answer", "citations": [], "text": ANSWER_TEXT}
            if "refund invoice INV-1002" in body["messages"][-1]["content"]:
                refund = {"name": "issue_refund", "arguments": {"invoice_id": "INV-1002"}}
                answer = {"kind": "action_proposal", "action": refund, "text": "I can refund it once approved."}
            encoded = msgspec.json.encode(answer).decode()
            return Reply(events=openai_stream([encoded[:20], encoded[20:]]))
        said = body["messages"][-1]["content"]
        content = msgspec.json.encode({"verdict": verdict(said) if verdict else "allow"}).decode()
        return json_reply({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]})

    return FakeProviderServer(reply)
