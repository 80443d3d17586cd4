"""A streamed answer gets the decision ``guard`` (what ``invoke`` runs) gives the same full answer.

Issue 15, item 3: a segment with no claims was released even when the policy abstains on answers
without claims (healthcare ``on_no_claims: abstain``), so ``stream`` showed what ``invoke``
withheld. Item 4: a rewrite requested while the answer still streamed cut the answer stream on a
one-slot server. The checker is ``lexical_check``: real and deterministic, so every verdict is known.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import sqlite3

from guardrail.policy import Action, AuditLog, Policy, ReasonCode, guard
from guardrail.policy._policy import SEVERITY, ClaimsPolicy, ContradictionRule, EscalationPolicy
from guardrail.streaming import StreamGuard, arun_stream, run_stream
from guardrail.claims import SentenceClaimExtractor
from test_policy_helpers import CONTEXT, lexical_check
from test_streaming import GOOD1, GOOD2, LENIENT, STRICT, UNSUPPORTED, WRONG, chunks_of, shown

NO_CLAIMS_ABSTAIN = LENIENT.model_copy(update={"name": "no-claims-abstain", "claims": ClaimsPolicy(on_no_claims=Action.abstain)})
ESCALATING = Policy(name="esc", escalation=EscalationPolicy(stakes=1.0, max_risk=0.1))
TWO_CONTRADICTIONS = LENIENT.model_copy(update={"name": "two-contradictions", "rules": LENIENT.rules.model_copy(update={
    "contradiction": ContradictionRule(max_count=1, action=Action.abstain)})})
WRONG2 = "The Eiffel Tower is 324 metres tall."

EXTRACTOR = SentenceClaimExtractor()  # the project's extractor: "Sure!" and headings hold no claim


def check(answer: str, context: Any, question: str | None = None):
    """``lexical_check`` with the project's extractor; like ``Guardrail.check``, an answer without a
    claim is left to the policy's ``on_no_claims`` (the helper reports a skipped "claims" check)."""
    report = lexical_check(answer, context, question, extractor=EXTRACTOR)
    return report if report.claims else report.model_copy(update={"skipped": []})


CASES = [
    (LENIENT, f"{GOOD1} {GOOD2}"),
    (LENIENT, f"{GOOD1} {UNSUPPORTED} {GOOD2}"),
    (LENIENT, f"{GOOD1} {WRONG} {GOOD2}"),
    (LENIENT, "Sure!"),
    (STRICT, "Sure!"),  # healthcare: on_no_claims abstain
    (STRICT, "Sure!\n\n## Dosage\n\n"),
    (STRICT, f"Sure! {GOOD1}"),
    (STRICT, f"{GOOD1} [1] {WRONG}"),
    (NO_CLAIMS_ABSTAIN, "Sure! Happy to help."),
    (NO_CLAIMS_ABSTAIN, f"Sure! {GOOD1} Hope this helps!"),
    (ESCALATING, f"{GOOD1} {WRONG} {GOOD2}"),
    (TWO_CONTRADICTIONS, f"{GOOD1} {WRONG} {WRONG2}"),  # a rule no single sentence breaks
]


def streamed(policy: Policy, answer: str, **kw: Any) -> tuple[StreamGuard, str]:
    sg = StreamGuard(CONTEXT, check=check, policy=policy, **kw)
    return sg, shown(list(run_stream(sg, chunks_of(answer, 4))))


async def astreamed(policy: Policy, answer: str, **kw: Any) -> tuple[StreamGuard, str]:
    sg = StreamGuard(CONTEXT, check=check, policy=policy, **kw)
    return sg, shown([s async for s in arun_stream(sg, chunks_of(answer, 4))])


@pytest.mark.parametrize(("policy", "answer"), CASES, ids=[f"{p.name}:{a[:24]}" for p, a in CASES])
def test_stream_and_astream_decide_as_invoke(policy, answer):
    invoked = guard(answer, CONTEXT, check=check, policy=policy)
    for sg, text in (streamed(policy, answer), asyncio.run(astreamed(policy, answer))):
        d = sg.decision
        assert d is not None and d.final_text == text
        assert SEVERITY[d.action] >= SEVERITY[invoked.action]  # a stream is never more lenient
        if all(s.action in (None, invoked.action) or SEVERITY[s.action] <= SEVERITY[invoked.action] for s in sg.segments):
            assert (d.action, d.code) == (invoked.action, invoked.code)
        if invoked.action in (Action.abstain, Action.escalate):
            # Nothing the whole-answer decision withholds is shown after the point where it was known.
            assert invoked.final_text.strip() in text


