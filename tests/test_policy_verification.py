"""A tenant policy's ``verification`` section: which verifier checks its claims and which claims an LLM
double-checks (CoVe or the judge), against a scripted OpenAI-compatible server.

What is pinned: routing by band and by error type, the per-answer call budget (requests counted on the
server), a double check that cannot run handled by the policy's failure mode (open and closed), a tenant
without the section making no LLM call, the same section through ``guard``, ``aguard``, the CLI and the
service, and load errors that name the field.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from openai_stub import Reply, ScriptedOpenAI, openai_stub  # noqa: F401  (fixture)

from guardrail import Guardrail
from guardrail.errors import ConfigError
from guardrail.policy import Action, PolicyStore, ReasonCode, aguard, guard, load_policy, policy_from_yaml, policy_guardrail
from guardrail.types import ClaimVerdict, ErrorType, Label, VerificationItem

REPO = Path(__file__).resolve().parent.parent
DOC = ("Paris facts. The Eiffel Tower was completed in 1889 for the World's Fair. It is 330 metres tall. "
       "It was designed by the company of Gustave Eiffel.")
YEAR, HEIGHT = "The Eiffel Tower was completed in 1889.", "The tower is 300 metres tall."
DESIGN, COLOUR = "It was designed by the company of Gustave Eiffel.", "The tower is painted bright green."
ANSWERS = {  # what the evidence says, by a word of the verification question: (answer, exact quote)
    "year": ("The Eiffel Tower was completed in 1889.", "The Eiffel Tower was completed in 1889"),
    "tall": ("The Eiffel Tower is 330 metres tall.", "It is 330 metres tall"),
    "designed": ("The Eiffel Tower was designed by the company of Gustave Eiffel.",
                 "It was designed by the company of Gustave Eiffel"),
}
QUESTIONS = {"1889": "In what year was the Eiffel Tower completed?", "tall": "How tall is the Eiffel Tower?",
             "designed": "Who designed the Eiffel Tower?", "painted": "What colour is the Eiffel Tower painted?"}


# -- the scripted model and the fast verifier ---------------------------------------------------------


def is_question_call(request: dict[str, Any]) -> bool:
    return "verification question" in request["json"]["messages"][0]["content"]


def claims_in(request: dict[str, Any]) -> list[str]:
    return re.findall(r"<claim n=\"\d+\">(.*?)</claim>", request["json"]["messages"][-1]["content"], re.S)


def asked_claims(stub: ScriptedOpenAI) -> list[str]:
    return [c for r in stub.requests if is_question_call(r) for c in claims_in(r)]


def _answer(question: str) -> dict[str, Any]:
    for key, (answer, quote) in ANSWERS.items():
        if key in question:
            return {"found": True, "answer": answer, "quote": quote, "passage": 1}
    return {"found": False, "answer": "", "quote": "", "passage": None}


def healthy(request: dict[str, Any]) -> str:
    """CoVe as it should go: one question per claim, answers from the evidence alone."""
    content = request["json"]["messages"][-1]["content"]
    if is_question_call(request):
        return json.dumps({"questions": [{"id": n, "question": QUESTIONS[next((k for k in QUESTIONS if k in c), "painted")]}
                                         for n, c in enumerate(claims_in(request), 1)]})
    asked = re.findall(r"<question(?: n=\"\d+\")?>(.*?)</question>", content, re.S)
    if "\"answers\"" not in request["json"]["messages"][0]["content"]:
        return json.dumps(_answer(asked[0]))
    return json.dumps({"answers": [{"id": n, **_answer(q)} for n, q in enumerate(asked, 1)]})


class TableVerifier:
    """Fast stand-in: each claim's hallucination score from a table keyed by a piece of its text."""

    name = "table"
    evidence_selector = {"method": "bm25"}  # no embedding model in these tests
    recommended_threshold = 0.5

    def __init__(self, scores: dict[str, float], default: float = 0.05):
        self.scores, self.default = scores, default

    def verify(self, items: Sequence[VerificationItem], batch_size: int = 32) -> list[ClaimVerdict]:
        out = []
        for it in items:
            s = next((v for k, v in self.scores.items() if k in it.claim.text), self.default)
            out.append(ClaimVerdict(claim_id=it.claim.id, label=Label.unsupported if s >= 0.5 else Label.supported,
                                    confidence=max(s, 1 - s), hallucination_score=s, verifier=self.name))
        return out


