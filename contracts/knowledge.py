"""A knowledge-base document, as ``GET /kb/{doc_id}`` returns it (what citations link to)."""

from __future__ import annotations

import msgspec

__all__ = ("KnowledgeDocument",)


class KnowledgeDocument(msgspec.Struct, kw_only=True):
    doc_id: str
    title: str
    body: str
