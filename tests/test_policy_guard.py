"""guard / aguard end to end: each action, regeneration against a local OpenAI-compatible server, audit."""

from __future__ import annotations

import json
from pathlib import Path


from guardrail.errors import BackendError
from guardrail.llm import OpenAIChat
from guardrail.policy import Action, AuditLog, EvidenceRewriter, PolicyStore, ReasonCode, aguard, guard, load_policy
from guardrail.policy._regenerate import REQUEST_CLOSE, REQUEST_OPEN

from openai_stub import Reply, ScriptedOpenAI, openai_stub  # noqa: F401  (fixture)
from test_policy_helpers import CONTEXT, lexical_check

REPO = Path(__file__).resolve().parent.parent
STORE = PolicyStore(REPO / "policies")
LENIENT = STORE.get("internal-search")
STRICT = STORE.get("healthcare")

SUPPORTED = "The Eiffel Tower is 330 metres tall. It was completed in 1889 for the World's Fair."
ONE_WRONG = "The Eiffel Tower is 330 metres tall.\n\nIt was completed in 1887 for the World's Fair.  The tower is repainted every seven years."
WRONG = "It was completed in 1887 for the World's Fair."
RIGHT = "It was completed in 1889 for the World's Fair."
ONE_UNSUPPORTED = "The Eiffel Tower is 330 metres tall. The tower has a rooftop cinema. The tower is repainted every seven years."
UNRELATED = "Bananas are yellow. Monkeys like them."


def fast(policy):
    return policy.model_copy(update={"regenerate": policy.regenerate.model_copy(update={"retry_wait_s": 0.0, "deadline_s": 10.0})})


def payload_ids(request_json: dict) -> list[str]:
    user = request_json["messages"][-1]["content"]
    return [c["id"] for c in json.loads(user.split(REQUEST_OPEN)[1].split(REQUEST_CLOSE)[0])["claims"]]


# --------------------------------------------------------------------------- each action under the bundled tenants


def test_respond():
    d = guard(SUPPORTED, CONTEXT, check=lexical_check, policy=LENIENT, tenant="internal-search")
    assert d.action is Action.respond and d.final_text == SUPPORTED and d.latencies_ms["total"] > 0


def test_caveat_lenient():
    d = guard(ONE_UNSUPPORTED, CONTEXT, check=lexical_check, policy=LENIENT)
    assert d.action is Action.caveat
    assert d.final_text == ("The Eiffel Tower is 330 metres tall. The tower has a rooftop cinema. [\u26a0 not found in the sources] "
                            "The tower is repainted every seven years.")


def test_abstain_strict_on_contradiction_and_lenient_caveats_unrelated_answers():
    d = guard(ONE_WRONG, CONTEXT, check=lexical_check, policy=STRICT)
    assert d.action is Action.abstain and d.code is ReasonCode.contradiction
    assert d.final_text == STRICT.abstain.messages[ReasonCode.contradiction]
    d = guard(UNRELATED, CONTEXT, check=lexical_check, policy=LENIENT)
    assert d.action is Action.caveat and d.code is ReasonCode.no_relevant_evidence


def test_regenerate_without_llm_uses_the_fallback():
    d = guard(ONE_WRONG, CONTEXT, check=lexical_check, policy=LENIENT, llm=None)
    assert d.action is Action.caveat and d.code is ReasonCode.regeneration_unavailable


def test_check_backend_error_follows_failure_mode():
    def broken(answer, context):
        raise BackendError("model directory missing")

    d = guard(SUPPORTED, CONTEXT, check=broken, policy=STRICT)
    assert d.action is Action.abstain and d.code is ReasonCode.check_failed and d.report is None
    d = guard(SUPPORTED, CONTEXT, check=broken, policy=LENIENT)
    assert d.action is Action.caveat and d.final_text.startswith(SUPPORTED + "\n\n")


def test_question_is_passed_to_check():
    seen = {}

    def check(answer, context, question=None):
        seen["q"] = question
        return lexical_check(answer, context, question)

    guard(SUPPORTED, CONTEXT, check=check, policy=LENIENT, question="How tall?")
    assert seen["q"] == "How tall?"


# --------------------------------------------------------------------------- regeneration against the scripted server


def test_regeneration_end_to_end_against_openai_compatible_server(openai_stub, tmp_path):
    openai_stub.responder = lambda req: Reply(content="```json\n" + json.dumps({payload_ids(req["json"])[0]: RIGHT}) + "\n```")
    llm = OpenAIChat(base_url=openai_stub.base_url, model="stub", max_retries=0, timeout_s=5)
    audit = AuditLog(tmp_path / "audit.db")
    d = guard(ONE_WRONG, CONTEXT, check=lexical_check, policy=fast(LENIENT), llm=llm, audit=audit, tenant="internal-search")
    assert d.action is Action.regenerate and d.regenerated
    start = ONE_WRONG.index(WRONG)
    assert d.final_text == ONE_WRONG[:start] + RIGHT + ONE_WRONG[start + len(WRONG):]  # all else byte-identical
    (req,) = openai_stub.requests
    msgs = req["json"]["messages"]
    assert msgs[0]["role"] == "system" and ONE_WRONG in msgs[1]["content"] and "contradicted" in msgs[1]["content"]
    row = audit.last(1)[0]
    assert row.action == "regenerate" and row.attempts == 1 and row.tenant == "internal-search"
    assert row.decision().final_text == d.final_text


