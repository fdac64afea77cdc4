"""The ``harness`` command.

harness serve [--provider local]   the API under uvicorn (HARNESS_* variables; `local` starts the real model)
harness ask "question"             one turn in-process, printed as its ChatResponse
harness eval [--gate] ...          the eval dataset through the graph, with reports and the quality gate
harness eval capture RUN_ID...     finished runs as dataset cases (--dataset FILE); eval redteam, compare too
harness eval online --since 24h    online scores of production runs with intervals (--baseline-since: drift)
harness docs [--check]             regenerate docs/ (OpenAPI, events.md, JSON Schemas, AsyncAPI)
harness doctor --url URL           check a deployment from outside: negotiation, streaming through proxies, replay
harness purge --older-than 30d     remove what finished before then (runs, events, checkpoints, interactions)
harness rotate-key                 seal everything stored under HARNESS_ENCRYPTION_KEY (old keys, plain values)
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from agent import ConfigError
from agent.stores import StoreUnavailable

if TYPE_CHECKING:
    from collections.abc import Sequence
    from contextlib import AbstractAsyncContextManager

    from agent.evaluation import RunSource

__all__ = ("main",)

DOCS_DIR = Path(__file__).resolve().parents[1] / "docs"


def main(argv: Sequence[str] | None = None) -> int:
    from agent.evaluation import add_eval_parser, run_eval_command

    parser = argparse.ArgumentParser(prog="harness", description="An AI agent whose every turn can be watched live.")
    commands = parser.add_subparsers(dest="command", required=True)

    serve_command = commands.add_parser("serve", help="run the API with uvicorn (honours the HARNESS_* variables)")
    serve_command.add_argument("--host", help="overrides HARNESS_HOST")
    serve_command.add_argument("--port", type=int, help="overrides HARNESS_PORT")
    serve_command.add_argument(
        "--config", type=Path, help="a langgraph.json whose graphs are served beside the support agent (HARNESS_CONFIG)"
    )
    serve_command.add_argument(
        "--provider", help="overrides HARNESS_LLM_PROVIDER; `local` also starts the bundled SmolLM2 model server"
    )

    ask = commands.add_parser("ask", help="run one turn in-process and print its ChatResponse as JSON")
    ask.add_argument("question")
    ask.add_argument("--session", help="continue this session")

    add_eval_parser(commands).set_defaults(open_run_source=_open_run_source)

    docs = commands.add_parser("docs", help="regenerate docs/ from the code (OpenAPI, events, schemas, AsyncAPI)")
    docs.add_argument("--check", action="store_true", help="write nothing; exit 1 if docs/ differs from the code")
    docs.add_argument("--out", type=Path, default=DOCS_DIR, help="the docs directory (default: the repository's)")

    doctor = commands.add_parser(
        "doctor", help="check a deployment from outside (negotiation, incremental delivery, heartbeats, replay)"
    )
    doctor.add_argument("--url", required=True, help="the service's base URL, as clients reach it")
    doctor.add_argument(
        "--timeout", type=float, default=10.0, help="seconds an event already sent may take to arrive (default 10)"
    )
    doctor.add_argument(
        "--heartbeat-wait", type=float, default=20.0, help="seconds to wait for a heartbeat (default 20)"
    )

    purge = commands.add_parser(
        "purge",
        help="remove finished runs older than a duration, with their events, interactions and emptied sessions",
    )
    purge.add_argument(
        "--older-than",
        required=True,
        type=_duration,
        metavar="AGE",
        help="how long ago a run must have finished: a number with d, h, m or s (30d, 12h, 0s)",
    )
    purge.add_argument("--batch", type=int, default=500, help="runs removed per step (default 500)")

    rotate = commands.add_parser(
        "rotate-key",
        help="re-seal every stored value under HARNESS_ENCRYPTION_KEY: those under HARNESS_ENCRYPTION_OLD_KEYS, "
        "and plain ones written before a key was set",
    )
    rotate.add_argument("--batch", type=int, default=500, help="rows re-sealed per transaction (default 500)")

    args = parser.parse_args(argv)
    try:
        if args.command == "serve":
            from api.server import serve

            return serve(host=args.host, port=args.port, provider=args.provider, config=args.config)
        if args.command == "eval":
            return run_eval_command(args)
        if args.command == "docs":
            return _docs(args.out, check=args.check)
        if args.command == "doctor":
            return _doctor(args.url, timeout_s=args.timeout, heartbeat_wait_s=args.heartbeat_wait)
        if args.command == "purge":
            return asyncio.run(_purge(args.older_than, max(1, args.batch)))
        if args.command == "rotate-key":
            return asyncio.run(_rotate_key(max(1, args.batch)))
        return asyncio.run(_ask(args.question, args.session))
    except (ConfigError, StoreUnavailable) as exc:
        print(f"harness: {exc}", file=sys.stderr)
        return 2


def _open_run_source() -> AbstractAsyncContextManager[RunSource]:
    """The service's run store, from the same settings as ``harness serve``, for ``harness eval capture``."""
    from api.runs.capture_source import open_capture_source
    from api.settings import Settings

    return open_capture_source(Settings.from_env().runs)


