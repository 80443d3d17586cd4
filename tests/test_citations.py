"""Citation markers: parsing, stripping, resolving targets, and checking what they cite."""

from __future__ import annotations

import time
from collections.abc import Sequence

import pytest

from guardrail import Guardrail
from guardrail.citations import (
    MAX_MARKERS,
    CitationMarker,
    CitationPlan,
    judge_citations,
    parse_markers,
    plan_citations,
    resolve_target,
    strip_markers,
)
from guardrail.errors import BackendError, InputError
from guardrail.evidence import EvidenceSelector
from guardrail.verifiers import VerifierRun, run_verifier
from guardrail.verifiers.cascade import CascadeVerifier
from guardrail.types import Claim, ClaimVerdict, Evidence, Label, VerificationItem, Window


# --------------------------------------------------------------------------- parse_markers


@pytest.mark.parametrize(
    ("text", "raw", "targets"),
    [
        ("Paris is big [1].", "[1]", ["1"]),
        ("Paris is big [2,3].", "[2,3]", ["2", "3"]),
        ("Paris is big [2, 3].", "[2, 3]", ["2", "3"]),
        ("Paris is big [2; 3].", "[2; 3]", ["2", "3"]),
        ("Paris is big [1-3].", "[1-3]", ["1", "2", "3"]),
        ("Paris is big [1\u20133].", "[1\u20133]", ["1", "2", "3"]),
        ("Paris is big [doc2].", "[doc2]", ["doc2"]),
        ("Paris is big [doc-id].", "[doc-id]", ["doc-id"]),
        ("Paris is big [doc-a].", "[doc-a]", ["doc-a"]),
        ("Paris is big [kb-2024-01].", "[kb-2024-01]", ["kb-2024-01"]),
        ("Paris is big [Source 1].", "[Source 1]", ["Source 1"]),
        ("Paris is big [Source 1, Source 2].", "[Source 1, Source 2]", ["Source 1", "Source 2"]),
        ("Paris is big <Content1>.", "<Content1>", ["Content1"]),
        ("Paris is big \u30101\u3011.", "\u30101\u3011", ["1"]),
        ("Paris is big \u30104:0\u2020source\u3011.", "\u30104:0\u2020source\u3011", ["4"]),
        ("Paris is big [^2].", "[^2]", ["2"]),
        ("Paris is big (Passage 2).", "(Passage 2)", ["Passage 2"]),
        ("Paris is big (passages 1 and 3).", "(passages 1 and 3)", ["passages 1", "3"]),
        ("Paris is big (according to Passage 1, step 4).", "(according to Passage 1, step 4)", ["Passage 1"]),
    ],
)
def test_marker_styles(text: str, raw: str, targets: list[str]) -> None:
    markers = parse_markers(text)
    assert [m.raw for m in markers] == [raw]
    assert markers[0].targets == targets
    assert text[markers[0].start : markers[0].end] == raw


@pytest.mark.parametrize(
    "text",
    [
        "See [the docs](https://example.com/1) for more.",
        "See [1](https://example.com/1) for more.",
        "- [x] done\n- [ ] open\n- [X] also done",
        'The answer is {"ids": [1, 2], "best": [3]}.',
        "The matrix is [[1, 2], [3, 4]].",
        "Set x = [1, 2] before the loop.",
        "Run `print([1])` to see it.",
        "```\nitems = [1, 2]\n```",
        "[1]: https://example.com",
        "He wrote [sic] and [e.g.] and [note] and [3.5] and [citation-needed].",
        "It was built (1889) in (2020) and listed (see above) as item (1) or (Step 3).",
        "Dear [Hiring Manager], I am [Your Name].",
    ],
)
def test_not_markers(text: str) -> None:
    assert parse_markers(text) == []


