"""A body is read as its schema says: no type coercion the schema does not state.

Litestar converts a route's ``data`` with ``strict=False``: ``{"limit": "2"}`` became ``2`` and ``"true"`` a
boolean, so a client that breaks the OpenAPI schema was answered as one that follows it (schemathesis's ST201,
"schema-violating request accepted"). Every body is first decoded strictly (msgspec, ``strict=True``) into the
type the route's ``data`` declares; a mismatch is a 422 naming the field, and Litestar's own conversion then
only ever sees bodies that already conform. As in JSON Schema, a number with no fraction (``595.0``) is an
integer.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import msgspec
from litestar.exceptions import ValidationException

if TYPE_CHECKING:
    from litestar.handlers import BaseRouteHandler

__all__ = ("StrictBodies",)

# msgspec ends a ValidationError's message with the path of the value it refused
_AT_PATH = re.compile(r"^(?P<message>.*) - at `\$(?P<path>[^`]*)`$", re.DOTALL)


class StrictBodies:
    """The strict decoders of the routes one body check wraps, made on each route's first body."""

    def __init__(self) -> None:
        self._decoders: dict[int, tuple[msgspec.json.Decoder[Any], Any] | None] = {}

    def check(self, handler: BaseRouteHandler, body: bytes) -> None:
        """Refuse ``body`` (a 422) when it does not decode strictly into the handler's ``data`` type."""
        key = id(handler)
        if key not in self._decoders:
            self._decoders[key] = _decoder_for(handler)
        typed = self._decoders[key]
        if typed is None or not body:
            return
        decoder, body_type = typed
        try:
            decoder.decode(body)
        except msgspec.ValidationError as exc:
            if "got `float`" not in str(exc):
                raise _invalid(str(exc)) from None
            _check_with_whole_numbers(body, body_type)
        except msgspec.DecodeError:
            return  # not JSON at all: Litestar's own parse answers it as it answers every route's


def _check_with_whole_numbers(body: bytes, body_type: Any) -> None:
    try:
        msgspec.convert(_whole_numbers_as_ints(msgspec.json.decode(body)), body_type, strict=True)
    except msgspec.ValidationError as exc:
        raise _invalid(str(exc)) from None


def _whole_numbers_as_ints(value: Any) -> Any:
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    if isinstance(value, list):
        return [_whole_numbers_as_ints(item) for item in value]
    if isinstance(value, dict):
        return {key: _whole_numbers_as_ints(item) for key, item in value.items()}
    return value


def _decoder_for(handler: BaseRouteHandler) -> tuple[msgspec.json.Decoder[Any], Any] | None:
    data = handler.parsed_fn_signature.parameters.get("data")
    if data is None:
        return None
    try:
        return msgspec.json.Decoder(data.annotation, strict=True), data.annotation
    except TypeError:  # a type msgspec cannot decode alone: Litestar's conversion is the only check
        return None


def _invalid(text: str) -> ValidationException:
    match = _AT_PATH.match(text)
    message, path = (match["message"], match["path"].lstrip(".")) if match else (text, "")
    return ValidationException(detail=message, extra=[{"key": path, "message": message, "source": "body"}])
