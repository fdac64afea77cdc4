"""Every error as ``application/problem+json`` (RFC 9457), with a stable ``code``; never a traceback, and never
a card number, national id, bank account or key the request carried (masked as in the stores)."""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

from litestar import Response
from litestar.exceptions import HTTPException, ValidationException

from agent.guardrails import redact
from agent.stores import is_store_failure
from api.exceptions import ApiError
from api.runs import errors as runs_errors
from api.runs.errors import RunsError
from contracts import PROBLEM_MEDIA_TYPE, FieldError, Problem, problem_type

if TYPE_CHECKING:
    from litestar import Request
    from litestar.types import ExceptionHandlersMap

__all__ = ("EXCEPTION_HANDLERS", "problem_response")

logger = logging.getLogger(__name__)

_REGEX_IN_MESSAGE = re.compile(r"matching regex '.*'$")

_HTTP_CODES = {
    400: ("invalid_body", "Invalid request body"),
    404: ("not_found", "Not found"),
    405: ("method_not_allowed", "Method not allowed"),
    406: ("not_acceptable", "Not acceptable"),
    413: ("body_too_large", "Request body too large"),
    415: ("unsupported_media_type", "Unsupported media type"),
    429: ("rate_limited", "Too many requests"),
}


def problem_response(
    request: Request[Any, Any, Any],
    *,
    status: int,
    code: str,
    title: str,
    detail: str,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> Response[Problem]:
    problem = Problem(
        type=problem_type(code),
        title=title,
        status=status,
        code=code,
        detail=redact(detail),  # it may repeat what the request carried: a path, an id, a header
        instance=redact(request.url.path),
        **extra,
    )
    return Response(problem, status_code=status, media_type=PROBLEM_MEDIA_TYPE, headers=headers)


_STATUS_OF_KIND: tuple[tuple[type[RunsError], int], ...] = (
    (runs_errors.NotFound, 404),
    (runs_errors.Conflict, 409),
    (runs_errors.Forbidden, 403),
    (runs_errors.Invalid, 422),
    (runs_errors.QuotaExceeded, 429),
    (runs_errors.Unavailable, 503),
)
"""The answer of each kind of refusal of the run core (``api.runs.errors``), which knows nothing of HTTP: this is
the one place its refusals become statuses."""


def _refusal(request: Request[Any, Any, Any], exc: ApiError | RunsError) -> Response[Problem]:
    """A refusal of the HTTP layer (its status on its class) or of the run core (its status by its kind)."""
    if isinstance(exc, ApiError):
        status, headers = exc.status_code, exc.headers or None
    else:
        status = next((status for kind, status in _STATUS_OF_KIND if isinstance(exc, kind)), 500)
        headers = {"Retry-After": str(exc.retry_after_s)} if exc.retry_after_s is not None else None
    return problem_response(
        request,
        status=status,
        code=exc.code,
        title=exc.title,
        detail=exc.detail,
        headers=headers,
        run_id=exc.run_id,
        errors=[FieldError(path=f"$.{path}", message=message) for path, message in exc.fields.items()] or None,
    )


def _validation_error(request: Request[Any, Any, Any], exc: ValidationException) -> Response[Problem]:
    errors = [_field_error(item) for item in exc.extra] if isinstance(exc.extra, list) else []
    detail = "; ".join(f"{e.path}: {e.message}" for e in errors) or str(exc.detail)
    return problem_response(
        request,
        status=422,
        code="validation_failed",
        title="Invalid request",
        detail=detail,
        errors=errors or None,
    )


def _field_error(item: Any) -> FieldError:
    if not isinstance(item, dict):
        return FieldError(path="$", message=str(item))
    message = _REGEX_IN_MESSAGE.sub(
        "matching the field's `pattern` in the OpenAPI schema", str(item.get("message", "invalid"))
    )
    key = str(item.get("key") or "")
    source = str(getattr(item.get("source"), "value", item.get("source")) or "body")
    if source != "body":
        return FieldError(path=f"{source}.{key}" if key else source, message=message)
    return FieldError(path="$" if key in ("", "data") else f"$.{key}", message=message)


def _http_error(request: Request[Any, Any, Any], exc: HTTPException) -> Response[Problem]:
    status = exc.status_code
    code, title = _HTTP_CODES.get(status, ("http_error", "Request failed"))
    headers = dict(exc.headers or {})
    if status == 400:
        # a body that is not JSON at all is as invalid as one that fails the schema
        status = 422
    if status == 429 and "Retry-After" not in headers:
        headers["Retry-After"] = headers.get("RateLimit-Reset", "60")
    detail = str(exc.detail) if exc.detail else title
    return problem_response(request, status=status, code=code, title=title, detail=detail, headers=headers)


def _unexpected_error(request: Request[Any, Any, Any], exc: Exception) -> Response[Problem]:
    if is_store_failure(exc):
        logger.error("%s %s: a store is unreachable (%s)", request.method, request.url.path, type(exc).__name__)
        return problem_response(
            request,
            status=503,
            code="store_unavailable",
            title="Store unavailable",
            detail="A store the service needs is unreachable; try again shortly.",
            headers={"Retry-After": "2"},
        )
    logger.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return problem_response(
        request,
        status=500,
        code="internal_error",
        title="Internal error",
        detail="The server failed to answer; the failure is logged.",
    )


EXCEPTION_HANDLERS: ExceptionHandlersMap = {  # by class, the closest in the MRO first: an ApiError is an HTTPException
    ApiError: _refusal,
    RunsError: _refusal,
    ValidationException: _validation_error,
    HTTPException: _http_error,
    Exception: _unexpected_error,
}
