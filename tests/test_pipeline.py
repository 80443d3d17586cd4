"""``guardrail.Pipeline``: one guarded pipeline per tenant, built once, called per answer, per batch or per stream.

What is pinned: the policy's guardrail is resolved once, when the pipeline is built, never per call;
``guard`` and ``aguard`` decide alike; ``guard_batch`` verifies a chunk of answers in one verifier call and
decides each answer as ``guard`` would; a check that breaks is a decision under the policy's failure mode;
each decision is written to the audit log once; regeneration analyses each report once; the policy's
threshold, not the engine's, decides what is flagged. The engine is a real ``Guardrail`` around a table
verifier (deterministic scores, BM25 evidence: no model to load); ``lexical_check`` is the real
checker of the policy tests.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from guardrail import BatchItem, Guardrail, Pipeline
from guardrail.errors import ConfigError, InputError
from guardrail.pipeline import PipelineCache
from guardrail.policy import Action, AuditLog, EvidenceRewriter, Policy, PolicyStore, ReasonCode, policy_from_yaml, policy_guardrail
from guardrail.policy._decision import analyse
from guardrail.policy._regenerate import REQUEST_CLOSE, REQUEST_OPEN
from guardrail.streaming import StreamGuard, check_stream, run_stream
from guardrail.types import ClaimVerdict, Label, VerificationItem

from test_policy_helpers import CONTEXT, lexical_check
from test_policy_verification import TableVerifier
from test_streaming import chunks_of, shown

REPO = Path(__file__).resolve().parent.parent
STORE = PolicyStore(REPO / "policies")
LENIENT = STORE.get("internal-search")  # contradiction -> regenerate, fails open with a caveat
STRICT = STORE.get("healthcare")  # contradiction -> abstain, unsupported -> regenerate, fails closed

QUESTION = "Tell me about the Eiffel Tower."
SUPPORTED = "The Eiffel Tower is 330 metres tall. It was completed in 1889 for the World's Fair."
ONE_WRONG = "The Eiffel Tower is 330 metres tall. It was completed in 1887 for the World's Fair."
ONE_UNSUPPORTED = "The Eiffel Tower is 330 metres tall. The tower has a rooftop cinema. The tower is repainted every seven years."
UNRELATED = "Bananas are yellow. Monkeys like them."
WRONG = "It was completed in 1887 for the World's Fair."
RIGHT = "It was completed in 1889 for the World's Fair."
SCORES = {"1887": 0.95, "cinema": 0.8, "Bananas": 0.9, "Monkeys": 0.9}


class CountingTable(TableVerifier):
    """The verification tests' table verifier, counting its calls; a score of 0.9 or more is a contradiction."""

    def __init__(self, scores: dict[str, float]):
        super().__init__(scores)
        self.calls: list[int] = []  # items per call

    def verify(self, items: Sequence[VerificationItem], batch_size: int = 32) -> list[ClaimVerdict]:
        self.calls.append(len(items))
        return [v.model_copy(update={"label": Label.contradicted}) if v.hallucination_score >= 0.9 else v
                for v in super().verify(items, batch_size)]


def engine(scores: dict[str, float] = SCORES) -> Guardrail:
    return Guardrail(verifier=CountingTable(scores))


def fast(policy: Policy) -> Policy:
    return policy.model_copy(update={"regenerate": policy.regenerate.model_copy(update={"retry_wait_s": 0.0, "deadline_s": 10.0})})


def comparable(value: Any) -> Any:
    """A decision as JSON without its timings (two runs never take the same time)."""
    if hasattr(value, "model_dump"):
        value = value.model_dump(mode="json")
    if isinstance(value, dict):
        return {k: comparable(v) for k, v in value.items() if k not in ("latencies_ms", "latency_ms")}
    if isinstance(value, list):
        return [comparable(v) for v in value]
    return value


# --------------------------------------------------------------------------------------------- resolved once


DOUBLE_CHECKED = policy_from_yaml(
    "name: double-checked\n"
    "verification:\n"
    "  double_check:\n"
    "    method: cove\n"
    "    llm: {base_url: 'http://127.0.0.1:9/v1', model: stub, timeout_s: 1, max_retries: 0}\n"
    "    band: [0.99, 1.0]\n"  # no claim of these tests falls in it: the CoVe stage is built, never called
)


