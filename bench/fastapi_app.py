"""The peer most teams would pick: FastAPI, a pydantic request model and sse-starlette over the same graph.

``POST /chat`` answers an ``EventSourceResponse`` of the graph's ``token_delta`` events (the message through
``admit_message``, the real input guardrail, then ``astream`` with ``stream_mode=["custom"]``), with no log.
Needs the ``bench`` extra.
"""

from __future__ import annotations

import itertools
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import msgspec
from fastapi import FastAPI
from pydantic import BaseModel
from sse_starlette import EventSourceResponse, ServerSentEvent

from agent.config import AgentConfig, StubConfig
from agent.intake import admit_message
from agent.runtime import open_agent
from agent.turns import TURN_DURABILITY, thread_config
from contracts import TokenDelta

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from pathlib import Path

    from agent.llm.protocol import LLMClient
    from agent.runtime import Agent

__all__ = ("fastapi_app",)


class ChatBody(BaseModel):
    message: str
    session_id: str | None = None


def fastapi_app(data_dir: Path, llm: LLMClient | None) -> FastAPI:
    state: dict[str, Agent] = {}
    ids = itertools.count(1)
    encoder = msgspec.json.Encoder()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        config = AgentConfig(data_dir=data_dir, stub=StubConfig(token_delay_ms=0))
        async with open_agent(config, llm=llm) as agent:
            state["agent"] = agent
            yield

    async def token_events(message: str) -> AsyncIterator[ServerSentEvent]:
        agent = state["agent"]
        session = f"s_fastapi{next(ids)}"
        turn = await admit_message(agent.deps, message, run_id=session, session_id=session)
        seq = 0
        async for part in agent.graph.astream(
            turn, thread_config(session), stream_mode=["custom"], version="v2", durability=TURN_DURABILITY
        ):
            if isinstance(part["data"], TokenDelta):
                seq += 1
                yield ServerSentEvent(data=encoder.encode(part["data"]).decode(), event="token_delta", id=str(seq))

    app = FastAPI(lifespan=lifespan)

    @app.post("/chat")
    async def chat(body: ChatBody) -> EventSourceResponse:
        return EventSourceResponse(token_events(body.message))

    @app.get("/healthz")
    async def healthz() -> dict[str, Any]:
        return {"status": "ok"}

    return app
