"""A TCP forwarder to stand between the service and a store, so a test can cut the store off and bring it back.

The store itself keeps running (its data too): this is an outage as the service sees it, a network one.
"""

from __future__ import annotations

import asyncio
import contextlib

from tests.e2e.conftest import free_port

__all__ = ("TcpProxy",)


class TcpProxy:
    def __init__(self, target_host: str, target_port: int) -> None:
        self._target = (target_host, target_port)
        self.port = free_port()
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    async def open(self) -> TcpProxy:
        """Accept connections and forward them (again, after ``cut``)."""
        self._server = await asyncio.start_server(self._connected, "127.0.0.1", self.port)
        return self

    async def cut(self) -> None:
        """Drop every connection and refuse new ones until ``open`` is called again."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    async def _connected(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(*self._target)
        except OSError:
            client_writer.transport.abort()
            return
        self._writers |= {client_writer, upstream_writer}
        await asyncio.gather(self._pipe(client_reader, upstream_writer), self._pipe(upstream_reader, client_writer))

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, asyncio.IncompleteReadError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        self._writers.discard(writer)
        writer.transport.abort()
