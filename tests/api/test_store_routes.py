"""The store's routes in process: their problems, their limits, their methods."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec
import pytest
from litestar.testing import AsyncTestClient

from api.app import create_app

if TYPE_CHECKING:
    from api.settings import Settings


async def test_a_missing_item_is_a_problem(client: AsyncTestClient) -> None:
    answer = await client.get("/store/items", params={"namespace": "memories.food", "key": "tea"})
    assert answer.status_code == 404
    assert answer.headers["content-type"].startswith("application/problem+json")
    assert answer.json()["code"] == "store_item_not_found"


async def test_a_get_needs_a_key_and_well_formed_labels(client: AsyncTestClient) -> None:
    assert (await client.get("/store/items", params={"namespace": "memories"})).status_code in {400, 422}
    refused = await client.get("/store/items", params={"namespace": "memories..food", "key": "tea"})
    assert refused.status_code == 422
    assert refused.json()["code"] == "store_request_invalid"
    deep = ".".join(["x"] * 17)
    assert (await client.get("/store/items", params={"namespace": deep, "key": "tea"})).status_code == 422
    card = await client.get("/store/items", params={"namespace": "memories", "key": "4111111111111111"})
    assert card.json()["code"] == "id_refused"


async def test_a_put_answers_no_content_and_the_path_allows_its_methods(client: AsyncTestClient) -> None:
    put = await client.put("/store/items", json={"namespace": ["memories"], "key": "tea", "value": {"likes": True}})
    assert put.status_code == 204
    assert put.content == b""
    allowed = await client.options("/store/items")
    assert set(allowed.headers["allow"].split(", ")) == {"DELETE", "GET", "OPTIONS", "PUT"}
    deleted = await client.request("DELETE", "/store/items", json={"namespace": ["memories"], "key": "tea"})
    assert deleted.status_code == 204


async def test_a_value_is_bounded_by_the_body_limit(settings: Settings) -> None:
    app = create_app(msgspec.structs.replace(settings, max_body_bytes=2048))
    async with AsyncTestClient(app) as client:
        body = {"namespace": ["memories"], "key": "big", "value": {"text": "x" * 4096}}
        answer = await client.put("/store/items", json=body)
    assert answer.status_code == 413
    assert answer.json()["code"] == "body_too_large"


async def test_an_integer_no_store_keeps_is_refused(client: AsyncTestClient) -> None:
    for number in (2**63, -(2**63) - 1, [1, {"deep": 10**30}]):
        put = await client.put("/store/items", json={"namespace": ["docs"], "key": "k", "value": {"n": number}})
        assert (put.status_code, put.json()["code"]) == (422, "store_request_invalid")
    for number in (2**63 - 1, -(2**63)):
        put = await client.put("/store/items", json={"namespace": ["docs"], "key": "k", "value": {"n": number}})
        assert put.status_code == 204


async def test_a_search_is_bounded(client: AsyncTestClient) -> None:
    too_many = await client.post("/store/items/search", json={"namespace_prefix": [], "limit": 1001})
    assert too_many.status_code == 422
    assert (await client.post("/store/namespaces", json={"max_depth": 0})).status_code == 422


async def test_a_nul_character_is_refused_on_every_store(client: AsyncTestClient) -> None:
    put = await client.put("/store/items", json={"namespace": ["docs"], "key": "k", "value": {"text": "a\u0000b"}})
    assert (put.status_code, put.json()["code"]) == (422, "store_request_invalid")
    search = await client.post("/store/items/search", json={"filter": {"text": "a\u0000b"}})
    assert search.status_code == 422
    get = await client.get("/store/items", params={"namespace": "docs", "key": "k\u0000"})
    assert get.status_code == 422
    kept = {"namespace": ["docs"], "key": "k", "value": {"text": "a\\u0000b"}}  # a backslash, then u0000
    assert (await client.put("/store/items", json=kept)).status_code == 204


@pytest.mark.parametrize(
    "wanted",
    [
        {"a": {"$foo": 1}},
        {"a": {"b": 1}},
        {"$or": [1]},
        {"a.b": 1},
        {"a'; drop": 1},
        {"a": [1, 2]},
        {"a": {"$eq": {"x": 1}}},
    ],
)
async def test_a_filter_the_stores_would_read_differently_is_refused(
    client: AsyncTestClient, wanted: dict[str, object]
) -> None:
    answer = await client.post("/store/items/search", json={"filter": wanted})
    assert (answer.status_code, answer.json()["code"]) == (422, "validation_failed"), "the contract says what is served"


async def test_a_filter_of_scalars_and_operators_is_served(client: AsyncTestClient) -> None:
    await client.put("/store/items", json={"namespace": ["docs"], "key": "k", "value": {"n": 2, "kind": "note"}})
    wanted = {"n": {"$gte": 2, "$lt": 3}, "kind": "note", "missing": None}
    answer = await client.post("/store/items/search", json={"namespace_prefix": ["docs"], "filter": wanted})
    assert answer.status_code == 200
