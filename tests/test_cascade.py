"""CascadeVerifier: band routing, judge failures, stats from verdicts, concurrency safety."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence

import pytest
from openai_stub import Reply, openai_stub  # noqa: F401  (fixture)

from guardrail import Guardrail
from guardrail.errors import BackendError
from guardrail.evidence import EvidenceSelector
from guardrail.llm import OpenAIChat
from guardrail.types import Claim, ClaimVerdict, Label, VerificationItem, Window
from guardrail.verifiers import Verifier, unevaluatable
from guardrail.verifiers.cascade import CascadeVerifier
from guardrail.verifiers.judge import LLMJudgeVerifier


def item(cid: str) -> VerificationItem:
    return VerificationItem(claim=Claim(id=cid, text=f"claim {cid}", start=0, end=8),
                            windows=[Window(evidence_id="d1", start=0, end=8, text="evidence")])


class ScoreVerifier:
    """Fast stand-in: the hallucination score of each claim comes from a table (None = unevaluatable)."""

    def __init__(self, scores: dict[str, float | None], name: str = "fast"):
        self.scores, self.name, self.seen = scores, name, []

    def verify(self, items: Sequence[VerificationItem], batch_size: int = 32) -> list[ClaimVerdict]:
        self.seen.append([it.claim.id for it in items])
        out = []
        for it in items:
            s = self.scores[it.claim.id]
            if s is None:
                out.append(unevaluatable(it, f"{self.name} could not read it", self.name))
            else:
                label = Label.unsupported if s >= 0.5 else Label.supported
                out.append(ClaimVerdict(claim_id=it.claim.id, label=label, confidence=max(s, 1 - s),
                                        hallucination_score=s, reason="fast reason", verifier=self.name))
        return out


class LabelJudge(ScoreVerifier):
    """Judge stand-in with a native async path; 'fail' entries come back unevaluatable."""

    async def averify(self, items: Sequence[VerificationItem], batch_size: int = 32) -> list[ClaimVerdict]:
        await asyncio.sleep(0.01)
        return self.verify(items, batch_size)


SCORES = {"a": 0.1, "b": 0.3, "c": 0.5, "d": 0.7, "e": 0.95, "f": None}


def test_only_band_and_unevaluatable_items_reach_the_judge():
    fast, judge = ScoreVerifier(SCORES), LabelJudge({k: 0.99 for k in SCORES}, name="judge")
    cv = CascadeVerifier(fast, judge)
    verdicts = cv.verify([item(k) for k in SCORES])
    assert judge.seen == [["b", "c", "d", "f"]]  # band is inclusive
    assert [v.claim_id for v in verdicts] == list(SCORES)
    assert [v.verifier for v in verdicts] == ["fast", "judge", "judge", "judge", "fast", "judge"]
    assert verdicts[2].hallucination_score == 0.99 and verdicts[2].label is Label.unsupported
    assert verdicts[0].reason.startswith("[cascade: fast verdict outside band") and verdicts[0].reason.endswith("fast reason")
    assert verdicts[1].reason.startswith("[cascade: judged by judge; fast supported 0.30]")
    stats = CascadeVerifier.stats(verdicts)
    assert (stats.total, stats.fast_only, stats.judged, stats.judge_failed, stats.sent_to_judge) == (6, 2, 4, 0, 4)
    assert cv.name == "cascade(fast->judge)" and isinstance(cv, Verifier)


def test_judge_unevaluatable_keeps_the_fast_verdict_with_the_reason():
    fast = ScoreVerifier(SCORES)
    judge = LabelJudge({"b": None, "c": 0.9, "d": None, "f": None}, name="judge")
    verdicts = CascadeVerifier(fast, judge).verify([item(k) for k in SCORES])
    b, f = verdicts[1], verdicts[5]
    assert b.label is Label.supported and b.hallucination_score == 0.3 and b.verifier == "fast"
    assert "judge failed" in b.reason and "judge could not read it" in b.reason and b.reason.endswith("fast reason")
    assert "judge could not read it" in f.reason and "fast could not read it" in f.reason
    assert f.label is Label.unevaluatable  # both failed: still unevaluatable, never a pass
    stats = CascadeVerifier.stats(verdicts)
    assert (stats.judged, stats.judge_failed, stats.fast_only) == (1, 3, 2)


def test_custom_band_and_no_judge_call_when_nothing_is_uncertain():
    fast, judge = ScoreVerifier({"a": 0.05, "b": 0.95}), LabelJudge({}, name="judge")
    verdicts = CascadeVerifier(fast, judge, band=(0.2, 0.8)).verify([item("a"), item("b")])
    assert judge.seen == [] and CascadeVerifier.stats(verdicts).fast_only == 2
    with pytest.raises(ValueError):
        CascadeVerifier(fast, judge, band=(0.8, 0.2))


class Raising(LabelJudge):
    def __init__(self, exc: Exception):
        super().__init__({}, name="judge")
        self.exc = exc

    def verify(self, items, batch_size=32):
        raise self.exc


class Short(LabelJudge):
    def verify(self, items, batch_size=32):
        return super().verify(items, batch_size)[:-1]


class Garbage(LabelJudge):
    """Verdict-shaped replies that are not verdicts: NaN score, a label outside the enum, another claim's id."""

    def verify(self, items, batch_size=32):
        bad = []
        for k, it in enumerate(items):
            v = ClaimVerdict.model_construct(claim_id=it.claim.id, label=Label.supported, confidence=0.9,
                                             hallucination_score=0.1, verifier="judge")
            if k % 3 == 0:
                v.hallucination_score = float("nan")
            elif k % 3 == 1:
                v.label = "probably fine"
            else:
                v.claim_id = "someone-else"
            bad.append(v)
        return bad


