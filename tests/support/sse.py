"""A minimal reader of SSE streams for tests: frames as the server wrote them, comments included."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from tests.support.frame_schema import frame_problems

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    import httpx

__all__ = ("Frame", "collect", "frames", "parse_frame")


class Frame(msgspec.Struct, frozen=True):
    raw: bytes
    """The frame's bytes as sent, without the blank line that ends it."""

    @property
    def fields(self) -> dict[str, str]:
        result: dict[str, str] = {}
        for line in self.raw.decode().split("\n"):
            if line.startswith(":"):
                continue
            name, _, value = line.partition(": ")
            result[name] = value
        return result

    @property
    def is_comment(self) -> bool:
        return self.raw.startswith(b":")

    @property
    def event(self) -> str | None:
        return self.fields.get("event")

    @property
    def id(self) -> str | None:
        return self.fields.get("id")

    @property
    def data(self) -> dict[str, Any]:
        value: dict[str, Any] = msgspec.json.decode(self.fields["data"])
        return value


def parse_frame(raw: bytes) -> Frame:
    return Frame(raw)


async def frames(response: httpx.Response) -> AsyncIterator[Frame]:
    """Every frame and comment of ``response`` as it arrives."""
    buffer = b""
    async for chunk in response.aiter_raw():
        buffer += chunk
        while b"\n\n" in buffer:
            raw, buffer = buffer.split(b"\n\n", 1)
            problems = frame_problems(raw)
            assert not problems, f"a frame breaks the contract: {problems}"
            yield Frame(raw)


async def collect(stream: AsyncIterator[Frame], *, until: str | None = None) -> list[Frame]:
    """The events of ``stream`` until it ends (or through the first event of type ``until``)."""
    received: list[Frame] = []
    async for frame in stream:
        if frame.event is None:
            continue
        received.append(frame)
        if frame.event == until:
            break
    return received
