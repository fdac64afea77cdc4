"""Passage retrieval over the corpus: BM25 over two-sentence passages, a floor on a calibrated relevance.

Each document is cut into passages (``agent.knowledge.passages``). A question's terms (its content words,
misspellings corrected against the corpus's vocabulary, each with the corpus's own synonyms at a lower
weight) are scored against every passage with BM25, the document's title counted as part of each of its
passages and the whole document's own BM25 added at a lower weight, so a passage of the document that is
about the question beats a stray mention elsewhere. The best passage of each document stands for it (an
earlier one within ``LEAD_MARGIN`` of it: a document opens with what its title promises); the documents
come back best first, each as that passage. A short follow-up ("Can you repeat that for the Business
plan?") is searched together with the user's message before it.

Whether anything is relevant at all is decided apart from the ranking, on a score that means the same for
every question: the share of the question's information (its terms weighted by their rarity, a word the
corpus never uses counting as the rarest) that the best passage, its title and its document hold. BM25
itself grows with the question's length and cannot be compared across questions. Below ``RELEVANCE_FLOOR``
the question is not covered and nothing is returned (the model's "not covered" answer). The floor and the
weights were chosen on the development split (docs/adr/0040-passage-retrieval.md), never on a sealed set.
"""

from __future__ import annotations

import difflib
import math
import re
from collections import Counter
from typing import TYPE_CHECKING

import msgspec

from agent.knowledge.passages import chunk_document
from agent.knowledge.terms import STOPWORDS, SYNONYMS, edit_distance, stem, words

if TYPE_CHECKING:
    from collections.abc import Iterable

    from agent.knowledge.corpus import Document
    from agent.knowledge.passages import Chunk

__all__ = ("RELEVANCE_FLOOR", "KnowledgeIndex", "Passage", "QueryTerm", "snippet")

_IDENTIFIER = re.compile(r"\b[A-Za-z]{2,5}-\d{2,}\b")
"""Invoice and account numbers (INV-1001, ACC-2003): they name records, they say nothing of the topic; nor
does a number of more than four digits (an order or a card number)."""

RELEVANCE_FLOOR = 0.25
"""The least share of a question's information the best passage must hold to be an answer. 0.35 until the
everyday synonyms of issue 40's second round; on the development split (dev, the regression set and
``passage_questions.jsonl``: 268 covered questions, 30 not) 0.25 then finds 259 against 251 and answers 8
uncovered questions against 5."""
UNKNOWN_WEIGHT = 1.0
"""A word the corpus never uses, as a share of the weight of a word no passage holds."""
ELSEWHERE_WEIGHT = 0.8
"""A term the best passage lacks but its document holds elsewhere, as a share of one the passage holds."""
SYNONYM_WEIGHT = 0.7
"""What a corpus synonym of a question's word counts for, against the word itself."""
CORRECTED_WEIGHT = 0.8
"""A misspelt word's correction, against a word the corpus knows as written."""
TITLE_WEIGHT = 2.0
"""How many occurrences in a passage a term of its document's title counts for."""
DOCUMENT_WEIGHT = 0.5
"""The document's own BM25 added to each of its passages' scores."""
LEAD_MARGIN = 0.95
"""Of a document's passages, the first that scores at least this share of its best is the one returned."""
K1 = 1.2
"""BM25's saturation of a term's count."""
B = 0.5
"""BM25's normalization by a passage's length."""
_BACK_REFERENCES = frozenset(("that", "them", "it", "this", "those", "these", "they", "same", "again"))
_FOLLOW_UP_TERMS = 2
"""A follow-up names at most this many terms of its own."""
_SNIPPET_CHARS = 220


class Passage(msgspec.Struct, frozen=True, kw_only=True):
    doc_id: str
    title: str
    text: str
    """The passage that answers: a piece of the document, not the whole of it."""
    snippet: str
    score: float
    """BM25 relevance, higher is better."""


class QueryTerm(msgspec.Struct, frozen=True):
    """One word of a question: its stem and the corpus's stems for the same thing, each with its weight."""

    word: str
    alternatives: dict[str, float]