@pytest.mark.parametrize("policy", [STRICT, NO_CLAIMS_ABSTAIN])
def test_answer_without_claims_is_withheld_as_invoke_withholds_it(policy):
    # Was: "Sure!" (no claim) was released as streamed although invoke abstained on it.
    answer = "Sure!\n\nHappy to help."
    invoked = guard(answer, CONTEXT, check=check, policy=policy)
    assert invoked.action is Action.abstain and invoked.code is ReasonCode.no_claims
    for sg, text in (streamed(policy, answer), asyncio.run(astreamed(policy, answer))):
        assert text == invoked.final_text == policy.abstain.message_for(ReasonCode.no_claims)
        assert "Sure" not in text and sg.decision.action is Action.abstain and sg.decision.code is ReasonCode.no_claims


def test_text_without_claims_is_shown_once_the_answer_has_a_claim():
    answer = f"Sure! {GOOD1} Hope this helps!"
    sg, text = streamed(NO_CLAIMS_ABSTAIN, answer)
    assert text == answer and sg.decision.action is Action.respond
    kinds = [(s.text.strip(), s.action) for s in sg.segments if s.kind == "sentence"]
    assert kinds == [("Sure!", Action.respond), (GOOD1, Action.respond), ("Hope this helps!", Action.respond)]


def test_a_rule_over_the_whole_answer_still_withholds_the_end_and_is_the_decision():
    sg, text = streamed(TWO_CONTRADICTIONS, f"{GOOD1} {WRONG} {WRONG2}")
    assert sg.decision.action is Action.abstain and sg.decision.code is ReasonCode.contradiction
    assert text.endswith(TWO_CONTRADICTIONS.abstain.message_for(ReasonCode.contradiction))


def test_the_answers_decision_is_audited(tmp_path):
    log = AuditLog(tmp_path / "audit.sqlite")
    sg, _ = streamed(STRICT, "Sure!", audit=log, request_id="r1")
    rows = sqlite3.connect(tmp_path / "audit.sqlite").execute("SELECT action, code, request_id FROM decisions").fetchall()
    # "Sure!" was never released on its own, so its only row is the answer's.
    assert rows == [("abstain", "no_claims", "r1")]


# --------------------------------------------------------------------------- rewrites wait for the upstream


class RecordingFixer:
    """A rewrite model that records whether the answer stream had ended when it was asked."""

    def __init__(self, upstream_done: list[bool]):
        self.upstream_done, self.asked_while_streaming = upstream_done, []

    def chat(self, messages: list[dict[str, Any]], **kw: Any) -> str:
        self.asked_while_streaming.append(not self.upstream_done[0])
        return '{"c1": "It was completed in 1889 for the World\'s Fair."}'

    async def achat(self, messages: list[dict[str, Any]], **kw: Any) -> str:
        return self.chat(messages, **kw)


def _upstream(answer: str, done: list[bool]):
    yield from chunks_of(answer, 5)
    done[0] = True


async def _aupstream(answer: str, done: list[bool]):
    for c in chunks_of(answer, 5):
        await asyncio.sleep(0)
        yield c
    done[0] = True


def test_no_rewrite_is_requested_while_the_answer_streams():
    # Was: the rewrite went out mid-stream; on llama.cpp it cut the answer stream (issue 15, item 4).
    answer = f"{WRONG} {GOOD1} {GOOD2} {GOOD1}"
    done = [False]
    fixer = RecordingFixer(done)
    sg = StreamGuard(CONTEXT, check=check, policy=LENIENT, llm=fixer)
    text = shown(list(run_stream(sg, _upstream(answer, done))))
    assert fixer.asked_while_streaming == [False]
    assert text == f"It was completed in 1889 for the World's Fair. {GOOD1} {GOOD2} {GOOD1}"
    assert [s.index for s in sg.segments] == list(range(len(sg.segments)))  # order kept while the rewrite waited
    assert sg.decision.action is Action.regenerate and sg.decision.final_text == text


async def test_no_rewrite_is_requested_while_the_answer_streams_async():
    answer = f"{WRONG} {GOOD1} {GOOD2} {GOOD1}"
    done = [False]
    fixer = RecordingFixer(done)
    sg = StreamGuard(CONTEXT, check=check, policy=LENIENT, llm=fixer)
    text = shown([s async for s in arun_stream(sg, _aupstream(answer, done))])
    assert fixer.asked_while_streaming == [False]
    assert text.startswith("It was completed in 1889 for the World's Fair. ")