def test_non_converging_rewrite_stops_against_the_server(openai_stub):
    openai_stub.responder = lambda req: Reply(content=json.dumps({payload_ids(req["json"])[0]: "It was completed in 1886 for the World's Fair."}))
    llm = OpenAIChat(base_url=openai_stub.base_url, model="stub", max_retries=0, timeout_s=5)
    policy = fast(LENIENT)
    d = guard(ONE_WRONG, CONTEXT, check=lexical_check, policy=policy, llm=llm)
    assert len(openai_stub.requests) == 1 < policy.regenerate.max_attempts
    assert d.action is Action.caveat and d.code is ReasonCode.regeneration_failed
    assert WRONG + " [\u26a0 contradicted by the sources]" in d.final_text


def test_llm_down_gives_the_policy_fallback(openai_stub):
    openai_stub.add(Reply(status=500), Reply(status=500), Reply(status=500))
    llm = OpenAIChat(base_url=openai_stub.base_url, model="stub", max_retries=0, timeout_s=5)
    strict_regen = fast(STRICT)  # healthcare: unsupported claim -> regenerate, fallback abstain
    answer = "The Eiffel Tower is 330 metres tall [1]. The tower has a rooftop cinema [1]."
    d = guard(answer, CONTEXT, check=lexical_check, policy=strict_regen, llm=llm)
    assert len(openai_stub.requests) == 3  # 1 + llm_retries (2)
    assert d.action is Action.abstain and d.code is ReasonCode.regeneration_failed
    assert "HTTP 500" in d.reasons[-1].message and d.final_text == STRICT.abstain.message


def test_llm_unreachable_gives_the_policy_fallback():
    with ScriptedOpenAI() as stub:
        url = stub.base_url
    llm = OpenAIChat(base_url=url, model="stub", max_retries=0, timeout_s=2)
    d = guard(ONE_WRONG, CONTEXT, check=lexical_check, policy=fast(LENIENT), llm=llm)
    assert d.action is Action.caveat and "LLM unavailable" in d.reasons[-1].message


async def test_aguard_end_to_end(openai_stub, tmp_path):
    openai_stub.responder = lambda req: Reply(content=json.dumps({payload_ids(req["json"])[0]: RIGHT}))
    llm = OpenAIChat(base_url=openai_stub.base_url, model="stub", max_retries=0, timeout_s=5)
    audit = AuditLog(tmp_path / "a.db")

    async def acheck(answer, context):
        return lexical_check(answer, context)

    d = await aguard(ONE_WRONG, CONTEXT, check=acheck, policy=fast(LENIENT), llm=llm, audit=audit, tenant="t")
    assert d.action is Action.regenerate and RIGHT in d.final_text and audit.count("t") == 1
    d2 = await aguard(SUPPORTED, CONTEXT, check=lexical_check, policy=LENIENT)  # sync check runs in a thread
    assert d2.action is Action.respond


def test_strict_tenant_regenerates_with_the_offline_rewriter():
    answer = "The Eiffel Tower is 330 metres tall [1]. The tower has a rooftop cinema [1]. It was completed in 1889 for the World's Fair [1]."
    d = guard(answer, CONTEXT, check=lexical_check, policy=fast(STRICT), llm=EvidenceRewriter())
    assert d.action is Action.regenerate
    assert d.final_text == "The Eiffel Tower is 330 metres tall [1]. It was completed in 1889 for the World's Fair [1]."


def test_policy_loaded_from_file_is_usable_directly():
    p = load_policy(REPO / "policies" / "tenants" / "internal-search.yaml")
    assert guard(SUPPORTED, CONTEXT, check=lexical_check, policy=p).policy_hash == LENIENT.content_hash


def test_demo_answers_with_the_real_sentence_extractor_stay_well_formed():
    """The project's extractor leaves "[1]." outside the claim; rewrites and drops must fit around it."""
    from guardrail.claims import SentenceClaimExtractor
    from guardrail.policy.demo import CONTEXT as DEMO_CONTEXT, EXAMPLES

    ex = SentenceClaimExtractor()

    def check(answer, context, question=None):
        return lexical_check(answer, context, question, extractor=ex)

    assert ex.extract(EXAMPLES[1][2])[0].text == "Common side effects include nausea and diarrhoea"  # the shape under test
    got = {}
    for title, question, answer in EXAMPLES:
        for tenant, p in (("healthcare", STRICT), ("internal-search", LENIENT)):
            d = guard(answer, DEMO_CONTEXT, check=check, policy=fast(p), llm=EvidenceRewriter(), question=question)
            got[(title, tenant)] = d
    d = got[("one unsupported claim", "healthcare")]
    assert d.action is Action.regenerate
    assert d.final_text == "Common side effects include nausea and diarrhoea [1]. Amoxicillin is a penicillin antibiotic [1]."
    d = got[("wrong dose", "internal-search")]
    assert d.action is Action.regenerate
    assert d.final_text == ("The usual adult dose is 500 mg every 8 hours [1]. "
                            "Doxycycline is a common alternative for patients with a penicillin allergy [2].")
    assert got[("grounded answer", "healthcare")].action is Action.respond
    assert got[("wrong dose", "healthcare")].action is Action.abstain


def test_guard_emits_decide_regenerate_and_audit_spans(span_names, tmp_path):
    with AuditLog(tmp_path / "audit.db") as log:
        d = guard(ONE_UNSUPPORTED, CONTEXT, check=lexical_check, policy=fast(STRICT), llm=EvidenceRewriter(), audit=log)
    assert d.attempts, d.action  # it went through regeneration
    assert {"guardrail.decide", "guardrail.regenerate", "guardrail.audit"} <= set(span_names)
