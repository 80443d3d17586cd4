"""The hand-written fact-level cases (guardrail/eval/data/fact_cases.jsonl) are well formed.

No model runs here: ``benchmarks/fact_cases.py`` scores a verifier on them.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

import guardrail

DATA = Path(guardrail.__file__).parent / "eval/data/fact_cases.jsonl"

MUST_CATCH = (
    "number_swap", "number_borrowed", "unit_swap", "scale_swap", "currency_swap", "percent_vs_points",
    "range_bound", "date_swap", "time_swap", "entity_swap", "entity_moved", "negation_flip",
    "modality_change", "condition_dropped", "direction_flip", "before_after", "superlative_flip",
    "quantifier_widen", "role_reversal", "attribution_swap", "superseded_value", "unsupported_addition",
    "list_incomplete", "json_field", "markdown_list_item", "false_abstention", "checker_injection",
)
CONTROL = (
    "paraphrase", "unit_conversion", "number_words", "rounding", "arithmetic", "date_reformat",
    "reordering", "coreference", "abstention", "markdown_answer", "json_answer", "passive_active",
    "synonym", "hedged_faithful",
)
FIELDS = {"id", "category", "kind", "context", "answer", "question", "expect", "why"}
MIN_PER_CATEGORY = 6


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    lines = [line for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    out = []
    for n, line in enumerate(lines, 1):
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError as exc:
            pytest.fail(f"line {n} is not JSON: {exc}")
    return out


def _context_text(context) -> str:
    return "\n".join(context) if isinstance(context, list) else context


def test_rows_have_the_fields_and_types(rows):
    assert rows
    for row in rows:
        where = row.get("id", row)
        assert isinstance(row, dict), where
        assert set(row) == FIELDS, f"{where}: fields {sorted(set(row) ^ FIELDS)}"
        for key in ("id", "category", "kind", "answer", "expect", "why"):
            assert isinstance(row[key], str) and row[key].strip(), f"{where}: {key} must be a non-empty string"
        assert row["question"] is None or (isinstance(row["question"], str) and row["question"].strip()), where
        ctx = row["context"]
        if isinstance(ctx, list):
            assert ctx and all(isinstance(p, str) and p.strip() for p in ctx), f"{where}: context passages"
        else:
            assert isinstance(ctx, str) and ctx.strip(), f"{where}: context"


def test_ids_are_unique_and_named_after_the_category(rows):
    ids = Counter(r["id"] for r in rows)
    assert not [i for i, n in ids.items() if n > 1]
    for r in rows:
        prefix, _, number = r["id"].rpartition("-")
        assert prefix == r["category"] and number.isdigit(), r["id"]


def test_kind_and_expect_agree(rows):
    for r in rows:
        assert r["kind"] in ("must_catch", "control"), r["id"]
        assert r["expect"] == ("flag" if r["kind"] == "must_catch" else "pass"), r["id"]
        assert r["category"] in (MUST_CATCH if r["kind"] == "must_catch" else CONTROL), r["id"]


def test_every_category_has_enough_rows(rows):
    counts = Counter(r["category"] for r in rows)
    for category in MUST_CATCH + CONTROL:
        assert counts[category] >= MIN_PER_CATEGORY, f"{category}: {counts[category]} rows"
    assert not set(counts) - set(MUST_CATCH + CONTROL), "unlisted categories"


def test_no_answer_equals_its_context(rows):
    for r in rows:
        assert r["answer"].strip() != _context_text(r["context"]).strip(), r["id"]


def test_no_duplicate_answers(rows):
    answers = Counter(r["answer"] for r in rows)
    assert not [a for a, n in answers.items() if n > 1]


def test_redteam_cli_runs_the_fact_suite(capsys):
    from guardrail.cli import main

    assert main(["redteam", "--suite", "facts", "--verifier", "heuristic", "--dataset", "dev",
                 "--category", "negation_flip", "--category", "synonym"]) == 0
    out = capsys.readouterr().out
    assert "negation_flip" in out and "synonym" in out and "must_catch caught overall" in out
