"""Dev-split evaluation of the grounding detectors, side by side, and a latency benchmark.

    python benchmarks/eval_grounding.py quality [--work /work/runs/grounding] [--json out.json]
    python benchmarks/eval_grounding.py latency [--runs 30] [--json out.json]

quality: on the RAGTruth dev split (``guardrail.datasets.split_ragtruth``: grouped by source context,
stratified by task), every detector gets the same claims and evidence windows (the runtime pipeline).
Thresholds are picked on dev half A and every number is measured on half B, the half the shipped
model's calibration never saw. Detectors:

- grounding-minilm: the shipped cross-encoder (calibrated hallucination score per claim)
- heuristic: the interim ``HeuristicVerifier``
- token overlap: share of content words absent from the context (AWS write-up); response score is
  the share over the whole response, a claim's over the claim
- embedding similarity: 1 - max cosine between a claim and any context sentence (AWS write-up)
- flag everything: the floor any detector must clear

A response counts as hallucinated when its highest claim score clears the threshold. Span F1 is
character-level against the gold spans (flagged claims' characters vs gold characters, micro-averaged),
with the claim threshold tuned for span F1 on half A. ECE (10 bins) is claim-level, for the
detectors whose score claims to be a probability.

latency: p50/p95 of ``Guardrail.check`` (the model folder, or ``--verifier SPEC``) on a typical answer (5 claims, ~2k-token context),
answers/s of ``check_batch``, peak RSS.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import guardrail.train.grounding as tg  # noqa: E402  (shares the pair building and the dev halves)
from guardrail.eval import metrics  # noqa: E402
from guardrail.errors import GuardrailError  # noqa: E402

TASKS = ("QA", "Summary", "Data2txt")
_WORD = re.compile(r"[A-Za-z0-9]+(?:[.,'][A-Za-z0-9]+)*")
_STOP = frozenset(
    """a an the and or but if then than that this these those is are was were be been being am do does did
    has have had having of in on at to for from by with without about as into onto over under between
    through during before after above below up down out off again further once here there when where why
    how all any both each few more most other some such no nor not only own same so too very can will
    just should now it its it's they them their theirs he him his she her hers we us our ours you your
    yours i me my mine who whom which what also may might must would could shall""".split()
)


def content_words(text: str) -> list[str]:
    return [w for w in (m.group(0).lower() for m in _WORD.finditer(text)) if w not in _STOP]


# ----------------------------------------------------------------------------------------------
# metrics: the ones `guardrail eval` reports, so the two tools cannot disagree
def auc(y: np.ndarray, s: np.ndarray) -> float:
    v = metrics.roc_auc(np.asarray(y, bool), np.asarray(s, float))
    return float("nan") if v is None else v


def ece(y: np.ndarray, p: np.ndarray, bins: int = 10) -> float:
    v = metrics.ece(np.asarray(y, bool), np.asarray(p, float), bins)
    return float("nan") if v is None else v


def prf(pred: np.ndarray, gold: np.ndarray) -> tuple[float, float, float]:
    return metrics.precision_recall_f1(np.asarray(gold, bool), np.asarray(pred, bool))


def span_counts(claims: list[tuple[int, int, float]], gold: list[tuple[int, int]], t: float) -> tuple[int, int, int]:
    return metrics.span_counts([(a, b) for a, b, s in claims if s >= t], gold)


def span_f1(resp: list[dict], t: float) -> float:
    tp = fp = fn = 0
    for r in resp:
        a, b, c = span_counts(r["claims"], r["gold"], t)
        tp, fp, fn = tp + a, fp + b, fn + c
    return 2 * tp / max(1, 2 * tp + fp + fn)


def tune(resp: list[dict], key: str, objective) -> float:
    cands = sorted({round(float(x), 4) for x in _values(resp, key)})
    if len(cands) > 400:
        cands = list(np.quantile(cands, np.linspace(0, 1, 400)))
    return max(cands, key=objective) if cands else 0.5


def _values(resp: list[dict], key: str):
    for r in resp:
        if key == "claims":
            yield from (s for _, _, s in r["claims"])
        else:
            yield r[key]


def response_f1(resp: list[dict], t: float) -> float:
    pred = np.array([r["score"] >= t for r in resp])
    gold = np.array([r["hallucinated"] for r in resp])
    return prf(pred, gold)[2]


def evaluate(resp_a: list[dict], resp_b: list[dict], probabilistic: bool) -> dict[str, Any]:
    """Thresholds tuned on half A; metrics measured on half B, overall and per task."""
    t_resp = tune(resp_a, "score", lambda t: response_f1(resp_a, t))
    t_span = tune(resp_a, "claims", lambda t: span_f1(resp_a, t))
    out: dict[str, Any] = {"threshold": t_resp, "span_threshold": t_span}
    for task in ("all",) + TASKS:
        rs = [r for r in resp_b if task == "all" or r["task"] == task]
        if not rs:
            continue
        pred = np.array([r["score"] >= t_resp for r in rs])
        gold = np.array([r["hallucinated"] for r in rs])
        p, r_, f = prf(pred, gold)
        cy = np.array([lab for r in rs for lab in r["claim_gold"]], bool)
        cs = np.array([s for r in rs for _, _, s in r["claims"]], float)
        m = {"n": len(rs), "precision": p, "recall": r_, "f1": f, "auc": auc(gold, np.array([r["score"] for r in rs])),
             "claim_auc": auc(cy, cs), "span_f1": span_f1(rs, t_span), "span_f1_at_response_threshold": span_f1(rs, t_resp)}
        if probabilistic:
            m["ece"] = ece(cy, cs)
        out[task] = m
    return out


# ----------------------------------------------------------------------------------------------
# detectors: each returns {claim key: score}
def ce_scores(work: Path, recs: list[dict], model_dir: str | None, threads: int | None) -> list[float]:
    """Calibrated claim scores of the model folder; the raw probabilities are cached per model file
    (the same cache the calibration stage fills), so one dev pass serves both."""
    from guardrail.verifiers.crossencoder import CrossEncoderVerifier

    v = CrossEncoderVerifier(model_dir, threads=threads)
    probs = tg.dev_probs(work, v, recs)
    empty = [not any(w["text"].strip() for w in r["item"]["windows"]) for r in recs]
    # Claims with no window are unevaluatable in verify(): score 0.5, as the protocol says.
    feats = tg.heuristic_features(work, "dev", recs, v.fusion.get("similarity", "embedding")) if v.fusion is not None else None
    if feats is not None:
        feats = np.nan_to_num(feats)  # rows without a window are set to 0.5 below
    return [0.5 if e else float(s) for e, s in zip(empty, v.calibrate(probs, feats))]


def ce_alone_scores(work: Path, recs: list[dict], model_dir: str | None, threads: int | None) -> list[float]:
    """The cross-encoder's own P(not supported), before the fusion head: what the model adds by itself."""
    from guardrail.verifiers.crossencoder import CrossEncoderVerifier

    v = CrossEncoderVerifier(model_dir, threads=threads)
    probs = tg.dev_probs(work, v, recs)
    sup = v.labels.index("supported")
    empty = [not any(w["text"].strip() for w in r["item"]["windows"]) for r in recs]
    return [0.5 if e else float(1 - p[sup]) for e, p in zip(empty, probs)]


