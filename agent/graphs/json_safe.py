"""Anything a graph streams, made fit for the event log: JSON values only, redacted, and of bounded size.

A user's graph streams whatever its state holds: LangChain messages, pydantic models, dataclasses (LangGraph's
``Interrupt``, ``Send``), sets, datetimes, bytes, exceptions. They are converted the way the LangGraph Agent
Server's own encoder does, so SDK clients see the shapes they know:

- pydantic models and LangChain messages: ``model_dump()``; dataclasses: their fields; named tuples:
  ``_asdict()``; msgspec Structs: their fields; ``Send``: ``{"node", "args"}``;
- tuples, sets, frozensets and deques: lists (a set in sorted order when its items compare, so a replay of
  the same state is the same bytes); dict keys that are not strings: ``str(key)``;
- datetimes, dates and times: ISO 8601; timedeltas: seconds; ``Decimal``: an int when whole, else a float;
  UUIDs, paths, IP addresses: ``str``; enums: their value; bytes: base64;
- floats that JSON cannot write (NaN, infinities): ``null``; exceptions: ``{"error", "message"}``, the
  message only for the exception types the Agent Server shows too (an unexpected error's text stays on
  the server);
- anything else: ``"<TypeName>"``, never its ``repr`` (which may show memory or secrets).

Every string, keys included, goes through ``agent.guardrails.redact`` (no card number, key or token reaches
the log), with lone surrogates and NUL replaced by U+FFFD. Structures nested deeper than ``MAX_DEPTH`` are
cut there. A value whose JSON would exceed the byte limit is replaced by a ``{"__cut__": ...}`` marker, so
one giant state cannot blow up the log; the size is bounded from above while converting and only values
that may be large are encoded to measure them.

A value streamed again and again (the metadata LangGraph attaches to every chunk of one model call) is converted
once: ``PreparedValues`` keeps its conversion, and ``to_json_safe`` takes it in place of the value, with the
same result, as long as the value is the same object and its JSON has not changed.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import enum
import functools
import ipaddress
import math
import re
import uuid
from collections import deque
from decimal import Decimal
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, cast

import msgspec
from langgraph.errors import EmptyInputError, GraphBubbleUp, InvalidUpdateError, TaskNotFound
from langgraph.types import Send

from agent.guardrails import redact

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = (
    "CUT_KEY",
    "DEFAULT_PART_LIMIT_BYTES",
    "MAX_DEPTH",
    "HeadedDict",
    "PreparedValues",
    "cut_marker",
    "describe_error",
    "to_json_safe",
)

DEFAULT_PART_LIMIT_BYTES = 1_000_000
"""The largest JSON a single part, interrupt value or output may take in the log (1 MB)."""
MAX_DEPTH = 64
CUT_KEY = "__cut__"

_SHOWN_ERRORS: tuple[type[BaseException], ...] = (
    ValueError,
    TypeError,
    KeyError,
    AttributeError,
    RuntimeError,
    RecursionError,
    TimeoutError,
    InvalidUpdateError,
    GraphBubbleUp,
    EmptyInputError,
    TaskNotFound,
)
"""Exceptions whose message is shown (the Agent Server's list); any other's is replaced."""
_HIDDEN_MESSAGE = "An internal error occurred"
_UNSAFE_CHARS = re.compile("[\x00\ud800-\udfff]")
_SCALAR_BOUND = 32
"""An upper bound of the JSON bytes of a number, ``true``, ``null`` and the punctuation around a value."""
_CACHED_STRING_CHARS = 4096
_PREPARED_VALUES = 64
"""How many values a ``PreparedValues`` keeps: a run streams a few model calls at a time, not 64."""


class _PartTooLarge(Exception):
    """Raised by ``_JsonSafe.convert`` as soon as the value is sure to be longer than the limit."""

    def __init__(self, at_least_bytes: int) -> None:
        super().__init__(f"at least {at_least_bytes} bytes")
        self.at_least_bytes = at_least_bytes


class _JsonSafe:
    """One conversion: ``convert`` a value, then ``bound`` is an upper bound of its JSON size in bytes. A string
    so long that the value cannot fit ``limit_bytes`` stops it early (``_PartTooLarge``), before redacting it."""

    def __init__(self, limit_bytes: int = DEFAULT_PART_LIMIT_BYTES) -> None:
        self.bound = 0
        self.floor = 0
        self.plain = True
        """Whether only JSON types and short strings were met, so the result stands for the value anywhere."""
        self._limit = limit_bytes

    def convert(self, value: Any, depth: int = 0) -> Any:
        if value is None or value is True or value is False:
            self.bound += _SCALAR_BOUND
            return value
        kind = type(value)
        if kind is str:
            return self._string(value)
        if kind is int:
            self.bound += _SCALAR_BOUND + len(str(value)) if value.bit_length() > 64 else _SCALAR_BOUND
            return value
        if kind is float:
            self.bound += _SCALAR_BOUND
            return value if math.isfinite(value) else None
        if depth >= MAX_DEPTH:
            return self._string(f"<nested deeper than {MAX_DEPTH}>")
        if kind is HeadedDict:  # a streamed chunk and its metadata: most parts of a run
            return self._headed(value, depth)
        if kind is _Prepared:
            return self._prepared(value, depth)
        if kind is dict or isinstance(value, dict):
            self.bound += _SCALAR_BOUND
            return {
                self._string(key) if type(key) is str else self._key(key): self.convert(item, depth + 1)
                for key, item in value.items()
            }
        if isinstance(value, list) or (isinstance(value, tuple) and not hasattr(value, "_asdict")):
            self.bound += _SCALAR_BOUND
            return [self.convert(item, depth + 1) for item in value]
        return self._other(value, depth)

    def _headed(self, headed: HeadedDict, depth: int) -> Any:
        tail = headed.tail
        if tail.depth != depth:
            return self.convert({headed.key: headed.value, **tail.source}, depth)
        self.bound += _SCALAR_BOUND
        key = self._string(headed.key)
        value = self.convert(headed.value, depth + 1)
        self.bound += tail.bound - _SCALAR_BOUND  # one dict, not two
        self.floor += tail.floor
        return {key: value, **tail.safe}

    def _prepared(self, prepared: _Prepared, depth: int) -> Any:
        if prepared.depth != depth:
            return self.convert(prepared.source, depth)
        self.bound += prepared.bound
        self.floor += prepared.floor
        return prepared.safe

    def _string(self, text: str) -> str:
        if len(text) <= _CACHED_STRING_CHARS:
            safe = _redacted(text)
        else:
            # a mask is never under a quarter of what it hides: this string alone may already be too long
            if self.floor + len(text) // 4 > self._limit:
                raise _PartTooLarge(self.floor + len(text) // 4)
            self.plain = False
            safe = _clean(text)
        self.floor += len(safe) + 2
        self.bound += 6 * len(safe) + _SCALAR_BOUND  # \u00XX is the longest escape msgspec writes for one char
        return safe

    def _key(self, key: Any) -> str:
        return self._string(key if isinstance(key, str) else str(self._other(key, MAX_DEPTH)))

    def _other(self, value: Any, depth: int) -> Any:
        self.plain = False
        if isinstance(value, str):
            return self._string(str(value))
        if isinstance(value, bool | int | float):
            return self.convert(value.__index__() if isinstance(value, int) else float(value), depth)
        if isinstance(value, enum.Enum):
            return self.convert(value.value, depth)
        if isinstance(value, Send):
            return self.convert({"node": value.node, "args": value.arg}, depth)
        model_dump = getattr(value, "model_dump", None)
        if callable(model_dump) and not isinstance(value, type):
            return self.convert(model_dump(), depth + 1)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            fields = {field.name: getattr(value, field.name) for field in dataclasses.fields(value)}
            return self.convert(fields, depth + 1)
        if isinstance(value, msgspec.Struct):
            return self.convert(msgspec.structs.asdict(value), depth + 1)
        if isinstance(value, tuple):
            return self.convert(cast("Any", value)._asdict(), depth + 1)  # a named tuple (others went as lists)
        if isinstance(value, set | frozenset):
            return self.convert(_ordered(value), depth)
        if isinstance(value, deque):
            return self.convert(list(value), depth)
        if isinstance(value, dt.datetime | dt.date | dt.time):
            return self._string(value.isoformat())
        if isinstance(value, dt.timedelta):
            return self.convert(value.total_seconds(), depth)
        if isinstance(value, Decimal):
            whole = value.is_finite() and value == value.to_integral_value()
            return self.convert(int(value) if whole else float(value), depth)
        if isinstance(value, uuid.UUID | PurePath | ipaddress.IPv4Address | ipaddress.IPv6Address):
            return self._string(str(value))
        if isinstance(value, bytes | bytearray | memoryview):
            return self._string(base64.b64encode(bytes(value)).decode())
        if isinstance(value, BaseException):
            return self.convert(describe_error(value), depth)
        return self._string(f"<{type(value).__qualname__}>")


class _Prepared:
    """``source`` converted at ``depth`` once: what it adds to a conversion's bound and floor, and its result."""

    __slots__ = ("bound", "depth", "encoded", "floor", "safe", "source")

    def __init__(self, source: Any, encoded: bytes, depth: int, converter: _JsonSafe, safe: Any) -> None:
        self.source = source
        self.encoded = encoded
        self.depth = depth
        self.bound = converter.bound
        self.floor = converter.floor
        self.safe = safe


class HeadedDict:
    """``{key: value, **tail}`` for ``to_json_safe``, the tail converted once (``PreparedValues.prepared_tail``)
    for the dicts that share it: the chunks of one message share every field but their content."""

    __slots__ = ("key", "tail", "value")

    def __init__(self, key: str, value: Any, tail: _Prepared) -> None:
        self.key = key
        self.value = value
        self.tail = tail


class PreparedValues:
    """The conversions of the last values it was given, each to be given to ``to_json_safe`` in place of its value.

    A value is converted again unless it is the very object converted before (kept alive here, so its ``id`` is
    not reused) with the same JSON bytes (so a change made to it in place is seen), and only values of JSON
    types and short strings are kept: their conversion depends on nothing else in the part (a long string's
    does, on how much came before it). The conversions returned are shared by the parts: never changed.
    """

    def __init__(self, size: int = _PREPARED_VALUES) -> None:
        self._size = size
        self._kept: dict[int, _Prepared] = {}
        self._tails: dict[tuple[tuple[Any, ...], int], _Prepared] = {}

    def prepared(self, value: Any, depth: int) -> Any:
        """What stands for ``value`` at ``depth`` of a value given to ``to_json_safe``: its kept conversion when
        it still holds, else ``value`` itself."""
        if type(value) is not dict or not value:
            return value
        try:
            encoded = msgspec.json.encode(value)
        except (TypeError, ValueError, OverflowError):
            return value
        kept = self._kept.get(id(value))
        if kept is not None and kept.source is value and kept.depth == depth and kept.encoded == encoded:
            return kept
        prepared = _prepare(value, encoded, depth)
        if prepared is None:
            return value
        self._kept.pop(id(value), None)
        return self._keep(self._kept, id(value), prepared)

    def prepared_tail(self, key: tuple[Any, ...], depth: int, tail: Callable[[], dict[str, Any]]) -> _Prepared | None:
        """The conversion at ``depth`` of the dict ``tail()`` makes, kept under ``key``: the caller's promise that
        the dicts it makes under one key convert the same (their values, of JSON types, make the key); ``None``
        unless the dict holds only JSON types and short strings."""
        kept = self._tails.get((key, depth))
        if kept is not None:
            return kept
        prepared = _prepare(tail(), b"", depth)
        return self._keep(self._tails, (key, depth), prepared) if prepared is not None else None

    def _keep(self, kept: dict[Any, _Prepared], key: Any, prepared: _Prepared) -> _Prepared:
        if len(kept) >= self._size:
            del kept[next(iter(kept))]
        kept[key] = prepared
        return prepared


def _prepare(value: Any, encoded: bytes, depth: int) -> _Prepared | None:
    """``value`` converted at ``depth``, or ``None`` unless it holds only JSON types and short strings."""
    converter = _JsonSafe(limit_bytes=DEFAULT_PART_LIMIT_BYTES)
    try:
        safe = converter.convert(value, depth)
    except _PartTooLarge:
        return None
    return _Prepared(value, encoded, depth, converter, safe) if converter.plain else None


def to_json_safe(value: Any, *, limit_bytes: int = DEFAULT_PART_LIMIT_BYTES) -> Any:
    """``value`` converted and redacted; if its JSON would be longer than ``limit_bytes``, a ``__cut__`` marker
    that says how long it was."""
    converter = _JsonSafe(limit_bytes)
    try:
        safe = converter.convert(value)
    except _PartTooLarge as cut:
        return cut_marker(cut.at_least_bytes, limit_bytes)
    if converter.bound <= limit_bytes:
        return safe
    size = len(msgspec.json.encode(safe))
    return safe if size <= limit_bytes else cut_marker(size, limit_bytes)


def cut_marker(size_bytes: int, limit_bytes: int) -> dict[str, Any]:
    """What stands for a value too long for the log: ``size_bytes`` is its length, or a lower bound of it when
    the conversion stopped early."""
    return {CUT_KEY: {"size_bytes": size_bytes, "limit_bytes": limit_bytes}}


def describe_error(error: BaseException) -> dict[str, str]:
    """``{"error": <type name>, "message": <redacted first line>}``; the message is replaced unless the type is
    one whose message is meant for the caller (``ValueError``, ``KeyError``, LangGraph's own errors, ...)."""
    message = str(error).strip().splitlines()[0] if str(error).strip() else ""
    if not isinstance(error, _SHOWN_ERRORS):
        message = _HIDDEN_MESSAGE
    return {"error": type(error).__name__, "message": _redacted(message[:500])}


@functools.lru_cache(maxsize=8192)
def _redacted(text: str) -> str:
    """Cached: ``values`` parts repeat the whole state at every step, so most strings were seen before."""
    return _clean(text)


def _clean(text: str) -> str:
    if _UNSAFE_CHARS.search(text):
        text = _UNSAFE_CHARS.sub("\ufffd", text)
    return redact(text)


def _ordered(items: set[Any] | frozenset[Any]) -> list[Any]:
    try:
        return sorted(items)
    except TypeError:
        return list(items)
