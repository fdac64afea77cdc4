"""What an A2A call answers when it fails: a JSON-RPC error object with A2A 1.0's code, never a 500.

A2AError
├── JsonParseError            -32700  the body is not JSON
├── InvalidRequest            -32600  not a JSON-RPC 2.0 request (a batch, no method, ...)
├── MethodNotFound            -32601  not one of A2A 1.0's methods the service serves
├── InvalidParams             -32602  params that do not make the method's request (a malformed part, ...)
├── InternalError             -32603  the service cannot do it now (shutting down, a store down, a stream quota)
├── TaskNotFound              -32001  an unknown task, or another subject's
├── TaskNotCancelable         -32002  a task that has ended
├── PushNotificationNotSupported -32003
├── UnsupportedOperation      -32004  what the task's state does not allow (a message to a working task)
├── ContentTypeNotSupported   -32005  a file part: the graphs take text and JSON
└── VersionNotSupported       -32009  an ``A2A-Version`` other than 1.x

Each error's ``data`` is the list of typed details A2A 1.0 specifies: a ``google.rpc.ErrorInfo`` with the
error's reason and, in its ``metadata``, the service's own stable ``code`` when the run core refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from api.runs import errors as runs_errors
from api.runs.errors import RunsError

if TYPE_CHECKING:
    from api.exceptions import ApiError

__all__ = (
    "A2AError",
    "ContentTypeNotSupported",
    "InternalError",
    "InvalidParams",
    "InvalidRequest",
    "JsonParseError",
    "MethodNotFound",
    "PushNotificationNotSupported",
    "TaskNotCancelable",
    "TaskNotFound",
    "UnsupportedOperation",
    "VersionNotSupported",
    "from_refusal",
)

_ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"
_DOMAIN = "a2a-protocol.org"


class A2AError(Exception):
    code: ClassVar[int] = -32603
    reason: ClassVar[str] = "INTERNAL_ERROR"

    def __init__(self, message: str, **metadata: str) -> None:
        super().__init__(message)
        self.message = message
        self.metadata = metadata
        self.call_id: str | int | None = None
        """The id of the call it answers, when it was read before the error."""

    def as_error(self) -> dict[str, Any]:
        """The JSON-RPC error object."""
        info = {"@type": _ERROR_INFO, "reason": self.reason, "domain": _DOMAIN, "metadata": self.metadata}
        return {"code": self.code, "message": self.message, "data": [info]}


class JsonParseError(A2AError):
    code = -32700
    reason = "PARSE_ERROR"


class InvalidRequest(A2AError):
    code = -32600
    reason = "INVALID_REQUEST"


class MethodNotFound(A2AError):
    code = -32601
    reason = "METHOD_NOT_FOUND"


class InvalidParams(A2AError):
    code = -32602
    reason = "INVALID_PARAMS"


class InternalError(A2AError):
    code = -32603
    reason = "INTERNAL_ERROR"


class TaskNotFound(A2AError):
    code = -32001
    reason = "TASK_NOT_FOUND"


class TaskNotCancelable(A2AError):
    code = -32002
    reason = "TASK_NOT_CANCELABLE"


class PushNotificationNotSupported(A2AError):
    code = -32003
    reason = "PUSH_NOTIFICATION_NOT_SUPPORTED"


class UnsupportedOperation(A2AError):
    code = -32004
    reason = "UNSUPPORTED_OPERATION"


class ContentTypeNotSupported(A2AError):
    code = -32005
    reason = "CONTENT_TYPE_NOT_SUPPORTED"


class VersionNotSupported(A2AError):
    code = -32009
    reason = "VERSION_NOT_SUPPORTED"


_OF_REFUSAL: tuple[tuple[type[RunsError], type[A2AError]], ...] = (
    (runs_errors.RunFinished, TaskNotCancelable),
    (runs_errors.ApprovalNotFound, InvalidParams),
    (runs_errors.NotFound, TaskNotFound),
    (runs_errors.Conflict, UnsupportedOperation),
    (runs_errors.Forbidden, UnsupportedOperation),
    (runs_errors.Invalid, InvalidParams),
)


def from_refusal(exc: RunsError | ApiError) -> A2AError:
    """The A2A error a refusal of the run core (or of a route's check) is, keeping its stable ``code``."""
    if isinstance(exc, RunsError):
        kind = next((kind for refused, kind in _OF_REFUSAL if isinstance(exc, refused)), InternalError)
    else:
        kind = {404: TaskNotFound, 409: UnsupportedOperation, 403: UnsupportedOperation, 422: InvalidParams}.get(
            exc.status_code, InternalError
        )
    return kind(exc.detail, code=exc.code)
