"""The service's settings: the ``HARNESS_*`` environment variables of the contract, and a few more."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from agent import AgentConfig, ConfigError, read_float, read_optional_int, redact_url
from api.auth.config import AuthConfig
from api.online_eval.settings import OnlineEvalSettings
from api.request_checks.allowed_hosts import default_allowed_hosts, parse_allowed_hosts
from api.request_checks.cross_origin import parse_cors_origins
from api.runs.settings import RunSettings
from api.webhooks.settings import WebhookSettings

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ("Settings",)


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    host: str = "127.0.0.1"
    """Where ``harness serve`` listens (``HARNESS_HOST``)."""
    port: int = 8000
    """``HARNESS_PORT``."""
    allowed_hosts: tuple[str, ...] | None = None
    """The names a request's ``Host`` may give (any port); others get 421, which stops DNS rebinding
    (``HARNESS_ALLOWED_HOSTS``: host names or IP addresses, ``*.example.com`` for subdomains, ``*`` for any).
    ``None``: the loopback names and ``host`` unless it is a wildcard address (see ``hosts_allowed``)."""
    cors_origins: tuple[str, ...] = ()
    """Origins (``https://app.example.com``) whose pages may call the API: CORS headers for them, and their
    state-changing requests are not refused as cross-site (``HARNESS_CORS_ORIGINS``). Empty: same-origin only."""
    heartbeat_s: float = 15.0
    """SSE heartbeat period during silence (``HARNESS_HEARTBEAT_S``)."""
    stream_max_s: float | None = None
    """The longest one response that follows a run lasts (``HARNESS_STREAM_MAX_S``): past it, an event stream ends
    cleanly at its next chunk (a heartbeat at most later), without a terminal event, and the client reconnects with
    ``Last-Event-ID`` as after any cut; a JSON wait answers the run as far as it came. None: until the run settles
    or the client leaves."""
    disconnect_grace_s: float = 10.0
    """How long a running run with no subscriber goes on before it is aborted (``HARNESS_DISCONNECT_GRACE_S``)."""
    retry_ms: int = 2000
    """The ``retry:`` hint sent first on every stream (``HARNESS_SSE_RETRY_MS``)."""
    replay_window: int = 10_000
    """Events of a run kept for replay besides its topology; older ones answer a ``snapshot``
    (``HARNESS_REPLAY_WINDOW``)."""
    max_body_bytes: int = 64 * 1024
    """Larger request bodies answer 413 (``HARNESS_MAX_BODY_BYTES``)."""
    request_read_timeout_s: float = 10.0
    """How long a client may take to send a request's headers, and then its body; a slower one answers 408 and its
    connection closes (``HARNESS_REQUEST_READ_TIMEOUT_S``)."""
    rate_limit_per_minute: int = 120
    """Turns (``POST /chat`` and ``/chat/resume``) a client address may start per minute; 0 turns it off
    (``HARNESS_RATE_LIMIT_PER_MINUTE``)."""
    redis_url: str | None = None
    """Redis for the run event log, live fan-out and cross-instance control (``HARNESS_REDIS_URL``); set
    together with ``HARNESS_DATABASE_URL`` it makes this process one instance of a shared service."""
    redis_prefix: str = "harness"
    """Every Redis key of the service starts with this and a colon (``HARNESS_REDIS_PREFIX``)."""
    run_lease_s: float = 10.0
    """How long an instance may go silent before the runs it executes count as lost (``HARNESS_RUN_LEASE_S``)."""
    retention_days: float | None = None
    """Finished runs older than this many days are purged in the background, with their events, their
    interactions and, once a session has no run left, its checkpoints (``HARNESS_RETENTION_DAYS``; unset:
    kept until erased)."""
    purge_interval_s: float = 3600.0
    """How often the background purge looks for what retention ends (``HARNESS_PURGE_INTERVAL_S``)."""
    purge_batch: int = 200
    """Runs removed per step of a purge, so that the service goes on serving (``HARNESS_PURGE_BATCH``)."""
    cron_tick_s: float = 1.0
    """How often each instance looks for due cron firings (``HARNESS_CRON_TICK_S``): a firing starts at most this
    late (ADR 47)."""
    graphs_config: Path | None = None
    """A ``langgraph.json`` whose graphs are served beside the support agent (``HARNESS_CONFIG``; ``harness serve
    --config``)."""
    metrics_token: str | None = None
    """The bearer token ``GET /metrics`` asks for (``HARNESS_METRICS_TOKEN``); unset: the route answers whoever
    may call the service (anyone with identity off, a valid identity token with it on; docs/adr/0024)."""
    auth: AuthConfig = msgspec.field(default_factory=AuthConfig)
    """Identity: off by default (one user, no login); see ``AuthConfig``."""
    online_eval: OnlineEvalSettings = msgspec.field(default_factory=OnlineEvalSettings)
    """Finished runs scored in the background (``HARNESS_ONLINE_EVAL_*``; off by default; docs/evaluation.md)."""
    webhooks: WebhookSettings = msgspec.field(default_factory=WebhookSettings)
    """Where runs' ``webhook`` may point, the secret deliveries are signed with, and how they are retried
    (``HARNESS_WEBHOOK_*``; ADR 46)."""
    agent: AgentConfig = msgspec.field(default_factory=AgentConfig)

    @property
    def hosts_allowed(self) -> tuple[str, ...]:
        """``allowed_hosts``, or by default ``localhost``, ``127.0.0.1``, ``::1`` and the bind address."""
        return default_allowed_hosts(self.host) if self.allowed_hosts is None else self.allowed_hosts

    @property
    def runs(self) -> RunSettings:
        """What the run core reads of these settings."""
        return RunSettings(
            agent=self.agent,
            heartbeat_s=self.heartbeat_s,
            stream_max_s=self.stream_max_s,
            disconnect_grace_s=self.disconnect_grace_s,
            retry_ms=self.retry_ms,
            replay_window=self.replay_window,
            run_lease_s=self.run_lease_s,
            retention_days=self.retention_days,
            purge_interval_s=self.purge_interval_s,
            purge_batch=self.purge_batch,
            redis_url=self.redis_url,
            redis_prefix=self.redis_prefix,
            streams_per_subject=self.auth.streams_per_subject,
            approver_role=self.auth.approver_role,
            legacy_subject=self.auth.legacy_subject,
        )

    @property
    def shared(self) -> bool:
        """Whether the stores are the shared Redis and PostgreSQL ones (else embedded SQLite)."""
        return self.redis_url is not None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        port = read_optional_int(env, "HARNESS_PORT")
        if port is not None and not 0 <= port <= 65535:
            raise ConfigError(f"HARNESS_PORT must be a TCP port, got {port}")
        heartbeat_s = _seconds_over_zero(env, "HARNESS_HEARTBEAT_S", 15.0)
        window = _at_least_one(env, "HARNESS_REPLAY_WINDOW")
        agent = AgentConfig.from_env(env)
        redis_url = _read_redis_url(env)
        if (redis_url is None) != (agent.database_url is None):
            given, missing = (
                ("HARNESS_REDIS_URL", "HARNESS_DATABASE_URL")
                if redis_url
                else ("HARNESS_DATABASE_URL", "HARNESS_REDIS_URL")
            )
            raise ConfigError(f"{given} is set but {missing} is not: the shared stores need both (or neither)")
        lease_s = read_float(env, "HARNESS_RUN_LEASE_S", 10.0)
        if lease_s < 1:
            raise ConfigError(f"HARNESS_RUN_LEASE_S must be at least 1 second, got {lease_s:g}")
        prefix = env.get("HARNESS_REDIS_PREFIX", "harness").strip()
        if not prefix or any(c.isspace() for c in prefix):
            raise ConfigError(f"HARNESS_REDIS_PREFIX must be a word without spaces, got {prefix!r}")
        retention_days = read_float(env, "HARNESS_RETENTION_DAYS", -1.0)
        if not math.isfinite(retention_days):
            raise ConfigError("HARNESS_RETENTION_DAYS must be a finite number of days")
        purge_interval_s = _seconds_over_zero(env, "HARNESS_PURGE_INTERVAL_S", 3600.0)
        purge_batch = _at_least_one(env, "HARNESS_PURGE_BATCH")
        allowed_hosts = env.get("HARNESS_ALLOWED_HOSTS", "").strip()
        return cls(
            host=env.get("HARNESS_HOST", "127.0.0.1"),
            port=8000 if port is None else port,
            allowed_hosts=parse_allowed_hosts(allowed_hosts) if allowed_hosts else None,
            cors_origins=parse_cors_origins(env.get("HARNESS_CORS_ORIGINS", "")),
            heartbeat_s=heartbeat_s,
            stream_max_s=_optional_seconds(env, "HARNESS_STREAM_MAX_S"),
            disconnect_grace_s=read_float(env, "HARNESS_DISCONNECT_GRACE_S", 10.0),
            retry_ms=read_optional_int(env, "HARNESS_SSE_RETRY_MS") or 2000,
            replay_window=window or 10_000,
            max_body_bytes=read_optional_int(env, "HARNESS_MAX_BODY_BYTES") or 64 * 1024,
            request_read_timeout_s=_seconds_over_zero(env, "HARNESS_REQUEST_READ_TIMEOUT_S", 10.0),
            rate_limit_per_minute=_or_default(read_optional_int(env, "HARNESS_RATE_LIMIT_PER_MINUTE"), 120),
            redis_url=redis_url,
            redis_prefix=prefix,
            run_lease_s=lease_s,
            retention_days=None if retention_days < 0 else retention_days,
            purge_interval_s=purge_interval_s,
            purge_batch=purge_batch or 200,
            cron_tick_s=_seconds_over_zero(env, "HARNESS_CRON_TICK_S", 1.0),
            graphs_config=_optional_path(env, "HARNESS_CONFIG"),
            metrics_token=(env.get("HARNESS_METRICS_TOKEN") or "").strip() or None,
            auth=AuthConfig.from_env(env),
            online_eval=OnlineEvalSettings.from_env(env, retention_days=None if retention_days < 0 else retention_days),
            webhooks=WebhookSettings.from_env(env),
            agent=agent,
        )


def _optional_path(env: Mapping[str, str], name: str) -> Path | None:
    raw = (env.get(name) or "").strip()
    return Path(raw) if raw else None


def _read_redis_url(env: Mapping[str, str]) -> str | None:
    raw = (env.get("HARNESS_REDIS_URL") or "").strip()
    if not raw:
        return None
    try:
        from redis.asyncio.connection import parse_url
    except ImportError:
        raise ConfigError("HARNESS_REDIS_URL needs the `cluster` extra: pip install 'agent-harness[cluster]'") from None
    try:
        parse_url(raw)
    except ValueError as exc:
        raise ConfigError(f"HARNESS_REDIS_URL is not a valid Redis URL ({redact_url(raw)}): {exc}") from None
    return raw


def _seconds_over_zero(env: Mapping[str, str], name: str, default: float) -> float:
    value = read_float(env, name, default)
    if value == 0:
        raise ConfigError(f"{name} must be more than 0 seconds")
    return value


def _optional_seconds(env: Mapping[str, str], name: str) -> float | None:
    if not env.get(name, "").strip():
        return None
    value = read_float(env, name, 0.0)
    if not math.isfinite(value) or value <= 0:
        raise ConfigError(f"{name} must be a number of seconds above 0 (or unset), got {env[name]!r}")
    return value


def _at_least_one(env: Mapping[str, str], name: str) -> int | None:
    value = read_optional_int(env, name)
    if value is not None and value < 1:
        raise ConfigError(f"{name} must be at least 1, got {value}")
    return value


def _or_default(value: int | None, default: int) -> int:
    return default if value is None else value
