"""Deliveries are signed as Standard Webhooks signs: over ``<id>.<timestamp>.<body>``, a receiver's ``verify``
refusing another body, another key, another id or a timestamp outside its tolerance (a replay)."""

from __future__ import annotations

import base64
import hashlib
import hmac

import pytest

from agent import ConfigError
from api.webhooks import WebhookSettings, signing_key, verify, webhook_headers

BODY = b'{"run_id":"r-1","status":"success"}'
NOW = 1_800_000_000


def test_the_signature_is_hmac_sha256_over_id_timestamp_and_body_in_base64() -> None:
    headers = webhook_headers(b"key", "r-1", NOW, BODY)

    expected = hmac.new(b"key", f"r-1.{NOW}.".encode() + BODY, hashlib.sha256).digest()
    assert headers["webhook-signature"] == "v1," + base64.b64encode(expected).decode()
    assert headers["webhook-id"] == "r-1"
    assert headers["webhook-timestamp"] == str(NOW)
    assert headers["content-type"] == "application/json"


def test_without_a_secret_nothing_is_signed() -> None:
    assert "webhook-signature" not in webhook_headers(None, "r-1", NOW, BODY)


def test_a_receiver_accepts_the_delivery_and_refuses_any_change_or_a_replay() -> None:
    headers = webhook_headers(b"key", "r-1", NOW, BODY)

    assert verify(b"key", headers, BODY, now=NOW + 10)
    assert not verify(b"key", headers, BODY + b" ", now=NOW)
    assert not verify(b"other", headers, BODY, now=NOW)
    assert not verify(b"key", {**headers, "webhook-id": "r-2"}, BODY, now=NOW)
    assert not verify(b"key", headers, BODY, now=NOW + 301), "replayed after the tolerance"
    assert not verify(b"key", {**headers, "webhook-timestamp": str(NOW + 1)}, BODY, now=NOW)


def test_a_standard_webhooks_secret_is_its_base64_bytes_and_any_other_its_text() -> None:
    assert signing_key("whsec_" + base64.b64encode(b"\x00\x01raw").decode()) == b"\x00\x01raw"
    assert signing_key("plain secret") == b"plain secret"


def test_the_signature_is_standard_webhooks_own_on_its_published_vector() -> None:
    """The Standard Webhooks (and Svix) example: a value their reference libraries compute, not this code."""
    key = signing_key("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
    body = b'{"test": 2432232314}'

    headers = webhook_headers(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body)

    assert headers["webhook-signature"] == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    assert verify(key, headers, body, now=1614265330)


@pytest.mark.parametrize("secret", ["whsec_not base64!", "whsec_abc", "whsec_"])
def test_a_standard_webhooks_secret_that_is_no_base64_key_is_refused_at_start_naming_the_variable(secret: str) -> None:
    with pytest.raises(ConfigError, match="HARNESS_WEBHOOK_SECRET starts with whsec_"):
        WebhookSettings.from_env({"HARNESS_WEBHOOK_SECRET": secret})
    assert WebhookSettings.from_env({"HARNESS_WEBHOOK_SECRET": "whsec_c2VjcmV0"}).secret == "whsec_c2VjcmV0"
