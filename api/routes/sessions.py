"""``DELETE /sessions/{session_id}``: erase a session, and everything kept of it, on its owner's request."""

from __future__ import annotations

from typing import Annotated

from litestar import delete
from litestar.di import NamedDependency
from litestar.params import Parameter

from api.auth import Principal
from api.openapi import SESSION_ID_PATTERN, problem_responses
from api.runs.erasure import SessionErasure

__all__ = ("delete_session",)


@delete(
    "/sessions/{session_id:str}",
    operation_id="deleteSession",
    tags=["sessions"],
    summary="Erase a session: its runs, their events, its checkpoints and interactions",
    description=(
        "Ends the session's running or paused run first (as `POST /runs/{run_id}/cancel` does), then removes "
        "from every store the session's checkpoints (its history), its runs and their events, and its logged "
        "interactions. Afterwards the session and its runs do not exist: `GET /runs/{run_id}`, its events and "
        "a resume answer 404, and so does a second `DELETE`. With identity on, only the subject who started the "
        "session may erase it; to anyone else it does not exist (404). A session id shaped like a card number, "
        "a national id, a bank account or a key is refused (422) without being repeated. See docs/privacy.md."
    ),
    status_code=204,
    responses=problem_responses(401, 404, 409, 422, 503),
)
async def delete_session(
    session_id: Annotated[str, Parameter(pattern=SESSION_ID_PATTERN, description="The session to erase.")],
    erasure: NamedDependency[SessionErasure],
    principal: NamedDependency[Principal],
) -> None:
    await erasure.erase_session(session_id, principal)
