"""The benches' mem0 baseline is mem0 at its best: its keyword search runs over spaCy lemmas and its
entity boost ranks linked memories, and the status line tells when either is idle. A mem0 upgrade
that moves its spaCy loader, or a lost model package, would quietly turn the baseline back into
plain cosine search; these tests fail then."""

from __future__ import annotations

import pytest

from bench import mem0_baseline

CAROLINE = "Caroline said, on 8 May 2023: I went to the LGBTQ support group in Boston yesterday."
MELANIE = "Melanie said, on 8 May 2023: I painted a lake at sunrise last week."


@pytest.fixture
def mem0_loader():
    """mem0's spaCy loader as it was, after the test (its state is module-wide)."""
    from mem0.utils import spacy_models

    names = ("_nlp_full", "_nlp_lemma", "_load_failed_full", "_load_failed_lemma")
    saved = {name: getattr(spacy_models, name) for name in names}
    yield
    for name, value in saved.items():
        setattr(spacy_models, name, value)


def test_it_gives_mem0_the_english_pipeline(mem0_loader):
    from mem0.utils.entity_extraction import extract_entities
    from mem0.utils.lemmatization import lemmatize_for_bm25

    assert mem0_baseline.use_spacy(on=True) is None
    assert mem0_baseline.entity_extraction_on()
    # mem0's own functions: stop words dropped, words reduced to their lemmas.
    assert lemmatize_for_bm25("She was attending meetings") == "attend attending meeting"
    assert ("PROPER", "Boston") in extract_entities(CAROLINE)


def test_withheld_spacy_leaves_mem0_as_without_it(mem0_loader):
    from mem0.utils.entity_extraction import extract_entities
    from mem0.utils.lemmatization import lemmatize_for_bm25

    assert "withheld" in (mem0_baseline.use_spacy(on=False) or "")
    assert not mem0_baseline.entity_extraction_on()
    assert lemmatize_for_bm25("She was attending meetings") == "She was attending meetings"
    assert extract_entities(CAROLINE) == []


def test_a_linked_turn_ranks_by_keyword_and_entity(db, tmp_path, mem0_loader):
    mem0_baseline.use_spacy(on=True)
    mem = mem0_baseline.memory("mem0_test_baseline", history_dir=tmp_path)
    try:
        caroline = mem0_baseline.add_turn(mem, CAROLINE, user_id="u1", dia_id="D1:1")
        mem0_baseline.add_turn(mem, MELANIE, user_id="u1", dia_id="D1:2")
        status = mem0_baseline.status(mem)
        assert "en_core_web_sm" in status
        assert "keyword search on" in status
        assert "entity boost idle" in status  # add(infer=False) linked nothing

        mem0_baseline.link_entities(mem, caroline, CAROLINE, user_id="u1")
        assert "entity boost on" in mem0_baseline.status(mem)
        question = "What did Caroline do in Boston?"
        found = mem.search(question, filters={"user_id": "u1"}, top_k=5, explain=True)
        first = found["results"][0]
        assert first["metadata"]["dia_id"] == "D1:1"
        assert first["score_details"]["bm25_score"] > 0
        assert first["score_details"]["entity_boost"] > 0
        assert "keyword score in the results of 1/1" in mem0_baseline.search_signals([found["results"]])

        mem0_baseline.use_spacy(on=False)
        status = mem0_baseline.status(mem)
        assert "no spaCy pipeline loaded" in status
        assert "entity boost off" in status
    finally:
        mem.entity_store.delete_col()
        mem.vector_store.delete_col()
