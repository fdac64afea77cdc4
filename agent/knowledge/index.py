"""Keyword retrieval over the corpus with SQLite FTS5 (BM25), built in memory at start-up."""

from __future__ import annotations

import difflib
import re
import sqlite3
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from collections.abc import Iterable

    from agent.knowledge.corpus import Document

__all__ = ("KnowledgeIndex", "Passage")

_WORD = re.compile(r"[a-z0-9]+")
_IDENTIFIER = re.compile(r"\b[A-Za-z]{2,5}-\d{2,}\b")
"""Invoice and account numbers (INV-1001, ACC-2003): they name records, they say nothing of the topic."""
_STOPWORDS = frozenset(
    (
        "a about after again all also am an and any anything are as at be been but by can could did do does doing "
        "for from get gets getting give go good got had has have help how i if in into is it its just know like "
        "look looks me might more much my need new no not now of on one or our out please should so some still "
        "tell that the their them then there these they this to too try us use want was way we well were what "
        "when where which who why will with would you your hi hello hey thanks thank"
    ).split()
)
_TITLE_WEIGHT = 4.0
_SNIPPET_CHARS = 220


class Passage(msgspec.Struct, frozen=True, kw_only=True):
    doc_id: str
    title: str
    text: str
    snippet: str
    score: float
    """BM25 relevance, higher is better."""


class KnowledgeIndex:
    """An FTS5 index over the documents, with spelling correction against the corpus vocabulary."""

    def __init__(self, documents: Iterable[Document]) -> None:
        self._documents = {doc.doc_id: doc for doc in documents}
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._db.execute("CREATE VIRTUAL TABLE docs USING fts5(doc_id UNINDEXED, title, body, tokenize='porter')")
        self._db.executemany(
            "INSERT INTO docs (doc_id, title, body) VALUES (?, ?, ?)",
            [(doc.doc_id, doc.title, doc.body) for doc in self._documents.values()],
        )
        self._vocabulary = sorted(
            {word for doc in self._documents.values() for word in _WORD.findall(f"{doc.title} {doc.body}".lower())}
        )
        self._known = frozenset(self._vocabulary)

    def __len__(self) -> int:
        return len(self._documents)

    def get(self, doc_id: str) -> Document | None:
        return self._documents.get(doc_id)

    def search(self, question: str, k: int) -> list[Passage]:
        terms = self.query_terms(question)
        if not terms:
            return []
        match = " OR ".join(f'"{term}"' for term in terms)
        if not self._covers_enough(terms, match):
            return []
        rows = self._db.execute(
            "SELECT doc_id, bm25(docs, 0.0, ?, 1.0) AS rank FROM docs WHERE docs MATCH ? ORDER BY rank, doc_id LIMIT ?",
            (_TITLE_WEIGHT, match, k),
        ).fetchall()
        return [self._passage(doc_id, -rank) for doc_id, rank in rows]

    def _covers_enough(self, terms: list[str], match: str) -> bool:
        """Whether the best document holds at least half of the question's terms.

        One shared word ("write", "recipe") is not relevance: without this floor every question with a
        word from the corpus would be answered from some document.
        """
        best = self._db.execute(
            "SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY bm25(docs, 0.0, ?, 1.0) LIMIT 1", (match, _TITLE_WEIGHT)
        ).fetchone()
        if best is None:
            return False
        held = sum(
            1
            for term in terms
            if self._db.execute(
                "SELECT 1 FROM docs WHERE rowid = ? AND docs MATCH ?", (best[0], f'"{term}"')
            ).fetchone()
        )
        return 2 * held >= len(terms)

    def query_terms(self, question: str) -> list[str]:
        """The question's content words, each corrected to the closest corpus word when it is unknown."""
        terms: list[str] = []
        for raw in _WORD.findall(_IDENTIFIER.sub(" ", question).lower()):
            word = raw
            if word not in self._known and len(word) >= 4:
                # a typo keeps its first letter; a real word outside the corpus (e.g. "tall") is left alone
                close = difflib.get_close_matches(word, self._vocabulary, n=3, cutoff=0.8)
                word = next((c for c in close if c[0] == word[0]), word)
            if len(word) > 1 and word not in _STOPWORDS and word not in terms:
                terms.append(word)
        return terms

    def _passage(self, doc_id: str, score: float) -> Passage:
        doc = self._documents[doc_id]
        return Passage(doc_id=doc_id, title=doc.title, text=doc.body, snippet=snippet(doc.body), score=score)


def snippet(text: str) -> str:
    """The opening of ``text``, cut at a sentence or word boundary."""
    if len(text) <= _SNIPPET_CHARS:
        return text
    cut = text[:_SNIPPET_CHARS]
    sentence_end = cut.rfind(". ")
    if sentence_end > _SNIPPET_CHARS // 2:
        return cut[: sentence_end + 1]
    return cut[: cut.rfind(" ")].rstrip(",;:") + "…"
