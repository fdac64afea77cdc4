"""Forgetting: erasing a session (or every session of a deleted account), and purging what retention ends.

What goes with a run: its record and events (the event log) and its interaction. What goes with a session,
once none of its runs is left: its checkpoints (LangGraph's ``adelete_thread``) and its owner. The order is
checkpoints and interactions first, then runs: a purge cut short leaves runs that the next one finds again,
never checkpoints that nothing points at any more. Only finished runs are removed; erasure ends the others
first (``RunRegistry.stop``), a purge leaves them be. Afterwards the SQLite stores are vacuumed and their
write-ahead logs emptied, so the removed bytes stay in no file (``agent.stores.scrubbing``, ADR 19).

While a session is forgotten it is held: a tombstone in the event log's store (``EventLog.hold_sessions``),
which every instance checks atomically with beginning a run, so no turn begun anywhere can write the session
back after it is gone. Its owner meanwhile gets ``409 session_busy``, anyone else ``404``, as for any session
not theirs. The tombstone goes with the session; the id may then start a new, empty session.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from typing import TYPE_CHECKING, Protocol

import msgspec

from agent import carries_personal_data
from agent.stores import is_store_failure
from api.runs.errors import RunFinished, RunNotPaused, SessionBusy, SessionIdRefused, SessionNotFound
from api.runs.log.protocols import Forgetting, SessionStore
from api.runs.log.records import FINISHED

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    from agent.stores import AgentStores
    from api.runs.access import AccessPolicy
    from api.runs.log.records import RunRecord
    from api.runs.principal import Principal
    from api.runs.run import Run
    from contracts import RunSnapshot

__all__ = ("Crons", "Deliveries", "ErasableLog", "Forgotten", "LiveRuns", "SessionErasure", "StoreEraser")

logger = logging.getLogger(__name__)

_POLL_S = 0.05
_FOLLOWERS_LEAVE_S = 10.0
"""How long the erasure a deleted account asks for waits for the streams of the deleting turn to end."""


class ErasableLog(SessionStore, Forgetting, Protocol):
    """The part of the event log an erasure uses: who owns a session, holding it, forgetting it."""

    async def flush(self) -> None:
        """Wait until everything queued so far is committed."""
        ...


class LiveRuns(Protocol):
    """What an erasure asks of the runs: find one, stop it, and know when nobody here follows it any more."""

    async def find(self, run_id: str) -> Run | RunRecord | None:
        """The run executing here, or its stored record; None once it is gone."""
        ...

    async def stop(self, found: Run | RunRecord) -> RunSnapshot:
        """End the run (``cancelled``), without asking who asks."""
        ...

    async def unfollowed(self, run_id: str) -> None:
        """Return once nobody here follows the run."""
        ...


class Crons(Protocol):
    """The crons (``api.crons``): a thread's go with it, a subject's with an erasure of the subject."""

    async def forget_threads(self, thread_ids: Sequence[str]) -> int: ...

    async def forget_owners(self, owners: Sequence[str]) -> int: ...


class Deliveries(Protocol):
    """The webhook deliveries (``api.webhooks``: the sender, or its outbox alone): a run's go with it."""

    async def forget(self, run_ids: Sequence[str], session_ids: Sequence[str]) -> int: ...


class Forgotten(msgspec.Struct, kw_only=True):
    """What a purge or an erasure removed."""

    runs: int = 0
    events: int = 0
    sessions: int = 0
    """Sessions removed whole: their checkpoints and owner."""
    interactions: int = 0

    def __add__(self, other: Forgotten) -> Forgotten:
        return Forgotten(
            runs=self.runs + other.runs,
            events=self.events + other.events,
            sessions=self.sessions + other.sessions,
            interactions=self.interactions + other.interactions,
        )


