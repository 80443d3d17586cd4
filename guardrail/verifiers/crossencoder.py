"""The shipped grounding model: a MiniLM cross-encoder fine-tuned on RAGTruth, run with onnxruntime.

Why a cross-encoder: the claim and its evidence attend to each other, which is what catches a
changed number or a swapped entity that cosine similarity between two embeddings misses. Why
onnxruntime + tokenizers only: the default install carries no torch, and int8 ONNX is ~2x faster per
pair than fp32 torch on a CPU. Training lives in ``scripts/train_grounding.py``; it imports
:func:`premise_text` and :func:`hypothesis_text` from here so that training sees exactly the inputs
inference builds.

The model folder holds ``model.onnx``, a tokenizer and ``config.json`` with the label order, the
calibration (Platt scaling on the logit of the hallucination probability, fitted on a held-out half of
the dev split) and the per-label thresholds.
"""

from __future__ import annotations

import json
import math
import os
import re
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError, ModelLoadError
from ..types import ClaimVerdict, EvidenceSpan, Label, VerificationItem, Window
from .base import unevaluatable

__all__ = [
    "DEFAULT_MODEL_DIR",
    "FUSION_INPUTS",
    "CrossEncoderVerifier",
    "fuse",
    "fusion_inputs",
    "hypothesis_text",
    "premise_text",
    "premise_windows",
]

#: Where the shipped model lives inside the package.
DEFAULT_MODEL_DIR = Path(__file__).resolve().parent.parent / "models" / "grounding-minilm"

# Citation markers such as [1], [doc2], [a-3]: they carry no content the evidence could support.
_CITATION = re.compile(r"\s*\[(?:\d+(?:\s*[,;-]\s*\d+)*|[A-Za-z][\w.-]{0,15})\]")
_QUESTION_CHARS = 200
_SEP = "\n"


def hypothesis_text(item: VerificationItem) -> str:
    """What the model judges: the claim's check text without citation markers, ending as a sentence.

    A heading, a table cell or a list item has no final period, and the model, trained on sentences,
    reads one without it differently ("It was completed in AD 80 under Allied": 0.211 as a heading, 0.239
    as a sentence, on either side of the threshold): the same claim must score the same in any structure.
    A structured field ("age: 45") is left as it is."""
    text = _CITATION.sub("", item.claim.check_text).strip()
    if item.claim.kind != "field" and text and (text[-1].isalnum() or text[-1] in ")%\"'”’"):
        text += "."
    return text


def _ranked(windows: Sequence[Window]) -> list[Window]:
    # Best-scored first, so truncation at max_length drops the weakest window, never the best one.
    # Windows without a score keep the selector's order.
    return sorted(windows, key=lambda w: -(w.score if w.score is not None else -math.inf)) if any(
        w.score is not None for w in windows
    ) else list(windows)


def premise_windows(item: VerificationItem, window_tokens: int, top_k: int) -> list[Window]:
    """The ``top_k`` sub-windows of at most ``window_tokens`` tokens, cut from the item's windows, that
    match the claim best by BM25, best first.

    Why: the heuristic reads long windows (200 tokens, hybrid retrieval: the full sentence around a
    fact), the cross-encoder was trained on three short ones (60 tokens, BM25), and 256 tokens cannot
    hold three long windows and a claim. Cutting the short windows out of the long ones gives each model
    the evidence it was built for from one retrieval pass.
    """
    from ..evidence import BM25, content_terms, kv_share, make_windows
    from ..types import Evidence

    subs: dict[tuple[str, int, int], Window] = {}
    for w in item.windows:
        # Flattened data ("key: value" lines) is cut at lines, prose at sentences, as the selector does.
        ev = Evidence(id=w.evidence_id, text=w.text, metadata={"flattened": kv_share(w.text) >= 0.6})
        for sub in make_windows(ev, window_tokens, overlap_sentences=0):
            key = (w.evidence_id, w.start + sub.start, w.start + sub.end)
            subs.setdefault(key, sub.model_copy(update={"start": key[1], "end": key[2]}))
    windows = list(subs.values())
    if not windows:
        return []
    query = content_terms(hypothesis_text(item)) or content_terms(item.question or "")
    scores = BM25([content_terms(w.text) for w in windows]).scores(query)
    best = np.argsort(-scores, kind="stable")[:top_k]
    return [windows[i].model_copy(update={"score": float(scores[i])}) for i in best]


