from __future__ import annotations

import pytest

from agent.config import ConfigError
from api.request_checks.allowed_hosts import AllowedHosts, default_allowed_hosts, parse_allowed_hosts


def test_the_default_is_the_loopback_names_and_the_bind_address_unless_a_wildcard() -> None:
    assert default_allowed_hosts("127.0.0.1") == ("localhost", "127.0.0.1", "::1")
    assert default_allowed_hosts("10.0.0.5") == ("localhost", "127.0.0.1", "::1", "10.0.0.5")
    assert default_allowed_hosts("Harness.Internal") == ("localhost", "127.0.0.1", "::1", "harness.internal")
    for wildcard in ("0.0.0.0", "::", ""):
        assert default_allowed_hosts(wildcard) == ("localhost", "127.0.0.1", "::1")


def test_configured_names_are_read_in_one_spelling() -> None:
    assert parse_allowed_hosts(" Harness.Example.com, *.Example.org ,[::1],, 10.0.0.5") == (
        "harness.example.com",
        "*.example.org",
        "::1",
        "10.0.0.5",
    )
    assert parse_allowed_hosts("*") == ("*",)


@pytest.mark.parametrize(
    "raw", ["https://harness.example.com", "harness.example.com:443", "a/b", "*example.com", ", ,"]
)
def test_what_is_not_a_host_name_stops_the_start_with_one_line(raw: str) -> None:
    with pytest.raises(ConfigError, match="HARNESS_ALLOWED_HOSTS"):
        parse_allowed_hosts(raw)


def test_a_host_is_admitted_by_its_name_whatever_the_port() -> None:
    hosts = AllowedHosts(("harness.example.com", "*.example.org", "::1"))
    for admitted in (
        "harness.example.com",
        "HARNESS.example.com:8443",
        "eu.example.org",
        "a.b.example.org:1",
        "[::1]:80",
    ):
        assert hosts.admits(admitted), admitted
    for refused in (None, "", "example.org", "evilexample.org", "harness.example.com.evil", "127.0.0.1", "[::1"):
        assert not hosts.admits(refused), refused
    assert AllowedHosts(("*",)).admits(None)


def test_an_endless_variety_of_hosts_is_judged_without_being_remembered_forever() -> None:
    hosts = AllowedHosts(("harness.example.com",))
    assert not any(hosts.admits(f"h{number}.example") for number in range(5000))
    assert hosts.admits("harness.example.com")
    assert len(hosts._judged) <= 1024
