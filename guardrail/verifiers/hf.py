"""Any local Hugging Face NLI / sequence-classification model as a verifier (torch + transformers).

Why: teams often already have an NLI model they trust (DeBERTa-MNLI, a fine-tuned fact checker);
this adapter lets it judge claims without code. The premise is the claim's evidence windows joined in
context order, the hypothesis the claim (citation markers removed). The model's own label names decide
the mapping (``config.id2label``), so a model whose labels we cannot interpret is refused with the
names listed rather than guessed at.

torch and transformers are imported only when a verifier is built: ``pip install rag-guardrail[hf]``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..errors import ConfigError, ModelLoadError
from ..evidence import strip_citation_markers
from ..types import ClaimVerdict, Label, VerificationItem
from .base import unevaluatable

__all__ = ["HFVerifier", "map_labels"]

_SUPPORTED = {"entailment", "entailed", "entails", "entail", "supported", "supports", "support", "consistent", "yes", "true", "factual"}
_CONTRADICTED = {"contradiction", "contradicted", "contradicts", "contradict", "refuted", "refutes", "refute", "inconsistent", "false"}
_UNSUPPORTED = {"neutral", "not_enough_info", "not_enough_information", "nei", "unsupported", "not_supported", "not_entailment", "no", "unverifiable", "hallucinated", "hallucination"}
_GENERIC = re.compile(r"label_\d+")
_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin", "model.safetensors.index.json", "pytorch_model.bin.index.json")


def _norm(name: str) -> str:
    return re.sub(r"[\s\-]+", "_", str(name).strip().lower())


def map_labels(id2label: dict[int, str], positive_label: str | int | None = None) -> list[Label]:
    """Our label for each class index of the model, from its ``id2label``.

    ``positive_label`` (a label name or index) names the class meaning "supported" for binary models
    with generic names (``LABEL_0`` / ``LABEL_1``); every other class then means unsupported.
    Raises :class:`ConfigError` listing the names when they cannot be mapped.
    """
    n = len(id2label)
    names = [str(id2label[i]) for i in range(n)]
    if positive_label is not None:
        if isinstance(positive_label, int) and not isinstance(positive_label, bool):
            pos = positive_label
        else:
            matches = [i for i, nm in enumerate(names) if _norm(nm) == _norm(str(positive_label))]
            pos = matches[0] if matches else -1
        if not 0 <= pos < n:
            raise ConfigError(f"positive_label {positive_label!r} is not one of the model's labels {names}", field="positive_label")
        return [Label.supported if i == pos else Label.unsupported for i in range(n)]
    out: list[Label] = []
    unknown: list[str] = []
    for nm in names:
        key = _norm(nm)
        if key in _SUPPORTED:
            out.append(Label.supported)
        elif key in _CONTRADICTED:
            out.append(Label.contradicted)
        elif key in _UNSUPPORTED:
            out.append(Label.unsupported)
        else:
            unknown.append(nm)
    if unknown:
        if all(_GENERIC.fullmatch(_norm(nm)) for nm in names):
            raise ConfigError(
                f"the model's labels {names} do not say which class means 'supported'; "
                "pass positive_label= (for example positive_label='LABEL_1')",
                field="positive_label",
            )
        raise ConfigError(
            f"cannot map the model's label(s) {unknown} (all labels: {names}); expected names such as "
            "entailment/supported/consistent, contradiction/refuted/inconsistent, neutral/not_enough_info/unsupported, "
            "or positive_label= for a binary model",
            field="id2label",
        )
    if Label.supported not in out:
        raise ConfigError(f"none of the model's labels {names} means 'supported'", field="id2label")
    return out


class HFVerifier:
    """Verifier backed by a local Hugging Face sequence-classification model directory.

    Args:
        model_dir: a folder written by ``save_pretrained`` (config.json, weights, tokenizer files).
        max_length: tokens per (premise, hypothesis) pair; the premise is truncated first.
        batch_size: pairs per forward pass (``verify``'s own ``batch_size`` is the caller's
            batching hint; this one bounds memory).
        positive_label: class meaning "supported" for binary models with generic label names.
        device: torch device, "cpu" by default.

    Raises :class:`ModelLoadError` (folder missing, not a model, torch/transformers absent) and
    :class:`ConfigError` (labels that cannot be mapped).
    """

    def __init__(
        self,
        model_dir: str | Path,
        max_length: int = 512,
        batch_size: int = 16,
        *,
        positive_label: str | int | None = None,
        device: str = "cpu",
    ) -> None:
        self.model_dir = Path(model_dir)
        self.max_length = max_length
        self.batch_size = batch_size
        if not self.model_dir.is_dir():
            raise ModelLoadError(f"Hugging Face model directory not found: {self.model_dir}")
        if not (self.model_dir / "config.json").is_file():
            raise ModelLoadError(f"{self.model_dir} is not a Hugging Face model directory: config.json is missing")
        if not any((self.model_dir / f).is_file() for f in _WEIGHT_FILES):
            raise ModelLoadError(f"{self.model_dir} has no model weights (expected one of {', '.join(_WEIGHT_FILES)})")
        try:
            import torch
            from transformers import AutoModelForSequenceClassification, AutoTokenizer
        except ImportError as exc:
            raise ModelLoadError(
                f"cannot load {self.model_dir}: the hf verifier needs torch and transformers "
                f"({exc}); pip install rag-guardrail[hf]"
            ) from exc
        try:
            self._tokenizer = AutoTokenizer.from_pretrained(str(self.model_dir))
        except Exception as exc:
            raise ModelLoadError(f"cannot load the tokenizer of {self.model_dir}: {exc}") from exc
        try:
            self._model = AutoModelForSequenceClassification.from_pretrained(str(self.model_dir)).to(device).eval()
        except Exception as exc:
            raise ModelLoadError(f"cannot load {self.model_dir} as a sequence-classification model: {exc}") from exc
        self._torch = torch
        self._device = device
        id2label = {int(k): v for k, v in (self._model.config.id2label or {}).items()}
        self.labels = map_labels(id2label, positive_label)
        self.name = f"hf:{self.model_dir.name}"

    @staticmethod
    def premise(item: VerificationItem) -> str:
        return "\n".join(w.text for w in item.windows)

    def verify(self, items: Sequence[VerificationItem], batch_size: int = 32) -> list[ClaimVerdict]:
        out: list[ClaimVerdict | None] = [None] * len(items)
        todo: list[tuple[int, str, str]] = []
        for i, item in enumerate(items):
            hyp = strip_citation_markers(item.claim.check_text).strip()
            if not item.windows:
                out[i] = unevaluatable(item, "no evidence to check the claim against (no context, or no window selected)", self.name)
            elif not hyp:
                out[i] = unevaluatable(item, "the claim has no text to check once citation markers are removed", self.name)
            else:
                todo.append((i, self.premise(item), hyp))
        for b in range(0, len(todo), self.batch_size):
            chunk = todo[b : b + self.batch_size]
            probs = self._probs([p for _, p, _ in chunk], [h for _, _, h in chunk])
            for (i, _, _), pr in zip(chunk, probs):
                out[i] = self._verdict(items[i], pr)
        return [v for v in out if v is not None]

    def _probs(self, premises: list[str], hypotheses: list[str]) -> np.ndarray:
        torch = self._torch
        try:
            enc = self._tokenizer(premises, hypotheses, truncation="only_first", max_length=self.max_length, padding=True, return_tensors="pt")
        except Exception:  # a hypothesis longer than max_length on its own: cut both
            enc = self._tokenizer(premises, hypotheses, truncation="longest_first", max_length=self.max_length, padding=True, return_tensors="pt")
        enc = {k: v.to(self._device) for k, v in enc.items()}
        with torch.no_grad():
            logits = self._model(**enc).logits.float()
        return torch.softmax(logits, dim=-1).cpu().numpy()

    def _verdict(self, item: VerificationItem, probs: np.ndarray) -> ClaimVerdict:
        mass: dict[Label, float] = {Label.supported: 0.0, Label.contradicted: 0.0, Label.unsupported: 0.0}
        for lab, p in zip(self.labels, probs):
            mass[lab] += float(p)
        label = max(mass, key=lambda k: mass[k])
        h = min(max(1.0 - mass[Label.supported], 0.0), 1.0)
        detail = ", ".join(f"{k.value} {v:.2f}" for k, v in mass.items() if k in self.labels)
        return ClaimVerdict(
            claim_id=item.claim.id,
            label=label,
            confidence=round(min(max(mass[label], 0.0), 1.0), 6),
            hallucination_score=round(h, 6),
            evidence_ids=sorted({w.evidence_id for w in item.windows}),
            reason=f"{self.name}: {detail}",
            verifier=self.name,
        )