def premise_text(item: VerificationItem, window_tokens: int | None = None, top_k: int = 3) -> str:
    """Question (when given) then the item's windows, best-scored first, one per line; with
    ``window_tokens``, the :func:`premise_windows` cut from them instead."""
    parts = []
    if item.question and item.question.strip():
        parts.append("Question: " + item.question.strip()[:_QUESTION_CHARS])
    windows = premise_windows(item, window_tokens, top_k) if window_tokens else _ranked(item.windows)
    parts.extend(w.text.strip() for w in windows)
    return _SEP.join(parts)


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(np.asarray(p, dtype=np.float64), 1e-6, 1 - 1e-6)
    return np.log(p / (1 - p))


#: Inputs a fusion head may read besides the heuristic's FEATURES.
FUSION_INPUTS: tuple[str, ...] = ("cross_encoder_logit", "heuristic_logit")


def fusion_inputs(p_not_supported: np.ndarray, features: np.ndarray, names: Sequence[str]) -> np.ndarray:
    """The fusion head's input columns by name: the cross-encoder's logit, the heuristic's own score as a
    logit (its weights were fitted on 26k train claims), or any single heuristic feature."""
    from .heuristic import FEATURES, HeuristicVerifier

    x = np.asarray(features, dtype=np.float64).reshape(len(p_not_supported), len(FEATURES))
    cols = []
    for name in names:
        if name == "cross_encoder_logit":
            cols.append(_logit(p_not_supported))
        elif name == "heuristic_logit":
            cols.append(_logit(np.array([HeuristicVerifier.score(row) for row in x])))
        else:
            cols.append(x[:, FEATURES.index(name)])
    return np.column_stack(cols)


def fuse(p_not_supported: np.ndarray, features: np.ndarray, fusion: dict[str, Any]) -> np.ndarray:
    """The fusion head: logistic regression over the cross-encoder's logit and the heuristic's evidence.

    Why: the small cross-encoder reads paraphrase and meaning; the heuristic's exact checks (a number, a
    date, a name or a data field absent from the evidence) catch what a 6-layer model glosses over. The
    weights are fitted on claims the cross-encoder never saw (RAGTruth dev half A, ``guardrail train calibrate``).
    """
    x = fusion_inputs(p_not_supported, features, fusion["features"])
    z = (x - np.asarray(fusion["mean"])) / np.asarray(fusion["scale"])
    return 1.0 / (1.0 + np.exp(-(float(fusion["bias"]) + z @ np.asarray(fusion["weights"]))))


