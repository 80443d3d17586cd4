"""Retrieved documents -> ``guardrail.Evidence``, and the callback that captures them from a chain.

The collector observes retriever runs only; it decides nothing. Enforcement stays in the data
path (``GuardrailRunnable``), which creates one collector per invocation and reads it after the
chain returned, so concurrent invocations never see each other's documents.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document

from guardrail.types import Evidence

__all__ = ["EvidenceCollector", "documents_to_evidence"]


def documents_to_evidence(docs: Iterable[Any], *, id_key: str = "evidence_id") -> list[Evidence]:
    """Documents (or strings, or ``Evidence``) as evidence, deduplicated, ids stable for citations.

    A document's id is ``metadata[id_key]`` when set, else its 1-based position among the unique
    documents, in retrieval order: the numbering a prompt that lists "[1] ... [2] ..." shows the
    model, so citation markers resolve to the right document.
    """
    out: list[Evidence] = []
    seen: set[tuple[str, str]] = set()
    for doc in docs:
        if isinstance(doc, Evidence):
            ev = doc
        elif isinstance(doc, Document):
            meta = dict(doc.metadata or {})
            eid = meta.get(id_key)
            source = meta.get("source") or meta.get("title") or doc.id
            if doc.id is not None:
                meta.setdefault("document_id", doc.id)
            ev = Evidence(id=str(eid) if eid is not None else str(len(out) + 1), text=doc.page_content,
                          source=str(source) if source is not None else None,
                          metadata={k: v for k, v in meta.items() if _jsonable(v)})
        elif isinstance(doc, str):
            ev = Evidence(id=str(len(out) + 1), text=doc)
        elif isinstance(doc, dict):
            ev = Evidence.model_validate({"id": str(len(out) + 1), **doc})
        else:
            raise TypeError(f"cannot use a {type(doc).__name__} as evidence (expected Document, str, dict or Evidence)")
        key = (ev.text, ev.source or "")
        if key in seen:
            continue
        seen.add(key)
        out.append(ev)
    return out


def _jsonable(v: Any) -> bool:
    return v is None or isinstance(v, (str, int, float, bool, list, dict))


class EvidenceCollector(BaseCallbackHandler):
    """Records the documents every retriever run returns, in the order the runs end.

    Create one per invocation. ``GuardrailRunnable(chain)`` does it for you; when the runnable is
    a step of an LCEL sequence instead, pass one in the invocation's config
    (``config={"callbacks": [EvidenceCollector()]}``) and the step finds it there.
    """

    # Runs in the caller's thread / event loop, so the documents are there when the chain returns.
    run_inline = True
    # A failure here must not be swallowed: missing evidence would change the verdicts.
    raise_error = True

    def __init__(self) -> None:
        self._docs: list[Document] = []
        self._lock = threading.Lock()

    def on_retriever_end(self, documents: Sequence[Document], *, run_id: UUID, parent_run_id: UUID | None = None,
                         **kwargs: Any) -> None:
        with self._lock:
            self._docs.extend(documents)

    @property
    def documents(self) -> list[Document]:
        with self._lock:
            return list(self._docs)
