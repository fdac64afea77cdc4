"""Errors the HTTP layer answers as ``application/problem+json``. Each class carries its status and stable code, and
derives from the Litestar exception of its status where there is one (``NotFoundException`` for a 404, ...), so
Litestar and its OpenAPI tell its status as they tell their own. What the run core refuses is ``api.runs.errors``,
mapped to the same kind of answer by ``api.exception_handlers``. Classes defined outside this module say where.

ApiError (HTTPException)
├── TokenRejected (401)          token_missing, token_expired, …: no principal (see api/auth)
├── AuthRefused (any 4xx)       auth_refused: langgraph.json's ``@auth.authenticate`` or ``@auth.on`` raised
│                               ``Auth.exceptions.HTTPException`` (401 unauthenticated by default)
├── Forbidden (403)
│   ├── OriginNotAllowed        origin_not_allowed: a state-changing request from a page of a foreign origin
│   └── AccessDenied            access_denied: an ``@auth.on`` handler of langgraph.json's auth returned False
├── NotFound (404)
│   ├── AssistantNotFound       assistant_not_found: no registered graph has this id
│   ├── DocumentNotFound        document_not_found: no knowledge-base document has this id
│   ├── CronNotFound            cron_not_found: no cron of the caller's has this id (api.crons.errors)
│   ├── StoreItemNotFound       store_item_not_found: no item at this namespace and key (api.routes.store)
│   └── AssetNotFound           not_found: the SPA has no such file (api.routes.spa)
├── RequestTimeout (408)         request_timeout: the request's headers or body did not arrive in time
├── Conflict (409)
│   ├── RunCancelled            run_cancelled: the JSON caller's run was cancelled meanwhile
│   └── ThreadExists            thread_exists: a thread created with an id that is taken (if_exists: raise)
├── UnsupportedMediaType (415)   unsupported_media_type: a JSON route's body sent as anything but JSON
├── HostNotAllowed (421)         host_not_allowed: a Host header outside HARNESS_ALLOWED_HOSTS (DNS rebinding)
├── Invalid (422)
│   ├── UnknownAssistant        assistant_unknown: a run's body names an assistant no registered graph is
│   ├── InvalidCursor           invalid_cursor: a Last-Event-ID or ?after= the run cannot have
│   ├── BodyTooDeep             body_too_deep: a JSON body nested deeper than the parser is allowed to go
│   ├── IdRefused               id_refused: an id of the client's (an AG-UI runId, a message's or tool call's
│   │                           id) shaped like a card number, national id, bank account or key
│   ├── CronRequestInvalid      cron_request_invalid: a schedule, time zone or end time (api.crons.errors)
│   ├── WebhookNotAllowed       webhook_not_allowed: no http(s) URL, or a host not allowed (api.webhooks.errors)
│   ├── StoreRequestInvalid     store_request_invalid: a namespace LangGraph's store refuses (api.routes.store)
│   └── StoreIndexUnserved      store_index_unconfigured: ``query`` with no embedding index (api.routes.store)
├── TurnFailed (500, 502, 503)  the run ended with an error event; ``code`` is the event's
└── ServiceUnavailable (503)    service_unavailable: an identity provider that does not answer
    └── StoreIndexUnavailable   store_index_failed: the embedding function failed (api.routes.store)
"""

from __future__ import annotations

from typing import ClassVar

from litestar.exceptions import (
    ClientException,
    HTTPException,
    InternalServerException,
    NotAuthorizedException,
    NotFoundException,
    PermissionDeniedException,
    ServiceUnavailableException,
    ValidationException,
)

__all__ = (
    "AccessDenied",
    "ApiError",
    "AssistantNotFound",
    "AuthRefused",
    "BodyTooDeep",
    "Conflict",
    "DocumentNotFound",
    "Forbidden",
    "HostNotAllowed",
    "IdRefused",
    "Invalid",
    "InvalidCursor",
    "NotFound",
    "OriginNotAllowed",
    "RequestTimeout",
    "RunCancelled",
    "ServiceUnavailable",
    "ThreadExists",
    "TokenRejected",
    "TurnFailed",
    "UnknownAssistant",
    "UnsupportedMediaType",
)


class ApiError(HTTPException):
    code: str = "internal_error"
    title: str = "Internal error"
    headers: dict[str, str]
    default_headers: ClassVar[dict[str, str]] = {}

    def __init__(self, detail: str, *, run_id: str | None = None, fields: dict[str, str] | None = None) -> None:
        """``fields``: for a 422, each failing field's path in the body (``config.configurable.thread_id``) and
        what is wrong with it."""
        super().__init__(detail=detail, headers=dict(self.default_headers))
        self.detail = detail  # as given, even empty: Litestar would put its status's phrase in its place
        self.run_id = run_id
        self.fields = fields or {}


class TokenRejected(ApiError, NotAuthorizedException):
    """No bearer token, or one that does not verify; ``code`` says which (``token_expired``, …)."""

    title = "Unauthorized"

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        # RFC 6750: a request with no token gets the challenge alone, a bad token also its error
        challenge = 'Bearer realm="agent-harness"'
        if code != "token_missing":
            challenge += f', error="invalid_token", error_description="{detail}"'
        self.headers = {"WWW-Authenticate": challenge}


