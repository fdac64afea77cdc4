from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

from api.auth import jwt_tokens
from api.auth.config import AuthConfig
from api.auth.jwt_tokens import JwtVerifier
from api.exceptions import ServiceUnavailable, TokenRejected

if TYPE_CHECKING:
    from collections.abc import Iterator

SECRET = "a-shared-secret-long-enough-for-hs512-" * 2
ISSUER = "https://id.example.test/"
AUDIENCE = "agent-harness"


def _claims(**overrides: Any) -> dict[str, Any]:
    claims: dict[str, Any] = {
        "sub": "alice",
        "roles": ["user"],
        "account_id": "ACC-2001",
        "iss": ISSUER,
        "aud": AUDIENCE,
        "exp": int(time.time()) + 300,
    }
    claims.update(overrides)
    return {name: value for name, value in claims.items() if value is not None}


def _hs256(**overrides: Any) -> str:
    return jwt.encode(_claims(**overrides), SECRET, algorithm="HS256")


def _verifier(**config: Any) -> JwtVerifier:
    return JwtVerifier(AuthConfig(**{"jwt_secret": SECRET, "jwt_issuer": ISSUER, "jwt_audience": AUDIENCE, **config}))


async def _reason(verifier: JwtVerifier, token: str) -> str:
    with pytest.raises(TokenRejected) as rejected:
        await verifier.principal(token)
    return rejected.value.code


async def test_a_valid_hs256_token_names_its_subject_roles_and_account() -> None:
    principal = await _verifier().principal(_hs256())
    assert (principal.subject, principal.roles, principal.account_id) == ("alice", frozenset({"user"}), "ACC-2001")


async def test_audience_and_issuer_are_only_checked_when_configured() -> None:
    verifier = _verifier(jwt_issuer=None, jwt_audience=None)
    principal = await verifier.principal(_hs256(iss="https://elsewhere.test/", aud=None))
    assert principal.subject == "alice"


@pytest.mark.parametrize(
    ("token", "reason"),
    [
        (_hs256(exp=int(time.time()) - 3600), "token_expired"),
        (_hs256(nbf=int(time.time()) + 3600), "token_not_yet_valid"),
        (_hs256(aud="another-service"), "token_audience_invalid"),
        (_hs256(aud=None), "token_audience_invalid"),
        (_hs256(iss="https://impostor.test/"), "token_issuer_invalid"),
        (_hs256(iss=None), "token_issuer_invalid"),
        (_hs256(sub=None), "token_subject_missing"),
        (_hs256(sub=""), "token_subject_missing"),
        (_hs256(roles="approver"), "token_malformed"),
        (_hs256(account_id=2001), "token_malformed"),
        (jwt.encode(_claims(), "a-different-secret-of-32-bytes-or-more", algorithm="HS256"), "token_signature_invalid"),
        (jwt.encode(_claims(), None, algorithm="none"), "token_signature_invalid"),
        (jwt.encode(_claims(), SECRET, algorithm="HS512"), "token_signature_invalid"),
        ("not.a.jwt", "token_malformed"),
        (_hs256()[:-8] + "AAAAAAAA", "token_signature_invalid"),
    ],
    ids=[
        "expired",
        "not-yet-valid",
        "wrong-audience",
        "no-audience",
        "wrong-issuer",
        "no-issuer",
        "no-subject",
        "empty-subject",
        "roles-not-a-list",
        "account-not-a-string",
        "wrong-secret",
        "alg-none",
        "unaccepted-alg",
        "garbage",
        "tampered-signature",
    ],
)
async def test_bad_tokens_are_rejected_with_their_reason(token: str, reason: str) -> None:
    assert await _reason(_verifier(), token) == reason


class _Jwks:
    """A real HTTP server publishing a JWKS that a test can rotate, counting the fetches."""

    def __init__(self) -> None:
        self.keys: list[dict[str, Any]] = []
        self.fetches = 0
        jwks = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                jwks.fetches += 1
                body = json.dumps({"keys": jwks.keys}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/.well-known/jwks.json"

    def publish(self, kid: str, public_key: Any) -> None:
        algorithm = RSAAlgorithm if isinstance(public_key, rsa.RSAPublicKey) else ECAlgorithm
        jwk = json.loads(algorithm.to_jwk(public_key))
        self.keys = [{**jwk, "kid": kid, "use": "sig"}]


@pytest.fixture
def jwks() -> Iterator[_Jwks]:
    server = _Jwks()
    thread = threading.Thread(target=server.server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.server.shutdown()
    server.server.server_close()


def _signed(private_key: Any, kid: str, **overrides: Any) -> str:
    algorithm = "RS256" if isinstance(private_key, rsa.RSAPrivateKey) else "ES256"
    return jwt.encode(_claims(**overrides), private_key, algorithm=algorithm, headers={"kid": kid})


async def test_jwks_keys_are_cached_and_rotated(jwks: _Jwks, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jwt_tokens, "_REFRESH_EVERY_S", 0)  # the cooldown has passed
    first = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    second = ec.generate_private_key(ec.SECP256R1())
    jwks.publish("first", first.public_key())
    verifier = _verifier(jwt_secret=None, jwks_url=jwks.url)

    assert (await verifier.principal(_signed(first, "first"))).subject == "alice"
    assert (await verifier.principal(_signed(first, "first", sub="bob"))).subject == "bob"
    assert jwks.fetches == 1, "a known key id is served from the cache"

    jwks.publish("second", second.public_key())
    assert (await verifier.principal(_signed(second, "second"))).subject == "alice", "a new key id is fetched"
    assert jwks.fetches == 2


async def test_jwks_tokens_are_checked_like_any_other(jwks: _Jwks) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    impostor = ec.generate_private_key(ec.SECP256R1())
    jwks.publish("key", key.public_key())
    verifier = _verifier(jwt_secret=None, jwks_url=jwks.url)

    assert await _reason(verifier, _signed(impostor, "key")) == "token_signature_invalid"
    assert await _reason(verifier, _signed(key, "key", aud="another-service")) == "token_audience_invalid"
    assert await _reason(verifier, _signed(key, "key", exp=int(time.time()) - 3600)) == "token_expired"
    assert await _reason(verifier, _hs256()) == "token_signature_invalid", "no HS256 without a secret"


async def test_unknown_key_ids_do_not_hammer_the_identity_provider(jwks: _Jwks) -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwks.publish("key", key.public_key())
    verifier = _verifier(jwt_secret=None, jwks_url=jwks.url)
    await verifier.principal(_signed(key, "key"))
    for number in range(5):
        assert await _reason(verifier, _signed(key, f"forged-{number}")) == "token_signature_invalid"
    assert jwks.fetches == 1, "within the cooldown after a fetch, unknown key ids fetch nothing"


async def test_an_unreachable_identity_provider_is_a_503_not_a_401() -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    verifier = _verifier(jwt_secret=None, jwks_url="http://127.0.0.1:9/jwks.json")
    with pytest.raises(ServiceUnavailable):
        await verifier.principal(_signed(key, "key"))