async def test_the_policy_guardrail_is_resolved_once_when_the_pipeline_is_built(monkeypatch):
    calls: list[Guardrail] = []

    def counting(base: Guardrail, policy: Policy) -> Guardrail:
        calls.append(base)
        return policy_guardrail(base, policy)

    # Both names: the pipeline's own, and the one guard() reaches through policy_check per call.
    monkeypatch.setattr("guardrail.pipeline.policy_guardrail", counting)
    monkeypatch.setattr("guardrail.policy._verification.policy_guardrail", counting)
    g = engine()
    p = Pipeline(g, DOUBLE_CHECKED, llm=EvidenceRewriter(), tenant="clinic")
    assert calls == [g] and p.guardrail is not g and p.guardrail.verifier.name == "cascade(table->cove)"

    decisions = [p.guard(SUPPORTED, CONTEXT), p.guard(ONE_WRONG, CONTEXT, question=QUESTION),
                 await p.aguard(ONE_UNSUPPORTED, CONTEXT)]
    decisions += list(p.guard_batch([{"response": SUPPORTED, "context": CONTEXT}, {"response": ONE_WRONG, "context": CONTEXT}]))
    decisions.append(p.replace(llm=None, audit=None).guard(SUPPORTED, CONTEXT))
    sg = p.stream_guard(CONTEXT)
    list(run_stream(sg, chunks_of(ONE_WRONG, 5)))
    decisions.append(sg.decision)
    assert calls == [g], "nothing is resolved per call"
    assert {d.report.verifier for d in decisions} == {"cascade(table->cove)"}, "every answer was checked by the resolved engine"
    assert Pipeline(g.check, DOUBLE_CHECKED).guardrail is p.guardrail, "a bound check resolves to the same engine"


# --------------------------------------------------------------------------------------------- guard == aguard


async def test_guard_and_aguard_give_the_same_decisions():
    actions = set()
    for checker in (lexical_check, engine()):
        for policy in (fast(LENIENT), fast(STRICT)):
            p = Pipeline(checker, policy, llm=EvidenceRewriter(), tenant=policy.name)
            for answer in (SUPPORTED, ONE_WRONG, ONE_UNSUPPORTED, UNRELATED):
                sync = p.guard(answer, CONTEXT, question=QUESTION)
                awaited = await p.aguard(answer, CONTEXT, question=QUESTION)
                assert comparable(awaited) == comparable(sync), (checker, policy.name, answer)
                actions.add(sync.action)
    assert {Action.respond, Action.caveat, Action.regenerate, Action.abstain} <= actions, "every main path was compared"


# --------------------------------------------------------------------------------------------- batch


BATCH = [
    {"id": "a", "response": SUPPORTED, "context": CONTEXT},
    {"id": "b", "response": ONE_WRONG, "context": CONTEXT, "question": QUESTION},
    {"id": "c", "context": CONTEXT},  # the item's own mistake: no answer at all
    BatchItem(id="d", response=ONE_UNSUPPORTED, context=CONTEXT),
    {"id": "e", "response": UNRELATED, "context": CONTEXT},
]


def test_guard_batch_verifies_each_chunk_in_one_call():
    verifier = CountingTable(SCORES)
    p = Pipeline(Guardrail(verifier=verifier), LENIENT)  # no LLM: nothing is re-checked
    out = list(p.guard_batch(BATCH, chunk_size=16))
    claims = sum(len(d.report.claims) for d in out if not isinstance(d, Exception))
    assert verifier.calls == [claims], "one verifier call for the whole chunk"
    verifier.calls.clear()
    list(p.guard_batch(BATCH, chunk_size=2))
    assert len(verifier.calls) == 3, "one call per chunk of two items"


