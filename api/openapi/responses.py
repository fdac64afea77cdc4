"""The problem+json answers the routes declare: one description per status, Litestar's ``ResponseSpec`` for a
route's ``responses=``, and the same answer as a finished document's dict for the statuses the request checks add."""

from __future__ import annotations

from typing import Any

from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Example, Reference

from api.openapi_examples import PROBLEM_EXAMPLES
from contracts import PROBLEM_MEDIA_TYPE, Problem

__all__ = (
    "ENDED_STREAM_RESPONSE",
    "FOREIGN_ORIGIN",
    "SCHEMA_REF",
    "problem_response",
    "problem_responses",
    "schema_ref",
)

SCHEMA_REF = "#/components/schemas/{name}"
"""Where a component schema is referenced from."""

ENDED_STREAM_RESPONSE = ResponseSpec(
    data_container=None,
    description=(
        "The run has ended and the cursor is at or past its terminal event: there is nothing more to send. "
        "No body; a browser's `EventSource` stops reconnecting on a 204."
    ),
)

FOREIGN_ORIGIN = (
    "a browser page of another origin sent it; only the service's own pages and the origins listed in "
    "HARNESS_CORS_ORIGINS may change anything"
)
PROBLEMS = {
    401: (
        "Identity is on and the request has no valid bearer token; `code` says why (`token_missing`, "
        "`token_unknown`, `token_malformed`, `token_expired`, `token_not_yet_valid`, `token_signature_invalid`, "
        "`token_audience_invalid`, `token_issuer_invalid`, `token_subject_missing`)"
    ),
    403: (
        "The caller may not do this: `not_an_approver` (deciding needs HARNESS_APPROVER_ROLE), `not_the_owner` "
        f"(only the run's owner cancels it), `origin_not_allowed` ({FOREIGN_ORIGIN})"
    ),
    404: "Unknown run (or one of another session or subject), session of another subject, approval or document",
    409: (
        "Conflict: the session has a run in progress (or is being erased), or the run is not waiting for this decision"
    ),
    413: "Request body too large",
    415: "The body is not JSON: send it as `Content-Type: application/json` (`unsupported_media_type`)",
    421: (
        "The `Host` header names a host this service does not answer for (`host_not_allowed`): a DNS-rebinding "
        "page, or a name missing from HARNESS_ALLOWED_HOSTS"
    ),
    422: "Invalid request: every failing field is listed in `errors`",
    429: (
        "Rate limited (turns per minute per subject, or per address with identity off) or too many open event "
        "streams for the subject: retry after `Retry-After` seconds"
    ),
    500: "The agent failed unexpectedly (no half-filled ChatResponse is ever sent)",
    502: "The model provider failed mid-answer",
    503: "The model provider or a store is unavailable, or the service is shutting down",
}


def problem_responses(*statuses: int) -> dict[int, ResponseSpec]:
    """The problem+json answers a route can give, for its ``responses=``."""
    return {
        status: ResponseSpec(
            data_container=Problem,
            media_type=PROBLEM_MEDIA_TYPE,
            description=PROBLEMS[status],
            generate_examples=False,
            examples=[Example(summary=name, value=value) for name, value in PROBLEM_EXAMPLES.get(status, {}).items()],
        )
        for status in statuses
    }


def schema_ref(name: str) -> Reference:
    return Reference(ref=SCHEMA_REF.format(name=name))


def problem_response(status: int, description: str | None = None, *, code: str | None = None) -> Any:
    """A problem+json response as ``problem_responses`` has Litestar render it (its examples: those of ``code``)."""
    chosen = [
        (name, value) for name, value in PROBLEM_EXAMPLES.get(status, {}).items() if code in (None, value["code"])
    ]
    examples = {
        f"problem-example-{number}": {"summary": name, "value": value}
        for number, (name, value) in enumerate(chosen, start=1)
    }
    media: dict[str, Any] = {"schema": schema_ref(Problem.__name__).to_schema()}
    if examples:
        media["examples"] = examples
    return {"description": description or PROBLEMS[status], "content": {PROBLEM_MEDIA_TYPE: media}}
