"""``GET /healthz``."""

from __future__ import annotations

from typing import Annotated

import msgspec

__all__ = ("Health",)


class Health(msgspec.Struct, kw_only=True):
    status: Annotated[str, msgspec.Meta(description="`ok` while the service can take turns.")]
    live_runs: Annotated[int, msgspec.Meta(description="Runs running or waiting for a human.")]
