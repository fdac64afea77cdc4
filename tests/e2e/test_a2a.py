"""A2A 1.0 for every registered graph, driven by the official ``a2a-sdk`` client against a real uvicorn serving
examples/langgraph.json (and the tests' gated project, whose run holds until a file exists): card discovery, a
blocking and a streamed message, an ``interrupt()`` as ``input-required`` answered by the next message, a cancel,
and who may see and answer a task. Each test runs on the embedded and on the shared stores (the ``settings``
fixture); test_a2a_two_instances.py cuts streams on one instance and resubscribes on the other.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import anyio
import httpx
import msgspec
import pytest
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.client.client import ClientCallContext
from a2a.client.errors import A2AClientError
from a2a.helpers import get_data_parts, get_text_parts, new_data_part, new_message, new_text_message
from a2a.types.a2a_pb2 import (
    CancelTaskRequest,
    GetTaskRequest,
    Role,
    SendMessageRequest,
    StreamResponse,
    SubscribeToTaskRequest,
    TaskState,
)
from a2a.utils.errors import TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError

from api.auth import AuthConfig
from tests.e2e.agent_protocol.turns import ALICE, BOB, EXAMPLES, GATED_GRAPH, REFUND_APPROVAL, REPORT, TOPIC
from tests.support.graph_projects import isolated_loading, write_project

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable, Iterator
    from pathlib import Path

    from a2a.client import Client

    from api.settings import Settings
    from tests.e2e.conftest import LiveServer

APPROVER = "carol-token-0123456789abcdef"
REFUND = "Please refund order A-1001."
REFUNDED = "Refunded 42.00 EUR for order A-1001."


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.delenv("HARNESS_CHAT_MODEL", raising=False)
    yield from isolated_loading(monkeypatch, EXAMPLES, tmp_path)


@pytest.fixture
def examples(serve: Callable[..., LiveServer], settings: Settings) -> LiveServer:
    return serve(msgspec.structs.replace(settings, graphs_config=EXAMPLES / "langgraph.json"))


@pytest.fixture
def gated(serve: Callable[..., LiveServer], settings: Settings, tmp_path: Path) -> LiveServer:
    config = write_project(
        tmp_path / "gated", {"gated.py": GATED_GRAPH, "langgraph.json": {"graphs": {"gated": "./gated.py:graph"}}}
    )
    return serve(msgspec.structs.replace(settings, graphs_config=config))


@pytest.fixture
def guarded(serve: Callable[..., LiveServer], settings: Settings, tmp_path: Path) -> LiveServer:
    """The examples with identity on: alice and bob (users), carol (an approver, who answers interrupts)."""
    tokens = tmp_path / "tokens.json"
    subjects = [
        {"token": ALICE, "subject": "alice", "roles": ["user"], "account_id": "ACC-2001"},
        {"token": BOB, "subject": "bob", "roles": ["user"], "account_id": "ACC-2002"},
        {"token": APPROVER, "subject": "carol", "roles": ["approver"]},
    ]
    tokens.write_text(json.dumps({"tokens": subjects}))
    auth = AuthConfig(tokens_file=tokens, approver_role="approver")
    return serve(msgspec.structs.replace(settings, graphs_config=EXAMPLES / "langgraph.json", auth=auth))


async def a2a_client(
    server: LiveServer, assistant: str | None, *, streaming: bool = True, token: str | None = None
) -> Client:
    """The official client of an assistant's agent (the default assistant's when None), made from its card."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    http = httpx.AsyncClient(headers=headers, timeout=30)
    factory = ClientFactory(ClientConfig(streaming=streaming, httpx_client=http))
    base = server.url if assistant is None else f"{server.url}/a2a/{assistant}"
    return await factory.create_from_url(base)


async def events(
    stream: AsyncIterator[StreamResponse], *, until: Callable[[StreamResponse], bool] | None = None
) -> list[StreamResponse]:
    """A stream's events, to its end or through the first that ``until`` accepts (then the stream is cut)."""
    out: list[StreamResponse] = []
    async for event in stream:
        out.append(event)
        if until is not None and until(event):
            break
    await stream.aclose()  # type: ignore[attr-defined]
    return out


def text_request(text: str, **ids: str) -> SendMessageRequest:
    return SendMessageRequest(message=new_text_message(text, role=Role.ROLE_USER, **ids))


def data_request(data: Any) -> SendMessageRequest:
    return SendMessageRequest(message=new_message([new_data_part(data)], role=Role.ROLE_USER))


def states(stream: list[StreamResponse]) -> list[int]:
    return [event.status_update.status.state for event in stream if event.HasField("status_update")]


