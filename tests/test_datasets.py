"""RAGTruth loading and the grouped, stratified split (real data when present, a synthetic file always)."""

from __future__ import annotations

import gzip
import json
from collections import Counter

import pytest

from guardrail.datasets import RagTruthRow, load_ragtruth, ragtruth_path, split_ragtruth
from guardrail.errors import InputError


def _row(i: int, task: str, ctx: str, spans=()) -> dict:
    resp = f"Response {i} about {ctx}."
    return {
        "id": i, "task_type": task, "split": "train", "model": "m", "temperature": 0.7, "quality": "good",
        "query": "q", "context": ctx, "response": resp,
        "labels": [{"start": 0, "end": 8, "text": resp[:8], "label_type": "Evident Conflict", "meta": "", "implicit_true": False, "due_to_null": False} for _ in spans],
        "hallucination_labels_processed": {},
    }


@pytest.fixture
def synthetic(tmp_path):
    rows = []
    i = 0
    for task in ("QA", "Summary", "Data2txt"):
        for c in range(40):
            for _ in range(6):  # six responses share one context, as in RAGTruth
                rows.append(_row(i, task, f"{task} context {c}", spans=[1] if i % 3 == 0 else []))
                i += 1
    path = tmp_path / "rt.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r) + "\n")
    return path


def test_load_and_filter(synthetic):
    rows = load_ragtruth(synthetic)
    assert len(rows) == 720 and isinstance(rows[0], RagTruthRow)
    assert rows[0].id == "0" and rows[0].hallucinated and not rows[1].hallucinated
    assert rows[0].labels[0].is_conflict
    qa = load_ragtruth(synthetic, task_types=["QA"])
    assert len(qa) == 240 and {r.task_type for r in qa} == {"QA"}
    with pytest.raises(InputError, match="unknown RAGTruth task type"):
        load_ragtruth(synthetic, task_types=["Chat"])


def test_missing_file_and_bad_line(tmp_path, monkeypatch):
    with pytest.raises(FileNotFoundError, match="GUARDRAIL_DATA_DIR"):
        load_ragtruth(tmp_path / "absent.jsonl.gz")
    monkeypatch.setenv("GUARDRAIL_DATA_DIR", str(tmp_path / "elsewhere"))
    assert ragtruth_path() == tmp_path / "elsewhere" / "ragtruth" / "ragtruth_train.jsonl.gz"
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(_row(0, "QA", "c")) + "\n" + '{"id": 1, "task_type": "QA"}\n')
    with pytest.raises(InputError, match=r"bad.jsonl:2"):
        load_ragtruth(bad)


def test_split_groups_by_context_stratifies_and_is_deterministic(synthetic):
    rows = load_ragtruth(synthetic)
    train, dev = split_ragtruth(rows, dev_fraction=0.1, seed=13)
    assert len(train) + len(dev) == len(rows)
    assert not {r.context_key for r in train} & {r.context_key for r in dev}
    assert Counter(r.task_type for r in dev) == {"QA": 24, "Summary": 24, "Data2txt": 24}  # 4 of 40 contexts each
    again = split_ragtruth(list(reversed(rows)), dev_fraction=0.1, seed=13)[1]
    assert {r.id for r in again} == {r.id for r in dev}
    other = split_ragtruth(rows, dev_fraction=0.1, seed=14)[1]
    assert {r.id for r in other} != {r.id for r in dev}
    with pytest.raises(InputError):
        split_ragtruth(rows, dev_fraction=1.5)


@pytest.mark.data
def test_real_ragtruth_split(shared_data):
    rows = load_ragtruth(shared_data / "ragtruth" / "ragtruth_train.jsonl.gz")
    assert len(rows) == 15090
    for r in rows[:500]:
        for s in r.labels:
            assert r.response[s.start : s.end] == s.text
    train, dev = split_ragtruth(rows)
    assert not {r.context_key for r in train} & {r.context_key for r in dev}
    share = Counter(r.task_type for r in dev)
    assert all(0.07 < share[t] / n < 0.13 for t, n in Counter(r.task_type for r in rows).items())