@pytest.mark.parametrize("checker", [lexical_check, "engine"], ids=["check callable", "Guardrail"])
def test_guard_batch_decides_each_answer_as_guard_does(checker):
    p = Pipeline(engine() if checker == "engine" else checker, fast(LENIENT), llm=EvidenceRewriter(), tenant="t")
    out = list(p.guard_batch(BATCH))
    assert len(out) == len(BATCH)
    assert isinstance(out[2], InputError) and "batch item 2" in str(out[2]), "a bad item is yielded in its place"
    for raw, got in zip(BATCH[:2] + BATCH[3:], out[:2] + out[3:]):
        item = raw if isinstance(raw, BatchItem) else BatchItem.model_validate(raw)
        alone = p.guard(item.response, item.context, question=item.question)
        assert comparable(got) == comparable(alone), item.id
    assert {d.action for d in out if not isinstance(d, Exception)} >= {Action.respond, Action.regenerate, Action.caveat}


# --------------------------------------------------------------------------------------------- failures


class Exploding:
    """An extractor (a component) that breaks: not the caller's mistake."""

    def extract(self, answer: str) -> list:
        raise ZeroDivisionError("extractor exploded")


async def test_a_failing_check_is_a_decision_under_the_failure_mode():
    def broken(answer: str, context: Any, question: str | None = None):
        raise ZeroDivisionError("verifier exploded")

    strict, lenient = Pipeline(broken, STRICT), Pipeline(broken, LENIENT)
    for d in (strict.guard(SUPPORTED, CONTEXT), await strict.aguard(SUPPORTED, CONTEXT), *strict.guard_batch([{"response": SUPPORTED}])):
        assert d.action is Action.abstain and d.code is ReasonCode.check_failed and d.report is None
        assert "ZeroDivisionError: verifier exploded" in d.error
    d = lenient.guard(SUPPORTED, CONTEXT)
    assert d.action is Action.caveat and d.code is ReasonCode.check_skipped and d.final_text.startswith(SUPPORTED)

    # The engine's own batch hands the component's failure back per item: decided, not yielded as an error.
    g = Guardrail(verifier=CountingTable(SCORES), extractor=Exploding())
    batch = list(Pipeline(g, STRICT).guard_batch([{"response": SUPPORTED, "context": CONTEXT}, {"response": ONE_WRONG}]))
    assert [(d.action, d.code) for d in batch] == [(Action.abstain, ReasonCode.check_failed)] * 2


def test_the_callers_own_mistake_is_raised_not_decided():
    p = Pipeline(engine(), STRICT)
    with pytest.raises(InputError, match="empty"):
        p.guard("  ", CONTEXT)
    with pytest.raises(ConfigError, match="async"):  # a blocking guard cannot wait for an async check

        async def acheck(answer: str, context: Any):
            return lexical_check(answer, context)

        Pipeline(acheck, STRICT).guard(SUPPORTED, CONTEXT)
    with pytest.raises(ConfigError, match="guardrail must be"):
        Pipeline(42, STRICT)
    with pytest.raises(ConfigError, match="not both"):
        StreamGuard(CONTEXT, pipeline=p, check=lexical_check)


# --------------------------------------------------------------------------------------------- audit


async def test_each_decision_is_recorded_once(tmp_path):
    def broken(answer: str, context: Any, question: str | None = None):
        raise ZeroDivisionError("verifier exploded")

    with AuditLog(tmp_path / "audit.db") as log:
        p = Pipeline(engine(), fast(STRICT), llm=EvidenceRewriter(), audit=log, tenant="t")
        regenerated = p.guard(ONE_UNSUPPORTED, CONTEXT, request_id="r1")
        assert regenerated.attempts, "it was re-checked at least once"
        assert log.count("t") == 1
        await p.aguard(SUPPORTED, CONTEXT, request_id="r2")
        failed = p.replace(check=broken).guard(SUPPORTED, CONTEXT, request_id="r3")
        assert failed.code is ReasonCode.check_failed
        assert log.count("t") == 3
        out = list(p.guard_batch(BATCH))
        assert log.count("t") == 3 + sum(1 for d in out if not isinstance(d, Exception)) == 7
        assert log.find("r1").decision().final_text == regenerated.final_text
        assert log.find("b").decision().action is out[1].action, "batch rows are recorded under the item's id"
        p.replace(audit=None).guard(SUPPORTED, CONTEXT)
        assert log.count("t") == 7


# --------------------------------------------------------------------------------------------- regeneration


