"""Request field types the server reads exactly as the schema says.

A route's body is converted leniently (Litestar converts with ``strict=False``: ``0`` and ``"true"`` become a
boolean), so a client that follows the schema and one that does not would be told the same. A ``StrictBool`` takes
``true`` and ``false`` only, and its schema still says ``boolean``.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

__all__ = ("StrictBool",)

StrictBool = Annotated[Literal[True, False], msgspec.Meta(extra_json_schema={"type": "boolean"})]
