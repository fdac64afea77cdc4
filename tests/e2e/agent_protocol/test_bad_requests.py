"""What the service does not serve is a problem+json 422 (or a 404 for what is not there), before any run starts;
never a 500."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from langgraph_sdk.errors import APIStatusError, ConflictError, NotFoundError, UnprocessableEntityError

from tests.e2e.agent_protocol.turns import REFUND, collect

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from langgraph_sdk.client import LangGraphClient


def problem_of(error: APIStatusError) -> dict[str, Any]:
    assert error.response.headers["content-type"].startswith("application/problem+json")
    assert isinstance(error.body, dict)
    assert error.body["status"] == error.status_code
    return error.body


@pytest.mark.parametrize(
    ("request_", "code"),
    [
        ({"assistant_id": "no_such_graph", "input": REFUND}, "assistant_unknown"),
        ({"assistant_id": "react_agent", "input": REFUND, "stream_mode": ["values", "events"]}, "run_request_invalid"),
        (
            {"assistant_id": "react_agent", "command": {"update": {"messages": []}, "resume": "yes"}},
            "run_request_invalid",
        ),
        ({"assistant_id": "react_agent", "command": {"goto": "tools"}}, "run_request_invalid"),
        ({"assistant_id": "react_agent", "input": REFUND, "multitask_strategy": "enqueue"}, "run_request_invalid"),
        (
            {"assistant_id": "react_agent", "input": REFUND, "command": {"resume": {"decision": "approve"}}},
            "run_request_invalid",
        ),
    ],
    ids=["unknown-assistant", "events-mode", "command-update", "command-goto", "enqueue", "input-and-resume"],
)
async def test_a_run_request_the_service_does_not_serve_is_a_422(
    sdk: LangGraphClient, request_: dict[str, Any], code: str
) -> None:
    thread = await sdk.threads.create()

    with pytest.raises(UnprocessableEntityError) as streamed:
        await collect(sdk.runs.stream(thread["thread_id"], **request_))
    with pytest.raises(UnprocessableEntityError) as stateless:
        await collect(sdk.runs.stream(None, **request_))
    with pytest.raises(UnprocessableEntityError) as background:
        await sdk.runs.create(thread["thread_id"], **request_)

    assert problem_of(streamed.value)["code"] == code
    assert problem_of(stateless.value)["code"] == code
    assert problem_of(background.value)["code"] == code
    assert await sdk.runs.list(thread["thread_id"]) == [], "nothing started"


async def test_cancel_with_rollback_is_a_422(sdk: LangGraphClient) -> None:
    thread = await sdk.threads.create()
    paused = await collect(sdk.runs.stream(thread["thread_id"], "react_agent", input=REFUND))
    run_id = paused[0].data["run_id"]

    with pytest.raises(UnprocessableEntityError) as refused:
        await sdk.runs.cancel(thread["thread_id"], run_id, action="rollback")

    assert problem_of(refused.value)["code"] == "run_request_invalid"
    assert (await sdk.runs.get(thread["thread_id"], run_id))["status"] == "interrupted", "the run waits on"


async def test_what_is_not_there_is_a_404(sdk: LangGraphClient) -> None:
    thread = await sdk.threads.create()
    missing = "s_no_such_thread"
    attempts: dict[str, Callable[[], Awaitable[object]]] = {
        "thread": lambda: sdk.threads.get(missing),
        "state": lambda: sdk.threads.get_state(missing),
        "runs": lambda: sdk.runs.list(missing),
        "run": lambda: sdk.runs.get(thread["thread_id"], "r_no_such_run"),
        "stream": lambda: collect(sdk.runs.stream(missing, "react_agent", input=REFUND)),
        "assistant": lambda: sdk.assistants.get_schemas("no_such_graph"),
    }
    codes = {}
    for name, attempt in attempts.items():
        with pytest.raises(NotFoundError) as found:
            await attempt()
        codes[name] = problem_of(found.value)["code"]

    assert codes == {
        "thread": "session_not_found",
        "state": "session_not_found",
        "runs": "session_not_found",
        "run": "run_not_found",
        "stream": "session_not_found",
        "assistant": "assistant_not_found",
    }


async def test_a_resume_with_nothing_waiting_is_a_409(sdk: LangGraphClient) -> None:
    thread = await sdk.threads.create()
    command: Any = {"resume": {"decision": "approve"}}
    await collect(sdk.runs.stream(thread["thread_id"], "react_agent", input=REFUND))
    await collect(sdk.runs.stream(thread["thread_id"], "react_agent", command=command))

    with pytest.raises(ConflictError) as again:
        await collect(sdk.runs.stream(thread["thread_id"], "react_agent", command=command))
    with pytest.raises(ConflictError) as fresh:
        await collect(sdk.runs.stream((await sdk.threads.create())["thread_id"], "react_agent", command=command))

    assert problem_of(again.value)["code"] == problem_of(fresh.value)["code"] == "run_not_paused"
    (run,) = await sdk.runs.list(thread["thread_id"])
    assert run["status"] == "success", "the decided run stays decided"
