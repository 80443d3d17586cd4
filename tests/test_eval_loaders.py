"""Each loader on a tiny fixture in its source's format, malformed rows, and the shared data when present."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from guardrail.errors import InputError
from guardrail.eval.loaders import (
    ALIASES,
    DEV_FILES,
    load_dataset,
    load_file,
    take_groups,
)

FIX = Path(__file__).parent / "fixtures" / "eval"
BAD = FIX / "malformed"


def _by_id(examples):
    return {e.id: e for e in examples}


def test_ragtruth_rows():
    ex = _by_id(load_dataset(str(FIX / "ragtruth.jsonl")))
    assert set(ex) == {"ragtruth:101", "ragtruth:102", "ragtruth:103", "ragtruth:104"}
    ok, bad = ex["ragtruth:101"], ex["ragtruth:102"]
    assert ok.hallucinated is False and ok.spans == []
    assert bad.hallucinated is True and bad.task == "QA"
    assert [(s.start, s.end, s.label) for s in bad.spans] == [(34, 38, "Evident Conflict")]
    assert bad.response[34:38] == "1887"
    assert bad.question == "When was the Eiffel Tower completed?"
    assert ok.group == bad.group != ex["ragtruth:103"].group  # same context, same group
    # Data2txt: the prompt's trailing "Overview:" cue is not part of the data.
    assert ex["ragtruth:104"].context.endswith('"rating": 4.5}')


def test_ragtruth_group_key_matches_the_training_dev_halves():
    """The grounding trainer's dev halves are drawn over its context key; ours must be the same."""
    pytest.importorskip("numpy")
    import guardrail.train.grounding as tg
    from guardrail.datasets import load_ragtruth

    rows = load_ragtruth(FIX / "ragtruth.jsonl")
    ex = _by_id(load_file(FIX / "ragtruth.jsonl"))
    for r in rows:
        assert ex[f"ragtruth:{r.id}"].group == tg._context_key(r)


@pytest.mark.parametrize("name", ["document_claim.jsonl", "aggrefact_style.jsonl.gz"])
def test_document_claim_label_1_is_consistent(name):
    examples = load_file(FIX / name)
    assert [e.hallucinated for e in examples] == [False, True, False, True]
    assert all(e.task == "Summary" and e.spans is None for e in examples)
    assert examples[0].group == examples[1].group != examples[2].group  # grouped by document
    assert examples[1].response == "Two thousand homes were evacuated."
    assert examples[0].dataset == name.split(".")[0]


def test_wice_evidence_is_passages_and_partial_support_is_hallucinated():
    ex = _by_id(load_file(FIX / "wice.jsonl"))
    assert ex["wice:dev001"].hallucinated is False
    assert ex["wice:dev002"].hallucinated is True  # partially_supported: the unsupported part must be caught
    assert ex["wice:dev003"].hallucinated is True
    assert ex["wice:dev001"].context == ["(meta data) TITLE: About Us",
                                         "Media Play News is the voice of the home entertainment industry."]
    assert ex["wice:dev001"].group == ex["wice:dev002"].group != ex["wice:dev003"].group  # same article


def test_halueval_qa_gives_a_pair_per_row():
    examples = load_file(FIX / "halueval_qa.jsonl")
    assert len(examples) == 4
    first, second = examples[:2]
    assert (first.id, first.hallucinated, first.response) == ("halueval_qa:1:right", False, "Arthur's Magazine")
    assert (second.id, second.hallucinated) == ("halueval_qa:1:hallucinated", True)
    assert first.group == second.group != examples[2].group
    assert first.question.startswith("Which magazine") and first.context.startswith("Arthur's Magazine was")


def test_halueval_summarization_and_dialogue():
    summ = load_file(FIX / "halueval_summarization.jsonl")
    assert [(e.task, e.hallucinated) for e in summ] == [("Summary", False), ("Summary", True)]
    assert summ[1].response == "The council rejected the new park on Friday."
    dia = load_file(FIX / "halueval_dialogue.jsonl")
    assert [(e.task, e.hallucinated) for e in dia] == [("Dialogue", False), ("Dialogue", True)]
    assert dia[0].question.startswith("[Human]: Do you like Inception?")
    assert "Christopher Nolan" in dia[0].context


def test_plain_labels_and_optional_fields():
    ex = _by_id(load_file(FIX / "plain.jsonl"))
    assert [ex[k].hallucinated for k in ["plain:a", "plain:b", "plain:c", "plain:d"]] == [False, True, False, True]
    assert ex["plain:a"].question == "How big is Acme?" and ex["plain:c"].question is None
    assert ex["plain:b"].spans[0].start == 9 and ex["plain:b"].response[9:12] == "400"
    assert ex["plain:a"].spans is None  # no span labels given: not "no hallucinated span"
    assert ex["plain:c"].context == ["Acme's revenue in 2023 was 12 million dollars. The company has 40 employees.",
                                     "Acme was founded in 1999."]
    assert ex["plain:c"].task == "QA"
    assert ex["plain:a"].group == ex["plain:b"].group  # same context and question
    assert ex["plain:d"].group == "g-revenue"


