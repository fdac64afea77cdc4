from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from agent.config import ConfigError
from api.auth import jwks as jwks_module
from api.auth.config import AuthConfig
from api.auth.jwt_tokens import JwtVerifier
from api.exceptions import ServiceUnavailable, TokenRejected
from tests.support.jwks_server import JwksServer, jwks_server, signed_with

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

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


async def test_the_audience_and_the_issuer_are_each_checked_when_configured() -> None:
    audience_only = _verifier(jwt_issuer=None)
    issuer_only = _verifier(jwt_audience=None)

    assert (await audience_only.principal(_hs256(iss="https://elsewhere.test/"))).subject == "alice"
    assert (await issuer_only.principal(_hs256(aud=None))).subject == "alice"
    assert await _reason(audience_only, _hs256(aud="another-service")) == "token_audience_invalid"
    assert await _reason(issuer_only, _hs256(iss="https://impostor.test/")) == "token_issuer_invalid"


async def test_a_principal_carries_its_credential_and_expiry_never_the_token() -> None:
    expires = int(time.time()) + 300
    token = _hs256(exp=expires)
    principal = await _verifier().principal(token)

    assert principal.expires_at == expires
    assert principal.credential is not None
    assert len(principal.credential) == 64
    assert token not in repr(principal)


@pytest.mark.parametrize(
    ("config", "complaint"),
    [
        ({"jwt_issuer": None, "jwt_audience": None}, "neither HARNESS_JWT_AUDIENCE nor HARNESS_JWT_ISSUER"),
        ({"jwt_secret": "x" * 31}, "HARNESS_JWT_SECRET must be at least 32 bytes long, got 31"),
        ({"jwt_secret": None, "jwks_url": "http://id.example.test/jwks.json"}, "must be an https URL"),
        ({"jwt_secret": None, "jwks_url": "ftp://127.0.0.1/jwks.json"}, "must be an https URL"),
        ({"jwt_secret": None, "jwks_url": "https:///jwks.json"}, "must be an https URL"),
    ],
    ids=["no-audience-nor-issuer", "short-secret", "http-jwks", "ftp-jwks", "no-host"],
)
def test_settings_that_would_take_tokens_they_should_not_are_refused(config: dict[str, Any], complaint: str) -> None:
    with pytest.raises(ConfigError, match=complaint) as refused:
        _verifier(**config)
    assert "\n" not in str(refused.value), "one line"


@pytest.mark.parametrize(
    "url",
    ["https://id.example.test/jwks.json", "http://127.0.0.1:8080/jwks", "http://[::1]/jwks", "http://localhost/j"],
)
def test_https_and_loopback_jwks_urls_are_accepted(url: str) -> None:
    assert isinstance(_verifier(jwt_secret=None, jwks_url=url), JwtVerifier)


@pytest.mark.parametrize(
    ("make_token", "reason"),
    [
        (lambda: _hs256(exp=int(time.time()) - 3600), "token_expired"),
        (lambda: _hs256(nbf=int(time.time()) + 3600), "token_not_yet_valid"),
        (lambda: _hs256(aud="another-service"), "token_audience_invalid"),
        (lambda: _hs256(aud=None), "token_audience_invalid"),
        (lambda: _hs256(iss="https://impostor.test/"), "token_issuer_invalid"),
        (lambda: _hs256(iss=None), "token_issuer_invalid"),
        (lambda: _hs256(sub=None), "token_subject_missing"),
        (lambda: _hs256(sub=""), "token_subject_missing"),
        (lambda: _hs256(exp=None), "token_malformed"),
        (lambda: _hs256(exp="soon"), "token_malformed"),
        (lambda: _hs256(roles="approver"), "token_malformed"),
        (lambda: _hs256(account_id=2001), "token_malformed"),
        (
            lambda: jwt.encode(_claims(), "a-different-secret-of-32-bytes-or-more", algorithm="HS256"),
            "token_signature_invalid",
        ),
        (lambda: jwt.encode(_claims(), None, algorithm="none"), "token_signature_invalid"),
        (lambda: jwt.encode(_claims(), SECRET, algorithm="HS512"), "token_signature_invalid"),
        (lambda: "not.a.jwt", "token_malformed"),
        (lambda: _hs256()[:-8] + "AAAAAAAA", "token_signature_invalid"),
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
        "no-expiry",
        "expiry-not-a-number",
        "roles-not-a-list",
        "account-not-a-string",
        "wrong-secret",
        "alg-none",
        "unaccepted-alg",
        "garbage",
        "tampered-signature",
    ],
)
async def test_bad_tokens_are_rejected_with_their_reason(make_token: Callable[[], str], reason: str) -> None:
    # made when the test runs, not when it is collected: a full suite reaches it after their 5 minutes of validity
    assert await _reason(_verifier(), make_token()) == reason


