"""What a turn costs: per-model prices in USD per million tokens."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ("DEFAULT_PRICES", "ModelPrice", "PriceTable")


class ModelPrice(msgspec.Struct, frozen=True):
    input_per_mtok: float
    output_per_mtok: float


DEFAULT_PRICES: dict[str, ModelPrice] = {
    "stub-1": ModelPrice(0.0, 0.0),
    "smollm2-135m-instruct": ModelPrice(0.0, 0.0),
    "gpt-4o": ModelPrice(2.50, 10.00),
    "gpt-4o-mini": ModelPrice(0.15, 0.60),
    "gpt-4.1": ModelPrice(2.00, 8.00),
    "gpt-4.1-mini": ModelPrice(0.40, 1.60),
    "claude-sonnet-4-5": ModelPrice(3.00, 15.00),
    "claude-haiku-4-5": ModelPrice(1.00, 5.00),
    "llama-3.1-8b-instant": ModelPrice(0.05, 0.08),
}


class PriceTable:
    """Prices by model name; a model without a price costs ``None``, never a made-up 0."""

    def __init__(self, prices: dict[str, ModelPrice] | None = None) -> None:
        self._prices = dict(DEFAULT_PRICES if prices is None else prices)

    @classmethod
    def with_overrides(cls, path: Path | None) -> PriceTable:
        """The default table extended by a JSON file ``{"model": {"input_per_mtok": .., "output_per_mtok": ..}}``."""
        prices = dict(DEFAULT_PRICES)
        if path is not None:
            prices.update(msgspec.json.decode(path.read_bytes(), type=dict[str, ModelPrice]))
        return cls(prices)

    def cost_usd(self, model: str, input_tokens: int, output_tokens: int) -> float | None:
        price = self._prices.get(model) or self._prices.get(model.rsplit("/", 1)[-1].lower())
        if price is None:
            return None
        return round((input_tokens * price.input_per_mtok + output_tokens * price.output_per_mtok) / 1e6, 8)
