"""Drives one turn (or the rest of a paused one) through the graph and appends its events to the run."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any, cast

from agent import (
    STREAM_MODES,
    StreamTranslator,
    admit,
    chat_response,
    deleted_account,
    format_timestamp,
    message_text,
    pending_approval,
)
from agent.llm import LLMError
from agent.stores import is_store_failure
from contracts import ErrorInfo, InteractionLogged, RunStatus, TokenDelta

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig

    from agent import Agent, AgentState
    from api.runs.run import Run

__all__ = ("execute",)

logger = logging.getLogger(__name__)

_CANCEL_MESSAGES = {
    "cancelled": ("The run was cancelled.", False),
    "client_disconnected": ("Every client left and none came back within the grace period.", True),
    "server_shutdown": ("The server shut down while this run was in progress.", True),
}


async def execute(run: Run, agent: Agent, graph_input: Any, config: RunnableConfig, *, resume: bool) -> str | None:
    """Run the graph for ``run``; the account the turn deleted, when it carried out a ``delete_account``."""
    translator = StreamTranslator()
    try:
        stream_input = await admit(agent.deps, graph_input, resume=resume)
        answering = False
        async for part in agent.graph.astream(stream_input, config, stream_mode=STREAM_MODES, version="v2"):
            event = translator.translate(part)
            if event is not None:
                run.emit(event)
                if not answering and isinstance(event, TokenDelta):
                    answering = True
                    # A model's chunks can come in a burst: the first token is committed (one yield, to the log's
                    # writer) and sent (another, to the streams it woke) before the rest of the burst is read
                    await asyncio.sleep(0)
                    await asyncio.sleep(0)
        state = await agent.graph.aget_state(config)
        values = cast("AgentState", state.values)
        if state.interrupts:
            approval = pending_approval(values)
            assert approval is not None, "the graph pauses only for a proposal"
            run.pause(chat_response(values, paused=True), approval)
        else:
            response = chat_response(values, paused=False)
            response.decided_by = run.record.snapshot.decided_by  # the interaction log records who decided
            interaction_id = await agent.interactions.record(
                agent.deps.ids.new("int"), message_text(values), response, format_timestamp(agent.deps.clock.now_ns())
            )
            run.emit(InteractionLogged(interaction_id=interaction_id))
            run.complete(response)
            return deleted_account(values)
    except asyncio.CancelledError:
        reason = run.cancel_reason
        if reason is None:
            raise
        if run.fenced:
            return None  # another instance owns the run now; nothing more is written from here
        message, retryable = _CANCEL_MESSAGES[reason]
        status: RunStatus = "failed" if reason == "server_shutdown" else "cancelled"
        run.fail(
            ErrorInfo(code=reason, message=message, retryable=retryable, node=translator.running_node),
            status=status,
        )
    except LLMError as exc:
        run.fail(
            ErrorInfo(
                code=exc.code,
                message=str(exc),
                retryable=exc.retryable,
                node=translator.running_node,
            )
        )
    except Exception as exc:
        if is_store_failure(exc):
            logger.error("run %s failed: a store is unreachable (%s)", run.run_id, type(exc).__name__)
            run.fail(
                ErrorInfo(
                    code="store_unavailable",
                    message="A store the service needs is unreachable; try again shortly.",
                    retryable=True,
                    node=translator.running_node,
                )
            )
            return None
        logger.exception("run %s failed", run.run_id)
        run.fail(
            ErrorInfo(
                code="internal_error",
                message="The agent failed unexpectedly; the failure is logged on the server.",
                retryable=False,
                node=translator.running_node,
            )
        )
    return None
