"""Fault suite: verifier, judge and extractor backends that raise, hang or return garbage.

Whatever breaks, ``guard`` ends in the policy's failure mode (fail-open lets the answer through
with the failure recorded, fail-closed abstains), the report (when there is one) is not complete
and names the check that did not run, the audit log holds the decision, and no path ends in
``respond`` with a complete report. Issue 15: "each path ends in the policy's fail mode, audited,
never a silent pass".
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence

import pytest
from openai_stub import Reply, openai_stub  # noqa: F401  (fixture)

from guardrail import Guardrail
from guardrail.claims import SentenceClaimExtractor
from guardrail.claims_llm import LLMClaimExtractor
from guardrail.errors import BackendError, InputError
from guardrail.evidence import EvidenceSelector
from guardrail.llm import OpenAIChat
from guardrail.policy import Action, AuditLog, Policy, ReasonCode, aguard, guard
from guardrail.types import ClaimVerdict, Label, VerificationItem
from guardrail.verifiers.cascade import CascadeVerifier
from guardrail.verifiers.judge import LLMJudgeVerifier

ANSWER = "The Eiffel Tower is 330 metres tall. It was completed in 1889."
CONTEXT = "The Eiffel Tower is 330 metres tall. It was completed in 1889 for the World's Fair."

OPEN = Policy(name="fail-open", failure={"default": "open"})
CLOSED = Policy(name="fail-closed", failure={"default": "closed"})


# --------------------------------------------------------------------------- backends


class Fine:
    """A verifier that works: every claim supported, at a score inside the cascade's band."""

    name = "fine"

    def __init__(self, score: float = 0.4):
        self.score = score

    def verify(self, items: Sequence[VerificationItem], batch_size: int = 32) -> list[ClaimVerdict]:
        return [ClaimVerdict(claim_id=it.claim.id, label=Label.supported, confidence=1 - self.score,
                             hallucination_score=self.score, verifier=self.name) for it in items]


class Raises:
    name = "raises"

    def __init__(self, exc: Exception):
        self.exc = exc

    def verify(self, items, batch_size=32):
        raise self.exc


class Hangs(Fine):
    name = "hangs"

    def verify(self, items, batch_size=32):
        time.sleep(5)
        return super().verify(items, batch_size)


class ShortList(Fine):
    name = "short"

    def verify(self, items, batch_size=32):
        return super().verify(items, batch_size)[:-1]


class NaNScores(Fine):
    name = "nan"

    def verify(self, items, batch_size=32):
        return [ClaimVerdict.model_construct(**{**dict(v), "hallucination_score": float("nan")})
                for v in super().verify(items, batch_size)]


class BadLabels(Fine):
    name = "bad-labels"

    def verify(self, items, batch_size=32):
        return [{**dict(v), "label": "looks fine to me"} for v in super().verify(items, batch_size)]


VERIFIER_FAULTS = {
    "backend-error": lambda: Raises(BackendError("model file is corrupt")),
    "zero-division": lambda: Raises(ZeroDivisionError("division by zero")),
    "key-error": lambda: Raises(KeyError("logits")),
    "wrong-length": ShortList,
    "nan-scores": NaNScores,
    "labels-outside-enum": BadLabels,
}


def pipeline(verifier, extractor=None) -> Guardrail:
    return Guardrail(verifier, extractor=extractor, selector=EvidenceSelector(method="bm25"))


def assert_fail_mode(decision, policy: Policy, audit: AuditLog, check: str | None) -> None:
    """The decision is the policy's failure mode, recorded in the audit log; never a clean respond."""
    if policy is CLOSED:
        assert decision.action is Action.abstain and decision.code is ReasonCode.check_failed
    else:
        assert decision.action is Action.respond and decision.code is ReasonCode.check_skipped
        assert decision.final_text == ANSWER
    failures = [r for r in decision.reasons if r.code in (ReasonCode.check_failed, ReasonCode.check_skipped)]
    assert failures, "the failure must be among the reasons"
    if decision.report is not None:
        assert not decision.report.complete
        if check is not None:
            assert check in {s.check for s in decision.report.skipped}
    else:
        assert decision.error
    row = audit.last(1)[0]
    assert row.action == decision.action.value and row.decision().code is decision.code


@pytest.fixture
def audit(tmp_path):
    with AuditLog(tmp_path / "audit.db") as log:
        yield log


# --------------------------------------------------------------------------- the verifier