@pytest.mark.parametrize(
    "name, expected",
    [
        ("plain_bad_label.jsonl", ["plain_bad_label.jsonl:3", "field 'label'", "'maybe'"]),
        ("document_claim_missing_claim.jsonl", ["document_claim_missing_claim.jsonl:2", "field 'claim'", "missing"]),
        ("not_json.jsonl", ["not_json.jsonl:2", "not JSON"]),
        ("halueval_qa_empty_answer.jsonl", ["halueval_qa_empty_answer.jsonl:2", "field 'right_answer'", "empty"]),
        ("ragtruth_bad_offsets.jsonl", ["ragtruth_bad_offsets.jsonl:2", "field 'labels[0]'", "outside the response"]),
        ("wice_bad_evidence.jsonl", ["wice_bad_evidence.jsonl:2", "field 'evidence[1]'", "expected text"]),
        ("unknown_format.jsonl", ["unknown_format.jsonl:1", "unknown format", "premise"]),
        ("plain_duplicate_id.jsonl", ["plain_duplicate_id.jsonl:2", "field 'id'", "first on line 1"]),
        ("plain_span_outside.jsonl", ["plain_span_outside.jsonl:1", "field 'spans[0]'", "outside the response"]),
    ],
)
def test_malformed_rows_name_file_line_and_field(name, expected):
    with pytest.raises(InputError) as err:
        load_dataset(str(BAD / name))
    for part in expected:
        assert part in str(err.value), (part, str(err.value))


def test_bad_specs_and_broken_files(tmp_path):
    with pytest.raises(InputError, match="unknown dataset 'nope'.*summac_frank"):
        load_dataset("nope")
    with pytest.raises(InputError, match="unknown RAGTruth part 'test'"):
        load_dataset("ragtruth:test")
    with pytest.raises(InputError, match="limit must be at least 1"):
        load_dataset(str(FIX / "plain.jsonl"), limit=0)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    with pytest.raises(InputError, match="no rows"):
        load_file(empty)
    broken = tmp_path / "broken.jsonl.gz"
    broken.write_bytes(b"not gzip at all")
    with pytest.raises(InputError, match="broken.jsonl.gz"):
        load_file(broken)
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(json.dumps({"context": "x", "response": "y", "label": 0}).encode() + b"\n" + b'{"context": "caf\xe9"}\n')
    with pytest.raises(InputError, match="latin.jsonl:2: not valid UTF-8"):
        load_file(latin)


def test_limit_takes_whole_groups_deterministically(tmp_path):
    rows = [{"id": f"{g}-{i}", "context": f"context {g}", "response": f"answer {i}", "label": i % 2}
            for g in range(10) for i in range(3)]
    path = tmp_path / "many.jsonl.gz"
    with gzip.open(path, "wt") as fh:
        fh.write("\n".join(json.dumps(r) for r in rows))
    a = load_dataset(str(path), limit=7, seed=1)
    b = load_dataset(str(path), limit=7, seed=1)
    assert [e.id for e in a] == [e.id for e in b]
    assert len(a) == 6  # two whole groups of three; a third would exceed the limit
    groups = {e.group for e in a}
    assert all(sum(e.group == g for e in a) == 3 for g in groups)
    other = {e.group for e in load_dataset(str(path), limit=7, seed=2)}
    assert other != groups or len(groups) == 0, "another seed should pick other groups here"
    # One group larger than the limit is still taken whole rather than returning nothing.
    assert len(take_groups(a, 1, seed=3)) == 3
    # Input order is kept.
    order = [e.id for e in load_file(path)]
    assert [e.id for e in a] == [i for i in order if i in {e.id for e in a}]


def test_shared_dev_files(shared_data):
    for name in DEV_FILES:
        examples = load_dataset(name, limit=12)
        assert 0 < len(examples) <= 12 or len({e.group for e in examples}) == 1
        assert {e.dataset for e in examples} == {name}
        assert all(e.hallucinated is not None and e.response.strip() for e in examples)
    frank = load_dataset("summac_frank")
    assert len(frank) == 671 and sum(e.hallucinated for e in frank) == 448  # label 0 (not consistent) = 448 rows
    assert {e.dataset for e in load_dataset("aggrefact", limit=5)} == set(ALIASES["aggrefact"])


def test_shared_ragtruth_dev_split(shared_data):
    from guardrail.datasets import load_ragtruth, split_ragtruth

    dev = load_dataset("ragtruth:dev")
    _, rows = split_ragtruth(load_ragtruth(), dev_fraction=0.1, seed=13)
    assert [e.id for e in dev] == [f"ragtruth:{r.id}" for r in rows]
    assert sum(e.hallucinated for e in dev) == sum(r.hallucinated for r in rows)
    assert all(e.response[s.start:s.end] for e in dev for s in e.spans)


def test_dataset_spec_may_carry_its_own_limit() -> None:
    from guardrail.eval.cli import _split_limit

    assert _split_limit("summac@200", 50) == ("summac", 200)
    assert _split_limit("ragtruth:dev", 50) == ("ragtruth:dev", 50)
    assert _split_limit("data/my@file.jsonl", None) == ("data/my@file.jsonl", None)
