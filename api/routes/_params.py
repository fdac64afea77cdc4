"""Path parameters that several protocols' routes name alike."""

from __future__ import annotations

from typing import Annotated

from litestar.params import PathParameter

__all__ = ("AssistantId",)

AssistantId = Annotated[
    str, PathParameter(description="A registered graph: its assistant id (a UUID) or its graph id, e.g. `react_agent`.")
]
