"""``CompiledGraph``: any compiled LangGraph graph, whatever its state, context, input and output types."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    from langgraph.pregel import Pregel

__all__ = ("CompiledGraph",)

CompiledGraph: TypeAlias = "Pregel[Any, Any, Any, Any]"
