"""The interim default verifier: embedding similarity plus lexical, number, date, entity and negation checks.

Why it exists: it runs on the shipped embedder alone (no trained grounding model needed), it is fast, and
every verdict comes with a reason a person can check ("numbers not in the evidence: 1889"). It is a
baseline, not a judge: a paraphrase with a changed qualifier passes it, and a faithful claim worded
very differently from its source can fail it.

Per (claim, windows) it computes the features in :data:`FEATURES`, combines them with a logistic model
whose weights were fitted on RAGTruth (see :data:`WEIGHTS`), and labels the claim:

* ``supported`` when the hallucination score is under 0.5;
* ``contradicted`` when it is at or above 0.5 and the evidence states a different value of the same
  kind next to the words the claim shares with it (another number, year or name), or flips a negation;
* ``unsupported`` otherwise.

Measured on the RAGTruth dev side of ``split_ragtruth`` (all 1,506 responses, 10,769 sentence claims;
``scripts/fit_heuristic.py eval``): claim ROC-AUC 0.811; response level (hallucinated when any claim is
flagged) P 0.615 / R 0.846 / F1 0.712, ROC-AUC 0.793 (max claim score). Per task F1 / AUC: QA 0.592 /
0.743, Summary 0.490 / 0.720, Data2txt 0.843 / 0.719. About 9 ms per claim on 2 CPU threads, plus
evidence selection.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError
from ..evidence import content_terms, kv_share, sentences_of, strip_citation_markers, tfidf_cosine
from ..text.terms import STOPWORDS, stem
from ..text.names import acronyms
from ..facts import SLOT_ERROR, check_facts, floor_score
from ..types import ClaimVerdict, ErrorType, EvidenceSpan, Label, VerificationItem
from .base import unevaluatable

if TYPE_CHECKING:  # pragma: no cover
    from ..embeddings import Embedder

__all__ = ["HeuristicVerifier", "Analysis", "FEATURES", "WEIGHTS", "BIAS"]

#: Feature order of the logistic model.
FEATURES: tuple[str, ...] = (
    "best_cosine",  # cosine between the claim and its most similar evidence sentence
    "uncovered",  # share of the claim's content words absent from the windows
    "unmatched_numbers",  # share of the claim's numbers absent from the windows
    "unmatched_dates",  # share of the claim's years / months / weekdays absent from the windows
    "unmatched_entities",  # share of the claim's capitalised names absent from the windows
    "negation_mismatch",  # the claim and its best sentence disagree on negation
    "number_conflict",  # the evidence has another value with the claim's unit ("8,849 metres" vs "9,100 metres")
    "temporal_conflict",  # the best sentence has another year / month / weekday than the claim
    "entity_conflict",  # the best sentence shares 3+ words with the claim but names someone / something else
    "negation_conflict",  # negation flipped against the best sentence, which shares 2+ words (cosine >= 0.5)
    "false_field",  # the claim asserts a data field whose value is false / no ("takes reservations" vs "Reservations: false")
    "null_field",  # the claim talks about a data field whose value is null (nothing is known about it)
    "log_terms",  # log(1 + number of content words): long claims carry more that can go wrong
    "data_evidence",  # share of the windows' lines that are flattened "key: value" data
)

# Fitted by `scripts/fit_heuristic.py fit` (seed 13): L2 logistic regression (C=1) on 26,295 sentence
# claims (11.3% positive) of 3,606 responses from 600 contexts (200 per task type) of the RAGTruth train
# side of guardrail.datasets.split_ragtruth; a claim is positive when it overlaps a gold span; evidence
# from EvidenceSelector(top_k=3, method="hybrid"). Claim-level AUC on those rows 0.789. The negation
# features fitted negative (a negation differing from the most similar sentence is mostly a paraphrase
# there) and are held at 0: they only shape the label. The bias is then shifted by +1.80 so that 0.5 is
# the response-level operating point (best response F1 on the fitting rows): the score ranks claims and
# is calibrated to that decision threshold, not as a per-claim probability.
WEIGHTS: tuple[float, ...] = (-0.3569, 2.6976, 1.2412, 2.2914, 1.0291, 0.0000, 1.5724, 0.4189, 0.2194, 0.0000, 3.4639, 2.6570, 0.3507, -0.2333)
BIAS: float = -2.1903

_NEGATION = re.compile(r"\b(?:not|no|never|none|nobody|nothing|neither|nor|cannot)\b|n['\u2019]t\b", re.I)
_NUMBER = re.compile(
    r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?:\s*(thousand|million|billion|trillion|k|m|bn)\b)?(?![\w])",
    re.I,
)
_SCALE = {"thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "billion": 1e9, "bn": 1e9, "trillion": 1e12}
_NUMBER_WORDS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen twenty".split()
    )
}
_NUMBER_WORD = re.compile(r"\b(" + "|".join(_NUMBER_WORDS) + r")\b", re.I)
_MONTHS = "january february march april may june july august september october november december".split()
_MONTH_ABBR = {m[:3]: m for m in _MONTHS} | {"sept": "september"}
_WEEKDAYS = "monday tuesday wednesday thursday friday saturday sunday".split()
_DATE_WORD = re.compile(r"\b(" + "|".join(_MONTHS + _WEEKDAYS + list(_MONTH_ABBR)) + r")\b\.?", re.I)
_YEAR = re.compile(r"(?<![\d.])(?<!\d,)(1[7-9]\d\d|20\d\d)s?(?!\d|[.,]\d)")
_CAP = re.compile(r"\b[A-Z][a-zA-Z'\-]*(?:\s+[A-Z][a-zA-Z'\-]*)*")


def _number_values(text: str) -> Iterator[tuple[re.Match[str], float]]:
    """Each number of ``text`` with its value: "1,000", "1000" and "1 thousand" are one number; years
    (dates, checked apart) are skipped."""
    years = {m.start() for m in _YEAR.finditer(text)}
    for m in _NUMBER.finditer(text):
        if m.start() in years and not m.group(2) and not m.group(3):
            continue
        value = float(m.group(1).replace(",", "") + (m.group(2) or ""))
        if m.group(3):
            value *= _SCALE[m.group(3).lower()]
        yield m, value


def _numbers(text: str) -> set[float]:
    """Numbers in ``text`` as values, digits and number words alike."""
    out: set[float] = {round(value, 6) for _, value in _number_values(text)}
    for m in _NUMBER_WORD.finditer(text):
        out.add(float(_NUMBER_WORDS[m.group(1).lower()]))
    return out


_UNIT_AFTER = re.compile(r"[ \t]*(%|[A-Za-z]+)")
_KEY_BEFORE = re.compile(r"([A-Za-z_]+)\s*:\s*$")


def _units(text: str) -> dict[str, set[float]]:
    """Values of ``text``'s numbers by the word that says what they count ("8,849 metres" -> metr: {8849}).

    For ``key: value`` lines of flattened data the key names the unit ("business_stars: 4.5" -> star).
    Two numbers with the same unit and different values are a conflict of the same kind.
    """
    out: dict[str, set[float]] = {}
    for m, value in _number_values(text):
        units = []
        after = _UNIT_AFTER.match(text, m.end())
        if after:
            word = after.group(1).lower()
            units.append("percent" if word in ("%", "percent") else stem(word))
        before = _KEY_BEFORE.search(text, max(0, m.start() - 60), m.start())
        if before:
            units.extend(stem(w) for w in before.group(1).lower().split("_")[-1:])
        for u in units:
            if u not in STOPWORDS and not u.isdigit():
                out.setdefault(u, set()).add(round(value, 6))
    return out


def _dates(text: str) -> set[str]:
    out = {m.group(1) for m in _YEAR.finditer(text)}
    for m in _DATE_WORD.finditer(text):
        word = m.group(1).lower()
        if word == "may" and not m.group(1)[0].isupper():
            continue  # the verb
        out.add(_MONTH_ABBR.get(word, word))
    return out


def _entities(text: str) -> set[str]:
    """Capitalised word runs, lower-cased, without the sentence-initial word unless it is a run."""
    out: set[str] = set()
    for m in _CAP.finditer(text):
        words = m.group(0).split()
        j = m.start() - 1
        while j >= 0 and text[j] in " \t":
            j -= 1
        sentence_initial = j < 0 or text[j] in ".!?:\n\"'(-*"
        if sentence_initial:
            words = words[1:] if len(words) == 1 or words[0].lower() in STOPWORDS else words
        for w in words:
            lw = re.sub(r"['\u2019]s$", "", w.lower()).strip("'-")  # "Okoro's" names Okoro
            if lw and lw not in STOPWORDS and lw not in _MONTHS and lw not in _WEEKDAYS and len(lw) > 1:
                out.add(lw)
    return out


def _negated(text: str) -> bool:
    return len(_NEGATION.findall(text)) % 2 == 1


_KV = re.compile(r"^(?P<key>[^\n:]{1,160}): (?P<val>[^\n]*)$", re.M)
_FALSE = frozenset({"false", "no", "none", "0"})


def _field_hits(claim_terms: set[str], negated: bool, evidence: str) -> tuple[list[str], list[str]]:
    """Keys of flattened data lines with a false / null value that the claim talks about.

    A key is named by the words of its last two path segments ("attributes.Restaurants Reservations"
    -> reservation), without words shared by three or more keys ("restaurant", "attributes"), and the
    claim talks about it when it has all those words. A negated claim agrees with a false value.
    """
    rows = []
    for m in _KV.finditer(evidence):
        segs = m.group("key").split(".")[-2:]
        terms = set(content_terms(" ".join(re.sub(r"\[\d+\]", "", x) for x in segs)))
        rows.append((m.group("key"), terms, m.group("val").strip().lower()))
    if not rows:
        return [], []
    count: dict[str, int] = {}
    for _, terms, _ in rows:
        for t in terms:
            count[t] = count.get(t, 0) + 1
    false_hits, null_hits = [], []
    for key, terms, val in rows:
        specific = {t for t in terms if count[t] < 3}
        if not specific or not specific <= claim_terms:
            continue
        if val == "null":
            null_hits.append(key)
        elif val in _FALSE and not negated:
            false_hits.append(key)
    return false_hits, null_hits


@dataclass
class _Prepared:
    item: VerificationItem
    claim_text: str
    # (evidence_id, start, end, text) of every sentence of the item's windows
    sentences: list[tuple[str, int, int, str]] = field(default_factory=list)


@dataclass(frozen=True)
class Analysis:
    """One claim's evidence sentences and feature facts (``facts["x"]`` is the vector in FEATURES order)."""

    prepared: _Prepared
    facts: dict

    @property
    def x(self) -> np.ndarray:
        return self.facts["x"]


