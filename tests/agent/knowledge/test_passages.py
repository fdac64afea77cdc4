"""The corpus cut into passages: two neighbouring sentences of one paragraph, word for word."""

from __future__ import annotations

from agent.knowledge import load_bundled_corpus
from agent.knowledge.corpus import parse_document
from agent.knowledge.passages import chunk_document, split_sentences

DOCUMENT = parse_document(
    "kb-x",
    "# Title\n\nFirst one. Second one. Third one.\n\nAlone here.\n\nA  spaced\nline. Then more.",
)


def test_a_document_keeps_its_paragraphs_and_its_body_is_them_joined() -> None:
    assert DOCUMENT.paragraphs == ("First one. Second one. Third one.", "Alone here.", "A spaced line. Then more.")
    assert DOCUMENT.body == " ".join(DOCUMENT.paragraphs)


def test_passages_are_overlapping_pairs_of_sentences_within_a_paragraph() -> None:
    chunks = chunk_document(DOCUMENT)

    assert [(c.paragraph, c.sentence, c.text) for c in chunks] == [
        (0, 0, "First one. Second one."),
        (0, 1, "Second one. Third one."),
        (1, 0, "Alone here."),
        (2, 0, "A spaced line. Then more."),
    ]


def test_every_passage_of_the_corpus_is_a_piece_of_its_document() -> None:
    for document in load_bundled_corpus():
        chunks = chunk_document(document)
        assert chunks
        assert all(chunk.text in document.body and chunk.doc_id == document.doc_id for chunk in chunks)
        sentences = {s for paragraph in document.paragraphs for s in split_sentences(paragraph)}
        assert sentences == {s for chunk in chunks for s in split_sentences(chunk.text)}, "no sentence is lost"


def test_a_sentence_ends_at_a_full_stop_before_a_capital_only() -> None:
    assert split_sentences("Select the Forgot password? link. Use TLS 1.2 or higher. Done.") == [
        "Select the Forgot password? link.",
        "Use TLS 1.2 or higher.",
        "Done.",
    ]
