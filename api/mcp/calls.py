"""MCP's methods (the 2025-11-25 revision's initialize handshake) on the registered graphs: ``initialize``,
``ping``, ``tools/list``, ``tools/call``, and the ``notifications/cancelled`` that ends a call's run.

A ``tools/call`` is a run of the tool's graph on a thread of its own, opened through ``open_graph_run`` as AG-UI's
and A2A's runs are, and answered from its committed events through ``RunStreams.follow``. The thread's id is made
from the client's MCP session and the request's id, so a ``notifications/cancelled`` for that request finds the
run on any instance (through the durable thread) and cancels it, with the ownership rule of every route.
"""

from __future__ import annotations

import contextlib
import hashlib
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from litestar import Response
from litestar.response import Stream

from api.chat_runs import NewTurn, open_graph_run
from api.mcp.elicitation import ELICITATION_PREFIX, answer_elicitation
from api.mcp.jsonrpc import InvalidParams, McpMessage, MethodNotFound, result_body
from api.mcp.stream import ToolCallProjection, ToolCallResult, ToolCallStream
from api.mcp.tools import tool_list
from api.openapi import RUN_ID_HEADER, SESSION_ID_HEADER
from api.run_streams import held_slot, run_stream
from api.runs.errors import RunsError

if TYPE_CHECKING:
    from agent.graphs import GraphRegistry
    from api.auth import Principal
    from api.runs.cluster.quotas import StreamQuota
    from api.runs.registry import RunRegistry
    from api.runs.stream.follow import RunStreams
    from api.runs.threads import ThreadBook

__all__ = ("MCP_MODES", "PROTOCOL_VERSIONS", "SESSION_HEADER", "McpCalls", "thread_of_call")

MCP_MODES = ("values", "messages", "custom")
"""What an MCP call's run logs: its state (a paused call's result), a chat model's chunks, custom writes (progress)."""
PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26")
"""The handshake revisions served (the newest first, what a client asking another one is answered)."""
SESSION_HEADER = "mcp-session-id"
ELICITING = "-elicits"
"""The end of a session id whose client declared elicitation at ``initialize`` (sessions are not kept: the id says
it)."""
_JSON = "application/json"
_INSTRUCTIONS = (
    "Each tool runs one registered LangGraph graph to its end and returns its final state. A run that stops at an "
    "interrupt() returns the pending approval; a person with the approver role decides it."
)


def thread_of_call(session_id: str, call_id: str | int) -> str:
    """The thread a session's request runs on: the same on every instance, letters only (never shaped like a
    number the service refuses as an id)."""
    digest = hashlib.sha256(f"{session_id}\x00{call_id!r}".encode()).digest()
    return "mcp-" + "".join(chr(97 + byte % 26) for byte in digest[:24])


@dataclass(frozen=True, slots=True)
class McpCalls:
    graphs: GraphRegistry
    runs: RunRegistry
    threads: ThreadBook
    streams: RunStreams
    quota: StreamQuota
    principal: Principal
    session_id: str | None
    streaming: bool
    """The client accepts ``text/event-stream``."""
    version: str

    async def answer(self, message: McpMessage) -> Response[Any]:
        """The answer to a request (``message.is_request``)."""
        call_id = message.id
        match message.method:
            case "initialize":
                return self._initialize(message)
            case "ping":
                return _json(result_body(call_id, {}))
            case "tools/list":
                return _json(result_body(call_id, {"tools": tool_list(self.graphs)}))
            case "tools/call":
                return await self._call(message)
            case _:
                raise MethodNotFound(f"There is no method {message.method!r} here.", call_id)

    async def notified(self, message: McpMessage) -> None:
        """A notification, or the client's response to a request of the service's: a cancelled request ends its
        run, an elicitation's answer resumes it; the others ask nothing."""
        if message.method is None and isinstance(message.id, str) and message.id.startswith(ELICITATION_PREFIX):
            await answer_elicitation(
                self.runs,
                self.threads,
                self.graphs,
                self.principal,
                call_id=message.id,
                result=message.result,
                modes=MCP_MODES,
            )
            return
        if message.method != "notifications/cancelled" or self.session_id is None:
            return
        request_id = message.params.get("requestId")
        if not isinstance(request_id, str | int) or isinstance(request_id, bool):
            return
        thread_id = thread_of_call(self.session_id, request_id)
        run_id = None if await self.threads.hides(thread_id) else await self.threads.active_run(thread_id)
        if run_id is None:
            return
        with contextlib.suppress(RunsError):  # ended already, or not theirs: a notification gets no answer
            await self.runs.cancel(await self.runs.get(run_id, self.principal), self.principal)

    def _initialize(self, message: McpMessage) -> Response[Any]:
        asked = message.params.get("protocolVersion")
        capabilities = message.params.get("capabilities")
        elicits = isinstance(capabilities, dict) and capabilities.get("elicitation") is not None
        session_id = uuid.uuid4().hex + (ELICITING if elicits else "")
        version = asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0]
        result = {
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": "agent-harness", "title": "Agent Harness", "version": self.version},
            "instructions": _INSTRUCTIONS,
        }
        return _json(result_body(message.id, result), {SESSION_HEADER: session_id})

    async def _call(self, message: McpMessage) -> Response[Any]:
        call_id = message.id
        assert call_id is not None
        name = message.params.get("name")
        registered = self.graphs.get(name) if isinstance(name, str) else None
        if registered is None:
            raise InvalidParams(f"There is no tool {name!r}; the tools: {', '.join(self.graphs.graph_ids)}.", call_id)
        arguments = message.params.get("arguments") or {}
        if not isinstance(arguments, dict):
            raise InvalidParams("A tool's arguments are an object.", call_id)
        meta = message.params.get("_meta")
        token = meta.get("progressToken") if isinstance(meta, dict) else None
        thread_id = thread_of_call(self.session_id or uuid.uuid4().hex, call_id)
        try:
            async with held_slot(self.quota, self.principal) as slot:
                opened = await open_graph_run(
                    self.runs,
                    self.threads,
                    registered,
                    thread_id,
                    NewTurn(arguments),
                    principal=self.principal,
                    modes=MCP_MODES,
                )
        except RunsError as exc:  # what the run core refuses is the tool's error, for the model to read
            failed = {"content": [{"type": "text", "text": exc.detail}], "isError": True}
            return _json(result_body(call_id, failed))
        projection = ToolCallProjection(
            call_id=call_id,
            run_id=opened.run_id,
            thread_id=opened.session_id,
            progress_token=token if isinstance(token, str | int) and not isinstance(token, bool) else None,
            roles=opened.roles,
            elicit=self._elicits(),
        )
        headers = {RUN_ID_HEADER: opened.run_id, SESSION_ID_HEADER: opened.session_id}
        if self.streaming:
            encoder = ToolCallStream(projection)
            return run_stream(self.streams, opened.run_id, opened.after, slot, encoder=encoder, headers=headers)
        result = ToolCallResult(projection)
        body = result.body(self.streams.follow(opened.run_id, opened.after, result))
        return Stream(slot.hold(body), media_type=_JSON, headers=headers)

    def _elicits(self) -> bool:
        """Whether a pause is asked of this client: it declared elicitation (its session says so), it reads the
        call's stream, and its subject may decide the approval."""
        access = self.runs.access
        may_decide = access.approver_role is None or access.is_approver(self.principal)
        return self.streaming and may_decide and (self.session_id or "").endswith(ELICITING)


def _json(body: bytes, headers: dict[str, str] | None = None) -> Response[bytes]:
    return Response(body, media_type=_JSON, status_code=200, headers=headers)
