"""Side-by-side evaluation of verifier configurations on labelled examples.

``run_eval(examples, configs)`` builds one :class:`guardrail.Guardrail` per configuration and checks
every example through the full pipeline (claims, evidence selection, verifier), the way the product
runs, timing each check. Then, per configuration:

- the examples of each dataset are split by group into a *calibration* part and an *evaluation*
  part (never one group on both sides); every metric is measured on the evaluation part only;
- two operating points are reported: the **policy** threshold of the configuration, applied exactly
  as the product applies it (``CheckReport.hallucinated``: a claim is flagged when its label is
  contradicted/unsupported *and* its score reaches the threshold), and the **tuned** threshold, the
  response score that maximised F1 on the calibration part (``score >= t``). A dataset's rows use the
  threshold tuned on that dataset's calibration part (as SummaC and AggreFact results are
  conventionally reported); the overall rows and the per-task rows across datasets use the one
  threshold tuned on all calibration parts pooled, since one deployment has one threshold;
- threshold-free numbers: ROC-AUC, average precision and ECE of the response score
  (``CheckReport.hallucination_score``, the highest claim score);
- span F1 (characters of flagged claims against gold spans) where the data has gold spans, and,
  where it has response labels only, the claim-level proxies over paired groups (a group holding both
  a hallucinated and a faithful response, as HaluEval's right/hallucinated answers or SummaC's
  summaries of one document);
- latency p50/p95 of one check, over every example of the scope (both parts: the split is about
  labels, not about speed), after one untimed warm-up check per configuration (models load lazily);
- LLM cost per answer (calls and tokens, mean over the same examples) when the LLM counts its usage
  (``OpenAIChat.usage``): what an LLM verifier (judge, cove) costs next to what it catches.

The split per dataset: the dataset's group keys, sorted, shuffled with ``random.Random(seed)``, and
dealt in turn so that a share ``calibration_fraction`` goes to calibration (at 0.5: every other one,
starting with calibration). For ``ragtruth:dev`` with the defaults (0.5, seed 13) this reproduces
the dev halves of ``guardrail.train.grounding.dev_halves`` exactly: the shipped model's calibration
saw only the calibration part, so its numbers on the evaluation part are not flattered.

A check that raises is recorded as an error with its message, counted per scope and left out of the
metrics (it has no score); a check that ran with unevaluatable claims counts as *incomplete*.
"""

from __future__ import annotations

import math
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timezone
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..errors import InputError
from ..types import HALLUCINATED_LABELS, Label
from .types import EvalExample

# ``metrics`` (numpy) is imported inside the scoring functions: the red-team module imports
# EvalConfig from here, and the command line imports that module to build its parser.

__all__ = [
    "ClaimResult",
    "ConfigResult",
    "DatasetMetrics",
    "EvalConfig",
    "EvalResult",
    "ExampleResult",
    "Metrics",
    "ProxyResult",
    "SplitInfo",
    "ThresholdMetrics",
    "compute_metrics",
    "run_eval",
    "split_parts",
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EvalConfig(_Model):
    """One column of the side-by-side table: a verifier and the policy threshold it runs at."""

    name: str = Field(min_length=1, description="Label of this configuration in tables and plots.")
    verifier: str = Field(min_length=1, description="Verifier spec for make_verifier: heuristic, grounding, judge, ...")
    threshold: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="Policy threshold of the Guardrail; None = the verifier's recommended threshold (as "
        "Guardrail does), else 0.5. Results record the threshold actually used.",
    )


class ClaimResult(_Model):
    start: int
    end: int
    label: str
    score: float | None = Field(description="Hallucination score; None when the claim was unevaluatable.")
    flagged: bool = Field(description="Flagged by the product at the policy threshold.")


