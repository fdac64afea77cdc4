"""Runs as first-class objects: the event log, the registry of live runs, subscriptions, SSE framing."""

from __future__ import annotations

from api.runs.event_log import EventLog
from api.runs.registry import RunRegistry
from api.runs.run import Run
from api.runs.sqlite_log import SqliteEventLog

__all__ = ("EventLog", "Run", "RunRegistry", "SqliteEventLog")
