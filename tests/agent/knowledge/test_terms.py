"""A question's words and the corpus's: stems, stop words, spelling and synonyms."""

from __future__ import annotations

import pytest

from agent.knowledge import KnowledgeIndex, load_bundled_corpus
from agent.knowledge.terms import SYNONYMS, edit_distance, stem, words


@pytest.fixture(scope="module")
def index() -> KnowledgeIndex:
    return KnowledgeIndex(load_bundled_corpus())


@pytest.mark.parametrize(
    ("forms", "common"),
    [
        (("refund", "refunds", "refunded", "refunding"), "refund"),
        (("invoice", "invoices", "invoicing"), "invoic"),
        (("expire", "expires", "expired"), "expir"),
        (("delete", "deleted", "deletion"), "delet"),
        (("policy", "policies"), "policy"),
    ],
)
def test_inflections_share_a_stem(forms: tuple[str, ...], common: str) -> None:
    assert {stem(form) for form in forms} == {common}


def test_every_synonym_is_a_word_of_the_corpus(index: KnowledgeIndex) -> None:
    corpus = {stem(word) for doc in load_bundled_corpus() for word in words(f"{doc.title} {doc.body}")}
    missing = {(word, part) for word, targets in SYNONYMS.items() for target in targets for part in words(target)} - {
        (word, part)
        for word, targets in SYNONYMS.items()
        for target in targets
        for part in words(target)
        if stem(part) in corpus
    }
    assert not missing, "a synonym the corpus never uses finds nothing"


def test_edit_distance_counts_a_swap_of_neighbours_as_one_slip() -> None:
    assert edit_distance("reste", "reset") == 1
    assert edit_distance("pasword", "password") == 1
    assert edit_distance("weather", "whether") == 2


def test_a_typo_is_corrected_to_the_corpus_word_used_most(index: KnowledgeIndex) -> None:
    # "reste" is one slip from both "rest" and "reset"; the corpus says "reset" far more often
    assert index.query_terms("how do i reste my pasword") == ["reset", "password"]


def test_a_real_word_two_slips_from_a_corpus_word_is_left_alone(index: KnowledgeIndex) -> None:
    assert index.query_terms("What's the weather tomorrow?") == ["weather", "tomorrow"]


def test_a_word_brings_the_corpus_words_for_the_same_thing_at_a_lower_weight(index: KnowledgeIndex) -> None:
    (term,) = index.query("login")
    assert term.alternatives["login"] == 1.0
    assert 0 < term.alternatives["sign"] < 1.0


def test_stop_words_and_record_numbers_say_nothing_of_the_topic(index: KnowledgeIndex) -> None:
    assert index.query_terms("What do invoice numbers look like, INV-1001 or 1234567812345678?") == [
        "invoice",
        "numbers",
    ]
