"""normalize_context, make_windows and EvidenceSelector (BM25 paths need no model; the embedding
paths use the shipped embedder)."""

from __future__ import annotations

import json
import random
import time

import numpy as np
import pytest

from guardrail.errors import InputError
from guardrail.evidence import EvidenceSelector, estimate_tokens, make_windows, normalize_context, sentences_of
from guardrail.types import Claim, Evidence

# ------------------------------------------------------------------ normalize_context


def test_none_and_empty_give_no_evidence():
    assert normalize_context(None) == []
    assert normalize_context("") == []
    assert normalize_context("   \n") == []
    assert normalize_context([]) == []
    assert normalize_context(()) == []


def test_strings_get_one_based_ids():
    ev = normalize_context(["Paris is in France.", "Berlin is in Germany."])
    assert [(e.id, e.text) for e in ev] == [("1", "Paris is in France."), ("2", "Berlin is in Germany.")]
    assert normalize_context("Just one passage.")[0].id == "1"


def test_bytes_strict_utf8_with_offset():
    assert normalize_context("café".encode())[0].text == "café"
    with pytest.raises(InputError, match=r"not valid UTF-8 at byte offset 5"):
        normalize_context(b"hello\xff world")
    with pytest.raises(InputError, match=r"context\[1\].*offset 2"):
        normalize_context(["ok", b"ab\xc3("])


def test_dicts_evidence_and_duck_typed_documents():
    class Doc:  # LangChain Document shape
        def __init__(self, text, meta, id=None):
            self.page_content, self.metadata, self.id = text, meta, id

    class Node:  # LlamaIndex TextNode shape
        def __init__(self, text, node_id):
            self._t, self.node_id, self.metadata = text, node_id, {"file_name": "a.txt"}

        def get_content(self):
            return self._t

    class NodeWithScore:
        def __init__(self, node, score):
            self.node, self.score = node, score

        def get_content(self):
            return self.node.get_content()

    ctx = [
        {"id": "doc-a", "text": "Alpha.", "metadata": {"k": 1}, "title": "T"},
        {"page_content": "Beta.", "source": "http://b"},
        Evidence(id="e", text="Gamma."),
        Doc("Delta.", {"source": "d.pdf"}, id="lc-1"),
        Doc("Epsilon.", {}),
        Node("Zeta.", "n-7"),
        NodeWithScore(Node("Eta.", "n-8"), 0.25),
    ]
    ev = normalize_context(ctx)
    assert [e.id for e in ev] == ["doc-a", "2", "e", "lc-1", "5", "n-7", "n-8"]
    assert [e.text for e in ev] == ["Alpha.", "Beta.", "Gamma.", "Delta.", "Epsilon.", "Zeta.", "Eta."]
    assert ev[0].metadata == {"k": 1, "title": "T"} and ev[0].source == "T"
    assert ev[1].source == "http://b"
    assert ev[3].source == "d.pdf"
    assert ev[5].source == "a.txt"
    assert ev[6].metadata["retrieval_score"] == 0.25
    # a single document (not in a list) is accepted too
    assert normalize_context(Doc("Solo.", {}))[0].text == "Solo."


def test_real_langchain_and_llamaindex_objects():
    lc = pytest.importorskip("langchain_core.documents")
    li = pytest.importorskip("llama_index.core.schema")
    ev = normalize_context(
        [
            lc.Document(page_content="From LangChain.", metadata={"source": "x"}),
            li.NodeWithScore(node=li.TextNode(text="From LlamaIndex.", id_="node-1"), score=0.5),
        ]
    )
    assert [(e.id, e.text, e.source) for e in ev] == [("1", "From LangChain.", "x"), ("node-1", "From LlamaIndex.", None)]


def test_duplicate_ids():
    same = normalize_context([{"id": "a", "text": "x"}, {"id": "a", "text": "x"}])
    assert len(same) == 1
    with pytest.raises(InputError, match="'a' is used by two different passages"):
        normalize_context([{"id": "a", "text": "x"}, {"id": "a", "text": "y"}])


def test_unsupported_types_name_the_item():
    with pytest.raises(InputError, match=r"context\[1\]: unsupported type int"):
        normalize_context(["fine", 3])
    with pytest.raises(InputError, match=r"context: unsupported type float"):
        normalize_context(1.5)
    with pytest.raises(InputError, match=r"\.text: expected a string"):
        normalize_context([{"text": 5}])


