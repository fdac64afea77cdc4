"""A run paused at an ``interrupt()``, asked of an MCP client that declared elicitation: an ``elicitation/create``
request on the call's stream, and the client's answer, a response POSTed to ``/mcp`` (on any instance).

The request's id names the thread, the run and the approval it asks about, so that its answer needs no session
state: the answer resumes the run through ``open_graph_run`` (the approver rule of every route), ``accept`` with
the form's content (``{"decision": "approve" | "reject", "comment"?}``), ``decline`` as a rejection, ``cancel`` by
cancelling the run.
"""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING, Any

from api.chat_runs import Decision, open_graph_run
from api.mcp.jsonrpc import request_body
from api.runs.errors import RunNotFound, RunsError

if TYPE_CHECKING:
    from agent.graphs import GraphRegistry
    from api.auth import Principal
    from api.runs.registry import RunRegistry
    from api.runs.threads import ThreadBook
    from contracts import PendingApproval

__all__ = ("ELICITATION_PREFIX", "answer_elicitation", "elicitation_request")

logger = logging.getLogger(__name__)

ELICITATION_PREFIX = "approval:"
DECISION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "decision": {"type": "string", "title": "Decision", "enum": ["approve", "reject"]},
        "comment": {"type": "string", "title": "Comment"},
    },
    "required": ["decision"],
}


def elicitation_request(thread_id: str, run_id: str, approval: PendingApproval, value: Any) -> bytes:
    params = {
        "mode": "form",
        "message": f"Approve this? {approval.summary}",
        "requestedSchema": DECISION_SCHEMA,
        "_meta": {"action": approval.action, "approvalId": approval.approval_id, "interrupt": value},
    }
    call_id = f"{ELICITATION_PREFIX}{thread_id}:{run_id}:{approval.approval_id}"
    return request_body(call_id, "elicitation/create", params)


async def answer_elicitation(
    runs: RunRegistry,
    threads: ThreadBook,
    graphs: GraphRegistry,
    principal: Principal,
    *,
    call_id: str,
    result: Any,
    modes: tuple[str, ...],
) -> None:
    """Resume (or cancel) the run an elicitation asked about with the client's answer; what cannot be done is
    logged (an answer is a response: nothing answers it)."""
    thread_id, _, rest = call_id.removeprefix(ELICITATION_PREFIX).partition(":")
    run_id, _, approval_id = rest.partition(":")
    action = result.get("action") if isinstance(result, dict) else None
    try:
        found = await runs.get(run_id, principal)
        if await threads.hides(found.record.snapshot.session_id):
            raise RunNotFound(f"There is no run {run_id}.")
        graph = found.record.graph
        registered = None if graph is None else graphs.get(graph.graph_id)
        if registered is None:
            return
        if action == "cancel":
            with contextlib.suppress(RunsError):
                await runs.cancel(found, principal)
            return
        content = result.get("content") if action == "accept" else None
        value = content if isinstance(content, dict) else {"decision": "reject"}
        decision = Decision(run_id=run_id, approval_id=approval_id, value=value)
        await open_graph_run(runs, threads, registered, thread_id, decision, principal=principal, modes=modes)
    except RunsError as exc:
        logger.info("an elicitation's answer for run %s was not applied: %s", run_id, exc.detail)
