"""Targeted regeneration: corrective prompt, splice, re-check loop, stops, fallbacks, deadline, retries."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from guardrail.errors import ConfigError, InputError, LLMError, LLMResponseError
from guardrail.policy import (
    Action,
    EvidenceRewriter,
    Policy,
    ReasonCode,
    aregenerate,
    corrective_messages,
    parse_rewrites,
    regenerate,
    splice,
)
from guardrail.policy._regenerate import REQUEST_CLOSE, REQUEST_OPEN
from guardrail.llm import OpenAIChat
from guardrail.types import Claim
from openai_stub import Reply, openai_stub  # noqa: F401  (fixture)

from test_policy_helpers import CONTEXT, lexical_check

ANSWER = "The Eiffel Tower is 330 metres tall.  It was completed in 1887 for the World's Fair.\nThe tower is repainted every seven years."
WRONG = "It was completed in 1887 for the World's Fair."
RIGHT = "It was completed in 1889 for the World's Fair."


def policy(**sections) -> Policy:
    base = {"regenerate": {"retry_wait_s": 0.0, "deadline_s": 10}}
    for k, v in sections.items():
        base[k] = {**base.get(k, {}), **v}
    return Policy.model_validate({"name": "t", **base})


class Scripted:
    """A ChatModel answering from a script: strings, callables(messages) or exceptions."""

    def __init__(self, *replies):
        self.replies = list(replies)
        self.calls: list[list[dict]] = []
        self.kwargs: list[dict] = []

    def chat(self, messages, **kw):
        self.calls.append(messages)
        self.kwargs.append(kw)
        if not self.replies:
            raise AssertionError("more LLM calls than scripted")
        r = self.replies.pop(0)
        if isinstance(r, BaseException):
            raise r
        return r(messages) if callable(r) else r


def check(answer):
    return lexical_check(answer, CONTEXT)


def claim_id_of(report, text):
    return next(c.id for c in report.claims if c.text == text)


# --------------------------------------------------------------------------- splice / parse / prompt


def test_splice_replaces_at_offsets_and_keeps_everything_else():
    r = check(ANSWER)
    cid = claim_id_of(r, WRONG)
    new, applied = splice(ANSWER, r.claims, {cid: RIGHT})
    assert applied == [cid]
    start = ANSWER.index(WRONG)
    assert new == ANSWER[:start] + RIGHT + ANSWER[start + len(WRONG):]


@pytest.mark.parametrize("answer, drop, expected", [
    ("A one. B two. C three.", "B two.", "A one. C three."),
    ("A one. B two.", "B two.", "A one."),
    ("A one.\nB two.\nC three.", "B two.", "A one.\n\nC three."),
    ("A one.  B two.", "A one.", "B two."),
])
def test_splice_drop_takes_one_separator(answer, drop, expected):
    claims = [Claim(id="x", text=drop, start=answer.index(drop), end=answer.index(drop) + len(drop))]
    assert splice(answer, claims, {"x": ""}) == (expected, ["x"])


def test_splice_skips_overlapping_and_misplaced_claims():
    answer = "Alpha beta gamma."
    claims = [Claim(id="a", text="Alpha beta", start=0, end=10), Claim(id="b", text="beta gamma.", start=6, end=17),
              Claim(id="c", text="zzz", start=0, end=3)]
    new, applied = splice(answer, claims, {"a": "One two", "b": "X", "c": "Y"})
    assert new == "One two gamma." and applied == ["a"]


def test_parse_rewrites():
    assert parse_rewrites('Sure!\n```json\n{"c1": " New text. ", "c9": "x"}\n```', ["c1", "c2"]) == ({"c1": "New text."}, ["c9"])
    assert parse_rewrites('{"rewrites": {"c1": null}}', ["c1"]) == ({"c1": ""}, [])
    with pytest.raises(LLMResponseError):
        parse_rewrites("no json here", ["c1"])
    with pytest.raises(LLMResponseError):
        parse_rewrites('{"c1": 3}', ["c1"])
    with pytest.raises(LLMResponseError):
        parse_rewrites('["c1"]', ["c1"])


def test_corrective_prompt_carries_answer_flagged_claims_verdicts_and_evidence():
    r = check(ANSWER)
    p = policy(regenerate={"instructions": "Use metric units."})
    cid = claim_id_of(r, WRONG)
    msgs = corrective_messages(r, [c for c in r.claims if c.id == cid], p)
    system, user = msgs[0]["content"], msgs[1]["content"]
    assert msgs[0]["role"] == "system" and "rewrite" in system.lower() and system.rstrip().endswith("Use metric units.")
    assert ANSWER in user
    payload = json.loads(user.split(REQUEST_OPEN, 1)[1].split(REQUEST_CLOSE, 1)[0])
    (item,) = payload["claims"]
    assert item["id"] == cid and item["text"] == WRONG and item["verdict"] == "contradicted" and item["error_type"] == "number"
    assert any("completed in 1889" in e["text"] for e in item["evidence"])
    assert "The tower is repainted" not in json.dumps(payload["claims"])  # only the flagged claim


# --------------------------------------------------------------------------- the loop


def test_one_flagged_claim_is_rewritten_and_everything_else_is_byte_identical():
    r = check(ANSWER)
    llm = Scripted(lambda m: json.dumps({claim_id_of(r, WRONG): RIGHT}))
    d = regenerate(ANSWER, r, check=check, llm=llm, policy=policy())
    assert d.action is Action.regenerate and d.regenerated and d.final_attempt == 1
    start = ANSWER.index(WRONG)
    assert d.final_text == ANSWER[:start] + RIGHT + ANSWER[start + len(WRONG):]
    assert d.final_report.hallucinated is False and d.report is r and d.answer == ANSWER
    assert [a.flagged_before for a in d.attempts] == [1] and d.attempts[0].flagged_after == 0
    assert d.code is ReasonCode.contradiction and d.reasons[-1].code is ReasonCode.regenerated
    assert "json_schema" in llm.kwargs[0] and llm.kwargs[0]["json_schema"]["required"] == [claim_id_of(r, WRONG)]
    assert d.latencies_ms["regenerate"] >= 0


def test_non_converging_rewrite_stops_and_falls_back():
    r = check(ANSWER)
    cid = claim_id_of(r, WRONG)
    llm = Scripted(json.dumps({cid: "It was completed in 1886 for the World's Fair."}),
                   json.dumps({cid: "It was completed in 1885 for the World's Fair."}))
    d = regenerate(ANSWER, r, check=check, llm=llm, policy=policy(regenerate={"max_attempts": 5}))
    assert len(llm.calls) == 1 and len(d.attempts) == 1  # flagged count 1 -> 1: stopped at once
    assert d.action is Action.caveat and d.code is ReasonCode.regeneration_failed and not d.regenerated
    assert "stopped falling" in d.reasons[-1].message
    # the caveat is over the original answer: it is no better than the rewrite
    assert d.final_text.startswith(ANSWER[:ANSWER.index(WRONG)] + WRONG + " [unverified: contradicted by the sources]")


def test_max_attempts_then_fallback_on_the_best_attempt():
    answer = "The Eiffel Tower is 331 metres tall. It was completed in 1887 for the World's Fair."
    r = check(answer)
    c1, c2 = (c.id for c in r.claims)
    def first_fix(m):
        return json.dumps({c1: "The Eiffel Tower is 330 metres tall.", c2: WRONG})  # fixes one of two
    d = regenerate(answer, r, check=check, llm=Scripted(first_fix), policy=policy(regenerate={"max_attempts": 1}))
    assert d.action is Action.caveat and d.final_attempt == 1 and "max_attempts (1)" in d.reasons[-1].message
    assert d.final_text == "The Eiffel Tower is 330 metres tall. " + WRONG + " [unverified: contradicted by the sources]"
    # with a second attempt the loop converges
    def second_fix(m):
        return json.dumps({json.loads(m[1]["content"].split(REQUEST_OPEN)[1].split(REQUEST_CLOSE)[0])["claims"][0]["id"]: RIGHT})
    d = regenerate(answer, r, check=check, llm=Scripted(first_fix, second_fix), policy=policy(regenerate={"max_attempts": 2}))
    assert d.action is Action.regenerate and d.final_attempt == 2
    assert d.final_text == "The Eiffel Tower is 330 metres tall. " + RIGHT
    assert [(a.flagged_before, a.flagged_after) for a in d.attempts] == [(2, 1), (1, 0)]


def test_llm_down_retries_then_policy_fallback():
    r = check(ANSWER)
    llm = Scripted(LLMError("connection refused"), LLMError("connection refused"), LLMError("connection refused"))
    d = regenerate(ANSWER, r, check=check, llm=llm, policy=policy(regenerate={"llm_retries": 2, "fallback": "abstain"}))
    assert len(llm.calls) == 3
    assert d.action is Action.abstain and d.code is ReasonCode.regeneration_failed
    assert d.final_text == Policy().abstain.message and "LLM unavailable" in d.reasons[-1].message
    assert d.attempts[0].error and d.attempts[0].answer is None


def test_malformed_reply_is_retried_with_a_repair_turn():
    r = check(ANSWER)
    cid = claim_id_of(r, WRONG)
    llm = Scripted("I think the year is 1889.", json.dumps({cid: RIGHT}))
    d = regenerate(ANSWER, r, check=check, llm=llm, policy=policy())
    assert d.action is Action.regenerate
    assert llm.calls[1][-2] == {"role": "assistant", "content": "I think the year is 1889."}
    assert "could not be used" in llm.calls[1][-1]["content"]


def test_unexpected_exception_from_the_llm_is_an_llm_failure():
    r = check(ANSWER)
    d = regenerate(ANSWER, r, check=check, llm=Scripted(RuntimeError("boom")), policy=policy(regenerate={"llm_retries": 0}))
    assert d.action is Action.caveat and "RuntimeError: boom" in d.reasons[-1].message


def test_deadline_bounds_a_hanging_llm():
    r = check(ANSWER)
    llm = Scripted(lambda m: time.sleep(3) or "{}")
    t0 = time.monotonic()
    d = regenerate(ANSWER, r, check=check, llm=llm, policy=policy(regenerate={"deadline_s": 0.3}))
    assert time.monotonic() - t0 < 1.5
    assert d.action is Action.caveat and "LLMTimeout" in d.reasons[-1].message


# --------------------------------------------------------------------------- requests per round (the client owns retries)


def test_a_round_makes_llm_retries_plus_one_requests_whatever_the_clients_own_retries(openai_stub):
    # Before the llm package, regeneration's tenacity loop wrapped a client that retried too:
    # (llm_retries + 1) x (max_retries + 1) = 9 requests for one rewrite. The policy's budget now
    # replaces the client's retries for the call, so a round that meets a dead server makes 3.
    openai_stub.add(*[Reply(status=500)] * 9)
    llm = OpenAIChat(base_url=openai_stub.base_url, model="stub", max_retries=2, backoff_s=0.0, timeout_s=5)
    r = check(ANSWER)
    d = regenerate(ANSWER, r, check=check, llm=llm, policy=policy(regenerate={"llm_retries": 2}))
    assert len(openai_stub.requests) == 3 and openai_stub.pending == 6
    assert d.action is Action.caveat and "HTTP 500" in d.reasons[-1].message and d.attempts[0].error


def test_an_unusable_reply_gets_one_repair_turn_then_the_fallback(openai_stub):
    openai_stub.add("I would rather not.", "Still no JSON.", "never asked for")
    llm = OpenAIChat(base_url=openai_stub.base_url, model="stub", max_retries=2, backoff_s=0.0, timeout_s=5)
    r = check(ANSWER)
    d = regenerate(ANSWER, r, check=check, llm=llm, policy=policy())
    assert len(openai_stub.requests) == 2 and openai_stub.pending == 1
    second = openai_stub.requests[1]["json"]["messages"]
    assert second[-2] == {"role": "assistant", "content": "I would rather not."} and "could not be used" in second[-1]["content"]
    assert d.action is Action.caveat and "LLMResponseError" in d.reasons[-1].message


def test_the_policy_deadline_bounds_the_clients_own_timeout(openai_stub):
    openai_stub.add(Reply(delay=3.0, content="{}"), Reply(delay=3.0, content="{}"))
    llm = OpenAIChat(base_url=openai_stub.base_url, model="stub", max_retries=2, backoff_s=0.0, timeout_s=30)
    r = check(ANSWER)
    t0 = time.monotonic()
    d = regenerate(ANSWER, r, check=check, llm=llm, policy=policy(regenerate={"deadline_s": 0.4}))
    assert time.monotonic() - t0 < 2.0 and len(openai_stub.requests) == 1
    assert d.action is Action.caveat and "LLMTimeout" in d.reasons[-1].message


async def test_a_blocking_model_under_aregenerate_runs_in_a_thread_within_the_deadline():
    r = check(ANSWER)
    llm = Scripted(lambda m: time.sleep(3) or "{}")
    t0 = time.monotonic()
    d = await aregenerate(ANSWER, r, check=check, llm=llm, policy=policy(regenerate={"deadline_s": 0.3}))
    assert time.monotonic() - t0 < 1.5 and d.action is Action.caveat and "LLMTimeout" in d.reasons[-1].message


def test_rewrite_judged_worse_is_not_shown():
    r = check(ANSWER)
    cid = claim_id_of(r, WRONG)
    p = policy(rules={"unsupported": {"max_ratio": 0.25, "action": "abstain"}, "contradiction": {"action": "regenerate"}})
    llm = Scripted(lambda m: json.dumps({c.id: "Bananas grow on the tower." for c in r.claims}))
    d = regenerate(ANSWER, r, check=check, llm=llm, policy=p)
    assert d.attempts[0].action is Action.abstain and sorted(d.attempts[0].ignored) == sorted(c.id for c in r.claims if c.id != cid)
    assert d.action is Action.caveat and d.final_attempt is None and "judged abstain" in d.reasons[-1].message
    assert "Bananas" not in d.final_text


def test_nothing_changed_stops():
    r = check(ANSWER)
    d = regenerate(ANSWER, r, check=check, llm=Scripted("{}"), policy=policy())
    assert d.action is Action.caveat and "changed nothing" in d.reasons[-1].message


def test_recheck_failure_falls_back():
    from guardrail.errors import BackendError

    r = check(ANSWER)
    cid = claim_id_of(r, WRONG)

    def broken(answer):
        raise BackendError("verifier down")

    d = regenerate(ANSWER, r, check=broken, llm=Scripted(json.dumps({cid: RIGHT})), policy=policy())
    assert d.action is Action.caveat and "re-check failed" in d.reasons[-1].message and d.attempts[0].answer


def test_answer_must_match_the_report():
    with pytest.raises(InputError):
        regenerate("other", check(ANSWER), check=check, llm=Scripted(), policy=policy())


async def test_async_path_uses_achat_and_an_async_check():
    r = check(ANSWER)
    cid = claim_id_of(r, WRONG)

    class AsyncLLM:
        def __init__(self):
            self.n = 0

        def chat(self, messages, **kw):
            raise AssertionError("sync path used")

        async def achat(self, messages, **kw):
            self.n += 1
            await asyncio.sleep(0)
            return json.dumps({cid: RIGHT})

    async def acheck(answer):
        await asyncio.sleep(0)
        return check(answer)

    llm = AsyncLLM()
    d = await aregenerate(ANSWER, r, check=acheck, llm=llm, policy=policy())
    assert d.action is Action.regenerate and llm.n == 1 and RIGHT in d.final_text


async def test_async_deadline():
    r = check(ANSWER)

    class Slow:
        async def achat(self, messages, **kw):
            await asyncio.sleep(5)

        def chat(self, messages, **kw):  # pragma: no cover
            raise AssertionError

    t0 = time.monotonic()
    d = await aregenerate(ANSWER, r, check=check, llm=Slow(), policy=policy(regenerate={"deadline_s": 0.2}))
    assert time.monotonic() - t0 < 1.5 and d.action is Action.caveat


# --------------------------------------------------------------------------- EvidenceRewriter


def test_evidence_rewriter_quotes_the_best_sentence_or_drops():
    rw = EvidenceRewriter()
    ev = ["The Eiffel Tower is 330 metres tall. It was completed in 1889 for the World's Fair."]
    assert rw.rewrite("It was completed in 1887 for the World's Fair.", ev, "") == RIGHT
    assert rw.rewrite("The tower has a cinema on top.", ev, "") == ""
    assert rw.rewrite("It was completed in 1887 for the World's Fair.", ev, "x " + RIGHT) == ""  # already said
    with pytest.raises(LLMResponseError):
        rw.chat([{"role": "user", "content": "hello"}])
    with pytest.raises(ValueError):
        EvidenceRewriter(min_overlap=0)


def test_evidence_rewriter_keeps_citations_pointing_at_its_source():
    rw = EvidenceRewriter()
    ev = ["The Eiffel Tower is 330 metres tall. It was completed in 1889 for the World's Fair."]
    assert rw.rewrite("It was completed in 1887 for the World's Fair [2].", ev, "", ["1"]) == "It was completed in 1889 for the World's Fair [1]."
    assert rw.rewrite("It was completed in 1887 for the World's Fair. [2]", ev, "", ["1"]) == RIGHT + " [1]"
    answer = "The Eiffel Tower is 330 metres tall [1]. It was completed in 1887 for the World's Fair [1]."
    r = lexical_check(answer, CONTEXT)
    d = regenerate(answer, r, check=check, llm=rw, policy=policy())
    assert d.action is Action.regenerate
    assert d.final_text == "The Eiffel Tower is 330 metres tall [1]. It was completed in 1889 for the World's Fair [1]."


def test_evidence_rewriter_end_to_end_drops_an_unsupported_claim():
    answer = "The Eiffel Tower is 330 metres tall. The tower has a rooftop cinema. The tower is repainted every seven years."
    r = check(answer)
    d = regenerate(answer, r, check=check, llm=EvidenceRewriter(), policy=policy(rules={"flagged": {"action": "regenerate"}}))
    assert d.action is Action.regenerate
    assert d.final_text == "The Eiffel Tower is 330 metres tall. The tower is repainted every seven years."


def test_langchain_chat_model_is_accepted():
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    r = check(ANSWER)
    lc = FakeListChatModel(responses=[json.dumps({claim_id_of(r, WRONG): RIGHT})])
    d = regenerate(ANSWER, r, check=check, llm=lc, policy=policy())
    assert d.action is Action.regenerate and RIGHT in d.final_text
    with pytest.raises(ConfigError, match="chat"):
        regenerate(ANSWER, r, check=check, llm=object(), policy=policy())


def test_evidence_rewriter_reads_the_answer_from_the_corrective_prompt():
    answer = RIGHT + " " + WRONG
    r = check(answer)
    cid = claim_id_of(r, WRONG)
    msgs = corrective_messages(r, [c for c in r.claims if c.id == cid], policy())
    assert json.loads(EvidenceRewriter().chat(msgs)) == {cid: ""}  # the answer already says it: drop, don't repeat
    lone = check(WRONG)
    msgs = corrective_messages(lone, lone.claims, policy())
    assert json.loads(EvidenceRewriter().chat(msgs)) == {lone.claims[0].id: RIGHT}


# --------------------------------------------------------------------------- claims without their marker and full stop

CITED = "Side effects include nausea [1]. Amoxicillin is a penicillin [1]. It is best taken with juice [1].\nAsk your doctor."


def _outside(text: str, answer: str = CITED, kind: str = "sentence") -> Claim:
    """A claim shaped like the sentence extractor's: marker and full stop left outside."""
    start = answer.index(text)
    return Claim(id="x", text=text, start=start, end=start + len(text), citations=["[1]"], kind=kind)


@pytest.mark.parametrize("drop, expected", [
    ("Amoxicillin is a penicillin", "Side effects include nausea [1]. It is best taken with juice [1].\nAsk your doctor."),
    ("It is best taken with juice", "Side effects include nausea [1]. Amoxicillin is a penicillin [1].\nAsk your doctor."),
])
def test_dropping_a_claim_takes_its_marker_and_full_stop(drop, expected):
    assert splice(CITED, [_outside(drop)], {"x": ""}) == (expected, ["x"])


def test_replacement_is_shaped_like_the_claim():
    claim = _outside("Amoxicillin is a penicillin")
    for reply in ("Amoxicillin is a penicillin antibiotic.", "Amoxicillin is a penicillin antibiotic [1].",
                  "Amoxicillin is a penicillin antibiotic [1]"):
        new, _ = splice(CITED, [claim], {"x": reply})
        assert new == CITED.replace("Amoxicillin is a penicillin [1].", "Amoxicillin is a penicillin antibiotic [1].")
    # a clause is never given the sentence's full stop
    clause = _outside("a penicillin", kind="clause")
    assert splice(CITED, [clause], {"x": ""})[0] == CITED.replace("is a penicillin [1].", "is.")
