"""Pure pieces of the grounding model's recipe: labels from gold spans, the fusion head, Platt scaling."""

from __future__ import annotations

import numpy as np
import pytest

from guardrail.train.grounding import best_threshold, claim_label, fit_logistic, fit_platt
from guardrail.verifiers.crossencoder import fuse


def test_claim_label_takes_the_largest_overlapping_span() -> None:
    spans = [{"start": 0, "end": 5, "label_type": "Evident Baseless Info"},
             {"start": 5, "end": 30, "label_type": "Subtle Conflict"}]
    assert claim_label(0, 40, spans) == "contradicted"
    assert claim_label(0, 5, spans) == "unsupported"
    assert claim_label(40, 60, spans) == "supported"


def test_fit_logistic_recovers_known_weights() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(20000, 2))
    p = 1 / (1 + np.exp(-(0.5 + 2.0 * x[:, 0] - 1.0 * x[:, 1])))
    y = (rng.random(20000) < p).astype(float)
    w, b = fit_logistic(x, y, l2=1e-3)
    assert w == pytest.approx([2.0, -1.0], abs=0.1) and b == pytest.approx(0.5, abs=0.1)


def test_fuse_is_the_logistic_of_standardised_named_inputs() -> None:
    from guardrail.verifiers.heuristic import FEATURES, HeuristicVerifier

    fusion = {"features": ["cross_encoder_logit", "uncovered"], "mean": [0.0, 1.0], "scale": [2.0, 1.0],
              "weights": [1.0, -0.5], "bias": 0.25}
    p = np.array([0.5, 0.9])
    feats = np.zeros((2, len(FEATURES)))
    feats[:, FEATURES.index("uncovered")] = [1.0, 3.0]
    z0 = 0.25 + 1.0 * (0.0 - 0.0) / 2.0 - 0.5 * (1.0 - 1.0)
    z1 = 0.25 + 1.0 * np.log(9.0) / 2.0 - 0.5 * (3.0 - 1.0)
    assert fuse(p, feats, fusion) == pytest.approx(1 / (1 + np.exp(-np.array([z0, z1]))))
    # The stacked head reads the heuristic's own score as a logit.
    stacked = {"features": ["heuristic_logit"], "mean": [0.0], "scale": [1.0], "weights": [1.0], "bias": 0.0}
    assert fuse(p, feats, stacked) == pytest.approx([HeuristicVerifier.score(row) for row in feats])


def test_fusion_feature_names() -> None:
    from guardrail.train.grounding import fusion_feature_names
    from guardrail.verifiers.heuristic import FEATURES

    assert fusion_feature_names("stacked") == ["cross_encoder_logit", "heuristic_logit"]
    assert fusion_feature_names("full") == ["cross_encoder_logit", *FEATURES]
    assert fusion_feature_names("cross_encoder_logit, uncovered") == ["cross_encoder_logit", "uncovered"]


def test_fit_platt_fixes_an_overconfident_score() -> None:
    rng = np.random.default_rng(1)
    true_p = rng.uniform(0.05, 0.95, 20000)
    y = (rng.random(20000) < true_p).astype(float)
    logit = np.log(true_p / (1 - true_p))
    overconfident = 1 / (1 + np.exp(-3 * logit))
    a, b = fit_platt(overconfident, y)
    assert a == pytest.approx(1 / 3, abs=0.05) and b == pytest.approx(0.0, abs=0.05)


def test_best_threshold_maximises_response_f1() -> None:
    scores = {"a": 0.9, "b": 0.6, "c": 0.3, "d": 0.1}
    gold = {"a": True, "b": True, "c": False, "d": False}
    t, f1 = best_threshold(scores, gold)
    assert f1 == pytest.approx(1.0) and 0.3 < t <= 0.6


def test_best_threshold_at_a_minimum_precision_takes_the_most_recall() -> None:
    scores = {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.5, "e": 0.4, "f": 0.2}
    gold = {"a": True, "b": False, "c": True, "d": True, "e": False, "f": True}
    # F1 alone takes everything (0.2: 4 of 6 flagged right, all recalled); at precision >= 0.75 the lowest
    # cut that keeps it is 0.5 (3 of 4 right), and nothing lower does.
    assert best_threshold(scores, gold)[0] == pytest.approx(0.2)
    t, _ = best_threshold(scores, gold, min_precision=0.75)
    assert t == pytest.approx(0.5)


def test_fusion_head_is_fitted_on_dev_half_a_only(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """Half B is the evaluation part: no claim of it may reach the fusion head's fit."""
    import argparse

    from guardrail.train import grounding as g

    pairs = [{"split": "dev", "rid": rid, "label": label, "item": {"claim": {"id": f"{rid}::c{i}"}}}
             for i, (rid, label) in enumerate([("a1", "supported"), ("b1", "unsupported"), ("a2", "contradicted"),
                                               ("b2", "supported"), ("a1", "supported")])]
    pairs.insert(0, {"split": "train", "rid": "t1", "label": "unsupported", "item": {"claim": {"id": "t1::c0"}}})
    dev = [p for p in pairs if p["split"] == "dev"]
    monkeypatch.setattr(g, "read_pairs", lambda work: pairs)
    monkeypatch.setattr(g, "dev_halves", lambda rids, seed: ({"a1", "a2"}, {"b1", "b2"}))
    monkeypatch.setattr(g, "dev_probs", lambda work, v, ps: np.array([[float(i), 0.0, 0.0] for i in range(len(ps))]))
    monkeypatch.setattr(g, "heuristic_features", lambda work, name, ps, similarity="embedding": np.arange(len(ps), dtype=float)[:, None])
    args = argparse.Namespace(fusion_on="dev-a", seed=13, similarity="embedding")
    probs, feats, y, where = g.fusion_data(tmp_path, None, args)
    half_a = [i for i, p in enumerate(dev) if p["rid"].startswith("a")]
    assert probs[:, 0].tolist() == half_a and feats[:, 0].tolist() == half_a
    assert y.tolist() == [0.0, 1.0, 0.0] and "half A" in where
