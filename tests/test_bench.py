"""`guardrail bench`: inputs of the documented shape, figures that add up, and no embedding pass for a
verifier that does not read embeddings. Timings themselves are not asserted (benchmarks print them)."""

import json

from guardrail.bench import bench_cases, format_bench, run_bench
from guardrail.cli import main
from guardrail.evidence import estimate_tokens


def test_cases_have_five_claims_and_a_2k_token_context():
    cases = bench_cases(4)
    assert len(cases) == 4
    assert len({c.response for c in cases}) == 4  # distinct inputs
    for c in cases:
        assert sum(estimate_tokens(p) for p in c.context) >= 2000
    assert bench_cases(4) == cases  # seeded


def test_overlap_bench_runs_without_any_model():
    r = run_bench("overlap", runs=2, answers=2)
    assert r.verifier == "overlap"
    assert r.claims_per_answer >= 5
    assert r.embedding_ms_p50 == 0.0  # a lexical detector gets BM25 evidence: nothing is embedded
    assert r.model_ms_p50 == 0.0
    assert {"claims", "evidence_select", "verify"} <= set(r.stage_ms_p50)
    assert 0 < r.non_model_ms_p50 <= r.check_ms_p95 + 1e-6
    assert r.batch_answers_per_s > 0 and r.peak_rss_mb > 0
    assert "overlap" in format_bench([r])


def test_cli_prints_the_table_and_writes_json(tmp_path, capsys):
    out = tmp_path / "bench.json"
    assert main(["bench", "--verifier", "overlap", "--runs", "2", "--answers", "2", "--json", str(out)]) == 0
    assert "check p50 ms" in capsys.readouterr().out
    data = json.loads(out.read_text())
    assert [d["verifier"] for d in data] == ["overlap"]


def test_default_bench_splits_the_models_time_from_the_rest():
    r = run_bench("default", runs=1, answers=1)
    # The default selects by BM25 and reads similarity lexically: no time in an embedding model.
    assert r.model_ms_p50 > 0 and r.embedding_ms_p50 == 0.0
    assert r.non_model_ms_p50 < r.check_ms_p50


def test_an_embedding_verifier_has_its_embedding_time_measured():
    r = run_bench("heuristic", runs=1, answers=1)
    assert r.embedding_ms_p50 > 0 and r.model_ms_p50 == 0.0


def test_default_bench_says_what_the_time_outside_the_model_is():
    from guardrail.verifiers import heuristic

    real_analyse, real_facts = heuristic.HeuristicVerifier.analyse, heuristic.check_facts
    r = run_bench("default", runs=1, answers=1)
    assert 0 < r.facts_ms_p50 <= r.features_ms_p50 <= r.non_model_ms_p50 + 1e-6
    # the timing wrappers are gone afterwards
    assert heuristic.HeuristicVerifier.analyse is real_analyse and heuristic.check_facts is real_facts
