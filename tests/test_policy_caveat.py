"""Caveat rendering: flagged claims marked by style, every byte outside them untouched."""

from __future__ import annotations

import random

import pytest

from guardrail.policy import Action, Caveat, Policy, decide, render_caveat
from guardrail.policy._policy import CaveatPolicy

from test_policy_helpers import make_report

ANSWER = "**Dose:** 500 mg every 8 hours [1].\n\n  It is a penicillin.\tSide effects: rash,  nausea [2]. Take with food."


def cav(answer: str, text: str, label="unsupported", note="not found", cid="c") -> Caveat:
    start = answer.index(text)
    return Caveat(claim_id=cid, start=start, end=start + len(text), text=text, label=label, note=note)


def outside_segments(answer: str, marks: list[Caveat]) -> list[str]:
    segs, pos = [], 0
    for m in sorted(marks, key=lambda m: m.start):
        segs.append(answer[pos:m.start])
        pos = max(pos, m.end)
    segs.append(answer[pos:])
    return segs


def assert_outside_identical(answer: str, rendered: str, marks: list[Caveat]):
    """Every segment outside the marks appears in order, byte for byte, with the claims between them."""
    segs = outside_segments(answer, marks)
    assert rendered.startswith(segs[0])
    pos = len(segs[0])
    for m, seg in zip(sorted(marks, key=lambda m: m.start), segs[1:]):
        claim_at = rendered.find(m.text, pos)
        assert claim_at >= 0, f"claim text {m.text!r} lost"
        seg_at = rendered.find(seg, claim_at + len(m.text)) if seg else claim_at + len(m.text)
        assert seg_at >= 0, f"segment {seg!r} altered"
        pos = seg_at + len(seg)


@pytest.mark.parametrize("style", ["inline", "footnotes", "list"])
def test_text_outside_flagged_claims_is_byte_identical(style):
    marks = [cav(ANSWER, "500 mg every 8 hours [1].", cid="c1"), cav(ANSWER, "Side effects: rash,  nausea [2].", "contradicted", "wrong", "c2")]
    text, numbered = render_caveat(ANSWER, marks, CaveatPolicy(style=style))
    assert [c.n for c in numbered] == [1, 2]
    if style == "list":
        assert text.startswith(ANSWER + "\n\n")  # the answer itself is untouched
        assert "- \u201c500 mg every 8 hours [1].\u201d: not found" in text
    else:
        body = text if style == "inline" else text.rsplit("\n\n", 1)[0]
        assert_outside_identical(ANSWER, body, marks)
    if style == "inline":
        assert text == ("**Dose:** 500 mg every 8 hours [1]. [unverified: not found]\n\n  It is a penicillin.\t"
                        "Side effects: rash,  nausea [2]. [unverified: wrong] Take with food.")
    if style == "footnotes":
        assert text.endswith("\n\n[^1]: not found\n[^2]: wrong")
        assert "hours [1].[^1]\n\n" in text and "nausea [2].[^2] Take" in text


def test_random_answers_keep_every_outside_byte():
    rng = random.Random(7)
    alphabet = "ab c.\n\t*[]1é—"
    for _ in range(300):
        answer = "".join(rng.choice(alphabet) for _ in range(rng.randint(5, 80)))
        cuts = sorted(rng.sample(range(len(answer) + 1), k=min(len(answer) + 1, 2 * rng.randint(1, 3))))
        marks = [Caveat(claim_id=f"c{i}", start=s, end=e, text=answer[s:e], label="unsupported", note="n")
                 for i, (s, e) in enumerate(zip(cuts[::2], cuts[1::2]))]
        for style in ("inline", "footnotes"):
            text, _ = render_caveat(answer, marks, CaveatPolicy(style=style, inline_template="{text}\u27e6{n}\u27e7",
                                                                   footnote_marker="{text}\u27e6{n}\u27e7"))
            body = text if style == "inline" else text.rsplit("\n\n", 1)[0] if marks else text
            # Removing exactly the inserted markers gives the original answer back.
            restored = body
            for m in _merged_numbers(marks):
                restored = restored.replace(f"\u27e6{m}\u27e7", "", 1)
            assert restored == answer


def _merged_numbers(marks):
    out, end = 0, -1
    for m in sorted(marks, key=lambda m: (m.start, -m.end)):
        if not (out and m.start < end):
            out += 1
        end = max(end, m.end)
    return range(1, out + 1)


def test_overlapping_claims_become_one_mark():
    answer = "The tower is 400 metres tall and red."
    outer = cav(answer, "The tower is 400 metres tall and red.", cid="c1", note="not found")
    inner = cav(answer, "400 metres tall", "contradicted", "contradicted", "c2")
    text, numbered = render_caveat(answer, [outer, inner], CaveatPolicy())
    assert text == "The tower is 400 metres tall and red. [unverified: not found; contradicted]"
    assert len(numbered) == 1


def test_claim_with_wrong_offsets_is_listed_not_spliced():
    answer = "Alpha beta. Gamma delta."
    bad = Caveat(claim_id="c9", start=0, end=5, text="Zeta", label="unsupported", note="not found")
    good = cav(answer, "Gamma delta.", cid="c2")
    text, numbered = render_caveat(answer, [bad, good], CaveatPolicy())
    assert text.startswith("Alpha beta. Gamma delta. [unverified: not found]\n\n")
    assert "\u201cZeta\u201d" in text and [c.n for c in numbered] == [1, 2]


def test_no_markable_claim_appends_the_general_note():
    text, numbered = render_caveat("Fine.", [], CaveatPolicy(general_note="Unchecked."))
    assert text == "Fine.\n\nUnchecked." and numbered == []


def test_decide_caveat_marks_only_flagged_claims_with_notes_per_label():
    answer = "A is true. B is false. C is made up."
    r = make_report(answer, [{"text": "A is true."}, {"text": "B is false.", "label": "contradicted"},
                             {"text": "C is made up.", "label": "unsupported"}])
    p = Policy.model_validate({"rules": {"contradiction": {"action": "caveat"}, "unsupported": {"max_ratio": 1.0}},
                               "caveat": {"style": "footnotes", "notes": {"contradicted": "the sources say otherwise"}}})
    d = decide(r, p)
    assert d.action is Action.caveat
    assert d.final_text == ("A is true. B is false.[^1] C is made up.[^2]\n\n"
                            "[^1]: the sources say otherwise\n[^2]: not found in the sources")
    assert [(c.claim_id, c.label, c.n) for c in d.caveats] == [("c2", "contradicted", 1), ("c3", "unsupported", 2)]


def test_templates_are_validated_at_load():
    with pytest.raises(ValueError, match="must contain"):
        CaveatPolicy(inline_template="[unverified]")
    with pytest.raises(ValueError, match="unknown or malformed"):
        CaveatPolicy(footnote_template="{nope}")
    with pytest.raises(ValueError, match="unknown verdict label"):
        CaveatPolicy(notes={"wrong": "x"})
