"""The identity provider's published keys (a JWKS URL), fetched without ever holding the service up.

A token names its key by ``kid``. Known keys come from memory. A key id the keys in memory lack makes the
service fetch the set again, but never more than once at a time (every request that needs the set waits
for the one fetch in flight), never sooner than ``REFRESH_EVERY_S`` after the last attempt (a newly
published key is taken within that time), and, for ``UNKNOWN_KID_S``, never for a key id that a fetch made
for it did not find: tokens with made-up key ids cannot turn the service into a load on the identity
provider, nor queue its requests. The fetch is an
async HTTP request bounded by ``FETCH_TIMEOUT_S``, so a slow or dead provider holds no thread of the event
loop's pool and no request longer than that. When the provider cannot be reached the keys already known
stay in use; a key id nobody can vouch for then is a ``503``, not a ``401``.

Only keys meant for signatures and usable as such are kept; a token is verified only with a key of its
own algorithm (an EC key never checks an ``RS256`` token, a symmetric one never a public-key token).
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from typing import Any

import httpx
import jwt

from api.exceptions import ServiceUnavailable, TokenRejected

__all__ = ("FETCH_TIMEOUT_S", "KEYS_LIFESPAN_S", "REFRESH_EVERY_S", "UNKNOWN_KID_S", "JwksKeys")

logger = logging.getLogger(__name__)

FETCH_TIMEOUT_S = 3.0
"""How long one fetch of the key set may take, connection included."""
REFRESH_EVERY_S = 30.0
"""How soon after an attempt to fetch the key set an unknown key id may make the service try again."""
KEYS_LIFESPAN_S = 300.0
"""How long a fetched key set is trusted before a token makes the service fetch it again."""
UNKNOWN_KID_S = 300.0
"""How long a key id missing from a fetched set is answered ``401`` without another fetch."""
_UNKNOWN_KIDS_KEPT = 1024
_MAX_JWKS_BYTES = 1 << 20


class JwksKeys:
    def __init__(self, url: str) -> None:
        self._url = url
        self._tls = httpx.create_ssl_context()
        """Made once: making it takes ~20 ms of the event loop, which a fetch must not spend."""
        self._keys: dict[str, jwt.PyJWK] = {}
        self._loaded_at = -math.inf
        """When the keys in memory were fetched (monotonic seconds); -inf: never."""
        self._tried_at = -math.inf
        """When the last fetch started, whether it worked or not."""
        self._reachable = True
        """Whether the last fetch worked."""
        self._fetching: asyncio.Task[None] | None = None
        self._unknown: dict[str, float] = {}
        """Key ids a fetch made for them did not find, with when they may be looked for again."""

    async def key(self, kid: object, algorithm: str) -> Any:
        """The public key ``kid`` names, for a token signed with ``algorithm``: ``TokenRejected`` when no such
        key is published, ``ServiceUnavailable`` when the provider cannot say."""
        if not isinstance(kid, str) or not kid:
            raise TokenRejected("token_signature_invalid", "The bearer token names no key (`kid`).")
        now = time.monotonic()
        fetched = False
        if (kid not in self._keys or now - self._loaded_at > KEYS_LIFESPAN_S) and self._unknown.get(kid, 0) <= now:
            fetched = await self._refresh(now)
        found = self._keys.get(kid)
        if found is None:
            if not self._reachable:
                raise ServiceUnavailable("The identity provider's keys cannot be fetched; try again shortly.")
            if fetched:
                self._remember_unknown(kid)
            raise TokenRejected("token_signature_invalid", "No published key matches the token's key id.")
        if found.algorithm_name != algorithm:
            raise TokenRejected("token_signature_invalid", "The token's key is not a key of its algorithm.")
        return found.key

    async def _refresh(self, now: float) -> bool:
        """Wait for the fetch in flight, or start one unless the last began less than ``REFRESH_EVERY_S``
        ago; whether a fetch ended meanwhile."""
        if self._fetching is None and now - self._tried_at >= REFRESH_EVERY_S:
            self._tried_at = now
            self._fetching = asyncio.ensure_future(self._fetch())
        if self._fetching is None:
            return False
        # shielded: a request whose client leaves does not cancel the fetch the others wait for
        await asyncio.shield(self._fetching)
        return True

    async def _fetch(self) -> None:
        try:
            async with (
                asyncio.timeout(FETCH_TIMEOUT_S),
                httpx.AsyncClient(timeout=FETCH_TIMEOUT_S, verify=self._tls) as client,
            ):
                response = await client.get(self._url, headers={"Accept": "application/json"})
                response.raise_for_status()
                if len(response.content) > _MAX_JWKS_BYTES:
                    raise ValueError(f"the key set is larger than {_MAX_JWKS_BYTES} bytes")
                published = response.json()
        except (httpx.HTTPError, TimeoutError, ValueError) as exc:
            self._reachable = False
            logger.warning("the JWKS at %s cannot be fetched (%s)", self._url, type(exc).__name__)
            return
        finally:
            self._fetching = None
        self._reachable = True
        self._keys = _signing_keys(published)
        self._loaded_at = time.monotonic()

    def _remember_unknown(self, kid: str) -> None:
        if len(self._unknown) >= _UNKNOWN_KIDS_KEPT:
            now = time.monotonic()
            self._unknown = {known: until for known, until in self._unknown.items() if until > now}
            if len(self._unknown) >= _UNKNOWN_KIDS_KEPT:
                del self._unknown[next(iter(self._unknown))]
        self._unknown[kid] = time.monotonic() + UNKNOWN_KID_S


def _signing_keys(published: object) -> dict[str, jwt.PyJWK]:
    """The signature keys of a JWKS document by key id; keys that are not usable are left out."""
    entries = published.get("keys") if isinstance(published, dict) else None
    keys: dict[str, jwt.PyJWK] = {}
    for entry in entries if isinstance(entries, list) else ():
        if not isinstance(entry, dict) or not isinstance(entry.get("kid"), str) or entry.get("use", "sig") != "sig":
            continue
        try:
            keys[entry["kid"]] = jwt.PyJWK(entry)
        except (jwt.PyJWTError, ValueError, TypeError, KeyError):
            continue
    return keys
