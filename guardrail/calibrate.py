"""Fit a tenant's flagging threshold from a few dozen of its own labelled answers.

The shipped threshold is tuned on RAGTruth; a tenant's answers (its documents, its generator, its
idea of what must be flagged) differ, and a threshold that gave F1 0.73 there can flag far too much
or too little here. ``guardrail calibrate --data labelled.jsonl --tenant NAME --target precision=0.9``
checks each labelled answer once, walks the score thresholds, picks the one that meets the target,
writes it into the tenant's policy (``claims.score_threshold``), saves the curve it chose from, and
says how sure it is.

Why the extra statistics: with 40 answers an in-sample precision of 0.90 can be 0.7 on the next 40.
Every estimate comes with a 95% Wilson interval, and the whole choice (fit the threshold, then
measure) is repeated on bootstrap resamples and measured on the answers each resample left out, so
the printed "expected" figures are what the procedure gives on answers it did not see.

Labelled rows use the ``plain`` format of :mod:`guardrail.eval.loaders` (``context``, ``response``,
``label``: 1 / true / "hallucinated" means the answer must be flagged; optional ``question``, ``id``),
or any other format that loader reads; every row must carry a label.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import tempfile
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any, Literal, cast

import numpy as np
from pydantic import BaseModel, Field

from .errors import ConfigError, InputError

#: Fewer answers than this, or fewer of either class, cannot place a threshold with any confidence.
MIN_ROWS = 20
MIN_PER_CLASS = 5


_Metric = Literal["precision", "recall", "f1"]


class Target(BaseModel):
    """What the threshold is chosen for: ``precision=0.9`` (the most recall at that precision),
    ``recall=0.8`` (the most precision at that recall), or ``f1`` (the best F1)."""

    metric: _Metric
    value: float | None = Field(default=None, gt=0.0, le=1.0)

    @classmethod
    def parse(cls, text: str) -> Target:
        m = re.fullmatch(r"\s*(precision|recall|f1)\s*(?:=\s*([0-9.]+)\s*)?", text or "")
        if not m:
            raise InputError(f"--target {text!r}: expected precision=P, recall=R or f1 (e.g. precision=0.9)")
        metric, value = m.group(1), m.group(2)
        if metric == "f1" and value is not None:
            raise InputError("--target f1 takes no value")
        if metric != "f1" and value is None:
            raise InputError(f"--target {metric} needs a value, e.g. {metric}=0.9")
        try:
            v = None if value is None else float(value)
        except ValueError as exc:
            raise InputError(f"--target {text!r}: {value!r} is not a number") from exc
        if v is not None and not 0.0 < v <= 1.0:
            raise InputError(f"--target {metric}={value}: must be within (0, 1]")
        return cls(metric=cast(_Metric, metric), value=v)  # the pattern admits these three names only

    def __str__(self) -> str:
        return self.metric if self.value is None else f"{self.metric}={self.value:g}"


class Interval(BaseModel):
    estimate: float
    low: float
    high: float


class CurvePoint(BaseModel):
    threshold: float
    precision: float
    recall: float
    f1: float


class Calibration(BaseModel):
    """The chosen threshold and what to expect from it."""

    target: str
    threshold: float
    rows: int
    positives: int
    precision: Interval = Field(description="On these rows, with a 95% Wilson interval.")
    recall: Interval = Field(description="On these rows, with a 95% Wilson interval.")
    expected_precision: Interval | None = Field(
        default=None, description="Out-of-bag bootstrap of fit-then-measure: mean and 2.5/97.5 percentiles.")
    expected_recall: Interval | None = None
    target_met: bool = Field(description="Whether some threshold reaches the target on these rows.")
    curve: list[CurvePoint]
    verifier: str
    verifier_threshold: float


def wilson(successes: int, n: int, z: float = 1.96) -> Interval:
    """Wilson score interval: sane at 0/n and n/n, unlike the normal approximation."""
    if n == 0:
        return Interval(estimate=0.0, low=0.0, high=1.0)
    p = successes / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return Interval(estimate=p, low=max(0.0, centre - half), high=min(1.0, centre + half))


def _curve(y: np.ndarray, s: np.ndarray) -> list[CurvePoint]:
    """Flag at score >= t for each distinct score t, highest first (a threshold between two
    observed scores flags the same answers as the higher one)."""
    out = []
    pos = int(y.sum())
    for t in sorted(set(s.tolist()), reverse=True):
        flagged = s >= t
        tp = int((flagged & y).sum())
        fp = int((flagged & ~y).sum())
        p = tp / (tp + fp) if tp + fp else 1.0
        r = tp / pos if pos else 0.0
        out.append(CurvePoint(threshold=float(t), precision=p, recall=r, f1=2 * p * r / (p + r) if p + r else 0.0))
    return out


def choose(curve: Sequence[CurvePoint], target: Target) -> tuple[CurvePoint, bool]:
    """The point meeting the target; when none does, the closest one and ``False``.

    precision=P: the lowest threshold (most recall) whose precision is >= P; recall=R: the highest
    threshold (most precision) whose recall is >= R; f1: the best F1, the higher threshold on ties.
    """
    if target.metric == "f1":
        return max(curve, key=lambda c: (round(c.f1, 12), c.threshold)), True
    value = target.value
    assert value is not None  # Target.parse gives precision and recall a value
    if target.metric == "precision":
        ok = [c for c in curve if c.precision >= value and c.recall > 0]
        if ok:
            return max(ok, key=lambda c: (c.recall, c.threshold)), True
        return max(curve, key=lambda c: (c.precision, c.recall)), False
    ok = [c for c in curve if c.recall >= value]
    if ok:
        return max(ok, key=lambda c: (c.precision, c.threshold)), True
    return max(curve, key=lambda c: (c.recall, -c.threshold)), False


def _margin(curve: Sequence[CurvePoint], point: CurvePoint) -> float:
    """Any threshold between the chosen score and the next lower one flags the same answers; the
    midpoint leaves the most room on both sides for scores the rows did not show."""
    lower = [c.threshold for c in curve if c.threshold < point.threshold]
    return (point.threshold + max(lower)) / 2 if lower else point.threshold


def fit(labels: Sequence[bool], scores: Sequence[float], target: Target, *, verifier: str = "",
        verifier_threshold: float = 0.0, resamples: int = 300, seed: int = 0) -> Calibration:
    """Choose a threshold for ``target`` and estimate precision / recall. Raises :class:`InputError`
    when the rows cannot support a choice (too few, one class only)."""
    y = np.asarray(labels, dtype=bool)
    s = np.asarray(scores, dtype=float)
    if len(y) != len(s):
        raise InputError(f"{len(y)} labels but {len(s)} scores")
    if not np.isfinite(s).all():
        raise InputError("a score is not a finite number")
    pos, neg = int(y.sum()), int((~y).sum())
    if pos == 0 or neg == 0:
        which = "hallucinated" if pos == 0 else "faithful"
        raise InputError(f"every row has the same label: no {which} answer to calibrate against "
                         f"({len(y)} rows; need at least {MIN_PER_CLASS} of each)")
    if len(y) < MIN_ROWS or min(pos, neg) < MIN_PER_CLASS:
        raise InputError(f"too few labelled rows: {len(y)} ({pos} hallucinated, {neg} faithful); need at least "
                         f"{MIN_ROWS} with {MIN_PER_CLASS} of each class")
    curve = _curve(y, s)
    point, met = choose(curve, target)
    threshold = _margin(curve, point)
    flagged = s >= threshold
    tp = int((flagged & y).sum())
    precision = wilson(tp, int(flagged.sum()))
    recall = wilson(tp, pos)

    # Fit-then-measure on bootstrap resamples, measured on the rows each resample left out.
    rng = np.random.default_rng(seed)
    ps, rs = [], []
    for _ in range(resamples):
        idx = rng.integers(0, len(y), len(y))
        out = np.setdiff1d(np.arange(len(y)), idx)
        yi, yo = y[idx], y[out]
        if yi.all() or not yi.any() or not yo.any():
            continue
        ci = _curve(yi, s[idx])
        f = s[out] >= _margin(ci, choose(ci, target)[0])
        if f.any():
            ps.append(float((f & yo).sum() / f.sum()))
        rs.append(float((f & yo).sum() / yo.sum()))

    def summary(xs: list[float]) -> Interval | None:
        if len(xs) < 20:
            return None
        return Interval(estimate=float(np.mean(xs)), low=float(np.percentile(xs, 2.5)), high=float(np.percentile(xs, 97.5)))

    return Calibration(target=str(target), threshold=threshold, rows=len(y), positives=pos,
                       precision=precision, recall=recall, expected_precision=summary(ps),
                       expected_recall=summary(rs), target_met=met, curve=curve, verifier=verifier,
                       verifier_threshold=verifier_threshold)


# --------------------------------------------------------------------------- the tenant's policy file

_TENANT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def write_threshold(policies: Path, tenant: str, threshold: float, note: str) -> Path:
    """Set ``claims.score_threshold`` in the tenant's policy file, keeping its comments and layout.

    A tenant without a file gets ``<policies>/tenants/<tenant>.yaml`` extending ``default``. The result
    is loaded through the policy loader before it replaces the old file, so a failed edit leaves the
    tenant's policy as it was.
    """
    from .policy import PolicyStore

    if not _TENANT.match(tenant):
        raise InputError(f"--tenant {tenant!r}: letters, digits, '.', '_' and '-' only")
    store = PolicyStore(policies)
    path = store.path_for(tenant)
    if path is None:
        path = Path(policies) / "tenants" / f"{tenant}.yaml"
        text = f"# Tenant {tenant}: threshold fitted by guardrail calibrate; every other field comes from default.\nextends: default\n"
    else:
        text = path.read_text(encoding="utf-8")
    new = _set_claims_threshold(text, threshold, note, str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{tenant}.", suffix=".yaml.tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(new)
        # Validate the edited file where it will live (its `extends:` resolves the same way).
        from .policy import load_policy

        load_policy(tmp, search_path=[Path(policies), Path(policies) / "tenants"])
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


def _set_claims_threshold(text: str, threshold: float, note: str, file: str) -> str:
    value = f"score_threshold: {threshold:.4f}  # {note}"
    lines = text.splitlines()
    top = [i for i, line in enumerate(lines) if re.match(r"claims\s*:", line)]
    if not top:
        sep = "" if not lines or not lines[-1].strip() else "\n"
        return text.rstrip("\n") + f"\n{sep}claims:\n  {value}\n"
    i = top[0]
    if re.match(r"claims\s*:\s*[^\s#]", lines[i]):
        raise ConfigError("claims is written inline; set claims.score_threshold by hand", file=file, line=i + 1)
    end = i + 1
    while end < len(lines) and (not lines[end].strip() or lines[end].startswith((" ", "\t", "#"))):
        end += 1
    # The first entry's leading whitespace (every line of the block but comments and blank ones is indented).
    indent = next((lines[k][: len(lines[k]) - len(lines[k].lstrip())] for k in range(i + 1, end)
                   if lines[k].strip() and not lines[k].lstrip().startswith("#")), "  ")
    for k in range(i + 1, end):
        if re.match(rf"{indent}score_threshold\s*:", lines[k]):
            lines[k] = indent + value
            break
    else:
        lines.insert(i + 1, indent + value)
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- the curve as a picture

def save_curve(cal: Calibration, path: Path) -> Path:
    """Precision and recall against the threshold, the chosen one marked (PNG; needs matplotlib)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ConfigError("saving the curve needs matplotlib: pip install 'rag-guardrail[eval]'") from exc
    # A point's figures hold for every threshold above the next lower score up to its own: "pre" steps.
    pts = sorted(cal.curve, key=lambda c: c.threshold)
    t = [c.threshold for c in pts]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.step(t, [c.precision for c in pts], where="pre", label="precision")
    ax.step(t, [c.recall for c in pts], where="pre", label="recall")
    ax.step(t, [c.f1 for c in pts], where="pre", label="F1", alpha=0.5)
    ax.axvline(cal.threshold, color="k", ls="--", lw=1, label=f"chosen {cal.threshold:.3f} ({cal.target})")
    ax.axvline(cal.verifier_threshold, color="grey", ls=":", lw=1, label=f"verifier default {cal.verifier_threshold:.3f}")
    ax.set_xlabel("hallucination score threshold (flag at or above)")
    ax.set_ylim(0, 1.02)
    ax.set_title(f"{cal.rows} labelled answers, {cal.positives} hallucinated")
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# --------------------------------------------------------------------------- command line

