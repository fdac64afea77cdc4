"""Every refusal answered as problem+json: the service's own (``ApiError``, a Litestar ``HTTPException`` of its
status), the run core's (``RunsError``, a status by its kind) and Litestar's, each by its own handler."""

from __future__ import annotations

import pytest
from litestar import Litestar, get
from litestar import exceptions as litestar
from litestar.testing import AsyncTestClient

from api.exception_handlers import EXCEPTION_HANDLERS
from api.exceptions import (
    AssistantNotFound,
    Conflict,
    Forbidden,
    IdRefused,
    Invalid,
    NotFound,
    RequestTimeout,
    ServiceUnavailable,
    TokenRejected,
    TurnFailed,
    UnknownAssistant,
)
from api.runs.errors import SessionBusy, TooManyStreams


def raising(exc: Exception) -> Litestar:
    @get("/refused", sync_to_thread=False)
    def refused() -> None:
        raise exc

    return Litestar([refused], exception_handlers=EXCEPTION_HANDLERS)


async def answer(exc: Exception) -> tuple[int, dict[str, str], bytes]:
    async with AsyncTestClient(raising(exc)) as client:
        response = await client.get("/refused")
    return response.status_code, dict(response.headers), response.content


@pytest.mark.parametrize(
    ("ours", "litestars"),
    [
        (TokenRejected, litestar.NotAuthorizedException),
        (Forbidden, litestar.PermissionDeniedException),
        (NotFound, litestar.NotFoundException),
        (Conflict, litestar.ClientException),
        (Invalid, litestar.ValidationException),
        (TurnFailed, litestar.InternalServerException),
        (ServiceUnavailable, litestar.ServiceUnavailableException),
    ],
)
def test_each_kind_of_refusal_is_the_litestar_exception_of_its_status(
    ours: type[litestar.HTTPException], litestars: type[litestar.HTTPException]
) -> None:
    assert issubclass(ours, litestars)
    no_class_of_its_status = (litestar.ClientException, litestar.ValidationException)  # 409, 422
    if litestars not in no_class_of_its_status:
        assert ours.status_code == litestars.status_code


async def test_an_invalid_request_of_the_service_keeps_its_code_rather_than_litestars_validation_answer() -> None:
    status, headers, body = await answer(UnknownAssistant("There is no assistant 'x'."))

    assert status == 422
    assert headers["content-type"] == "application/problem+json"
    assert body == (
        b'{"type":"urn:agent-harness:problem:assistant_unknown","title":"Unknown assistant","status":422,'
        b'"code":"assistant_unknown","detail":"There is no assistant \'x\'.","instance":"/refused"}'
    )


async def test_a_refused_field_is_named_in_errors() -> None:
    _, _, body = await answer(IdRefused("runId"))

    assert b'"errors":[{"path":"$.runId","message":"has the shape of a card number' in body


async def test_a_not_found_of_the_service_is_its_own_not_litestars() -> None:
    status, _, body = await answer(AssistantNotFound("There is no assistant 'x'."))

    assert status == 404
    assert b'"code":"assistant_not_found","detail":"There is no assistant \'x\'."' in body


async def test_a_refusal_keeps_its_headers_and_its_empty_detail() -> None:
    status, headers, body = await answer(RequestTimeout(""))

    assert (status, headers["connection"]) == (408, "close")
    assert b'"detail":""' in body


async def test_a_token_refused_is_challenged() -> None:
    status, headers, body = await answer(TokenRejected("token_expired", "The token has expired."))

    assert status == 401
    assert headers["www-authenticate"].startswith('Bearer realm="agent-harness", error="invalid_token"')
    assert b'"code":"token_expired"' in body


async def test_a_failed_turn_answers_the_status_of_who_failed() -> None:
    status, _, body = await answer(TurnFailed("provider_rejected", "The provider refused.", run_id="r-1"))

    assert status == 502
    assert b'"code":"provider_rejected"' in body
    assert b'"run_id":"r-1"' in body


@pytest.mark.parametrize(
    ("refusal", "status", "retry_after"),
    [(SessionBusy("The session has a run.", run_id="r-1"), 409, None), (TooManyStreams("Too many."), 429, "5")],
)
async def test_the_run_cores_refusal_is_answered_by_its_kind(
    refusal: Exception, status: int, retry_after: str | None
) -> None:
    answered, headers, body = await answer(refusal)

    assert answered == status
    assert headers.get("retry-after") == retry_after
    assert f'"status":{status}'.encode() in body


async def test_litestars_own_refusal_is_answered_with_the_services_code() -> None:
    status, _, body = await answer(litestar.NotFoundException())

    assert status == 404
    assert b'"code":"not_found","detail":"Not Found"' in body