class ExampleResult(_Model):
    id: str
    dataset: str
    task: str | None
    group: str
    part: Literal["calibration", "evaluation"]
    hallucinated: bool | None = Field(description="Gold label (True = not grounded).")
    score: float | None = Field(default=None, description="CheckReport.hallucination_score; None on error.")
    flagged: bool | None = Field(default=None, description="CheckReport.hallucinated at the policy threshold.")
    complete: bool | None = Field(default=None, description="Every claim was evaluated (CheckReport.complete).")
    latency_ms: float | None = None
    llm_calls: int | None = Field(default=None, description="LLM requests of this check; None without a metered LLM.")
    llm_tokens: int | None = Field(default=None, description="Prompt + completion tokens the server reported for them.")
    error: str | None = Field(default=None, description="Why the check raised, when it did.")
    claims: list[ClaimResult] = Field(default_factory=list)
    gold_spans: list[tuple[int, int]] | None = None


class ProxyResult(_Model):
    """Claim-level proxies (see :class:`guardrail.eval.metrics.ProxyMetrics`) over paired groups."""

    pairs: int = Field(description="Groups holding both a hallucinated and a faithful response.")
    clean_claims: int
    hallucinated_claims: int
    clean_flag_rate: float | None
    hallucinated_flag_rate: float | None
    flag_rate_ratio: float | None
    claim_auc: float | None


class ThresholdMetrics(_Model):
    threshold: float
    flagged: int
    precision: float
    recall: float
    f1: float
    balanced_accuracy: float | None
    span_f1: float | None = Field(default=None, description="Character-level, where gold spans exist.")
    proxy: ProxyResult | None = None


class Metrics(_Model):
    n: int = Field(description="Labelled examples of the evaluation part that were checked without error.")
    hallucinated: int
    errors: int = Field(description="Checks that raised, in the evaluation part (not in the metrics).")
    incomplete: int = Field(description="Checks with unevaluatable claims or skipped stages, in the evaluation part.")
    auc: float | None = None
    average_precision: float | None = None
    ece: float | None = None
    policy: ThresholdMetrics | None = None
    tuned: ThresholdMetrics | None = None
    latency_p50_ms: float | None = None
    latency_p95_ms: float | None = None
    llm_calls_per_answer: float | None = Field(default=None, description="Mean LLM requests per checked answer.")
    llm_tokens_per_answer: float | None = Field(default=None, description="Mean LLM tokens per checked answer.")


class DatasetMetrics(Metrics):
    tuned_threshold: float | None = Field(default=None, description="Best-F1 threshold on this dataset's calibration part.")
    tasks: dict[str, Metrics] = Field(default_factory=dict)


class SplitInfo(_Model):
    calibration_examples: int
    calibration_groups: int
    evaluation_examples: int
    evaluation_groups: int


class ConfigResult(_Model):
    config: EvalConfig
    verifier_name: str = Field(description="The verifier's own name (e.g. heuristic-v0).")
    seconds: float
    tuned_threshold: float | None = Field(description="Best-F1 threshold on all calibration parts pooled.")
    overall: Metrics
    datasets: dict[str, DatasetMetrics]
    tasks: dict[str, Metrics] = Field(description="Per task across datasets, at the overall thresholds.")
    examples: list[ExampleResult]


class EvalResult(_Model):
    created: str
    calibration_fraction: float
    seed: int
    datasets: list[str]
    n_examples: int
    split: dict[str, SplitInfo]
    configs: list[ConfigResult]
    notes: list[str] = Field(default_factory=list)


VerifierFactory = Callable[[str, Any], Any]


def _default_factory(spec: str, llm: Any) -> Any:
    from ..verifiers import make_verifier

    return make_verifier(spec, llm=llm)


