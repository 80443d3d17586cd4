"""The one batched protocol every verifier implements.

A verifier gets, per claim, the evidence windows the pipeline picked for it and returns one
``ClaimVerdict`` per item, in order. A verifier that cannot judge an item returns an
``unevaluatable`` verdict with its reason instead of raising, so one bad item never hides
the others; it raises ``BackendError`` only when it cannot run at all.

The pipeline never calls ``verify`` directly but through :func:`run_verifier`, the one boundary
where a verifier's own failures are made safe: any exception becomes a ``BackendError`` naming the
verifier, a call that overruns its deadline is one too, and a reply of the wrong length or with
verdicts that are not verdicts is never taken as a pass. A verifier that keeps a verdict although
part of its work did not run (a cascade whose judge is down) says so through the optional
``verify_run`` method, whose ``VerifierRun.unchecked`` entries the report lists as skipped checks.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .. import deadline
from ..errors import BackendError
from ..types import ClaimVerdict, EvidenceSpan, Label, SkippedCheck, VerificationItem

__all__ = [
    "Verifier",
    "Unchecked",
    "VerifierRun",
    "averify",
    "run_verifier",
    "arun_verifier",
    "call_with_deadline",
    "scored_verdict",
    "unevaluatable",
]

T = TypeVar("T")


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


class Unchecked(BaseModel):
    """One item whose verdict stands although a check meant for it did not run.

    Why: a cascade whose judge is unreachable keeps the fast verdict (better than nothing), but the
    claim was routed to the judge because the fast verifier was unsure; reporting that verdict as
    fully checked would be a silent pass. The pipeline turns these into the report's ``skipped``.
    """

    model_config = ConfigDict(extra="forbid")

    index: int = Field(ge=0, description="Position of the item in the verify call.")
    check: str = Field(description="The check that did not run: a verifier's name, e.g. the cascade's judge.")
    reason: str


class VerifierRun(BaseModel):
    """What one verifier call produced: a verdict per item, and the items not fully checked."""

    model_config = ConfigDict(extra="forbid")

    verdicts: list[ClaimVerdict]
    unchecked: list[Unchecked] = Field(default_factory=list)

    def skipped(self, items: Sequence[VerificationItem], start: int = 0, stop: int | None = None) -> list[SkippedCheck]:
        """One ``SkippedCheck`` per check for the unchecked items in ``items[start:stop]``.

        ``items`` are the items of the call (claim ids come from them); ``start``/``stop`` pick one
        answer's share of a batched call, whose claim ids are only unique within the answer.
        """
        stop = len(items) if stop is None else stop
        by_check: dict[str, tuple[list[str], list[str]]] = {}
        for u in self.unchecked:
            if start <= u.index < stop:
                ids, reasons = by_check.setdefault(u.check, ([], []))
                ids.append(items[u.index].claim.id)
                if u.reason not in reasons:
                    reasons.append(u.reason)
        return [SkippedCheck(check=check, reason="; ".join(reasons), claim_ids=list(dict.fromkeys(ids)))
                for check, (ids, reasons) in by_check.items()]


def call_with_deadline(fn: Callable[[], T], timeout_s: float, what: str) -> T:
    """``fn()``, or ``BackendError`` once ``timeout_s`` has passed without a result (see :mod:`guardrail.deadline`)."""
    return deadline.call_with_deadline(fn, timeout_s, what, BackendError)


def _name(verifier: Any) -> str:
    return str(getattr(verifier, "name", None) or type(verifier).__name__)


def _wrap(verifier: Any, exc: Exception) -> BackendError:
    if isinstance(exc, BackendError):
        return exc
    return BackendError(f"verifier {_name(verifier)!r} raised {type(exc).__name__}: {exc}")


def run_verifier(verifier: Verifier, items: Sequence[VerificationItem], batch_size: int = 32, *,
                 timeout_s: float | None = None) -> VerifierRun:
    """Call ``verifier`` on ``items`` at the pipeline's boundary; see the module docstring.

    Raises ``BackendError`` (from the original exception) when the verifier raised anything, ran
    past ``timeout_s``, or returned a list of the wrong length or not a list; a single verdict that
    is malformed (not a verdict, another claim's id, a score outside 0..1 or NaN) becomes that
    item's ``unevaluatable`` verdict with the reason.
    """
    items = list(items)

    def call() -> Any:
        native = getattr(verifier, "verify_run", None)
        return native(items, batch_size) if native is not None else verifier.verify(items, batch_size)

    try:
        out = call() if timeout_s is None else call_with_deadline(call, timeout_s, f"verifier {_name(verifier)!r}")
    except Exception as exc:  # noqa: BLE001 - whatever a custom verifier raises is a backend failure
        error = _wrap(verifier, exc)
        if error is exc:
            raise
        raise error from exc
    return _checked(verifier, items, out)


async def arun_verifier(verifier: Verifier, items: Sequence[VerificationItem], batch_size: int = 32, *,
                        timeout_s: float | None = None) -> VerifierRun:
    """Async ``run_verifier``: the verifier's ``averify_run`` / ``averify`` when it has one, else a thread.

    ``timeout_s`` bounds the whole call (``asyncio.wait_for``): a native coroutine is cancelled; a sync
    verifier's thread cannot be, and is abandoned as :func:`call_with_deadline` abandons it.
    """
    items = list(items)

    async def call() -> Any:
        native = getattr(verifier, "averify_run", None)
        if native is not None:
            return await native(items, batch_size=batch_size)
        verify_run = getattr(verifier, "verify_run", None)
        if getattr(verifier, "averify", None) is None and verify_run is not None:
            return await asyncio.to_thread(verify_run, items, batch_size)
        return await averify(verifier, items, batch_size)

    try:
        out = await (call() if timeout_s is None else asyncio.wait_for(call(), timeout_s))
    except asyncio.TimeoutError as exc:
        if timeout_s is None:  # the verifier's own timeout (an HTTP client's): a failure like any other
            raise _wrap(verifier, exc) from exc
        raise BackendError(f"verifier {_name(verifier)!r}: no result within {timeout_s:g} s") from exc
    except Exception as exc:  # noqa: BLE001
        error = _wrap(verifier, exc)
        if error is exc:
            raise
        raise error from exc
    return _checked(verifier, items, out)


def _checked(verifier: Any, items: list[VerificationItem], out: Any) -> VerifierRun:
    """The reply as a ``VerifierRun`` whose verdicts are real verdicts, one per item, in order."""
    name = _name(verifier)
    unchecked: list[Unchecked] = []
    if isinstance(out, VerifierRun):
        verdicts: Any = out.verdicts
        unchecked = [u for u in out.unchecked if u.index < len(items)]
    else:
        verdicts = out
    if not isinstance(verdicts, (list, tuple)):
        raise BackendError(f"verifier {name!r} returned {type(verdicts).__name__}, not a list of verdicts")
    if len(verdicts) != len(items):
        raise BackendError(f"verifier {name!r} returned {len(verdicts)} verdicts for {len(items)} items")
    return VerifierRun(verdicts=[_valid(name, it, v) for it, v in zip(items, verdicts)], unchecked=unchecked)


def _valid(name: str, item: VerificationItem, verdict: Any) -> ClaimVerdict:
    """``verdict`` when it is a well-formed verdict for ``item``, else ``item``'s unevaluatable verdict."""
    try:
        # Revalidate even a ClaimVerdict: model_construct and attribute assignment bypass validation
        # (a NaN score fails the 0..1 bounds here).
        checked = ClaimVerdict.model_validate(dict(verdict) if isinstance(verdict, ClaimVerdict) else verdict)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "verdict"
        return unevaluatable(item, f"verifier {name!r} returned an invalid verdict ({where}: {first['msg']})", name)
    if checked.claim_id != item.claim.id:
        return unevaluatable(item, f"verifier {name!r} returned a verdict for claim {checked.claim_id!r} "
                                   f"in place of {item.claim.id!r}", name)
    return checked


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
