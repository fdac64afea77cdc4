"""The service as an attacker meets it: a real uvicorn on loopback (``serve``, from the end-to-end tests)."""

from __future__ import annotations

from tests.e2e.conftest import serve

__all__ = ("serve",)