def run_eval(
    examples: Sequence[EvalExample],
    configs: Sequence[EvalConfig],
    *,
    llm: Any = None,
    calibration_fraction: float = 0.5,
    seed: int = 13,
    progress: bool = True,
    verifier_factory: VerifierFactory | None = None,
) -> EvalResult:
    """Checks every example with every configuration and measures them side by side.

    ``verifier_factory(spec, llm)`` builds a verifier from a config's spec (default:
    ``guardrail.verifiers.make_verifier``); pass your own to evaluate a verifier class of yours.
    Every verifier is built before any example is checked, so a bad spec fails at once.
    """
    from tqdm import tqdm

    from ..guardrail import Guardrail

    if not examples:
        raise InputError("no examples to evaluate")
    if not configs:
        raise InputError("no verifier configuration to evaluate")
    if not 0.0 <= calibration_fraction < 1.0:
        raise InputError(f"calibration_fraction must be within 0..1 (1 excluded), got {calibration_fraction}")
    names = [c.name for c in configs]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise InputError(f"configuration names must be unique: {', '.join(dupes)} given more than once")
    ids = [e.id for e in examples]
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise InputError(f"example ids must be unique: '{dup}' appears more than once")

    parts = split_parts(examples, calibration_fraction, seed)
    factory = verifier_factory or _default_factory
    guards = [Guardrail(verifier=factory(c.verifier, llm), threshold=c.threshold) for c in configs]
    meter = getattr(llm, "usage", None) if callable(getattr(llm, "usage", None)) else None

    out: list[ConfigResult] = []
    for cfg, guard in zip(configs, guards):
        _clear_shared_caches()
        t0 = time.perf_counter()
        _warm_up(guard, examples[0])
        clear = getattr(guard.verifier, "clear_cache", None)
        if callable(clear):  # a verdict cache (CoVe's) filled by the warm-up would hide the first example's cost
            clear()
        results = [
            _check(guard, ex, parts[ex.id], meter)
            for ex in tqdm(examples, desc=cfg.name, unit="ex", disable=not progress, file=sys.stderr, leave=False)
        ]
        used = cfg.model_copy(update={"threshold": guard.threshold})
        out.append(_score_config(used, guard.threshold, guard.verifier.name, results, time.perf_counter() - t0))

    datasets = list(dict.fromkeys(e.dataset for e in examples))
    split = {d: _split_info([e for e in examples if e.dataset == d], parts) for d in datasets}
    notes = []
    for d, info in split.items():
        if not info.evaluation_examples:
            notes.append(f"{d}: no evaluation part ({info.calibration_groups} group(s), all used for calibration)")
        elif calibration_fraction and not info.calibration_examples:
            notes.append(f"{d}: no calibration part; its tuned threshold is missing")
    unlabelled = sum(e.hallucinated is None for e in examples)
    if unlabelled:
        notes.append(f"{unlabelled} example(s) have no gold label: checked, but in no metric")
    errors = {r.config.name: sum(e.error is not None for e in r.examples) for r in out}
    notes += [f"{name}: {n} example(s) could not be checked (see 'error' in the examples)" for name, n in errors.items() if n]
    return EvalResult(
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        calibration_fraction=calibration_fraction,
        seed=seed,
        datasets=datasets,
        n_examples=len(examples),
        split=split,
        configs=out,
        notes=notes,
    )


def split_parts(examples: Sequence[EvalExample], calibration_fraction: float, seed: int) -> dict[str, str]:
    """Example id -> "calibration" | "evaluation", by group, per dataset (see the module docstring)."""
    keys_by_dataset: dict[str, set[str]] = defaultdict(set)
    for ex in examples:
        keys_by_dataset[ex.dataset].add(_group(ex))
    part_of: dict[tuple[str, str], str] = {}
    for dataset, keys in keys_by_dataset.items():
        order = sorted(keys)
        random.Random(seed).shuffle(order)
        for i, key in enumerate(order):
            # Deal evenly: group i goes to calibration when the running quota ceil(k * f) steps up.
            # round() keeps 0.1 * 30 from landing a hair above 3.
            step = math.ceil(round((i + 1) * calibration_fraction, 9)) > math.ceil(round(i * calibration_fraction, 9))
            part_of[(dataset, key)] = "calibration" if step else "evaluation"
    return {ex.id: part_of[(ex.dataset, _group(ex))] for ex in examples}


def _group(ex: EvalExample) -> str:
    return ex.group if ex.group is not None else f"id:{ex.id}"


def _split_info(examples: list[EvalExample], parts: Mapping[str, str]) -> SplitInfo:
    cal = [e for e in examples if parts[e.id] == "calibration"]
    ev = [e for e in examples if parts[e.id] == "evaluation"]
    return SplitInfo(
        calibration_examples=len(cal),
        calibration_groups=len({_group(e) for e in cal}),
        evaluation_examples=len(ev),
        evaluation_groups=len({_group(e) for e in ev}),
    )


