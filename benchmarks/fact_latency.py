"""What the fact checks add per claim, on real answers (RAGTruth dev), with context parsing cold and amortised.

    python benchmarks/fact_latency.py [--responses 200]

Why: the fact checks run on every claim of every answer, inline; their budget is 2 ms per claim on 2
cores. Evidence windows are selected once (not timed); then ``check_facts`` runs per claim, first with
an empty parse cache (every evidence sentence parsed for the first time: what the first claim of a
context pays) and then warm (what the other claims against the same context pay: parsing is cached
per sentence). Prints the mean and p95 per claim of each, as CPU time of this thread
(``time.thread_time``): the cost itself, the same on a quiet machine and on one shared with other jobs;
``--wall`` measures wall-clock time instead.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def main() -> int:
    import numpy as np

    from guardrail.claims import SentenceClaimExtractor, split_sentences
    from guardrail.evidence import EvidenceSelector, normalize_context
    from guardrail.facts import _parse, check_facts  # noqa: PLC2701 - the cache is what is measured
    from guardrail.train.grounding import load_split, ragtruth_context

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--responses", type=int, default=200)
    ap.add_argument("--wall", action="store_true", help="wall-clock time instead of this thread's CPU time")
    args = ap.parse_args()
    _, dev = load_split(0.1, 13)
    extractor, selector = SentenceClaimExtractor(), EvidenceSelector(method="bm25")
    work = []
    for r in dev[: args.responses]:
        claims = extractor.extract(r.response)
        if not claims:
            continue
        items = selector.select(claims, normalize_context(ragtruth_context(r)), r.query)
        for it in items:
            sents = []
            for w in it.windows:
                sents += [(w.evidence_id, w.start + a, w.start + b, w.text[a:b]) for a, b in split_sentences(w.text)]
            work.append((it.claim.check_text, sents, it.question, it.claim.subject))
    clock = time.perf_counter if args.wall else time.thread_time
    cold, warm = [], []
    for claim, sents, q, subj in work:
        _parse.cache_clear()
        t = clock()
        check_facts(claim, sents, question=q, subject=subj)
        cold.append((clock() - t) * 1000)
        t = clock()
        check_facts(claim, sents, question=q, subject=subj)
        warm.append((clock() - t) * 1000)
    for name, xs in (("cold (context parsed for this claim)", cold), ("warm (context parse cached)", warm)):
        a = np.array(xs)
        print(f"{name:40s} claims {len(a):5d}  mean {a.mean():.2f} ms  p50 {np.median(a):.2f} ms  p95 {np.percentile(a, 95):.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
