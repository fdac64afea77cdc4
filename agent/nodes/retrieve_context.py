"""``retrieve_context``: the best passages of the knowledge base for the message (BM25 over passages).

A follow-up that refers back to the user's previous message is searched together with it
(``KnowledgeIndex.search``'s ``previous``); refused exchanges are never part of that context.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.history import prompt_history
from agent.instrument import NodeResult
from agent.intake import message_text

if TYPE_CHECKING:
    from agent.deps import AgentDeps
    from agent.state import AgentState, PassageState

__all__ = ("retrieve_context",)


async def retrieve_context(state: AgentState, deps: AgentDeps) -> NodeResult:
    earlier = [message.content for message in prompt_history(state.get("history", [])) if message.role == "user"]
    with deps.tracer.start_as_current_span("retrieval.search") as span:
        found = deps.knowledge.search(message_text(state), deps.retrieval_k, previous=earlier[-1] if earlier else None)
        span.set_attribute("retrieval.k", deps.retrieval_k)
        span.set_attribute("retrieval.doc_ids", [p.doc_id for p in found])
    passages: list[PassageState] = [
        {"doc_id": p.doc_id, "title": p.title, "text": p.text, "snippet": p.snippet, "score": p.score} for p in found
    ]
    noun = "passage" if len(passages) == 1 else "passages"
    return NodeResult(
        update={"passages": passages},
        outcome="retrieved" if passages else "no_results",
        summary=f"{len(passages)} {noun} found",
    )
