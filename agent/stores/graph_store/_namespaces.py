"""Whose namespaces: each subject's items live under a hidden first label of its own.

The label is a digest of the subject (never the subject itself, which may be an email address and would sit in
the store's plain ``prefix`` column), or ``anonymous`` when identity is off. A graph and a client see their own
namespaces; the label is added on the way in and stripped on the way out, so no namespace a client can name
reaches another subject's items.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from langgraph.store.memory import _does_match

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from langgraph.store.base import MatchCondition

__all__ = ("ANONYMOUS_LABEL", "STORE_SUBJECT_KEY", "listed", "subject_label")

ANONYMOUS_LABEL = "anonymous"
STORE_SUBJECT_KEY = "__harness_store_subject"
"""The run config's ``configurable`` key naming the run owner's label: set by the service for every run
(``api.runs.run_options.graph_run_config``), read by the graphs' store. A ``__`` key: a client cannot set it,
and LangGraph keeps it out of checkpoint metadata."""


def subject_label(subject: str | None) -> str:
    """The hidden first label of ``subject``'s namespaces."""
    if subject is None:
        return ANONYMOUS_LABEL
    return "s-" + hashlib.sha256(subject.encode()).hexdigest()[:32]


def listed(
    namespaces: Iterable[tuple[str, ...]],
    conditions: Sequence[MatchCondition],
    max_depth: int | None,
    limit: int,
    offset: int,
) -> list[tuple[str, ...]]:
    """``namespaces`` (a subject's, the label stripped) as ``list_namespaces`` answers: those matching every
    condition (LangGraph's own matching, ``*`` a wildcard), cut to ``max_depth``, distinct, sorted, paged."""
    matching = {
        namespace[:max_depth] if max_depth is not None else namespace
        for namespace in namespaces
        if all(_does_match(condition, namespace) for condition in conditions)
    }
    return sorted(matching)[offset : offset + limit]
