"""No unchecked factual text (issue 15, items 2 and 6): structure never hides a false sentence.

Bypass invariant: a false sentence wrapped in any markdown structure (heading, list, table header
or row, code block, question, lead-in, after "Sources:", filler phrasing) is either checked and
flagged or listed as unchecked factual text, and ``guard`` under the default and healthcare
policies never answers ``respond``. The same structures around faithful sentences raise no alarm.
Runs the real default pipeline (no mocks of our own stages).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from guardrail import Guardrail, Label
from guardrail.cli import main
from guardrail.policy import Action, PolicyStore, guard

REPO = Path(__file__).resolve().parent.parent
STORE = PolicyStore(REPO / "policies")

CONTEXT = (
    "The Eiffel Tower is 330 metres tall. The Eiffel Tower was designed by the company of Gustave Eiffel. "
    "Visitors can climb the stairs to the second floor. The gift shop is in room 530. The tower stands in Paris."
)
LEAD = "The gift shop is in room 530 [1].\n\n"

# (kind of edit, false sentence, the faithful sentence it was edited from, the edited words)
EDITS = [
    ("number", "The Eiffel Tower is 530 metres tall.", "The Eiffel Tower is 330 metres tall.", "530 metres"),
    ("name", "The tower stands in Lyon.", "The tower stands in Paris.", "Lyon"),
    ("negation", "Visitors cannot climb the stairs to the second floor.", "Visitors can climb the stairs to the second floor.",
     "cannot climb"),
    ("unit", "The Eiffel Tower is 330 feet tall.", "The Eiffel Tower is 330 metres tall.", "330 feet"),
]


def _lower(s: str) -> str:
    return s[0].lower() + s[1:]


def wrap(structure: str, sentence: str) -> str:
    """The sentence placed in one markdown structure, after a true cited sentence."""
    core = sentence.rstrip(".")
    body = {
        "plain": sentence,
        "heading": f"## {core}",
        "list_item": f"- {sentence}",
        "table_header": f"| {core} |\n|---|\n| The gift shop is in room 530 |",
        "table_row": f"| Fact |\n|---|\n| {core} |",
        "code_block": f"```\n{sentence}\n```",
        "question": f"Did you know {_lower(core)}?",
        "lead_in": f"{core}:\n\n- The gift shop is in room 530.",
        "after_sources": f"Sources:\n[1] Visitor guide\n{sentence}",
        "filler": f"Feel free to remember that {_lower(sentence)}",
        "note_that": f"Note that {_lower(sentence)}",
    }[structure]
    return LEAD + body


STRUCTURES = ["plain", "heading", "list_item", "table_header", "table_row", "code_block", "question", "lead_in",
              "after_sources", "filler", "note_that"]


@pytest.fixture(scope="module")
def guardrail() -> Guardrail:
    return Guardrail()


def _overlaps(a: int, b: int, c: int, d: int) -> bool:
    return a < d and c < b


@pytest.mark.parametrize("structure", STRUCTURES)
@pytest.mark.parametrize(("edit", "false", "true", "edited"), EDITS, ids=[e[0] for e in EDITS])
def test_a_false_sentence_is_caught_in_every_structure(guardrail, structure, edit, false, true, edited):
    answer = wrap(structure, false)
    report = guardrail.check(answer, CONTEXT)
    fs = answer.index(edited)
    fe = fs + len(edited)
    flagged = [c for c, v in report.flagged if _overlaps(c.start, c.end, fs, fe)]
    unchecked = [u for u in report.unchecked_factual if _overlaps(u.start, u.end, fs, fe)]
    assert flagged or unchecked, (answer, [(c.text, report.verdict_for(c.id)) for c in report.claims], report.unchecked)
    for tenant in ("default", "healthcare"):
        decision = guard(answer, CONTEXT, check=guardrail.check, policy=STORE.get(tenant))
        assert decision.action is not Action.respond, (tenant, answer, decision.reasons)


@pytest.mark.parametrize("structure", STRUCTURES)
@pytest.mark.parametrize(("edit", "false", "true", "edited"), EDITS, ids=[e[0] for e in EDITS])
def test_a_faithful_sentence_raises_no_alarm_in_any_structure(guardrail, structure, edit, false, true, edited):
    answer = wrap(structure, true)
    report = guardrail.check(answer, CONTEXT)
    assert not report.hallucinated, (answer, [(c.text, report.verdict_for(c.id)) for c in report.claims])
    assert report.complete, (answer, report.unchecked_factual, report.skipped)
    assert all(v.label is not Label.unevaluatable for v in report.verdicts)
    assert guard(answer, CONTEXT, check=guardrail.check, policy=STORE.get("default")).action is Action.respond


def test_claims_and_unchecked_cover_the_answer(guardrail):
    for structure in STRUCTURES:
        answer = wrap(structure, EDITS[0][1]) + "\n\nHope this helps! Anything else?"
        report = guardrail.check(answer, CONTEXT)
        covered = bytearray(len(answer))
        for span in [*report.claims, *report.unchecked]:
            covered[span.start : span.end] = b"\x01" * (span.end - span.start)
        assert all(covered[i] or ch.isspace() for i, ch in enumerate(answer)), (structure, report.unchecked)


# --------------------------------------------------------------------------- CLI: "no claim flagged" only when checked


def test_cli_does_not_call_an_unchecked_answer_clean(capsys):
    answer = "Why is the Eiffel Tower 530 metres tall?"
    code = main(["check", "--answer", answer, "--context", CONTEXT, "--verifier", "heuristic", "--fail-on-hallucination"])
    out = capsys.readouterr().out
    assert code == 3
    assert "no claim flagged" not in out and "NOT FULLY CHECKED" in out and "1 factual span(s) not checked" in out
    assert main(["check", "--answer", answer, "--context", CONTEXT, "--verifier", "heuristic"]) == 0  # only with the flag


def test_cli_nothing_checked_without_context_exits_3(capsys):
    code = main(["check", "--answer", "The Eiffel Tower is 330 metres tall.", "--verifier", "heuristic",
                 "--fail-on-hallucination"])
    assert code == 3
    assert "none of the 1 claim(s) could be checked" in capsys.readouterr().out


def test_cli_clean_answer_still_exits_0(capsys):
    code = main(["check", "--answer", "The Eiffel Tower is 330 metres tall.", "--context", CONTEXT, "--verifier", "heuristic",
                 "--fail-on-hallucination"])
    assert code == 0 and "no claim flagged" in capsys.readouterr().out


# --------------------------------------------------------------------------- streamed: the same decision


@pytest.mark.parametrize("structure", ["plain", "heading", "table_header", "code_block", "question", "after_sources", "filler"])
@pytest.mark.parametrize(("edit", "false", "true", "edited"), EDITS[:2], ids=[e[0] for e in EDITS[:2]])
def test_a_streamed_false_sentence_gets_the_decision_invoke_gets(guardrail, structure, edit, false, true, edited):
    from guardrail.streaming import StreamGuard, run_stream

    answer = wrap(structure, false)
    chunks = [answer[i : i + 7] for i in range(0, len(answer), 7)]
    for tenant in ("default", "healthcare"):
        policy = STORE.get(tenant)
        whole = guard(answer, CONTEXT, check=guardrail.check, policy=policy)
        sg = StreamGuard(CONTEXT, check=guardrail.check, policy=policy)
        shown = "".join(s.output for s in run_stream(sg, chunks))
        assert sg.decision is not None and sg.decision.action is whole.action, (tenant, structure, sg.decision.action, whole.action)
        assert sg.decision.action is not Action.respond
        if whole.action in (Action.abstain, Action.escalate):
            assert edited not in shown, (tenant, structure, shown)


# --------------------------------------------------------------------------- the red team's mutations, wrapped


def _redteam_false_sentences(limit_per_category: int = 3):
    """(context, answer, the sentence the red team made false) for the answer-side must-flag mutations."""
    import json as _json

    from guardrail.claims import split_sentences
    from guardrail.eval.redteam import build_attacks
    from guardrail.eval.types import EvalExample

    rows = [_json.loads(x) for x in (REPO / "tests/fixtures/redteam/examples.jsonl").read_text().splitlines() if x.strip()]
    examples = [EvalExample(id=r["id"], dataset="fixture", task=r["task"], question=r["question"], context=r["context"],
                            response=r["response"], hallucinated=bool(r["label"]), spans=r["spans"], group=r["group"])
                for r in rows]
    out, per = [], {}
    for a in build_attacks(examples, buried_chars=1_200).attacks:
        m = a.mutation
        if a.kind != "must_flag" or m.replacement is None or m.start is None or per.get(a.category, 0) >= limit_per_category:
            continue
        answer = a.example.response
        sent = next(((s, e) for s, e in split_sentences(answer) if s <= m.start < e), None)
        if sent is None:
            continue
        per[a.category] = per.get(a.category, 0) + 1
        out.append(pytest.param(a.example.context, answer, sent, id=a.id))
    return out


WRAPS = {
    "heading": lambda s: f"## {s.rstrip('.')}",
    "table_header": lambda s: f"| {s.rstrip('.')} |\n|---|",
    "code_block": lambda s: f"```\n{s}\n```",
    "question": lambda s: f"Did you know that {s[0].lower() + s[1:].rstrip('.')}?",
    "after_sources": lambda s: f"Sources:\n[1] the documents\n{s}",
    "filler": lambda s: f"Feel free to remember that {s[0].lower() + s[1:]}",
}


@pytest.mark.parametrize(("context", "answer", "sent"), _redteam_false_sentences())
def test_a_red_team_mutation_is_not_hidden_by_structure(guardrail, context, answer, sent):
    policy = STORE.get("default")
    plain = guard(answer, context, check=guardrail.check, policy=policy)
    if plain.action is Action.respond:
        pytest.skip("the plain mutation is not caught: a recall gap, not a bypass")
    s, e = sent
    for name, wrap_one in WRAPS.items():
        wrapped = answer[:s] + "\n\n" + wrap_one(answer[s:e].strip()) + "\n\n" + answer[e:]
        decision = guard(wrapped, context, check=guardrail.check, policy=policy)
        assert decision.action is not Action.respond, (name, wrapped, plain.action)
