"""decide(report, policy): every rule at its edge (just below / at / above), failure modes, purity."""

from __future__ import annotations

import copy

import pytest

from guardrail.policy import Action, Policy, ReasonCode, decide, decide_failure
from guardrail.errors import BackendError
from guardrail.types import CitationReport, CitationResult, Evidence, SchemaIssue, SchemaResult, SkippedCheck

from test_policy_helpers import make_report


def pol(**sections) -> Policy:
    return Policy.model_validate({"name": "t", **sections})


def sup(text: str, **kw) -> dict:
    return {"text": text, "label": "supported", **kw}


def uns(text: str, **kw) -> dict:
    return {"text": text, "label": "unsupported", **kw}


def con(text: str, **kw) -> dict:
    return {"text": text, "label": "contradicted", **kw}


def sentences(n: int) -> str:
    return " ".join(f"Claim number {i} holds." for i in range(n))


def claims(n: int) -> list[str]:
    return [f"Claim number {i} holds." for i in range(n)]


def codes(d) -> list[ReasonCode]:
    return [r.code for r in d.reasons]


# --------------------------------------------------------------------------- respond


def test_all_supported_responds_with_the_answer_unchanged():
    answer = "Paris is in France. It has a tower."
    d = decide(make_report(answer, [sup("Paris is in France."), sup("It has a tower.")]), pol())
    assert d.action is Action.respond and d.code is ReasonCode.supported
    assert d.final_text == answer and d.caveats == [] and d.claim_ids == []
    assert d.policy_name == "t" and len(d.policy_hash) == 64


# --------------------------------------------------------------------------- thresholds at their edges


@pytest.mark.parametrize("n_contradicted, fires", [(1, False), (2, False), (3, True)])
def test_contradiction_count_edge(n_contradicted, fires):
    # max_count 2: one below, at, one above.
    texts = claims(4)
    spec = [con(t) if i < n_contradicted else sup(t) for i, t in enumerate(texts)]
    p = pol(rules={"contradiction": {"max_count": 2, "action": "abstain"}, "flagged": {"action": "caveat"}})
    d = decide(make_report(sentences(4), spec), p)
    assert (ReasonCode.contradiction in codes(d)) is fires
    assert d.action is (Action.abstain if fires else Action.caveat)
    if fires:
        assert d.code is ReasonCode.contradiction and d.claim_ids == ["c1", "c2", "c3"]


def test_zero_contradictions_tolerated_means_any_fires():
    d = decide(make_report(sentences(2), [con(claims(2)[0]), sup(claims(2)[1])]), pol(rules={"contradiction": {"max_count": 0, "action": "abstain"}}))
    assert d.action is Action.abstain and d.code is ReasonCode.contradiction


@pytest.mark.parametrize("n_unsupported, n_total, fires", [(1, 5, False), (1, 4, False), (2, 5, True), (0, 4, False)])
def test_unsupported_ratio_edge(n_unsupported, n_total, fires):
    # max_ratio 0.25: 0.2 below, 0.25 at, 0.4 above.
    spec = [uns(t) if i < n_unsupported else sup(t) for i, t in enumerate(claims(n_total))]
    p = pol(rules={"unsupported": {"max_ratio": 0.25, "action": "regenerate"}, "flagged": {"action": "respond"},
                   "no_evidence": {"action": "respond"}})
    d = decide(make_report(sentences(n_total), spec), p)
    assert (ReasonCode.unsupported in codes(d)) is fires
    assert d.action is (Action.regenerate if fires else Action.respond)


def test_unsupported_ratio_excludes_unevaluated_claims_from_the_denominator():
    spec = [uns(claims(3)[0]), sup(claims(3)[1]), {"text": claims(3)[2], "label": "unevaluatable"}]
    p = pol(rules={"unsupported": {"max_ratio": 0.5}}, failure={"checks": {"verify": "open"}})
    d = decide(make_report(sentences(3), spec), p)
    assert ReasonCode.unsupported not in codes(d)  # 1 of 2 evaluated = 0.5, at the bound


@pytest.mark.parametrize("score, fires", [(0.79, False), (0.8, False), (0.81, True)])
def test_aggregate_score_edge(score, fires):
    spec = [uns(claims(2)[0], score=score), sup(claims(2)[1])]
    p = pol(rules={"aggregate": {"max_score": 0.8, "action": "abstain"}, "unsupported": {"max_ratio": 1.0}})
    d = decide(make_report(sentences(2), spec), p)
    assert (ReasonCode.aggregate_score in codes(d)) is fires
    assert d.action is (Action.abstain if fires else Action.caveat)


