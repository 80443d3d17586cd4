"""LangChain integration of rag-guardrail: a runnable in the data path, checked streaming, the chat-model adapter."""

from ._chat import LangChainChat
from ._embeddings import GuardrailEmbeddings
from ._evidence import EvidenceCollector, documents_to_evidence
from ._runnable import GuardedChunk, GuardedOutput, GuardrailRunnable, find_chat_model

__all__ = [
    "GuardrailRunnable",
    "GuardedOutput",
    "GuardedChunk",
    "EvidenceCollector",
    "GuardrailEmbeddings",
    "documents_to_evidence",
    "find_chat_model",
    "LangChainChat",
]
