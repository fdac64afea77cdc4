"""The JSON of the parts a graph streams, pinned byte for byte for representative chunks: message chunks with
their metadata, a card number split across chunks, tool call chunks, usage metadata, whole messages, custom
writes, callback events and parts too large for the log. The translation may get faster; its output may not
change."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
from langchain_core.messages import AIMessage, AIMessageChunk, ToolMessage

from agent.clock import SteppingClock
from agent.graphs.translate import PartTranslator

if TYPE_CHECKING:
    from collections.abc import Iterator

CARD = "4111 1111 1111 1111"
KEY = "sk-live-0123456789abcdefABCDEF"


def metadata(node: str = "model") -> dict[str, Any]:
    """What LangGraph's messages handler attaches to each chunk of one model call (one dict for all of them)."""
    return {
        "thread_id": "t-1",
        "langgraph_step": 1,
        "langgraph_node": node,
        "langgraph_triggers": ["branch:to:model"],
        "langgraph_path": ("__pregel_pull", node),
        "langgraph_checkpoint_ns": f"{node}:9f0c2a4e-0000-4000-8000-000000000001",
        "checkpoint_ns": f"{node}:9f0c2a4e-0000-4000-8000-000000000001",
        "ls_provider": "openai",
        "ls_model_name": "gpt-test",
        "ls_model_type": "chat",
        "ls_temperature": 0.5,
        "tags": [],
        "secret": f"use {KEY} and card {CARD}",
        f"key {CARD}": True,
    }


def text_chunks() -> Iterator[dict[str, Any]]:
    shared = metadata()
    pieces = ["My card ", "is 4111 ", "1111 1111", " 1111, ", "thanks. "]
    for index, piece in enumerate(pieces):
        yield {"type": "messages", "ns": (), "data": (AIMessageChunk(content=piece, id="lc_run--m-1"), shared)}
        if index == 1:
            yield {"type": "custom", "ns": (), "data": {"progress": index, "note": f"card {CARD}"}}
    last = AIMessageChunk(
        content="Bye.",
        id="lc_run--m-1",
        chunk_position="last",
        response_metadata={"finish_reason": "stop", "model_name": "gpt-test", "created": 1_700_000_000},
        usage_metadata={"input_tokens": 12, "output_tokens": 7, "total_tokens": 19},
    )
    yield {"type": "messages", "ns": (), "data": (last, shared)}
    for piece in ["Hello, ", "everyone ", "listening ", "today."]:
        yield {"type": "messages", "ns": (), "data": (AIMessageChunk(content=piece, id="lc_run--m-8"), shared)}
    yield {
        "type": "messages",
        "ns": (),
        "data": (AIMessageChunk(content="", id="lc_run--m-8", chunk_position="last"), shared),
    }


def tool_call_chunks() -> Iterator[dict[str, Any]]:
    shared = metadata("agent")
    args = ['{"card": "4111 1111', ' 1111 1111", "n"', ": 2}"]
    for index, piece in enumerate(args):
        calls = [
            {
                "name": "lookup" if index == 0 else None,
                "args": piece,
                "id": "call-1" if index == 0 else None,
                "index": 0,
            }
        ]
        chunk = AIMessageChunk(content="", id="lc_run--m-2", tool_call_chunks=calls)  # type: ignore[arg-type]
        yield {"type": "messages", "ns": ("agent:abc",), "data": (chunk, shared)}
    last = AIMessageChunk(
        content="",
        id="lc_run--m-2",
        chunk_position="last",
        additional_kwargs={"refusal": None, "extra": {"nested": [1, 2.5, "x"]}},
        response_metadata={"finish_reason": "tool_calls"},
    )
    yield {"type": "messages", "ns": ("agent:abc",), "data": (last, shared)}


