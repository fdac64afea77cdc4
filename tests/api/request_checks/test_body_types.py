"""Bodies are read as their schema says: a value of another type is a 422 naming its field, never coerced."""

from __future__ import annotations

import pytest
from litestar.testing import AsyncTestClient


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        # schemathesis's ST201 on a fresh clone's CI: "limit": "2" was read as 2
        ("/store/namespaces", {"limit": "2"}, "$.limit"),
        ("/store/items/search", {"namespace_prefix": [], "offset": "0"}, "$.offset"),
        ("/store/items/search", {"namespace_prefix": [], "refresh_ttl": 1}, "$.refresh_ttl"),
        ("/threads/search", {"limit": "10"}, "$.limit"),
        ("/threads", {"metadata": {}, "if_exists": 1}, "$.if_exists"),
        ("/chat", {"message": "hello", "session_id": 7}, "$.session_id"),
        ("/store/namespaces", {"max_depth": "1"}, "$.max_depth"),
    ],
)
async def test_a_value_of_another_type_is_refused_with_its_field(
    client: AsyncTestClient, path: str, body: dict[str, object], field: str
) -> None:
    response = await client.post(path, json=body, headers={"Accept": "application/json"})
    assert response.status_code == 422, response.text
    problem = response.json()
    assert problem["code"] == "validation_failed"
    assert [error["path"] for error in problem["errors"]] == [field]
    assert problem["errors"][0]["message"].startswith("Expected `")


async def test_the_same_bodies_with_their_schema_types_are_taken(client: AsyncTestClient) -> None:
    namespaces = await client.post("/store/namespaces", json={"limit": 2})
    assert namespaces.status_code == 200, namespaces.text
    assert namespaces.json() == {"namespaces": []}
    search = await client.post("/threads/search", json={"limit": 10})
    assert search.status_code == 200, search.text


async def test_a_number_with_no_fraction_is_an_integer_as_in_json_schema(client: AsyncTestClient) -> None:
    # schemathesis's ST202: JSON Schema's integer takes 595.0
    assert (await client.post("/threads/search", json={"limit": 5.0, "offset": 0.0})).status_code == 200
    fraction = await client.post("/threads/search", json={"limit": 5.5})
    assert fraction.status_code == 422, fraction.text
    assert fraction.json()["errors"][0]["path"] == "$.limit"
    as_text = await client.post("/threads/search", json={"limit": 5.0, "offset": "0"})
    assert as_text.status_code == 422, as_text.text
    assert as_text.json()["errors"][0]["path"] == "$.offset"


async def test_a_nested_value_names_its_whole_path(client: AsyncTestClient) -> None:
    message = {"id": "m", "role": "user", "content": 5}
    response = await client.post("/ag-ui/support", json={"threadId": "t", "runId": "r", "messages": [message]})
    assert response.status_code == 422, response.text
    assert response.json()["errors"][0]["path"] == "$.messages[0].content"