def add_commands(subparsers: Any, make_guardrail: Any) -> None:
    c = subparsers.add_parser("calibrate", help="fit a tenant's threshold from its own labelled answers and write it into its policy")
    c.add_argument("--data", required=True, type=Path, help="labelled JSONL: context, response, label (1 = hallucinated); optional question, id")
    c.add_argument("--tenant", required=True, help="tenant id; its policy file gets claims.score_threshold")
    c.add_argument("--policies", type=Path, default=Path("policies"), help="policy directory (default: ./policies)")
    c.add_argument("--target", default="f1", help="precision=P (most recall at precision P), recall=R, or f1 (default)")
    c.add_argument("--verifier", default="default", help="verifier spec, as for check (default: the shipped one)")
    c.add_argument("--curve", type=Path, help="where to save the curve (default: <policies>/tenants/<tenant>.calibration.png)")
    c.add_argument("--dry-run", action="store_true", help="fit and print, but do not edit the policy")
    c.set_defaults(func=lambda args: _cmd_calibrate(args, make_guardrail))


def _cmd_calibrate(args: argparse.Namespace, make_guardrail: Any) -> int:
    from .eval.loaders import load_file

    target = Target.parse(args.target)
    examples = load_file(args.data)
    unlabelled = [e.id for e in examples if e.hallucinated is None]
    if unlabelled:
        raise InputError(f"{args.data}: {len(unlabelled)} rows have no label (first: {unlabelled[0]})")
    guard = make_guardrail(verifier=args.verifier)
    scores = []
    for e in examples:
        report = guard.check(answer=e.response, context=e.context, question=e.question)
        scores.append(report.hallucination_score)
    cal = fit([bool(e.hallucinated) for e in examples], scores, target, verifier=guard.verifier.name,
              verifier_threshold=guard.threshold)
    curve = args.curve or args.policies / "tenants" / f"{args.tenant}.calibration.png"
    save_curve(cal, curve)
    curve.with_suffix(".json").write_text(cal.model_dump_json(indent=2), encoding="utf-8")

    def fmt(i: Interval | None) -> str:
        return "n/a (too few resamples)" if i is None else f"{i.estimate:.2f} (95% {i.low:.2f}-{i.high:.2f})"

    print(f"{cal.rows} labelled answers ({cal.positives} hallucinated), verifier {cal.verifier} "
          f"(default threshold {cal.verifier_threshold:.3f})")
    if not cal.target_met:
        print(f"warning: no threshold reaches {cal.target} on these answers; chose the closest")
    print(f"threshold {cal.threshold:.4f} for {cal.target}")
    print(f"  on these answers:   precision {fmt(cal.precision)}, recall {fmt(cal.recall)}")
    print(f"  expected on new ones (bootstrap, out of bag): precision {fmt(cal.expected_precision)}, "
          f"recall {fmt(cal.expected_recall)}")
    print(f"curve: {curve} (and {curve.with_suffix('.json')})")
    if args.dry_run:
        print("dry run: policy not changed")
        return 0 if cal.target_met else 1
    note = f"guardrail calibrate {date.today().isoformat()}: {cal.target} on {cal.rows} answers of {args.data.name}"
    path = write_threshold(args.policies, args.tenant, cal.threshold, note)
    print(f"wrote claims.score_threshold {cal.threshold:.4f} to {path}")
    return 0 if cal.target_met else 1
