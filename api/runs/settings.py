"""What the run core is configured with: the part of the service's settings (``api.settings.Settings.runs``) the
runs, their streams, stores and instances read."""

from __future__ import annotations

import msgspec

from agent import AgentConfig

__all__ = ("RunSettings",)


class RunSettings(msgspec.Struct, frozen=True, kw_only=True):
    agent: AgentConfig
    """Where the agent's stores are (the embedded data directory, PostgreSQL) and how they are sealed."""
    heartbeat_s: float = 15.0
    stream_max_s: float | None = None
    """The longest one follow of a run lasts (``RunStreams.follow``); None: until the encoder is finished."""
    disconnect_grace_s: float = 10.0
    retry_ms: int = 2000
    replay_window: int = 10_000
    run_lease_s: float = 10.0
    retention_days: float | None = None
    purge_interval_s: float = 3600.0
    purge_batch: int = 200
    redis_url: str | None = None
    redis_prefix: str = "harness"
    streams_per_subject: int = 20
    approver_role: str | None = None
    """Only subjects with this role decide approvals (None: a run's owner does)."""
    legacy_subject: str | None = None
    """The subject who owns what was stored before identity was on."""
