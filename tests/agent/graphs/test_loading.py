"""Every kind of attribute a ``langgraph.json`` may name loads and runs on the service's checkpointer; a project
that does not load stops the start with one line per failing graph, every graph tried."""

from __future__ import annotations

import sys
from textwrap import dedent
from typing import TYPE_CHECKING, Any

import pytest

from agent.config import ConfigError
from agent.graphs import GraphLoadError, apply_graphs_config, load_graphs, read_graphs_config
from tests.support.graph_projects import write_project

if TYPE_CHECKING:
    from pathlib import Path

    from langgraph.checkpoint.base import BaseCheckpointSaver

    from agent.graphs import LoadedGraph

COUNTER = dedent("""
    from langgraph.graph import END, START, StateGraph
    from typing_extensions import TypedDict


    class State(TypedDict):
        n: int


    def bump(state: State) -> State:
        return {"n": state["n"] + 1}


    def build() -> StateGraph:
        builder = StateGraph(State)
        builder.add_node("bump", bump)
        builder.add_edge(START, "bump")
        builder.add_edge("bump", END)
        return builder
""")

KINDS = {
    "compiled.py": COUNTER + "\n\ngraph = build().compile(name='counter')\n",
    "builder.py": COUNTER + "\n\nbuilder = build()\n",
    "factories.py": COUNTER
    + dedent("""

    import contextlib

    CALLS = []


    def with_config(config):
        CALLS.append(("with_config", config.get("configurable", {}).get("thread_id")))
        return build().compile()


    async def asynchronous():
        CALLS.append(("asynchronous", None))
        return build()


    @contextlib.asynccontextmanager
    async def async_context(config):
        CALLS.append(("enter", config.get("configurable", {}).get("thread_id")))
        try:
            yield build().compile()
        finally:
            CALLS.append(("exit", config.get("configurable", {}).get("thread_id")))


    @contextlib.contextmanager
    def sync_context():
        yield build()
    """),
    "pkgs/counting/__init__.py": "",
    "pkgs/counting/graphs.py": "from compiled import build\n\ngraph = build().compile()\n",
}
"""The project's own folder is on sys.path (``"."``), so ``counting.graphs`` imports its sibling ``compiled``."""


async def load(tmp_path: Path, graphs: dict[str, str], checkpointer: BaseCheckpointSaver[Any]) -> list[LoadedGraph]:
    path = write_project(tmp_path, {**KINDS, "langgraph.json": {"graphs": graphs, "dependencies": [".", "./pkgs"]}})
    config = read_graphs_config(path)
    apply_graphs_config(config)
    return await load_graphs(config, checkpointer)


@pytest.mark.parametrize(
    "source",
    [
        "./compiled.py:graph",
        "./builder.py:builder",
        "./factories.py:with_config",
        "./factories.py:asynchronous",
        "./factories.py:async_context",
        "./factories.py:sync_context",
        "counting.graphs:graph",
    ],
)
async def test_each_kind_of_attribute_runs_on_the_services_checkpointer(
    tmp_path: Path, checkpointer: BaseCheckpointSaver[Any], source: str
) -> None:
    (loaded,) = await load(tmp_path, {"counter": source}, checkpointer)
    config: Any = {"configurable": {"thread_id": "t1"}}

    async with loaded.graph_for(config) as graph:
        output = await graph.ainvoke({"n": 1}, config)
        state = await graph.aget_state(config)

    assert graph.checkpointer is checkpointer
    assert loaded.probe.checkpointer is checkpointer
    assert output == {"n": 2}
    assert state.values == {"n": 2}
    assert loaded.is_factory == ("factories" in source)


async def test_a_factory_is_called_for_every_run_with_its_config_and_once_when_loaded(
    tmp_path: Path, checkpointer: BaseCheckpointSaver[Any]
) -> None:
    (loaded,) = await load(tmp_path, {"counter": "./factories.py:with_config"}, checkpointer)
    calls = next(module.CALLS for module in list(sys.modules.values()) if hasattr(module, "async_context"))

    for thread in ("t1", "t2"):
        async with loaded.graph_for({"configurable": {"thread_id": thread}}):
            pass

    assert calls == [("with_config", None), ("with_config", "t1"), ("with_config", "t2")]


async def test_a_context_manager_factory_stays_open_for_its_run(
    tmp_path: Path, checkpointer: BaseCheckpointSaver[Any]
) -> None:
    (loaded,) = await load(tmp_path, {"counter": "./factories.py:async_context"}, checkpointer)
    calls = next(module.CALLS for module in list(sys.modules.values()) if hasattr(module, "async_context"))
    config: Any = {"configurable": {"thread_id": "t1"}}

    async with loaded.graph_for(config) as graph:
        await graph.ainvoke({"n": 1}, config)
        during = list(calls)

    assert during == [("enter", None), ("exit", None), ("enter", "t1")]
    assert calls[-1] == ("exit", "t1")


async def test_a_graph_compiled_with_its_own_checkpointer_runs_on_the_services(
    tmp_path: Path, checkpointer: BaseCheckpointSaver[Any], caplog: pytest.LogCaptureFixture
) -> None:
    own = (
        COUNTER
        + "\n\nfrom langgraph.checkpoint.memory import InMemorySaver\n\ngraph = build().compile(InMemorySaver())\n"
    )
    write_project(tmp_path, {"own.py": own})

    (loaded,) = await load(tmp_path, {"counter": "./own.py:graph"}, checkpointer)

    assert loaded.probe.checkpointer is checkpointer
    assert (
        "graph 'counter' was compiled with its own checkpointer (InMemorySaver); it runs on the service's instead"
        in (caplog.messages)
    )


