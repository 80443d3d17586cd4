"""Verifiers: everything that turns (claim, evidence windows) into a verdict, behind one protocol."""

from .base import Verifier, averify, unevaluatable

__all__ = ["Verifier", "averify", "unevaluatable"]