@pytest.mark.parametrize("score, flagged", [(0.59, False), (0.6, True), (0.61, True)])
def test_claim_score_threshold_edge(score, flagged):
    # A verdict is flagged at or above the threshold (the same rule as CheckReport.flagged).
    spec = [uns(claims(2)[0], score=score), sup(claims(2)[1])]
    p = pol(claims={"score_threshold": 0.6}, rules={"unsupported": {"max_ratio": 1.0}})
    d = decide(make_report(sentences(2), spec, threshold=0.1), p)
    assert (ReasonCode.flagged_claim in codes(d)) is flagged
    assert d.action is (Action.caveat if flagged else Action.respond)


def test_claim_threshold_defaults_to_the_reports():
    spec = [uns(claims(2)[0], score=0.55), sup(claims(2)[1])]
    p = pol(rules={"unsupported": {"max_ratio": 1.0}})
    assert decide(make_report(sentences(2), spec, threshold=0.5), p).action is Action.caveat
    assert decide(make_report(sentences(2), spec, threshold=0.6), p).action is Action.respond


@pytest.mark.parametrize("conf, fires", [(0.69, True), (0.7, False), (0.71, False)])
def test_confidence_edge(conf, fires):
    spec = [sup(claims(2)[0], conf=conf), sup(claims(2)[1], conf=0.95)]
    d = decide(make_report(sentences(2), spec), pol(rules={"confidence": {"min_confidence": 0.7, "action": "caveat"}}))
    assert (ReasonCode.low_confidence in codes(d)) is fires
    if fires:
        assert d.action is Action.caveat and d.claim_ids == ["c1"]
        assert [c.label for c in d.caveats] == ["low_confidence"] and "not verified with confidence" in d.final_text


@pytest.mark.parametrize("conf, fires", [(0.76, False), (0.75, False), (0.74, True), (0.7, True)])
def test_escalation_edge(conf, fires):
    # risk = 1.0 x (1 - conf) against 0.25: 0.24 below, 0.25 at, 0.26 above.
    spec = [sup(claims(2)[0], conf=conf), sup(claims(2)[1], conf=0.99)]
    d = decide(make_report(sentences(2), spec), pol(escalation={"stakes": 1.0, "max_risk": 0.25}))
    assert d.risk == pytest.approx(1 - conf)
    assert (d.action is Action.escalate) is fires
    if fires:
        assert d.code is ReasonCode.high_risk and d.final_text == Policy().escalation.message and d.claim_ids == ["c1"]


def test_escalation_float_noise_does_not_cross_the_bound():
    # 1 - 0.7 == 0.30000000000000004 in floating point: still "at" the bound, not above it.
    spec = [sup(claims(1)[0], conf=0.7)]
    assert decide(make_report(sentences(1), spec), pol(escalation={"stakes": 1.0, "max_risk": 0.3})).action is Action.respond


def test_escalation_overrides_abstain_and_is_off_at_zero_stakes():
    spec = [con(claims(1)[0], conf=0.55)]
    p = {"rules": {"contradiction": {"action": "abstain"}}}
    assert decide(make_report(sentences(1), spec), pol(**p)).action is Action.abstain
    d = decide(make_report(sentences(1), spec), pol(**p, escalation={"stakes": 2.0, "max_risk": 0.8}))
    assert d.action is Action.escalate and ReasonCode.contradiction in codes(d)  # 2 x 0.45 = 0.9 > 0.8


def test_error_type_severity():
    spec = [con(claims(3)[0], error_type="number"), uns(claims(3)[1], error_type="temporal"), sup(claims(3)[2], error_type="negation")]
    p = pol(rules={"error_types": {"actions": {"number": "abstain", "negation": "escalate", "entity": "escalate"}},
                   "contradiction": {"action": "caveat"}, "unsupported": {"max_ratio": 1.0}})
    d = decide(make_report(sentences(3), spec), p)
    # number is mapped (abstain); temporal is not mapped; negation sits on a supported claim (not flagged).
    assert d.action is Action.abstain and d.code is ReasonCode.error_type and d.claim_ids == ["c1"]
    assert [r.action for r in d.reasons if r.code is ReasonCode.error_type] == [Action.abstain]


def test_partial_counts_as_unsupported_only_when_configured():
    spec = [{"text": claims(2)[0], "label": "partially_supported", "score": 0.6}, sup(claims(2)[1])]
    base = {"rules": {"unsupported": {"max_ratio": 1.0}}}
    assert decide(make_report(sentences(2), spec), pol(**base)).action is Action.respond
    d = decide(make_report(sentences(2), spec), pol(**base, claims={"partial_counts_as_unsupported": True}))
    assert d.action is Action.caveat and d.claim_ids == ["c1"]


