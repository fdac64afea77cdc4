from __future__ import annotations

import pytest

from api.request_checks.authority import Origin, canonical_host, parse_host_header, parse_origin


@pytest.mark.parametrize(
    ("header", "parsed"),
    [
        ("localhost", ("localhost", None)),
        ("LocalHost:8000", ("localhost", 8000)),
        ("127.0.0.1:8000", ("127.0.0.1", 8000)),
        ("[::1]:8000", ("::1", 8000)),
        ("[0:0:0:0:0:0:0:1]", ("::1", None)),
        ("harness.example.com.", ("harness.example.com", None)),
        ("", None),
        ("evil.example:port", None),
        ("evil.example:99999", None),
        ("user@evil.example", None),
        ("evil.example/path", None),
        ("a b", None),
        ("-bad.example", None),
        ("bücher.example", None),
    ],
)
def test_a_host_header_is_its_host_and_port(header: str, parsed: tuple[str, int | None] | None) -> None:
    assert parse_host_header(header) == parsed


@pytest.mark.parametrize(
    ("value", "origin"),
    [
        ("https://app.example.com", Origin("https", "app.example.com", 443)),
        ("HTTPS://App.Example.com:443", Origin("https", "app.example.com", 443)),
        ("http://127.0.0.1:8000", Origin("http", "127.0.0.1", 8000)),
        ("http://[::1]:8000", Origin("http", "::1", 8000)),
        ("null", None),
        ("file://", None),
        ("https://app.example.com/", None),
        ("https://app.example.com/path", None),
        ("https://user@app.example.com", None),
        ("ftp://app.example.com", None),
        ("https://", None),
    ],
)
def test_an_origin_is_exactly_scheme_host_and_port(value: str, origin: Origin | None) -> None:
    assert parse_origin(value) == origin


def test_an_origin_is_written_as_a_browser_sends_it() -> None:
    assert str(Origin("https", "app.example.com", 443)) == "https://app.example.com"
    assert str(Origin("http", "::1", 8000)) == "http://[::1]:8000"


def test_a_host_name_has_one_spelling() -> None:
    assert canonical_host(" Harness.Example.COM. ") == "harness.example.com"
    assert canonical_host("[::1]") == canonical_host("0:0::1") == "::1"
    assert canonical_host("https://x") is None
