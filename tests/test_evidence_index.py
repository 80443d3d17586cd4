"""The per-context index: built once per context, reused across calls, never shared between contexts."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import guardrail.evidence as evidence
from guardrail import Guardrail
from guardrail.errors import InputError
from guardrail.evidence import ContextIndex, EvidenceSelector, IndexCache, context_key, normalize_context
from guardrail.types import Claim, Evidence

DOCS = [
    "The Eiffel Tower is in Paris. It was completed in 1889 for the World's Fair. It is 330 metres tall.",
    "The Colosseum is in Rome. It was completed in 80 AD under Titus.",
    "Berlin is the capital of Germany. Its wall fell in 1989.",
]
CLAIMS = ["The Eiffel Tower was completed in 1889.", "The Colosseum is in Rome.", "The wall fell in 1989.",
          "It is 330 metres tall.", "Titus finished it."]


def _claims(texts: list[str]) -> list[Claim]:
    return [Claim(id=f"c{i}", text=t, start=0, end=len(t)) for i, t in enumerate(texts, 1)]


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Counts window cuts (per passage) and BM25 index builds (per context) inside guardrail.evidence."""
    counts = {"windows": 0, "bm25": 0}
    make_windows, bm25 = evidence.make_windows, evidence.BM25

    def counting_windows(*a, **kw):
        counts["windows"] += 1
        return make_windows(*a, **kw)

    class CountingBM25(bm25):
        def __init__(self, *a, **kw):
            counts["bm25"] += 1
            super().__init__(*a, **kw)

    monkeypatch.setattr(evidence, "make_windows", counting_windows)
    monkeypatch.setattr(evidence, "BM25", CountingBM25)
    return counts


def _picked(items) -> list[list[tuple[str, int, int]]]:
    return [[(w.evidence_id, w.start, w.end) for w in it.windows] for it in items]


def test_two_calls_with_the_same_documents_build_the_index_once(builds):
    sel = EvidenceSelector(method="bm25", index_cache=IndexCache())
    first = sel.select(_claims(CLAIMS), normalize_context(DOCS), "When?")
    assert builds == {"windows": 3, "bm25": 1}  # every claim ranked in one pass: one cut per passage, one index
    again = sel.select(_claims(CLAIMS[::-1]), normalize_context(list(DOCS)), None)  # new objects, same content
    assert builds == {"windows": 3, "bm25": 1}
    assert _picked(again) == _picked(first)[::-1]
    assert sel.index_cache.hits == 1 and sel.index_cache.builds == 1


def test_cached_selection_equals_a_fresh_one():
    cached = EvidenceSelector(method="bm25", index_cache=IndexCache())
    fresh = EvidenceSelector(method="bm25", index_cache=IndexCache(max_entries=0))
    ev = normalize_context(DOCS)
    for _ in range(2):
        a, b = cached.select(_claims(CLAIMS), ev), fresh.select(_claims(CLAIMS), ev)
        assert _picked(a) == _picked(b)
        assert [[w.score for w in it.windows] for it in a] == [[w.score for w in it.windows] for it in b]
    assert len(fresh.index_cache) == 0 and fresh.index_cache.builds == 2


@pytest.mark.parametrize("other", [
    [DOCS[0], DOCS[1], DOCS[2].replace("1989", "1988")],  # one character
    [Evidence(id="a", text=DOCS[0]), Evidence(id="2", text=DOCS[1]), Evidence(id="3", text=DOCS[2])],  # an id
    [DOCS[0] + DOCS[1], DOCS[2]],  # the same text split otherwise
    [DOCS[0], DOCS[1]],  # a passage fewer
])
def test_different_contexts_do_not_collide(builds, other):
    sel = EvidenceSelector(method="bm25", index_cache=IndexCache())
    sel.select(_claims(CLAIMS), normalize_context(DOCS))
    items = sel.select(_claims(CLAIMS), normalize_context(other))
    assert builds["bm25"] == 2 and len(sel.index_cache) == 2
    ev = {e.id: e.text for e in normalize_context(other)}
    for it in items:  # every window comes from, and quotes, the second context
        assert all(ev[w.evidence_id][w.start : w.end] == w.text for w in it.windows)


def test_window_settings_and_flattening_are_part_of_the_key():
    ev = normalize_context(DOCS)
    flat = [e.model_copy(update={"metadata": {"flattened": True}}) for e in ev]
    keys = {context_key(ev, 200, 1), context_key(ev, 80, 1), context_key(ev, 200, 0), context_key(flat, 200, 1)}
    assert len(keys) == 4
    assert context_key(ev, 200, 1) == context_key(normalize_context(list(DOCS)), 200, 1)
    split = [Evidence(id="x", text="ab"), Evidence(id="y", text="c")]
    moved = [Evidence(id="x", text="a"), Evidence(id="y", text="bc")]
    assert context_key(split, 200, 1) != context_key(moved, 200, 1)
    shared = IndexCache()
    EvidenceSelector(method="bm25", index_cache=shared).select(_claims(CLAIMS), ev)
    EvidenceSelector(method="bm25", max_window_tokens=20, index_cache=shared).select(_claims(CLAIMS), ev)
    assert shared.builds == 2


