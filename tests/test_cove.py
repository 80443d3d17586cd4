"""Chain-of-verification: questions, isolated answers, comparison by the fact checks, failures closed,
selectivity, budget, cache, and the LLM usage counted for ``guardrail eval`` (scripted server)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import pytest
from openai_stub import Reply, ScriptedOpenAI, openai_stub  # noqa: F401  (fixture)

from guardrail import Guardrail
from guardrail.errors import ConfigError
from guardrail.eval.runner import EvalConfig, run_eval
from guardrail.eval.types import EvalExample
from guardrail.llm import OpenAIChat
from guardrail.policy import Action, Policy, decide
from guardrail.types import Claim, ClaimVerdict, ErrorType, Label, VerificationItem, Window
from guardrail.verifiers import make_verifier, run_verifier
from guardrail.verifiers.cascade import CascadeVerifier, Routing
from guardrail.verifiers.cove import CoveVerifier, answer_segments

DOC = ("Paris facts. The Eiffel Tower was completed in 1889 for the World's Fair. It is 330 metres tall. "
       "It was designed by the company of Gustave Eiffel.")
WINDOW = Window(evidence_id="doc-a", start=0, end=len(DOC), text=DOC)
FACTS = {  # what the evidence says, keyed by a word of the verification question
    "year": ("The Eiffel Tower was completed in 1889.", "The Eiffel Tower was completed in 1889"),
    "tall": ("The Eiffel Tower is 330 metres tall.", "It is 330 metres tall"),
    "designed": ("The Eiffel Tower was designed by the company of Gustave Eiffel.",
                 "It was designed by the company of Gustave Eiffel"),
}
QUESTIONS = {"1889": "In what year was the Eiffel Tower completed?", "1925": "In what year was the Eiffel Tower completed?",
             "tall": "How tall is the Eiffel Tower?", "designed": "Who designed the Eiffel Tower?",
             "painted": "What colour is the Eiffel Tower painted?"}


def item(cid: str, text: str, windows: list[Window] | None = None, question: str | None = "Tell me about the tower.") -> VerificationItem:
    return VerificationItem(claim=Claim(id=cid, text=text, start=0, end=len(text)),
                            windows=[WINDOW] if windows is None else windows, question=question)


def chat(stub: ScriptedOpenAI, **kw: Any) -> OpenAIChat:
    return OpenAIChat(base_url=stub.base_url, model="stub", backoff_s=0.0, max_retries=kw.pop("max_retries", 0),
                      timeout_s=kw.pop("timeout_s", 5.0))


def claims_in(request: dict[str, Any]) -> list[str]:
    return re.findall(r"<claim n=\"\d+\">(.*?)</claim>", request["json"]["messages"][-1]["content"], re.S)


def questions_in(request: dict[str, Any]) -> list[str]:
    return re.findall(r"<question(?: n=\"\d+\")?>(.*?)</question>", request["json"]["messages"][-1]["content"], re.S)


def is_question_call(request: dict[str, Any]) -> bool:
    return "verification question" in request["json"]["messages"][0]["content"]


def answer_for(question: str) -> dict[str, Any]:
    for key, (answer, quote) in FACTS.items():
        if key in question:
            return {"found": True, "answer": answer, "quote": quote, "passage": 1}
    return {"found": False, "answer": "", "quote": "", "passage": None}


def healthy(request: dict[str, Any]) -> str:
    """A model that does its job: a question per claim (without the claim's value), answers from the evidence."""
    if is_question_call(request):
        qs = []
        for n, claim in enumerate(claims_in(request), 1):
            key = next((k for k in QUESTIONS if k in claim), "painted")
            qs.append({"id": n, "question": QUESTIONS[key]})
        return json.dumps({"questions": qs})
    asked = questions_in(request)
    if "\"answers\"" not in request["json"]["messages"][0]["content"]:  # one question per call
        return json.dumps(answer_for(asked[0]))
    return json.dumps({"answers": [{"id": n, **answer_for(q)} for n, q in enumerate(asked, 1)]})


class ScoreVerifier:
    """Fast stand-in: each claim's hallucination score from a table."""

    name = "fast"

    def __init__(self, scores: dict[str, float]):
        self.scores = scores

    def verify(self, items: Sequence[VerificationItem], batch_size: int = 32) -> list[ClaimVerdict]:
        out = []
        for it in items:
            s = self.scores[it.claim.id]
            out.append(ClaimVerdict(claim_id=it.claim.id, label=Label.unsupported if s >= 0.5 else Label.supported,
                                    confidence=max(s, 1 - s), hallucination_score=s, verifier=self.name))
        return out


# -- questions, isolated answers, comparison ------------------------------------------------------


def test_batched_run_supports_the_true_claim_and_contradicts_the_changed_number(openai_stub):
    openai_stub.responder = healthy
    items = [item("c1", "The Eiffel Tower was completed in 1889."), item("c2", "The tower is 300 metres tall.")]
    v1, v2 = CoveVerifier(chat(openai_stub)).verify(items)
    assert len(openai_stub.requests) == 2, "one question call and one batched answer call for the answer"
    assert v1.label is Label.supported and v1.verifier == "cove"
    assert DOC[v1.evidence_span.start:v1.evidence_span.end] == "The Eiffel Tower was completed in 1889"
    assert v2.label is Label.contradicted and v2.error_type is ErrorType.number
    assert v2.hallucination_score >= 0.5
    assert [(d.slot, d.claim_value, d.evidence_value) for d in v2.differences] == [("number", "300 metres", "330 metres")]
    # the reason carries the question, the independent answer and the evidence it rests on
    assert "How tall is the Eiffel Tower?" in v2.reason
    assert "The Eiffel Tower is 330 metres tall." in v2.reason
    assert '"It is 330 metres tall"' in v2.reason and v2.evidence_ids == ["doc-a"]


def test_a_changed_year_is_contradicted_per_question_with_one_call_per_question(openai_stub):
    openai_stub.responder = healthy
    items = [item("c1", "The Eiffel Tower was completed in 1925."), item("c2", "It was designed by the company of Gustave Eiffel.")]
    v1, v2 = CoveVerifier(chat(openai_stub), per="question").verify(items)
    assert len(openai_stub.requests) == 3
    answer_calls = [r for r in openai_stub.requests if not is_question_call(r)]
    assert sorted(len(questions_in(r)) for r in answer_calls) == [1, 1]
    assert v1.label is Label.contradicted and v1.error_type is ErrorType.temporal
    assert v2.label is Label.supported


def test_a_question_the_evidence_does_not_answer_makes_the_claim_unsupported(openai_stub):
    openai_stub.responder = healthy
    (v,) = CoveVerifier(chat(openai_stub)).verify([item("c1", "The tower is painted bright green.")])
    assert v.label is Label.unsupported and v.hallucination_score >= 0.5
    assert "does not answer" in v.reason and "What colour is the Eiffel Tower painted?" in v.reason


def test_the_draft_never_reaches_an_answer_prompt(openai_stub):
    """Isolation, end to end: neither the draft answer, nor any of its claims, nor the user's question is in
    an answer call; every claim is in the question call."""
    openai_stub.responder = healthy
    draft = ("The Eiffel Tower was completed in 1925. The tower is 300 metres tall. "
             "The company of Gustave Eiffel designed the landmark.")
    verifier = CascadeVerifier(ScoreVerifier({"c1": 0.5, "c2": 0.5, "c3": 0.5}), CoveVerifier(chat(openai_stub)))
    report = Guardrail(verifier=verifier).check(draft, [DOC], "What do you know about the Eiffel Tower?")
    assert [c.text for c in report.claims] == ["The Eiffel Tower was completed in 1925.", "The tower is 300 metres tall.",
                                               "The company of Gustave Eiffel designed the landmark."]
    answer_calls = [r for r in openai_stub.requests if not is_question_call(r)]
    question_calls = [r for r in openai_stub.requests if is_question_call(r)]
    assert len(answer_calls) == 1 and len(question_calls) == 1
    assert claims_in(question_calls[0]) == [c.text for c in report.claims]
    for r in answer_calls:
        prompt = json.dumps(r["json"]["messages"])
        for secret in [draft, "What do you know about the Eiffel Tower?", "1925", "300 metres",
                       *(c.text for c in report.claims)]:
            assert secret not in prompt
        assert "330 metres" in prompt  # the evidence is there
    labels = {v.claim_id: v.label for v in report.verdicts}
    assert labels == {"c1": Label.contradicted, "c2": Label.contradicted, "c3": Label.supported}
    assert report.hallucinated and report.skipped == []


# -- failures are closed --------------------------------------------------------------------------


def _fails_closed(stub: ScriptedOpenAI, expect: str, **kw: Any) -> None:
    fast = ScoreVerifier({"c1": 0.4, "c2": 0.45})
    verifier = CascadeVerifier(fast, CoveVerifier(chat(stub, **kw)))
    items = [item("c1", "The Eiffel Tower was completed in 1925."), item("c2", "The tower is 300 metres tall.")]
    run = run_verifier(verifier, items)
    assert [v.label for v in run.verdicts] == [Label.supported, Label.supported], "the fast verdicts stand"
    assert [v.hallucination_score for v in run.verdicts] == [0.4, 0.45]
    assert {u.index for u in run.unchecked} == {0, 1} and {u.check for u in run.unchecked} == {"cove"}
    assert all(expect in u.reason for u in run.unchecked), [u.reason for u in run.unchecked]
    (skipped,) = run.skipped(items)
    assert skipped.check == "cove" and skipped.claim_ids == ["c1", "c2"]


def test_malformed_questions_reply_leaves_fast_verdicts_unchecked(openai_stub):
    openai_stub.add("Sure! Here are some questions: what year? how tall?", "still no JSON")
    _fails_closed(openai_stub, "writing the verification questions")
    assert len(openai_stub.requests) == 2, "one repair turn, then give up"


def test_malformed_answers_reply_leaves_fast_verdicts_unchecked(openai_stub):
    openai_stub.add(json.dumps({"questions": [{"id": 1, "question": "In what year was it completed?"},
                                              {"id": 2, "question": "How tall is it?"}]}),
                    json.dumps({"answers": "1889"}), json.dumps({"answers": [{"id": 1}]}))
    _fails_closed(openai_stub, "answering the verification questions")


def test_a_refusal_leaves_fast_verdicts_unchecked(openai_stub):
    openai_stub.add("I'm sorry, but I can't help with that request.", "I'm sorry, I cannot do that.")
    _fails_closed(openai_stub, "LLMResponseError")


def test_a_timeout_leaves_fast_verdicts_unchecked(openai_stub):
    openai_stub.add(Reply(delay=3.0, content="{}"))
    _fails_closed(openai_stub, "LLMTimeout", timeout_s=0.5)


def test_an_answer_not_traced_to_the_evidence_is_not_a_check(openai_stub):
    """A quote the passages do not hold means the answer may come from the model's own knowledge."""
    openai_stub.add(json.dumps({"questions": [{"id": 1, "question": "In what year was the tower completed?"}]}),
                    json.dumps({"answers": [{"id": 1, "found": True, "answer": "The Eiffel Tower was completed in 1925.",
                                             "quote": "completed in the year 1925 after long delays", "passage": 1}]}))
    (v,) = CoveVerifier(chat(openai_stub)).verify([item("c1", "The Eiffel Tower was completed in 1925.")])
    assert v.label is Label.unevaluatable and "not traced to the evidence" in v.reason


def test_a_claim_without_a_question_alone_is_unchecked(openai_stub):
    openai_stub.responder = healthy
    openai_stub.add(json.dumps({"questions": [{"id": 2, "question": "How tall is the Eiffel Tower?"}]}))
    v1, v2 = CoveVerifier(chat(openai_stub)).verify(
        [item("c1", "The Eiffel Tower was completed in 1925."), item("c2", "The tower is 300 metres tall.")])
    assert v1.label is Label.unevaluatable and "no verification question" in v1.reason
    assert v2.label is Label.contradicted


def test_a_failing_cove_under_a_fail_closed_policy_is_not_answered(openai_stub):
    openai_stub.responder = lambda req: Reply(status=500)
    verifier = CascadeVerifier(ScoreVerifier({"c1": 0.4}), CoveVerifier(chat(openai_stub)))
    report = Guardrail(verifier=verifier, threshold=0.5).check("The Eiffel Tower was completed in 1925.", [DOC])
    assert not report.hallucinated and not report.complete
    policy = Policy.model_validate({"failure": {"default": "open", "checks": {"cove": "closed"}}})
    assert decide(report, policy).action is Action.abstain
    assert decide(report, Policy.model_validate({"failure": {"default": "open"}})).action is Action.respond


# -- selectivity, budget, cache -------------------------------------------------------------------


def test_routing_by_band_and_by_error_type(openai_stub):
    openai_stub.responder = healthy
    items = [item("c1", "The Eiffel Tower was completed in 1925."),   # confident pass, but states a date
             item("c2", "It was designed by the company of Gustave Eiffel."),  # confident pass, no value
             item("c3", "The tower is 300 metres tall."),             # in the band
             item("c4", "The tower is painted bright green.")]        # confidently flagged
    fast = ScoreVerifier({"c1": 0.05, "c2": 0.05, "c3": 0.5, "c4": 0.95})
    band_only = CascadeVerifier(fast, CoveVerifier(chat(openai_stub)), routing=Routing(band=(0.3, 0.7)))
    band_only.verify(items)
    assert claims_in(openai_stub.requests[0]) == ["The tower is 300 metres tall."]
    openai_stub.requests.clear()
    by_type = CascadeVerifier(fast, CoveVerifier(chat(openai_stub)),
                              routing=Routing(band=(0.3, 0.7), error_types=frozenset({ErrorType.temporal})))
    verdicts = by_type.verify(items)
    assert claims_in(openai_stub.requests[0]) == ["The Eiffel Tower was completed in 1925.", "The tower is 300 metres tall."]
    assert verdicts[0].label is Label.contradicted, "the confident fast pass on a wrong year is caught"
    assert verdicts[1].label is Label.supported and verdicts[3].label is Label.unsupported


def test_the_call_budget_caps_requests_per_answer_and_reports_the_rest(openai_stub):
    openai_stub.responder = healthy
    texts = ["The Eiffel Tower was completed in 1925.", "The tower is 300 metres tall.",
             "It was designed by the company of Gustave Eiffel.", "The tower is painted bright green."]
    answer1 = [item(f"c{n}", t) for n, t in enumerate(texts, 1)]
    answer2 = [item(f"c{n}", t, question="Another question?") for n, t in enumerate(texts[:2], 1)]
    items = answer1 + answer2
    fast = ScoreVerifier({f"c{n}": 0.5 for n in range(1, 5)})
    run = run_verifier(CascadeVerifier(fast, CoveVerifier(chat(openai_stub), per="question", max_calls=3)), items)
    # per answer: 1 question call + 2 answer calls; answer 1's last two claims are over the budget
    assert len(openai_stub.requests) == 6
    assert {u.index for u in run.unchecked} == {2, 3}
    assert all("budget of 3 calls per answer" in u.reason for u in run.unchecked)
    assert [v.label for v in run.verdicts] == [Label.contradicted, Label.contradicted, Label.unsupported,
                                               Label.unsupported, Label.contradicted, Label.contradicted]


def test_answer_segments_split_a_flattened_batch_by_answer():
    a = [item("c1", "x"), item("c2", "y"), item("c4", "z")]
    b = [item("c1", "x"), item("c3", "y")]
    c = [item("c2", "x", question="other")]
    items = a + b + c
    assert answer_segments(items, range(len(items))) == [[0, 1, 2], [3, 4], [5]]
    # a routed subset keeps the boundary: c3 of the first answer, then c2 of the second
    assert answer_segments(a + b, [2, 4]) == [[2], [4]]


def test_verdicts_are_cached_by_claim_and_evidence(openai_stub):
    openai_stub.responder = healthy
    cove = CoveVerifier(chat(openai_stub))
    first = cove.verify([item("c1", "The tower is 300 metres tall.")])
    calls = len(openai_stub.requests)
    again = cove.verify([item("c7", "The tower is 300 metres tall.", question="Something else?")])
    assert len(openai_stub.requests) == calls, "same claim, same evidence: no call"
    assert again[0].claim_id == "c7" and again[0].label is first[0].label is Label.contradicted
    other = Window(evidence_id="doc-b", start=0, end=31, text="The Eiffel Tower is 330 metres tall.")
    cove.verify([item("c1", "The tower is 300 metres tall.", windows=[other])])
    assert len(openai_stub.requests) == calls + 2, "other evidence: checked again"


def test_failures_are_not_cached(openai_stub):
    openai_stub.add(Reply(status=500))
    cove = CoveVerifier(chat(openai_stub), repair_attempts=0)
    (v,) = cove.verify([item("c1", "The tower is 300 metres tall.")])
    assert v.label is Label.unevaluatable
    openai_stub.responder = healthy
    (v,) = cove.verify([item("c1", "The tower is 300 metres tall.")])
    assert v.label is Label.contradicted


def test_no_evidence_is_unsupported_without_a_call(openai_stub):
    (v,) = CoveVerifier(chat(openai_stub)).verify([item("c1", "The tower is 300 metres tall.", windows=[])])
    assert v.label is Label.unsupported and openai_stub.requests == []


# -- the spec, and the cost counted for guardrail eval --------------------------------------------


def test_cove_spec_options(openai_stub):
    v = make_verifier("cove:fast=heuristic,types=number+temporal,budget=4,per=question,low=0.2,high=0.6,timeout=9",
                      chat(openai_stub))
    assert isinstance(v, CascadeVerifier) and isinstance(v.judge, CoveVerifier)
    assert v.routing.error_types == {ErrorType.number, ErrorType.temporal} and v.routing.band == (0.2, 0.6)
    assert v.judge.max_calls == 4 and v.judge.per == "question" and v.judge_timeout_s == 9.0
    with pytest.raises(ConfigError, match="types must be error types joined by"):
        make_verifier("cove:types=dosage", chat(openai_stub))
    with pytest.raises(ConfigError, match="max_calls must be at least 2"):
        make_verifier("cove:budget=1", chat(openai_stub))
    with pytest.raises(ConfigError, match="needs an LLM"):
        make_verifier("cove")


def test_openai_chat_counts_calls_and_reported_tokens(openai_stub):
    body = {"id": "x", "object": "chat.completion", "created": 0, "model": "stub",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 11, "completion_tokens": 4, "total_tokens": 15}}
    openai_stub.add(Reply(body=json.dumps(body)), Reply(body=json.dumps(body)), Reply(status=400))
    llm = chat(openai_stub)
    start = llm.usage()
    llm.chat([{"role": "user", "content": "a"}])
    llm.chat([{"role": "user", "content": "b"}])
    with pytest.raises(Exception):
        llm.chat([{"role": "user", "content": "c"}])
    spent = llm.usage().minus(start)
    assert (spent.calls, spent.prompt_tokens, spent.completion_tokens, spent.total_tokens) == (2, 22, 8, 30)