def _docs(directory: Path, *, check: bool) -> int:
    from api.docs import stale_docs, write_docs

    if not check:
        for path in write_docs(directory):
            print(path)
        return 0
    stale = stale_docs(directory)
    for name in stale:
        print(f"harness: docs/{name} differs from what the code generates; run `harness docs`", file=sys.stderr)
    return 1 if stale else 0


def _doctor(url: str, *, timeout_s: float, heartbeat_wait_s: float) -> int:
    from api.doctor import diagnose, render
    from api.doctor.checks import Options

    findings = asyncio.run(diagnose(url, Options(timeout_s=timeout_s, heartbeat_wait_s=heartbeat_wait_s)))
    sys.stdout.write(render(url, findings))
    return 1 if any(finding.verdict == "fail" for finding in findings) else 0


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([dhms])\s*$")
_UNIT_S = {"d": 86_400, "h": 3_600, "m": 60, "s": 1}


def _duration(text: str) -> float:
    """``30d``, ``12h``, ``90m``, ``0s`` in seconds."""
    found = _DURATION.match(text)
    if found is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration such as 30d, 12h, 90m or 0s")
    return float(found[1]) * _UNIT_S[found[2]]


async def _purge(older_than_s: float, batch: int) -> int:
    """What the service's retention loop removes, on demand: with the runs and sessions, the crons of the threads
    it empties and the webhook deliveries of the runs."""
    from agent.stores import open_stores
    from api.crons import open_cron_store
    from api.runs.erasure import StoreEraser
    from api.runs.retention import cutoff
    from api.runs.stores import open_run_stores
    from api.settings import Settings
    from api.webhooks import open_webhook_outbox

    settings = Settings.from_env()
    before = cutoff(time.time_ns(), older_than_s)
    data_dir = settings.agent.data_dir
    async with (
        open_stores(settings.agent) as stores,
        open_run_stores(settings.runs, stores) as (log, _),
        open_cron_store(stores, data_dir) as crons,
        open_webhook_outbox(stores, data_dir) as outbox,
    ):
        await log.open(lambda run_id, seq: None, lambda run_id: None)
        try:
            forgotten = await StoreEraser(log, stores, crons, outbox).purge(before, batch)
        finally:
            await log.close()
    print(f"purged what finished before {before}:")
    print(f"  runs          {forgotten.runs}")
    print(f"  events        {forgotten.events}")
    print(f"  sessions      {forgotten.sessions}  (their checkpoints: none of their runs is left)")
    print(f"  interactions  {forgotten.interactions}")
    return 0


async def _rotate_key(batch: int) -> int:
    """Everything the stores hold, under the current key; resumable (what is done already is skipped)."""
    from agent import key_id
    from agent.stores import open_stores
    from agent.stores.reseal import reseal_agent_stores
    from api.runs.log.reseal import reseal_run_stores
    from api.runs.stores import open_run_stores
    from api.settings import Settings

    settings = Settings.from_env()
    key = settings.agent.encryption_key
    if key is None:
        raise ConfigError(
            "rotate-key seals under HARNESS_ENCRYPTION_KEY: set it to the new key, and the keys values may be "
            "sealed under now in HARNESS_ENCRYPTION_OLD_KEYS"
        )
    async with open_stores(settings.agent, rotating=True) as stores:
        async with open_run_stores(settings.runs, stores) as (log, _):
            await log.open(lambda run_id, seq: None, lambda run_id: None)  # its schema, and its key check
            await log.close()
        resealed = await reseal_agent_stores(settings.agent.data_dir, stores, batch)
        for label, count in (await reseal_run_stores(settings.runs, stores, batch)).items():
            resealed[label] = resealed.get(label, 0) + count
    print(f"re-sealed under the key with id {key_id(key).hex()}:")
    for label, count in resealed.items():
        print(f"  {label:<13} {count}")
    print("every stored value is sealed under HARNESS_ENCRYPTION_KEY: HARNESS_ENCRYPTION_OLD_KEYS is no longer needed")
    return 0


async def _ask(question: str, session_id: str | None) -> int:
    from agent import RandomIds, open_agent, run_turn
    from agent.llm import LLMError
    from api.settings import Settings
    from contracts import ChatRequest

    try:
        request = msgspec.convert({"message": question, "session_id": session_id}, ChatRequest)
    except msgspec.ValidationError as exc:
        print(f"harness: {exc}", file=sys.stderr)
        return 2
    settings = Settings.from_env()
    ids = RandomIds()
    async with open_agent(settings.agent, ids=ids) as agent:
        try:
            response = await run_turn(
                agent, request.message, session_id=request.session_id or ids.new("s"), run_id=ids.new("r")
            )
        except LLMError as exc:
            print(f"harness: the model failed ({exc.code}): {exc}", file=sys.stderr)
            return 1
    sys.stdout.write(msgspec.json.format(msgspec.json.encode(response).decode(), indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