class HeuristicVerifier:
    """Interim verifier on the shipped embedder; see the module docstring for what it checks."""

    name = "heuristic-v0"

    def __init__(self, embedder: "Embedder | None" = None, similarity: str = "embedding") -> None:
        """``similarity``: how a claim's closeness to each evidence sentence is read, "embedding" (MiniLM
        cosine, the weights' fitting) or "lexical" (tf-idf cosine, :func:`guardrail.evidence.tfidf_cosine`:
        no embedding model loaded or run, for a verifier whose fusion head was fitted on it)."""
        if similarity not in ("embedding", "lexical"):
            raise InputError(f"similarity must be 'embedding' or 'lexical', got {similarity!r}")
        self._embedder = embedder
        self.similarity = similarity

    @property
    def embedder(self) -> "Embedder":
        if self._embedder is None:
            from ..embeddings import Embedder

            self._embedder = Embedder.default()
        return self._embedder

    # ------------------------------------------------------------------ protocol

    def verify(self, items: Sequence[VerificationItem], batch_size: int = 32) -> list[ClaimVerdict]:
        out: list[ClaimVerdict] = []
        for item, analysis in zip(items, self.analyse(items, batch_size)):
            if isinstance(analysis, str):
                out.append(unevaluatable(item, analysis, self.name))
            else:
                out.append(self.verdict(analysis, self.score(analysis.x)))
        return out

    def analyse(self, items: Sequence[VerificationItem], batch_size: int = 32) -> list["Analysis | str"]:
        """Features and the facts behind them per item, or the reason the item cannot be checked.

        Public because the shipped cross-encoder's fusion head scores these same features next to its
        own output: one feature code path for both verifiers, so training and inference cannot drift.
        """
        out: list[Analysis | str] = [""] * len(items)
        ready: list[tuple[int, _Prepared]] = []
        for i, item in enumerate(items):
            claim_text = strip_citation_markers(item.claim.check_text).strip()
            if not item.windows:
                out[i] = "no evidence to check the claim against (no context, or no window selected)"
            elif not claim_text:
                out[i] = "the claim has no text to check once citation markers are removed"
            else:
                ready.append((i, self._prepare(item, claim_text)))
        if ready:
            feats = self._features([p for _, p in ready], batch_size)
            for (i, p), f in zip(ready, feats):
                out[i] = Analysis(prepared=p, facts=f)
        return out

    # ------------------------------------------------------------------ features

    @staticmethod
    def _prepare(item: VerificationItem, claim_text: str) -> _Prepared:
        p = _Prepared(item=item, claim_text=claim_text)
        seen: set[tuple[str, int, int]] = set()
        for w in item.windows:
            for s, e in sentences_of(w):
                key = (w.evidence_id, s, e)
                if key not in seen:
                    seen.add(key)
                    p.sentences.append((w.evidence_id, s, e, w.text[s - w.start : e - w.start]))
        return p

    def _features(self, prepared: Sequence[_Prepared], batch_size: int = 32) -> list[dict]:
        """Feature values (and the facts behind them) for each prepared item; one embedding call."""
        if self.similarity == "lexical":
            return [self._facts(p, tfidf_cosine(p.claim_text, [s[3] for s in p.sentences])) for p in prepared]
        texts: list[str] = []
        index: dict[str, int] = {}
        for p in prepared:
            for t in [p.claim_text] + [s[3] for s in p.sentences]:
                if t not in index:
                    index[t] = len(texts)
                    texts.append(t)
        vecs = self.embedder.encode(texts, batch_size=batch_size)
        out = []
        for p in prepared:
            c = vecs[index[p.claim_text]]
            sims = vecs[[index[s[3]] for s in p.sentences]] @ c
            out.append(self._facts(p, sims))
        return out

    @staticmethod
    def _best_sentence(claim_terms: set[str], claim_values: set, sentences: list[str], sims: np.ndarray) -> int:
        """The sentence the verdict rests on: cosine, plus the share of the claim's words it holds
        weighted by rarity among the windows' sentences, plus a bonus for holding one of the claim's
        numbers or dates. Cosine alone picks "The Eiffel Tower is in Paris." for "The tower was
        completed in 1889" over "It was completed in 1889.", because of the pronoun."""
        terms = [set(content_terms(t)) for t in sentences]
        n = len(sentences)
        df: dict[str, int] = {}
        for ts in terms:
            for t in ts & claim_terms:
                df[t] = df.get(t, 0) + 1
        idf = {t: math.log(1 + n / df.get(t, 1)) for t in claim_terms}
        total = math.fsum(idf.values()) or 1.0
        scores = []
        for i, (ts, text) in enumerate(zip(terms, sentences)):
            lexical = math.fsum(idf[t] for t in ts & claim_terms) / total
            has_value = bool(claim_values & (_numbers(text) | _dates(text)))
            scores.append(float(sims[i]) + lexical + 0.5 * has_value)
        return int(np.argmax(scores))

    @staticmethod
    def _facts(p: _Prepared, sims: np.ndarray) -> dict:
        claim = p.claim_text
        evidence = "\n".join(w.text for w in p.item.windows)
        c_terms_all = set(content_terms(claim))
        best = HeuristicVerifier._best_sentence(c_terms_all, _numbers(claim) | _dates(claim), [s[3] for s in p.sentences], sims)
        best_text = p.sentences[best][3]
        best_cos = float(sims.max())
        near_cos = float(sims[best])

        c_terms = c_terms_all
        e_terms = set(content_terms(evidence))
        uncovered = len(c_terms - e_terms) / len(c_terms) if c_terms else 0.0

        # The learned score's inputs keep the definitions its weights were fitted on (v0: a value counts
        # as found when the windows hold it anywhere). The fact checks (guardrail.facts) compare by value
        # in the aligned sentence; they floor the score, name the mismatch and recognise rewordings, in
        # ``verdict`` — refitting the weights on the fact checks' inputs is future work (docs/benchmarks.md).
        fc = check_facts(claim, p.sentences, question=p.item.question, record=p.item.claim.record,
                         subject=p.item.claim.subject, after=p.item.claim.after)
        c_nums, e_nums = _numbers(claim), _numbers(evidence)
        miss_nums = sorted(c_nums - e_nums)
        c_dates, e_dates, b_dates = _dates(claim), _dates(evidence), _dates(best_text)
        miss_dates = sorted(c_dates - e_dates)
        c_ents = _entities(claim)
        e_lower = evidence.lower()
        spelled = acronyms(evidence)  # "ECB" where the evidence says "European Central Bank"
        miss_ents = sorted(e for e in c_ents if e not in e_lower and re.sub(r"['\u2019]s$", "", e) not in spelled)

        b_terms = set(content_terms(best_text))
        shared = len(c_terms & b_terms)
        near = shared >= 2 or near_cos >= 0.6  # the best sentence talks about the same thing
        conflict: ErrorType | None = None
        if miss_nums:
            e_units = _units(evidence)
            for unit, vals in _units(claim).items():
                if vals - e_nums and e_units.get(unit, set()) - vals:
                    conflict = ErrorType.number  # same unit, another value: "8,849 metres" vs "9,100 metres"
                    break
        if conflict is None and near and miss_dates:
            years = {d for d in miss_dates if d[:1].isdigit()}
            other_years = {d for d in b_dates - c_dates if d[:1].isdigit()}
            words = set(miss_dates) - years
            other_words = (b_dates - c_dates) - other_years
            if (years and other_years) or (words and other_words):
                conflict = ErrorType.temporal
        if conflict is None and near and miss_ents and (_entities(best_text) - c_ents) and shared >= 3:
            conflict = ErrorType.entity
        false_hits, null_hits = _field_hits(c_terms, _negated(claim), evidence)
        if conflict is None and false_hits:
            conflict = ErrorType.negation  # the data says no, the claim says yes
        neg_mismatch = _negated(claim) != _negated(best_text)
        neg_conflict = neg_mismatch and shared >= 2 and near_cos >= 0.5
        feature_conflict = conflict
        if conflict is None and neg_conflict:
            conflict = ErrorType.negation
        if fc.mismatches:
            conflict = SLOT_ERROR[fc.mismatches[0].slot]

        values = {
            "best_cosine": best_cos,
            "uncovered": uncovered,
            "unmatched_numbers": len(miss_nums) / len(c_nums) if c_nums else 0.0,
            "unmatched_dates": len(miss_dates) / len(c_dates) if c_dates else 0.0,
            "unmatched_entities": len(miss_ents) / len(c_ents) if c_ents else 0.0,
            "negation_mismatch": float(neg_mismatch),
            "number_conflict": float(feature_conflict is ErrorType.number),
            "temporal_conflict": float(feature_conflict is ErrorType.temporal),
            "entity_conflict": float(feature_conflict is ErrorType.entity),
            "negation_conflict": float(neg_conflict),
            "false_field": float(bool(false_hits)),
            "null_field": float(bool(null_hits)),
            "log_terms": math.log1p(len(c_terms)),
            "data_evidence": kv_share(evidence),
        }
        return {
            "x": np.array([values[f] for f in FEATURES], dtype=np.float64),
            "values": values,
            "best": best,
            "conflict": conflict,
            "miss_nums": list(fc.numbers_unmatched),
            "miss_dates": list(fc.dates_unmatched),
            "miss_ents": miss_ents,
            "false_fields": false_hits,
            "null_fields": null_hits,
            "fact_check": fc,
        }

    # ------------------------------------------------------------------ decision

    @staticmethod
    def score(x: np.ndarray) -> float:
        z = BIAS + float(np.dot(WEIGHTS, x))
        return 1.0 / (1.0 + math.exp(-z))

    def verdict(
        self, analysis: "Analysis", h: float, name: str | None = None, note: str = "", threshold: float = 0.5,
        rescored: float | None = None,
    ) -> ClaimVerdict:
        """Verdict for an analysed claim at hallucination score ``h``: the label's kind (contradicted and
        its error type, or unsupported), the evidence sentence and the reason come from the facts.

        ``rescored``: the learned score of the claim in the evidence's terms (its verified figures written
        the evidence's way), when the caller could compute it; it replaces ``h`` for a verified rewording."""
        p, f = analysis.prepared, analysis.facts
        fc = f["fact_check"]
        ev_id, s, e, text = p.sentences[f["best"]]
        if fc.non_factual:
            # "The documents do not say ...": not a claim about the world, and the context does not state it.
            return ClaimVerdict(
                claim_id=p.item.claim.id, label=Label.unevaluatable, confidence=0.0, hallucination_score=0.0,
                evidence_ids=sorted({w.evidence_id for w in p.item.windows}), non_factual=True,
                reason="non-factual: what the sources cover, said of them (topics, no fact to check)" if fc.coverage_note
                else "non-factual: an abstention (the answer says the sources do not state this, and no evidence "
                     "sentence states it)",
                verifier=name or self.name,
            )
        # Monotone: a named mismatch floors the score at the precision of its kind (guardrail.facts).
        floor = floor_score(fc)
        if floor > h:
            top = max((d for d in fc.differences if d.confidence == floor), key=lambda d: d.kind == "mismatch")
            what = (f"{top.slot} mismatch" if top.kind == "mismatch"
                    else f"{_NOT_STATED_KIND.get(top.slot, top.slot)} not stated ('{top.claim_value}')")
            note += f"raised to {floor:.3f} by the {what} (the precision of that kind of finding); "
            h = floor
        # A faithful rewording: every value is stated by the evidence in another form (a conversion, number
        # words, correct arithmetic) and the rest of the claim is worded like the evidence. The learned score
        # reads the missing literal string as a hallucination; the fact checks have verified it is not.
        field = p.item.claim.kind == "field"
        if rescored is not None and fc.verified_rewording and not field and rescored >= 0.5:
            # Read again with the figures written the evidence's way, the claim is still more likely unsupported
            # than not: what it adds besides the figures ("... and is wheelchair accessible") is what flags it.
            if rescored < h:
                note += (f"values verified by the fact checks ({'; '.join(fc.reworded[:3])}), but {rescored:.3f} "
                         "in the evidence's terms; ")
                h = rescored
        elif ((fc.verified_rewording and (fc.coverage >= REWORDING_COVERAGE or fc.arithmetic_wording_only))
              or (field and (fc.values_verified or fc.field_stated))) and h >= threshold:
            note += f"values verified by the fact checks ({'; '.join(fc.reworded[:3]) or 'as stated'}); "
            h = min(h, 0.5 * threshold)
        elif rescored is not None and fc.verified_rewording and not field and rescored < h:
            # Worded unlike the evidence besides its figures: the score of the claim in the evidence's terms.
            note += f"values verified by the fact checks ({'; '.join(fc.reworded[:3])}); {rescored:.3f} in the evidence's terms; "
            h = rescored
        elif rescored is not None and fc.wording and fc.reworded_only and not field and rescored < h:
            # Worded unlike the evidence where the two say the same ("Never ..." / "Do not ..."): read in its words.
            said = "; ".join(f"'{p.claim_text[a:b]}' = '{form}'" for a, b, form in fc.wording[:3])
            note += f"{said}: {rescored:.3f} in the evidence's wording; "
            h = rescored
        conflict: ErrorType | None = f["conflict"]
        if h < threshold:
            label, error_type = Label.supported, None
        elif fc.mismatches:
            label, error_type = Label.contradicted, SLOT_ERROR[fc.mismatches[0].slot]
        elif fc.not_stated and any(d.confidence >= threshold for d in fc.not_stated):
            label, error_type = Label.unsupported, SLOT_ERROR[fc.not_stated[0].slot]
        elif conflict is not None:
            label, error_type = Label.contradicted, conflict
        else:
            label = Label.unsupported
            error_type = (
                ErrorType.number if f["miss_nums"]
                else ErrorType.temporal if f["miss_dates"]
                else ErrorType.entity if f["miss_ents"]
                else ErrorType.fabrication if f["null_fields"]
                else None
            )
        span = EvidenceSpan(evidence_id=ev_id, start=s, end=e, text=text)
        if fc.mismatches and fc.mismatches[0].evidence_span is not None:
            span = fc.mismatches[0].evidence_span
        return ClaimVerdict(
            claim_id=p.item.claim.id,
            label=label,
            confidence=round(h if label is not Label.supported else 1.0 - h, 6),
            hallucination_score=round(h, 6),
            evidence_ids=sorted({w.evidence_id for w in p.item.windows}),
            evidence_span=span,
            error_type=error_type,
            reason=note + _differences(fc) + _reason(f, conflict if label is Label.contradicted else None),
            verifier=name or self.name,
            differences=list(fc.differences),
        )


