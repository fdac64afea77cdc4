"""The ``local`` provider's server is started for a caller that names none, and left alone otherwise."""

from __future__ import annotations

import os

import pytest

from agent.config import AgentConfig, LLMConfig, ProviderSettings
from agent.llm.local_autostart import needs_local_server, serving_local_model


@pytest.mark.parametrize(
    ("llm", "needed"),
    [
        (LLMConfig(provider="local"), True),
        (LLMConfig(provider="local", base_url="http://127.0.0.1:9/v1"), False),
        (LLMConfig(provider="local", per_provider={"local": ProviderSettings(base_url="http://h:1/v1")}), False),
        (LLMConfig(provider="stub"), False),
        (LLMConfig(provider="openai"), False),
        (LLMConfig(provider="local,openai"), False),
    ],
)
def test_a_server_is_needed_only_for_the_local_model_alone_without_a_base_url(llm: LLMConfig, needed: bool) -> None:
    assert needs_local_server(AgentConfig(llm=llm)) is needed


async def test_a_config_that_names_its_server_is_handed_back_unchanged() -> None:
    config = AgentConfig(llm=LLMConfig(provider="local", base_url="http://127.0.0.1:9/v1"))

    async with serving_local_model(config) as served:
        assert served is config


@pytest.mark.local_model
async def test_the_local_model_is_served_for_the_block_and_stopped_after_it() -> None:
    config = AgentConfig(llm=LLMConfig(provider="local"))

    async with serving_local_model(config) as served:
        base_url = served.llm.settings_for("local").base_url
        assert base_url is not None
        assert base_url.startswith("http://127.0.0.1:")
        assert served.llm.model == "smollm2-135m-instruct"
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
        servers = [p for p in pids if _is_llama_server_on(p, base_url)]
        assert len(servers) == 1

    with pytest.raises(ProcessLookupError):
        os.kill(servers[0], 0)


def _is_llama_server_on(pid: int, base_url: str) -> bool:
    port = base_url.rsplit(":", 1)[1].split("/", 1)[0]
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            parts = cmdline.read().split(b"\0")
    except OSError:
        return False
    return b"llama_cpp.server" in parts and port.encode() in parts
