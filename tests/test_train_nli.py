"""The v2 training mix: held-out premises never reach training, two-way sources are marked, long premises
are cut the way the run-time verifier cuts evidence, and batches group similar lengths."""

import argparse
import gzip
import json

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
                              ragtruth_pairs=0, hard_pairs=0)
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
