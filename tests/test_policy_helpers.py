"""Builders shared by the policy tests: hand-made reports and a small lexical ``check``.

``lexical_check`` is a real (if crude) checker, not canned output: it verifies each sentence of
the answer against the context by content-word overlap, so rewrites are genuinely re-checked.
Its own behaviour is pinned by the tests at the bottom of this file.
"""

from __future__ import annotations

import re
from typing import Any

from guardrail.policy._text import overlap, sentences, tokens
from guardrail.types import (
    HALLUCINATED_LABELS,
    CheckReport,
    CitationReport,
    CitationResult,
    Claim,
    ClaimVerdict,
    ErrorType,
    Evidence,
    EvidenceSpan,
    Label,
    SchemaResult,
    SkippedCheck,
)

_MARK = re.compile(r"\[([^\[\]]{1,40})\]")


def make_report(
    answer: str,
    claims: list[dict[str, Any]],
    *,
    evidence: list[Evidence] | None = None,
    threshold: float = 0.5,
    citations: CitationReport | None = None,
    schema_result: SchemaResult | None = None,
    skipped: list[SkippedCheck] | None = None,
) -> CheckReport:
    """Each claim: {"text", "label", "score"?, "conf"?, "error_type"?, "verdict": False to omit it}."""
    out_claims, verdicts, pos = [], [], 0
    for i, spec in enumerate(claims, 1):
        start = answer.index(spec["text"], pos)
        end = start + len(spec["text"])
        pos = end
        cid = spec.get("id", f"c{i}")
        out_claims.append(Claim(id=cid, text=spec["text"], start=start, end=end,
                                citations=spec.get("citations", [f"[{m}]" for m in _MARK.findall(spec["text"])])))
        if spec.get("verdict", True) is False:
            continue
        label = Label(spec.get("label", "supported"))
        default_score = {Label.supported: 0.05, Label.unevaluatable: 0.5, Label.partially_supported: 0.4}.get(label, 0.9)
        verdicts.append(ClaimVerdict(
            claim_id=cid, label=label, confidence=spec.get("conf", 0.0 if label is Label.unevaluatable else 0.9),
            hallucination_score=spec.get("score", default_score),
            error_type=ErrorType(spec["error_type"]) if spec.get("error_type") else None,
            reason=spec.get("reason"), evidence_ids=spec.get("evidence_ids", []),
        ))
    scored = [v.hallucination_score for v in verdicts if v.label is not Label.unevaluatable]
    return CheckReport(
        answer=answer, claims=out_claims, verdicts=verdicts,
        evidence=evidence if evidence is not None else [Evidence(id="1", text="Some evidence.")],
        citations=citations, schema_result=schema_result,
        hallucination_score=max(scored, default=0.0),
        hallucinated=any(v.label in HALLUCINATED_LABELS and v.hallucination_score >= threshold for v in verdicts),
        threshold=threshold, skipped=skipped or [],
    )


def _as_evidence(context: Any) -> list[Evidence]:
    if isinstance(context, str):
        context = [context]
    out = []
    for i, doc in enumerate(context, 1):
        if isinstance(doc, Evidence):
            out.append(doc)
        elif isinstance(doc, dict):
            out.append(Evidence.model_validate(doc))
        else:
            out.append(Evidence(id=str(i), text=str(doc)))
    return out


_NUM = re.compile(r"\d")


def lexical_check(answer: str, context: Any, question: str | None = None, *, threshold: float = 0.5,
                  extractor: Any = None) -> CheckReport:
    """Sentence claims (or ``extractor.extract(answer)``'s); supported when every content word of
    the claim is in one evidence sentence, contradicted when most are but a number differs,
    unsupported otherwise."""
    evidence = _as_evidence(context)
    claims, verdicts = [], []
    if extractor is not None:
        extracted = extractor.extract(answer)
    else:
        extracted = [Claim(id=f"c{i}", text=answer[s:e], start=s, end=e, citations=[f"[{m}]" for m in _MARK.findall(answer[s:e])])
                     for i, (s, e) in enumerate(sentences(answer), 1)]
    for i, claim in enumerate(extracted, 1):
        claim = claim.model_copy(update={"id": f"c{i}"})
        bare = _MARK.sub("", claim.text)
        claims.append(claim)
        best = (0.0, None, 0, 0)
        for ev in evidence:
            for es, ee in sentences(ev.text):
                score = overlap(bare, ev.text[es:ee])
                if score > best[0]:
                    best = (score, ev, es, ee)
        score, ev, es, ee = best
        span = EvidenceSpan(evidence_id=ev.id, start=es, end=ee, text=ev.text[es:ee]) if ev else None
        missing = tokens(bare) - tokens(ev.text[es:ee]) if ev else tokens(bare)
        if score == 1.0:
            v = ClaimVerdict(claim_id=f"c{i}", label=Label.supported, confidence=0.9, hallucination_score=0.05,
                             evidence_ids=[ev.id], evidence_span=span, verifier="lexical")
        elif score >= 0.6 and missing and all(_NUM.search(m) for m in missing):
            v = ClaimVerdict(claim_id=f"c{i}", label=Label.contradicted, confidence=0.85, hallucination_score=0.9,
                             evidence_ids=[ev.id], evidence_span=span, error_type=ErrorType.number,
                             reason=f"number differs: {sorted(missing)}", verifier="lexical")
        else:
            v = ClaimVerdict(claim_id=f"c{i}", label=Label.unsupported, confidence=0.7, hallucination_score=0.8,
                             evidence_ids=[ev.id] if ev else [], reason=f"not in the evidence: {sorted(missing)}", verifier="lexical")
        verdicts.append(v)
    citations = None
    if any(c.citations for c in claims):
        ids = {e.id for e in evidence}
        results = [CitationResult(marker=m, claim_id=c.id, target_ids=[m.strip("[]")], exists=m.strip("[]") in ids)
                   for c in claims for m in c.citations]
        ok = sum(r.exists for r in results)
        citations = CitationReport(results=results, attribution_precision=ok / len(results) if results else None)
    scored = [v.hallucination_score for v in verdicts]
    return CheckReport(
        answer=answer, question=question, claims=claims, verdicts=verdicts, evidence=evidence, citations=citations,
        hallucination_score=max(scored, default=0.0),
        hallucinated=any(v.label in HALLUCINATED_LABELS and v.hallucination_score >= threshold for v in verdicts),
        threshold=threshold, verifier="lexical",
        skipped=[] if claims else [SkippedCheck(check="claims", reason="no checkable claim was found in the answer")],
    )


CONTEXT = [
    "The Eiffel Tower is 330 metres tall. It was completed in 1889 for the World's Fair.",
    "The tower is repainted every seven years. About 60 tonnes of paint are used each time.",
]


# --------------------------------------------------------------------------- the helper's own tests


def test_lexical_check_labels_supported_contradicted_unsupported():
    answer = "The Eiffel Tower is 330 metres tall. It was completed in 1887 for the World's Fair. The tower has a cinema."
    report = lexical_check(answer, CONTEXT)
    assert [v.label for v in report.verdicts] == [Label.supported, Label.contradicted, Label.unsupported]
    assert report.verdicts[1].error_type is ErrorType.number
    assert all(answer[c.start:c.end] == c.text for c in report.claims)


def test_make_report_offsets_and_aggregate():
    r = make_report("A b. C d.", [{"text": "A b."}, {"text": "C d.", "label": "unsupported", "score": 0.7}])
    assert [(c.start, c.end) for c in r.claims] == [(0, 4), (5, 9)]
    assert r.hallucination_score == 0.7 and r.hallucinated
