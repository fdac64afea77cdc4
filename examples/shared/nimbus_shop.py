"""The fictional Nimbus Shop both examples work on: its orders and a few facts to research.

This folder is one of ``langgraph.json``'s ``dependencies``: the service puts it on ``sys.path``, so the
graphs import ``nimbus_shop`` as a module of their own.
"""

from __future__ import annotations

import os

ORDERS: dict[str, dict[str, object]] = {
    "A-1001": {"status": "delivered", "total": "42.00", "item": "Rain jacket"},
    "A-1002": {"status": "shipped", "total": "18.50", "item": "Umbrella"},
    "A-1003": {"status": "processing", "total": "120.00", "item": "Weather station"},
}
"""Order id to what the shop knows of it."""

FACTS: dict[str, str] = {
    "clouds": "Clouds form when rising air cools and its water vapour condenses on tiny particles.",
    "rain": "Rain falls when cloud droplets merge until they are too heavy to stay aloft.",
    "wind": "Wind is air moving from high pressure towards low pressure, turned by the Earth's rotation.",
    "storms": "Storms gather where warm, moist air rises fast into colder air above it.",
    "forecasts": "Forecasts run physical models of the atmosphere forward from today's measurements.",
}
"""Subject to one sentence about it."""


def shop_name() -> str:
    """The shop's name, from ``SHOP_NAME`` (``langgraph.json``'s ``env`` sets it)."""
    return os.environ.get("SHOP_NAME", "the shop")


def currency() -> str:
    """The shop's currency, from ``SHOP_CURRENCY``."""
    return os.environ.get("SHOP_CURRENCY", "EUR")
