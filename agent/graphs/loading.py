"""Loads the graphs a ``langgraph.json`` names, the way the LangGraph Agent Server does.

A graph's module is imported (a file under a unique, stable module name with its folder appended to
``sys.path`` for its own sibling imports; a dotted module from ``sys.path``) and its attribute taken. The
attribute may be:

- a compiled graph (``Pregel``, ``CompiledStateGraph``): used as it is;
- a builder (``StateGraph``): compiled;
- a factory: a callable taking nothing or the run's ``RunnableConfig``, sync or async, returning a compiled
  graph or a builder, or a context manager (sync or async) that yields one, which stays open for the run.
  It is called for every run, and once here, with an empty config, to check that it gives a graph and to
  read the graph's name, schemas and topology.

Every graph runs on the service's checkpointer and with the service's long-term store (``store``, a
``BaseStore`` that scopes each call to the run's subject: ``agent.stores.graph_store``), never those its module
configured (they are replaced, and the log says so), as the Agent Server gives a graph its own.

Every graph is tried; if any fails, one ``GraphLoadError`` says, one line per failing graph,
``<graph id>: <ExceptionType>: <first line> (<file>:<line>)``, pointing at the user's own line that raised,
or, when no line of the user's raised (no such attribute, not a graph, a builder LangGraph cannot compile), at
the graph's entry in ``langgraph.json``.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import logging
import re
import sys
import sysconfig
import traceback
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import StateGraph
from langgraph.pregel import Pregel

from agent.config import ConfigError
from agent.guardrails import redact
from agent.stores import StoreIndex

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable
    from types import ModuleType

    from langchain_core.runnables import RunnableConfig
    from langgraph.store.base import BaseStore

    from agent.graphs.compiled import CompiledGraph
    from agent.graphs.config import AuthSpec, GraphsConfig, GraphSpec, ObjectPath

__all__ = ("GraphFailure", "GraphLoadError", "LoadedGraph", "load_auth_object", "load_graphs", "load_store_index")

logger = logging.getLogger(__name__)

_MODULE_PREFIX = "langgraph_json_"
_LIBRARY_PATHS = tuple(
    {sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")}
    | {str(Path(__file__).resolve().parents[1])}
)
"""Frames in these (the standard library, installed packages, this service's ``agent``) are not the user's."""


class GraphFailure(ConfigError):
    """One graph that could not be loaded; ``str()`` is its line of the summary."""

    def __init__(self, graph_id: str, error: BaseException, location: str) -> None:
        said = error.msg if isinstance(error, SyntaxError) else str(error)  # str() repeats the file and line
        message = said.strip().splitlines()[0] if said.strip() else ""
        shown = f"{type(error).__name__}: {redact(message)}" if message else type(error).__name__
        super().__init__(f"{graph_id}: {shown} ({location})")
        self.graph_id = graph_id
        self.error = error


class GraphLoadError(ConfigError):
    """Some graphs could not be loaded; the message has one line per failing graph, in the file's order."""

    def __init__(self, failures: list[GraphFailure]) -> None:
        super().__init__("\n".join(str(failure) for failure in failures))
        self.failures = tuple(failures)


class LoadedGraph:
    """One graph, ready to run on the service's checkpointer."""

    def __init__(
        self,
        spec: GraphSpec,
        probe: CompiledGraph,
        *,
        factory: Callable[[RunnableConfig], Any] | None,
        checkpointer: BaseCheckpointSaver[Any] | None,
        store: BaseStore | None = None,
    ) -> None:
        self.spec = spec
        self.probe = probe
        """The compiled graph (for a factory: the one it gave when loaded), for its name, schemas and topology."""
        self._factory = factory
        self._checkpointer = checkpointer
        self._store = store

    @property
    def is_factory(self) -> bool:
        return self._factory is not None

    @asynccontextmanager
    async def graph_for(self, config: RunnableConfig) -> AsyncIterator[CompiledGraph]:
        """The compiled graph to run with ``config``: a factory's is made now, for this run."""
        if self._factory is None:
            yield self.probe
            return
        async with _entered(self._factory(config)) as built:
            yield _compiled(built, self._checkpointer, self.spec.graph_id, self._store)


async def load_graphs(
    config: GraphsConfig, checkpointer: BaseCheckpointSaver[Any] | None, store: BaseStore | None = None
) -> list[LoadedGraph]:
    """Every graph of ``config``, in its order, on ``checkpointer`` and ``store`` (the service's; None keeps a
    graph's own store); ``GraphLoadError`` if any fails."""
    loaded: list[LoadedGraph] = []
    failures: list[GraphFailure] = []
    modules: dict[Path, ModuleType] = {}
    for spec in config.graphs:
        try:
            loaded.append(await _load(spec, config, checkpointer, store, modules))
        except (Exception, SystemExit) as exc:
            location = _user_location(exc, config.folder) or _entry_location(spec, config)
            failures.append(GraphFailure(spec.graph_id, exc, location))
    if failures:
        raise GraphLoadError(failures)
    return loaded


def load_auth_object(config: GraphsConfig) -> object:
    """The object ``auth.path`` names (the caller checks that it is a ``langgraph_sdk.Auth``); a ``ConfigError``
    naming the file, the key and the user's line that failed when it cannot be imported."""
    assert config.auth is not None, "a configuration with auth.path"
    return _named_object(config, config.auth, "auth.path")


def load_store_index(config: GraphsConfig) -> StoreIndex | None:
    """The long-term store's embedding index ``store.index`` names, or None without one; a ``ConfigError`` when its
    ``embed`` does not load or is neither a function nor a LangChain ``Embeddings`` object."""
    spec = config.store_index
    if spec is None:
        return None
    embed = _named_object(config, spec.embed, "store.index.embed")
    if not (callable(embed) or hasattr(embed, "aembed_documents")):
        raise ConfigError(
            f"{config.path}: store.index.embed {spec.embed.source!r} is a {type(embed).__name__}, not a function "
            "from texts to vectors or an Embeddings object"
        )
    return StoreIndex(embed, dims=spec.dims, fields=spec.fields)  # type: ignore[arg-type]  # checked above


def _named_object(config: GraphsConfig, spec: ObjectPath, key: str) -> object:
    try:
        module = _import(spec, config.folder, {})
        if spec.attribute not in vars(module):
            raise AttributeError(f"the module has no attribute {spec.attribute!r}")
    except (Exception, SystemExit) as exc:
        said = exc.msg if isinstance(exc, SyntaxError) else str(exc)
        first = said.strip().splitlines()[0] if said.strip() else ""
        location = _user_location(exc, config.folder) or config.path.name
        said = f"{type(exc).__name__}: {redact(first)}"
        raise ConfigError(f"{config.path}: {key} {spec.source!r} does not load: {said} ({location})") from None
    value: object = vars(module)[spec.attribute]
    return value


async def _load(
    spec: GraphSpec,
    config: GraphsConfig,
    checkpointer: BaseCheckpointSaver[Any] | None,
    store: BaseStore | None,
    modules: dict[Path, ModuleType],
) -> LoadedGraph:
    module = _import(spec, config.folder, modules)
    if spec.attribute not in vars(module):
        graphs = sorted(name for name, value in vars(module).items() if isinstance(value, Pregel | StateGraph))
        hint = f"; it has {', '.join(graphs)}" if graphs else ""
        raise AttributeError(f"{spec.source}: the module has no attribute {spec.attribute!r}{hint}")
    value = vars(module)[spec.attribute]
    if isinstance(value, Pregel | StateGraph):
        return LoadedGraph(spec, _compiled(value, checkpointer, spec.graph_id, store), factory=None, checkpointer=None)
    if not callable(value):
        raise TypeError(f"{spec.source} is a {type(value).__name__}, not a compiled graph, a StateGraph or a factory")
    factory = _factory(value, spec)
    async with _entered(factory({"configurable": {}})) as built:
        probe = _compiled(built, checkpointer, spec.graph_id, store)
    return LoadedGraph(spec, probe, factory=factory, checkpointer=checkpointer, store=store)


def _import(spec: GraphSpec | AuthSpec, folder: Path, modules: dict[Path, ModuleType]) -> ModuleType:
    if spec.module is not None:
        return importlib.import_module(spec.module)
    assert spec.file is not None
    if spec.file in modules:
        return modules[spec.file]
    if not spec.file.is_file():
        raise FileNotFoundError(f"{spec.source}: no such file {spec.file}")
    if str(spec.file.parent) not in sys.path:
        sys.path.append(str(spec.file.parent))
    name = _module_name(spec.file, folder)
    module_spec = importlib.util.spec_from_file_location(name, spec.file)
    if module_spec is None or module_spec.loader is None:
        raise ImportError(f"{spec.source}: {spec.file} cannot be imported as a Python module")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module  # before it runs: dataclasses, pydantic and pickling look their module up by name
    try:
        module_spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    modules[spec.file] = module
    return module


def _module_name(file: Path, folder: Path) -> str:
    """Stable across restarts and moves of the project (checkpoints name the types in a state by module), and
    unique per file (two examples may both have a ``graph.py``)."""
    relative = file.relative_to(folder).as_posix() if file.is_relative_to(folder) else file.as_posix()
    stem = re.sub(r"\W", "_", relative.removesuffix(".py"))
    return f"{_MODULE_PREFIX}{stem}_{hashlib.sha256(relative.encode()).hexdigest()[:8]}"


def _factory(value: Callable[..., Any], spec: GraphSpec) -> Callable[[RunnableConfig], Any]:
    try:
        parameters = list(inspect.signature(value).parameters.values())
    except (TypeError, ValueError):
        parameters = []
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    keyword = [p for p in parameters if p.kind is p.KEYWORD_ONLY and p.default is p.empty]
    if len(positional) > 1 or keyword or any("ServerRuntime" in str(p.annotation) for p in parameters):
        raise TypeError(
            f"{spec.source}: a graph factory takes nothing or the run's RunnableConfig, not "
            f"({', '.join(p.name for p in parameters)})"
        )
    if positional or any(p.kind is p.VAR_POSITIONAL for p in parameters):
        return value
    return lambda config: value()


@asynccontextmanager
async def _entered(made: Any) -> AsyncIterator[Any]:
    """What a factory gave: awaited if a coroutine, entered (and left after the run) if a context manager."""
    if inspect.isawaitable(made):
        made = await made
    if hasattr(made, "__aenter__") and hasattr(made, "__aexit__"):
        async with made as graph:
            yield graph
    elif hasattr(made, "__enter__") and hasattr(made, "__exit__"):
        with made as graph:
            yield graph
    else:
        yield made


def _compiled(
    value: Any, checkpointer: BaseCheckpointSaver[Any] | None, graph_id: str, store: BaseStore | None = None
) -> CompiledGraph:
    if isinstance(value, StateGraph):
        return value.compile(checkpointer=checkpointer, store=store)
    if not isinstance(value, Pregel):
        raise TypeError(f"the factory gave a {type(value).__name__}, not a compiled graph or a StateGraph")
    own = value.checkpointer
    if isinstance(own, BaseCheckpointSaver) and own is not checkpointer:
        logger.warning(
            "graph %r was compiled with its own checkpointer (%s); it runs on the service's instead",
            graph_id,
            type(own).__name__,
        )
    if store is None:
        return value.copy(update={"checkpointer": checkpointer})
    if value.store is not None and value.store is not store:
        logger.warning(
            "graph %r was compiled with its own store (%s); it runs with the service's instead",
            graph_id,
            type(value.store).__name__,
        )
    return value.copy(update={"checkpointer": checkpointer, "store": store})


def _user_location(error: BaseException, folder: Path) -> str | None:
    """The user's own line the error came from: a syntax error's, else the deepest frame outside the standard
    library, installed packages and this service; ``None`` when no frame is the user's (a builder that does not
    compile fails in LangGraph, called from here)."""
    if isinstance(error, SyntaxError) and error.filename:
        return f"{_shown(Path(error.filename), folder)}:{error.lineno or 0}"
    users = [
        frame
        for frame in traceback.extract_tb(error.__traceback__)
        if not frame.filename.startswith((*_LIBRARY_PATHS, "<"))  # "<frozen importlib._bootstrap>"
    ]
    return f"{_shown(Path(users[-1].filename), folder)}:{users[-1].lineno}" if users else None


def _entry_location(spec: GraphSpec, config: GraphsConfig) -> str:
    """The line of ``langgraph.json`` that names the graph."""
    lines = config.path.read_text(errors="replace").splitlines()
    quoted = f'"{spec.graph_id}"'
    number = next((index for index, line in enumerate(lines, 1) if quoted in line), 1)
    return f"{config.path.name}:{number}"


def _shown(path: Path, folder: Path) -> str:
    return path.relative_to(folder).as_posix() if path.is_relative_to(folder) else str(path)
