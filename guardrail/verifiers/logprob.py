"""Token log-probability: how surprised is the LLM by the claim, once it has read the evidence?

Each claim is scored as the model's continuation of a prompt holding its evidence windows and the
question; tokens the model finds unlikely after reading the evidence (a name, number or date it did
not expect) are the flagged spans. The claim's lowest token log-probability (``stat="min"``) or its
mean (``stat="mean"``) is mapped to a hallucination score by a logistic (:func:`logprob_to_score`),
and the lowest-probability tokens, with what the model expected instead, go in the verdict's reason.

What the endpoint must offer, found out on llama-cpp-python 0.3 (the project's local server):

* the chat API's ``logprobs`` / ``top_logprobs`` cover generated tokens only, so they cannot score a
  given text: this verifier uses the legacy ``/v1/completions`` endpoint.
* ``mode="grammar"`` (default, llama.cpp only): the prompt is sent alone with a GBNF grammar that
  admits exactly the claim, so the model "generates" the claim and the server returns each forced
  token's log-probability under the unconstrained model, plus the tokens it preferred. About 1-2 s
  per claim for SmolLM2-135M on one thread. A server that ignores ``grammar`` generates something
  else; that is detected (the text differs from the claim) and the claim is ``unevaluatable``.
* ``mode="echo"`` (vLLM and other servers that score prompts): prompt + claim is sent with
  ``echo=true, max_tokens=1, logprobs=k`` and the claim's tokens are read from the echoed prompt.
  llama-cpp-python supports it but computes top-k over the whole vocabulary for every prompt token
  (about 10 s for 60 tokens on one thread), and shifts every echoed log-probability by one token
  when the prompt does not start with the model's BOS token; with ``template="chatml"`` it does
  (``<|im_start|>`` is SmolLM2's BOS). A shift is detected from the top tokens and reported as
  ``unevaluatable``, never scored.
* An endpoint that returns no log-probabilities (or no completions route: OpenAI's chat models)
  gives ``unevaluatable`` verdicts with that reason.

Cost: one completions request per claim. Known failure modes: a faithful paraphrase in words the
model would not pick scores as badly as a wrong fact (the min statistic is a single token's
surprise); long claims have more chances for one rare token; small models are surprised by rare
names even when the evidence states them; and the score says nothing about a contradiction the
model finds plausible.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..errors import ConfigError
from ..llm import TextCompletion, TokenLogprob
from ..types import ClaimVerdict, VerificationItem
from .base import scored_verdict, unevaluatable
from .selfcheck import Breaker

__all__ = ["LogprobVerifier", "ClaimTokens", "logprob_to_score", "gbnf_literal", "build_prompt", "DEFAULT_MAPPING"]

SYSTEM = "Answer using only the passages."

#: (center, width) of the logistic per statistic: score 0.5 at a token logprob of -center (min) or a
#: mean token logprob of -center (mean). Set from hand-made supported / swapped-fact claims on
#: SmolLM2-135M; the ranking, and so ROC-AUC, does not depend on them (see docs/detectors.md).
DEFAULT_MAPPING: dict[str, tuple[float, float]] = {"min": (4.0, 1.0), "mean": (1.5, 0.5)}


def logprob_to_score(value: float, center: float, width: float) -> float:
    """``1 / (1 + exp((value + center) / width))``: 0.5 at ``value == -center``, rising as the logprob falls."""
    z = (value + center) / width
    if z > 50:
        return 0.0
    return 1.0 / (1.0 + math.exp(z))


def gbnf_literal(text: str) -> str:
    """``text`` as a GBNF string literal (llama.cpp grammars): quotes, backslashes and controls escaped."""
    out = []
    for ch in text:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _clean(text: str) -> str:
    """Untrusted text must not open or close chat-template turns (llama.cpp parses special tokens)."""
    return text.replace("<|", "< |").replace("|>", "| >")


def build_prompt(item: VerificationItem, template: Literal["chatml", "plain"]) -> tuple[str, str, int]:
    """``(prompt, continuation, lead)``: the claim is ``continuation[lead:]``, scored after ``prompt``."""
    passages = "\n".join(f"[{n}] {_clean(w.text)}" for n, w in enumerate(item.windows, 1))
    task = (f"Question: {_clean(item.question)}\nAnswer the question from the passages." if item.question
            else "State what the passages say.")
    claim = " ".join(_clean(item.claim.check_text).split())
    user = f"Passages:\n{passages}\n\n{task}"
    if template == "chatml":
        prompt = (f"<|im_start|>system\n{SYSTEM}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n"
                  "<|im_start|>assistant\n")
        return prompt, claim, 0
    return f"{SYSTEM}\n\n{user}\nAnswer:", " " + claim, 1


class ClaimTokens(BaseModel):
    """The claim's tokens as scored, and the statistics the verdict rests on."""

    model_config = ConfigDict(extra="forbid")

    tokens: list[TokenLogprob] = Field(description="The scored units (word tokens; under a grammar, whole words).")
    min_logprob: float
    mean_logprob: float
    scored: int