def other_parts() -> Iterator[dict[str, Any]]:
    odd = {**metadata("tools"), "when": dt.datetime(2026, 12, 2, 18, 0, tzinfo=dt.UTC), "run": uuid.UUID(int=7)}
    yield {"type": "messages", "ns": (), "data": (ToolMessage(f"stored {CARD}", tool_call_id="call-1", id="t-9"), odd)}
    yield {"type": "messages", "ns": (), "data": (AIMessage(f"done {KEY}", id="m-3"), metadata())}
    list_content = AIMessageChunk(content=[{"type": "text", "text": f"card {CARD}"}], id="lc_run--m-4")
    yield {"type": "messages", "ns": (), "data": (list_content, metadata())}
    yield {
        "type": "messages",
        "ns": (),
        "data": (AIMessageChunk(content="long " + "x" * 5000, id="lc_run--m-5"), metadata()),
    }
    huge = {**metadata(), "blob": "y" * 5000}
    yield {"type": "messages", "ns": (), "data": (AIMessageChunk(content="hi there", id="lc_run--m-6"), huge)}
    yield {"type": "custom", "ns": ("a:1",), "data": ["plain", 1, None, {"set": {"b", "a"}}]}


def events() -> Iterator[dict[str, Any]]:
    chunk = AIMessageChunk(content="card 4111 1111 ", id="lc_run--m-7")
    yield {
        "event": "on_chat_model_stream",
        "name": "FakeModel",
        "run_id": "r-1",
        "parent_ids": ["p-1"],
        "tags": ["seq:step:1"],
        "metadata": metadata(),
        "data": {"chunk": chunk},
    }
    last = AIMessageChunk(content="1111 1111", id="lc_run--m-7", chunk_position="last")
    yield {
        "event": "on_chat_model_stream",
        "name": "FakeModel",
        "run_id": "r-1",
        "parent_ids": ["p-1"],
        "tags": [],
        "metadata": metadata(),
        "data": {"chunk": last},
    }


def encoded(translator: PartTranslator, parts: Iterator[dict[str, Any]]) -> list[str]:
    return [msgspec.json.encode(event).decode() for part in parts for event in translator.translate(part)]  # type: ignore[arg-type]


def encoded_events(translator: PartTranslator, items: Iterator[dict[str, Any]]) -> list[str]:
    return [msgspec.json.encode(event).decode() for item in items for event in translator.translate_event(item)]


PINNED: dict[str, list[str]] = json.loads((Path(__file__).parent / "translate_pinned.json").read_text())
"""The events' JSON as the translator wrote it before it was made faster (issue 26), for the parts above."""


def test_message_chunks_and_custom_writes_are_the_pinned_json() -> None:
    translator = PartTranslator(SteppingClock(), ["messages", "custom"])

    assert encoded(translator, text_chunks()) == PINNED["TEXT"]
    assert encoded(translator, tool_call_chunks()) == PINNED["TOOLS"]
    assert encoded(translator, other_parts()) == PINNED["OTHER"]


def test_parts_over_the_limit_are_cut_as_pinned() -> None:
    translator = PartTranslator(SteppingClock(), ["messages"], limit_bytes=700)

    assert encoded(translator, text_chunks()) == PINNED["SMALL"]


def test_callback_events_carry_the_pinned_chunks() -> None:
    translator = PartTranslator(SteppingClock(), ["events"])

    assert encoded_events(translator, events()) == PINNED["EVENTS"]


def test_no_card_number_or_key_in_any_pinned_event() -> None:
    text = json.dumps(PINNED)

    assert "4111" not in text
    assert KEY not in text


def test_metadata_changed_in_place_between_chunks_is_converted_again() -> None:
    translator = PartTranslator(SteppingClock(), ["messages"])
    shared = metadata()
    first = AIMessageChunk(content="Hello ", id="lc_run--m-9")
    second = AIMessageChunk(content="everyone", id="lc_run--m-9", chunk_position="last")

    before = translator.translate({"type": "messages", "ns": (), "data": (first, shared)})
    shared["secret"] = f"now {CARD}"
    shared["langgraph_step"] = True
    after = translator.translate({"type": "messages", "ns": (), "data": (second, shared)})

    assert before[0].data[1]["secret"] == "use [REDACTED KEY] and card [REDACTED CARD]"  # type: ignore[union-attr]
    assert after[0].data[1]["secret"] == "now [REDACTED CARD]"  # type: ignore[union-attr]
    assert after[0].data[1]["langgraph_step"] is True  # type: ignore[union-attr]
