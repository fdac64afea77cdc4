"""The corpus cut into passages: what retrieval ranks, what the model is handed and what a citation quotes.

A passage is two neighbouring sentences of one paragraph (a paragraph of one or two sentences is one
passage). Windows overlap by a sentence, so whichever sentence answers a question opens or closes a passage
that holds it, and a model that quotes a passage's first two sentences quotes that sentence. Every passage's
text is a piece of its document's body, word for word.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from agent.knowledge.corpus import Document

__all__ = ("SENTENCES_PER_PASSAGE", "Chunk", "chunk_document", "split_sentences")

SENTENCES_PER_PASSAGE = 2

_SENTENCE_END = re.compile(r"(?<=\.)\s+(?=[A-Z])")
"""A full stop, then a capital: the boundary the stub model splits on too, so a passage is what it quotes."""


class Chunk(msgspec.Struct, frozen=True, kw_only=True):
    doc_id: str
    title: str
    text: str
    paragraph: int
    """The paragraph of the document it comes from, 0 the first."""
    sentence: int
    """Its first sentence within that paragraph, 0 the first."""


def split_sentences(paragraph: str) -> list[str]:
    return [sentence for sentence in _SENTENCE_END.split(" ".join(paragraph.split())) if sentence]


def chunk_document(document: Document) -> list[Chunk]:
    """The document's passages, in reading order."""
    chunks: list[Chunk] = []
    for number, paragraph in enumerate(document.parts()):
        sentences = split_sentences(paragraph)
        starts = range(max(1, len(sentences) - SENTENCES_PER_PASSAGE + 1))
        chunks.extend(
            Chunk(
                doc_id=document.doc_id,
                title=document.title,
                text=" ".join(sentences[start : start + SENTENCES_PER_PASSAGE]),
                paragraph=number,
                sentence=start,
            )
            for start in starts
        )
    return chunks
