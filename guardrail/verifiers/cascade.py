"""A fast verifier for every claim, an expensive judge only where the fast one is unsure.

Why: an LLM judge costs seconds per claim, a small classifier milliseconds. Most claims are
clearly supported or clearly not; only scores inside the uncertainty band (and claims the fast
verifier could not evaluate) are worth the judge's time.

Routing is recorded in the verdicts themselves, not on the instance (one instance serves
concurrent calls): ``verdict.verifier`` names whoever decided the label and ``verdict.reason``
starts with a ``[cascade: ...]`` note; ``CascadeVerifier.stats(verdicts)`` counts them.

The cascade never fails open. Its report threshold is the fast verifier's calibrated one (a fast
verdict outside the band is that verifier's decision, so it is flagged at that verifier's threshold,
not at a generic 0.5). A judge that raises, times out, or replies with something that is not a
verdict leaves the fast verdict in place but the claim is listed as unchecked
(``verify_run``), so the report says the escalation did not run and the policy's failure mode for
the judge decides.

Which claims go to the second stage is a :class:`Routing`: the band, plus, optionally, claims of given
error types (every claim stating a number or a date, say, whatever the fast score). The judge and the
chain-of-verification stage (:mod:`guardrail.verifiers.cove`) share it, so the rule lives here once.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..errors import BackendError, ConfigError
from ..facts import SLOT_ERROR
from ..text.dates import parse_dates, parse_times
from ..text.names import names
from ..text.quantities import parse_quantities
from ..types import ClaimVerdict, ErrorType, Label, VerificationItem
from .base import Unchecked, Verifier, VerifierRun, arun_verifier, run_verifier

__all__ = ["CascadeVerifier", "CascadeStats", "Routing", "states_error_type"]

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


def states_error_type(text: str, error_type: ErrorType) -> bool:
    """Whether ``text`` states a value a mistake of ``error_type`` would be about.

    Why: "route every claim with a dosage to the double check" must not depend on the fast verifier
    having found a problem (a confident fast pass on a wrong dosage is exactly what the double check
    is for), so these kinds are read off the claim's own text with the text layer's parsers. Kinds the
    text cannot show (negation, role, ...) are routed only when the fast verdict names them.
    """
    if error_type is ErrorType.number:
        return bool(parse_quantities(text))
    if error_type is ErrorType.unit:
        return any(q.unit or q.dimension.startswith(("currency", "percent")) for q in parse_quantities(text))
    if error_type is ErrorType.temporal:
        return bool(parse_dates(text) or parse_times(text))
    if error_type is ErrorType.entity:
        return bool(names(text))
    return False


class Routing(BaseModel):
    """Which claims a fast verdict sends on to the second stage.

    A claim is routed when its fast verdict is ``unevaluatable``, its fast score is inside ``band``
    (inclusive), or it concerns one of ``error_types``: the fast verdict names that type (or one of
    its fact differences is of that type), or the claim states such a value (``states_error_type``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    band: tuple[float, float] = Field(default=(0.3, 0.7), description="Fast scores (inclusive) worth a second look.")
    error_types: frozenset[ErrorType] = Field(default_factory=frozenset,
                                              description="Kinds of fact routed whatever the fast score.")

    @model_validator(mode="after")
    def _ordered(self) -> "Routing":
        lo, hi = self.band
        if not 0.0 <= lo <= hi <= 1.0:
            raise ValueError(f"band must satisfy 0 <= low <= high <= 1, got {self.band}")
        return self

    def select(self, items: Sequence[VerificationItem], verdicts: Sequence[ClaimVerdict]) -> list[int]:
        """Indexes of the items to route, in order."""
        lo, hi = self.band
        return [i for i, (it, v) in enumerate(zip(items, verdicts))
                if v.label is Label.unevaluatable or lo <= v.hallucination_score <= hi or self._of_type(it, v)]

    def _of_type(self, item: VerificationItem, verdict: ClaimVerdict) -> bool:
        if not self.error_types:
            return False
        named = {verdict.error_type} | {SLOT_ERROR.get(d.slot) for d in verdict.differences}
        return bool(named & self.error_types) or any(states_error_type(item.claim.check_text, t)
                                                     for t in self.error_types)


class CascadeVerifier:
    """``Verifier``: ``fast`` on all items, ``judge`` on those with a fast score inside ``band``.

    The band is inclusive. A fast ``unevaluatable`` verdict always goes to the judge. When the
    judge cannot evaluate a claim, the fast verdict stands with the judge's reason appended, and
    ``verify_run`` lists the claim as unchecked by the judge.

    Args:
        threshold: report threshold (``recommended_threshold``); default the fast verifier's own.
        judge_timeout_s: deadline for the judge's whole call; past it every routed claim is unchecked
            (an ``OpenAIChat`` judge is also bounded per request by its ``timeout_s`` and retries).
        routing: which claims go to the judge (band and error types); when given, ``band`` is ignored.
        name: the verifier's name in reports; default ``cascade(FAST->JUDGE)``.
    """

    def __init__(self, fast: Verifier, judge: Verifier, band: tuple[float, float] = (0.3, 0.7), *,
                 threshold: float | None = None, judge_timeout_s: float | None = None,
                 routing: Routing | None = None, name: str | None = None):
        if routing is None:
            lo, hi = band
            if not 0.0 <= lo <= hi <= 1.0:
                raise ConfigError(f"band must satisfy 0 <= low <= high <= 1, got {band}")
            routing = Routing(band=(float(lo), float(hi)))
        if threshold is None:
            threshold = float(getattr(fast, "recommended_threshold", 0.5))
        if not 0.0 <= threshold <= 1.0:
            raise ConfigError(f"threshold must be within 0..1, got {threshold}")
        if judge_timeout_s is not None and judge_timeout_s <= 0:
            raise ConfigError(f"judge_timeout_s must be positive, got {judge_timeout_s}")
        self.fast, self.judge, self.routing = fast, judge, routing
        self.band = routing.band
        self.name = name or f"cascade({fast.name}->{judge.name})"
        #: What Guardrail flags at by default: the fast verifier decides most claims, at its calibrated threshold.
        self.recommended_threshold = float(threshold)
        #: Every claim's evidence is selected once, for the fast verifier: use the windows it was trained on.
        self.evidence_selector = dict(getattr(fast, "evidence_selector", None) or {})
        self.judge_timeout_s = judge_timeout_s

    def __repr__(self) -> str:
        return f"CascadeVerifier({self.fast!r}, {self.judge!r}, band={self.band}, threshold={self.recommended_threshold})"

    def verify(self, items: Sequence[VerificationItem], batch_size: int = 32) -> list[ClaimVerdict]:
        return self.verify_run(items, batch_size).verdicts

    async def averify(self, items: Sequence[VerificationItem], batch_size: int = 32) -> list[ClaimVerdict]:
        return (await self.averify_run(items, batch_size)).verdicts

    def verify_run(self, items: Sequence[VerificationItem], batch_size: int = 32) -> VerifierRun:
        """Verdicts plus the claims the judge should have decided but did not (see ``VerifierRun``).

        Raises ``BackendError`` only when the fast verifier cannot run: then nothing was checked.
        """
        items = list(items)
        fast = run_verifier(self.fast, items, batch_size)
        routed = self.routing.select(items, fast.verdicts)
        judged: VerifierRun | BackendError | None = None
        if routed:
            try:
                judged = run_verifier(self.judge, [items[i] for i in routed], batch_size, timeout_s=self.judge_timeout_s)
            except BackendError as exc:  # the judge is down: the fast verdicts stand, marked unchecked
                judged = exc
        return self._merge(fast, routed, judged)

    async def averify_run(self, items: Sequence[VerificationItem], batch_size: int = 32) -> VerifierRun:
        items = list(items)
        fast = await arun_verifier(self.fast, items, batch_size)
        routed = self.routing.select(items, fast.verdicts)
        judged: VerifierRun | BackendError | None = None
        if routed:
            try:
                judged = await arun_verifier(self.judge, [items[i] for i in routed], batch_size,
                                             timeout_s=self.judge_timeout_s)
            except BackendError as exc:
                judged = exc
        return self._merge(fast, routed, judged)

    def _merge(self, fast: VerifierRun, routed: list[int], judged: VerifierRun | BackendError | None) -> VerifierRun:
        out = [v.model_copy(update={"reason": _note(f"{_FAST_ONLY} {self.band}, score {v.hallucination_score:.2f}]",
                                                    v.reason)})
               for v in fast.verdicts]
        unchecked = list(fast.unchecked)
        for k, i in enumerate(routed):
            fv = fast.verdicts[i]
            if isinstance(judged, BackendError):
                why = f"{type(judged).__name__}: {judged}"
            elif judged is not None and judged.verdicts[k].label is Label.unevaluatable:
                why = judged.verdicts[k].reason or "no reason given"
            else:
                assert judged is not None  # None only when nothing was routed, and then this loop has no turn
                jv = judged.verdicts[k]
                note = f"{_JUDGED}{jv.verifier or self.judge.name}; fast {fv.label.value} {fv.hallucination_score:.2f}]"
                out[i] = jv.model_copy(update={"reason": _note(note, jv.reason)})
                continue
            note = f"{_JUDGE_FAILED} (score {fv.hallucination_score:.2f}): {why}]"
            out[i] = fv.model_copy(update={"reason": _note(note, fv.reason)})
            unchecked.append(Unchecked(
                index=i, check=self.judge.name,
                reason=f"escalation to the judge did not run (fast verdict kept for claims the fast verifier "
                       f"was unsure of): {why}",
            ))
        if isinstance(judged, VerifierRun):
            unchecked += [u.model_copy(update={"index": routed[u.index]}) for u in judged.unchecked]
        return VerifierRun(verdicts=out, unchecked=unchecked)

    def clear_cache(self) -> None:
        """Forget what the stages cached (CoVe's verdicts): ``guardrail eval`` does after its warm-up check,
        so that the first example's cost is measured, not read from the cache."""
        for stage in (self.fast, self.judge):
            clear = getattr(stage, "clear_cache", None)
            if callable(clear):
                clear()

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
