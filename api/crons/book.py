"""What the cron routes do: make a cron of the caller's (its run checked as a run's body is), find, list, count,
change and delete the caller's crons. Another subject's cron is not there: 404, absent from a search. With
langgraph.json's ``auth.path``, each request sees the book ``narrowed`` by its ``@auth.on.crons`` handler: a cron
whose metadata its filter excludes is not there either, a cron it creates gets the metadata it wrote, and a change
that would leave the cron outside the filter is refused (403). A cron's thread is looked up in the threads the
request sees (hidden by an ``@auth.on.threads`` filter: 404)."""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import msgspec

from agent import format_timestamp
from api.agent_protocol.requests import read_run_request
from api.crons.base import CronRecord
from api.crons.errors import CronNotFound, CronRequestInvalid
from api.crons.schedule import Schedule, ScheduleInvalid, from_ms, to_ms
from api.exceptions import AccessDenied
from api.runs.metadata_filter import matches
from contracts.agent_protocol import RunCreate
from contracts.crons import Cron

if TYPE_CHECKING:
    from collections.abc import Callable

    from agent import Clock, IdFactory
    from agent.graphs import GraphRegistry
    from api.auth import Principal
    from api.crons.base import CronStore
    from api.runs.metadata_filter import MetadataFilter
    from api.runs.threads import ThreadBook
    from contracts.crons import CronCount, CronCreate, CronSearch, CronUpdate

__all__ = ("CronBook", "cron_view", "next_firing")

_RUN_FIELDS = (
    "assistant_id",
    "input",
    "metadata",
    "config",
    "context",
    "interrupt_before",
    "interrupt_after",
    "webhook",
    "multitask_strategy",
    "stream_mode",
    "stream_subgraphs",
    "stream_resumable",
)
"""The fields of a cron's body that describe its run: its ``payload``, read as a ``RunCreate`` at each firing."""


class CronBook:
    def __init__(
        self,
        store: CronStore,
        graphs: GraphRegistry,
        *,
        clock: Clock,
        ids: IdFactory,
        check_webhook: Callable[[str], None] = lambda url: None,
    ) -> None:
        """``check_webhook``: refuses a webhook its runs could not be started with (``api.webhooks``), so the cron
        is refused when it is made rather than each of its firings failing."""
        self.store = store
        self._check_webhook = check_webhook
        self._graphs = graphs
        self._clock = clock
        self._ids = ids
        self._where: MetadataFilter | None = None
        self._stamped: dict[str, Any] | None = None

    def narrowed(self, where: MetadataFilter | None, stamped: dict[str, Any] | None = None) -> CronBook:
        """This book as one request sees it: only the crons whose metadata match ``where`` exist (any other is a
        404, absent from searches and counts), and a cron it creates gets ``stamped`` over its metadata."""
        view = copy.copy(self)
        view._where = where
        view._stamped = stamped
        return view

    async def create(
        self, data: CronCreate, principal: Principal, thread_id: str | None, threads: ThreadBook
    ) -> CronRecord:
        """``threads``: the threads as the request sees them (narrowed by langgraph.json's auth), where a cron's
        thread must be found; for a cron without a thread, what they stamp on a thread made is each firing's."""
        if thread_id is not None:
            if data.on_run_completed is not None:
                raise _invalid("on_run_completed", "is for a cron without a thread (`POST /runs/crons`)")
            await threads.get(thread_id, principal)  # the caller's and not hidden from them, or 404
        schedule = _schedule(data.schedule, data.timezone)
        payload = {name: getattr(data, name) for name in _RUN_FIELDS}
        payload = {name: value for name, value in msgspec.to_builtins(payload).items() if value is not None}
        self.check_run(payload)
        now = self._now_ms()
        end_time_ms = _end_time(data.end_time)
        stamp = format_timestamp(now * 1_000_000)
        record = CronRecord(
            cron_id=self._ids.new("cron"),
            owner=principal.subject,
            account_id=principal.account_id,
            auth_user=principal.user,
            thread_id=thread_id,
            assistant_id=data.assistant_id,
            schedule=schedule.expression,
            timezone=data.timezone,
            end_time_ms=end_time_ms,
            enabled=data.enabled,
            on_run_completed=(data.on_run_completed or "delete") if thread_id is None else None,
            payload=payload,
            metadata={**(data.metadata or {}), **(self._stamped or {})},
            thread_metadata=threads.stamped if thread_id is None else {},
            created_at=stamp,
            updated_at=stamp,
        )
        record.next_run_ms = next_firing(record, now) if data.enabled else None
        await self.store.put(record)
        return record

    async def get(self, cron_id: str, principal: Principal) -> CronRecord:
        record = await self.store.get(cron_id)
        if record is None or record.owner != principal.subject or not matches(record.metadata, self._where):
            raise CronNotFound(f"There is no cron {cron_id}.")
        return record

    async def search(self, query: CronSearch, principal: Principal) -> list[CronRecord]:
        owned = [
            record for record in await self.store.of_owner(principal.subject) if matches(record.metadata, self._where)
        ]
        found = _matching(owned, query.assistant_id, query.thread_id, query.metadata)
        if query.enabled is not None:
            found = [record for record in found if record.enabled == query.enabled]
        found.sort(key=lambda record: _sort_key(record, query.sort_by), reverse=query.sort_order == "desc")
        return found[query.offset : query.offset + query.limit]

    async def count(self, query: CronCount, principal: Principal) -> int:
        owned = [
            record for record in await self.store.of_owner(principal.subject) if matches(record.metadata, self._where)
        ]
        return len(_matching(owned, query.assistant_id, query.thread_id, query.metadata))

    async def update(self, cron_id: str, data: CronUpdate, principal: Principal) -> CronRecord:
        record = await self.get(cron_id, principal)
        if data.on_run_completed is not None:
            if record.thread_id is not None:
                raise _invalid("on_run_completed", "is for a cron without a thread (`POST /runs/crons`)")
            record.on_run_completed = data.on_run_completed
        schedule = _schedule(data.schedule or record.schedule, data.timezone or record.timezone)
        rescheduled = data.schedule is not None or data.timezone is not None
        record.schedule, record.timezone = schedule.expression, schedule.timezone
        payload = dict(record.payload)
        for name in _RUN_FIELDS:
            value = getattr(data, name, None)
            if value is not None:
                payload[name] = msgspec.to_builtins(value)
        self.check_run(payload)
        record.payload = payload
        if data.metadata is not None:
            record.metadata = self._kept_in_view(dict(data.metadata))
        if not isinstance(data.end_time, msgspec.UnsetType):
            record.end_time_ms = _end_time(data.end_time)
            rescheduled = True
        now = self._now_ms()
        if data.enabled is not None:
            rescheduled = rescheduled or data.enabled != record.enabled
            record.enabled = data.enabled
        if rescheduled:
            record.next_run_ms = next_firing(record, now) if record.enabled else None
        record.updated_at = format_timestamp(now * 1_000_000)
        await self.store.put(record, reschedule=rescheduled)
        return await self.store.get(cron_id) or record

    async def delete(self, cron_id: str, principal: Principal) -> None:
        await self.get(cron_id, principal)
        await self.store.delete(cron_id)

    def check_run(self, payload: dict[str, Any]) -> None:
        """Refuse a run the cron could never start, as its run's body would be refused (``read_run_request``, and
        the webhook's host)."""
        requested = read_run_request(run_request(payload), self._graphs, detached=True)
        if requested.options.webhook is not None:
            self._check_webhook(requested.options.webhook)

    def _kept_in_view(self, metadata: dict[str, Any]) -> dict[str, Any]:
        """``metadata`` a change gives the cron, refused (403) when this request's filter would exclude the cron
        then: it would stop existing for its owner (404 to every route) while it fires on."""
        if not matches(metadata, self._where):
            raise AccessDenied(
                "The cron's new metadata is outside what the service's auth lets you see; keep the keys its filter "
                "reads (as the metadata it wrote when the cron was made)."
            )
        return metadata

    def _now_ms(self) -> int:
        return self._clock.now_ns() // 1_000_000


