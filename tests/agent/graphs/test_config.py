"""``langgraph.json`` as the LangGraph CLI writes it: every form it takes, and one clear line for a bad file."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from agent.config import ConfigError
from agent.graphs import ThreadTtl, read_graphs_config
from tests.support.graph_projects import write_project

if TYPE_CHECKING:
    from pathlib import Path


def test_graphs_as_file_paths_modules_and_the_dict_form(tmp_path: Path) -> None:
    path = write_project(
        tmp_path,
        {
            "langgraph.json": {
                "graphs": {
                    "agent": "./src/agent/graph.py:graph",
                    "by_module": "my_package.graphs:make_graph",
                    "described": {"path": "research.py:build", "description": "Researches a topic."},
                }
            }
        },
    )

    config = read_graphs_config(path)

    agent, by_module, described = config.graphs
    assert (agent.graph_id, agent.file, agent.module, agent.attribute) == (
        "agent",
        tmp_path / "src" / "agent" / "graph.py",
        None,
        "graph",
    )
    assert (by_module.module, by_module.file, by_module.attribute) == ("my_package.graphs", None, "make_graph")
    assert (described.file, described.description) == (tmp_path / "research.py", "Researches a topic.")
    assert agent.description is None
    assert config.path == path
    assert config.folder == tmp_path


def test_a_relative_config_path_is_read_from_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_project(tmp_path / "project", {"langgraph.json": {"graphs": {"agent": "./graph.py:graph"}}})
    monkeypatch.chdir(tmp_path)

    config = read_graphs_config("project/langgraph.json")

    assert config.graphs[0].file == tmp_path / "project" / "graph.py"


def test_env_as_a_map_or_a_dotenv_file_relative_to_the_config(tmp_path: Path) -> None:
    as_map = write_project(
        tmp_path / "map", {"langgraph.json": {"graphs": {"a": "./a.py:g"}, "env": {"SHOP_NAME": "Nimbus"}}}
    )
    as_file = write_project(
        tmp_path / "file",
        {"langgraph.json": {"graphs": {"a": "./a.py:g"}, "env": "./config/.env"}, "config/.env": "A=1\n"},
    )

    assert read_graphs_config(as_map).env == {"SHOP_NAME": "Nimbus"}
    assert read_graphs_config(as_map).env_file is None
    assert read_graphs_config(as_file).env_file == tmp_path / "file" / "config" / ".env"
    assert read_graphs_config(as_file).env == {}


def test_local_dependencies_are_folders_and_everything_else_is_a_package(tmp_path: Path) -> None:
    (tmp_path / "shared").mkdir()
    path = write_project(
        tmp_path / "project",
        {
            "langgraph.json": {
                "graphs": {"a": "./a.py:g"},
                "dependencies": [".", "./lib", "../shared", "langchain_openai", "pkg>=1", ".", "pkg>=1"],
            },
            "lib/helpers.py": "X = 1\n",
        },
    )

    config = read_graphs_config(path)

    assert config.local_dependencies == (tmp_path / "project", tmp_path / "project" / "lib", tmp_path / "shared")
    assert config.other_dependencies == ("langchain_openai", "pkg>=1")


def test_every_other_key_is_collected_as_ignored_and_none_is_fatal(tmp_path: Path) -> None:
    path = write_project(
        tmp_path,
        {
            "langgraph.json": {
                "$schema": "https://langgra.ph/schema.json",
                "python_version": "3.12",
                "dockerfile_lines": ["RUN true"],
                "store": {"ttl": {"default_ttl": 5}},
                "auth": {"path": "./auth.py:auth", "disable_studio_auth": True},
                "http": {"cors": {}},
                "my_own_setting": True,
                "graphs": {"a": {"path": "./a.py:g", "tags": ["x"]}},
            }
        },
    )

    config = read_graphs_config(path)

    assert config.ignored_keys == (
        "auth.disable_studio_auth",
        "dockerfile_lines",
        "graphs.a.tags",
        "http",
        "my_own_setting",
        "python_version",
        "store.ttl",
    )
    assert [spec.graph_id for spec in config.graphs] == ["a"]
    assert config.auth is not None
    assert (config.auth.file, config.auth.attribute) == (tmp_path / "auth.py", "auth")


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b'{"graphs": {"a": "./a.py:g"},\n  "env": }', "not valid JSON (invalid character (line 2, column 10))"),
        (b"[1, 2]", "must hold a JSON object, found an array"),
        (b'{"graphs": {}}', 'names no graph; add "graphs": {"<id>": "./file.py:graph"}'),
        (b"{}", "names no graph"),
        (b'{"graphs": "./a.py:g"}', "Expected `object`, got `str` - at `graphs`"),
        (b'{"graphs": {"a": "./a.py:g"}, "env": 5}', "Expected `str | null`, got `int` - at `env`"),
        (b'{"graphs": {"a": "./a.py:g"}, "dependencies": [1]}', "Expected `str`, got `int` - at `dependencies[0]`"),
        (b'{"graphs": {"a": 5}}', "Expected `str | object`, got `int` - at `graphs.a`"),
        (b'{"graphs": {"a": {"description": "x"}}}', "Object missing required field `path` - at `graphs.a`"),
        (b'{"graphs": {"a": "./a.py"}}', "graph 'a' is './a.py'; expected './path/to/file.py:attribute'"),
        (b'{"graphs": {"a": "./a.py:not-a-name"}}', "graph 'a' is './a.py:not-a-name'"),
        (b'{"graphs": {"a": "my..module:g"}}', "graph 'a' names module 'my..module', which is not a dotted module"),
        (b'{"graphs": {"a b": "./a.py:g"}}', "graph id 'a b' must be 1 to 64 letters"),
        (b'{"graphs": {"a": "./a.py:g"}, "env": {"PORT": 8000}}', "Expected `str`, got `int` - at `env.PORT`"),
        (b'{"graphs": {"a": "./a.py:g"}, "env": ".env.missing"}', "env names '.env.missing', which is not a file"),
        (
            b'{"graphs": {"a": "./a.py:g"}, "dependencies": "./lib"}',
            "Expected `array`, got `str` - at `dependencies`",
        ),
        (b'{"graphs": {"a": "./a.py:g"}, "dependencies": ["./nowhere"]}', "dependency './nowhere' is not a folder"),
        (b'{"graphs": {"a": "./a.py:g"}, "auth": "./auth.py:auth"}', "Expected `object | null`, got `str` - at `auth`"),
        (b'{"graphs": {"a": "./a.py:g"}, "auth": {"path": 5}}', "Expected `str`, got `int` - at `auth.path`"),
        (b'{"graphs": {"a": "./a.py:g"}, "auth": {"path": "./auth.py"}}', "auth.path is './auth.py'; expected"),
    ],
)
def test_a_malformed_file_is_one_line_naming_the_file_and_the_problem(
    tmp_path: Path, content: bytes, problem: str
) -> None:
    path = tmp_path / "langgraph.json"
    path.write_bytes(content)

    with pytest.raises(ConfigError) as raised:
        read_graphs_config(path)

    message = str(raised.value)
    assert message.startswith(f"{path}: ")
    assert problem in message
    assert "\n" not in message


def test_a_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"langgraph\.json: cannot be read \(No such file or directory\)$"):
        read_graphs_config(tmp_path / "langgraph.json")


def test_the_thread_ttl_is_read_from_the_checkpointer_and_its_other_keys_are_ignored(tmp_path: Path) -> None:
    ttl = {"strategy": "delete", "default_ttl": 43200, "sweep_interval_minutes": 10}
    path = write_project(
        tmp_path,
        {"langgraph.json": {"graphs": {"a": "./a.py:g"}, "checkpointer": {"ttl": ttl, "serde": {"pickle": True}}}},
    )
    bare = write_project(tmp_path / "bare", {"langgraph.json": {"graphs": {"a": "./a.py:g"}}})
    defaults = write_project(
        tmp_path / "defaults",
        {"langgraph.json": {"graphs": {"a": "./a.py:g"}, "checkpointer": {"ttl": {"default_ttl": 1.5}}}},
    )

    config = read_graphs_config(path)

    assert config.thread_ttl == ThreadTtl(strategy="delete", default_ttl=43200, sweep_interval_minutes=10)
    assert (config.thread_ttl.idle_s, config.thread_ttl.sweep_interval_s) == (43200 * 60, 600)
    assert config.ignored_keys == ("checkpointer.serde",)
    assert read_graphs_config(bare).thread_ttl is None
    assert read_graphs_config(defaults).thread_ttl == ThreadTtl(default_ttl=1.5, sweep_interval_minutes=60)


@pytest.mark.parametrize(
    ("ttl", "problem"),
    [
        (
            {"strategy": "keep_latest", "default_ttl": 60},
            "checkpointer.ttl.strategy is 'keep_latest'; this service serves 'delete'",
        ),
        ({"strategy": "delete"}, "Object missing required field `default_ttl` - at `checkpointer.ttl`"),
        ({"default_ttl": "60"}, "Expected `float`, got `str` - at `checkpointer.ttl.default_ttl`"),
        ({"default_ttl": 0}, "checkpointer.ttl.default_ttl must be a positive number of minutes, found 0.0"),
        (
            {"default_ttl": 60, "sweep_interval_minutes": -5},
            "checkpointer.ttl.sweep_interval_minutes must be a positive",
        ),
        ("30d", "Expected `object`, got `str` - at `checkpointer.ttl`"),
    ],
)
def test_a_bad_thread_ttl_is_a_config_error_naming_the_key(tmp_path: Path, ttl: object, problem: str) -> None:
    path = write_project(tmp_path, {"langgraph.json": {"graphs": {"a": "./a.py:g"}, "checkpointer": {"ttl": ttl}}})

    with pytest.raises(ConfigError) as raised:
        read_graphs_config(path)

    assert str(raised.value).startswith(f"{path}: ")
    assert problem in str(raised.value)


def test_a_checkpointer_that_is_not_an_object_is_a_config_error(tmp_path: Path) -> None:
    path = write_project(tmp_path, {"langgraph.json": {"graphs": {"a": "./a.py:g"}, "checkpointer": 5}})

    with pytest.raises(ConfigError, match=r"Expected `object \| null`, got `int` - at `checkpointer`$"):
        read_graphs_config(path)


def test_store_index_names_an_embedding_function_its_dimensions_and_fields(tmp_path: Path) -> None:
    path = write_project(
        tmp_path,
        {
            "langgraph.json": {
                "graphs": {"a": "./a.py:g"},
                "store": {"index": {"embed": "./embed.py:embed", "dims": 8, "fields": ["text", "tags[*]"]}},
            }
        },
    )

    config = read_graphs_config(path)

    assert config.store_index is not None
    assert (config.store_index.embed.file, config.store_index.embed.attribute) == (tmp_path / "embed.py", "embed")
    assert (config.store_index.dims, config.store_index.fields) == (8, ("text", "tags[*]"))
    assert "store" not in config.ignored_keys
    unset = read_graphs_config(write_project(tmp_path / "plain", {"langgraph.json": {"graphs": {"a": "./a.py:g"}}}))
    assert unset.store_index is None


@pytest.mark.parametrize(
    ("index", "problem"),
    [
        ({"dims": 3}, "Object missing required field `embed` - at `store.index`"),
        ({"embed": "./e.py:f", "dims": 0}, "store.index.dims must be a positive number of dimensions, found 0"),
        ({"embed": "./e.py:f", "dims": 3, "size": 1}, "Object contains unknown field `size` - at `store.index`"),
        ({"embed": "./e.py:f", "dims": 3, "fields": [" "]}, "store.index.fields holds an empty path"),
        ({"embed": "openai:text-embedding-3-small", "dims": 3}, "a model provider's; this service embeds with a"),
        ({"embed": "embed", "dims": 3}, "store.index.embed is 'embed'; expected './path/to/file.py:attribute'"),
    ],
)
def test_a_store_index_that_cannot_be_used_stops_the_start(tmp_path: Path, index: object, problem: str) -> None:
    path = write_project(tmp_path, {"langgraph.json": {"graphs": {"a": "./a.py:g"}, "store": {"index": index}}})

    with pytest.raises(ConfigError) as raised:
        read_graphs_config(path)

    assert problem in str(raised.value)
    assert str(path) in str(raised.value)