def test_markers_in_order_with_offsets() -> None:
    text = "A [1][2]. B \u30103\u3011 and <Source4>. C [doc-x] (Passage 5)."
    markers = parse_markers(text)
    assert [m.raw for m in markers] == ["[1]", "[2]", "\u30103\u3011", "<Source4>", "[doc-x]", "(Passage 5)"]
    assert all(text[m.start : m.end] == m.raw for m in markers)
    assert [m.start for m in markers] == sorted(m.start for m in markers)


def test_adjacent_markers_after_comma_are_markers() -> None:
    assert [m.raw for m in parse_markers("Seen in [1], [2] and [3].")] == ["[1]", "[2]", "[3]"]


def test_huge_range_is_kept_whole() -> None:
    assert parse_markers("x [1-500]")[0].targets == ["1-500"]
    assert parse_markers("x [5-2]")[0].targets == ["5-2"]


def test_marker_model_is_strict() -> None:
    with pytest.raises(ValueError):
        CitationMarker(start=0, end=3, raw="[1]", targets=["1"], extra=1)  # type: ignore[call-arg]


# --------------------------------------------------------------------------- strip_markers


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Paris is the capital [1].", "Paris is the capital."),
        ("Paris [1] is big [2, 3].", "Paris is big."),
        ("Paris is big.[1][2]", "Paris is big."),
        ("Paris is big (Passage 1), and old.", "Paris is big, and old."),
        ("No markers here.", "No markers here."),
        ("See [the docs](http://x) [1].", "See [the docs](http://x)."),
        ("\u30101\u3011Leading marker.", "Leading marker."),
    ],
)
def test_strip_markers(text: str, expected: str) -> None:
    assert strip_markers(text) == expected


# --------------------------------------------------------------------------- resolve_target

EVIDENCE = [Evidence(id="alpha", text="Paris is the capital of France."), Evidence(id="doc-2", text="Berlin is big.")]


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("alpha", "alpha"),
        ("doc-2", "doc-2"),
        ("ALPHA", "alpha"),  # case
        ("doc2", "doc-2"),  # punctuation
        ("1", "alpha"),  # 1-based position
        ("2", "doc-2"),
        ("Content1", "alpha"),
        ("Source 2", "doc-2"),
        ("passage #1", "alpha"),
        ("3", None),
        ("0", None),
        ("doc9", None),
        ("gamma", None),
        ("", None),
    ],
)
def test_resolve_target(target: str, expected: str | None) -> None:
    assert resolve_target(target, EVIDENCE) == expected


def test_exact_numeric_id_beats_position() -> None:
    ev = [Evidence(id="0", text="a"), Evidence(id="1", text="b"), Evidence(id="2", text="c")]
    assert resolve_target("1", ev) == "1"  # the evidence whose id is "1", not the first one
    assert resolve_target("Source 2", ev) == "2"
    assert resolve_target("3", ev) == "2"  # no id "3": third position


# --------------------------------------------------------------------------- plan_citations + judge_citations


class DictVerifier:
    """Scores from a dict keyed by (claim id, cited evidence ids); records every call."""

    name = "dict"

    def __init__(self, scores: dict[tuple[str, tuple[str, ...]], float | None], count_offset: int = 0):
        self.scores = scores
        self.labels: dict[str, Label] = {}  # claim id -> label, overriding the one the score implies
        self.calls: list[list[VerificationItem]] = []
        self.count_offset = count_offset

    def verify(self, items: Sequence[VerificationItem], batch_size: int = 32) -> list[ClaimVerdict]:
        self.calls.append(list(items))
        out = []
        for item in items:
            key = (item.claim.id, tuple(w.evidence_id for w in item.windows))
            score = self.scores[key]
            if score is None:
                out.append(
                    ClaimVerdict(
                        claim_id=item.claim.id, label=Label.unevaluatable, confidence=0.0,
                        hallucination_score=0.5, reason="window too long", verifier=self.name,
                    )
                )
            else:
                label = self.labels.get(item.claim.id) or (Label.supported if score < 0.5 else Label.unsupported)
                out.append(
                    ClaimVerdict(
                        claim_id=item.claim.id, label=label, confidence=0.9,
                        hallucination_score=score, verifier=self.name,
                    )
                )
        return out[: len(out) - self.count_offset] if self.count_offset else out


