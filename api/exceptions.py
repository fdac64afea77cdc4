"""Errors the API answers as ``application/problem+json``. Each class carries its status and stable code.

ApiError
├── NotFound (404)
│   ├── RunNotFound             run_not_found: unknown run, or one of another session
│   └── ApprovalNotFound        approval_not_found: the run waits for a different approval
├── Conflict (409)
│   ├── SessionBusy             session_busy: the session has a run running or waiting
│   ├── RunNotPaused            run_not_paused: resume of a run that is not waiting (decided already)
│   ├── RunFinished             run_finished: cancel of a run that has ended
│   └── RunCancelled            run_cancelled: the JSON caller's run was cancelled meanwhile
├── InvalidCursor (422)          invalid_cursor: a Last-Event-ID or ?after= the run cannot have
├── TurnFailed (500, 502, 503)  the run ended with an error event; ``code`` is the event's
└── ServiceUnavailable (503)    service_unavailable: shutting down
"""

from __future__ import annotations

from typing import ClassVar

__all__ = (
    "ApiError",
    "ApprovalNotFound",
    "Conflict",
    "DocumentNotFound",
    "InvalidCursor",
    "NotFound",
    "RunCancelled",
    "RunFinished",
    "RunNotFound",
    "RunNotPaused",
    "ServiceUnavailable",
    "SessionBusy",
    "TurnFailed",
)


class ApiError(Exception):
    status_code: int = 500
    code: str = "internal_error"
    title: str = "Internal error"

    def __init__(self, detail: str, *, run_id: str | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.run_id = run_id


class NotFound(ApiError):
    status_code = 404


class RunNotFound(NotFound):
    code = "run_not_found"
    title = "Run not found"


class ApprovalNotFound(NotFound):
    code = "approval_not_found"
    title = "Approval not found"


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


class RunCancelled(Conflict):
    code = "run_cancelled"
    title = "Run cancelled"


class InvalidCursor(ApiError):
    status_code = 422
    code = "invalid_cursor"
    title = "Invalid event cursor"


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