# --------------------------------------------------------------------------- evidence / claims


def test_no_evidence_given_abstains_with_code():
    r = make_report(sentences(1), [uns(claims(1)[0])], evidence=[])
    d = decide(r, pol())
    assert d.action is Action.abstain and d.code is ReasonCode.no_relevant_evidence
    assert d.final_text == Policy().abstain.message


def test_every_claim_unsupported_is_no_relevant_evidence_but_one_supported_is_not():
    p = pol(abstain={"messages": {"no_relevant_evidence": "Nothing on that."}})
    d = decide(make_report(sentences(2), [uns(claims(2)[0]), uns(claims(2)[1])]), p)
    assert d.code is ReasonCode.no_relevant_evidence and d.final_text == "Nothing on that."
    d = decide(make_report(sentences(2), [uns(claims(2)[0]), sup(claims(2)[1])]), p)
    assert ReasonCode.no_relevant_evidence not in codes(d)


def test_no_claims_uses_on_no_claims():
    r = make_report("Hi!", [])
    assert decide(r, pol()).action is Action.respond and decide(r, pol()).code is ReasonCode.no_claims
    assert decide(r, pol(claims={"on_no_claims": "abstain"})).action is Action.abstain


# --------------------------------------------------------------------------- citations / schema


def _cit(marker: str, claim_id: str, exists=True, supports=None, quote_ok=None) -> CitationResult:
    return CitationResult(marker=marker, claim_id=claim_id, target_ids=[marker.strip("[]")], exists=exists, supports=supports, quote_ok=quote_ok)


def test_citation_required_marks_uncited_claims():
    answer = "Paris is in France [1]. It has a tower."
    r = make_report(answer, [sup("Paris is in France [1]."), sup("It has a tower.")],
                    citations=CitationReport(results=[_cit("[1]", "c1")], attribution_precision=1.0))
    p = pol(citations={"required": True, "missing_action": "regenerate"})
    d = decide(r, p)
    assert d.action is Action.regenerate and d.code is ReasonCode.citation_missing and d.claim_ids == ["c2"]
    assert decide(r, pol()).action is Action.respond  # not required: fine


@pytest.mark.parametrize("result, what", [(dict(exists=False), "missing source"), (dict(supports=False), "does not support"),
                                          (dict(quote_ok=False), "misquoted")])
def test_invalid_citation(result, what):
    r = make_report("Paris is in France [1].", [sup("Paris is in France [1].")],
                    citations=CitationReport(results=[_cit("[1]", "c1", **result)]))
    d = decide(r, pol(citations={"invalid_action": "abstain"}))
    assert d.action is Action.abstain and d.code is ReasonCode.citation_invalid and what in d.reasons[0].message


@pytest.mark.parametrize("precision, fires", [(0.49, True), (0.5, False), (0.51, False)])
def test_attribution_precision_edge(precision, fires):
    r = make_report("Paris is in France [1].", [sup("Paris is in France [1].")],
                    citations=CitationReport(results=[_cit("[1]", "c1")], attribution_precision=precision))
    d = decide(r, pol(citations={"min_attribution_precision": 0.5, "invalid_action": "caveat"}))
    assert (ReasonCode.citation_invalid in codes(d)) is fires


def test_cited_answer_without_citation_result_is_a_skipped_check():
    r = make_report("Paris is in France [1].", [sup("Paris is in France [1].")])
    d = decide(r, pol(citations={"required": True}))
    assert d.action is Action.abstain and d.code is ReasonCode.check_failed and d.reasons[0].check == "citations"


def test_schema_invalid_and_schema_required_but_missing():
    r = make_report("Paris is in France.", [sup("Paris is in France.")],
                    schema_result=SchemaResult(valid=False, issues=[SchemaIssue(path="$.city", message="is required")]))
    d = decide(r, pol(schema={"invalid_action": "abstain"}))
    assert d.action is Action.abstain and d.code is ReasonCode.schema_invalid and "$.city" in d.reasons[0].message
    r2 = make_report("Paris is in France.", [sup("Paris is in France.")])
    d2 = decide(r2, pol(schema={"required": True}))
    assert d2.code is ReasonCode.check_failed and d2.reasons[0].check == "schema"


# --------------------------------------------------------------------------- failure modes: never a silent pass


@pytest.mark.parametrize("mode, action, code", [("open", Action.respond, ReasonCode.check_skipped),
                                                 ("caveat", Action.caveat, ReasonCode.check_skipped),
                                                 ("closed", Action.abstain, ReasonCode.check_failed)])
