from __future__ import annotations

import pytest

from agent.config import AgentConfig, ConfigError, LLMConfig
from agent.llm import AnthropicClient, FallbackLLM, OpenAICompatibleClient, close_llm_client, create_llm_client
from agent.llm.stub import StubLLM


def config(**llm: object) -> AgentConfig:
    return AgentConfig(llm=LLMConfig(**llm))  # type: ignore[arg-type]


async def test_the_stub_is_the_default() -> None:
    client = create_llm_client(AgentConfig())
    assert isinstance(client, StubLLM)
    await close_llm_client(client)


async def test_openai_has_defaults_and_needs_a_key_for_api_openai_com() -> None:
    with pytest.raises(ConfigError, match="openai needs an API key; set HARNESS_LLM_API_KEY"):
        create_llm_client(config(provider="openai"))

    client = create_llm_client(config(provider="openai", api_key="sk-x"))
    assert isinstance(client, OpenAICompatibleClient)
    assert (client.model, client.provider) == ("gpt-4o-mini", "openai")
    await close_llm_client(client)


async def test_an_openai_compatible_server_elsewhere_needs_no_key() -> None:
    client = create_llm_client(config(provider="openai", base_url="http://127.0.0.1:8080/v1", model="llama-3.1-8b"))
    assert isinstance(client, OpenAICompatibleClient)
    assert client.model == "llama-3.1-8b"
    await close_llm_client(client)


async def test_local_points_at_the_local_llama_cpp_server() -> None:
    client = create_llm_client(config(provider="local"))
    assert isinstance(client, OpenAICompatibleClient)
    assert (client.model, client.provider) == ("smollm2-135m-instruct", "local")
    assert client._http._base_url == "http://127.0.0.1:8765/v1"
    await close_llm_client(client)


def test_anthropic_needs_a_key() -> None:
    with pytest.raises(ConfigError, match="anthropic needs an API key"):
        create_llm_client(config(provider="anthropic"))


async def test_a_chain_gives_each_provider_its_own_settings() -> None:
    environ = {
        "HARNESS_LLM_PROVIDER": "openai, anthropic",
        "HARNESS_LLM_API_KEY": "sk-openai",
        "HARNESS_LLM_ANTHROPIC_API_KEY": "sk-ant-1",
        "HARNESS_LLM_ANTHROPIC_MODEL": "claude-sonnet-4-5",
    }
    client = create_llm_client(AgentConfig.from_env(environ))

    assert isinstance(client, FallbackLLM)
    openai, anthropic = client.clients
    assert isinstance(openai, OpenAICompatibleClient)
    assert isinstance(anthropic, AnthropicClient)
    assert anthropic.model == "claude-sonnet-4-5"
    assert anthropic._http._secret == "sk-ant-1"
    assert client.model == "gpt-4o-mini"
    await close_llm_client(client)


def test_the_shared_key_is_never_sent_to_a_later_provider() -> None:
    with pytest.raises(ConfigError, match=r"set HARNESS_LLM_ANTHROPIC_API_KEY$"):
        create_llm_client(config(provider="openai,anthropic", api_key="sk-openai"))


@pytest.mark.parametrize("provider", ["gemini", "openai,bogus", " , "])
def test_unknown_or_empty_providers_are_a_config_error(provider: str) -> None:
    with pytest.raises(ConfigError, match="HARNESS_LLM_PROVIDER"):
        create_llm_client(config(provider=provider))


def test_a_base_url_must_be_http() -> None:
    with pytest.raises(ConfigError, match="must start with http"):
        create_llm_client(config(provider="openai", base_url="localhost:8080/v1"))
