"""The one rule for what of a client's run options reaches a graph (``api.runs.run_options``)."""

from __future__ import annotations

from typing import Any

import pytest

from api.runs.errors import RunRequestInvalid
from api.runs.run_options import client_config, reserved_key, screen_run_options


@pytest.mark.parametrize(
    "key",
    [
        "__pregel_resume_map",
        "__pregel_send",
        "__anything",
        "checkpoint_id",
        "checkpoint_ns",
        "checkpoint_map",
        "checkpoint_other",
        "thread_id",
        "run_id",
        "graph_id",
        "assistant_id",
        "langgraph_step",
        "langgraph_auth_user",
    ],
)
def test_what_langgraph_or_the_service_reads_is_reserved(key: str) -> None:
    assert reserved_key(key)


@pytest.mark.parametrize("key", ["max_steps", "user_name", "model", "thread", "_private", "checkpoint"])
def test_a_graphs_own_keys_are_not(key: str) -> None:
    assert not reserved_key(key)


@pytest.mark.parametrize(
    ("config", "path"),
    [
        ({"callbacks": []}, "config.callbacks"),
        ({"run_id": "r_1"}, "config.run_id"),
        ({"recursion_limit": "25"}, "config.recursion_limit"),
        ({"recursion_limit": 0}, "config.recursion_limit"),
        ({"recursion_limit": True}, "config.recursion_limit"),
        ({"tags": ["a", 1]}, "config.tags"),
        ({"configurable": []}, "config.configurable"),
        ({"configurable": {"__pregel_resume_map": {}}}, "config.configurable.__pregel_resume_map"),
    ],
)
def test_a_refusal_names_the_field(config: dict[str, Any], path: str) -> None:
    with pytest.raises(RunRequestInvalid) as refused:
        screen_run_options(config, None, None, field="forwardedProps.")
    assert list(refused.value.fields) == [f"forwardedProps.{path}"]


def test_a_client_may_tune_its_run() -> None:
    config = {
        "tags": ["a"],
        "recursion_limit": 5,
        "run_name": "mine",
        "max_concurrency": 2,
        "configurable": {"max_steps": 3},
        "metadata": {"team": "x"},
    }
    screen_run_options(config, {"team": "x"}, {"user_name": "a"})
    assert client_config(config) == config


def test_a_stored_config_loses_what_the_rule_reserves() -> None:
    stored = {"configurable": {"__pregel_resume_map": {"i": 1}, "max_steps": 3}, "callbacks": [1], "tags": ["a"]}
    assert client_config(stored) == {"configurable": {"max_steps": 3}, "tags": ["a"]}