def test_skipped_check_per_failure_mode(mode, action, code):
    answer = "Paris is in France."
    r = make_report(answer, [sup(answer)], skipped=[SkippedCheck(check="citations", reason="backend down")])
    d = decide(r, pol(failure={"checks": {"citations": mode}}))
    assert d.action is action and d.code is code
    assert any(x.check == "citations" and "backend down" in x.message for x in d.reasons)  # recorded in every mode
    if mode == "caveat":
        assert d.final_text == answer + "\n\n" + Policy().caveat.general_note  # nothing to mark: general note
    if mode == "closed":
        assert d.final_text == Policy().abstain.message


def test_unevaluatable_and_missing_verdicts_count_as_the_verify_check():
    answer = "Paris is in France. It has a tower. It is old."
    spec = [sup("Paris is in France."), {"text": "It has a tower.", "label": "unevaluatable", "reason": "timeout"},
            {"text": "It is old.", "verdict": False}]
    d = decide(make_report(answer, spec), pol())
    assert d.action is Action.abstain and d.code is ReasonCode.check_failed
    assert d.reasons[0].check == "verify" and d.reasons[0].claim_ids == ["c2", "c3"]
    assert "timeout" in d.reasons[0].message and "no verdict" in d.reasons[0].message
    d = decide(make_report(answer, spec), pol(failure={"checks": {"verify": "caveat"}}))
    assert d.action is Action.caveat and [c.claim_id for c in d.caveats] == ["c2", "c3"]
    assert d.final_text == "Paris is in France. It has a tower. [unverified: could not be checked] It is old. [unverified: could not be checked]"
    d = decide(make_report(answer, spec), pol(failure={"default": "open"}))
    assert d.action is Action.respond and d.code is ReasonCode.check_skipped and d.final_text == answer


def test_closed_action_escalate():
    r = make_report("Paris is in France.", [sup("Paris is in France.")], skipped=[SkippedCheck(check="verify", reason="x")])
    assert decide(r, pol(failure={"closed_action": "escalate"})).action is Action.escalate


def test_decide_failure_follows_the_check_failure_mode():
    err = BackendError("model missing")
    assert decide_failure("A.", err, pol()).action is Action.abstain
    d = decide_failure("A.", err, pol(failure={"checks": {"check": "open"}}))
    assert d.action is Action.respond and d.final_text == "A." and d.code is ReasonCode.check_skipped and d.report is None
    assert "model missing" in d.error


# --------------------------------------------------------------------------- combination, text, purity


def test_most_severe_action_wins_and_code_is_its_first_reason():
    spec = [con(claims(3)[0]), uns(claims(3)[1]), uns(claims(3)[2])]
    p = pol(rules={"contradiction": {"action": "regenerate"}, "unsupported": {"max_ratio": 0.5, "action": "abstain"},
                   "no_evidence": {"action": "respond"}})
    d = decide(make_report(sentences(3), spec), p)
    assert d.action is Action.abstain and d.code is ReasonCode.unsupported and d.claim_ids == ["c2", "c3"]
    assert {ReasonCode.contradiction, ReasonCode.flagged_claim} <= set(codes(d))


def test_regenerate_shows_the_fallback_until_regenerated():
    answer = sentences(2)
    r = make_report(answer, [con(claims(2)[0]), sup(claims(2)[1])])
    d = decide(r, pol())
    assert d.action is Action.regenerate and d.final_text != answer
    assert d.final_text.startswith("Claim number 0 holds. [unverified: contradicted by the sources]")
    d = decide(r, pol(regenerate={"fallback": "abstain"}))
    assert d.final_text == Policy().abstain.message


def test_abstain_message_per_code():
    r = make_report(sentences(1), [con(claims(1)[0])])
    p = pol(rules={"contradiction": {"action": "abstain"}}, abstain={"message": "No.", "messages": {"contradiction": "Contradicted."}})
    assert decide(r, p).final_text == "Contradicted."
    p2 = pol(rules={"contradiction": {"action": "abstain"}}, abstain={"message": "No."})
    assert decide(r, p2).final_text == "No."


def test_decide_is_pure():
    r = make_report(sentences(3), [con(claims(3)[0]), uns(claims(3)[1]), sup(claims(3)[2])],
                    evidence=[Evidence(id="1", text="x")])
    before = copy.deepcopy(r)
    p = pol()
    assert decide(r, p) == decide(r, p)
    assert r == before


def test_policy_hash_tracks_effective_settings_only():
    a, b = Policy(name="x"), Policy(name="x", extends="default")
    assert a.content_hash == b.content_hash
    assert Policy(name="x", rules={"contradiction": {"max_count": 1}}).content_hash != a.content_hash