def make_item(claim: Claim, evidence: list[Evidence]) -> VerificationItem:
    return VerificationItem(
        claim=claim,
        windows=[Window(evidence_id=e.id, start=0, end=len(e.text), text=e.text) for e in evidence],
    )


def verify_citations(claims, evidence, *, verifier, make_item=make_item, require_citations=False,
                     support_threshold=0.5, max_markers=MAX_MARKERS):
    """What the facade does with the two steps, minus the claims: plan, one verifier call over the checks, judge."""
    plan = plan_citations(claims, evidence, require_citations=require_citations, max_markers=max_markers)
    if verifier is None:
        return judge_citations(plan, None, support_threshold=support_threshold)
    by_id = {e.id: e for e in evidence}
    items = [make_item(ch.claim, [by_id[i] for i in ch.evidence_ids]) for ch in plan.checks]
    run = run_verifier(verifier, items) if items else VerifierRun(verdicts=[])
    return judge_citations(plan, run.verdicts, support_threshold=support_threshold,
                           not_run={u.index: u.reason for u in run.unchecked})


EV = [
    Evidence(id="e1", text="The Eiffel Tower is 330 metres tall. Gustave Eiffel called it \u201cLa tour de 300 m\u00e8tres\u201d."),
    Evidence(id="e2", text="Berlin is the capital of Germany."),
    Evidence(id="e3", text="The tower opened in  March 1889."),
]


def claim(cid: str, text: str, citations: list[str]) -> Claim:
    return Claim(id=cid, text=text, start=0, end=len(text), citations=citations)


def test_supported_unsupported_and_missing() -> None:
    claims = [
        claim("c1", "The Eiffel Tower is 330 metres tall", ["[1]"]),
        claim("c2", "The tower opened in 1890", ["[3]"]),
        claim("c3", "It is in Paris", ["[7]"]),
    ]
    v = DictVerifier({("c1", ("e1",)): 0.1, ("c2", ("e3",)): 0.9})
    report = verify_citations(claims, EV, verifier=v, make_item=make_item)
    r1, r2, r3 = report.results
    assert (r1.exists, r1.supports, r1.target_ids, r1.claim_id) == (True, True, ["e1"], "c1")
    assert r1.support_score == pytest.approx(0.9)
    assert (r2.exists, r2.supports) == (True, False)
    assert "does not support" in (r2.reason or "")
    assert (r3.exists, r3.supports, r3.target_ids) == (False, False, [])
    assert "'7'" in (r3.reason or "") and "not among the evidence" in (r3.reason or "")
    assert report.attribution_precision == pytest.approx(1 / 3)
    assert len(v.calls) == 1 and len(v.calls[0]) == 2  # one batched call; the missing source is not sent


def test_make_item_sees_only_cited_evidence_per_marker() -> None:
    claims = [claim("c1", "Berlin is the capital of Germany", ["[2]", "[1, 3]"])]
    v = DictVerifier({("c1", ("e2",)): 0.05, ("c1", ("e1", "e3")): 0.95})
    report = verify_citations(claims, EV, verifier=v, make_item=make_item)
    assert [r.supports for r in report.results] == [True, False]
    assert [r.target_ids for r in report.results] == [["e2"], ["e1", "e3"]]
    assert report.attribution_precision == 0.5
    assert [[w.evidence_id for w in it.windows] for it in v.calls[0]] == [["e2"], ["e1", "e3"]]


