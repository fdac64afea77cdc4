"""A config's ``env`` and ``dependencies`` applied: nothing overridden, folders appended, each report said once."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from agent.graphs import apply_graphs_config, read_graphs_config
from tests.support.graph_projects import write_project

if TYPE_CHECKING:
    from pathlib import Path

    import pytest


def test_env_sets_what_the_process_lacks_and_never_overrides_what_it_has(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = write_project(
        tmp_path,
        {
            "langgraph.json": {"graphs": {"a": "./a.py:g"}, "env": ".env"},
            ".env": """
                SHOP_NAME="Nimbus Shop"
                API_TOKEN=from-the-file-s3cr3t
                # a comment
                EMPTY=
                NO_VALUE
            """,
        },
    )
    environ = {"API_TOKEN": "from-the-operator"}

    with caplog.at_level(logging.INFO, logger="agent.graphs.environment"):
        apply_graphs_config(read_graphs_config(path), environ=environ, path=[])

    assert environ == {"API_TOKEN": "from-the-operator", "SHOP_NAME": "Nimbus Shop", "EMPTY": ""}
    assert caplog.messages == ["langgraph.json env: set EMPTY, SHOP_NAME; kept the environment's own API_TOKEN"]
    assert "s3cr3t" not in caplog.text
    assert "operator" not in caplog.text


def test_env_as_a_map(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = write_project(
        tmp_path, {"langgraph.json": {"graphs": {"a": "./a.py:g"}, "env": {"RESEARCH_MAX_STEPS": "2"}}}
    )
    environ: dict[str, str] = {}

    with caplog.at_level(logging.INFO, logger="agent.graphs.environment"):
        apply_graphs_config(read_graphs_config(path), environ=environ, path=[])

    assert environ == {"RESEARCH_MAX_STEPS": "2"}
    assert caplog.messages == ["langgraph.json env: set RESEARCH_MAX_STEPS"]


def test_local_dependencies_are_appended_once_after_the_services_own_paths(tmp_path: Path) -> None:
    path = write_project(
        tmp_path,
        {"langgraph.json": {"graphs": {"a": "./a.py:g"}, "dependencies": ["./lib", "."]}, "lib/helpers.py": ""},
    )
    search_path = ["/the/service", str(tmp_path)]

    apply_graphs_config(read_graphs_config(path), environ={}, path=search_path)

    assert search_path == ["/the/service", str(tmp_path), str(tmp_path / "lib")]


def test_what_is_not_installed_and_the_keys_ignored_are_reported_in_one_line_each(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = write_project(
        tmp_path,
        {
            "langgraph.json": {
                "graphs": {"a": "./a.py:g"},
                "dependencies": [".", "msgspec", "surely-not-installed-package>=1", "git+https://example.com/x.git"],
                "python_version": "3.12",
                "store": {"ttl": {"default_ttl": 60}},
                "colour": "blue",
            },
            "pyproject.toml": "[project]\nname = 'mine'\n",
        },
    )

    with caplog.at_level(logging.INFO, logger="agent.graphs.environment"):
        apply_graphs_config(read_graphs_config(path), environ={}, path=[])

    installed, ignored = caplog.messages
    assert installed.startswith("langgraph.json dependencies this service does not install")
    assert "msgspec (installed 0." in installed
    assert "surely-not-installed-package>=1 (missing)" in installed
    assert "git+https://example.com/x.git (not checked)" in installed
    assert "what . declares in pyproject.toml (its folder is on sys.path)" in installed
    assert ignored == (
        "langgraph.json keys ignored: python_version, store.ttl (not used by this service); colour (unknown)"
    )


def test_a_config_with_nothing_to_report_logs_nothing(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = write_project(tmp_path, {"langgraph.json": {"graphs": {"a": "./a.py:g"}, "$schema": "https://x"}})

    with caplog.at_level(logging.INFO, logger="agent.graphs.environment"):
        apply_graphs_config(read_graphs_config(path), environ={}, path=[])

    assert caplog.messages == []