@pytest.mark.parametrize("policy", [OPEN, CLOSED], ids=["open", "closed"])
@pytest.mark.parametrize("fault", list(VERIFIER_FAULTS))
def test_verifier_faults_end_in_the_fail_mode(fault, policy, audit):
    g = pipeline(VERIFIER_FAULTS[fault]())
    decision = guard(ANSWER, CONTEXT, check=g.check, policy=policy, audit=audit)
    assert_fail_mode(decision, policy, audit, check=None)
    report = decision.report
    assert report is not None and all(v.label is Label.unevaluatable for v in report.verdicts)
    assert all(v.reason for v in report.verdicts)


@pytest.mark.parametrize("policy", [OPEN, CLOSED], ids=["open", "closed"])
def test_a_hanging_verifier_is_a_failed_check_not_a_hang(policy, audit):
    g = Guardrail(Hangs(), selector=EvidenceSelector(method="bm25"), verifier_timeout_s=0.3)
    t0 = time.perf_counter()
    decision = guard(ANSWER, CONTEXT, check=g.check, policy=policy, audit=audit)
    assert time.perf_counter() - t0 < 3.0  # the verifier sleeps 5 s
    assert_fail_mode(decision, policy, audit, check="verify")
    assert all(v.label is Label.unevaluatable and "0.3" in v.reason for v in decision.report.verdicts)
    with pytest.raises(InputError):
        Guardrail(Fine(), verifier_timeout_s=0)


def test_a_custom_verifier_exception_is_named_with_its_cause():
    report = pipeline(Raises(ZeroDivisionError("division by zero"))).check(ANSWER, CONTEXT)
    assert [s.check for s in report.skipped] == ["verify"]
    assert "verifier 'raises' raised ZeroDivisionError: division by zero" in report.skipped[0].reason


# --------------------------------------------------------------------------- the cascade's judge


class JudgeRaises(Raises):
    name = "judge"


class JudgeHangs(Hangs):
    name = "judge"


class JudgeShort(ShortList):
    name = "judge"


class JudgeNaN(NaNScores):
    name = "judge"


class JudgeBadLabels(BadLabels):
    name = "judge"


JUDGE_FAULTS = {
    "backend-error": lambda: JudgeRaises(BackendError("judge endpoint down")),
    "zero-division": lambda: JudgeRaises(ZeroDivisionError("division by zero")),
    "hang": JudgeHangs,
    "wrong-length": JudgeShort,
    "nan-scores": JudgeNaN,
    "labels-outside-enum": JudgeBadLabels,
}


@pytest.mark.parametrize("policy", [OPEN, CLOSED], ids=["open", "closed"])
@pytest.mark.parametrize("fault", list(JUDGE_FAULTS))
def test_judge_faults_end_in_the_fail_mode(fault, policy, audit):
    g = pipeline(CascadeVerifier(Fine(0.4), JUDGE_FAULTS[fault](), judge_timeout_s=0.3))
    started = time.perf_counter()
    decision = guard(ANSWER, CONTEXT, check=g.check, policy=policy, audit=audit)
    assert time.perf_counter() - started < 4.0
    assert_fail_mode(decision, policy, audit, check="judge")
    skipped = next(s for s in decision.report.skipped if s.check == "judge")
    assert skipped.claim_ids == [c.id for c in decision.report.claims]


def test_the_judge_failure_mode_can_be_set_on_its_own(audit):
    """A tenant may let the answer through when only the judge is down, yet fail closed otherwise."""
    policy = Policy(name="judge-open", failure={"default": "closed", "checks": {"judge": "caveat"}})
    g = pipeline(CascadeVerifier(Fine(0.4), JudgeRaises(BackendError("down"))))
    decision = guard(ANSWER, CONTEXT, check=g.check, policy=policy, audit=audit)
    assert decision.action is Action.caveat and not decision.report.complete


def test_a_judge_that_did_not_run_is_never_a_clean_respond_even_fail_open(audit):
    g = pipeline(CascadeVerifier(Fine(0.4), JudgeRaises(BackendError("down"))))
    decision = guard(ANSWER, CONTEXT, check=g.check, policy=OPEN, audit=audit)
    assert decision.action is Action.respond and decision.code is ReasonCode.check_skipped
    assert any(r.check == "judge" for r in decision.reasons)


