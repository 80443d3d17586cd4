"""Sentence embeddings without torch: all-MiniLM-L6-v2 as int8 ONNX, run by onnxruntime.

The default install carries no torch, so the shipped model (``guardrail/models/minilm-l6-embed``,
produced by ``scripts/export_embedder.py``) is one ONNX graph that already does BERT, mean pooling
over the attention mask and L2 normalisation; this module only tokenises, batches and caches.
By default every text runs through the model on its own. The int8 graph quantises activations with
one scale per call, so a text batched with others gets a slightly different vector than alone
(measured: cosine down to 0.955 between batch 1 and batch 32 on 400 RAGTruth sentences); alone, a
text always gets the same vector, which a guardrail whose verdicts are audited needs, and it is also
closer to the original model (mean cosine 0.9934 vs 0.9926). It costs about 1.5x on short texts and
nothing measurable on 200-token windows. ``deterministic=False`` batches texts of similar length.

A small LRU cache keyed by the exact text keeps repeated windows (the same context checked against
several answers, or the same sentence picked for several claims) from being embedded twice.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .errors import InputError, ModelLoadError

__all__ = ["Embedder", "DEFAULT_EMBEDDER_DIR"]

#: Where the shipped embedder lives inside the package.
DEFAULT_EMBEDDER_DIR = Path(__file__).resolve().parent / "models" / "minilm-l6-embed"
_REQUIRED = ("model.onnx", "tokenizer.json")
_MAX_POSITIONS = 512


class Embedder:
    """L2-normalised MiniLM sentence embeddings (float32, dimension 384) on onnxruntime.

    Args:
        model_dir: folder with ``model.onnx`` and ``tokenizer.json`` (default: the shipped model).
        max_length: tokens per text, [CLS]/[SEP] included; longer texts are truncated, as in
            sentence-transformers (the model was trained with 256).
        threads: onnxruntime intra-op threads (None: onnxruntime's default, every core).
        cache_size: texts whose embeddings are kept (LRU; 0 disables the cache).
        deterministic: run each text alone so its vector never depends on what it is batched with
            (default); False batches ``batch_size`` texts of similar length per call.

    Raises :class:`ModelLoadError` naming the folder and the missing file when it cannot load.
    Thread-safe: onnxruntime sessions and the tokenizer may be shared between threads.
    """

    _default: "Embedder | None" = None
    _default_lock = threading.Lock()

    def __init__(
        self,
        model_dir: str | Path | None = None,
        max_length: int = 256,
        threads: int | None = None,
        *,
        cache_size: int = 8192,
        deterministic: bool = True,
    ) -> None:
        if not 2 < max_length <= _MAX_POSITIONS:
            raise InputError(f"max_length must be within 3..{_MAX_POSITIONS}, got {max_length}")
        self.model_dir = Path(model_dir) if model_dir is not None else DEFAULT_EMBEDDER_DIR
        self.max_length = max_length
        missing = [f for f in _REQUIRED if not (self.model_dir / f).is_file()]
        if missing:
            raise ModelLoadError(
                f"embedding model not found: {self.model_dir} lacks {', '.join(missing)} "
                "(the shipped model is produced by scripts/export_embedder.py)"
            )
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:  # pragma: no cover - both are core dependencies
            raise ModelLoadError(f"cannot load {self.model_dir}: {exc} (pip install onnxruntime tokenizers)") from exc
        try:
            tok = Tokenizer.from_file(str(self.model_dir / "tokenizer.json"))
        except Exception as exc:
            raise ModelLoadError(f"cannot read tokenizer {self.model_dir / 'tokenizer.json'}: {exc}") from exc
        tok.enable_truncation(max_length)
        tok.no_padding()  # padding is done per length-sorted batch below
        self._tokenizer = tok
        opts = ort.SessionOptions()
        if threads is not None:
            opts.intra_op_num_threads = int(threads)
            opts.inter_op_num_threads = 1
        try:
            self._session = ort.InferenceSession(str(self.model_dir / "model.onnx"), opts, providers=["CPUExecutionProvider"])
        except Exception as exc:
            raise ModelLoadError(f"cannot load ONNX model {self.model_dir / 'model.onnx'}: {exc}") from exc
        names = {i.name for i in self._session.get_inputs()}
        if not {"input_ids", "attention_mask"} <= names:
            raise ModelLoadError(f"{self.model_dir / 'model.onnx'}: expected inputs input_ids, attention_mask; found {sorted(names)}")
        out = self._session.get_outputs()[0]
        self._output = out.name
        self.dim: int = int(out.shape[-1]) if isinstance(out.shape[-1], int) else 384
        self._cache: OrderedDict[bytes, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        self.deterministic = deterministic
        self._lock = threading.Lock()

    @classmethod
    def default(cls) -> "Embedder":
        """The shipped model, loaded once per process and shared (threads from ``GUARDRAIL_THREADS``)."""
        if cls._default is None:
            with cls._default_lock:
                if cls._default is None:
                    threads = os.environ.get("GUARDRAIL_THREADS")
                    cls._default = cls(threads=int(threads) if threads else None)
        return cls._default

    @classmethod
    def loaded(cls) -> "Embedder | None":
        """The shared model if something has loaded it, else None (nothing is loaded): lets a caller
        measure the model without loading it into a process that does not use it."""
        return cls._default

    def encode(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        """(len(texts), dim) float32 array of unit-length embeddings, in the order of ``texts``.

        ``batch_size`` is the number of texts per model call when ``deterministic=False``.
        """
        if isinstance(texts, str):
            raise InputError("encode() takes a sequence of strings, not a single string")
        if batch_size < 1:
            raise InputError(f"batch_size must be at least 1, got {batch_size}")
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        todo: dict[bytes, list[int]] = {}
        keys: list[bytes] = []
        for i, t in enumerate(texts):
            if not isinstance(t, str):
                raise InputError(f"encode(): texts[{i}] is {type(t).__name__}, not str")
            key = hashlib.blake2b(t.encode("utf-8", "surrogatepass"), digest_size=16).digest()
            keys.append(key)
            hit = self._cache_get(key)
            if hit is not None:
                out[i] = hit
            else:
                todo.setdefault(key, []).append(i)
        if todo:
            uniq = list(todo)
            enc = self._tokenizer.encode_batch([texts[todo[k][0]] for k in uniq])
            order = sorted(range(len(uniq)), key=lambda j: len(enc[j].ids))
            step = 1 if self.deterministic else batch_size
            for b in range(0, len(order), step):
                chunk = order[b : b + step]
                width = max(len(enc[j].ids) for j in chunk)
                ids = np.zeros((len(chunk), width), dtype=np.int64)
                mask = np.zeros((len(chunk), width), dtype=np.int64)
                for r, j in enumerate(chunk):
                    n = len(enc[j].ids)
                    ids[r, :n] = enc[j].ids
                    mask[r, :n] = 1
                vecs = self._session.run([self._output], {"input_ids": ids, "attention_mask": mask})[0]
                for r, j in enumerate(chunk):
                    key = uniq[j]
                    out[todo[key]] = vecs[r]
                    self._cache_put(key, vecs[r])
        return out

    def clear_cache(self) -> None:
        """Forget cached vectors: benchmarks clear it between configurations so none is timed warm."""
        with self._lock:
            self._cache.clear()

    def _cache_get(self, key: bytes) -> np.ndarray | None:
        if not self._cache_size:
            return None
        with self._lock:
            vec = self._cache.get(key)
            if vec is not None:
                self._cache.move_to_end(key)
            return vec

    def _cache_put(self, key: bytes, vec: np.ndarray) -> None:
        if not self._cache_size:
            return
        with self._lock:
            self._cache[key] = np.array(vec, dtype=np.float32)
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
