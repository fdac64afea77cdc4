"""langgraph.json's ``auth.path`` called as the Agent Server calls it: the parameters an ``@auth.authenticate``
handler names, what its result becomes, how its refusals are answered, and which ``@auth.on`` handler decides."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
import pytest
from langgraph_sdk import Auth
from litestar import Request
from litestar.connection import ASGIConnection

from agent import ConfigError
from api.auth import Principal
from api.auth.custom import CustomAuth, json_body
from api.auth.custom_user import AuthUser, user_of
from api.exceptions import AccessDenied, AuthRefused, RequestTimeout


class _Route:
    """What reading a body asks of the route: its size limit (none here)."""

    def resolve_request_max_body_size(self) -> None:
        return None


def connection(
    *,
    method: str = "POST",
    path: str = "/threads/t-1/runs",
    query: bytes = b"",
    headers: list[tuple[bytes, bytes]] | None = None,
    body: bytes = b"",
) -> ASGIConnection[Any, Any, Any, Any]:
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    scope: Any = {
        "type": "http",
        "method": method,
        "path": path,
        "query_string": query,
        "headers": headers or [],
        "path_params": {"thread_id": "t-1"},
        "state": {},
        "route_handler": _Route(),
    }
    return ASGIConnection(scope, receive)


def custom(authenticate: Any) -> CustomAuth:
    auth = Auth()
    auth.authenticate(authenticate)
    return CustomAuth(auth, "./auth.py:auth")


async def test_the_handler_gets_the_parameters_it_names_as_the_agent_server_passes_them() -> None:
    seen: dict[str, Any] = {}

    async def authenticate(
        *,
        request: Request[Any, Any, Any],
        body: Any,
        path: str,
        method: str,
        path_params: dict[str, str],
        query_params: dict[str, str],
        headers: dict[bytes, bytes],
        authorization: str | None,
    ) -> str:
        seen.update({name: value for name, value in locals().items() if name != "seen"})
        return "alice"

    request = connection(
        query=b"a=1&a=2&b=3",
        headers=[(b"authorization", b"Bearer tok"), (b"X-Api-Key", b"key-1")],
        body=b'{"input": {"n": 1}}',
    )
    user = await custom(authenticate).authenticate(request)

    assert user.identity == "alice"
    assert isinstance(seen["request"], Request)
    assert seen["body"] == {"input": {"n": 1}}
    assert (seen["path"], seen["method"]) == ("/threads/t-1/runs", "POST")
    assert seen["path_params"] == {"thread_id": "t-1"}
    assert seen["query_params"] == {"a": "2", "b": "3"}
    assert seen["headers"][b"x-api-key"] == b"key-1"
    assert seen["headers"].get("X-Api-Key") == b"key-1"
    assert "authorization" in seen["headers"]
    assert seen["authorization"] == "Bearer tok"


async def test_only_the_named_parameters_are_passed_and_a_body_that_is_not_json_is_none() -> None:
    seen: dict[str, Any] = {}

    def authenticate(body: Any, authorization: str | None = None) -> str:  # a sync handler is called too
        seen.update(body=body, authorization=authorization)
        return "alice"

    await custom(authenticate).authenticate(connection(body=b"not json"))

    assert seen == {"body": None, "authorization": None}


@pytest.mark.parametrize(
    ("method", "headers", "expected"),
    [
        ("GET", [(b"content-length", b"8")], None),
        ("HEAD", [(b"content-length", b"8")], None),
        ("POST", [], {"n": 1}),
        ("DELETE", [(b"transfer-encoding", b"chunked")], {"n": 1}),
        ("DELETE", [], {"n": 1}),
    ],
)
async def test_the_body_is_read_on_the_methods_that_carry_one_whatever_the_headers(
    method: str, headers: list[tuple[bytes, bytes]], expected: Any
) -> None:
    seen: dict[str, Any] = {}

    def authenticate(body: Any) -> str:
        seen["body"] = body
        return "alice"

    request = connection(method=method, headers=headers, body=b'{"n": 1}')
    await custom(authenticate).authenticate(request)

    assert seen["body"] == expected
    assert await json_body(request) == expected, "the guard reads it by the same rule (read once, kept)"


async def test_a_body_the_handler_takes_must_arrive_within_the_read_timeout() -> None:
    async def never() -> dict[str, Any]:
        await asyncio.Event().wait()
        raise AssertionError

    def authenticate(body: Any) -> str:
        return "alice"

    auth = Auth()
    auth.authenticate(authenticate)
    slow = connection()
    slow = ASGIConnection(slow.scope, never)

    with pytest.raises(RequestTimeout):
        await CustomAuth(auth, "./auth.py:auth", read_timeout_s=0.05).authenticate(slow)


def test_a_handler_that_takes_what_is_not_passed_or_none_at_all_stops_the_start() -> None:
    async def authenticate(token: str) -> str:
        return token

    with pytest.raises(ConfigError, match=r"takes token, which is not passed"):
        custom(authenticate)
    with pytest.raises(ConfigError, match=r"no @auth\.authenticate handler"):
        CustomAuth(Auth(), "./auth.py:auth")


@pytest.mark.parametrize(
    ("result", "principal"),
    [
        ("alice", Principal(subject="alice")),
        (
            {"identity": "bob", "permissions": ["approver", "user"]},
            Principal(subject="bob", roles=frozenset({"approver", "user"})),
        ),
        (
            {"identity": "carol", "account_id": "ACC-2001", "team": "red"},
            Principal(subject="carol", account_id="ACC-2001"),
        ),
    ],
)
def test_the_result_becomes_the_principal_subject_roles_and_account(result: object, principal: Principal) -> None:
    found = user_of(result).principal()

    assert (found.subject, found.roles, found.account_id) == (principal.subject, principal.roles, principal.account_id)
    assert found.user == {"permissions": [], **(result if isinstance(result, dict) else {"identity": result})}
    assert found.credential is None, "nothing to revoke: the handler is asked on every request"


def test_the_principal_keeps_the_user_as_json_its_number_keys_as_strings() -> None:
    user = user_of({"identity": "carol", "scores": {1: "a", 2.5: "b"}, "seen": {b"raw"}})

    kept = user.principal().user

    assert kept == {"identity": "carol", "permissions": [], "scores": {"1": "a", "2.5": "b"}, "seen": ["cmF3"]}
    assert msgspec.json.decode(msgspec.json.encode(kept)) == kept, "the run's record holds it as JSON"
    assert user["scores"] == {1: "a", 2.5: "b"}, "the @auth.on handlers see what the handler returned"


def test_the_user_is_read_by_attribute_and_by_key_as_the_agent_servers() -> None:
    user = user_of({"identity": "carol", "team": "red", "display_name": "Carol"})

    assert (user.identity, user.display_name, user.is_authenticated, list(user.permissions)) == (
        "carol",
        "Carol",
        True,
        [],
    )
    assert (user["team"], user.team, "team" in user) == ("red", "red", True)
    assert isinstance(user_of(Auth.types.StudioUser("dev", is_authenticated=True)), AuthUser)


@pytest.mark.parametrize(
    "result",
    [
        None,
        42,
        {"permissions": []},
        {"identity": ""},
        {"identity": "x" * 201},
        {"identity": "a", "permissions": "admin"},
        {"identity": "a", "extra": {(1, 2): 3}},
    ],
)
async def test_a_result_that_names_no_user_is_a_401(result: object) -> None:
    async def authenticate() -> object:
        return result

    with pytest.raises(AuthRefused) as refused:
        await custom(authenticate).authenticate(connection())

    assert refused.value.status_code == 401
    assert refused.value.headers["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.parametrize(
    ("raised", "status", "headers"),
    [
        (Auth.exceptions.HTTPException(), 401, {"WWW-Authenticate": 'Bearer realm="agent-harness"'}),
        (Auth.exceptions.HTTPException(headers={"WWW-Authenticate": "ApiKey"}), 401, {"WWW-Authenticate": "ApiKey"}),
        (Auth.exceptions.HTTPException(status_code=403, detail="Suspended."), 403, {}),
        (Auth.exceptions.HTTPException(status_code=500), 401, {"WWW-Authenticate": 'Bearer realm="agent-harness"'}),
        (RuntimeError("the provider fell over"), 401, {"WWW-Authenticate": 'Bearer realm="agent-harness"'}),
    ],
)
async def test_what_the_handler_raises_is_its_status_and_anything_else_a_401(
    raised: Exception, status: int, headers: dict[str, str]
) -> None:
    async def authenticate() -> str:
        raise raised

    with pytest.raises(AuthRefused) as refused:
        await custom(authenticate).authenticate(connection())

    assert (refused.value.status_code, refused.value.headers) == (status, headers)


def authorizing() -> tuple[CustomAuth, list[str]]:
    """Handlers at every level of precedence, each saying which it is."""
    auth = Auth()
    called: list[str] = []

    @auth.authenticate
    async def authenticate() -> str:
        return "alice"

    @auth.on
    async def everything(ctx: Auth.types.AuthContext, value: Any) -> bool:
        called.append("global")
        return False

    @auth.on.threads
    async def threads(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
        called.append(f"threads {ctx.action} {ctx.user.identity}")
        value.setdefault("metadata", {})["owner"] = ctx.user.identity
        return {"owner": ctx.user.identity}

    @auth.on.threads.delete
    async def delete(ctx: Auth.types.AuthContext, value: Any) -> bool:
        called.append("threads.delete")
        return "admin" in ctx.permissions

    @auth.on(resources="*", actions="search")
    async def searches(ctx: Auth.types.AuthContext, value: Any) -> None:
        called.append(f"search {ctx.resource}")

    return CustomAuth(auth, "./auth.py:auth"), called


async def test_the_most_specific_handler_decides_as_the_agent_server_picks_it() -> None:
    decide, called = authorizing()
    user = user_of({"identity": "alice", "permissions": ["user"]})
    value: dict[str, Any] = {"thread_id": None}

    assert await decide.authorize(user, "threads", "create", value) == {"owner": "alice"}
    assert value == {"thread_id": None, "metadata": {"owner": "alice"}}, "the value as the handler left it"
    with pytest.raises(AccessDenied):
        await decide.authorize(user, "threads", "delete", {})
    assert await decide.authorize(user, "threads", "search", {}) == {"owner": "alice"}
    assert await decide.authorize(user, "assistants", "search", {}) is None
    with pytest.raises(AccessDenied):
        await decide.authorize(user, "store", "put", {})

    assert called == [
        "threads create alice",
        "threads.delete",
        "threads search alice",
        "search assistants",
        "global",
    ]


@pytest.mark.parametrize(
    "outcome",
    [
        ["not", "a", "filter"],
        {"owner": {"$gt": 1}},
        RuntimeError("bug"),
        Auth.exceptions.HTTPException(status_code=404),
    ],
)
async def test_a_handler_that_fails_or_returns_no_filter_refuses(outcome: object) -> None:
    auth = Auth()
    auth.authenticate(lambda: "alice")

    @auth.on
    async def broken(ctx: Auth.types.AuthContext, value: Any) -> Any:
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    with pytest.raises((AccessDenied, AuthRefused)) as refused:
        await CustomAuth(auth, "./auth.py:auth").authorize(user_of("alice"), "threads", "read", {})

    assert refused.value.status_code == (404 if isinstance(outcome, Auth.exceptions.HTTPException) else 403)
