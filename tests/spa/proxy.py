"""A TCP proxy on loopback whose open connections a test can cut, as a dropped network would.

The browser talks to the proxy; the proxy pipes bytes to the real server. ``cut()`` shuts every
connection open at that moment in both directions, mid-response if one is streaming, so the client
sees its stream break; connections made afterwards go through as usual.
"""

from __future__ import annotations

import contextlib
import socket
import threading

__all__ = ("CuttableProxy",)

_CHUNK = 65536


class CuttableProxy:
    def __init__(self, upstream_host: str, upstream_port: int) -> None:
        self._upstream = (upstream_host, upstream_port)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._closing = False
        self.cuts = 0
        self._acceptor = threading.Thread(target=self._accept, name="proxy-accept", daemon=True)
        self._acceptor.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def cut(self) -> int:
        """Break every connection open now; answers how many sockets were cut."""
        with self._lock:
            victims = list(self._open)
            self._open.clear()
            self.cuts += 1
        for sock in victims:
            _shut(sock)
        return len(victims)

    def close(self) -> None:
        self._closing = True
        _shut(self._listener)
        self.cut()

    def _accept(self) -> None:
        while not self._closing:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self._upstream)
            except OSError:
                _shut(client)
                continue
            for sock in (client, server):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                self._open.update((client, server))
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(source, sink), name="proxy-pipe", daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(_CHUNK):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            with self._lock:
                self._open.discard(source)
                self._open.discard(sink)
            _shut(source)
            _shut(sink)


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(OSError):
        sock.close()
