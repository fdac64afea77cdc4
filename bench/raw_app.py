"""The baseline: a minimal raw-ASGI app over the same agent graph, with no log and no framework.

- ``POST /chat`` with ``Accept: text/event-stream``: the message through ``admit_message`` (the real input
  guardrail), then the graph's ``astream`` (``stream_mode=["custom"]``), every ``token_delta`` written
  straight to ``send`` as an SSE frame, and a ``: hb`` every ``heartbeat_s`` from a task of its own (what
  keeps a silent stream open through proxies; the service sends them too);
- ``POST /chat`` otherwise: the graph run to its end or its interrupt, answering ``{"run_id", "status"}``;
- ``GET /runs/{run_id}/events``: holds the response open, a ``: hb`` comment every ``heartbeat_s`` (the
  paused graph lives in its checkpoint, nothing of it in memory), until the client leaves;
- ``GET /healthz``.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import TYPE_CHECKING, Any

import msgspec

from agent.config import AgentConfig, StubConfig
from agent.intake import admit_message
from agent.runtime import open_agent
from agent.turns import TURN_DURABILITY, thread_config
from contracts import TokenDelta

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable
    from pathlib import Path

    from agent.llm.protocol import LLMClient
    from agent.runtime import Agent
    from agent.state import AgentState

    Receive = Callable[[], Awaitable[dict[str, Any]]]
    Send = Callable[[dict[str, Any]], Awaitable[None]]

__all__ = ("RawApp", "raw_app")

SSE_HEAD = {"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]}
HEARTBEAT = b": hb\n\n"


def raw_app(data_dir: Path, llm: LLMClient | None, heartbeat_s: float) -> RawApp:
    return RawApp(AgentConfig(data_dir=data_dir, stub=StubConfig(token_delay_ms=0)), llm, heartbeat_s)


class RawApp:
    """The ASGI callable: one ``if`` per route, the agent opened in the lifespan."""

    def __init__(self, config: AgentConfig, llm: LLMClient | None, heartbeat_s: float) -> None:
        self._config = config
        self._llm = llm
        self._heartbeat_s = heartbeat_s
        self._encoder = msgspec.json.Encoder()
        self._ids = itertools.count(1)
        self._agent: Agent | None = None

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        body = await read_body(receive)
        path, method = scope["path"], scope["method"]
        if method == "POST" and path == "/chat":
            message = msgspec.json.decode(body)["message"]
            if b"text/event-stream" in dict(scope["headers"]).get(b"accept", b""):
                await self._stream_turn(message, send)
            else:
                await self._json_turn(message, send)
        elif method == "GET" and path.startswith("/runs/") and path.endswith("/events"):
            await self._hold(receive, send)
        elif path == "/healthz":
            await reply(send, 200, b"ok", b"text/plain")
        else:
            await reply(send, 404, b"not found", b"text/plain")

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        await receive()
        async with open_agent(self._config, llm=self._llm) as agent:
            self._agent = agent
            await send({"type": "lifespan.startup.complete"})
            await receive()
        await send({"type": "lifespan.shutdown.complete"})

    async def _admit(self, message: str) -> tuple[Agent, str, AgentState]:
        assert self._agent is not None, "the lifespan opened the agent"
        session = f"s_raw{next(self._ids)}"
        return self._agent, session, await admit_message(self._agent.deps, message, run_id=session, session_id=session)

    async def _stream_turn(self, message: str, send: Send) -> None:
        await send(SSE_HEAD)
        beats = asyncio.ensure_future(self._beat(send))
        try:
            agent, session, turn = await self._admit(message)
            seq = 0
            async for part in agent.graph.astream(
                turn, thread_config(session), stream_mode=["custom"], version="v2", durability=TURN_DURABILITY
            ):
                if isinstance(part["data"], TokenDelta):
                    seq += 1
                    body = b"id: %d\nevent: token_delta\ndata: %s\n\n" % (seq, self._encoder.encode(part["data"]))
                    await send({"type": "http.response.body", "body": body, "more_body": True})
        finally:
            beats.cancel()
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _beat(self, send: Send) -> None:
        while True:
            await asyncio.sleep(self._heartbeat_s)
            await send({"type": "http.response.body", "body": HEARTBEAT, "more_body": True})

    async def _json_turn(self, message: str, send: Send) -> None:
        agent, session, turn = await self._admit(message)
        output = await agent.graph.ainvoke(turn, thread_config(session), version="v2", durability=TURN_DURABILITY)
        answer = {"run_id": session, "status": "paused" if output.interrupts else "completed"}
        await reply(send, 200, self._encoder.encode(answer), b"application/json")

    async def _hold(self, receive: Receive, send: Send) -> None:
        """Heartbeats until the client leaves: the paused graph is in its checkpoint, nothing of it here."""
        await send(SSE_HEAD)
        await send({"type": "http.response.body", "body": b"retry: 2000\n\n", "more_body": True})
        left = asyncio.ensure_future(receive())  # its only message now is http.disconnect
        try:
            while not (await asyncio.wait({left}, timeout=self._heartbeat_s))[0]:
                await send({"type": "http.response.body", "body": HEARTBEAT, "more_body": True})
        finally:
            left.cancel()


async def read_body(receive: Receive) -> bytes:
    chunks = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


async def reply(send: Send, status: int, body: bytes, media_type: bytes) -> None:
    await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", media_type)]})
    await send({"type": "http.response.body", "body": body})
