"""Errors the API answers as ``application/problem+json``. Each class carries its status and stable code.

ApiError
├── TokenRejected (401)          token_missing, token_expired, …: no principal (see api/auth)
├── Forbidden (403)
│   ├── NotAnApprover           not_an_approver: deciding needs HARNESS_APPROVER_ROLE
│   ├── NotTheOwner             not_the_owner: only the run's owner may do this
│   └── OriginNotAllowed        origin_not_allowed: a state-changing request from a page of a foreign origin
├── NotFound (404)
│   ├── RunNotFound             run_not_found: unknown run, or one of another session or subject
│   ├── SessionNotFound         session_not_found: a session (a thread) of another subject
│   ├── ApprovalNotFound        approval_not_found: the run waits for a different approval
│   └── AssistantNotFound       assistant_not_found: no registered graph has this id
├── Conflict (409)
│   ├── SessionBusy             session_busy: the session has a run running or waiting
│   ├── RunNotPaused            run_not_paused: resume of a run that is not waiting (decided already)
│   ├── RunFinished             run_finished: cancel of a run that has ended
│   ├── RunCancelled            run_cancelled: the JSON caller's run was cancelled meanwhile
│   └── ThreadExists            thread_exists: a thread created with an id that is taken (if_exists: raise)
├── RequestTimeout (408)         request_timeout: the request's headers or body did not arrive in time
├── UnsupportedMediaType (415)   unsupported_media_type: a JSON route's body sent as anything but JSON
├── HostNotAllowed (421)         host_not_allowed: a Host header outside HARNESS_ALLOWED_HOSTS (DNS rebinding)
├── InvalidCursor (422)          invalid_cursor: a Last-Event-ID or ?after= the run cannot have
├── BodyTooDeep (422)            body_too_deep: a JSON body nested deeper than the parser is allowed to go
├── RunRequestInvalid (422)      run_request_invalid: an Agent Protocol run this service does not run as asked
├── IdRefused (422)              id_refused: another id of the client's (an AG-UI runId, a message's or tool
│   │                           call's id) shaped like a card number, national id, bank account or key
│   └── SessionIdRefused        session_id_refused: a session id of that shape (never stored, never repeated)
├── TooManyStreams (429)         too_many_streams: the subject holds its quota of open event streams
├── TurnFailed (500, 502, 503)  the run ended with an error event; ``code`` is the event's
└── ServiceUnavailable (503)    service_unavailable: shutting down
"""

from __future__ import annotations

from typing import ClassVar

__all__ = (
    "ApiError",
    "ApprovalNotFound",
    "AssistantNotFound",
    "BodyTooDeep",
    "Conflict",
    "DocumentNotFound",
    "Forbidden",
    "HostNotAllowed",
    "IdRefused",
    "InvalidCursor",
    "NotAnApprover",
    "NotFound",
    "NotTheOwner",
    "OriginNotAllowed",
    "RequestTimeout",
    "RunCancelled",
    "RunFinished",
    "RunNotFound",
    "RunNotPaused",
    "RunRequestInvalid",
    "ServiceUnavailable",
    "SessionBusy",
    "SessionIdRefused",
    "SessionNotFound",
    "ThreadExists",
    "ThreadIdInvalid",
    "TokenRejected",
    "TooManyStreams",
    "TurnFailed",
    "UnknownAssistant",
    "UnsupportedMediaType",
)


class ApiError(Exception):
    status_code: int = 500
    code: str = "internal_error"
    title: str = "Internal error"
    default_headers: ClassVar[dict[str, str]] = {}

    def __init__(self, detail: str, *, run_id: str | None = None, fields: dict[str, str] | None = None) -> None:
        """``fields``: for a 422, each failing field's path in the body (``config.configurable.thread_id``) and
        what is wrong with it."""
        super().__init__(detail)
        self.detail = detail
        self.run_id = run_id
        self.fields = fields or {}
        self.headers = dict(self.default_headers)


class TokenRejected(ApiError):
    """No bearer token, or one that does not verify; ``code`` says which (``token_expired``, …)."""

    status_code = 401
    title = "Unauthorized"

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        # RFC 6750: a request with no token gets the challenge alone, a bad token also its error
        challenge = 'Bearer realm="agent-harness"'
        if code != "token_missing":
            challenge += f', error="invalid_token", error_description="{detail}"'
        self.headers = {"WWW-Authenticate": challenge}


class Forbidden(ApiError):
    status_code = 403


class NotAnApprover(Forbidden):
    code = "not_an_approver"
    title = "Not an approver"


