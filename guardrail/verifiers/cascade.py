"""A fast verifier for every claim, an expensive judge only where the fast one is unsure.

Why: an LLM judge costs seconds per claim, a small classifier milliseconds. Most claims are
clearly supported or clearly not; only scores inside the uncertainty band (and claims the fast
verifier could not evaluate) are worth the judge's time.

Routing is recorded in the verdicts themselves, not on the instance (one instance serves
concurrent calls): ``verdict.verifier`` names whoever decided the label and ``verdict.reason``
starts with a ``[cascade: ...]`` note; ``CascadeVerifier.stats(verdicts)`` counts them.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from ..errors import BackendError
from ..types import ClaimVerdict, Label, VerificationItem
from .base import Verifier, averify

__all__ = ["CascadeVerifier", "CascadeStats"]

_JUDGED = "[cascade: judged by "
_JUDGE_FAILED = "[cascade: judge failed, fast verdict kept"
_FAST_ONLY = "[cascade: fast verdict outside band"


class CascadeStats(BaseModel):
    """How one cascade run split its claims, read back from the verdicts."""

    model_config = ConfigDict(extra="forbid")

    total: int
    fast_only: int = Field(description="Decided by the fast verifier, judge not asked.")
    judged: int = Field(description="Sent to the judge and decided by it.")
    judge_failed: int = Field(description="Sent to the judge, which could not evaluate; fast verdict kept.")

    @property
    def sent_to_judge(self) -> int:
        return self.judged + self.judge_failed


class CascadeVerifier:
    """``Verifier``: ``fast`` on all items, ``judge`` on those with a fast score inside ``band``.

    The band is inclusive. A fast ``unevaluatable`` verdict always goes to the judge. When the
    judge cannot evaluate, the fast verdict stands, with the judge's reason appended.
    """

    def __init__(self, fast: Verifier, judge: Verifier, band: tuple[float, float] = (0.3, 0.7)):
        lo, hi = band
        if not 0.0 <= lo <= hi <= 1.0:
            raise ValueError(f"band must satisfy 0 <= low <= high <= 1, got {band}")
        self.fast, self.judge, self.band = fast, judge, (float(lo), float(hi))
        self.name = f"cascade({fast.name}->{judge.name})"

    def __repr__(self) -> str:
        return f"CascadeVerifier({self.fast!r}, {self.judge!r}, band={self.band})"

    def _route(self, verdicts: Sequence[ClaimVerdict]) -> list[int]:
        lo, hi = self.band
        return [i for i, v in enumerate(verdicts)
                if v.label is Label.unevaluatable or lo <= v.hallucination_score <= hi]

    def verify(self, items: Sequence[VerificationItem], batch_size: int = 32) -> list[ClaimVerdict]:
        items = list(items)
        fast = self.fast.verify(items, batch_size)
        if len(fast) != len(items):
            raise BackendError(f"{self.name}: fast verifier returned {len(fast)} verdicts for {len(items)} items")
        routed = self._route(fast)
        judged = self.judge.verify([items[i] for i in routed], batch_size) if routed else []
        return self._merge(fast, routed, judged)

    async def averify(self, items: Sequence[VerificationItem], batch_size: int = 32) -> list[ClaimVerdict]:
        items = list(items)
        fast = await averify(self.fast, items, batch_size)
        if len(fast) != len(items):
            raise BackendError(f"{self.name}: fast verifier returned {len(fast)} verdicts for {len(items)} items")
        routed = self._route(fast)
        judged = await averify(self.judge, [items[i] for i in routed], batch_size) if routed else []
        return self._merge(fast, routed, judged)

    def _merge(self, fast: list[ClaimVerdict], routed: list[int], judged: list[ClaimVerdict]) -> list[ClaimVerdict]:
        if len(judged) != len(routed):
            raise BackendError(f"{self.name}: judge returned {len(judged)} verdicts for {len(routed)} items")
        out = [v.model_copy(update={"reason": _note(f"{_FAST_ONLY} {self.band}, score {v.hallucination_score:.2f}]",
                                                    v.reason)})
               for v in fast]
        for i, jv in zip(routed, judged):
            fv = fast[i]
            if jv.label is Label.unevaluatable:
                note = f"{_JUDGE_FAILED} (score {fv.hallucination_score:.2f}): {jv.reason or 'no reason given'}]"
                out[i] = fv.model_copy(update={"reason": _note(note, fv.reason)})
            else:
                note = f"{_JUDGED}{jv.verifier or self.judge.name}; fast {fv.label.value} {fv.hallucination_score:.2f}]"
                out[i] = jv.model_copy(update={"reason": _note(note, jv.reason)})
        return out

    @staticmethod
    def stats(verdicts: Sequence[ClaimVerdict]) -> CascadeStats:
        """Count how the cascade routed the claims behind ``verdicts`` (from their reason notes)."""
        reasons = [v.reason or "" for v in verdicts]
        return CascadeStats(
            total=len(verdicts),
            fast_only=sum(r.startswith(_FAST_ONLY) for r in reasons),
            judged=sum(r.startswith(_JUDGED) for r in reasons),
            judge_failed=sum(r.startswith(_JUDGE_FAILED) for r in reasons),
        )


def _note(note: str, reason: str | None) -> str:
    return f"{note} {reason}" if reason else note