class CrossEncoderVerifier:
    """Grounding verifier backed by the shipped int8 ONNX cross-encoder.

    ``threads``: how many onnxruntime calls run at once (None: ``GUARDRAIL_THREADS`` if set, as for the
    embedder, else all cores). Each call is single-threaded and small: the length-sorted pairs go in
    batches of at most ``max_batch`` to ``threads`` callers of one session.

    ``max_batch`` is 1 by default because a pair's probabilities must not depend on what else is checked
    with it: in a batch, the int8 model's dynamically quantized activations (one scale per tensor) and the
    padding move a pair's probabilities by up to 0.10 (measured on four pairs, batches of 2 and 4), so the
    same claim could flip between ``check`` and ``check_batch``. Alone, it scores the same every time.
    What it costs, on the bench's 179 pairs (2 cores, ~70 tokens a pair): 831 ms one pair per call from 2
    callers, against 742-772 ms in batches of 2-4 and 1,211 ms for the old single call with 2 intra-op
    threads in batches of 32 (intra-op threads wait on each other over matrices this small).
    Raises :class:`ModelLoadError` when the folder or one of its files is missing or unreadable.
    """

    def __init__(
        self,
        model_dir: str | Path | None = None,
        max_length: int | None = None,
        threads: int | None = None,
        max_batch: int = 1,
    ):
        self.max_batch = max(1, int(max_batch))
        self.model_dir = Path(model_dir) if model_dir is not None else DEFAULT_MODEL_DIR
        self.config = self._load_config(self.model_dir)
        self.name: str = self.config.get("name", "grounding-minilm")
        self.labels: list[str] = list(self.config["labels"])
        self.max_length = int(max_length or self.config.get("max_length", 256))
        cal = self.config.get("calibration") or {}
        self._cal_a = float(cal.get("a", 1.0))
        self._cal_b = float(cal.get("b", 0.0))
        self.thresholds: dict[str, float] = {k: float(v) for k, v in (self.config.get("thresholds") or {}).items()}
        #: Report-level threshold tuned with the model (response F1 on dev); callers may pass it on.
        self.recommended_threshold = float(self.config.get("recommended_threshold", 0.5))
        #: EvidenceSelector settings the model was trained with (Guardrail uses them by default).
        self.evidence_selector: dict[str, Any] = dict(self.config.get("evidence_selector") or {})
        #: How the cross-encoder's premise is cut from the selected windows (see :func:`premise_windows`);
        #: empty: the windows as selected.
        self.premise: dict[str, int] = {k: int(v) for k, v in (self.config.get("premise") or {}).items()}
        #: Fusion head over the cross-encoder and the heuristic features (None: the cross-encoder alone).
        self.fusion: dict[str, Any] | None = self.config.get("fusion")
        self._heuristic = None
        if self.fusion is not None:
            from .heuristic import FEATURES, HeuristicVerifier

            names = list(self.fusion.get("features", []))
            unknown = [n for n in names if n not in FUSION_INPUTS and n not in FEATURES]
            # The heuristic's score is only the score the head was fitted on if its weights are the same.
            stale = "heuristic_logit" in names and self.fusion.get("heuristic") != HeuristicVerifier.name
            if unknown or "cross_encoder_logit" not in names or stale:
                raise ModelLoadError(
                    f"{self.model_dir / 'config.json'}: fusion.features {names} (heuristic "
                    f"{self.fusion.get('heuristic')}) do not fit this version: inputs must include "
                    f"cross_encoder_logit and come from {[*FUSION_INPUTS, *FEATURES]}, heuristic_logit needs "
                    f"heuristic {HeuristicVerifier.name}; refit with `guardrail train calibrate`"
                )
            # The heuristic reads the same similarity the head was fitted with ("lexical": no embedding model).
            self._heuristic = HeuristicVerifier(similarity=self.fusion.get("similarity", "embedding"))
        #: Heuristic conflict features that floor the score at the heuristic's own (see ``calibrate``).
        self.hard_checks: list[str] = list(self.config.get("hard_checks") or [])
        if self.hard_checks:
            from .heuristic import FEATURES

            unknown = [f for f in self.hard_checks if f not in FEATURES]
            if self.fusion is None or unknown:
                raise ModelLoadError(
                    f"{self.model_dir / 'config.json'}: hard_checks need a fusion head and names from "
                    f"{list(FEATURES)}; got {self.hard_checks}"
                )
        self._tokenizer = self._load_tokenizer()
        if threads is None and os.environ.get("GUARDRAIL_THREADS"):
            threads = int(os.environ["GUARDRAIL_THREADS"])
        self.threads = max(1, int(threads or os.cpu_count() or 1))
        self._session = self._load_session()
        self._input_names = {i.name for i in self._session.get_inputs()}
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    # -- loading ---------------------------------------------------------------------------------
    @staticmethod
    def _load_config(model_dir: Path) -> dict[str, Any]:
        path = model_dir / "config.json"
        if not model_dir.is_dir():
            raise ModelLoadError(f"grounding model folder not found: {model_dir}")
        try:
            config = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ModelLoadError(f"cannot read grounding model config {path}: {exc}") from exc
        missing = [k for k in ("labels", "model_file", "tokenizer_file") if k not in config]
        if missing:
            raise ModelLoadError(f"{path}: missing keys {missing}")
        if "supported" not in config["labels"]:
            raise ModelLoadError(f"{path}: labels {config['labels']} lack 'supported'")
        return config

    def _resolve(self, rel: str) -> Path:
        path = (self.model_dir / rel).resolve()
        if not path.is_file():
            raise ModelLoadError(f"grounding model file not found: {path} (from {self.model_dir / 'config.json'})")
        return path

    def _load_tokenizer(self):
        from tokenizers import Tokenizer

        path = self._resolve(self.config["tokenizer_file"])
        try:
            tok = Tokenizer.from_file(str(path))
        except Exception as exc:  # tokenizers raises a bare Exception on a bad file
            raise ModelLoadError(f"cannot load tokenizer {path}: {exc}") from exc
        tok.enable_truncation(self.max_length, strategy="longest_first")
        tok.enable_padding(pad_id=int(self.config.get("pad_id", 0)), pad_token=self.config.get("pad_token", "[PAD]"))
        return tok

    def _load_session(self):
        import onnxruntime as ort

        path = self._resolve(self.config["model_file"])
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1  # parallel callers instead (see the class docstring)
        opts.inter_op_num_threads = 1
        try:
            return ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own untyped errors on bad files
            raise ModelLoadError(f"cannot load ONNX model {path}: {exc}") from exc

    # -- scoring ---------------------------------------------------------------------------------
    def pair(self, item: VerificationItem) -> tuple[str, str]:
        """The (premise, hypothesis) the model reads for ``item``; training builds its pairs the same way."""
        return premise_text(item, self.premise.get("window_tokens"), self.premise.get("top_k", 3)), hypothesis_text(item)

    def predict(self, pairs: Sequence[tuple[str, str]], batch_size: int = 32) -> np.ndarray:
        """Raw class probabilities, shape (len(pairs), len(labels)), for (premise, hypothesis) pairs.

        Uncalibrated, like ``sentence_transformers.CrossEncoder.predict`` with softmax; ``verify``
        applies the calibration.
        """
        out = np.zeros((len(pairs), len(self.labels)), dtype=np.float32)
        if not pairs:
            return out
        # Sort by length so each batch pads to a similar size: padding is pure waste on a CPU.
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        step = max(1, min(batch_size, self.max_batch, -(-len(order) // self.threads)))
        chunks = [order[s : s + step] for s in range(0, len(order), step)]

        def run(idx: list[int]) -> tuple[list[int], np.ndarray]:
            enc = self._tokenizer.encode_batch([(pairs[i][0], pairs[i][1]) for i in idx])
            feeds = {
                "input_ids": np.array([e.ids for e in enc], dtype=np.int64),
                "attention_mask": np.array([e.attention_mask for e in enc], dtype=np.int64),
                "token_type_ids": np.array([e.type_ids for e in enc], dtype=np.int64),
            }
            logits = self._session.run(None, {k: v for k, v in feeds.items() if k in self._input_names})[0]
            z = logits - logits.max(axis=1, keepdims=True)
            p = np.exp(z)
            return idx, p / p.sum(axis=1, keepdims=True)

        done = self._callers().map(run, chunks) if len(chunks) > 1 and self.threads > 1 else map(run, chunks)
        for idx, probs in done:
            out[idx] = probs
        return out

    def _callers(self) -> ThreadPoolExecutor:
        """The threads that call the session at once, started on first use (a forked worker starts its own)."""
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="grounding")
            return self._pool

    def raw_scores(self, probs: np.ndarray, features: np.ndarray | None = None) -> np.ndarray:
        """Uncalibrated probability that each claim is not supported: the cross-encoder's own, or the
        fusion head's when the model has one (then ``features`` are the heuristic's, in FEATURES order)."""
        p_h = 1.0 - probs[:, self.labels.index("supported")].astype(np.float64)
        if self.fusion is None:
            return p_h
        if features is None:
            raise InputError("this model has a fusion head: pass the heuristic features")
        return fuse(p_h, features, self.fusion)

    def calibrate(self, probs: np.ndarray, features: np.ndarray | None = None) -> np.ndarray:
        """Calibrated probability that each claim is not supported (Platt scaling of the raw score).

        With ``hard_checks``, a claim whose exact checks found a conflict (another number with the
        claim's unit, another year) scores at least what the heuristic gives it. v1's head over the
        single features needed it: RAGTruth has few such swaps, so that head learnt small weights for
        them and let "every 12 hours" pass against "every 8 hours". The stacked head reads the heuristic's
        score itself and flags that swap without a floor (docs/model-card.md).
        """
        z = self._cal_a * _logit(self.raw_scores(probs, features)) + self._cal_b
        scores = 1.0 / (1.0 + np.exp(-z))
        if self.hard_checks and features is not None and len(scores):
            from .heuristic import FEATURES, HeuristicVerifier

            x = np.asarray(features, dtype=np.float64)
            hit = x[:, [FEATURES.index(f) for f in self.hard_checks]].max(axis=1) > 0
            for i in np.flatnonzero(hit):
                scores[i] = max(scores[i], HeuristicVerifier.score(x[i]))
        return scores

    def verify(self, items: Sequence[VerificationItem], batch_size: int = 32) -> list[ClaimVerdict]:
        verdicts: list[ClaimVerdict | None] = [None] * len(items)
        todo: list[int] = []
        for i, item in enumerate(items):
            if not any(w.text.strip() for w in item.windows):
                verdicts[i] = unevaluatable(item, "no evidence window was selected for this claim", self.name)
            elif not hypothesis_text(item):
                verdicts[i] = unevaluatable(item, "claim is empty once citation markers are removed", self.name)
            else:
                todo.append(i)
        if todo and self._heuristic is not None:
            analyses = self._heuristic.analyse([items[i] for i in todo], batch_size)
            for i, a in zip(list(todo), analyses):
                if isinstance(a, str):  # the heuristic's own reason the claim cannot be checked
                    verdicts[i] = unevaluatable(items[i], a, self.name)
            keep = [(i, a) for i, a in zip(todo, analyses) if not isinstance(a, str)]
            todo = [i for i, _ in keep]
            if todo:
                pairs = [self.pair(items[i]) for i in todo]
                x = np.stack([a.x for _, a in keep])
                # A claim whose figures the fact checks verified in another form is also read in the
                # evidence's terms, in the same batch (see FactCheck.in_evidence_terms).
                reworded = [(row, a.facts["fact_check"].in_evidence_terms(a.prepared.claim_text))
                            for row, (_, a) in enumerate(keep) if a.facts["fact_check"].reworded_only]
                reworded = [(row, text) for row, text in reworded if text]
                pairs += [(pairs[row][0], text) for row, text in reworded]
                probs = self.predict(pairs, batch_size)
                scores = self.calibrate(probs[: len(todo)], x)
                rescored: dict[int, float] = {}
                if reworded:
                    from .heuristic import FEATURES

                    xr = x[[row for row, _ in reworded]].copy()
                    xr[:, [FEATURES.index(f) for f in ("unmatched_numbers", "number_conflict")]] = 0.0  # verified
                    rescored = dict(zip((row for row, _ in reworded), self.calibrate(probs[len(todo):], xr).tolist()))
                for row, (i, a) in enumerate(keep):
                    verdicts[i] = self._fused_verdict(a, probs[row], float(scores[row]), rescored.get(row))
        elif todo:
            probs = self.predict([self.pair(items[i]) for i in todo], batch_size)
            scores = self.calibrate(probs)
            for row, i in enumerate(todo):
                verdicts[i] = self._verdict(items[i], probs[row], float(scores[row]))
        return [v for v in verdicts if v is not None]

    def _fused_verdict(self, analysis: Any, probs: np.ndarray, score: float, rescored: float | None = None) -> ClaimVerdict:
        # The heuristic's facts name the kind of failure (a conflicting number, date or name is a
        # contradiction) and the evidence sentence; the model's own class decides otherwise.
        kind = Label.contradicted.value if analysis.facts["conflict"] is not None else self._hallucination_kind(probs)
        threshold = self.thresholds.get(kind, 0.5)
        p_model = 1.0 - float(probs[self.labels.index("supported")])
        note = f"p(not supported) {score:.3f} (threshold {threshold:.3f}; cross-encoder alone {p_model:.3f}); "
        assert self._heuristic is not None  # only the fusion path (which has the heuristic) has analyses to fuse
        verdict = self._heuristic.verdict(analysis, score, name=self.name, note=note, threshold=threshold, rescored=rescored)
        if verdict.label is Label.unsupported and kind == Label.contradicted.value:
            verdict = verdict.model_copy(update={"label": Label.contradicted})
        return verdict

    def _verdict(self, item: VerificationItem, probs: np.ndarray, score: float) -> ClaimVerdict:
        kind = self._hallucination_kind(probs)
        threshold = self.thresholds.get(kind, 0.5)
        label = Label(kind) if score >= threshold else Label.supported
        confidence = score if label is not Label.supported else 1.0 - score
        best = _ranked(item.windows)[0]
        return ClaimVerdict(
            claim_id=item.claim.id,
            label=label,
            confidence=min(1.0, max(0.0, confidence)),
            hallucination_score=min(1.0, max(0.0, score)),
            evidence_ids=sorted({w.evidence_id for w in item.windows}),
            evidence_span=EvidenceSpan(evidence_id=best.evidence_id, start=best.start, end=best.end, text=best.text),
            reason=f"{self.name}: p(not supported)={score:.3f}, threshold for {kind} {threshold:.3f}",
            verifier=self.name,
        )

    def _hallucination_kind(self, probs: np.ndarray) -> str:
        # Which way a claim fails, if it fails: the more likely of the non-supported classes.
        bad = [(probs[j], name) for j, name in enumerate(self.labels) if name != "supported"]
        return max(bad)[1] if bad else Label.unsupported.value