def test_partially_missing_multi_target_marker_fails() -> None:
    report = verify_citations(
        [claim("c1", "Berlin is big", ["[2, 9]"])], EV, verifier=DictVerifier({}), make_item=make_item
    )
    (r,) = report.results
    assert (r.exists, r.supports, r.target_ids) == (False, False, ["e2"])
    assert report.attribution_precision == 0.0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Eiffel called it \u201cla tour de 300 m\u00e8tres\u201d", True),  # case
        ('Eiffel called it "La  tour de 300\nm\u00e8tres."', True),  # whitespace, straight quotes, period moved inside
        ('Eiffel called it "La tour ... m\u00e8tres"', True),  # elision
        ("Eiffel called it \u201cLa tour de 400 m\u00e8tres\u201d", False),
        ('It is "330 metres tall" and "opened in March 1889"', False),  # second quote is in e3, not e1
        ("Eiffel built the tower", None),  # nothing quoted
    ],
)
def test_quote_check(text: str, expected: bool | None) -> None:
    report = verify_citations([claim("c1", text, ["[1]"])], EV, verifier=None, make_item=make_item)
    assert report.results[0].quote_ok is expected
    if expected is False:
        assert "not found in the cited source" in (report.results[0].reason or "")


def test_quote_against_missing_source_is_not_ok() -> None:
    report = verify_citations([claim("c1", 'He said "hello there"', ["[5]"])], EV, verifier=None, make_item=make_item)
    assert report.results[0].quote_ok is False


def test_without_verifier_support_is_unknown() -> None:
    claims = [claim("c1", "Berlin is the capital", ["[2]"]), claim("c2", "x is y", ["[doc9]"])]
    report = verify_citations(claims, EV, verifier=None, make_item=make_item)
    assert [r.supports for r in report.results] == [None, False]
    assert report.attribution_precision is None


def test_no_citations_and_require_citations() -> None:
    claims = [claim("c1", "Berlin is the capital", []), claim("c2", "Paris is big", ["[1]"])]
    v = DictVerifier({("c2", ("e1",)): 0.2})
    report = verify_citations(claims, EV, verifier=v, make_item=make_item, require_citations=True)
    assert report.uncited_claim_ids == ["c1"]
    assert verify_citations(claims, EV, verifier=v, make_item=make_item).uncited_claim_ids == []
    empty = verify_citations([claim("c1", "a b c", [])], EV, verifier=v, make_item=make_item)
    assert empty.results == [] and empty.attribution_precision is None


def test_unevaluatable_verdict_is_not_a_pass() -> None:
    claims = [claim("c1", "Berlin is the capital", ["[2]"]), claim("c2", "Paris is big", ["[1]"])]
    v = DictVerifier({("c1", ("e2",)): None, ("c2", ("e1",)): 0.8})
    report = verify_citations(claims, EV, verifier=v, make_item=make_item)
    assert report.results[0].supports is None
    assert "window too long" in (report.results[0].reason or "")
    assert report.results[1].supports is False
    assert report.attribution_precision == 0.0  # the unevaluatable citation is left out, not counted as support


def test_threshold_is_respected() -> None:
    claims = [claim("c1", "Berlin is the capital", ["[2]"])]
    v = DictVerifier({("c1", ("e2",)): 0.4})
    assert verify_citations(claims, EV, verifier=v, make_item=make_item).results[0].supports is True
    v.labels = {"c1": Label.unsupported}  # the same score, now called a hallucination
    strict = verify_citations(claims, EV, verifier=v, make_item=make_item, support_threshold=0.3)
    assert strict.results[0].supports is False and "threshold 0.30" in (strict.results[0].reason or "")
    v.labels = {}  # a verdict of "supported" is support whatever its score
    assert verify_citations(claims, EV, verifier=v, make_item=make_item, support_threshold=0.3).results[0].supports is True


def test_support_threshold_is_the_claim_threshold_the_verifiers_calibrated_one_by_default() -> None:
    """Issue 15 item 7: a cited passage that contradicts its claim at 0.22 was support under a fixed 0.5."""
    v = DictVerifier({})
    v.scores = _AnyClaim(0.22)
    v.labels = _AnyClaim(Label.contradicted)
    v.recommended_threshold = 0.12
    g = Guardrail(v, selector=EvidenceSelector(method="bm25"))
    assert g.threshold == 0.12
    (r,) = g.check("Berlin is the capital of France [2].", EV).citations.results
    assert r.supports is False and r.support_score == pytest.approx(0.78)
    assert "contradicted, score 0.22 >= threshold 0.12" in (r.reason or "")
    lenient = Guardrail(v, selector=EvidenceSelector(method="bm25"), threshold=0.5)
    assert lenient.check("Berlin is the capital of France [2].", EV).citations.results[0].supports is True


