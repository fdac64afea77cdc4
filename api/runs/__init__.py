"""Runs as first-class objects: the event log, the registry of live runs, subscriptions, SSE framing."""

from __future__ import annotations

from api.runs.log.protocols import EventLog
from api.runs.log.sqlite import SqliteEventLog
from api.runs.registry import RunRegistry
from api.runs.run import Run

__all__ = ("EventLog", "Run", "RunRegistry", "SqliteEventLog")