def policy_yaml(stub: ScriptedOpenAI | None, double_check: str = "", failure: str = "", verifier: str = "") -> str:
    """A tenant policy; ``double_check`` holds the lines of the section after its method and endpoint."""
    text = "name: clinic\n"
    if stub is not None:
        text += ("verification:\n" + (f"  verifier: {verifier}\n" if verifier else "") +
                 "  double_check:\n    method: cove\n"
                 f"    llm: {{base_url: '{stub.base_url}', model: stub, timeout_s: 2, max_retries: 0}}\n"
                 + "".join(f"    {line}\n" for line in double_check.splitlines() if line))
    return text + failure


def base(scores: dict[str, float]) -> Guardrail:
    return Guardrail(verifier=TableVerifier(scores))


# -- routing ------------------------------------------------------------------------------------------


def test_a_band_sends_only_the_claims_the_fast_verifier_is_unsure_of(openai_stub):
    openai_stub.responder = healthy
    policy = policy_from_yaml(policy_yaml(openai_stub, "band: [0.3, 0.7]"))
    g = base({"1889": 0.05, "300 metres": 0.5, "green": 0.95})
    d = guard(f"{YEAR} {HEIGHT} {COLOUR}", [DOC], check=g.check, policy=policy)
    assert asked_claims(openai_stub) == [HEIGHT], "only the in-band claim is double-checked"
    assert len(openai_stub.requests) == 2, "one question call, one batched answer call"
    labels = {v.claim_id: v.label for v in d.report.verdicts}
    assert labels == {"c1": Label.supported, "c2": Label.contradicted, "c3": Label.unsupported}
    assert d.report.verifier == "cascade(table->cove)" and d.report.skipped == []
    assert "How tall is the Eiffel Tower?" in d.report.verdicts[1].reason
    assert d.action is not Action.respond and any(r.code is ReasonCode.contradiction for r in d.reasons)


def test_error_types_route_a_number_the_fast_verifier_passed_with_confidence(openai_stub):
    openai_stub.responder = healthy
    policy = policy_from_yaml(policy_yaml(openai_stub, "band: [1.0, 1.0]\nerror_types: [number]"))
    g = base({"300 metres": 0.02})
    d = guard(f"{HEIGHT} {DESIGN}", [DOC], check=g.check, policy=policy)
    assert asked_claims(openai_stub) == [HEIGHT], "the claim stating a number, not the one stating none"
    v = d.report.verdicts[0]
    assert v.label is Label.contradicted and v.error_type is ErrorType.number and v.verifier == "cove"
    assert d.report.verdicts[1].label is Label.supported and d.report.verdicts[1].verifier == "table"


def test_the_budget_caps_requests_per_answer_and_the_rest_is_skipped(openai_stub):
    openai_stub.responder = healthy
    policy = policy_from_yaml(policy_yaml(openai_stub, "band: [0.0, 1.0]\nper: question\nmax_calls_per_answer: 3",
                                          "failure: {default: closed, checks: {cove: open}}\n"))
    d = guard(f"{YEAR} {HEIGHT} {DESIGN} {COLOUR}", [DOC], check=base({}).check, policy=policy)
    assert len(openai_stub.requests) == 3, "1 question call + 2 answer calls, then the budget is spent"
    (skipped,) = d.report.skipped
    assert skipped.check == "cove" and skipped.claim_ids == ["c3", "c4"] and "budget of 3" in skipped.reason
    assert [v.verifier for v in d.report.verdicts] == ["cove", "cove", "table", "table"]
    assert any(r.code is ReasonCode.check_skipped for r in d.reasons), "fail-open: recorded, not silent"


def test_the_judge_method_double_checks_the_routed_claims_once_each(openai_stub):
    openai_stub.responder = lambda req: json.dumps({
        "reasoning": "the passage gives 330 metres", "label": "contradicted", "confidence": 0.9,
        "evidence_quote": "It is 330 metres tall", "evidence_window": 1, "error_type": "number"})
    text = policy_yaml(openai_stub, "band: [0.3, 0.7]").replace("method: cove", "method: judge")
    d = guard(f"{YEAR} {HEIGHT}", [DOC], check=base({"300 metres": 0.5}).check, policy=policy_from_yaml(text))
    assert len(openai_stub.requests) == 1 and HEIGHT in openai_stub.requests[0]["json"]["messages"][-1]["content"]
    assert d.report.verifier == "cascade(table->judge)"
    assert [v.verifier for v in d.report.verdicts] == ["table", "judge"] and d.report.verdicts[1].label is Label.contradicted


# -- a double check that cannot run: the failure mode decides --------------------------------------------


