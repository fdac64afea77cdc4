"""The ``data`` of each Server-Sent Event in a provider's response, read line by line.

OpenAI-compatible servers and Anthropic both answer streams as SSE. Only ``data`` matters to us (both put
the event type inside the JSON too); comments (``: ping``), ``event:``, ``id:`` and ``retry:`` lines are
skipped. An event ends at a blank line, or at the end of the body for servers that omit the last one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import AsyncIterable, AsyncIterator

__all__ = ("sse_data",)


async def sse_data(lines: AsyncIterable[str]) -> AsyncIterator[str]:
    data: list[str] = []
    async for line in lines:
        if not line:
            if data:
                yield "\n".join(data)
                data = []
            continue
        name, _, value = line.partition(":")
        if name == "data":
            data.append(value.removeprefix(" "))
    if data:
        yield "\n".join(data)
