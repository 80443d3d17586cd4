"""Evaluation: dataset loaders, metrics, side-by-side runs of verifier configurations, reports and the
adversarial (red-team) suite. Not imported by ``import guardrail``: it is a tool around the library."""

from .types import EvalExample, GoldSpan

__all__ = ["EvalExample", "GoldSpan"]
