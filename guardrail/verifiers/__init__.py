"""Verifiers: everything that turns (claim, evidence windows) into a verdict, behind one protocol.

Backends are imported only when asked for, so ``import guardrail`` never pulls torch or an HTTP client.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import ConfigError
from .base import Verifier, averify, unevaluatable

__all__ = ["Verifier", "averify", "unevaluatable", "make_verifier", "shipped_model_available"]

_SHIPPED_MODEL = Path(__file__).resolve().parent.parent / "models" / "grounding-minilm"


def shipped_model_available() -> bool:
    return (_SHIPPED_MODEL / "model.onnx").is_file()


def make_verifier(spec: str, llm: Any = None) -> Verifier:
    """Builds a verifier from a short spec, as used by the CLI and policy files.

    ``default``   the shipped grounding cross-encoder, or the interim heuristic if none is shipped
    ``heuristic`` embedding similarity + lexical, number and entity overlap
    ``grounding`` the shipped cross-encoder (error if it is not there)
    ``hf:PATH``   a local Hugging Face NLI / sequence-classification model directory
    ``judge``     an LLM judge (chain of thought, JSON verdicts) on ``llm``, a ``guardrail.llm.ChatModel``
    ``cascade``   the default verifier first, the LLM judge only for claims in its uncertain band
    """
    if spec in ("judge", "cascade"):
        if llm is None:
            raise ConfigError(f"verifier '{spec}' needs an LLM (CLI: --llm-base-url and --llm-model)", field="verifier")
        from .judge import LLMJudgeVerifier

        if spec == "judge":
            return LLMJudgeVerifier(llm)
        from .cascade import CascadeVerifier

        return CascadeVerifier(make_verifier("default"), LLMJudgeVerifier(llm))
    if spec == "default":
        spec = "grounding" if shipped_model_available() else "heuristic"
    if spec == "heuristic":
        from .heuristic import HeuristicVerifier

        return HeuristicVerifier()
    if spec == "grounding":
        from .crossencoder import CrossEncoderVerifier

        return CrossEncoderVerifier()
    if spec.startswith("hf:"):
        from .hf import HFVerifier

        return HFVerifier(spec[3:])
    raise ConfigError(
        f"unknown verifier '{spec}' (expected default, heuristic, grounding, hf:PATH, judge or cascade)", field="verifier"
    )