RAGTRUTH_D2T = (
    "\n{'name': 'Apna Indian Kitchen', 'city': 'Santa Barbara', 'categories': 'Gluten-Free, Indian', "
    "'hours': {'Tuesday': '16:30-21:0'}, 'attributes': {'BusinessParking': None, 'WiFi': 'no', "
    "'OutdoorSeating': True, 'Parking': \"{'garage': False, 'street': True}\"}, 'business_stars': 4.5, "
    "'review_info': [{'review_stars': 5.0, 'review_text': 'All were awesome. \\n\\nTasty Food.'}]}\nOverview:"
)


def test_python_literal_data_is_flattened():
    (ev,) = normalize_context(RAGTRUTH_D2T)
    assert ev.metadata["flattened"] is True and ev.metadata["structured_format"] == "python"
    lines = ev.text.split("\n")
    assert "name: Apna Indian Kitchen" in lines
    assert "hours.Tuesday: 16:30-21:0" in lines
    assert "attributes.Business Parking: null" in lines  # keys as words: claims say "business parking"
    assert "attributes.Outdoor Seating: true" in lines
    assert "attributes.Parking.street: true" in lines  # stringified dict inside a value
    assert "business stars: 4.5" in lines
    assert "review info[0].review stars: 5.0" in lines
    assert "review info[0].review text: All were awesome. Tasty Food." in lines
    assert lines[-1] == "Overview:"  # the prompt tail after the data is kept, as a line of its own


def test_json_is_flattened_and_plain_text_is_not():
    (ev,) = normalize_context(json.dumps({"a": [1, 2], "b": {"c": "d"}, "e": []}))
    assert ev.text.split("\n") == ["a: 1, 2", "b.c: d", "e: []"]
    assert ev.metadata["structured_format"] == "json"
    (plain,) = normalize_context("[1] Paris is the capital. [2]")
    assert plain.text == "[1] Paris is the capital. [2]" and "flattened" not in plain.metadata
    prose = "A long paragraph of prose that mentions a config.\n{\"a\": 1}\nand keeps going for a while after it, much longer."
    assert normalize_context(prose)[0].text == prose  # a small block inside prose stays prose
    (rec,) = normalize_context({"name": "Cafe", "stars": 4})  # a dict without a text key is data
    assert rec.text == "name: Cafe\nstars: 4"
    (kept,) = normalize_context(Evidence(id="x", text='{"a": 1}'))  # Evidence is taken as given
    assert kept.text == '{"a": 1}'


def test_literal_eval_never_executes_code():
    text = "{'a': __import__('os').system('echo pwned')}"
    (ev,) = normalize_context(text)
    assert ev.text == text and "flattened" not in ev.metadata


# ------------------------------------------------------------------ make_windows


def _check_windows(ev: Evidence, windows, max_tokens: int) -> None:
    covered = np.zeros(len(ev.text), dtype=bool)
    for w in windows:
        assert ev.text[w.start : w.end] == w.text
        assert w.evidence_id == ev.id
        covered[w.start : w.end] = True
    missing = [i for i, ch in enumerate(ev.text) if not covered[i] and not ch.isspace()]
    assert not missing, f"uncovered characters at {missing[:10]}"
    assert [w.start for w in windows] == sorted(w.start for w in windows)


def test_windows_cover_text_exactly_and_overlap_one_sentence():
    rng = random.Random(0)
    vocab = ["alpha", "beta", "gamma", "delta", "4.5", "1,000"]
    sents = [" ".join(rng.choice(vocab) for _ in range(rng.randint(4, 12))).capitalize() + "." for _ in range(80)]
    ev = Evidence(id="d", text="  " + " ".join(sents) + "\n\n- a bullet without a period\n* another")
    ws = make_windows(ev, max_tokens=60, overlap_sentences=1)
    assert len(ws) > 5
    _check_windows(ev, ws, 60)
    for a, b in zip(ws, ws[1:]):
        assert b.start < a.end, "consecutive windows share a sentence"
        assert estimate_tokens(a.text) <= 60 * 1.05 or a.text.count(".") <= 1
    no_overlap = make_windows(ev, max_tokens=60, overlap_sentences=0)
    _check_windows(ev, no_overlap, 60)
    assert all(b.start >= a.end for a, b in zip(no_overlap, no_overlap[1:]))


def test_overlong_sentence_is_split_at_word_boundaries():
    words = [f"word{i}" for i in range(400)]
    ev = Evidence(id="1", text=" ".join(words))
    ws = make_windows(ev, max_tokens=50, overlap_sentences=1)
    _check_windows(ev, ws, 50)
    assert len(ws) >= 8
    for w in ws:
        assert w.text.split()[0] in words and w.text.split()[-1] in words  # never cut inside a word
    blob = Evidence(id="2", text="x" * 5000)  # one "word" longer than any window: cut by characters
    ws = make_windows(blob, max_tokens=50)
    _check_windows(blob, ws, 50)
    assert "".join(w.text for w in ws) == blob.text