def texts(stream: list[StreamResponse]) -> str:
    return "".join(
        "".join(get_text_parts(event.status_update.status.message.parts))
        for event in stream
        if event.HasField("status_update") and event.status_update.status.state == TaskState.TASK_STATE_WORKING
    )


def custom(stream: list[StreamResponse]) -> list[Any]:
    found = []
    for event in stream:
        if not event.HasField("status_update"):
            continue
        for part in event.status_update.status.message.parts:
            if part.HasField("data") and part.metadata["name"] == "custom":
                found += get_data_parts([part])
    return found


def seqs(stream: list[StreamResponse]) -> list[int]:
    """The run's seq each event was made from (a task's: the last its state holds)."""
    return [int(getattr(event, str(event.WhichOneof("payload"))).metadata["seq"]) for event in stream]


async def test_each_assistant_has_a_card_with_its_skill_and_endpoint(examples: LiveServer) -> None:
    async with httpx.AsyncClient() as http:
        default = await A2ACardResolver(http, examples.url).get_agent_card()
        research = await A2ACardResolver(http, f"{examples.url}/a2a/research").get_agent_card()
        unknown = await http.get(f"{examples.url}/a2a/nope/.well-known/agent-card.json")

    assert default.name == "react_agent", "the default assistant is the first graph the config names"
    (interface,) = research.supported_interfaces
    assert (interface.url, interface.protocol_binding, interface.protocol_version) == (
        f"{examples.url}/a2a/research",
        "JSONRPC",
        "1.0",
    )
    assert research.capabilities.streaming
    (skill,) = research.skills
    assert skill.id == "research"
    assert "researches each in a subgraph" in skill.description
    assert "topic" in skill.description
    assert list(skill.input_modes) == ["application/json"]
    (extension,) = research.capabilities.extensions
    assert "topic" in extension.params["inputSchema"]["properties"]
    assert not research.security_schemes, "identity is off: no scheme to sign in with"
    assert unknown.status_code == 404
    assert unknown.headers["content-type"].startswith("application/problem+json")


async def test_a_blocking_message_answers_the_finished_task_with_its_output(examples: LiveServer) -> None:
    client = await a2a_client(examples, "research", streaming=False)
    (answer,) = await events(client.send_message(data_request(TOPIC)))
    task = answer.task

    assert task.status.state == TaskState.TASK_STATE_COMPLETED
    assert task.context_id, "a message with no context starts a thread of its own"
    (output,) = task.artifacts
    (result,) = get_data_parts(output.parts)
    assert result["report"] == REPORT
    assert task.history[0].role == Role.ROLE_USER
    assert any(message.role == Role.ROLE_AGENT for message in task.history), "the model's notes are its history"

    again = await client.get_task(GetTaskRequest(id=task.id))
    assert again.status.state == TaskState.TASK_STATE_COMPLETED
    assert get_data_parts(again.artifacts[0].parts) == [result]
    await client.close()


async def test_a_streamed_message_shows_steps_text_custom_writes_and_the_output(examples: LiveServer) -> None:
    client = await a2a_client(examples, "research")
    stream = await events(client.send_message(data_request(TOPIC)))

    assert stream[0].HasField("task"), "a stream starts with the task"
    assert stream[0].task.status.state == TaskState.TASK_STATE_SUBMITTED
    assert states(stream)[-1] == TaskState.TASK_STATE_COMPLETED
    steps = [
        event.status_update.metadata["step"]["node"]
        for event in stream
        if event.HasField("status_update")
        and "step" in event.status_update.metadata
        and "node" in event.status_update.metadata["step"]
    ]
    assert "research_step:search" in steps
    assert custom(stream), "the graph's custom writes are data parts"
    assert all("searching" in value for value in custom(stream))
    assert texts(stream), "the model's chunks are text parts"
    (artifact,) = [event.artifact_update for event in stream if event.HasField("artifact_update")]
    assert get_data_parts(artifact.artifact.parts)[0]["report"] == REPORT
    assert seqs(stream) == sorted(seqs(stream)), "in the run's order"
    await client.close()


