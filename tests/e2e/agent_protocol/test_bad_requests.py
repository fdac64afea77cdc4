"""What the service does not serve is a problem+json 422 (or a 404 for what is not there), before any run starts;
never a 500."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import httpx
import msgspec
import pytest
from langgraph_sdk import get_client
from langgraph_sdk.errors import APIStatusError, ConflictError, NotFoundError, UnprocessableEntityError

from tests.e2e.agent_protocol.turns import EXAMPLES, REFUND, collect

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from langgraph_sdk.client import LangGraphClient

    from api.settings import Settings
    from tests.e2e.conftest import LiveServer


def problem_of(error: APIStatusError) -> dict[str, Any]:
    assert error.response.headers["content-type"].startswith("application/problem+json")
    assert isinstance(error.body, dict)
    assert error.body["status"] == error.status_code
    return error.body


@pytest.mark.parametrize(
    ("request_", "code"),
    [
        ({"assistant_id": "no_such_graph", "input": REFUND}, "assistant_unknown"),
        ({"assistant_id": "react_agent", "input": REFUND, "stream_mode": ["values", "logs"]}, "run_request_invalid"),
        (
            {"assistant_id": "react_agent", "command": {"update": {"messages": []}, "resume": "yes"}},
            "run_request_invalid",
        ),
        ({"assistant_id": "react_agent", "command": {"goto": "tools"}}, "run_request_invalid"),
        ({"assistant_id": "react_agent", "input": REFUND, "multitask_strategy": "later"}, "run_request_invalid"),
        (
            {"assistant_id": "react_agent", "input": REFUND, "command": {"resume": {"decision": "approve"}}},
            "run_request_invalid",
        ),
        ({"assistant_id": "react_agent", "input": REFUND, "interrupt_before": ["tools"]}, "run_request_invalid"),
        ({"assistant_id": "react_agent", "input": REFUND, "interrupt_after": "*"}, "run_request_invalid"),
    ],
    ids=[
        "unknown-assistant",
        "unknown-mode",
        "command-update",
        "command-goto",
        "unknown-strategy",
        "input-and-resume",
        "interrupt-before",
        "interrupt-after",
    ],
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


async def test_cancel_with_an_unknown_action_is_a_422_and_a_rollback_of_an_ended_run_a_409(
    sdk: LangGraphClient,
) -> None:
    thread = await sdk.threads.create()
    ended = await sdk.runs.wait(thread["thread_id"], "research", input={"topic": "How do clouds make rain?"})
    (run,) = await sdk.runs.list(thread["thread_id"])

    with pytest.raises(UnprocessableEntityError) as unknown:
        await sdk.runs.cancel(thread["thread_id"], run["run_id"], action="undo")  # type: ignore[arg-type]
    with pytest.raises(ConflictError) as finished:
        await sdk.runs.cancel(thread["thread_id"], run["run_id"], action="rollback")

    assert problem_of(unknown.value)["code"] == "validation_failed"
    assert problem_of(finished.value)["code"] == "run_finished"
    assert "report" in ended
    assert (await sdk.runs.get(thread["thread_id"], run["run_id"]))["status"] == "success", "the run is kept"


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


async def test_a_thread_id_of_another_shape_than_a_session_id_is_a_422(sdk: LangGraphClient) -> None:
    for thread_id in ("a b/c", "x" * 65, "_leading"):
        with pytest.raises(UnprocessableEntityError) as created:
            await sdk.threads.create(thread_id=thread_id)
        assert problem_of(created.value)["code"] == "validation_failed"
    with pytest.raises(UnprocessableEntityError) as on_demand:
        await sdk.runs.create("a_b.c", "react_agent", input=REFUND, if_not_exists="create")

    assert problem_of(on_demand.value)["code"] == "thread_id_invalid"
    assert await sdk.threads.search() == [], "no thread was made"


async def test_a_graph_interrupt_is_not_decided_through_chat_resume(sdk: LangGraphClient, examples: LiveServer) -> None:
    thread = await sdk.threads.create()
    paused = await collect(sdk.runs.stream(thread["thread_id"], "react_agent", input=REFUND))
    run_id = paused[0].data["run_id"]
    async with httpx.AsyncClient(base_url=examples.url) as client:
        (approval,) = (await client.get("/approvals")).json()["approvals"]
        decision = {"run_id": run_id, "approval_id": approval["approval_id"], "decision": "approve"}
        refused = await client.post("/chat/resume", json=decision)

    assert refused.status_code == 422, refused.text
    assert refused.json()["code"] == "run_request_invalid"
    assert f"/threads/{thread['thread_id']}/runs" in refused.json()["detail"]
    assert (await sdk.runs.get(thread["thread_id"], run_id))["status"] == "interrupted", "the run waits on"
    approve: Any = {"resume": {"decision": "approve"}}
    resumed = await collect(sdk.runs.stream(thread["thread_id"], "react_agent", command=approve))
    assert resumed[-1].data == {"run_id": run_id, "status": "success"}


async def test_runs_on_threads_count_as_turns_against_the_rate_limit(
    serve: Callable[..., LiveServer], settings: Settings
) -> None:
    limited = serve(
        msgspec.structs.replace(settings, graphs_config=EXAMPLES / "langgraph.json", rate_limit_per_minute=2)
    )
    async with get_client(url=limited.url, timeout=30) as sdk:
        thread = await sdk.threads.create()
        await sdk.runs.wait(thread["thread_id"], "react_agent", input=REFUND)
        await sdk.runs.wait(thread["thread_id"], "react_agent", command={"resume": {"decision": "approve"}})
        with pytest.raises(APIStatusError) as third:
            await sdk.runs.create(thread["thread_id"], "react_agent", input=REFUND)
        runs = await sdk.runs.list(thread["thread_id"])

    assert third.value.status_code == 429
    assert problem_of(third.value)["code"] == "rate_limited"
    assert len(runs) == 1, "the limited request started nothing"
