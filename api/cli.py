"""The ``harness`` command: ``serve`` the API, ``ask`` one question in-process, and more."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING

import msgspec

from agent.config import ConfigError

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ("main",)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="harness", description="An AI agent whose every turn can be watched live.")
    commands = parser.add_subparsers(dest="command", required=True)

    serve_command = commands.add_parser("serve", help="run the API with uvicorn (honours the HARNESS_* variables)")
    serve_command.add_argument("--host", help="overrides HARNESS_HOST")
    serve_command.add_argument("--port", type=int, help="overrides HARNESS_PORT")

    ask = commands.add_parser("ask", help="run one turn in-process and print its ChatResponse as JSON")
    ask.add_argument("question")
    ask.add_argument("--session", help="continue this session")

    args = parser.parse_args(argv)
    try:
        if args.command == "serve":
            from api.server import serve

            return serve(host=args.host, port=args.port)
        return asyncio.run(_ask(args.question, args.session))
    except ConfigError as exc:
        print(f"harness: {exc}", file=sys.stderr)
        return 2


async def _ask(question: str, session_id: str | None) -> int:
    from agent import open_agent, run_turn
    from agent.clock import RandomIds
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
        response = await run_turn(
            agent, request.message, session_id=request.session_id or ids.new("s"), run_id=ids.new("r")
        )
    sys.stdout.write(msgspec.json.format(msgspec.json.encode(response).decode(), indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
