"""The Litestar API: JSON and SSE turns, durable runs, the SPA. Nothing imports this package."""

from __future__ import annotations

from api.app import create_app
from api.settings import Settings

__all__ = ("Settings", "create_app")
