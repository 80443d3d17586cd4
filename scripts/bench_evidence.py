"""Measure evidence selection: recall of the gold supporting sentences on WiCE, and speed.

    HF_HUB_OFFLINE=1 .venv/bin/python scripts/bench_evidence.py recall   # WiCE claim dev, top-k windows
    HF_HUB_OFFLINE=1 .venv/bin/python scripts/bench_evidence.py speed    # 1 MB context; BM25 numpy vs bm25s

Recall: WiCE (Kamoi et al. 2023) gives, per claim, the evidence as a list of sentences and one or more
alternative sets of sentences that support it. The evidence is joined one sentence per line, windowed by
make_windows, and ranked per claim. "hit@k": a gold sentence lies inside one of the top-k windows;
"full@k": every sentence of at least one gold set lies inside the top-k windows.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from guardrail.datasets import data_dir, load_ragtruth  # noqa: E402
from guardrail.embeddings import Embedder  # noqa: E402
from guardrail.evidence import BM25, EvidenceSelector, content_terms, make_windows, normalize_context  # noqa: E402
from guardrail.types import Claim, Evidence  # noqa: E402


def _ranks(scores: np.ndarray) -> np.ndarray:
    order = np.argsort(-scores, kind="stable")
    ranks = np.empty(len(scores), dtype=np.int64)
    ranks[order] = np.arange(len(scores))
    return ranks


def fuse_minmax(lex: np.ndarray, dense: np.ndarray, alpha: float) -> np.ndarray:
    def mm(x):
        lo, hi = x.min(axis=1, keepdims=True), x.max(axis=1, keepdims=True)
        return (x - lo) / np.maximum(hi - lo, 1e-9)

    return alpha * mm(lex) + (1 - alpha) * mm(dense)


def fuse_rrf(lex: np.ndarray, dense: np.ndarray, k: int) -> np.ndarray:
    out = np.zeros_like(dense)
    for i in range(len(lex)):
        out[i] = 1 / (k + 1 + _ranks(lex[i])) + 1 / (k + 1 + _ranks(dense[i]))
    return out + 1e-6 * dense  # ties (one rank each way) go to the closer embedding


def cmd_recall(args) -> None:
    path = data_dir() / "dev" / "wice_claim_dev.jsonl.gz"
    rows = [json.loads(line) for line in gzip.open(path, "rt", encoding="utf-8")]
    rows = [r for r in rows if any(s for s in r["supporting_sentences"])]
    emb = Embedder(threads=args.threads, cache_size=200_000)
    results: dict[str, list[tuple[int, int]]] = {}
    n_windows = []
    for r in rows:
        sents = r["evidence"]
        text = "\n".join(sents)
        offs, pos = [], 0
        for s in sents:
            offs.append((pos, pos + len(s)))
            pos += len(s) + 1
        ev = Evidence(id="1", text=text)
        ws = make_windows(ev, args.max_tokens, 1)
        n_windows.append(len(ws))
        sel = EvidenceSelector(method="bm25", embedder=emb)
        lex = sel.score([r["claim"]], ws)
        dense = EvidenceSelector(method="embedding", embedder=emb).score([r["claim"]], ws)
        variants = {
            "bm25": lex,
            "embedding": dense,
            "rrf60": fuse_rrf(lex, dense, 60),
            "rrf10": fuse_rrf(lex, dense, 10),
            "minmax0.3": fuse_minmax(lex, dense, 0.3),
            "minmax0.5": fuse_minmax(lex, dense, 0.5),
            "minmax0.7": fuse_minmax(lex, dense, 0.7),
        }
        gold_sets = [set(g) for g in r["supporting_sentences"] if g]
        for name, sc in variants.items():
            top = np.argsort(-sc[0], kind="stable")[: args.top_k]
            inside = {
                i
                for i, (a, b) in enumerate(offs)
                if b > a and any(ws[t].start <= a and b <= ws[t].end for t in top)
            }
            hit = int(any(g & inside for g in gold_sets))
            full = int(any(g <= inside for g in gold_sets))
            results.setdefault(name, []).append((hit, full))
    print(f"{len(rows)} WiCE claims with gold sentences; windows per claim: mean {np.mean(n_windows):.1f}, "
          f"max {max(n_windows)}; max_tokens {args.max_tokens}, top_k {args.top_k}")
    for name, v in results.items():
        a = np.array(v)
        print(f"  {name:10s} hit@{args.top_k} {a[:, 0].mean():.3f}  full@{args.top_k} {a[:, 1].mean():.3f}")


def _megabyte_context() -> str:
    rows = load_ragtruth(task_types=["Summary", "QA"])
    seen, parts, size = set(), [], 0
    for r in rows:
        if r.context not in seen:
            seen.add(r.context)
            parts.append(r.context)
            size += len(r.context) + 2
            if size >= 1_000_000:
                break
    return "\n\n".join(parts)[:1_000_000]


def cmd_speed(args) -> None:
    text = _megabyte_context()
    ev = normalize_context(text)
    t0 = time.perf_counter()
    ws = make_windows(ev[0])
    t_win = time.perf_counter() - t0
    print(f"1 MB context: {len(ws)} windows in {1000 * t_win:.0f} ms")

    import bm25s

    docs = [content_terms(w.text) for w in ws]
    queries = [content_terms(q) for q in ["Anne Frank died of typhus in 1945.", "The phone number of the butcher shop is (510) 889-8690."]]
    for name, corpus in [("1 MB", docs), ("5 windows", docs[:5])]:
        t0 = time.perf_counter()
        for _ in range(args.repeat):
            b = BM25(corpus)
            for q in queries:
                b.scores(q)
        t_np = (time.perf_counter() - t0) / args.repeat
        t0 = time.perf_counter()
        for _ in range(args.repeat):
            r = bm25s.BM25()
            r.index(corpus, show_progress=False)
            for q in queries:
                r.get_scores(q)
        t_lib = (time.perf_counter() - t0) / args.repeat
        print(f"BM25 index + 2 queries, {name}: numpy {1000 * t_np:.2f} ms, bm25s {1000 * t_lib:.2f} ms")

    emb = Embedder(threads=args.threads)
    rng = random.Random(0)
    sents = [s for s in text.split(". ") if 40 < len(s) < 200]
    claims = [Claim(id=str(i), text=s, start=0, end=len(s)) for i, s in enumerate(rng.sample(sents, 10))]
    for method in ["bm25", "hybrid"]:
        sel = EvidenceSelector(method=method, embedder=emb)
        emb._cache.clear()
        t0 = time.perf_counter()
        items = sel.select(claims, ev)
        dt = time.perf_counter() - t0
        found = sum(any(c.text in w.text for w in it.windows) for c, it in zip(claims, items))
        print(f"select {method:7s} 10 claims over 1 MB: {dt:.2f} s; the claim's own sentence in its top-3: {found}/10")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("command", choices=["recall", "speed"])
    ap.add_argument("--top-k", type=int, default=3)
    ap.add_argument("--max-tokens", type=int, default=200)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    (cmd_recall if args.command == "recall" else cmd_speed)(args)


if __name__ == "__main__":
    main()
