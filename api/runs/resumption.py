"""Resuming a run that waits for a person: a decision on an approval (``/chat``, AG-UI) or an answer to a graph's
interrupt (the Agent Protocol's ``command.resume``).

A waiting run holds no task and lives only in the log, so any instance may resume it: the one that claims it first
executes it from there, deciding the approval it waits for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import msgspec
from langgraph.types import Command

from agent.graphs import SUPPORT_GRAPH_ID
from api.runs.errors import ApprovalNotFound, NotAnApprover, RunNotPaused, RunRequestInvalid

if TYPE_CHECKING:
    from agent.graphs import RegisteredGraph
    from api.runs.access import AccessPolicy
    from api.runs.launcher import RunLauncher
    from api.runs.log.protocols import EventLog
    from api.runs.log.records import GraphRun, RunRecord
    from api.runs.principal import Principal
    from api.runs.run import Run
    from api.runs.webhook_expectations import WebhookExpectations
    from contracts import ResumeRequest, RunSnapshot

__all__ = ("Resumption",)


class ReadableRuns(Protocol):
    """How a resume finds the run it continues (``RunRegistry``)."""

    async def find(self, run_id: str) -> Run | RunRecord | None: ...

    async def get(self, run_id: str, principal: Principal, *, session_id: str | None = None) -> Run | RunRecord: ...


class Resumption:
    def __init__(
        self,
        runs: ReadableRuns,
        log: EventLog,
        launcher: RunLauncher,
        support: RegisteredGraph,
        *,
        access: AccessPolicy,
        webhooks: WebhookExpectations,
    ) -> None:
        self._runs = runs
        self._log = log
        self._launcher = launcher
        self._support = support
        """The support agent, whose approvals ``resume`` decides."""
        self._access = access
        self._webhooks = webhooks

    async def resume_graph_run(
        self, registered: RegisteredGraph, thread_id: str, resume: Any, options: GraphRun, principal: Principal
    ) -> tuple[Run, int]:
        """Continue the thread's run that waits at an interrupt with ``Command(resume=resume)``, for ``principal``
        (who must be allowed to decide it); the run, and the seq it resumes after. The stream modes of the
        resuming request (``options``) join the run's."""
        run_id = await self._log.active_run(thread_id)
        found = None if run_id is None else await self._runs.find(run_id)
        if found is None or found.record.graph is None or found.current_snapshot().status != "waiting":
            raise RunNotPaused(f"Thread {thread_id} has no run waiting at an interrupt.")
        found = await self._runs.get(found.run_id, principal)
        if not self._access.may_decide(principal, found.record):
            raise NotAnApprover(f"Only subjects with the role {self._access.approver_role!r} answer interrupts.")
        record = await self._log.claim_run(found.run_id)
        if record is None or record.snapshot.status != "waiting" or record.graph is None:
            if record is not None:
                await self._log.release_run(found.run_id)
            raise RunNotPaused(f"Run {found.run_id} is being resumed or executed right now.")
        if options.webhook is not None:  # the resumed run is delivered to the newest webhook asked for
            record.graph.webhook = options.webhook
            try:
                await self._webhooks.expect(record)
            except BaseException:
                await self._log.release_run(found.run_id)
                raise
        record.graph.modes = sorted({*record.graph.modes, *options.modes})
        record.graph.stream_modes = sorted({*record.graph.stream_modes, *options.stream_modes})
        pending = record.snapshot.pending_approval
        run = self._launcher.track(record)
        cursor = run.last_seq
        run.resume(decided_by=principal.subject)
        run.emit(msgspec.structs.replace(registered.topology, session_id=thread_id))
        approval_id = pending.approval_id if pending is not None else ""
        self._launcher.launch_graph(run, registered, Command(resume=resume), principal, deciding=approval_id)
        return run, cursor

    async def resume(self, request: ResumeRequest, principal: Principal) -> tuple[Run, int]:
        """Continue a waiting run with ``principal``'s decision; returns the run and the seq it resumes after."""
        found = await self._runs.get(request.run_id, principal, session_id=request.session_id)
        if (graph := found.record.graph) is not None and graph.graph_id != SUPPORT_GRAPH_ID:
            # the support agent's runs take this decision whichever protocol started them (AG-UI, the Agent Protocol)
            raise RunRequestInvalid(
                f"Run {request.run_id} is a run of graph {graph.graph_id!r}: answer its interrupt with POST "
                f"/threads/{found.record.snapshot.session_id}/runs and a command.resume (docs/agent-protocol.md)."
            )
        snapshot = found.current_snapshot()
        if snapshot.status != "waiting":  # decided already, or never paused: the same for everyone
            _check_decidable(snapshot, request)
        if not self._access.may_decide(principal, found.record):
            raise NotAnApprover(f"Only subjects with the role {self._access.approver_role!r} decide approvals.")
        _check_decidable(snapshot, request)
        record = await self._log.claim_run(request.run_id)
        if record is None:
            raise RunNotPaused(f"Run {request.run_id} is being decided or executed right now.")
        try:
            _check_decidable(record.snapshot, request)
        except Exception:
            await self._log.release_run(request.run_id)
            raise
        run = self._launcher.track(record)
        cursor = run.last_seq
        run.resume(decided_by=principal.subject)
        run.emit(msgspec.structs.replace(self._support.topology, session_id=run.session_id))
        decision: Command[Any] = Command(resume={"decision": request.decision, "comment": request.comment})
        self._launcher.launch_graph(run, self._support, decision, principal, deciding=request.approval_id)
        return run, cursor


def _check_decidable(snapshot: RunSnapshot, request: ResumeRequest) -> None:
    pending = snapshot.pending_approval
    if snapshot.status != "waiting" or pending is None:
        raise RunNotPaused(f"Run {snapshot.run_id} is {snapshot.status}, not waiting for an approval.")
    if pending.approval_id != request.approval_id:
        raise ApprovalNotFound(
            f"Run {snapshot.run_id} waits for approval {pending.approval_id}, not {request.approval_id}."
        )
