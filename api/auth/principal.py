"""Who is asking (``Principal``, ``ANONYMOUS``): the run core's notion (``api.runs.principal``), read from a bearer
token by this package."""

from __future__ import annotations

from api.runs.principal import ANONYMOUS, Principal

__all__ = ("ANONYMOUS", "Principal")
