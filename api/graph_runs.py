"""Starting a run of a registered graph on a thread, and answering the interrupt it waits at: for every protocol.

The Agent Protocol, AG-UI and the AI SDK each read their request their own way, then start or answer the run
here, so a thread is created, found, owned and decided the same way whichever protocol reaches it: a thread of
another subject does not exist (404); a thread may be created by its first run (the chat protocols' ids are the
client's); an approver answers the interrupts of threads that are not theirs; the thread records the graph it
runs. A run's ``webhook`` is checked before its thread is found or made, so a refused one (422) leaves no thread.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from api.exceptions import AssistantNotFound
from api.runs.errors import ApprovalNotFound, RunNotPaused, SessionNotFound

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from agent.graphs import GraphRegistry, RegisteredGraph
    from api.auth import Principal
    from api.runs.log.records import GraphRun, RunRecord
    from api.runs.log.threads import ThreadRecord
    from api.runs.registry import RunRegistry
    from api.runs.run import Run
    from api.runs.threads import ThreadBook

__all__ = ("answer_on_thread", "graph_named", "run_on_thread", "start_on_thread")

_Begun = TypeVar("_Begun")


def graph_named(graphs: GraphRegistry, assistant_id: str) -> RegisteredGraph:
    """The registered graph a path names by its assistant id or its graph id; ``AssistantNotFound`` (404) else."""
    found = graphs.get(assistant_id)
    if found is None:
        served = ", ".join(graphs.graph_ids)
        raise AssistantNotFound(f"There is no assistant {assistant_id!r}; the graphs served: {served}.")
    return found


async def start_on_thread(
    runs: RunRegistry,
    threads: ThreadBook,
    registered: RegisteredGraph,
    thread_id: str | None,
    graph_input: Any,
    *,
    options: GraphRun,
    principal: Principal,
    create: bool,
    interrupt_busy: bool = False,
    rollback_busy: bool = False,
) -> Run:
    """Start a run of ``registered`` on ``thread_id`` (a thread of its own when None; with ``create``, a thread the
    id names that does not exist yet is made for ``principal``). A busy thread: ``RunRegistry.start_graph_run``."""

    def start(on_thread: str) -> Awaitable[Run]:
        return runs.start_graph_run(
            registered,
            on_thread,
            graph_input,
            options,
            principal,
            interrupt_busy=interrupt_busy,
            rollback_busy=rollback_busy,
        )

    return await _begin_on_thread(
        runs, threads, registered, thread_id, start, options=options, principal=principal, create=create
    )


async def run_on_thread(
    runs: RunRegistry,
    threads: ThreadBook,
    registered: RegisteredGraph,
    thread_id: str | None,
    graph_input: Any,
    *,
    strategy: str,
    options: GraphRun,
    principal: Principal,
    create: bool,
) -> Run | RunRecord:
    """A run as the ``multitask_strategy`` asks on a busy thread: queued behind its runs (``enqueue``: the run, or
    its ``pending`` record), refused (``reject``), or started once its run has ended (``interrupt``) or ended and
    been removed (``rollback``)."""
    if strategy != "enqueue":
        return await start_on_thread(
            runs,
            threads,
            registered,
            thread_id,
            graph_input,
            options=options,
            principal=principal,
            create=create,
            interrupt_busy=strategy == "interrupt",
            rollback_busy=strategy == "rollback",
        )

    def enqueue(on_thread: str) -> Awaitable[Run | RunRecord]:
        return runs.enqueue_graph_run(registered, on_thread, graph_input, options, principal)

    return await _begin_on_thread(
        runs, threads, registered, thread_id, enqueue, options=options, principal=principal, create=create
    )


async def _begin_on_thread(
    runs: RunRegistry,
    threads: ThreadBook,
    registered: RegisteredGraph,
    thread_id: str | None,
    begin: Callable[[str], Awaitable[_Begun]],
    *,
    options: GraphRun,
    principal: Principal,
    create: bool,
) -> _Begun:
    """What starting and queueing a run share: the webhook checked before the thread is found or made, the thread
    recording the graph it runs once ``begin`` has started or queued the run on it."""
    runs.check_webhook(options)
    thread = await _thread_to_run(threads, thread_id, principal, create=create)
    begun = await begin(thread.thread_id)
    await threads.used(thread, registered.graph_id)
    return begun


async def _thread_to_run(
    threads: ThreadBook, thread_id: str | None, principal: Principal, *, create: bool
) -> ThreadRecord:
    if thread_id is None:
        thread, _ = await threads.create(None, {}, principal)
    elif create:
        thread, _ = await threads.create(thread_id, {}, principal)  # theirs as it is, or a 404
    else:
        thread = await threads.get(thread_id, principal)
    return thread


async def answer_on_thread(
    runs: RunRegistry,
    threads: ThreadBook,
    registered: RegisteredGraph,
    thread_id: str,
    resume: Any,
    *,
    options: GraphRun,
    principal: Principal,
    answering: tuple[str, str] | None = None,
) -> tuple[Run, int]:
    """Continue the thread's run that waits at an interrupt with ``Command(resume=resume)``; the run, and the seq
    it resumes after. ``answering``: the run and the approval the client names (a chat protocol's interrupt id),
    which must be the ones waiting."""
    runs.check_webhook(options)
    thread = await _thread_to_answer(threads, thread_id, principal)
    if answering is not None:
        await _check_answering(runs, threads, thread.thread_id, answering)
    run, after = await runs.resume_graph_run(registered, thread.thread_id, resume, options, principal)
    await threads.used(thread, registered.graph_id)
    return run, after


async def _thread_to_answer(threads: ThreadBook, thread_id: str, principal: Principal) -> ThreadRecord:
    try:
        return await threads.get(thread_id, principal)
    except SessionNotFound:  # an approver answers the interrupts of runs that are not theirs
        return await threads.for_decider(thread_id, principal)


async def _check_answering(runs: RunRegistry, threads: ThreadBook, thread_id: str, answering: tuple[str, str]) -> None:
    run_id, approval_id = answering
    waiting = await threads.active_run(thread_id)
    found = None if waiting is None else await runs.find(waiting)
    snapshot = None if found is None else found.current_snapshot()
    if snapshot is None or snapshot.run_id != run_id or snapshot.status != "waiting":
        raise RunNotPaused(f"Run {run_id} of thread {thread_id} is not waiting at an interrupt.")
    pending = snapshot.pending_approval
    if pending is None or pending.approval_id != approval_id:
        waits = pending.approval_id if pending is not None else "nothing"
        raise ApprovalNotFound(f"Run {run_id} waits for {waits}, not {approval_id}.")
