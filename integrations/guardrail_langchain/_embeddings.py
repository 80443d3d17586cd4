"""LangChain ``Embeddings`` over the guardrail's packaged embedder (MiniLM on onnxruntime).

So a RAG chain can retrieve with the same offline model the guardrail selects evidence with,
without a second embedding stack.
"""

from __future__ import annotations

import threading
from typing import Any

from langchain_core.embeddings import Embeddings

__all__ = ["GuardrailEmbeddings"]


class GuardrailEmbeddings(Embeddings):
    """``guardrail.embeddings.Embedder`` as LangChain embeddings (unit-normalised vectors).

    The embedder is loaded on first use and shared by every call; it keeps no per-call state.
    """

    def __init__(self, embedder: Any | None = None) -> None:
        self._embedder = embedder
        self._lock = threading.Lock()

    def _model(self) -> Any:
        with self._lock:
            if self._embedder is None:
                from guardrail.embeddings import Embedder

                self._embedder = Embedder.default()
            return self._embedder

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        import numpy as np

        vecs = np.asarray(self._model().encode(list(texts)), dtype=np.float32)
        vecs /= np.maximum(np.linalg.norm(vecs, axis=-1, keepdims=True), 1e-12)
        return vecs.tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]