class Hanging(LabelJudge):
    def verify(self, items, batch_size=32):
        time.sleep(5)
        return super().verify(items, batch_size)


@pytest.mark.parametrize("judge", [
    Raising(BackendError("judge endpoint down")),
    Raising(ZeroDivisionError("division by zero")),
    Short({k: 0.9 for k in SCORES}, name="judge"),
    Garbage({}, name="judge"),
    Hanging({k: 0.9 for k in SCORES}, name="judge"),
], ids=["backend-error", "zero-division", "wrong-count", "garbage", "hang"])
def test_a_judge_that_fails_keeps_the_fast_verdicts_and_lists_the_claims_as_unchecked(judge):
    items = [item(k) for k in SCORES]
    started = time.perf_counter()
    run = CascadeVerifier(ScoreVerifier(SCORES), judge, judge_timeout_s=0.3).verify_run(items)
    assert time.perf_counter() - started < 3.0  # the hang is cut at the deadline
    assert [v.verifier for v in run.verdicts] == ["fast"] * 6  # nothing the judge sent counts
    assert [v.hallucination_score for v in run.verdicts][:5] == [0.1, 0.3, 0.5, 0.7, 0.95]
    assert sorted(u.index for u in run.unchecked) == [1, 2, 3, 5]
    (skipped,) = run.skipped(items)
    assert skipped.check == "judge" and skipped.claim_ids == ["b", "c", "d", "f"]
    assert "escalation to the judge did not run" in skipped.reason
    assert CascadeVerifier.stats(run.verdicts).judge_failed == 4


def test_an_unevaluatable_judge_verdict_is_listed_as_unchecked_too():
    fast = ScoreVerifier(SCORES)
    judge = LabelJudge({"b": None, "c": 0.9, "d": None, "f": None}, name="judge")
    items = [item(k) for k in SCORES]
    run = CascadeVerifier(fast, judge).verify_run(items)
    assert [items[u.index].claim.id for u in run.unchecked] == ["b", "d", "f"]
    assert run.skipped(items)[0].claim_ids == ["b", "d", "f"]
    assert run.skipped(items, start=3)[0].claim_ids == ["d", "f"]  # one answer's share of a batched call