def _clear_shared_caches() -> None:
    """Empty the process-wide embedding cache before each configuration. Without this the second
    configuration finds every context already embedded by the first and its latency looks several
    times better than it is (measured: p50 34 ms vs 6 ms for the same heuristic verifier)."""
    from ..embeddings import Embedder

    shared = getattr(Embedder, "_default", None)
    if shared is None:
        return
    shared.clear_cache()


def _warm_up(guard: Any, ex: EvalExample) -> None:
    """One untimed check first: models load lazily on first use, and that one-off cost is not the
    latency of a check. Its outcome is discarded; the example is checked again, timed, like the rest."""
    try:
        guard.check(ex.response, ex.context, ex.question)
    except Exception:  # noqa: BLE001, S110 - the timed check of the same example records the error
        pass


def _check(guard: Any, ex: EvalExample, part: str, meter: Callable[[], Any] | None = None) -> ExampleResult:
    base: dict[str, Any] = {
        "id": ex.id,
        "dataset": ex.dataset,
        "task": ex.task,
        "group": _group(ex),
        "part": part,
        "hallucinated": ex.hallucinated,
        "gold_spans": [(s.start, s.end) for s in ex.spans] if ex.spans is not None else None,
    }
    before = meter() if meter is not None else None
    t0 = time.perf_counter()
    try:
        report = guard.check(ex.response, ex.context, ex.question)
    except Exception as exc:  # noqa: BLE001 - recorded and counted per example; the run goes on
        return ExampleResult(**base, error=f"{type(exc).__name__}: {exc}")
    latency = (time.perf_counter() - t0) * 1000.0
    if report.verifier_failure is not None:  # the verifier raised; the pipeline kept it as a skipped check
        return ExampleResult(**base, error=report.verifier_failure)
    if meter is not None:  # checks run one at a time, so the difference is this check's own
        spent = meter().minus(before)
        base |= {"llm_calls": spent.calls, "llm_tokens": spent.total_tokens}
    verdicts = {v.claim_id: v for v in report.verdicts}
    claims = []
    for c in report.claims:
        v = verdicts.get(c.id)
        scored = v if v is not None and v.label is not Label.unevaluatable else None
        claims.append(
            ClaimResult(
                start=c.start,
                end=c.end,
                label=v.label.value if v else Label.unevaluatable.value,
                score=scored.hallucination_score if scored is not None else None,
                flagged=bool(v and v.label in HALLUCINATED_LABELS and v.hallucination_score >= report.threshold),
            )
        )
    return ExampleResult(
        **base,
        score=report.hallucination_score,
        flagged=report.hallucinated,
        complete=report.complete,
        latency_ms=round(latency, 3),
        claims=claims,
    )


# ------------------------------------------------------------------------------------------ scoring


def _scored(results: Sequence[ExampleResult]) -> list[ExampleResult]:
    return [r for r in results if r.error is None and r.hallucinated is not None and r.score is not None]


def _score(r: ExampleResult) -> float:
    """The score of a result that ``_scored`` kept."""
    assert r.score is not None, "only for the results _scored keeps"
    return r.score


def _tune(results: Sequence[ExampleResult]) -> float | None:
    from . import metrics as M

    cal = [r for r in _scored(results) if r.part == "calibration"]
    best = M.best_f1_threshold([bool(r.hallucinated) for r in cal], [_score(r) for r in cal]) if cal else None
    return best[0] if best else None


def _score_config(
    cfg: EvalConfig, policy: float, verifier_name: str, results: list[ExampleResult], seconds: float
) -> ConfigResult:
    pooled = _tune(results)
    datasets: dict[str, DatasetMetrics] = {}
    for d in dict.fromkeys(r.dataset for r in results):
        mine = [r for r in results if r.dataset == d]
        t = _tune(mine)
        tasks = {task: compute_metrics([r for r in mine if r.task == task], policy, t)
                 for task in _tasks(mine)}
        datasets[d] = DatasetMetrics(**compute_metrics(mine, policy, t).model_dump(), tuned_threshold=t, tasks=tasks)
    return ConfigResult(
        config=cfg,
        verifier_name=verifier_name,
        seconds=round(seconds, 3),
        tuned_threshold=pooled,
        overall=compute_metrics(results, policy, pooled),
        datasets=datasets,
        tasks={task: compute_metrics([r for r in results if r.task == task], policy, pooled) for task in _tasks(results)},
        examples=results,
    )


