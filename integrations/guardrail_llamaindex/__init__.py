"""LlamaIndex integration of rag-guardrail: evidence ids on nodes, a guarded query engine."""

from ._embedding import GuardrailEmbedding
from ._llm import LlamaIndexChat
from ._postprocessor import GuardrailNodePostprocessor
from ._query_engine import GuardedQueryEngine, nodes_to_evidence

__all__ = [
    "GuardrailNodePostprocessor",
    "GuardedQueryEngine",
    "GuardrailEmbedding",
    "LlamaIndexChat",
    "nodes_to_evidence",
]
