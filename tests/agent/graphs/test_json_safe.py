"""Whatever a graph streams becomes JSON the log can hold: the Agent Server's shapes, redacted, bounded."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import ipaddress
import uuid
from collections import deque
from decimal import Decimal
from pathlib import PurePosixPath
from typing import NamedTuple

import msgspec
import pydantic
from langchain_core.messages import AIMessageChunk, HumanMessage
from langgraph.errors import InvalidUpdateError
from langgraph.types import Interrupt, Send

from agent.graphs import to_json_safe
from agent.graphs.json_safe import MAX_DEPTH, PreparedValues

CARD = "4111 1111 1111 1111"
KEY = "sk-live-0123456789abcdefABCDEF"


class Colour(enum.Enum):
    RED = "red"


class Point(NamedTuple):
    x: int
    y: int


@dataclasses.dataclass
class Order:
    order_id: str
    lines: list[str]


class Customer(pydantic.BaseModel):
    name: str
    card: str


class Note(msgspec.Struct):
    text: str


def test_the_agent_servers_shapes() -> None:
    value = {
        "message": HumanMessage("hi", id="h-1"),
        "interrupt": Interrupt(value={"question": "ok?"}, id="i-1"),
        "send": Send("step", {"n": 1}),
        "order": Order("A-1", ["jacket"]),
        "point": Point(1, 2),
        "tuple": (1, "two"),
        "set": {"b", "a", "c"},
        "frozen": frozenset({3, 1, 2}),
        "mixed": {1, "a"},
        "deque": deque([1, 2]),
        "when": dt.datetime(2026, 11, 30, 4, 12, 59, 123456, tzinfo=dt.UTC),
        "day": dt.date(2026, 11, 30),
        "wait": dt.timedelta(seconds=1.5),
        "whole": Decimal(3),
        "part": Decimal("2.5"),
        "id": uuid.UUID("fe096781-5601-53d2-b2f6-0d3403f7e9ca"),
        "path": PurePosixPath("/tmp/x"),
        "ip": ipaddress.ip_address("127.0.0.1"),
        "colour": Colour.RED,
        "bytes": b"\x00\x01",
        "nan": float("nan"),
        "inf": float("inf"),
        "struct": Note("n"),
        3: "a key that is not a string",
        "object": object(),
    }

    safe = to_json_safe(value)

    assert safe["message"] == {
        "content": "hi",
        "additional_kwargs": {},
        "response_metadata": {},
        "type": "human",
        "name": None,
        "id": "h-1",
    }
    assert safe["interrupt"] == {"value": {"question": "ok?"}, "id": "i-1", "response_schema": None}
    assert safe["send"] == {"node": "step", "args": {"n": 1}}
    assert safe["order"] == {"order_id": "A-1", "lines": ["jacket"]}
    assert safe["point"] == {"x": 1, "y": 2}
    assert safe["tuple"] == [1, "two"]
    assert safe["set"] == ["a", "b", "c"]
    assert safe["frozen"] == [1, 2, 3]
    assert sorted(safe["mixed"], key=str) == [1, "a"]
    assert safe["deque"] == [1, 2]
    assert safe["when"] == "2026-11-30T04:12:59.123456+00:00"
    assert safe["day"] == "2026-11-30"
    assert safe["wait"] == 1.5
    assert (safe["whole"], safe["part"]) == (3, 2.5)
    assert safe["id"] == "fe096781-5601-53d2-b2f6-0d3403f7e9ca"
    assert (safe["path"], safe["ip"], safe["colour"]) == ("/tmp/x", "127.0.0.1", "red")
    assert safe["bytes"] == "AAE="
    assert (safe["nan"], safe["inf"]) == (None, None)
    assert safe["struct"] == {"text": "n"}
    assert safe["3"] == "a key that is not a string"
    assert safe["object"] == "<object>"
    assert msgspec.json.decode(msgspec.json.encode(safe)) == safe


def test_a_message_chunk_is_its_model_dump() -> None:
    chunk = AIMessageChunk(content="hello", id="ai-1")

    assert to_json_safe([chunk, {"langgraph_node": "llm"}]) == [chunk.model_dump(), {"langgraph_node": "llm"}]


def test_every_string_is_redacted_keys_included() -> None:
    value = {
        "text": f"my card is {CARD}",
        "nested": [{"deep": (f"key {KEY}",)}],
        f"card {CARD}": "in a key",
        "model": Customer(name="Ada", card=CARD),
        "error": ValueError(f"card {CARD} declined"),
    }

    encoded = msgspec.json.encode(to_json_safe(value))

    assert b"4111" not in encoded
    assert b"0123456789abcdef" not in encoded
    assert b"[REDACTED CARD]" in encoded
    assert b"[REDACTED KEY]" in encoded


def test_an_error_shows_its_message_only_when_the_agent_server_would() -> None:
    assert to_json_safe(ValueError("bad input\nsecond line")) == {"error": "ValueError", "message": "bad input"}
    assert to_json_safe(InvalidUpdateError("two writes")) == {"error": "InvalidUpdateError", "message": "two writes"}
    assert to_json_safe(OSError("/etc/secret/path is missing")) == {
        "error": "OSError",
        "message": "An internal error occurred",
    }


def test_text_json_cannot_carry_is_replaced() -> None:
    assert to_json_safe({"a\x00": "b\ud800c"}) == {"a\ufffd": "b\ufffdc"}


def test_a_part_over_the_limit_is_replaced_by_a_marker_saying_how_long_it_was() -> None:
    state = {"notes": ["x" * 100] * 20}
    size = len(msgspec.json.encode(state))

    assert to_json_safe(state, limit_bytes=size) == state
    assert to_json_safe(state, limit_bytes=size - 1) == {"__cut__": {"size_bytes": size, "limit_bytes": size - 1}}


def test_a_giant_string_is_cut_before_it_is_read_through() -> None:
    cut = to_json_safe({"blob": "y" * 5_000_000}, limit_bytes=1_000_000)

    assert cut["__cut__"]["limit_bytes"] == 1_000_000
    assert cut["__cut__"]["size_bytes"] > 1_000_000


def test_escapes_count_towards_the_limit() -> None:
    controls = {"text": "\x01" * 1000}
    size = len(msgspec.json.encode(controls))

    assert size > 6000
    assert "__cut__" in to_json_safe(controls, limit_bytes=5000)
    assert to_json_safe(controls, limit_bytes=size) == controls


def test_a_structure_nested_too_deep_is_cut_there() -> None:
    nested: list[object] = []
    innermost = nested
    for _ in range(MAX_DEPTH + 10):
        inner: list[object] = []
        innermost.append(inner)
        innermost = inner
    cyclic: list[object] = []
    cyclic.append(cyclic)

    safe = to_json_safe(nested)
    depth = 0
    while isinstance(safe, list):
        safe, depth = safe[0], depth + 1

    assert safe == f"<nested deeper than {MAX_DEPTH}>"
    assert depth == MAX_DEPTH
    assert msgspec.json.encode(to_json_safe(cyclic))


def test_a_prepared_value_converts_as_the_value_itself_and_is_cut_alike() -> None:
    metadata = {"node": "model", "path": ("a", 1), "note": f"card {CARD}", "ok": True, "ratio": float("nan")}
    prepared = PreparedValues().prepared(metadata, depth=1)
    first = f"x {KEY}"

    assert prepared is not metadata
    assert to_json_safe((first, prepared)) == to_json_safe((first, metadata))
    for limit in (50, 120, 180, 400):
        assert to_json_safe((first, prepared), limit_bytes=limit) == to_json_safe((first, metadata), limit_bytes=limit)
    assert to_json_safe([[prepared]]) == to_json_safe([[metadata]])  # another depth: converted again


def test_only_values_of_json_types_and_short_strings_are_prepared() -> None:
    values = PreparedValues()
    odd = {"when": dt.date(2026, 12, 2)}
    long = {"text": "y" * 5000}

    assert values.prepared(odd, depth=1) is odd
    assert values.prepared(long, depth=1) is long
    assert values.prepared([1], depth=1) == [1]
