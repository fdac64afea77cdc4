"""Ids a client makes up and the service echoes or stores (an AG-UI ``runId``, a message's id, a tool call's):
each is screened as message text is, and one that holds a card number, national id, bank account or key is
refused (``IdRefused``, 422) before anything starts, so a planted number is never stored or sent back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent import carries_personal_data
from api.exceptions import IdRefused

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ("refuse_personal_ids",)


def refuse_personal_ids(ids: Iterable[tuple[str, str | None]]) -> None:
    """Refuse the first of ``ids`` (each its field's path in the body and its value) that carries personal data."""
    for field, value in ids:
        if value is not None and carries_personal_data(value):
            raise IdRefused(field)