def test_repeated_markers_are_checked_once_per_claim_and_passage() -> None:
    """Issue 15 stall: 2,000 repeated [1] markers cost one verifier item each (24 s); now one in all."""
    claims = [claim("c1", "Berlin is the capital", ["[2]"] * 900 + ["[Source 2]", "[1]"]),
              claim("c2", "Berlin is big", ["[2]", "[2]"])]
    v = DictVerifier({("c1", ("e2",)): 0.1, ("c1", ("e1",)): 0.9, ("c2", ("e2",)): 0.8})
    made: list[tuple[str, tuple[str, ...]]] = []

    def counting(c: Claim, docs: list[Evidence]) -> VerificationItem:
        made.append((c.id, tuple(d.id for d in docs)))
        return make_item(c, docs)

    report = verify_citations(claims, EV, verifier=v, make_item=counting)
    assert made == [("c1", ("e2",)), ("c1", ("e1",)), ("c2", ("e2",))]
    assert len(v.calls) == 1 and len(v.calls[0]) == 3
    assert len(report.results) == 904
    assert [r.supports for r in report.results[899:]] == [True, True, False, False, False]
    assert report.results[0] is not report.results[1]  # repeated results are copies, not one shared object
    assert report.attribution_precision == pytest.approx(901 / 904)


def test_more_markers_than_the_limit_is_an_input_error() -> None:
    claims = [claim("c1", "Berlin is the capital", ["[2]"] * (MAX_MARKERS + 1))]
    v = DictVerifier({("c1", ("e2",)): 0.1})
    with pytest.raises(InputError, match=f"{MAX_MARKERS + 1:,} citation markers, over the limit of {MAX_MARKERS:,}"):
        verify_citations(claims, EV, verifier=v, make_item=make_item)
    assert v.calls == []
    assert len(verify_citations(claims, EV, verifier=v, make_item=make_item, max_markers=MAX_MARKERS + 1).results) == MAX_MARKERS + 1


def test_guardrail_reports_too_many_markers_as_a_skipped_citation_check() -> None:
    g = Guardrail("heuristic", selector=EvidenceSelector(method="bm25"))
    started = time.perf_counter()
    report = g.check("Berlin is the capital of Germany " + "[1]" * 5000 + ".", ["Berlin is the capital of Germany."])
    assert time.perf_counter() - started < 20
    assert report.citations is None and not report.complete
    assert [s.check for s in report.skipped] == ["citations"] and "over the limit" in report.skipped[0].reason


def test_guardrail_judges_citations_at_its_own_threshold() -> None:
    v = DictVerifier({})
    v.scores = _AnyClaim(0.3)
    g = Guardrail(v, selector=EvidenceSelector(method="bm25"), threshold=0.25)
    v.labels = _AnyClaim(Label.unsupported)
    report = g.check("Berlin is the capital of Germany [1].", ["Berlin is the capital of Germany."])
    assert report.hallucinated and report.citations.results[0].supports is False
    report = Guardrail(v, selector=EvidenceSelector(method="bm25"), threshold=0.35).check(
        "Berlin is the capital of Germany [1].", ["Berlin is the capital of Germany."])
    assert not report.hallucinated and report.citations.results[0].supports is True


class _AnyClaim(dict):
    """A table that answers the same value for every key."""

    def __init__(self, value: object):
        super().__init__()
        self.value = value

    def __getitem__(self, key: object) -> object:
        return self.value

    def get(self, key: object, default: object = None) -> object:
        return self.value


