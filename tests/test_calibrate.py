"""`guardrail calibrate`: a tenant threshold fitted from its own labelled answers, written into its policy."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
import yaml

from guardrail.calibrate import Target, _set_claims_threshold, fit, wilson, write_threshold
from guardrail.cli import main
from guardrail.errors import ConfigError, InputError
from guardrail.policy import PolicyStore, decide

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture()
def policies(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "policies", tmp_path / "policies")
    return tmp_path / "policies"


def _labelled(path: Path, n: int = 40, seed: int = 3) -> Path:
    """Answers restating a number of their context, half of them with the number changed."""
    rng = random.Random(seed)
    things = [("The Harlow bridge spans", "metres"), ("The Venn library holds", "books"),
              ("Route 9 runs for", "kilometres"), ("The Dunmore school enrols", "pupils")]
    rows = []
    for i in range(n):
        lead, unit = things[i % len(things)]
        value = rng.randint(20, 900)
        bad = i % 2 == 0
        said = value + rng.randint(5, 50) if bad else value
        rows.append({"id": i, "context": f"{lead} {value} {unit}. It opened in {rng.randint(1900, 2000)}.",
                     "response": f"{lead} {said} {unit}.", "label": int(bad)})
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def test_target_parsing_and_errors():
    assert str(Target.parse("precision=0.9")) == "precision=0.9"
    assert Target.parse("f1").metric == "f1"
    for bad in ("precision", "precision=1.5", "f1=0.3", "accuracy=0.9", ""):
        with pytest.raises(InputError):
            Target.parse(bad)


def test_fit_meets_a_precision_target_with_most_recall():
    # Scores of 30 answers: positives mostly high, two faithful answers scoring among them.
    scores = [0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55, 0.5, 0.45] + [0.3] * 2 + [0.1] * 18
    labels = [True, True, False, True, True, True, False, True, True, True] + [True, True] + [False] * 18
    cal = fit(labels, scores, Target.parse("precision=0.8"))
    flagged = [s >= cal.threshold for s in scores]
    tp = sum(f and y for f, y in zip(flagged, labels))
    assert tp / sum(flagged) >= 0.8 and cal.target_met
    # The most recall at that precision: flagging the two 0.3 positives too keeps precision at 10/12.
    assert tp == 10 and 0.1 < cal.threshold < 0.3
    assert cal.precision.low < cal.precision.estimate <= cal.precision.high
    assert cal.expected_precision is not None and cal.expected_recall is not None


def test_fit_refuses_rows_that_cannot_place_a_threshold():
    with pytest.raises(InputError, match="same label"):
        fit([True] * 30, [0.5] * 30, Target.parse("f1"))
    with pytest.raises(InputError, match="too few"):
        fit([True, False] * 5, [0.9, 0.1] * 5, Target.parse("f1"))
    with pytest.raises(InputError, match="too few"):
        fit([True] * 3 + [False] * 30, [0.9] * 3 + [0.1] * 30, Target.parse("f1"))


def test_unreachable_target_is_reported_not_hidden():
    labels = [True, False] * 15
    scores = [0.5] * 30  # the scores say nothing
    cal = fit(labels, scores, Target.parse("precision=0.95"))
    assert not cal.target_met


def test_wilson_interval_is_sane_at_the_edges():
    w = wilson(20, 20)
    assert w.estimate == 1.0 and w.high == 1.0 and 0.8 < w.low < 0.9
    assert wilson(0, 0).low == 0.0 and wilson(0, 0).high == 1.0


def test_threshold_edit_keeps_comments_and_replaces_an_existing_value():
    text = "# keep me\nextends: default\nclaims:\n    # why partial counts\n    partial_counts_as_unsupported: true\nrules: {}\n"
    once = _set_claims_threshold(text, 0.3, "first", "t.yaml")
    twice = _set_claims_threshold(once, 0.25, "second", "t.yaml")
    assert "# keep me" in twice and "# why partial counts" in twice and "second" in twice and "first" not in twice
    data = yaml.safe_load(twice)
    assert data["claims"] == {"score_threshold": 0.25, "partial_counts_as_unsupported": True}
    added = yaml.safe_load(_set_claims_threshold("extends: default\n", 0.4, "n", "t.yaml"))
    assert added["claims"]["score_threshold"] == 0.4
    with pytest.raises(ConfigError, match="inline"):
        _set_claims_threshold("claims: {on_no_claims: abstain}\n", 0.4, "n", "t.yaml")


def test_write_threshold_creates_a_tenant_and_validates(policies: Path):
    path = write_threshold(policies, "acme", 0.2, "test")
    assert path == policies / "tenants" / "acme.yaml"
    assert PolicyStore(policies).get("acme").claims.score_threshold == pytest.approx(0.2)
    # An existing tenant keeps its other settings.
    before = PolicyStore(policies).get("healthcare")
    write_threshold(policies, "healthcare", 0.33, "test")
    after = PolicyStore(policies).get("healthcare")
    assert after.claims.score_threshold == pytest.approx(0.33)
    assert after.model_dump(exclude={"claims"}) == before.model_dump(exclude={"claims"})
    with pytest.raises(InputError):
        write_threshold(policies, "../evil", 0.2, "test")


def test_cli_fits_writes_and_the_policy_uses_it(policies: Path, tmp_path: Path, capsys):
    data = _labelled(tmp_path / "labelled.jsonl")
    rc = main(["calibrate", "--data", str(data), "--tenant", "acme", "--policies", str(policies),
               "--target", "precision=0.9", "--verifier", "heuristic"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "expected on new ones" in out and "95%" in out
    assert (policies / "tenants" / "acme.calibration.png").stat().st_size > 1000
    curve = json.loads((policies / "tenants" / "acme.calibration.json").read_text())
    policy = PolicyStore(policies).get("acme")
    assert policy.claims.score_threshold == pytest.approx(curve["threshold"], abs=1e-4)


def test_cli_errors_name_the_problem(policies: Path, tmp_path: Path, capsys):
    few = tmp_path / "few.jsonl"
    few.write_text("\n".join(_labelled(tmp_path / "all.jsonl", n=6).read_text().splitlines()) + "\n")
    assert main(["calibrate", "--data", str(few), "--tenant", "acme", "--policies", str(policies),
                 "--verifier", "heuristic"]) == 2
    assert "too few labelled rows" in capsys.readouterr().err
    unlabelled = tmp_path / "unlabelled.jsonl"
    unlabelled.write_text(json.dumps({"context": "a b c", "response": "a b", "label": None}) + "\n")
    assert main(["calibrate", "--data", str(unlabelled), "--tenant", "acme", "--policies", str(policies)]) == 2
    err = capsys.readouterr().err
    assert "label" in err and ":1" in err
    assert not (policies / "tenants" / "acme.yaml").exists()


def test_a_tenant_threshold_below_the_verifiers_flags_more(policies: Path):
    from guardrail.types import CheckReport, Claim, ClaimVerdict, Evidence, Label

    claim = Claim(id="c1", text="The bridge spans 300 metres.", start=0, end=28)
    verdict = ClaimVerdict(claim_id="c1", label=Label.supported, confidence=0.7, hallucination_score=0.3)
    report = CheckReport(answer=claim.text, claims=[claim], verdicts=[verdict], hallucination_score=0.3,
                         hallucinated=False, threshold=0.5, evidence=[Evidence(id="d1", text="The bridge spans 300 m.")])
    default = PolicyStore(policies).get("default")
    assert decide(report, default).action.value == "respond"
    write_threshold(policies, "strict", 0.25, "test")
    decision = decide(report, PolicyStore(policies).get("strict"))
    assert decision.action.value != "respond"