class AuthRefused(ApiError, ClientException):
    """The custom auth's handler raised ``Auth.exceptions.HTTPException``: its status, detail and headers; a 401
    without a ``WWW-Authenticate`` of the handler's gets the service's bearer challenge (RFC 9110 asks for one)."""

    code = "auth_refused"

    def __init__(self, status_code: int, detail: str, headers: dict[str, str]) -> None:
        super().__init__(detail)
        self.status_code = status_code
        self.code = "unauthenticated" if status_code == 401 else self.code
        self.title = "Unauthorized" if status_code == 401 else "Refused by the service's auth"
        self.headers = dict(headers)
        if status_code == 401 and not any(name.lower() == "www-authenticate" for name in headers):
            self.headers["WWW-Authenticate"] = 'Bearer realm="agent-harness"'


class Forbidden(ApiError, PermissionDeniedException):
    pass


class OriginNotAllowed(Forbidden):
    """A browser sent a state-changing request for a page of another origin: the cross-site request forgery
    that a CORS "simple" request (no preflight) allows. Clients that are not browsers send no ``Origin``."""

    code = "origin_not_allowed"
    title = "Origin not allowed"


class AccessDenied(Forbidden):
    """An ``@auth.on`` handler of langgraph.json's ``auth.path`` returned False (or failed: refused, not let by)."""

    code = "access_denied"
    title = "Forbidden"


class NotFound(ApiError, NotFoundException):
    pass


class AssistantNotFound(NotFound):
    code = "assistant_not_found"
    title = "Assistant not found"


class DocumentNotFound(NotFound):
    code = "document_not_found"
    title = "Document not found"


class Conflict(ApiError, ClientException):
    status_code = 409


class ThreadExists(Conflict):
    code = "thread_exists"
    title = "Thread exists"


class RunCancelled(Conflict):
    code = "run_cancelled"
    title = "Run cancelled"


class UnsupportedMediaType(ApiError, ClientException):
    """A JSON route's body in another media type: ``text/plain`` and the form types are what a page of any
    origin may send without a preflight, so they are refused rather than parsed as JSON anyway."""

    status_code = 415
    code = "unsupported_media_type"
    title = "Unsupported media type"


class HostNotAllowed(ApiError, ClientException):
    """A ``Host`` this service does not answer for: what a DNS-rebinding page sends (its own name, resolved to
    this service's address). 421 Misdirected Request says exactly that: not a server for this authority."""

    status_code = 421
    code = "host_not_allowed"
    title = "Host not allowed"


class Invalid(ApiError, ValidationException):
    """A request Litestar's checks let through that this service cannot do as asked: 422, as Litestar's own
    ``ValidationException`` is answered here (``api.exception_handlers``)."""

    status_code = 422


class UnknownAssistant(Invalid):
    """A run's body names an assistant no registered graph is: the request is invalid, the thread it
    addresses is there (404 would say the thread is not)."""

    code = "assistant_unknown"
    title = "Unknown assistant"


class InvalidCursor(Invalid):
    code = "invalid_cursor"
    title = "Invalid event cursor"


class RequestTimeout(ApiError, ClientException):
    """The body came slower than ``HARNESS_REQUEST_READ_TIMEOUT_S`` allows (``api.request_checks.read_deadline``);
    the connection closes, since what is left of the body is never read."""

    status_code = 408
    code = "request_timeout"
    title = "Request timeout"
    default_headers: ClassVar[dict[str, str]] = {"Connection": "close"}


class BodyTooDeep(Invalid):
    """A JSON body nested deeper than ``MAX_JSON_DEPTH``: parsing it would exhaust the parser's recursion."""

    code = "body_too_deep"
    title = "Request body nested too deeply"


class IdRefused(Invalid):
    """An id the client made up holds what is never stored or echoed; the message names the field, not its value."""

    code = "id_refused"
    title = "Id refused"

    def __init__(self, field: str) -> None:
        message = (
            "has the shape of a card number, a national id, a bank account or a key; such ids are refused and "
            "never stored or echoed"
        )
        super().__init__(f"{field} {message}.", fields={field: message})


class ServiceUnavailable(ApiError, ServiceUnavailableException):
    code = "service_unavailable"
    title = "Service unavailable"


class TurnFailed(ApiError, InternalServerException):
    """A turn that ended with an ``error`` event; the status depends on who failed."""

    _STATUS_BY_CODE: ClassVar[dict[str, int]] = {
        "provider_unavailable": 503,
        "server_shutdown": 503,
        "store_unavailable": 503,
        "instance_lost": 503,
        "provider_stream_failed": 502,
        "provider_rejected": 502,
        "provider_error": 502,
    }

    title = "Turn failed"

    def __init__(self, code: str, detail: str, *, run_id: str) -> None:
        super().__init__(detail, run_id=run_id)
        self.code = code
        self.status_code = self._STATUS_BY_CODE.get(code, 500)
