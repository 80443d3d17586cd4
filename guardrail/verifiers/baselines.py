"""Model-free and embedding-only baselines from the seed designs: token overlap and embedding similarity.

Why they exist: they are the cheapest detectors a RAG team reaches for first (the AWS write-up's
"token similarity" and "semantic similarity" detectors), so every other verifier's numbers are read
against theirs. They are deliberately plain: one number per claim, a fixed mapping to a score, no
fitted weights. The heuristic verifier (``heuristic``) combines both signals with number, date,
entity and negation checks; these two show what each signal is worth alone.

Neither can tell a contradiction from a missing fact, so a flagged claim is ``unsupported``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ConfigError
from ..evidence import content_terms, sentences_of, strip_citation_markers
from ..types import ClaimVerdict, EvidenceSpan, VerificationItem, Window
from .base import scored_verdict, unevaluatable

if TYPE_CHECKING:  # pragma: no cover
    from ..embeddings import Embedder

__all__ = ["OverlapVerifier", "EmbeddingVerifier", "overlap_score", "cosine_to_score"]


def _bigrams(terms: list[str]) -> set[tuple[str, str]]:
    return set(zip(terms, terms[1:]))


def overlap_score(claim: str, evidence: Sequence[str]) -> tuple[float, list[str], int, int]:
    """Share of the claim's content unigrams and bigrams that no evidence text contains.

    Unigrams and bigrams are taken over content terms (lower-cased, stop words dropped, crudely
    stemmed; numbers without thousands separators), so "the capital of France" and "France's
    capital" share the unigrams but not the bigram. The score is the mean of the missing-unigram
    share and the missing-bigram share (the unigram share alone when the claim has one term): a
    ROUGE-1 / ROUGE-2 recall of the claim against the evidence, turned around.

    Returns ``(score, missing unigrams in claim order, missing bigram count, bigram count)``;
    the score is NaN when the claim has no content term.
    """
    terms = content_terms(claim)
    if not terms:
        return math.nan, [], 0, 0
    e_uni: set[str] = set()
    e_bi: set[tuple[str, str]] = set()
    for text in evidence:
        t = content_terms(text)
        e_uni.update(t)
        e_bi.update(_bigrams(t))
    uni = list(dict.fromkeys(terms))
    missing = [t for t in uni if t not in e_uni]
    bi = _bigrams(terms)
    miss_bi = len(bi - e_bi)
    share_uni = len(missing) / len(uni)
    score = share_uni if not bi else 0.5 * share_uni + 0.5 * miss_bi / len(bi)
    return score, missing, miss_bi, len(bi)


def _best_span(claim_terms: set[str], item: VerificationItem) -> EvidenceSpan | None:
    """The evidence sentence holding most of the claim's terms (ties: the first)."""
    best: tuple[int, EvidenceSpan] | None = None
    for w in item.windows:
        for s, e in sentences_of(w):
            text = w.text[s - w.start : e - w.start]
            hits = len(claim_terms & set(content_terms(text)))
            if best is None or hits > best[0]:
                best = (hits, EvidenceSpan(evidence_id=w.evidence_id, start=s, end=e, text=text))
    return best[1] if best and best[0] > 0 else None


def _checkable(item: VerificationItem, name: str) -> tuple[str | None, ClaimVerdict | None]:
    claim = strip_citation_markers(item.claim.check_text).strip()
    if not item.windows:
        return None, unevaluatable(item, "no evidence to check the claim against (no context, or no window selected)", name)
    if not claim:
        return None, unevaluatable(item, "the claim has no text to check once citation markers are removed", name)
    return claim, None


class OverlapVerifier:
    """``Verifier``: the claim's content unigrams / bigrams missing from its evidence windows.

    Free (no model), about 0.1 ms per claim. ``hallucination_score`` is :func:`overlap_score`;
    at or above ``threshold`` the claim is ``unsupported``. A claim without content words
    (e.g. "Yes.") is ``unevaluatable``: there is nothing to compare.
    """

    name = "overlap"
    #: A lexical detector gets lexical evidence: no embedding pass it does not read (the Guardrail builds
    #: its selector from this).
    evidence_selector = {"method": "bm25"}

    def __init__(self, threshold: float = 0.5) -> None:
        if not 0.0 < threshold <= 1.0:
            raise ConfigError(f"threshold must be within (0, 1], got {threshold}")
        self.threshold = self.recommended_threshold = threshold

    def __repr__(self) -> str:
        return f"OverlapVerifier(threshold={self.threshold})"

    def verify(self, items: Sequence[VerificationItem], batch_size: int = 32) -> list[ClaimVerdict]:
        return [self._one(it) for it in items]

    def _one(self, item: VerificationItem) -> ClaimVerdict:
        claim, skip = _checkable(item, self.name)
        if skip is not None:
            return skip
        assert claim is not None
        score, missing, miss_bi, n_bi = overlap_score(claim, [w.text for w in item.windows])
        if math.isnan(score):
            return unevaluatable(item, "the claim has no content word to look for in the evidence", self.name)
        n_uni = len(set(content_terms(claim)))
        parts = [f"{n_uni - len(missing)}/{n_uni} content words and {n_bi - miss_bi}/{n_bi} bigrams found in the evidence"]
        if missing:
            parts.append("missing words: " + ", ".join(missing[:8]))
        return scored_verdict(item, score, self.threshold, "; ".join(parts), self.name,
                              evidence_span=_best_span(set(content_terms(claim)), item))