async def test_two_graphs_of_one_file_share_one_module_under_a_stable_name(
    tmp_path: Path, checkpointer: BaseCheckpointSaver[Any]
) -> None:
    graphs = {"first": "./factories.py:with_config", "second": "./factories.py:async_context"}

    await load(tmp_path, graphs, checkpointer)
    names = [name for name, module in sys.modules.items() if hasattr(module, "async_context")]
    for name in names:
        del sys.modules[name]
    await load(tmp_path, graphs, checkpointer)
    again = [name for name, module in sys.modules.items() if hasattr(module, "async_context")]

    assert len(names) == 1
    assert names == again
    assert names[0].startswith("langgraph_json_factories_")


FAILING = {
    "syntax.py": "x = 1\n\ndef broken(:\n    pass\n",
    "raises.py": "import os\nraise RuntimeError('OPENAI_API_KEY is not set\\nset it in .env')\n",
    "imports.py": "import surely_not_a_module_of_this_test\n",
    "exits.py": "import sys\n\nsys.exit(3)\n",
    "values.py": "NUMBER = 5\n",
    "bad_builder.py": """
        from langgraph.graph import START, StateGraph
        from typing_extensions import TypedDict


        class State(TypedDict):
            n: int


        builder = StateGraph(State)
        builder.add_edge(START, "nowhere")
    """,
    "factories_that_fail.py": """
        def gives_text(config):
            return "a graph, honestly"


        def needs_a_model(config):
            return config["configurable"]["model"]


        def takes_two(config, runtime):
            return None
    """,
    "good.py": COUNTER + "\n\ngraph = build().compile()\n",
}
FAILING_CONFIG = """{
  "graphs": {
    "syntax": "./syntax.py:graph",
    "raises": "./raises.py:graph",
    "good": "./good.py:graph",
    "imports": "./imports.py:graph",
    "exits": "./exits.py:graph",
    "no_attribute": "./good.py:grph",
    "not_a_graph": "./values.py:NUMBER",
    "bad_builder": "./bad_builder.py:builder",
    "gives_text": "./factories_that_fail.py:gives_text",
    "needs_a_model": "./factories_that_fail.py:needs_a_model",
    "takes_two": "./factories_that_fail.py:takes_two",
    "no_file": "./nowhere.py:graph",
    "no_module": "nowhere.graphs:graph"
  }
}
"""


async def test_every_failing_graph_is_one_line_pointing_at_the_users_own_line(
    tmp_path: Path, checkpointer: BaseCheckpointSaver[Any]
) -> None:
    path = write_project(tmp_path, {**FAILING, "langgraph.json": FAILING_CONFIG})

    with pytest.raises(GraphLoadError) as raised:
        await load_graphs(read_graphs_config(path), checkpointer)

    assert isinstance(raised.value, ConfigError)
    assert str(raised.value).splitlines() == [
        "syntax: SyntaxError: invalid syntax (syntax.py:3)",
        "raises: RuntimeError: OPENAI_API_KEY is not set (raises.py:2)",
        "imports: ModuleNotFoundError: No module named 'surely_not_a_module_of_this_test' (imports.py:1)",
        "exits: SystemExit: 3 (exits.py:3)",
        "no_attribute: AttributeError: ./good.py:grph: the module has no attribute 'grph'; it has graph "
        "(langgraph.json:8)",
        "not_a_graph: TypeError: ./values.py:NUMBER is a int, not a compiled graph, a StateGraph or a factory "
        "(langgraph.json:9)",
        "bad_builder: ValueError: Found edge ending at unknown node `nowhere` (langgraph.json:10)",
        "gives_text: TypeError: the factory gave a str, not a compiled graph or a StateGraph (langgraph.json:11)",
        "needs_a_model: KeyError: 'model' (factories_that_fail.py:6)",
        "takes_two: TypeError: ./factories_that_fail.py:takes_two: a graph factory takes nothing or the run's "
        "RunnableConfig, not (config, runtime) (langgraph.json:13)",
        "no_file: FileNotFoundError: ./nowhere.py:graph: no such file " + str(tmp_path / "nowhere.py") + " "
        "(langgraph.json:14)",
        "no_module: ModuleNotFoundError: No module named 'nowhere' (langgraph.json:15)",
    ]
    assert [failure.graph_id for failure in raised.value.failures][:3] == ["syntax", "raises", "imports"]


async def test_a_failure_message_is_redacted(tmp_path: Path, checkpointer: BaseCheckpointSaver[Any]) -> None:
    path = write_project(
        tmp_path,
        {
            "leaky.py": "raise ValueError('card 4111 1111 1111 1111 was declined')\n",
            "langgraph.json": {"graphs": {"leaky": "./leaky.py:graph"}},
        },
    )

    with pytest.raises(GraphLoadError) as raised:
        await load_graphs(read_graphs_config(path), checkpointer)

    assert "4111" not in str(raised.value)
    assert str(raised.value) == "leaky: ValueError: card [REDACTED CARD] was declined (leaky.py:1)"


async def test_a_failed_module_is_not_left_half_imported(
    tmp_path: Path, checkpointer: BaseCheckpointSaver[Any]
) -> None:
    path = write_project(
        tmp_path,
        {"half.py": "MARK = 1\nraise RuntimeError('no')\n", "langgraph.json": {"graphs": {"h": "./half.py:g"}}},
    )

    with pytest.raises(GraphLoadError):
        await load_graphs(read_graphs_config(path), checkpointer)

    assert not [module for module in sys.modules.values() if getattr(module, "MARK", None) == 1]
