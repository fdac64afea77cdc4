"""Signatures of deliveries, as Standard Webhooks (standardwebhooks.com) makes them.

Each delivery carries ``webhook-id`` (the run's id: the same on every attempt, for the receiver to drop a repeat),
``webhook-timestamp`` (seconds since the epoch, when this attempt was sent) and, with a secret,
``webhook-signature: v1,<base64 of HMAC-SHA256(key, "<id>.<timestamp>.<body>")>``. The timestamp is signed with the
body, so a receiver that refuses a timestamp more than a few minutes away from its clock refuses a replayed delivery;
``verify`` is what a receiver does (docs/agent-protocol.md, "Webhooks").
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac

__all__ = ("signature", "signing_key", "verify", "webhook_headers")

_PREFIX = "whsec_"


def signing_key(secret: str) -> bytes:
    """The HMAC key of ``HARNESS_WEBHOOK_SECRET``: Standard Webhooks' ``whsec_<base64>`` is its bytes, any other
    secret its UTF-8 encoding. A ``whsec_`` secret whose rest is no base64 of a key is a ``ValueError``."""
    if not secret.startswith(_PREFIX):
        return secret.encode()
    try:
        key = base64.b64decode(secret.removeprefix(_PREFIX))
    except binascii.Error as exc:
        raise ValueError(f"starts with {_PREFIX} but the rest is not base64 ({exc})") from None
    if not key:
        raise ValueError(f"starts with {_PREFIX} but no key follows")
    return key


def signature(key: bytes, message_id: str, timestamp: int, body: bytes) -> str:
    digest = hmac.new(key, f"{message_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def webhook_headers(key: bytes | None, message_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    headers = {
        "content-type": "application/json",
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
    }
    if key is not None:
        headers["webhook-signature"] = signature(key, message_id, timestamp, body)
    return headers


def verify(key: bytes, headers: dict[str, str], body: bytes, *, now: int, tolerance_s: int = 300) -> bool:
    """Whether a delivery is signed with ``key`` and was sent within ``tolerance_s`` of ``now`` (a receiver's
    check; ``headers`` with lower-case names). The header may hold several space-separated signatures (a key being
    rotated); one that matches is enough."""
    try:
        message_id, timestamp = headers["webhook-id"], int(headers["webhook-timestamp"])
    except (KeyError, ValueError):
        return False
    if abs(now - timestamp) > tolerance_s:
        return False
    expected = signature(key, message_id, timestamp, body)
    return any(hmac.compare_digest(expected, given) for given in headers.get("webhook-signature", "").split())
