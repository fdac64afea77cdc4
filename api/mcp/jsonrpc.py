"""JSON-RPC 2.0 as MCP's Streamable HTTP uses it: one message a POST; a request answered by one JSON response or an
SSE stream (its notifications, then its response), a notification or a response accepted with 202 and no body."""

from __future__ import annotations

from typing import Any, ClassVar

import msgspec

__all__ = (
    "InternalError",
    "InvalidParams",
    "InvalidRequest",
    "McpError",
    "McpMessage",
    "MethodNotFound",
    "ParseError",
    "error_body",
    "notification_body",
    "read_message",
    "request_body",
    "result_body",
    "sse_frame",
)

_encode = msgspec.json.Encoder().encode


class McpError(Exception):
    """A JSON-RPC error answering the request ``call_id`` (None when it could not be read)."""

    code: ClassVar[int] = -32603

    def __init__(self, message: str, call_id: str | int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.call_id = call_id


class ParseError(McpError):
    code = -32700


class InvalidRequest(McpError):
    code = -32600


class MethodNotFound(McpError):
    code = -32601


class InvalidParams(McpError):
    code = -32602


class InternalError(McpError):
    code = -32603


class McpMessage(msgspec.Struct, frozen=True):
    method: str | None
    """None for a response (the client answering a request of the server's)."""
    id: str | int | None
    params: dict[str, Any]
    result: Any = None
    """A response's result (None for an error response)."""

    @property
    def is_request(self) -> bool:
        return self.method is not None and self.id is not None


def read_message(body: bytes) -> McpMessage:
    try:
        raw = msgspec.json.decode(body)
    except msgspec.DecodeError as exc:
        raise ParseError(f"The body is not JSON: {exc}.") from None
    if not isinstance(raw, dict):
        raise InvalidRequest("A message is one JSON-RPC object (Streamable HTTP sends no batches).")
    call_id = raw.get("id")
    if isinstance(call_id, bool) or not isinstance(call_id, str | int | None):
        raise InvalidRequest("A request's id is a string or a number.")
    if raw.get("jsonrpc") != "2.0":
        raise InvalidRequest("'jsonrpc' must be exactly \"2.0\".", call_id)
    method = raw.get("method")
    if method is None and ("result" in raw or "error" in raw):
        return McpMessage(None, call_id, {}, raw.get("result"))
    if not isinstance(method, str) or not method:
        raise InvalidRequest("A request names its method.", call_id)
    params = raw.get("params", {})
    if not isinstance(params, dict):
        raise InvalidParams("A request's params are an object.", call_id)
    return McpMessage(method, call_id, params)


def result_body(call_id: str | int | None, result: Any) -> bytes:
    return b'{"jsonrpc":"2.0","id":%s,"result":%s}' % (_encode(call_id), _encode(result))


def error_body(error: McpError) -> bytes:
    body = {"code": error.code, "message": error.message}
    return b'{"jsonrpc":"2.0","id":%s,"error":%s}' % (_encode(error.call_id), _encode(body))


def request_body(call_id: str, method: str, params: Any) -> bytes:
    """A request of the server's to the client (an elicitation)."""
    return b'{"jsonrpc":"2.0","id":%s,"method":%s,"params":%s}' % (_encode(call_id), _encode(method), _encode(params))


def notification_body(method: str, params: Any) -> bytes:
    return b'{"jsonrpc":"2.0","method":%s,"params":%s}' % (_encode(method), _encode(params))


def sse_frame(body: bytes, seq: int | None = None) -> bytes:
    return (b"id: %d\ndata: %s\n\n" % (seq, body)) if seq is not None else b"data: %s\n\n" % body