@pytest.mark.parametrize("broken", ["timeout", "malformed"])
@pytest.mark.parametrize("mode,action", [("open", Action.respond), ("closed", Action.abstain)])
def test_a_failed_double_check_is_skipped_and_the_failure_mode_decides(openai_stub, broken, mode, action):
    if broken == "timeout":
        openai_stub.responder = lambda req: Reply(delay=3.0, content="{}")
    else:
        openai_stub.responder = lambda req: "Sure! The tower was finished in 1925, I think."
    policy = policy_from_yaml(policy_yaml(openai_stub, "band: [0.3, 0.7]",
                                          f"failure: {{default: closed, checks: {{cove: {mode}}}}}\n"))
    d = guard(HEIGHT, [DOC], check=base({"300 metres": 0.4}).check, policy=policy)
    (v,) = d.report.verdicts
    assert v.label is Label.supported and v.hallucination_score == 0.4, "the fast verdict stands"
    (skipped,) = d.report.skipped
    assert skipped.check == "cove" and skipped.claim_ids == ["c1"]
    assert ("LLMTimeout" if broken == "timeout" else "writing the verification questions") in skipped.reason
    assert d.action is action
    assert d.code is (ReasonCode.check_skipped if mode == "open" else ReasonCode.check_failed)


def test_an_unset_key_variable_is_a_check_that_cannot_run(openai_stub, monkeypatch):
    monkeypatch.delenv("CLINIC_LLM_KEY", raising=False)
    openai_stub.responder = healthy
    policy = policy_from_yaml(policy_yaml(openai_stub, "llm: {base_url: 'http://127.0.0.1:9/v1', model: m, "
                                                       "api_key_env: CLINIC_LLM_KEY}").replace(
        f"    llm: {{base_url: '{openai_stub.base_url}', model: stub, timeout_s: 2, max_retries: 0}}\n", ""))
    d = guard(HEIGHT, [DOC], check=base({"300 metres": 0.5}).check, policy=policy)
    assert openai_stub.requests == []
    (skipped,) = d.report.skipped
    assert "CLINIC_LLM_KEY is not set" in skipped.reason and d.action is Action.abstain


def test_the_key_is_read_from_the_named_variable(openai_stub, monkeypatch):
    monkeypatch.setenv("CLINIC_LLM_KEY", "sk-test-123")
    openai_stub.responder = healthy
    text = policy_yaml(openai_stub, "band: [0.0, 1.0]").replace("max_retries: 0}", "max_retries: 0, api_key_env: CLINIC_LLM_KEY}")
    guard(HEIGHT, [DOC], check=base({}).check, policy=policy_from_yaml(text))
    assert openai_stub.requests and all(r["headers"]["authorization"] == "Bearer sk-test-123" for r in openai_stub.requests)


# -- a tenant without the section, and the one place that builds it ---------------------------------------


def test_a_tenant_without_the_section_makes_no_llm_call(openai_stub):
    openai_stub.responder = healthy
    g = base({"300 metres": 0.5})
    plain = policy_from_yaml(policy_yaml(None, failure="failure: {default: closed}\n"))
    assert policy_guardrail(g, plain) is g
    d = guard(f"{YEAR} {HEIGHT}", [DOC], check=g.check, policy=plain)
    assert openai_stub.requests == [] and d.report.verifier == "table" and d.report.skipped == []


def test_the_built_guardrail_is_shared_and_never_stacked(openai_stub):
    openai_stub.responder = healthy
    policy = policy_from_yaml(policy_yaml(openai_stub, "band: [0.0, 1.0]"))
    g = base({})
    derived = policy_guardrail(g, policy)
    assert derived is not g and policy_guardrail(g, policy) is derived and policy_guardrail(derived, policy) is derived
    assert derived.verifier.fast is g.verifier and derived.threshold == g.threshold
    guard(HEIGHT, [DOC], check=derived.check, policy=policy)
    calls = len(openai_stub.requests)
    guard(HEIGHT, [DOC], check=g.check, policy=policy)
    assert len(openai_stub.requests) == calls == 2, "the second guard reads CoVe's cache of the shared guardrail"
    other = policy_from_yaml(policy_yaml(openai_stub, "band: [0.2, 0.9]"))
    assert policy_guardrail(derived, other).verifier.fast is g.verifier, "another section is built from the origin"


def test_a_named_fast_verifier_replaces_the_callers(openai_stub):
    policy = policy_from_yaml("verification: {verifier: 'overlap:threshold=0.4'}\n")
    g = base({})
    derived = policy_guardrail(g, policy)
    assert derived.verifier.name != "table" and type(derived.verifier).__name__ == "OverlapVerifier"
    assert openai_stub.requests == []