class NotTheOwner(Forbidden):
    code = "not_the_owner"
    title = "Not the owner"


class OriginNotAllowed(Forbidden):
    """A browser sent a state-changing request for a page of another origin: the cross-site request forgery
    that a CORS "simple" request (no preflight) allows. Clients that are not browsers send no ``Origin``."""

    code = "origin_not_allowed"
    title = "Origin not allowed"


class NotFound(ApiError):
    status_code = 404


class RunNotFound(NotFound):
    code = "run_not_found"
    title = "Run not found"


class SessionNotFound(NotFound):
    code = "session_not_found"
    title = "Session not found"


class ApprovalNotFound(NotFound):
    code = "approval_not_found"
    title = "Approval not found"


class AssistantNotFound(NotFound):
    code = "assistant_not_found"
    title = "Assistant not found"


class DocumentNotFound(NotFound):
    code = "document_not_found"
    title = "Document not found"


class Conflict(ApiError):
    status_code = 409


class SessionBusy(Conflict):
    code = "session_busy"
    title = "Session busy"


class RunNotPaused(Conflict):
    code = "run_not_paused"
    title = "Run not paused"


class RunFinished(Conflict):
    code = "run_finished"
    title = "Run already finished"


class ThreadExists(Conflict):
    code = "thread_exists"
    title = "Thread exists"


class RunCancelled(Conflict):
    code = "run_cancelled"
    title = "Run cancelled"


class UnsupportedMediaType(ApiError):
    """A JSON route's body in another media type: ``text/plain`` and the form types are what a page of any
    origin may send without a preflight, so they are refused rather than parsed as JSON anyway."""

    status_code = 415
    code = "unsupported_media_type"
    title = "Unsupported media type"


class HostNotAllowed(ApiError):
    """A ``Host`` this service does not answer for: what a DNS-rebinding page sends (its own name, resolved to
    this service's address). 421 Misdirected Request says exactly that: not a server for this authority."""

    status_code = 421
    code = "host_not_allowed"
    title = "Host not allowed"


class RunRequestInvalid(ApiError):
    status_code = 422
    code = "run_request_invalid"
    title = "Run not served as asked"


class UnknownAssistant(ApiError):
    """A run's body names an assistant no registered graph is: the request is invalid, the thread it
    addresses is there (404 would say the thread is not)."""

    status_code = 422
    code = "assistant_unknown"
    title = "Unknown assistant"


class InvalidCursor(ApiError):
    status_code = 422
    code = "invalid_cursor"
    title = "Invalid event cursor"


class RequestTimeout(ApiError):
    """The body came slower than ``HARNESS_REQUEST_READ_TIMEOUT_S`` allows (``api.request_checks.read_deadline``);
    the connection closes, since what is left of the body is never read."""

    status_code = 408
    code = "request_timeout"
    title = "Request timeout"
    default_headers: ClassVar[dict[str, str]] = {"Connection": "close"}


class BodyTooDeep(ApiError):
    """A JSON body nested deeper than ``MAX_JSON_DEPTH``: parsing it would exhaust the parser's recursion."""

    status_code = 422
    code = "body_too_deep"
    title = "Request body nested too deeply"


class ThreadIdInvalid(ApiError):
    """A thread id a client chose is not of the shape every session id has (``contracts.ID_PATTERN``)."""

    status_code = 422
    code = "thread_id_invalid"
    title = "Invalid thread id"


class IdRefused(ApiError):
    """An id the client made up holds what is never stored or echoed; the message names the field, not its value."""

    status_code = 422
    code = "id_refused"
    title = "Id refused"

    def __init__(self, field: str) -> None:
        message = (
            "has the shape of a card number, a national id, a bank account or a key; such ids are refused and "
            "never stored or echoed"
        )
        super().__init__(f"{field} {message}.", fields={field: message})


class SessionIdRefused(IdRefused):
    code = "session_id_refused"
    title = "Session id refused"

    def __init__(self) -> None:
        ApiError.__init__(
            self,
            "This session id has the shape of a card number, a national id, a bank account or a key; such ids are "
            "refused and never stored. Leave session_id out and the server makes one.",
        )


class TooManyStreams(ApiError):
    status_code = 429
    code = "too_many_streams"
    title = "Too many streams"
    default_headers: ClassVar[dict[str, str]] = {"Retry-After": "5"}


class ServiceUnavailable(ApiError):
    status_code = 503
    code = "service_unavailable"
    title = "Service unavailable"


class TurnFailed(ApiError):
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
