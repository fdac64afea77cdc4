"""langgraph.json's ``auth.path``: a ``langgraph_sdk.Auth`` object, called as the LangGraph Agent Server calls it.

``@auth.authenticate`` runs on every request the service's own identity would guard (not ``/healthz``,
``/schema``, the SPA's page and assets), with the parameters it names, by name: ``request`` (the Litestar
request), ``body`` (the JSON body, None when there is none or it is not JSON), ``path``, ``method``,
``path_params``, ``query_params`` (a dict, the last value of a repeated name), ``headers`` (a dict of the
lower-cased header names to their values, as bytes; looked up by ``str`` too) and ``authorization`` (the
``Authorization`` header or None). The body is read on ``POST``, ``PUT``, ``PATCH`` and ``DELETE`` (``json_body``,
the one rule the ``@auth.on`` guard reads it by too). What it returns becomes the request's ``Principal``
(``api.auth.custom_user``).
``Auth.exceptions.HTTPException`` is answered with its status, detail and headers as problem+json; any other
exception, or a result that names no user, is a 401 (logged, never a 500).

``@auth.on`` handlers are looked up as the Agent Server does, the most specific first: the resource and action
(``@auth.on.threads.create``), the resource (``@auth.on.threads``), the action of any resource, the global
``@auth.on``; none: allowed. Each is called ``handler(ctx=AuthContext(...), value=...)``; None or True allows,
False is a 403, a dict is a filter on metadata (``api.runs.metadata_filter``) the caller applies, and
``HTTPException`` is answered as it says. A handler that fails otherwise, or returns anything else, refuses (403).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from typing import TYPE_CHECKING, Any

import msgspec
from langgraph_sdk import Auth
from langgraph_sdk.auth.exceptions import HTTPException
from langgraph_sdk.auth.types import AuthContext
from litestar import Request

from agent import ConfigError
from agent.graphs import apply_graphs_config, load_auth_object, read_graphs_config
from api.auth.custom_user import AuthUser, user_of
from api.exceptions import AccessDenied, AuthRefused, RequestTimeout
from api.runs.metadata_filter import MetadataFilter, checked_filter

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from litestar.connection import ASGIConnection

    from agent.graphs import GraphsConfig

__all__ = ("BODY_METHODS", "INJECTED", "CustomAuth", "json_body", "load_custom_auth")

logger = logging.getLogger(__name__)

INJECTED = frozenset({"request", "body", "path", "method", "path_params", "query_params", "headers", "authorization"})
"""The parameters an ``@auth.authenticate`` handler may name."""


class CustomAuth:
    def __init__(self, auth: Auth, source: str, *, read_timeout_s: float = 10.0) -> None:
        """``auth`` must have an ``@auth.authenticate`` handler whose parameters are all ``INJECTED`` (or have
        defaults): ``ConfigError`` else. ``read_timeout_s``: the most a request's body may take to arrive when the
        handler takes ``body`` (read before the body checks, which bound it on every other route)."""
        handler = auth._authenticate_handler
        if handler is None:
            raise ConfigError(
                f"auth.path {source!r} has no @auth.authenticate handler: every request would go unauthenticated"
            )
        unknown = [
            name
            for name, parameter in inspect.signature(handler).parameters.items()
            if name not in INJECTED and parameter.default is inspect.Parameter.empty
        ]
        if unknown:
            raise ConfigError(
                f"auth.path {source!r}: @auth.authenticate takes {', '.join(unknown)}, which is not passed; it may "
                f"take {', '.join(sorted(INJECTED))}"
            )
        self._auth = auth
        self._authenticate: Callable[..., Any] = handler
        self._wants = frozenset(inspect.signature(handler).parameters) & INJECTED
        self._read_timeout_s = read_timeout_s
        self.source = source

    @classmethod
    def load(cls, config: GraphsConfig, *, read_timeout_s: float = 10.0) -> CustomAuth:
        """The ``Auth`` object ``config``'s ``auth.path`` names; ``ConfigError`` naming the file and the key when it
        does not load or is no ``langgraph_sdk.Auth``."""
        assert config.auth is not None, "a configuration with auth.path"
        found = load_auth_object(config)
        if not isinstance(found, Auth):
            raise ConfigError(
                f"{config.path}: auth.path {config.auth.source!r} is of type {type(found).__name__}, not a "
                "langgraph_sdk.Auth"
            )
        try:
            return cls(found, config.auth.source, read_timeout_s=read_timeout_s)
        except ConfigError as exc:
            raise ConfigError(f"{config.path}: {exc}") from None

    async def authenticate(self, connection: ASGIConnection[Any, Any, Any, Any]) -> AuthUser:
        """The user the handler says sent the request; ``AuthRefused`` (401 unless the handler said otherwise)."""
        try:
            async with asyncio.timeout(self._read_timeout_s):
                arguments = await _arguments(self._wants, connection)
        except TimeoutError:
            raise RequestTimeout(f"The request's body did not arrive within {self._read_timeout_s:g} s.") from None
        try:
            result = await _called(self._authenticate, **arguments)
        except HTTPException as exc:
            raise _refused(exc) from None
        except Exception as exc:  # the handler's own failure: a refusal, never a 500
            logger.warning("auth.path's @auth.authenticate raised %s; the request is refused", type(exc).__name__)
            raise AuthRefused(401, "The request's credentials were not accepted.", {}) from None
        try:
            return user_of(result)
        except ValueError as exc:
            logger.error("auth.path's @auth.authenticate named no user (%s); the request is refused", exc)
            raise AuthRefused(401, "The request's credentials were not accepted.", {}) from None

    def has_handler(self, resource: str, action: str) -> bool:
        return self._handler(resource, action) is not None

    async def authorize(self, user: AuthUser, resource: str, action: str, value: Any) -> MetadataFilter | None:
        """Call the handler of ``resource`` and ``action`` with ``value`` (which it may change): the filter it
        returned, None when it allowed without one; ``AccessDenied`` (403) or ``AuthRefused`` when it refused."""
        handler = self._handler(resource, action)
        if handler is None:
            return None
        ctx = AuthContext(permissions=user.permissions, user=user, resource=resource, action=action)  # type: ignore[arg-type]
        try:
            result = await _called(handler, ctx=ctx, value=value)
        except HTTPException as exc:
            raise _refused(exc) from None
        except Exception as exc:
            logger.warning("auth.path's handler of %s.%s raised %s; refused", resource, action, type(exc).__name__)
            raise AccessDenied(f"The service's auth refused {action} on {resource}.") from None
        if result is None or result is True:
            return None
        if result is False:
            raise AccessDenied(f"The service's auth does not allow {action} on {resource}.")
        try:
            return checked_filter(result)
        except ValueError as exc:
            logger.error("auth.path's handler of %s.%s returned no filter (%s); refused", resource, action, exc)
            raise AccessDenied(f"The service's auth refused {action} on {resource}.") from None

    def _handler(self, resource: str, action: str) -> Callable[..., Any] | None:
        """The most specific handler, as the Agent Server picks it."""
        handlers = self._auth._handlers
        for key in ((resource, action), (resource, "*"), ("*", action), ("*", "*")):
            if key in handlers:
                return handlers[key][-1]
        return self._auth._global_handlers[-1] if self._auth._global_handlers else None


async def _called(handler: Callable[..., Any], **arguments: Any) -> Any:
    result = handler(**arguments)
    return await result if inspect.isawaitable(result) else result


def _refused(exc: HTTPException) -> AuthRefused:
    status = exc.status_code if 400 <= exc.status_code < 500 else 401  # a handler's refusal is the client's 4xx
    return AuthRefused(status, exc.detail or "Refused.", dict(exc.headers or {}))


class _Headers(dict[bytes, bytes]):
    """The request's headers as the Agent Server passes them (lower-cased ``bytes`` names to ``bytes`` values),
    also looked up by ``str``, as the Agent Server's own documentation does (``headers.get("x-api-key")``)."""

    def __getitem__(self, key: bytes | str) -> bytes:
        return super().__getitem__(key.lower().encode("latin-1") if isinstance(key, str) else key)

    def __contains__(self, key: object) -> bool:
        return super().__contains__(key.lower().encode("latin-1") if isinstance(key, str) else key)

    def get(self, key: bytes | str, default: Any = None) -> Any:
        return super().get(key.lower().encode("latin-1") if isinstance(key, str) else key, default)