def test_a_verifier_raising_anything_skips_the_citation_check_and_never_passes_it() -> None:
    class Broken:
        name = "broken"

        def __init__(self) -> None:
            self.calls = 0

        def verify(self, items, batch_size=32):
            self.calls += 1
            return 1 / 0

    v = Broken()
    report = Guardrail(v, selector=EvidenceSelector(method="bm25")).check("Berlin is the capital of Germany [2].", EV)
    assert v.calls == 1  # claims and citations share the call; no second try for the citations
    assert report.citations is None and not report.complete
    by_check = {s.check: s.reason for s in report.skipped}
    assert set(by_check) == {"verify", "citations"}
    assert by_check["citations"].startswith("citation support check failed: ")
    assert "verifier 'broken' raised ZeroDivisionError" in by_check["citations"]


def test_support_the_cascade_judge_did_not_check_is_left_unknown() -> None:
    class Fast(DictVerifier):
        recommended_threshold = 0.5

    class Down:
        name = "judge"

        def verify(self, items, batch_size=32):
            raise BackendError("judge unreachable")

    fast = Fast({("c1", ("e2",)): 0.45, ("c2", ("e1",)): 0.05})
    report = verify_citations([claim("c1", "Berlin is big", ["[2]"]), claim("c2", "Paris", ["[1]"])], EV,
                              verifier=CascadeVerifier(fast, Down()), make_item=make_item)
    r1, r2 = report.results
    assert r1.supports is None and "judge unreachable" in (r1.reason or "")
    assert r2.supports is True and report.attribution_precision == 1.0


def test_verifier_returning_wrong_count_skips_the_citation_check() -> None:
    v = DictVerifier(_AnyClaim(0.1), count_offset=1)
    report = Guardrail(v, selector=EvidenceSelector(method="bm25")).check("Berlin is the capital of Germany [2].", EV)
    assert report.citations is None
    assert any(s.check == "citations" and "returned 1 verdicts for 2 items" in s.reason for s in report.skipped)


def test_judge_citations_refuses_verdicts_that_do_not_match_the_checks() -> None:
    plan = plan_citations([claim("c1", "Berlin", ["[2]"])], EV)
    with pytest.raises(InputError, match="0 verdicts for 1 citation checks"):
        judge_citations(plan, [], support_threshold=0.5)


def test_raw_marker_styles_resolve() -> None:
    claims = [
        claim("c1", "a", ["[Source 2]"]),
        claim("c2", "b", ["<Content3>"]),
        claim("c3", "c", ["\u30101\u3011"]),
        claim("c4", "d", ["(Passage 2)"]),
        claim("c5", "e", ["[e3]"]),
    ]
    report = verify_citations(claims, EV, verifier=None, make_item=make_item)
    assert [r.target_ids for r in report.results] == [["e2"], ["e3"], ["e1"], ["e2"], ["e3"]]
    assert all(r.exists for r in report.results)


# --------------------------------------------------------------------------- citations in the facade's one verifier call


class Recording(DictVerifier):
    """A DictVerifier whose missing keys score ``default`` (claim items see every passage)."""

    def __init__(self, scores: dict, default: float = 0.1):
        super().__init__(scores)
        self.default = default

    def verify(self, items, batch_size=32):
        for it in items:
            self.scores.setdefault((it.claim.id, tuple(w.evidence_id for w in it.windows)), self.default)
        return super().verify(items, batch_size)


def _ids(item: VerificationItem) -> tuple[str, tuple[str, ...]]:
    return item.claim.id, tuple(w.evidence_id for w in item.windows)