def test_the_cache_is_a_bounded_lru(builds):
    sel = EvidenceSelector(method="bm25", index_cache=IndexCache(max_entries=2))
    a, b, c = (normalize_context([d]) for d in DOCS)
    for ev in (a, b, a, c):  # a is used again before c comes, so b is the least recently used
        sel.select(_claims(CLAIMS[:1]), ev)
    assert builds["bm25"] == 3 and len(sel.index_cache) == 2
    sel.select(_claims(CLAIMS[:1]), a)
    assert builds["bm25"] == 3  # a was kept
    sel.select(_claims(CLAIMS[:1]), b)
    assert builds["bm25"] == 4  # b had been evicted


def test_the_cache_is_bounded_in_characters_and_keeps_no_context_over_it():
    cache = IndexCache(max_entries=64, max_chars=len(DOCS[0]) + len(DOCS[1]))
    sel = EvidenceSelector(method="bm25", index_cache=cache)
    sel.select(_claims(CLAIMS[:1]), normalize_context(DOCS))  # all three passages: over the bound
    assert len(cache) == 0
    for d in DOCS:
        sel.select(_claims(CLAIMS[:1]), normalize_context([d]))
    assert len(cache) == 2 and cache.chars == len(DOCS[1]) + len(DOCS[2]) <= cache.max_chars
    with pytest.raises(InputError):
        IndexCache(max_entries=-1)


def test_concurrent_first_uses_give_the_serial_answer():
    ev = normalize_context(DOCS)
    expected = _picked(EvidenceSelector(method="bm25", index_cache=IndexCache(max_entries=0)).select(_claims(CLAIMS), ev))
    sel = EvidenceSelector(method="bm25", index_cache=IndexCache())
    results: list[list] = []
    barrier = threading.Barrier(8)

    def work() -> None:
        barrier.wait()
        results.append(_picked(sel.select(_claims(CLAIMS), ev)))

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [expected] * 8 and len(sel.index_cache) == 1


def test_an_index_builds_its_parts_once_and_only_when_used(builds):
    index = ContextIndex(EvidenceSelector().windows(normalize_context(DOCS)))
    assert builds["bm25"] == 0  # built on first use: a selector that only embeds never pays for it
    assert index.bm25 is index.bm25 and builds["bm25"] == 1
    assert index.window_values[0] >= {"1889", "330"}
    assert index.sentences(0)[0] == "The Eiffel Tower is in Paris."


def test_guardrail_checks_against_the_same_documents_reuse_one_index(builds):
    cache = IndexCache()
    g = Guardrail("heuristic", selector=EvidenceSelector(method="bm25", index_cache=cache))
    g.check("The Eiffel Tower was completed in 1889 [1]. The Colosseum is in Rome [2].", DOCS)
    # the claims' context, and the two single passages the citations cite
    assert (cache.builds, cache.hits) == (3, 0)
    g.check("The Colosseum is in Rome [2].", list(DOCS))
    assert (cache.builds, cache.hits) == (3, 2)
    list(g.check_batch([{"response": "Berlin is the capital of Germany.", "context": DOCS}] * 3))
    assert (cache.builds, cache.hits) == (3, 5)


def test_bm25_scores_match_the_okapi_formula():
    docs = [["tower", "paris", "tower"], ["rome"], ["paris", "berlin", "rome", "wall"]]
    bm25 = evidence.BM25(docs)
    lengths = np.array([3, 1, 4], dtype=float)
    norm = 1.5 * (1 - 0.75 + 0.75 * lengths / lengths.mean())
    idf = {t: np.log(1 + (3 - n + 0.5) / (n + 0.5)) for t, n in {"tower": 1, "paris": 2}.items()}
    expected = np.array([idf["tower"] * 2 * 2.5 / (2 + norm[0]) + idf["paris"] * 2.5 / (1 + norm[0]), 0.0,
                         idf["paris"] * 2.5 / (1 + norm[2])])
    assert np.allclose(bm25.scores(["tower", "paris", "paris", "nowhere"]), expected)


def test_tfidf_parses_each_evidence_sentence_once_across_claims(monkeypatch: pytest.MonkeyPatch):
    parsed: list[str] = []
    content_terms = evidence.content_terms

    def counting(text: str) -> list[str]:
        parsed.append(text)
        return content_terms(text)

    monkeypatch.setattr(evidence, "content_terms", counting)
    sentences = ["The Zeppelin hangar at Friedrichshafen opened in 1909.", "Its roof spans 240 metres of steel."]
    first = evidence.tfidf_cosine("The hangar opened in 1909.", sentences)
    second = evidence.tfidf_cosine("The roof spans 240 metres.", sentences)
    again = evidence.tfidf_cosine("The hangar opened in 1909.", sentences)
    assert sorted(parsed).count(sentences[0]) == 1 and sorted(parsed).count(sentences[1]) == 1
    assert first[0] > first[1] and second[1] > second[0]
    assert np.array_equal(first, again)  # the cached counts are never changed by a call