async def _arguments(wants: frozenset[str], connection: ASGIConnection[Any, Any, Any, Any]) -> dict[str, Any]:
    scope = connection.scope
    given: dict[str, Any] = {}
    if "request" in wants or "body" in wants:
        request: Request[Any, Any, Any] = Request(scope, connection.receive)
        given["request"] = request
        if "body" in wants:
            given["body"] = await json_body(request)
    if "path" in wants:
        given["path"] = scope["path"]
    if "method" in wants:
        given["method"] = scope.get("method", "GET")
    if "path_params" in wants:
        given["path_params"] = dict(scope.get("path_params") or {})
    if "query_params" in wants:
        given["query_params"] = dict(connection.query_params.items())
    if "headers" in wants:
        given["headers"] = _Headers((name.lower(), value) for name, value in scope["headers"])
    if "authorization" in wants:
        given["authorization"] = connection.headers.get("authorization")
    return {name: value for name, value in given.items() if name in wants}


BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
"""The methods whose body is read, for the handlers as for the routes (none reads a ``GET``'s or a ``HEAD``'s)."""


async def json_body(connection: ASGIConnection[Any, Any, Any, Any]) -> Any:
    """The request's JSON body, as the ``@auth.authenticate`` handler and the ``@auth.on`` guard both see it: None
    for a method of no body (``BODY_METHODS``), an empty body or one that is not JSON. Read once: Litestar keeps it
    for the route, which reads it again."""
    if connection.scope.get("method") not in BODY_METHODS:
        return None
    raw = await Request(connection.scope, connection.receive).body()
    if not raw:
        return None
    try:
        return msgspec.json.decode(raw)
    except msgspec.DecodeError:
        return None


def load_custom_auth(
    graphs_config: Path | None, *, identity_configured: bool, read_timeout_s: float = 10.0
) -> CustomAuth | None:
    """The ``auth.path`` of the ``langgraph.json`` at ``graphs_config``, loaded; None without one. With the
    service's own identity configured too (a tokens file, JWTs), ``ConfigError``: two sources of who is asking
    would each let in whom the other refuses."""
    if graphs_config is None:
        return None
    config = read_graphs_config(graphs_config)
    if config.auth is None:
        return None
    if identity_configured:
        raise ConfigError(
            f"{config.path}: auth.path is given and so is HARNESS_AUTH_TOKENS_FILE or HARNESS_JWT_*: use one; "
            "auth.path replaces the service's own identity"
        )
    apply_graphs_config(config)  # its env and local dependencies, which auth.py may import
    return CustomAuth.load(config, read_timeout_s=read_timeout_s)