class FixOneARound:
    """Round 1 fixes the first flagged claim (and repeats the second); round 2 fixes what is left."""

    def __init__(self) -> None:
        self.rounds = 0

    def chat(self, messages: list[dict[str, Any]], **kw: Any) -> str:
        user = messages[-1]["content"]
        ids = [c["id"] for c in json.loads(user.split(REQUEST_OPEN)[1].split(REQUEST_CLOSE)[0])["claims"]]
        self.rounds += 1
        if self.rounds == 1:
            return json.dumps({ids[0]: "The Eiffel Tower is 330 metres tall.", ids[1]: WRONG})
        return json.dumps({ids[0]: RIGHT})


@pytest.mark.parametrize(("max_attempts", "action", "reports"), [(2, Action.regenerate, 3), (1, Action.caveat, 2)],
                         ids=["converges in two rounds", "falls back on the best attempt"])
def test_regeneration_analyses_each_report_once(monkeypatch, max_attempts, action, reports):
    counted: list[str] = []

    def counting(report, policy):
        counted.append(report.answer)
        return analyse(report, policy)

    monkeypatch.setattr("guardrail.policy._decision.analyse", counting)
    monkeypatch.setattr("guardrail.policy._regenerate.analyse", counting)
    policy = Policy.model_validate({"name": "t", "regenerate": {"retry_wait_s": 0.0, "deadline_s": 10, "max_attempts": max_attempts}})
    answer = "The Eiffel Tower is 331 metres tall. It was completed in 1887 for the World's Fair."
    d = Pipeline(lexical_check, policy, llm=FixOneARound()).guard(answer, CONTEXT)
    assert d.action is action and 1 + sum(a.report is not None for a in d.attempts) == reports
    assert len(counted) == reports and len(set(counted)) == reports, "one analysis per report (it was 5 per round)"
    assert d.analysis is not None and d.analysis.flagged == [c.id for c in d.report.claims]


# --------------------------------------------------------------------------------------------- thresholds


def test_the_policy_threshold_decides_and_the_engines_is_its_default():
    g = engine({"cinema": 0.4})  # the verifier calls it supported at its own bar (0.5)
    calibrated = Policy.model_validate({"name": "calibrated", "claims": {"score_threshold": 0.3}})
    d = Pipeline(g, calibrated).guard(ONE_UNSUPPORTED, CONTEXT)
    cinema = next(c.id for c in d.report.claims if "cinema" in c.text)
    assert d.report.threshold == 0.5 and not d.report.hallucinated, "the engine's view, at its own threshold"
    assert d.analysis.threshold == 0.3 and d.analysis.flagged == [cinema] and d.action is not Action.respond
    d = Pipeline(g, Policy(name="plain")).guard(ONE_UNSUPPORTED, CONTEXT)
    assert d.analysis.threshold == 0.5 and d.analysis.flagged == [] and d.action is Action.respond


# --------------------------------------------------------------------------------------------- streams and tenants


def test_stream_is_checked_streaming_through_the_pipeline():
    answer = f"{SUPPORTED} The tower has a rooftop cinema. {WRONG}"
    p = Pipeline(lexical_check, LENIENT)
    via_pipeline = list(p.stream(chunks_of(answer, 4), CONTEXT))
    direct = list(check_stream(chunks_of(answer, 4), CONTEXT, check=lexical_check, policy=LENIENT))
    assert shown(via_pipeline) == shown(direct) != answer
    assert [(s.kind, s.action) for s in via_pipeline] == [(s.kind, s.action) for s in direct]
    sg = p.stream_guard(CONTEXT)
    list(run_stream(sg, chunks_of(answer, 4)))
    assert sg.decision.action is p.guard(answer, CONTEXT).action


def test_the_cache_keeps_one_pipeline_per_tenant_and_policy_version():
    cache = PipelineCache(lexical_check)
    first = cache.get("a", LENIENT)
    assert cache.get("a", LENIENT) is first and cache.get("a", LENIENT.model_copy()) is first, "same content, same pipeline"
    assert cache.get("b", LENIENT) is not first and cache.get("b", LENIENT).tenant == "b"
    edited = LENIENT.model_copy(update={"description": "edited"})
    assert cache.get("a", edited) is not first and cache.get("a", edited).policy is edited
