"""An identity provider's key set over real HTTP, on loopback: keys a test publishes and rotates, the fetches
counted, and on demand an endpoint that takes a fetch and holds it unanswered (a provider that hangs)."""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ("JwksServer", "jwks_server", "signed_with")

_HOLD_AT_MOST_S = 60


class JwksServer:
    def __init__(self) -> None:
        self.keys: list[Any] = []
        """What the set publishes: keys, or anything a test puts there."""
        self.fetches = 0
        self.fetched = threading.Event()
        """Set when a fetch arrives (answered or held)."""
        self._answer = threading.Event()
        self._answer.set()
        jwks = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                jwks.fetches += 1
                jwks.fetched.set()
                jwks._answer.wait(_HOLD_AT_MOST_S)
                body = json.dumps({"keys": jwks.keys}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, *args: object) -> None:
                pass  # a held fetch whose client gave up cannot be answered: that is the point

        self.server = Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/.well-known/jwks.json"

    def publish(self, kid: str, public_key: Any) -> None:
        """Publish ``public_key`` alone under ``kid``."""
        algorithm = RSAAlgorithm if isinstance(public_key, rsa.RSAPublicKey) else ECAlgorithm
        jwk = json.loads(algorithm.to_jwk(public_key))
        self.keys = [{**jwk, "kid": kid, "use": "sig"}]

    def hold(self) -> None:
        """Fetches from now on wait, unanswered, until ``answer``."""
        self._answer.clear()

    def answer(self) -> None:
        self._answer.set()


@contextmanager
def jwks_server() -> Iterator[JwksServer]:
    server = JwksServer()
    thread = threading.Thread(target=server.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.answer()
        server.server.shutdown()
        server.server.server_close()


def signed_with(private_key: Any, kid: str, claims: dict[str, Any]) -> str:
    """``claims`` signed RS256 or ES256 (by the key's type), naming ``kid``."""
    algorithm = "RS256" if isinstance(private_key, rsa.RSAPrivateKey) else "ES256"
    return jwt.encode(claims, private_key, algorithm=algorithm, headers={"kid": kid})