@pytest.fixture
def jwks() -> Iterator[JwksServer]:
    with jwks_server() as server:
        yield server


def _signed(private_key: Any, kid: str, **overrides: Any) -> str:
    return signed_with(private_key, kid, _claims(**overrides))


async def test_jwks_keys_are_cached_and_rotated(jwks: JwksServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jwks_module, "REFRESH_EVERY_S", 0)  # the cooldown has passed
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


async def test_jwks_tokens_are_checked_like_any_other(jwks: JwksServer) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    impostor = ec.generate_private_key(ec.SECP256R1())
    jwks.publish("key", key.public_key())
    verifier = _verifier(jwt_secret=None, jwks_url=jwks.url)

    assert await _reason(verifier, _signed(impostor, "key")) == "token_signature_invalid"
    assert await _reason(verifier, _signed(key, "key", aud="another-service")) == "token_audience_invalid"
    assert await _reason(verifier, _signed(key, "key", exp=int(time.time()) - 3600)) == "token_expired"
    assert await _reason(verifier, _hs256()) == "token_signature_invalid", "no HS256 without a secret"


async def test_unknown_key_ids_do_not_hammer_the_identity_provider(jwks: JwksServer) -> None:
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


async def test_a_published_key_of_another_type_than_the_tokens_is_a_401(jwks: JwksServer) -> None:
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ec_key = ec.generate_private_key(ec.SECP256R1())
    jwks.publish("key", ec_key.public_key())
    jwks.keys.append({"kty": "oct", "k": "c2VjcmV0LXNlY3JldC1zZWNyZXQ", "kid": "symmetric"})
    verifier = _verifier(jwt_secret=None, jwks_url=jwks.url)

    assert await _reason(verifier, _signed(rsa_key, "key")) == "token_signature_invalid"
    assert await _reason(verifier, _signed(rsa_key, "symmetric")) == "token_signature_invalid"
    assert await _reason(verifier, _signed(ec_key, "key", exp=None)) == "token_malformed"
    assert (await verifier.principal(_signed(ec_key, "key"))).subject == "alice"


async def test_keys_that_cannot_be_used_are_left_out_of_the_set(jwks: JwksServer) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    jwks.publish("key", key.public_key())
    jwks.keys += [
        {"kty": "RSA", "kid": "broken", "n": "!!", "e": "AQAB"},
        {"kty": "nonsense", "kid": "odd"},
        {**jwks.keys[0], "kid": "for-encryption", "use": "enc"},
        "not a key",
    ]
    verifier = _verifier(jwt_secret=None, jwks_url=jwks.url)

    assert (await verifier.principal(_signed(key, "key"))).subject == "alice"
    assert await _reason(verifier, _signed(key, "for-encryption")) == "token_signature_invalid"


async def test_concurrent_unknown_key_ids_share_one_fetch_and_are_then_remembered(
    jwks: JwksServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jwks_module, "REFRESH_EVERY_S", 0)  # only the fetch in flight and the negative cache hold
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwks.publish("key", key.public_key())
    verifier = _verifier(jwt_secret=None, jwks_url=jwks.url)

    reasons = await asyncio.gather(*(_reason(verifier, _signed(key, f"forged-{n}")) for n in range(20)))
    assert set(reasons) == {"token_signature_invalid"}
    assert jwks.fetches == 1, "twenty look-ups, one fetch"

    assert await _reason(verifier, _signed(key, "forged-3")) == "token_signature_invalid"
    assert jwks.fetches == 1, "a key id just found missing is not looked for again"
    assert (await verifier.principal(_signed(key, "key"))).subject == "alice"
    assert jwks.fetches == 1