def heuristic_scores(work: Path, recs: list[dict]) -> list[float]:
    """The interim heuristic's claim scores from the feature rows the fusion head also uses (cached
    under ``work``): the same numbers ``HeuristicVerifier.verify`` gives, without a second pass."""
    from guardrail.verifiers.heuristic import HeuristicVerifier

    feats = tg.heuristic_features(work, "dev", recs)
    return [0.5 if np.isnan(x).any() else HeuristicVerifier.score(x) for x in feats]


def context_text(row: Any) -> str:
    from guardrail.evidence import normalize_context

    return "\n".join(e.text for e in normalize_context(tg.ragtruth_context(row)))


def overlap_scores(recs: list[dict], rows: dict[str, Any]) -> tuple[list[float], dict[str, float]]:
    vocab_cache: dict[str, set[str]] = {}

    def vocab(rid: str) -> set[str]:
        if rid not in vocab_cache:
            vocab_cache[rid] = set(content_words(context_text(rows[rid])))
        return vocab_cache[rid]

    claim = []
    for r in recs:
        words = content_words(r["item"]["claim"]["text"])
        v = vocab(r["rid"])
        claim.append(sum(w not in v for w in words) / len(words) if words else 0.0)
    resp = {}
    for rid in {r["rid"] for r in recs}:
        words = content_words(tg._get(rows[rid], "response"))
        v = vocab(rid)
        resp[rid] = sum(w not in v for w in words) / len(words) if words else 0.0
    return claim, resp