def test_citation_checks_ride_in_the_claims_verifier_call() -> None:
    v = Recording({("c2", ("e1",)): 0.9})
    g = Guardrail(v, selector=EvidenceSelector(method="bm25"))
    report = g.check("Berlin is the capital of Germany [2]. The tower opened in 1889 [1][3].", EV)
    (call,) = v.calls  # one call: no second, unbatched pass for the citations
    assert [_ids(it) for it in call] == [
        ("c1", ("e1", "e2", "e3")), ("c2", ("e1", "e2", "e3")),  # the claims, against the whole context
        ("c1", ("e2",)), ("c2", ("e1",)), ("c2", ("e3",)),  # then each citation, against its cited passage only
    ]
    assert [(r.marker, r.supports) for r in report.citations.results] == [("[2]", True), ("[1]", False), ("[3]", True)]
    assert report.citations.attribution_precision == pytest.approx(2 / 3)
    assert report.latencies_ms["citations"] >= 0 and report.complete


def test_check_batch_verifies_every_answers_claims_and_citations_in_one_call() -> None:
    v = Recording({("c1", ("e1",)): 0.9})
    g = Guardrail(v, selector=EvidenceSelector(method="bm25"))
    answers = ["Berlin is the capital of Germany [2].", "", "The tower is 330 metres tall [1].", "Paris is big."]
    reports = list(g.check_batch([{"response": a, "context": EV} for a in answers]))
    assert len(v.calls) == 1 and len(v.calls[0]) == 5  # 3 claims + 2 citation checks
    assert isinstance(reports[1], InputError)
    assert reports[0].citations.results[0].supports is True
    assert reports[2].citations.results[0].supports is False  # its own verdict, not the first answer's
    assert reports[3].citations is None  # no marker, citations not required


def test_support_the_cascade_judge_did_not_check_is_left_unknown_through_the_facade() -> None:
    class Down:
        name = "judge"

        def verify(self, items, batch_size=32):
            raise BackendError("judge unreachable")

    fast = Recording({("c1", ("e2",)): 0.45}, default=0.05)  # only the citation check falls in the judge's band
    fast.recommended_threshold = 0.5
    report = Guardrail(CascadeVerifier(fast, Down()), selector=EvidenceSelector(method="bm25")).check(
        "Berlin is the capital of Germany [2].", EV)
    (r,) = report.citations.results
    assert r.supports is None and "judge unreachable" in (r.reason or "")
    assert report.citations.attribution_precision is None
    assert report.skipped == []  # the claim's own verdict was fully checked: nothing is listed for it


def test_citations_are_not_checked_against_a_context_over_the_limit() -> None:
    v = Recording({})
    g = Guardrail(v, selector=EvidenceSelector(method="bm25"), max_context_chars=40)
    report = g.check("Berlin is the capital of Germany [2]. It is in Europe [7].", EV)
    assert v.calls == []
    ok, missing = report.citations.results
    assert ok.exists and ok.supports is None and "support not checked: context is over the limit" in (ok.reason or "")
    assert not missing.exists and missing.supports is False
    assert [s.check for s in report.skipped] == ["evidence"]


def test_plan_lists_checks_without_calling_anything_and_judging_leaves_it_unchanged() -> None:
    claims = [claim("c1", "Berlin is the capital", ["[2]", "[Source 2]", "[9]"])]
    plan = plan_citations(claims, EV)
    assert [(ch.claim.id, ch.evidence_ids) for ch in plan.checks] == [("c1", ["e2"])]
    assert plan.judged_by == [(0, 0), (1, 0)]
    assert [r.supports for r in plan.results] == [None, None, False]
    verdict = ClaimVerdict(claim_id="c1", label=Label.supported, confidence=0.9, hallucination_score=0.1)
    report = judge_citations(plan, [verdict], support_threshold=0.5)
    assert [r.supports for r in report.results] == [True, True, False]
    assert [r.supports for r in plan.results] == [None, None, False]  # the plan can be judged again
    assert CitationPlan.model_validate_json(plan.model_dump_json()) == plan


def test_citations_module_does_not_reach_up_into_the_verifiers() -> None:
    import ast
    import guardrail.citations as module

    tree = ast.parse(open(module.__file__, encoding="utf-8").read())
    imported = {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {a.name for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names}
    assert not [m for m in imported if "verifiers" in m or m in (".guardrail", "guardrail.guardrail")]
