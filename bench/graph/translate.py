"""How fast the Agent Protocol path turns a model's streamed chunks into durable events, in process.

``python -m bench.graph.translate --chunks 20000 --rounds 5``: one ``PartTranslator`` (modes ``messages``)
translates the ``messages`` parts of one model call of ``--chunks`` chunks of ``"token "`` (as the firehose
graph streams them), each with the one metadata dict LangGraph attaches to all the chunks of a call, and the
message's last chunk; prints the median chunks/s over the rounds. No server, no log: only the translation.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from langchain_core.messages import AIMessageChunk

from agent.clock import SteppingClock
from agent.graphs.translate import PartTranslator

__all__ = ("chunks_per_second", "main")


def _parts(count: int) -> list[dict[str, Any]]:
    metadata = {
        "thread_id": "6f1c0b7e-2f7a-4c55-9d1e-0c3b0f6b9a11",
        "langgraph_step": 1,
        "langgraph_node": "model",
        "langgraph_triggers": ["branch:to:model"],
        "langgraph_path": ("__pregel_pull", "model"),
        "langgraph_checkpoint_ns": "model:9f0c2a4e-0000-4000-8000-000000000001",
        "checkpoint_ns": "model:9f0c2a4e-0000-4000-8000-000000000001",
        "ls_provider": "firehose",
        "ls_model_type": "chat",
        "tags": [],
    }
    message_id = "lc_run--1f0c2a4e-0000-4000-8000-000000000002"
    chunks = [AIMessageChunk(content="token ", id=message_id) for _ in range(count)]
    chunks.append(AIMessageChunk(content="", id=message_id, chunk_position="last"))
    return [{"type": "messages", "ns": (), "data": (chunk, metadata)} for chunk in chunks]


def chunks_per_second(count: int) -> float:
    parts = _parts(count)
    translator = PartTranslator(SteppingClock(), ["messages"])
    started = time.perf_counter()
    for part in parts:
        translator.translate(part)  # type: ignore[arg-type]
    return len(parts) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    rates = [chunks_per_second(args.chunks) for _ in range(args.rounds)]
    spread = f"min {min(rates):,.0f}, max {max(rates):,.0f}"
    print(f"{statistics.median(rates):,.0f} chunks/s (median of {args.rounds}; {spread})")


if __name__ == "__main__":
    main()