class _Bm25:
    """BM25 over bags of stems, with a field (the title) counted ``TITLE_WEIGHT`` times."""

    def __init__(self, bodies: list[Counter[str]], titles: list[frozenset[str]]) -> None:
        self.bodies = bodies
        self.titles = titles
        self.lengths = [sum(body.values()) for body in bodies]
        self.average = sum(self.lengths) / max(1, len(bodies))
        df: Counter[str] = Counter()
        for body, title in zip(bodies, titles, strict=True):
            df.update(set(body) | title)
        count = len(bodies)
        self.idf = {term: math.log(1 + (count - n + 0.5) / (n + 0.5)) for term, n in df.items()}
        self.unknown_idf = math.log(1 + (count + 0.5) / 0.5)

    def term_score(self, term: str, row: int) -> float:
        idf = self.idf.get(term)
        if idf is None:
            return 0.0
        tf = self.bodies[row].get(term, 0) + (TITLE_WEIGHT if term in self.titles[row] else 0.0)
        if not tf:
            return 0.0
        norm = K1 * (1 - B + B * self.lengths[row] / self.average)
        return idf * tf * (K1 + 1) / (tf + norm)

    def score(self, query: list[QueryTerm], row: int) -> float:
        return sum(
            max(weight * self.term_score(alt, row) for alt, weight in term.alternatives.items()) for term in query
        )