async def test_an_interrupt_is_input_required_and_the_next_message_resumes_the_task(examples: LiveServer) -> None:
    client = await a2a_client(examples, "react_agent")
    paused = await events(client.send_message(text_request(REFUND)))
    interrupted = paused[-1].status_update

    assert interrupted.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    asked = interrupted.status.message
    assert get_data_parts(asked.parts) == [REFUND_APPROVAL]
    assert asked.metadata["action"] == "issue_refund"
    task_id, context_id = interrupted.task_id, interrupted.context_id
    waiting = await client.get_task(GetTaskRequest(id=task_id))
    assert waiting.status.state == TaskState.TASK_STATE_INPUT_REQUIRED

    resumed = await events(client.send_message(text_request("approve", task_id=task_id, context_id=context_id)))

    assert resumed[0].task.id == task_id, "the answer continues the same task"
    assert states(resumed)[-1] == TaskState.TASK_STATE_COMPLETED
    assert REFUNDED in texts(resumed)
    (artifact,) = [event.artifact_update.artifact for event in resumed if event.HasField("artifact_update")]
    assert get_text_parts(artifact.parts)[0].startswith("Refunded 42.00 EUR")
    finished = await client.get_task(GetTaskRequest(id=task_id))
    assert finished.status.state == TaskState.TASK_STATE_COMPLETED
    with pytest.raises(UnsupportedOperationError):
        await events(client.send_message(text_request("approve", task_id=task_id)))

    later = await events(client.send_message(text_request("Thanks!", context_id=context_id)))
    assert later[0].task.id != task_id, "the next message of the context is the next task"
    assert later[0].task.context_id == context_id
    await client.close()


async def test_cancel_ends_the_run_and_an_ended_task_is_not_cancelable(gated: LiveServer, tmp_path: Path) -> None:
    client = await a2a_client(gated, "gated")
    started = await events(
        client.send_message(data_request({"gate": str(tmp_path / "never")})),
        until=lambda event: {"holding": str(tmp_path / "never")} in custom([event]),
    )
    task_id = started[0].task.id

    cancelled = await client.cancel_task(CancelTaskRequest(id=task_id))

    assert cancelled.status.state == TaskState.TASK_STATE_CANCELED
    assert (await client.get_task(GetTaskRequest(id=task_id))).status.state == TaskState.TASK_STATE_CANCELED
    with pytest.raises(TaskNotCancelableError):
        await client.cancel_task(CancelTaskRequest(id=task_id))
    with pytest.raises(UnsupportedOperationError):
        await events(client.subscribe(SubscribeToTaskRequest(id=task_id)))
    await client.close()