def test_flattened_data_windows_by_line():
    (ev,) = normalize_context(RAGTRUTH_D2T)
    ws = make_windows(ev, max_tokens=12, overlap_sentences=0)
    _check_windows(ev, ws, 12)
    assert any("attributes.Wi Fi: no" in w.text.split("\n") for w in ws)


def test_empty_and_bad_arguments():
    assert make_windows(Evidence(id="1", text="   ")) == []
    with pytest.raises(InputError):
        make_windows(Evidence(id="1", text="x"), max_tokens=2)


def test_estimate_tokens_tracks_the_minilm_tokenizer():
    tokenizers = pytest.importorskip("tokenizers")
    from guardrail.embeddings import DEFAULT_EMBEDDER_DIR

    path = DEFAULT_EMBEDDER_DIR / "tokenizer.json"
    if not path.is_file():
        pytest.skip(f"no tokenizer at {path}")
    tok = tokenizers.Tokenizer.from_file(str(path))
    tok.no_truncation()
    text = (
        "The Bergen-Belsen concentration camp, where she had been imprisoned, was liberated on April 15, 1945 -- "
        "two weeks after her supposed death. Researchers re-examined archives of the Red Cross and testimonies."
    ) * 20
    true = len(tok.encode(text).ids) - 2
    assert 0.95 * true <= estimate_tokens(text) <= 1.2 * true


def test_one_megabyte_windows_fast():
    rng = random.Random(1)
    vocab = "the a of market price rose fell percent company said on in 2019 Paris Dr. Smith 3.5 million".split()
    parts = []
    size = 0
    while size < 1_000_000:
        s = " ".join(rng.choice(vocab) for _ in range(rng.randint(5, 40))).capitalize() + ". "
        if rng.random() < 0.05:
            s += "\n\n"
        parts.append(s)
        size += len(s)
    ev = Evidence(id="big", text="".join(parts))
    t0 = time.perf_counter()
    ws = make_windows(ev)
    elapsed = time.perf_counter() - t0
    _check_windows(ev, ws, 200)
    assert elapsed < 3.0, f"windowing 1 MB took {elapsed:.2f} s"  # ~0.5 s measured on 2 busy cores


# ------------------------------------------------------------------ EvidenceSelector


def _claim(i: int, text: str) -> Claim:
    return Claim(id=f"c{i}", text=text, start=0, end=len(text))


DOCS = [
    "The Eiffel Tower is in Paris. It was completed in 1889 for the World's Fair.",
    "Mount Everest is the highest mountain on Earth, at 8,849 metres above sea level.",
    "The Great Wall of China is over 21,000 kilometres long. Construction began in the 7th century BC.",
    "Photosynthesis converts light energy into chemical energy in plants.",
]


def test_bm25_picks_the_matching_passage_and_keeps_context_order():
    sel = EvidenceSelector(top_k=2, method="bm25")
    ev = normalize_context(DOCS)
    items = sel.select([_claim(0, "The Eiffel Tower was finished in 1889 [1]."), _claim(1, "Everest is 8,849 metres high.")], ev, "q?")
    assert [w.evidence_id for w in items[0].windows][0] == "1" or "1" in [w.evidence_id for w in items[0].windows]
    assert items[0].question == "q?"
    best0 = max(items[0].windows, key=lambda w: w.score)
    best1 = max(items[1].windows, key=lambda w: w.score)
    assert best0.evidence_id == "1" and best1.evidence_id == "2"
    for it in items:
        assert len(it.windows) == 2
        assert [(w.evidence_id, w.start) for w in it.windows] == sorted((w.evidence_id, w.start) for w in it.windows)
        assert all(w.score is not None for w in it.windows)


