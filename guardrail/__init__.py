"""rag-guardrail: check a RAG answer against its retrieved context before a user sees it.

    >>> from guardrail import Guardrail
    >>> report = Guardrail().check("The tower was completed in 1887.", "The tower was completed in 1889.")
    >>> report.hallucinated
    True
"""

from .errors import (
    BackendError,
    ConfigError,
    GuardrailError,
    InputError,
    LLMError,
    LLMResponseError,
    LLMTimeout,
    ModelLoadError,
)
from .types import (
    CheckReport,
    CitationReport,
    CitationResult,
    Claim,
    ClaimVerdict,
    ErrorType,
    Evidence,
    EvidenceSpan,
    Label,
    SchemaIssue,
    SchemaResult,
    SkippedCheck,
    VerificationItem,
    Window,
)

__version__ = "0.1.0"


def __getattr__(name: str):
    # Loaded on first use, not on import: the facade pulls in the evidence and model stack, the
    # pipeline the policy engine.
    if name in ("Guardrail", "BatchItem"):
        from . import guardrail as _facade

        return getattr(_facade, name)
    if name == "Pipeline":
        from .pipeline import Pipeline

        return Pipeline
    raise AttributeError(f"module 'guardrail' has no attribute {name!r}")


__all__ = [
    "Guardrail",
    "BatchItem",
    "Pipeline",
    "CheckReport",
    "CitationReport",
    "CitationResult",
    "Claim",
    "ClaimVerdict",
    "ErrorType",
    "Evidence",
    "EvidenceSpan",
    "Label",
    "SchemaIssue",
    "SchemaResult",
    "SkippedCheck",
    "VerificationItem",
    "Window",
    "GuardrailError",
    "InputError",
    "ConfigError",
    "BackendError",
    "ModelLoadError",
    "LLMError",
    "LLMTimeout",
    "LLMResponseError",
]
