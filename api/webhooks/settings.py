"""How webhooks are configured: ``HARNESS_WEBHOOK_*`` (README, "Configuration")."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import msgspec

from agent import ConfigError, read_float, read_optional_int
from api.webhooks.signing import signing_key

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ("WebhookSettings",)


class WebhookSettings(msgspec.Struct, frozen=True, kw_only=True):
    allowed_hosts: frozenset[str] = frozenset()
    """The hosts a run's ``webhook`` may name (``HARNESS_WEBHOOK_ALLOWED_HOSTS``, comma-separated names or IP
    literals, compared without case). Empty, the default: every ``webhook`` is refused at the run's creation. A host
    whose name resolves to a loopback, private or link-local address is called only if that address is listed too."""
    secret: str | None = None
    """The key deliveries are signed with (``HARNESS_WEBHOOK_SECRET``; Standard Webhooks' ``whsec_<base64>`` form is
    read as its base64 bytes, any other value as its UTF-8 bytes). None: deliveries are not signed."""
    timeout_s: float = 10.0
    """The most one delivery attempt may take, connecting included (``HARNESS_WEBHOOK_TIMEOUT_S``)."""
    max_attempts: int = 8
    """Attempts before a delivery is given up (``HARNESS_WEBHOOK_MAX_ATTEMPTS``)."""
    backoff_s: float = 2.0
    """The wait before the first retry; each next one waits twice as long, at most ``backoff_max_s``
    (``HARNESS_WEBHOOK_BACKOFF_S``)."""
    backoff_max_s: float = 600.0
    """The longest wait between two attempts (``HARNESS_WEBHOOK_BACKOFF_MAX_S``)."""
    tick_s: float = 1.0
    """How often each instance looks for deliveries due (``HARNESS_WEBHOOK_TICK_S``); a run that ends on an instance
    is delivered at once, this is for ends recorded elsewhere and for retries."""

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> WebhookSettings:
        hosts = frozenset(
            host.strip().lower().strip("[]")
            for host in (env.get("HARNESS_WEBHOOK_ALLOWED_HOSTS") or "").split(",")
            if host.strip()
        )
        attempts = read_optional_int(env, "HARNESS_WEBHOOK_MAX_ATTEMPTS")
        if attempts is not None and attempts < 1:
            raise ConfigError(f"HARNESS_WEBHOOK_MAX_ATTEMPTS must be at least 1, got {attempts}")
        secret = env.get("HARNESS_WEBHOOK_SECRET") or None
        if secret is not None:
            try:
                signing_key(secret)
            except ValueError as exc:
                raise ConfigError(f"HARNESS_WEBHOOK_SECRET {exc}") from None
        return cls(
            allowed_hosts=hosts,
            secret=secret,
            timeout_s=_seconds(env, "HARNESS_WEBHOOK_TIMEOUT_S", 10.0),
            max_attempts=attempts or 8,
            backoff_s=_seconds(env, "HARNESS_WEBHOOK_BACKOFF_S", 2.0),
            backoff_max_s=_seconds(env, "HARNESS_WEBHOOK_BACKOFF_MAX_S", 600.0),
            tick_s=_seconds(env, "HARNESS_WEBHOOK_TICK_S", 1.0),
        )


def _seconds(env: Mapping[str, str], name: str, default: float) -> float:
    value = read_float(env, name, default)
    if not 0 < value < math.inf:
        raise ConfigError(f"{name} must be more than 0 seconds, got {value:g}")
    return value
