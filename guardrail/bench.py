"""``guardrail bench``: how fast the guard is on this machine, stage by stage, against the floor.

Why a command and not only a script: speed depends on the machine (cores, AVX-512, what else runs), so a
user deciding whether the guard fits in front of their users needs the numbers from their own machine,
with the load it ran under, not ours. Inputs are built from the bundled fact suites
(``guardrail/eval/data``), so the command needs no dataset: each answer joins the answers of five cases
(five claims, blatant errors and faithful rewordings alike) and its context joins their contexts with
other cases' contexts until it holds about 2,000 tokens, the shape of a typical RAG call.

Every check starts cold: the embedding cache and the per-context index cache (``evidence.INDEX_CACHE``)
are cleared before each one, because an answer's context is usually new to the guard (a repeated context
is faster; ``--warm`` measures that).

What it prints: p50 / p95 of ``Guardrail.check``; the stages (claims, evidence selection, verification)
with the time inside them spent in the embedding model and in the grounding model; everything that is not
model inference, and of it the heuristic's features and, within those, the fact checks; ``check_batch`` answers per second; peak RSS; the load average before and after; and the
same run with the token-overlap detector, the floor any verifier must be worth its cost against.
"""

from __future__ import annotations

import json
import os
import random
import resource
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib import resources
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from .errors import InputError
from .evidence import INDEX_CACHE, estimate_tokens

__all__ = ["BenchCase", "BenchResult", "bench_cases", "run_bench", "format_bench"]


class BenchCase(BaseModel):
    """One timed input: an answer of several claims and a context of about ``context_tokens`` tokens."""

    response: str
    context: list[str]
    question: str | None = None


class BenchResult(BaseModel):
    """What one verifier cost on this machine."""

    verifier: str
    answers: int = Field(description="Distinct inputs timed.")
    runs: int
    claims_per_answer: float
    context_tokens: float = Field(description="Mean estimated MiniLM tokens per context.")
    check_ms_p50: float
    check_ms_p95: float
    stage_ms_p50: dict[str, float] = Field(description="Per stage of Guardrail.check (latencies_ms), p50.")
    embedding_ms_p50: float = Field(description="Time in the sentence-embedding model per check, p50.")
    model_ms_p50: float = Field(description="Time in the grounding model per check, p50 (0 without one).")
    non_model_ms_p50: float = Field(description="Check time outside both models, p50.")
    features_ms_p50: float = Field(default=0.0, description="Time in the heuristic's features (the fact checks included) "
                                   "per check, p50 (0 for a verifier that does not read them).")
    facts_ms_p50: float = Field(default=0.0, description="Time in the fact checks per check, p50.")
    batch_answers_per_s: float
    peak_rss_mb: float
    threads: int | None
    cpu_count: int
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float]


def bench_cases(n: int = 30, claims: int = 5, context_tokens: int = 2000, seed: int = 13) -> list[BenchCase]:
    """``n`` inputs from the bundled fact suites (seeded): ``claims`` cases' answers joined into one
    answer, their contexts plus others' up to ``context_tokens`` tokens, shuffled, as one context."""
    rows = []
    for name in ("fact_cases.jsonl", "fact_cases_holdout.jsonl"):
        text = resources.files("guardrail.eval").joinpath("data").joinpath(name).read_text(encoding="utf-8")
        rows += [json.loads(line) for line in text.splitlines() if line.strip()]
    rows = [r for r in rows if isinstance(r.get("context"), str) and isinstance(r.get("answer"), str) and r["answer"].strip()]
    if len(rows) < claims:
        raise InputError(f"the bundled fact suites hold {len(rows)} usable cases; {claims} are needed per answer")
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        picked = rng.sample(rows, claims)
        passages = [r["context"] for r in picked]
        size = sum(estimate_tokens(p) for p in passages)
        while size < context_tokens:
            extra = rng.choice(rows)["context"]
            if extra not in passages:
                passages.append(extra)
                size += estimate_tokens(extra)
        rng.shuffle(passages)
        answer = " ".join(r["answer"].strip() for r in picked)
        out.append(BenchCase(response=answer, context=passages, question=picked[0].get("question")))
    return out


def _cold(embedder: Any) -> None:
    """Forget every context seen so far: the embedding cache and the per-context indexes."""
    INDEX_CACHE.clear()
    if embedder is not None:
        embedder.clear_cache()