def embedding_scores(recs: list[dict], rows: dict[str, Any]) -> list[float]:
    from guardrail.claims import split_sentences
    from guardrail.embeddings import Embedder

    emb = Embedder.default()
    ctx_vecs: dict[str, np.ndarray] = {}
    by_ctx: dict[str, list[str]] = {}
    for rid in {r["rid"] for r in recs}:
        text = context_text(rows[rid])
        key = tg._context_key(rows[rid])
        if key not in ctx_vecs:
            sents = [text[a:b] for a, b in split_sentences(text) if text[a:b].strip()] or [text]
            ctx_vecs[key] = _unit(np.asarray(emb.encode(sents)))
        by_ctx[rid] = key
    claims = _unit(np.asarray(emb.encode([r["item"]["claim"]["text"] for r in recs])))
    return [float(1 - (ctx_vecs[by_ctx[r["rid"]]] @ c).max()) for r, c in zip(recs, claims)]


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)


def responses(recs: list[dict], scores: list[float], rows: dict[str, Any], resp_score: dict[str, float] | None = None):
    by: dict[str, dict] = {}
    for r, s in zip(recs, scores):
        rid = r["rid"]
        if rid not in by:
            labels = tg.gold_spans(rows[rid])
            by[rid] = {"rid": rid, "task": r["task"], "hallucinated": bool(labels), "claims": [], "claim_gold": [],
                       "gold": [(int(x["start"]), int(x["end"])) for x in labels], "score": 0.0}
        c = r["item"]["claim"]
        by[rid]["claims"].append((c["start"], c["end"], float(s)))
        by[rid]["claim_gold"].append(r["label"] != "supported")
        by[rid]["score"] = max(by[rid]["score"], float(s))
    # Responses with no claim at all: nothing to flag.
    for rid, row in rows.items():
        if rid not in by:
            labels = tg.gold_spans(row)
            by[rid] = {"rid": rid, "task": tg._get(row, "task_type"), "hallucinated": bool(labels), "claims": [],
                       "claim_gold": [], "gold": [(int(x["start"]), int(x["end"])) for x in labels], "score": 0.0}
    if resp_score is not None:
        for rid, s in resp_score.items():
            by[rid]["score"] = s
    return by


