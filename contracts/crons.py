"""The Agent Server's crons, as langgraph-sdk's ``client.crons.*`` sends and reads them.

A cron starts a run of an assistant on a schedule: on its thread (``POST /threads/{id}/runs/crons``) or on a new
thread each time (``POST /runs/crons``). Its run is described as a run's body is (``RunCreate``); the cron keeps it
as ``payload``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from contracts.agent_protocol import (
    Limit,
    NoInterruptsAt,
    Offset,
    RunConfig,
    RunOptions,
    StreamModes,
    StreamModesChange,
)

__all__ = (
    "SCHEDULE_MAX",
    "Cron",
    "CronCount",
    "CronCreate",
    "CronSearch",
    "CronUpdate",
)

SCHEDULE_MAX = 200
_SCHEDULE = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=SCHEDULE_MAX,
        description=(
            "A cron expression: five fields (minute, hour, day of month, month, day of week), or six with a last "
            "field of seconds. Read in `timezone`."
        ),
        examples=["0 9 * * 1-5", "*/15 * * * *"],
    ),
]
_TIMEZONE = Annotated[
    str,
    msgspec.Meta(
        max_length=64,
        description="An IANA time zone the schedule is read in (null: UTC).",
        examples=["Europe/Paris", "America/New_York"],
    ),
]
_END_TIME = Annotated[
    str,
    msgspec.Meta(
        description="RFC 3339: the cron fires no more after this (an offset is required; null: it never ends).",
        examples=["2027-01-01T00:00:00+00:00"],
    ),
]
_WEBHOOK = Annotated[
    str,
    msgspec.Meta(description="A URL each of the cron's runs is POSTed to when it ends (as a run's `webhook`)."),
]
_STRATEGY = Annotated[
    Any,
    msgspec.Meta(
        description=(
            "When the cron's thread is busy at a firing: `enqueue` (the default: the run waits its turn), `reject` "
            "(the firing is skipped), `interrupt` or `rollback` (the busy run ends first)."
        ),
        extra_json_schema={"type": "string", "enum": ["reject", "interrupt", "rollback", "enqueue"]},
    ),
]
OnRunCompleted = Literal["delete", "keep"]


class CronCreate(msgspec.Struct, kw_only=True):
    """A cron: its schedule and the run it starts at each firing."""

    schedule: _SCHEDULE
    assistant_id: Annotated[str, msgspec.Meta(description="An assistant id, or the id of a registered graph.")]
    input: Any = None
    metadata: RunOptions | None = None
    config: RunConfig | None = None
    context: RunOptions | None = None
    interrupt_before: NoInterruptsAt = None
    interrupt_after: NoInterruptsAt = None
    webhook: _WEBHOOK | None = None
    multitask_strategy: _STRATEGY = "enqueue"
    end_time: _END_TIME | None = None
    enabled: bool = True
    timezone: _TIMEZONE | None = None
    on_run_completed: Annotated[
        OnRunCompleted | None,
        msgspec.Meta(
            description=(
                "A cron without a thread: `delete` (the default) removes each firing's thread once its run has "
                "ended, `keep` leaves it. Refused on a thread's cron."
            )
        ),
    ] = None
    stream_mode: StreamModes = "values"
    stream_subgraphs: bool = False
    stream_resumable: bool = False
    durability: Any = None
    checkpoint_during: Any = None


class CronUpdate(msgspec.Struct, kw_only=True):
    """What ``PATCH /runs/crons/{cron_id}`` changes: the fields given; ``end_time: null`` clears the end."""

    schedule: _SCHEDULE | None = None
    end_time: _END_TIME | msgspec.UnsetType | None = msgspec.UNSET
    input: Any = None
    metadata: RunOptions | None = None
    config: RunConfig | None = None
    context: RunOptions | None = None
    webhook: _WEBHOOK | None = None
    interrupt_before: NoInterruptsAt = None
    interrupt_after: NoInterruptsAt = None
    on_run_completed: OnRunCompleted | None = None
    enabled: bool | None = None
    timezone: _TIMEZONE | None = None
    stream_mode: StreamModesChange = None
    stream_subgraphs: bool | None = None
    stream_resumable: bool | None = None
    durability: Any = None


CronField = Literal[
    "cron_id",
    "assistant_id",
    "thread_id",
    "end_time",
    "schedule",
    "timezone",
    "created_at",
    "updated_at",
    "user_id",
    "payload",
    "next_run_date",
    "metadata",
    "now",
    "on_run_completed",
    "enabled",
]
CronSortBy = Literal["cron_id", "assistant_id", "thread_id", "created_at", "updated_at", "next_run_date", "end_time"]


class CronSearch(msgspec.Struct, kw_only=True):
    """The caller's crons, filtered (each given field must match; ``metadata``: each key and value)."""

    assistant_id: str | None = None
    thread_id: str | None = None
    enabled: bool | None = None
    metadata: dict[str, Any] | None = None
    limit: Limit = 10
    offset: Offset = 0
    sort_by: CronSortBy = "created_at"
    sort_order: Literal["asc", "desc"] = "desc"
    select: Annotated[
        list[CronField] | None,
        msgspec.Meta(description="Accepted as the SDK sends it; every field is returned."),
    ] = None


class CronCount(msgspec.Struct, kw_only=True):
    assistant_id: str | None = None
    thread_id: str | None = None
    metadata: dict[str, Any] | None = None


class Cron(msgspec.Struct, kw_only=True):
    """A cron as the Agent Server shows it."""

    cron_id: str
    assistant_id: str
    thread_id: str | None
    user_id: str | None
    """The subject that made it (null with identity off)."""
    schedule: str
    timezone: str | None
    end_time: str | None
    enabled: bool
    next_run_date: str | None
    """When it fires next (RFC 3339, UTC); null once it has ended or while it is disabled."""
    on_run_completed: OnRunCompleted | None
    payload: dict[str, Any]
    """The run it starts at each firing, as a run's body."""
    metadata: dict[str, Any]
    created_at: str
    updated_at: str