async def test_a_subscription_picks_a_running_task_up_where_it_stands(gated: LiveServer, tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    client = await a2a_client(gated, "gated")
    first = await events(
        client.send_message(data_request({"gate": str(gate)})),
        until=lambda event: {"holding": str(gate)} in custom([event]),
    )
    task_id = first[0].task.id
    subscription = client.subscribe(SubscribeToTaskRequest(id=task_id))
    (standing,) = await events(subscription, until=lambda event: True)
    assert standing.task.status.state == TaskState.TASK_STATE_WORKING

    resumed = client.subscribe(SubscribeToTaskRequest(id=task_id))
    opening = await anext(resumed)  # the request goes out on the first read: subscribed before the gate opens
    gate.write_text("open")
    rest = [opening, *await events(resumed)]

    assert rest[0].HasField("task")
    assert int(rest[0].task.metadata["seq"]) >= seqs(first)[-1]
    after = seqs(rest)[1:]
    assert after == sorted(after)
    assert min(after) > int(rest[0].task.metadata["seq"]), "nothing the task holds already comes again"
    assert {"step": "last"} in custom(rest)
    assert states(rest)[-1] == TaskState.TASK_STATE_COMPLETED
    await client.close()


async def test_another_subjects_task_is_not_found_and_only_an_approver_answers(guarded: LiveServer) -> None:
    async with httpx.AsyncClient() as http:
        card = await A2ACardResolver(http, f"{guarded.url}/a2a/react_agent").get_agent_card()
    assert card.security_schemes["bearer"].http_auth_security_scheme.scheme == "Bearer"
    assert list(card.security_requirements[0].schemes) == ["bearer"]

    alice = await a2a_client(guarded, "react_agent", token=ALICE)
    bob = await a2a_client(guarded, "react_agent", token=BOB)
    carol = await a2a_client(guarded, "react_agent", token=APPROVER)
    paused = await events(alice.send_message(text_request(REFUND)))
    task_id = paused[-1].status_update.task_id

    with pytest.raises(TaskNotFoundError):
        await bob.get_task(GetTaskRequest(id=task_id))
    with pytest.raises(TaskNotFoundError):
        await bob.cancel_task(CancelTaskRequest(id=task_id))
    with pytest.raises(UnsupportedOperationError, match="approver"):
        await events(alice.send_message(text_request("approve", task_id=task_id)))
    decided = await events(carol.send_message(text_request("approve", task_id=task_id)))
    assert states(decided)[-1] == TaskState.TASK_STATE_COMPLETED
    assert (await alice.get_task(GetTaskRequest(id=task_id))).status.state == TaskState.TASK_STATE_COMPLETED

    anonymous = await a2a_client(guarded, "react_agent")
    with pytest.raises(A2AClientError, match="401"):
        await anonymous.get_task(GetTaskRequest(id=task_id))
    for client in (alice, bob, carol, anonymous):
        await client.close()


async def test_a_resubscription_after_a_cut_names_the_last_event_it_has(examples: LiveServer) -> None:
    client = await a2a_client(examples, "research")
    whole = await events(client.send_message(data_request(TOPIC)))
    cut = await events(client.send_message(data_request(TOPIC)), until=lambda event: len(texts([event])) > 0)
    task_id = cut[0].task.id
    last = seqs(cut)[-1]

    context = ClientCallContext(service_parameters={"Last-Event-ID": str(last)})
    rest = await events(client.subscribe(SubscribeToTaskRequest(id=task_id), context=context))

    assert int(rest[0].task.metadata["seq"]) == last
    assert min(seqs(rest)[1:]) > last
    assert texts(cut) + texts(rest) == texts(whole), "nothing lost, nothing twice"
    assert custom(cut) + custom(rest) == custom(whole)
    await client.close()


async def test_return_immediately_answers_the_submitted_task_and_the_run_goes_on(examples: LiveServer) -> None:
    http = httpx.AsyncClient(timeout=30)
    factory = ClientFactory(ClientConfig(streaming=False, polling=True, httpx_client=http))
    client = await factory.create_from_url(f"{examples.url}/a2a/research")
    (answer,) = await events(client.send_message(data_request(TOPIC)))
    assert answer.task.status.state == TaskState.TASK_STATE_SUBMITTED

    for _ in range(400):
        task = await client.get_task(GetTaskRequest(id=answer.task.id))
        if task.status.state == TaskState.TASK_STATE_COMPLETED:
            break
        await anyio.sleep(0.05)
    assert task.status.state == TaskState.TASK_STATE_COMPLETED, "nobody followed it, and it ran to its end"
    assert get_data_parts(task.artifacts[0].parts)[0]["report"] == REPORT
    await client.close()


async def test_a_blocking_answer_with_a_data_part_resumes_the_task_to_its_end(examples: LiveServer) -> None:
    client = await a2a_client(examples, "react_agent", streaming=False)
    (paused,) = await events(client.send_message(text_request(REFUND)))
    assert paused.task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED

    answer = SendMessageRequest(
        message=new_message(
            [new_data_part({"decision": "reject", "comment": "not this one"})],
            role=Role.ROLE_USER,
            task_id=paused.task.id,
            context_id=paused.task.context_id,
        )
    )
    (decided,) = await events(client.send_message(answer))

    assert decided.task.id == paused.task.id
    assert decided.task.status.state == TaskState.TASK_STATE_COMPLETED
    (text, _) = decided.task.artifacts[0].parts
    assert text.text == "The refund of order A-1001 was rejected: not this one"
    await client.close()


def roles(task: Any) -> list[str]:
    return ["user" if message.role == Role.ROLE_USER else "agent" for message in task.history]


def said_by_user(task: Any) -> list[str]:
    return ["".join(get_text_parts(message.parts)) for message in task.history if message.role == Role.ROLE_USER]


async def test_get_task_holds_the_clients_messages_as_send_message_does(examples: LiveServer) -> None:
    client = await a2a_client(examples, "react_agent", streaming=False)
    (answered,) = await events(client.send_message(text_request("What is the refund policy?")))
    task = answered.task
    assert task.status.state == TaskState.TASK_STATE_COMPLETED
    assert roles(task)[0] == "user"

    got = await client.get_task(GetTaskRequest(id=task.id))

    assert roles(got) == roles(task), "the client's message and the agent's, as SendMessage answered them"
    assert [message.message_id for message in got.history] == [message.message_id for message in task.history]
    assert said_by_user(got) == ["What is the refund policy?"]

    (paused,) = await events(client.send_message(text_request(REFUND)))
    waiting = await client.get_task(GetTaskRequest(id=paused.task.id))
    assert said_by_user(waiting) == [REFUND]
    answer = text_request("approve", task_id=paused.task.id, context_id=paused.task.context_id)
    (decided,) = await events(client.send_message(answer))
    assert decided.task.status.state == TaskState.TASK_STATE_COMPLETED

    ended = await client.get_task(GetTaskRequest(id=paused.task.id))

    assert said_by_user(ended) == [REFUND, "approve"], "the message that started it, then the answer"
    assert roles(ended) == roles(decided.task)
    assert roles(ended).index("user", 1) == roles(decided.task).index("user", 1), "the answer where it came"
    await client.close()
