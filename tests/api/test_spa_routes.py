from __future__ import annotations

import pytest
from litestar.testing import AsyncTestClient


async def test_the_page_is_served_with_a_strict_content_security_policy(client: AsyncTestClient) -> None:
    page = await client.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert "'unsafe-inline'" not in page.headers["content-security-policy"]
    assert 'data-role="input"' in page.text


async def test_the_app_modules_are_served(client: AsyncTestClient) -> None:
    module = await client.get("/spa/app.js")
    style = await client.get("/spa/app.css")
    assert (module.status_code, module.headers["content-type"]) == (200, "text/javascript; charset=utf-8")
    assert (style.status_code, style.headers["content-type"]) == (200, "text/css; charset=utf-8")


@pytest.mark.parametrize("name", ["README.md", "package.json", "tests", "..%2Fpyproject.toml", "nope.js"])
async def test_nothing_else_under_spa_is_served(client: AsyncTestClient, name: str) -> None:
    response = await client.get(f"/spa/{name}")
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/problem+json"
