from __future__ import annotations

import pytest

from agent.knowledge import KnowledgeIndex, load_bundled_corpus
from agent.knowledge.corpus import parse_document


@pytest.fixture(scope="module")
def index() -> KnowledgeIndex:
    return KnowledgeIndex(load_bundled_corpus())


def test_the_bundled_corpus_has_at_least_30_documents_with_stable_ids(index: KnowledgeIndex) -> None:
    documents = load_bundled_corpus()
    assert len(documents) >= 30
    assert len({d.doc_id for d in documents}) == len(documents)
    assert all(d.doc_id.startswith("kb-") and d.title and d.body for d in documents)


@pytest.mark.parametrize(
    ("question", "doc_id"),
    [
        ("How do I reset my password?", "kb-password-reset"),
        ("how do i resett my pasword", "kb-password-reset"),
        ("What are the API rate limits?", "kb-api-rate-limits"),
        ("How can I export my data as CSV?", "kb-export-workspace-data"),
        ("How do I set up two-factor authentication?", "kb-two-factor-authentication"),
        ("Where can I download my invoices?", "kb-find-invoices"),
    ],
)
def test_search_ranks_the_relevant_document_first(index: KnowledgeIndex, question: str, doc_id: str) -> None:
    assert index.search(question, 3)[0].doc_id == doc_id


def test_search_finds_nothing_for_out_of_scope_questions(index: KnowledgeIndex) -> None:
    assert index.search("What is the capital of France?", 3) == []


def test_search_treats_query_syntax_as_words(index: KnowledgeIndex) -> None:
    found = index.search('"password" -* ^ AND (reset)', 3)
    assert [p.doc_id for p in found][:1] == ["kb-password-reset"]
    assert index.search('password" OR NEAR(x) AND -* ^', 3) == index.search("password near x", 3)


def test_a_document_needs_a_title_line() -> None:
    with pytest.raises(ValueError, match="must start with a '# Title' line"):
        parse_document("kb-x", "no title here")