def _words(tokens: list[TokenLogprob]) -> list[TokenLogprob]:
    """Merge the pieces of a word the grammar split into one unit carrying the first piece's logprob.

    Under a grammar the server picks, at each step, the likeliest token that keeps to the claim; when
    the model expected another word, that can be a fragment (a lone space, " L" of " London") and
    the rest of the word follows as pieces the model never sees in that split, with absurdly low
    probabilities. The first piece was preferred over the word's canonical token, so its probability
    bounds the canonical one from above: it is the word's score. Digits stay separate tokens (they
    are single tokens in the tokenizers this targets, and a changed digit is the signal).
    """
    out: list[TokenLogprob] = []
    for t in tokens:
        prev = out[-1].token if out else ""
        if prev and t.token[:1].isalpha() and (prev[-1:].isalpha() or prev.isspace()):
            out[-1] = out[-1].model_copy(update={"token": prev + t.token})
        else:
            out.append(t)
    return out


def _stats(tokens: list[TokenLogprob]) -> ClaimTokens | None:
    """Statistics over word tokens (with a letter or digit); punctuation and spaces are format, not facts."""
    scored = [t for t in tokens if t.logprob is not None and any(c.isalnum() for c in t.token)]
    if not scored:
        return None
    values = [float(t.logprob) for t in scored]  # type: ignore[arg-type]
    return ClaimTokens(tokens=scored, min_logprob=min(values), mean_logprob=sum(values) / len(values), scored=len(scored))


def _shifted(tokens: list[TokenLogprob]) -> bool:
    """True when each position's top tokens predict the *next* token: logprobs shifted by one.

    In an aligned reply the most likely token at position i is often token i itself (the model
    guessed right); in a shifted one it is often token i+1. Needs top_logprobs >= 1.
    """
    same = nxt = 0
    for i in range(len(tokens) - 1):
        top = tokens[i].top
        if not top:
            continue
        best = max(top, key=top.__getitem__)
        same += best == tokens[i].token
        nxt += best == tokens[i + 1].token
    return nxt >= 3 and nxt > 2 * same


def _claim_tokens_echo(reply: TextCompletion, prompt: str, continuation: str, lead: int) -> list[TokenLogprob] | str:
    """The echoed tokens that cover the claim, or why they cannot be found."""
    toks = reply.logprobs or []
    full = prompt + continuation
    gen = reply.text[len(full):] if reply.text.startswith(full) else None
    joined = "".join(t.token for t in toks)
    # Locate by the end of the echoed text: servers render special tokens differently (llama.cpp as
    # nothing), so offsets from the start are unreliable, but the claim and the generated tail are plain.
    if gen is not None and joined.endswith(continuation + gen):
        end = len(joined) - len(gen)
        start = end - len(continuation) + lead
        pos, out = 0, []
        for t in toks:
            a, b = pos, pos + len(t.token)
            pos = b
            if a < end and b > start:
                out.append(t)
        return out
    offsets = [t.offset for t in toks]
    if all(o is not None for o in offsets):
        start, end = len(prompt) + lead, len(full)
        out = [t for t in toks if t.offset is not None and start <= t.offset < end]
        if out:
            return out
    return "cannot locate the claim's tokens in the echoed prompt"


