"""Everything the nodes need, handed to the graph builder in one place."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer

    from agent.actions import ActionRegistry
    from agent.clock import Clock, IdFactory
    from agent.knowledge import KnowledgeIndex
    from agent.llm.pricing import PriceTable
    from agent.llm.protocol import LLMClient

__all__ = ("AgentDeps",)


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentDeps:
    llm: LLMClient
    knowledge: KnowledgeIndex
    actions: ActionRegistry
    prices: PriceTable
    tracer: Tracer
    clock: Clock
    ids: IdFactory
    retrieval_k: int = 3