def test_eval_reports_llm_calls_per_answer(openai_stub):
    openai_stub.responder = healthy
    examples = [EvalExample(id=f"e{k}", dataset="toy", context=DOC, response=r, hallucinated=h, group=f"g{k}")
                for k, (r, h) in enumerate([("The tower is 300 metres tall.", True),
                                             ("The Eiffel Tower was completed in 1889.", False),
                                             ("The tower is 300 metres tall. It is painted green.", True),
                                             ("It is 330 metres tall.", False)])]
    result = run_eval(examples, [EvalConfig(name="cove", verifier="cove:fast=heuristic,low=0,high=1")],
                      llm=chat(openai_stub), progress=False)
    (cfg,) = result.configs
    calls = [e.llm_calls for e in cfg.examples]
    # 2 calls per answer (the warm-up check's cached verdicts are forgotten before the measured run)
    assert calls == [2, 2, 2, 2]
    assert cfg.overall.llm_calls_per_answer == pytest.approx(2.0)
    from guardrail.eval.report import tables

    cost = next(t for t in tables(result) if t.title == "LLM cost per answer")
    assert cost.rows == [["cove (cove:fast=heuristic,low=0,high=1)", "2.00", "0.0"]]


@pytest.mark.parametrize("claim, answer, slot", [
    ("It was completed in 1925.", "The Eiffel Tower was completed in 1889.", "date"),  # found by check_facts itself
    ("It opened in 1925.", "The Eiffel Tower was completed in 1889.", "date"),  # too short to align alone
    ("It has 3 floors.", "The tower has three levels.", None),  # another count: not the same slot
    ("It was completed in 1889.", "The Eiffel Tower was completed in 1889.", None),
])
def test_a_value_the_answer_gives_otherwise_is_a_mismatch(claim, answer, slot):
    from guardrail.facts import check_facts
    from guardrail.verifiers.cove import answered_otherwise

    facts = check_facts(claim, [("a", 0, len(answer), answer)])
    found = answered_otherwise(claim, facts, answer)
    # Each mismatch once: from the fact checks where they align the claim, else from the answer's other value.
    assert [d.slot for d in facts.mismatches + found] == ([slot] if slot else [])


