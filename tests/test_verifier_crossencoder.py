"""Behaviour checks of the shipped grounding cross-encoder (a real model, run offline)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from guardrail.errors import ModelLoadError
from guardrail.types import Claim, Label, VerificationItem, Window
from guardrail.verifiers.crossencoder import (
    DEFAULT_MODEL_DIR,
    CrossEncoderVerifier,
    hypothesis_text,
    premise_text,
    premise_windows,
)

# A candidate model folder (e.g. a fresh training run) can be checked before it is shipped.
MODEL_DIR = Path(os.environ.get("GUARDRAIL_GROUNDING_MODEL_DIR") or DEFAULT_MODEL_DIR)

pytestmark = pytest.mark.skipif(
    not (MODEL_DIR / "model.onnx").is_file(), reason=f"no grounding model at {MODEL_DIR} (not shipped yet)"
)

EVIDENCE = (
    "The Eiffel Tower was completed in 1889 for the World's Fair in Paris. It is 330 metres tall and "
    "was designed by the engineering company of Gustave Eiffel."
)


@pytest.fixture(scope="module")
def verifier() -> CrossEncoderVerifier:
    return CrossEncoderVerifier(MODEL_DIR, threads=1)


def _item(claim: str, windows: list[str] | None = None, cid: str = "c0", question: str | None = None) -> VerificationItem:
    texts = [EVIDENCE] if windows is None else windows
    ws, pos = [], 0
    for i, t in enumerate(texts):
        ws.append(Window(evidence_id="doc1", start=pos, end=pos + len(t), text=t, score=1.0 - 0.1 * i))
        pos += len(t) + 1
    return VerificationItem(claim=Claim(id=cid, text=claim, start=0, end=len(claim)), windows=ws, question=question)


def test_predict_returns_probabilities(verifier: CrossEncoderVerifier) -> None:
    probs = verifier.predict([(EVIDENCE, "The tower was completed in 1889."), (EVIDENCE, "It is in Paris.")])
    assert probs.shape == (2, len(verifier.labels))
    assert np.all(probs >= 0) and np.allclose(probs.sum(axis=1), 1.0, atol=1e-5)
    assert verifier.predict([]).shape == (0, len(verifier.labels))


@pytest.mark.parametrize(
    "supported, contradicted",
    [
        ("The Eiffel Tower was completed in 1889.", "The Eiffel Tower was completed in 1925."),
        ("The tower is 330 metres tall.", "The tower is 90 metres tall and stands in London."),
        ("Gustave Eiffel's company designed the tower.", "The tower was designed by Leonardo da Vinci."),
    ],
)
def test_supported_claim_scores_lower_than_contradicted(verifier, supported: str, contradicted: str) -> None:
    good, bad = verifier.verify([_item(supported, cid="good"), _item(contradicted, cid="bad")])
    assert good.hallucination_score < bad.hallucination_score, (good, bad)


def test_verdict_fields(verifier: CrossEncoderVerifier) -> None:
    item = _item("The Eiffel Tower was completed in 1925 [1].", windows=[EVIDENCE, "Unrelated text about cheese."])
    (v,) = verifier.verify([item])
    assert v.claim_id == "c0" and v.verifier == verifier.name
    assert 0.0 <= v.hallucination_score <= 1.0 and 0.0 <= v.confidence <= 1.0
    assert v.label in {Label.supported, Label.unsupported, Label.contradicted}
    # The evidence span lies in the best window (the whole window, or with a fusion head the sentence
    # the heuristic features rest on), located in its evidence document.
    assert v.evidence_span is not None and v.evidence_span.text in EVIDENCE and v.evidence_ids == ["doc1"]
    assert EVIDENCE[v.evidence_span.start : v.evidence_span.end] == v.evidence_span.text
    if v.label is Label.supported:
        assert v.confidence == pytest.approx(1 - v.hallucination_score)
    else:
        assert v.hallucination_score >= verifier.thresholds[v.label.value]


def test_inputs_strip_citations_and_rank_windows() -> None:
    item = _item("Built in 1889 [2][doc-a].", windows=["second best", "best"], question="When was it built?")
    item.windows[1].score = 5.0
    assert hypothesis_text(item) == "Built in 1889."
    assert premise_text(item).splitlines() == ["Question: When was it built?", "best", "second best"]


def test_premise_is_cut_from_long_windows_around_the_claim() -> None:
    long_a = ("Paris is the capital of France. " * 6) + "The Eiffel Tower was completed in 1889 for the World's Fair."
    long_b = "Cheese is made from milk. " * 8 + "Gustave Eiffel's company designed the tower."
    context = long_a + " " + long_b
    item = _item("The tower was completed in 1889.", windows=[long_a, long_b])
    cut = premise_windows(item, window_tokens=20, top_k=2)
    assert len(cut) == 2
    assert "1889" in cut[0].text and cut[0].score >= cut[1].score
    for w in cut:  # offsets still point into the evidence document, not into the long window
        assert context[w.start : w.end] == w.text and w.evidence_id == "doc1"
    lines = premise_text(item, window_tokens=20, top_k=2).splitlines()
    assert lines == [w.text.strip() for w in cut]
    assert premise_text(item) == f"{long_a}\n{long_b}"  # no cut: the windows as selected


def test_empty_windows_are_unevaluatable(verifier: CrossEncoderVerifier) -> None:
    items = [_item("Anything at all.", windows=[], cid="a"), _item("Built in 1889.", cid="b"),
             _item("Whitespace only.", windows=["   "], cid="c")]
    out = verifier.verify(items)
    assert [v.claim_id for v in out] == ["a", "b", "c"]
    assert out[0].label is Label.unevaluatable and out[0].reason
    assert out[2].label is Label.unevaluatable
    assert out[1].label is not Label.unevaluatable


def test_calibration_is_monotonic(verifier: CrossEncoderVerifier) -> None:
    p_sup = np.linspace(0.01, 0.99, 25)
    probs = np.zeros((25, len(verifier.labels)))
    probs[:, verifier.labels.index("supported")] = p_sup
    probs[:, [i for i, n in enumerate(verifier.labels) if n != "supported"][0]] = 1 - p_sup
    feats = None
    if verifier.fusion is not None:  # hold the heuristic features fixed: only the model's output moves
        from guardrail.verifiers.heuristic import FEATURES

        feats = np.zeros((25, len(FEATURES)))
        feats[:, FEATURES.index("best_cosine")] = 0.7
        # The fusion head must trust the cross-encoder: more "not supported" from it, higher score.
        assert verifier.fusion["weights"][verifier.fusion["features"].index("cross_encoder_logit")] > 0
    scores = verifier.calibrate(probs, feats)
    assert np.all(np.diff(scores) <= 1e-12) and np.all((scores > 0) & (scores < 1))


def _edited_copy(tmp_path: Path, edit) -> Path:
    """A copy of the model folder whose config.json ``edit(config)`` changed; skips without a fusion head."""
    folder = tmp_path / "model"
    shutil.copytree(MODEL_DIR, folder)
    config = json.loads((folder / "config.json").read_text())
    if "fusion" not in config:
        pytest.skip("the model has no fusion head")
    edit(config)
    (folder / "config.json").write_text(json.dumps(config))
    return folder


@pytest.mark.parametrize(
    "change",
    [
        {"features": ["cross_encoder_logit", "no_such_feature"]},
        {"features": ["uncovered"]},  # the cross-encoder must be one of the inputs
        {"features": ["cross_encoder_logit", "heuristic_logit"], "heuristic": "heuristic-v-old"},
    ],
)
def test_fusion_inputs_must_fit_this_version(tmp_path: Path, change: dict) -> None:
    folder = _edited_copy(tmp_path, lambda config: config["fusion"].update(change))
    with pytest.raises(ModelLoadError, match="fusion.features"):
        CrossEncoderVerifier(folder)


def test_hard_checks_floor_a_conflicting_number_at_the_heuristic_score(tmp_path: Path) -> None:
    folder = _edited_copy(tmp_path, lambda config: config.update(hard_checks=["number_conflict", "temporal_conflict"]))
    verifier = CrossEncoderVerifier(folder, threads=1)
    from guardrail.verifiers.heuristic import FEATURES, HeuristicVerifier

    probs = np.array([[0.99, 0.005, 0.005]] * 2)  # the model is sure both claims are supported
    feats = np.zeros((2, len(FEATURES)))
    feats[:, FEATURES.index("best_cosine")] = 0.9
    feats[1, FEATURES.index("number_conflict")] = 1.0
    calm, hit = verifier.calibrate(probs, feats)
    assert hit >= HeuristicVerifier.score(feats[1]) - 1e-12 and hit > calm
    (v,) = verifier.verify([_item("The Eiffel Tower was completed in 1925.")])
    assert v.label is Label.contradicted and v.hallucination_score >= verifier.thresholds["contradicted"]


def test_unknown_hard_check_raises_model_load_error(tmp_path: Path) -> None:
    folder = _edited_copy(tmp_path, lambda config: config.update(hard_checks=["number_conflict", "no_such_feature"]))
    with pytest.raises(ModelLoadError, match="hard_checks"):
        CrossEncoderVerifier(folder)


def test_guardrail_runs_the_shipped_model_with_its_settings() -> None:
    if MODEL_DIR != DEFAULT_MODEL_DIR:
        pytest.skip("checking a candidate folder, not the shipped one")
    from guardrail import Guardrail

    guard = Guardrail(verifier="grounding")
    assert isinstance(guard.verifier, CrossEncoderVerifier)
    assert guard.threshold == pytest.approx(guard.verifier.recommended_threshold)
    for key, value in guard.verifier.evidence_selector.items():
        assert getattr(guard.selector, key) == value
    good = guard.check("The Eiffel Tower was completed in 1889.", EVIDENCE)
    bad = guard.check("The Eiffel Tower was completed in 1925 in London.", EVIDENCE)
    assert not good.hallucinated and bad.hallucinated
    # A swapped number alone, with every other word supported (the policy demo's "wrong dose").
    dose = "The usual adult dose is 500 mg every 8 hours. Common side effects include nausea."
    assert not guard.check("The usual adult dose is 500 mg every 8 hours.", dose).hallucinated
    assert guard.check("The usual adult dose is 500 mg every 12 hours.", dose).hallucinated
    assert bad.verdicts[0].verifier == guard.verifier.name


def test_missing_folder_raises_model_load_error(tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError, match="not found"):
        CrossEncoderVerifier(tmp_path / "nope")


def test_missing_model_file_raises_model_load_error(tmp_path: Path) -> None:
    broken = tmp_path / "model"
    broken.mkdir()
    config = json.loads((MODEL_DIR / "config.json").read_text())
    config["tokenizer_file"] = str((MODEL_DIR / config["tokenizer_file"]).resolve())
    (broken / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelLoadError, match="model.onnx"):
        CrossEncoderVerifier(broken)
    shutil.copy2(MODEL_DIR / "config.json", broken / "config.json")
    (broken / "config.json").write_text("{not json")
    with pytest.raises(ModelLoadError, match="config"):
        CrossEncoderVerifier(broken)


def test_a_candidate_folder_is_selectable_by_spec() -> None:
    from guardrail.verifiers import make_verifier

    v = make_verifier(f"grounding:{MODEL_DIR}")
    assert isinstance(v, CrossEncoderVerifier) and v.model_dir == MODEL_DIR


def test_a_pairs_score_does_not_depend_on_what_is_checked_with_it() -> None:
    """The same pair scores the same alone, in a batch, and from several callers at once."""
    pairs = [(EVIDENCE, "The tower was completed in 1889."), (EVIDENCE, "It is 300 metres tall."),
             ("The meeting is on Monday.", "The meeting is on Tuesday, in room 4B beside the park and the lake."),
             ("Water boils at 100 degrees at sea level.", "Water boils at 90 degrees.")]
    alone = np.stack([CrossEncoderVerifier(MODEL_DIR, threads=1).predict([p])[0] for p in pairs])
    for threads in (1, 2):
        together = CrossEncoderVerifier(MODEL_DIR, threads=threads).predict(pairs, batch_size=32)
        np.testing.assert_allclose(together, alone, atol=1e-6)


def test_a_claim_without_a_final_period_is_read_as_a_sentence() -> None:
    # A heading, a table cell or a list item scores as the same sentence would; a field stays as it is.
    assert hypothesis_text(_item("It was completed in 1889")) == "It was completed in 1889."
    assert hypothesis_text(_item("Is it 330 metres tall?")) == "Is it 330 metres tall?"
    field = VerificationItem(claim=Claim(id="f", text="1889", start=0, end=4, kind="field", statement="completed: 1889"),
                             windows=[Window(evidence_id="d", start=0, end=len(EVIDENCE), text=EVIDENCE)])
    assert not hypothesis_text(field).endswith(".")
