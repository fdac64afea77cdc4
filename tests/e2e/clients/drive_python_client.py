"""Drives the service through the Python client openapi-python-client generated from docs/openapi.json.

Type-checked (mypy --strict) together with the generated package before it runs, so the client's types
and this use of them are checked as well as its behaviour. Prints a JSON report of what it saw.

    PYTHONPATH=<generated client> python drive_python_client.py <base-url> <bearer-token>
"""

from __future__ import annotations

import json
import sys

from harness_client import AuthenticatedClient
from harness_client.api.runs import get_run
from harness_client.api.sessions import delete_session
from harness_client.api.turns import chat, resume_chat
from harness_client.models import (
    ChatRequest,
    ChatResponse,
    ChatResponseStatus,
    Problem,
    ResumeRequest,
    ResumeRequestDecision,
    RunSnapshot,
    RunSnapshotStatus,
)


def answered(value: ChatResponse | Problem | None) -> ChatResponse:
    assert isinstance(value, ChatResponse), f"expected a ChatResponse, got {value!r}"
    return value


def main(base_url: str, token: str) -> None:
    client = AuthenticatedClient(base_url=base_url, token=token, raise_on_unexpected_status=True)
    with client as http:
        question = answered(chat.sync(client=http, body=ChatRequest(message="How do I reset my password?")))
        paused = answered(chat.sync(client=http, body=ChatRequest(message="Please refund invoice INV-1001.")))
        approval = paused.pending_approval
        assert approval is not None
        decision = ResumeRequest(
            run_id=paused.run_id, approval_id=approval.approval_id, decision=ResumeRequestDecision.APPROVE
        )
        resumed = answered(resume_chat.sync(client=http, body=decision))
        again = resume_chat.sync_detailed(client=http, body=decision)
        snapshot = get_run.sync(client=http, run_id=paused.run_id)
        assert isinstance(snapshot, RunSnapshot)
        assert isinstance(again.parsed, Problem)
        erased = delete_session.sync_detailed(client=http, session_id=paused.session_id)
        gone = get_run.sync_detailed(client=http, run_id=paused.run_id)

    report = {
        "question": {"status": question.status.value, "citations": [c.doc_id for c in question.citations]},
        "paused": {"status": paused.status.value, "action": approval.action, "run_id": paused.run_id},
        "resumed": {
            "status": resumed.status.value,
            "kind": resumed.answer.kind.value,
            "run_id": resumed.run_id,
            "completed": resumed.status is ChatResponseStatus.COMPLETED,
        },
        "again": {"status_code": int(again.status_code), "code": again.parsed.code},
        "snapshot": {"status": snapshot.status.value, "done": snapshot.status is RunSnapshotStatus.COMPLETED},
        "erased": {"status_code": int(erased.status_code), "read_after": int(gone.status_code)},
    }
    sys.stdout.write(json.dumps(report))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
