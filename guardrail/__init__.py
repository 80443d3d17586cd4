"""rag-guardrail: check a RAG answer against its retrieved context before a user sees it."""
