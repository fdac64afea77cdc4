"""JSON-RPC 2.0 as A2A 1.0 uses it: one request a POST (no batches), its answer one JSON response, or, for the
streaming methods, an SSE stream whose every ``data:`` is a JSON-RPC response carrying one ``StreamResponse``."""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec

from api.a2a.errors import A2AError, InvalidParams, InvalidRequest, JsonParseError, MethodNotFound
from api.a2a.types import CancelTaskRequest, GetTaskRequest, SendMessageRequest, SubscribeToTaskRequest

__all__ = (
    "METHODS",
    "STREAMING",
    "RpcCall",
    "error_body",
    "read_call",
    "read_params",
    "result_body",
    "result_head",
    "sse_frame",
)

T = TypeVar("T")
E = TypeVar("E", bound=A2AError)

METHODS: dict[str, type[Any]] = {
    "SendMessage": SendMessageRequest,
    "SendStreamingMessage": SendMessageRequest,
    "GetTask": GetTaskRequest,
    "CancelTask": CancelTaskRequest,
    "SubscribeToTask": SubscribeToTaskRequest,
}
"""A2A 1.0's methods the service serves, and the request each one's params are."""
STREAMING = frozenset({"SendStreamingMessage", "SubscribeToTask"})
_encode = msgspec.json.Encoder().encode


class RpcCall(msgspec.Struct, frozen=True):
    id: str | int | None
    method: str
    params: Any


def read_call(body: bytes) -> RpcCall:
    """The call ``body`` makes; ``A2AError`` when it is not one this service answers (its ``id`` read first, so
    that the error names the call when it can)."""
    try:
        raw = msgspec.json.decode(body)
    except msgspec.DecodeError as exc:
        raise JsonParseError(f"The body is not JSON: {exc}.") from None
    if isinstance(raw, list):
        raise InvalidRequest("Batch requests are not supported.")
    if not isinstance(raw, dict):
        raise InvalidRequest("A JSON-RPC request is an object.")
    call_id = raw.get("id")
    if isinstance(call_id, bool) or not isinstance(call_id, str | int | None):
        raise InvalidRequest("A request's id is a string, a number or null.")
    if raw.get("jsonrpc") != "2.0":
        raise _with_id(InvalidRequest("'jsonrpc' must be exactly \"2.0\"."), call_id)
    method = raw.get("method")
    if not isinstance(method, str) or not method:
        raise _with_id(InvalidRequest("A request names its method."), call_id)
    if method not in METHODS:
        served = ", ".join(METHODS)
        raise _with_id(MethodNotFound(f"There is no method {method!r}; A2A 1.0's served here: {served}."), call_id)
    return RpcCall(call_id, method, raw.get("params", {}))


def read_params(call: RpcCall, kind: type[T]) -> T:
    """The call's params as ``kind``; ``InvalidParams`` naming what is wrong with them."""
    try:
        return msgspec.convert(call.params, kind)
    except msgspec.ValidationError as exc:
        raise InvalidParams(f"Invalid params of {call.method}: {exc}.") from None


def _with_id(error: E, call_id: str | int | None) -> E:
    error.call_id = call_id
    return error


def result_body(call_id: str | int | None, result: msgspec.Struct) -> bytes:
    return b"%s%s}" % (result_head(call_id), _encode(result))


def result_head(call_id: str | int | None) -> bytes:
    """A response's bytes before its result: what a stream, whose every event answers the same call, makes once."""
    return b'{"jsonrpc":"2.0","id":%s,"result":' % _encode(call_id)


def error_body(call_id: str | int | None, error: dict[str, Any]) -> bytes:
    return b'{"jsonrpc":"2.0","id":%s,"error":%s}' % (_encode(call_id), _encode(error))


def sse_frame(body: bytes, seq: int | None = None) -> bytes:
    """One SSE event: ``id`` is the run's seq the event is of (what a ``Last-Event-ID`` resumes after)."""
    return (b"id: %d\ndata: %s\n\n" % (seq, body)) if seq is not None else b"data: %s\n\n" % body
