"""The turn's model usage as the state stores it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent.deps import AgentDeps

__all__ = ("model_usage", "no_model_usage")


def model_usage(deps: AgentDeps, model: str, input_tokens: int, output_tokens: int) -> dict[str, Any]:
    return {
        "model": model,
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cost_usd": deps.prices.cost_usd(model, input_tokens, output_tokens),
    }


def no_model_usage(deps: AgentDeps) -> dict[str, Any]:
    """Usage of a turn that did not reach the model."""
    return model_usage(deps, deps.llm.model, 0, 0)