def test_no_evidence_is_the_root_cause_over_the_checks_it_made_impossible():
    answer = "Paris is in France."
    r = make_report(answer, [{"text": answer, "label": "unevaluatable", "reason": "no context"}], evidence=[],
                    skipped=[SkippedCheck(check="evidence", reason="no context was given", claim_ids=["c1"])])
    d = decide(r, pol())
    assert d.action is Action.abstain and d.code is ReasonCode.no_relevant_evidence
    assert {x.check for x in d.reasons if x.code is ReasonCode.check_failed} == {"evidence", "verify"}


# --------------------------------------------------------------------------- unchecked factual text (issue 15)

from guardrail.types import UncheckedSpan  # noqa: E402


def with_unchecked(report, *spans: tuple[str, bool]):
    """The report with the given (text, factual) spans of its answer listed as unchecked."""
    unchecked = []
    for text, factual in spans:
        start = report.answer.index(text)
        unchecked.append(UncheckedSpan(start=start, end=start + len(text), text=text, reason="question", factual=factual))
    return report.model_copy(update={"unchecked": unchecked})


UNCHECKED_ANSWER = "Paris is in France. Why is the tower 530 metres tall?"
UNCHECKED_SPAN = "Why is the tower 530 metres tall?"


def test_unchecked_factual_text_caveats_by_default_and_marks_the_span():
    r = with_unchecked(make_report(UNCHECKED_ANSWER, [sup("Paris is in France.")]), (UNCHECKED_SPAN, True))
    d = decide(r, pol())
    assert d.action is Action.caveat and d.code is ReasonCode.unchecked_text
    assert "530 metres" in d.reasons[0].message
    assert [(c.text, c.label) for c in d.caveats] == [(UNCHECKED_SPAN, "unchecked")]
    assert d.final_text == f"Paris is in France. {UNCHECKED_SPAN} [unverified: not checked against the sources]"


def test_unchecked_non_factual_text_changes_nothing():
    r = with_unchecked(make_report(UNCHECKED_ANSWER, [sup("Paris is in France.")]), (UNCHECKED_SPAN, False))
    d = decide(r, pol())
    assert d.action is Action.respond and d.code is ReasonCode.supported


@pytest.mark.parametrize(("rule", "action"), [({"action": "abstain"}, Action.abstain), ({"action": "escalate"}, Action.escalate),
                                              ({"action": "abstain", "fail_open": True}, Action.respond)])
def test_unchecked_text_rule(rule, action):
    r = with_unchecked(make_report(UNCHECKED_ANSWER, [sup("Paris is in France.")]), (UNCHECKED_SPAN, True))
    d = decide(r, pol(rules={"unchecked_text": rule}))
    assert d.action is action
    assert any(x.code is ReasonCode.unchecked_text for x in d.reasons)  # recorded even when fail-open
    if rule.get("fail_open"):
        assert d.final_text == UNCHECKED_ANSWER


def test_an_answer_of_only_unchecked_facts_is_not_no_claims():
    r = with_unchecked(make_report(UNCHECKED_SPAN, []), (UNCHECKED_SPAN, True))
    d = decide(r, pol())
    assert d.action is Action.caveat and d.code is ReasonCode.unchecked_text
    assert ReasonCode.no_claims not in codes(d)
    plain = make_report("Anything else?", [])
    assert decide(plain, pol()).code is ReasonCode.no_claims  # a pure question still is


def test_bundled_policies_never_respond_to_unchecked_facts():
    from pathlib import Path

    from guardrail.policy import PolicyStore

    store = PolicyStore(Path(__file__).resolve().parent.parent / "policies")
    r = with_unchecked(make_report(UNCHECKED_SPAN, []), (UNCHECKED_SPAN, True))
    assert decide(r, store.get("default")).action is Action.caveat
    assert decide(r, store.get("healthcare")).action in (Action.abstain, Action.escalate)
    assert decide(r, store.get("internal-search")).action is Action.caveat


def test_verify_skipped_check_and_unevaluatable_verdicts_are_one_reason():
    answer = "Paris is in France."
    r = make_report(answer, [{"text": answer, "label": "unevaluatable", "reason": "LLM timed out"}],
                    skipped=[SkippedCheck(check="verify", reason="verifier 'judge' could not evaluate 1 claim(s)", claim_ids=["c1"])])
    d = decide(r, pol())
    assert d.action is Action.abstain
    assert [x.check for x in d.reasons if x.code is ReasonCode.check_failed] == ["verify"]
    assert [c.claim_id for c in decide(r, pol(failure={"default": "caveat"})).caveats] == ["c1"]
