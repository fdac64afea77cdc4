"""Filters on metadata, as the LangGraph Agent Server's authorization handlers return them.

``{"owner": "alice"}`` or ``{"owner": {"$eq": "alice"}}``: the key holds exactly that value;
``{"tags": {"$contains": "red"}}``: the key holds a list with that element; ``{"tags": {"$contains": ["a", "b"]}}``:
a list with all of them. Several keys must all hold. A filter only ever narrows what its caller may see: ownership
by subject is checked before it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ("MetadataFilter", "checked_filter", "matches")

MetadataFilter = Mapping[str, Any]
"""A filter checked by ``checked_filter``."""

_OPERATORS = frozenset({"$eq", "$contains"})


def checked_filter(given: object) -> MetadataFilter:
    """``given`` if it is a filter of the shape above; ``ValueError`` saying what is wrong else."""
    if not isinstance(given, Mapping):
        raise ValueError(f"a filter is a dict, not {type(given).__name__}")
    for key, wanted in given.items():
        if not isinstance(key, str):
            raise ValueError(f"a filter's keys are strings, not {key!r}")
        if isinstance(wanted, Mapping) and (len(wanted) != 1 or not set(wanted) <= _OPERATORS):
            raise ValueError(f"filter {key!r}: one operator of $eq and $contains, not {sorted(map(str, wanted))}")
    return given


def matches(metadata: Mapping[str, Any], where: MetadataFilter | None) -> bool:
    """Whether ``metadata`` satisfies every key of ``where`` (None: no filter)."""
    if not where:
        return True
    return all(_holds(metadata, key, wanted) for key, wanted in where.items())


def _holds(metadata: Mapping[str, Any], key: str, wanted: Any) -> bool:
    if key not in metadata:
        return False
    found = metadata[key]
    if isinstance(wanted, Mapping):
        if "$eq" in wanted:
            return bool(found == wanted["$eq"])
        element = wanted["$contains"]
        if not isinstance(found, list):
            return False
        needed = element if isinstance(element, list) else [element]
        return all(item in found for item in needed)
    return bool(found == wanted)