@pytest.mark.parametrize("reply", [
    Reply(body="{not json"),
    Reply(content=json.dumps({"reasoning": "r", "label": "maybe", "confidence": 0.9})),
    Reply(content='{"reasoning": "r", "label": "supported", "confidence": NaN}'),
    Reply(content=json.dumps({"reasoning": "r", "label": "supported", "confidence": 7.5e9})),
    Reply(status=503),
    Reply(delay=2.0, content=json.dumps({"reasoning": "r", "label": "supported", "confidence": 0.9})),
], ids=["unparseable", "label-outside-enum", "nan-confidence", "out-of-range", "http-503", "hang"])
@pytest.mark.parametrize("policy", [OPEN, CLOSED], ids=["open", "closed"])
def test_llm_judge_garbage_and_timeouts_over_http(openai_stub, reply, policy, audit):
    openai_stub.responder = lambda req: reply
    chat = OpenAIChat(base_url=openai_stub.base_url, model="m", timeout_s=0.5, max_retries=0, backoff_s=0.0)
    judge = LLMJudgeVerifier(chat, repair_attempts=0)
    for verifier, check in ((judge, None), (CascadeVerifier(Fine(0.4), judge), "llm-judge")):
        decision = guard(ANSWER, CONTEXT, check=pipeline(verifier).check, policy=policy, audit=audit)
        assert_fail_mode(decision, policy, audit, check=check)
        report = decision.report
        if check is None:  # the judge alone: its claims are unevaluatable with the reason
            assert all(v.label is Label.unevaluatable and "llm-judge failed" in v.reason for v in report.verdicts)


async def test_async_guard_with_a_failing_judge(audit):
    g = pipeline(CascadeVerifier(Fine(0.4), JudgeRaises(ZeroDivisionError("boom"))))
    decision = await aguard(ANSWER, CONTEXT, check=g.acheck, policy=CLOSED, audit=audit)
    assert_fail_mode(decision, CLOSED, audit, check="judge")


async def test_async_cascade_path_marks_the_judge_unchecked():
    class AsyncDown(JudgeRaises):
        async def averify(self, items, batch_size=32):
            raise ZeroDivisionError("boom")

    items = [VerificationItem(claim=c, windows=[]) for c in SentenceClaimExtractor().extract(ANSWER)]
    run = await CascadeVerifier(Fine(0.4), AsyncDown(ZeroDivisionError("boom"))).averify_run(items)
    assert [u.index for u in run.unchecked] == [0, 1] and "ZeroDivisionError: boom" in run.unchecked[0].reason


# --------------------------------------------------------------------------- the claim extractor


class ExtractorRaises:
    def __init__(self, exc: Exception):
        self.exc = exc

    def extract(self, answer: str):
        raise self.exc


class ExtractorGarbage:
    def extract(self, answer: str):
        return ["The Eiffel Tower is 330 metres tall.", 42]


EXTRACTOR_FAULTS = {
    "backend-error": lambda: ExtractorRaises(BackendError("extractor model missing")),
    "zero-division": lambda: ExtractorRaises(ZeroDivisionError("division by zero")),
    "garbage": ExtractorGarbage,
}


@pytest.mark.parametrize("policy", [OPEN, CLOSED], ids=["open", "closed"])
@pytest.mark.parametrize("fault", list(EXTRACTOR_FAULTS))
def test_extractor_faults_end_in_the_fail_mode(fault, policy, audit):
    g = pipeline(Fine(0.1), extractor=EXTRACTOR_FAULTS[fault]())
    decision = guard(ANSWER, CONTEXT, check=g.check, policy=policy, audit=audit)
    assert_fail_mode(decision, policy, audit, check=None)
    assert decision.report is None
    assert "extractor model missing" in decision.error if fault == "backend-error" else "check raised" in decision.error


@pytest.mark.parametrize("policy", [OPEN, CLOSED], ids=["open", "closed"])
def test_llm_extractor_that_hangs_ends_in_the_fail_mode(openai_stub, policy, audit):
    openai_stub.responder = lambda req: Reply(delay=2.0, content="{}")
    chat = OpenAIChat(base_url=openai_stub.base_url, model="m", timeout_s=0.3, max_retries=0, backoff_s=0.0)
    g = pipeline(Fine(0.1), extractor=LLMClaimExtractor(chat))
    started = time.perf_counter()
    decision = guard(ANSWER, CONTEXT, check=g.check, policy=policy, audit=audit)
    assert time.perf_counter() - started < 2.0
    assert_fail_mode(decision, policy, audit, check=None)
    assert "LLMTimeout" in decision.error


def test_the_callers_own_mistakes_still_raise(audit):
    """Bad input is the caller's to fix: it is an error, not a decision (and nothing is audited)."""
    g = pipeline(Fine(0.1))
    with pytest.raises(InputError):
        guard("   ", CONTEXT, check=g.check, policy=OPEN, audit=audit)
    assert audit.count() == 0
