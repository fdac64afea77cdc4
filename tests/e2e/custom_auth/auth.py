"""The custom auth of the end-to-end tests (``langgraph.json``'s ``auth.path``), written as a team writes one.

A token table stands for the identity provider. Threads are stamped on creation with their owner, team and
visibility, and every read and search is filtered to the caller's team and to visible threads: the filter alone
would show bob (team red) alice's threads, which the service's ownership still hides; and it hides alice's own
``hidden`` threads from her, which ownership alone would show; crons alike. Items of the store live under the
caller's identity and must be notes.
"""

from __future__ import annotations

from typing import Any

from langgraph_sdk import Auth

auth = Auth()

USERS: dict[str, dict[str, Any]] = {
    "alice-token-0123456789": {"identity": "alice", "permissions": ["user"], "team": "red", "account_id": "ACC-2001"},
    "bob-token-0123456789": {"identity": "bob", "permissions": ["user"], "team": "red"},
    "mallory-token-0123456789": {"identity": "mallory", "permissions": ["banned"], "team": "red"},
}
SUSPENDED = "suspended-token-0123456789"


@auth.authenticate
async def authenticate(authorization: str | None, method: str, headers: dict[bytes, bytes]) -> dict[str, Any]:
    assert method in ("GET", "POST", "PUT", "DELETE", "PATCH")
    assert headers.get("authorization") == (authorization.encode() if authorization else None)
    scheme, _, token = (authorization or "").partition(" ")
    if token == SUSPENDED:
        raise Auth.exceptions.HTTPException(status_code=403, detail="This account is suspended.")
    if token == "crash":
        raise RuntimeError("the identity provider fell over")
    user = USERS.get(token)
    if scheme.lower() != "bearer" or user is None:
        raise Auth.exceptions.HTTPException(status_code=401, detail="Unknown token.")
    return user


@auth.on.threads
async def own_threads(ctx: Auth.types.AuthContext, value: dict[str, Any]) -> Auth.types.FilterType | bool:
    if "banned" in ctx.user.permissions:
        return False
    if ctx.action in ("create", "create_run"):
        metadata = value.setdefault("metadata", {})
        metadata["owner"] = ctx.user.identity
        metadata["team"] = ctx.user["team"]
        metadata.setdefault("visibility", "shown")
    return {"team": ctx.user["team"], "visibility": {"$eq": "shown"}}


@auth.on.crons
async def own_crons(ctx: Auth.types.AuthContext, value: dict[str, Any]) -> Auth.types.FilterType | bool:
    if "banned" in ctx.user.permissions:
        return False
    if ctx.action == "create":
        value.setdefault("metadata", {}).setdefault("visibility", "shown")
        value["metadata"]["owner"] = ctx.user.identity
    return {"visibility": "shown"}


@auth.on.store
async def own_store(ctx: Auth.types.AuthContext, value: dict[str, Any]) -> Auth.types.FilterType:
    namespace = tuple(value.get("namespace") or ())
    if namespace[:1] != (ctx.user.identity,):
        value["namespace"] = (ctx.user.identity, *namespace)
    return {"kind": "note"}
