"""Issue 26: the Agent Protocol stream of this service against ``langgraph dev``, on the same firehose graph.

Every server loads ``bench/graph/langgraph.json`` (``bench.graph.firehose``: a chat model that streams as
many one-word chunks as the last message asks, with no pause) and is driven with the official
``langgraph_sdk`` client through ``POST /threads/{id}/runs/stream`` (``stream_mode="messages-tuple"``):

- throughput: ``messages`` events/s of one run of ``--tokens`` chunks, from the request to the stream's end;
- first token: time from the request to the first ``messages`` event with text over ``--turns`` runs of 40 chunks,
  each on a thread made before the clock starts, the servers taking turns;
- reconnect: a run of ``--reconnect-tokens`` chunks is read to its middle and dropped (``on_disconnect=
  "continue"``, ``stream_resumable=True``), then ``join_stream`` with the last event id seen; the time from
  that call to its first event, median of ``--reconnects``.

The servers: this service (``harness serve --config``, as it runs in production, access log included),
``langgraph dev --no-reload`` (PyPI ``langgraph-cli[inmem]``) and Aegra (``aegra-api`` on the machine's
PostgreSQL), each peer in its own virtual environment under ``~/.cache/agent-harness/peers/``, made here when
missing. Beside them, the same three figures of this service's own ``/chat`` stream (the support agent on the
``bench.models`` firehose, as ``bench.throughput`` runs it; reconnect: ``GET /runs/{id}/events`` with
``Last-Event-ID``). Beside its Agent Protocol figures, this service's A2A stream on the same server and graph
(issue 38, ``bench.a2a_stream``): ``SendStreamingMessage`` to ``/a2a/firehose`` with the official ``a2a-sdk``
client, events with text/s and first token (the servers' turns include it), and the same stream read with httpx
alone. Each server runs pinned to core 0 in a fresh directory removed at the end; this process, the client, runs
on core 1. ``python -m bench`` runs this module too (this service alone with ``--quick``).

    .venv/bin/python -m bench.agent_protocol --tokens 20000 --turns 100
    .venv/bin/python -m bench.agent_protocol --peers harness --turns 20     # this service alone, a minute
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import httpx
from langgraph_sdk import get_client

from bench import a2a_stream
from bench.report import Section, percentile, table
from bench.servers import Server
from bench.system import CpuMeter, pin_client, taskset_prefix
from bench.throughput import QUESTION

if TYPE_CHECKING:
    from collections.abc import Coroutine, Sequence
    from types import TracebackType

    from a2a.client import Client
    from langgraph_sdk.client import LangGraphClient

__all__ = ("A2A", "A2A_RAW", "CHAT", "CHAT_NATIVE", "PEERS", "run", "targets")

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "bench" / "graph" / "langgraph.json"
PEERS_DIR = Path.home() / ".cache" / "agent-harness" / "peers"
GRAPH = "firehose"
PEERS = ("harness", "langgraph dev", "aegra")
CHAT = "/chat"
"""This service's own ``/chat`` on the same LangChain chat model as the graph's (``bench.models`` ``langchain``)."""
CHAT_NATIVE = "/chat native"
"""``/chat`` on the support agent's own firehose model, no LangChain in the way: what the service costs alone."""
A2A = "A2A"
"""This service's A2A ``SendStreamingMessage`` on the same server and graph as its Agent Protocol row (issue 38)."""
A2A_RAW = "A2A httpx"
"""The same A2A stream read with httpx alone, nothing parsed: the server's rate without the a2a-sdk client's."""
LABELS = {
    A2A: "this service's A2A `SendStreamingMessage` (a2a-sdk client, same server and graph)",
    A2A_RAW: "the same A2A stream read with httpx, not parsed (events/s only)",
    CHAT: "this service's own `/chat` SSE (support agent, the same LangChain `FirehoseChatModel`)",
    CHAT_NATIVE: "this service's own `/chat` SSE (support agent, its own `firehose` model, no LangChain)",
    "harness": "this service (`harness serve --config`)",
    "langgraph dev": "`langgraph dev` (langgraph-cli[inmem])",
    "aegra": "Aegra (aegra-api, PostgreSQL)",
}
REQUIREMENTS = {"langgraph dev": ("langgraph-cli[inmem]",), "aegra": ("aegra-api", "greenlet")}
"""What each peer's virtual environment installs (aegra-api 0.6 needs greenlet for SQLAlchemy's asyncio)."""
_T = TypeVar("_T")
STEP_TIMEOUT_S = 60.0
"""The longest one run (or rejoin) of a figure may take before the benchmark stops, naming the server."""
POSTGRES = ("-h", "127.0.0.1", "-p", "5432", "-U", "postgres")