# -- end to end against the real local llama.cpp server (slow; skipped without it) ------------------

from test_llamacpp_e2e import llamacpp_url  # noqa: E402, F401  (module-scoped fixture: one server)

E2E_ANSWERS = [  # (answer, hallucinated): five answers about one context, a changed value in three
    ("The Eiffel Tower was completed in 1889. It is 330 metres tall.", False),
    ("The Eiffel Tower was completed in 1925.", True),
    ("The tower is 500 metres tall.", True),
    ("The Eiffel Tower is a wrought-iron lattice tower in Paris.", False),
    ("It was built as the entrance to the Olympic Games.", True),
]
E2E_CONTEXT = ("The Eiffel Tower is a wrought-iron lattice tower in Paris, France. It was completed in 1889 "
               "as the entrance to the World's Fair. The tower is 330 metres tall.")


@pytest.mark.llamacpp
def test_cove_and_judge_cost_per_answer_against_the_real_server(llamacpp_url):
    """Plumbing and cost: CoVe and the judge on five answers through ``run_eval``, with the calls and tokens
    per answer the server reported. SmolLM2-135M is no fact-checker: what must hold is that every claim
    CoVe was asked about either got a CoVe verdict or is reported unchecked, never a silent pass."""
    llm = OpenAIChat(base_url=llamacpp_url, model="smollm2-135m", timeout_s=120, max_retries=0, max_tokens=200,
                     response_format="llamacpp_schema")
    examples = [EvalExample(id=f"e{k}", dataset="eiffel", context=E2E_CONTEXT, response=r, hallucinated=h,
                            group=f"g{k}", question="Tell me about the Eiffel Tower.")
                for k, (r, h) in enumerate(E2E_ANSWERS)]
    configs = [EvalConfig(name="cove", verifier="cove:fast=heuristic,low=0,high=1"),
               EvalConfig(name="judge", verifier="judge")]
    result = run_eval(examples, configs, llm=llm, progress=False)
    for cfg in result.configs:
        print(f"\n[{cfg.config.name}] calls/answer {cfg.overall.llm_calls_per_answer}, tokens/answer "
              f"{cfg.overall.llm_tokens_per_answer}, per example {[(e.llm_calls, e.llm_tokens) for e in cfg.examples]}")
        # a claim the 135M model could not judge makes that example an error of the run (named, unscored)
        assert all(e.error is None or "could not evaluate" in e.error for e in cfg.examples), [e.error for e in cfg.examples]
        assert cfg.overall.llm_calls_per_answer and cfg.overall.llm_tokens_per_answer, "usage was counted"
    # what CoVe's verdicts look like on this model, and that nothing passed unchecked
    guard = Guardrail(verifier=make_verifier("cove:fast=heuristic,low=0,high=1", llm))
    for answer, _ in E2E_ANSWERS[:2]:
        report = guard.check(answer, [E2E_CONTEXT], "Tell me about the Eiffel Tower.")
        unchecked = {cid for s in report.skipped if s.check == "cove" for cid in s.claim_ids}
        for v in report.verdicts:
            print(f"  {v.claim_id} {v.label.value} {v.hallucination_score:.2f} {(v.reason or '')[:400]}")
            assert "judged by cove" in (v.reason or "") or v.claim_id in unchecked
        for s in report.skipped:
            print(f"  skipped {s.check}: {s.reason[:400]}")
