"""Problem details (RFC 9457): every error the API answers, as ``application/problem+json``."""

from __future__ import annotations

from typing import Annotated

import msgspec

__all__ = ("PROBLEM_MEDIA_TYPE", "FieldError", "Problem", "problem_type")

PROBLEM_MEDIA_TYPE = "application/problem+json"


def problem_type(code: str) -> str:
    """The stable ``type`` URI of a problem ``code``."""
    return f"urn:agent-harness:problem:{code}"


class FieldError(msgspec.Struct, kw_only=True):
    """One failing part of a request."""

    path: Annotated[
        str,
        msgspec.Meta(
            description="Where: `$` is the body itself, `$.message` one of its fields, `query.after` a query parameter."
        ),
    ]
    message: str


class Problem(msgspec.Struct, kw_only=True, omit_defaults=True):
    """An error answer. Clients branch on `code` (or `type`, its URI form); `detail` is for humans."""

    type: str
    title: str
    status: int
    code: str
    detail: str
    instance: str | None = None
    errors: Annotated[list[FieldError] | None, msgspec.Meta(description="For 422: every failing field.")] = None
    run_id: Annotated[str | None, msgspec.Meta(description="For 409 on a busy session: the run that holds it.")] = None
