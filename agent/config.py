"""The agent's configuration, read from ``HARNESS_*`` environment variables."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import msgspec

from agent.encryption import EncryptionKey, parse_key, parse_keys
from agent.errors import AgentError

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = (
    "PROVIDER_NAMES",
    "AgentConfig",
    "ConfigError",
    "GuardrailConfig",
    "LLMConfig",
    "ProviderSettings",
    "StubConfig",
    "read_encryption_key",
    "redact_url",
)

PROVIDER_NAMES = ("anthropic", "local", "openai", "stub")


class ConfigError(AgentError, ValueError):
    """A configuration value that cannot be used; the message names the variable."""


class StubConfig(msgspec.Struct, frozen=True, kw_only=True):
    token_delay_ms: float = 15.0
    """Pause between the stub's tokens (``HARNESS_STUB_TOKEN_DELAY_MS``)."""
    fail_after_tokens: int | None = None
    """Fault injection: the stub's stream fails after this many tokens (``HARNESS_STUB_FAIL_AFTER_TOKENS``)."""
    temperature: float = 0.0
    """How the stub samples (``HARNESS_STUB_TEMPERATURE``): 0, the same answer to the same prompt every time;
    above 0, the passage it answers from and cites is drawn, rank r with probability proportional to
    exp(-r / temperature) (``agent.llm.stub``). A call's own ``LLMParams.temperature`` is not read: the agent
    asks every model for 0, and this setting is what an eval varies."""
    seed: int | None = None
    """The seed of the stub's draws (``HARNESS_STUB_SEED``); unset, a random one. Only read with a temperature
    above 0. The eval derives each case and epoch's own seed from it (``agent.evaluation.runner``)."""

    def __post_init__(self) -> None:
        if not self.temperature >= 0 or math.isinf(self.temperature):
            raise ConfigError(
                f"HARNESS_STUB_TEMPERATURE must be a finite number of at least 0, got {self.temperature!r}"
            )


class GuardrailConfig(msgspec.Struct, frozen=True, kw_only=True):
    """The input guardrail's optional model-based check (ADR 15)."""

    model_check: bool = False
    """Classify every message the rules allow on the configured provider (``HARNESS_GUARDRAIL_MODEL_CHECK``,
    ``on``/``off``). Ignored with the stub, which cannot classify."""
    model_check_timeout_s: float = 3.0
    """How long the classification may take (``HARNESS_GUARDRAIL_MODEL_TIMEOUT_S``)."""
    model_check_fail: Literal["open", "closed"] = "open"
    """When the check times out or fails: let the message through (``open``) or refuse it (``closed``)
    (``HARNESS_GUARDRAIL_MODEL_FAIL``)."""


class ProviderSettings(msgspec.Struct, frozen=True, kw_only=True):
    """One provider's own settings (``HARNESS_LLM_<NAME>_BASE_URL``, ``_API_KEY``, ``_MODEL``)."""

    base_url: str | None = None
    api_key: str | None = None
    model: str | None = None


class LLMConfig(msgspec.Struct, frozen=True, kw_only=True):
    provider: str = "stub"
    """``stub``, ``openai``, ``anthropic`` or a fallback chain such as ``openai,anthropic``."""
    base_url: str | None = None
    """The provider's base URL in the OpenAI style, version path included."""
    api_key: str | None = None
    model: str | None = None
    timeout_s: float = 60.0
    """Per-request timeout of a real provider (``HARNESS_LLM_TIMEOUT_S``)."""
    prices_path: Path | None = None
    """A JSON file of per-model prices that extends the built-in table (``HARNESS_LLM_PRICES``)."""
    per_provider: dict[str, ProviderSettings] = msgspec.field(default_factory=dict)
    """Settings of each provider of a chain; one key is never sent to two vendors."""

    @property
    def providers(self) -> tuple[str, ...]:
        return tuple(name.strip() for name in self.provider.split(",") if name.strip())

    def settings_for(self, name: str) -> ProviderSettings:
        """``name``'s own settings; the shared ``HARNESS_LLM_*`` ones fill in for the first provider only."""
        own = self.per_provider.get(name, ProviderSettings())
        if self.providers[:1] != (name,):
            return own
        return ProviderSettings(
            base_url=own.base_url or self.base_url, api_key=own.api_key or self.api_key, model=own.model or self.model
        )