class LogprobVerifier:
    """``Verifier``: the claim's token log-probabilities given its evidence, from a completions endpoint.

    Args:
        model: an ``OpenAIChat`` (anything with ``complete(prompt, **kw) -> TextCompletion``).
        mode: ``"grammar"`` (llama.cpp: force the claim with a grammar) or ``"echo"`` (score the
            echoed prompt); see the module docstring.
        template: ``"chatml"`` (SmolLM2, Qwen...; also puts the BOS token first) or ``"plain"``.
        stat: ``"min"`` or ``"mean"`` token logprob over the claim's word tokens.
        center, width: the logistic of :func:`logprob_to_score` (default :data:`DEFAULT_MAPPING`).
        threshold: score at or above which a claim is ``unsupported``.
        top_logprobs: alternatives asked per token (named in the reason; echo mode needs >= 1 to
            check alignment).
        max_concurrency: requests in flight (a local llama.cpp server runs one at a time).
    """

    def __init__(self, model: Any, *, mode: Literal["grammar", "echo"] = "grammar",
                 template: Literal["chatml", "plain"] = "chatml", stat: Literal["min", "mean"] = "min",
                 center: float | None = None, width: float | None = None, threshold: float = 0.5,
                 top_logprobs: int = 3, max_concurrency: int = 1, name: str = "logprob") -> None:
        if not callable(getattr(model, "complete", None)):
            raise TypeError(f"{type(model).__name__} has no complete(): the logprob verifier needs an OpenAI-compatible "
                            "completions endpoint (guardrail.llm.OpenAIChat)")
        if mode not in ("grammar", "echo") or template not in ("chatml", "plain") or stat not in ("min", "mean"):
            raise ConfigError(f"bad option: mode={mode!r} (grammar|echo), template={template!r} (chatml|plain), "
                             f"stat={stat!r} (min|mean)")
        c, w = DEFAULT_MAPPING[stat]
        self.model, self.mode, self.template, self.stat = model, mode, template, stat
        self.center = c if center is None else center
        self.width = w if width is None else width
        if self.width <= 0:
            raise ConfigError("width must be positive")
        if not 0.0 < threshold < 1.0:
            raise ConfigError(f"threshold must be within (0, 1), got {threshold}")
        if top_logprobs < 0 or max_concurrency < 1:
            raise ConfigError("top_logprobs must be >= 0 and max_concurrency >= 1")
        self.threshold, self.top_logprobs, self.max_concurrency, self.name = threshold, top_logprobs, max_concurrency, name
        self.recommended_threshold = threshold  # Guardrail's default policy threshold: flag what this labels

    def __repr__(self) -> str:
        return f"LogprobVerifier({self.model!r}, mode={self.mode!r}, template={self.template!r}, stat={self.stat!r})"

    def verify(self, items: Sequence[VerificationItem], batch_size: int = 32) -> list[ClaimVerdict]:
        items = list(items)
        breaker = Breaker()
        if len(items) <= 1 or self.max_concurrency == 1:
            return [self._one(it, breaker) for it in items]
        with ThreadPoolExecutor(max_workers=min(self.max_concurrency, len(items)),
                                thread_name_prefix="guardrail-logprob") as pool:
            return list(pool.map(lambda it: self._one(it, breaker), items))

    # -- one claim ------------------------------------------------------------------------------
    def _one(self, item: VerificationItem, breaker: Breaker) -> ClaimVerdict:
        if not item.windows:
            return unevaluatable(item, "no evidence to condition the claim on (no context, or no window selected)", self.name)
        prompt, continuation, lead = build_prompt(item, self.template)
        if not continuation[lead:].strip():
            return unevaluatable(item, "the claim has no text to score", self.name)
        try:
            reply = breaker.call(lambda: self._request(prompt, continuation))
        except Exception as exc:  # one claim's failure must not sink the batch
            return unevaluatable(item, f"{self.name} failed: {type(exc).__name__}: {exc}", self.name)
        tokens = self._claim_tokens(reply, prompt, continuation, lead)
        if isinstance(tokens, str):
            return unevaluatable(item, f"{self.name}: {tokens}", self.name)
        stats = _stats(tokens)
        if stats is None:
            return unevaluatable(item, f"{self.name}: the endpoint returned no logprob for any word token of the claim", self.name)
        return self._verdict(item, stats)

    def _request(self, prompt: str, continuation: str) -> TextCompletion:
        if self.mode == "grammar":
            return self.model.complete(prompt, max_tokens=len(continuation) + 8, temperature=0.0,
                                       logprobs=self.top_logprobs, extra_body={"grammar": f"root ::= {gbnf_literal(continuation)}"})
        return self.model.complete(prompt + continuation, max_tokens=1, temperature=0.0, echo=True,
                                   logprobs=max(self.top_logprobs, 1))

    def _claim_tokens(self, reply: TextCompletion, prompt: str, continuation: str, lead: int) -> list[TokenLogprob] | str:
        if not reply.logprobs:
            return "the endpoint returned no logprobs (it does not support logprobs on /v1/completions)"
        if self.mode == "grammar":
            if reply.text != continuation or "".join(t.token for t in reply.logprobs) != continuation:
                return (f"the endpoint did not generate the claim under the grammar (got {reply.text[:80]!r}, "
                        f"finish {reply.finish_reason}); it may not support llama.cpp grammars: use mode=echo")
            return _words(reply.logprobs)
        if _shifted(reply.logprobs):
            return ("the echoed logprobs are shifted by one token (llama-cpp-python does this when the prompt "
                    "does not start with the BOS token): use template=chatml or mode=grammar")
        return _claim_tokens_echo(reply, prompt, continuation, lead)

    def _verdict(self, item: VerificationItem, s: ClaimTokens) -> ClaimVerdict:
        value = s.min_logprob if self.stat == "min" else s.mean_logprob
        score = logprob_to_score(value, self.center, self.width)
        lowest = sorted(s.tokens, key=lambda t: t.logprob)[:3]  # type: ignore[arg-type,return-value]
        described = []
        for t in lowest:
            alt = [k for k in sorted(t.top, key=t.top.__getitem__, reverse=True) if k != t.token][:1]
            described.append(f"{t.token!r} p={math.exp(t.logprob):.2g}" + (f" (expected {alt[0]!r})" if alt else ""))  # type: ignore[arg-type]
        reason = (f"lowest-probability tokens: {', '.join(described)}; min logprob {s.min_logprob:.2f}, "
                  f"mean {s.mean_logprob:.2f} over {s.scored} word tokens ({self.mode}, {self.template})")
        return scored_verdict(item, score, self.threshold, reason, self.name)