def test_a_window_that_states_the_claims_figure_is_kept():
    # A long record: relevance (here a fixed ranking, as the embedding side gives for reviews that talk
    # about the same things) puts the line with the business's own rating last; the selector swaps the
    # weakest chosen window that states none of the claim's figures for the best one that does.
    docs = ["name: Panino. city: Goleta.", "review stars: 5.0. A sandwich shop in Goleta.",
            "review stars: 4.0. Great sandwiches.", "business stars: 3.5.", "attributes: parking, wifi."]

    class Ranked(EvidenceSelector):
        def score(self, queries, windows, question=None, *, index=None):
            return np.array([[0.9, 0.8, 0.7, 0.1, 0.2]] * len(queries))

    claim = _claim(0, "Panino is a sandwich shop in Goleta rated 3.5 stars.")
    item = Ranked(top_k=3, method="bm25").select([claim], normalize_context(docs))[0]
    assert [w.text for w in item.windows] == [docs[0], docs[1], docs[3]]  # best kept, weakest swapped, context order
    # a claim without figures, or whose figure no window states, keeps the plain ranking
    for text in ("Panino is a sandwich shop in Goleta.", "Panino is rated 2.5 stars."):
        item = Ranked(top_k=3, method="bm25").select([_claim(0, text)], normalize_context(docs))[0]
        assert [w.text for w in item.windows] == docs[:3]


def test_empty_evidence_gives_items_without_windows():
    sel = EvidenceSelector(method="bm25")
    items = sel.select([_claim(0, "Anything.")], [])
    assert len(items) == 1 and items[0].windows == []
    assert sel.select([], normalize_context(DOCS)) == []


def test_claim_without_content_words_uses_the_question():
    sel = EvidenceSelector(top_k=1, method="bm25")
    items = sel.select([_claim(0, "Yes, it is.")], normalize_context(DOCS), question="Is photosynthesis in plants?")
    assert items[0].windows[0].evidence_id == "4"


def test_bad_selector_arguments():
    with pytest.raises(InputError):
        EvidenceSelector(top_k=0)
    with pytest.raises(InputError):
        EvidenceSelector(method="tfidf")  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def embedder():
    from guardrail.embeddings import Embedder
    from guardrail.errors import ModelLoadError

    try:
        return Embedder(threads=2)
    except ModelLoadError as exc:
        pytest.skip(str(exc))


@pytest.mark.parametrize("method", ["embedding", "hybrid"])
def test_embedding_and_hybrid_find_the_paraphrase(embedder, method):
    sel = EvidenceSelector(top_k=1, method=method, embedder=embedder)
    items = sel.select(
        [_claim(0, "Plants turn sunlight into stored chemical energy."), _claim(1, "The tallest peak in the world is Everest.")],
        normalize_context(DOCS),
    )
    assert items[0].windows[0].evidence_id == "4"
    assert items[1].windows[0].evidence_id == "2"


def test_windows_are_embedded_once_per_call(embedder, monkeypatch):
    calls: list[int] = []
    real = embedder.encode

    def counting(texts, batch_size=32):
        calls.append(len(texts))
        return real(texts, batch_size)

    monkeypatch.setattr(embedder, "encode", counting)
    sel = EvidenceSelector(top_k=2, method="hybrid", embedder=embedder)
    sel.select([_claim(i, f"Claim number {i} about Paris.") for i in range(7)], normalize_context(DOCS))
    # one batch of claims, one batch of the windows' sentences (six in the four documents), each once
    assert calls == [7, 6]


def test_long_context_embeds_a_shortlist(embedder, monkeypatch):
    rng = random.Random(2)
    filler = [" ".join(rng.choice("lorem ipsum dolor sit amet consectetur".split()) for _ in range(30)) + "." for _ in range(3000)]
    filler[1777] = "The submarine cable between Lisbon and Recife was laid in 1874."
    ev = [Evidence(id="long", text=" ".join(filler))]
    seen: list[int] = []
    real = embedder.encode
    monkeypatch.setattr(embedder, "encode", lambda t, batch_size=32: (seen.append(len(t)), real(t, batch_size))[1])
    sel = EvidenceSelector(top_k=3, method="hybrid", embedder=embedder, max_embedded_windows=64, shortlist=8)
    items = sel.select([_claim(0, "A cable from Lisbon to Recife was laid in 1874.")], ev)
    per_window = max(len(sentences_of(w)) for w in sel.windows(ev))
    assert seen[1] <= 8 * per_window  # the sentences of 8 windows, not of all ~600
    assert any("Lisbon and Recife" in w.text for w in items[0].windows)
    one_claim = seen[1]
    embedder.clear_cache()
    seen.clear()  # many claims: the total is capped, taken rank by rank across claims
    sel = EvidenceSelector(top_k=3, method="hybrid", embedder=embedder, max_embedded_windows=20, shortlist=8)
    claims = [_claim(0, "A cable from Lisbon to Recife was laid in 1874.")] + [_claim(i, f"Lorem ipsum {i} dolor.") for i in range(1, 12)]
    items = sel.select(claims, ev)
    assert one_claim < seen[1] <= 20 * per_window
    assert any("Lisbon and Recife" in w.text for w in items[0].windows)
