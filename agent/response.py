"""The ``ChatResponse`` of a turn, built from the graph's state: one builder for every path."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from contracts import Answer, ChatResponse, Citation, PendingApproval, TraceEntry, Usage

if TYPE_CHECKING:
    from agent.state import AgentState

__all__ = ("chat_response", "pending_approval")


def pending_approval(state: AgentState) -> PendingApproval | None:
    proposal = state.get("proposal")
    if proposal is None:
        return None
    return PendingApproval(approval_id=proposal["approval_id"], action=proposal["action"], summary=proposal["summary"])


def chat_response(state: AgentState, *, paused: bool) -> ChatResponse:
    run_id = state["run_id"]
    passages = {p["doc_id"]: p for p in state.get("passages", [])}
    answer = state.get("answer") or {"kind": "answer", "text": ""}
    usage: dict[str, Any] = state.get("usage") or {}
    return ChatResponse(
        session_id=state["session_id"],
        run_id=run_id,
        status="paused" if paused else state.get("status") or "completed",  # type: ignore[arg-type]
        answer=Answer(kind=answer["kind"], text=answer["text"], reason=answer.get("reason")),  # type: ignore[arg-type]
        citations=[
            Citation(doc_id=doc_id, title=passages[doc_id]["title"], snippet=passages[doc_id]["snippet"])
            for doc_id in state.get("cited", [])
            if doc_id in passages
        ],
        pending_approval=pending_approval(state) if paused else None,
        trace=[
            TraceEntry(node=entry["node"], latency_ms=entry["latency_ms"], outcome=entry["outcome"])
            for entry in state.get("trace", [])
            if entry["run_id"] == run_id
        ],
        usage=Usage(
            model=usage.get("model", ""),
            input_tokens=usage.get("input_tokens", 0),
            output_tokens=usage.get("output_tokens", 0),
            cost_usd=usage.get("cost_usd"),
        ),
    )