class StoreEraser:
    """Removes finished runs and emptied sessions from every store: the event log and the agent's stores."""

    def __init__(
        self, log: ErasableLog, stores: AgentStores, crons: Crons | None = None, webhooks: Deliveries | None = None
    ) -> None:
        self._log = log
        self._stores = stores
        self._crons = crons
        self._webhooks = webhooks
        """The deliveries of the runs removed go with them (``api.webhooks``)."""
        self._live: dict[str, asyncio.Event] = {}
        """The sessions a hold of this process's has, each with the event its end sets."""

    @contextlib.asynccontextmanager
    async def holding(self, session_ids: Sequence[str]) -> AsyncIterator[None]:
        """Refuse new turns in ``session_ids`` on every instance while they are erased (or rolled back). A hold
        this process has on one of them already is waited for first: a session keeps the mark of its first
        holder, so a second one going on beside it would outlive the mark, and a purge could take a session a
        turn had begun again in once an erasure lifted its mark."""
        if not session_ids:
            yield
            return
        while live := {self._live[session_id] for session_id in session_ids if session_id in self._live}:
            await asyncio.gather(*(ended.wait() for ended in live))
        ended = asyncio.Event()
        self._live.update(dict.fromkeys(session_ids, ended))
        holder = secrets.token_hex(8)
        try:
            await self._log.hold_sessions(session_ids, holder)
            yield
        finally:
            try:
                await self._log.release_sessions(session_ids, holder)
            except Exception as exc:
                if not is_store_failure(exc):
                    raise
                # the tombstones stay: the owner gets 409 until an erasure of the session is asked for again
                logger.error("could not lift the erasure's hold on %d sessions: %s", len(session_ids), exc)
            finally:
                for session_id in session_ids:
                    if self._live.get(session_id) is ended:
                        del self._live[session_id]
                ended.set()

    async def forget(self, runs: Sequence[tuple[str, str]], sessions: Sequence[str]) -> Forgotten:
        """Remove the finished ``(run_id, session_id)`` runs, and the ``sessions`` (none of whose runs may remain
        but these): their crons, checkpoints and interactions first, then the runs, then what is kept of the
        sessions."""
        if self._crons is not None and sessions:
            await self._crons.forget_threads(sessions)
        if self._webhooks is not None:
            await self._webhooks.forget([run_id for run_id, _ in runs], sessions)
        await self._stores.erase_sessions(sessions)
        interactions = await self._stores.interactions.erase(
            run_ids=[run_id for run_id, _ in runs], session_ids=sessions
        )
        events = await self._log.erase_runs(runs) if runs else 0
        await self._log.forget_sessions(sessions)
        return Forgotten(runs=len(runs), events=events, sessions=len(sessions), interactions=interactions)

    async def drop_deliveries(self, session_ids: Sequence[str]) -> None:
        """Remove the webhook deliveries of the sessions' runs: an erasure does so before it ends them, so that no
        run it cancels is delivered."""
        if self._webhooks is not None:
            await self._webhooks.forget([], session_ids)

    async def forget_runs(self, runs: Sequence[tuple[str, str]]) -> Forgotten:
        """Remove the finished ``(run_id, session_id)`` runs alone (their interactions, records and events); their
        sessions and checkpoints stay. Then leave nothing of them in the stores' files."""
        if self._webhooks is not None:
            await self._webhooks.forget([run_id for run_id, _ in runs], [])
        interactions = await self._stores.interactions.erase(run_ids=[run_id for run_id, _ in runs])
        events = await self._log.erase_runs(runs)
        await self.compact()
        return Forgotten(runs=len(runs), events=events, interactions=interactions)

    async def forget_subjects(self, subjects: Sequence[str]) -> int:
        """Remove the long-term store's items of ``subjects`` (the store spans their threads, so erasing a session
        leaves it; a deleted account takes it), and the crons they made; how many items went."""
        if self._crons is not None:
            await self._crons.forget_owners(subjects)
        store = self._stores.graph_store
        if store is None:
            return 0
        return sum([await store.erase_subject(subject) for subject in subjects])

    async def compact(self) -> None:
        await self._log.compact()
        await self._stores.compact()

    async def purge(self, before: str, batch: int) -> Forgotten:
        """Remove the runs that finished before ``before`` (RFC 3339) with their events and interactions, and the
        sessions left without runs, ``batch`` runs at a time; then the interactions stored before ``before``
        whose runs are gone already. Waiting and running runs stay, and so do their sessions."""
        forgotten = Forgotten()
        while True:
            done = await self._purge_batch(before, batch)
            forgotten += done
            if done.runs < batch:
                break
            await asyncio.sleep(0)  # the service goes on serving between batches
        while (removed := await self._stores.interactions.purge(before, batch)) > 0:
            forgotten.interactions += removed
            if removed < batch:
                break
            await asyncio.sleep(0)
        if forgotten != Forgotten():
            await self.compact()
        return forgotten

    async def _purge_batch(self, before: str, batch: int) -> Forgotten:
        expired = await self._log.expired_runs(before, batch)
        if not expired:
            return Forgotten()
        going = {run_id for run_id, _ in expired}
        emptied = await self._emptied(sorted({session_id for _, session_id in expired}), going)
        async with self.holding(emptied):
            # a turn may have begun in one of them before the hold: that session stays
            return await self.forget(expired, await self._emptied(emptied, going))

    async def _emptied(self, session_ids: list[str], going: set[str]) -> list[str]:
        """The sessions of ``session_ids`` that have no run left once the runs ``going`` are gone."""
        kept = await self._log.session_runs(session_ids)
        return [session_id for session_id in session_ids if going.issuperset(kept.get(session_id, ()))]


