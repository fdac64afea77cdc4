"""Litestar's authentication middleware, bearer flavour: every route needs a principal unless marked public."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from litestar.middleware import AbstractAuthenticationMiddleware, AuthenticationResult, DefineMiddleware

if TYPE_CHECKING:
    from litestar.connection import ASGIConnection
    from litestar.types import ASGIApp

    from api.auth.authenticator import Authenticator
    from api.auth.custom import CustomAuth

__all__ = ("PUBLIC", "bearer_authentication", "custom_authentication")

PUBLIC = "public"
"""The route option (``public=True`` on a handler) of the routes anyone may call: health, the SPA."""


class _BearerAuthentication(AbstractAuthenticationMiddleware):
    def __init__(self, app: ASGIApp, authenticator: Authenticator) -> None:
        super().__init__(app, exclude=["^/schema"], exclude_from_auth_key=PUBLIC)
        self._authenticator = authenticator

    async def authenticate_request(self, connection: ASGIConnection[Any, Any, Any, Any]) -> AuthenticationResult:
        principal = await self._authenticator.principal(connection.headers.get("authorization"))
        return AuthenticationResult(user=principal, auth=None)


def bearer_authentication(authenticator: Authenticator) -> DefineMiddleware:
    return DefineMiddleware(_BearerAuthentication, authenticator=authenticator)


class _CustomAuthentication(AbstractAuthenticationMiddleware):
    """langgraph.json's ``@auth.authenticate`` on the same routes: its user is the request's ``auth``, the
    ``Principal`` read from it its ``user``."""

    def __init__(self, app: ASGIApp, custom: CustomAuth) -> None:
        super().__init__(app, exclude=["^/schema"], exclude_from_auth_key=PUBLIC)
        self._custom = custom

    async def authenticate_request(self, connection: ASGIConnection[Any, Any, Any, Any]) -> AuthenticationResult:
        user = await self._custom.authenticate(connection)
        return AuthenticationResult(user=user.principal(), auth=user)


def custom_authentication(custom: CustomAuth) -> DefineMiddleware:
    return DefineMiddleware(_CustomAuthentication, custom=custom)
