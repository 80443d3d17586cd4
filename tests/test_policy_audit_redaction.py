"""redact=True used to keep evidence ids, source paths, metadata and the compared values in clear."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from guardrail.policy import AuditLog, Policy, decide
from guardrail.policy._audit import pseudonym, redact
from guardrail.types import (
    CheckReport,
    Claim,
    ClaimVerdict,
    CitationReport,
    CitationResult,
    Difference,
    Evidence,
    EvidenceSpan,
    Label,
    SchemaResult,
)

DOC = "/home/alice/secret/q3-board-minutes.pdf"
SECRETS = [DOC, "Q3 board minutes", "Alice Example", "500 metres", "330 metres", "Jane"]


def report() -> CheckReport:
    answer = "The mast is 500 metres tall [q3]. Jane approved it."
    claim = Claim(id="c1", text="The mast is 500 metres tall [q3].", start=0, end=33, citations=["[q3]"])
    span = EvidenceSpan(evidence_id=DOC, start=0, end=24, text="The mast is 330 metres.")
    verdict = ClaimVerdict(
        claim_id="c1", label=Label.contradicted, confidence=0.9, hallucination_score=0.9, evidence_ids=[DOC, "q3"],
        evidence_span=span, reason="numbers differ",
        differences=[Difference(slot="number", claim_value="500 metres", evidence_value="330 metres", evidence_span=span, confidence=0.9)],
    )
    return CheckReport(
        answer=answer, claims=[claim], verdicts=[verdict], hallucination_score=0.9, hallucinated=True, threshold=0.5,
        evidence=[
            Evidence(id=DOC, text="The mast is 330 metres.", source=DOC, metadata={"title": "Q3 board minutes", "author": "Alice Example", "page": 4}),
            Evidence(id="q3", text="Other passage.", source="https://intranet.example/q3"),
        ],
        citations=CitationReport(results=[CitationResult(marker="[q3]", claim_id="c1", target_ids=["q3"], exists=True)]),
        schema_result=SchemaResult(valid=True, parsed={"approver": "Jane"}),
    )


def raw_bytes(path: Path) -> bytes:
    wal = path.with_name(path.name + "-wal")
    return path.read_bytes() + (wal.read_bytes() if wal.exists() else b"")


def test_redacted_row_holds_no_document_identity_nor_compared_value(tmp_path):
    path = tmp_path / "r.db"
    with AuditLog(path, redact=True) as log:
        log.record(decide(report(), Policy(name="p")), "acme")
        d = log.last(1)[0].decision()  # still a valid Decision
    raw = raw_bytes(path)
    for secret in SECRETS:
        assert secret.encode() not in raw, secret
    ev = d.report.evidence
    assert all(e.id.startswith("h:") and (e.source is None or e.source.startswith("h:")) for e in ev)
    assert set(ev[0].metadata) == {"title", "author", "page"}  # field names kept, values hashed
    assert d.report.claims[0].id == "c1" and d.report.verdicts[0].label is Label.contradicted  # ours: kept


def test_hashes_still_join_within_one_log(tmp_path):
    with AuditLog(tmp_path / "j.db", redact=True) as log:
        log.record(decide(report(), Policy(name="p")), "acme")
        log.record(decide(report(), Policy(name="p")), "acme")
        first, second = (r.decision().report for r in log.last(2))
    doc_hash = first.evidence[0].id
    assert first.verdicts[0].evidence_ids[0] == doc_hash == first.verdicts[0].evidence_span.evidence_id
    assert first.citations.results[0].target_ids == [first.evidence[1].id]  # the cited id is the passage's hash
    assert second.evidence[0].id == doc_hash  # same document, same hash across rows


def test_hashes_are_keyed_per_log(tmp_path):
    ids = []
    for name in ("a.db", "b.db"):
        with AuditLog(tmp_path / name, redact=True) as log:
            log.record(decide(report(), Policy(name="p")), "acme")
            ids.append(log.last(1)[0].decision().report.evidence[0].id)
        with AuditLog(tmp_path / name, redact=True) as log:  # reopened: the same salt
            log.record(decide(report(), Policy(name="p")), "acme")
            assert log.last(1)[0].decision().report.evidence[0].id == ids[-1]
    assert ids[0] != ids[1]
    assert pseudonym("1", b"k") != pseudonym("1", b"other") and pseudonym("1", b"k") == pseudonym("1", b"k")


def test_unredacted_log_keeps_everything(tmp_path):
    with AuditLog(tmp_path / "c.db") as log:
        log.record(decide(report(), Policy(name="p")), "acme")
        assert log.last(1)[0].decision().report.evidence[0].id == DOC


@pytest.mark.parametrize("key", ["source", "evidence_id", "marker"])
def test_redact_hashes_identity_keys_anywhere(key):
    out = redact({"x": [{key: DOC}]}, key=b"s")
    assert json.dumps(out).count("alice") == 0 and out["x"][0][key].startswith("h:")