def quality(args: argparse.Namespace) -> dict[str, Any]:

    work = Path(args.work)
    if not (work / "pairs.jsonl").exists():
        raise SystemExit(f"no cached pairs under {work}: run `python scripts/train_grounding.py build --work {work}`")
    recs = [p for p in tg.read_pairs(work) if p["split"] == "dev"]
    _, dev_rows = tg.load_split(0.1, 13)
    # Only the context groups the pairs were built for (build may sample dev by whole groups);
    # a response of such a group with no claim at all still counts, with nothing flagged.
    built = {str(r["rid"]) for r in recs}
    keys = {tg._context_key(r) for r in dev_rows if str(tg._get(r, "id")) in built}
    rows = {str(tg._get(r, "id")): r for r in dev_rows if tg._context_key(r) in keys}
    half_a, half_b = tg.dev_halves(list(rows), args.seed)
    detectors: dict[str, tuple[list[float], dict[str, float] | None, bool]] = {}
    timings: dict[str, float] = {}
    skipped: dict[str, str] = {}

    def run(name: str, fn) -> None:
        t0 = time.time()
        try:
            detectors[name] = fn()
        except (ImportError, GuardrailError) as exc:  # a detector that cannot run is reported, not hidden
            skipped[name] = f"{type(exc).__name__}: {exc}"
            print(f"skipped {name}: {skipped[name]}", file=sys.stderr)
        timings[name] = round(time.time() - t0, 1)

    run("grounding-minilm (ours)", lambda: (ce_scores(work, recs, args.model_dir, args.threads), None, True))
    run("cross-encoder alone (no fusion)", lambda: (ce_alone_scores(work, recs, args.model_dir, args.threads), None, False))
    if not args.skip_heuristic:
        run("heuristic (interim)", lambda: (heuristic_scores(work, recs), None, True))
    run("token overlap", lambda: (*overlap_scores(recs, rows), False))
    run("embedding similarity", lambda: (embedding_scores(recs, rows), None, False))
    detectors["flag everything"] = ([1.0] * len(recs), {rid: 1.0 for rid in rows}, False)
    results: dict[str, Any] = {"split": {"dev_responses": len(rows), "half_a": len(half_a), "half_b": len(half_b),
                                         "claims": len(recs)}, "detectors": {}, "seconds": timings,
               "skipped": skipped}
    for name, (scores, resp_score, probabilistic) in detectors.items():
        by = responses(recs, scores, rows, resp_score)
        results["detectors"][name] = evaluate([by[r] for r in sorted(half_a)], [by[r] for r in sorted(half_b)],
                                              probabilistic)
    return results


def markdown(results: dict[str, Any]) -> str:
    lines = ["| detector | task | P | R | F1 | AUC | claim AUC | span F1 | ECE |", "|---|---|---|---|---|---|---|---|---|"]
    for name, res in results["detectors"].items():
        for task in ("all",) + TASKS:
            if task not in res:
                continue
            m = res[task]
            e = f"{m['ece']:.3f}" if "ece" in m else "—"
            lines.append(f"| {name} | {task} (n={m['n']}) | {m['precision']:.3f} | {m['recall']:.3f} | {m['f1']:.3f} | "
                         f"{m['auc']:.3f} | {m['claim_auc']:.3f} | {m['span_f1']:.3f} | {e} |")
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------
# latency
def latency(args: argparse.Namespace) -> dict[str, Any]:
    from tokenizers import Tokenizer

    from guardrail.claims import SentenceClaimExtractor
    from guardrail.verifiers.crossencoder import DEFAULT_MODEL_DIR

    # The model's own tokenizer (the embedder's, same MiniLM vocabulary, when no model folder is given),
    # only to count context tokens the way the model does.
    folder = Path(args.model_dir or DEFAULT_MODEL_DIR)
    if not (folder / "tokenizer.json").is_file():
        folder = REPO / "guardrail" / "models" / "minilm-l6-embed"
    tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    _, dev = tg.load_split(0.1, 13)
    ex = SentenceClaimExtractor()
    articles = [tg._get(r, "context") for r in dev if tg._get(r, "task_type") == "Summary"]
    cases = []
    for r in dev:
        if tg._get(r, "task_type") != "Summary" or len(ex.extract(tg._get(r, "response"))) != 5:
            continue
        ctx = tg.ragtruth_context(r)
        k = 0
        while len(tok.encode(ctx).ids) < 1900:  # pad to ~2k tokens with other articles, as a retriever would
            ctx += "\n\n" + articles[k % len(articles)]
            k += 1
        cases.append((tg._get(r, "response"), ctx, tg._get(r, "query")))
        if len(cases) >= args.batch_answers:
            break
    # Timed in a fresh process, so peak RSS is the guardrail's, not this loader's copy of RAGTruth.
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump({"cases": cases, "context_tokens": len(tok.encode(cases[0][1]).ids)}, fh)
    cmd = [sys.executable, __file__, "latency-run", "--cases", fh.name, "--runs", str(args.runs),
           "--threads", str(args.threads)] + (["--model-dir", args.model_dir] if args.model_dir else []) + (
           ["--verifier", args.verifier] if args.verifier else [])
    try:
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    finally:
        os.unlink(fh.name)
    return json.loads(out)


