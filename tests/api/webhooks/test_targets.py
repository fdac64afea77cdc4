"""Where a delivery may go: refused at the run's creation (a 422 naming ``HARNESS_WEBHOOK_ALLOWED_HOSTS``) unless it
is an http(s) URL of a listed host; at delivery, an allowed name resolving to a loopback, private or link-local
address is refused unless that address is listed too. The retry schedule doubles up to its cap."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.webhooks import WebhookNotAllowed, check_url, retry_delay
from api.webhooks.settings import WebhookSettings
from api.webhooks.targets import TargetRefused, parse, resolve, webhook_pattern


@pytest.mark.parametrize(
    ("url", "allowed", "said"),
    [
        ("https://hooks.example.com/x", set(), "Webhooks are off: HARNESS_WEBHOOK_ALLOWED_HOSTS names no host"),
        ("https://evil.example.net/x", {"hooks.example.com"}, "one of HARNESS_WEBHOOK_ALLOWED_HOSTS"),
        ("https://hooks.example.com.evil.net/x", {"hooks.example.com"}, "one of HARNESS_WEBHOOK_ALLOWED_HOSTS"),
        ("https://me@hooks.example.com/x", {"hooks.example.com"}, "no user"),
        ("ftp://hooks.example.com/x", {"hooks.example.com"}, "http or https"),
        ("file:///etc/passwd", {"hooks.example.com"}, "http or https"),
        ("https://hooks.example.com:99999/x", {"hooks.example.com"}, "a port up to 65535"),
        ("http://169.254.169.254/latest/meta-data", {"hooks.example.com"}, "one of"),
    ],
)
def test_a_webhook_not_allowed_is_a_422_naming_the_setting(url: str, allowed: set[str], said: str) -> None:
    with pytest.raises(WebhookNotAllowed) as refused:
        check_url(url, allowed)

    assert refused.value.status_code == 422
    assert said in str(refused.value)
    assert "HARNESS_WEBHOOK_ALLOWED_HOSTS" in str(refused.value)


@pytest.mark.parametrize(
    "url",
    ["https://hooks.example.com/cards/4111111111111111", "https://hooks.example.com/x?iban=DE89370400440532013000"],
)
def test_a_webhook_holding_a_personal_number_is_refused(url: str) -> None:
    with pytest.raises(WebhookNotAllowed) as refused:
        check_url(url, {"hooks.example.com"})

    assert refused.value.status_code == 422
    assert "card number" in str(refused.value)
    assert "4111" not in str(refused.value)


def test_an_allowed_host_is_compared_without_case() -> None:
    check_url("https://Hooks.Example.COM:8443/path?q=1#f", {"hooks.example.com"})
    check_url("http://[::1]:80/", {"::1"})


ALLOWED = {"hooks.example.com", "127.0.0.1", "::1"}


@given(url=st.from_regex(webhook_pattern(ALLOWED) or "", fullmatch=True))
def test_every_url_the_schema_admits_is_taken_for_its_allowed_host(url: str) -> None:
    check_url(url, ALLOWED)

    assert parse(url, ALLOWED).host in ALLOWED


def test_the_setting_lists_hosts_lower_case_and_ipv6_without_brackets() -> None:
    settings = WebhookSettings.from_env({"HARNESS_WEBHOOK_ALLOWED_HOSTS": " Hooks.Example.com, [::1] ,127.0.0.1,"})

    assert settings.allowed_hosts == {"hooks.example.com", "::1", "127.0.0.1"}
    assert WebhookSettings.from_env({}).allowed_hosts == frozenset()


async def test_an_allowed_name_resolving_to_loopback_is_refused_unless_the_address_is_listed() -> None:
    target = parse("http://localhost:9/hook", {"localhost"})

    with pytest.raises(TargetRefused, match="not public") as refused:
        await resolve(target, {"localhost"})
    assert not refused.value.retryable

    assert await resolve(target, {"localhost", "127.0.0.1", "::1"}) in {"127.0.0.1", "::1"}


@pytest.mark.parametrize("address", ["169.254.169.254", "10.0.0.7", "192.168.1.1", "127.0.0.1", "::ffff:127.0.0.1"])
async def test_a_literal_address_not_public_is_called_only_when_listed_itself(address: str) -> None:
    host = f"[{address}]" if ":" in address else address
    target = parse(f"http://{host}/hook", {address})

    assert await resolve(target, {address}) == address


def test_the_retry_waits_double_from_the_first_up_to_the_cap_and_heed_retry_after() -> None:
    assert [retry_delay(attempt, 2.0, 60.0) for attempt in range(1, 8)] == [2, 4, 8, 16, 32, 60, 60]
    assert retry_delay(1, 2.0, 60.0, retry_after_s=30) == 30
    assert retry_delay(1, 2.0, 60.0, retry_after_s=3600) == 60
    assert retry_delay(5000, 2.0, 60.0) == 60
