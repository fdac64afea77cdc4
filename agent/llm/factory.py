"""The model client the configuration asks for.

``HARNESS_LLM_PROVIDER`` names one provider or a fallback chain (``openai,anthropic``):

- ``stub``: the built-in deterministic model;
- ``openai``: any OpenAI-compatible server (default ``https://api.openai.com/v1``, ``gpt-4o-mini``); a key
  is required for api.openai.com and optional elsewhere (llama.cpp, Ollama and vLLM usually need none);
- ``anthropic``: the Messages API (default ``https://api.anthropic.com/v1``, ``claude-haiku-4-5``), key
  required;
- ``local``: the OpenAI-compatible llama.cpp server of ``agent.llm.local_server`` (default
  ``http://127.0.0.1:8765/v1``, ``smollm2-135m-instruct``), no key.

``HARNESS_LLM_BASE_URL``, ``HARNESS_LLM_API_KEY`` and ``HARNESS_LLM_MODEL`` configure the first provider
of the chain. Every provider can also be configured on its own with ``HARNESS_LLM_<NAME>_BASE_URL``,
``HARNESS_LLM_<NAME>_API_KEY`` and ``HARNESS_LLM_<NAME>_MODEL`` (``HARNESS_LLM_ANTHROPIC_API_KEY``),
which is how the later providers of a chain get their keys: one key is never sent to two vendors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from agent.config import PROVIDER_NAMES, ConfigError
from agent.llm.anthropic import DEFAULT_ANTHROPIC_BASE_URL, DEFAULT_ANTHROPIC_MODEL, AnthropicClient
from agent.llm.fallback import FallbackLLM
from agent.llm.local_server import DEFAULT_LOCAL_PORT, LOCAL_MODEL
from agent.llm.openai import DEFAULT_OPENAI_BASE_URL, DEFAULT_OPENAI_MODEL, OpenAICompatibleClient
from agent.llm.stub import StubLLM

if TYPE_CHECKING:
    from agent.config import AgentConfig
    from agent.llm.protocol import LLMClient

__all__ = ("PROVIDERS", "close_llm_client", "create_llm_client")

PROVIDERS = PROVIDER_NAMES
_DEFAULTS = {
    "openai": (DEFAULT_OPENAI_BASE_URL, DEFAULT_OPENAI_MODEL),
    "anthropic": (DEFAULT_ANTHROPIC_BASE_URL, DEFAULT_ANTHROPIC_MODEL),
    "local": (f"http://127.0.0.1:{DEFAULT_LOCAL_PORT}/v1", LOCAL_MODEL),
}
_OPENAI_HOST = "api.openai.com"


def create_llm_client(config: AgentConfig) -> LLMClient:
    """The client for ``config.llm``."""
    names = config.llm.providers
    if not names:
        raise ConfigError(f"HARNESS_LLM_PROVIDER must name a provider ({', '.join(PROVIDERS)}), got nothing")
    unknown = [name for name in names if name not in PROVIDERS]
    if unknown:
        raise ConfigError(
            f"HARNESS_LLM_PROVIDER={config.llm.provider!r} names unknown provider {unknown[0]!r}; "
            f"use one of {', '.join(PROVIDERS)} or a comma-separated chain of them"
        )
    clients = [_create(name, first=index == 0, config=config) for index, name in enumerate(names)]
    client = clients[0] if len(clients) == 1 else FallbackLLM(clients)
    if config.guardrails.model_check and names != ("stub",):
        from agent.guardrails.model_check import ScreenedLLM

        return ScreenedLLM(client, config.guardrails)  # type: ignore[arg-type]
    return client


async def close_llm_client(client: LLMClient) -> None:
    """Close the client's connections, if it holds any (the HTTP clients do, the stub does not)."""
    close = getattr(client, "aclose", None)
    if close is not None:
        await close()


def _create(name: str, *, first: bool, config: AgentConfig) -> LLMClient:
    if name == "stub":
        return StubLLM(config.stub)
    llm = config.llm
    prefix = f"HARNESS_LLM_{name.upper()}_"
    default_url, default_model = _DEFAULTS[name]
    settings = llm.settings_for(name)
    base_url = settings.base_url or default_url
    api_key = settings.api_key
    model = settings.model or default_model
    needs_key = name == "anthropic" or (name == "openai" and urlsplit(base_url).hostname == _OPENAI_HOST)
    if needs_key and not api_key:
        where = f"HARNESS_LLM_API_KEY or {prefix}API_KEY" if first else f"{prefix}API_KEY"
        raise ConfigError(f"HARNESS_LLM_PROVIDER={llm.provider!r}: {name} needs an API key; set {where}")
    if urlsplit(base_url).scheme not in ("http", "https"):
        raise ConfigError(f"the base URL of {name} must start with http:// or https://, got {base_url!r}")
    if name == "anthropic":
        assert api_key is not None
        return AnthropicClient(api_key=api_key, base_url=base_url, model=model, timeout_s=llm.timeout_s)
    return OpenAICompatibleClient(
        base_url=base_url,
        model=model,
        api_key=api_key,
        timeout_s=llm.timeout_s,
        provider=name,
        # llama-cpp-python's server takes a schema only as json_object + schema, and no tools (ADR 14)
        schema_dialect="json_object_schema" if name == "local" else "json_schema",
        tool_calls=name != "local",
    )