def latency_run(args: argparse.Namespace) -> dict[str, Any]:
    from guardrail import Guardrail
    from guardrail.verifiers.crossencoder import CrossEncoderVerifier

    spec = json.loads(Path(args.cases).read_text())
    cases = spec["cases"]
    if args.verifier:
        from guardrail.verifiers import make_verifier

        verifier = make_verifier(args.verifier)
    else:
        verifier = CrossEncoderVerifier(args.model_dir, threads=args.threads)
    g = Guardrail(verifier=verifier)
    answer, ctx, q = cases[0]
    for _ in range(3):
        g.check(answer, ctx, q)
    times, stages = [], defaultdict(list)
    for i in range(args.runs):
        answer, ctx, q = cases[i % len(cases)]
        t0 = time.perf_counter()
        rep = g.check(answer, ctx, q)
        times.append((time.perf_counter() - t0) * 1000)
        for k, v in rep.latencies_ms.items():
            stages[k].append(v)
    t0 = time.perf_counter()
    n = sum(1 for _ in g.check_batch([{"response": a, "context": c, "question": q} for a, c, q in cases], chunk_size=16))
    batch_s = time.perf_counter() - t0
    model_ms = None
    if hasattr(verifier, "predict"):  # the cross-encoder alone, per (premise, claim) pair
        pairs = [(cases[0][1][:1000], "The claim to check.")] * 64
        t0 = time.perf_counter()
        verifier.predict(pairs, batch_size=32)
        model_ms = (time.perf_counter() - t0) * 1000 / len(pairs)
    return {
        "verifier": getattr(verifier, "name", type(verifier).__name__),
        "answer_claims": 5,
        "context_tokens": spec["context_tokens"],
        "threads": args.threads,
        "check_ms_p50": float(np.percentile(times, 50)),
        "check_ms_p95": float(np.percentile(times, 95)),
        "stage_ms_p50": {k: float(np.percentile(v, 50)) for k, v in stages.items()},
        "model_ms_per_pair_256_tokens": model_ms,
        "batch_answers": n,
        "batch_answers_per_s": n / batch_s,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "load_average": os.getloadavg(),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=["quality", "latency", "latency-run"])
    ap.add_argument("--cases", help=argparse.SUPPRESS)
    ap.add_argument("--work", default=os.environ.get("GUARDRAIL_TRAIN_WORK", "runs/grounding"),
                    help="Folder with the cached dev pairs (scripts/train_grounding.py build).")
    ap.add_argument("--model-dir", default=None, help="Grounding model folder (default: the shipped one).")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--verifier", default=None,
                    help="latency: a verifier spec (e.g. default, heuristic) instead of the model folder")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--skip-heuristic", action="store_true")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--batch-answers", type=int, default=64)
    ap.add_argument("--json", default=None, help="Write the results here as JSON.")
    args = ap.parse_args(argv)
    if args.what == "latency-run":  # the child process of `latency`
        print(json.dumps(latency_run(args)))
        return 0
    res = quality(args) if args.what == "quality" else latency(args)
    if args.what == "quality":
        print(markdown(res))
    else:
        print(json.dumps(res, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
