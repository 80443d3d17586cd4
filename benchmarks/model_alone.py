"""The grounding model alone (no heuristic, no fact checks) on RAGTruth dev half B.

Reads the dev pairs a calibration work folder scored (``pairs.jsonl`` and ``dev_probs.npy``, written by
``scripts/train_grounding.py calibrate``) and reports, on half B only (half A fitted the calibration):
claim AUC (P(not supported)), response AUC (the highest claim score of each response, against the
response's gold label: any hallucinated span), and the three-way accuracy of the model's own argmax
against the claim labels (supported / unsupported = "Baseless Info" / contradicted = "Evident Conflict"),
with the confusion matrix. No model is run: the probabilities are the cached ones.

    python benchmarks/model_alone.py --work runs/nli-cal
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

import numpy as np

from guardrail.eval.metrics import roc_auc
from guardrail.train.grounding import LABELS, dev_halves, load_split


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", required=True, type=Path)
    ap.add_argument("--seed", type=int, default=13, help="seed of the dev halves (as calibrate's --seed)")
    args = ap.parse_args()
    pairs = [json.loads(line) for line in (args.work / "pairs.jsonl").open(encoding="utf-8")]
    pairs = [p for p in pairs if p["split"] == "dev"]
    probs = np.load(args.work / "dev_probs.npy")
    if len(probs) != len(pairs):
        raise SystemExit(f"{len(probs)} probabilities for {len(pairs)} dev pairs: rerun calibrate")
    _, half_b = dev_halves([p["rid"] for p in pairs], args.seed)
    idx = [i for i, p in enumerate(pairs) if p["rid"] in half_b]
    y_claim = np.array([pairs[i]["label"] != "supported" for i in idx])
    p_bad = 1.0 - probs[idx, LABELS.index("supported")]

    _, dev = load_split(0.1, 13)
    def field(row, key):
        return row.get(key) if isinstance(row, dict) else getattr(row, key, None)

    gold = {str(field(r, "id")): bool(field(r, "labels")) for r in dev}
    by_resp: dict[str, float] = defaultdict(float)
    for k, i in enumerate(idx):
        by_resp[pairs[i]["rid"]] = max(by_resp[pairs[i]["rid"]], float(p_bad[k]))
    rids = sorted(by_resp)
    y_resp = [gold[r] for r in rids]

    pred = probs[idx].argmax(1)
    true = np.array([LABELS.index(pairs[i]["label"]) for i in idx])
    confusion = np.zeros((3, 3), dtype=int)
    for t, p in zip(true, pred):
        confusion[t, p] += 1
    per_class = {LABELS[c]: round(float(confusion[c, c] / max(confusion[c].sum(), 1)), 3) for c in range(3)}
    out = {
        "half_b_claims": len(idx),
        "half_b_responses": len(rids),
        "claim_auc": round(roc_auc(y_claim, p_bad), 4),
        "response_auc": round(roc_auc(y_resp, [by_resp[r] for r in rids]), 4),
        "three_way_accuracy": round(float((pred == true).mean()), 4),
        "three_way_recall_per_class": per_class,
        "confusion_rows_true_cols_pred": {LABELS[t]: dict(zip(LABELS, confusion[t].tolist())) for t in range(3)},
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
