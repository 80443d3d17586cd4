"""The one batched protocol every verifier implements.

A verifier gets, per claim, the evidence windows the pipeline picked for it and returns one
``ClaimVerdict`` per item, in order. A verifier that cannot judge an item returns an
``unevaluatable`` verdict with its reason instead of raising, so one bad item never hides
the others; it raises ``BackendError`` only when it cannot run at all.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from ..types import ClaimVerdict, EvidenceSpan, Label, VerificationItem

__all__ = ["Verifier", "averify", "scored_verdict", "unevaluatable"]


@runtime_checkable
class Verifier(Protocol):
    #: Short stable name, recorded in every verdict and report.
    name: str

    def verify(self, items: Sequence[VerificationItem], batch_size: int = 32) -> list[ClaimVerdict]: ...


async def averify(verifier: Verifier, items: Sequence[VerificationItem], batch_size: int = 32) -> list[ClaimVerdict]:
    """Async path: a verifier's own ``averify`` when it has one, else its sync ``verify`` in a thread.

    Model inference is CPU-bound; running it in the default executor keeps the event loop free.
    """
    native = getattr(verifier, "averify", None)
    if native is not None:
        return await native(items, batch_size=batch_size)
    return await asyncio.to_thread(verifier.verify, items, batch_size)


def unevaluatable(item: VerificationItem, reason: str, verifier: str) -> ClaimVerdict:
    """Verdict for a claim that could not be checked; its hallucination score is unknown, so 0.5."""
    return ClaimVerdict(
        claim_id=item.claim.id,
        label=Label.unevaluatable,
        confidence=0.0,
        hallucination_score=0.5,
        evidence_ids=sorted({w.evidence_id for w in item.windows}),
        reason=reason,
        verifier=verifier,
    )


def scored_verdict(
    item: VerificationItem,
    score: float,
    threshold: float,
    reason: str,
    verifier: str,
    evidence_span: EvidenceSpan | None = None,
) -> ClaimVerdict:
    """Verdict of a detector that only scores (the baselines): unsupported at or above ``threshold``,
    else supported; confidence is the score's side of the decision. Such detectors cannot tell a
    contradiction from a missing fact, so they never say "contradicted"."""
    label = Label.unsupported if score >= threshold else Label.supported
    return ClaimVerdict(
        claim_id=item.claim.id,
        label=label,
        confidence=round(score if label is Label.unsupported else 1.0 - score, 6),
        hallucination_score=round(score, 6),
        evidence_ids=sorted({w.evidence_id for w in item.windows}),
        evidence_span=evidence_span,
        reason=reason,
        verifier=verifier,
    )
