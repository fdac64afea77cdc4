"""Issue 38: this service's A2A stream beside its Agent Protocol stream, on the same server and the same graph.

``bench.agent_protocol`` measures these on its ``Peer("harness")`` (``harness serve --config
bench/graph/langgraph.json``) right after that server's Agent Protocol figures: a ``SendStreamingMessage`` to
``/a2a/firehose`` with the official ``a2a-sdk`` client (JSON-RPC transport, made from the agent card), the
message's text the count of chunks the firehose graph streams.

What is counted is what the Agent Protocol row counts: the model's chunks delivered per second, from the request
to the stream's end. There each chunk is one ``messages`` event; here the chunks committed together are one
``statusUpdate`` (``TASK_STATE_WORKING``) whose text part is their text joined (``api.a2a.task``), so the chunks
are counted in the text (the firehose's ``TOKEN``, each), and the stream must bring every one of them. The first
event with text is the first token.

Beside the official client, the same stream read with httpx alone (the chunks counted in the status updates'
``data:`` lines, nothing parsed): the a2a-sdk client turns every event's JSON into protobuf with ``json_format``,
which costs it more CPU per event than the server spends, so that row tells the server's rate from the client's.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from typing import TYPE_CHECKING

import httpx
from a2a.client import ClientConfig, ClientFactory
from a2a.helpers import new_text_message
from a2a.types.a2a_pb2 import Role, SendMessageRequest, TaskState

from bench.graph.firehose import TOKEN
from bench.system import CpuMeter

if TYPE_CHECKING:
    from a2a.client import Client
    from a2a.types.a2a_pb2 import StreamResponse

__all__ = ("A2AStream", "open_client", "raw_throughput", "stream_task", "throughput")

WORKING = TaskState.TASK_STATE_WORKING
_STATUS_UPDATE = '"statusUpdate":'


class A2AStream:
    """What one streamed task brought: the model's chunks in its text, when the first came, its events."""

    def __init__(self) -> None:
        self.chunks = 0
        self.events = 0
        self.first_at: float | None = None


async def open_client(base_url: str, graph: str) -> tuple[Client, httpx.AsyncClient]:
    """The official client of ``graph``'s agent, made from its card, and the httpx client under it (to close)."""
    http = httpx.AsyncClient(timeout=120)
    client = await ClientFactory(ClientConfig(streaming=True, httpx_client=http)).create_from_url(
        f"{base_url}/a2a/{graph}"
    )
    return client, http


def _text(event: StreamResponse) -> str:
    """The text a working update carries: the model's chunks."""
    if not event.HasField("status_update"):
        return ""
    status = event.status_update.status
    return "".join(part.text for part in status.message.parts) if status.state == WORKING else ""


async def stream_task(client: Client, tokens: int) -> A2AStream:
    """One streamed task of ``tokens`` chunks, read to its end."""
    seen = A2AStream()
    request = SendMessageRequest(message=new_text_message(str(tokens), role=Role.ROLE_USER))
    events = client.send_message(request)
    async with contextlib.aclosing(events):  # type: ignore[type-var]
        async for event in events:
            seen.events += 1
            if chunks := _text(event).count(TOKEN):
                seen.chunks += chunks
                seen.first_at = seen.first_at or time.perf_counter()
    return seen


async def throughput(client: Client, pid: int, tokens: int) -> tuple[float, float, float]:
    """Chunks delivered per second in one task, and the server's and this client's CPU time meanwhile, each a
    share of its core."""
    await stream_task(client, 100)  # warm-up
    meter = CpuMeter(pid)
    meter.start()
    client_cpu = time.process_time()
    started = time.perf_counter()
    seen = await stream_task(client, tokens)
    elapsed = time.perf_counter() - started
    cpu, wall = meter.stop()
    if seen.chunks != tokens:
        raise RuntimeError(f"A2A: {seen.chunks} chunks delivered, not {tokens}")
    print(f"  {tokens:,} chunks in {seen.events:,} events", flush=True)
    return tokens / elapsed, cpu / wall, (time.process_time() - client_cpu) / elapsed


async def first_token_ms(client: Client, tokens: int = 40) -> float:
    started = time.perf_counter()
    seen = await stream_task(client, tokens)
    if seen.first_at is None:
        raise RuntimeError("A2A: no event with text")
    return (seen.first_at - started) * 1000


def _call(tokens: int) -> dict[str, object]:
    message = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": str(tokens)}]}
    return {"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": {"message": message}}


async def raw_throughput(base_url: str, graph: str, pid: int, tokens: int) -> tuple[float, float, float]:
    """As ``throughput``, the same request sent and its SSE read with httpx, the chunks counted in the status
    updates' ``data:`` lines unparsed (the output artifact, which holds the answer whole, is not one)."""
    headers = {"Accept": "text/event-stream", "A2A-Version": "1.0"}
    async with httpx.AsyncClient(base_url=base_url, timeout=120, headers=headers) as http:

        async def read(count: int) -> int:
            chunks = 0
            async with http.stream("POST", f"/a2a/{graph}", json=_call(count)) as response:
                response.raise_for_status()
                async for line in response.aiter_lines():
                    if line.startswith("data:") and _STATUS_UPDATE in line:
                        chunks += line.count(TOKEN)
            return chunks

        await read(100)
        meter = CpuMeter(pid)
        meter.start()
        client_cpu = time.process_time()
        started = time.perf_counter()
        chunks = await read(tokens)
        elapsed = time.perf_counter() - started
        cpu, wall = meter.stop()
    if chunks != tokens:
        raise RuntimeError(f"A2A (httpx): {chunks} chunks delivered, not {tokens}")
    return tokens / elapsed, cpu / wall, (time.process_time() - client_cpu) / elapsed
