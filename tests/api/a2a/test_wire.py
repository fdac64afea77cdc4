"""What the A2A endpoint writes is A2A 1.0 as the official SDK's own types read it, strictly (no unknown field,
no wrong type): the agent card, a blocking call's task, every event of a stream and a task read back; here with
the support agent, a registered graph like any other."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from a2a.types.a2a_pb2 import AgentCard, SendMessageResponse, StreamResponse, Task, TaskState
from google.protobuf.json_format import ParseDict

if TYPE_CHECKING:
    from litestar.testing import AsyncTestClient

URL = "/a2a/support"
HEADERS = {"A2A-Version": "1.0"}
ASK = {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "Where is my order A-1001?"}]}


def rpc(method: str, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 7, "method": method, "params": params}


async def test_the_card_is_an_agent_card(client: AsyncTestClient[Any]) -> None:
    for path in ("/.well-known/agent-card.json", "/a2a/support/.well-known/agent-card.json"):
        response = await client.get(path)
        card = ParseDict(response.json(), AgentCard())

        assert card.skills[0].id == "support"
        assert card.supported_interfaces[0].url.endswith("/a2a/support")


async def test_a_blocking_call_and_a_stream_are_a2a_1_0(client: AsyncTestClient[Any]) -> None:
    blocking = await client.post(URL, json=rpc("SendMessage", {"message": ASK}), headers=HEADERS)
    answer = blocking.json()
    assert answer["id"] == 7
    task = ParseDict(answer["result"], SendMessageResponse()).task
    assert task.status.state == TaskState.TASK_STATE_COMPLETED
    assert task.artifacts[0].parts[0].text, "the answer's text is the output's first part"

    again = await client.post(URL, json=rpc("GetTask", {"id": task.id, "historyLength": 1}), headers=HEADERS)
    read = ParseDict(again.json()["result"], Task())
    assert read.id == task.id
    assert len(read.history) == 1

    asked = {**ASK, "messageId": "m-2", "contextId": task.context_id}
    streamed = await client.post(URL, json=rpc("SendStreamingMessage", {"message": asked}), headers=HEADERS)
    assert streamed.headers["content-type"].startswith("text/event-stream")
    frames = [line[len("data: ") :] for line in streamed.text.splitlines() if line.startswith("data: ")]
    events = [ParseDict(json.loads(frame)["result"], StreamResponse()) for frame in frames]
    assert events[0].HasField("task")
    assert events[0].task.context_id == task.context_id, "the message's context is the task's"
    assert events[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED
    ids = [line[len("id: ") :] for line in streamed.text.splitlines() if line.startswith("id: ")]
    assert [int(seq) for seq in ids] == sorted(int(seq) for seq in ids), "each frame's id is the run's seq"