#: How a floored not-stated finding is named in a reason.
_NOT_STATED_KIND = {"field_value": "value", "new_name": "name", "made_up_value": "added clause with a figure"}

#: A claim whose every value the fact checks verified in another form passes when at least this share of its
#: other words is found in the sentences that state those values: 0.4 flags 0.131 / 0.190 of the fact
#: suites' faithful controls against 0.161 / 0.250 at 0.6 (docs/benchmarks.md).
REWORDING_COVERAGE = 0.4


def _differences(fc) -> str:
    """'claim says X, evidence says Y' for each fact-level finding, first in the reason."""
    parts = []
    for d in fc.differences:
        if d.kind == "mismatch":
            parts.append(f"{d.slot} mismatch: claim says '{d.claim_value}', evidence says '{d.evidence_value}'")
        elif d.kind == "not_stated":
            parts.append(f"{_NOT_STATED_KIND.get(d.slot, d.slot)} not stated in the context: '{d.claim_value}'")
    return "; ".join(parts) + ("; " if parts else "")


def _fmt(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


def _reason(f: dict, conflict: ErrorType | None) -> str:
    v = f["values"]
    parts = [f"best evidence sentence similarity {v['best_cosine']:.2f}", f"{100 * (1 - v['uncovered']):.0f}% of content words found"]
    if f["miss_nums"]:
        parts.append("numbers not stated by the evidence: " + ", ".join(f["miss_nums"][:5]))
    if f["miss_dates"]:
        parts.append("dates not in the evidence: " + ", ".join(f["miss_dates"][:5]))
    if f["miss_ents"]:
        parts.append("names not in the evidence: " + ", ".join(f["miss_ents"][:5]))
    if f["false_fields"]:
        parts.append("the data says false / no for: " + ", ".join(f["false_fields"][:3]))
    if f["null_fields"]:
        parts.append("the data has no value (null) for: " + ", ".join(f["null_fields"][:3]))
    if v["negation_mismatch"]:
        parts.append("negation differs from the best evidence sentence")
    if conflict is not None:
        parts.append(f"the evidence states a different {conflict.value} value")
    return "; ".join(parts)
