"""The runner: side-by-side configs, the grouped calibration split, threshold tuning, errors counted."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from guardrail.errors import BackendError, ConfigError, InputError
from guardrail.eval.loaders import load_file
from guardrail.eval.runner import EvalConfig, EvalResult, run_eval, split_parts
from guardrail.eval.types import EvalExample, GoldSpan
from guardrail.types import ClaimVerdict, Label, VerificationItem

FIX = Path(__file__).parent / "fixtures" / "eval"


class ScriptedVerifier:
    """Scores each claim from a table keyed by its text; 'BOOM' raises a plain bug, 'DOWN' a backend error."""

    name = "scripted"

    def __init__(self, scores: dict[str, float]):
        self.scores = scores
        self.calls = 0

    def verify(self, items: Sequence[VerificationItem], batch_size: int = 32) -> list[ClaimVerdict]:
        self.calls += 1
        out = []
        for it in items:
            text = it.claim.text
            if "BOOM" in text:
                raise RuntimeError("scripted bug on purpose")
            if "DOWN" in text:
                raise BackendError("scripted endpoint is down")
            s = self.scores[text]
            out.append(ClaimVerdict(claim_id=it.claim.id, label=Label.unsupported if s >= 0.4 else Label.supported,
                                    confidence=1.0, hallucination_score=s, verifier=self.name))
        return out


def _ex(i: int, text: str, hallucinated: bool, group: str, dataset: str = "toy", task: str | None = "QA", spans=None):
    return EvalExample(id=f"{dataset}:{i}", dataset=dataset, task=task, context="The sky is blue. Grass is green.",
                       response=text, hallucinated=hallucinated, group=group, spans=spans)


def _paired(n_groups: int) -> tuple[list[EvalExample], dict[str, float]]:
    """Each group: one hallucinated answer scored 0.45 (under the 0.5 policy) and one faithful scored 0.2."""
    examples, scores = [], {}
    for g in range(n_groups):
        bad, good = f"Claim {g} is wrong.", f"Claim {g} is right."
        scores[bad], scores[good] = 0.45, 0.2
        examples += [_ex(2 * g, bad, True, f"g{g}"), _ex(2 * g + 1, good, False, f"g{g}")]
    return examples, scores


def test_tuned_threshold_beats_a_policy_threshold_set_too_high():
    examples, scores = _paired(8)
    v = ScriptedVerifier(scores)
    res = run_eval(examples, [EvalConfig(name="fake", verifier="scripted", threshold=0.5)],
                   verifier_factory=lambda spec, llm: v, progress=False)
    c = res.configs[0]
    # Calibration holds every other group of 8: 4 groups, the best cut flags exactly the 0.45s.
    assert c.tuned_threshold == 0.45 and c.datasets["toy"].tuned_threshold == 0.45
    m = c.overall
    assert m.n == 8 and m.hallucinated == 4  # the evaluation part: 4 groups of 2
    assert (m.policy.flagged, m.policy.recall, m.policy.f1) == (0, 0.0, 0.0)
    assert (m.tuned.flagged, m.tuned.precision, m.tuned.recall, m.tuned.f1) == (4, 1.0, 1.0, 1.0)
    assert m.tuned.balanced_accuracy == 1.0 and m.policy.balanced_accuracy == 0.5
    assert m.auc == 1.0
    # ECE: scores .2 (rate 0) and .45 (rate 1) -> half the mass off by .2, half by .55
    assert m.ece == pytest.approx(0.5 * 0.2 + 0.5 * 0.55)
    # Paired groups give the claim-level proxies: every group holds both labels.
    assert m.tuned.proxy.pairs == 4 and m.tuned.proxy.clean_flag_rate == 0.0
    assert m.tuned.proxy.hallucinated_flag_rate == 1.0 and m.tuned.proxy.claim_auc == 1.0
    assert m.latency_p50_ms is not None and m.latency_p95_ms >= m.latency_p50_ms
    assert v.calls == 16 + 1  # every example once, plus the untimed warm-up check


def test_configs_side_by_side_each_with_its_policy_threshold():
    examples, scores = _paired(6)
    res = run_eval(examples, [EvalConfig(name="strict", verifier="s", threshold=0.4),
                              EvalConfig(name="lenient", verifier="s", threshold=0.5)],
                   verifier_factory=lambda spec, llm: ScriptedVerifier(scores), progress=False)
    strict, lenient = res.configs
    assert strict.overall.policy.f1 == 1.0 and strict.overall.policy.threshold == 0.4
    assert lenient.overall.policy.f1 == 0.0
    assert [e.id for e in strict.examples] == [e.id for e in lenient.examples]
    assert EvalResult.model_validate_json(res.model_dump_json()) == res  # JSON round trip


def test_errors_are_recorded_and_counted_not_dropped():
    examples, scores = _paired(4)
    examples += [_ex(100, "This BOOM sentence breaks.", True, "gx"), _ex(101, "The endpoint is DOWN today.", True, "gy")]
    res = run_eval(examples, [EvalConfig(name="fake", verifier="s")], calibration_fraction=0.0,
                   verifier_factory=lambda spec, llm: ScriptedVerifier(scores), progress=False)
    c = res.configs[0]
    boom = next(e for e in c.examples if e.id == "toy:100")
    assert "RuntimeError: scripted bug on purpose" in boom.error and boom.score is None
    down = next(e for e in c.examples if e.id == "toy:101")
    # A backend that is down is a verifier that did not run, like a bug: the pipeline reports it as a
    # skipped check (the policy's fail mode decides), and the evaluation counts it as an error, unscored.
    assert "scripted endpoint is down" in down.error and down.score is None
    assert c.overall.errors == 2 and c.overall.incomplete == 0
    assert c.overall.n == 8  # the 8 paired examples; the two that could not be checked are not scored
    assert any("2 example(s) could not be checked" in note for note in res.notes)
    assert c.tuned_threshold is None and c.overall.tuned is None  # nothing to calibrate on at fraction 0


def test_split_keeps_groups_whole_and_follows_the_fraction():
    examples = [_ex(i, f"Answer {i}.", i % 2 == 0, f"g{i // 3}", dataset="a" if i < 30 else "b") for i in range(60)]
    parts = split_parts(examples, 0.5, seed=13)
    assert parts == split_parts(list(reversed(examples)), 0.5, seed=13)  # order does not matter
    by_group: dict[tuple[str, str], set[str]] = {}
    for e in examples:
        by_group.setdefault((e.dataset, e.group), set()).add(parts[e.id])
    assert all(len(p) == 1 for p in by_group.values())
    for d in ("a", "b"):  # 10 groups per dataset, dealt evenly
        assert sum(p == {"calibration"} for (ds, _), p in by_group.items() if ds == d) == 5
    tenth = split_parts(examples, 0.1, seed=13)
    assert sum(v == "calibration" for v in tenth.values()) == 2 * 3  # one group of 3 per dataset
    assert split_parts(examples, 0.5, seed=14) != parts


def test_span_f1_uses_flagged_claims_against_gold_spans():
    text = "The sky is blue. Grass is purple."
    wrong_at = text.index("Grass")
    examples = [_ex(1, text, True, "g1", spans=[GoldSpan(start=wrong_at, end=len(text))])]
    scores = {"The sky is blue.": 0.1, "Grass is purple.": 0.9}
    res = run_eval(examples, [EvalConfig(name="fake", verifier="s")], calibration_fraction=0.0,
                   verifier_factory=lambda spec, llm: ScriptedVerifier(scores), progress=False)
    m = res.configs[0].overall
    # The flagged claim covers exactly the gold span.
    assert m.policy.span_f1 == 1.0
    claims = res.configs[0].examples[0].claims
    assert [(c.start, c.end, c.flagged) for c in claims] == [(0, 16, False), (17, 33, True)]


def test_bad_arguments_fail_before_any_check():
    examples, _ = _paired(2)
    cfg = EvalConfig(name="x", verifier="heuristic")
    with pytest.raises(InputError, match="unique"):
        run_eval(examples, [cfg, cfg], progress=False)
    with pytest.raises(InputError, match="calibration_fraction"):
        run_eval(examples, [cfg], calibration_fraction=1.0, progress=False)
    with pytest.raises(InputError, match="no examples"):
        run_eval([], [cfg], progress=False)
    with pytest.raises(ConfigError, match="needs an LLM"):
        run_eval(examples, [cfg, EvalConfig(name="j", verifier="judge")], progress=False)
    with pytest.raises(ValueError):
        EvalConfig(name="x", verifier="heuristic", threshold=1.5)


def test_heuristic_verifier_on_fixture_files():
    examples = [e for name in ("plain.jsonl", "document_claim.jsonl", "ragtruth.jsonl", "wice.jsonl", "halueval_qa.jsonl")
                for e in load_file(FIX / name)]
    res = run_eval(examples, [EvalConfig(name="heuristic", verifier="heuristic")], progress=False)
    c = res.configs[0]
    assert c.verifier_name.startswith("heuristic")
    assert set(c.datasets) == {"plain", "document_claim", "ragtruth", "wice", "halueval_qa"}
    assert sum(info.calibration_examples + info.evaluation_examples for info in res.split.values()) == len(examples)
    assert all(e.error is None and e.latency_ms > 0 for e in c.examples)
    scores = {e.id: e.score for e in c.examples}
    # Wrong numbers against the context must score above the faithful answer to the same question.
    assert scores["plain:b"] > scores["plain:a"]
    assert scores["ragtruth:102"] > scores["ragtruth:101"]
    assert c.datasets["ragtruth"].tasks.keys() <= {"QA", "Summary", "Data2txt"}


def test_shared_ragtruth_split_reproduces_the_trainer_dev_halves(shared_data):
    """ragtruth:dev at (0.5, 13): the calibration part is the trainer's half A, so the shipped model's
    calibration never saw the evaluation part."""
    import guardrail.train.grounding as tg
    from guardrail.eval.loaders import load_dataset

    dev = load_dataset("ragtruth:dev")
    parts = split_parts(dev, 0.5, seed=13)
    half_a, half_b = tg.dev_halves([e.id.split(":", 1)[1] for e in dev], 13)
    assert {e.id.split(":", 1)[1] for e in dev if parts[e.id] == "calibration"} == half_a
    assert {e.id.split(":", 1)[1] for e in dev if parts[e.id] == "evaluation"} == half_b


def test_threshold_defaults_to_the_verifiers_recommended_one():
    examples, scores = _paired(4)
    v = ScriptedVerifier(scores)
    v.recommended_threshold = 0.4
    res = run_eval(examples, [EvalConfig(name="rec", verifier="s"), EvalConfig(name="fixed", verifier="s", threshold=0.5)],
                   verifier_factory=lambda spec, llm: v, progress=False)
    rec, fixed = res.configs
    assert rec.config.threshold == 0.4 and rec.overall.policy.threshold == 0.4  # the one actually used is recorded
    assert rec.overall.policy.f1 == 1.0 and fixed.overall.policy.f1 == 0.0


def test_proxies_only_where_no_gold_spans_exist():
    examples, scores = _paired(4)
    spanned = [e.model_copy(update={"spans": [GoldSpan(start=0, end=5)] if e.hallucinated else []}) for e in examples]
    res = run_eval(spanned, [EvalConfig(name="fake", verifier="s")], calibration_fraction=0.0,
                   verifier_factory=lambda spec, llm: ScriptedVerifier(scores), progress=False)
    m = res.configs[0].overall
    assert m.policy.proxy is None and m.policy.span_f1 is not None


def test_unlabelled_examples_are_checked_but_not_scored():
    examples, scores = _paired(3)
    examples[0] = examples[0].model_copy(update={"hallucinated": None})
    res = run_eval(examples, [EvalConfig(name="fake", verifier="s")], calibration_fraction=0.0,
                   verifier_factory=lambda spec, llm: ScriptedVerifier(scores), progress=False)
    assert res.configs[0].overall.n == 5 and res.configs[0].examples[0].score is not None
    assert "1 example(s) have no gold label" in res.notes[0]
