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


def test_the_allowed_hosts_default_to_the_loopback_names_and_the_bind_address() -> None:
    assert Settings.from_env({}).hosts_allowed == ("localhost", "127.0.0.1", "::1")
    assert Settings.from_env({"HARNESS_HOST": "10.0.0.5"}).hosts_allowed == (
        "localhost",
        "127.0.0.1",
        "::1",
        "10.0.0.5",
    )
    assert Settings.from_env({"HARNESS_HOST": "0.0.0.0"}).hosts_allowed == ("localhost", "127.0.0.1", "::1")
    assert Settings.from_env({"HARNESS_ALLOWED_HOSTS": " "}).hosts_allowed == ("localhost", "127.0.0.1", "::1")


def test_listed_hosts_and_origins_replace_the_defaults() -> None:
    settings = Settings.from_env(
        {
            "HARNESS_HOST": "0.0.0.0",
            "HARNESS_ALLOWED_HOSTS": "harness.example.com, *.harness.example.com",
            "HARNESS_CORS_ORIGINS": "https://App.example.com:443, http://localhost:5173",
        }
    )
    assert settings.hosts_allowed == ("harness.example.com", "*.harness.example.com")
    assert settings.cors_origins == ("https://app.example.com", "http://localhost:5173")
    assert Settings.from_env({}).cors_origins == ()


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("HARNESS_ALLOWED_HOSTS", "https://harness.example.com"),
        ("HARNESS_ALLOWED_HOSTS", "harness.example.com:8443"),
        ("HARNESS_CORS_ORIGINS", "*"),
        ("HARNESS_CORS_ORIGINS", "app.example.com"),
        ("HARNESS_CORS_ORIGINS", "https://app.example.com/"),
        ("HARNESS_CORS_ORIGINS", "https://*.example.com"),
    ],
)
def test_a_host_or_origin_that_is_not_one_stops_the_start(name: str, value: str) -> None:
    with pytest.raises(ConfigError, match=name):
        Settings.from_env({name: value})


@pytest.mark.parametrize(("value", "expected"), [("", None), ("30", 30.0), ("0.5", 0.5)])
def test_a_streams_longest_life_is_read_in_seconds(value: str, expected: float | None) -> None:
    assert Settings.from_env({"HARNESS_STREAM_MAX_S": value}).stream_max_s == expected


@pytest.mark.parametrize("value", ["0", "-1", "inf", "soon"])
def test_a_streams_longest_life_must_be_some_seconds(value: str) -> None:
    with pytest.raises(ConfigError, match="HARNESS_STREAM_MAX_S"):
        Settings.from_env({"HARNESS_STREAM_MAX_S": value})