def cosine_to_score(cosine: float, center: float = 0.6, width: float = 0.1) -> float:
    """Hallucination score from the claim's best cosine: ``1 / (1 + exp((cosine - center) / width))``.

    A logistic falling with similarity: 0.5 at ``center``, about 0.12 at ``center + 2 width`` and
    0.88 at ``center - 2 width``. The defaults put the midpoint where MiniLM cosines of supported
    and hallucinated RAGTruth claims cross over (see docs/detectors.md); the ranking, and so
    ROC-AUC, does not depend on them.
    """
    return 1.0 / (1.0 + math.exp((cosine - center) / width))


class EmbeddingVerifier:
    """``Verifier``: cosine between the claim and its most similar evidence sentence or window.

    Uses the shipped MiniLM embedder (``guardrail.embeddings.Embedder``), one batched embedding
    call per ``verify``; each candidate text is embedded once per call (and cached by the embedder).
    The score is :func:`cosine_to_score` of the best cosine; at or above ``threshold`` the claim
    is ``unsupported``. Embeddings hardly move when one number, date or name changes, so swapped
    facts mostly pass: that is the baseline's known blind spot.
    """

    name = "embedding"

    def __init__(self, embedder: Embedder | None = None, *, center: float = 0.6, width: float = 0.1,
                 threshold: float = 0.5) -> None:
        if not 0.0 < width:
            raise ConfigError(f"width must be positive, got {width}")
        if not 0.0 < threshold < 1.0:
            raise ConfigError(f"threshold must be within (0, 1), got {threshold}")
        self._embedder = embedder
        self.center, self.width, self.threshold = center, width, threshold
        self.recommended_threshold = threshold  # Guardrail's default policy threshold: flag what this labels

    def __repr__(self) -> str:
        return f"EmbeddingVerifier(center={self.center}, width={self.width}, threshold={self.threshold})"

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            from ..embeddings import Embedder

            self._embedder = Embedder.default()
        return self._embedder

    def verify(self, items: Sequence[VerificationItem], batch_size: int = 32) -> list[ClaimVerdict]:
        out: list[ClaimVerdict | None] = [None] * len(items)
        ready: list[tuple[int, str, list[tuple[Window, int, int, str]]]] = []
        for i, item in enumerate(items):
            claim, skip = _checkable(item, self.name)
            if skip is not None:
                out[i] = skip
                continue
            assert claim is not None
            ready.append((i, claim, self._candidates(item)))
        if ready:
            texts: dict[str, int] = {}
            for _, claim, cands in ready:
                for t in [claim, *(c[3] for c in cands)]:
                    texts.setdefault(t, len(texts))
            vecs = self.embedder.encode(list(texts), batch_size=batch_size)
            for i, claim, cands in ready:
                sims = vecs[[texts[c[3]] for c in cands]] @ vecs[texts[claim]]
                k = int(np.argmax(sims))
                out[i] = self._verdict(items[i], float(sims[k]), cands[k])
        return [v for v in out if v is not None]

    @staticmethod
    def _candidates(item: VerificationItem) -> list[tuple[Window, int, int, str]]:
        """Every sentence of the windows, and each whole window (a claim may merge two sentences)."""
        seen: set[tuple[str, int, int]] = set()
        out = []
        for w in item.windows:
            spans = sentences_of(w)
            if (w.start, w.end) not in spans:
                spans = [*spans, (w.start, w.end)]
            for s, e in spans:
                text = w.text[s - w.start : e - w.start]
                if text.strip() and (w.evidence_id, s, e) not in seen:
                    seen.add((w.evidence_id, s, e))
                    out.append((w, s, e, text))
        return out or [(w, w.start, w.end, w.text) for w in item.windows]

    def _verdict(self, item: VerificationItem, cosine: float, best: tuple[Window, int, int, str]) -> ClaimVerdict:
        score = cosine_to_score(cosine, self.center, self.width)
        w, s, e, text = best
        return scored_verdict(item, score, self.threshold, f"best evidence cosine {cosine:.3f} (score 0.5 at {self.center:g})",
                              self.name, evidence_span=EvidenceSpan(evidence_id=w.evidence_id, start=s, end=e, text=text))
