"""LlamaIndex ``BaseEmbedding`` over the guardrail's packaged embedder (MiniLM on onnxruntime)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from llama_index.core.embeddings import BaseEmbedding
from pydantic import PrivateAttr

__all__ = ["GuardrailEmbedding"]


class GuardrailEmbedding(BaseEmbedding):
    """``guardrail.embeddings.Embedder`` as a LlamaIndex embed model (unit-normalised vectors).

    Loaded on first use and shared by every call; async methods run the model in a worker thread.
    """

    model_name: str = "guardrail-minilm"
    _embedder: Any = PrivateAttr(default=None)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def __init__(self, embedder: Any | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._embedder = embedder

    @classmethod
    def class_name(cls) -> str:
        return "GuardrailEmbedding"

    def _model(self) -> Any:
        with self._lock:
            if self._embedder is None:
                from guardrail.embeddings import Embedder

                self._embedder = Embedder.default()
            return self._embedder

    def _encode(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        import numpy as np

        vecs = np.asarray(self._model().encode(list(texts)), dtype=np.float32)
        vecs /= np.maximum(np.linalg.norm(vecs, axis=-1, keepdims=True), 1e-12)
        return vecs.tolist()

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._encode([query])[0]

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._encode([text])[0]

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return self._encode(texts)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return await asyncio.to_thread(self._get_query_embedding, query)

    async def _aget_text_embedding(self, text: str) -> list[float]:
        return await asyncio.to_thread(self._get_text_embedding, text)

    async def _aget_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return await asyncio.to_thread(self._encode, texts)