class SessionErasure:
    """``DELETE /sessions/{id}`` and the erasure a deleted account asks for: end the session's runs, then forget
    it everywhere."""

    def __init__(
        self, runs: LiveRuns, log: ErasableLog, eraser: StoreEraser, *, access: AccessPolicy, lease_s: float
    ) -> None:
        self._runs = runs
        self._log = log
        self._eraser = eraser
        self._access = access
        self._lease_s = lease_s

    async def erase_session(self, session_id: str, principal: Principal) -> Forgotten:
        """Erase a session of ``principal``'s: 422 for an id shaped like personal data, 404 for a session that
        does not exist for them, 409 when one of its runs will not end."""
        if carries_personal_data(session_id):
            raise SessionIdRefused
        known, owner = await self._log.session_owner(session_id)
        if not known or not self._access.session_access(principal).may_continue(owner):
            raise SessionNotFound(f"There is no session {session_id}.")
        return await self._erase([session_id])

    async def erase_account(self, account_id: str, deleting: Run) -> None:
        """Erase the sessions begun by subjects of ``account_id`` and the session of the run that deleted it, once
        that run's streams here have sent its last event."""
        await self._log.flush()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._runs.unfollowed(deleting.run_id), _FOLLOWERS_LEAVE_S)
        sessions = sorted({*await self._log.account_sessions(account_id), deleting.session_id})
        owners = {deleting.record.owner}
        for session_id in sessions:
            known, owner = await self._log.session_owner(session_id)
            if known:
                owners.add(owner)
        try:
            forgotten = await self._erase(sessions)
            items = await self._eraser.forget_subjects(sorted(owner for owner in owners if owner is not None))
        except Exception:
            logger.exception("erasing the %d sessions of a deleted account failed", len(sessions))
            return
        logger.info(
            "erased the sessions of a deleted account: %d sessions, %d runs, %d store items",
            forgotten.sessions,
            forgotten.runs,
            items,
        )

    async def _erase(self, session_ids: list[str]) -> Forgotten:
        eraser = self._eraser
        async with eraser.holding(session_ids):
            await eraser.drop_deliveries(session_ids)
            runs = await self._log.session_runs(session_ids)
            for session_id, run_ids in runs.items():
                for run_id in run_ids:
                    await self._end(session_id, run_id)
            forgotten = await eraser.forget(
                [(run_id, session_id) for session_id, run_ids in runs.items() for run_id in run_ids], session_ids
            )
            await eraser.compact()
        return forgotten

    async def _end(self, session_id: str, run_id: str) -> None:
        """Return once the run has ended: cancelled here, or by its executor elsewhere (which may have died:
        then it ends as ``instance_lost`` within the lease)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._lease_s + 15
        while True:
            found = await self._runs.find(run_id)
            if found is None or found.current_snapshot().status in FINISHED:
                return
            with contextlib.suppress(RunFinished, RunNotPaused):
                await self._runs.stop(found)
            if loop.time() > deadline:
                raise SessionBusy(f"Session {session_id} has run {run_id} that did not end; try again.", run_id=run_id)
            await asyncio.sleep(_POLL_S)