def _mean(values: Sequence[int]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def _tasks(results: Sequence[ExampleResult]) -> list[str]:
    return sorted({r.task for r in results if r.task is not None})


def compute_metrics(results: Sequence[ExampleResult], policy_threshold: float, tuned_threshold: float | None) -> Metrics:
    """Metrics of one scope (all, a dataset, a task) on its evaluation part; latency over the whole scope."""
    from . import metrics as M

    ev_all = [r for r in results if r.part == "evaluation"]
    ev = _scored(ev_all)
    lat = M.latency_percentiles([r.latency_ms for r in results if r.latency_ms is not None])
    m = Metrics(
        n=len(ev),
        hallucinated=sum(bool(r.hallucinated) for r in ev),
        errors=sum(r.error is not None for r in ev_all),
        incomplete=sum(r.complete is False for r in ev_all),
        latency_p50_ms=lat["p50"],
        latency_p95_ms=lat["p95"],
        llm_calls_per_answer=_mean([r.llm_calls for r in results if r.llm_calls is not None]),
        llm_tokens_per_answer=_mean([r.llm_tokens for r in results if r.llm_tokens is not None]),
    )
    if not ev:
        return m
    y = [bool(r.hallucinated) for r in ev]
    s = [_score(r) for r in ev]
    m.auc = M.roc_auc(y, s)
    m.average_precision = M.average_precision(y, s)
    m.ece = M.ece(y, s)
    m.policy = _at(ev, policy_threshold, lambda r: bool(r.flagged), lambda c: c.flagged)
    if tuned_threshold is not None:
        t = tuned_threshold
        m.tuned = _at(ev, t, lambda r: _score(r) >= t, lambda c: c.score is not None and c.score >= t)
    return m


def _at(
    ev: list[ExampleResult],
    threshold: float,
    response_flag: Callable[[ExampleResult], bool],
    claim_flag: Callable[[ClaimResult], bool],
) -> ThresholdMetrics:
    from . import metrics as M

    y = [bool(r.hallucinated) for r in ev]
    pred = [response_flag(r) for r in ev]
    p, rec, f1 = M.precision_recall_f1(y, pred)
    with_spans = [r for r in ev if r.gold_spans is not None]
    span = (
        M.span_f1([([(c.start, c.end) for c in r.claims if claim_flag(c)], r.gold_spans or []) for r in with_spans])
        if with_spans
        else None
    )
    return ThresholdMetrics(
        threshold=threshold,
        flagged=sum(pred),
        precision=p,
        recall=rec,
        f1=f1,
        balanced_accuracy=M.balanced_accuracy(y, pred),
        span_f1=span,
        proxy=_proxy(ev, claim_flag),
    )


def _proxy(ev: list[ExampleResult], claim_flag: Callable[[ClaimResult], bool]) -> ProxyResult | None:
    from . import metrics as M

    # Only where response labels are all there is: with gold spans, span F1 measures the claims directly.
    ev = [r for r in ev if r.gold_spans is None]
    labels_by_group: dict[str, set[bool]] = defaultdict(set)
    for r in ev:
        labels_by_group[r.group].add(bool(r.hallucinated))
    paired = {g for g, labels in labels_by_group.items() if len(labels) == 2}
    if not paired:
        return None
    claims = [(bool(r.hallucinated), c, c.score)
              for r in ev if r.group in paired for c in r.claims if c.score is not None]
    if not claims:
        return None
    pm = M.proxy_metrics([y for y, _, _ in claims], [s for _, _, s in claims], [claim_flag(c) for _, c, _ in claims])
    return ProxyResult(
        pairs=len(paired),
        clean_claims=pm.clean_claims,
        hallucinated_claims=pm.hallucinated_claims,
        clean_flag_rate=pm.clean_flag_rate,
        hallucinated_flag_rate=pm.hallucinated_flag_rate,
        flag_rate_ratio=pm.flag_rate_ratio,
        claim_auc=pm.claim_auc,
    )
