"""The knowledge base the agent answers from."""

from __future__ import annotations

from agent.knowledge.corpus import Document, load_bundled_corpus
from agent.knowledge.index import KnowledgeIndex, Passage

__all__ = ("Document", "KnowledgeIndex", "Passage", "load_bundled_corpus")
