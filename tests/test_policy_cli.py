"""`guardrail guard` / `guardrail audit` as registered by guardrail.policy.cli.add_commands, and the policy demo."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from rich.console import Console

from guardrail.errors import ConfigError, InputError
from guardrail.policy import Action, AuditLog
from guardrail.policy.cli import add_commands
from guardrail.policy.demo import EXAMPLES, TENANTS, run_policy_demo

from test_policy_helpers import CONTEXT, lexical_check

REPO = Path(__file__).resolve().parent.parent
POLICIES = str(REPO / "policies")
WRONG_ANSWER = "The Eiffel Tower is 330 metres tall. It was completed in 1887 for the World's Fair."


class FakeGuardrail:
    """Stands in for the facade: the real lexical check, no models."""

    def __init__(self, verifier="default"):
        self.verifier = verifier

    def check(self, answer, context, question=None):
        return lexical_check(answer, context, question)


def run(argv, make=FakeGuardrail):
    parser = argparse.ArgumentParser(prog="guardrail")
    add_commands(parser.add_subparsers(dest="command"), make_guardrail=make)
    args = parser.parse_args(argv)
    return args.func(args)


def ctx_args():
    return [x for text in CONTEXT for x in ("--context", text)]


def test_guard_prints_action_reasons_and_final_text(capsys):
    rc = run(["guard", "--tenant", "internal-search", "--policies", POLICIES, "--answer", WRONG_ANSWER, *ctx_args(),
              "--offline-rewriter"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "REGENERATE" in out and "contradiction" in out and "completed in 1889" in out


def test_guard_json_audit_and_fail_on(tmp_path, capsys):
    db = tmp_path / "audit.db"
    answer_file = tmp_path / "answer.txt"
    answer_file.write_text(WRONG_ANSWER, encoding="utf-8")
    ctx_file = tmp_path / "ctx.json"
    ctx_file.write_text(json.dumps(CONTEXT), encoding="utf-8")
    rc = run(["guard", "--tenant", "healthcare", "--policies", POLICIES, "--answer-file", str(answer_file),
              "--context-file", str(ctx_file), "--json", "--audit-db", str(db), "--redact", "--fail-on", "abstain,escalate"])
    decision = json.loads(capsys.readouterr().out)
    assert rc == 1 and decision["action"] == "abstain" and decision["code"] == "contradiction"
    with AuditLog(db) as log:
        (row,) = log.last(5)
    assert row.tenant == "healthcare" and row.redacted and "1887" not in row.decision_json


def test_guard_errors(tmp_path):
    with pytest.raises(ConfigError, match="fallback to the default is off"):
        run(["guard", "--tenant", "nobody", "--policies", POLICIES, "--answer", "x", "--context", "y"])
    with pytest.raises(InputError, match="--fail-on"):
        run(["guard", "--tenant", "healthcare", "--policies", POLICIES, "--answer", "x", "--fail-on", "explode"])
    with pytest.raises(InputError, match="--llm-model"):
        run(["guard", "--tenant", "healthcare", "--policies", POLICIES, "--answer", WRONG_ANSWER, *ctx_args(),
             "--llm-base-url", "http://127.0.0.1:9/v1"])


def test_make_guardrail_gets_the_verifier_when_it_takes_one(capsys):
    seen = []

    def make(verifier="default"):
        seen.append(verifier)
        return FakeGuardrail(verifier)

    run(["guard", "--tenant", "internal-search", "--policies", POLICIES, "--answer", WRONG_ANSWER, *ctx_args(), "--verifier", "heuristic"], make)
    run(["guard", "--tenant", "internal-search", "--policies", POLICIES, "--answer", WRONG_ANSWER, *ctx_args()], lambda: FakeGuardrail())
    assert seen == ["heuristic"]


def test_audit_listing_and_summary(tmp_path, capsys):
    db = tmp_path / "a.db"
    for tenant, answer in [("healthcare", WRONG_ANSWER), ("internal-search", WRONG_ANSWER), ("internal-search", CONTEXT[0])]:
        run(["guard", "--tenant", tenant, "--policies", POLICIES, "--answer", answer, *ctx_args(), "--audit-db", str(db), "--json"])
    capsys.readouterr()
    assert run(["audit", "--db", str(db), "--last", "2", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in rows] == [3, 2] and rows[0]["action"] == "respond"
    assert run(["audit", "--db", str(db), "--tenant", "internal-search", "--summary", "--json", "--drift-target", "0.1"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["total"] == 2 and summary["hallucination_rate"] == 0.5 and summary["drift"]["samples"] == 2
    assert run(["audit", "--db", str(db), "--summary"]) == 0
    out = capsys.readouterr().out
    assert "hallucination rate" in out and "66.7% of 3" in out
    assert run(["audit", "--db", str(db)]) == 0 and "healthcare" in capsys.readouterr().out
    with pytest.raises(InputError):
        run(["audit", "--db", str(tmp_path / "missing.db")])


def test_main_cli_registers_guard_and_audit(tmp_path, capsys):
    from guardrail.cli import main

    db = tmp_path / "a.db"
    AuditLog(db).close()
    assert main(["audit", "--db", str(db), "--summary", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["total"] == 0
    assert main(["guard", "--tenant", "nobody", "--policies", POLICIES, "--answer", "x"]) == 2  # ConfigError -> 2


def test_policy_demo_shows_all_four_actions_under_two_tenants():
    console = Console(record=True, width=160)
    results = run_policy_demo(lexical_check, console)
    assert len(results) == len(EXAMPLES) * len(TENANTS)
    by = {(r.example, r.tenant): r.decision.action for r in results}
    assert {Action.respond, Action.caveat, Action.regenerate, Action.abstain} <= set(by.values())
    # the strict tenant is never more lenient than the lenient one on the same answer
    for title, _, _ in EXAMPLES:
        hc, isr = by[(title, "healthcare")], by[(title, "internal-search")]
        assert not (hc is Action.respond and isr is not Action.respond)
    text = console.export_text()
    assert "all four main actions shown" in text and "EvidenceRewriter" in text
    assert all(r.decision.policy_name == r.tenant for r in results)


def test_policy_demo_accepts_an_llm_and_a_policies_dir(tmp_path):
    class Refuses:
        def chat(self, messages, **kw):
            from guardrail.errors import LLMError

            raise LLMError("offline")

    results = run_policy_demo(lexical_check, Console(record=True), llm=Refuses(), policies_dir=POLICIES)
    regen = [r for r in results if r.decision.attempts]
    assert regen and all(not r.decision.regenerated for r in regen)  # LLM down: every regeneration fell back
    with pytest.raises(ConfigError):
        run_policy_demo(lexical_check, Console(record=True), policies_dir=tmp_path)
