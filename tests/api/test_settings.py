from __future__ import annotations

import pytest

from agent.config import ConfigError
from api.settings import Settings


def test_defaults_are_the_contract_defaults() -> None:
    settings = Settings.from_env({})
    assert (settings.host, settings.port) == ("127.0.0.1", 8000)
    assert (settings.heartbeat_s, settings.disconnect_grace_s) == (15.0, 10.0)
    assert str(settings.agent.data_dir) == ".harness"
    assert settings.agent.llm.provider == "stub"
    assert settings.agent.stub.token_delay_ms == 15.0
    assert settings.agent.stub.fail_after_tokens is None


def test_the_environment_is_read() -> None:
    settings = Settings.from_env(
        {
            "HARNESS_HOST": "0.0.0.0",
            "HARNESS_PORT": "9000",
            "HARNESS_HEARTBEAT_S": "0.5",
            "HARNESS_DISCONNECT_GRACE_S": "0",
            "HARNESS_STUB_FAIL_AFTER_TOKENS": "3",
            "HARNESS_LLM_PROVIDER": "openai,anthropic",
            "HARNESS_LLM_ANTHROPIC_API_KEY": "sk-ant",
        }
    )
    assert (settings.host, settings.port, settings.heartbeat_s, settings.disconnect_grace_s) == (
        "0.0.0.0",
        9000,
        0.5,
        0,
    )
    assert settings.agent.stub.fail_after_tokens == 3
    assert settings.agent.llm.providers == ("openai", "anthropic")
    assert settings.agent.llm.settings_for("anthropic").api_key == "sk-ant"


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("HARNESS_PORT", "http", "HARNESS_PORT must be an integer"),
        ("HARNESS_PORT", "70000", "HARNESS_PORT must be a TCP port"),
        ("HARNESS_HEARTBEAT_S", "0", "HARNESS_HEARTBEAT_S must be more than 0"),
        ("HARNESS_HEARTBEAT_S", "-1", "must not be negative"),
        ("HARNESS_STUB_TOKEN_DELAY_MS", "fast", "must be a number"),
        ("HARNESS_REPLAY_WINDOW", "0", "at least 1"),
    ],
)
def test_a_bad_value_names_its_variable(name: str, value: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Settings.from_env({name: value})