def test_threshold_follows_the_fast_verifier_unless_set():
    fast = ScoreVerifier(SCORES)
    fast.recommended_threshold = 0.12
    fast.evidence_selector = {"window_tokens": 64}
    assert CascadeVerifier(fast, LabelJudge({}, name="judge")).recommended_threshold == 0.12
    assert CascadeVerifier(fast, LabelJudge({}, name="judge")).evidence_selector == {"window_tokens": 64}
    assert CascadeVerifier(fast, LabelJudge({}, name="judge"), threshold=0.4).recommended_threshold == 0.4
    assert CascadeVerifier(ScoreVerifier(SCORES), LabelJudge({}, name="judge")).recommended_threshold == 0.5
    with pytest.raises(ValueError):
        CascadeVerifier(fast, LabelJudge({}, name="judge"), threshold=1.5)


class Contradicting(ScoreVerifier):
    """Fast stand-in whose calibrated threshold is 0.12 and which calls 'Lyon' a contradiction at 0.22."""

    recommended_threshold = 0.12

    def verify(self, items, batch_size=32):
        return [ClaimVerdict(claim_id=it.claim.id, label=Label.contradicted if "Lyon" in it.claim.text else Label.supported,
                             confidence=0.8, hallucination_score=0.22 if "Lyon" in it.claim.text else 0.02,
                             evidence_ids=[w.evidence_id for w in it.windows], verifier=self.name)
                for it in items]


def test_guardrail_flags_a_contradiction_below_the_band_at_the_fast_threshold():
    judge = LabelJudge({}, name="judge")
    g = Guardrail(CascadeVerifier(Contradicting({}), judge), selector=EvidenceSelector(method="bm25"))
    report = g.check("The tower is in Paris. The tower is in Lyon.", "The tower is in Paris.")
    assert report.threshold == 0.12 and judge.seen == []  # 0.22 is below the band: the judge is not asked
    assert report.hallucinated and [c.text for c, _ in report.flagged] == ["The tower is in Lyon."]
    assert report.complete


def test_guardrail_reports_the_judge_that_did_not_run():
    g = Guardrail(CascadeVerifier(ScoreVerifier({"c1": 0.1, "c2": 0.4}), Raising(BackendError("connection refused"))),
                  selector=EvidenceSelector(method="bm25"))
    report = g.check("The tower is in Paris. The tower is tall.", "The tower is in Paris and it is tall.")
    assert not report.hallucinated and not report.complete
    assert [(s.check, s.claim_ids) for s in report.skipped] == [("judge", ["c2"])]
    assert "connection refused" in report.skipped[0].reason


async def test_async_path_and_concurrent_calls_do_not_share_state():
    fast, judge = ScoreVerifier(SCORES), LabelJudge({k: 0.8 for k in SCORES}, name="judge")
    cv = CascadeVerifier(fast, judge)
    one, two = await asyncio.gather(cv.averify([item("a"), item("e")]), cv.averify([item(k) for k in "bcdf"]))
    assert CascadeVerifier.stats(one).judged == 0 and CascadeVerifier.stats(two).judged == 4
    assert [v.verifier for v in two] == ["judge"] * 4


def test_with_the_llm_judge_over_a_scripted_server(openai_stub):
    def responder(req):
        user = req["json"]["messages"][1]["content"]
        if "claim c" in user:
            return Reply(status=500)
        return Reply(content=json.dumps({"reasoning": "r", "label": "contradicted", "confidence": 0.9}))

    openai_stub.responder = responder
    judge = LLMJudgeVerifier(OpenAIChat(base_url=openai_stub.base_url, model="m", backoff_s=0.0, max_retries=0))
    verdicts = CascadeVerifier(ScoreVerifier(SCORES), judge).verify([item(k) for k in "abc"])
    assert len(openai_stub.requests) == 2  # b and c only
    a, b, c = verdicts
    assert a.verifier == "fast" and b.verifier == "llm-judge" and b.label is Label.contradicted
    assert c.verifier == "fast" and c.hallucination_score == 0.5 and "HTTP 500" in c.reason
