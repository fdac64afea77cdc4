"""The model client the configuration asks for."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.config import ConfigError
from agent.llm.stub import StubLLM

if TYPE_CHECKING:
    from agent.config import AgentConfig
    from agent.llm.protocol import LLMClient

__all__ = ("create_llm_client",)


def create_llm_client(config: AgentConfig) -> LLMClient:
    names = config.llm.providers
    if names == ("stub",):
        return StubLLM(config.stub)
    raise ConfigError(f"HARNESS_LLM_PROVIDER={config.llm.provider!r} is not supported; use 'stub'")