def peer_venv(name: str) -> Path:
    """The ``bin`` directory of the peer's own virtual environment, made with venv and pip if missing."""
    venv = PEERS_DIR / name.replace(" ", "-")
    if not (venv / ".installed").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", *REQUIREMENTS[name]], check=True)
        (venv / ".installed").touch()
    return venv / "bin"


class Peer(Server):
    """A server under test on core 0 in a fresh directory, stopped and removed as ``bench.servers.Server`` is."""

    def __init__(self, name: str, *, replay_window: int = 10_000) -> None:
        """``replay_window``: the events this service keeps of a run (``HARNESS_REPLAY_WINDOW``), as its ``/chat``
        server beside it keeps them, so neither trims its log where the other does not."""
        super().__init__(name, f"firehose (from {CONFIG.name})")
        self.name = name
        self.replay_window = replay_window

    def command(self) -> tuple[list[str], dict[str, str]]:
        if self.name == "harness":
            harness = [str(Path(sys.executable).parent / "harness"), "serve", "--config", str(CONFIG)]
            env = {"HARNESS_DATA_DIR": str(self._data_dir), "HARNESS_REPLAY_WINDOW": str(self.replay_window)}
            return [*harness, "--port", str(self.port)], env
        for source in CONFIG.parent.glob("*.*"):  # the peers resolve the graph's path from their working directory
            shutil.copy(source, self._data_dir)
        if self.name == "aegra":
            uvicorn = [str(peer_venv(self.name) / "python"), "-m", "uvicorn", "aegra_api.main:app"]
            database = f"postgresql://postgres@127.0.0.1:5432/{self.database}"
            env = {"DATABASE_URL": database, "AEGRA_CONFIG": str(self._data_dir / CONFIG.name)}
            return [*uvicorn, "--host", "127.0.0.1", "--port", str(self.port), "--no-access-log"], env
        dev = [str(peer_venv(self.name) / "langgraph"), "dev", "--no-browser", "--no-reload", "--config", CONFIG.name]
        return [*dev, "--port", str(self.port)], {"LANGSMITH_TRACING": "false", "LANGGRAPH_CLI_NO_ANALYTICS": "1"}

    @property
    def database(self) -> str:
        """Aegra's own database, made for the run and dropped after it."""
        return f"bench_aegra_{self.port}"

    def __enter__(self) -> Peer:
        argv, env = self.command()
        if self.name == "aegra":
            subprocess.run(["createdb", *POSTGRES, self.database], check=True)
        with (self._data_dir / "server.log").open("wb") as log:
            self._process = subprocess.Popen(
                [*taskset_prefix(), *argv],
                cwd=self._data_dir,
                env={**os.environ, **env},
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        try:
            self._graph_served()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _graph_served(self) -> None:
        """Wait until the server lists the firehose graph (both answer ``POST /assistants/search``)."""
        url = f"http://127.0.0.1:{self.port}/assistants/search"
        for _ in range(900):
            if self.returncode() is not None:
                log = (self._data_dir / "server.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"{self.name} exited with {self.returncode()}:\n{log}")
            with contextlib.suppress(httpx.TransportError, httpx.HTTPStatusError):
                found = httpx.post(url, json={"graph_id": GRAPH}, timeout=2).raise_for_status().json()
                if found:
                    return
            time.sleep(0.2)
        raise RuntimeError(f"{self.name} did not serve {GRAPH!r} in 180 s")

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        try:
            super().__exit__(kind, error, tb)
        finally:
            if self.name == "aegra":
                subprocess.run(["dropdb", *POSTGRES, "--if-exists", "--force", self.database], check=False)

    def returncode(self) -> int | None:
        return None if self._process is None else self._process.poll()


@dataclass
class Streamed:
    """What one run's stream brought: ``messages`` events, when the first with text came, the last event id."""

    messages: int = 0
    first_at: float | None = None
    last_id: str | None = None
    run_id: str | None = None


async def stream_run(
    client: LangGraphClient, thread_id: str, tokens: int, *, stop_after: int | None = None
) -> Streamed:
    """One run of ``tokens`` chunks; with ``stop_after``, the stream is dropped after that many messages."""
    seen = Streamed()
    parts = client.runs.stream(
        thread_id,
        GRAPH,
        input={"messages": [{"role": "user", "content": str(tokens)}]},
        stream_mode="messages-tuple",
        on_disconnect="continue",
        stream_resumable=True,
    )
    async with contextlib.aclosing(parts):
        async for part in parts:
            if part.event == "metadata":
                seen.run_id = part.data["run_id"]
            elif part.event == "messages":
                seen.messages += 1
                if seen.first_at is None and part.data[0].get("content"):
                    seen.first_at = time.perf_counter()
            seen.last_id = part.id or seen.last_id
            if stop_after is not None and seen.messages >= stop_after:
                break
    return seen


async def thread(client: LangGraphClient) -> str:
    made = await client.threads.create()
    return str(made["thread_id"])


async def throughput(client: LangGraphClient, server: Peer, tokens: int) -> tuple[float, float, float]:
    """``messages`` events/s of one run, and the server's and this client's CPU time meanwhile, each as a
    share of its core (a client near 100% means the figure is the client's)."""
    await stream_run(client, await thread(client), 100)  # warm-up
    thread_id = await thread(client)
    meter = CpuMeter(server.pid)
    meter.start()
    client_cpu = time.process_time()
    started = time.perf_counter()
    seen = await stream_run(client, thread_id, tokens)
    elapsed = time.perf_counter() - started
    cpu, wall = meter.stop()
    client_cpu = time.process_time() - client_cpu
    if seen.messages < tokens:
        raise RuntimeError(f"{seen.messages} messages events, not {tokens}")
    return seen.messages / elapsed, cpu / wall, client_cpu / elapsed


async def first_token_ms(client: LangGraphClient, tokens: int = 40) -> float:
    thread_id = await thread(client)
    started = time.perf_counter()
    seen = await stream_run(client, thread_id, tokens)
    if seen.first_at is None:
        raise RuntimeError("no messages event")
    return (seen.first_at - started) * 1000


async def reconnect_ms(client: LangGraphClient, tokens: int) -> tuple[float | None, int, bool]:
    """Milliseconds from ``join_stream(last_event_id=...)`` at mid-run to its first ``messages`` event (None
    when it sent none), how many it sent, and whether the run was still running when it was called."""
    thread_id = await thread(client)
    dropped = await stream_run(client, thread_id, tokens, stop_after=tokens // 2)
    assert dropped.run_id is not None
    status = (await client.runs.get(thread_id, dropped.run_id))["status"]
    started = time.perf_counter()
    first: float | None = None
    count = 0
    parts = client.runs.join_stream(
        thread_id, dropped.run_id, last_event_id=dropped.last_id, stream_mode="messages-tuple"
    )
    async with contextlib.aclosing(parts):
        async for part in parts:
            if part.event == "messages":
                first = first or time.perf_counter()
                count += 1
    return None if first is None else (first - started) * 1000, count, status == "running"


async def chat_stream(
    http: httpx.AsyncClient, request: httpx.Request, *, stop_after: int | None = None
) -> tuple[int, float | None, str | None]:
    """``token_delta`` events of one ``/chat`` stream (or a join of it), when the first came, the last event id;
    dropped after ``stop_after`` of them."""
    count, first_at, last_id = 0, None, None
    response = await http.send(request, stream=True)
    try:
        async for line in response.aiter_lines():
            if line.startswith("id: "):
                last_id = line[4:]
            elif line == "event: token_delta":
                count += 1
                first_at = first_at or time.perf_counter()
                if stop_after is not None and count >= stop_after:
                    break
    finally:
        await response.aclose()
    return count, first_at, last_id


def chat_turn(http: httpx.AsyncClient) -> httpx.Request:
    return http.build_request(
        "POST", "/chat", content=QUESTION, headers={"Accept": "text/event-stream", "Content-Type": "application/json"}
    )


async def measure_chat(tokens: int, turns: int, reconnect_tokens: int, reconnects: int, *, model: str) -> Figures:
    """The same figures of ``/chat`` on ``model`` (``langchain`` or ``firehose``, ``bench.models``): one server per
    answer length, since the model's is fixed per process."""
    figures = Figures()
    with ExitStack() as stack:
        long = stack.enter_context(Server("harness", f"{model}:{tokens}", replay_window=tokens + 100))
        short = stack.enter_context(Server("harness", f"{model}:40"))
        mid = stack.enter_context(Server("harness", f"{model}:{reconnect_tokens}"))
        async with contextlib.AsyncExitStack() as clients:
            http = {
                server.port: await clients.enter_async_context(
                    httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.port}", timeout=120)
                )
                for server in (long, short, mid)
            }
            await chat_stream(http[long.port], chat_turn(http[long.port]))  # warm-up
            meter = CpuMeter(long.pid)
            meter.start()
            client_cpu = time.process_time()
            started = time.perf_counter()
            count, _, _ = await chat_stream(http[long.port], chat_turn(http[long.port]))
            elapsed = time.perf_counter() - started
            cpu, wall = meter.stop()
            figures.rate, figures.cpu_share = count / elapsed, cpu / wall
            figures.client_share = (time.process_time() - client_cpu) / elapsed
            for turn in range(10 + turns):
                started = time.perf_counter()
                _, first_at, _ = await chat_stream(http[short.port], chat_turn(http[short.port]))
                if turn >= 10 and first_at is not None:
                    figures.first_token.append((first_at - started) * 1000)
            for _ in range(reconnects):
                client = http[mid.port]
                _, _, last_id = await chat_stream(client, chat_turn(client), stop_after=reconnect_tokens // 2)
                assert last_id is not None
                run_id = last_id.rpartition(":")[0]
                status = (await client.get(f"/runs/{run_id}")).json()["status"]
                join = client.build_request("GET", f"/runs/{run_id}/events", headers={"Last-Event-ID": last_id})
                started = time.perf_counter()
                count, first_at, _ = await chat_stream(client, join)
                if first_at is not None:
                    figures.reconnects.append((first_at - started) * 1000)
                figures.resumed.append(count)
                figures.running += status == "running"
    return figures


async def answered(name: str, step: Coroutine[Any, Any, _T], timeout_s: float = STEP_TIMEOUT_S) -> _T:
    """``step``'s result; a ``RuntimeError`` naming the server when it does not end in ``timeout_s`` (a stream
    that never ends would otherwise hold the whole benchmark)."""
    try:
        return await asyncio.wait_for(step, timeout_s)
    except TimeoutError:
        raise RuntimeError(f"{name}: no answer in {timeout_s:.0f} s") from None


async def measure_a2a(client: Client, server: Peer, tokens: int, figures: dict[str, Figures]) -> None:
    """The A2A stream's events/s on the server whose Agent Protocol figures were just measured: with the
    official client, then read with httpx alone."""
    print(f"throughput: {A2A}", flush=True)
    ours = figures[A2A] = Figures()
    ours.rate, ours.cpu_share, ours.client_share = await answered(
        A2A, a2a_stream.throughput(client, server.pid, tokens), STEP_TIMEOUT_S * 10
    )
    print(f"  {ours.rate:,.0f} events/s", flush=True)
    raw = figures[A2A_RAW] = Figures()
    raw.rate, raw.cpu_share, raw.client_share = await answered(
        A2A_RAW,
        a2a_stream.raw_throughput(f"http://127.0.0.1:{server.port}", GRAPH, server.pid, tokens),
        STEP_TIMEOUT_S * 10,
    )
    print(f"  {raw.rate:,.0f} events/s read with httpx", flush=True)


@dataclass
class Figures:
    rate: float = 0.0
    cpu_share: float = 0.0
    client_share: float = 0.0
    first_token: list[float] = field(default_factory=list)
    reconnects: list[float] = field(default_factory=list)
    resumed: list[int] = field(default_factory=list)
    running: int = 0


async def measure(
    servers: dict[str, Peer], tokens: int, turns: int, reconnect_tokens: int, reconnects: int
) -> dict[str, Figures]:
    clients = {name: get_client(url=f"http://127.0.0.1:{server.port}") for name, server in servers.items()}
    figures = {name: Figures() for name in servers}
    for name, client in clients.items():
        print(f"throughput: {name}", flush=True)
        figures[name].rate, figures[name].cpu_share, figures[name].client_share = await answered(
            name, throughput(client, servers[name], tokens), STEP_TIMEOUT_S * 10
        )
        print(f"  {figures[name].rate:,.0f} events/s", flush=True)
    a2a = (
        await a2a_stream.open_client(f"http://127.0.0.1:{servers['harness'].port}", GRAPH)
        if "harness" in servers
        else None
    )
    try:
        if a2a is not None:
            await measure_a2a(a2a[0], servers["harness"], tokens, figures)
        print("first token", flush=True)
        for turn in range(10 + turns):  # 10 warm-up turns
            for name, client in clients.items():
                first = await answered(name, first_token_ms(client))
                if turn >= 10:
                    figures[name].first_token.append(first)
            if a2a is not None:
                first = await answered(A2A, a2a_stream.first_token_ms(a2a[0]))
                if turn >= 10:
                    figures[A2A].first_token.append(first)
    finally:
        if a2a is not None:
            await a2a[1].aclose()
    print("reconnect", flush=True)
    for _ in range(reconnects):
        for name, client in clients.items():
            ms, count, running = await answered(name, reconnect_ms(client, reconnect_tokens))
            if ms is not None:
                figures[name].reconnects.append(ms)
            figures[name].resumed.append(count)
            figures[name].running += running
    return figures


def run(
    tokens: int = 20_000,
    turns: int = 100,
    reconnect_tokens: int = 2_000,
    reconnects: int = 10,
    peers: Sequence[str] = PEERS,
) -> Section:
    for name in peers:
        if name != "harness":
            peer_venv(name)
    with ExitStack() as stack:
        servers = {name: stack.enter_context(Peer(name, replay_window=tokens + 100)) for name in peers}
        figures = asyncio.run(measure(servers, tokens, turns, reconnect_tokens, reconnects))
    figures[CHAT] = asyncio.run(measure_chat(tokens, turns, reconnect_tokens, reconnects, model="langchain"))
    figures[CHAT_NATIVE] = asyncio.run(measure_chat(tokens, turns, reconnect_tokens, reconnects, model="firehose"))
    rows = [_row(name, f, reconnects) for name, f in figures.items()]
    header = (
        "server",
        f"events/s ({tokens:,} tokens)",
        "CPU server / client",
        "first token p50 (ms)",
        "p99 (ms)",
        "reconnect p50 (ms)",
        "max (ms)",
        "events after rejoin",
        "run still running",
    )
    return Section(
        title="Agent Protocol stream: this service against `langgraph dev` and Aegra, and beside `/chat`",
        intro=(
            f"`messages-tuple` over `POST /threads/{{id}}/runs/stream` with `langgraph_sdk`; first token over {turns} "
            f"runs of 40 tokens; reconnect: `join_stream` with `last_event_id` at the middle of a {reconnect_tokens:,}"
            f"-token run, {reconnects} times. The `/chat` rows: the same figures of this service's own stream "
            "(`token_delta` events; reconnect: `GET /runs/{id}/events` with `Last-Event-ID`), measured after, on "
            "the same LangChain chat model as the graph (the comparison of issue 35's targets) and on the support "
            "agent's own firehose model (what the service costs with no chat model's machinery in the way). The A2A "
            "rows (issue 38): `SendStreamingMessage` to `/a2a/firehose` of the same server right after its Agent "
            "Protocol figures, with the official a2a-sdk client, counting the model's chunks delivered, as the Agent "
            "Protocol rows do (the chunks committed together come in one `statusUpdate`, their text joined; first "
            "token among the same turns); then the same stream read with httpx, counting the chunks in the status "
            "updates' `data:` lines unparsed. No A2A reconnect is measured here."
        ),
        tables=[table(header, rows), *_targets(figures)],
        notes=[_ratios(figures)],
    )


def _row(name: str, f: Figures, reconnects: int) -> tuple[str, ...]:
    measured = name not in (A2A, A2A_RAW)
    return (
        LABELS[name],
        f"{f.rate:,.0f}",
        f"{100 * f.cpu_share:.0f}% / {100 * f.client_share:.0f}%",
        f"{percentile(f.first_token, 50):.1f}" if f.first_token else "-",
        f"{percentile(f.first_token, 99):.1f}" if f.first_token else "-",
        (f"{percentile(f.reconnects, 50):.1f}" if f.reconnects else "none resumed") if measured else "-",
        f"{max(f.reconnects):.1f}" if f.reconnects else "-",
        f"{min(f.resumed):,}-{max(f.resumed):,}" if f.resumed else "-",
        f"{f.running}/{reconnects}" if measured else "-",
    )


def targets(figures: dict[str, Figures]) -> list[tuple[str, str, bool]]:
    """Issues 35's and 38's targets, from this run: the Agent Protocol path against ``/chat`` on the same chat
    model, and the A2A stream against the Agent Protocol stream of the same server."""
    ours, chat, a2a = figures.get("harness"), figures.get(CHAT), figures.get(A2A)
    found = []
    if ours is not None and a2a is not None:
        rate = a2a.rate / ours.rate
        found.append(
            (
                "A2A streamed events/s >= 0.8x Agent Protocol (same server, same graph; issue 38)",
                f"{rate:.2f}x",
                rate >= 0.8,
            )
        )
    if ours is None or chat is None or not ours.first_token or not chat.first_token:
        return found
    rate = ours.rate / chat.rate
    first = percentile(ours.first_token, 50) - percentile(chat.first_token, 50)
    found += [
        ("Agent Protocol `runs.stream` events/s >= 0.8x `/chat` (same chat model)", f"{rate:.2f}x", rate >= 0.8),
        ("Agent Protocol first token p50 <= `/chat` + 2 ms", f"`/chat` {first:+.2f} ms", first <= 2.0),
    ]
    if ours.reconnects:
        reconnect = percentile(ours.reconnects, 50)
        found.append(
            (
                "Agent Protocol reconnect (`join_stream`, Last-Event-ID) p50 <= 5 ms",
                f"{reconnect:.1f} ms",
                reconnect <= 5,
            )
        )
    return found


def _targets(figures: dict[str, Figures]) -> list[str]:
    met = targets(figures)
    if not met:
        return []
    return [
        table(
            ("target (issues 35, 38)", "measured", "met"),
            [(name, value, "yes" if ok else "no") for name, value, ok in met],
        )
    ]


def _ratios(figures: dict[str, Figures]) -> str:
    """This service's figures over each peer's (and the Agent Protocol path's over ``/chat``), from this run."""
    ours = figures.get("harness")
    if ours is None:
        return ""
    lines = []
    for name in (A2A, A2A_RAW):
        if name in figures:
            theirs = figures[name]
            first = (
                f", first token p50 {percentile(theirs.first_token, 50) / percentile(ours.first_token, 50):.2f}x "
                "(below 1: sooner)"
                if theirs.first_token and ours.first_token
                else ""
            )
            lines.append(
                f"- {LABELS[name]} against the Agent Protocol stream of the same server: events/s "
                f"{theirs.rate / ours.rate:.2f}x (above 1: more){first}; CPU per event, server / client: "
                f"{_cpu_per_event(theirs)} against {_cpu_per_event(ours)}"
            )
    for name, theirs in figures.items():
        if name in ("harness", A2A, A2A_RAW) or not theirs.first_token:
            continue
        versus = "the Agent Protocol path against" if name == CHAT else "this service against"
        reconnect = (
            f"reconnect p50 {percentile(ours.reconnects, 50) / percentile(theirs.reconnects, 50):.2f}x"
            if ours.reconnects and theirs.reconnects
            else "reconnect: -"
        )
        lines.append(
            f"- {versus} {LABELS[name]}: events/s {ours.rate / theirs.rate:.2f}x (above 1: more), first token p50 "
            f"{percentile(ours.first_token, 50) / percentile(theirs.first_token, 50):.2f}x, {reconnect} "
            "(below 1: sooner)"
        )
    return "\n".join(lines)


def _cpu_per_event(figures: Figures) -> str:
    """The server's and the client's CPU microseconds per event: what a machine shared with other work changes
    less than the rate."""
    return f"{1e6 * figures.cpu_share / figures.rate:.0f} / {1e6 * figures.client_share / figures.rate:.0f} µs"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokens", type=int, default=20_000)
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--reconnect-tokens", type=int, default=2_000)
    parser.add_argument("--reconnects", type=int, default=10)
    parser.add_argument("--peers", nargs="+", choices=PEERS, default=PEERS, help="the servers to measure")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    pin_client()
    print(run(args.tokens, args.turns, args.reconnect_tokens, args.reconnects, args.peers).markdown())


if __name__ == "__main__":
    main()
