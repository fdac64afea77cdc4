"""The OpenAPI document the service serves states the webhook rule the server applies: with no host allowed,
``webhook`` is null or absent; with hosts, a URL the schema admits is one ``check_url`` takes, and one it refuses is
one the server refuses (422 ``webhook_not_allowed``)."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from api.openapi.agent_protocol_runs import BUILT_IN_ASSISTANTS
from api.openapi.document import contract_schemas
from api.webhooks import WebhookNotAllowed, check_url, webhook_pattern

ALLOWED = frozenset({"hooks.example.com", "127.0.0.1", "::1"})
TURN = {"assistant_id": "support", "input": {"message": "Where is my order A-1002?"}}


def run_create(allowed: frozenset[str]) -> Draft202012Validator:
    document = {"components": {"schemas": contract_schemas(BUILT_IN_ASSISTANTS, webhook_pattern(allowed))}}
    registry = Registry().with_resource("urn:doc", Resource.from_contents(document, default_specification=DRAFT202012))
    return Draft202012Validator({"$ref": "urn:doc#/components/schemas/RunCreate"}, registry=registry)


def server_takes(url: Any, allowed: frozenset[str]) -> bool:
    if url is None:
        return True
    try:
        check_url(url, allowed)
    except WebhookNotAllowed:
        return False
    return True


@pytest.mark.parametrize("allowed", [frozenset(), ALLOWED], ids=["none allowed", "hosts allowed"])
@pytest.mark.parametrize(
    "url",
    [
        None,
        "https://hooks.example.com/runs?x=1",
        "HTTP://hooks.example.com/",
        "https://HOOKS.example.com:443/",
        "http://127.0.0.1:8080/hook",
        "http://[::1]/hook",
        "http://127.0.0.1:65536/hook",
        "https://me@hooks.example.com/",
        "https://hooks.example.com.evil.net/",
        "https://hooks.example.com/a b",
        "http://169.254.169.254/latest/meta-data",
        "ftp://hooks.example.com/",
    ],
)
def test_the_served_schema_admits_a_webhook_exactly_when_the_server_takes_it(allowed: frozenset[str], url: Any) -> None:
    body = {**TURN, "webhook": url}

    assert run_create(allowed).is_valid(body) == server_takes(url, allowed)


@pytest.mark.parametrize("allowed", [frozenset(), ALLOWED], ids=["none allowed", "hosts allowed"])
def test_every_request_that_takes_a_webhook_states_the_same_rule(allowed: frozenset[str]) -> None:
    components = contract_schemas(BUILT_IN_ASSISTANTS, webhook_pattern(allowed))
    taking = {
        name: schema["properties"]["webhook"]
        for name, schema in components.items()
        if "webhook" in schema.get("properties", {})
    }
    urls = [None, "https://hooks.example.com/x", "http://[::1]:99999/", "https://evil.example.net/"]

    assert "RunCreate" in taking
    for name, field in taking.items():
        verdicts = [Draft202012Validator(field).is_valid(url) for url in urls]
        assert verdicts == [server_takes(url, allowed) for url in urls], name