class KnowledgeIndex:
    """The corpus's passages, ranked for a question by BM25, with a calibrated floor of relevance."""

    def __init__(self, documents: Iterable[Document], *, relevance_floor: float = RELEVANCE_FLOOR) -> None:
        self._documents = {doc.doc_id: doc for doc in documents}
        self._floor = relevance_floor
        self._chunks: list[Chunk] = [chunk for doc in self._documents.values() for chunk in chunk_document(doc)]
        titles = {doc_id: frozenset(map(stem, words(doc.title))) for doc_id, doc in self._documents.items()}
        self._passages = _Bm25(
            [Counter(map(stem, words(chunk.text))) for chunk in self._chunks],
            [titles[chunk.doc_id] for chunk in self._chunks],
        )
        self._doc_ids = list(self._documents)
        self._doc_rows = {doc_id: row for row, doc_id in enumerate(self._doc_ids)}
        self._whole = _Bm25(
            [Counter(map(stem, words(self._documents[doc_id].body))) for doc_id in self._doc_ids],
            [titles[doc_id] for doc_id in self._doc_ids],
        )
        self._frequency = Counter(word for doc in self._documents.values() for word in words(f"{doc.title} {doc.body}"))
        self._vocabulary = sorted(self._frequency)
        self._known = frozenset(self._vocabulary)

    def __len__(self) -> int:
        return len(self._documents)

    def get(self, doc_id: str) -> Document | None:
        return self._documents.get(doc_id)

    def search(self, question: str, k: int, *, previous: str | None = None) -> list[Passage]:
        """The best passage of each of the ``k`` most relevant documents, best first; none when the
        question is not covered (its relevance is below the floor).

        ``previous``, the user's message before this one: a short question that refers back to it ("What
        happens if I go over them?", "Can you repeat that for the Business plan?") is searched together
        with it, since its own words do not say what it is about.
        """
        if previous and self.refers_back(question):
            question = f"{previous}\n{question}"
        query = self.query(question)
        ranked = self._rank(query)
        if not ranked or self._relevance(query, ranked[0][1]) < self._floor:
            return []
        return [self._passage(row, score) for score, row in ranked[:k]]

    def refers_back(self, question: str) -> bool:
        """Whether ``question`` points at an earlier message and says little of its own."""
        said = words(question)
        return any(word in _BACK_REFERENCES for word in said) and len(self.query(question)) <= _FOLLOW_UP_TERMS

    def relevance(self, question: str) -> float:
        """The calibrated relevance of the best passage for ``question``, in [0, 1]; 0 with none."""
        query = self.query(question)
        ranked = self._rank(query)
        return self._relevance(query, ranked[0][1]) if ranked else 0.0

    def query(self, question: str) -> list[QueryTerm]:
        """The question's terms: each content word (corrected when the corpus does not know it) with its
        corpus synonyms."""
        terms: list[QueryTerm] = []
        seen: set[str] = set()
        for raw in words(_IDENTIFIER.sub(" ", question)):
            if len(raw) < 2 or raw in STOPWORDS or (raw.isdigit() and len(raw) > 4):
                continue
            if len(raw) == 2 and raw.isalpha() and raw not in self._known and raw not in SYNONYMS:
                continue  # "hw", "pls": a slip or a shorthand, not a topic the corpus lacks
            word = self._corrected(raw)
            if word in STOPWORDS or word in seen:
                continue
            seen.add(word)
            alternatives = {stem(word): 1.0 if word == raw else CORRECTED_WEIGHT}
            for synonym in SYNONYMS.get(word, ()):
                for part in words(synonym):
                    if part not in STOPWORDS:
                        alternatives.setdefault(stem(part), SYNONYM_WEIGHT)
            terms.append(QueryTerm(word, alternatives))
        return terms

    def query_terms(self, question: str) -> list[str]:
        """The question's content words, each corrected to the closest corpus word when it is unknown."""
        return [term.word for term in self.query(question)]

    def _corrected(self, word: str) -> str:
        if word in self._known or len(word) < 4 or word in SYNONYMS:
            return word
        # a typo keeps its first letter and is one slip away (two in a long word); a real word outside the
        # corpus ("tall", "weather") is left alone; of two as close, the one the corpus uses more
        slips = 1 if len(word) < 8 else 2
        close = [
            (distance, -self._frequency[candidate], candidate)
            for candidate in difflib.get_close_matches(word, self._vocabulary, n=5, cutoff=0.75)
            if candidate[0] == word[0] and (distance := edit_distance(word, candidate)) <= slips
        ]
        return min(close)[2] if close else word

    def _rank(self, query: list[QueryTerm]) -> list[tuple[float, int]]:
        """(score, passage row) of each document's best passage, best first (ties by document id)."""
        if not query:
            return []
        whole = [self._whole.score(query, row) for row in range(len(self._doc_ids))]
        scored: dict[str, list[tuple[float, int]]] = {}
        for row, chunk in enumerate(self._chunks):
            own = self._passages.score(query, row)
            if own > 0:
                score = own + DOCUMENT_WEIGHT * whole[self._doc_rows[chunk.doc_id]]
                scored.setdefault(chunk.doc_id, []).append((score, row))
        best = []
        for passages in scored.values():
            top = max(score for score, _ in passages)
            # a document opens with what its title promises: an earlier passage nearly as good is the answer
            row = next(row for score, row in passages if score >= LEAD_MARGIN * top)
            best.append((top, row))
        return sorted(best, key=lambda item: (-item[0], self._chunks[item[1]].doc_id))

    def _relevance(self, query: list[QueryTerm], row: int) -> float:
        """The share of the question's information that passage ``row``, its title and its document hold."""
        doc_row = self._doc_rows[self._chunks[row].doc_id]
        held = total = 0.0
        for term in query:
            own = self._passages.idf.get(stem(term.word))
            weight = own if own is not None else UNKNOWN_WEIGHT * self._passages.unknown_idf
            found = 0.0
            for alt, alt_weight in term.alternatives.items():
                if alt in self._passages.bodies[row] or alt in self._passages.titles[row]:
                    found = max(found, alt_weight)
                elif alt in self._whole.bodies[doc_row]:
                    found = max(found, ELSEWHERE_WEIGHT * alt_weight)
            held += weight * found
            total += weight
        return held / total if total else 0.0

    def _passage(self, row: int, score: float) -> Passage:
        chunk = self._chunks[row]
        return Passage(
            doc_id=chunk.doc_id, title=chunk.title, text=chunk.text, snippet=snippet(chunk.text), score=score
        )


def snippet(text: str) -> str:
    """The opening of ``text``, cut at a sentence or word boundary."""
    if len(text) <= _SNIPPET_CHARS:
        return text
    cut = text[:_SNIPPET_CHARS]
    sentence_end = cut.rfind(". ")
    if sentence_end > _SNIPPET_CHARS // 2:
        return cut[: sentence_end + 1]
    return cut[: cut.rfind(" ")].rstrip(",;:") + "…"