def test_a_custom_check_that_skips_the_double_check_is_not_a_silent_pass(openai_stub):
    """An adapter that calls its own check, not policy_guardrail's: the policy still sees the missing stage."""
    openai_stub.responder = healthy
    g = base({"300 metres": 0.5})
    policy = policy_from_yaml(policy_yaml(openai_stub, "band: [0.3, 0.7]", "failure: {default: open, checks: {cove: closed}}\n"))
    d = guard(f"{YEAR} {HEIGHT}", [DOC], check=lambda a, c: g.check(a, c), policy=policy)
    assert openai_stub.requests == []
    (skipped,) = d.report.skipped
    assert skipped.check == "cove" and skipped.claim_ids == ["c2"] and "no cove stage" in skipped.reason
    assert d.action is Action.abstain


def test_aguard_uses_the_section_too(openai_stub):
    openai_stub.responder = healthy
    policy = policy_from_yaml(policy_yaml(openai_stub, "band: [0.3, 0.7]"))
    g = base({"300 metres": 0.5})
    d = asyncio.run(aguard(f"{YEAR} {HEIGHT}", [DOC], check=g.acheck, policy=policy))
    assert asked_claims(openai_stub) == [HEIGHT] and d.report.verdicts[1].label is Label.contradicted


# -- entry points: the CLI's guard and the service ---------------------------------------------------------


def tenants(root: Path, stub: ScriptedOpenAI) -> Path:
    (root / "tenants").mkdir(parents=True)
    (root / "default.yaml").write_text("name: default\n", encoding="utf-8")
    (root / "tenants" / "clinic.yaml").write_text("extends: default\n" + policy_yaml(stub, "error_types: [number]"),
                                                  encoding="utf-8")
    (root / "tenants" / "plain.yaml").write_text("extends: default\nname: plain\n", encoding="utf-8")
    return root


def test_cli_guard_applies_the_tenants_section(openai_stub, tmp_path, capsys):
    from guardrail.policy.cli import add_commands

    openai_stub.responder = healthy
    parser = argparse.ArgumentParser()
    add_commands(parser.add_subparsers(), make_guardrail=lambda: base({}))
    policies = tenants(tmp_path / "policies", openai_stub)
    for tenant, calls in (("plain", 0), ("clinic", 2)):
        openai_stub.requests.clear()
        args = parser.parse_args(["guard", "--tenant", tenant, "--policies", str(policies), "--answer", HEIGHT,
                                  "--context", DOC, "--json"])
        assert args.func(args) == 0
        out = json.loads(capsys.readouterr().out)
        assert len(openai_stub.requests) == calls
        assert out["report"]["verdicts"][0]["label"] == ("contradicted" if calls else "supported")


def test_the_service_applies_each_tenants_section(openai_stub, tmp_path):
    pytest.importorskip("fastapi")
    pytest.importorskip("uvicorn")
    from fastapi.testclient import TestClient

    from guardrail.service import ServiceSettings, TenantSettings, create_app, hash_key

    openai_stub.responder = healthy
    settings = ServiceSettings(policies=tenants(tmp_path / "policies", openai_stub), auth_required=True,
                               tenants={"clinic": TenantSettings(keys=[hash_key("clinic-key-0123456789")]),
                                        "plain": TenantSettings(keys=[hash_key("plain-key-0123456789")])},
                               audit_path=tmp_path / "audit.db", worker_threads=2)
    with TestClient(create_app(settings, guardrail=base({}))) as c:
        for tenant, calls in (("plain", 0), ("clinic", 2)):
            openai_stub.requests.clear()
            r = c.post("/v1/guard", json={"answer": HEIGHT, "context": [DOC]},
                       headers={"Authorization": f"Bearer {tenant}-key-0123456789"})
            assert r.status_code == 200, r.text
            report = r.json()["decision"]["report"]
            assert len(openai_stub.requests) == calls and report["verdicts"][0]["label"] == (
                "contradicted" if calls else "supported")


# -- load errors name the field ---------------------------------------------------------------------------


