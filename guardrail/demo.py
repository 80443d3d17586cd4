"""``guardrail demo``: a small guarded RAG example over bundled documents, fully offline.

Retrieval ranks the bundled documents for the question with BM25; the two answers are fixed inputs
(one faithful, one with wrong facts) so the demo shows what the guardrail does to each without a
generator model. Every verdict shown is computed live by the configured verifier.
"""

from __future__ import annotations

import json
from importlib import resources

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel

from .render import print_report
from .types import Evidence

__all__ = ["run_demo", "load_demo_documents", "retrieve"]

QUESTION = "When was the Eiffel Tower completed, and who built it?"
FAITHFUL = (
    "The Eiffel Tower was completed on 31 March 1889 [eiffel-tower]. "
    "It was built by the company of the engineer Gustave Eiffel, who also built the metal framework "
    "of the Statue of Liberty [statue-of-liberty]."
)
HALLUCINATED = (
    "The Eiffel Tower was completed in 1901 in Lyon [eiffel-tower]. "
    "It was designed by Frédéric Auguste Bartholdi, and it is 500 metres tall."
)


def load_demo_documents() -> list[Evidence]:
    raw = resources.files("guardrail").joinpath("demo_data/documents.json").read_text(encoding="utf-8")
    return [Evidence.model_validate(d) for d in json.loads(raw)]


def retrieve(question: str, documents: list[Evidence], k: int = 2) -> list[Evidence]:
    """Top-k documents for the question by BM25, the retriever a minimal RAG chain would use."""
    import bm25s

    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize([d.text for d in documents], stopwords="en", show_progress=False), show_progress=False)
    ids, _ = retriever.retrieve(bm25s.tokenize([question], stopwords="en", show_progress=False), k=k, show_progress=False)
    return [documents[int(i)] for i in ids[0]]


def run_demo(verifier: str = "default", with_policy: bool = True, console: Console | None = None) -> int:
    from .guardrail import Guardrail

    console = console or Console()
    guardrail = Guardrail(verifier)
    context = retrieve(QUESTION, load_demo_documents())
    console.print(Panel.fit(f"[bold]Question[/]: {QUESTION}\n[bold]Retrieved[/]: " + escape(", ".join(d.id for d in context)), title="guarded RAG demo"))
    for title, answer in (("faithful answer", FAITHFUL), ("hallucinated answer", HALLUCINATED)):
        console.print(f"\n[bold]{title}[/]: {escape(answer)}")
        report = guardrail.check(answer, context, QUESTION)
        print_report(report, console=console, title=title)
    if with_policy:
        try:
            from .policy.demo import run_policy_demo
        except ImportError:
            return 0
        console.print()
        run_policy_demo(check=guardrail.check, console=console)  # each tenant's pipeline resolves its verifier
    return 0