@contextmanager
def _timed(obj: Any, method: str, sink: list[float]) -> Iterator[None]:
    """Adds the wall time of every call of ``obj.method`` to ``sink[0]`` while the block runs. ``obj`` may be an
    instance (its class's method shows through again afterwards), a class or a module (the original is put back)."""
    real = getattr(obj, method, None)
    if real is None:
        yield
        return
    owned = method in getattr(obj, "__dict__", {})

    def timed(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            sink[0] += (time.perf_counter() - t0) * 1000

    setattr(obj, method, timed)
    try:
        yield
    finally:
        if owned:
            setattr(obj, method, real)
        else:
            delattr(obj, method)  # the class's method shows through again


def run_bench(verifier: str = "default", runs: int = 30, answers: int = 30, *, warm: bool = False,
              threads: int | None = None, make_guardrail: Callable[[str], Any] | None = None) -> BenchResult:
    """Time ``runs`` checks (cycling over ``answers`` inputs, 3 warm-up checks first) and one
    ``check_batch`` over all inputs, with the verifier named by ``verifier`` (a verifier spec)."""
    from .embeddings import Embedder
    from .guardrail import Guardrail

    if runs < 1 or answers < 1:
        raise InputError(f"runs and answers must be at least 1, got {runs} and {answers}")
    if threads is not None:
        os.environ["GUARDRAIL_THREADS"] = str(threads)
    load_before = os.getloadavg()
    cases = bench_cases(answers)
    g = make_guardrail(verifier) if make_guardrail else Guardrail(verifier=verifier)
    for c in cases[:3]:
        g.check(c.response, c.context, c.question)
    # Only a verifier that embeds has loaded the model by now; loading it here would count its memory
    # against one that never uses it.
    embedder = Embedder.loaded()
    times: list[float] = []
    stages: dict[str, list[float]] = defaultdict(list)
    from .verifiers import heuristic

    embed_ms: list[float] = []
    model_ms: list[float] = []
    features_ms: list[float] = []
    facts_ms: list[float] = []
    claims: list[int] = []
    for i in range(runs):
        case = cases[i % len(cases)]
        if not warm:
            _cold(embedder)
        e_sink, m_sink, h_sink, f_sink = [0.0], [0.0], [0.0], [0.0]
        with _timed(embedder, "encode", e_sink), _timed(g.verifier, "predict", m_sink), \
                _timed(heuristic.HeuristicVerifier, "analyse", h_sink), _timed(heuristic, "check_facts", f_sink):
            t0 = time.perf_counter()
            report = g.check(case.response, case.context, case.question)
            times.append((time.perf_counter() - t0) * 1000)
        embed_ms.append(e_sink[0])
        model_ms.append(m_sink[0])
        features_ms.append(h_sink[0])
        facts_ms.append(f_sink[0])
        claims.append(len(report.claims))
        for k, v in report.latencies_ms.items():
            stages[k].append(v)
    if not warm:
        _cold(embedder)
    t0 = time.perf_counter()
    done = sum(1 for _ in g.check_batch([c.model_dump() for c in cases], chunk_size=16))
    batch_s = time.perf_counter() - t0
    non_model = [t - e - m for t, e, m in zip(times, embed_ms, model_ms)]
    return BenchResult(
        verifier=getattr(g.verifier, "name", verifier),
        answers=len(cases),
        runs=runs,
        claims_per_answer=float(np.mean(claims)),
        context_tokens=float(np.mean([sum(estimate_tokens(p) for p in c.context) for c in cases])),
        check_ms_p50=float(np.percentile(times, 50)),
        check_ms_p95=float(np.percentile(times, 95)),
        stage_ms_p50={k: float(np.percentile(v, 50)) for k, v in stages.items()},
        embedding_ms_p50=float(np.percentile(embed_ms, 50)),
        model_ms_p50=float(np.percentile(model_ms, 50)),
        non_model_ms_p50=float(np.percentile(non_model, 50)),
        features_ms_p50=float(np.percentile(features_ms, 50)),
        facts_ms_p50=float(np.percentile(facts_ms, 50)),
        batch_answers_per_s=done / batch_s,
        peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        threads=threads,
        cpu_count=os.cpu_count() or 0,
        load_before=load_before,
        load_after=os.getloadavg(),
    )


def format_bench(results: list[BenchResult]) -> str:
    """A plain-text table, one column per verifier."""
    if not results:
        return ""
    stages = [k for k in results[0].stage_ms_p50 if k != "total"]
    rows: list[tuple[str, list[str]]] = [
        ("check p50 ms", [f"{r.check_ms_p50:.1f}" for r in results]),
        ("check p95 ms", [f"{r.check_ms_p95:.1f}" for r in results]),
        *[(f"  stage {k} p50 ms", [f"{r.stage_ms_p50.get(k, 0.0):.1f}" for r in results]) for k in stages],
        ("  in the embedding model p50 ms", [f"{r.embedding_ms_p50:.1f}" for r in results]),
        ("  in the grounding model p50 ms", [f"{r.model_ms_p50:.1f}" for r in results]),
        ("  outside both models p50 ms", [f"{r.non_model_ms_p50:.1f}" for r in results]),
        ("    of which heuristic features p50 ms", [f"{r.features_ms_p50:.1f}" for r in results]),
        ("      of which fact checks p50 ms", [f"{r.facts_ms_p50:.1f}" for r in results]),
        ("check_batch answers/s", [f"{r.batch_answers_per_s:.1f}" for r in results]),
        ("peak RSS MB", [f"{r.peak_rss_mb:.0f}" for r in results]),
    ]
    width = max(len(label) for label, _ in rows) + 2
    cols = [max(len(r.verifier), 8) + 2 for r in results]
    head = " " * width + "".join(r.verifier.rjust(c) for r, c in zip(results, cols))
    lines = [head] + [label.ljust(width) + "".join(v.rjust(c) for v, c in zip(vals, cols)) for label, vals in rows]
    r0 = results[0]
    lines.append("")
    lines.append(f"{r0.answers} answers, {r0.claims_per_answer:.1f} claims and ~{r0.context_tokens:.0f} context tokens each; "
                 f"{r0.runs} cold checks per verifier; {r0.cpu_count} CPUs, threads {r0.threads or 'all'}; "
                 f"load average {r0.load_before[0]:.2f} before, {results[-1].load_after[0]:.2f} after")
    return "\n".join(lines)
