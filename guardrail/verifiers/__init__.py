"""Verifiers: everything that turns (claim, evidence windows) into a verdict, behind one protocol.

Backends are imported only when asked for, so ``import guardrail`` never pulls torch or an HTTP client.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..errors import ConfigError
from .base import Unchecked, Verifier, VerifierRun, arun_verifier, averify, run_verifier, unevaluatable

__all__ = [
    "DEFAULT_VERIFIER",
    "Verifier",
    "VerifierRun",
    "Unchecked",
    "averify",
    "run_verifier",
    "arun_verifier",
    "unevaluatable",
    "make_verifier",
    "check_spec",
    "VERIFIER_SPECS",
    "VerifierSpec",
    "shipped_model_available",
]

_SHIPPED_MODEL = Path(__file__).resolve().parent.parent / "models" / "grounding-minilm"


#: What ``default`` means: the shipped trained model (grounding-minilm v2.2, docs/model-card.md). On RAGTruth
#: dev half B it ranks better than the interim heuristic (AUC 0.814 vs 0.797, F1 0.718 vs 0.717), its claim
#: scores are calibrated, and since v2.2 it runs no embedding model: p50 49 ms for 5 claims over a new
#: 2k-token context on 2 cores (``guardrail bench``); the heuristic alone still embeds sentences.
DEFAULT_VERIFIER = "grounding"


def shipped_model_available() -> bool:
    return (_SHIPPED_MODEL / "model.onnx").is_file()


def make_verifier(spec: str, llm: Any = None) -> Verifier:
    """Builds a verifier from a short spec, as used by the CLI and policy files.

    ``default``       ``DEFAULT_VERIFIER``: the shipped grounding model
    ``heuristic``     embedding similarity + lexical, number and entity overlap
    ``grounding``     the shipped cross-encoder stacked with the heuristic (calibrated scores)
    ``grounding:DIR`` a grounding model folder made by ``guardrail train`` (a candidate, before it ships)
    ``hf:PATH``       a local Hugging Face NLI / sequence-classification model directory
    ``judge``         an LLM judge (chain of thought, JSON verdicts) on ``llm``, a ``guardrail.llm.ChatModel``
    ``cascade``       the default verifier first, the LLM judge only for claims in its uncertain band
    ``cove``          chain-of-verification behind the default verifier, on claims in its uncertain band or
                      of given error types (options per=answer|question, budget (calls per answer),
                      low, high (the band), types=number+temporal+..., timeout, concurrency,
                      fast=default|heuristic|grounding)

    Baselines of the seed designs (docs/detectors.md), options as ``NAME:key=value,key=value``:

    ``overlap``       share of the claim's content unigrams / bigrams missing from its evidence (no model)
    ``embedding``     MiniLM cosine between the claim and its best evidence sentence or window
    ``selfcheck``     self-consistency: ``n`` LLM samples per answer, claim compared with each
                      (options n, temperature, comparer=overlap|embedding|heuristic, max_tokens, concurrency)
    ``logprob``       claim token log-probabilities given the evidence, from a completions endpoint
                      (options mode=grammar|echo, template=chatml|plain, stat=min|mean, center, width, concurrency)
    ``prompt-judge``  one LLM call per answer returning a 0-1 score per claim (AWS write-up)
                      (options per=answer|claim, max_claims, concurrency)

    Every spec is an entry of ``VERIFIER_SPECS``: adding a verifier is adding an entry, not a branch.
    """
    name, _, rest = spec.partition(":")
    entry = check_spec(spec)
    options = _parse_options(spec, entry, rest) if entry.argument == "options" else {}
    if entry.needs_llm and llm is None:
        raise ConfigError(f"verifier '{name}' needs an LLM (CLI: --llm-base-url and --llm-model)", field="verifier")
    if entry.argument != "options":
        return entry.build(rest, options, llm)
    try:
        return entry.build(rest, options, llm)
    except (TypeError, ValueError) as exc:  # a value the verifier itself rejects (n=0, threshold=2)
        raise ConfigError(f"verifier '{name}': {exc}", field="verifier") from exc


def check_spec(spec: str) -> "VerifierSpec":
    """The registry entry ``spec`` names, its options parsed and checked, nothing built.

    Why: a policy file names verifiers too, and a typo there must fail when the policy loads, not on
    the first request (building a verifier may load a model or need an LLM). Raises ``ConfigError``.
    """
    name, colon, rest = spec.partition(":")
    entry = VERIFIER_SPECS.get(name)
    if entry is None or (colon and entry.argument == "none") or (not colon and entry.argument == "required"):
        raise ConfigError(
            f"unknown verifier '{spec}' (expected default, heuristic, grounding, grounding:DIR, hf:PATH, judge, cascade, "
            "cove, overlap, embedding, selfcheck, logprob or prompt-judge)", field="verifier"
        )
    if entry.argument == "options":
        _parse_options(spec, entry, rest)
    return entry


#: Option name -> (keyword argument of the verifier, type or allowed values).
OptionSchema = dict[str, tuple[str, Any]]


@dataclass(frozen=True)
class VerifierSpec:
    """One spec name of ``make_verifier``: how to build it and what may follow its colon.

    ``argument`` is ``none`` (the bare name only), ``path`` (``NAME`` or ``NAME:PATH``), ``required``
    (``NAME:PATH`` only) or ``options`` (``NAME:key=value,...`` checked against ``options``).
    ``build(argument, options, llm)`` imports its backend lazily, so listing the registry costs nothing.
    """

    build: Callable[[str, dict[str, Any], Any], Verifier]
    argument: Literal["none", "path", "required", "options"] = "none"
    options: OptionSchema = field(default_factory=dict)
    needs_llm: bool = False


def _heuristic(arg: str, opts: dict[str, Any], llm: Any) -> Verifier:
    from .heuristic import HeuristicVerifier

    return HeuristicVerifier()


def _grounding(arg: str, opts: dict[str, Any], llm: Any) -> Verifier:
    from .crossencoder import CrossEncoderVerifier

    return CrossEncoderVerifier(arg or None)


def _hf(arg: str, opts: dict[str, Any], llm: Any) -> Verifier:
    from .hf import HFVerifier

    return HFVerifier(arg)


def _judge(arg: str, opts: dict[str, Any], llm: Any) -> Verifier:
    from .judge import LLMJudgeVerifier

    return LLMJudgeVerifier(llm)


def _cascade(arg: str, opts: dict[str, Any], llm: Any) -> Verifier:
    from .cascade import CascadeVerifier
    from .judge import LLMJudgeVerifier

    return CascadeVerifier(make_verifier("default"), LLMJudgeVerifier(llm))


def _cove(arg: str, opts: dict[str, Any], llm: Any) -> Verifier:
    from .cascade import CascadeVerifier, Routing
    from .cove import CoveVerifier

    routing = Routing(band=(opts.pop("low", 0.3), opts.pop("high", 0.7)), error_types=opts.pop("error_types", frozenset()))
    fast = make_verifier(opts.pop("fast", "default"))
    timeout = opts.pop("timeout", None)
    return CascadeVerifier(fast, CoveVerifier(llm, **opts), routing=routing, judge_timeout_s=timeout)


def _error_types(value: str) -> frozenset[Any]:
    """``number+temporal`` -> the error types, for ``cove:types=...``."""
    from ..types import ErrorType

    names = [v.strip() for v in value.split("+") if v.strip()]
    unknown = [n for n in names if n not in ErrorType.__members__]
    if unknown or not names:
        raise ValueError(f"types must be error types joined by '+' ({'+'.join(ErrorType.__members__)}), got '{value}'")
    return frozenset(ErrorType(n) for n in names)


def _overlap(arg: str, opts: dict[str, Any], llm: Any) -> Verifier:
    from .baselines import OverlapVerifier

    return OverlapVerifier(**opts)


def _embedding(arg: str, opts: dict[str, Any], llm: Any) -> Verifier:
    from .baselines import EmbeddingVerifier

    return EmbeddingVerifier(**opts)


def _selfcheck(arg: str, opts: dict[str, Any], llm: Any) -> Verifier:
    from .selfcheck import SelfCheckVerifier

    return SelfCheckVerifier(llm, **opts)


def _logprob(arg: str, opts: dict[str, Any], llm: Any) -> Verifier:
    from .logprob import LogprobVerifier

    return LogprobVerifier(llm, **opts)


def _prompt_judge(arg: str, opts: dict[str, Any], llm: Any) -> Verifier:
    from .prompt_judge import PromptJudgeVerifier

    return PromptJudgeVerifier(llm, **opts)


#: Spec name -> how to build it. ``default`` is whatever ``DEFAULT_VERIFIER`` names.
VERIFIER_SPECS: dict[str, VerifierSpec] = {
    "default": VerifierSpec(lambda arg, opts, llm: make_verifier(DEFAULT_VERIFIER, llm)),
    "heuristic": VerifierSpec(_heuristic),
    "grounding": VerifierSpec(_grounding, argument="path"),
    "hf": VerifierSpec(_hf, argument="required"),
    "judge": VerifierSpec(_judge, needs_llm=True),
    "cascade": VerifierSpec(_cascade, needs_llm=True),
    "cove": VerifierSpec(_cove, "options", {
        "per": ("per", ("answer", "question")), "budget": ("max_calls", int), "low": ("low", float),
        "high": ("high", float), "types": ("error_types", _error_types), "timeout": ("timeout", float),
        "concurrency": ("max_concurrency", int), "fast": ("fast", ("default", "heuristic", "grounding"))},
        needs_llm=True),
    "overlap": VerifierSpec(_overlap, "options", {"threshold": ("threshold", float)}),
    "embedding": VerifierSpec(_embedding, "options", {
        "threshold": ("threshold", float), "center": ("center", float), "width": ("width", float)}),
    "selfcheck": VerifierSpec(_selfcheck, "options", {
        "n": ("n_samples", int), "temperature": ("temperature", float), "max_tokens": ("max_tokens", int),
        "comparer": ("comparer", ("overlap", "embedding", "heuristic")), "seed": ("seed", int),
        "concurrency": ("max_concurrency", int)}, needs_llm=True),
    "logprob": VerifierSpec(_logprob, "options", {
        "mode": ("mode", ("grammar", "echo")), "template": ("template", ("chatml", "plain")),
        "stat": ("stat", ("min", "mean")), "center": ("center", float), "width": ("width", float),
        "threshold": ("threshold", float), "concurrency": ("max_concurrency", int)}, needs_llm=True),
    "prompt-judge": VerifierSpec(_prompt_judge, "options", {
        "per": ("per", ("answer", "claim")), "max_claims": ("max_claims", int),
        "threshold": ("threshold", float), "concurrency": ("max_concurrency", int)}, needs_llm=True),
}


def _parse_options(spec: str, entry: VerifierSpec, raw: str) -> dict[str, Any]:
    name = spec.partition(":")[0]
    allowed = entry.options
    out: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in raw.split(","))):
        key, eq, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or key not in allowed:
            raise ConfigError(f"verifier '{spec}': bad option '{part}' (options of {name}: "
                              f"{', '.join(f'{k}=...' for k in allowed) or 'none'})", field="verifier")
        kwarg, kind = allowed[key]
        if isinstance(kind, tuple):
            if value not in kind:
                raise ConfigError(f"verifier '{spec}': {key} must be one of {', '.join(kind)}, got '{value}'", field="verifier")
            out[kwarg] = value
        else:
            try:
                out[kwarg] = kind(value)
            except ValueError as exc:
                what = {int: "an integer", float: "a number"}.get(kind)
                why = f"{key} must be {what}, got '{value}'" if what else f"{key}: {exc}"
                raise ConfigError(f"verifier '{spec}': {why}", field="verifier") from None
    return out
