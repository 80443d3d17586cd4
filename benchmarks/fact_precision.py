"""Precision of each kind of fact-level finding on the RAGTruth dev split (sets guardrail.facts.SLOT_CONFIDENCE).

    python benchmarks/fact_precision.py                 # dev half A (the half calibration is fitted on)
    python benchmarks/fact_precision.py --half B --json out.json

Why: a finding floors its claim's hallucination score at the precision its kind has on real answers
(docs/benchmarks.md, "Fact-level verification"). For each claim of the chosen dev half this runs the
runtime pipeline (sentence claims, the default evidence selector, the heuristic's analysis, which runs
``guardrail.facts.check_facts``) and counts, per slot and kind, how many findings fall on claims that
RAGTruth's annotators marked as hallucinated. It also counts non-factual sentences (abstentions) and
how many of them carry a hallucination label.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def wilson_lower(k: int, n: int, z: float = 1.64) -> float:
    if n == 0:
        return 0.0
    p = k / n
    d = 1 + z * z / n
    return (p + z * z / (2 * n) - z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))) / d


def main() -> int:
    from guardrail.claims import SentenceClaimExtractor
    from guardrail.evidence import EvidenceSelector, normalize_context
    from guardrail.facts import STRONG_ALIGNMENT
    from guardrail.train.grounding import claim_label, dev_halves, gold_spans, load_split, ragtruth_context
    from guardrail.verifiers.heuristic import HeuristicVerifier

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--half", choices=["A", "B", "all"], default="A")
    ap.add_argument("--limit", type=int, default=0, help="responses (0: all of the half)")
    ap.add_argument("--json", default=None)
    ap.add_argument("--show", type=int, default=0, help="print this many findings per slot with their gold label")
    ap.add_argument("--dump", default=None, help="write every finding as a JSON line (to diff two versions' findings)")
    args = ap.parse_args()

    _, dev = load_split(0.1, 13)
    a, b = dev_halves([str(r.id) for r in dev], 13)
    keep = {"A": a, "B": b, "all": a | b}[args.half]
    rows = [r for r in dev if str(r.id) in keep]
    if args.limit:
        rows = rows[: args.limit]
    extractor, selector, heuristic = SentenceClaimExtractor(), EvidenceSelector(), HeuristicVerifier()
    found: Counter = Counter()
    bad: Counter = Counter()
    examples: dict[str, list] = defaultdict(list)
    claims_n = claims_bad = 0
    abst = abst_bad = 0
    per_task_abst: Counter = Counter()
    t0 = time.time()
    dump = open(args.dump, "w") if args.dump else None
    for i, r in enumerate(rows):
        claims = extractor.extract(r.response)
        if not claims:
            continue
        items = selector.select(claims, normalize_context(ragtruth_context(r)), r.query)
        spans = gold_spans(r)
        for item, an in zip(items, heuristic.analyse(items)):
            if isinstance(an, str):
                continue
            c = item.claim
            hallucinated = claim_label(c.start, c.end, spans) != "supported"
            claims_n += 1
            claims_bad += hallucinated
            fc = an.facts["fact_check"]
            if fc.abstention:
                abst += 1
                abst_bad += hallucinated
                per_task_abst[r.task_type] += 1
            for d in fc.differences:
                strong = d.alignment is not None and d.alignment >= STRONG_ALIGNMENT
                key = f"{d.slot}:{d.kind}" + (":strong" if strong else ":site" if d.grade == "same_words" else "")
                found[key] += 1
                bad[key] += hallucinated
                if dump is not None:
                    dump.write(json.dumps({"id": str(r.id), "task": r.task_type, "claim": c.text, "finding": key,
                                           "claim_value": d.claim_value, "evidence_value": d.evidence_value,
                                           "hallucinated": hallucinated}) + "\n")
                if len(examples[key]) < args.show:
                    examples[key].append((hallucinated, d.alignment, c.text[:140], d.claim_value[:60], (d.evidence_value or "")[:80]))
        if i % 200 == 0:
            print(f"{i}/{len(rows)} responses, {time.time() - t0:.0f}s", file=sys.stderr)
    if dump is not None:
        dump.close()
    base = claims_bad / max(1, claims_n)
    print(f"RAGTruth dev half {args.half}: {len(rows)} responses, {claims_n} claims, {base:.3f} hallucinated (base rate)")
    print(f"abstentions (non-factual): {abst} claims, {abst_bad} of them labelled hallucinated; per task {dict(per_task_abst)}")
    print(f"{'finding':28s} {'n':>5s} {'precision':>9s} {'wilson90 lo':>11s}")
    out = {}
    for key in sorted(found, key=lambda k: -found[k]):
        n, k = found[key], bad[key]
        out[key] = {"n": n, "hallucinated": k, "precision": k / n, "wilson_lower": wilson_lower(k, n)}
        print(f"{key:28s} {n:5d} {k / n:9.3f} {wilson_lower(k, n):11.3f}")
        for ex in examples[key]:
            print("     ", ex)
    if args.json:
        Path(args.json).write_text(json.dumps({"half": args.half, "claims": claims_n, "base_rate": base,
                                               "abstentions": abst, "abstentions_hallucinated": abst_bad,
                                               "findings": out}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
