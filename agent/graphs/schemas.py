"""The JSON schemas of a compiled graph, as the Agent Server's ``GET /assistants/{id}/schemas`` gives them.

Each is ``None`` when LangGraph (through pydantic) cannot build it: a state declared with ``typing.TypedDict``
on Python 3.11 is one such case (pydantic wants ``typing_extensions.TypedDict``), a type pydantic does not
know is another. A graph runs the same either way.
"""

from __future__ import annotations

import logging
import warnings
from typing import TYPE_CHECKING, Any

import msgspec
from pydantic import TypeAdapter, create_model

if TYPE_CHECKING:
    from collections.abc import Callable

    from agent.graphs.compiled import CompiledGraph

__all__ = ("GraphSchemas", "graph_schemas")

logger = logging.getLogger(__name__)

_INTERNAL_CONFIGURABLE = ("__pregel_checkpointer", "__pregel_store", "checkpoint_id", "checkpoint_ns", "thread_id")

JsonSchema = dict[str, Any]


class GraphSchemas(msgspec.Struct, frozen=True, kw_only=True):
    input_schema: JsonSchema | None
    """What a run takes as ``input``."""
    output_schema: JsonSchema | None
    """What the graph returns."""
    state_schema: JsonSchema | None
    """The state's channels, each with the type an update to it takes."""
    config_schema: JsonSchema | None
    """The ``configurable`` part of the run's config the graph declares (the pre-1.0 ``config_schema``)."""
    context_schema: JsonSchema | None
    """The run's ``context`` (LangGraph 1.0's ``context_schema``)."""


def graph_schemas(graph: CompiledGraph) -> GraphSchemas:
    return GraphSchemas(
        input_schema=_built(graph, "input", graph.get_input_jsonschema),
        output_schema=_built(graph, "output", graph.get_output_jsonschema),
        state_schema=_built(graph, "state", lambda: _state_schema(graph)),
        config_schema=_built(graph, "config", lambda: _configurable_schema(graph)),
        context_schema=_built(graph, "context", graph.get_context_jsonschema),
    )


def _built(graph: CompiledGraph, which: str, build: Callable[[], JsonSchema | None]) -> JsonSchema | None:
    try:
        return build()
    except Exception as exc:
        logger.info("graph %r has no %s schema: %s: %s", graph.name, which, type(exc).__name__, exc)
        return None


def _state_schema(graph: CompiledGraph) -> JsonSchema:
    fields: dict[str, Any] = {}
    for name in graph.stream_channels_list:
        update_type = getattr(graph.channels[name], "UpdateType", Any)
        try:
            TypeAdapter(update_type).json_schema()
            fields[name] = (update_type, None)
        except Exception:
            fields[name] = (Any, None)
    schema: JsonSchema = create_model(graph.get_name("State"), **fields).model_json_schema()
    return schema


def _configurable_schema(graph: CompiledGraph) -> JsonSchema | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        config = graph.config_schema()
    field = config.model_fields.get("configurable")
    if field is None or field.annotation is None:
        return None
    schema: JsonSchema = TypeAdapter(field.annotation).json_schema()
    for key in _INTERNAL_CONFIGURABLE:
        schema.get("properties", {}).pop(key, None)
    return schema
