"""Evaluation metrics as pure functions over plain sequences: no model, no I/O, no pydantic.

Conventions shared by every function here:

- ``y`` is the gold label, True = hallucinated (the positive class is what the guardrail must catch);
  ``scores`` are hallucination scores in [0, 1]; a prediction at threshold ``t`` is ``score >= t``,
  the same rule :class:`guardrail.Guardrail` applies.
- Undefined values are ``None``, never NaN: AUC with one class only, balanced accuracy without both
  classes, ECE of nothing. NaN would survive into JSON as an invalid token and into tables as "nan".
- A ratio with an empty denominator that has an obvious reading is 0.0 (precision when nothing is
  flagged, recall when nothing is hallucinated), as scikit-learn's ``zero_division=0``; the counts
  are returned alongside so a reader can tell.

Why our own instead of scikit-learn: a dozen lines each, and the package must not grow a heavy
dependency for its own evaluation command.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError

__all__ = [
    "Confusion",
    "confusion",
    "precision_recall_f1",
    "balanced_accuracy",
    "roc_auc",
    "ece",
    "reliability_bins",
    "ReliabilityBin",
    "pr_curve",
    "PRPoint",
    "average_precision",
    "best_f1_threshold",
    "span_counts",
    "span_f1",
    "latency_percentiles",
    "ProxyMetrics",
    "proxy_metrics",
]


#: Labels and scores: a sequence or a NumPy array (each function reads them once into an array).
Bools = Sequence[bool] | np.ndarray
Floats = Sequence[float] | np.ndarray


@dataclass(frozen=True)
class Confusion:
    tp: int
    fp: int
    fn: int
    tn: int


def _labels(y: Bools) -> np.ndarray:
    return np.asarray(list(y), dtype=bool)


def _scores(scores: Floats, n: int) -> np.ndarray:
    s = np.asarray(list(scores), dtype=float)
    if len(s) != n:
        raise InputError(f"{len(s)} scores for {n} labels")
    if len(s) and not np.isfinite(s).all():
        raise InputError("scores must be finite numbers")
    return s


def confusion(y: Bools, predicted: Bools) -> Confusion:
    yy, pp = _labels(y), _labels(predicted)
    if len(yy) != len(pp):
        raise InputError(f"{len(pp)} predictions for {len(yy)} labels")
    return Confusion(
        tp=int((yy & pp).sum()), fp=int((~yy & pp).sum()), fn=int((yy & ~pp).sum()), tn=int((~yy & ~pp).sum())
    )


def precision_recall_f1(y: Bools, predicted: Bools) -> tuple[float, float, float]:
    c = confusion(y, predicted)
    p = c.tp / (c.tp + c.fp) if c.tp + c.fp else 0.0
    r = c.tp / (c.tp + c.fn) if c.tp + c.fn else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def balanced_accuracy(y: Bools, predicted: Bools) -> float | None:
    """Mean of the recall on each class; the fair accuracy when one class is rare (most dev files)."""
    c = confusion(y, predicted)
    if not (c.tp + c.fn) or not (c.tn + c.fp):
        return None
    return (c.tp / (c.tp + c.fn) + c.tn / (c.tn + c.fp)) / 2


def roc_auc(y: Bools, scores: Floats) -> float | None:
    """Probability that a random hallucinated example outscores a random faithful one; ties count
    one half (Mann-Whitney U with averaged ranks)."""
    yy = _labels(y)
    s = _scores(scores, len(yy))
    n_pos = int(yy.sum())
    n_neg = len(yy) - n_pos
    if not n_pos or not n_neg:
        return None
    order = np.argsort(s, kind="mergesort")
    sorted_s = s[order]
    ranks = np.empty(len(s))
    # Average rank (1-based) over each block of equal scores.
    starts = np.r_[0, np.flatnonzero(np.diff(sorted_s)) + 1]
    ends = np.r_[starts[1:], len(s)]
    for a, b in zip(starts, ends):
        ranks[order[a:b]] = (a + 1 + b) / 2
    return float((ranks[yy].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


@dataclass(frozen=True)
class ReliabilityBin:
    lower: float
    upper: float
    count: int
    mean_score: float | None
    observed_rate: float | None


def reliability_bins(y: Bools, scores: Floats, bins: int = 10) -> list[ReliabilityBin]:
    """Equal-width bins over [0, 1]; a score of exactly 1.0 falls in the last bin."""
    if bins < 1:
        raise InputError("bins must be >= 1")
    yy = _labels(y)
    s = _scores(scores, len(yy))
    idx = np.minimum((s * bins).astype(int), bins - 1) if len(s) else np.array([], dtype=int)
    out = []
    for b in range(bins):
        m = idx == b
        n = int(m.sum())
        out.append(
            ReliabilityBin(
                lower=b / bins,
                upper=(b + 1) / bins,
                count=n,
                mean_score=float(s[m].mean()) if n else None,
                observed_rate=float(yy[m].mean()) if n else None,
            )
        )
    return out


def ece(y: Bools, scores: Floats, bins: int = 10) -> float | None:
    """Expected calibration error: the count-weighted gap between mean score and observed
    hallucination rate per equal-width bin. Only meaningful for scores that claim to be probabilities."""
    rb = reliability_bins(y, scores, bins)
    n = sum(b.count for b in rb)
    if not n:
        return None
    # (a bin has a mean score and an observed rate exactly when it has a count)
    return float(sum(b.count / n * abs(b.mean_score - b.observed_rate) for b in rb
                     if b.mean_score is not None and b.observed_rate is not None))


@dataclass(frozen=True)
class PRPoint:
    threshold: float
    precision: float
    recall: float


def pr_curve(y: Bools, scores: Floats) -> list[PRPoint]:
    """One point per distinct score, from the highest threshold (fewest flags) down to the lowest
    (everything flagged). Empty when there is no hallucinated example: recall is undefined."""
    yy = _labels(y)
    s = _scores(scores, len(yy))
    n_pos = int(yy.sum())
    if not n_pos:
        return []
    order = np.argsort(-s, kind="mergesort")
    s_sorted, y_sorted = s[order], yy[order]
    tp = np.cumsum(y_sorted)
    fp = np.cumsum(~y_sorted)
    # Last index of each block of equal scores: everything up to it is flagged at that threshold.
    last = np.r_[np.flatnonzero(np.diff(s_sorted)), len(s) - 1]
    return [
        PRPoint(threshold=float(s_sorted[i]), precision=float(tp[i] / (tp[i] + fp[i])), recall=float(tp[i] / n_pos))
        for i in last
    ]


def average_precision(y: Bools, scores: Floats) -> float | None:
    """Area under the step PR curve: sum over thresholds of (recall gained) x precision."""
    points = pr_curve(y, scores)
    if not points:
        return None
    ap, prev_r = 0.0, 0.0
    for p in points:
        ap += (p.recall - prev_r) * p.precision
        prev_r = p.recall
    return float(ap)


def best_f1_threshold(y: Bools, scores: Floats) -> tuple[float, float] | None:
    """(threshold, F1) of the score threshold with the highest F1 on these examples; ``None`` when
    there is no hallucinated example to find. Candidates are the observed scores (any threshold
    between two neighbours gives the same flags); among equal F1 the highest threshold wins, so the
    choice is deterministic and flags no more than it needs to."""
    yy = _labels(y)
    s = _scores(scores, len(yy))
    n_pos = int(yy.sum())
    if not n_pos:
        return None
    best: tuple[float, float] | None = None
    for p in pr_curve(yy, s):  # highest threshold first, so '>' keeps the highest among ties
        f1 = 2 * p.precision * p.recall / (p.precision + p.recall) if p.precision + p.recall else 0.0
        if best is None or f1 > best[1] + 1e-12:
            best = (p.threshold, f1)
    return best


def span_counts(flagged: Sequence[tuple[int, int]], gold: Sequence[tuple[int, int]]) -> tuple[int, int, int]:
    """(tp, fp, fn) in characters between flagged stretches and gold hallucinated spans of one
    response; overlapping stretches on either side count each character once."""
    pred: set[int] = set()
    for a, b in flagged:
        pred.update(range(a, b))
    ref: set[int] = set()
    for a, b in gold:
        ref.update(range(a, b))
    tp = len(pred & ref)
    return tp, len(pred) - tp, len(ref) - tp


def span_f1(responses: Sequence[tuple[Sequence[tuple[int, int]], Sequence[tuple[int, int]]]]) -> float | None:
    """Character-level F1 micro-averaged over responses, each given as (flagged stretches, gold
    spans). ``None`` when no response has a gold or a flagged character (nothing to score)."""
    tp = fp = fn = 0
    for flagged, gold in responses:
        a, b, c = span_counts(flagged, gold)
        tp, fp, fn = tp + a, fp + b, fn + c
    if not tp + fp + fn:
        return None
    return 2 * tp / (2 * tp + fp + fn)


def latency_percentiles(latencies_ms: Sequence[float], percentiles: Sequence[float] = (50, 95)) -> dict[str, float | None]:
    """``{"p50": ..., "p95": ...}`` with linear interpolation between order statistics."""
    x = np.asarray(list(latencies_ms), dtype=float)
    return {f"p{q:g}": (float(np.percentile(x, q)) if len(x) else None) for q in percentiles}


@dataclass(frozen=True)
class ProxyMetrics:
    """Claim-level proxies for data labelled per response only (HaluEval's right/hallucinated pairs).

    Each claim inherits its response's label. In a hallucinated response most claims may well be
    true, so the hallucinated flagging rate is a floor on nothing and the claim AUC is bounded well
    below 1; what matters is the *gap*: a useful checker flags claims of hallucinated answers much
    more often than claims of clean ones (ratio well above 1)."""

    clean_claims: int
    hallucinated_claims: int
    clean_flag_rate: float | None
    hallucinated_flag_rate: float | None
    flag_rate_ratio: float | None
    claim_auc: float | None


def proxy_metrics(
    claim_labels: Bools, claim_scores: Floats, claim_flagged: Bools
) -> ProxyMetrics:
    """Proxies over claims that carry their response's label (True = from a hallucinated response)."""
    yy = _labels(claim_labels)
    ff = _labels(claim_flagged)
    s = _scores(claim_scores, len(yy))
    if len(ff) != len(yy):
        raise InputError(f"{len(ff)} flags for {len(yy)} claims")
    n_h, n_c = int(yy.sum()), int((~yy).sum())
    clean = float(ff[~yy].mean()) if n_c else None
    hall = float(ff[yy].mean()) if n_h else None
    ratio = hall / clean if clean and hall is not None else None
    return ProxyMetrics(
        clean_claims=n_c,
        hallucinated_claims=n_h,
        clean_flag_rate=clean,
        hallucinated_flag_rate=hall,
        flag_rate_ratio=ratio,
        claim_auc=roc_auc(yy, s),
    )