class AgentConfig(msgspec.Struct, frozen=True, kw_only=True):
    data_dir: Path = Path(".harness")
    """Where the embedded SQLite stores live (``HARNESS_DATA_DIR``)."""
    database_url: str | None = None
    """PostgreSQL for checkpoints, interactions and the ledger instead of SQLite (``HARNESS_DATABASE_URL``)."""
    llm: LLMConfig = msgspec.field(default_factory=LLMConfig)
    stub: StubConfig = msgspec.field(default_factory=StubConfig)
    guardrails: GuardrailConfig = msgspec.field(default_factory=GuardrailConfig)
    retrieval_k: int = 3
    """How many passages ``retrieve_context`` hands to the model."""
    encryption_key: EncryptionKey | None = None
    """Seals what a conversation leaves at rest (checkpoints, run events and records, interactions) with AES-256
    (``HARNESS_ENCRYPTION_KEY``: 32 bytes as 64 hex digits or base64); unset, they are written plain.
    ``agent.sealing``, ADR 16."""
    old_encryption_keys: tuple[EncryptionKey, ...] = ()
    """Keys values may still be sealed under while ``harness rotate-key`` re-seals them under ``encryption_key``
    (``HARNESS_ENCRYPTION_OLD_KEYS``, comma-separated). ``agent.sealing``."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> AgentConfig:
        env = os.environ if environ is None else environ
        prices = env.get("HARNESS_LLM_PRICES")
        return cls(
            data_dir=Path(env.get("HARNESS_DATA_DIR", ".harness")),
            database_url=read_database_url(env, "HARNESS_DATABASE_URL"),
            encryption_key=read_encryption_key(env, "HARNESS_ENCRYPTION_KEY"),
            old_encryption_keys=read_old_encryption_keys(env),
            llm=LLMConfig(
                provider=env.get("HARNESS_LLM_PROVIDER", "stub"),
                base_url=env.get("HARNESS_LLM_BASE_URL") or None,
                api_key=env.get("HARNESS_LLM_API_KEY") or None,
                model=env.get("HARNESS_LLM_MODEL") or None,
                timeout_s=read_float(env, "HARNESS_LLM_TIMEOUT_S", 60.0),
                prices_path=Path(prices) if prices else None,
                per_provider={
                    name: ProviderSettings(
                        base_url=env.get(f"HARNESS_LLM_{name.upper()}_BASE_URL") or None,
                        api_key=env.get(f"HARNESS_LLM_{name.upper()}_API_KEY") or None,
                        model=env.get(f"HARNESS_LLM_{name.upper()}_MODEL") or None,
                    )
                    for name in PROVIDER_NAMES
                    if name != "stub"
                },
            ),
            stub=StubConfig(
                token_delay_ms=read_float(env, "HARNESS_STUB_TOKEN_DELAY_MS", 15.0),
                fail_after_tokens=read_optional_int(env, "HARNESS_STUB_FAIL_AFTER_TOKENS"),
                temperature=read_float(env, "HARNESS_STUB_TEMPERATURE", 0.0),
                seed=read_optional_int(env, "HARNESS_STUB_SEED"),
            ),
            guardrails=GuardrailConfig(
                model_check=read_choice(env, "HARNESS_GUARDRAIL_MODEL_CHECK", ("off", "on"), "off") == "on",
                model_check_timeout_s=read_float(env, "HARNESS_GUARDRAIL_MODEL_TIMEOUT_S", 3.0),
                model_check_fail=read_choice(env, "HARNESS_GUARDRAIL_MODEL_FAIL", ("open", "closed"), "open"),  # type: ignore[arg-type]
            ),
        )


def read_database_url(env: Mapping[str, str], name: str) -> str | None:
    """A ``postgresql://`` URL, checked for shape only (whether the server answers is checked at start)."""
    raw = (env.get(name) or "").strip()
    if not raw:
        return None
    scheme, _, rest = raw.partition("://")
    if scheme not in ("postgresql", "postgres") or not rest:
        raise ConfigError(f"{name} must be a postgresql:// URL, got {redact_url(raw)!r}")
    try:
        from psycopg.conninfo import conninfo_to_dict
    except ImportError:
        raise ConfigError(f"{name} needs the `cluster` extra: pip install 'agent-harness[cluster]'") from None
    try:
        conninfo_to_dict(raw)
    except Exception as exc:
        raise ConfigError(f"{name} is not a valid PostgreSQL URL ({redact_url(raw)}): {exc}") from None
    return raw


def read_encryption_key(env: Mapping[str, str], name: str) -> EncryptionKey | None:
    raw = env.get(name) or ""
    if not raw.strip():
        return None
    try:
        return parse_key(raw)
    except ValueError as exc:
        raise ConfigError(f"{name} {exc}") from None


def read_old_encryption_keys(env: Mapping[str, str]) -> tuple[EncryptionKey, ...]:
    try:
        keys = parse_keys(env.get("HARNESS_ENCRYPTION_OLD_KEYS") or "")
    except ValueError as exc:
        raise ConfigError(f"HARNESS_ENCRYPTION_OLD_KEYS {exc}") from None
    if keys and not (env.get("HARNESS_ENCRYPTION_KEY") or "").strip():
        raise ConfigError("HARNESS_ENCRYPTION_OLD_KEYS needs HARNESS_ENCRYPTION_KEY, the key to seal under now")
    return keys


def redact_url(url: str) -> str:
    """``url`` with its password replaced, fit for messages and logs."""
    scheme, sep, rest = url.partition("://")
    credentials, at, host = rest.rpartition("@")
    if not at or ":" not in credentials:
        return url
    user = credentials.split(":", 1)[0]
    return f"{scheme}{sep}{user}:***@{host}"


def read_float(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a number, got {raw!r}") from None
    if value < 0:
        raise ConfigError(f"{name} must not be negative, got {raw!r}")
    return value


def read_choice(env: Mapping[str, str], name: str, choices: tuple[str, ...], default: str) -> str:
    raw = (env.get(name) or "").strip().lower()
    if not raw:
        return default
    if raw not in choices:
        raise ConfigError(f"{name} must be one of {', '.join(choices)}, got {env.get(name)!r}")
    return raw


def read_optional_int(env: Mapping[str, str], name: str) -> int | None:
    raw = env.get(name)
    if raw is None or raw.strip() == "":
        return None
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name} must be an integer, got {raw!r}") from None
    if value < 0:
        raise ConfigError(f"{name} must not be negative, got {raw!r}")
    return value
