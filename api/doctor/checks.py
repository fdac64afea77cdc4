"""The doctor's checks, in the order a client meets them; each says what it saw and, if needed, what to fix.

Two of them tell a buffering proxy apart. The streamed turn compares when its tokens arrived with when the
server sent them (``at``): a proxy that holds the stream delivers them in one burst. That needs a model
slow enough to measure, so the waiting turn decides: a turn that pauses for approval keeps its stream open,
and once ``POST /chat`` has answered that it waits, its stream (``GET /runs/{id}/events``, what
``EventSource`` follows) must deliver the ``paused`` event; through a proxy that holds the stream it does
not, however long one waits.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import httpx

from api.doctor.report import Finding
from api.doctor.stream import TimedFrame, timed_frames

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

__all__ = ("Options", "diagnose")

QUESTION = "How do I reset my password?"
NEEDS_APPROVAL = "Please refund invoice INV-1001."
SSE = {"Accept": "text/event-stream"}
BURST_RATIO = 0.1
"""Tokens that arrive within this share of the time the server took to send them came in one burst."""
MIN_SPREAD_S = 0.5
"""Below this, the model streamed too fast for arrival times to tell buffering from speed."""
_POLL_S = 0.05
_TERMINAL = ("turn_completed", "error")

BUFFERING_FIX = (
    "a proxy holds the event stream back. nginx: the service sends `X-Accel-Buffering: no`, which makes "
    "nginx pass every event on at once (through gzip too); do not list it in `proxy_ignore_headers`, or set "
    "`proxy_buffering off` for these routes. Other proxies and CDNs: turn response buffering and "
    "compression buffering off for `text/event-stream`."
)


@dataclass(frozen=True, slots=True)
class Options:
    timeout_s: float = 10.0
    """How long an event the service has sent may take to arrive before the stream counts as held back."""
    heartbeat_wait_s: float = 20.0
    """How long to wait for a heartbeat on a waiting stream (above the service's ``HARNESS_HEARTBEAT_S``)."""
    turn_timeout_s: float = 120.0
    """How long one turn may take."""


async def diagnose(url: str, options: Options | None = None) -> list[Finding]:
    options = options or Options()
    timeout = httpx.Timeout(options.turn_timeout_s, connect=options.timeout_s)
    async with httpx.AsyncClient(base_url=url.rstrip("/"), timeout=timeout) as client:
        health = await _health(client)
        if health.verdict == "fail":
            return [health]
        findings = [health, await _json_turn(client)]
        try:
            streamed = await asyncio.wait_for(_streamed_turn(client, findings), options.turn_timeout_s)
        except TimeoutError:
            streamed = []
            detail = f"a streamed turn did not end within {options.turn_timeout_s:g} s"
            findings.append(Finding(check="stream", verdict="fail", detail=detail, fix=BUFFERING_FIX))
        if streamed:
            findings += await _replay(client, streamed)
        findings += await _waiting_turn(client, options)
    return findings


async def _health(client: httpx.AsyncClient) -> Finding:
    try:
        response = await client.get("/healthz")
    except httpx.HTTPError as exc:
        return Finding(check="health", verdict="fail", detail=f"GET /healthz failed: {exc!r}", fix=_REACH_FIX)
    if response.status_code != 200:
        return Finding(
            check="health", verdict="fail", detail=f"GET /healthz answered {response.status_code}", fix=_REACH_FIX
        )
    return Finding(check="health", verdict="ok", detail="GET /healthz answered 200")


_REACH_FIX = "check the URL, and that the proxy forwards every path to the service"


async def _json_turn(client: httpx.AsyncClient) -> Finding:
    response = await client.post("/chat", json={"message": QUESTION}, headers={"Accept": "application/json"})
    kind = response.headers.get("content-type", "")
    if response.status_code != 200 or not kind.startswith("application/json"):
        return Finding(
            check="json",
            verdict="fail",
            detail=f"POST /chat with Accept: application/json answered {response.status_code} {kind or '(no type)'}",
            fix="the proxy must pass the Accept header and the response through unchanged",
        )
    return Finding(check="json", verdict="ok", detail=f"a JSON turn answered 200, status {response.json()['status']}")


async def _streamed_turn(client: httpx.AsyncClient, findings: list[Finding]) -> list[TimedFrame]:
    """Stream a turn; add the negotiation and token-timing findings; answer its event frames."""
    async with client.stream("POST", "/chat", json={"message": QUESTION}, headers=SSE) as response:
        kind = response.headers.get("content-type", "")
        if response.status_code != 200 or not kind.startswith("text/event-stream"):
            findings.append(
                Finding(
                    check="negotiation",
                    verdict="fail",
                    detail=f"Accept: text/event-stream answered {response.status_code} {kind or '(no type)'}",
                    fix="the proxy must pass the Accept header through: it decides between JSON and a stream",
                )
            )
            return []
        cache = response.headers.get("cache-control", "")
        frames = [frame async for frame in timed_frames(response) if frame.envelope is not None]
    if "no-cache" not in cache:
        findings.append(
            Finding(
                check="negotiation",
                verdict="warn",
                detail=f"an event stream, but Cache-Control is {cache or 'missing'!r}",
                fix="let the service's `Cache-Control: no-cache` through, so no cache stores a live stream",
            )
        )
    else:
        findings.append(Finding(check="negotiation", verdict="ok", detail="an event stream for text/event-stream"))
    if not frames or frames[-1].envelope is None or frames[-1].envelope["type"] not in _TERMINAL:
        findings.append(
            Finding(
                check="stream",
                verdict="fail",
                detail="the stream closed before the run's terminal event",
                fix="raise the proxy's read timeout (nginx: `proxy_read_timeout`) above a turn's duration",
            )
        )
        return []
    findings.append(_token_timing([frame for frame in frames if _type(frame) == "token_delta"]))
    return frames


def _token_timing(tokens: Sequence[TimedFrame]) -> Finding:
    if len(tokens) < 2:
        return Finding(check="incremental", verdict="warn", detail="too few tokens streamed to compare arrival times")
    sent = _seconds(_at(tokens[-1])) - _seconds(_at(tokens[0]))
    received = tokens[-1].arrived - tokens[0].arrived
    if sent < MIN_SPREAD_S:
        return Finding(
            check="incremental",
            verdict="ok",
            detail=f"{len(tokens)} tokens sent within {sent:.3f} s: too fast to compare (the waiting turn decides)",
        )
    if received < BURST_RATIO * sent:
        return Finding(
            check="incremental",
            verdict="fail",
            detail=f"{len(tokens)} tokens the server sent over {sent:.2f} s arrived in one burst ({received:.3f} s)",
            fix=BUFFERING_FIX,
        )
    return Finding(
        check="incremental",
        verdict="ok",
        detail=f"{len(tokens)} tokens the server sent over {sent:.2f} s arrived over {received:.2f} s",
    )


async def _replay(client: httpx.AsyncClient, frames: list[TimedFrame]) -> list[Finding]:
    first = frames[0].envelope
    assert first is not None
    run_id = first["run_id"]
    middle = frames[len(frames) // 2]
    cursor = f"{run_id}:{_seq(middle)}"
    async with client.stream("GET", f"/runs/{run_id}/events", headers={"Last-Event-ID": cursor}) as response:
        replayed = [frame.raw async for frame in timed_frames(response) if frame.envelope is not None]
    expected = [frame.raw for frame in frames if _seq(frame) > _seq(middle)]
    if replayed != expected:
        if replayed and replayed[0] == frames[0].raw:
            detail, fix = (
                "a reconnect with Last-Event-ID got the run from its start",
                "forward the Last-Event-ID header",
            )
        else:
            detail, fix = "a reconnect with Last-Event-ID did not get exactly the events after it", _REACH_FIX
        return [Finding(check="replay", verdict="fail", detail=detail, fix=fix)]
    end = await client.get(f"/runs/{run_id}/events", headers={"Last-Event-ID": f"{run_id}:{_seq(frames[-1])}"})
    if end.status_code != 204:
        return [
            Finding(
                check="replay",
                verdict="fail",
                detail=f"a cursor at the run's terminal event answered {end.status_code}, not 204",
                fix="pass 204 No Content through: it is what stops a browser's EventSource from reconnecting",
            )
        ]
    return [Finding(check="replay", verdict="ok", detail=f"Last-Event-ID {cursor} replayed the rest; the end is 204")]


async def _waiting_turn(client: httpx.AsyncClient, options: Options) -> list[Finding]:
    """A run that waits for a person: its stream (what ``EventSource`` follows) must deliver at once."""
    answer = await client.post("/chat", json={"message": NEEDS_APPROVAL}, headers={"Accept": "application/json"})
    paused: dict[str, Any] = answer.json() if answer.status_code == 200 else {}
    if paused.get("status") != "paused":
        return [Finding(check="waiting", verdict="warn", detail="the approval turn did not pause; not checked")]
    run_id = paused["run_id"]
    frames: list[TimedFrame] = []
    follower = asyncio.create_task(_follow(client, run_id, frames))
    try:
        waiting_at = (await client.get(f"/runs/{run_id}")).json()["last_seq"]
        if not await _within(options.timeout_s, lambda: any(_seq(f) >= waiting_at for f in frames)):
            delivered = max((_seq(f) for f in frames), default=0)
            seen = f"a run waits at seq {waiting_at}; its stream delivered up to seq {delivered}"
            return [_held_back(seen, options)]
        paused_at = next(f.arrived for f in frames if _seq(f) >= waiting_at)
        opened = "a waiting run's stream delivered its `paused` event and stayed open"
        beat = await _within(
            options.heartbeat_wait_s, lambda: any(f.is_heartbeat and f.arrived >= paused_at for f in frames)
        )
        return [Finding(check="waiting", verdict="ok", detail=opened), _heartbeat_finding(beat, options)]
    finally:
        with contextlib.suppress(httpx.HTTPError):
            await client.post(f"/runs/{run_id}/cancel")  # the doctor's refund is never approved
        follower.cancel()
        with contextlib.suppress(asyncio.CancelledError, httpx.HTTPError):
            await follower


async def _follow(client: httpx.AsyncClient, run_id: str, frames: list[TimedFrame]) -> None:
    async with client.stream("GET", f"/runs/{run_id}/events") as response:
        async for frame in timed_frames(response):
            frames.append(frame)


def _held_back(detail: str, options: Options) -> Finding:
    return Finding(check="waiting", verdict="fail", detail=f"{detail} after {options.timeout_s:g} s", fix=BUFFERING_FIX)


def _heartbeat_finding(beat: bool, options: Options) -> Finding:
    if beat:
        return Finding(check="heartbeat", verdict="ok", detail="heartbeats (`: hb`) arrive on a waiting stream")
    return Finding(
        check="heartbeat",
        verdict="fail",
        detail=f"no heartbeat arrived within {options.heartbeat_wait_s:g} s on a waiting stream",
        fix=(
            "let SSE comment lines through unbuffered, and keep the proxy's idle timeout (nginx: "
            "`proxy_read_timeout`) above HARNESS_HEARTBEAT_S; or wait longer with --heartbeat-wait"
        ),
    )


async def _within(timeout_s: float, condition: Callable[[], bool]) -> bool:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(_POLL_S)
    return True


def _type(frame: TimedFrame) -> str | None:
    envelope = frame.envelope
    return None if envelope is None else str(envelope["type"])


def _seq(frame: TimedFrame) -> int:
    envelope = frame.envelope
    return 0 if envelope is None else int(envelope["seq"])


def _at(frame: TimedFrame) -> str:
    envelope = frame.envelope
    assert envelope is not None
    return str(envelope["at"])


def _seconds(at: str) -> float:
    return datetime.fromisoformat(at).timestamp()
