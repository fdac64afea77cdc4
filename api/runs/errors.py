"""What the run core refuses, in its own terms. It knows nothing of HTTP: ``api.exception_handlers`` alone turns
each kind into a problem+json answer (``NotFound`` 404, ``Conflict`` 409, ``Forbidden`` 403, ``Invalid`` 422,
``QuotaExceeded`` 429, ``Unavailable`` 503), with the error's stable ``code``.

RunsError
├── NotFound
│   ├── RunNotFound             run_not_found: unknown run, or one of another session or subject
│   ├── SessionNotFound         session_not_found: a session (a thread) of another subject, or none
│   └── ApprovalNotFound        approval_not_found: the run waits for a different approval
├── Conflict
│   ├── SessionBusy             session_busy: the session has a run running or waiting
│   ├── RunNotPaused            run_not_paused: resume of a run that is not waiting (decided already)
│   ├── RunFinished             run_finished: cancel of a run that has ended
│   ├── RunNotFinished          run_not_finished: feedback on, deletion of, or a case of a run not ended yet
│   └── RunNotCapturable        run_not_capturable: a finished run no eval case can be made of
├── Forbidden
│   ├── NotAnApprover           not_an_approver: deciding needs HARNESS_APPROVER_ROLE
│   └── NotTheOwner             not_the_owner: only the run's owner may do this
├── Invalid
│   ├── RunRequestInvalid       run_request_invalid: a run this service does not run as asked
│   ├── ThreadIdInvalid         thread_id_invalid: a thread id not of the shape every session id has
│   └── SessionIdRefused        session_id_refused: a session id shaped like a card number, national id, bank
│                               account or key (never stored, never repeated)
├── QuotaExceeded
│   └── TooManyStreams          too_many_streams: the subject holds its quota of open event streams
└── Unavailable
    └── RunsUnavailable         service_unavailable: shutting down, or a store is unreachable
"""

from __future__ import annotations

from typing import ClassVar

__all__ = (
    "ApprovalNotFound",
    "Conflict",
    "Forbidden",
    "Invalid",
    "NotAnApprover",
    "NotFound",
    "NotTheOwner",
    "QuotaExceeded",
    "RunFinished",
    "RunNotCapturable",
    "RunNotFinished",
    "RunNotFound",
    "RunNotPaused",
    "RunRequestInvalid",
    "RunsError",
    "RunsUnavailable",
    "SessionBusy",
    "SessionIdRefused",
    "SessionNotFound",
    "ThreadIdInvalid",
    "TooManyStreams",
    "Unavailable",
)


class RunsError(Exception):
    code: ClassVar[str] = "runs_error"
    title: ClassVar[str] = "Run refused"
    retry_after_s: ClassVar[int | None] = None
    """How long a client should wait before asking again, when waiting helps."""

    def __init__(self, detail: str, *, run_id: str | None = None, fields: dict[str, str] | None = None) -> None:
        """``run_id``: the run the refusal is about (the one holding a busy session); ``fields``: for an invalid
        request, each failing field's path in the body and what is wrong with it."""
        super().__init__(detail)
        self.detail = detail
        self.run_id = run_id
        self.fields = fields or {}


class NotFound(RunsError):
    pass


class Conflict(RunsError):
    pass


class Forbidden(RunsError):
    pass


class Invalid(RunsError):
    pass


class QuotaExceeded(RunsError):
    pass


class Unavailable(RunsError):
    pass


class RunNotFound(NotFound):
    code = "run_not_found"
    title = "Run not found"


class SessionNotFound(NotFound):
    code = "session_not_found"
    title = "Session not found"


class ApprovalNotFound(NotFound):
    code = "approval_not_found"
    title = "Approval not found"


class SessionBusy(Conflict):
    code = "session_busy"
    title = "Session busy"


class RunNotPaused(Conflict):
    code = "run_not_paused"
    title = "Run not paused"


class RunFinished(Conflict):
    code = "run_finished"
    title = "Run already finished"


class RunNotFinished(Conflict):
    code = "run_not_finished"
    title = "Run not finished"


class RunNotCapturable(Conflict):
    code = "run_not_capturable"
    title = "Run not capturable"


class NotAnApprover(Forbidden):
    code = "not_an_approver"
    title = "Not an approver"


class NotTheOwner(Forbidden):
    code = "not_the_owner"
    title = "Not the owner"


class RunRequestInvalid(Invalid):
    code = "run_request_invalid"
    title = "Run not served as asked"


class ThreadIdInvalid(Invalid):
    """A thread id a client chose is not of the shape every session id has (``contracts.ID_PATTERN``)."""

    code = "thread_id_invalid"
    title = "Invalid thread id"


class SessionIdRefused(Invalid):
    code = "session_id_refused"
    title = "Session id refused"

    def __init__(self) -> None:
        super().__init__(
            "This session id has the shape of a card number, a national id, a bank account or a key; such ids are "
            "refused and never stored. Leave session_id out and the server makes one."
        )


class TooManyStreams(QuotaExceeded):
    code = "too_many_streams"
    title = "Too many streams"
    retry_after_s = 5


class RunsUnavailable(Unavailable):
    code = "service_unavailable"
    title = "Service unavailable"