def run_request(payload: dict[str, Any]) -> RunCreate:
    try:
        return msgspec.convert(payload, RunCreate)
    except msgspec.ValidationError as exc:
        raise _invalid("payload", str(exc)) from None


def next_firing(record: CronRecord, after_ms: int) -> int | None:
    """The cron's first firing after ``after_ms``; None when that is past its end (or there is none)."""
    try:
        following = Schedule(record.schedule, record.timezone).next_after(after_ms)
    except ScheduleInvalid:
        return None
    return None if record.end_time_ms is not None and following > record.end_time_ms else following


def cron_view(record: CronRecord) -> Cron:
    return Cron(
        cron_id=record.cron_id,
        assistant_id=record.assistant_id,
        thread_id=record.thread_id,
        user_id=record.owner,
        schedule=record.schedule,
        timezone=record.timezone,
        end_time=None if record.end_time_ms is None else _shown(record.end_time_ms),
        enabled=record.enabled,
        next_run_date=None if record.next_run_ms is None else from_ms(record.next_run_ms),
        on_run_completed=record.on_run_completed,
        payload=record.payload,
        metadata=record.metadata,
        created_at=record.created_at,
        updated_at=record.updated_at,
    )


def _schedule(expression: str, timezone: str | None) -> Schedule:
    try:
        return Schedule(expression, timezone)
    except ScheduleInvalid as exc:
        raise _invalid(exc.field, str(exc)) from None


def _end_time(value: str | None) -> int | None:
    if value is None:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise _invalid("end_time", f"{value!r} is not an RFC 3339 date and time") from None
    if moment.tzinfo is None:
        raise _invalid("end_time", f"{value!r} has no offset (add `Z` or `+00:00`)")
    try:
        end_time_ms = to_ms(moment)
        from_ms(end_time_ms)  # shown in UTC: a year 1 or 9999 with an offset may fall outside years 1-9999 there
    except (ValueError, OverflowError):
        raise _invalid("end_time", f"{value!r} is outside years 1 to 9999 in UTC") from None
    return end_time_ms


_FIRST_MS = to_ms(datetime(1, 1, 1, tzinfo=UTC))
_LAST_MS = to_ms(datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC))


def _shown(ms: int) -> str:
    """``from_ms``, an instant outside years 1-9999 in UTC shown as the nearest one there (an end time stored
    before ``_end_time`` checked the range): a cron is always shown, so it can be changed or deleted."""
    return from_ms(min(max(ms, _FIRST_MS), _LAST_MS))


def _matching(
    records: list[CronRecord], assistant_id: str | None, thread_id: str | None, metadata: dict[str, Any] | None
) -> list[CronRecord]:
    return [
        record
        for record in records
        if (assistant_id is None or record.assistant_id == assistant_id)
        and (thread_id is None or record.thread_id == thread_id)
        and all(record.metadata.get(key) == value for key, value in (metadata or {}).items())
    ]


def _sort_key(record: CronRecord, field: str) -> tuple[bool, Any]:
    """Nulls last going up (first going down), as PostgreSQL orders them."""
    value: Any = {
        "end_time": record.end_time_ms,
        "next_run_date": record.next_run_ms,
    }.get(field, getattr(record, field, None))
    return (value is None, value if value is not None else 0)


def _invalid(field: str, message: str) -> CronRequestInvalid:
    return CronRequestInvalid(f"{field} {message}.", fields={field: message})