@pytest.mark.parametrize("section,field,message", [
    ("double_check: {methd: cove}", "verification.double_check.methd", "unknown key"),
    ("double_check: {method: cove, band: [0.8, 0.2], llm: {base_url: 'http://h/v1', model: m}}",
     "verification.double_check.band", "0 <= low <= high <= 1"),
    ("double_check: {method: cove}", "verification.double_check", "needs an LLM endpoint: set llm.base_url and llm.model"),
    ("double_check: {method: cove, error_types: [dosage], llm: {base_url: 'http://h/v1', model: m}}",
     "verification.double_check.error_types.0", "number"),
    ("double_check: {method: cove, llm: {base_url: 'http://h/v1', model: m, api_key: sk-live-1}}",
     "verification.double_check.llm", "must not be written in a policy file"),
    ("double_check: {method: judge, max_calls_per_answer: 4, llm: {base_url: 'http://h/v1', model: m}}",
     "verification.double_check", "cove options"),
    ("verifier: judge", "verification.verifier", "needs an LLM"),
    ("verifier: 'hf:/models/x'", "verification.verifier", "a model path is not allowed"),
    ("verifier: grounding-typo", "verification.verifier", "unknown verifier"),
])
def test_a_bad_section_fails_at_load_naming_the_field(tmp_path, section, field, message):
    path = tmp_path / "t.yaml"
    path.write_text(f"name: t\nverification:\n  {section}\n", encoding="utf-8")
    with pytest.raises(ConfigError) as exc:
        load_policy(path)
    assert exc.value.field == field and exc.value.file == str(path) and exc.value.line == 3
    assert message in str(exc.value)
    assert "sk-live-1" not in str(exc.value)


def test_a_pasted_key_is_not_echoed_in_the_error():
    with pytest.raises(ConfigError) as exc:
        policy_from_yaml("verification:\n  double_check:\n    llm: {api_key_env: sk-live-abc123}\n")
    assert "api_key_env must be the NAME" in str(exc.value) and "sk-live-abc123" not in str(exc.value)


def test_the_bundled_example_tenant_loads_and_double_checks_values():
    store = PolicyStore(REPO / "policies")
    p = store.get("clinical-cove")
    dc = p.verification.double_check
    assert dc.method == "cove" and {ErrorType.number, ErrorType.temporal} <= set(dc.error_types)
    assert dc.llm.base_url and dc.llm.api_key_env == "CLINICAL_LLM_KEY"
    assert p.failure.mode_for("cove").value == "closed"
    # Every other bundled tenant keeps the caller's verifier and makes no LLM call.
    for tenant in store.tenants():
        if tenant != "clinical-cove":
            assert store.get(tenant).verification.is_default, tenant


# -- end to end against the real local llama.cpp server (slow; skipped without it) ------------------------

from test_llamacpp_e2e import llamacpp_url  # noqa: E402, F401  (module-scoped fixture: one server)


@pytest.mark.llamacpp
def test_a_policy_double_checks_dates_against_the_real_server(llamacpp_url, tmp_path):
    """The policy path end to end: a tenant file naming the local server, CoVe on the claim stating a date
    (a confident fast pass) and on nothing else. SmolLM2-135M is no fact-checker: what must hold is that the
    routed claim got a CoVe verdict or is listed as skipped under cove, and the other claim made no call."""
    (tmp_path / "tenants").mkdir()
    (tmp_path / "tenants" / "clinic.yaml").write_text(
        "verification:\n  double_check:\n    method: cove\n    band: [1.0, 1.0]\n    error_types: [temporal]\n"
        f"    llm: {{base_url: '{llamacpp_url}', model: smollm2-135m, timeout_s: 120, max_retries: 0, "
        "response_format: llamacpp_schema}\nfailure: {checks: {cove: closed}}\n", encoding="utf-8")
    policy = PolicyStore(tmp_path).get("clinic")
    answer = f"The Eiffel Tower was completed in 1925. {DESIGN}"
    d = guard(answer, [DOC], check=base({}).check, policy=policy, question="Tell me about the Eiffel Tower.")
    unchecked = {cid for s in d.report.skipped if s.check == "cove" for cid in s.claim_ids}
    for v in d.report.verdicts:
        print(f"  {v.claim_id} {v.label.value} {v.hallucination_score:.2f} {v.verifier} {(v.reason or '')[:300]}")
    for s in d.report.skipped:
        print(f"  skipped {s.check}: {s.reason[:300]}")
    print(f"  decision {d.action.value} ({d.code.value})")
    first, second = d.report.verdicts
    assert first.verifier == "cove" or first.claim_id in unchecked
    assert second.verifier == "table" and second.claim_id not in unchecked
    if unchecked:  # fail-closed for cove: a date the double check could not reach is not shown
        assert d.action is Action.abstain and d.code is ReasonCode.check_failed
