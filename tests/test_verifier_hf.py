"""HFVerifier on a tiny randomly initialised BERT built in the test (no download)."""

from __future__ import annotations

import sys

import pytest

from guardrail.errors import ConfigError, ModelLoadError
from guardrail.types import Claim, Label, VerificationItem, Window
from guardrail.verifiers import Verifier
from guardrail.verifiers.hf import HFVerifier, map_labels

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

WORDS = "the a is in of paris france capital berlin germany tower was built 1889 not river city big small".split()


def _save_model(path, id2label: dict[int, str], bias: list[float] | None = None, seed: int = 0):
    torch.manual_seed(seed)
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + WORDS + [".", ","]
    path.mkdir(parents=True, exist_ok=True)
    (path / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    tok = transformers.BertTokenizerFast(vocab_file=str(path / "vocab.txt"), do_lower_case=True)
    tok.save_pretrained(str(path))
    cfg = transformers.BertConfig(
        vocab_size=len(vocab), hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=37,
        max_position_embeddings=64, num_labels=len(id2label), id2label=id2label, label2id={v: k for k, v in id2label.items()},
    )
    model = transformers.BertForSequenceClassification(cfg).eval()
    if bias is not None:  # make the prediction certain, so the mapping can be checked exactly
        with torch.no_grad():
            model.classifier.weight.zero_()
            model.classifier.bias.copy_(torch.tensor(bias))
    model.save_pretrained(str(path))
    return path


NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}


def _item(i: int, claim: str, windows: list[str]) -> VerificationItem:
    ws = []
    pos = 0
    for j, w in enumerate(windows):
        ws.append(Window(evidence_id=str(j + 1), start=pos, end=pos + len(w), text=w))
        pos += len(w) + 1
    return VerificationItem(claim=Claim(id=f"c{i}", text=claim, start=0, end=len(claim)), windows=ws)


@pytest.mark.parametrize(
    "bias,label,h",
    [([9.0, 0.0, 0.0], Label.supported, 0.0), ([0.0, 9.0, 0.0], Label.unsupported, 1.0), ([0.0, 0.0, 9.0], Label.contradicted, 1.0)],
)
def test_three_class_mapping(tmp_path, bias, label, h):
    ver = HFVerifier(_save_model(tmp_path / "m", NLI, bias), max_length=64)
    assert isinstance(ver, Verifier) and ver.name == "hf:m"
    (v,) = ver.verify([_item(0, "Paris is the capital of France [1].", ["paris is the capital of france ."])])
    assert v.label is label
    assert v.hallucination_score == pytest.approx(h, abs=1e-3)
    assert v.confidence > 0.99
    assert v.evidence_ids == ["1"] and v.verifier == "hf:m"


def test_batching_is_invisible_and_bounded(tmp_path):
    ver = HFVerifier(_save_model(tmp_path / "m", NLI, seed=3), max_length=64, batch_size=4)
    items = [
        _item(i, c, w)
        for i, (c, w) in enumerate(
            [
                ("Paris is in France.", ["paris is the capital of france .", "berlin is in germany ."]),
                ("The tower was built in 1889.", ["the tower was built in 1889 ."]),
                ("Berlin is small.", ["berlin is a big city ."]),
                ("The river is not big.", ["the river is big", "a small city"]),
                ("Germany is a city.", ["berlin is in germany ."]),
                ("France is big.", ["paris , france"]),
                ("Paris was built.", ["the city was built in 1889 , the tower is in paris ."] * 3),
            ]
        )
    ]
    calls = []
    forward = ver._model.forward
    ver._model.forward = lambda *a, **k: (calls.append(k["input_ids"].shape[0]), forward(*a, **k))[1]
    batched = ver.verify(items)
    assert calls == [4, 3]
    ver.batch_size = 1
    single = ver.verify(items)
    assert [v.claim_id for v in batched] == [f"c{i}" for i in range(7)]
    for a, b in zip(batched, single):
        assert a.label == b.label
        assert a.hallucination_score == pytest.approx(b.hallucination_score, abs=1e-4)


def test_no_windows_and_empty_claims_are_unevaluatable(tmp_path):
    ver = HFVerifier(_save_model(tmp_path / "m", NLI), max_length=64)
    out = ver.verify([_item(0, "Paris is in France.", []), _item(1, "[1]", ["paris"]), _item(2, "Paris.", ["paris"])])
    assert [v.label for v in out[:2]] == [Label.unevaluatable, Label.unevaluatable]
    assert "no evidence" in out[0].reason and "no text" in out[1].reason
    assert out[2].label is not Label.unevaluatable


def test_long_premise_is_truncated_not_rejected(tmp_path):
    ver = HFVerifier(_save_model(tmp_path / "m", NLI), max_length=32)
    (v,) = ver.verify([_item(0, "Paris is the capital of France.", ["the city of paris is big ." * 40])])
    assert v.label in (Label.supported, Label.unsupported, Label.contradicted)


def test_binary_models_need_positive_label(tmp_path):
    path = _save_model(tmp_path / "b", {0: "LABEL_0", 1: "LABEL_1"}, bias=[0.0, 9.0])
    with pytest.raises(ConfigError, match="positive_label"):
        HFVerifier(path, max_length=64)
    ver = HFVerifier(path, max_length=64, positive_label="LABEL_1")
    assert ver.verify([_item(0, "Paris is big.", ["paris is big ."])])[0].label is Label.supported
    ver0 = HFVerifier(path, max_length=64, positive_label=0)
    v = ver0.verify([_item(0, "Paris is big.", ["paris is big ."])])[0]
    assert v.label is Label.unsupported and v.hallucination_score > 0.99


def test_unknown_labels_are_listed(tmp_path):
    with pytest.raises(ConfigError, match=r"\['happy', 'sad'\]"):
        HFVerifier(_save_model(tmp_path / "u", {0: "happy", 1: "sad", 2: "entailment"}), max_length=64)


def test_map_labels_names():
    assert map_labels({0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}) == [Label.contradicted, Label.unsupported, Label.supported]
    assert map_labels({0: "not_entailment", 1: "entailment"}) == [Label.unsupported, Label.supported]
    assert map_labels({0: "Not Enough Info", 1: "Refuted", 2: "Supported"}) == [Label.unsupported, Label.contradicted, Label.supported]
    with pytest.raises(ConfigError, match="not one of the model's labels"):
        map_labels({0: "LABEL_0", 1: "LABEL_1"}, positive_label="yes")


def test_model_load_errors_name_the_path(tmp_path, monkeypatch):
    with pytest.raises(ModelLoadError, match="not found: .*nowhere"):
        HFVerifier(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelLoadError, match="empty is not a Hugging Face model directory: config.json"):
        HFVerifier(tmp_path / "empty")
    (tmp_path / "noweights").mkdir()
    (tmp_path / "noweights" / "config.json").write_text("{}")
    with pytest.raises(ModelLoadError, match="noweights has no model weights"):
        HFVerifier(tmp_path / "noweights")
    path = _save_model(tmp_path / "m", NLI)
    monkeypatch.setitem(sys.modules, "transformers", None)  # as if it were not installed
    with pytest.raises(ModelLoadError, match=r"pip install rag-guardrail\[hf\]"):
        HFVerifier(path)
