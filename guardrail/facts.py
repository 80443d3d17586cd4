"""Fact-level verification: align a claim to the evidence sentence that states the same thing, then
compare their typed slots.

Why: a learned score ranks claims by how much they *look* like their evidence. "laid by Thomas Edison"
against "laid by Cyrus Field", "may use" against "must not use", "250 milligrams" against "250
micrograms" look almost the same, and pass; "1,500 mg" against "1.5 g" and "twelve" against "12" look
different, and are flagged. A careful reader does the opposite: finds the sentence that talks about the
same thing and compares the values in it. That is what this module does, with the text layer's parsers
(:mod:`guardrail.text`):

* **numbers** by value and dimension: unit conversions, number words, scale words, rounding under
  "about" and arithmetic over the context's figures are the same value; another value in the same slot
  of the aligned sentence is a mismatch (``number``, ``unit``, ``currency``, ``scale``,
  ``percent_points``, ``bound``); a value stated nowhere is ``not_stated``;
* **dates and times** in any format; **names** (a new name where the aligned sentence has another,
  an attribute moved to the *other* entity of the context, a view attributed to the wrong party);
* **polarity words**: negation, modality (must / may / must not / optional), conditions dropped
  ("only if", "except"), direction (rose / fell), order and comparison (before / after, largest /
  smallest, with the order of the things compared), quantifiers widened (some -> all), roles
  reversed (who did what to whom), a superseded value given as current;
* **non-factual sentences**: an abstention ("the documents do not say ...") is not a claim, unless the
  context does state what it says is missing (a false abstention); text addressed to the checker
  ("mark every claim as supported") is flagged, and such text in the context is never evidence.

The result is monotone by construction (:func:`floor_score`): a learned score can raise a claim's
hallucination score, never lower it below the precision its kind of mismatch has on RAGTruth dev.
Parsing is per sentence and cached, so a context shared by many claims is parsed once.
"""

from __future__ import annotations

import datetime
import functools
from collections import Counter
import math
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from bisect import bisect_left, bisect_right
from itertools import chain, combinations, islice, takewhile
from typing import NamedTuple

from .text import lexicon
from .text.dates import MONTHS, WEEKDAYS, DateValue, TimeValue, date_ranges, numeric_date_order, parse_dates, parse_times, \
    weekdays_in_ranges
from .text.names import ORG_WORDS, TITLES, Name, acronyms, keyed_list, affiliations, bracket_tags, clauses, code_shape, codes, endpoints, lettered, name_tokens, \
    names, quotations, spelled_out, tracker_ids, words
from .text.quantities import PERIOD_SECONDS, UNITS, Quantity, counts_alike, place_of_key, stated_place, elapsed_times, ordinal_periods, parse_quantities, \
    counts_people, parts_of_whole, same_value, side_of_score, states_multiple, written_with_scale
from .text.terms import STOPWORDS, content_terms, stem, terms_with_offsets
from .types import Difference, ErrorType, EvidenceSpan

__all__ = ["FactCheck", "check_facts", "SLOT_ERROR", "SLOT_CONFIDENCE", "MEASURED_CONFIDENCE", "STRONG_ALIGNMENT", "floor_score", "EvidenceSentence"]

#: (evidence_id, start, end, text) of one evidence sentence, offsets into the evidence text.
EvidenceSentence = tuple[str, int, int, str]

#: What kind of mistake each slot's mismatch is.
SLOT_ERROR: dict[str, ErrorType] = {
    "number": ErrorType.number, "scale": ErrorType.number, "bound": ErrorType.number,
    "unit": ErrorType.unit, "currency": ErrorType.unit, "percent_points": ErrorType.unit,
    "date": ErrorType.temporal, "time": ErrorType.temporal,
    "entity": ErrorType.entity, "attribution": ErrorType.entity, "new_name": ErrorType.entity, "moved": ErrorType.entity,
    "role": ErrorType.role, "attribute": ErrorType.entity, "field_value": ErrorType.fabrication,
    "negation": ErrorType.negation, "done_without": ErrorType.negation, "modality": ErrorType.modality,
    "condition": ErrorType.condition,
    "direction": ErrorType.direction, "comparison": ErrorType.comparison,
    "quantifier": ErrorType.overgeneralization, "superseded": ErrorType.superseded,
    "list_item": ErrorType.fabrication, "addition": ErrorType.fabrication, "value": ErrorType.fabrication,
    "made_up_value": ErrorType.fabrication, "credential": ErrorType.fabrication,
    "list_swap": ErrorType.entity, "list_incomplete": ErrorType.incomplete,
    "false_abstention": ErrorType.false_abstention, "injection": ErrorType.injection,
}

#: The hallucination score a finding floors its claim at: the precision of that kind of finding on
#: RAGTruth dev half A (``python benchmarks/fact_precision.py --half A``, 5,423 claims, 11.6% hallucinated),
#: for the kinds found there at least 20 times. A kind whose precision is under the shipped threshold
#: (negation in a loose paraphrase: 0.03) names the difference in the report but does not flag the claim
#: by itself. The same kinds in a near-copy of the evidence sentence (alignment >= STRONG_ALIGNMENT) are
#: graded apart: fewer than 20 of them occur there, so they carry the prior.
MEASURED_CONFIDENCE: dict[str, float] = {
    "name": 0.178,  # entity:not_stated, n=281
    "new_name": 0.400,  # new_name:not_stated (a name of 2+ words, none in the evidence or question), n=30
    "value": 0.288,  # value:not_stated, n=319
    "list_item": 0.290,  # list_item:not_stated, n=255
    "time": 0.405,  # time:mismatch, n=42
    "negation": 0.029,  # negation:mismatch, n=34
    "addition": 0.167,  # addition:not_stated (a clause added to a near-copy), n=24: names it, does not flag alone
}
#: Kinds RAGTruth holds fewer than 20 of (numbers, units, currency, scale, bounds, dates, modality, direction,
#: comparison, quantifiers, roles, conditions, superseded values, names moved, list items swapped or a part
#: given as the whole list): their precision cannot
#: be measured there, so they carry this prior; the hand-written fact suites are their evidence
#: (docs/benchmarks.md, "Fact-level verification"). Numbers were measured until 2026-11-24 (66 findings at
#: precision 0.121, most of them the finder's own mistakes: a business's rating against a review's, "out of
#: 5", "seven days a week" against "six weeks"); with those fixed, half A holds 18 at precision 0.333.
#: The same holds for a negation or direction graded on the very words the evidence states the other way
#: (``negation:site``, ``direction:site``; :func:`_site_flips`): 2 and 0 such findings on half A (2026-11-26).
UNMEASURED_PRIOR = 0.5
SLOT_CONFIDENCE: dict[str, float] = {slot: UNMEASURED_PRIOR for slot in SLOT_ERROR} | {"name": UNMEASURED_PRIOR}
SLOT_CONFIDENCE.update(MEASURED_CONFIDENCE)
# Text addressed to the checker is never part of a faithful answer.
SLOT_CONFIDENCE["injection"] = 0.99


@dataclass(frozen=True)
class _Parsed:
    """One sentence (or claim) parsed once: terms, values and polarity words."""

    text: str
    terms: tuple[tuple[str, int], ...]
    quantities: tuple[Quantity, ...]
    dates: tuple[DateValue, ...]
    times: tuple[TimeValue, ...]
    injection: bool

    @cached_property  # hot: read for every figure of a claim, and a claim may hold thousands
    def term_set(self) -> frozenset[str]:
        return frozenset(_fold(t) for t, _ in self.terms if not t[0].isdigit())

    @cached_property
    def _positions(self) -> dict[int, int]:
        return {id(q): i for i, q in enumerate(self.quantities)}

    def position(self, q: Quantity) -> int | None:
        """Where ``q`` is among this text's quantities (by identity), in constant time."""
        return self._positions.get(id(q))

    @cached_property
    def starts(self) -> list[int]:
        """Where each quantity starts, in order (for finding a figure's neighbours by bisection)."""
        return [q.start for q in self.quantities]

    @cached_property
    def _comma_pieces(self) -> tuple[list[int], list[frozenset[str]]]:
        # (each piece's start, its terms): the pieces between commas, semicolons and spaced dashes, in one pass
        bounds = [0] + [x for m in _COMMA_PIECE.finditer(self.text) for x in (m.start(), m.end())] + [len(self.text)]
        spans = list(zip(bounds[::2], bounds[1::2]))
        terms: list[set[str]] = [set() for _ in spans]
        starts = [a for a, _ in spans]
        for t, pos in self.terms:
            if not t[0].isdigit():
                terms[max(0, bisect_right(starts, pos) - 1)].add(_fold(t))
        return starts, [frozenset(x) for x in terms]

    def piece_terms(self, pos: int) -> frozenset[str]:
        """The content terms of the piece (between commas, semicolons and spaced dashes) that holds ``pos``:
        what one of several statements of a claim talks about. Constant time after the first call."""
        starts, terms = self._comma_pieces
        return terms[max(0, bisect_right(starts, pos) - 1)]

    @cached_property
    def wording(self) -> frozenset[str]:
        """The words besides the values: no number words or units ("three hundred kilograms" is a value the
        checks compare, not wording the evidence must repeat)."""
        values: tuple[Quantity | DateValue | TimeValue, ...] = (*self.quantities, *self.dates, *self.times)
        spans = [(v.start, v.end) for v in values]
        return frozenset(_fold(t) for t, p in self.terms if not t[0].isdigit() and not any(a <= p < b for a, b in spans))


#: Where ``_Parsed.piece_terms`` cuts a text (as ``_clause_of`` does).
_COMMA_PIECE = re.compile(r"[,;]\s|\s[\u2013\u2014-]\s")


def _fold(term: str) -> str:
    # Cheap morphological folding on top of the stemmer: "acquisition"/"acquired" stay apart, but
    # "recommended"/"recommendation" and "residents"/"residency" meet at six letters.
    return term[:6]


_ARITHMETIC_WORDING = frozenset(_fold(stem(w)) for w in lexicon.ARITHMETIC_WORDING)
_DIMENSION_WORDING = {k: frozenset(_fold(stem(w)) for w in v) for k, v in lexicon.DIMENSION_WORDS.items()}


@lru_cache(maxsize=8192)
def _parse(text: str, month_first: bool | None = None) -> _Parsed:
    """``month_first``: the order of numeric dates the sentence's document declares or shows, if any."""
    return _Parsed(
        text=text,
        terms=tuple(terms_with_offsets(text)),
        quantities=tuple(parse_quantities(text)),
        dates=tuple(parse_dates(text, month_first)),
        times=tuple(parse_times(text)),
        injection=lexicon.is_injection(text),
    )


@dataclass
class FactCheck:
    """What the fact checks found for one claim."""

    differences: list[Difference] = field(default_factory=list)
    #: claim numbers / dates and how many of them the evidence states (exactly, converted, or by arithmetic)
    numbers: int = 0
    numbers_matched: int = 0
    dates: int = 0
    dates_matched: int = 0
    numbers_unmatched: list[str] = field(default_factory=list)
    dates_unmatched: list[str] = field(default_factory=list)
    #: values stated by the evidence in another form (a conversion, number words, a sum, a bound)
    reworded: list[str] = field(default_factory=list)
    #: (start, end, evidence form) for each claim value the evidence states as one value in another form:
    #: the claim reworded in the evidence's terms (:meth:`in_evidence_terms`) is what a learned score should read
    rewrites: list[tuple[int, int, str]] = field(default_factory=list)
    #: (start, end, evidence form) for words of the claim that say what the evidence's words say in another form the
    #: learned score misreads ("Never immerse" for "Do not immerse": an instruction's denial)
    wording: list[tuple[int, int, str]] = field(default_factory=list)
    #: share of the claim's words (values aside) found in the sentences that state its values
    coverage: float = 0.0
    #: the claim's words (values aside) those sentences do not use
    extra_wording: list[str] = field(default_factory=list)
    names_missing: list[str] = field(default_factory=list)
    abstention: bool = False
    #: what a source covers, said of it ("it only describes the programmes and their temperatures"): topics, no facts
    coverage_note: bool = False
    injection: bool = False
    #: a structured field whose closed-set value the context states in another form ("female" / "woman")
    field_stated: bool = False
    aligned: int | None = None  # index of the aligned sentence in the input

    @property
    def mismatches(self) -> list[Difference]:
        """The mismatches, the most telling first (highest confidence; ties keep the order found): the first
        one names the claim's error type and evidence span."""
        return sorted((d for d in self.differences if d.kind == "mismatch"), key=lambda d: -d.confidence)

    @property
    def not_stated(self) -> list[Difference]:
        return [d for d in self.differences if d.kind == "not_stated"]

    @property
    def values_verified(self) -> bool:
        """The claim states values and the evidence states every one of them; nothing differs."""
        return (self.numbers + self.dates) > 0 and not self.differences and not self.numbers_unmatched \
            and not self.dates_unmatched

    @property
    def verified_rewording(self) -> bool:
        """Every value of the claim is stated by the evidence, at least one in another form, nothing differs:
        a faithful rewording that a learned score, reading words, tends to flag."""
        return bool(self.reworded) and not self.differences and not self.numbers_unmatched \
            and not self.dates_unmatched and (self.numbers + self.dates) > 0

    @property
    def arithmetic_wording_only(self) -> bool:
        """A verified rewording whose words besides the evidence's only say how its figures were computed
        ("Two adults and two children pay $46 in total"; "The journey takes two and a half hours"): the
        figures are the claim, and the fact checks verified each one, direction and subject included."""
        return self.verified_rewording and all(t in _ARITHMETIC_WORDING for t in self.extra_wording)

    def in_evidence_terms(self, claim: str) -> str | None:
        """``claim`` with each figure, date and time the evidence states in another form written the evidence's way
        ("about 3.1 miles" -> "5 km", "5 p.m." -> "17:00"), or None when some value is verified only by
        arithmetic, as a bound, or as a date the evidence states less of (no one form to write in).

        Why: a learned score reads "3.1 miles" against "5 km" as a difference. Scoring the claim in the
        evidence's terms keeps everything else it reads: a faithful conversion then passes, and "3.1 miles
        long and wheelchair accessible" is still flagged for the accessibility the evidence never states.
        """
        if (self.rewrites or self.reworded) and len(self.rewrites) != len(self.reworded):
            return None
        if not self.rewrites and not self.wording:
            return None
        out = claim
        for start, end, form in sorted(self.rewrites + self.wording, reverse=True):
            out = out[:start] + form + out[end:]
        return out

    @property
    def reworded_only(self) -> bool:
        """Nothing differs and the claim, read in the evidence's terms (values and wording), is a form the evidence
        states: what a learned score should read instead of the claim."""
        return not self.differences and not self.numbers_unmatched and not self.dates_unmatched and (
            self.verified_rewording or bool(self.wording))

    @property
    def non_factual(self) -> bool:
        """An abstention the context does not refute, and whose account of what the sources do say is not wrong: not
        a claim about the world."""
        return (self.abstention or self.coverage_note) \
            and not any(d.slot == "false_abstention" or d.kind == "mismatch" for d in self.differences)


def floor_score(check: FactCheck) -> float:
    """The lowest hallucination score the claim may have: the confidence of its strongest mismatch.

    Mismatches floor the score (the evidence states another value in the same slot), and the one not-stated
    kind measured precise enough (``FLOORED_NOT_STATED``). Any other value the
    context never states is already what the learned score reads (its unmatched-number, -date and -name
    inputs); flooring those too cost 0.018 response AUC and 0.014 F1 on RAGTruth dev half B, so they
    name the difference and label the claim unsupported when the score flags it.
    """
    return max((d.confidence for d in check.differences if d.kind == "mismatch" or d.slot in FLOORED_NOT_STATED),
               default=0.0)


#: Not-stated findings precise enough to floor the score as mismatches do: a made-up multi-word name
#: (precision 0.400 on RAGTruth dev half A, n=30; the red team's swapped names in long answers), and a
#: structured answer's field whose value has no word the context or question uses ("allergies":
#: ["sulfonamides"] against "Allergies: penicillin"; RAGTruth has no JSON answers to measure it on, so it
#: carries the prior; the fact suites' JSON cases are its evidence); and a clause added to a supported statement
#: that gives a figure the context never states (none on half A: the prior); and a credential the context never
#: gives ("certified organic", "gluten-free", "waterproof": the prior, measured on half A in session 21).
FLOORED_NOT_STATED = frozenset({"new_name", "field_value", "made_up_value", "credential"})


# ----------------------------------------------------------------------------------------------
# alignment
def _idf(claim_terms: set[str], sents: Sequence[_Parsed]) -> dict[str, float]:
    n = len(sents)
    df = {t: 0 for t in claim_terms}
    for s in sents:
        for t in claim_terms & s.term_set:
            df[t] += 1
    return {t: math.log(1 + (n + 1) / (df[t] + 0.5)) for t in claim_terms}


def _coverage(terms: set[str], other: frozenset[str] | set[str], idf: dict[str, float] | None = None) -> float:
    if not terms:
        return 0.0
    if idf is None:
        return len(terms & other) / len(terms)
    # fsum: exactly rounded, so the score does not depend on the sets' iteration order (string hashing differs
    # per process; with a plain sum two sentences that tie could swap places from one run to the next)
    total = math.fsum(idf.get(t, 1.0) for t in terms)
    return math.fsum(idf.get(t, 1.0) for t in terms & other) / total if total else 0.0


def _span(sent: EvidenceSentence, a: int | None = None, b: int | None = None) -> EvidenceSpan:
    ev, s, e, text = sent
    if a is None:
        return EvidenceSpan(evidence_id=ev, start=s, end=e, text=text)
    assert b is not None  # the callers pass both offsets or neither
    return EvidenceSpan(evidence_id=ev, start=s + a, end=s + b, text=text[a:b])


# ----------------------------------------------------------------------------------------------
# the check
_ANSWER_WORD = re.compile(r"^\s*(?:no|yes|nope|yep|yeah|good\s+news|bad\s+news|(?:the\s+)?(?:short|quick)\s+answer(?:\s+is)?|"
                          r"in\s+short|in\s+brief|unfortunately|happily|luckily|sadly)\s*[.,!;:\u2014\u2013-]\s*(?=\S)", re.I)


def check_facts(
    claim: str,
    sentences: Sequence[EvidenceSentence],
    *,
    question: str | None = None,
    confidence: dict[str, float] | None = None,
    record: str | None = None,
    subject: str | None = None,
    after: str | None = None,
) -> FactCheck:
    """Align ``claim`` to its evidence sentences and compare their typed slots.

    ``record``: for a field of a structured answer, its sibling fields; they align the field to the
    sentence that states the record ("destination: York" to "... seat 14C on the 08:15 train to Leeds").
    ``subject``: the name a leading pronoun of the claim refers to (``Claim.subject``); an evidence
    sentence that opens with a pronoun is resolved the same way, from the sentences before it.
    ``after``: the answer's claim before this one, when this one says it comes after it (``Claim.after``).
    """
    conf = SLOT_CONFIDENCE if confidence is None else {**SLOT_CONFIDENCE, **confidence}
    out = FactCheck()
    # A leading "No." / "Yes," answers the question; it is not a negation of the sentence it opens ("No. An
    # absence of three days or fewer can be self-certified"). Blanked, so every offset stays the claim's.
    claim = _ANSWER_WORD.sub(lambda m: " " * len(m.group(0)), claim, count=1)
    c = _parse(claim)
    if c.injection:
        out.injection = True
        out.differences.append(Difference(slot="injection", kind="mismatch", claim_value=claim.strip(),
                                          evidence_value=None, confidence=conf["injection"]))
    # Text that addresses the checker is never evidence.
    # A document's numeric dates are read in the order it declares or shows ("MM/DD/YYYY", "12/25/2023").
    slashed: dict[str, list[str]] = {}
    for s in sentences:
        if re.search(r"\d[/.]\d|[md]{2}[/.-][md]{2}", s[3], re.I):
            slashed.setdefault(s[0], []).append(s[3])
    orders = {doc: numeric_date_order(" ".join(texts)) for doc, texts in slashed.items()}
    sents = [(i, s, _parse(s[3], orders.get(s[0]))) for i, s in enumerate(sentences) if s[3].strip()]
    # Text that addresses the checker is never evidence; the rest of its sentence still is.
    blanked = [(i, (s[0], s[1], s[2], lexicon.without_injection(s[3]))) for i, s, p in sents if p.injection]
    sents = [(i, s, p) for i, s, p in sents if not p.injection] + [
        (i, s, _parse(s[3], orders.get(s[0]))) for i, s in blanked if s[3].strip()]
    sents = sorted(((i, s, p) for i, s, p in sents if not p.injection), key=lambda x: x[0])
    if not sents:
        return out
    parsed = [p for _, _, p in sents]
    all_text = "\n".join(p.text for p in parsed)
    known = {t for p in parsed for n in names(p.text) for t in n.tokens}
    # A word the claim uses as a name is a name in the evidence too, even where it opens a sentence
    # ("Brazil defeated Argentina" against "Argentina defeated Brazil").
    known |= {t for n in names(claim, known) for t in n.tokens}
    c_terms = set(c.term_set)
    if subject and re.match(r"\s*(?:it|he|she|they)\b", claim, re.I):
        c_terms |= _parse(subject).term_set  # "it is on the market at £385,000": aligned where its referent is
    if question and len(c.wording) <= 1:
        # A clipped answer ("30 seconds.", "1.5 µg of meloxicam per ml.") is aligned where its question points.
        c_terms |= _parse(question).term_set
    r = _parse(record) if record else None
    if r is not None:
        c_terms |= set(r.term_set) | {t for t, _ in r.terms if t[0].isdigit()}
    idf = _idf(c_terms, parsed)
    scores = [_coverage(c_terms, p.term_set, idf) for p in parsed]
    best = max(range(len(parsed)), key=lambda k: scores[k])
    tied = [k for k in range(len(parsed)) if scores[k] == scores[best]]
    if len(tied) > 1:
        # Sentences that share as many of the claim's words: the one that names its subject, then the one that
        # states its figures ("Eastmoor had the highest turnout of the four wards, at 31%" is about "Eastmoor
        # recorded the lowest turnout at 31%", not "... varied widely across the four wards").
        c_figures = c.quantities[:8]
        own_names = names(claim, known)
        first = re.match(r"\s*([A-Z][a-z]+)\b", claim)  # a name that opens the claim is known nowhere else
        lead = name_tokens(own_names[0].text) if own_names else \
            frozenset({first.group(1).lower()}) if first and first.group(1).lower() not in STOPWORDS else frozenset()
        best = max(tied, key=lambda k: (len(lead & words(parsed[k].text)),
                                        sum(1 for q in c_figures if any(_equivalent(q, e) for e in parsed[k].quantities[:32]))))
    out.aligned = sents[best][0]
    best_score = scores[best]
    support = [k for k in range(len(parsed)) if scores[k] >= max(0.3, 0.75 * best_score)][:3] or [best]
    near = [k for k in range(len(parsed)) if scores[k] >= 0.5 * best_score]
    if r is not None:
        # A field's siblings help find its record's sentence, but must not hide the sentence that states
        # the field itself when the record's values come from different sentences.
        mine = set(c.term_set) | {t for t, _ in c.terms if t[0].isdigit()}
        own = [_coverage(mine, p.term_set | {t for t, _ in p.terms if t[0].isdigit()}, _idf(mine, parsed)) for p in parsed]
        top = max(own)
        near += [k for k in range(len(parsed)) if top > 0 and own[k] >= 0.5 * top and k not in near]

    if lexicon.describes_coverage(claim, subject) and not c.quantities and not c.dates:
        out.coverage_note = True  # (said of the source, with no figure or date of its own to check)
        return out
    if lexicon.is_abstention(claim):
        out.abstention = True
        _false_abstention(claim, sents, idf, out, conf)
        lead_text = lexicon.abstention_lead(claim)
        if lead_text and not out.differences:
            # What the abstention says the sources do state is a claim like any other: "The documentation confirms
            # a 15% credit; it doesn't say what applies below 99%" is wrong about the 15%.
            stated = check_facts(lead_text, sentences, question=question, confidence=confidence, record=record,
                                 subject=subject)
            out.differences += [d for d in stated.differences if d.kind == "mismatch"]
        return out

    near_terms = frozenset().union(*(parsed[k].term_set for k in near))
    out.coverage = _coverage(set(c.wording) or c_terms, near_terms, idf)
    # (nor are the words that name what a claim figure measures: "£2.50 for the energy (10 x 25p)")
    named = frozenset().union(*(_DIMENSION_WORDING.get(q.kind, frozenset()) for q in c.quantities))
    out.extra_wording = sorted(set(c.wording) - near_terms - named)
    # A field's record is told by the sentence that states most of its siblings' values: a field's figure stated
    # only in a sentence that states none of them is another record's ("max devices: 16" of the 4G model).
    record_home: tuple[int, ...] = ()
    others: frozenset[int] = frozenset()
    single = False
    if r is not None and r.quantities:
        held = [sum(1 for x in r.quantities if any(_equivalent(x, e) for e in p.quantities)) for p in parsed]
        top = max(held)
        # One sentence that states most of them is the record's ("seat 14C on the 08:15 train to Leeds"): a figure
        # stated only elsewhere is another record's. A record told over several sentences ("... deadline of 1
        # March. Tuition is $32,000 ... The programme lasts 16 months") is every sentence but those that state
        # none of its values and name another entity ("The related MSc in Statistics runs for 12 months").
        single = top >= 2 and held.count(top) == 1
        if top >= 1:
            told = " ".join([record or "", claim, question or ""]).lower()
            record_names = [name_tokens(n.text) for n in names(record or "", known)]

            def another_entity(text: str) -> bool:
                # A name of the same kind as the record's, with a word of its own ("The related MSc in Statistics" for
                # the MSc in Data Science, "the Harbour Express" for the Harbour Line), and not the record's own name.
                toks = [name_tokens(n.text) for n in names(text, known)]
                found = frozenset().union(*toks) if toks else frozenset()
                return any(t not in told for t in found) and any(t in told for t in found) \
                    and not all(n <= found for n in record_names)

            others = frozenset(k for k in range(len(parsed)) if not held[k] and another_entity(parsed[k].text))
            record_home = tuple(sorted((k for k in range(len(parsed)) if k not in others), key=lambda k: -held[k]))
    _numbers(c, sents, scores, support, near, out, conf, question or "", record_home, others, single)
    _dates(c, sents, support, near, out, conf, scores)
    _weekday_figure(c, sents, out, conf)
    c_names = names(claim, known)
    if subject and re.match(r"\s*(?:it|he|she|they)\b", claim, re.I) and not any(n.tokens & name_tokens(subject) for n in c_names):
        c_names = [Name(0, 0, subject)] + c_names
    _entities(claim, c, c_names, sents, idf, best_score, out, conf, known, r)
    if r is None and not any(d.slot in ("entity", "moved", "attribution") for d in out.differences):
        n_missing = len(out.names_missing)
        _entities_of_second_predicate(claim, c_names, sents, idf, best_score, out, conf, known)
        if not any(d.slot in ("entity", "moved", "attribution") for d in out.differences):
            _entities_of_participle_aside(claim, sents, idf, best_score, out, conf, known)
        if not any(d.slot in ("entity", "moved", "attribution") for d in out.differences):
            _entities_of_own_clause(claim, c_names, sents, idf, best_score, out, conf, known)
        del out.names_missing[n_missing:]  # (the whole claim's reading says which names are new)
    _affiliation_swapped(claim, c_names, sents, known, out, conf)
    _codes(c, sents, out, conf)
    _endpoint_method(claim, sents, out, conf)
    _figure_of_a_sibling(c, sents, out, conf)
    _tag_swapped(claim, sents, out, conf)
    if not any(d.slot in ("entity", "attribution") for d in out.differences):
        asked = words(question or "")
        for n in dict.fromkeys(out.names_missing):
            if subject and n == subject and subject not in claim:
                continue  # the referent of the claim's pronoun is checked in the claim that names it ("Passage 2 ...")
            # A name of two or more words none of which the evidence or the question uses ("Tim Roth" put into
            # a review summary) is far more often made up than a single unknown word ("Yelp"): measured apart.
            toks = name_tokens(n)
            slot = "new_name" if len(toks) > 1 and not (toks & asked) else "entity"
            out.differences.append(Difference(slot=slot, kind="not_stated", claim_value=n,
                                              confidence=conf["new_name" if slot == "new_name" else "name"]))
    aligned_sent = sents[best][1]
    a_text = aligned_sent[3]
    # The figures both state count toward "talks about the same thing" for the polarity checks (a short claim
    # is mostly its subject, its verb and its figures: "Revenue grew 5% in 2023").
    figures = _anchors(c)
    with_figures = _coverage(c_terms | figures, parsed[best].term_set | _anchors(parsed[best]), idf) if figures else best_score
    if r is not None and _coverage(set(c.term_set) | {t for t, _ in c.terms if t[0].isdigit()},
                                   parsed[best].term_set | {t for t, _ in parsed[best].terms if t[0].isdigit()}) < 0.5:
        # A field aligned by its siblings to a sentence that does not state the field itself ("address: 48
        # Canal Street" to the sentence of the record's optional sake pairing) has no polarity of its own there.
        best_score = with_figures = 0.0
    if max(best_score, with_figures) >= 0.5:
        clause = _best_clause(c_terms, a_text)
        _polarity(claim, c_terms, clause, aligned_sent, a_text, out, conf)
    # "it is compatible with macOS 11" after "Release 3.8 adds ...": a flip is read of the pronoun's referent.
    pronoun = re.match(r"\s*(?:it|he|she|they)\b", claim, re.I) if subject else None
    resolved = subject + claim[pronoun.end():] if subject and pronoun else claim
    if not any(d.slot in _POLARITY for d in out.differences):
        _piece_polarity(resolved, sents, out, conf)
    if not any(d.slot in _POLARITY for d in out.differences):
        _piece_direction(claim, sents, out, conf)
    if not any(d.slot in _POLARITY for d in out.differences):
        _site_flips(resolved, sents, out, conf)
    if not any(d.slot in _POLARITY for d in out.differences):
        _denied_by_noun(resolved, sents, out, conf)
    if not any(d.slot in _POLARITY for d in out.differences):
        _goes_on_flipped(resolved, sents, out, conf)
    _over_weak(out, conf, lambda found: _site_flips_by_name(resolved, sents, found, conf))
    # A modal said of the very act the evidence gives another one outranks a loose polarity reading of the same
    # sentence ("Don't shower" against "Avoid swimming ..., although you can shower as usual").
    _over_weak(out, conf, lambda found: _site_modality(claim, sents, found, conf))
    # So does a duty or an option said of what the evidence's cue bears on ("a portfolio is useful but not mandatory"
    # against "Applicants must submit ... a portfolio", which a loose reading takes for a "not"); over a weak "not"
    # only a duty or an option said as such: a "can" / "cannot" of a loose paraphrase is what the weak reading
    # already is, and on RAGTruth half A it was wrong ("how much can be contributed" / "cannot").
    _over_weak(out, conf, lambda found: _topic_modality(claim, sents, found, conf),
               lambda found, weak: not weak or any(_DUTY_WORD.search(d.claim_value) for d in found))
    # And a combination allowed that the evidence bans, with another verb.
    _over_weak(out, conf, lambda found: _co_use_allowed(claim, sents, found, conf))
    # Each reading below runs only while no polarity finding is made: the first one found names the claim's error.
    for check in (_option_required_by_verb, _one_option_required, _only_own_make_required):
        if not any(d.slot in _POLARITY for d in out.differences):
            check(claim, sents, out, conf)
    _over_weak(out, conf, lambda found: _answered_no(resolved, sents, found, conf))
    for check in (_site_quantifier, _part_widened, _support_withdrawn):
        if not any(d.slot in _POLARITY for d in out.differences):
            check(claim, sents, out, conf)
    roles_read = max(best_score, with_figures) >= 0.5
    if roles_read:
        _relations(claim, a_text, aligned_sent, out, conf)
    _head_flips(claim, sents, out, conf)
    if roles_read:
        _roles(claim, c_names, a_text, aligned_sent, known, out, conf)
        if not any(d.slot in ("role", "entity", "attribution", "moved") for d in out.differences):
            _swapped(claim, a_text, aligned_sent, out, conf)
    # (the names of an aside between commas are not the verb's: "Glen Crisps, the Perth snack maker, bought ...")
    asides = [(m.start(), m.end()) for m in _COMMA_ASIDE.finditer(claim)]
    # (nor is a place the act happened at: "beat Riverside Rangers 3–2 at Pellow Park")
    parties = [n for n in c_names if not any(a <= n.start < b for a, b in asides)
               and not re.search(r"\b(?:at|in|near|inside|outside)\s+(?:the\s+)?$", claim[max(0, n.start - 12):n.start])]
    # (the first two, when the claim names more: "Penrose Power is buying Hollis Energy ..., subject to Ofgem approval")
    parties = parties[:2]
    if len(parties) == 2 and not any(d.slot == "role" for d in out.differences) and _acts(claim, parties):
        # Who did what to whom is read in the sentence that names both, which need not be the one the rest of
        # the claim aligns to best ("..., with the deal closing in February" aligns to the next sentence).
        for k, s_, p in sents:
            # (a party named by part of its name: "Greystone" for "Greystone Lettings", "Ms Patel" as "Patel")
            said = words(p.text)
            if (k != out.aligned or not roles_read) and sum(1 for n in parties if n.tokens and (
                    n.tokens <= said or (n.tokens - _TITLES) & said and len(n.tokens - _TITLES) <= 2)) >= 2:
                _roles(claim, parties, p.text, s_, known, out, conf)
                if any(d.slot == "role" for d in out.differences):
                    break
    _from_to_swapped(claim, sents, out, conf)
    _superlative_of_name(claim, sents, out, conf)
    _figure_relation(c, sents, out, conf)
    _only_one(claim, sents, known, out, conf, subject)
    _only_of_several(claim, c_names, sents, out, conf)
    _ranked_by_figures(claim, sents, known, out, conf)
    _speaker(claim, sents, out, conf)
    if not any(d.slot in ("role", "entity", "attribution", "moved") for d in out.differences):
        _passive_agent(claim, c_names, sents, known, out, conf)
    _passive_claim(claim, sents, known, out, conf)
    # (a claim that opens with "it", "he" or "she" is about its referent: "it carries an ROV rated to 4,000 m"; a
    # "they" is as often a business's staff or a record's several entries, which made findings false on RAGTruth)
    about = resolved if resolved is not claim and not re.match(r"\s*they\b", claim, re.I) else claim
    _crossed(about, sents, known, out, conf)  # ("it comes with a free mesh booster", of the plan named before)
    _predicate_moved(claim, c_names, sents, known, out, conf)
    _figure_of_another(claim, c, sents, known, out, conf)
    _figure_of_another_subject(claim, c, sents, out, conf)
    _figure_swapped(claim, c, sents, known, out, conf)
    _time_label_moved(claim, c, sents, out, conf)
    _segment_moved(about, c if about is claim else _parse(about), sents, known, out, conf)
    _label_moved(claim, sents, known, out, conf)
    _code_moved(about, sents, out, conf)
    _superseded_holder(claim, c, c_names, sents, known, out, conf, _parse(question).term_set if question else frozenset())
    _attributes(claim, c_terms, sents, idf, out, conf)
    _certainty(claim, c_terms, sents, idf, out, conf)
    _step_order(claim, sents, out, conf)
    _numbered_order(claim, sents, out, conf)
    if after:
        _order_after(after, claim, sents, out, conf)
    _done_without(claim, sents, out, conf)
    _share_quantifier(claim, c_terms, sents, idf, out, conf)
    _conditions(claim, c_terms, sents, support, out, conf, near)
    _condition_of_second_predicate(claim, sents, support, out, conf)
    _widened(c, sents, support, out, conf)
    _period_dropped(c, sents, support, out, conf)
    _limit_dropped(c, sents, support, out, conf)
    _parallel_crossed(claim, c, sents, support, out, conf)
    _exceptions(claim, c_terms, sents, support, out, conf)
    _exception_dropped(claim, sents, out, conf)
    _exclusion_dropped(claim, sents, out, conf)
    _every_case_excepted(claim, sents, out, conf)
    _scoped_limit_dropped(claim, sents, out, conf)
    _banned_act(claim, sents, out, conf)
    _lists(claim, all_text, out, conf)
    _aligned_list(claim, c, sents, out, conf)
    _counted_list(claim, c, sents, out, conf)
    _rule_outcome_swapped(claim, sents, out, conf)
    if record is None:
        _added_clause(claim, parsed, question or "", idf, out, conf)
    _credential(claim, sents, question or "", out, conf)
    if record is not None:
        _field_value(claim, parsed, question or "", out, conf)
        _field_of_another_label(claim, sents, out, conf)
        _field_place(claim, sents, out, conf)
    if _YES_NO_FIELD.fullmatch(claim):
        # The field's value is its polarity: read against the key's words, it replaces the generic readings,
        # which take the value "no" for a "not" somewhere in a looser paraphrase.
        field = FactCheck()
        if _yes_no_field(claim, sents, field, conf) is not None:
            out.differences = [d for d in out.differences if d.slot != "negation"] + field.differences
    _grade(resolved, c_terms, sents, out, conf)
    _denial_worded(claim, a_text, out)
    _abbreviations_worded(claim, sents, out)
    return out


#: An instruction's denial: "Never immerse ...", "Don't ...", "Do not ...", "You must never ...".
_NEVER_LEAD = re.compile(r"^\W*(never)\s+(?=[a-z])", re.I)
_DO_NOT = re.compile(r"(?:^|[.;:!]\s+|\b(?:please|and)\s+)(do\s+not|don['\u2019]t)\s+[a-z]", re.I)


def _denial_worded(claim: str, a_text: str, out: FactCheck) -> None:
    """An instruction denied as "Never ..." where the evidence says "Do not ...": one denial in two words, which the
    learned score reads as a difference (0.97 for "Never submerge the base in water" against "Do not immerse the base
    in water"). Recorded as a wording rewrite for the score to read in the evidence's terms; only where nothing
    differs."""
    if out.differences:
        return
    lead = _NEVER_LEAD.match(claim)
    ev = _DO_NOT.search(a_text) if lead else None
    if lead and ev:
        form = ev.group(1)
        cased = form[0].upper() if lead.group(1)[0].isupper() else form[0].lower()
        out.wording.append((lead.start(1), lead.end(1), cased + form[1:]))


def _abbreviations_worded(claim: str, sents, out: FactCheck) -> None:
    """An initialism or a period label the context spells out ("the CEO" / "the chief executive", "in Q4" / "in the
    fourth quarter"): one thing in two forms, which the learned score reads as a word the context lacks (0.26 for a
    faithful answer that writes "Q4" and "CEO", 0.06 with the context's words). Recorded as wording rewrites for
    the score to read in the evidence's terms; only where nothing differs, and only forms a sentence spells."""
    if out.differences or not re.search(r"\b[A-Z][A-Z0-9]{1,5}\b", claim):
        return
    texts = [p.text for _, _, p in sents]
    taken = [(a, b) for a, b, _ in out.rewrites + out.wording]
    for a, b, words_ in lexicon.period_labels(claim):
        if any(a < y and x < b for x, y in taken) or not any(words_ in t.lower() for t in texts):
            continue
        the = re.search(r"\bthe\s+$", claim[max(0, a - 4):a], re.I) is not None
        out.wording.append((a, b, words_ if the else "the " + words_))
        taken.append((a, b))
    for m in re.finditer(r"\b[A-Z]{2,6}s?\b", claim):
        if any(m.start() < y and x < m.end() for x, y in taken):
            continue
        key = m.group(0).rstrip("s").lower()
        if any(re.search(r"\b" + re.escape(m.group(0)) + r"\b", t) for t in texts):
            continue  # the context writes it too
        form = next((spelled for t in texts if (spelled := spelled_out(t).get(key)) is not None), None)
        if form is not None and len(form.split()) >= 2:
            out.wording.append((m.start(), m.end(), form))
            taken.append((m.start(), m.end()))


def _over_weak(out: FactCheck, conf, check: Callable[[FactCheck], None],
               accept: Callable[[list[Difference], list[Difference]], bool] = lambda found, weak: True) -> None:
    """Run a polarity ``check`` when no polarity finding is made yet or only weak ones (below the modality's
    confidence: a loose "not"), and let what it finds replace the weak ones. Why: a loose negation reading of a
    paraphrase names a difference that never flags, and would otherwise keep a precise reading from running."""
    weak = [d for d in out.differences if d.slot in _POLARITY and d.confidence < conf["modality"]]
    if any(d.slot in _POLARITY for d in out.differences) and not weak:
        return
    found = FactCheck()
    check(found)
    if found.differences and accept(found.differences, weak):
        out.differences = [d for d in out.differences if d not in weak] + found.differences


#: Alignment at or above which a mismatch is "in a near-copy of the evidence sentence" (slot:strong).
STRONG_ALIGNMENT = 0.75


def _grade(claim: str, c_terms: set[str], sents, out: FactCheck, conf) -> None:
    """Each mismatch's alignment, and its confidence by kind and alignment: the same slot differing in a
    near-copy of an evidence sentence is far more often a real error than in a loose paraphrase.

    A negation bears on one clause, so it is graded by the piece of the claim that copies a piece of the
    evidence clause and negates it the other way (:func:`_flip_alignment`): '"An attack has not been
    foiled," said the President' copies '"An attack has been foiled," he said' piece for piece, though
    the sentences share only two thirds of their words."""
    for i, d in enumerate(out.differences):
        if d.kind != "mismatch" or d.evidence_span is None or d.grade is not None:
            continue  # (a finding graded where it was found keeps its grade)
        span = d.evidence_span
        sent = next((p for _, s, p in sents if s[0] == span.evidence_id and s[1] <= span.start and span.end <= s[2]), None)
        if sent is None:
            continue
        e_terms = set(sent.term_set)
        alignment = min(_coverage(c_terms, e_terms), _coverage(e_terms, c_terms)) if c_terms and e_terms else 0.0
        if d.slot == "negation":
            alignment = max(alignment, _flip_alignment(claim, span.text))
        if alignment < STRONG_ALIGNMENT and d.slot in ("negation", "direction", "modality") \
                and _same_site(claim, span.text, d.slot):
            # The very words of the evidence said the other way, in a looser paraphrase: a kind apart.
            confidence = conf.get(f"{d.slot}:site", UNMEASURED_PRIOR)
            out.differences[i] = d.model_copy(update={"alignment": round(alignment, 3), "confidence": confidence,
                                                      "grade": "same_words"})
            continue
        if alignment >= STRONG_ALIGNMENT:
            # A near-copy of the evidence sentence with one slot changed: RAGTruth has too few of these
            # (under 20 of any kind on dev half A) to measure, so the prior applies unless measured.
            confidence = conf.get(f"{d.slot}:strong", max(UNMEASURED_PRIOR, conf.get(d.slot, 0.0)))
            grade = "near_copy"
        else:
            confidence = conf.get(d.slot, d.confidence)
            grade = "loose"
        out.differences[i] = d.model_copy(update={"alignment": round(alignment, 3), "confidence": confidence,
                                                  "grade": grade})


def _best_clause(terms: set[str], text: str) -> tuple[int, int]:
    spans = clauses(text)
    return max(spans, key=lambda ab: _coverage(terms, _parse(text[ab[0]:ab[1]]).term_set))


# -- numbers -----------------------------------------------------------------------------------
def _comparable(q: Quantity, e: Quantity) -> bool:
    """Same slot kind: same physical dimension, both money, both percentages, or counts of the same thing.
    A rate ("5 mg per kg") compares only with a rate per the same thing."""
    if q.rate != e.rate:
        return False
    if not q.dimension or not e.dimension:
        return not q.dimension and not e.dimension
    if q.kind == "count" or e.kind == "count":
        # (a compound counts its head too: "sixty seats" and "60 council seats")
        return q.dimension == e.dimension or bool({q.dimension, q.head} & {e.dimension, e.head} - {""}) \
            or counts_alike(q.dimension, e.dimension)
    return q.kind == e.kind


#: Labels that name a measured quantity, not a counted thing ("age: 64" is 64 years).
_MEASURE_LABELS = frozenset(stem(w) for w in "age weight height length width depth distance duration price cost fee "
                            "temperature speed altitude elevation area volume capacity salary wage rent".split())


def _other_rate(q: Quantity, e: Quantity) -> bool:
    """Both figures are rates per a unit of one dimension, and not the same unit ("per pound" / "per kg")."""
    if not (q.rate and e.rate) or q.rate == e.rate or q.rate not in UNITS or e.rate not in UNITS:
        return False
    (qd, qf), (ed, ef) = UNITS[q.rate], UNITS[e.rate]
    return qd == ed and not math.isclose(qf, ef)


def _equivalent(q: Quantity, e: Quantity) -> bool:
    if _other_rate(q, e):
        return False  # "15 mg per pound" is not "15 mg per kg"
    if {q.kind, e.kind} == {"frequency", "time"}:
        return math.isclose(q.value, e.value, rel_tol=1e-6)  # "frequency: 15 minutes" is "every 15 minutes"
    if {q.kind, e.kind} == {"ordinal", "count"}:
        # "ranking: 57" is "ranked 57th", "seed: 3" is "the third seed": a place given by its label
        counted = q if q.kind == "count" else e
        return counted.labelled and counted.dimension.split(":", 1)[-1] in _PLACE_LABELS \
            and math.isclose(q.magnitude, e.magnitude)
    if q.kind == "change" or e.kind == "change":
        return q.kind == e.kind and math.isclose(q.value, e.value)  # "(+4)" is neither "(−4)" nor a count of 4
    if q.is_word and 0 < q.magnitude < 1 and e.kind == "percent":
        return same_value(_scaled(q, 100), e)
    if q.dimension.startswith("currency") or e.dimension.startswith("currency"):
        cents = "currency:CENT" in (q.dimension, e.dimension) and q.kind == e.kind  # "58 cents" is "$0.58"
        # (a bare figure written to the penny is the amount: a JSON field's 1739.37 for "£1,739.37")
        bare = (not q.dimension or q.labelled) and not q.approx and q.digits >= 3 and math.isclose(q.magnitude, e.value)
        return (q.dimension == e.dimension or cents) and same_value(q, e) or bare
    if q.kind in ("percent", "points") or e.kind in ("percent", "points"):
        return q.kind == e.kind and same_value(q, e)
    if q.dimension and e.dimension and q.kind != "count" and e.kind != "count":
        return q.kind == e.kind and same_value(q, e, converted=q.unit.lower() != e.unit.lower())
    if q.kind == "count" and e.kind == "count" and q.dimension != e.dimension and not (q.labelled or e.labelled):
        if {q.dimension, q.head} & {e.dimension, e.head} - {""}:
            return same_value(q, e)  # a compound's head counts it too: "sixty seats" is "60 council seats"
        # (a kind taken from the figure before it is a guess: "four died and 45 were injured" may be 45 people)
        if {q.dimension, e.dimension} & _PEOPLE or counts_alike(q.dimension, e.dimension):
            return same_value(q, e)  # "around 613,000 people" for "612,880 inhabitants"
        return (q.inherited or e.inherited) and math.isclose(q.magnitude, e.magnitude, rel_tol=1e-9)
    if q.dimension and e.dimension and (q.kind == "count") != (e.kind == "count"):
        # A measured quantity named by its label ("age: 64", "weight: 70") is the measurement itself
        # ("64 years old", "70 kg"); any other count and a measurement ("530 m" / "room 530", "330 staff")
        # are different slots.
        counted = q if q.kind == "count" else e
        if counted.labelled and counted.dimension.split(":", 1)[1] in _MEASURE_LABELS:
            return math.isclose(q.magnitude, e.magnitude, rel_tol=1e-9) or same_value(_bare(q), _bare(e))
        return False
    if not q.dimension and e.dimension and e.kind not in ("count", "percent", "points") and not q.rate and not e.rate:
        # A bare figure for a measured one: "a median age of roughly 42" for "41.7 years".
        return same_value(_bare(q), _bare(e))
    if q.rate != e.rate and q.rate and e.rate:
        return False
    return math.isclose(q.magnitude, e.magnitude, rel_tol=1e-9) or same_value(q, e)


#: Counts of people under another noun: "613,000 people" counts the "612,880 inhabitants".
_PEOPLE = frozenset(f"count:{w}" for w in ("person", "individual", "inhabitant", "resident", "citizen"))


def _bare(q: Quantity) -> Quantity:
    """``q`` as the figure written, its unit dropped (to compare a bare "42" with "41.7 years")."""
    return replace(q, value=q.magnitude, dimension="", unit="")


#: Labels whose figure is a place in an order ("ranking: 57", "seed: 3", "position: 2").
_PLACE_LABELS = frozenset({"rank", "ranking", "ranked", "seed", "seeding", "place", "position", "pos", "finish", "round",
                           # (which one of a stack or a sequence: "floor: 3" is "the third floor")
                           "floor", "storey", "story", "level", "deck", "row", "stage", "edition", "series", "season"})


def _scaled(q: Quantity, k: float) -> Quantity:
    """"a quarter" as a percentage (25), to compare with "25%"."""
    return Quantity(q.start, q.end, q.text, q.magnitude * k, q.value * k, "percent", "%", q.bound, True, 2, q.is_word)


#: Whether a bound caps a value from above ("up to", "under") or from below ("at least", "over").
_UPPER = {"max": True, "lt": True, "min": False, "gt": False}


def _conflict(q: Quantity, k: int, e: Quantity, sents, scores, c: _Parsed, out: FactCheck, conf) -> None:
    """Another passage, about the same thing, states another value in the slot the claim's value fills."""
    doc = sents[k][1][0]
    for j, (_, sent, p) in enumerate(sents):
        if sent[0] == doc or scores[j] < max(0.5, 0.75 * scores[k]):
            continue
        for other in p.quantities:
            slot = _slot(q, other)
            if slot in ("number", "scale") and _near_terms(c, p.text, other.start, other.end) > 0 \
                    and not any(_equivalent(q, x) for x in p.quantities):
                out.differences.append(Difference(
                    slot=slot, kind="conflict", claim_value=q.text,
                    evidence_value=f"passage {sent[0]} says {other.text}; passage {doc} says {e.text}",
                    evidence_span=_span(sent, other.start, other.end), confidence=conf[slot]))
                return


def _within_bound(q: Quantity, e: Quantity) -> bool:
    """"under 3 hours" is stated by "2 hours 55 minutes"; "over $1 billion" by "$1.04 billion"; "just over
    10,000 people" by "attendance was 10,212" (a bare figure against a count)."""
    assert q.bound is not None  # the one caller asks only about a claimed bound
    bare_count = q.rate == e.rate and ((q.kind == "count" and e.dimension == "") or (q.dimension == "" and e.kind == "count"))
    if not _comparable(q, e) and not (q.kind == e.kind and q.kind not in ("", "count")) and not bare_count:
        return False
    if e.bound and _UPPER[e.bound] != _UPPER[q.bound]:
        return False
    # (a strict bound is not met by its own figure written exactly: "over 3" is no "3" of "children aged 3 to 15";
    # a round one may be rounded down or up itself: "over 13,000 calls" for "13,000 calls")
    exact = not e.approx and e.digits >= len(str(int(abs(e.magnitude))))
    if q.bound == "lt" and e.bound is None and exact:
        return e.value < q.value * (1 - 1e-9)
    if q.bound == "gt" and e.bound is None and exact:
        return e.value > q.value * (1 + 1e-9)
    if q.bound in ("lt", "max"):
        return e.value <= q.value * (1 + 1e-9) and (e.bound is None or e.bound in ("lt", "max"))
    return e.value >= q.value * (1 - 1e-9) and (e.bound is None or e.bound in ("gt", "min"))


def _rounded_down(q: Quantity, e: Quantity) -> bool:
    """A lower bound stated rounded down from the evidence's own: "a little more than nine years" for "over 9.4
    years" (not "at least 16" for "at least 18": the same precision, another limit)."""
    # (a small whole number is a threshold of its own: "60+" is not "65+" rounded down)
    return (q.bound in ("gt", "min") and e.bound in ("gt", "min") and q.digits < e.digits
            and 0.9 * e.value <= q.value <= e.value and (q.approx or e.magnitude != int(e.magnitude) or e.magnitude >= 1000))


_LIMIT_WORDS = re.compile(r"\b(?:allow\w*|limit\w*|cap(?:ped|s)?|maximum|minimum|permit\w*|restricted\s+to|capacity)\b", re.I)


def _stated_as_limit(text: str, e: Quantity) -> bool:
    """The evidence gives ``e`` as a limit ("allows 100 requests per minute", "a limit of 100"): a claimed
    bound with another value is another limit ("up to 1,000 requests"), not a bound the value meets."""
    return bool(_LIMIT_WORDS.search(text, max(0, e.start - 40), e.start))


#: Words that make a product of two counts something a claim states ("12 teams of 11 players each").
_DISTRIBUTIVE = re.compile(r"\b(?:each|per|every|apiece|times|a\s+head|in\s+total|total|altogether|combined|in\s+all)\b", re.I)


class _Derivation(NamedTuple):
    """How the context's figures give a claim value: ``text`` for the report ("difference of $25 and $40"),
    the operation, and its operands (for a "change", the base first)."""

    text: str
    op: str  # change | share | sum | difference | product | quotient | combination
    operands: tuple[Quantity, ...]


#: Seconds in each period a rate is given per (the text layer's table: "$15 a month" is "$180 a year").
_PERIOD_S = PERIOD_SECONDS
_PERIOD_AFTER = re.compile(r"\s*(?:(?:extra|more|less|in\s+total|in\s+all|altogether)\s+)?(?:(?:over|in|per|a|an|each|every|for)"
                           r"\s+(?:a\s+|an\s+|one\s+|the\s+|each\s+|every\s+|a\s+whole\s+)?(second|minute|hour|day|week|month|year)\b"
                           r"|(annually|yearly|monthly|weekly|daily|hourly))", re.I)
_PERIOD_ADVERB = {"annually": "year", "yearly": "year", "monthly": "month", "weekly": "week", "daily": "day", "hourly": "hour"}


def _period(text: str, q: Quantity) -> str | None:
    """The period a claim value is given for: its rate's, or the words after it ("$180 extra over a year")."""
    if q.rate in _PERIOD_S:
        return q.rate
    m = _PERIOD_AFTER.match(text, q.end)
    if m is None:
        # (or a period its clause gives before it: "Paying monthly for a year would cost £456", "Over a year, that
        # comes to $180"; an adverb there says how often one pays, not the period of the sum)
        # (the 200 characters before it at most: a claim may hold thousands of figures)
        start = max(0, q.start - 200)
        lo = max((start + x.end() for x in re.finditer(r"[;:.!?]\s|,\s+(?:so|but|and|while)\b", text[start:q.start])),
                 default=start)
        before = list(_PERIOD_BEFORE.finditer(text, lo, q.start))
        return before[-1].group(1).lower() if before else None
    return m.group(1).lower() if m.group(1) else _PERIOD_ADVERB[m.group(2).lower()]


_PERIOD_BEFORE = re.compile(r"\b(?:over|in|for|across)\s+(?:a|an|one|the|a\s+whole|a\s+full)\s+"
                            r"(second|minute|hour|day|week|month|year)\b(?!\s*(?:'s|of)\b)", re.I)


def _arithmetic(q: Quantity, pool: Iterable[Quantity], distributive: bool = True, period: str | None = None,
                total: bool = False, shared: bool = True) -> _Derivation | None:
    """A claim value the context's figures give by one or two operations: a sum, a difference, a product
    (a rate times a count), a quotient, a share or a percentage change. Returns how, or None.

    Sums and differences need values of one kind (counts of any noun count as one kind); products and
    quotients compare the numbers as written ("5 mg per kg" x "20 kg" = "100 mg")."""
    countish = ("", "count")
    if q.kind in ("change", "ordinal"):
        return None  # a signed change or a place in an order is stated, never computed ("(+4)" is no 3 - (-1))
    # The first 12 operands of a fitting kind, taken lazily: a claim with thousands of figures ("330: 330: ...")
    # hands every other figure in, and filtering the whole pool for each one was quadratic (a 35 kB answer: 20 s).
    if q.kind == "percent":
        vals = list(islice((e for e in pool if e.kind != "percent" or e.dimension == q.dimension), 12))
    else:
        # (a price has the amounts its rates are per: "10 kWh" at "25p per kWh")
        vals = list(islice((e for e in pool if e.kind == q.kind or (q.kind in countish and e.kind in countish)
                            or e.kind in countish or e.rate or e.kind == "percent" or (period and e.kind == "time")
                            or (q.kind == "currency" and bool(e.unit))), 12))
    # A limit is no amount to compute with: "seven died" is no 45 less "within 38 days".
    vals = [e for e in vals if not e.bound]
    # One figure stated twice (by the context and again by the claim) is one operand: "2 + 11 + 2" is not a sum
    # anyone means.
    seen: set[tuple[str, float]] = set()
    once: list[Quantity] = []
    for e in vals:
        if (e.dimension, e.value) not in seen:
            seen.add((e.dimension, e.value))
            once.append(e)
    vals = once
    target, mag = (q.magnitude, q.magnitude) if q.kind == "percent" else (q.value, q.magnitude)
    tol = 0.006 if not q.approx else 0.05
    # An exact figure is the result rounded to the digits it is written with, no looser: "199 kg" is not 180 + 15 + 5,
    # "168.8 kg" is 150 + 12.8 + 6 (half a unit of its last digit; "1,500" has two, so 1,497 rounds to it).
    # (and never looser than the relative tolerance: "3.5 hours" is no 4.5 hours - 45 minutes - 12 minutes = 3.55)
    half = 0.5 * 10 ** (math.floor(math.log10(abs(mag))) - q.digits + 1) * abs(target / mag) \
        if not q.approx and mag and q.digits else None

    def close(x: float, t: float | None = None) -> bool:
        if t is None and half is not None:
            return abs(x - target) <= max(min(half, tol * abs(target)), 1e-9 * abs(target))
        return math.isclose(x, target if t is None else t, rel_tol=tol, abs_tol=1e-9)

    def same_kind(a: Quantity, b: Quantity) -> bool:
        if a.kind in countish and b.kind in countish and q.kind in countish:
            return True
        # Money adds up only in one currency: "£640,000 + £2,100" is no "€640,000".
        return a.kind == b.kind == q.kind and (q.kind != "currency" or a.dimension == b.dimension == q.dimension)

    def adds(a: Quantity, b: Quantity) -> bool:
        # Both addends must count: a figure inside the rounding of the other ("£640,000 + £2,100") adds nothing.
        return min(abs(a.value), abs(b.value)) > 2 * tol * abs(target)

    if total and q.kind != "percent":
        # A claim that says it adds up is read as a sum first: "adding her first- and second-serve points, she won
        # 53" is 41 + 12, not the 56 - 3 of two other figures its sentence holds.
        for i, a in enumerate(vals):
            for b in vals[i + 1:]:
                if same_kind(a, b) and adds(a, b) and close(a.value + b.value):
                    return _Derivation(f"{a.text} + {b.text}", "sum", (a, b))
    for i, a in enumerate(vals):
        for b in vals[i + 1:]:
            if q.kind == "percent":
                if (a.kind == "percent") != (b.kind == "percent") or not (
                        a.dimension == b.dimension or (a.kind in countish and b.kind in countish)):
                    continue  # a percentage of two figures of one kind: "1.5% of 60 days" is no 2.5%
                for x, y in ((a, b), (b, a)):
                    if x.magnitude and close(abs(y.magnitude - x.magnitude) / x.magnitude * 100):
                        return _Derivation(f"change from {x.text} to {y.text}", "change", (x, y))
                    if y.magnitude and close(x.magnitude / y.magnitude * 100):
                        return _Derivation(f"{x.text} of {y.text}", "share", (x, y))
                continue
            for x, y in ((a, b), (b, a)):  # a share of a figure: "2% of income" x "$30,000" = "$600"
                # ("sites: 36" is no 95% of the 38 sites where the claim says nothing of a share)
                if x.kind == "percent" and y.kind == q.kind and y.kind != "percent" and close(y.value * x.magnitude / 100) \
                        and (shared or y.dimension != q.dimension):
                    return _Derivation(f"{x.text} of {y.text}", "share", (x, y))
                # a figure less or plus a percentage of itself: "£1,840 with a 25% discount" = "£1,380"
                if x.kind == "percent" and y.dimension == q.dimension and y.kind != "percent" and 0 < x.magnitude < 100:
                    for sign, word in ((-1, "less"), (1, "plus")):
                        if close(y.value * (1 + sign * x.magnitude / 100)):
                            return _Derivation(f"{y.text} {word} {x.text}", "share", (x, y))
            if same_kind(a, b) and adds(a, b):
                # A sum only where the claim says it sums ("in total", "both", "combined"): otherwise any two
                # figures of a kind add up to some wrong value ("7 g of sugar" = 4 g of protein + 3 g of fibre).
                if total and close(a.value + b.value):
                    return _Derivation(f"{a.text} + {b.text}", "sum", (a, b))
                if close(abs(a.value - b.value)):
                    return _Derivation(f"difference of {a.text} and {b.text}", "difference", (a, b))
                if a.unit == b.unit == "clock" and close(86400.0 - abs(a.value - b.value)):  # 23:15 -> 00:05
                    late, early = (a, b) if a.value > b.value else (b, a)
                    return _Derivation(f"from {late.text} to {early.text} the next day", "span", (late, early))
            if _product(q, a, b, distributive, close):
                return _Derivation(f"{a.text} x {b.text}", "product", (a, b))
            for x, y in ((a, b), (b, a)):
                # A count divided gives a count of the same thing ("120 seats / 4 rows" = "30 seats"); two other
                # counts ("12 Birch Road" / "four bedrooms" = "3 bathrooms") or two bare numbers mean nothing.
                share = 0 < q.magnitude < 1  # a share: "three quarters" = 150 / 200
                meaningless = not x.rate and not q.rate and not share and x.kind in countish and not (
                    q.dimension and q.dimension == x.dimension)
                # (money divided stays in its currency and by money is a ratio: "£10" is no "€10 / €1")
                money_off = q.kind == "currency" and (x.dimension != q.dimension or y.kind == "currency")
                # (by one, nothing is divided: "1.5 mg / once" is no "1.5 µg"; a measure by a count stays in its
                # unit, compared by value)
                # (only where the claim says it shares out: "Each pallet carries 60 kg"; a "three-year-old" is no six years
                # divided by some "two" of the context)
                by_count = distributive and x.dimension == q.dimension and x.kind not in countish and y.kind in countish
                if y.magnitude and y.magnitude != 1.0 and not meaningless and not money_off \
                        and (x.rate or x.kind in countish or q.kind in countish or by_count) \
                        and (close(x.value / y.magnitude) if by_count else close(x.magnitude / y.magnitude, mag)):
                    return _Derivation(f"{x.text} / {y.text}", "quotient", (x, y))
    if period is not None and q.kind != "percent":
        per_s = _PERIOD_S[period]
        for x in vals:
            if x.dimension != q.dimension or (x.rate or "") == (q.rate or ""):
                continue
            if x.rate in _PERIOD_S and close(x.magnitude * per_s / _PERIOD_S[x.rate], mag):
                # A rate restated per another period: "$15 a month" = "$180 over a year".
                return _Derivation(f"{x.text} {x.rate}ly over a {period}", "rate", (x,))
            if x.rate is None and q.rate == period:
                # A total over a span as a rate: "3.6 million requests in one hour" = "1,000 requests per second".
                for y in vals:
                    if y.kind == "time" and y.value > 0 and close(x.magnitude / (y.value / per_s), mag):
                        return _Derivation(f"{x.text} / {y.text}", "quotient", (x, y))
    if q.kind != "percent":
        same = [e for e in vals if same_kind(e, e) and (e.kind == q.kind or (q.kind in countish and e.kind in countish))][:8]
        if len(same) >= 3 and close(sum(e.value for e in same)):
            return _Derivation("sum of " + ", ".join(e.text for e in same), "sum", tuple(same))
        if total:
            # A claim that says it totals ("7.5 hours in total across Monday, Wednesday and Friday") may sum some
            # of the figures of its kind, not all ("three days" is a time too). Only when it says so: small
            # integers make some subset sum to nearly anything.
            for size in range(3, min(5, len(same) - 1) + 1):
                for part in combinations(same, size):
                    if all(adds(a, a) for a in part) and close(sum(e.value for e in part)):
                        return _Derivation("sum of " + ", ".join(e.text for e in part), "sum", part)
        # a + b - c, a - b - c; not for a bare figure ("adults aged 60": 65 + 2 - 3 from three ages is no sum)
        for i, a in enumerate(same if q.dimension else []):
            for j, b in enumerate(same):
                for k, c in enumerate(same):
                    # (three figures of three values, none the claim's own: "212 + 9 - 212" derives nothing)
                    if len({i, j, k}) != 3 or len({a.value, b.value, c.value}) != 3 or any(close(x.value) for x in (a, b, c)):
                        continue
                    if close(a.value + b.value - c.value):
                        return _Derivation(f"{a.text} + {b.text} - {c.text}", "combination", (a, b, c))
                    if j < k and close(a.value - b.value - c.value):
                        return _Derivation(f"{a.text} - {b.text} - {c.text}", "combination", (a, b, c))
        if len(vals) <= 10:  # a x b + c x d ("two adults at $15 and two children at $8")
            prods = [(ab, a, b) for i, a in enumerate(vals) for b in vals[i + 1:] if (ab := _times(a, b)) is not None]
            for i, (ab, a, b) in enumerate(prods):
                for cd, c, d in prods[i + 1:]:
                    if len({id(a), id(b), id(c), id(d)}) == 4 and close(ab + cd):
                        return _Derivation(f"{a.text} x {b.text} + {c.text} x {d.text}", "combination", (a, b, c, d))
                if total:  # "34 weeks in total: three 10-week modules and a 4-week project" (a x b + c, said as a total)
                    # ("£3.10 a day in total" for 10 kWh at 25p per kWh and a 60p standing charge)
                    for c in vals:
                        if c is not a and c is not b and same_kind(c, c) and c.kind == q.kind and q.kind not in countish \
                                and close(ab + c.value):
                            return _Derivation(f"{a.text} x {b.text} + {c.text}", "combination", (a, b, c))
    return None


def _times(a: Quantity, b: Quantity) -> float | None:
    """The value of ``a`` times ``b`` where one multiplies the other as a sentence would: a count of a quantity
    ("2" x "$15", "3" x "10 weeks") or a price per unit times an amount in that unit ("25p per kWh" x "10 kWh" is
    £2.50: the price's value, in its currency). None for two counts or two measures."""
    countish = ("", "count")
    for x, y in ((a, b), (b, a)):
        if y.kind in countish and x.kind not in countish:
            return x.value * y.magnitude
        if x.rate and x.kind == "currency" and y.kind not in countish and y.kind != "currency" and y.unit \
                and y.unit.lower() == x.rate.lower():
            return x.value * y.magnitude
    return None


def _product(q: Quantity, a: Quantity, b: Quantity, distributive: bool, close) -> bool:
    """Whether ``q`` is ``a`` times ``b`` in a way a sentence states: a rate times what it is per ("5 mg per kg"
    x "20 kg"), a quantity times a count of it ("2 tickets" x "$15", in the quantity's own unit), or, where the
    claim says "each" / "per" / "in total", two counts. A factor of 1 multiplies nothing ("25 micrograms x
    one" is not 25 milligrams)."""
    countish = ("", "count")
    if 1.0 in (a.magnitude, b.magnitude) or 0.0 in (a.magnitude, b.magnitude):
        return False
    if a.kind == b.kind == "currency":
        return False  # money times money is nothing a sentence states ("€54" is no "€18 per hour" x "€3 per hour")
    if a.rate or b.rate:
        for x, y in ((a, b), (b, a)):
            # (a price per unit in another denomination than the claim's: "25p per kWh" x "10 kWh" = "£2.50")
            if x.rate and x.kind == "currency" and x.dimension == q.dimension and y.kind != "currency" \
                    and (not y.unit or y.unit.lower() == x.rate.lower()) and close(x.value * y.magnitude):
                return True
        return close(a.magnitude * b.magnitude, q.magnitude)
    for x, n in ((a, b), (b, a)):
        if n.kind in countish and x.kind == q.kind and q.kind not in countish:
            return close(x.value * n.magnitude)
    return distributive and a.kind in countish and b.kind in countish and q.kind in countish \
        and close(a.magnitude * b.magnitude, q.magnitude)


# -- arithmetic that is correct but says something else --------------------------------------------
#: Words besides the lexicon's rose / fell that say which way a derived difference goes ("$15 more than",
#: "a 24% gain", "$8 cheaper").
_UP_WORDS = frozenset("more extra additional greater larger bigger profit surplus dearer pricier".split())
_DOWN_WORDS = frozenset("less fewer smaller cheaper loss deficit shortfall".split())
_TO_LEVEL = re.compile(r"\bto\s+(?:about\s+|around\s+|nearly\s+|almost\s+)?$", re.I)
#: Comparatives that say which way a duration goes ("200 ms slower" takes longer, "2 hours sooner" less).
_TIME_WAY = {"slower": "up", "longer": "up", "faster": "down", "quicker": "down", "shorter": "down"}
_PIVOT_ORDER = {"after": "up", "later": "up", "before": "down", "earlier": "down", "sooner": "down"}
_CLAUSE_BREAK = re.compile(r"[,;:()]|\b(?:and|but|while|whereas|compared|although|though|because|so\s+that)\b", re.I)
_YEAR = re.compile(r"\b(?:1[89]|20)\d\d\b")


def _claimed_change(text: str, q: Quantity, order: bool = True) -> tuple[str, str] | None:
    """('up' | 'down', the word) for the direction word nearest to ``q`` (a few words either side): the way
    the claim says its derived figure goes ("rose by 63 tonnes", "$15 more than", "a 24% gain")."""
    best: tuple[int, str, str] | None = None
    lo = max(0, q.start - 40)  # only the words a few either side: a claim may hold thousands of figures
    for m in re.finditer(r"[a-z]+", text[lo:q.end + 40].lower()):
        w, a, b = m.group(0), lo + m.start(), lo + m.end()
        d = "up" if w in _UP_WORDS else "down" if w in _DOWN_WORDS else lexicon.direction(w)
        if q.kind == "time" and w in _TIME_WAY:
            d = _TIME_WAY[w]  # "200 ms slower": more time
        gap = q.start - b if b <= q.start else a - q.end
        if re.search(r"\bor\s+$", text[max(0, a - 4):a], re.I):
            continue  # "four hours or more": a bound, not a change
        if ";" in text[b:q.start] or ";" in text[q.end:a] or re.search(r",\s+(?:compared|against|versus|from|while|whereas)\b",
                                                                      text[min(b, q.end):max(a, q.start)], re.I):
            continue  # another clause's: "a loss for the half year, compared with a profit a year earlier"
        if d is None and order and w in _PIVOT_ORDER and a >= q.end and gap <= 12:
            d = _PIVOT_ORDER[w]  # "arrives two and a half hours before it leaves": the later figure is the other's
        if d is None or (w == "up" and re.match(r"\s+to\b", text[b:b + 6], re.I)):  # "up to": a bound
            continue
        if 0 <= gap <= 30 and (best is None or gap < best[0]):
            best = (gap, d, w)
    return (best[1], best[2]) if best else None


#: A key right before a value: "Fibre: 13.5 g", "arrival local: 09:20".
_BRACKETED = re.compile(r"\s?\([^()]{1,40}\)")
#: A short phrase that opens a sentence and qualifies all of it: "Off-peak, ...", "On Sundays, ...".
_FRONTED = re.compile(r"\s*((?:[A-Za-z][\w'-]*\s+){0,2}[A-Za-z][\w'-]*)\s*,\s")
_KEY_BEFORE = re.compile(r"(?:^|[,;(])\s*([^,;:()\d]{1,40}?):\s*$")


def _stated_with(p: _Parsed, e: Quantity) -> tuple[str, str]:
    """The words a figure is stated with in its sentence: (before it, after it), each up to a clause break
    or the next figure ("bought for $350,000 in 2015 and sold for $434,000": "bought for", "in 2015")."""
    text, others, i = p.text, p.quantities, bisect_left(p.starts, e.start)
    if i > 0 and text[others[i - 1].end:e.start] == "/":
        # the total of a score is stated with its part's words ("first-serve points won 41/56": both are points won)
        whole, i = e, i - 1
        e = others[i]
        lo = others[i - 1].end if i > 0 and others[i - 1].end <= e.start else 0
        j = i + 2
        hi = others[j].start if j < len(others) and others[j].start >= whole.end else len(text)
        return _clause_around(text[lo:e.start], text[whole.end:hi], at_start=lo == 0)
    # (a place in an order written as a word is a word the figure is stated with: "to £91 million in the third")
    k = i - 1
    while k >= 0 and others[k].is_word and others[k].dimension == "ordinal":
        k -= 1
    lo = others[k].end if k >= 0 and others[k].end <= e.start else 0
    j = i + (i < len(others) and others[i].start == e.start)  # the figure itself, when it is one of them
    while j < len(others) and others[j].is_word and others[j].dimension == "ordinal":
        j += 1
    hi = others[j].start if j < len(others) and others[j].start >= e.end else len(text)
    before = text[lo:e.start]
    if k >= 0 and re.search(r"\bto\s*$", before) and re.search(r"\bfrom\s*$", text[:others[k].start]):
        # "revenue grew from £84 million in the second quarter to £91 million in the third": the words between are
        # the old figure's, and what comes before "from" is both's
        lo2 = max((o.end for o in others[:k] if o.end <= others[k].start), default=0)
        before = text[lo2:others[k].start] + " " + before[before.rfind("to"):]
    return _clause_around(before, text[e.end:hi], at_start=lo == 0)


def _clause_around(before: str, after: str, at_start: bool = False) -> tuple[str, str]:
    """The ends of ``before`` and ``after`` that lie in the clause of a value between them: its key, when a
    key names it ("Fibre: 13.5 g", "- Energy: 377 kcal"), or the words back to a clause break; forward to one.
    A short aside in brackets is no break ("Théo Blanc (FRA) third at 1m 03s" is Blanc's), and nor is the comma
    after a sentence's fronted phrase (``at_start``: "Off-peak, the shuttle leaves every 15 minutes" is off-peak's)."""
    label = _KEY_BEFORE.search(before)
    bare = _BRACKETED.sub(lambda m: " " * len(m.group(0)), before)
    fronted = _FRONTED.match(before) if at_start else None
    if fronted:
        bare = " " * fronted.end() + bare[fronted.end():]
    before = label.group(1) if label and len(label.group(1).split()) <= 4 else \
        before[max((m.end() for m in _CLAUSE_BREAK.finditer(bare)), default=0):]
    if fronted and not before.startswith(fronted.group(0)):
        before = fronted.group(1) + " " + before
    after = after[:next((m.start() for m in _CLAUSE_BREAK.finditer(after)), len(after))]
    return before, after


def _clause_terms(text: str, pos: int) -> frozenset[str]:
    """The content terms of the clause of ``text`` (split at ";", ":" and dashes) that holds ``pos``."""
    lo = max((m.end() for m in re.finditer(r"[;:]\s|\s[\u2013\u2014-]\s", text[:pos])), default=0)
    hi = next((m.start() for m in re.finditer(r"[;:]\s|\s[\u2013\u2014-]\s", text[pos:])), len(text) - pos) + pos
    return frozenset(_fold(t) for t in content_terms(text[lo:hi]) if not t[0].isdigit())


def _local_terms(p: _Parsed, e: Quantity) -> frozenset[str]:
    """The content terms a figure is stated with in its sentence (``_stated_with``)."""
    return frozenset(_fold(t) for t in content_terms(" ".join(_stated_with(p, e))))


def _window_terms(p: _Parsed, e: Quantity, width: int = 30) -> frozenset[str]:
    """The words within ``width`` characters of a figure, other figures or not ("$240 for the six weekly
    sessions": the "six" between does not hide "weekly sessions")."""
    return frozenset(_fold(t) for t, pos in p.terms if not t[0].isdigit() and e.start - width <= pos <= e.end + width)


def _only_terms(p: _Parsed, e: Quantity, other: Quantity) -> frozenset[str]:
    """The words a figure is stated with that the other figure of its sentence is not."""
    return _local_terms(p, e) - _local_terms(p, other)


def _as_written(p: _Parsed, e: Quantity, folded: frozenset[str]) -> str:
    """The words of ``folded`` as the sentence writes them around ``e`` (for the report)."""
    before, after = _stated_with(p, e)
    lo, hi = e.start - len(before), e.end + len(after)
    words: list[str] = []
    for t, pos in p.terms:
        m = re.match(r"[\w'-]+", p.text[pos:])
        # (a word inside the hyphenated word before it is that word: "part-time", not "part-time time")
        if m and lo <= pos < hi and _fold(t) in folded and not (words and m.group(0) in words[-1]):
            words.append(m.group(0))
    return " ".join(dict.fromkeys(words))


def _bound_elsewhere(c: _Parsed, q: Quantity, p: _Parsed, e: Quantity, claim_qs: list[Quantity]
                     ) -> tuple[Quantity, str, str] | None:
    """Another figure of the evidence sentence whose own words the claim gives its value with: ("the red line
    runs every 5 minutes; the green line every 12" for "the green line runs every 5 minutes"; "the initial
    estimate was 300, the final count 412" for "the final count was 300").

    Only when the claim has *all* of the other figure's own words (those it is stated with and ``e`` is not)
    and not all of ``e``'s own: a shared subject stated once ("rose from 40,000 to 52,000") gives ``e`` no
    words of its own, and a claim that echoes part of another clause is not thereby about it.
    """
    mine = _local_terms(c, q)
    i = bisect_left(c.starts, q.start)
    if i > 0 and _period_ordinal(c, c.quantities[i - 1]):
        # (the ordinal of the claim's period is no figure that its words stop at: "free cash flow in the third
        # quarter was $30 million" gives the $30 million "free cash flow", not "quarter" alone)
        mine |= _local_terms(c, c.quantities[i - 1])
    # (a personal pronoun that is the figure's subject is a word of its own: "you contributed £2,080")
    my_pronoun = lexicon.subject_pronoun(_stated_with(c, q)[0])
    if my_pronoun:
        mine |= {my_pronoun}
    if not mine:
        return None
    part_of = _PARTITIVE.match(p.text, e.end) is not None
    e_pronoun = lexicon.subject_pronoun(_stated_with(p, e)[0])
    # A sentence's leading key names every figure after it ("Frequency: every 12 minutes at peak, every 20
    # minutes off-peak"), though only the first is stated next to it: it is no figure's own word.
    lead = _LEAD_KEY.match(p.text)
    keyed = frozenset(_fold(t) for t in content_terms(lead.group(0))) if lead and lead.end() <= e.start else frozenset()
    for other in p.quantities:
        if other is e or _slot(q, other) != "number":
            continue
        # (a claim that states the other figure too is about both: borrowed only when it gives that one the words of
        # this one, the pair crossed: "Adults pay £9 and children pay £18" of "£18 for adults and £9 for children")
        twin = next((x for x in claim_qs if x is not q and _equivalent(x, other)), None)
        if twin is not None and not (_only_terms(p, e, other) & _local_terms(c, twin)
                                     and not _only_terms(p, other, e) & _local_terms(c, twin)):
            continue
        lo, hi = sorted([other, e], key=lambda x: x.start)
        if re.fullmatch(r"\s*(?:to|-|\u2013)\s*", p.text[lo.end:hi.start]) and re.search(r"\b(?:from|between)\s*$", p.text[:lo.start], re.I):
            continue  # "rose from £2 to £2.50 in 2023": one thing's old and new value (or a range), not two things'
        theirs, own = _only_terms(p, other, e) - keyed, _only_terms(p, e, other) - keyed
        their_pronoun = lexicon.subject_pronoun(_stated_with(p, other)[0])
        if their_pronoun != e_pronoun:
            # (two figures told apart by their subjects, one a pronoun: "your employer contributed £3,120 and you
            # contributed £2,080")
            theirs |= {their_pronoun} if their_pronoun else frozenset()
            own |= {e_pronoun} if e_pronoun else frozenset()
        if other.start < e.start and other is p.quantities[0] and not content_terms(_stated_with(p, e)[0]):
            # the words that open the sentence frame both figures of a pair written after them: "Tickets cost £18
            # for adults and £9 for children" (the £9 has no words of its own before it: "cost" is both's)
            theirs -= frozenset(_fold(t) for t in content_terms(p.text[:other.start]))
        if _told_of_other(mine, own, theirs):
            return other, _as_written(p, other, theirs) or their_pronoun or "", _as_written(p, e, own) or e_pronoun or ""
        # Or with some of the other's own words and otherwise only words both share ("Wired charging: 15 W" against
        # "supports 45 W wired charging and 15 W wireless charging": "charging" is both's, "wired" the 45 W's).
        if own and theirs & mine and not own & c.term_set and mine - theirs <= _local_terms(p, e) & _local_terms(p, other):
            return other, _as_written(p, other, theirs) or their_pronoun or "", _as_written(p, e, own) or e_pronoun or ""
        # A part given as the whole: "31 teachers; 12 of the teachers work part-time" for "has 12 teachers".
        if part_of and not _PARTITIVE.match(c.text, q.end) and own and not own & mine and other.start < e.start:
            return other, "", _as_written(p, e, own)
    return None


#: A key that opens a sentence: "Frequency: ...", "Opening hours: ...".
_LEAD_KEY = re.compile(r"[^:;,.\d]{1,40}:\s")


#: "five times", "3x", "2.5 ×": a figure that multiplies.
_TIMES_AFTER = re.compile(r"\s*(?:times\b|[x\u00d7](?![\w]))", re.I)


def _multiple_of_own(q: Quantity, c: _Parsed, claim_qs: list[Quantity], stated: list[Quantity]) -> str | None:
    """How a multiple the claim states ("more than five times its £75,000 goal") is the ratio of two figures of one
    kind, one of them the claim's own ("roughly £413,000", or the context's "£412,780"), within its bound or its
    rounding; None otherwise. The claim's figures are checked against the context on their own, so the multiple
    holds only where they do."""
    def usable(x: Quantity) -> bool:
        return x is not q and bool(x.dimension) and x.kind not in ("percent", "ordinal", "change") and bool(x.value)
    own = [x for x in claim_qs if usable(x)]
    dims = {x.dimension for x in own}
    figures = own + [e for e in stated[:64] if usable(e) and e.dimension in dims]
    tol = 0.1 if q.approx or q.is_word else 0.02
    for a, b in combinations(figures, 2):
        if a.dimension != b.dimension or not (any(a is x for x in own) or any(b is x for x in own)):
            continue
        big, small = (a, b) if a.value >= b.value else (b, a)
        ratio = big.value / small.value
        # (a bound says the next whole multiple is not reached: "more than five times" is 5.5, not 3,177)
        ok = q.magnitude < ratio < q.magnitude + 1 if q.bound in ("gt", "min") \
            else q.magnitude - 1 < ratio < q.magnitude if q.bound in ("lt", "max") \
            else math.isclose(ratio, q.magnitude, rel_tol=tol)
        if ok and ratio > 1:
            return f"{big.text} / {small.text} ({ratio:.2f})"
    return None


#: Two amounts a text equates: "€1 = £0.85", "1 EUR = 0.85 GBP", "one euro is worth 85p".
_EQUATED = re.compile(r"\s*(?:=|is\s+worth|buys|equals)\s*")


def _at_stated_rate(q: Quantity, c: _Parsed, sents) -> str | None:
    """How a claim's amount in one currency is another amount the context states, converted at an exchange rate the
    context or the claim states ("€1 = £0.85": €129 is about £110); None when no such rate gives it. Why: a
    conversion at the source's own rate is a faithful rewording, which the currency check reads as the wrong
    currency."""
    rates = []
    for p in [c] + [p for _, _, p in sents]:
        qs = p.quantities
        for a, b in zip(qs, qs[1:]):
            if a.kind == b.kind == "currency" and a.dimension != b.dimension and a.value and _EQUATED.fullmatch(p.text[a.end:b.start]):
                rates.append((a, b))
    in_rate = {id(x) for pair in rates for x in pair}
    if not rates or id(q) in in_rate or any(_equivalent(q, x) for pair in rates for x in pair):
        return None  # (the rate's own figures are stated as written)
    tol = 0.05 if q.approx else 0.006
    for a, b in rates:
        for x, y in ((a, b), (b, a)):
            if y.dimension != q.dimension:
                continue
            for e in (e for _, _, p in sents for e in p.quantities):
                if e.dimension == x.dimension and id(e) not in in_rate and e.value and \
                        math.isclose(e.value / x.value * y.value, q.value, rel_tol=tol):
                    return f"{e.text} at {a.text} = {b.text}"
    return None


def _counted_by_its_words(q: Quantity, p: _Parsed, e: Quantity) -> bool:
    """A count the context states with another noun, the claim's noun a word the context states it with: "176
    starters" of "176 riders started the race". Why: the counted noun is a word choice; the figure is stated."""
    if q.kind != "count" or e.kind != "count" or q.dimension == e.dimension:
        return False
    noun = q.dimension.partition(":")[2][:5]
    return len(noun) == 5 and any(t.startswith(noun) for t in _local_terms(p, e))


def _keyed_alike(field: str, sentence: str) -> bool:
    """Does a structured field's key share a word with the key that opens the sentence ("checked max: 23 kg" and
    "Checked: one bag up to 23 kg")? Such a sentence is the field's own line of the record, however many of its
    siblings' values another line states ("Cabin: one bag up to 8 kg, max 55 x 40 x 20 cm, ...")."""
    mine, theirs = _LEAD_KEY.match(field), _LEAD_KEY.match(sentence)
    if mine is None or theirs is None:
        return False
    return bool({_fold(t) for t in content_terms(mine.group(0))} & {_fold(t) for t in content_terms(theirs.group(0))})
#: "12 of the teachers", "three of them": a part of a whole stated before it.
_PARTITIVE = re.compile(r"\s+of\s+(?:the|its|their|these|those|them|whom|which)\b", re.I)


def _told_of_other(mine: frozenset[str], own: frozenset[str], theirs: frozenset[str]) -> bool:
    """The claim gives a value with another value's own words: all of them and not all of the value's own; or
    most of them and none of its own ("opened in 1885 with 300 paintings; today it holds 4,200" for "opened with
    4,200 paintings"). Values with no words of their own ("rose from 40,000 to 52,000") are never told apart."""
    if not theirs or not own:
        return False
    # (a period the claim gives is no word of the value's own: "free cash flow in the third quarter was $30
    # million" against "Free cash flow came to $57 million, and the company bought back $30 million during the
    # quarter" is the buyback's figure; the period frames both clauses)
    return (theirs <= mine and not own <= mine) or (
        len(theirs & mine) >= 0.6 * len(theirs) and len(theirs & mine) >= 2 and not (own - _PERIOD_TERMS) & mine)


def _period_ordinal(p: _Parsed, o: Quantity) -> bool:
    """``o`` is the ordinal that names a reporting period ("the third quarter", "the first half"): a label of when,
    which the words of the figure after it reach past."""
    if o.kind != "ordinal":
        return False
    m = re.match(r"[\s-]+([A-Za-z]+)", p.text[o.end:o.end + 20])
    return m is not None and any(_fold(t) in _PERIOD_TERMS for t in content_terms(m.group(1)))


#: :data:`lexicon.REPORTING_PERIODS` as terms.
_PERIOD_TERMS = frozenset(_fold(t) for w in lexicon.REPORTING_PERIODS for t in content_terms(w))


def _time_words(p: _Parsed, t: TimeValue) -> frozenset[str]:
    """The content words a clock time is stated with: up to the next time or a clause break either side."""
    before = p.text[max((o.end for o in p.times if o.end <= t.start), default=0):t.start]
    after_end = min((o.start for o in p.times if o.start >= t.end), default=len(p.text))
    before, after = _clause_around(before, p.text[t.end:after_end])  # ("arrival local: 09:20": the key is what it is)
    return frozenset(_fold(x) for x in content_terms(before + " " + after) if not x[0].isdigit())


def _oriented(claim: str, q: Quantity, a: Quantity, b: Quantity, where: dict[int, int], sents) -> tuple[Quantity, Quantity] | None:
    """(earlier or reference figure, later or subject figure) for a difference of ``a`` and ``b``, or None when
    nothing says. "X costs $15 more than Y": the figure stated with X's words is the subject; "rose by 63
    tonnes from 2022 to 2023": the figure stated with the later year is the later one."""
    if id(a) not in where or id(b) not in where:
        return None
    local = {}
    for e in (a, b):
        p = sents[where[id(e)]][2]
        local[id(e)] = _stated_with(p, e)
    than = re.search(r"\b(?:than|before|after)\b", claim[q.end: q.end + 60], re.I)
    if than:
        ref_text = re.split(r"[,;.]", claim[q.end + than.end():], maxsplit=1)[0]
        ref = {_fold(t) for t in content_terms(ref_text)}
        # "145 more in February than in January": the compared thing stands between the figure and "than";
        # only when nothing does ("Basic costs $15 more than Pro") is it the claim's words before the figure,
        # which a sentence's shared words ("the clinic saw") would otherwise tie to the first figure stated.
        between = {_fold(t) for t in content_terms(claim[q.end: q.end + than.start()])} - ref - lexicon.ARITHMETIC_WORDING
        subj = between or {_fold(t) for t in content_terms(claim[: q.start])} - ref

        def side(e: Quantity) -> int:
            words_ = {_fold(t) for t in content_terms(" ".join(local[id(e)]))}
            return len(words_ & subj) - len(words_ & ref)

        sa, sb = side(a), side(b)
        if sa != sb:
            return (b, a) if sa > sb else (a, b)
        return None
    years = []
    for e in (a, b):
        before, after = local[id(e)]
        m = _YEAR.search(after) or _YEAR.search(before)
        years.append(int(m.group(0)) if m else None)
    if years[0] is not None and years[1] is not None and years[0] != years[1]:
        return (a, b) if years[0] < years[1] else (b, a)
    return None


#: What a claim says it leaves out: "(no Sunday shifts)", "without the Sunday allowance", "excluding VAT".
_LEFT_OUT = re.compile(r"\((?:no|not|without|excluding|except)\b[^()]{0,40}\)|\b(?:no|without|excluding|except)\s+(?:[\w-]+\s+){0,2}[\w-]+",
                       re.I)


def _misderived(c: _Parsed, q: Quantity, how: _Derivation, where: dict[int, int], sents, asked: str, conf) -> Difference | None:
    """What is wrong with a claim value the context's figures do give by arithmetic, or None.

    - **Direction**: a difference or percentage change said the other way ("fell by 63 tonnes" where 420 -> 483;
      "Basic costs $15 more than Pro" where Basic is $25 and Pro $40). A percentage change fixes its base; a
      difference is oriented by the figures' years or by the words each is stated with (``_oriented``).
    - **Subject**: the operands come from sentences about something else than a word of the claim that the
      context states with a figure of its own ("the carrot harvest rose by 63 tonnes" from the potatoes').
    """
    ks = {where[id(e)] for e in how.operands if id(e) in where}
    claimed = _claimed_change(c.text, q)
    if claimed is not None and how.op in ("difference", "change"):
        a, b = how.operands[:2]
        oriented = _oriented(c.text, q, a, b, where, sents)
        if how.op == "change" and oriented is not None and oriented[0] is not a:
            old, new = oriented  # the change is a share of the wrong base: the figures go the other way
        elif how.op == "change":
            old, new = a, b
        elif oriented is not None:
            old, new = oriented
        else:
            old = new = a
        if old is not new and (new.value > old.value) != (claimed[0] == "up") and new.value != old.value:
            k = where.get(id(new), next(iter(ks), 0))
            return Difference(slot="direction", claim_value=f"{claimed[1]} ({q.text})",
                              evidence_value=f"{old.text} -> {new.text}", evidence_span=_span(sents[k][1]),
                              confidence=conf["direction"])
    if not ks:
        return None
    if how.op == "combination" and len(how.operands) in (3, 4) and how.text.count(" x ") == len(how.operands) - 2:
        # Each count with the price of its own kind: "two adults and one child pay £30" is £14 x one + £8 x 2
        # where adults are £14 and children £8, the counts put on the other's price. The claim's own counts
        # say which kind each is (the count an operand came from may be the context's "2 adults").
        counts = [(x, _local_terms(c, x)) for x in c.quantities if x.kind in ("", "count") and x is not q]
        ops = how.operands
        # (a x b + c: the lone c is taken once)
        priced: list[tuple[Quantity | None, Quantity]] = [(ops[0], ops[1]), (ops[2], ops[3]) if len(ops) == 4 else (None, ops[2])]
        for x, y in priced:
            count, price = (x, y) if x is None or x.kind in ("", "count") else (y, x)
            if price is None or id(price) not in where or price.kind in ("", "count"):
                continue
            times = 1.0 if count is None else count.magnitude
            terms = _local_terms(sents[where[id(price)]][2], price)
            theirs = [n for n, t in counts if t & terms]
            if theirs and not any(math.isclose(n.magnitude, times) for n in theirs):
                return Difference(slot="number", claim_value=q.text, evidence_value=f"{price.text} is the price for the "
                                  f"claim's '{theirs[0].text}' (it computes '{how.text}')",
                                  evidence_span=_span(sents[where[id(price)]][1], price.start, price.end), confidence=conf["number"])
    # Within a sentence: the figure stated with the claim's subject is another than the one computed from
    # ("the Basic plan is $25 a month and the Pro plan is $40 a month": "Pro costs $300 a year" is Basic's).
    claim_words = c.wording - {_fold(t) for t in content_terms(asked)}
    if how.op in ("product", "quotient", "share", "sum", "difference", "change") \
            and any(x is not q and x.dimension == q.dimension for x in c.quantities):
        # (a claim that lists several figures of the kind says each with its own words: "150 kg of paper, 12.8 kg
        # of toner": toner's words are not the subject of the paper's figure)
        claim_words = frozenset(_fold(t) for t in _local_terms(c, q)) - {_fold(t) for t in content_terms(asked)}
    placed = [e for e in how.operands if id(e) in where]
    used = frozenset().union(*(_local_terms(sents[where[id(e)]][2], e) for e in placed))
    for e in placed:
        p = sents[where[id(e)]][2]
        for o in p.quantities:
            if o is e or any(o is x for x in how.operands) or o.dimension != e.dimension or o.rate != e.rate:
                continue
            if o.magnitude == len(how.operands) and o.end <= min(x.start for x in placed if where[id(x)] == where[id(e)]):
                continue  # "runs on three days: Monday for 2 hours, ...": it counts the operands that follow
            if (_local_terms(p, o) & claim_words) - used:
                return Difference(slot="number", claim_value=q.text, evidence_value=f"{o.text} (the claim's subject's; "
                                  f"'{how.text}' is computed from another's)",
                                  evidence_span=_span(sents[where[id(e)]][1], o.start, o.end), confidence=conf["number"])
    own = frozenset().union(*(sents[k][2].term_set for k in ks))
    skip = own | {_fold(t) for t in content_terms(asked)}
    # (nor the words the claim states its other figures with: "£6 cheaper than two standard and two concession
    # tickets, which would come to £46" names the standard ticket for its "two", not as the £6's subject)
    # (the figures near it only: a claim may hold thousands)
    skip |= frozenset().union(*(_local_terms(c, x) for x in c.quantities if abs(x.start - q.start) < 200 and x is not q
                                and not any(x is o for o in how.operands)))
    lo = max(0, q.start - 400)  # (the figure's clause, read near it: a claim may be 30 kB)
    # (what the claim says it leaves out is not its subject: "for a 45-hour week (no Sunday shifts)")
    near_text = _LEFT_OUT.sub(lambda m: " " * len(m.group(0)), c.text[lo:q.end + 400])
    for t in sorted((c.wording & _clause_terms(near_text, q.start - lo)) - skip):  # ("Osei scored more: ...")
        if lexicon.direction(t) or _TOTAL.search(t) or _DISTRIBUTIVE.search(t):
            continue
        for j, (_, sent, p) in enumerate(sents):
            if j in ks or t not in p.term_set:
                continue
            rival = next((e for e in p.quantities if e.kind == q.kind and (q.kind != "count" or e.dimension == q.dimension)), None)
            if rival is not None:
                return Difference(slot="number", claim_value=q.text, evidence_value=f"{rival.text} (the figures of "
                                  f"'{how.text}' are about something else)",
                                  evidence_span=_span(sent, rival.start, rival.end), confidence=conf["number"])
    return None


@functools.lru_cache(maxsize=256)
def _talks_of_old_values(claim: str) -> bool:
    # "until 6 pm", "before 9:30": a time of day bounds the act, it dates no old value; nor does an aside in brackets
    # ("$12 per user (though existing subscribers keep their rate until renewal)"), nor a quoted label or option
    # ("kept for 18 months unless you pick 'Keep until I delete'": the option's words, not the claim's).
    for q in reversed(quotations(claim)):
        claim = claim[:q.start] + " " * (q.end - q.start) + claim[q.end:]
    claim = re.sub(r"\([^()]*\)", " ", claim)
    return re.search(r"\b(?:previously|formerly|originally|used\s+to|(?:until|before)(?!\s+(?:\d{1,2}(?:[:.]\d\d)?\s*"
                     r"(?:am|pm|a\.m\.|p\.m\.|h\b)|\d{1,2}:\d\d|noon|midday|midnight))|was|were|no\s+longer|instead\s+of|"
                     r"rather\s+than|in\s+place\s+of|replac\w*|(?:up|down)\s+from|had|"
                     r"(?:(?:versions?|releases?|builds?|editions?|firmware|software|models?)\s+){1,2}(?:up\s+to|before|"
                     r"prior\s+to|through|until|older\s+than|below|earlier\s+than))\b", claim, re.I) is not None


_CHANGED_TO = re.compile(r"\b(?:rise[sn]?|rose|fall(?:s|en)?|fell|went\s+(?:up|down)|increase[sd]?|decrease[sd]?|raise[sd]?|lower(?:s|ed)?|"
                         r"cut|reduce[sd]?|change[sd]?|move[sd]?|updated|revised|extended|shortened)\b", re.I)


def _may_replace(e: Quantity, other: Quantity) -> bool:
    """Whether ``other`` can be the value that replaced ``e``: the same kind, or, said after a change, a bare
    figure ("the default port is 8443" for "port 8080") or the same money without the rate repeated
    ("rose to $11.99" for "$9.99 per month")."""
    if _comparable(e, other):
        return True
    if other.dimension == "" and e.kind in ("", "count") and not other.labelled:
        return True
    # (either way round: "52p per mile, replacing the previous rate of 45p")
    return e.dimension == other.dimension and (other.rate is None or e.rate is None)


def _clause_of(text: str, pos: int) -> str:
    """The piece of ``text`` between the commas, semicolons or dashes around ``pos``."""
    lo = max((m.end() for m in re.finditer(r"[,;]\s|\s[\u2013\u2014-]\s", text[:pos])), default=0)
    hi = next((m.start() + pos for m in re.finditer(r"[,;]\s|\s[\u2013\u2014-]\s", text[pos:])), len(text))
    return text[lo:hi]


#: The words that make a value of the same clause an old one ("which were previously 20p per day").
_OLD_IN_CLAUSE = re.compile(r"\b(?:previously|formerly|originally|used\s+to|initially|at\s+first|was|were|"
                            r"(?:the\s+)?(?:previous|former|old|original|earlier)\s+\w+)\b", re.I)
_CLAUSE_JOINT = re.compile(r",\s+(?:and|but|while|whereas)\s|;\s|\s[\u2013\u2014]\s", re.I)


def _own_clause(claim: str, pos: int) -> str:
    """The coordinated clause of ``claim`` that holds ``pos`` ("..., and children's items no longer attract fines"
    is another). Why: a claim talks of old values only in the clause that holds its figure; a "no longer" said of
    another thing in another clause does not make its "20p per day" an old value the claim knows is old."""
    lo = max((m.end() for m in _CLAUSE_JOINT.finditer(claim, 0, pos)), default=0)
    hi = next((m.start() for m in _CLAUSE_JOINT.finditer(claim, pos)), len(claim))
    return claim[lo:hi]


def _current_of(e: Quantity, k: int, sents, pool: list[tuple[int, Quantity, str]], claim: str, q: Quantity) -> bool:
    """``q`` is what the context changed ``e`` to, in up to three steps of :func:`_superseded`."""
    where = {id(x): j for j, x, _ in pool}
    own = _own_clause(claim, q.start)
    strict = own != claim and _talks_of_old_values(claim)
    for _ in range(3):
        newer = _superseded(e, sents[k][2].text, [t for t in pool if sents[t[0]][1][0] == sents[k][1][0]], own, strict)
        if newer is None:
            return False
        if _equivalent(q, newer):
            return True
        e, k = newer, where.get(id(newer), k)
    return False


_CHANGED_FROM = re.compile(r"\b(?:cut|cuts|raised?|raises|increas\w*|reduc\w*|lower\w*|chang\w*|mov\w*|rose|risen|fell|fallen|"
                           r"went|gone|dropp?\w*|up|down|switch\w*|extend\w*|shorten\w*|amend\w*|revis\w*|updat\w*|"
                           r"adjust\w*|shift\w*|replac\w*|upgrad\w*|downgrad\w*)\s+(?:\S+\s+){0,6}?from\s*$", re.I)
_PRICED_FROM = re.compile(r"\b(?:start(?:s|ed|ing)?|priced|available|costing)\s+from\s*$", re.I)


def _superseded(e: Quantity, sent_text: str, pool: list[tuple[int, Quantity, str]], claim: str,
                strict: bool = False) -> Quantity | None:
    """The current value when ``e`` is an old one ("was 22 days until 2023 ... is now 25 days").
    ``strict``: another clause of the claim talks of old values (``_own_clause``), so ``e`` is read as old only by
    a cue of its own clause ("which were previously 20p per day"), not one earlier in its sentence."""
    if _talks_of_old_values(claim):
        return None  # the claim itself talks about the old value
    if strict and not _OLD_IN_CLAUSE.search(_clause_of(sent_text, e.start)) \
            and not _CHANGED_FROM.search(sent_text[max(0, e.start - 60):e.start]):
        return None
    lead = sent_text[max(0, e.start - 60):e.start]
    from_to = re.search(r"\bfrom\s*$", lead, re.I)
    if from_to and _PRICED_FROM.search(lead) and not re.match(r"\s*to\b", sent_text[e.end:e.end + 6], re.I):
        from_to = None  # "Car fares start from £54": the lowest price, not a value changed from (nor "from £54 to £60")
    if from_to and not _CHANGED_FROM.search(lead) and not re.match(r"\s*(?:[^\s.;]+\s+){0,5}?to\b", sent_text[e.end:e.end + 60], re.I):
        from_to = None  # "Single-vision glasses from £59": a price's floor; a change says what it changed, or to what
    old = from_to or re.search(
        r"\b(?:previously|formerly|originally|used\s+to|until|prior\s+to|initially|at\s+first|no\s+longer|"
        r"(?:the\s+)?(?:earlier|previous|former|old|original|initial)\s+(?!than\b)\w+|(?:was|were)\s+(?:\S+\s+){0,4}?(?:until|before)|"
        # "launched with a list price of $199": the first value, when a later sentence gives another
        r"(?:launched|debuted|introduced|released|opened|started)\s+(?:\S+\s+){0,3}?(?:with|at)|at\s+launch|"
        # (not a part replaced as upkeep: "Brake fluid should be replaced every 2 years")
        r"replac(?:ing|es|ed)(?!\s+(?:every|each|after|annually|regularly|periodically|when|if|at\s+\d|as\s+needed))|"
        r"instead\s+of|up\s+from|down\s+from|"
        # "was 10 MB in versions up to 3.4": the value of the older releases
        r"(?:was|were)\s+(?:\S+\s+){0,4}?(?:in|for|on)\s+(?:all\s+)?(?:(?:versions?|releases?|builds?|editions?|firmware|"
        r"software|models?)\s+){1,2}(?:up\s+to|before|prior\s+to|through|until|older\s+than|below|earlier\s+than)|"
        # "which was 10 in all 2.x releases": the value of releases a number names, said in the past
        r"(?:was|were)\s+(?:\S+\s+){0,4}?(?:in|for|on)\s+(?:all\s+)?(?:the\s+)?v?\d+(?:\.(?:\d+|x))*\s+"
        r"(?:versions?|releases?|builds?|series|editions?|firmware|models?))\b"
        r"|^\s*before\b", sent_text[: e.start] + " \n " + _clause_of(sent_text, e.start), re.I) \
        or re.match(r"\s*before\b", sent_text, re.I)
    # The new end of a change ("went up from £5.90 to £6.40") is no old value, whatever cue the sentence has before
    # it ("up from" is the £5.90's): it is old only once a later sentence changes it again ("Version 3.8 raised it
    # from 50 MB to 200 MB. In version 3.9, the current release, the limit was raised again to 500 MB").
    # (the old value's own words may stand between: "raise efficiency from 20.0% in the previous generation to 22.0%")
    new_end = re.search(r"\bfrom\s+\S+(?:\s+\S+)?\s+to\s*$", lead, re.I) is not None \
        or re.search(r"\bfrom\s+\S*\d\S*(?:\s+[^\d\s,;.]+){1,5}\s+to\s*$", lead, re.I) is not None
    if new_end:
        old = None
    # "was 58 cents per mile in 2023": a past value of a year, old once another sentence says it changed
    dated = new_end or (old is None and re.search(r"\b(?:was|were)\s+(?:\S+\s+){0,3}$", lead, re.I) is not None
                        and _YEAR.search(_clause_of(sent_text, e.start)) is not None)
    if not old and not dated:
        return None
    # "increased to 52p, replacing the previous rate of 45p": the new value comes first
    # (or says the old one in an aside after it: "is now 60 seconds (previously 30 seconds)")
    first_new = re.search(r"\b(?:replac(?:ing|es|ed)(?!\s+(?:every|each|after|annually|regularly|periodically|when|if))|"
                          r"instead\s+of|up\s+from|down\s+from)\b", _clause_of(sent_text, e.start), re.I) \
        or re.search(r"[(,;\u2013\u2014]\s*(?:previously|formerly|was|were|before|earlier|until\s+now|(?:increased|decreased|"
                     r"reduced|raised|lowered|cut|changed|up|down|moved|switched)\s+from)\s*:?\s*$", lead, re.I)
    if first_new and from_to and lead.rstrip().endswith("from") and re.search(r"\(\s*\w+\s+from\s*$", lead):
        # "atorvastatin 40 mg at night (increased from 20 mg)": the new value is the one right before the bracket
        before = [o for _, o, text in pool if text == sent_text and o.end <= e.start and _comparable(o, e) and o is not e]
        if before and e.start - before[-1].end <= 60 and not math.isclose(before[-1].value, e.value):
            return before[-1]
    if not from_to and re.search(r"\b(?:now|currently|new|has\s+been|have\s+been|increased\s+to|raised\s+to|reduced\s+to|"
                                 r"cut\s+to|lowered\s+to|changed\s+to)\s+(?:\S+\s+){0,2}$", lead, re.I):
        return None  # "has been increased to 52p": the new value itself (not "has been increased from 7 kg to 10 kg")
    if from_to:
        # The value its own "to" names first: "fall from 24.5p to 22.5p per kWh, while the standing charge will rise
        # from 53.4p to 60.1p" replaces 24.5p with 22.5p, whatever other change the sentence goes on to.
        to = re.match(r"\s*(?:[^\s.;]+\s+){0,5}?to\s+", sent_text[e.end:e.end + 60], re.I)
        nxt = next((o for _, o, text in pool if to and text == sent_text and o.start == e.end + to.end()
                    and _may_replace(e, o)), None)
        if nxt is not None:
            return None if math.isclose(nxt.value, e.value) else nxt
    # (values of the same kind first, a bare figure only after them: "Starting with 2.0, a playlist can hold 500 songs"
    # replaces "200 songs" with 500, not with the version number)
    for _, other, text in sorted(pool, key=lambda t: not _comparable(e, t[1])):
        if other is e or not _may_replace(e, other) or math.isclose(other.value, e.value):
            continue
        around = text[max(0, other.start - 80):other.start]
        if dated:
            if text != sent_text and _CHANGED_TO.search(around) and re.search(
                    r"\b(?:now|currently|current|again|latest|since|as\s+of|effective|starting|from|new|updated|has\s+been|"
                    r"have\s+been)\b", around, re.I):
                return other  # "As of January 1, 2024, the rate has been updated to 67 cents per mile"
            continue
        if from_to and re.search(r"\bto\s*$", text[max(0, other.start - 6):other.start], re.I) and text == sent_text \
                and not re.match(r"\s*(?:a\.?m\b\.?|p\.?m\b\.?|o['\u2019]clock)", text[other.end:other.end + 8], re.I):
            return other  # (not "from 1 to 4 p.m.": the hours of a session, not an old and a new value)
        if re.search(r"\b(?:now|currently|since|from|as\s+of|new|effective|starting|is|are|has\s+been|will\s+be|"
                     r"eventually|finally|ultimately|in\s+the\s+end|final)\b",
                     around, re.I) and (text != sent_text or other.start > e.start or first_new):
            return other
        # "the price rose to $11.99", "the updated guideline lowers the starting age to 45"
        if _CHANGED_TO.search(around) and re.search(r"\bto\s*$", text[max(0, other.start - 6):other.start], re.I) \
                and (text != sent_text or other.start > e.start or first_new):
            return other
    return None


#: A bound said as near its figure: "just over 4,100", "a little under 3 km", "nearly 4,900".
_JUST_BOUND = re.compile(r"\b(?:just|a\s+little|slightly|nearly|almost)\s+(?:over|under|above|below|more\s+than|less\s+than)?", re.I)


#: Words that say a figure is the result of others: only then are the sentences beside the claim's read for operands.
_TOTAL = re.compile(r"\b(?:total|in all|altogether|combined|overall|ended|ends|end of|net|remaining|left over|in sum|sum of|"
                    r"(?:comes?|came|coming)\s+to|adds?\s+up\s+to|"
                    r"difference|more than|fewer than|less than|longer|shorter|older|younger|since)\b", re.I)
#: A claim that says its figure is a sum of several.
def _around_figure(text: str, q: Quantity) -> str:
    """The words about figure ``q``: its stretch of the sentence up to a dash or semicolon on each side
    ("Total is 199 kg — 180 kg of tiles, ..., and 9 kg of sealant": "total" is the 199's, not the 9's)."""
    lo, hi = max(0, q.start - 80), min(len(text), q.end + 80)
    cut = list(re.finditer(r"[—;]|[.!?]\s", text[lo:q.start]))
    if cut:
        lo += cut[-1].end()
    after = re.search(r"[—;]|[.!?](?:\s|$)", text[q.end:hi])
    return text[lo:q.end + after.start()] if after else text[lo:hi]


#: Words that say a figure is a share of another, or that figure less or plus a share: without one, a figure of the
#: same kind as a stated one is that one restated ("sites: 36" against "38 sites", not 95% of them).
_SHARED = re.compile(r"%|\b(?:per\s*cent|percent|share|proportion|fraction|part|portion|discount(?:ed)?|off|less|plus|"
                     r"tax|vat|interest|deposit|commission|fee|tip|surcharge|rebate|saving|saves?|cut|reduc\w*|rais\w*|"
                     r"levy|duty|royalt\w*|dividends?|premium|contributions?|charged?|pays?|paid|earns?|earned|"
                     r"increas\w*|decreas\w*|ris(?:e|es|en|ing)|rose|fell|fall\w*|drop\w*|grew|grow\w*|half|third|quarter|"
                     r"of\s+(?:the|its|their|his|her|them|these|those|all))\b", re.I)

_SUMMED = re.compile(r"\b(?:totals?|totalled|totaling|totalling|in\s+all|altogether|combined|sum|add(?:s|ed)?\s+up\s+to|across|"
                     r"(?:come|comes|came|coming)\s+to|"
                     r"both|together|plus|overall|whole|entire|all|including|includes|each\s+way|round[- ]trip|return\s+trip|"
                     r"(?:two|three|four|five|six|seven|eight|nine|ten)\s+(?:\w+\s+)?(?:years|days|weeks|months|games|"
                     r"seasons|nights|quarters|sessions|rounds|stages|legs|parts|items))\b|\d\s*\+\s*[$£€]?\d", re.I)
_CASE = re.compile(r"\s*(?:for\s+(?:a|an|each|every|any)\s|if\s|assuming\s|suppose\s|when\s+(?:a|an|you)\s)[^,;.]{0,80},", re.I)


#: "Passage 2", "source [3]", "document 1": which source the answer cites, not a value it states.
_SOURCE_REF = re.compile(r"\b(?:passages?|sources?|documents?|docs?|references?|excerpts?|snippets?|articles?|"
                         r"context|results?)\s*(?:#|no\.?|number)?\s*\[?$", re.I)


_OPERATOR = re.compile(r"\s*[+\u2212\u00d7*/-]\s*$|\s*[+\u2212\u00d7*/]\s*|\s+-\s+")


def _written_sum(c: _Parsed, q: Quantity) -> list[Quantity]:
    """The other figures of an expression the claim writes out with ``q`` ("65 + 38 + 151"), or []."""
    qs = c.quantities
    i = c.position(q)
    if i is None:
        return []
    lo = hi = i
    while lo > 0 and _OPERATOR.fullmatch(c.text[qs[lo - 1].end:qs[lo].start]):
        lo -= 1
    while hi + 1 < len(qs) and _OPERATOR.fullmatch(c.text[qs[hi].end:qs[hi + 1].start]):
        hi += 1
    return [x for x in qs[lo:hi + 1] if x is not q] if hi > lo else []


_RANGE_DASH = re.compile(r"\s*(?:\u2013|-|to)\s*")


def _ranges(sents) -> list[tuple[int, Quantity, Quantity]]:
    """The context's ranges "1–3 years", "£29,500–£32,000", "18 to 22 °C" (sentence, low end, high end)."""
    out = []
    for k, (_, _, p) in enumerate(sents):
        for a, b in zip(p.quantities, p.quantities[1:]):
            if _RANGE_DASH.fullmatch(p.text[a.end:b.start]) and a.kind == b.kind and a.value < b.value:
                out.append((k, a, b))
    return out


def _other_range_end(c: _Parsed, q: Quantity, ranges) -> tuple[int, Quantity, Quantity] | None:
    """The context's range that the claim's range shares one end with and not the other ("2–3 years" / "1–3")."""
    if not ranges:
        return None
    qs = c.quantities
    i = c.position(q)
    if i is None:
        return None
    pair = (qs[i], qs[i + 1]) if i + 1 < len(qs) and _RANGE_DASH.fullmatch(c.text[q.end:qs[i + 1].start]) else \
        (qs[i - 1], qs[i]) if i > 0 and _RANGE_DASH.fullmatch(c.text[qs[i - 1].end:q.start]) else None
    if pair is None or pair[0].kind != pair[1].kind:
        return None
    lo, hi = pair
    if any(_equivalent(lo, elo) and _equivalent(hi, ehi) for _, elo, ehi in ranges):
        return None  # the context states this very range too ("1–14 days" beside "10–14 days")
    for k, elo, ehi in ranges:
        if elo.kind != lo.kind:
            continue
        if q is lo and _equivalent(hi, ehi) and not _equivalent(lo, elo):
            return k, elo, ehi
        if q is hi and _equivalent(lo, elo) and not _equivalent(hi, ehi):
            return k, elo, ehi
    return None


def _spelled_out(c: _Parsed, q: Quantity) -> str | None:
    """The sum or product the claim writes right after ``q`` when it comes to ``q``: "31 km (12 + 9 + 10)",
    "84 beds (14 rooms × 6)".
    Its terms are figures of their own, checked against the context like any other."""
    qs = c.quantities
    i = c.position(q)
    if i is None or i + 1 >= len(qs) or not re.fullmatch(r"(?:\s+[A-Za-z]+){0,2}\s*[(=:]\s*", c.text[q.end:qs[i + 1].start]):
        return None
    terms = [qs[i + 1]]
    total = qs[i + 1].magnitude
    for k in range(i + 2, len(qs)):
        gap = c.text[qs[k - 1].end:qs[k].start]
        op = re.sub(r"\b[A-Za-z]{2,}\b", "", gap).strip() if len(gap) <= 16 else gap  # ("14 rooms × 6")
        if op not in ("+", "-", "\u2212", "\u00d7", "x", "*"):
            break
        terms.append(qs[k])
        if op in ("\u00d7", "x", "*"):  # "84 beds (14 rooms × 6)"
            total *= qs[k].magnitude
        else:
            total += qs[k].magnitude if op == "+" else -qs[k].magnitude
    if len(terms) < 2 or not math.isclose(total, q.magnitude, rel_tol=1e-9):
        return None
    return c.text[terms[0].start:terms[-1].end]


def _rate_pairs(texts: list[_Parsed]) -> list[tuple[Quantity, Quantity]]:
    """Two rates a text gives as a change from one to the other: "from 4.6% to 4.1%", "4.1%, down from 4.6%",
    "18.2% of the market, up from 16.5%",
    "40% in 2021 to 50% in 2023", "91.5% at the end of 2023 to 94.0%" (not a rate and the size of its change:
    "... 50%, an increase of 25 percent")."""
    out = []
    for p in texts:
        qs = [q for q in p.quantities if q.kind == "percent" and 0 < q.magnitude <= 100]
        for a, b in zip(qs, qs[1:]):
            # (a share of something, then its change: "18.2% of the market, up from 16.5%"; with "up/down from" only:
            # "40% of men and 30% of women" are two groups, not a change)
            if re.fullmatch(r"\s*(?:(?:in|at|by|on|as\s+of|for)\s+(?:[^\s%]+\s+){1,5}?)?(?:,\s*)?(?:(?:up|down)\s+from|to|from|and|-|\u2013)\s*",
                            p.text[a.end:b.start], re.I) or re.fullmatch(
                    r"\s*of\s+(?:[^\s%]+\s+){1,6}?(?:,\s*)?(?:up|down)\s+from\s*", p.text[a.end:b.start], re.I):
                out.append((a, b))
    return out[:8]


def _points_apart(q: Quantity, pairs: list[tuple[Quantity, Quantity]]) -> str | None:
    """A change in percentage points that is the difference of two rates ("0.5 points" from 4.6% to 4.1%)."""
    if q.kind != "points":
        return None
    for a, b in pairs:
        if math.isclose(q.magnitude, abs(a.magnitude - b.magnitude), rel_tol=0.06 if q.approx else 0.01):
            return f"difference of {a.text} and {b.text}"
    return None


def _points_as_percent(q: Quantity, pairs: list[tuple[Quantity, Quantity]]) -> str | None:
    """A change in percentage points that is the relative change of two rates, not their difference: "fell by
    about 11 percentage points, from 4.6% to 4.1%" (0.5 points; 11% is the relative fall)."""
    if q.kind != "points":
        return None
    tol = 0.06 if q.approx else 0.01
    for a, b in pairs:
        diff = abs(a.magnitude - b.magnitude)
        if diff == 0 or math.isclose(q.magnitude, diff, rel_tol=tol):
            continue
        for base in (a, b):
            rel = diff / base.magnitude * 100
            if math.isclose(q.magnitude, rel, rel_tol=tol):
                return f"{a.text} and {b.text}: {diff:g} points apart ({rel:.1f}% is the relative change)"
    return None


def _points_of_a_percent(c: _Parsed, q: Quantity, pairs: list[tuple[Quantity, Quantity]],
                         pool: list[tuple[int, Quantity, str]]) -> tuple[int, Quantity] | None:
    """(sentence, figure) of a per cent the context states with the claim's words, which the claim gives as a
    change in percentage points, where the context gives the rate's own change as two rates ("a share of 18.2%,
    up from 16.5%. Registrations rose 15%" for "an 18.2% share, up 15 percentage points"). Why: a relative
    growth is no difference of shares; the two rates say what the points are. Read only of a claim in points
    that no pair of rates accounts for, and only where the context states a pair (its own, not the claim's)."""
    if not any(not any(a is x for x in c.quantities) for a, _ in pairs):
        return None
    return next(((k, e) for k, e, text in pool if e.kind == "percent" and math.isclose(e.magnitude, q.magnitude)
                 and _near_terms(c, text, e.start, e.end) >= 1), None)


def _numbers(c: _Parsed, sents, scores, support, near, out: FactCheck, conf, asked: str = "",
             record_home: tuple[int, ...] = (), others: frozenset[int] = frozenset(), single: bool = False) -> None:
    # (a number inside a date is the date's: "11/9/1989" states no 11)
    in_dates = [(d.start, d.end) for d in c.dates] + [(t.start, t.end) for t in c.times]
    claim_qs = [q for q in c.quantities if not (q.is_word and q.magnitude in (0, 1) and not q.dimension)
                and not _SOURCE_REF.search(c.text[max(0, q.start - 20): q.start])
                and not any(a <= q.start < b for a, b in in_dates)]
    # A figure the question gives ("list 15 materials", "in 2019") is the question's, not the answer's claim.
    asked_qs = parse_quantities(asked) if asked else []
    summed = _SUMMED.search(c.text) is not None  # (once: a claim may hold thousands of figures)
    share_said = _SHARED.search(c.text) is not None
    # A small count the claim itself introduces ("two adults and two children pay $46") is a premise of
    # its arithmetic, not a value it asserts: kept as an operand, not checked.
    # Unless the evidence counts the same thing itself ("four villages" against the claim's "three villages"; a
    # label is no count of it: "the spring term 58" does not count terms).
    def premise(q: Quantity) -> bool:
        return q.is_word and 1 <= q.magnitude <= 10 and q.kind in ("", "count") and q.dimension != ""

    claim_qs = [q for q in claim_qs if not premise(q)
                or any(math.isclose(q.magnitude, e.magnitude) or (e.dimension == q.dimension and not e.labelled)
                       for _, _, p in sents for e in p.quantities)]
    # "Hall 2", "Year 7": a label the context gives one of its entities names it; which entity a claim is about is
    # the entity checks' to compare ("Hall 2 has a cloakroom" against "Hall 1 ... has a cloakroom" moved it).
    # (a capitalised label only: "port 3000" and "age 40" are values, which an old value may have replaced)
    named = {(e.dimension, e.magnitude) for _, _, p in sents for e in p.quantities if e.labelled and e.kind == "count"
             and _CAPITAL_LABEL.search(p.text, max(0, e.start - 16), e.start)}
    claim_qs = [q for q in claim_qs if not (q.labelled and q.kind == "count" and (q.dimension, q.magnitude) in named
                                            and _CAPITAL_LABEL.search(c.text, max(0, q.start - 16), q.start))]
    # "one review" is the context's "a review" (an article counts one): stated, whatever else counts reviews.
    claim_qs = [q for q in claim_qs if not (q.is_word and q.magnitude == 1 and q.kind == "count" and _one_said(q, sents))]
    # "her 2nd on grass" is the context's "her second on grass": the text layer leaves "first" and "second" unread
    # as figures ("she first won", "a second opinion"), so a claim's 1st or 2nd is stated where a sentence of its
    # neighbourhood writes the word.
    claim_qs = [q for q in claim_qs if not (q.kind == "ordinal" and not q.is_word and q.magnitude in (1, 2) and any(
        re.search(r"\b" + ("first" if q.magnitude == 1 else "second") + r"\b", sents[k][2].text, re.I) for k in near))]
    # (how often, in words, is checked only against a context that says how often: "They open every day" is the
    # context's seven days of opening hours, not a figure it must state)
    if not any(e.kind == "frequency" for _, _, p in sents for e in p.quantities):
        claim_qs = [q for q in claim_qs if not (q.kind == "frequency" and q.is_word)]
    # Those kept are checked last: one the claim's own arithmetic uses ("Three adults and two children pay £52":
    # £12 x three + £8 x two) is its premise even where the context counts the same thing ("2 adults").
    claim_qs.sort(key=premise)
    operands_used: set[int] = set()
    # A claim's own figure is an operand of its arithmetic freely only when it is a given: a count it sets up
    # ("2 adults and 2 children") or the question's figure. Any other ("£2.50 for the energy plus 60p, so
    # £3.10") must be verified itself: "£3.00 for the energy plus 60p, so £3.60" verifies each of its figures
    # only by the other (a circle), and is as wrong as "10 x 25p = £3.00" is.
    givens = {id(x) for x in c.quantities if x.kind in ("", "count") or any(_equivalent(x, a) for a in asked_qs)}
    leans: dict[int, tuple[Quantity, frozenset[int], str]] = {}  # a figure verified through others of the claim
    counted: dict[int, frozenset[int]] = {}  # the context's figures a claim figure adds up
    matched: set[int] = set()

    def each(qs: list[Quantity]) -> Iterator[Quantity]:
        for q in qs:
            before = out.numbers_matched
            yield q  # (the loop's body runs here, to its end or a continue)
            if out.numbers_matched > before:
                matched.add(id(q))
    # So is a figure in the case the claim sets up before its comma ("For a child weighing 20 kg, the dose is
    # 100 mg"; "If you earn $40,000, ..."): the claim's assumption, which the evidence need not state.
    # (a limit in it is the context's condition said again, and checked: "If your household income is over $60,000,
    # you qualify for the full grant" against "under $60,000")
    case = _CASE.match(c.text)
    if case:
        claim_qs = [q for q in claim_qs if q.start >= case.end() or q.bound in ("gt", "lt", "min", "max")]
        givens |= {id(x) for x in c.quantities if x.start < case.end()}  # (the case's figures are its givens)
    if not claim_qs:
        return
    pool = [(k, e, sents[k][2].text) for k in range(len(sents)) for e in sents[k][2].quantities]
    where = {id(e): k for k, e, _ in pool}  # an operand's sentence
    all_days = " ".join(p.text for _, _, p in sents) if re.search(r"\bseven\s+days|\b7\s+days", c.text, re.I) else ""
    # (and a figure whose number the context states, however it reads the unit: "72 days in autumn, 58 in spring"
    # against "the autumn term contains 72 teaching days, the spring term 58")
    stated_numbers = {round(e.magnitude, 6) for _, e, _ in pool}
    givens |= {id(x) for x in c.quantities if round(x.magnitude, 6) in stated_numbers}
    distributive = bool(_DISTRIBUTIVE.search(c.text))  # once: a claim may hold thousands of figures
    cache: dict[tuple[int, int], list[Quantity]] = {}

    def stated_by(k: int, e: Quantity) -> list[Quantity]:
        # The claim's numbers that this evidence value states; once per value, not once per pair of claim
        # numbers (a claim with thousands of figures stays linear).
        key = (k, id(e))
        if key not in cache:
            cache[key] = [x for x in claim_qs if _equivalent(x, e)][:2]
        return cache[key]

    # Operands come from the sentences that share the claim's words first, then from the ones right next to
    # them when the claim states a result: a sum is often told over two sentences ("started the year with 450
    # employees. During the year it hired 80 and 30 left.").
    beside = {j for k in near for j in (k - 1, k + 1) if 0 <= j < len(sents) and j not in near
              and sents[j][1][0] == sents[k][1][0]} if _TOTAL.search(c.text) else set()
    ranges = _ranges(sents)
    rates_here = _rate_pairs([sents[k][2] for k in near] + [c])  # (once: a claim may hold thousands of figures)
    # One sentence that states every figure of the claim (two or more) is the claim's, whatever sentence its words
    # align to better: "Annual income £12,001–£20,000: credit rate 20%" is the table's second row, not its header's
    # first ("Annual income up to £12,000: credit rate 30%").
    # (not a sentence of old values: "The old number, 01632 960118, is no longer in use" states the claim's figures as
    # replaced)
    # (and measures, money and shares only: bare numbers and years are too easily stated by another sentence too)
    all_home = next((k for k in range(len(sents)) if len(claim_qs) >= 2 and not _talks_of_old_values(sents[k][2].text)
                     and all(q.kind not in ("", "count") for q in claim_qs)
                     and all(any(_equivalent(q, e) for e in sents[k][2].quantities) for q in claim_qs)), None) \
        if len(claim_qs) <= 6 else None
    for q in each(claim_qs):
        out.numbers += 1
        if all_home is not None and all_home not in support[:1] and not q.bound:
            # (only where the claim aligns elsewhere: within its own sentence, a pair's figures may be swapped, which
            # the checks below read)
            e = next(e for e in sents[all_home][2].quantities if _equivalent(q, e))
            if e.bound is None and q.unit.lower() == e.unit.lower() and math.isclose(q.magnitude, e.magnitude):
                out.numbers_matched += 1  # (a figure written as the sentence writes it; a conversion is read below)
                continue
        other_end = _other_range_end(c, q, ranges)
        if other_end is not None:
            # "2–3 years" against "1–3 years": one end of the same range moved (not 2 years matched elsewhere)
            k, lo, hi = other_end
            out.numbers_unmatched.append(q.text)
            out.differences.append(Difference(slot="bound", claim_value=q.text, evidence_value=f"{lo.text}–{hi.text}",
                                              evidence_span=_span(sents[k][1], lo.start, hi.end), confidence=conf["bound"]))
            continue
        multiple = _multiple_of_own(q, c, claim_qs, [e for _, e, _ in pool]) \
            if not q.dimension and _TIMES_AFTER.match(c.text, q.end) else None
        if multiple is not None:
            out.numbers_matched += 1  # "roughly £413,000 ..., more than five times its £75,000 goal"
            out.reworded.append(f"{q.text} times = {multiple}")
            continue
        if not q.dimension and _TIMES_AFTER.match(c.text, q.end):
            figs = [x for x in claim_qs if x is not q and x.dimension and x.kind not in ("percent", "ordinal", "change") and x.value]
            pairs = [(x, y) for x, y in combinations(figs, 2) if x.dimension == y.dimension]
            if len(pairs) == 1:
                # (the claim's own two figures give another multiple: "£96,000, more than four times the £30,000 target")
                hi_q, lo_q = sorted(pairs[0], key=lambda x: -x.value)
                out.numbers_unmatched.append(q.text)
                out.differences.append(Difference(slot="number", claim_value=f"{q.text} times",
                                                  evidence_value=f"{hi_q.text} / {lo_q.text} = {hi_q.value / lo_q.value:.2f}",
                                                  confidence=conf["number"]))
                continue
        converted = _at_stated_rate(q, c, sents) if q.kind == "currency" else None
        if converted is not None:
            out.numbers_matched += 1  # "€129 ... comes to roughly £110" where the context gives "€1 = £0.85"
            out.reworded.append(f"{q.text} = {converted}")
            continue
        if id(q) in operands_used:
            out.numbers_matched += 1
            out.reworded.append(f"{q.text} (an operand of the claim's arithmetic)")
            continue
        if q.bound in ("gt", "lt"):
            # "just under 95%" is the sentence's 94.6%, whatever else it states at 95% (the target): a strict bound a
            # value right beside it meets, stated with the claim's words
            q_words = _local_terms(c, q)
            # (or, for "just over" / "nearly" of a figure the aligned sentence states beside the claim's other figure:
            # "Nearly 4,900 pairs ..., up from just over 4,100 in 2019" of "4,870 ..., compared with 4,120 in 2019")
            hedged = _JUST_BOUND.search(c.text, max(0, q.start - 3), q.start + 12) is not None
            close = next(((k, o) for k, o, _ in pool if k in near and not o.bound
                          and (_comparable(q, o) or (hedged and not q.dimension and o.kind == "count"))
                          and _within_bound(q, o) and abs(o.value - q.value) <= 0.02 * abs(q.value)
                          and (q_words & (_local_terms(sents[k][2], o) | _window_terms(sents[k][2], o))
                               or (hedged and k == support[0] and not math.isclose(o.value, q.value)))), None)
            if close is not None:
                out.numbers_matched += 1
                out.reworded.append(f"{q.text} (a bound the evidence's {close[1].text} meets)")
                out.rewrites.append((q.start, q.end, close[1].text))
                continue
        # Of several places that state the value, the one with more of the claim's words in its clause,
        # then the one under the same kind of bound ("notice for leave over 5 days" is "Leave longer than five
        # days needs ... notice", not another sentence's "up to 5 days").
        # (a claimed bound also meets a bound of the value anywhere the context states it with the claim's words:
        # "free for children under 3" is "Children under 3 enter free", whatever sentence the claim aligns to)
        bound_words = _local_terms(c, q) if q.bound else frozenset()
        hits = [(k, e) for k, e, _ in pool if (k in near or (e.bound and bound_words & _local_terms(sents[k][2], e)))
                and _equivalent(q, e)]
        q_local = _local_terms(c, q) if len(hits) > 1 else frozenset()
        # (a claimed bound first finds the place that states it with the claim's own words: "bags heavier than
        # 32 kg won't be accepted" is "Bags over 32 kg are not accepted", not the fee's "between 23 and 32 kg")
        hit = hits[0] if len(hits) == 1 else max(
            hits, key=lambda h: (len(_local_terms(sents[h[0]][2], h[1]) & q_local) if q.bound else 0,
                                 # (then the words of the claim's own piece: "..., and anything over 32 kg won't be
                                 # accepted" is "Bags over 32 kg are not accepted", though the fee's sentence shares
                                 # more of the whole claim)
                                 len(_clause_terms(sents[h[0]][2].text, h[1].start) & c.piece_terms(q.start)) if q.bound else 0,
                                 len(_clause_terms(sents[h[0]][2].text, h[1].start) & c.term_set),
                                 len(_local_terms(sents[h[0]][2], h[1]) & q_local),
                                 _UPPER.get(h[1].bound or "") == _UPPER.get(q.bound or "")), default=None)
        if hit is None:
            # Stated outside the sentences that share the claim's words, beside one of them ("business
            # stars: 3.5" for "rated 3.5 stars", among reviews' own "stars: 5.0"): stated, unless the
            # sentence about the claim's subject has another value in its slot (borrowed, below).
            hit = next(((k, e) for k, e, text in pool if _equivalent(q, e) and _near_terms(c, text, e.start, e.end, 20) > 0), None)
        if hit is None and q.kind not in ("", "count"):
            # A claim of two statements aligns to the sentence of one; the other's measure or rate is stated
            # by the sentence its own piece talks about ("Occupancy improved ... to 94.0%, and income rose ...").
            piece = c.piece_terms(q.start)
            hit = next(((k, e) for k, e, _ in pool if _equivalent(q, e) and piece & sents[k][2].term_set), None)
        if hit is None:
            # (stated only in a sentence that shares none of the claim's words: "on the market at £385,000" where
            # £385,000 is the other listing's "offered at" price)
            hit_far = next(((k, e) for k, e, _ in pool if _equivalent(q, e)), None)
            # (a measure or a price, given plainly: "at least one of the gunmen" is no figure borrowed from elsewhere)
            far = hit_far is not None and scores[hit_far[0]] == 0.0 and q.kind not in ("", "count") and not q.bound
        else:
            hit_far, far = hit, False
        # Stated, but in a sentence about something else, while a sentence about the claim's subject (of the
        # few it aligns to best) has another value in the same slot: a number borrowed from elsewhere.
        # (a record's figure stated only outside its sentence, when one sentence states the record; or only in a
        # sentence that names another entity, when it is told over several; its rival in the record's own sentences)
        record_rival = bool(record_home) and hit is not None and hit[0] != record_home[0] and not q.inherited \
            and (single or hit[0] in others)
        home = next((k for k in record_home if hit is not None and k != hit[0] and any(
            _slot(q, e) is not None and not _equivalent(q, e) for e in sents[k][2].quantities)), record_home[0]) \
            if record_rival else next((k for k in support if hit_far is not None and k != hit_far[0]
                     and (scores[k] > scores[hit_far[0]] + 0.15 or scores[k] >= scores[hit_far[0]]
                          and _anchored_apart(q, claim_qs, sents[k][2], sents[hit_far[0]][2]))
                     and any(_slot(q, e) is not None for e in sents[k][2].quantities)), None) if not q.inherited else None
        if home is not None and hit_far is not None and _keyed_alike(c.text, sents[hit_far[0]][2].text) \
                and not _keyed_alike(c.text, sents[home][2].text):
            home = None  # (the claim's key opens the sentence that states it: that line is its own)
        if hit_far is not None and home is not None and (hit is not None or far):
            rival = [e for e in sents[home][2].quantities if _slot(q, e) is not None and not _equivalent(q, e)
                     # (a value another of the claim's figures states is that figure's: "the roughly 490-metre asteroid
                     # will pass about 1.9 million km from Earth" borrows nothing from "a distance of 1.93 million km")
                     and not any(x is not q and _equivalent(x, e) for x in claim_qs[:32])]
            # (not when the claim states it with the very words its own sentence does and no rival's: "two adult
            # tickets at £14 each" is "£14 for adults", not the family ticket's "2 adults ... £40")
            mine = _local_terms(c, q) | _window_terms(c, q)
            shared = len(mine & (_local_terms(sents[hit_far[0]][2], hit_far[1]) | _window_terms(sents[hit_far[0]][2], hit_far[1])))
            if shared and all(len(mine & (_local_terms(sents[home][2], e) | _window_terms(sents[home][2], e))) < shared
                              for e in rival):
                rival = []
            # (or with the words of its own clause alone: "on revenue of around $14 billion" is "Revenue was $14.3
            # billion", however many words the window beside it shares with the profit's sentence)
            own_local = _local_terms(c, q)
            shared_local = len(own_local & _local_terms(sents[hit_far[0]][2], hit_far[1]))
            if shared_local and all(len(own_local & (_local_terms(sents[home][2], e) | _window_terms(sents[home][2], e)))
                                    < shared_local for e in rival):
                rival = []
            # (nor the terms of a sum the claim writes out, all stated in one sentence: "254 (65 + 38 + 151)"
            # against "Osei scored 65, 38 and 151")
            mates = _written_sum(c, q)
            if mates and all(any(_equivalent(x, e) for e in sents[hit_far[0]][2].quantities) for x in mates):
                rival = []
            if rival and not any(_equivalent(q, e) for e in sents[home][2].quantities):
                e = max(rival, key=lambda x: _slot_fit(c, sents[home][2].text, x.start, x.end))
                if _current_of(e, home, sents, pool, c.text, q):
                    out.numbers_matched += 1  # "now 500 MB" where the rival 50 MB went to 200 MB, then to 500 MB
                    out.reworded.append(f"{q.text} (the current value; {e.text} is superseded)")
                    continue
                out.numbers_unmatched.append(q.text)
                out.differences.append(Difference(slot="number", claim_value=q.text, evidence_value=e.text,
                                                  evidence_span=_span(sents[home][1], e.start, e.end),
                                                  confidence=conf["number"]))
                continue
        if hit is not None:
            k, e = hit
            same_doc = [p for p in pool if sents[p[0]][1][0] == sents[k][1][0] and abs(p[0] - k) <= 2]
            own = _own_clause(c.text, q.start)
            newer = _superseded(e, sents[k][2].text, same_doc, own, own != c.text and _talks_of_old_values(c.text))
            if newer is not None and not any(_equivalent(x, newer) for x in claim_qs):
                out.differences.append(Difference(
                    slot="superseded", claim_value=q.text, evidence_value=f"{newer.text} (current; {e.text} is superseded)",
                    evidence_span=_span(sents[k][1]), confidence=conf["superseded"]))
                continue
            if q.bound and e.bound and _UPPER.get(q.bound) != _UPPER.get(e.bound):
                out.differences.append(Difference(slot="bound", claim_value=q.text, evidence_value=e.text,
                                                  evidence_span=_span(sents[k][1]), confidence=conf["bound"]))
                continue
            if q.bound and not e.bound and q.bound in ("gt", "lt") and not q.approx and not e.approx \
                    and not any(o is not e and not o.bound and _comparable(q, o) and _within_bound(q, o)
                                and abs(o.value - e.value) <= 0.02 * abs(e.value) for o in sents[k][2].quantities):
                # ("over 4,500" against "about 4,500" is the same loose figure, not a new limit; "just under 95%" is
                # the 94.6% beside a target of 95%, not a limit on the target)
                out.differences.append(Difference(slot="bound", claim_value=q.text, evidence_value=e.text,
                                                  evidence_span=_span(sents[k][1]), confidence=conf["bound"]))
                continue
            said_way, stated_way = _claimed_change(c.text, q, order=False), _claimed_change(sents[k][2].text, e, order=False)
            if said_way is not None and stated_way is not None and said_way[0] != stated_way[0] and not _TO_LEVEL.search(c.text, 0, q.start) \
                    and not q.bound and not e.bound \
                    and not any(d.slot == "direction" for d in out.differences):
                # The same figure, moved the other way: "made startup 200 ms slower" against "cut startup
                # time by 200 ms". (Not a level it moved to: "fell 8% to $1.4 billion".)
                out.numbers_matched += 1
                out.differences.append(Difference(slot="direction", claim_value=f"{said_way[1]} ({q.text})",
                                                  evidence_value=f"{stated_way[1]} ({e.text})",
                                                  evidence_span=_span(sents[k][1], e.start, e.end), confidence=conf["direction"]))
                continue
            told_of = _bound_elsewhere(c, q, sents[k][2], e, claim_qs)
            if told_of is not None:
                # The value is in the sentence, but told of something else: "Sales rose 8% in Europe and 15%
                # in Asia" does not say Europe's sales rose 15%.
                other, theirs, own = told_of
                out.numbers_unmatched.append(q.text)
                whole = theirs == ""
                out.differences.append(Difference(
                    slot="moved", claim_value=f"{q.text} (as the whole)" if whole else f"{q.text} for '{theirs}'",
                    evidence_value=f"{other.text} in all; {e.text} of them {own}" if whole
                    else f"{other.text} for '{theirs}' ({e.text} for '{own}')",
                    evidence_span=_span(sents[k][1], other.start, other.end), confidence=conf["moved"]))
                continue
            # A count matched only by what counts something else, while the context counts the claim's own thing
            # otherwise: a count of people by another sentence's count of things ("up to 24 people" of the class "capped
            # at 18 participants", the 24 the other class's bikes), or a count of a noun by a side of a score ("making
            # five century breaks" against "compiling four century breaks" and "had led 5-3").
            own_count = _people_of_subject(q, k, e, sents, support) or _count_beside_score(q, e, sents[k][2].text, pool)
            if own_count is not None:
                k2, e2 = own_count
                out.numbers_unmatched.append(q.text)
                out.differences.append(Difference(slot="number", claim_value=q.text, evidence_value=e2.text,
                                                  evidence_span=_span(sents[k2][1], e2.start, e2.end),
                                                  confidence=conf["number"]))
                continue
            out.numbers_matched += 1
            if not _literal(q, sents, near):
                out.reworded.append(f"{q.text} = {e.text}")
                out.rewrites.append((q.start, q.end, e.text))
            _conflict(q, k, e, sents, scores, c, out, conf)
            continue
        # A claimed bound the evidence's plain value meets ("up to 40 kg" for "35 kg") is faithful; against
        # another bound it is a different limit ("no more than 1,250 mg" for "no more than 1,000 mg").
        # ... unless the evidence states a limit of the same kind in the claim's slot ("up to 128 devices" against
        # "up to 64 connected devices"): then the limits are compared, below, not an unrelated figure under it.
        same_limit = any(e.bound and q.bound and _UPPER.get(e.bound) == _UPPER.get(q.bound) and _slot(q, e) is not None
                         and _near_terms(c, text, e.start, e.end) > 0 and not _rounded_down(q, e)
                         for k, e, text in pool if k in near)
        # (a value in the claim's slot: the words it is stated with, or the claim's words beside it; "freeze for up
        # to three months" is not met by "cool for 10 minutes")
        q_own = _local_terms(c, q)
        met = next((e for k, e, text in pool if k in near and (not e.bound or _rounded_down(q, e))
                    and not _stated_as_limit(text, e) and _within_bound(q, e)
                    and (not q_own or q_own & (_local_terms(sents[k][2], e) | _window_terms(sents[k][2], e)))), None) \
            if q.bound in ("lt", "max", "gt", "min") and not same_limit else None
        if met is not None and any(_slot(q, e) == "scale" for _, e, _ in pool):
            met = None  # "at most $2.5 billion" where the cap is $2.5 million: the scale changed, whatever it bounds
        if met is not None:
            out.numbers_matched += 1
            out.reworded.append(f"{q.text} (a bound the evidence's value meets)")
            out.rewrites.append((q.start, q.end, met.text))  # read in the evidence's terms: "a little over 60%" -> 62.4%
            continue
        restated = next((x for x in c.quantities if x.kind == "percent" and x is not q and _equivalent(q, x)), None) \
            if q.is_word and 0 < q.magnitude < 1 else None
        if restated is not None:
            # "about 33.5% of the budget — roughly a third": the claim's own figure again, checked as that figure.
            out.numbers_matched += 1
            out.reworded.append(f"{q.text} = {restated.text} (the claim's own figure)")
            continue
        spelled = _spelled_out(c, q)
        if spelled is not None:
            out.numbers_matched += 1
            out.reworded.append(f"{q.text} = {spelled} (the claim's own sum)")
            continue
        stated = [e for k, e, _ in pool if k in near] + [e for k, e, _ in pool if k in beside] or [e for _, e, _ in pool]
        if q.is_word and 0 < q.magnitude < 1 and q.kind in ("", "count"):
            # A fraction's whole may be stated anywhere ("raised £90,000 this year. The gala brought in £30,000" for
            # "a third of the money came from the gala"): the other sentences' figures after the aligned ones.
            stated += [e for k, e, _ in pool if k not in near and k not in beside]
        # A generator: _arithmetic reads only its first operands, and a claim with thousands of figures
        # must not build a list of all the others for each one.
        operands = chain(stated, (x for x in c.quantities if x is not q), _years_as_quantities(c, sents, near, q),
                         _times_as_quantities(sents, near, q, where))
        # A bound ("more than 1,600 mg", "up to 3 doses") restates a limit the context states; it is compared
        # as a bound, never made up as a sum of two other figures (a dose plus the daily cap).
        # (nor is a range's end: "2–3 years" against "1–3 years" is another range, not 3 - 1)
        ranged = re.match(r"\s*(?:\u2013|-|to)\s*[$£€]?\d", c.text[q.end:q.end + 8]) is not None \
            or re.search(r"\d\s*(?:\u2013|-)\s*$", c.text[max(0, q.start - 6):q.start]) is not None
        # (a fraction word is a share: "roughly a third of the budget" is £138m of £412m as much as "33.5%" is)
        fraction = q.is_word and 0 < q.magnitude < 1 and q.kind in ("", "count")
        # (nor is a figure the context states at another scale: "12.4 million light-years" against "12.4 billion" is the
        # scale changed, not 12.4 billion divided by the "1,000 times" of another sentence)
        rescaled = any(_slot(q, e) == "scale" for _, e, _ in pool)
        computable = not q.bound and not ranged and not rescaled
        # (from the context's figures and the claim's givens first: "£2.50 for the energy" is 10 x 25p, not the
        # claim's £3.10 less 60p)
        grounded = chain(stated, (x for x in c.quantities if x is not q and id(x) in givens), asked_qs,
                         _years_as_quantities(c, sents, near, q), _times_as_quantities(sents, near, q, where))
        total = summed and _SUMMED.search(_around_figure(c.text, q)) is not None
        how = (_arithmetic(_scaled(q, 100) if fraction else q, grounded, distributive, _period(c.text, q), total=total,
                           shared=share_said)
               # (then with the claim's figures verified so far, each by the context alone: "5 overtime hours at $30 =
               # $150" is 5 x the $30 verified as $20 x 1.5, not $950 less $800, which leans on $150 itself)
               or (_arithmetic(_scaled(q, 100) if fraction else q, chain(stated, (
                   x for x in c.quantities if x is not q and (id(x) in givens or (id(x) in matched and id(x) not in leans)))),
                   distributive, _period(c.text, q), total=total, shared=share_said) if matched else None)
               or _arithmetic(_scaled(q, 100) if fraction else q, operands, distributive, _period(c.text, q), total=total,
                              shared=share_said)
               # (and a rate of any sentence restated per the claim's period: "Paying monthly for a year would cost
               # £456" is the "£38 a month" of a sentence the claim's words align to less well than the annual plan's)
               or (_arithmetic(q, (e for _, e, _ in pool if e.rate in _PERIOD_S), distributive, period)
                   if (period := _period(c.text, q)) is not None and q.kind != "percent" else None)) if computable else None
        if how is not None and q.kind == "count" and not q.inherited \
                and all(x.dimension != q.dimension for x in how.operands) \
                and any(e.dimension == q.dimension and not e.inherited and not _equivalent(q, e) for _, e, _ in pool):
            how = None  # "three items" is not 2 crates + 1 drum where the context says "four items"
        # Correct arithmetic is no licence: the figures must be the claim's subject's, and a difference must
        # go the way the claim says ("fell by 63 tonnes" is the difference of 420 and 483 too).
        wrong = _misderived(c, q, how, where, sents, asked, conf) if how is not None else None
        if how is not None and wrong is not None and any(x is o for o in how.operands for x in c.quantities):
            # A derivation the claim's own figures enter is one reading among others: "a stalls seat £21 and a
            # balcony seat £9" is £18 less 50%, not the difference of the context's £30 and the claim's £21.
            again = _arithmetic(_scaled(q, 100) if fraction else q, chain(stated, _years_as_quantities(c, sents, near, q),
                                _times_as_quantities(sents, near, q, where)), distributive, _period(c.text, q),
                                total=total, shared=share_said)
            if again is not None and _misderived(c, q, again, where, sents, asked, conf) is None:
                how, wrong = again, None
        if wrong is not None:
            out.numbers_unmatched.append(q.text)
            out.differences.append(wrong)
            continue
        if how is not None:
            out.numbers_matched += 1
            out.reworded.append(f"{q.text} = {how.text}")
            leaned = frozenset(id(x) for x in how.operands if id(x) not in givens and any(x is y for y in c.quantities))
            if how.op in ("sum", "combination") and " - " not in how.text:
                counted[id(q)] = frozenset(id(x) for x in how.operands if id(x) in where)
            if leaned:
                leans[id(q)] = (q, leaned, out.reworded[-1])
            operands_used.update(id(x) for x in how.operands if id(x) in givens)
            continue
        apart = _points_apart(q, rates_here)
        if apart is None and q.kind == "points":
            piece = c.piece_terms(q.start)
            apart = _points_apart(q, _rate_pairs([p for _, _, p in sents if piece & p.term_set]))
        if apart is not None:
            out.numbers_matched += 1
            out.reworded.append(f"{q.text} = {apart}")
            continue
        swapped = _points_as_percent(q, rates_here)
        if swapped is not None:
            out.numbers_unmatched.append(q.text)
            out.differences.append(Difference(slot="percent_points", claim_value=q.text, evidence_value=swapped,
                                              confidence=conf["percent_points"]))
            continue
        growth = _points_of_a_percent(c, q, rates_here, pool) if q.kind == "points" else None
        if growth is not None:
            k, e = growth
            out.numbers_unmatched.append(q.text)
            out.differences.append(Difference(slot="percent_points", claim_value=q.text, evidence_value=e.text,
                                              evidence_span=_span(sents[k][1], e.start, e.end),
                                              confidence=conf["percent_points"]))
            continue
        if q.dimension == "time" and math.isclose(q.value, 7 * 86400.0) and re.match(r"\s*(?:a|per|each|every)\s+week\b", c.text[q.end:], re.I) \
                and all(re.search(rf"\b{d}", all_days, re.I) for d in ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")):
            out.numbers_matched += 1  # "open seven days a week": the context gives hours for every day of the week
            out.reworded.append(f"{q.text} a week (every weekday named)")
            continue
        if any(_equivalent(q, a) for a in asked_qs):
            # The user's own figure ("We got a grant eight months ago"), reasoned with, is no claim about the context.
            out.numbers_matched += 1
            out.reworded.append(f"{q.text} (the question's)")
            continue
        # The same figure in another unit, wherever the context states it with the claim's words ("400 gallons an
        # hour" against "The pump circulates 400 litres per hour", a sentence the long claim aligns to less well).
        # (or at another scale: "at most $2.5 billion" against "capped at $2.5 million")
        other_unit = next(((k, e) for k, e, text in pool if _slot(q, e) in ("unit", "currency", "scale")
                           and _near_terms(c, text, e.start, e.end) >= 1), None) \
            if q.dimension and not any(_equivalent(q, e) for _, e, _ in pool) else None
        if other_unit is None and not q.dimension and written_with_scale(q.text) \
                and not any(_equivalent(q, e) for _, e, _ in pool):
            # A bare figure too ("for around 33 billion of them" against "For about 33 million of them"): its own
            # digits before another scale word, with two of the claim's words by it (a bare figure has no unit that
            # says what it counts); the sentence need not be the one the rest of the claim aligns to.
            other_unit = next(((k, e) for k, e, text in pool if not e.dimension and written_with_scale(e.text)
                               and _slot(q, e) == "scale" and _near_terms(c, text, e.start, e.end) >= 2), None)
        if other_unit is not None:
            k, e = other_unit
            out.numbers_unmatched.append(q.text)
            slot = _slot(q, e) or "unit"
            out.differences.append(Difference(slot=slot, claim_value=q.text, evidence_value=e.text,
                                              evidence_span=_span(sents[k][1], e.start, e.end),
                                              confidence=conf["scale" if slot == "scale" else "unit"]))
            continue
        # Another value in the same slot of the aligned sentence(s): a mismatch.
        conflict: tuple[int, Quantity, str] | None = None
        need = 1 if q.dimension else 2  # a bare number ("28") needs more of the claim's words around it
        for k in support:
            # A value another of the claim's numbers states is that number's, not a rival of this one.
            slots = [(e, _slot(q, e)) for e in sents[k][2].quantities
                     if not any(x is not q for x in stated_by(k, e))]
            cands = [(e, sl) for e, sl in slots if sl is not None and (
                sl in ("unit", "currency", "percent_points") or _near_terms(c, sents[k][2].text, e.start, e.end) >= need)]
            if cands:
                # (the words a value is stated with in its own clause first: "second at 9 seconds, and Théo Blanc
                # third at 1m 03s" gives Blanc's slot 1m 03s, though his name sits nearer to the 9 seconds)
                e, slot = max(cands, key=lambda es: (len(_local_terms(sents[k][2], es[0]) & c.term_set),
                                                     _slot_fit(c, sents[k][2].text, es[0].start, es[0].end)))
                conflict = (k, e, slot)
                break
        if conflict is not None and _current_of(conflict[1], conflict[0], sents, pool, c.text, q):
            # The rival is an old value the context changed, in steps, to the claim's ("from 50 MB to 200 MB ...
            # raised again to 500 MB" for "the limit is now 500 MB"): the claim gives the current value.
            out.numbers_matched += 1
            out.reworded.append(f"{q.text} (the current value; {conflict[1].text} is superseded)")
            continue
        by_words = next((e for k, e, _ in pool if math.isclose(q.magnitude, e.magnitude)
                         and _counted_by_its_words(q, sents[k][2], e)), None) if conflict is None else None
        if by_words is not None:
            out.numbers_matched += 1  # "176 starters" of "176 riders started the race"
            out.reworded.append(f"{q.text} = {by_words.text}")
            continue
        out.numbers_unmatched.append(q.text)
        if conflict is None and q.dimension and q.kind not in ("",):
            # The same counted noun or dimension in a sentence that talks about the claim's slot
            # ("rated 3 stars" against the data line "business stars: 4.5").
            best_near = None
            for k in (range(len(sents)) if q.kind == "count" else near):
                for e in sents[k][2].quantities:
                    e_slot = _slot(q, e)
                    if e_slot is None or (q.kind != "count" and _near_terms(c, sents[k][2].text, e.start, e.end) == 0):
                        continue
                    if q.kind == "count" and e.dimension != q.dimension:
                        continue
                    score = _near_terms(c, sents[k][2].text, e.start, e.end)
                    if best_near is None or score > best_near[0]:
                        best_near = (score, k, e, e_slot)
            if best_near is not None:
                conflict = best_near[1:]
        if conflict is not None:
            k, e, slot = conflict
            out.differences.append(Difference(slot=slot, claim_value=q.text, evidence_value=e.text,
                                              evidence_span=_span(sents[k][1], e.start, e.end), confidence=conf[slot]))
        elif not any(math.isclose(q.magnitude, e.magnitude) and (not q.dimension or not e.dimension or _comparable(q, e))
                     for e in chain((e for _, e, _ in pool), asked_qs)) and not (q.is_word and q.magnitude <= 10 and not q.dimension.startswith(("time", "mass", "length", "currency"))):
            out.differences.append(Difference(slot="value", kind="not_stated", claim_value=q.text,
                                              confidence=conf["value"]))
    # The figures verified through others of the claim hold only where those are verified, in the end by the
    # context: a circle of figures that verify each other states nothing the context does.
    verified = matched - set(leans)
    grew = True
    while grew:
        grew = False
        for key, (q, leaned, said) in leans.items():
            # (and never counts a figure of the context twice: "£4.05 for the minutes plus the 45p fee, £4.50 in
            # total", where the £4.05 is 20 x 18p + 45p already)
            twice = any(counted.get(key, frozenset()) & counted.get(x, frozenset()) for x in leaned)
            if key not in verified and leaned <= verified and not twice:
                verified.add(key)
                grew = True
    for key, (q, _, said) in leans.items():
        if key not in verified:
            out.numbers_matched -= 1
            out.reworded.remove(said)
            out.numbers_unmatched.append(q.text)
            out.differences.append(Difference(slot="value", kind="not_stated", claim_value=q.text,
                                              evidence_value=f"only the claim's own arithmetic ({said.split(' = ', 1)[1]})",
                                              confidence=conf["value"]))


_CAPITAL_LABEL = re.compile(r"\b[A-Z][a-z]+\s+$")


def _people_of_subject(q: Quantity, k: int, e: Quantity, sents, support: Sequence[int]) -> tuple[int, Quantity] | None:
    """The count of people in the sentence the claim aligns to best, when ``q`` counts people and is matched only by
    ``e``, another sentence's count of things. Why: a count of "people" matches a count of any noun by value ("613,000
    people" is "612,880 inhabitants"), so "up to 24 people" is stated by the Spin class's "24 bikes" while the HIIT
    class the claim is about is "capped at 18 participants"; read only where the claim counts people."""
    if q.kind != "count" or q.inherited or q.approx or not counts_people(q.dimension) or not support or support[0] == k:
        return None  # (a rounded count is a reading of a large figure: "around 613,000 people" for "612,880 inhabitants")
    if e.kind != "count" or e.labelled or not e.dimension or counts_people(e.dimension):
        return None
    home = sents[support[0]][2]
    if any(_equivalent(q, x) for x in home.quantities):
        return None
    rival = next((x for x in home.quantities if x.kind == "count" and not x.labelled and not x.inherited
                  and counts_people(x.dimension) and not math.isclose(x.magnitude, q.magnitude)), None)
    return (support[0], rival) if rival is not None else None


def _count_beside_score(q: Quantity, e: Quantity, text: str, pool: list[tuple[int, Quantity, str]]
                        ) -> tuple[int, Quantity] | None:
    """The context's count of ``q``'s noun, when ``q`` is matched only by ``e``, a bare side of a score, and the
    context counts that noun with another value and never with ``q``'s. Why: a bare "5" of "had led 5-3" matches
    any five by value, which hides the claim's "five century breaks" against the context's own "four century
    breaks"; read only where the claim's count meets a score."""
    if q.kind != "count" or not q.dimension or q.inherited or q.labelled or e.dimension or not side_of_score(text, e.start):
        return None
    same = [(k, x) for k, x, _ in pool if x.kind == "count" and x.dimension == q.dimension and not x.labelled
            and not x.inherited and not x.bound]
    if not same or any(math.isclose(x.magnitude, q.magnitude) for _, x in same):
        return None
    return same[0]


def _anchored_apart(q: Quantity, claim_qs: list[Quantity], home: _Parsed, there: _Parsed) -> bool:
    """Another figure of the claim is stated in ``home`` and not in ``there``, the sentence that states ``q``.
    Why: two rules worded alike ("Hours beyond 40 in a week are paid at 1.5 times the rate"; "Work on a public
    holiday is paid at 2 times the rate, regardless of weekly hours") share as many of the claim's words; the
    claim's own condition, "after 40 hours", says which one it restates, and the 2 it gives is the other's."""
    if q.kind == "count" or q.is_word or len(claim_qs) > 3:
        return False  # (a count the claim sets up, "two children", is stated of several things at once)
    for x in claim_qs:
        # (the anchor is a figure of another slot: figures of one kind, "£68 plus £22", "16 | 18", are a sum's or a
        # table's, told over several sentences)
        if x is q or x.magnitude in (0, 1) or x.is_word and x.kind in ("", "count") or _comparable(x, q) \
                or not x.dimension:
            continue
        if any(_equivalent(x, e) for e in home.quantities) and not any(_equivalent(x, e) for e in there.quantities):
            return True
    return False


def _one_said(q: Quantity, sents) -> bool:
    """Does the context say "a" / "an" of the noun a claim's "one" counts ("rearrange a review once")?"""
    noun = q.dimension.split(":", 1)[1]
    return any(w and stem(w.lower()) == noun for _, _, p in sents for m in _A_NOUN.finditer(p.text) for w in m.groups())


#: An article and the next two words: "a review", "a work-search review" (one of them the noun).
_A_NOUN = re.compile(r"\b(?:a|an|single)\s+([A-Za-z]+)(?:[\s-]+([A-Za-z]+))?", re.I)


def _literal(q: Quantity, sents, near) -> bool:
    raw = re.sub(r"^\D*", "", q.text.split()[0]) if q.text[:1].isdigit() or q.text[:1] in "$€£¥" else q.text
    return any(raw and raw in sents[k][2].text for k in near)


def _years_as_quantities(c: _Parsed, sents, near, q: Quantity) -> list[Quantity]:
    """Years as numbers of years, for "125 years since 1905" (only when the claim counts years)."""
    if q.dimension != "time" or not math.isclose(q.value % 31556952.0, 0.0, abs_tol=1.0):
        return []
    years = {d.year for d in c.dates if d.year} | {d.year for k in near for d in sents[k][2].dates if d.year}
    return [Quantity(0, 0, str(y), float(y), float(y) * 31556952.0, "time", "years", None, False, 4, False)
            for y in sorted(years)][:6]


def _times_as_quantities(sents, near, q: Quantity, where: dict[int, int]) -> list[Quantity]:
    """Clock times as durations since midnight, for "the journey takes 2.5 hours" from 09:40 and 12:10; each
    one's sentence goes into ``where``, so that the difference can be oriented (``_oriented``)."""
    if q.dimension != "time":
        return []
    out = []
    for k in near:
        for t in sents[k][2].times:
            e = Quantity(t.start, t.end, t.text, t.minutes * 60.0, t.minutes * 60.0, "time", "clock", None, False, 4, False)
            where[id(e)] = k
            out.append(e)
    return out[:6]


def _slot(q: Quantity, e: Quantity) -> str | None:
    """Which slot differs between a claim value and an evidence value of the same sentence, if comparable."""
    if (q.kind in ("ordinal", "change")) != (e.kind in ("ordinal", "change")) or \
            (q.kind in ("ordinal", "change") and q.kind != e.kind):
        return None  # a place in an order or a signed change is no measure: "three minutes" / "the third"
    if {q.kind, e.kind} == {"frequency", "time"}:
        return None  # how often against how long: "every day" is no rival of "for 3 weeks"
    same_mag = math.isclose(q.magnitude, e.magnitude, rel_tol=1e-9)
    if q.dimension.startswith("currency") and e.dimension.startswith("currency"):
        if same_mag:
            return "currency" if q.dimension != e.dimension else None
        ratio = q.magnitude / e.magnitude if e.magnitude else 0.0
        if q.dimension == e.dimension and any(math.isclose(ratio, 10.0 ** k, rel_tol=1e-6) for k in (-9, -6, -3, 3, 6, 9)):
            return "scale"
        return "number" if q.dimension == e.dimension else "currency"
    if {q.kind, e.kind} == {"percent", "points"}:
        return "percent_points" if same_mag else None
    if same_mag and q.unit.lower() == e.unit.lower() and q.dimension == e.dimension and _other_rate(q, e):
        return "unit"  # "15 mg per pound" against "15 mg per kg": the same figure per another unit
    if same_mag and q.dimension and e.dimension and q.kind == e.kind and q.unit.lower() != e.unit.lower():
        return "unit"
    if same_mag and q.dimension and e.dimension and q.kind != e.kind and "count" not in (q.kind, e.kind):
        return "unit"
    if not _comparable(q, e) or same_mag:
        return None
    if q.value and e.value:
        ratio = q.value / e.value
        if any(math.isclose(ratio, 10.0 ** k, rel_tol=1e-6) for k in (-9, -6, -3, 3, 6, 9)):
            return "scale" if q.kind in ("", "count", "currency") else "unit"
    return "number"


# -- dates -------------------------------------------------------------------------------------
_YEAR_BEFORE = re.compile(r"\b(?:the\s+(?:year|twelve\s+months)\s+before|the\s+(?:previous|prior|preceding)\s+year|"
                          r"a\s+year\s+(?:earlier|before)|(?:the\s+)?year[- ]earlier)\b", re.I)
_YEAR_AFTER = re.compile(r"\b(?:the\s+(?:year\s+after|following\s+year|next\s+year|subsequent\s+year)|a\s+year\s+later)\b", re.I)


def _date_shifted(d: DateValue, c: _Parsed, sents, near) -> str | None:
    """A full date that is a stated date plus or minus a span of days or weeks stated by the claim or the sentences
    it aligns to ("from 28 March 2025" for "starts on 14 March 2025 ... begins 14 days after"), or None."""
    if None in (d.year, d.month, d.day):
        return None
    try:
        target = datetime.date(d.year, d.month, d.day)  # type: ignore[arg-type]
    except ValueError:
        return None
    spans = [q for p in [c] + [sents[k][2] for k in near] for q in p.quantities
             if q.dimension == "time" and not q.bound and q.value >= 86400 and q.value % 86400 == 0 and q.value <= 366 * 86400]
    if not spans:
        return None
    for k in list(near) + [k for k in range(len(sents)) if k not in near]:
        for e in sents[k][2].dates:
            if None in (e.month, e.day) or (e.year or d.year) is None:
                continue
            try:
                base = datetime.date(e.year or d.year, e.month, e.day)  # type: ignore[arg-type]
            except ValueError:
                continue
            for q in spans:
                days = int(q.value // 86400)
                if abs((target - base).days) == days:
                    return f"{e.text} {'+' if target > base else '-'} {q.text}"
    return None


def _relative_year(d: DateValue, sents, near) -> str | None:
    """A bare year the context states relative to one it names ("$1.2 billion for 2024, up from $1.05 billion
    the year before": 2023), or None."""
    if d.year is None or d.month is not None or d.day is not None:
        return None
    for k in near:
        p = sents[k][2]
        for e in p.dates:
            if e.year is None or e.month is not None:
                continue
            if e.year == d.year + 1 and (m := _YEAR_BEFORE.search(p.text, e.end)):
                return f"{m.group(0)} {e.text}"
            if e.year == d.year - 1 and (m := _YEAR_AFTER.search(p.text, e.end)):
                return f"{m.group(0)} {e.text}"
    return None


def _range_end_around(d: DateValue, e: DateValue, p: _Parsed) -> bool:
    """``e`` ends a span of days ``p`` states and ``d`` falls inside it: the span's end is no rival value of a day
    within it ("interrupted on 10 February" against "works between 3 and 21 February")."""
    if d.month is None or d.day is None:
        return False
    return any(e in (lo, hi) and (d.year is None or lo.year is None or d.year == lo.year)
               and (lo.month or 0, lo.day or 0) <= (d.month, d.day) <= (hi.month or 0, hi.day or 0)
               for lo, hi in date_ranges(p.text, p.dates))


_CALENDAR = frozenset(_fold(stem(w)) for w in MONTHS + WEEKDAYS) | frozenset(_fold(stem(m[:3])) for m in MONTHS)


def _dates(c: _Parsed, sents, support, near, out: FactCheck, conf, scores: Sequence[float] = ()) -> None:
    # Another date in the aligned sentence is the claim's slot when two of the claim's words sit by it, or the
    # one word a short claim has besides its dates ("The meeting is on Tuesday").
    need = max(1, min(2, len(c.wording)))
    for d in c.dates:
        out.dates += 1
        hit = next(((k, e) for k in near for e in sents[k][2].dates if d.compatible(e) and not d.conflicts(e)), None)

        def newer_date(o: DateValue | TimeValue, d: DateValue = d) -> bool:
            return isinstance(o, DateValue) and d.conflicts(o) and _same_grain(d, o) \
                and not any(x.compatible(o) and not x.conflicts(o) for x in c.dates)

        later = _superseded_time(hit[0], hit[1], sents, c, newer_date) if hit else None
        if later is not None:
            _add_superseded(out, d.text, later[0], later[1], sents, conf)
            continue
        if hit is not None:
            out.dates_matched += 1
            if not any(d.text in sents[k][2].text for k in near):
                out.reworded.append(d.text)
                e = hit[1]
                if all(getattr(e, part) is not None for part in ("year", "month", "day", "weekday") if getattr(d, part) is not None):
                    # (written the evidence's way only when that states all the claim's date does: "16 September
                    # 2024" as "2024-09-16", never "3 March 2024" as a bare "March 3")
                    out.rewrites.append((d.start, d.end, e.text))
            continue
        shifted = _date_shifted(d, c, sents, near)
        if shifted is not None:
            # "illness cover kicks in 14 days later, i.e. from 28 March 2025" against "starts on 14 March 2025 ...
            # begins 14 days after the start date": a stated date moved by a stated span.
            out.dates_matched += 1
            out.reworded.append(f"{d.text} = {shifted}")
            continue
        relative = _relative_year(d, sents, near)
        if relative is not None:
            out.dates_matched += 1
            out.reworded.append(f"{d.text} = {relative}")
            continue
        conflict = None
        off_piece = c.term_set - c.piece_terms(d.start)
        # (the month or weekday of the claim's other dates is no word of this one's slot)
        others_calendar = frozenset(_fold(t) for x in c.dates if x is not d for t in content_terms(x.text)) & _CALENDAR
        # (the support first, then the other sentences near the claim: "... and the final deadline for all applicants
        # is 30 June 2025" in the sentence after the one a claim about the intake aligns to best)
        # (and last any sentence where two words of the date's own piece of a claim of two stand by it: "..., and
        # written comments need to be in by March 14" against "Written comments must be received by March 11")
        for k in list(support) + [k for k in near if k not in support] + [k for k in range(len(sents)) if k not in near]:
            # (a day and month with no year too: "from 7 June" against "members on 5 and 6 June and the public from 7 June")
            if d.day is not None and (d.year is not None or d.month is not None) and any(d.compatible(o) and not d.conflicts(o)
                                        and all(getattr(o, x) is not None for x in ("year", "month", "day", "weekday")
                                                if getattr(d, x) is not None) for o in sents[k][2].dates):
                continue  # a sentence that states the claim's own date has no rival to it ("2023 vans ... March 17, 2025")
            excepted = [(x.start(1), x.end(1)) for x in _EXCEPT.finditer(sents[k][2].text)]
            cands = [e for e in sents[k][2].dates if d.conflicts(e) and _same_grain(d, e)
                     and not any(a <= e.start < b for a, b in excepted)  # "every day except Monday": not the slot's value
                     and not _range_end_around(d, e, sents[k][2])  # "10 February" in "between 3 and 21 February"
                     # (the month of the claim's other date is no word of this one's slot: "from 7 June until ... 12
                     # October" is not about the "6 June" beside "7 June")
                     and ((k in near and _near_terms(c, sents[k][2].text, e.start, e.end, skip=others_calendar)
                           >= (need if k in support else max(need, 3)))
                          or (k not in support and off_piece and not _RECORD_LINE.search(sents[k][2].text)
                              and _near_terms(c, sents[k][2].text, e.start, e.end, skip=off_piece | others_calendar) >= max(need, 2)))
                     and not any(x is not d and x.compatible(e) and not x.conflicts(e) for x in c.dates)]
            if cands:
                # (the rival that states as much of a date as the claim's: "March 17, 2025", not the "2023" of "2023 vans")
                conflict = (k, max(cands, key=lambda e: (sum(getattr(e, x) is not None and getattr(d, x) is not None
                                                             for x in ("year", "month", "day")),
                                                         _slot_fit(c, sents[k][2].text, e.start, e.end))))
                break
        if conflict is not None:
            # The claim's own date, stated in another sentence with as many of the claim's words beside it ("joined
            # the hospital in 2015. In 2019, she was appointed head of cardiology"): the claim aligned to the
            # wrong sentence, not a wrong date.
            k, e = conflict
            named = frozenset(_fold(t) for n in names(c.text) for t in n.tokens)  # the subject is beside every date of it
            fit = _near_terms(c, sents[k][2].text, e.start, e.end, skip=named)
            if any(d.compatible(o) and not d.conflicts(o)
                   and _near_terms(c, p.text, o.start, o.end, skip=named) >= max(fit + 1, need)
                   for _, _, p in sents for o in p.dates):
                out.dates_matched += 1
                continue
        far = next((e for _, _, p in sents for e in p.dates if d.compatible(e) and not d.conflicts(e)), None) \
            if conflict is None else None
        if far is not None:
            out.dates_matched += 1  # stated in a sentence the claim aligns to less well, and contradicted nowhere near
            if d.day is not None and (d.month is not None or d.year is not None) and not any(d.text in p.text for _, _, p in sents):
                # (in another form: read in the evidence's terms as a date the aligned sentence states is, "expires on 31
                # December 2024, so set up your account before then" against "expires on 31/12/2024. ... before that date")
                out.reworded.append(d.text)
                if all(getattr(far, part) is not None for part in ("year", "month", "day", "weekday") if getattr(d, part) is not None):
                    out.rewrites.append((d.start, d.end, far.text))
            continue
        if conflict is None and d.weekday is not None and d.day is None and d.month is None and d.year is None \
                and any(d.weekday in weekdays_in_ranges(p.text) for _, _, p in sents):
            out.dates_matched += 1  # "Wednesday" inside "From Tuesday to Friday"
            continue
        if conflict is None and None not in (d.day, d.month, d.year):
            # A full date the context never states, one part away from one it does state in the sentences the
            # claim aligns to ("reopens on 14 May 2025" against "reopen to the public on 14 March 2025"): an edit of
            # that date, whichever of them sits by the claim's words.
            edits = [(k, e) for k in dict.fromkeys(list(support) + list(near)) for e in sents[k][2].dates
                     if None not in (e.day, e.month, e.year) and d.conflicts(e)
                     and sum((d.day != e.day, d.month != e.month, d.year != e.year)) == 1]
            if edits:
                conflict = max(edits, key=lambda x: _slot_fit(c, sents[x[0]][2].text, x[1].start, x[1].end))
        out.dates_unmatched.append(d.text)
        if conflict:
            k, e = conflict
            out.differences.append(Difference(slot="date", claim_value=d.text, evidence_value=e.text,
                                              evidence_span=_span(sents[k][1], e.start - 0, e.end), confidence=conf["date"]))
        elif not any(d.compatible(e) for _, _, p in sents for e in p.dates):
            out.differences.append(Difference(slot="value", kind="not_stated", claim_value=d.text, confidence=conf["value"]))
    day_times = _weekday_times(c, sents)
    # (a claim that gives several days their hours reads each piece with its own day: "9:00 AM to 8:00 PM from Monday to
    # Thursday, and from 9:00 AM to 7:00 PM on Friday" against "'Friday': '9:0-20:0'")
    # (pieces parted at "and" too: "11:00 am to 6:00 pm on weekdays and until 5:00 pm on Saturdays" is two)
    c_bounds = [0] + [x for m in _DAY_PIECE.finditer(c.text) for x in (m.start(), m.end())] + [len(c.text)] \
        if not day_times and len(c.times) > 1 else []
    for i, t in enumerate(c.times):
        out.dates += 1
        piece_times: list[tuple[int, TimeValue]] = []
        for a, b in zip(c_bounds[::2], c_bounds[1::2]):
            if a <= t.start < b:
                piece_times = _weekday_times(_parse(c.text[a:b]), sents)
        if piece_times and not any(t.same(e) for _, e in piece_times):
            k, e = piece_times[-1]
            out.dates_unmatched.append(t.text)
            out.differences.append(Difference(slot="time", claim_value=t.text, evidence_value=e.text,
                                              evidence_span=_span(sents[k][1], e.start, e.end), confidence=conf["time"]))
            continue
        if day_times and not any(t.same(e) for _, e in day_times):
            # "Sunday: 11:00–17:00" against "... on Saturdays 10:00–18:00, and on Sundays 11:00–16:00": the times
            # of the claim's one weekday are the ones its own piece gives, not any in the sentence.
            k, e = day_times[min(i, len(day_times) - 1)]
            out.dates_unmatched.append(t.text)
            out.differences.append(Difference(slot="time", claim_value=t.text, evidence_value=e.text,
                                              evidence_span=_span(sents[k][1], e.start, e.end), confidence=conf["time"]))
            continue
        hit = next(((k, e) for k in near for e in sents[k][2].times if t.same(e)), None)
        if hit is None:
            # Stated in a sentence the claim aligns to less well that shares its words ("As of this summer, it
            # opens at 10 am" for "The museum opens at 10 am"), as dates are.
            hit = next(((k, e) for k in range(len(sents)) for e in sents[k][2].times
                        if t.same(e) and _near_terms(c, sents[k][2].text, e.start, e.end) > 0), None)
        if hit is None:
            # Both ends of a span stated together ("06:30–21:00" as "open 06:30–21:00 Monday to Friday").
            mates = [x for x in c.times if x is not t and _SPAN_DASH.fullmatch(c.text, min(x.end, t.end), max(x.start, t.start))]
            hit = next(((k, e) for k in range(len(sents)) for e in sents[k][2].times if t.same(e) and mates
                        and all(any(x.same(o) for o in sents[k][2].times) for x in mates)), None)

        def newer_time(o: DateValue | TimeValue) -> bool:
            return isinstance(o, TimeValue) and not any(x.same(o) for x in c.times)

        newer = _superseded_time(hit[0], hit[1], sents, c, newer_time) if hit else None
        if newer is not None:
            _add_superseded(out, t.text, newer[0], newer[1], sents, conf)
            continue
        if hit is not None:
            k, e = hit
            p = sents[k][2]
            mine = _time_words(c, t)
            other = next((o for o in p.times if not o.same(e) and not any(x.same(o) for x in c.times)
                          and _told_of_other(mine, _time_words(p, e) - _time_words(p, o), _time_words(p, o) - _time_words(p, e))),
                         None)
            home = next((j for j in support if j != k and scores and scores[j] > scores[k] + 0.15 and sents[j][2].times), None)
            if other is None and home is not None and not (mine & _time_words(p, e)):
                # Stated in a sentence about something else, while the sentence about the claim's subject gives
                # another time with the claim's words: "arrival local: 09:20" for LX318, whose sentence says it
                # "arrives at 08:25", 09:20 being the return flight's departure.
                hp = sents[home][2]
                other = next((o for o in hp.times if mine & _time_words(hp, o) and not any(x.same(o) for x in c.times)), None)
                k = home if other is not None else k
            if other is not None:
                # "Doors open at 6:30 pm and the show starts at 7:30 pm" does not say the show starts at 6:30.
                out.dates_unmatched.append(t.text)
                out.differences.append(Difference(slot="time", claim_value=t.text, evidence_value=other.text,
                                                  evidence_span=_span(sents[k][1], other.start, other.end), confidence=conf["time"]))
                continue
            out.dates_matched += 1
            if not any(t.text in sents[k][2].text for k in near):
                out.reworded.append(t.text)
                out.rewrites.append((t.start, t.end, e.text))
            continue
        shifted = _shifted_time(t, c, sents, near)
        if shifted is not None:
            # "the children's library shuts half an hour earlier, at 4:30pm": 5pm less the 30 minutes stated
            out.dates_matched += 1
            out.reworded.append(f"{t.text} = {shifted}")
            continue
        out.dates_unmatched.append(t.text)
        # (a time the claim itself gives as well is the last choice: "06:30–21:00 (lane swimming until 09:00)")
        conflict = next(((k, e) for k in support for e in sents[k][2].times if not any(x.same(e) for x in c.times)), None) \
            or next(((k, e) for k in support for e in sents[k][2].times), None)
        if conflict:
            k, e = conflict
            out.differences.append(Difference(slot="time", claim_value=t.text, evidence_value=e.text,
                                              evidence_span=_span(sents[k][1], e.start, e.end), confidence=conf["time"]))
        elif not any(t.same(e) for _, _, p in sents for e in p.times):
            out.differences.append(Difference(slot="value", kind="not_stated", claim_value=t.text, confidence=conf["value"]))


_SPAN_DASH = re.compile(r"\s*(?:-|\u2013|\u2014|to|until|till)\s*", re.I)


_DAY_PIECE = re.compile(r"[,;]\s|\s(?:and|but|while)\s", re.I)


def _weekday_times(c: _Parsed, sents) -> list[tuple[int, TimeValue]]:
    """The clock times the evidence gives for the claim's one weekday, where a piece of a sentence names that day
    alone with its times ("and on Sundays 11:00–16:00"); empty when the claim names no weekday, or several, or the
    evidence keys no times to it (a range, "Tuesday to Friday", names two days: no piece of one)."""
    days = {d.weekday for d in c.dates if d.weekday is not None}
    if len(days) != 1 or not c.times or any(d.day is not None or d.month is not None for d in c.dates) \
            or re.search(r"\b(?:earlier|later|before|after|ahead)\b", c.text, re.I):
        return []  # (a time worked out from another, "closes an hour earlier, at 3pm", is the shifted-time check's)
    (day,) = days
    out = []
    for k, (_, _, p) in enumerate(sents):
        if not p.times:
            continue
        # (pieces between commas and semicolons: a clock time's colon parts nothing)
        bounds = [0] + [x for m in _COMMA_PIECE.finditer(p.text) for x in (m.start(), m.end())] + [len(p.text)]
        pieces = list(zip(bounds[::2], bounds[1::2]))
        for i, (a, b) in enumerate(pieces):
            named = {d.weekday for d in p.dates if a <= d.start < b and d.weekday is not None}
            if named == {day}:
                # (with the pieces after it that list more of its times: "Saturday departures: 07:05, 08:35, 10:05")
                for x, y in pieces[i + 1:]:
                    rest = p.text[x:y]
                    for o in reversed([o for o in p.times if x <= o.start < y]):
                        rest = rest[: o.start - x] + rest[o.end - x:]
                    if re.sub(r"\b(?:and|or)\b|[\s.,;]", "", rest):
                        break
                    b = y
                out += [(k, e) for e in p.times if a <= e.start < b]
    return out


def _day_pieces(p: _Parsed) -> list[tuple[int, int, int]]:
    """(weekday, start, end) of each piece of ``p`` (between commas and semicolons) that names one weekday alone:
    what a timetable says of that day ("On Saturdays the interval extends to 60 minutes, and the Sunday service
    runs every 90 minutes")."""
    bounds = [0] + [x for m in _COMMA_PIECE.finditer(p.text) for x in (m.start(), m.end())] + [len(p.text)]
    out = []
    for a, b in zip(bounds[::2], bounds[1::2]):
        named = {d.weekday for d in p.dates if a <= d.start < b and d.weekday is not None}
        if len(named) == 1:
            out.append((next(iter(named)), a, b))
    return out


def _interval_like(q: Quantity, e: Quantity) -> bool:
    """Figures of one slot, a frequency's period counting as a duration ("every 90 minutes" / "an interval of
    60 minutes")."""
    return _comparable(q, e) or {q.kind, e.kind} == {"frequency", "time"}


def _weekday_figure(c: _Parsed, sents, out: FactCheck, conf) -> None:
    """A figure the context gives another weekday, said of the claim's one weekday: "the ferry leaves every 90
    minutes on a Saturday" where "On Saturdays the interval extends to 60 minutes, and the Sunday service runs
    every 90 minutes". Read only where the claim names one weekday in the figure's clause, a piece of the context
    naming that day alone states another figure of the same slot, and the claim's figure is stated only in pieces
    naming another day (both ownerships written down: no guess at what a figure is said of)."""
    if any(d.kind == "mismatch" for d in out.differences):
        return
    days = {d.weekday for d in c.dates if d.weekday is not None}
    if len(days) != 1 or not c.quantities or any(d.day is not None or d.month is not None for d in c.dates):
        return
    (day,) = days
    at = next(d.start for d in c.dates if d.weekday is not None)
    for q in c.quantities[:6]:
        if q.kind in ("ordinal", "change") or not any(a <= q.start < b and a <= at < b for a, b in clauses(c.text)):
            continue
        own: list[tuple[EvidenceSentence, int, Quantity]] = []
        other: list[tuple[EvidenceSentence, int, Quantity]] = []
        for _, sent, p in sents:
            for wd, a, b in _day_pieces(p):
                figs = [e for e in p.quantities if a <= e.start < b and _interval_like(q, e)]
                (own if wd == day else other).extend((sent, wd, e) for e in figs)
        if not own or any(_equivalent(q, e) for _, _, e in own):
            continue
        borrowed = [(sent, e) for sent, wd, e in other if _equivalent(q, e)]
        if borrowed:
            sent, _, e = own[0]
            out.differences.append(Difference(slot="number", claim_value=q.text, evidence_value=e.text,
                                              evidence_span=_span(sent, e.start, e.end), confidence=conf["number"]))
            return


#: A line of a flattened record ("review_date: 2014-11-29"): its keys repeat on every record, so two of a claim's
#: words beside a date there do not say it is the claim's.
_RECORD_LINE = re.compile(r"^\s*[\w .\-\[\]]{1,40}:\s|\b[a-z]+_[a-z]+\b")


def _shifted_time(t: TimeValue, c: _Parsed, sents, near) -> str | None:
    """A clock time the context gives as another time moved by a stated span ("closes 30 minutes earlier than
    the main library", which closes at 5pm: 4:30pm), the span stated by the context or the claim."""
    if not re.search(r"\b(?:earlier|later|before|after|ahead|behind|sooner)\b", c.text, re.I):
        return None  # only a time the claim says is moved ("half an hour earlier, at 4:30pm"), never a bare one
    spans = [q for k in near for q in sents[k][2].quantities] + list(c.quantities)
    spans = [q for q in spans if q.kind == "time" and 0 < q.value <= 12 * 3600 and not q.rate]
    if not spans:
        return None
    for _, _, p in sents:
        for e in p.times:
            for q in spans:
                step = round(q.value / 60)
                for sign, word in ((-1, "less"), (1, "plus")):
                    if (e.minutes + sign * step) % (24 * 60) == t.minutes:
                        return f"{e.text} {word} {q.text}"
    return None


#: (not a bare "was": nearly every past sentence has one, and a past date is no superseded one)
_OLD_TIME = re.compile(r"\b(?:used\s+to|previously|formerly|originally|initially|until|no\s+longer|"
                       r"(?:was|were)\s+(?:first\s+)?(?:scheduled|planned|set|due|supposed|expected|meant))\b", re.I)
#: A change of date or time named with its old end: "has moved from October 2025 (to ...)".
_MOVED_FROM = re.compile(r"\b(?:moved|changed|postponed|rescheduled|pushed\s+back|brought\s+forward|delayed|shifted|"
                         r"put\s+back|revised|switched)\s+(?:\w+\s+){0,2}?from\s+$", re.I)
_NEW_TIME = re.compile(r"\b(?:now|currently|as\s+of|since|from\s+(?:\w+\s+){0,2}on|starting|effective|new|"
                       r"from\s+(?:the\s+)?(?:\d{1,2}(?:st|nd|rd|th)?\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|"
                       r"from\s+\d{4}\b|from\s+(?:the\s+)?(?:start|beginning|end)\s+of\b|"
                       r"(?:moved|changed|postponed|rescheduled|pushed\s+back|brought\s+forward|delayed|shifted|"
                       r"switched|revised|updated|extended|put\s+back)\s+(?:\w+\s+){0,2}?(?:to|for|until|till))\b", re.I)


_LEFT_ROLE = re.compile(r"\s*(?:,[^,]{0,60},\s*)?(?:(?=until\b|till\b)|(?:was|were|had\s+been|served\s+as|acted\s+as|led|ran|held|headed|chaired|"
                        r"managed|directed|coached|owned|hosted|edited|presided\s+over)\b[^.;]{0,80}?\b(?:until|till|up\s+to|before)\b|"
                        r"(?:stepped\s+down|resigned|retired|left|quit|was\s+(?:replaced|succeeded|ousted|dismissed|fired)|handed\s+over))\b", re.I)
_FORMER = re.compile(r"\b(?:former|previous|outgoing|ex-|then-)\s*(?:[\w-]+\s+){0,3}$", re.I)
_TOOK_OVER = re.compile(r"\s*(?:,[^,]{0,60},\s*|,\s*who\s+(?:has\s+)?)?(?:took\s+over|replaced|succeeded|became|is\s+now|has\s+(?:since\s+)?been|"
                        r"has\s+(?:since\s+)?(?:led|run|headed|managed|chaired|directed|coached|owned|held)|was\s+(?:appointed|named|elected|promoted)|"
                        r"now\s+\w+s|stepped\s+in|assumed)\b", re.I)
_BY_NEW = re.compile(r"\b(?:replaced|succeeded|followed|now\s+(?:run|led|headed|managed|chaired|owned|coached|directed))\s+by\s*$|\bhanded\s+over\s+to\s*$|\b(?:new|current|incoming|interim)\s+(?:[\w-]+\s+){0,3}$", re.I)


#: "previously located on King Street": the name after it is an old one.
_OLD_BEFORE = re.compile(r"\b(?:previously|formerly|originally|initially|used\s+to\s+be|once(?=\s+(?:in|at|on|based|located|"
                         r"housed|run|led|owned)\b)|(?:was|were)\s+(?:first\s+|originally\s+)?(?:scheduled|planned|set|due|"
                         r"supposed|meant|going))\b[^.;,]*$", re.I)
#: "... it moved to Harbour Road", "now based in Leeds": the name after it is the new one.
_MOVED_TO = re.compile(r"\b(?:moved|relocated|changed|switched|transferred|renamed|rebranded)\s+(?:\w+\s+){0,3}?(?:to|as|into)\s+"
                       r"(?:the\s+)?$|\bnow\s+(?:\w+\s+){0,3}$", re.I)


#: A claim that says who or where something is now: "X is the lead", "X runs the firm", "the office is on ...",
#: "LX318 leaves from Gate B12".
_HOLDS_NOW = re.compile(r"\b(?:is|are|will)\b|\b(?:leads|runs|heads|chairs|manages|directs|coaches|owns|hosts|serves|holds|"
                        r"oversees|edits|stops|sits)\b|\b(?:leaves|departs|arrives|sails|flies|boards|operates|calls|terminates|opens|"
                        r"closes|meets|starts|begins|takes\s+place)\s+(?:from|at|in|on|to)\b", re.I)


def _superseded_holder(claim: str, c: _Parsed, c_names: list[Name], sents, known: set[str], out: FactCheck, conf,
                       asked: frozenset[str] = frozenset()) -> None:
    """A name the context says held a role until someone else took it, given as the holder now: "Dana Cole
    was the project lead until March, when Victor Huang took over" does not say Dana Cole is the lead. The
    role is in the claim's words or the question's ("Which gate is my flight leaving from?" "Gate B12")."""
    if not c_names or _talks_of_old_values(claim) or not _HOLDS_NOW.search(claim):
        return
    c_name_terms = _name_terms(c_names)
    for k, (_, sent, p) in enumerate(sents):
        if not c_name_terms & p.term_set:
            continue  # (names are found only in sentences that use one of the claim's: a long context stays cheap)
        text = p.text
        s_names = names(text, known)
        for n in c_names:
            old = next((o for o in s_names if _same_name(n, o) and (_LEFT_ROLE.match(text, o.end)
                                                                   or _FORMER.search(text[:o.start])
                                                                   or _OLD_BEFORE.search(text, max(0, o.start - 60), o.start))), None)
            if old is None:
                continue
            # The role the claim gives: words of the claim (not its names) in the sentence that says it ended.
            role = (c.term_set | asked) - _name_terms([n])
            for j in (k, k + 1):
                if j >= len(sents) or sents[j][1][0] != sent[0] or not role & (p.term_set | sents[j][2].term_set):
                    continue
                q_text = sents[j][2].text
                for m in names(q_text, known):
                    if (j == k and m.start < old.end) or any(_same_name(m, x) for x in c_names) or _same_name(m, old) \
                            or _fold(m.text.lower()) == _fold(n.text.lower()):
                        continue  # ("Philippines" after "Philippine police": one name in two forms)
                    if _TOOK_OVER.match(q_text, m.end) or _BY_NEW.search(q_text[:m.start]) or _MOVED_TO.search(q_text[:m.start]):
                        out.differences.append(Difference(
                            slot="superseded", claim_value=n.text,
                            evidence_value=f"{m.text} (current; {old.text} no longer)",
                            evidence_span=_span(sents[j][1], m.start, m.end), confidence=conf["superseded"]))
                        return


def _add_superseded(out: FactCheck, claimed: str, k: int, e: DateValue | TimeValue, sents, conf) -> None:
    out.dates_unmatched.append(claimed)
    out.differences.append(Difference(
        slot="superseded", claim_value=claimed, evidence_value=f"{e.text} (current; {claimed} is superseded)",
        evidence_span=_span(sents[k][1], e.start, e.end), confidence=conf["superseded"]))


def _superseded_time(k: int, e: DateValue | TimeValue, sents, c: _Parsed, newer: Callable[[DateValue | TimeValue], bool]):
    """(sentence, value) of the current date or clock time when the one the claim states is an old one ("used to
    open at 9 am. As of this summer, it opens at 10 am"; "originally scheduled for 12 May ... moved to 26
    May"): the claim's value said of the past, another value of the same passage, within two sentences,
    said of now (``newer`` picks the values of the same kind that differ). None when the claim talks of the past."""
    if _talks_of_old_values(c.text):
        return None
    text = sents[k][2].text
    lead = text[:e.start]
    lead = lead[max((m.end() for m in re.finditer(r"[,;:()]|\s[-\u2013\u2014]+\s", lead)), default=0):]
    # (a value right after "until" is when something ends, not an old value: "Check-in remains open until 13:15")
    old_word = _OLD_TIME.search(re.sub(r"\b(?:until|till)\s+(?:about\s+|around\s+)?$", "", lead))
    # (or the start of a change: "has moved from October 2025 to January 2026", whose "to" says the new one)
    moved_from = _MOVED_FROM.search(lead) is not None
    if not old_word and not moved_from and not re.match(r"[^,;.]{0,30}?\b(?:until|till)\b", text[e.end:]):
        return None  # the old-value word must be in the value's own clause ("until all hours -- ... as Tuesday")
    best = None
    for j in range(max(0, k - 2), min(len(sents), k + 3)):
        if sents[j][1][0] != sents[k][1][0]:
            continue
        other = sents[j][2]
        for o in (*other.dates, *other.times):
            if not newer(o) or (j == k and o.start < e.end):
                continue
            # Said of now: in the words before it in its own sentence, or after the old value in the same one.
            if not _NEW_TIME.search(other.text[e.end if j == k else 0:o.start if j == k else len(other.text)]) \
                    and not (moved_from and j == k and re.fullmatch(r"\s*to\s+", other.text[e.end:o.start])):
                continue
            # The new value in the claim's slot: the one with the claim's words beside it ("closes at 6 pm").
            fit = _slot_fit(c, other.text, o.start, o.end)
            if best is None or fit > best[0]:
                best = (fit, j, o)
    return best[1:] if best else None


def _near_terms(c: _Parsed, text: str, start: int, end: int, width: int = 40, skip: frozenset[str] = frozenset()) -> int:
    """How many of the claim's words sit within ``width`` characters of a value: which of several values of a
    sentence is the one in the claim's slot ("completed on 31 March 1889", not "began in January 1887")."""
    terms = c.term_set - skip
    return sum(1 for t, p in _parse(text).terms if _fold(t) in terms and (start - width <= p <= end + width))


def _slot_fit(c: _Parsed, text: str, start: int, end: int, width: int = 40) -> tuple[int, int]:
    """How well a value of ``text`` sits in the claim's slot: the claim's words around it, then how close the
    nearest one is ("the tower was completed on 31 March 1889", not "began in January 1887 and the tower")."""
    terms = c.term_set
    gaps = [max(start - (p + len(t)), p - end, 0) for t, p in _parse(text).terms
            if _fold(t) in terms and (start - width <= p <= end + width)]
    return len(gaps), -min(gaps, default=width)


def _same_grain(a: DateValue, b: DateValue) -> bool:
    if a.weekday is not None or b.weekday is not None:
        return a.weekday is not None and b.weekday is not None
    return (a.year is not None and b.year is not None) or (a.month is not None and b.month is not None)


# -- names -------------------------------------------------------------------------------------
def _codes(c: _Parsed, sents, out: FactCheck, conf) -> None:
    """An identifier the context never writes, where a sentence about the same thing gives one of the same
    shape: "seat 17A" against "Seat 17C has been assigned", "gate B21" against "gate B12"."""
    mine = codes(c.text)
    if not mine:
        return
    said = {d.claim_value for d in out.differences}
    for code in mine:
        graded = " " in code.text  # ("band D": compared with the codes the context writes, label and letter)
        if code.text in said or (any(x.text == code.text for _, _, p in sents for x in codes(p.text)) if graded
                                 else any(code.text.lower() in p.text.lower() for _, _, p in sents)):
            continue
        shape = code_shape(code.text)
        # (a release of the same line is about the same thing however the sentence words it: "3.8.1 came out on
        # April 14" against "version 3.8.0 was released on 2025-04-14")
        line = code.text.rsplit(".", 1)[0] + "." if shape.count(".") >= 2 else None
        for _, sent, p in sents:
            if not c.term_set & p.term_set and not (line and line in p.text):
                continue
            other = next((x for x in codes(p.text) if code_shape(x.text) == shape and x.text.lower() != code.text.lower()
                          and (not graded or x.text.split()[0] == code.text.split()[0])), None)
            if other is not None:
                out.differences.append(Difference(slot="entity", claim_value=code.text, evidence_value=other.text,
                                                  evidence_span=_span(sent, other.start, other.end), confidence=conf["entity"]))
                break


def _figure_of_a_sibling(c: _Parsed, sents, out: FactCheck, conf) -> None:
    """A figure told of one lettered member of a set that the context states of another: "TOI-2318 b ... completes
    an orbit every 11.8 days" where the context gives planet b 5.4 days and "TOI-2318 c takes 11.8 days". Why: the
    name reading drops the letter, so the sibling's sentence names the claim's subject and states its figure, and
    the figure reads as stated. Read only where the claim names a lettered member; the figure must be stated only
    in sentences that name a sibling and not the member, and the member's own sentences (those that name it, and
    those after them up to the next that names a sibling) must give a rival of the same kind."""
    if any(d.kind == "mismatch" for d in out.differences):
        return
    mine = lettered(c.text)
    if not mine:
        return
    # whose each sentence is: the members it names, else those of the sentence before it in the same document
    owners: list[frozenset[tuple[str, str]]] = []
    for k, (_, s, p) in enumerate(sents):
        named = frozenset((b, x) for b, x, _ in lettered(p.text))
        if not named and k and sents[k - 1][1][0] == s[0]:
            named = owners[-1]
        owners.append(named)
    for q in c.quantities:
        if q.kind in ("", "count") or not q.dimension:
            continue
        base, letter = next(((b, x) for b, x, at in reversed(mine) if at < q.start), mine[0][:2])
        hits = [k for k, (_, _, p) in enumerate(sents) if any(_equivalent(q, e) for e in p.quantities)]
        if not hits or any((base, letter) in owners[k] or not any(b == base for b, _ in owners[k]) for k in hits):
            continue
        for k, (_, s, p) in enumerate(sents):
            if (base, letter) not in owners[k] or any(b == base and x != letter for b, x in owners[k]):
                continue
            rival = next((e for e in p.quantities if e.dimension == q.dimension and _slot(q, e) is not None
                          and not _equivalent(q, e)), None)
            if rival is not None:
                out.numbers_unmatched.append(q.text)
                out.differences.append(Difference(slot="number", claim_value=q.text, evidence_value=rival.text,
                                                  evidence_span=_span(s, rival.start, rival.end), confidence=conf["number"]))
                return


def _endpoint_method(claim: str, sents, out: FactCheck, conf) -> None:
    """An API path given under an HTTP method the context never pairs with it: "GET /v2/orders/query" where the
    context has "POST /v2/orders/query". Why: the path's words and figures all match, so the alignment and the
    code reading find it stated, and in a structured answer the field's siblings align it to another sentence;
    yet another method is another endpoint. Read only where the claim writes an endpoint; a path the context
    gives under the claim's method anywhere (one path, several methods) is left alone."""
    mine = endpoints(claim)
    if not mine:
        return
    said = {d.claim_value for d in out.differences}
    for method, path, _, _ in mine:
        if method in said:
            continue
        theirs = [(sent, m, a, b) for _, sent, p in sents for m, pa, a, b in endpoints(p.text) if pa == path]
        if theirs and not any(m == method for _, m, _, _ in theirs):
            sent, m, a, b = theirs[0]
            out.differences.append(Difference(slot="entity", claim_value=f"{method} {path}", evidence_value=f"{m} {path}",
                                              evidence_span=_span(sent, a, b), confidence=conf["entity"]))


def _tag_swapped(claim: str, sents, out: FactCheck, conf) -> None:
    """A name given a bracketed tag ("Katie Bryce (IRL)") that the context writes after the same name as
    another tag only ("Katie Bryce (GBR)"). Why: the claim's tag is often stated of someone else in the same
    table, so neither the name nor the tag is new, yet the pairing is changed. Read only where the claim has
    such a tag; a name the context tags with the claim's tag anywhere is left alone."""
    if any(d.slot in ("entity", "attribution") for d in out.differences):
        return
    mine = bracket_tags(claim)
    if not mine:
        return
    for toks, tag in mine:
        others = [(sent, o) for _, sent, p in sents for t, o in bracket_tags(p.text) if t == toks]
        if others and not any(o.text == tag.text for _, o in others):
            sent, o = others[0]
            out.differences.append(Difference(slot="entity", claim_value=tag.text, evidence_value=o.text,
                                              evidence_span=_span(sent, o.start, o.end), confidence=conf["entity"]))
            return


def _code_moved(claim: str, sents, out: FactCheck, conf) -> None:
    """A graded code the context gives one of two things in one sentence, said of the other: "12 Linden Close
    falls in council tax band E" where "Number 12 is in council tax band D and number 14 in band E". The pieces
    of the sentence (between commas, "and", "but", "while") each hold one code of the label; the claim names the
    identifier (a figure or a name's word: "12") of the piece whose code differs, and none of the piece whose
    code it states. ``_codes`` reads only codes the context never writes."""
    if any(d.kind == "mismatch" and d.slot in ("entity", "moved") for d in out.differences):
        return
    mine = [x for x in codes(claim) if " " in x.text]
    if not mine:
        return
    said = {t for t, _ in _parse(claim).terms}
    for x in mine:
        label = x.text.split()[0].lower()
        if sum(1 for y in mine if y.text.split()[0].lower() == label) > 1:
            continue  # (the claim gives several codes of the label: it may tell them apart itself)
        for _, sent, p in sents:
            found = [y for y in codes(p.text) if " " in y.text and y.text.split()[0].lower() == label]
            hit = next((y for y in found if y.text.lower() == x.text.lower()), None)
            if hit is None or len(found) < 2:
                continue
            bounds = [0] + [v for m in _DAY_PIECE.finditer(p.text) for v in (m.start(), m.end())] + [len(p.text)]
            pieces = list(zip(bounds[::2], bounds[1::2]))

            def piece(pos: int) -> tuple[int, int]:
                return next(((a, b) for a, b in pieces if a <= pos < b), (0, len(p.text)))

            def ids(a: int, b: int, code: Name) -> set[str]:
                # (a piece's identifiers: its figures and the words of its names, the code's own words left out)
                named = {t for n in names(p.text[a:b]) for t in n.tokens}
                return {t for t, q in p.terms if a <= q < b and not code.start <= q < code.end
                        and (any(ch.isdigit() for ch in t) or t in named)}
            xa, xb = piece(hit.start)
            theirs = ids(xa, xb, hit)
            for o in found:
                oa, ob = piece(o.start)
                if o.text.lower() == x.text.lower() or (oa, ob) == (xa, xb):
                    continue
                own = ids(oa, ob, o)
                if (own - theirs) & said and not (theirs - own) & said and theirs - own:
                    out.differences.append(Difference(slot="moved", claim_value=x.text, evidence_value=o.text,
                                                      evidence_span=_span(sent, oa, ob), confidence=conf["moved"]))
                    return


def _entities(claim, c: _Parsed, c_names: list[Name], sents, idf, best_score, out: FactCheck, conf, known,
              record: _Parsed | None = None) -> None:
    """A new name where the aligned clause has another; a known name in the clause of another."""
    if not c_names:
        return
    all_text = "\n".join(p.text for _, _, p in sents)
    lower_words = set(re.findall(r"(?<![\w'’\-])[a-z][\w'’\-]*", claim + "\n" + all_text))
    # A capitalised word that the texts also use in lower case is a common word at a sentence or step
    # start ("Install", "Go"), not a name.
    c_names = [n for n in c_names if n.tokens and (len(n.tokens) > 1 or not (n.tokens & lower_words))]
    if not c_names:
        return
    c_tokens = {t for n in c_names for t in n.tokens}
    ev_words = words(all_text)
    name_terms = {_fold(t) for n in c_names for t, _ in terms_with_offsets(n.text)}
    rest = {t for t in c.term_set if t not in name_terms}
    if record is not None:
        # A field: its siblings' words and values say which sentence states the record.
        rest |= set(record.term_set) | {t for t, _ in record.terms if t[0].isdigit()}
        claim = claim + " " + record.text
    figures = {t for t, _ in c.terms if t[0].isdigit()}
    if len(rest) < 2:
        # A terse claim ("Keynote: 9 am, Hall B") aligns on its figures too.
        rest |= figures
    if len(rest) < 2 and len(c_names) >= 2:
        # Little besides names ("It was designed by Bartholdi"): align on the names too.
        rest |= name_terms
    if len(rest) < 2:
        out.names_missing.extend(n.text for n in c_names if not (n.tokens & ev_words))
        return
    # The clause that states the rest of the claim (its words other than the names).
    # Ties (two clauses that both say "June") go to the clause that also states the claim's figures.
    best_k: int | None = None
    best_span: tuple[int, int] | None = None
    best_cov, best_fig = 0.0, 0.0
    for k, (_, s, p) in enumerate(sents):
        for a, b in clauses(p.text):
            cl = _parse(p.text[a:b])
            cl_terms = cl.term_set | {t for t, _ in cl.terms if t[0].isdigit()}
            cov = _coverage(rest, cl_terms, idf)
            fig = _coverage(figures, cl_terms) if figures else 0.0
            if cov > best_cov or (cov == best_cov and cov > 0 and fig > best_fig):
                best_k, best_span, best_cov, best_fig = k, (a, b), cov, fig
    if best_k is None or best_span is None or best_cov < 0.6:  # (best_span is set with best_k)
        for n in c_names:
            if not (n.tokens & ev_words):
                out.names_missing.append(n.text)
        return
    text = sents[best_k][2].text
    a, b = best_span
    clause_names = names(text[a:b], known)
    clause_names = [n for n in clause_names if n.tokens and (len(n.tokens) > 1 or not (n.tokens & lower_words))]
    referent = _referent(sents, best_k) if a == 0 else None
    if referent and not any(n.tokens & name_tokens(referent) for n in clause_names):
        clause_names = [Name(0, 0, referent)] + clause_names
    clause_tokens = {t for n in clause_names for t in n.tokens}
    claim_words = words(claim)
    free_words = claim_words - c_tokens
    clause_words = words(text[a:b])
    # A name that differs in one part ("University of Zurich" / "University of Basel", "Copenhagen and
    # Stockholm" / "Copenhagen and Oslo"): the differing parts are compared as names of their own.
    parts = _differing_parts(claim, c_names, text[a:b], clause_names, clause_tokens | clause_words, lower_words, ev_words)
    c_names = c_names + [sub for sub, _ in parts]
    others = [o for o in clause_names if not any(_same_name(o, n) for n in c_names) and not (o.tokens & free_words)]
    c_terms_pos = terms_with_offsets(claim)
    e_terms_pos = terms_with_offsets(text[a:b])
    absent = [n for n in c_names if not (n.tokens & clause_tokens or n.tokens & clause_words)
              and not (n.end > n.start and _quoted(claim, n))]
    absent = [n for n in absent if not _bracketed_alias(claim, n, absent)]
    clause_subject = next((o for o in clause_names if o.end <= o.start), None) or next(
        (o for o in clause_names if len(text[a:a + o.start].split()) <= 1
         and re.match(r"(?:['’]s)?\s+(?:is|was|are|were|has|had|have|will|can|\w+ed)\b", text[a + o.end:])), None)
    for n in absent:
        # (an initialism the context spells out is no new name: "its CFO" of "chief financial officer, Daniel Osei")
        new = not (n.tokens & ev_words) and not any(n.tokens & acronyms(p.text).keys() for _, _, p in sents)
        slot = None
        if new:
            out.names_missing.append(n.text)
        elif (best_cov < STRONG_ALIGNMENT or len(absent) > 1
              or _strength(claim, text[a:b], drop=name_terms | _name_terms(clause_names)) < STRONG_ALIGNMENT) \
                and n.end > n.start:
            # A known name elsewhere: only a clause that states all the rest, and the claim's other names,
            # says this one was moved; or a clause that states most of the rest where nothing said of this
            # name comes close ("Dr. Yusuf heads oncology" where "Dr. Brenner heads oncology" and
            # "Dr. Yusuf leads cardiology"): measured apart as "moved".
            if len(absent) > 1 or _said_of(n, rest, sents, idf) > best_cov - 0.3 or not _leads(claim, n):
                continue
            slot = "moved"
        candidates = [o for sub, o in parts if sub is n] or others
        if n.end <= n.start:
            # The claim's subject came from a pronoun: compare it with the clause's subject only.
            candidates = [clause_subject] if clause_subject is not None and clause_subject in others else []
        # The other name must stand where the claim's name stands: same side of the shared words.
        placed = []
        for o in candidates:
            score = _same_place(c_terms_pos, n, e_terms_pos, o, rest)
            local = _same_neighbour(claim, n, text[a:b], o)
            if (score > 0 and local) or (o.end <= o.start and n.start == 0) or record is not None:
                placed.append((score, o))
        if slot == "moved":
            # Moved between subjects: the other name is its clause's subject, as the claim's is the claim's.
            placed = [(sc, o) for sc, o in placed if _leads(text[a:b], o, words_before=3)]
        if placed:
            other = max(placed, key=lambda so: so[0])[1]
            if not new and any(_initialisms_read(n.tokens, p.text) != n.tokens
                               and _side_by_side(p.text, _initialisms_read(n.tokens, p.text), other.tokens) for _, _, p in sents):
                continue  # one party under two names: "its CFO" for "the chief financial officer, Daniel Osei"
            if not new and len(c.quantities) >= 2 and any(
                    n.tokens <= words(p.text) and sum(any(_equivalent(q, e) for e in p.quantities) for q in c.quantities) >= 2
                    for _, _, p in sents):
                continue  # the claim's own name stated with its figures in another sentence: "Band B: £10,001–£15,000,
                # rate 12%" is "Band B covers £10,001–£15,000 at 12%", though its words align it to Band A's line
            slot = slot or ("entity" if new or not _attribution(claim) else "attribution")
            lo, hi = (a + other.start, a + other.end) if other.end > other.start else (a, b)
            out.differences.append(Difference(
                slot=slot, claim_value=n.text, evidence_value=other.text,
                evidence_span=_span(sents[best_k][1], lo, hi), confidence=conf[slot]))
            return


def _affiliation_swapped(claim: str, c_names: list[Name], sents, known: set[str], out: FactCheck, conf) -> None:
    """A person's body swapped for one the context never names: "led by Dr Amara Osei of the University of
    Edinburgh" where the context has "Dr Amara Osei of the University of Leeds". The alignment of the whole claim
    misses it when the claim's other words are a loose paraphrase, and the body's head word ("university") makes the
    new name look stated. Read only with the cue (a person's name run into "of" / "at" / "from" and a body, in the
    claim and in a context sentence that names the same person), and only where none of the claim body's own words
    is anywhere in the context: a body the context names in other words, or names beside her, is no swap."""
    if any(d.slot in ("entity", "attribution", "moved") for d in out.differences):
        return
    mine = affiliations(claim, c_names)
    if not mine:
        return
    ev_words = frozenset().union(*(words(p.text) for _, _, p in sents))
    for person, body in mine:
        own = body.tokens - ORG_WORDS
        if not own or own & ev_words or not person.tokens:
            continue
        for _, s_, p in sents:
            if not person.tokens <= words(p.text):
                continue
            for theirs, their_body in affiliations(p.text, names(p.text, known)):
                stated = their_body.tokens - ORG_WORDS
                if stated and not stated & own and (person.tokens <= theirs.tokens or theirs.tokens <= person.tokens):
                    out.differences.append(Difference(
                        slot="entity", claim_value=body.text, evidence_value=their_body.text,
                        evidence_span=_span(s_, their_body.start, their_body.end), confidence=conf["entity"]))
                    return


def _bracketed_alias(claim: str, n: Name, others: list[Name]) -> bool:
    """``n`` is written in brackets right after another of ``others``: "The Intermediate class (VW Golf or
    similar)" names one thing twice. Why: counted as a second misplaced name, the alias made the claim look like
    a reshuffle of several names, which the moved-name reading leaves alone, and the class given the SUV's sat
    nav passed."""
    for o in others:
        if o is n or o.end > n.start or o.end <= o.start:
            continue
        m = _ALIAS_AFTER.match(claim, o.end)
        if m is not None and m.start(1) <= n.start and n.end <= m.end(1):
            return True
    return False


#: A bracket right after a name, at most one lower-case word between: "Intermediate class (VW Golf or similar)".
_ALIAS_AFTER = re.compile(r"(?:\s+[a-z]+)?\s*(\([^()]{1,40}\))")
#: A second predicate of the claim's subject: "... is €52 per day and comes with satellite navigation".
_AND_PREDICATE = re.compile(r",?\s+and\s+(?=(?:also\s+)?[a-z]{3,}s\s)")


def _entities_of_second_predicate(claim: str, c_names: list[Name], sents, idf, best_score, out: FactCheck, conf,
                                  known) -> None:
    """The names check again on the claim's second predicate, said of its subject: "The Intermediate class is €52
    per day and comes with satellite navigation" where only the SUV class has it. Why: the whole claim aligns to
    the clause that states its first predicate (the price), where the name is right, and the clause that gives
    the second to another name is never compared."""
    if not c_names or c_names[0].end <= c_names[0].start:
        return
    first = c_names[0]
    m = _AND_PREDICATE.search(claim, first.end)
    if m is None or re.search(r"[;:]|\b(?:who|which|that|while|whereas)\b", claim[first.end:m.start()]):
        return
    alias = _ALIAS_AFTER.match(claim, first.end)
    subject_end = alias.end() if alias else first.end
    if any(n.start >= subject_end and n.start < m.start() for n in c_names):
        return  # (another name before "and" may be what the second predicate is said of)
    sub = claim[:subject_end] + " " + claim[m.end():]
    sub_names = names(sub, known)
    if not sub_names:
        return
    _entities(sub, _parse(sub), sub_names, sents, idf, best_score, out, conf, known)


def _entities_of_own_clause(claim: str, c_names: list[Name], sents, idf, best_score, out: FactCheck, conf,
                            known) -> None:
    """The names check again on the one clause of a long claim that holds a name partly new to the context: "The
    ombudsman found that Voltaic Energy ignored Mr Osei's reports for seven months, and ordered it to ..." where
    "BrightWatt Energy failed to act on Mr Osei's reports for seven months". Why: the whole claim's words, its other
    clause loosely reworded, align to no clause of the context, and a name that shares a word ("Energy") with the
    context is then not even reported as new. Read only for a name of two or more words, one of them never in the
    context and another in it: a swapped qualifier of a body's name, not a name the context has in part."""
    clause_spans = clauses(claim)
    if len(clause_spans) < 2:
        return
    ev_words = frozenset().union(*(words(p.text) for _, _, p in sents))
    for n in c_names:
        if n.end <= n.start or len(n.tokens) < 2 or not (n.tokens & ev_words) or n.tokens <= ev_words:
            continue
        span = next(((a, b) for a, b in clause_spans if a <= n.start and n.end <= b), None)
        if span is None or span == (0, len(claim)):
            continue
        sub = claim[span[0]:span[1]]
        sub_names = names(sub, known)
        if sub_names:
            # (its words weighed evenly: in a clause this short, the one reworded verb the context never uses, "ignored"
            # for "failed to act", would weigh more than all the words it shares)
            _entities(sub, _parse(sub), sub_names, sents, {}, best_score, out, conf, known)
        return


#: A participle phrase set off in commas after a short subject: "The study, led by Dr Okafor and published in
#: Nature Climate Change, found ...".
_PARTICIPLE_ASIDE = re.compile(r"^([^,;:]{3,60}),\s+((?:[a-z]{2,}ed|led|run|held|built|written|made|known|born|won|sold|"
                               r"given|taken|shown|drawn)\s+(?:by|in|at|on|from|for|with)\s[^,;]{3,160}?),\s+(?=[a-z])")


_AND_PARTICIPLE = re.compile(r"\s+and\s+(?=(?:[a-z]{2,}ed|led|run|held|built|written|made|known|won|sold|given|taken|"
                             r"shown|drawn)\s+(?:by|in|at|on|from|for|with)\s)")


def _entities_of_participle_aside(claim: str, sents, idf, best_score, out: FactCheck, conf, known) -> None:
    """The names check again on a participle phrase set off after the claim's subject, read as its own
    statement ("The study was led by ... and published in Nature Climate Change"). Why: the whole claim aligns to
    the sentence that states its main verb (what the study found), so a name in the aside, which the context
    states in another sentence ("The study, published in Nature Geoscience, used ..."), is never compared."""
    m = _PARTICIPLE_ASIDE.match(claim)
    if m is None or len(m.group(1).split()) > 6:
        return
    # (each participle of a pair on its own: "designed by Varga and built by Morven" may come from two sentences)
    for part in _AND_PARTICIPLE.split(m.group(2)):
        sub = f"{m.group(1)} was {part}."
        sub_names = names(sub, known)
        if sub_names:
            _entities(sub, _parse(sub), sub_names, sents, idf, best_score, out, conf, known)
        if any(d.slot in ("entity", "moved", "attribution") for d in out.differences):
            return


# -- a clause added to a supported statement -------------------------------------------------------------
#: Where a claim joins one statement to another: ";", ", and", ", but", " and" before a clause with its own verb.
_JOINED = re.compile(r";\s*|,\s+(?:and|but|while|so)\s+|\s+(?:and|but)\s+(?=(?:it|they|this|he|she|is|are|was|were|has|have|can|will)\b)", re.I)


def _added_clause(claim: str, parsed: Sequence[_Parsed], question: str, idf, out: FactCheck, conf) -> None:
    """A statement the context supports with a second one joined to it that the context never touches: "Apply
    the cream twice daily for two weeks; it is safe to use during pregnancy." The first clause holds nearly
    all its words in the context, the added one almost none of its own (at most a quarter), so a learned
    score that reads the whole claim as one near-copy passes it. On RAGTruth dev half A this finding is right
    one time in six (24 findings, most of them loosely paraphrased review summaries), so it names the added
    clause in the reason but does not flag the claim by itself (``MEASURED_CONFIDENCE``)."""
    if any(d.kind == "mismatch" for d in out.differences):
        return
    cuts = [m for m in _JOINED.finditer(claim)]
    if not cuts:
        return
    bounds = [0] + [x for m in cuts for x in (m.start(), m.end())] + [len(claim)]
    pieces = [(bounds[i], bounds[i + 1]) for i in range(0, len(bounds), 2)]
    used = set().union(*(p.term_set for p in parsed)) | {_fold(t) for t, _ in terms_with_offsets(question)}
    covs = []
    for a, b in pieces:
        terms = set(_parse(claim[a:b]).wording)
        covs.append((_coverage(terms, used, idf) if terms else 1.0, len(terms), a, b))
    if max(cov for cov, *_ in covs) < 0.9:
        return  # nothing the context states nearly word for word: a paraphrase, the learned score's to read
    unmatched = set(out.numbers_unmatched) | set(out.dates_unmatched)
    for cov, n, a, b in covs:
        piece = _parse(claim[a:b])
        figures = [x.text for x in piece.quantities] + [x.text for x in piece.dates]
        if figures and not any(f in unmatched for f in figures):
            continue  # its figures are the context's ("at its closest it passed roughly 3,500 km"): not made up
        if n >= 3 and cov <= 0.25:
            # An added clause that also gives a figure the context never states ("it drew 2.2 million visitors in
            # its first year") is made up twice over: on RAGTruth dev half A no addition held one (0 of 22), so it
            # carries the prior and floors the score (FLOORED_NOT_STATED).
            slot = "made_up_value" if figures else "addition"
            out.differences.append(Difference(slot=slot, kind="not_stated", claim_value=claim[a:b].strip(),
                                              confidence=conf[slot]))
            return


def _credential(claim: str, sents, question: str, out: FactCheck, conf) -> None:
    """A credential the context never gives: "the granola is certified organic", "the case is waterproof", where
    the label says neither. A learned score reads a near-copy with one such word added as supported, and the
    word is a promise a reader acts on (an allergy, a dishwasher). Not in an abstention ("the label does not say
    whether it is organic"), and not one the question asks about."""
    if out.abstention or any(d.kind == "mismatch" for d in out.differences):
        return
    mine = lexicon.credentials(claim)
    if not mine:
        return
    said = {lexicon.credential_key(w) for _, _, p in sents for w, _, _ in lexicon.credentials(p.text)}
    said |= {lexicon.credential_key(w) for w, _, _ in lexicon.credentials(question)}
    for w, _, _ in mine:
        key = lexicon.credential_key(w)
        # (nor one the context writes in another form: "not suitable for coeliacs" / "contains gluten" say it too)
        if key in said or any(key[:6] in p.text.lower().replace(" ", "").replace("-", "") for _, _, p in sents):
            continue
        out.differences.append(Difference(slot="credential", kind="not_stated", claim_value=w, confidence=conf["credential"]))
        return


# -- a field's value the context never uses ------------------------------------------------------------
_NO_VALUE = frozenset({"yes", "no", "not known", "true", "false", "null", "none", "n/a", "unknown"})

#: A yes/no field of a structured answer as its statement reads ("breakfast included: no", ``structured``).
_YES_NO_FIELD = re.compile(r"\s*(?P<key>[^:\n]{2,80}?):\s*(?P<value>yes|no)\s*", re.I)
#: A key word made its own opposite by a prefix: "non-refundable", "non-smoking".
_NON_PREFIX = re.compile(r"\bnon-?(?=\w)", re.I)


def _yes_no_field(claim: str, sents, out: FactCheck, conf) -> bool | None:
    """A yes/no field said the other way by the evidence that states its key's words: "breakfast included: no"
    against "Breakfast is included in the rate", "pets allowed: yes" against "Pets are not allowed".

    Why apart: the field's statement has no "not" for the polarity checks to compare, its value *is* the
    polarity; and the key's words are the whole claim, so the evidence piece holding them all is the fact it
    states. Silent where pieces state the key both ways, under a condition ("if you book direct, breakfast is
    included") or of a part ("some rooms include breakfast")."""
    m = _YES_NO_FIELD.fullmatch(claim)
    if not m:
        return None
    key = _parse(m.group("key")).term_set
    if not key:
        return None
    says_yes = m.group("value").lower() == "yes"
    found: list[tuple[EvidenceSentence, bool]] = []
    for _, s, p in sents:
        text = lexicon.without_non_negations(p.text)
        for a, b in _pieces(text):
            if not key <= _piece_terms(p, a, b):
                continue
            piece = text[a:b]
            if _SITE_CONDITION.search(text) or _UNLESS.search(text) \
                    or any(rank in (1, 2) for rank, _, _ in lexicon.quantifiers(piece)):
                return None
            found.append((s, lexicon.negated(piece) or bool(_NON_PREFIX.search(piece))))
    if not found or len({denied for _, denied in found}) != 1:
        return None
    if found[0][1] != says_yes:
        return True  # the evidence states the field's way: what the value says is verified
    s = found[0][0]
    out.differences.append(Difference(
        slot="negation", claim_value=claim.strip(), evidence_value=s[3].strip(), evidence_span=_span(s),
        confidence=conf.get("negation:site", UNMEASURED_PRIOR), alignment=1.0, grade="same_words"))
    return False



def _field_value(claim: str, parsed: Sequence[_Parsed], question: str, out: FactCheck, conf) -> None:
    """A structured answer's field (its statement "allergies: sulfonamides") about a slot the context names
    ("Allergies: penicillin") whose value has words, none of which the context or the question uses, and
    no finding of its own yet: a value made up. Values that
    are figures or dates are the number and date checks'; a closed-set value counts as used when the
    context states it in another form ("female" / "woman")."""
    if any(d.kind == "mismatch" for d in out.differences) or ": " not in claim:
        return
    key, value = (part.strip() for part in claim.split(": ", 1))
    if value.lower() in _NO_VALUE:
        return
    terms = set(_parse(value).wording)  # words, not figures or their units ("190 g" has none)
    if not terms:
        return
    digits = re.findall(r"\d+", value)
    if sum(len(d) for d in digits) >= 3 and any(all(d in p.text for d in digits) for p in parsed):
        return  # (its number as the context writes it, a word of its own beside: "phone 0161 555 0192" of "calling 0161 ...")
    used = set().union(*(p.term_set for p in parsed)) | {_fold(t) for t, _ in terms_with_offsets(question)}
    found = lexicon.attribute_words(value)
    mine = {(s, v) for s, v, _, _ in found}
    stated = {(s, v) for p in parsed for s, v, _, _ in lexicon.attribute_words(p.text) if s in {s for s, _ in mine}}
    others = terms - {_fold(stem(value[a:b].lower())) for _, _, a, b in found}
    if mine and stated == mine and others <= used:
        # The context states the field's closed-set value, in this form or another, and no other value of
        # its set ("sex": "female" from "a 45-year-old woman"): verified.
        out.field_stated = True
    if terms & used or not (_parse(key).term_set & used):
        # A value the context words another way, or one about a slot the context never names
        # ("result": "draw" from "Celtic 2, Rangers 2"): an inference the learned score reads, not a finding.
        return
    if mine & stated:
        return
    out.differences.append(Difference(slot="field_value", kind="not_stated", claim_value=value,
                                      confidence=conf["field_value"]))


def _field_of_another_label(claim: str, sents, out: FactCheck, conf) -> None:
    """A structured answer's field ("return location: Lyon Saint-Exupéry Airport") whose value the context writes
    under another label ("Pick-up: Lyon Saint-Exupéry Airport, ... Return: Lyon Part-Dieu railway station"), when
    the context has a label of the field's own whose value is not it. Why: the value is stated word for word, so
    every other reading finds it; only the label before it says it is another field's."""
    if any(d.kind == "mismatch" for d in out.differences) or ": " not in claim:
        return
    key, value = (part.strip() for part in claim.split(": ", 1))
    v_terms = set(_parse(value).wording)
    k_terms = {_fold(t) for t in content_terms(key)}
    if len(v_terms) < 2 or not k_terms:
        return
    under: list[tuple[frozenset[str], str, str, EvidenceSentence, int, int]] = []
    for _, sent, p in sents:
        if ": " in p.text:
            under += [(frozenset(_fold(t) for t in content_terms(label)), label, p.text[a:b], sent, a, b)
                      for label, a, b in lexicon.labelled_entries(p.text)]
    mine = [u for u in under if u[0] and u[0] <= k_terms]
    if not mine or any(_coverage(v_terms, set(_parse(u[2]).term_set)) >= 0.5 for u in mine):
        return  # (no label of the field's own, or one whose value is the claim's)
    for terms, label, text, _, _, _ in under:
        if terms and not terms & k_terms and _coverage(v_terms, set(_parse(text).term_set)) == 1.0:
            _, own_label, own_text, sent, a, b = mine[0]
            out.differences.append(Difference(slot="moved", claim_value=f"{key}: {value}",
                                              evidence_value=f"{label}: {text.strip(' .;')} ({own_label}: "
                                                             f"{own_text.strip(' .;')})",
                                              evidence_span=_span(sent, a, b), confidence=conf["moved"]))
            return


def _field_place(claim: str, sents, out: FactCheck, conf) -> None:
    """A structured answer's field of a finishing place ("runner_up: Berwick RC") whose value the context writes
    with another place ("Tyne Amateur RC beat Durham ARC ..., with Berwick RC third"). Why: the value is a name the
    context states, so every other reading finds it; only the ordinal beside it says where it finished. Read only
    for a key that names a place, and only where the context never gives the value the key's own place."""
    if any(d.kind == "mismatch" for d in out.differences) or ": " not in claim:
        return
    key, value = (part.strip() for part in claim.split(": ", 1))
    place = place_of_key(key)
    if place is None or len(value) < 3 or not re.search(r"[A-Za-z]", value):
        return
    other = None
    for _, sent, p in sents:
        for m in re.finditer(re.escape(value), p.text, re.I):
            stated = stated_place(p.text, m.start(), m.end())
            if stated is None:
                continue
            if stated[0] == place:
                return
            other = other or (sent, m, stated[1])
    if other is not None:
        sent, m, word = other
        out.differences.append(Difference(slot="moved", claim_value=f"{key}: {value}", evidence_value=f"{value} {word}",
                                          evidence_span=_span(sent, m.start(), m.end()), confidence=conf["moved"]))


# -- a possibility stated as a certainty ------------------------------------------------------------
_CERTAIN = re.compile(r"\b(?:will|won['\u2019]t|shall|(?:is|are)\s+going\s+to|definitely|certainly)\s+(?:not\s+)?(?:\w+ly\s+)?"
                      r"(?:be\s+(?=[a-z]+ed\b))?([a-z]+)"
                      # a rule stated as what always happens: "the ridge is closed whenever winds exceed 60 km/h"
                      r"|\b(?:is|are|gets|get)\s+(?:always\s+|automatically\s+)?([a-z]+ed)\s+(?=(?:whenever|every\s+time|"
                      r"always|automatically|if|when|once)\b)", re.I)
_POSSIBLE = re.compile(r"\b(?:may|might|could|possibly|perhaps)\s+(?:not\s+)?(?:\w+ly\s+)?(?:be\s+)?([a-z]+)", re.I)


def _certainty(claim: str, c_terms: set[str], sents, idf, out: FactCheck, conf) -> None:
    """A possibility stated as a certainty: the clause that states the claim says the thing "may" / "might" /
    "could" happen, the claim says it "will" ("The company will pay a special dividend" / "may pay").

    Compared on the verb after the modal, in a clause that holds most of the claim's words; a clause that
    says "will" with that verb as well agrees. The other way round (a certainty hedged to "may") says less
    than the context, not something else, and is not flagged."""
    if any(d.slot == "modality" for d in out.differences):
        return
    for m in _CERTAIN.finditer(claim):
        verb = stem((m.group(1) or m.group(2)).lower())
        if verb in ("be", "not"):
            continue
        best, agree = None, 0.0
        for _, s, p in sents:
            for a, b in clauses(p.text):
                clause = p.text[a:b]
                cov = _coverage(c_terms, set(_parse(clause).term_set), idf)
                if any(stem((x.group(1) or x.group(2)).lower()) == verb for x in _CERTAIN.finditer(clause)):
                    agree = max(agree, cov)
                hedge = next((x for x in _POSSIBLE.finditer(clause) if stem(x.group(1).lower()) == verb), None)
                if hedge is not None and cov >= 0.6 and (best is None or cov > best[0]):
                    best = (cov, s, a + hedge.start(), a + hedge.end())
        if best is not None and best[0] > agree:
            cov, s, lo, hi = best
            out.differences.append(Difference(slot="modality", claim_value=m.group(0).strip(), evidence_value=s[3][lo:hi],
                                              evidence_span=_span(s, lo, hi), confidence=conf["modality"]))
            return


# -- a share stated as a quantifier -------------------------------------------------------------------
#: Quantifiers that say how large a share is, and the shares (0..1) they allow.
_SHARE_WORDS: tuple[tuple[re.Pattern[str], Callable[[float], bool]], ...] = (
    (re.compile(r"\b(?:nearly|almost|virtually|practically)\s+(?:all|every)\b", re.I), lambda r: r >= 0.75),
    (re.compile(r"\b(?:most|the\s+majority\s+of|more\s+than\s+half(?:\s+of)?|over\s+half(?:\s+of)?)\b", re.I), lambda r: r > 0.5),
    (re.compile(r"\b(?:a\s+minority\s+of|fewer\s+than\s+half|less\s+than\s+half|under\s+half)\b", re.I), lambda r: r < 0.5),
)
#: "two of the bank's five units", "38 out of 40 schools": the words between a part and its whole.
_PART_OF = re.compile(r"^\s+(?:out\s+)?of\s+(?:(?:the|its|their|his|her|our|all|[\w'’]+['’]s)\s+){0,2}$", re.I)


def _shares(text: str) -> list[tuple[float, int, int]]:
    """(share, start, end) for each part of a whole the text states: "two of the five units" (0.4),
    "38% of voters" (0.38)."""
    qs = parse_quantities(text)
    out = []
    for q in qs:
        # ("38% of voters"; or a part's share in brackets after it: "18 of these places (10%)")
        if q.kind == "percent" and (re.match(r"\s+of\b", text[q.end:]) or (
                text[:q.start].rstrip().endswith("(") and text[q.end:].lstrip().startswith(")"))) and 0 <= q.magnitude <= 100:
            out.append((q.magnitude / 100, q.start, q.end))
    for a, b in zip(qs, qs[1:]):
        if a.kind != "percent" and b.kind != "percent" and _PART_OF.match(text[a.end:b.start]) \
                and 0 <= a.magnitude < b.magnitude:
            out.append((a.magnitude / b.magnitude, a.start, b.end))
    return out


def _share_quantifier(claim: str, c_terms: set[str], sents, idf, out: FactCheck, conf) -> None:
    """A quantifier that the share the context states does not allow: "Most of the bank's units reported
    losses" where two of its five did; "a minority of voters" where 62% did. Read in a clause that holds
    nearly all of the claim's words."""
    if any(d.slot == "quantifier" for d in out.differences):
        return
    said = [(m, ok) for pat, ok in _SHARE_WORDS for m in [pat.search(claim)] if m]
    if not said or _shares(claim):
        return
    m, allows = said[0]
    # (the words of the quantifier's own clause: "..., and all offer free Wi-Fi" is another statement)
    ca, cb = next(((a, b) for a, b in clauses(claim) if a <= m.start() < b), (0, len(claim)))
    rest = (set(_parse(claim[ca:cb]).term_set) & c_terms or c_terms) - {_fold(t) for t, _ in terms_with_offsets(m.group(0))}
    for _, s, p in sents:
        for a, b in clauses(p.text):
            clause = p.text[a:b]
            found = _shares(clause)
            if not found:
                continue
            share, lo, hi = found[0]
            # Nearly all of the claim's words: "the other three were profitable" is another clause's predicate.
            # (more than half of them where the share is far on the other side: "most places" against "18 of these
            # places (10%)")
            need = 0.5 if abs(share - 0.5) >= 0.3 else 0.8
            if _coverage(rest, set(_parse(clause).term_set), idf) < need:
                continue
            if not allows(share):
                out.differences.append(Difference(slot="quantifier", claim_value=m.group(0),
                                                  evidence_value=clause[lo:hi], evidence_span=_span(s, a + lo, a + hi),
                                                  confidence=conf["quantifier"]))
            return


# -- a closed-set value swapped --------------------------------------------------------------------
def _attribute_neighbours(text: str, start: int, end: int) -> tuple[str | None, str | None]:
    left = [w for w in re.findall(r"[\w']+", text[:start].lower()) if w not in _SKIP_NEIGHBOUR]
    right = [w for w in re.findall(r"[\w']+", text[end:].lower()) if w not in _SKIP_NEIGHBOUR]
    return (stem(left[-1]) if left else None), (stem(right[0]) if right else None)


def _attributes(claim: str, c_terms: set[str], sents, idf, out: FactCheck, conf) -> None:
    """A colour, compass point, sex, medal, time of day ... where the clause that states the rest of the
    claim has another value of the same set in the same place ("the light blinks green" / "blink blue").

    The clause must hold most of the claim's other words and the word next to the value must be the
    same on one side; a clause that states the claim's own value anywhere (two colours named side by
    side) is read as agreeing, and so is any other clause that aligns as well and holds the claim's value.
    Capitalised words inside a sentence are names ("Mr Green", "the Red Cross"), not values."""
    mine = [a for a in lexicon.attribute_words(claim) if not _mid_capital(claim, a[2])]
    # A claim that names two values of one set ("public and private pension income") compares them itself.
    mine = [a for a in mine if sum(1 for b in mine if b[0] == a[0] and b[1] != a[1]) == 0]
    if not mine:
        return
    # A value the context states anywhere is not one the claim made up ("a woman who abandoned her son",
    # where the sentence aligned best speaks of a man); a swapped value is one the context never uses.
    stated = {(k, v) for _, _, p in sents for k, v, _, _ in lexicon.attribute_words(p.text)}
    mine = [a for a in mine if (a[0], a[1]) not in stated]
    if not mine:
        return
    own = {stem(claim[a:b].lower()) for _, _, a, b in mine}
    rest = {t for t in c_terms if t not in own}
    if len(rest) < 2:
        return
    for kind, value, ca, cb in mine:
        c_left, c_right = _attribute_neighbours(claim, ca, cb)
        agree, best = 0.0, None
        for _, s, p in sents:
            for a, b in clauses(p.text):
                found = [w for w in lexicon.attribute_words(p.text[a:b]) if w[0] == kind and not _mid_capital(p.text, a + w[2])]
                if not found:
                    continue
                cov = _coverage(rest, set(_parse(p.text[a:b]).term_set), idf)
                if any(v == value for _, v, _, _ in found):
                    agree = max(agree, cov)
                    continue
                for _, v, wa, wb in found:
                    e_left, e_right = _attribute_neighbours(p.text, a + wa, a + wb)
                    if cov >= 0.6 and ((c_left and c_left == e_left) or (c_right and c_right == e_right)):
                        if best is None or cov > best[0]:
                            best = (cov, s, a + wa, a + wb, p.text[a + wa:a + wb])
        if best is not None and best[0] > agree:
            cov, s, lo, hi, other = best
            out.differences.append(Difference(slot="attribute", claim_value=claim[ca:cb], evidence_value=other,
                                              evidence_span=_span(s, lo, hi), confidence=conf["attribute"]))
            return


def _mid_capital(text: str, pos: int) -> bool:
    """A capitalised word that does not open its sentence, clause or list item: part of a name."""
    if not text[pos:pos + 1].isupper():
        return False
    before = text[:pos].rstrip(" *_`\"'(")
    return bool(before) and not before.endswith((".", "!", "?", ":", ";", "\n", "-", "|", "#")) and not before.endswith("\u2022")


# -- an attribute said of another topic ----------------------------------------------------------
#: Words before a noun that make it a reference back to a topic named earlier ("the city" after "Paris").
_DEFINITE = frozenset("the this that these those its their his her our".split())


@lru_cache(maxsize=8192)  # every claim of an answer reads the same evidence clauses
def _topic_tokens(text: str) -> tuple[tuple[str, int], ...]:
    """Content terms of ``text`` with offsets, and the one-letter parts of its names ("Model A" / "Model B"
    differ only there), in order."""
    toks = [(_fold(t), p) for t, p in terms_with_offsets(text)]
    for n in names(text):
        toks += [("@" + m.group().lower(), n.start + m.start()) for m in re.finditer(r"\b[A-Z]\b", n.text)]
    return tuple(sorted(toks, key=lambda tp: tp[1]))


def _in_quotes(text: str, pos: int) -> bool:
    """Inside quotation marks (a button's label, a title): an opening quote before ``pos`` not closed yet.
    A possessive's apostrophe ("Farmers' unions") closes nothing it opened."""
    before = text[:pos]
    opened = len(re.findall(r"(?<![\w])['‘\"“]", before))
    closed = len(re.findall(r"(?<=[\w.,!?])['’\"”](?![\w])", before))
    return opened > closed


def _raw_neighbours(text: str, pos: int) -> tuple[str | None, str | None, int]:
    """The raw words just before and just after the word at ``pos`` (None at the clause's edge), and how many
    words precede it (conjunctions aside)."""
    # "Parental leave: birthing parents ...", "Of the four moons studied, Callisto has ...": a label or a leading
    # phrase ends before the clause's topic.
    colon = max(text.rfind(":", 0, pos), text.rfind(",", 0, pos))
    ws = [(m.group().lower(), m.start()) for m in re.finditer(r"[\w'’\-]+", text) if m.start() > colon]
    i = next((j for j, (_, p) in enumerate(ws) if p <= pos < p + len(ws[j][0])), None)
    if i is None:
        return None, None, 99
    lead = sum(1 for w, _ in ws[:i] if w not in _JOIN)
    # A clause that opens with a conjunction ("while February is ...") starts after it.
    return (ws[i - 1][0] if lead else None), (ws[i + 1][0] if i + 1 < len(ws) else None), lead


_JOIN = frozenset("and but while whereas although though yet".split())


#: A clause that says its topic has the others of a kind ("Stockholm hosts the other ceremonies"): set apart
#: from the first clause's, though it has no words of its own.
_OTHER_ONES = re.compile(r"\b(?:the\s+)?(?:other|others|remaining|rest\s+of)\b", re.I)


@functools.lru_cache(maxsize=16384)
def _clause_topics(text: str):
    """A sentence's topic words, and each clause's with its span (``_crossed``), once per sentence."""
    per_clause = []
    for a, b in clauses(text):
        toks = _topic_tokens(text[a:b])
        per_clause.append((a, b, toks, frozenset(t for t, _ in toks)))
    return frozenset(t for t, _ in _topic_tokens(text)), tuple(per_clause)


@functools.lru_cache(maxsize=16384)
def _cased_words(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The words ``text`` writes in lower case, and those it capitalises (lower-cased)."""
    return (frozenset(re.findall(r"(?<![\w'’\-])[a-z][\w'’\-]*", text)),
            frozenset(w.lower() for w in re.findall(r"(?<![\w'’\-])[A-Z][a-z][\w'’\-]*", text)))


def _crossed(claim: str, sents, known: set[str], out: FactCheck, conf) -> None:
    """What the context says of one topic, the claim says of another it also names.

    Two parallel clauses of the context ("birthing parents receive 16 weeks ...; adoptive parents receive 12
    weeks", "In a liquid, they slide past each other; in a gas, they move freely") each have a topic and a
    predicate. A claim that takes its topic only from one and its predicate only from the other ("Adoptive
    parents: 16 weeks", "Liquid: particles move freely") crosses them over.

    Read only where the clauses are parallel and the topics are topics: two names in the same place (the same
    word on one side of each, both near the clause's start), or the label of a list item against a word with
    the same words on both sides ("in a liquid, they" / "in a gas, they"). A first word that is an
    instruction ("Push the button"), a common noun in a sentence ("the team", "the city") or a word deep in
    its clause is never a topic: on RAGTruth those made every such finding a false alarm."""
    if any(d.kind == "mismatch" for d in out.differences):
        return
    label = re.match(r"\s*(?:[-*•+]\s+|\d+[.)]\s+)?([^:\n]{1,40}):\s+\S", claim)
    caps: set[str] = set()

    def name_at(text: str, pos: int, spans) -> bool:
        w = re.match(r"[\w'’\-]+", text[pos:])
        if not w or _in_quotes(text, pos) or re.match(r"\s+(?:the|a|an|your|on|in|out|up|off|it|them|this|that)\b", text[pos + len(w.group()):]):
            return False
        return any(a <= pos < b for a, b in spans) or (w.group()[0].isupper() and w.group().lower() in caps)

    c_spans = [(n.start, n.end) for n in names(claim, known)]
    ct = _topic_tokens(claim)
    c_set = {t for t, _ in ct}
    if len(c_set) < 2:
        return
    first: dict[str, int] = {}
    for t, p in ct:
        first.setdefault(t, p)
    found = []
    for k, (_, _, p) in enumerate(sents):
        sent_terms, per_clause = _clause_topics(p.text)
        for a, b, toks, own in per_clause:
            if own & c_set:
                found.append((k, a, b, toks, own, sent_terms))
    found = sorted(found, key=lambda f: -len(f[4] & c_set))[:8]
    if len(found) < 2:
        return
    # A capitalised word the texts never write in lower case is a name even where it opens a sentence
    # ("Mercury has ...", "Oslo is ..."); an instruction's first word ("Push the button") is not.
    lower_c, caps_c = _cased_words(claim)
    lower = set(lower_c).union(*(_cased_words(p.text)[0] for _, _, p in sents))
    caps.update(set(caps_c).union(*(_cased_words(p.text)[1] for _, _, p in sents)) - lower)
    for x in found:
        for y in found:
            if x is y:
                continue
            (kx, ax, bx, xt, xs, x_sent), (ky, ay, by, yt, ys, y_sent) = x, y
            topic, pred = c_set & (ys - xs), c_set & (xs - ys)
            x_own, y_own = xs - ys - c_set, ys - xs - c_set
            if not topic or not pred or not x_own or c_set - x_sent - y_sent:
                continue
            if not y_own and not _OTHER_ONES.search(sents[ky][2].text, ay, by):
                continue  # nothing of its own: "... and Stockholm hosts it too" says the same of both
            if len(topic) > 3 or _coverage(c_set - topic, xs) < 0.75:
                continue  # a claim that mostly copies one clause and borrows a word of another is no crossing
            if min(first[t] for t in topic) > min(first[t] for t in pred):
                continue  # the claim's topic comes first, then what it says of it
            y_text, x_text = sents[ky][2].text[ay:by], sents[kx][2].text[ax:bx]
            c_pos = min(first[t] for t in topic)
            as_name = name_at(claim, c_pos, c_spans)
            if not as_name and not (label and c_pos < label.end(1)):
                continue
            x_spans = [(n.start, n.end) for n in names(x_text, known)]
            ty = next(p for t, p in yt if t in topic)
            ly, ry, y_lead = _raw_neighbours(y_text, ty)
            for t, p in xt:
                if t not in x_own:
                    continue
                lx, rx, x_lead = _raw_neighbours(x_text, p)
                if x_lead > 3 or y_lead > 3:
                    break
                if as_name:
                    # "... when he resurfaced": a clause about a person it does not name may be about the claim's
                    parallel = not re.search(r"\b(?:he|him|his|she|her|they|them|their)\b", x_text, re.I) and name_at(x_text, p, x_spans) and (
                        lx == ly or (rx is not None and rx == ry and lx not in _DEFINITE))
                else:
                    parallel = lx == ly and rx == ry and rx is not None
                if parallel:
                    cw = re.match(r"[\w'’\-]+", claim[first[min(topic, key=first.__getitem__)]:])
                    xw = re.match(r"[\w'’\-]+", x_text[p:])
                    out.differences = [d for d in out.differences if d.kind != "conflict"]
                    out.differences.append(Difference(
                        slot="moved", claim_value=cw.group() if cw else claim.strip(),
                        evidence_value=xw.group() if xw else x_text.strip(),
                        evidence_span=_span(sents[kx][1], ax, bx), confidence=conf["moved"]))
                    return


def _predicate_after(p: _Parsed, n: Name) -> tuple[str, ...]:
    """The first two words after name ``n`` in its piece of ``p`` (the verb and what it says of the name), when a
    verb follows the name at once (an auxiliary between at most): the name is the verb's subject."""
    if n.end <= n.start or not _VERB_NEXT.match(p.text, n.end):
        return ()
    _, b = _piece_bounds(p.text, n.end)
    return tuple(t for t, q in p.terms if n.end <= q < b and not t[0].isdigit())[:2]


_VERB_NEXT = re.compile(r"\s+(?:(?:has|had|have|was|were|is|are|also|then|later)\s+)?(?:[a-z]+ed|[a-z]+s|won|wrote|"
                        r"took|gave|made|led|ran|beat|scored|saved|lost|held|got|came|went|built|sold|bought|paid|left|met|"
                        r"told|said|found|kept|set|put|hit|shot|threw|drew|rode|drove|swam|flew|fell|rose|grew|became|"
                        r"began|broke|chose|spoke|stole|won|sang)\b")


def _predicate_moved(claim: str, c_names: list[Name], sents, known: set[str], out: FactCheck, conf) -> None:
    """What the context says of one name, said of another it names elsewhere ("Ansel Kwame scored twice" where
    "Tomas Reyes scored twice ... Ansel Kwame added the third goal"): the same two words right after another
    name, never after the claim's, which the context does name with other words."""
    if any(d.slot in ("role", "entity", "attribution", "moved") for d in out.differences):
        return
    c = _parse(claim)
    # Full names only (two words or more): a capitalised first word ("Press the Guide button", "Place the eggs")
    # or a product's one-word name made nearly every finding of this kind a false alarm on RAGTruth dev half A.
    for n in [x for x in c_names if len(x.tokens) >= 2][:3]:
        pred = _predicate_after(c, n)
        if len(pred) < 2 or n.tokens & {_fold(t) for t in pred}:
            continue
        others, own_named = [], False
        for _, sent, p in sents:
            for m in names(p.text, known):
                if m.tokens & n.tokens:
                    own_named = True
                    if _predicate_after(p, m) == pred:
                        return  # the context says it of the claim's name too
                elif len(m.tokens) >= 2 and _predicate_after(p, m) == pred and not any(m.tokens & x.tokens for x in c_names):
                    others.append((sent, m))
        if others and own_named:
            sent, m = others[0]
            out.differences.append(Difference(slot="moved", claim_value=f"{n.text} ({' '.join(pred)})",
                                              evidence_value=f"{m.text} ({' '.join(pred)})",
                                              evidence_span=_span(sent), confidence=conf["moved"]))
            return


# -- what the context says of one of its entities, given to another -------------------------------------------
# A context often states two entities side by side, each in its own segment ("The Orla X2 has a 4,000 mAh battery,
# while the Orla X2 Max has a 5,100 mAh battery"; "Gallery 3 ... is accessible via the east lift. Gallery 5 ...
# can only be reached by stairs"). A claim about one that carries a figure or words the context gives only in the
# other's segments moved them over, however it is worded.
_OWNER_SPLIT = re.compile(r"\s+and\s+(?=(?:the\s+)?[A-Z])|,\s+(?=(?:who|which)\b)")
_LABEL = re.compile(r"\b[A-Z][a-z]+\s+(?:\d+[A-Za-z]?|[A-Z]\d*)\b")
_NOT_OWNER = frozenset("monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays "
                       "fridays saturdays sundays january february march april may june july august september october "
                       "november december ah".split())


def _segments(text: str, known: set[str]) -> list[tuple[frozenset[str] | None, frozenset[frozenset[str]], int, int]]:
    """(owner, names mentioned, start, end) for each segment of ``text``: its clauses, split again before "and
    <Name>" and before a relative clause. The owner is a name (or a label, "Gallery 3") among the first words of
    the segment; the words before it ("After the merger, Dr. Helen Marsh ...") are a segment with no owner, and a
    segment naming no one keeps the owner of the one before it in the sentence ("... and opens on Sundays")."""
    out: list[tuple[frozenset[str] | None, frozenset[frozenset[str]], int, int]] = []
    owner: frozenset[str] | None = None
    # One sentence (an evidence sentence or a claim): its clauses, each split again into segments.
    for a, b in clauses(text):
        cuts = [a] + [a + m.end() for m in _OWNER_SPLIT.finditer(text[a:b]) if not _listed_object(text, a + m.end())] + [b]
        # (a relative clause ends at its closing comma: "Dr. Okafor, who founded the unit, takes over ...")
        cuts = sorted(set(cuts) | {a + m.end() for m in _RELATIVE_END.finditer(text[a:b])})
        last_name: frozenset[str] | None = None  # the name that ends the piece before (a relative clause's antecedent)
        main: frozenset[str] | None = None  # the owner before a relative clause, owner again after it
        for x, y in zip(cuts, cuts[1:]):
            piece = text[x:y]
            relative = _RELATIVE_START.match(piece) is not None
            if relative:
                # (of two names coordinated before it, the clause is said of both: "A and B, which both promote")
                plural = _PLURAL_RELATIVE.match(piece) or (
                    re.search(r"\band\s+(?:the\s+)?[A-Z][\w'\u2019\-]*(?:\s+[A-Z][\w'\u2019\-]*)*\s*,\s*$", text[max(0, x - 60):x]))
                main, owner = (None, None) if plural else (owner, last_name or owner)
            elif main is not None:
                owner, main = main, None
            labels = list(_LABEL.finditer(piece))
            # (a label holds the capitalised word it starts with: "Gallery 5", not "Gallery")
            runs = [n for n in names(piece, known) if len(n.text) >= 3 and n.tokens and not n.tokens <= _NOT_OWNER
                    and not any(m.start() <= n.start and n.end < m.end() for m in labels)]
            found = [(n.start, n.tokens) for n in runs]
            found += [(m.start(), name_tokens(m.group(0))) for m in labels
                      if not any(n.start <= m.start() < n.end for n in runs)]
            # (a model or unit by its code alone: "the C3 weighs 23 kg", "3B is the two-bed")
            found += [(n.start, n.tokens) for n in codes(piece) if n.tokens
                      and not any(r.start <= n.start < r.end for r in runs)
                      and not any(m.start() <= n.start < m.end() for m in labels)]
            found.sort(key=lambda f: f[0])
            mentioned = frozenset(t for _, t in found)
            lead = next(((pos, t) for pos, t in found
                         if len(re.findall(r"[\w'\u2019\-]+", piece[piece.rfind(",", 0, pos) + 1:pos])) <= 3), None)
            if lead is not None and relative and owner is not None:
                lead = None  # "who founded St. Anne's stroke unit": said of the name before it, not of St. Anne's
            if lead is not None:
                if lead[0] > 0 and re.search(r",\s*$", piece[:lead[0]]):
                    out.append((None, frozenset(), x, x + lead[0]))
                    x += lead[0]
                owner = lead[1]
            ending = [n for n in runs if re.fullmatch(r"['\u2019]?s?\s*,\s*", piece[n.end:])]
            last_name = ending[-1].tokens if ending else None
            out.append((owner, mentioned | ({owner} if owner else set()), x, y))
    return out


#: A route's end before a name: "from Porthallow to Gillan Point", "between Leeds and York".
_ROUTE_END = re.compile(r"\b(?:from|to|between|via|towards)\s+(?:the\s+)?$|\bbetween\s+[^,;.]{1,40}\s+and\s+$", re.I)
#: Two names as one subject: "Brian Rogers and Caitlin McGuire, owners of ...", "Rogers, 34, and McGuire, 30, own".
_CO_SUBJECTS = re.compile(r"^\W*(?:[A-Z][\w'\u2019\-]*\s+){0,3}[A-Z][\w'\u2019\-]*(?:,\s*\d+\s*,)?\s+and\s+"
                          r"(?:[A-Z][\w'\u2019\-]*\s+){0,3}[A-Z][\w'\u2019\-]*(?:,\s*\d+)?\s*(?:,|\s+(?:are|were|have|own|run|started|founded|said)\b)")
_PLURAL_RELATIVE = re.compile(r"\s*(?:who|which)\s+(?:both|all|each|together)\b", re.I)
_RELATIVE_START = re.compile(r"\s*(?:who|which|whose)\b", re.I)
_RELATIVE_END = re.compile(r",\s+(?:who|which|whose)\b[^,;]*?,\s+", re.I)


def _listed_object(text: str, pos: int) -> bool:
    """The name at ``pos`` (after "and") ends a list the verb before it takes, not a subject of its own: "shared
    the prize with Pierre Curie and Henri Becquerel and won ..." (the one who won is the sentence's subject)."""
    run = _RUN_AT.match(text, pos)
    return run is not None and re.match(r"\s+and\s+[a-z]+", text[run.end():]) is not None \
        and re.search(r"\b(?:with|and|by|to|from|between|including)\s+(?:the\s+)?[A-Z][\w'\u2019\-]*(?:\s+[A-Z][\w'\u2019\-]*)*\s+and\s+$",
                      text[max(0, pos - 60):pos]) is not None


_RUN_AT = re.compile(r"(?:the\s+)?[A-Z][\w'\u2019\-]*(?:\s+[A-Z][\w'\u2019\-]*)*")


_CAPITALISED_INSIDE = re.compile(r"\b[A-Z][\w\-]*\s+\d|(?<=\S\s)[A-Z]")


@functools.lru_cache(maxsize=4096)
def _segments_of(text: str, known: frozenset[str]):
    """``_segments`` of an evidence sentence with each one's terms, cached: every claim of an answer reads the
    same sentences."""
    return tuple((o, m, x, y, _parse(text[x:y]).term_set) for o, m, x, y in _segments(text, set(known)))


def _same_entity(a: frozenset[str], b: frozenset[str], text: str) -> bool:
    """One entity under two names: equal, or one the other's last words ("Marsh" for "Dr. Helen Marsh");
    "Orla X2" is not the "Orla X2 Max"."""
    if a == b or {t.rstrip("s") for t in a} == {t.rstrip("s") for t in b}:  # ("Tibetan Terriers" / "Tibetan Terrier")
        return True
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    if len(short) == 1 and acronyms(text).get(next(iter(short))) == long_:
        return True  # "ECB" for "European Central Bank"
    if not short < long_:
        return False
    order = _written_order(long_, text)
    return order is not None and set(order[-len(short):]) == set(short)


@functools.lru_cache(maxsize=512)
def _written_order(tokens: frozenset[str], text: str) -> tuple[str, ...] | None:
    """The words of a name in the order a mention of it in ``text`` writes them, or None."""
    alt = "|".join(re.escape(t) for t in sorted(tokens, key=len, reverse=True))
    for m in re.finditer(r"\b(?:" + alt + r")(?:\W{1,3}(?:" + alt + r"))*\b", text.lower()):
        words_ = re.findall(alt, m.group(0))
        if set(words_) == tokens:
            return tuple(words_)
    return None


#: The words of a comparison's elided half ("while Brook Lane had the fewest"), read as the parser reads them.
_RELATION_WORDS = "most least fewest highest lowest largest smallest best worst more fewer less had has have was were recorded scored"


def _is_code_name(tokens: frozenset[str]) -> bool:
    return len(tokens) == 1 and bool(codes(next(iter(tokens)).upper()))


def _segment_moved(claim: str, c: _Parsed, sents, known: set[str], out: FactCheck, conf) -> None:
    if any(d.slot in ("role", "entity", "attribution", "moved", "number") and d.kind == "mismatch" for d in out.differences):
        return
    if not _CAPITALISED_INSIDE.search(claim) and not codes(claim):
        return  # no name, label or code past the first word: nothing to own a segment
    all_text = "\n".join(p.text for _, _, p in sents)
    frozen = frozenset(known)
    cached = [(k, seg) for k, (_, _, p) in enumerate(sents) for seg in _segments_of(p.text, frozen)]
    segs = [(k, seg[:4]) for k, seg in cached]
    # Entities of two words or more ("Orla X2 Max", "Gallery 5", "Tomasz Verhoeven"): a capitalised first word
    # ("Prepare a syrup", "Words can destroy") owns nothing (on RAGTruth dev half A such owners made 9 findings
    # of 10 false).
    # (or a code, which no instruction or common word is: "the C3", "Unit 5A")
    owners = {o for _, (o, _, _, _) in segs if o and (len(o) >= 2 or _is_code_name(o))}
    # (and a surname standing for one of them or for a full name the context gives, read as that one: "Dr. Lund"
    # for "Dr. Henrik Lund")
    full = owners | {n.tokens for _, _, p in sents for n in names(p.text, frozen) if len(n.tokens) >= 2}
    short = {}
    for _, (o, _, _, _) in segs:
        if o and len(o) == 1:
            longer = [x for x in full if _same_entity(o, x, all_text)]
            if len(longer) == 1:
                short[o] = longer[0]
    if short:
        segs = [(k, (short.get(o, o) if o else o, m, x, y)) for k, (o, m, x, y) in segs]
        owners |= set(short.values())
    if len(owners) < 2:
        return
    by_sentence: dict[int, set[frozenset[str]]] = {}
    for k, (o, _, _, _) in segs:
        if o:
            by_sentence.setdefault(k, set()).add(o)

    def parallel(x: frozenset[str], y: frozenset[str]) -> bool:
        # Two entities the context sets side by side: in one sentence ("The X2 has ..., while the X2 Max has ..."),
        # or two of a kind told apart by a word each ("Gallery 3" / "Gallery 5").
        # (or two codes of one shape: "the C3" / "the T5")
        return any(x in os_ and y in os_ for os_ in by_sentence.values()) or bool(x & y and x - y and y - x) or (
            _is_code_name(x) and _is_code_name(y) and code_shape(next(iter(x))) == code_shape(next(iter(y))))
    if _CO_SUBJECTS.match(claim):
        return  # "Brian Rogers and Caitlin McGuire, owners of ..., started": what follows is said of both
    mine = None
    route_ends = {n.tokens for n in names(claim, known) if _ROUTE_END.search(claim, max(0, n.start - 60), n.start)}
    for own, named, a, b in _segments(claim, known):
        if _PLURAL_RELATIVE.match(claim, a):
            mine = None  # "A and B, which both promote ...": said of both, owned by neither
            continue
        # The claim's entity: its segment's owner, else the one entity of the context it names ("The Ottoman
        # textiles are in Gallery 5"), else the one before it in the claim (", which you can reach ...").
        # (not a place a route runs from or to: "covers 24 km from Porthallow to Gillan Point" is said of the route)
        ours = [o for o in owners if any(_same_entity(x, o, all_text) for x in named if x not in route_ends)]
        theirs = [o for o in owners if own and o == own] or [o for o in owners if own and _same_entity(own, o, all_text)]
        if len(theirs) > 1 or (own and len(own) == 1 and sum(1 for o in owners if own < o) > 1):
            mine = None
            continue  # a name two entities share ("Taubman": Alfred or Robert)
        if own and not theirs and len(ours) != 1:
            mine = None
            continue  # a subject the context does not set beside another ("Vice President Harris" as written)
        mine = (theirs[0] if theirs else None) or (ours[0] if len(ours) == 1 else None) or (mine if not ours else None)
        if mine is None:
            continue
        piece = _parse(claim[a:b])
        if any(any(_same_entity(o, x, all_text) for x in piece_names) and not _same_entity(o, mine, all_text)
               for o in owners for piece_names in [[n.tokens for n in names(claim[a:b], known)]]):
            continue  # the claim's segment names the other entity too: it may say how they differ
        about_mine = lambda m: any(_same_entity(x, mine, all_text) for x in m)  # noqa: E731
        # Figures: stated only in segments that do not mention the claim's entity and have an owner.
        for q in piece.quantities:
            where = [(k, o, m, x, y) for k, (o, m, x, y) in segs for e in sents[k][2].quantities
                     if x <= e.start < y and _equivalent(q, e)]
            if where and all(o in owners and parallel(o, mine) and not about_mine(m) for _, o, m, _, _ in where):
                k, o, _, x, y = where[0]
                out.differences.append(Difference(
                    slot="moved", claim_value=f"{q.text} for {' '.join(sorted(mine))}",
                    evidence_value=f"{q.text} for {' '.join(sorted(o))}", evidence_span=_span(sents[k][1], x, y),
                    confidence=conf["moved"]))
                return
        # Words: two or more, each stated only in such segments.
        # (a capitalised word that names no entity of the context is an attribute: "an IPS display", said of the
        # other laptop, is one word but as telling as two)
        owner_toks = frozenset().union(*owners) | mine
        claim_names = [n for n in names(claim[a:b], known) if not (n.tokens & owner_toks)]
        attribute_names = {_fold(t) for n in claim_names for t in n.tokens if len(n.tokens) == 1}
        name_toks = frozenset().union(*(n.tokens for n in names(claim, known))) | mine
        words_ = {t for t in piece.term_set if not t[0].isdigit() and (t not in name_toks or t in attribute_names)}
        moved, other = [], None
        seg_terms = [seg[4] for _, seg in cached]
        # (an owner's own name is no attribute of it: "offers coffee, tea ..." against the category "Coffee & Tea")
        owner_terms = _parse(" ".join(t for o in owners for t in o)).term_set
        # Sentences where the claim's entity has a segment of a comparison and little else: the words are elided.
        elliptic = {k for k, (o, _, x, y) in segs if o is not None and _same_entity(o, mine, all_text)
                    and lexicon.relation_words(sents[k][2].text[x:y])
                    and len(_parse(sents[k][2].text[x:y]).term_set - owner_terms - _parse(_RELATION_WORDS).term_set) <= 1}
        for t in words_ - owner_terms:
            hits = [(k, o, m, x, y) for (k, (o, m, x, y)), ts in zip(segs, seg_terms) if t in ts]
            if any(k in elliptic for k, *_ in hits):
                continue  # "Hillside had the most unsold seats, while Brook Lane had the fewest": said of both
            if hits and all(o in owners and parallel(o, mine) and not about_mine(m) for _, o, m, _, _ in hits):
                moved += [t, t] if t in attribute_names else [t]
                other = other or hits[0]
        if len(moved) >= 2 and other is not None:
            k, o, _, x, y = other
            # (the claim's own words, in its order, not their stems)
            said = [w.group() for t, p in piece.terms if any(t[:5] == m[:5] for m in moved)
                    for w in [re.match(r"[\w'’\-]+", piece.text[p:])] if w]
            out.differences.append(Difference(
                slot="moved", claim_value=f"{' '.join(dict.fromkeys(said))} for {' '.join(sorted(mine))}",
                evidence_value=f"said of {' '.join(sorted(o))}", evidence_span=_span(sents[k][1], x, y),
                confidence=conf["moved"]))
            return


_LABEL_LINE = re.compile(r"^\W*([A-Za-z][\w'\u2019 -]{0,30}?)\W*:\W*(.+)$", re.S)


#: A sentence that is one field of a record: "Consignee: Brookfield Interiors Ltd."
_FIELD_START = re.compile(r"\W*[A-Z][a-z]+(?:\s+[a-z]+){0,2}:\s")


def _label_moved(claim: str, sents, known: set[str], out: FactCheck, conf) -> None:
    """A labelled item ("**Friday:** 2–6 p.m., Westfield") whose name the context gives in the piece of another
    label ("Wednesday ... at the Westfield site, and Friday ... at Main Street"): the label's own piece names
    another. Pieces are the parts of a sentence between commas and semicolons."""
    if any(d.kind == "mismatch" for d in out.differences):
        return
    m = _LABEL_LINE.match(claim)
    if not m or len(m.group(1).split()) > 3:
        return
    label = name_tokens(m.group(1))
    body_names = [n for n in names(m.group(2), known) if n.tokens and not (n.tokens & label)]
    if not label or not body_names:
        return
    pieces = [(sent, p.text, a, b) for _, sent, p in sents for a, b in _pieces(p.text)]
    own = [(sent, text, a, b) for sent, text, a, b in pieces if label <= words(text[a:b])]
    if len(own) != 1:
        return  # the label named in no piece or in several: no one piece says what is its
    sent, text, a, b = own[0]
    if _FIELD_START.match(text) and not names(text[a:b], known):
        a, b = 0, len(text)  # a record's field ("Buyer: Quayside Upholstery Co."): the label's piece is the field
    own_names = [n for n in names(text[a:b], known) if n.tokens and not (n.tokens & label)]
    for n in body_names:
        if n.tokens <= words(text[a:b]):
            continue
        # (in the label's sentence, or in another field of the same record: "Seller: Marlow Fabrics Ltd. Buyer: ...")
        elsewhere = [x for x in pieces if n.tokens <= words(x[1][x[2]:x[3]]) and (
            x[0] == sent or (_FIELD_START.match(x[1]) and _FIELD_START.match(text)))]
        others = [o for o in own_names if not (o.tokens & n.tokens)]
        if elsewhere and others:
            out.differences.append(Difference(slot="moved", claim_value=f"{n.text} for {m.group(1).strip()}",
                                              evidence_value=f"{others[0].text} ({text[a:b].strip()})",
                                              evidence_span=_span(sent, a, b), confidence=conf["moved"]))
            return


def _time_label_moved(claim: str, c: _Parsed, sents, out: FactCheck, conf) -> None:
    """A service named by its time ("The 09:25 to York") given what the context says of another one: "The 09:25 to York
    is terminating at Doncaster" where "The 09:10 ... will terminate at Doncaster" and "The 09:25 to York is cancelled".
    The claim's sentence-opening time names its subject; its other words are what it says of it. The context's
    sentence that opens with the same time says none of them, and one that opens with another time says them all."""
    if any(d.kind == "mismatch" for d in out.differences) or not c.times:
        return
    t = c.times[0]
    if len(re.findall(r"[\w'’\-]+", claim[: t.start])) > 1:
        return
    said = set(c.term_set) - {_fold(x) for x in content_terms(claim[t.start:t.end])}

    def opener(p: _Parsed):
        return next((x for x in p.times if len(re.findall(r"[\w'’\-]+", p.text[: x.start])) <= 1), None)

    own = [p for _, _, p in sents if (o := opener(p)) is not None and o.minutes == t.minutes]
    if len(own) != 1:
        return
    # (what is said of it: the claim's words that its own sentence does not name it by, "to York" being its name)
    pred = said - own[0].term_set
    if len(pred) < 2 or _coverage(pred, own[0].term_set) > 0:
        return
    for _, sent, p in sents:
        o = opener(p)
        if o is not None and o.minutes != t.minutes and _coverage(pred, p.term_set) >= 0.99:
            out.differences.append(Difference(slot="moved", claim_value=f"{t.text} ({claim.strip()})",
                                              evidence_value=f"{o.text} ({p.text.strip()})", evidence_span=_span(sent),
                                              confidence=conf["moved"]))
            return


#: Where a clause of the context begins, read back from a figure: "..., and Oakline applies a £250 excess".
_CLAUSE_START = re.compile(r"[.;:]\s|,\s+(?:and|but|while|whereas)\s+|\s(?:while|whereas)\s|\s[\u2014\u2013]\s", re.I)


def _figure_of_another(claim: str, c: _Parsed, sents, known: set[str], out: FactCheck, conf) -> None:
    """A figure the context states of one of its entities, given to another it names: "Harbor Shield, which applies
    a £250 excess to escape-of-water claims" where "Both insurers have a standard excess of £100, and Oakline applies
    a £250 excess for escape-of-water claims". The context's clause that states the figure opens with another name
    (its subject) and never names the claim's; the claim's figure follows its own name, which the context names
    elsewhere. Measures and money only: a bare count ("3 stores") is too often a figure of several things."""
    if any(d.kind == "mismatch" and d.slot in ("role", "entity", "attribution", "moved", "number") for d in out.differences):
        return
    if not any(q.kind not in ("", "count", "ordinal", "change") for q in c.quantities[:12]):
        return  # (no measure or money to read: the context's words below are read only for one that has)
    # (a capitalised word the texts also use in lower case opens a sentence or a step: "Hold the reset button")
    lower = words(" ".join(re.findall(r"(?<![\w'’\-])[a-z][\w'’\-]*", claim + "\n" + "\n".join(p.text for _, _, p in sents))))

    # (nor is a word capitalised only where it opens a sentence: "Place the eggs ...", "Make sure ...")
    mid = words(" ".join(re.findall(r"(?<=[\w,;] )[A-Z][\w'’\-]*", claim + "\n" + "\n".join(p.text for _, _, p in sents))))

    def named(text: str) -> list[Name]:
        return [n for n in names(text, known) if n.tokens - _TITLES
                and (len(n.tokens) > 1 or not n.tokens & lower and n.tokens <= mid)]

    c_names = named(claim)
    if not c_names:
        return
    context_words = frozenset().union(*(words(p.text) for _, _, p in sents))
    for q in c.quantities[:12]:
        if q.kind in ("", "count", "ordinal", "change"):
            continue
        mine = next((n for n in reversed(c_names) if n.end <= q.start), None)
        if mine is None or not mine.tokens <= context_words:
            continue  # (a name the context never uses is the entity checks' to name)
        # (the subject of the figure's clause: "The sailor had gone out to the Gulf Stream ... his 35-foot sailboat" gives
        # the Gulf Stream no boat)
        c_lo = max((m.end() for m in _CLAUSE_START.finditer(claim, 0, q.start)), default=0)
        if mine.start < c_lo or not _leads(claim[c_lo:], Name(mine.start - c_lo, mine.end - c_lo, mine.text), words_before=3):
            continue
        for _, sent, p in sents:
            e = next((x for x in p.quantities if _equivalent(q, x)), None)
            if e is None:
                continue
            lo = max((m.end() for m in _CLAUSE_START.finditer(p.text, 0, e.start)), default=0)
            clause = p.text[lo:e.start]
            theirs = named(clause)
            if mine.tokens & words(p.text[lo:]):
                break  # the context says it of the claim's name too (or of what its initials stand for: "CFO", "ECB")
            lead = theirs[0] if theirs and _leads(clause, theirs[0], words_before=2) else None
            # (not when the clause gives the figure to someone by a pronoun: "Forbes estimated his net worth at $3.1
            # billion" is his, not Forbes's; nor a first person, "I'd")
            if lead is not None and (re.search(r"\b(?:his|her|its|their|he|she|they)\b", clause, re.I)
                                     or re.match(r"I\b", lead.text)):
                break
            if lead is not None:
                out.differences.append(Difference(
                    slot="moved", claim_value=f"{q.text} for {mine.text}", evidence_value=f"{e.text} for {lead.text}",
                    evidence_span=_span(sent, lo + lead.start, e.end), confidence=conf["moved"]))
                return
            break


#: A sentence (or a claim) that opens with a noun phrase of its own: "The 2021 chardonnay from Mâcon spent ...".
_OPENS_WITH_THING = re.compile(r"\s*(?:The|A|An|Our|Each)\s+(?!(?:first|second|next|last|other|same|rest|total)\b)")


def _opening_terms(text: str, m: re.Match[str]) -> frozenset[str]:
    """The content words of the four words after a sentence's opening determiner: its subject, give or take."""
    return frozenset(_fold(t) for t in content_terms(" ".join(text[m.end():].split()[:4])))


def _first_word_after(text: str) -> str:
    """The word right after a sentence's opening determiner, folded: "court" of "The Court of Appeal dismissed"."""
    m = _OPENS_WITH_THING.match(text)
    rest = text[m.end():].split()[:1] if m else []
    return rest[0].lower().strip(",.;:'") if rest else ""


def _figure_of_another_subject(claim: str, c: _Parsed, sents, out: FactCheck, conf) -> None:
    """A measure the context states in a sentence about one thing, given to another it describes in a sentence of
    its own, both named by common nouns: "The vermentino spent eight months in French oak" where "The 2022
    vermentino from Sardinia is unoaked ... The 2021 chardonnay from Mâcon spent eight months in French oak".
    Why: ``_figure_of_another`` reads names, and a wine, a kettle or a room class is no name. Read only for a claim
    that opens with a noun phrase and states a measure: the claim's subject opens one sentence of the context and
    never appears in the sentence that states the figure, which opens with a subject the claim never uses."""
    if any(d.kind == "mismatch" and d.slot in ("role", "entity", "attribution", "moved", "number") for d in out.differences):
        return
    qs = [q for q in c.quantities[:8] if q.kind not in ("", "count", "ordinal", "change")]
    head = _OPENS_WITH_THING.match(claim) if qs else None
    if head is None:
        return
    mine_open = _opening_terms(claim, head)
    claim_words = c.term_set | mine_open
    opened = [(sent, p, _opening_terms(p.text, m)) for _, sent, p in sents
              if (m := _OPENS_WITH_THING.match(p.text)) is not None]
    if len(opened) < 2:
        return
    for q in qs:
        if q.start < head.end():
            continue
        said = [p for _, _, p in sents if any(_equivalent(q, e) for e in p.quantities)]
        stating = [x for x in opened if len(said) == 1 and x[1] is said[0]]
        if not stating:
            continue  # (stated once, in a sentence that opens with its own subject)
        sent, p, theirs = stating[0]
        other = {t for t in theirs - claim_words if not t[0].isdigit()}
        for _, p1, o1 in opened:
            if p1 is p:
                continue
            mine = {t for t in (mine_open & o1) - theirs if not t[0].isdigit()}
            if {t for t in mine_open & theirs if not t[0].isdigit()} - o1:
                continue  # (the claim names the figure's own subject: "The gala raised £30,000" of "The gala brought in")
            if _fold(stem(_first_word_after(p.text) or "-")) in o1:
                # (the figure's subject is the other's, named short: "The court declined ..." after "The Court of
                # Appeal dismissed ...", "The inspectorate ..." after "The Planning Inspectorate ...")
                continue
            # (two descriptions of the same form, each of its own thing: they share words besides their subjects,
            # "... from Sardinia ... ABV, and pairs ..." / "... from Mâcon ... ABV, and pairs ..."; a news story's
            # sentences about one storm, "The intense low-pressure system ..." / "The strong winds ...", do not)
            # (or two of one kind, their subjects sharing its noun: "The steel kettle ..." / "The glass kettle ...")
            parallel = {t for t in (p.term_set & p1.term_set) - theirs - o1 if not t[0].isdigit()}
            kind = {t for t in theirs & o1 if not t[0].isdigit()}
            if mine and not mine & p.term_set and other and not other & p1.term_set and (len(parallel) >= 2 or kind):
                e = next(e for e in p.quantities if _equivalent(q, e))
                out.differences.append(Difference(
                    slot="moved", claim_value=f"{q.text} for {' '.join(sorted(mine))}",
                    evidence_value=f"{e.text} for {' '.join(sorted(other))}",
                    evidence_span=_span(sent, e.start, e.end), confidence=conf["moved"]))
                return


@functools.lru_cache(maxsize=4096)
def _figure_owners(text: str, known: frozenset[str]) -> tuple[tuple[frozenset[str], str, int], ...]:
    """(owner's words, owner as written, index of the figure in ``_parse(text).quantities``) for each figure of a
    sentence written right after a name that is its own: "Priya Okafor (Green) won with 11,204 votes, ahead of
    Tom Beddoes (Conservative) on 9,877". The owner is the nearest name before the figure, a bracketed aside left
    out ("(Green)" is Okafor's party, not an owner), at most six words and no other figure or sentence break
    between. Cached by the sentence: every claim of an answer reads the same ones."""
    p = _parse(text)
    blank = _BRACKETED.sub(lambda m: " " * len(m.group(0)), text)
    ns = [n for n in names(blank, set(known)) if n.tokens - _TITLES]
    out: list[tuple[frozenset[str], str, int]] = []
    for i, e in enumerate(p.quantities):
        prev = p.quantities[i - 1] if i else None
        if prev is not None and out and out[-1][2] == i - 1 and _RANGE_DASH.fullmatch(text, prev.end, e.start):
            out.append((out[-1][0], out[-1][1], i))  # (the other end of its range: "within 3–4 business days")
            continue
        n = max((n for n in ns if n.end <= e.start), key=lambda n: n.end, default=None)
        if n is None:
            continue
        gap = blank[n.end:e.start]
        if re.search(r"[.;:!?]", gap) or len(re.findall(r"[\w'’\-]+", gap)) > 6 \
                or any(n.end <= o.start < e.start for o in p.quantities):
            continue
        out.append((n.tokens - _TITLES, n.text, i))
    return tuple(out)


def _figure_swapped(claim: str, c: _Parsed, sents, known: set[str], out: FactCheck, conf) -> None:
    """A figure the context writes after one name, given to another that the context gives a figure of its own
    of the same kind: "Tom Beddoes came second with 11,204 votes" where "Priya Okafor (Green) won with 11,204
    votes, ahead of Tom Beddoes (Conservative) on 9,877". Counts too (``_figure_of_another`` reads measures
    only), since both ownerships are written down. The claim's party is the nearest name before its figure that
    owns a figure in the context ("for the Conservatives" owns none); a figure said as a gap, a sum or a share
    ("1,327 votes behind Okafor") is left alone."""
    if any(d.kind == "mismatch" and d.slot in ("role", "entity", "attribution", "moved", "number") for d in out.differences):
        return
    qs = [q for q in c.quantities[:8] if q.kind not in ("", "ordinal", "change", "percent", "points")]
    if not qs:
        return
    c_names = [n for n in names(claim, known) if n.tokens - _TITLES]
    if not c_names or not any(n.end <= q.start for n in c_names for q in qs):
        return
    frozen = frozenset(known)
    owned = [(tokens, written, sent, p.quantities[i]) for _, sent, p in sents
             for tokens, written, i in _figure_owners(p.text, frozen)]
    if len({w for _, w, _, _ in owned}) < 2:
        return
    for q in qs:
        # (the claim's party: the nearest name before the figure that owns a figure in the context)
        mine = max((n for n in c_names if n.end <= q.start and any((n.tokens - _TITLES) & t for t, _, _, _ in owned)),
                   key=lambda n: n.end, default=None)
        if mine is None:
            continue
        clause = next(((a, b) for a, b in clauses(claim) if a <= q.start < b), (0, len(claim)))
        if mine.start < clause[0] or lexicon.relative_figure(claim[mine.end:clause[1]]) \
                or re.search(r"[,;]|\b(?:who|which|whose|that)\b", claim[mine.end:q.start], re.I):
            continue  # (a gap or a sum, or the figure of a clause of its own)
        me = mine.tokens - _TITLES
        own = [e for t, _, _, e in owned if me & t and _comparable(q, e)]
        if any(_equivalent(q, e) for e in own):
            continue
        theirs = [(w, sent, e) for t, w, sent, e in owned if not me & t and _equivalent(q, e)
                  and not any(t & (n.tokens - _TITLES) for n in c_names if n is not mine)]
        if not own:
            # (no figure of its kind of the claim's own: only the very count, its noun written, that the context
            # writes after another name in a sentence that gives the claim's name a figure of its own)
            mine_in = {id(sent) for t, _, sent, _ in owned if me & t}
            theirs = [(w, sent, e) for w, sent, e in theirs if id(sent) in mine_in and _same_count(q, e)]
        if theirs:
            w, sent, e = theirs[0]
            out.differences.append(Difference(
                slot="moved", claim_value=f"{q.text} for {mine.text}", evidence_value=f"{e.text} for {w}",
                evidence_span=_span(sent, e.start, e.end), confidence=conf["moved"]))
            return


def _same_count(q: Quantity, e: Quantity) -> bool:
    """Both count the same written noun ("two tries" / "two tries"), neither taking it from a figure before it.
    Why: a figure moved to a name the context gives only other kinds of figure ("Tom Ashby scored two tries" where
    "Tom Ashby kicked 17 points ... while Danny Cole crossed for two tries") has no rival of its own to be compared
    with; the noun written on both sides is what says it is the other's figure, not some count of the same
    value."""
    return q.kind == "count" and e.kind == "count" and q.dimension == e.dimension and q.dimension.startswith("count:") \
        and not q.inherited and not e.inherited and not q.labelled and not e.labelled and math.isclose(q.value, e.value)


def _leads(text: str, n: Name, words_before: int = 1) -> bool:
    """Name ``n`` opens ``text`` (after at most ``words_before`` words: "Hawks goalkeeper Sam Ito saved")."""
    return n.end > n.start and len(re.findall(r"[\w'’\-]+", text[: n.start])) <= words_before


def _said_of(n: Name, rest: set[str], sents, idf) -> float:
    """How much of ``rest`` (the claim without its names) the clauses that mention name ``n`` state."""
    best = 0.0
    for _, _, p in sents:
        for a, b in clauses(p.text):
            if n.tokens & words(p.text[a:b]):
                cl = _parse(p.text[a:b])
                best = max(best, _coverage(rest, cl.term_set | {t for t, _ in cl.terms if t[0].isdigit()}, idf))
    return best


def _differing_parts(claim: str, c_names: list[Name], clause: str, clause_names: list[Name], present: set[str],
                     common: set[str], context_words: set[str] | frozenset[str] = frozenset()) -> list[tuple[Name, Name]]:
    """(the claim name's part the clause lacks, the clause name's own part) for each claim name found in
    part, paired with each clause name that shares a part with it and has a part of its own: one the claim
    never says, or any, when the claim's part is a word the context never uses ("Sierra Conservancy" against
    "Yosemite Conservancy", though the claim names Yosemite National Park too)."""
    out = []
    claim_words = words(claim)
    for n in c_names:
        missing = n.tokens - present - common
        if not missing or missing == n.tokens or n.end <= n.start:
            continue
        for o in clause_names:
            extra = o.tokens - n.tokens - common
            # The claim may name the clause's part elsewhere ("the Linux Foundation ... under Apache 2.0" against
            # "the Apache Software Foundation").
            own = bool(extra - claim_words) or (bool(extra) and not (missing & context_words))
            if o.end > o.start and n.tokens & o.tokens and own:
                out.append((_sub_name(claim, n, missing), _sub_name(clause, o, extra)))
    return out


def _sub_name(text: str, n: Name, tokens: set[str] | frozenset[str]) -> Name:
    """The part of name ``n`` (offsets into ``text``) from its first to its last word among ``tokens``."""
    spans = [(m.start(), m.end()) for m in re.finditer(r"[\w'’\-]+", text[n.start:n.end]) if name_tokens(m.group()) & tokens]
    lo, hi = n.start + spans[0][0], n.start + spans[-1][1]
    return Name(lo, hi, text[lo:hi])


def _same_name(a: Name, b: Name) -> bool:
    """One name is the other, whole or shortened ("Eiffel" / "Gustave Eiffel", "Dr. Park" / "Lina Park").
    Sharing a word is not enough: "Gustave Eiffel" is not the "Eiffel Tower"."""
    if not (a.tokens & b.tokens):
        return False
    if a.tokens <= b.tokens or b.tokens <= a.tokens:
        return True
    last_a, last_b = a.text.split()[-1:], b.text.split()[-1:]
    return bool(last_a and last_b and name_tokens(last_a[0]) == name_tokens(last_b[0]))


_SKIP_NEIGHBOUR = frozenset("the a an dr mr mrs ms prof".split())
#: Words that mark a slot but come and go in a rewording ("Final: 30 June, Berlin" / "on 30 June in Munich").
_SLOT_MARKERS = frozenset("in at on of to from by for".split())


def _neighbours(text: str, n: Name, skip: frozenset[str] = _SKIP_NEIGHBOUR) -> tuple[str | None, str | None]:
    left = [w for w in re.findall(r"[\w']+", text[: n.start].lower()) if w not in skip]
    right = re.findall(r"[\w']+", re.sub(r"^['’]s\b", "", text[n.end:]).lower())
    return (left[-1] if left else None), (right[0] if right else None)


def _same_neighbour(claim: str, n: Name, clause: str, o: Name) -> bool:
    """The other name fills the same slot: the word just before or just after it is the claim's
    ("laid ... by Thomas Edison" / "by Cyrus Field"; "Amina Yusuf heads" / "Paul Brenner heads"), or the
    word before it is once a preposition that one side leaves out is skipped, and neither name has a word
    after it in its clause ("Final: 30 June, Berlin" / "the final on 30 June in Munich")."""
    if n.end <= n.start or o.end <= o.start:
        return True
    (lc, rc), (le, re_) = _neighbours(claim, n), _neighbours(clause, o)
    same = lambda x, y: x is not None and y is not None and (x == y or stem(x) == stem(y))  # noqa: E731
    if same(lc, le) or same(rc, re_):
        return True
    if rc is None and re_ is None:
        skip = _SKIP_NEIGHBOUR | _SLOT_MARKERS
        return same(_neighbours(claim, n, skip)[0], _neighbours(clause, o, skip)[0])
    return False


def _strength(x: str, y: str, drop: set[str] | frozenset[str] = frozenset()) -> float:
    """How much two texts say the same thing (names in ``drop`` aside): the smaller share of each one's
    words found in the other."""
    a, b = set(_parse(x).term_set) - drop, set(_parse(y).term_set) - drop
    return min(_coverage(a, b), _coverage(b, a)) if a and b else 0.0


def _name_terms(ns: list[Name]) -> set[str]:
    return {_fold(t) for n in ns for t, _ in terms_with_offsets(n.text)}


def _same_place(c_terms, n: Name, e_terms, o: Name, rest: set[str]) -> int:
    """How many shared words sit on the same side of the claim's name and of the evidence's other name,
    minus those on opposite sides ("laid by Thomas Edison" / "laid by Cyrus Field": +)."""
    score = 0
    e_side: dict[str, set[bool]] = {}
    for t, p in e_terms:
        f = _fold(t)
        if f in rest and not (o.start <= p < o.end):
            e_side.setdefault(f, set()).add(p < o.start)
    for t, p in c_terms:
        f = _fold(t)
        if f not in e_side or n.start <= p < n.end:
            continue
        before = p < n.start
        score += 1 if before in e_side[f] else -1
    return score


def _quoted(text: str, n: Name) -> bool:
    """Inside quotation marks: a title ("The Young and the Restless"), not a party."""
    before = text[: n.start]
    return before.count('"') % 2 == 1 or before.count("“") > before.count("”")


def _referent(sents, k: int) -> str | None:
    """Who "It" / "He" / "They" is when evidence sentence ``k`` opens with one: the name the nearest earlier
    sentence of the same document opens with, else the first name of that document's earliest sentence."""
    from .claims import sentence_subject

    ev_id, start, _, text = sents[k][1]
    if not re.match(r"\s*(?:it|he|she|they)\b", text, re.I):
        return None
    before = sorted((s for _, s, _ in sents if s[0] == ev_id and s[2] <= start), key=lambda s: -s[1])
    for s in before:
        subj = sentence_subject(s[3])
        if subj:
            return subj
    for s in reversed(before):
        found = names(s[3])
        if found:
            return found[0].text
    return None


_SAY = re.compile(
    r"\b(?:said|says|argued|argues|claimed|claims|called|calls|stated|states|believes|believed|warned|warns|told|"
    r"wrote|writes|described|describes|critici[sz]ed|critici[sz]es|praised|praises|blamed|blames|rated|rates|"
    r"maintained|maintains|asked|asks|proposed|proposes|downgraded|upgraded|recommended|recommends|denied|denies|"
    r"insisted|insists|suggested|suggests|predicted|predicts|welcomed|condemned|testified|testifies|complained|"
    r"complains|reported|reports|promised|promises|announced|announces|admitted|admits|acknowledged|"
    # ("added" only before its "that": "the firm added 200 jobs" gives no one's words)
    r"added(?=\s+that\b)|adds(?=\s+that\b)|"
    r"acknowledges|confirmed|confirms|noted|notes|explained|explains|contended|contends|alleged|alleges|"
    # (not the forms that are plural nouns too: "objects", "estimates", "forecasts", "fears", "replies")
    r"disputed|disputes|found|finds|concluded|concludes|countered|replied|responded|"
    r"retorted|objected|expects|expected|estimated|feared|doubted|thinks|thought|cautioned|cautions|stressed|stresses|"
    r"emphasi[sz]ed|emphasi[sz]es|observed|observes|pointed\s+out|questioned|questions|cast\s+doubt|raised\s+concerns?|"
    # plural parties ("the police say", "critics argue"); not the forms that are nouns too ("report", "state", "call")
    r"say|argue|believe|warn|tell|write|describe|critici[sz]e|praise|blame|maintain|propose|recommend|deny|insist|"
    r"suggest|predict|condemn|testify|complain|announce|admit|acknowledge|confirm|explain|contend|allege|conclude|"
    r"expect|fear|doubt|think)\b", re.I)
_QUOTE_AFTER_PARTY = re.compile(r"(?:^|(?<=[,;.\n]))\s*([^,;:.\"'\u201c\u2018\n]{2,60}):\s*[\"'\u201c\u2018]([^\"\u201d\n]{3,})")
_ACCORDING = re.compile(r"\baccording\s+to\s+([^,;:]{2,60}),\s*", re.I)
#: Words before a verb of saying that are no party ("It was later reported", "as the study found").
_NO_PARTY = frozenset({"it", "as", "was", "been", "be", "is", "also", "later", "widely", "previously"})


_APPOSITION_PARTY = re.compile(r"\b(?i:the|a|an|its|their|our|his|her)\s+(?:[\w'\u2019\-]+\s+){0,4}[a-z]+,\s*"
                               r"([A-Z][\w.'\u2019\-]*(?:\s+[A-Z][\w.'\u2019\-]*){0,3}),\s*$")


_NAME_TITLE_PARTY = re.compile(r"(?:^|[,;:]\s*|\b(?:and|but|while|whereas)\s+)((?:[A-Z][\w.'\u2019\-]*\s+){1,3}[A-Z][\w.'\u2019\-]*),"
                               r"\s*((?:the\s+)?[A-Z][^,;]{1,60}|(?:the|a|an|its|their|our|his|her)?\s*[a-z][^,;]{1,60}),\s*$")
_RELATIVE_TAIL = re.compile(r",\s*(?:who|which|whose)\b[^,]*,?\s*$", re.I)
#: The party named after a quotation: '"...," said mission scientist Dr Helena Park', '"...," the economist said'.
_QUOTE_THEN_SAY_VERB = r"said|says|added|adds|wrote|writes|explained|explains|noted|notes|warned|warns|insisted|insists|argued|argues"
_QUOTE_THEN_PARTY = re.compile(r"[\"'\u201d\u2019]\s*,?\s*(?:(?i:" + _QUOTE_THEN_SAY_VERB + r")\s+([^,;:.!?\"\u201c\u201d\n]{2,60}?)"
                               r"|([^,;:.!?\"\u201c\u201d\n]{2,60}?)\s+(?i:" + _QUOTE_THEN_SAY_VERB + r"))\s*(?=[,;:.!?\n]|$)")
#: A pronoun is no party of its own: who "she" is comes from another sentence.
_PRONOUN_PARTY = frozenset("he she they it we i you".split())


def _sayings(text: str) -> list[tuple[frozenset[str], frozenset[str], int, int, str]]:
    """(who, what, start, end, who's words) for each clause of ``text`` that gives someone's statement
    or view: the party before a verb of saying, the words after it; or "According to X, ..."."""
    out = []
    for q in quotations(text):  # '"This is the clearest evidence yet," said mission scientist Dr Helena Park'
        pm = _QUOTE_THEN_PARTY.match(text, q.end)
        party = (pm.group(1) or pm.group(2)).strip() if pm else ""
        if pm is None or not party or len(party.split()) > 8 or party.lower() in _PRONOUN_PARTY:
            continue
        who = frozenset(_fold(t) for t, _ in terms_with_offsets(party))
        what = frozenset(_fold(t) for t, _ in terms_with_offsets(q.text))
        if who and what:
            out.append((who, what, max(q.start - 1, 0), pm.end(), party))
    for qm in _QUOTE_AFTER_PARTY.finditer(text):  # "maintainer Kim: 'We will drop support ...'"
        who = frozenset(_fold(t) for t, _ in terms_with_offsets(qm.group(1)))
        what = frozenset(_fold(t) for t, _ in terms_with_offsets(qm.group(2)))
        if who and what and len(qm.group(1).split()) <= 6:
            out.append((who, what, qm.start(1), qm.end(), qm.group(1).strip()))
    for a, b in clauses(text):
        clause = text[a:b]
        m = _ACCORDING.search(clause)
        if m:
            who_text, what_text = m.group(1), clause[m.end():]
        else:
            mv = _SAY.search(clause)
            if mv is None or re.search(r"\b(?:to|will|would|may|might|can|could|should|must)\s+$", clause[: mv.start()], re.I):
                continue  # an infinitive or a modal's verb is no one's statement ("every strategy to counter ...")
            who_text, what_text = clause[: mv.start()], clause[mv.end():]
            # "Dr Priya Menon, who led the study, said": the party before its relative clause.
            who_text = _RELATIVE_TAIL.sub("", who_text.rstrip()) + " "
            # The party is the words just before the verb ("... while captain Leo Brandt blamed"), not a
            # statement before it ("The deficit will narrow, the minister said" has its party after the verb).
            # A name set off by commas after its role ("the council's transport lead, Mark Elwood, argued") is the
            # party; any other empty piece before the verb names no one.
            appos = _APPOSITION_PARTY.search(who_text)
            # (or a name with its title or role set off after it: "Dr Priya Nair, Director of Public Health, called",
            # "Dr. Elena Ruiz, lead author of the study, said")
            titled = None if appos else _NAME_TITLE_PARTY.search(who_text)
            pieces = re.split(r"[,;:]|\b(?:and|but|while|whereas|although|though|yet)\b", who_text)
            who_text = appos.group(1) if appos else f"{titled.group(1)} {titled.group(2)}" if titled else pieces[-1]
            if not (appos or titled) and not who_text.strip() and re.search(r"\b(?:and|but)\s*$", clause[: mv.start()]):
                # (a second predicate of the clause's subject, "Watchdog Transport Focus urged passengers to check
                # ... and warned that ...": the party is the name that opens the clause)
                lead = next(iter(names(pieces[0])), None)
                if lead is not None and len(pieces[0][: lead.start].split()) <= 1:
                    who_text = lead.text + " "
            # (six words at most, eight for a named party: "Dr Hannah Price of Imperial College London")
            limit = 8 if names(who_text) else 6
            if set(who_text.lower().split()) & _NO_PARTY or len(who_text.split()) > limit or re.search(r"[\"\u201c\u201d(]", who_text):
                continue  # (a quotation's own words before its verb are no party: '"(The devil) is attempting')
        who = frozenset(_fold(t) for t, _ in terms_with_offsets(who_text))
        what = frozenset(_fold(t) for t, _ in terms_with_offsets(what_text))
        if who and what:
            out.append((who, what, a, b, who_text.strip()))
    return out


def _side_by_side(text: str, a: frozenset[str], b: frozenset[str], gap: int = 24) -> bool:
    """A word of ``a`` and a word of ``b`` within ``gap`` characters of each other in ``text``: an apposition
    ("prosecutor Francois Molins", "Molins, the prosecutor")."""
    pa = [p for t, p in terms_with_offsets(text) if _fold(t) in a]
    pb = [p for t, p in terms_with_offsets(text) if _fold(t) in b]
    # Only names, titles and punctuation between them: "the landlord blamed the tenants" is no apposition.
    return any(abs(x - y) <= gap and _APPOSED.fullmatch(text, *_between(text, x, y)) for x in pa for y in pb)


_APPOSED = re.compile(r"(?:[\s,\-\u2013\u2014]|\b(?:the|a|an)\b|[A-Z][\w.'\u2019-]*)*")


def _between(text: str, x: int, y: int) -> tuple[int, int]:
    """The span between the word at ``x`` and the word at ``y`` (either order)."""
    lo, hi = min(x, y), max(x, y)
    end = re.match(r"[\w'\u2019-]*", text[lo:])
    return lo + (end.end() if end else 0), hi


def _speaker(claim: str, sents, out: FactCheck, conf) -> None:
    """A view given to the wrong party: the evidence clause that says what the claim says names another
    party, and the claim's party says something else elsewhere in the context ("The finance minister
    called it 'wishful thinking'" when the opposition leader did; "Reviewers complained about the battery"
    when reviewers praised the camera and users complained).

    The verb may differ ("said" / "insists"); the party may be a name or a common noun ("the tenant").
    The clause that says it must hold most of the claim's statement, and hold more of it than any clause
    in which the claim's own party speaks."""
    # (a finding whose kind is rarely right, such as a "not" of another clause, does not stop it)
    if any(d.kind == "mismatch" and d.confidence >= 0.2 for d in out.differences):
        return
    mine = _sayings(claim)
    if not mine:
        return
    who, what, _, _, who_text = mine[0]
    at = claim.find(who_text)
    # (a party joined to another by "and", not a clause opened by ", and": "..., and even the Commission described")
    if re.search(r"\s(?:and|&)\s", who_text) or (at > 0 and re.search(r"[^,;\s]\s+(?:and|&)\s+(?:the\s+)?$", claim[:at], re.I)):
        return  # (two parties said to say it: "The President and the Interior Minister emphasised that A and B" may share it out)
    # A statement of one word ("complained about the noise") is read only where the context says it with
    # the same verb of saying: one shared word and any verb would tie any two parties.
    verb = _SAY.search(claim)
    single = _fold(stem(verb.group(0).lower())) if len(what) == 1 and verb else None
    if len(what) < 2 and single is None:
        return

    def said_same(clause: str) -> bool:
        # The same verb of saying: a statement half of whose words a pronoun took ("insisted it would ease
        # congestion" for "insisted the new road would ease congestion") is still the one the claim gives.
        v = _SAY.search(clause)
        return bool(verb and v and _fold(stem(v.group(0).lower())) == _fold(stem(verb.group(0).lower())))
    mine_named = frozenset().union(*(n.tokens for n in names(who_text)))

    def same_party(e_who_text: str) -> bool:
        # Parties with names are the same when their names are ("Reviewer Lee" is not "Reviewer Diaz").
        # (each with a word the other lacks: two people who share a role word or a surname).
        e_named = frozenset().union(*(n.tokens for n in names(e_who_text)))
        e_who = frozenset(_fold(t) for t, _ in terms_with_offsets(e_who_text))
        if (mine_named | who) & acronyms(e_who_text).keys():
            return True  # (one party, one of them by its initials: "the FD" is "the finance director")
        return (bool(mine_named & e_named) and not (mine_named - e_named and e_named - mine_named)
                if mine_named and e_named else bool(who & e_who))
    best, agree, spoke = None, 0.0, False
    for _, sent, p in sents:
        for e_who, e_what, a, b, e_who_text in _sayings(p.text):
            raw = _coverage(set(what), e_what)
            # (the same verb of saying breaks a tie: "insisted it would ease congestion" against "told the council
            # the new road would split the village", for "insisted the new road would ease congestion")
            cov = raw + (0.1 if said_same(p.text[a:b]) else 0.0)
            if same_party(e_who_text):
                agree, spoke = max(agree, cov), True
            elif (best is None or cov > best[0]) and (raw >= 0.6 or (raw >= 0.4 and said_same(p.text[a:b]))) and (
                    single is None or single in {_fold(t) for t, _ in terms_with_offsets(p.text[a:b])}):
                best = (cov, sent, a, b, e_who_text)
    owner = _quote_owner(claim, mine[0], sents)
    if owner is not None:
        if any(same_party(e_who_text) for e_who_text in owner[1]):
            return  # (the claim's party is given these very words in the context)
        # (a person the context quotes only under a description, and who says nothing else in it, may be the claim's:
        # "The former White Sox star said, '... makes no sense'" of Frank Thomas; RAGTruth labels such claims faithful)
        if mine_named and not spoke and all(_described(e_who_text) for e_who_text in owner[1]):
            return
        agree, best = 0.0, (1.0, *owner[0])
    # The claim's party must speak in the context too, saying something else, or be a party the context names
    # without giving it this statement ("The National Audit Office described the target as 'pure fantasy'" where
    # the Office only "will publish its review" and the opposition spokesman called it that).
    # (a party that is a name, its last word capitalised: "Raman herself", "the National Audit Office"; not "a
    # Danish contractor")
    party_words = re.sub(r"\s+(?:herself|himself|itself|themselves|alone|too|also)\s*$", "", who_text.strip(), flags=re.I).split()
    # (every word a name's, bar "the", "of" and titles: not "a third source from the Education Ministry")
    all_named = bool(party_words) and all(w[:1].isupper() or w.lower() in _JOINER_WORDS for w in party_words)
    capitalised = name_tokens(" ".join(w for w in party_words if w.lower() not in STOPWORDS)) if all_named else frozenset()
    named_elsewhere = bool(capitalised) and any(capitalised <= words(p.text) for _, _, p in sents)
    if best is None or not (spoke or named_elsewhere) or best[0] <= agree:
        return
    _, sent, a, b, e_who_text = best
    e_who = frozenset(_fold(t) for t, _ in terms_with_offsets(e_who_text))
    # Compared by their head words: "the driver's lawyer" is a lawyer, however near "the police, the driver" stand.
    head, e_head = _head(who_text), _head(e_who_text)
    if any(_side_by_side(p.text, _initialisms_read(head - e_who, p.text), e_head - who) for _, _, p in sents):
        return  # one party under two names ("Paris prosecutor Francois Molins": "the prosecutor" is Molins)
    out.differences.append(Difference(slot="attribution", claim_value=who_text, evidence_value=e_who_text,
                                      evidence_span=_span(sent, a, b), confidence=conf["attribution"]))


def _quote_owner(claim: str, saying, sents) -> tuple[tuple, list[str]] | None:
    """Who the context gives the claim's quotation to: ((sentence, start, end, party) of the first saying that
    quotes the same words, every party that does). Why: a quotation is exact, so when the claim puts quoted words
    in one party's mouth and the context quotes them from another, the swap shows even where the claim's paraphrase
    around the quote borrows the other party's sentence ("the spokesperson called the fall in offers 'deeply
    disappointing'"). Read only for a quotation of two words or more inside the claim's saying clause."""
    _, _, a, b, _ = saying
    quoted = [q.text.lower() for q in quotations(claim) if a <= q.start < b and len(q.text.split()) >= 2]
    if not quoted:
        return None
    # (a claim may quote a stretch of three words or more out of a longer quotation: "described the findings as
    # 'the clearest evidence yet'" of '"This is the clearest evidence yet," said ...')
    spans = [" ".join(re.findall(r"[\w'\u2019]+", t)) for t in quoted]
    first, parties = None, []
    for _, sent, p in sents:
        for q in quotations(p.text):
            had = " " + " ".join(re.findall(r"[\w'\u2019]+", q.text.lower())) + " "
            if q.text.lower() not in quoted and not any(len(t.split()) >= 3 and f" {t} " in had for t in spans):
                continue
            for _, _, ea, eb, e_who_text in _sayings(p.text):
                if ea <= q.start < eb:
                    first = first or (sent, ea, eb, e_who_text)
                    parties.append(e_who_text)
    return (first, parties) if first is not None else None


def _described(party: str) -> bool:
    """Is a party named by a description, its last word no name and its first an article ("the former White Sox star",
    "a spokesman"; "Dr. Elena Ruiz, lead author of the study" is named)?"""
    last = re.findall(r"[A-Za-z][\w'\u2019-]*", party)
    # (a description opens with its article: "The former White Sox star", "a spokesman", "the club's chairman")
    return bool(last) and last[-1][0].islower() and re.match(r"\s*(?:the|a|an|this|that|one)\b", party, re.I) is not None


def _initialisms_read(tokens: frozenset[str], text: str) -> frozenset[str]:
    """``tokens`` with each initialism ``text`` spells out replaced by its last word ("cfo" -> "officer", of
    "chief financial officer"), the word an apposition stands beside."""
    spelled = acronyms(text)
    return frozenset(_fold(sorted(spelled[t], key=lambda w: text.lower().find(w))[-1]) if t in spelled else t for t in tokens)


_JOINER_WORDS = frozenset("the of for and de van von".split())
#: Titles before a name: "Ms Patel" is named by "Patel".
_TITLES = frozenset("mr mrs ms miss dr prof sir dame lord lady st".split())


def _head(party: str) -> frozenset[str]:
    """The last word of a party ("the driver's lawyer": lawyer), or all of a name's words ("Francois Molins")."""
    ns = names(party)
    if ns:
        return frozenset(_fold(t) for t, _ in terms_with_offsets(ns[-1].text))
    terms = terms_with_offsets(party)
    return frozenset({_fold(terms[-1][0])}) if terms else frozenset()


def _attribution(claim: str) -> bool:
    return bool(re.search(r"\b(?:said|says|say|argued|argues|claimed|claims|called|calls|stated|states|believes?|"
                          r"warned|warns|according|told|wrote|described|criticised|criticized|praised)\b", claim, re.I))


#: "announced on Tuesday that it will": a report of the act whose subject is the name before it.
_REPORTED = re.compile(r"\b(?:said|says|announced|announces|confirmed|confirms|revealed|reported|stated|agreed|"
                       r"disclosed)\b[^,.;]{0,40}?\bthat\s+(?:it|they|he|she)\s+"
                       # "has completed its acquisition of": the act is the noun
                       r"|\b(?:has|have|had)\s+(?:completed|finalised|finalized|closed|announced|agreed)\s+(?:its|their|the)\s+",
                       re.I)


_COMMA_ASIDE = re.compile(r",\s+(?:the|a|an|its|their|his|her|who|which|whose)\b[^,;.]{1,80},")


def _acts(claim: str, c_names: list[Name]) -> bool:
    """The two names of the claim are joined by a verb of a listed action ("bought", "sued", "defeated")."""
    n1, n2 = sorted(c_names[:2], key=lambda n: n.start)
    return any(lexicon.is_action(t) for t in _link_terms(_REPORTED.sub(" ", claim[n1.end:n2.start])))


def _roles(claim: str, c_names: list[Name], a_text: str, sent, known, out: FactCheck, conf) -> None:
    """Who did what to whom: two names on the two sides of a shared verb, swapped."""
    if len(c_names) < 2 or any(d.slot in ("entity", "attribution") for d in out.differences):
        return
    e_names = names(a_text, known)
    lower = words(" ".join(re.findall(r"(?<![\w'’\-])[a-z][\w'’\-]*", claim + " " + a_text)))
    c_names = [n for n in c_names if n.end > n.start and (len(n.tokens) > 1 or not (n.tokens & lower))]
    e_names = [n for n in e_names if len(n.tokens) > 1 or not (n.tokens & lower)]
    if len(c_names) < 2:
        return
    found = [n for n in c_names if any(x.tokens & n.tokens for x in e_names)]
    if len(found) < 2:
        return
    # The first two names the link joins; failing them, the first with the third ("Northvale have signed lock
    # James Corrigan from Harbour City": the signing club and the selling club, the player between them).
    for i, j in ((0, 1), (0, 2), (1, 2))[: 1 if len(found) < 3 else 3]:
        n1, n2 = found[i], found[j]
        if n1.tokens & n2.tokens:
            continue  # (names that share a word are no two parties told apart: "Taubman", "Robert Taubman")
        gap = claim[n1.end:n2.start] if n1.start < n2.start else ""
        gap_words = re.findall(r"[A-Za-z]+", gap.lower())
        if _LIST_JOIN.fullmatch(gap) and not any(lexicon.is_action(w) for w in gap_words) \
                and not any(w.endswith("ed") or w in ("by", "to", "of", "with", "for", "from", "against") for w in gap_words) \
                and all(any(m.tokens & n.tokens for m in e_names[:12]) for n in (n1, n2)) \
                and all(_item_figures(claim, n) <= _item_figures(a_text, m) for n in (n1, n2)
                        for m in e_names[:12] if m.tokens & n.tokens):
            # (two items of a list, in any order, each with its own figures: "one USB-A port and two USB-C ports" has
            # no roles; "29-year-old Ningsih and 25-year-old Mujiasih" with the ages the other way round is read on)
            continue
        joined = _role_link(claim, n1, n2, a_text, e_names)
        if joined is not None:
            break
    else:
        return  # no shared link, not even one action named by two verbs ("defeated" / "beat")
    m1, m2, lo, hi = joined
    passive_c = bool(re.search(r"\bby\b", claim[n1.end:n2.start], re.I)) and not _infinitive_link(claim[n1.end:n2.start])
    passive_e = bool(re.search(r"\bby\b", a_text[lo.end:hi.start], re.I)) and not _infinitive_link(a_text[lo.end:hi.start])
    same_order = m1.start < m2.start
    if same_order == (passive_c == passive_e):
        return
    out.differences.append(Difference(slot="role", claim_value=claim.strip(), evidence_value=a_text.strip(),
                                      evidence_span=_span(sent), confidence=conf["role"]))


def _item_figures(text: str, n: Name) -> frozenset[float]:
    """The values of the figures in the list item of ``text`` that holds the name ``n`` (between commas, semicolons,
    "and" or "or")."""
    lo = max((m.end() for m in re.finditer(r"[,;(]|\b(?:and|or)\b", text[:n.start])), default=0)
    hi = next((m.start() + n.end for m in re.finditer(r"[,;)]|\b(?:and|or)\b", text[n.end:])), len(text))
    return frozenset(q.value for q in parse_quantities(text[lo:hi]))


#: What joins two items of a list: a comma, "and" or "or", with at most three words either side ("port and two").
_LIST_JOIN = re.compile(r"\s*(?:[^\s,;]+\s+){0,3}?(?:,\s*(?:and\s+|or\s+)?|(?:and|or)\s+)(?:[^\s,;]+\s+){0,3}", re.I)


def _role_link(claim: str, n1: Name, n2: Name, a_text: str, e_names: list[Name]) -> tuple[Name, Name, Name, Name] | None:
    """The mentions of ``n1`` and ``n2`` in ``a_text`` joined by a link the claim joins them by too (the same words,
    or one action named by two verbs), and the two in the order written; None when no link is shared. Why: a
    role is swapped only between two parties the same act joins on both sides."""
    gap_c = claim[n1.end:n2.start] if n1.start < n2.start else ""
    between_c = _link_terms(_REPORTED.sub(" ", gap_c))
    if not between_c:
        return None
    # Each name may be mentioned more than once ("In Dorsey Farms v. Calloway Freight, the court held that
    # Calloway Freight had breached its contract with Dorsey Farms"): the two mentions the link joins.
    acts_c = {lexicon.action(t) for t in between_c}
    for m1 in [x for x in e_names if x.tokens & n1.tokens]:
        for m2 in [x for x in e_names if x.tokens & n2.tokens and x is not m1]:
            lo, hi = sorted([m1, m2], key=lambda x: x.start)
            between_e = _link_terms(_REPORTED.sub(" ", a_text[lo.end:hi.start]))
            if between_c & between_e or acts_c & {lexicon.action(t) for t in between_e}:
                return m1, m2, lo, hi
    return None


#: Past tenses whose passive participle differs ("wrote" -> "written by"); regular ones end in "-ed" both ways.
_PARTICIPLE = {"wrote": "written", "drew": "drawn", "took": "taken", "gave": "given", "chose": "chosen", "spoke": "spoken",
               "broke": "broken", "began": "begun", "sang": "sung", "threw": "thrown", "beat": "beaten", "wore": "worn",
               "hid": "hidden", "built": "built", "made": "made", "led": "led", "won": "won", "found": "found",
               "bought": "bought", "sold": "sold", "taught": "taught", "held": "held", "paid": "paid", "sent": "sent",
               "told": "told", "shot": "shot", "struck": "struck", "ran": "run", "flew": "flown", "grew": "grown",
               "knew": "known", "saw": "seen", "stole": "stolen", "froze": "frozen", "rode": "ridden", "shook": "shaken",
               "lent": "lent", "kept": "kept", "brought": "brought", "caught": "caught", "spent": "spent", "met": "met",
               "fed": "fed", "sought": "sought", "fought": "fought", "hung": "hung", "bound": "bound", "dug": "dug"}
_ACTIVE_VERB = re.compile(r"\s+(?:also\s+|later\s+|first\s+|once\s+|reportedly\s+)?([a-z]{3,}ed|" + "|".join(_PARTICIPLE) + r")\b")


def _passive_agent(claim: str, c_names: list[Name], sents, known: set[str], out: FactCheck, conf) -> None:
    """The claim's subject did what the context says someone else did: "Ada Lovelace designed the Analytical
    Engine" against "the Analytical Engine, a machine designed by Charles Babbage". The claim opens with a
    name and an active verb in the past; the context has the same verb's passive with "by" and another name,
    and the claim's object (the first word after the verb) before it in the same sentence."""
    if not c_names or claim[: c_names[0].start].strip().lower() not in ("", "the"):
        return
    subj = c_names[0]
    m = _ACTIVE_VERB.match(claim, subj.end)
    if m is None:
        return
    verb = m.group(1).lower()
    after = content_terms(claim[m.end():])
    if not after:
        return
    head = _fold(after[0])
    by = re.compile(rf"\b{re.escape(_PARTICIPLE.get(verb, verb))}\s+by\s+([^,;.()]+)", re.I)
    for _, sent, p in sents:
        for hit in by.finditer(p.text):
            if head not in _parse(p.text[: hit.start()]).term_set:
                continue
            phrase = re.split(r"\s+(?:and|but|while|in|on|at|for|from|with|during|after|before)\s+(?=[a-z])", hit.group(1))[0]
            agents = names(phrase, known)  # "by Hana Ito and Ken Abe", not "by Hana Ito and illustrated by Ken Abe"
            if agents and not any(a.tokens & subj.tokens for a in agents):
                out.differences.append(Difference(
                    slot="role", claim_value=f"{subj.text} {verb}", evidence_value=f"{_PARTICIPLE.get(verb, verb)} by {phrase.strip()}",
                    evidence_span=_span(sent), confidence=conf["role"]))
                return


_BY_AGENT = re.compile(r"\b([a-z]{3,})\s+by\s+((?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?[A-Z][\w'\u2019\-]*(?:\s+[A-Z][\w'\u2019\-]*)*)")
#: The base of a passive participle whose stem is not the active verb's ("led by" / "leads").
_PARTICIPLE_BASE = {"led": "lead", "run": "run", "held": "hold", "built": "build", "written": "write", "made": "make",
                    "taught": "teach", "won": "win", "sold": "sell", "bought": "buy", "given": "give", "taken": "take",
                    "drawn": "draw", "begun": "begin", "chosen": "choose", "kept": "keep", "paid": "pay", "sent": "send",
                    "told": "tell", "beaten": "beat", "caught": "catch", "brought": "bring", "overseen": "oversee"}


def _passive_claim(claim: str, sents, known: set[str], out: FactCheck, conf) -> None:
    """The mirror of ``_passive_agent``: the claim says a thing was done *by* a name ("the exotic pets service,
    which is led by Dr. Tomasz Ferrant"), the context names another as the one who does it, in the active
    ("Dr. Anneliese Vorhout leads the clinic's exotic pets service"), and never the claim's name."""
    if any(d.slot in ("role", "entity", "attribution", "moved") and d.kind == "mismatch" for d in out.differences):
        return
    for m in _BY_AGENT.finditer(claim):
        part = m.group(1).lower()
        if not (part.endswith(("ed", "en", "wn")) or part in _PARTICIPLE_BASE):
            continue
        base = stem(_PARTICIPLE_BASE.get(part, part))
        agent = name_tokens(m.group(2))
        thing = {_fold(t) for t in content_terms(claim[max(0, m.start() - 60):m.start()])} - {"which", "who"}
        if not agent or len(thing) < 2:
            continue
        doers, agent_does = [], False
        for _, sent, p in sents:
            for n in names(p.text, known):
                # (a future or planned act too: "Dr Nandakumar will lead the new MSc", for "will be led by Keogh")
                v = re.match(r"\s+(?:(?:also|now|currently|still|will|shall|(?:is|are)\s+(?:set\s+)?to)\s+){0,2}([a-z]{3,})\b",
                             p.text[n.end:])
                if v is None or stem(v.group(1)) != base:
                    continue
                obj = {_fold(t) for t in content_terms(p.text[v.end():v.end() + 60])}
                if len(obj & thing) < 2:
                    continue
                if n.tokens & agent:
                    agent_does = True
                else:
                    doers.append((sent, n, v.group(1)))
        if doers and not agent_does:
            sent, n, verb = doers[0]
            out.differences.append(Difference(slot="role", claim_value=f"{part} by {m.group(2)}",
                                              evidence_value=f"{n.text} {verb}", evidence_span=_span(sent),
                                              confidence=conf["role"]))
            return


_DESCRIPTOR = re.compile(r"(?<=\w)\s+(?:the|a|an|its|their|his|her|our|your)\s+"
                         r"(?:(?!(?:of|to|for|by|with|from|and|or|in|on|at|as|than)\b)[\w\-]+\s+){1,4}$", re.I)


#: The object of a verb that moves it from one party to the other, right before the preposition that names the
#: second: "acquired [the snack brand crunchlo] from", "sold [its stake] to", "filed [a lawsuit] against"; its
#: head (the last word) is kept, it may name the act ("lawsuit").
_MOVED_OBJECT = re.compile(r"(?<=\w)\s+(?:the|a|an|its|their|his|her|our)\s+(?:[\w\-]+\s+){0,3}?([\w\-]+\s+)"
                           r"(?=(?:from|to|against)$)", re.I)


def _link_terms(gap: str) -> set[str]:
    """The words that link two names, from the text between them: a possessive's head ("Napoleon's forces
    defeated"), an apposition or aside between commas ("Daniel Cho, the head of finance, reports to"; "with
    Prussian support") kept apart, so the names stay the verb's arguments however they are dressed. Empty
    when the names are too far apart to be one verb's arguments (a piece over 6 words, or over 14 in all)."""
    gap = re.sub(r"^['’]s\s+[\w\-]+", "", gap.strip())
    # A descriptor right before the second name is that name's, not the link: "acquire the organic snack maker
    # Little Acre", "against its former employee Joanne Harlow" (not "the father of": no preposition in it).
    gap = _DESCRIPTOR.sub("", gap + " ").strip()
    # (a title right before the second name is that name's: "filed a claim against Mr. Desmond Achebe")
    title = re.search(r"\b([A-Za-z]+)\.?$", gap)
    if title and title.group(1).lower() in TITLES:
        gap = gap[: title.start()].strip()
    # (the thing an act moves between the two is no part of the link: "has acquired the snack brand crunchlo from")
    gap = _MOVED_OBJECT.sub(lambda m: " " + m.group(1), gap)
    if re.search(r"[.!?:\n]|(?:^|,)\s*(?:and|or)\b", gap):
        return set()  # another sentence, or the next item of a list ("his sons, Robert and William, a daughter, ...")
    pieces = [x for x in re.split(r"[,;()]", gap) if x.strip()]
    if len(pieces) == 1 and len(gap.split()) > 6:
        tail = _infinitive_link(gap)
        if tail:
            pieces = [tail]
    # (a passive's piece runs longer: "has been acquired by the much larger")
    by = re.search(r"\bby(?:\s+(?:the|a|an))?(?:\s+[\w\-]+){0,2}\s*$", gap) is not None
    # (an aside between commas may run longer: ", the Perth snack maker founded in 1979, has agreed to buy")
    if not pieces or len(gap.split()) > (16 if by else 14) or any(
            len(x.split()) > (12 if _ASIDE.match(x) and len(pieces) > 1 else 8 if by else 6) for x in pieces):
        return set()
    # An apposition or aside ("the head of finance", "a daughter", "with Prussian support") names or qualifies;
    # the piece left is the link ("reports to", "defeated").
    links = [x for x in pieces if not _ASIDE.match(x)]
    return set().union(*(_verb_terms(x) for x in links)) if links else set()


_ASIDE = re.compile(r"\s*(?:a|an|the|his|her|its|their|our|my|your|with|without|including|in|on|at|of|from|aged?)\b", re.I)


def _infinitive_link(gap: str) -> str | None:
    """The act a long verb phrase between two names leads up to, "to <verb>" ("fought back from 2–0 down to beat",
    "agreed on 8 July to acquire British soft-drinks maker"), or None. Its subject is the name before the phrase,
    whatever else the phrase says ("was updated by the maker to fix": the "by" is another verb's)."""
    tail = re.search(r"\bto\s+([a-z]+)(?:\s+[\w\-]+){0,3}\s*$", gap.strip())
    return "to " + tail.group(1) if tail and len(gap.split()) <= 14 else None


#: A passive verb, with or without its agent ("was approved by", "are all covered", "is stocked at").
#: A passive: a participle after "be", regular ("approved"), irregular ("run", "led", "built") or any verb
#: with its agent after it ("is now run by").
_PASSIVE = re.compile(r"\b(?:is|are|was|were|be|been|being)\s+(?:\w+\s+){0,2}?(?:\w+(?:ed|en|wn)|"
                      + "|".join(sorted(set(_PARTICIPLE.values()))) + r"|\w+\s+by)\b", re.I)
_FROM_TO = re.compile(r"\bfrom\s+((?:\w+\s+){0,2}?\w+)\s+(?:to|into)\s+(\w+(?:\s+\w+){0,2})", re.I)


_CONVERSE = {"before": "after", "after": "before", "earlier": "later", "later": "earlier", "preceded": "followed",
             "followed": "preceded", "precedes": "follows", "follows": "precedes"}


def _converse(claim: str, e_text: str) -> bool:
    """The two sides say one order from its two ends ("closes two weeks before the conference starts" /
    "the conference starts two weeks after registration closes"): a swap of the things ordered is no role swap."""
    c_words = {w.lower() for w in re.findall(r"\b(?:before|after|earlier|later|preceded|followed|precedes|follows)\b", claim, re.I)}
    e_words = {w.lower() for w in re.findall(r"\b(?:before|after|earlier|later|preceded|followed|precedes|follows)\b", e_text, re.I)}
    return bool(c_words) and bool(e_words) and all(_CONVERSE[w] in e_words and w not in e_words for w in c_words)


def _acted(t: str) -> str:
    act = lexicon.action(t)
    return act if act != t.lower() else _fold(t)


_SCALE_TERMS = frozenset(t for w in ("hundred", "thousand", "million", "billion", "trillion") for t in (w, stem(w)))
#: "Guest passes: two free per month": a record's field, its words in any order.
_LABELLED = re.compile(r"^\W*[\w'\u2019 -]{1,40}:\W*\s")


_CONJUNCT = re.compile(r",?\s+and\s+|;\s*|,\s+while\s+|,\s+whereas\s+", re.I)


def _part_fit(t: set[str], parts: list[set[str]], j: int) -> float:
    return _coverage(t, parts[j])


def _conjuncts_reordered(claim: str, e_text: str) -> bool:
    """The claim gives the evidence's statements in another order ("A second permit is £110 and the first is £65"
    / "The first permit costs £65 and a second permit costs £110"): each of its conjuncts is most of one of the
    evidence's, figures included, and not the same one twice."""
    def parts(text: str) -> list[set[str]]:
        p = _parse(text)
        return [set(_piece_terms(p, a, b)) for a, b in _pieces_at(text, _CONJUNCT)]
    cp, ep = parts(claim), parts(e_text)
    if len(cp) < 2 or len(ep) < 2:
        return False
    best = [max(range(len(ep)), key=functools.partial(_part_fit, t, ep)) for t in cp]
    return len(set(best)) == len(cp) and best != sorted(best) and all(
        t and _coverage(t, ep[j]) >= 0.75 for t, j in zip(cp, best))


def _swapped(claim: str, a_text: str, sent, out: FactCheck, conf) -> None:
    """Who does what to whom, beyond names: in a near-copy of the evidence sentence (the same words, each
    side holding 3/4 of the other's), two words on the two sides of a word both use, swapped ("plants absorb
    oxygen and release carbon dioxide" / "absorb carbon dioxide and release oxygen"; "the landlord owes Mr.
    Okoye" / "Mr. Okoye owes his landlord"), or the two ends of a "from ... to ..." swapped. A passive on one
    side only turns the order around by itself ("approved by the committee"), so it is left alone."""
    if _LABELLED.match(claim) or _conjuncts_reordered(claim, a_text):
        return
    for e_text in [a_text[x:y] for x, y in clauses(a_text)] + ([a_text] if len(clauses(a_text)) > 1 else []):
        if _converse(claim, e_text):
            continue
        # Verbs of one action are one word here ("is suing" / "has sued", "bought" / "acquired"); a figure's scale
        # word ("$14.2 million") is the figure's.
        c_seq = [(_acted(t), p) for t, p in terms_with_offsets(claim) if not t[0].isdigit() and t not in _SCALE_TERMS]
        e_seq = [(_acted(t), p) for t, p in terms_with_offsets(e_text) if not t[0].isdigit() and t not in _SCALE_TERMS]
        c_set, e_set = {t for t, _ in c_seq}, {t for t, _ in e_seq}
        if len(c_set & e_set) < 3 or min(_coverage(c_set, e_set), _coverage(e_set, c_set)) < STRONG_ALIGNMENT:
            continue
        ends_c, ends_e = _FROM_TO.search(claim), _FROM_TO.search(e_text)
        if ends_c and ends_e:
            fc = [{_fold(t) for t in content_terms(g)} for g in ends_c.groups()]
            fe = [{_fold(t) for t in content_terms(g)} for g in ends_e.groups()]
            if fc[0] and fc[1] and fc[0] & fe[1] and fc[1] & fe[0] and not (fc[0] & fe[0]):
                _add_role(claim, e_text, sent, a_text, out, conf)
                return
        # The words each side uses exactly once, by their index in its sequence of words.
        c_count, e_count = Counter(t for t, _ in c_seq), Counter(t for t, _ in e_seq)
        c_idx = {t: i for i, (t, _) in enumerate(c_seq) if c_count[t] == 1}
        e_idx = {t: i for i, (t, _) in enumerate(e_seq) if e_count[t] == 1}
        for r in [t for t in c_idx if t in e_idx]:
            if _in_list(claim, c_seq, c_idx[r]) or _in_list(e_text, e_seq, e_idx[r]):
                continue  # an item of a list ("120 rooms, a spa and two restaurants"): its neighbours may come in any order
            if _passive_at(claim, c_seq[c_idx[r]][1]) != _passive_at(e_text, e_seq[e_idx[r]][1]):
                continue
            if _nominal_at(claim, c_seq[c_idx[r]][1], e_text, e_seq[e_idx[r]][1]):
                continue
            # The words right next to the shared one (two either side), each moved to its other side.
            # (three words on the evidence's side: "to pay $14.2 million to its former supplier Altamar Freight")
            near_c = lambda t, d: t in c_idx and 0 < d * (c_idx[t] - c_idx[r]) <= 2  # noqa: E731
            near_e = lambda t, d: t in e_idx and 0 < d * (e_idx[t] - e_idx[r]) <= 3  # noqa: E731
            # (an item of a list moved with its list is no participant: "tools, manuals and spare parts are kept
            # in the van" / "the van keeps tools, manuals and spare parts")
            listed = lambda t: _in_list(claim, c_seq, c_idx[t]) or _in_list(e_text, e_seq, e_idx[t])  # noqa: E731
            moved_right = [t for t in c_idx if t != r and near_c(t, -1) and near_e(t, +1) and not listed(t)]
            moved_left = [t for t in c_idx if t != r and near_c(t, +1) and near_e(t, -1) and not listed(t)]
            if moved_right and moved_left:
                _add_role(claim, e_text, sent, a_text, out, conf)
                return


_PREP_AFTER = re.compile(r"[\w'’\-]*\s+(?:in|for|of|on|within|across|inside|under)\b", re.I)


def _nominal_at(claim: str, pc: int, e_text: str, pe: int) -> bool:
    """The shared word is a noun on one side and a verb on the other: "HTTP/2 support in `rivet serve`" is
    "`rivet serve` now supports HTTP/2", its parties on the other sides of the word (two forms of the word, one
    right before a preposition)."""
    wc, we = re.match(r"[\w'’\-]*", claim[pc:]), re.match(r"[\w'’\-]*", e_text[pe:])
    if wc is None or we is None or wc.group().lower() == we.group().lower():
        return False
    return bool(_PREP_AFTER.match(claim, pc) or _PREP_AFTER.match(e_text, pe))


def _passive_at(text: str, pos: int) -> bool:
    """Is the clause of ``text`` around offset ``pos`` passive?"""
    return any(a <= pos < b and _PASSIVE.search(text[a:b]) for a, b in clauses(text))


def _in_list(text: str, seq: list[tuple[str, int]], i: int) -> bool:
    """Word ``i`` of ``seq`` (offsets into ``text``) sits between list separators: a comma, "and" or "or" on
    both sides, or a comma on either."""
    def sep(a: int, b: int) -> str:
        gap = text[a:b].lower()
        return "comma" if "," in gap or ";" in gap else "and" if re.search(r"\b(?:and|or)\b", gap) else ""

    _, p = seq[i]
    word = re.match(r"[\w'’\-]*", text[p:])
    assert word is not None  # a pattern that matches the empty string always matches
    end = p + len(word.group())
    left = sep(seq[i - 1][1], p) if i > 0 else ""
    right = sep(end, seq[i + 1][1]) if i + 1 < len(seq) else ""
    return bool(left and right) or "comma" in (left, right)


def _from_to_swapped(claim: str, sents, out: FactCheck, conf) -> None:
    """The two ends of a movement swapped ("heading from Phuket to Bangkok" where the flight heads from Bangkok to
    Phuket), however the rest is reworded: the evidence sentence goes from the claim's end to its start and shares
    two more words with the claim (the same movement), and no evidence sentence goes the claim's way."""
    if any(d.slot == "role" for d in out.differences):
        return
    m = _FROM_TO.search(claim)
    if m is None:
        return
    fc = [{_fold(t) for t in content_terms(g)} for g in m.groups()]
    if not fc[0] or not fc[1] or fc[0] & fc[1]:
        return
    rest = {_fold(t) for t in content_terms(claim[: m.start()] + " " + claim[m.end():])} - fc[0] - fc[1]
    hit = None
    for _, s, p in sents:
        for me in _FROM_TO.finditer(p.text):
            fe = [{_fold(t) for t in content_terms(g)} for g in me.groups()]
            if fc[0] & fe[0] and fc[1] & fe[1]:
                return  # the context goes the claim's way too
            if fc[0] & fe[1] and fc[1] & fe[0] and not (fc[0] & fe[0]) and hit is None \
                    and len(rest & {_fold(t) for t in content_terms(p.text)}) >= 2:
                hit = (s, p.text, me)
    if hit is not None:
        s, text, me = hit
        out.differences.append(Difference(slot="role", claim_value=m.group(0), evidence_value=me.group(0),
                                          evidence_span=_span(s, me.start(), me.end()), confidence=conf["role"]))


def _add_role(claim: str, e_text: str, sent, a_text: str, out: FactCheck, conf) -> None:
    start = a_text.find(e_text)
    span = _span(sent, start, start + len(e_text)) if start >= 0 else _span(sent)
    out.differences.append(Difference(slot="role", claim_value=claim.strip(), evidence_value=e_text.strip(),
                                      evidence_span=span, confidence=conf["role"]))


def _verb_terms(text: str) -> set[str]:
    return {_fold(t) for t in content_terms(text) if not t[0].isdigit()}


# -- polarity: negation, modality, direction, quantifiers ---------------------------------------
_MODAL_CONFLICTS = {
    frozenset({"forbidden", "allowed"}), frozenset({"forbidden", "required"}), frozenset({"forbidden", "recommended"}),
    frozenset({"forbidden", "optional"}), frozenset({"optional", "required"}), frozenset({"discouraged", "recommended"}),
    frozenset({"discouraged", "required"}), frozenset({"discouraged", "allowed"}), frozenset({"forbidden", "discouraged"}),
}


def _anchors(p: _Parsed) -> set[str]:
    """A text's figures and dates as terms ("3", "date:None-5-None"), which two texts stating them share."""
    return {t for t, _ in p.terms if t[0].isdigit()} | {f"date:{d.year}-{d.month}-{d.day}-{d.weekday}" for d in p.dates}


#: What turns a prohibition into a requirement: "may not enter unless / without / except with goggles".
_UNLESS = re.compile(r"\b(?:unless|without|except|only\s+(?:if|when|with|after))\b", re.I)


_MAY = re.compile(r"\b(?:may|might|could)(?:\s+not)?\b", re.I)


def _what_may_happen(text: str) -> bool:
    """Its only modal is a "may" / "might" / "could" of what may happen, not of what is allowed: no act in the
    passive after it ("may be requested"), no addressee before it ("visitors may bring"); "they may not prevent
    the pipe from turning", "the tablets may cause drowsiness"."""
    text = lexicon.without_month_may(text)
    cues = list(_MODAL_CUE.finditer(text))
    return bool(cues) and all(
        _MAY.fullmatch(m.group(0)) and not _PERMITTED_ACT.match(text, m.end())
        and not _ADDRESSEE_BEFORE.search(text, max(0, m.start() - 60), m.start()) for m in cues)


def _polarity(claim: str, c_terms: set[str], clause: tuple[int, int], sent, a_text: str, out: FactCheck, conf) -> None:
    a, b = clause
    e_text = a_text[a:b]
    if _QUESTION.search(a_text):
        return  # (a question states no polarity: "Q: Can I bring my dog? A: No." permits nothing)
    # The figures both sides state anchor them too ("Revenue grew 5% in 2023" / "Revenue fell 5% in 2023").
    e_parsed, c_parsed = _parse(e_text), _parse(claim)
    e_terms = set(e_parsed.term_set) | _anchors(e_parsed)
    c_terms = set(c_terms) | _anchors(c_parsed)
    shared = c_terms & e_terms
    # Both ways: the clause must say about the same thing as the claim, not just share a subject.
    if len(shared) < 2 or _coverage(c_terms, e_terms) < 0.5 or _coverage(e_terms, c_terms) < 0.4:
        return
    span = _span(sent, a, b)
    ex = _EXCEPT.search(e_text)
    if ex and _excepted_terms(e_text, ex) & c_terms and not _EXCEPT.search(claim):
        return  # about the case the evidence excepts, whose polarity is the other way (see _exceptions)
    if re.match(r"^[^:\n]{1,80}:\s", e_text):
        return  # a "key: value" data line: its false / null values are the heuristic's data-field checks
    mc, me = lexicon.modality(claim), lexicon.modality(e_text)
    # ("they may not prevent the pipe from turning": what may happen, not what is allowed)
    mc, me = (None if _what_may_happen(claim) else mc), (None if _what_may_happen(e_text) else me)
    # (both sides a ban, however worded, deny the same thing: "won't be able to use Elm Grove" / "Elm Grove will be
    # closed to vehicles"; their "not"s are no polarity to compare, whichever verbs the bans bear on)
    # ("Avoid harsh cleaners" / "Do not use abrasive cleaners": a discouraged act and a banned one deny it alike)
    both_deny = (mc == me and mc in ("forbidden", "optional", "discouraged")) or {mc, me} == {"forbidden", "discouraged"}
    if mc and me and not (_modal_verb(claim) & _modal_verb(e_text) & shared):
        mc = me = None  # the modal words bear on other verbs than the ones both sides share
    if {mc, me} == {"forbidden", "required"} and _UNLESS.search(e_text if me == "forbidden" else claim):
        return  # "may not enter unless you wear goggles" is "goggles are required to enter"
    # "must" where the source says "should", "can" or "may": an overclaim.
    stronger = mc == "required" and me in ("recommended", "allowed") and not (me == "allowed" and lexicon.only_allowed(e_text))
    if mc and me and mc != me and re.match(r"\s*(?:if|unless|when|provided)\b", e_text, re.I) \
            and not re.search(r"\b(?:if|unless|when|provided)\b", claim, re.I):
        mc = me = None  # "If you earn more than the limit, you cannot contribute": a case, not the rule the claim states
    if mc and me and mc != me and (frozenset({mc, me}) in _MODAL_CONFLICTS or stronger) and not _same_limit(claim, e_text):
        if not ({mc, me} == {"forbidden", "discouraged"} and _imperative(e_text + " " + claim)):
            out.differences.append(Difference(slot="modality", claim_value=_modal_phrase(claim, mc),
                                              evidence_value=_modal_phrase(e_text, me), evidence_span=span,
                                              confidence=conf["modality"]))
            return
    both_negated = lexicon.negated(claim) and lexicon.negated(e_text)
    if (mc is None) != (me is None) and {mc, me} & {"forbidden", "optional"} and lexicon.negated(claim) == lexicon.negated(e_text) \
            and not (both_negated and "forbidden" in (mc, me)) \
            and not (me is None and lexicon.modality(a_text) == mc):  # the modal sits in another clause of the sentence
        out.differences.append(Difference(slot="modality", claim_value=_modal_phrase(claim, mc) if mc else "(no modal)",
                                          evidence_value=_modal_phrase(e_text, me) if me else "(no modal)",
                                          evidence_span=span, confidence=conf["modality"]))
        return
    # ("without giving 24 hours' notice" on both sides is one condition both state, no polarity of either: what
    # each says of the rest is read without it)
    c_read, e_read = _without_shared_without(claim, e_text)
    neg_c, neg_e = _negates_shared(c_read, shared), _negates_shared(e_read, shared)
    if neg_c != neg_e and _same_negations(claim, e_text):
        neg_c = neg_e  # "miss an appointment without giving 24 hours' notice" on both sides: one negation, read alike
    if neg_c and not neg_e and lexicon.withdrawn(e_text) and not lexicon.supported(claim):
        neg_e = True  # "support for IE 11 was dropped" denies with its verb what "no longer supports IE 11" does
    if neg_c != neg_e and not (mc and me and mc == me and mc in ("forbidden", "optional", "discouraged")) and not both_deny:
        cue_c = lexicon.negation_cues(claim)
        cue_e = lexicon.negation_cues(e_text)
        out.differences.append(Difference(slot="negation", claim_value=" ".join(cue_c) or "(affirmative)",
                                          evidence_value=" ".join(cue_e) or "(affirmative)", evidence_span=span,
                                          confidence=conf["negation"]))
        return
    dc, de = lexicon.direction(claim), lexicon.direction(e_text)
    if dc and de and dc != de and lexicon.negated(claim) == lexicon.negated(e_text):
        out.differences.append(Difference(slot="direction", claim_value=_dir_word(claim), evidence_value=_dir_word(e_text),
                                          evidence_span=span, confidence=conf["direction"]))
        return
    qc, qe = _quantifier_on_shared(claim, shared), _quantifier_on_shared(e_text, shared)
    if qc is not None and qe is not None and qc > qe:
        out.differences.append(Difference(slot="quantifier", claim_value=_quant_word(claim), evidence_value=_quant_word(e_text),
                                          evidence_span=span, confidence=conf["quantifier"]))


_POLARITY = ("negation", "modality", "direction", "quantifier")
_DUTY_WORD = re.compile(r"\b(?:optional|voluntary|mandatory|compulsory|required|obligatory)\b", re.I)
_MAX_PIECES = 24
#: Where a sentence breaks into pieces a polarity word can bear on: clause punctuation, quotes, dashes.
_PIECE = re.compile(r"[,;:()\[\]\"\u201c\u201d]+|\s[\u2013\u2014-]\s")


def _pieces(text: str) -> list[tuple[int, int]]:
    """(start, end) of the pieces of ``text`` between clause punctuation, quotes and dashes."""
    return list(_pieces_of(text))


@functools.lru_cache(maxsize=16384)
def _pieces_of(text: str) -> tuple[tuple[int, int], ...]:
    out, pos = [], 0
    for m in _PIECE.finditer(text):
        if text[pos:m.start()].strip():
            out.append((pos, m.start()))
        pos = m.end()
    if text[pos:].strip():
        out.append((pos, len(text)))
    return tuple(out)


def _piece_terms(p: _Parsed, a: int, b: int) -> set[str]:
    """The terms and figures (``term_set`` and ``_anchors``) of the piece ``p.text[a:b]``, read from the whole
    text's parse: a piece is never parsed again (that was a third of the fact checks' time)."""
    out = {t if t[0].isdigit() else _fold(t) for t, pos in p.terms if a <= pos < b}
    return out | {f"date:{d.year}-{d.month}-{d.day}-{d.weekday}" for d in p.dates if a <= d.start < b}


def _flip_alignment(claim: str, e_text: str) -> float:
    """How nearly a piece of ``claim`` copies a piece of ``e_text`` that it negates the other way: min of the
    two coverages, over the piece pairs whose negation differs on a word both share; 0 when none does.
    The flip must sit in the copied pieces themselves: a claim that copies one clause and differs in
    negation in another is no near-copy with a flipped "not" (measured: RAGTruth's findings graded by the
    best piece pair alone were 2 real errors in 19)."""
    pe, pc = _parse(e_text), _parse(claim)
    e_pieces = [(e_text[a:b], _piece_terms(pe, a, b)) for a, b in _pieces(e_text)]
    best = 0.0
    for a, b in _pieces(claim)[:_MAX_PIECES]:
        part = claim[a:b]
        t = _piece_terms(pc, a, b)
        if len(t) < 2:
            continue
        for e_part, e in e_pieces:
            al = min(_coverage(t, e), _coverage(e, t)) if e else 0.0
            # Short pieces must be copies: three words in common out of four is a topic, not a copy.
            if len(t | e) < 5 and al < 1.0:
                continue
            if al > best and _negates_shared(part, t & e) != _negates_shared(e_part, t & e):
                best = al
    return best


#: Where one statement of change ends and the next begins ("As altitude increases, air pressure decreases").
_CHANGE_SPLIT = re.compile(r"[,;:]\s*|\s+(?:as|while|when|whereas|but|and|because|since|so)\s+", re.I)


def _changes(text: str) -> list[tuple[frozenset[str], str, str]]:
    """(what changes: the piece's content terms, 'up' / 'down', the direction word) for each piece of ``text``
    that states one change."""
    out = []
    pos = 0
    bounds = [(m.start(), m.end()) for m in _CHANGE_SPLIT.finditer(text)] + [(len(text), len(text))]
    for a, b in bounds:
        piece = text[pos:a]
        pos = b
        words_ = re.findall(r"[a-z]+", piece.lower())
        dirs = [(w, d) for w in words_ if (d := lexicon.direction(w))]
        if len(dirs) != 1:
            continue
        w, d = dirs[0]
        terms = frozenset(_fold(t) for t in content_terms(piece) if t != stem(w)) - _CHANGE_FILLER
        if terms:
            out.append((terms, d, w))
    return out


#: Words around a change that say how it goes, not what changes: "the amount of ice is still growing" is "ice
#: continues to grow".
_CHANGE_FILLER = frozenset(_fold(stem(w)) for w in "still continue continues continued continuing keep keeps kept remain "
                           "remains amount level levels number quantity steadily further again gradually slowly "
                           "rapidly sharply slightly".split())


def _piece_direction(claim: str, sents, out: FactCheck, conf) -> None:
    """A change said of the same thing the other way, where the sentence states two changes ("Air pressure
    increases as altitude increases" against "As altitude increases, air pressure decreases"): the
    whole-clause direction check reads such a sentence as saying both directions and stays silent. Pieces
    are compared only when they name the same things (the evidence's piece may add one word: "water use
    falls in the district"), figures and years included ("rose in 2020 and fell in 2021")."""
    mine = _changes(claim)
    if not mine:
        return
    for _, s, p in sents:
        for terms, d, w in _changes(p.text):
            for c_terms, c_d, c_w in mine:
                same = c_terms == terms or (len(c_terms) >= 2 and c_terms <= terms and len(terms - c_terms) <= 1)
                if same and c_d != d:
                    out.differences.append(Difference(slot="direction", claim_value=c_w, evidence_value=w,
                                                      evidence_span=_span(s), confidence=conf["direction"]))
                    return


@functools.lru_cache(maxsize=16384)
def _sentence_pieces(text: str) -> tuple[tuple[int, int, set[str]], ...]:
    """A sentence's pieces with their terms (two or more), once per sentence however many claims read it."""
    p = _parse(text)
    return tuple((a, b, t) for a, b in _pieces(text) if len(t := _piece_terms(p, a, b)) >= 2)


#: A piece that goes on with a list after a comma (no verb of its own before its "and" / "or"): ", packaging or garden".
_LIST_GOES_ON = re.compile(r"[\s,]*(?:[A-Za-z'-]+\s+){0,3}(?:and|or|nor)\b", re.I)
_PRONOUN_PIECE = re.compile(r"\s*(?:(?:but|and|so|yet|though|although)\s+)?(?:it|they|he|she)\b", re.I)


def _goes_on_flipped(claim: str, sents, out: FactCheck, conf) -> None:
    """An act the evidence says goes on that the claim says ends, or the other way ("the thermostat keeps running
    your schedules" / "your schedules stop running"). Why: neither side has a "not", so the polarity checks read
    both as affirmative. Read only where the claim has such a cue, against a sentence with the opposite cue on the
    same verb, whose piece shares at least two of the claim piece's other words and holds all but one of them: the
    same act on the same things said the other way, graded as the site flips are (``negation:site``)."""
    mine = lexicon.goes_on(claim)
    if not mine:
        return
    pc = _parse(claim)
    for sign, verb, pos in mine:
        a, b = _piece_bounds(claim, pos)
        # (up to the next clause of the piece: "... stop running and you can't control it" says two things)
        nxt = re.compile(r"\s(?:and|but|or|while|whereas|so)\s").search(claim, pos, b)
        b = nxt.start() if nxt else b
        c_terms = {t for t in _piece_terms(pc, a, b) if not t.startswith(verb)} - _GOES_ON_WORDS
        if len(c_terms) < 2:
            continue
        for _, s, p in sents:
            for e_sign, e_verb, e_pos in lexicon.goes_on(p.text):
                if e_sign == sign or e_verb != verb:
                    continue
                ea, eb = _piece_bounds(p.text, e_pos)
                e_terms = _piece_terms(p, ea, eb)
                if len(c_terms & e_terms) >= 2 and len(c_terms - e_terms) <= 1:
                    cw = re.match(r"\S+\s+\S+", claim[pos:])
                    ew = re.match(r"\S+\s+\S+", p.text[e_pos:])
                    out.differences.append(Difference(
                        slot="negation", claim_value=cw.group(0) if cw else verb,
                        evidence_value=ew.group(0) if ew else e_verb, evidence_span=_span(s, ea, eb),
                        confidence=conf.get("negation:site", UNMEASURED_PRIOR), grade="same_words"))
                    return


#: The cue words themselves, folded, left out of what a going-on / ending piece is about.
_GOES_ON_WORDS = frozenset(_fold(stem(w)) for w in "keep keeps kept continue continues continued carry carries carried "
                           "stop stops stopped cease ceases ceased".split())


def _piece_polarity(claim: str, sents, out: FactCheck, conf) -> None:
    """The polarity checks piece by piece, for a claim that copies one piece of an evidence sentence and
    flips it ("The fighting has not resulted in hundreds of deaths, and many civilians are fleeing"
    against "The fighting has resulted in hundreds of deaths."): the whole claim says more than that
    sentence, so it never aligns with it as a whole. Only near-copies (each piece holds 7/10 of the other's
    words) are compared, so a piece merely on the same topic never lends its polarity. A claim's first
    _MAX_PIECES pieces are read: the evidence side is bounded by its windows, the claim side only by the
    answer."""
    e_pieces = [(sent, p.text, a, b, t) for _, sent, p in sents for a, b, t in _sentence_pieces(p.text)]
    pc = _parse(claim)
    pieces = _pieces(claim)[:_MAX_PIECES]
    for a, b in pieces:
        part = claim[a:b]
        terms = own = _piece_terms(pc, a, b)
        resumed = a > 0 and _PRONOUN_PIECE.match(part) is not None
        if resumed:
            # (a piece that goes on about the first one's subject: "The curry is vegan, but it does contain nuts";
            # its own words must all be the evidence piece's: "so it suits a nut allergy" is another statement)
            part = claim[pieces[0][0]:pieces[0][1]] + ", " + part
            terms = terms | _piece_terms(pc, *pieces[0])
        if len(terms) < 3:
            continue
        best, best_al = None, 0.7
        for piece in e_pieces:
            al = min(_coverage(terms, piece[4]), _coverage(piece[4], terms))
            if resumed and not own <= piece[4]:
                continue
            if al >= best_al:
                best, best_al = piece, al
        if best is None:
            continue
        sent, text, ea, eb, _ = best
        if lexicon.negated(part) and _LIST_GOES_ON.match(text, ea) and lexicon.negated(text[:ea]):
            continue  # (a list's later items share its first one's "not": "It does not accept liquids, packaging or ...")
        n = len(out.differences)
        _polarity(part, set(_parse(part).term_set), (ea, eb), sent, text, out, conf)
        if len(out.differences) > n:
            return


# -- the same predicate, the other way ---------------------------------------------------------------------
# A "not" or a direction word bears on the words right after it ("is not suitable for diving", "increased
# our intelligence sharing"). When the claim states those very words the other way ("is suitable for
# diving", "decreased its intelligence sharing"), the flip is blatant however loosely the rest of the
# sentence is paraphrased; the whole-sentence alignment that grades other findings calls such a paraphrase
# loose and lets the flip pass (measured on RAGTruth as a kind apart: ``negation:site``, ``direction:site``).
_SITE_CUE = re.compile(r"\b(?:not|never|cannot|no\s+longer)\b|n['\u2019]t\b", re.I)
#: "found no significant difference": a "no" before what it denies is a cue of the negated side only (the
#: affirmed side is checked for every denying word, ``lexicon.DENYING``, which holds "no" already).
_SITE_NO = re.compile(r"\bno\b(?!\s+(?:more|less|later|earlier|longer|fewer|matter|one|doubt)\b)", re.I)
_SITE_GLUE = frozenset(stem(w) for w in "be been being get got become becomes became".split()) | frozenset(
    # adverbs that add nothing a flip turns round ("is not allowed anywhere on campus" / "is allowed on campus")
    stem(w) for w in "anywhere anymore ever really actually currently yet even".split())
#: A condition anywhere before a cue in its sentence: "if you earn too much, you cannot contribute" is a case.
_SITE_CONDITION = re.compile(r"\b(?:if|unless|whether|when|in\s+case|provided)\b", re.I)
_SITE_LEN = 2


@functools.lru_cache(maxsize=16384)
def _denials_of(sentence: str) -> tuple[tuple[frozenset[str], str], ...]:
    """(subject's words, the act's folded noun) for each "<subject> raised no objection" of a sentence: the
    content words before the light verb in its piece (at most three), folded. Cached by the sentence."""
    if " no " not in sentence.lower():
        return ()
    p = _parse(sentence)
    out = []
    for start, _, noun in lexicon.denied_acts(sentence):
        a, _ = _piece_bounds(sentence, start)
        subject = [_fold(t) for t, q in p.terms if a <= q < start and not t[0].isdigit() and t not in _SITE_GLUE][-3:]
        if subject:
            out.append((frozenset(subject), _fold(stem(noun))))
    return tuple(out)


def _denied_by_noun(claim: str, sents, out: FactCheck, conf) -> None:
    """An act the context denies of a party with a noun ("Highways officers raised no objection"), said of it as
    done ("Highways officers objected ..."): the verb and the noun fold to one word, every word of the context's
    subject comes before it in the claim's piece, and nothing denies it there. Silent when a piece of the context
    says the party did it after all ("... but later objected")."""
    if any(d.slot in _POLARITY for d in out.differences):
        return
    denials = [(s, subj, act) for _, s, p in sents for subj, act in _denials_of(p.text)]
    if not denials:
        return
    c = _parse(claim)
    folded = [(_fold(t), q) for t, q in c.terms if not t[0].isdigit()]
    for s, subj, act in denials:
        for i, (t, q) in enumerate(folded):
            if t != act:
                continue
            a, _ = _piece_bounds(claim, q)
            before = {x for x, y in folded[:i] if y >= a}
            if not subj <= before or lexicon.DENYING.search(lexicon.without_non_negations(claim[a:q])):
                continue
            if any(_affirmed(p, (sorted(subj)[0], act)) and subj <= {_fold(x) for x, _ in p.terms} for _, _, p in sents):
                return  # the context says the party did it too
            # (the party and its act, the very words the context denies: graded as a flip of the same words)
            out.differences.append(Difference(slot="negation", claim_value=f"(affirmative) {claim[q:].split()[0]}",
                                              evidence_value=f"no {act}", evidence_span=_span(s),
                                              confidence=conf.get("negation:site", UNMEASURED_PRIOR), grade="same_words"))
            return


def _piece_bounds(text: str, pos: int) -> tuple[int, int]:
    """The piece of ``text`` (between clause punctuation, quotes and dashes) holding ``pos``."""
    for a, b in _pieces(text):
        if a <= pos <= b:
            return a, b
    return 0, len(text)


def _site_after(terms, pos: int, end: int) -> tuple[str, ...]:
    """The first content words after ``pos`` up to ``end`` (figures and copulas left out)."""
    return tuple(t for t, q in terms if pos <= q < end and not t[0].isdigit() and t not in _SITE_GLUE)[:_SITE_LEN]






def _negated_sites(p: _Parsed) -> list[tuple[str, ...]]:
    return list(_negated_sites_of(p.text))


@functools.lru_cache(maxsize=16384)
def _negated_sites_of(sentence: str) -> tuple[tuple[str, ...], ...]:
    """What each negation of ``p`` bears on, as (subject, word, word): the content word before the negation
    in its piece (what the sentence is about: "the pool is not suitable for diving") and the next two after
    it. A negation with no such subject ("this won't get rid of the smell", "you cannot open one") is left
    out: on RAGTruth those were nearly all instructions and asides, not the statement a claim flips.
    Cached by the sentence: every claim against a context reads its sentences' sites."""
    p = _parse(sentence)
    # (a bracketed aside does not part the subject from its verb: "The Lite (1.4 kg) does not include a footprint")
    text = _BRACKETED.sub(lambda m: " " * len(m.group(0)), lexicon.without_non_negations(p.text))
    out = []
    label = lexicon.label_negation(text)
    for m in sorted([*_SITE_CUE.finditer(text), *_SITE_NO.finditer(text)], key=lambda x: x.start()):
        if _SITE_CONDITION.search(text[: m.start()]) or _UNLESS.search(text[m.end():]):
            continue  # "may not enter unless you wear goggles" is a condition, not a ban
        a, b = _piece_bounds(text, m.end())
        if any(rank in (1, 2) for rank, _, _ in lexicon.quantifiers(text[a:m.start()])):
            continue  # "Some people cannot be claimed": said of a part, which no claim about one case denies
        site = _site_after(p.terms, m.end(), b)
        # (not a word of a blanked aside: "The school, which is 500 metres from the base, was not the main target")
        subject = [t for t, q in p.terms if a <= q < m.start() and not t[0].isdigit() and t not in _SITE_GLUE
                   and not text[q].isspace()]
        if len(site) == _SITE_LEN and subject:
            out.append((subject[-1],) + site)
            # (a denial bears on each item of its list: "does not cover accidental damage, water damage or wear")
            first = next(q for t, q in p.terms if t == site[1] and q >= m.end())
            verb_end = next(q for t, q in p.terms if t == site[0] and q >= m.end())
            if verb_end < first and b < len(text) and text[b] == ",":
                for q in lexicon.list_items_after(text, b):
                    # (its first content word: "a grill or a dishwasher")
                    item = next((t for t, x in p.terms if x >= q and not t[0].isdigit() and t not in _SITE_GLUE), None)
                    if item is not None:
                        out.append((subject[-1], site[0], item))
        elif len(site) == _SITE_LEN and not subject and label is not None and m.end() <= label:
            out.append(("",) + site)  # "Not suitable for children under 12.": said of what the text describes
    return tuple(out)


def _affirmed(p: _Parsed, site: tuple[str, ...]) -> bool:
    """Does ``p`` state the site's words in a row, its subject before them, with nothing denying them? Cached by the
    sentence and the site: every claim of an answer reads the context's sentences for the same sites."""
    return _affirmed_in(p.text, site)


@functools.lru_cache(maxsize=65536)
def _affirmed_in(text: str, site: tuple[str, ...]) -> bool:
    p = _parse(text)  # (its terms, which a document's date order does not change)
    # (folded, as terms are elsewhere: "paid out when you resign" states "paid out on resignation")
    subject, words_ = _fold(site[0]), tuple(_fold(w) for w in site[1:])
    seq = [(_fold(t), q) for t, q in p.terms if not t[0].isdigit() and t not in _SITE_GLUE]
    for i in range(len(seq) - len(words_) + 1):
        # (a label's site has no subject: any word before the site names what the claim says it of)
        # (or, for a label, "it is" right before them: "it is suitable for children under 6")
        if tuple(t for t, _ in seq[i:i + len(words_)]) == words_ and (
                any(t == subject or not subject for t, _ in seq[:i])
                or not subject and lexicon.thing_pronoun_before(p.text[_piece_bounds(p.text, seq[i][1])[0]:seq[i][1]])):
            q = seq[i][1]
            a, _ = _piece_bounds(p.text, q)
            if re.match(r"\s*(?:which|who|whom|that)\b", p.text[a:q], re.I) \
                    and next((t for t, x in reversed(seq[:i]) if x < a), None) != subject:
                continue  # "close to a military base, which was the main target": said of the base, not the school
            before = lexicon.without_non_negations(p.text[a:q])
            if not lexicon.DENYING.search(before) \
                    and not re.search(r"\b(?:if|unless|when|whether|provided|as\s+long\s+as)\b", p.text[:q], re.I):
                return True  # (a claim under a condition, "If they meet these rules, you can claim them", is another case)
    return False


def _direction_sites(p: _Parsed) -> list[tuple[tuple[str, ...], str, str]]:
    """(the words a change bears on, 'up' / 'down', the word) for each direction word of ``p`` that no negation
    turns round: the content words after it in its piece, else the ones before it ("output declined")."""
    out = []
    for m in re.finditer(r"[A-Za-z]+", p.text):
        d = lexicon.direction(m.group(0))
        if not d or m.group(0).lower() in ("up", "down", "higher", "lower"):
            continue
        a, b = _piece_bounds(p.text, m.start())
        if _SITE_CUE.search(p.text[max(a, m.start() - 25): m.start()]):
            continue
        after = _site_after(p.terms, m.end(), b)
        # "margin widened to 11.8% in the third quarter": a change with no object bears on what comes before it.
        intransitive = re.match(r"\s+(?:(?:sharply|slightly|steadily|further|again|significantly|by|to|from|in|at|over|"
                                r"during|as|for|since|after|before|on|year|this|last)\b|[\d$\u20ac\u00a3,.;])", p.text[m.end():], re.I)
        if len(after) == _SITE_LEN and not intransitive:
            out.append((("after",) + after, d, m.group(0)))
            continue
        before = tuple(t for t, q in p.terms if a <= q < m.start() and not t[0].isdigit() and t not in _SITE_GLUE)
        if len(before) >= _SITE_LEN:
            out.append((("before",) + before[-_SITE_LEN:], d, m.group(0)))
    return out


def _shares_subject(c: _Parsed, e: _Parsed, site: Iterable[str]) -> bool:
    """The two sentences share a content word besides the site's, or a figure: they speak of the same thing
    ("Release 3.8 is compatible with macOS 11" / "Release 3.8 is not compatible with macOS 11")."""
    rest = set(site)
    return bool((c.term_set - rest) & (e.term_set - rest)) or bool(_anchors(c) & _anchors(e))


def _named_subject(c: _Parsed, site: tuple[str, ...], parsed) -> bool:
    """Does ``c`` state the site's words of the thing the evidence calls by its head noun, by the rest of the name
    the context gives it ("Apache 2.0 ... grants permission" of "the licence does not grant permission", the context
    naming it the "Apache License")? Why: a context names a thing once and then calls it by its kind ("the licence",
    "the bridge"); an answer calls it by its name, and the site check wants the subject word before the site."""
    if not site[0] or not _affirmed(c, ("",) + site[1:]):
        return False
    mine = {_fold(t) for t in c.term_set}
    for _, p in parsed:
        for n in names(p.text):
            toks = {_fold(stem(t)) for t in n.tokens}
            if len(toks) >= 2 and _fold(site[0]) in toks and (toks - {_fold(site[0])}) & mine:
                return True
    return False


def _site_flips_by_name(claim: str, sents, out: FactCheck, conf) -> None:
    """The site check (:func:`_site_flips`) for a claim that calls the evidence's subject by the name the context
    gives it (:func:`_named_subject`); run over a loose polarity reading of the same words, which it replaces."""
    c = _parse(lexicon.active_voice(lexicon.one_verb(claim)))
    c_neg = set(_negated_sites(c))
    parsed = [(s, p if lexicon.one_verb(p.text) == p.text else _parse(lexicon.one_verb(p.text))) for _, s, p in sents]
    for s, p in parsed:
        for site in _negated_sites(p):
            if site in c_neg or _affirmed(c, site) or not _shares_subject(c, p, site) \
                    or any(_affirmed(q, site) and site not in _negated_sites(q) for _, q in parsed):
                continue
            if _named_subject(c, site, parsed):
                # (graded here: the sentence alone does not name the claim's subject, which the grading reads)
                out.differences.append(Difference(slot="negation", claim_value="(affirmative) " + " ".join(site[1:]),
                                                  evidence_value="not " + " ".join(site[1:]), evidence_span=_span(s),
                                                  confidence=conf.get("negation:site", UNMEASURED_PRIOR), grade="same_words"))
                return


def _site_flips(claim: str, sents, out: FactCheck, conf) -> None:
    """A negation or a direction said of the very words the evidence says the other way (see above); silent
    when any evidence sentence also states the claim's way. Phrases that say one verb are read as it
    ("comes with a footprint" / "does not include a footprint": ``lexicon.one_verb``)."""
    # (a passive claim is read the active way: "water damage is covered by the warranty" states "the warranty
    # covers water damage")
    c = _parse(lexicon.active_voice(lexicon.one_verb(claim)))
    c_neg = set(_negated_sites(c))
    c_dirs = _direction_sites(c)
    parsed = [(s, p if lexicon.one_verb(p.text) == p.text else _parse(lexicon.one_verb(p.text))) for _, s, p in sents]
    e_neg = [(s, p, site) for s, p in parsed for site in _negated_sites(p)]
    for s, p, site in e_neg:  # the evidence negates what the claim affirms
        if site in c_neg or not _shares_subject(c, p, site) \
                or any(_affirmed(q, site) and site not in _negated_sites(q) for _, q in parsed):
            continue
        if _affirmed(c, site):
            out.differences.append(Difference(slot="negation", claim_value="(affirmative) " + " ".join(site[1:]),
                                              evidence_value="not " + " ".join(site[1:]), evidence_span=_span(s),
                                              confidence=conf["negation"]))
            return
    # The other way round (the claim negates what the evidence affirms) is left to the near-copy checks: on
    # RAGTruth dev half A its findings on the same words were all false ("not wearing their mask properly").
    if not c_dirs:
        return
    e_dirs = [(s, p, site, d, w) for s, p in parsed for site, d, w in _direction_sites(p)]
    for site, d, w in c_dirs:
        other = [(s, p, ew) for s, p, es, ed, ew in e_dirs if es == site and ed != d and _shares_subject(c, p, site[1:])]
        if other and not any(es == site and ed == d for _, _, es, ed, _ in e_dirs):
            s, _, ew = other[0]
            out.differences.append(Difference(slot="direction", claim_value=f"{w} {' '.join(site[1:])}",
                                              evidence_value=f"{ew} {' '.join(site[1:])}", evidence_span=_span(s),
                                              confidence=conf["direction"]))
            return


# -- a comparison or a change said of the same thing the other way ---------------------------------------
# "Israel launched a smaller military assault" against "Israel began a more extensive military assault";
# "one of the summer's smallest blockbusters" against "the summer's presumed biggest franchise blockbuster";
# "indicating decreased activity" against "enhancing tropical storm activity". The words around such a phrase
# are paraphrased (RAGTruth's answers reword every sentence), so neither the whole-sentence alignment nor the
# site of two words after the cue (:func:`_site_flips`) meets the evidence; the thing compared or changed is
# the noun the phrase ends on, and that noun the two sides share.
_HEAD_SCALES_LEFT_OUT = frozenset({"order", "count", "result", "trend"})
#: Comparison words that are prepositions or places more often than grades ("above average", "top floor").
_HEAD_NOT_GRADE = frozenset("above below top bottom first last maximum minimum".split())
#: Words a direction verb may have between it and its object ("increased its dividend").
_HEAD_DETERMINER = re.compile(r"\s+(?:the|a|an|its|their|his|her|our|your|this|these|those)(?=\s)", re.I)
_HEAD_WORD = re.compile(r"(\s+|\s*-\s*)([A-Za-z][A-Za-z'\u2019-]*)")


class _HeadSite(NamedTuple):
    kind: str  # "comparison" or "direction"
    noun: tuple[str, ...]  # the noun phrase's words, folded stems; the last is its head
    scale: str  # the comparison's scale, or "dir"
    sign: str  # "+" / "-", or "up" / "down"
    word: str  # the comparison or direction word
    phrase: str  # the words as written, the word and its noun phrase


def _noun_after(text: str, pos: int, determiners: bool) -> tuple[tuple[str, ...], int]:
    """The words of the noun phrase right after ``pos``, folded stems, up to three, none a stop word or a grade
    word ("military assault" of "a larger military assault on Gaza"), and where it ends; () where a stop word,
    a figure or punctuation comes first ("larger than", "rose by 5%", "rose, ...")."""
    if determiners:
        m = _HEAD_DETERMINER.match(text, pos)
        pos = m.end() if m else pos
    out: list[str] = []
    while len(out) < 3:
        m = _HEAD_WORD.match(text, pos)
        if m is None:
            break
        w = m.group(2).lower().rstrip("'\u2019-")
        if len(w) < 3 or w in STOPWORDS or w == "than" or lexicon.relation_key(w) or lexicon.direction(w):
            break
        out.append(_fold(stem(w)))
        pos = m.end()
    return tuple(out), pos


@functools.lru_cache(maxsize=16384)
def _head_sites(text: str) -> tuple[_HeadSite, ...]:
    """Each comparison or direction word of ``text`` followed by a noun phrase and not under a negation ("not
    larger", "did not increase"). Cached by the sentence."""
    out = []
    for w, p in lexicon.relation_words(text):
        key = lexicon.relation_key(w)
        if key is None or key[0] in _HEAD_SCALES_LEFT_OUT or w in _HEAD_NOT_GRADE:
            continue
        a, _ = _piece_bounds(text, p)
        if _SITE_CUE.search(text[max(a, p - 25):p]):
            continue
        noun, end = _noun_after(text, p + len(w), False)
        if noun:
            out.append(_HeadSite("comparison", noun, key[0], key[2], w, text[p:end]))
    for m in re.finditer(r"[A-Za-z]+", text):
        d = lexicon.direction(m.group(0))
        if not d or m.group(0).lower() in ("up", "down", "higher", "lower"):
            continue
        a, _ = _piece_bounds(text, m.start())
        if _SITE_CUE.search(text[max(a, m.start() - 25):m.start()]):
            continue
        noun, end = _noun_after(text, m.end(), True)
        if noun:
            out.append(_HeadSite("direction", noun, "dir", d, m.group(0).lower(), text[m.start():end]))
    return tuple(out)


#: Nouns said of one thing from another's side: "its bigger sibling" and "its smaller sibling" name two things.
_RELATIONAL_NOUNS = frozenset(_fold(stem(w)) for w in (
    "sibling brother sister cousin twin counterpart rival neighbour neighbor partner sister-ship predecessor successor "
    "cousin model version variant").split())


def _grades_way(text: str, site: _HeadSite) -> bool:
    """Does ``text`` hold a word of the site's scale and sign, with or without a noun after it?"""
    if site.kind == "comparison":
        return any((k := lexicon.relation_key(w)) is not None and (k[0], k[2]) == (site.scale, site.sign)
                   for w, _ in lexicon.relation_words(text))
    return any(lexicon.direction(w) == site.sign for w in re.findall(r"[A-Za-z]+", text))


def _head_flips(claim: str, sents, out: FactCheck, conf) -> None:
    """A comparison or a change said of the noun the evidence grades or changes the other way (see above): the
    two phrases end on the same noun, one phrase's words hold the other's, the sentences share a word besides,
    and no evidence sentence grades or changes that noun the claim's way. A grade of the same scale with no
    noun after it, or a negated one, is no reading at all."""
    if any(d.slot in ("comparison", "direction", "negation", "modality") for d in out.differences):
        return
    mine = _head_sites(claim)
    if not mine:
        return
    c = _parse(claim)
    theirs = [(s, p, site) for _, s, p in sents for site in _head_sites(p.text)]
    for site in mine:
        held = set(site.noun)
        if site.noun[-1] in _RELATIONAL_NOUNS:
            continue  # ("Its smaller sibling, the Vela 2" / "Its bigger sibling, the Vela Duo": each from the other's side)
        same_noun = [(s, p, e) for s, p, e in theirs if e.kind == site.kind and e.noun[-1] == site.noun[-1]
                     and (held <= set(e.noun) or set(e.noun) <= held)]
        if site.kind == "comparison":
            agree = [x for x in same_noun if (x[2].scale, x[2].sign) == (site.scale, site.sign)]
            other = [x for x in same_noun if lexicon.opposed(site.word, x[2].word)]
        else:
            agree = [x for x in same_noun if x[2].sign == site.sign]
            other = [x for x in same_noun if x[2].sign != site.sign]
        if agree or not other:
            continue
        # (nor where a sentence naming the noun also grades something the claim's way, its noun left out: "Eastgate
        # recorded the highest footfall ..., while Northfield recorded the lowest")
        if any(site.noun[-1] in {_fold(t) for t in p.term_set} and _grades_way(p.text, site) for _, _, p in sents):
            continue
        s, p, e = other[0]
        graded = {_fold(stem(x)) for x in (site.phrase + " " + e.phrase).lower().split()}
        if not ({_fold(t) for t in c.term_set} & {_fold(t) for t in p.term_set}) - graded:
            continue  # (nothing but the phrase in common: another thing's grade)
        out.differences.append(Difference(slot=site.kind, claim_value=site.phrase, evidence_value=e.phrase,
                                          evidence_span=_span(s), confidence=conf.get(f"{site.kind}:site", UNMEASURED_PRIOR),
                                          grade="same_words"))
        return


_MODAL_WORD = re.compile(
    r"\b(?:must\s+not|may\s+not|cannot|can\s+not|should\s+not|must|may|can|should|shall|"
    r"(?:is|are)\s+(?:required|obliged|allowed|permitted)\s+to|ha(?:s|ve)\s+to|needs?\s+to)\b", re.I)
#: Words between a modal and the verb it governs ("may be asked to sign", "must be able to show").
_MODAL_GLUE = frozenset(stem(w) for w in "be been asked allowed required expected able permitted also still".split())


#: "is optional", "are not required": a duty denied of what comes before it ("Booking a tour is optional").
_OPTIONAL_AFTER = re.compile(r"\b(?:is|are)\s+(?:entirely\s+|completely\s+)?(?:optional|voluntary|"
                             r"not\s+(?:required|mandatory|compulsory|necessary|needed|obligatory))\b", re.I)
#: An instruction not to: at the start of a sentence, an item or after "please".
_DONT = re.compile(r"(?:^|(?<=[.!?:;*\u2022-])\s*|\bplease\s+)(do\s+not|don['\u2019]t|never)\s", re.I)
#: "should try to avoid driving": the modal bears on the verb after "avoid", the other way round.
_AVOIDED = {"required": "forbidden", "recommended": "discouraged", "allowed": "allowed"}


#: A question in the context (an FAQ's "Q: Can I ...?"): it asks, it allows or forbids nothing.
_QUESTION = re.compile(r"\?\s*(?:A:|$)|^\s*Q\s*[:.]", re.I)


def _modal_sites(p: _Parsed) -> list[tuple[tuple[str, ...], str, str]]:
    """(subject, verb, object...) a modal governs, its deontic class and its words, for each modal of ``p`` outside
    a condition: "All visitors ... may be asked to sign a confidentiality agreement" -> (visitor, sign,
    confidential, agreement); "you should try to avoid driving" bears on driving as discouraged; "Booking a guided
    tour is optional" on (book, guid, tour) as optional."""
    out: list[tuple[tuple[str, ...], str, str]] = []
    if _QUESTION.search(p.text):
        return out
    for m in _MODAL_WORD.finditer(p.text):
        if _SITE_CONDITION.search(p.text[: m.start()]) or _UNLESS.search(p.text[m.end():]) \
                or re.search(r"\b(?:may|might|could|would|will|can)\s+$", p.text[: m.start()], re.I):
            continue  # "may have to sign" is read at its "may"
        cls = lexicon.modality(m.group(0))
        if cls is None:
            continue
        a, b = _piece_bounds(p.text, m.end())
        # (up to the next modal or a "but": "cannot be refunded but can be transferred" has two sites)
        nxt = re.search(r"\b(?:but|while|whereas)\b", p.text[m.end():b], re.I)
        b = m.end() + nxt.start() if nxt else b
        b = min([b] + [x.start() for x in _MODAL_WORD.finditer(p.text, m.end(), b)])
        tail = [t for t, q in p.terms if m.end() <= q < b and not t[0].isdigit() and t not in _SITE_GLUE]
        lead = list(takewhile(lambda t: t in _MODAL_GLUE or t in ("try", "avoid"), tail))
        if "avoid" in lead and not re.match(r"\s+not\b", p.text[m.end():]):
            cls = _AVOIDED.get(cls, cls)
        site = tuple(t for t in tail if t not in _MODAL_GLUE and t not in ("try", "avoid"))[:_SITE_LEN + 1]
        subject = [t for t, q in p.terms if a <= q < m.start() and not t[0].isdigit()]
        if not subject and re.fullmatch(r"\s*(?:you|we|they|he|she|one|i)\s*", p.text[a: m.start()], re.I):
            subject = [""]  # "You should avoid driving": the reader
        if len(site) >= _SITE_LEN and subject:
            out.append(((subject[-1],) + site, cls, m.group(0)))
    for m in _DONT.finditer(p.text):  # "Don't eat or drink water": a ban addressed to the reader
        _, b = _piece_bounds(p.text, m.end())
        site = tuple(t for t, q in p.terms if m.end() <= q < b and not t[0].isdigit() and t not in _SITE_GLUE)
        if len(site) >= _SITE_LEN and not _UNLESS.search(p.text[m.end():b]):
            out.append((("",) + site[:_SITE_LEN + 1], "forbidden", m.group(1)))
    for start, end in lexicon.fine_to(p.text):  # "it's fine to take it while breastfeeding": a permission to the reader
        _, b = _piece_bounds(p.text, end)
        site = tuple(t for t, q in p.terms if end <= q < b and not t[0].isdigit() and t not in _SITE_GLUE)
        if len(site) >= _SITE_LEN and not _SITE_CONDITION.search(p.text[:start]):
            out.append((("",) + site[:_SITE_LEN + 1], "allowed", p.text[start:end].strip()))
    for m in _OPTIONAL_AFTER.finditer(p.text):
        a, _ = _piece_bounds(p.text, m.start())
        site = tuple(t for t, q in p.terms if a <= q < m.start() and not t[0].isdigit() and t not in _SITE_GLUE)
        if len(site) >= _SITE_LEN and not _SITE_CONDITION.search(p.text[a: m.start()]):
            out.append((("",) + site[:_SITE_LEN + 1], "optional", m.group(0)))
    for m in _GERUND_MODAL.finditer(p.text):
        # "keeping them on a lead is recommended, though optional": an act named by its gerund, then its class (the
        # last one said: "recommended, though optional" is optional)
        if _OPTIONAL_AFTER.match(p.text, m.start("be")):
            continue  # read above
        site = tuple(t for t, q in p.terms if m.start() <= q < m.start("be") and not t[0].isdigit() and t not in _SITE_GLUE)
        cls = lexicon.modality(m.group("cls").split()[-1] if m.group("cls").lower().startswith(("though", "but")) else m.group("cls"))
        if cls and len(site) >= _SITE_LEN:
            out.append((("",) + site[:_SITE_LEN + 1], cls, m.group("cls")))
    return [(tuple(_IRREGULAR.get(t, t) for t in site), cls, w) for site, cls, w in out]


#: Past participles the stemmer leaves apart from their verb ("kept" / "keeping").
_IRREGULAR = {stem(a): stem(b) for a, b in (
    ("kept", "keep"), ("held", "hold"), ("paid", "pay"), ("sold", "sell"), ("made", "make"), ("given", "give"),
    ("taken", "take"), ("brought", "bring"), ("bought", "buy"), ("left", "leave"), ("sent", "send"),
    ("built", "build"), ("told", "tell"), ("found", "find"), ("written", "write"), ("chosen", "choose"),
    ("worn", "wear"), ("shown", "show"), ("driven", "drive"), ("eaten", "eat"), ("seen", "see"), ("done", "do"),
    ("spent", "spend"), ("fed", "feed"),
    ("led", "lead"), ("lent", "lend"), ("drawn", "draw"), ("frozen", "freeze"), ("hidden", "hide"), ("ridden", "ride"))}
#: A gerund's act and the class said of it: "Keeping dogs on a lead is required", "wearing a helmet is optional".
_GERUND_MODAL = re.compile(r"(?<![\w-])[A-Za-z]+ing\b[^,.;:()]{1,60}?\s(?P<be>(?:is|are)\s+(?:strongly\s+|entirely\s+)?)"
                           r"(?P<cls>(?:recommended|advised|encouraged|required|mandatory|compulsory|optional|voluntary|"
                           r"prohibited|forbidden|not\s+(?:allowed|permitted))(?:,?\s+(?:though|but)\s+(?:entirely\s+)?"
                           r"(?:optional|voluntary|not\s+required|required|mandatory))?)\b", re.I)


_MANNER = frozenset(_fold(stem(w)) for w in "usual normal normally usually always freely anytime".split())


def _modal_site_match(x: tuple[str, ...], y: tuple[str, ...]) -> bool:
    """Two modal sites bear on one act: the same verb and a word of what follows it ("drive or operate machinery"
    / "driving or using machinery")."""
    if x[1] == y[1] and (set(x[2:]) & set(y[2:]) or not set(x[2:]) - _MANNER or not set(y[2:]) - _MANNER):
        return True  # (a verb with only a manner after it, "you can shower as usual", bears on the verb itself)
    # One act of a pair the other names ("don't eat or drink water" bears on "drink water" too).
    pairs = lambda s: {s[i:i + 2] for i in range(1, len(s) - 1)}  # noqa: E731
    return bool(pairs(x) & pairs(y))


def _same_limit(claim: str, text: str) -> bool:
    """Both state the same limit of one value: a "must" and a "can" around it say one thing ("must be no longer than
    55 cm" / "can be up to 55 cm long"; "must be at least 18" / "may only be 18 or over")."""
    def modal_limits(t: str) -> list[Quantity]:
        # (the modal bears on the limit itself, "can be up to": not on another act beside a limit, "must return the
        # deposit within 14 days", "may be carried without approval")
        return [q for q in parse_quantities(t) if q.bound and _MODAL_BE.search(t, max(0, q.start - 40), q.start)]

    limits = modal_limits(text)
    return bool(limits) and any(_UPPER.get(q.bound or "") == _UPPER.get(e.bound or "") and _equivalent(q, e)
                                for q in modal_limits(claim) for e in limits)


_MODAL_BE = re.compile(r"\b(?:must|can|cannot|can['\u2019]t|may|could|should|shall|will|needs?\s+to|has\s+to|have\s+to)\s+"
                       r"(?:only\s+)?(?:not\s+)?be\s+(?:no\s+|not\s+)?$", re.I)


def _site_modality(claim: str, sents, out: FactCheck, conf) -> None:
    """A duty, a ban or a permission said of the very verb and object the evidence gives another one ("visitors
    must sign a confidentiality agreement" against "visitors ... may be asked to sign a confidentiality
    agreement"), however the rest is reworded; silent when any evidence sentence gives the claim's."""
    mine = _modal_sites(_parse(claim))
    if not mine:
        return
    theirs = [(s, site, cls, w) for _, s, p in sents for site, cls, w in _modal_sites(p)]
    for site, cls, w in mine:
        other = [(s, ecls, f"{ew} ({ecls}) {' '.join(es[1:])}") for s, es, ecls, ew in theirs if _modal_site_match(es, site) and ecls != cls
                 and (frozenset({cls, ecls}) in _MODAL_CONFLICTS or (cls == "required" and ecls in ("recommended", "allowed")))]
        # (a limit said either way is one limit: "must be no longer than 55 cm" is "can be up to 55 cm long")
        other = [o for o in other if not _same_limit(claim, o[0][3])]
        if other and not any(_modal_site_match(es, site) and ecls == cls for _, es, ecls, _ in theirs):
            s, ecls, ew = other[0]
            out.differences.append(Difference(slot="modality", claim_value=f"{w} ({cls}) {' '.join(site[1:])}",
                                              evidence_value=ew,
                                              evidence_span=_span(s), confidence=conf["modality"]))
            return


#: A word or phrase that makes a duty, a permission or an option of what it bears on: a verb's modal ("must
#: show", "may be requested", "you're required to bring") or an adjective after its subject ("Firmware updates
#: are optional but recommended").
_MODAL_CUE = re.compile(
    r"\b(?:must\s+not|may\s+not|cannot|can['\u2019]t|should\s+not|shouldn['\u2019]t|must|may|can|should|shall|"
    r"(?:is|are|['\u2019]re|be)\s+(?:required|obliged|allowed|permitted|not\s+required|encouraged|advised|recommended)\s+to|"
    r"ha(?:s|ve)\s+to|needs?\s+to|"
    r"do(?:es)?\s+not\s+(?:have|need)\s+to|need\s+not)\b"
    r"|(?P<adj>\b(?:is|are|remains?|be)\s+(?:(?:entirely|strictly|strongly|highly|generally|also)\s+)?"
    # (a merit said first, then the duty denied: "a credit card is helpful but not required" is optional)
    r"(?:(?:helpful|useful|handy|advisable|preferred|preferable|welcome|nice\s+to\s+have|a\s+good\s+idea),?\s+but\s+"
    r"(?=not\s+(?:required|mandatory|compulsory|needed|necessary|essential)\b))?(?:optional|voluntary|mandatory|compulsory|required|"
    r"recommended|not\s+(?:required|mandatory|compulsory|needed|necessary))\b"
    # (the last word said is the class: "Helmets are recommended but optional" leaves them optional)
    r"(?:,?\s+(?:but|though|although)\s+(?:entirely\s+|strictly\s+)?(?:optional|voluntary|"
    r"not\s+(?:required|mandatory|compulsory))\b)?)", re.I)


@functools.lru_cache(maxsize=8192)
def _modal_topics(text: str) -> tuple[tuple[frozenset[str], str, str, str | None], ...]:
    """(what it bears on, deontic class, the words, the adjective's subject head) for each modal cue of ``text``
    outside a condition: the content words of its piece from the piece's start (the subject) to the next cue, or,
    for an adjective ("are optional"), up to it. An adjective said of a one-word subject ("Helmets are recommended
    but optional") is kept with that word as its head: a short rule of a kit list is matched only by a claim whose
    adjective has the same head (see ``_topic_modality``). Cached: every claim of an answer reads the same evidence
    sentences."""
    p = _parse(text)
    cues = [m for m in _MODAL_CUE.finditer(lexicon.without_month_may(text))
            if not re.search(r"\b(?:may|might|could|would|will|can)\s+$", text[: m.start()], re.I)]
    out = []
    for i, m in enumerate(cues):
        a, b = _piece_bounds(text, m.start())
        # (the cue's own "but not" is no exception: "is helpful but not required")
        if _SITE_CONDITION.search(text, 0, m.start()) or _UNLESS.search(text, m.end(), b) \
                or _EXCEPT_ANY.search(text, a, m.start()) or _EXCEPT_ANY.search(text, m.end(), b):
            continue  # a duty in a case ("if you travel, you must ...", "all staff except ...") is the condition checks'

        cls = lexicon.modality(text[m.start(): m.end() + 1])
        if cls is None:
            continue
        if re.match(r"\s+(?:also\s+|still\s+|then\s+)?not\b", text[m.end():], re.I) and " not" not in m.group(0).lower():
            cls = _NEGATED_MODAL.get(cls, cls)  # "must also not file": a ban
        # A permission its piece leaves to the doer's wish ("staff can do the assessment if they wish", "you can choose
        # whether to include a certificate") is an option: an act someone may choose, so no "what may happen" either.
        chosen = cls == "allowed" and lexicon.modality(text[m.start():b]) == "optional"
        if chosen:
            cls = "optional"
        elif re.fullmatch(r"(?:may|can|could|might)(?:\s+not)?|can['\u2019]t|cannot", m.group(0), re.I) \
                and not _PERMITTED_ACT.match(text, m.end()) and not _ADDRESSEE.search(text, max(a, m.start() - 30), m.start()):
            continue  # "the sugar may not adhere", "hormones may lead her": what may happen, not what is allowed
        complement: tuple[int, int] | None = None
        if m.group("adj"):
            spans = [(a, m.start())]  # "Firmware updates for the T-series are optional"
            # (and whom or what it is optional for, its addressee aside: "Portfolios are optional for Architecture
            # applicants" bears on Architecture portfolios)
            comp = re.match(r"\s+(?:for|to|on|in)\s+([^,;.]*?)(?=\s+(?:but|and|or)\b|[,;.]|$)", text[m.end():b])
            if comp:
                complement = (m.end() + comp.start(1), m.end() + comp.end(1))
                spans.append(complement)
        else:
            # the piece's subject (up to its first cue) and what this cue governs (up to the next one): "Visitors
            # must complete the declaration ... and must show proof of onward travel" -> visitors, show, proof, ...
            first = min([m.start()] + [x.start() for x in cues if a <= x.start() < m.start()])
            nxt = min([b] + [x.start() for x in cues[i + 1:] if x.start() < b])
            spans = [(a, first), (m.end(), nxt)]
        words_ = {_fold(t) for t, q in p.terms if any(lo <= q < hi for lo, hi in spans)
                  and not (complement and complement[0] <= q < complement[1] and _fold(t) in _ADDRESSEE_WORDS)}
        words_ = {t for t in words_ if not t[0].isdigit()} - _MODAL_TOPIC_GLUE
        head = None
        if m.group("adj"):
            before = [_fold(t) for t, q in p.terms if a <= q < m.start() and not t[0].isdigit()]
            head = before[-1] if before and len(before) <= 2 and before[-1] not in _MODAL_TOPIC_GLUE else None
        if len(words_) >= 2 or (head is not None and words_ == {head}):
            out.append((frozenset(words_), cls, m.group(0), head))
    return tuple(out)


_NEGATED_MODAL = {"required": "forbidden", "allowed": "forbidden", "recommended": "discouraged"}
#: "may be requested", "can be carried over", "may not be used": a permission or a ban on an act.
_PERMITTED_ACT = re.compile(r"\s+(?:not\s+)?(?:be|also\s+be)\s+[a-z]+(?:ed|en|wn|ld|lt)\b", re.I)
#: Who is allowed or barred: the reader or a party of people ("visitors may bring", "you can cancel").
_ADDRESSEE = re.compile(r"\b(?:you|we|visitors?|guests?|customers?|members?|applicants?|passengers?|travell?ers?|"
                        r"students?|employees?|staff|users?|residents?|tenants?|drivers?|patients?|children|adults?|"
                        r"owners?|holders?|participants?|contractors?|parents?|pupils?|buyers?|sellers?|clients?)\s+$", re.I)
#: An addressee anywhere in the words before a cue ("Passengers travelling with an assistance dog may request ...").
_ADDRESSEE_BEFORE = re.compile(_ADDRESSEE.pattern.replace(r")\s+$", r")\b"), re.I)
_EXCEPT_ANY = re.compile(r"\b(?:except|excluding|other\s+than|apart\s+from|but\s+not)\b", re.I)
_MODAL_TOPIC_GLUE = frozenset(_fold(stem(w)) for w in "be been able also still you your they them we us".split())
#: The people a rule is addressed to, as words ("applicants", "members"): who it is for, not what it is about.
_ADDRESSEE_WORDS = frozenset(_fold(stem(w)) for w in (
    "visitor visitors guest guests customer customers member members applicant applicants passenger passengers traveller "
    "travellers traveler travelers student students employee employees staff user users resident residents tenant tenants "
    "driver drivers patient patients child children adult adults owner owners holder holders participant participants "
    "parent parents pupil pupils buyer buyers client clients").split())


def _topic_modality(claim: str, sents, out: FactCheck, conf) -> None:
    """A duty, an option or a permission said of what the evidence gives another one, whatever the verb: "must
    show proof of onward travel" against "Proof of onward or return travel may be requested"; "firmware updates
    must be installed" against "Firmware updates ... are optional". What the cue bears on must share at least two
    words and half of the claim's own with the evidence's; silent when some evidence cue on it gives the claim's
    class, and unless the best match is a conflict."""
    mine = _modal_topics(claim)
    if not mine:
        return
    theirs = [(s, t, cls, w) for _, s, p in sents for t, cls, w, _ in _modal_topics(p.text)]
    for topic, cls, w, head in mine:
        def fit(t: frozenset[str], topic: frozenset[str] = topic, head: str | None = head) -> int:
            # (three words at least: two ("friend", "profile") tie acts of one page that differ; or all the words
            # of a short subject the evidence's cue bears on: "Travel insurance is strongly recommended"; or the
            # one word of a bare subject, said of the same head: "Helmets are optional" / "Helmets are mandatory ...")
            shared = len(topic & t)
            return shared if (shared >= 3 and shared >= 0.5 * len(topic)) or (shared == len(t) >= 2) \
                or (len(t) == 1 and head is not None and t == {head}) else 0
        fits = [(t, fit(t), s, ecls, ew) for s, t, ecls, ew in theirs]
        if head is not None and any(t == {head} for t, *_ in fits):
            # (a rule said of the claim's very subject answers it; a duty of the same outing said of other kit,
            # "Clients ... must bring crampons", does not)
            fits = [x for x in fits if head in x[0]]
        matched = sorted(((f, s, ecls, ew) for _, f, s, ecls, ew in fits if f), key=lambda x: -x[0])
        if not matched or any(ecls == cls for _, _, ecls, _ in matched):
            continue
        _, s, ecls, ew = matched[0]
        # (a duty against a "can" is no conflict: "you need to get the right cable" / "you can connect it with HDMI")
        permits = ecls == "recommended" or (ecls == "allowed" and not re.match(r"(?:can|could)\b", ew, re.I))
        # (advice for a duty, "should" for "needs to", is left alone: on RAGTruth dev half A answers soften a duty
        # so four times in four, never a hallucination)
        if frozenset({cls, ecls}) in _MODAL_CONFLICTS or (cls == "required" and permits):
            out.differences.append(Difference(slot="modality", claim_value=f"{w} ({cls})", evidence_value=f"{ew} ({ecls})",
                                              evidence_span=_span(s), confidence=conf["modality"]))
            return


def _option_required_by_verb(claim: str, sents, out: FactCheck, conf) -> None:
    """A duty said with the verb "requires" / "needs" of what the evidence calls optional ("Claims under £100 require
    manager approval" against "Manager approval is optional for claims under £100"). Why: the modal readings do not
    read the verb as a duty, so the claim reads as having no modal. Read only where the claim has the verb, outside a
    condition, and only against an evidence cue of the option class (``_modal_topics``) whose words are the claim
    piece's: the subject before the verb and the object after it, up to the next clause."""
    found = lexicon.requires_object(claim)
    if not found or _SITE_CONDITION.search(claim):
        return
    p = _parse(claim)
    for start, end in found:
        a, b = _piece_bounds(claim, start)
        nxt = re.compile(r"\s(?:and|but|or|while|whereas|so|before|after|when|if)\s").search(claim, end, b)
        b = nxt.start() if nxt else b
        topic = {_fold(t) for t, q in p.terms if a <= q < b and not t[0].isdigit()} - _MODAL_TOPIC_GLUE - _REQUIRE_WORDS
        if len(topic) < 3:
            continue
        for _, s, sp in sents:
            for t, ecls, ew, _ in _modal_topics(sp.text):
                if ecls == "optional" and len(topic & t) >= 3 and len(t - topic) <= 1 \
                        and _same_bounded_figures(claim[a:b], sp.text, ew):
                    out.differences.append(Difference(slot="modality", claim_value=f"{claim[start:end].strip()} (required)",
                                                      evidence_value=f"{ew} ({ecls})", evidence_span=_span(s),
                                                      confidence=conf["modality"]))
                    return


#: A figure with the word before it, which says on which side of it a case lies ("under £100", "over 2 kg").
_BOUNDED_FIGURE = re.compile(r"([a-z]+)\s+([$\u00a3\u20ac]?\d[\d,.]*)", re.I)
_BOUND_SIDE = {**dict.fromkeys("under below less fewer within up".split(), "<"),
               **dict.fromkeys("over above more exceeding beyond".split(), ">")}


def _same_bounded_figures(piece: str, e_text: str, cue: str) -> bool:
    """Do ``piece`` and the evidence clause of ``cue`` state the same figures on the same sides ("under £100" / "under
    £100", not "over £100")? Why: a sentence that makes one band optional and the other a duty ("optional for
    claims under £100 but required above that") gives the other band's claim the same words but its own rule."""
    at = e_text.find(cue)
    if at < 0:
        return False
    stop = re.compile(r"\s(?:but|while|whereas)\s|;").search(e_text, at + len(cue))
    clause = e_text[_piece_bounds(e_text, at)[0]:stop.start() if stop else len(e_text)]

    def sides(text: str) -> set[tuple[str, str]]:
        return {(m.group(2), _BOUND_SIDE.get(m.group(1).lower(), "=")) for m in _BOUNDED_FIGURE.finditer(text)}

    # (both ways: "heavier orders require a signature" is not the band "optional for orders under 2 kg")
    return sides(piece) == sides(clause)


_REQUIRE_WORDS = frozenset(_fold(stem(w)) for w in "require requires need needs".split())


_DUTY_CUE = re.compile(r"\b(?:must|required|obliged|ha(?:s|ve)\s+to|needs?\s+to|mandatory|compulsory)\b", re.I)


def _one_option_required(claim: str, sents, out: FactCheck, conf) -> None:
    """One option of a choice the evidence leaves open, said to be a duty: "Landlords are required to use a custodial
    scheme" against "They may choose between an insured scheme and a custodial scheme". Why: the evidence's modal
    ("may") bears on "choose", the claim's on "use", so the modal checks compare no act; and the option's words are
    all in the evidence, so nothing reads as unsupported. Read only for a claim with a duty (``_modal_sites``) and
    no condition; the duty's object must hold every word of one option (articles aside) and no word of the others;
    silent when the evidence itself makes that option a duty."""
    if not _DUTY_CUE.search(claim) or lexicon.condition_cues(claim) or lexicon.condition_cues(claim, strong=False):
        return
    duties = [site for site, cls, _ in _modal_sites(_parse(claim)) if cls == "required"]
    if not duties:
        return
    for _, s, p in sents:
        options = lexicon.choice_options(p.text)
        if not options:
            continue
        kinds = [frozenset(_fold(t) for t in _parse(o).term_set) for o in options]
        for site in duties:
            obj = {_fold(t) for t in site[2:]}
            mine = [k for k in kinds if k and k <= obj]
            # (the option's own words, told from the others': "custodial" of "a custodial scheme")
            if len(mine) == 1 and not any((k - mine[0]) & obj for k in kinds if k is not mine[0]) \
                    and not any(cls == "required" and _modal_site_match(es, site) for _, _, q in sents
                                for es, cls, _ in _modal_sites(q)):
                out.differences.append(Difference(
                    slot="modality", claim_value=f"required: {' '.join(site[1:])}",
                    evidence_value="a choice of " + " or ".join(options), evidence_span=_span(s), confidence=conf["modality"]))
                return


def _only_own_make_required(claim: str, sents, out: FactCheck, conf) -> None:
    """A duty to use only the maker's own kind of a thing ("You must use only the original charger") where the
    context lets another maker's kind be used ("Third-party chargers may be used provided they support USB PD").
    Why: the context's modal bears on the other kind as its subject, the claim's on the act, so the modal sites
    compare no act; and the claim's words are mostly in the context. Read only with the claim's "only" and a word of
    the maker's own ("original", "genuine", "supplied"); the same thing (head noun) and, where the context names
    it, the same act (or "use"); silent when the context itself says to use only the maker's own kind of it."""
    mine = lexicon.only_own_make(claim)
    if not mine or lexicon.negated(claim):
        return
    heads = {_fold(stem(h)): _fold(stem(v)) for v, h in mine}
    if any(_fold(stem(h)) in heads for _, _, p in sents for _, h in lexicon.only_own_make(p.text)):
        return
    for _, s, p in sents:
        for verb, head in lexicon.other_make_allowed(p.text):
            act = heads.get(_fold(stem(head)))
            # ("use" is any act of a thing: "Use only genuine filters" / "Non-genuine filters can be fitted")
            if act is not None and (not verb or _fold(stem(verb))[:3] == act[:3] or "use" in (act[:3], verb[:3].lower())):
                out.differences.append(Difference(slot="modality", claim_value=claim.strip(),
                                                  evidence_value=p.text.strip(), evidence_span=_span(s),
                                                  confidence=conf["modality"]))
                return


def _answered_no(claim: str, sents, out: FactCheck, conf) -> None:
    """A claim that states what an FAQ's yes/no question asks, where the document answers it with a bare "No"
    ("The minimum speed guarantee does apply to Wi-Fi" against "Q: Does the minimum speed guarantee apply over
    Wi-Fi? A: No."). Why: the denial is the answer's one word, so no polarity check reads a "not" of the question's
    words, and the claim's words all align to the question. Read only for an affirmed statement with no ban or
    option of its own that holds four fifths of the question's words (and the question three fifths of the claim's);
    the "No" must open the next sentence of the same document. Graded as the very words said the other way."""
    if claim.rstrip().endswith("?") or lexicon.negated(claim) or lexicon.modality(claim) in ("forbidden", "optional",
                                                                                             "discouraged"):
        return
    c = _parse(claim)
    mine = set(c.term_set) | _anchors(c)
    if len(mine) < 3:
        return
    for k in range(len(sents) - 1):
        body = lexicon.polar_question(sents[k][2].text)
        if body is None or sents[k + 1][1][0] != sents[k][1][0] or not lexicon.answers_no(sents[k + 1][2].text):
            continue
        q = _parse(body)
        theirs = set(q.term_set) | _anchors(q)
        if len(theirs & mine) >= 3 and _coverage(theirs, mine) >= 0.8 and _coverage(mine, theirs) >= 0.6:
            out.differences.append(Difference(slot="negation", claim_value=claim.strip(),
                                              evidence_value=f"{sents[k][2].text.strip()} {sents[k + 1][2].text.strip()}",
                                              evidence_span=_span(sents[k + 1][1]),
                                              confidence=conf.get("negation:site", UNMEASURED_PRIOR), grade="same_words"))
            return


def _co_use_allowed(claim: str, sents, out: FactCheck, conf) -> None:
    """A combination the claim allows that an evidence sentence bans, whatever the verbs: "they can be combined
    with other ibuprofen-containing products" against "Do not take with other products containing ibuprofen";
    "it's fine to drink grapefruit juice with it" against "Do not take dolzanil with grapefruit juice". Why: the
    modal-site checks match verb to verb and a loose negation reading does not flag, so an interaction ban turned
    into a permission passed. What it is taken with must share two words, or all of the claim's one or two; silent
    when some evidence sentence allows it too. Only a claim with such a verb and a "with" reads the evidence."""
    mine = [(obj, _parse(obj).term_set) for cls, obj in lexicon.co_use(claim) if cls == "allowed"]
    mine = [(obj, t) for obj, t in mine if t]
    if not mine:
        return

    def same(a: frozenset[str], b: frozenset[str]) -> bool:
        shared = len(a & b)
        return shared >= 2 or (shared >= 1 and shared == len(a) <= 2)

    theirs = [(s, ecls, _parse(obj).term_set, obj) for _, s, p in sents for ecls, obj in lexicon.co_use(p.text)]
    for said, t in mine:
        if any(ecls == "allowed" and same(t, et) for _, ecls, et, _ in theirs):
            continue
        ban = next(((s, obj) for s, ecls, et, obj in theirs if ecls == "forbidden" and same(t, et)), None)
        if ban is not None:
            out.differences.append(Difference(slot="modality", claim_value=f"allowed with {said}",
                                              evidence_value=f"forbidden with {ban[1]}", evidence_span=_span(ban[0]),
                                              confidence=conf["modality"]))
            return


def _quantifier_sites(p: _Parsed) -> list[tuple[str, int, str]]:
    """(the word a quantifier bears on, its rank, the quantifier) for each quantifier of ``p``: "some customers"
    -> (customer, 1), "is always busy" -> (busy, 3). Ranks as ``lexicon.quantifiers`` (0 none ... 3 all)."""
    out = []
    for rank, a, b in lexicon.quantifiers(p.text):
        if rank == 0:
            continue
        # (past a possessor: "all of the KX-300's plastic parts" counts plastic parts)
        c0 = lexicon.after_possessor(p.text, b)
        nxt = next((t for t, q in p.terms if c0 <= q < c0 + 40 and not t[0].isdigit() and t not in _SITE_GLUE), None)
        if re.match(r"\s+of\s+(?:which|whom)\b", p.text[b:], re.I):
            # ("six attachments, all of which can be rinsed": the relative counts the noun before it)
            nxt = next((t for t, q in reversed(p.terms) if q < a and not t[0].isdigit() and t not in _SITE_GLUE), None)
        if nxt is not None and not re.match(r"\s*(?:of\s+(?:the\s+)?)?\d", p.text[b:]):
            out.append((nxt, rank, p.text[a:b]))
    return out


#: A majority ("most dogs", "the majority of places"), and a few of many: the two ends a widening joins.
_MAJORITY = re.compile(r"most|the\s+majority|majority|nearly\s+all|almost\s+all|mostly|usually|mainly|largely", re.I)
_FEW = re.compile(r"a\s+few|few|some|several|a\s+minority|a\s+handful|a\s+small\s+number|rarely|seldom|occasionally|"
                  r"sometimes", re.I)


def _site_quantifier(claim: str, sents, out: FactCheck, conf) -> None:
    """A part said of the whole on the very word the evidence quantifies ("all customers praised" against "some
    customers praised"; "is always busy" against "is often busy"); silent when the evidence also says as much."""
    if not any(x[1] == 3 or _MAJORITY.fullmatch(x[2]) for x in _quantifier_sites(_parse(claim))):
        return
    # (each side's words without the quantifiers, with its figures: "every branch opens at 10:00" is told from
    # "every branch opens at 8:30" by its time)
    def said(p: _Parsed) -> set[str]:
        return (set(p.term_set) | _anchors(p)) - {_fold(stem(q.lower().split()[-1])) for _, _, q in _quantifier_sites(p)}

    theirs = [(s, w, r, q, said(p)) for _, s, p in sents for w, r, q in _quantifier_sites(p)
              if not re.search(rf"\b{re.escape(q)}\s+other\b", p.text, re.I)]
    # Clause by clause: "every region comes with 99.99% on Premium; the Standard tier is covered in all regions" says
    # "every" twice, and the context's "every region" of the Standard tier does not answer the Premium clause's.
    bounds = [0] + [m.end() for m in re.finditer(r";", claim)] + [len(claim) + 1]
    for a, b in zip(bounds, bounds[1:]):
        part = _parse(claim[a:b - 1] if b <= len(claim) else claim[a:])
        terms = said(part)
        # ("all other regions" is the rest, not a widening of "a few regions")
        for w, rank, q in [x for x in _quantifier_sites(part) if (x[1] == 3 or _MAJORITY.fullmatch(x[2]))
                           and not re.search(rf"\b{re.escape(x[2])}\s+other\b", part.text, re.I)]:
            # (most of them against a few of them: "most dogs vomit" where "a few dogs" do; not against "many" or
            # "often", which "most" and "frequently" may only reword)
            lower = [(_coverage(terms, ts), s, eq) for s, ew, r, eq, ts in theirs if ew == w and r < rank
                     and (rank == 3 or _FEW.fullmatch(eq))]
            higher = [_coverage(terms, ts) for _, ew, r, _, ts in theirs if ew == w and r >= rank]
            # (silent when the evidence also says as much, unless that is said of something else: its sentence
            # shares clearly fewer of the clause's words than the one that says less)
            if lower and (not higher or max(lower)[0] > max(higher) + 0.1):
                _, s, eq = max(lower, key=lambda x: x[0])
                out.differences.append(Difference(slot="quantifier", claim_value=f"{q} {w}", evidence_value=f"{eq} {w}",
                                                  evidence_span=_span(s), confidence=conf["quantifier"]))
                return


_WHOLE_CUE = re.compile(r"\b(?:all|each|every|both)\b", re.I)
_COUNTED_END = re.compile(r"\b(?:and|or|but|now|that|which|who|where|is|are|was|were|have|has|had|will|can|get|got|"
                          r"received?|gets)\b", re.I)


@functools.lru_cache(maxsize=16384)
def _counted_parts(text: str) -> tuple[tuple[float, float, frozenset[str], frozenset[str]], ...]:
    """(part, whole, what is counted, what else its piece says) for each part of a counted whole in ``text``
    (``parts_of_whole``): "adds a dark mode to one of the three built-in themes" -> (1, 3, {build, them},
    {add, dark, mod}). Cached: every claim of an answer reads the same evidence sentences."""
    p = _parse(text)
    out = []
    for k, n, a, b in parts_of_whole(text):
        pa, pb = _piece_bounds(text, a)
        # (the counted noun phrase ends at the verb or the next clause: "all five rooms | now have air conditioning")
        stop = _COUNTED_END.search(text, b, pb)
        end = min(pb, b + 30, stop.start() if stop else pb)
        counted = frozenset([_fold(t) for t, q in p.terms if b <= q < end and not t[0].isdigit()][:3])
        about = frozenset(_fold(t) for t, q in p.terms if pa <= q < pb and not a <= q < b and not t[0].isdigit()) - counted
        if counted:
            out.append((k, n, counted, about))
    return tuple(out)


def _part_widened(claim: str, sents, out: FactCheck, conf) -> None:
    """A whole said where the evidence says a part of the same counted whole: "adds dark mode to all three themes"
    against "adds a dark mode to one of the three built-in themes". The whole's figure agrees, so the figure checks
    pass it, and "one of the three" is no quantifier word for ``_site_quantifier``. Read only for a claim with
    "all", "each", "every" or "both"; the evidence's part must count the same whole of the same things and its
    piece share a word of what the claim's says of them; silent when any evidence sentence says the whole too."""
    if not _WHOLE_CUE.search(claim):
        return
    mine = [x for x in _counted_parts(claim) if x[0] == x[1] >= 2]
    if not mine:
        return
    theirs = [(s, x) for _, s, p in sents for x in _counted_parts(p.text)]
    for _, n, counted, about in mine:
        same = [(s, k, e_about) for s, (k, en, e_counted, e_about) in theirs if en == n and e_counted & counted]
        fewer = [(s, k) for s, k, e_about in same if k < n and e_about & about]
        if fewer and not any(k == n and e_about & about for _, k, e_about in same):
            s, k = fewer[0]
            out.differences.append(Difference(slot="quantifier", claim_value=f"all {n:g}", evidence_value=f"{k:g} of {n:g}",
                                              evidence_span=_span(s), confidence=conf["quantifier"]))
            return


_SUPPORT_CUE = re.compile(r"\b(?:support(?:s|ed)?|compatible|works?|runs?)\b", re.I)


def _object_terms(text: str) -> frozenset[str]:
    """The words and figures of a named thing ("Python 3.8" -> {python, 3.8}): a version is told by its figure."""
    return frozenset(_fold(t) for t, _ in _parse(text).terms)


def _support_withdrawn(claim: str, sents, out: FactCheck, conf) -> None:
    """Support claimed for what the evidence says support was taken from: "still supports Python 3.8" against
    "support for Python 3.8 has been dropped" (``lexicon.withdrawn``). The verb of ending is no negation word, so
    the polarity checks read the two as agreeing. The thing must be the same, figures and all ("Python 3.9" is
    another); silent when any evidence sentence says it is supported. Read only for a claim with a support verb."""
    if not _SUPPORT_CUE.search(claim):
        return
    mine = [_object_terms(claim[a:b]) for a, b in lexicon.supported(claim)]
    mine = [o for o in mine if o]
    if not mine:
        return
    ended = [(s, _object_terms(p.text[a:b])) for _, s, p in sents for a, b in lexicon.withdrawn(p.text)]
    if not ended:
        return
    said = [_object_terms(p.text[a:b]) for _, _, p in sents for a, b in lexicon.supported(p.text)]
    for obj in mine:
        hit = next((s for s, e in ended if e and (e == obj or (len(e) >= 2 and e <= obj))), None)
        if hit is not None and not any(o == obj for o in said):
            out.differences.append(Difference(
                slot="negation", claim_value="supports " + " ".join(sorted(obj)), evidence_value="support withdrawn",
                evidence_span=_span(hit), confidence=conf.get("negation:site", UNMEASURED_PRIOR), alignment=1.0,
                grade="same_words"))
            return


def _same_site(claim: str, e_text: str, slot: str) -> bool:
    """Is a negation or direction finding between these two a flip of the very same words (``_site_flips``)?"""
    c, e = _parse(claim), _parse(e_text)
    if slot == "negation":
        c, e = _parse(lexicon.active_voice(lexicon.one_verb(claim))), _parse(lexicon.one_verb(e_text))
        return any(_affirmed(c, site) and site not in _negated_sites(c) for site in _negated_sites(e))
    if slot == "modality":
        e_mod = _modal_sites(e)
        return any(_modal_site_match(site, es) and cls != ecls for site, cls, _ in _modal_sites(c) for es, ecls, _ in e_mod)
    if slot == "direction":
        e_dirs = _direction_sites(e)
        return any(site == es and d != ed for site, d, _ in _direction_sites(c) for es, ed, _ in e_dirs)
    return False


def _quantifier_on_shared(text: str, shared: set[str]) -> int | None:
    """The rank of the strongest quantifier that bears on a word both sides share ("most baby swimming classes"),
    or None; a quantifier over something else ("for some people") does not count."""
    best = None
    for rank, _, end in lexicon.quantifiers(text):
        after = [t for t, _ in terms_with_offsets(text[end: end + 50])][:2]
        if any(_fold(t) in shared for t in after):
            best = rank if best is None else max(best, rank)
    return best


def _modal_verb(text: str) -> set[str]:
    """The words the modal phrase of ``text`` governs (the first content words after it)."""
    _, phrase = lexicon.modality_phrase(text)
    pos = text.lower().find(phrase.lower()) if phrase else -1
    if pos < 0:
        return set()
    after = text[pos + len(phrase): pos + len(phrase) + 40]
    after = re.split(r"\b(?:but|and|or|while|whereas)\b|;", after, maxsplit=1)[0]  # ("cannot be refunded but can be ...")
    out = {_fold(t) for t, _ in terms_with_offsets(after)[:2]}
    before = text[:pos]
    trailing = re.match(r"(?:if|at)\b", phrase, re.I)  # "may complete it if they wish": the choice is about the verb before
    if trailing or re.search(r"\b(?:is|are|was|were|be|been|remains?)\s+(?:\w+\s+(?:but|and)\s+)?(?:\w+\s+)?$", before, re.I):
        # A predicate ("Completing the training is optional", "... is recommended but optional") governs
        # its subject: the first words of the clause.
        start = max((m.end() for m in re.finditer(r"[,;:]\s*", before)), default=0)
        out |= {_fold(t) for t, _ in terms_with_offsets(before[start:])[:3]}
    return out


def _modal_on_shared(text: str, shared: set[str]) -> bool:
    _, phrase = lexicon.modality_phrase(text)
    pos = text.lower().find(phrase.lower()) if phrase else -1
    if pos < 0:
        return False
    after = [t for t, _ in terms_with_offsets(text[pos + len(phrase): pos + len(phrase) + 60])][:3]
    return any(_fold(t) in shared for t in after)


def _same_negations(a: str, b: str) -> bool:
    """Both texts say the same negations of the same words: each cue with the two words after it, on both sides."""
    def said(t: str) -> set[tuple[str, ...]]:
        out = set()
        for m in re.finditer(r"\b(?:not|no|never|without|cannot)\b|n['\u2019]t\b", t, re.I):
            after = tuple(_fold(stem(w)) for w in content_terms(t[m.end():m.end() + 40]))[:2]
            out.add((m.group(0).lower().replace("\u2019", "'"),) + after)
        return out
    sa = said(a)
    return bool(sa) and sa == said(b)


_WITHOUT = re.compile(r"\bwithout\s+((?:[\w'\u2019-]+\s+){0,3}[\w'\u2019-]+)", re.I)


def _without_shared_without(a: str, b: str) -> tuple[str, str]:
    """``a`` and ``b`` with each "without ..." phrase blanked where the other states it too (its first two content
    words the same): "doesn't charge a fee if you miss an appointment without giving notice" against "Patients who
    miss an appointment without giving notice will be charged" is a denied charge, not one negation each."""
    def phrases(t: str) -> dict[tuple[str, ...], list[tuple[int, int]]]:
        out: dict[tuple[str, ...], list[tuple[int, int]]] = {}
        for m in _WITHOUT.finditer(t):
            key = tuple(_fold(x) for x in content_terms(m.group(1)))[:2]
            if key:
                out.setdefault(key, []).append(m.span())
        return out
    if "without" not in a.lower() or "without" not in b.lower():
        return a, b
    pa, pb = phrases(a), phrases(b)
    both = pa.keys() & pb.keys()

    def blank(t: str, spans: list[tuple[int, int]]) -> str:
        for x, y in spans:
            t = t[:x] + " " * (y - x) + t[y:]
        return t
    return (blank(a, [sp for k in both for sp in pa[k]]), blank(b, [sp for k in both for sp in pb[k]]))


def _negates_shared(text: str, shared: set[str]) -> bool:
    """Does the negation of ``text`` bear on a word both sides share ("does not include" / "includes"), outside
    a condition ("if your laptop has no HDMI port")? A negation elsewhere is another statement."""
    # Not negations: "whether or not", "not only", "no more than" and litotes (the text layer's one list).
    low = lexicon.without_non_negations(text).lower()
    for m in re.finditer(r"\b(?:not|no|never|none|cannot|without|neither|nor|excluded|excludes|exclude|lacks|lacked|lack)\b"
                         r"|n['\u2019]t\b", low):
        # A condition ends at punctuation or at its "then": "if it is a monotone then your phone is not tapped".
        if re.search(r"\b(?:if|unless|whether|when|in case)\b(?:(?!\bthen\b)[^,.;])*$", low[: m.start()]):
            continue
        after = [t for t, _ in terms_with_offsets(low[m.end(): m.end() + 60])][:3]
        if any(_fold(t) in shared for t in after):
            return True
        if _ELLIPTIC_DENIAL.match(low, m.end()) and re.search(r"[a-z]\s+(?:ca|do|does|did|is|are|was|were|wo|should|could|"
                                                              r"would|must|may|might|has|have|had)?$", low[: m.start()]):
            # (a verb left out after its negated auxiliary bears on the subject before it: "Liquids, packaging and
            # garden waste can't." after "... can go in the caddy")
            clause = re.split(r"[,;:]|\b(?:but|and|while|whereas)\b", low[max(0, m.start() - 60): m.start()])[-1]
            before = [t for t, _ in terms_with_offsets(clause)][-3:]
            if any(_fold(t) in shared for t in before):
                return True
    return False


#: Nothing after a negation but the end of its clause: the verb it denies is left out ("..., and liquids can't.").
_ELLIPTIC_DENIAL = re.compile(r"\s*(?:[.;,!)]|$)")


def _imperative(text: str) -> bool:
    return bool(re.search(r"\b(?:do\s+not|don['\u2019]t|never)\b", text, re.I))


def _modal_phrase(text: str, cls: str | None) -> str:
    cls2, words_ = lexicon.modality_phrase(text)
    return f"{words_} ({cls2})" if cls2 else "(no modal)"


def _dir_word(text: str) -> str:
    for w in re.findall(r"[a-z]+", text.lower()):
        if lexicon.direction(w):
            return w
    return ""


def _quant_word(text: str) -> str:
    q = lexicon.quantifiers(text)
    return text[q[0][1]:q[0][2]] if q else ""


# -- order and comparison ----------------------------------------------------------------------
def _relations(claim: str, a_text: str, sent, out: FactCheck, conf) -> None:
    """An order or comparison word turned round: the same scale, the other way ("the cheapest option" /
    "the most expensive option"; "before" / "after" with the same things on the same sides), or the same
    word with the things swapped round it. The evidence's words are read in the clause that states the
    claim when that clause has one ("July is the wettest month ..., while February is the driest")."""
    if any(d.slot in ("direction", "negation", "modality") for d in out.differences):
        return
    c_rel = [(_as_ordered(claim, w, p), p) for w, p in lexicon.relation_words(claim) if not _bound_use(claim, p + len(w))]
    if not c_rel:
        return
    all_rel = [(_as_ordered(a_text, w, p), p) for w, p in lexicon.relation_words(a_text) if not _bound_use(a_text, p + len(w))]
    if not all_rel:
        return
    claim_clauses = clauses(claim)
    c_terms = terms_with_offsets(claim)
    e_terms = terms_with_offsets(a_text)
    cs, es = {_fold(t) for t, _ in c_terms}, {_fold(t) for t, _ in e_terms}
    strength = min(_coverage(cs, es), _coverage(es, cs)) if cs and es else 0.0
    e_known = {t for n in names(a_text) for t in n.tokens}
    for w, pc in c_rel:
        # The evidence clause that states the clause of the claim holding the word: a claim of two clauses
        # ("Costs rose last year, and the north quay was repaired after the south quay") is read clause by clause.
        own = next(((a, b) for a, b in claim_clauses if a <= pc < b), (0, len(claim)))
        own_terms = set(_parse(claim[own[0]:own[1]]).term_set) or set(_parse(claim).term_set)
        # A superlative ranks the thing its clause names: "Corrie Dam ... is the largest of the three reservoirs"
        # is read against the clause naming Corrie Dam, not the one sharing more words ("Of the three
        # reservoirs ..., Loch Tarrin is the largest, ..., while Corrie Dam is the smallest").
        own_names = [n.tokens for n in names(claim[own[0]:own[1]], known=None)][:1]  # the clause's subject
        if not own_names:
            # (a name that opens the claim is read as one where the evidence names it: "Riverside recorded the lowest
            # turnout" against "Eastgate recorded the highest turnout ..., while Riverside had the lowest")
            own_names = [n.tokens for n in names(claim[own[0]:own[1]], known=e_known)][:1]
        # (a clause whose subject is a pronoun is about the claim's name before it: "Carrick Comets won it on 34
        # points — and they conceded the fewest goals", read against "the Comets conceded the fewest")
        referent = not own_names and re.match(r"\W*(?:and\s+|but\s+)?(?:they|it|he|she)\b", claim[own[0]:own[1]], re.I)
        if referent:  # (a name the evidence writes as one, though it opens the claim: "Northfield opened ...")
            own_names = [n.tokens for n in names(claim[:own[0]], known=e_known)][:1]
        e_clauses = clauses(a_text)
        named = [(a, b) for a, b in e_clauses if own_names and own_names[0] <= words(a_text[a:b])]
        if not named and own_names and len(own_names[0]) > 1:
            # (or by its last word: "the Comets" for "Carrick Comets")
            written = _written_order(own_names[0], claim.lower())
            named = [(a, b) for a, b in e_clauses if written and written[-1] in words(a_text[a:b])]
        ca, cb = named[0] if len(named) == 1 else _best_clause(own_terms, a_text)
        # (and the clauses after it that go on about the same subject: "Harold was crowned on 6 January, ..., and
        # was the last crowned Anglo-Saxon king")
        for a, b in e_clauses:
            if a >= cb and _ELIDED_SUBJECT.match(a_text, a):
                cb = b
            elif a >= cb:
                break
        e_rel = [(x, p) for x, p in all_rel if ca <= p < cb] or all_rel
        key = lexicon.relation_key(w)
        # (two superlatives of the claim's scale in the clause: a gapped pair, each ranks the name before it)
        pair = [(x, p) for x, p in e_rel if key and key[1] == "s" and (lexicon.relation_key(x) or ("", "", ""))[:2] == key[:2]]
        if own_names and len(pair) > 1:
            mine = _ranked_of(a_text, pair, own_names[0], ca, e_known)
            e_rel = [r for r in e_rel if r not in pair or r in mine] if mine else e_rel
        same = [(x, p) for x, p in e_rel if lexicon.relation_key(x) == key]
        anti = [(x, p) for x, p in e_rel if lexicon.opposed(w, x)
                or lexicon.margin_opposed(w, claim[pc + len(w):], x, a_text[p + len(x):])]
        if _EVENT_ORDER.match(claim, pc + len(w)) and w.lower() in ("after", "before"):
            # "took third after tying with Park": when, not where in a ranking ("ahead of Eberle")
            anti = [(x, p) for x, p in anti if x.lower() not in ("ahead", "behind")]
        # "later" / "earlier" with no "than" says when, against the time before: it opposes only another such
        # ("starts later" / "starts earlier"), not a "before" that orders two things ("the pool was later reopened"
        # against "refurbished for two years before the club reopened it")
        if _says_when(claim, pc, w):
            anti = [(x, p) for x, p in anti if _says_when(a_text, p, x)]
        else:
            anti = [(x, p) for x, p in anti if not _says_when(a_text, p, x)]
        if not same and not anti:
            continue
        if same and not anti and (w not in _ORDER_WORDS or w in _WHEN_ADVERBS) and not re.match(r"\s+than\b", claim[pc + len(w):]):
            # the same superlative or "more" on both sides, or the same "later" that says when (not "later than"):
            # nothing ordered differently to compare ("the Center later confirmed its orbit" / "its orbit was
            # later confirmed by the Center")
            continue
        x, pe = (same or anti)[0]
        skip = {stem(t) for t in (w + " " + x).split()}
        order = _anchor_order(c_terms, pc, e_terms, pe, skip, claim, a_text)
        if same and not anti and strength < STRONG_ALIGNMENT and order != "swapped":
            continue  # the same order word with the things swapped: readable in a near-copy or a clean reversal
        # A superlative ranks one thing among all, whichever side they are named on ("Of the three bridges,
        # the Kettle is the oldest" / "the Kettle is the newest of the three"): no order to read.
        superlative = (lexicon.relation_key(w) or ("", "", ""))[1] == "s" and not same
        flipped = (bool(anti) and not same) != (order in ("reversed", "swapped") and not superlative)
        if order is None and not (anti and not same):
            continue
        if flipped:
            out.differences.append(Difference(slot="comparison", claim_value=f"{w} ({_around(claim, pc)})",
                                              evidence_value=f"{a_text[pe:pe + len(x)]} ({_around(a_text, pe)})",
                                              evidence_span=_span(sent), confidence=conf["comparison"]))
            return


def _ranked_of(text: str, rel: list[tuple[str, int]], owner: frozenset[str], start: int, known: set[str]
               ) -> list[tuple[str, int]]:
    """The superlatives of a clause that rank ``owner``: each is owned by the nearest name before it. Why: a
    gapped pair ranks two things at once ("Grace Road is the smallest of the grounds and Edgbaston the largest"),
    and a claim about one of them must be read against its own word, not whichever comes first in the clause."""
    spots = [n for n in names(text, known=known) if n.start >= start]
    mine = []
    for x, p in rel:
        before = [n for n in spots if n.end <= p]
        if before and before[-1].tokens == owner:
            mine.append((x, p))
    return mine


_WHEN_ADVERBS = frozenset({"later", "earlier"})
#: "after which", "before that": the order word refers back, so the thing named before it comes first / after.
_REFERS_BACK = re.compile(r"\s+(?:which|that|this|whom)\b", re.I)
_OTHER_WAY = {"after": "before", "before": "after"}
_BACK_AT_END = re.compile(r"\s+(?:that|this)\s*(?:[,.;:!?)]|$|(?=(?:it|they|he|she|we|you|there)\b))", re.I)
_WHEN_OF = {"after": "later", "before": "earlier"}


def _says_when(text: str, pos: int, w: str) -> bool:
    """A "later" / "earlier" with no "than": when something happened, not an order of two things in the text."""
    return w in _WHEN_ADVERBS and not re.match(r"\s+than\b", text[pos + len(w):])


def _as_ordered(text: str, w: str, pos: int) -> str:
    """An order word as it orders the things on its two sides: "A, after which B" says A before B, so its
    "after" reads as "before" (the coreference of "which" put the first event on the word's left)."""
    if w in _OTHER_WAY and _BACK_AT_END.match(text, pos + len(w)):
        return _WHEN_OF[w]  # "... and is end-of-life after that.": when, after what was said (as "later" says it)
    if w in _OTHER_WAY and _REFERS_BACK.match(text, pos + len(w)) and re.search(r"\w\W*,\s*$", text[max(0, pos - 8):pos]):
        return _OTHER_WAY[w]  # (only after the clause it refers to: "After that, buses run hourly" is after)
    return w


#: A clause that goes on about the subject before it: "..., and was the last crowned king".
_ELIDED_SUBJECT = re.compile(r"\W*(?:and|but)\s+(?:was|is|were|are|has|had|became|becomes|remains|remained)\b", re.I)


#: After "after" / "before", an event (a gerund or a clause), not a place in a ranking.
_EVENT_ORDER = re.compile(r"\s+(?:[a-z]+ing\b|(?:he|she|it|they|we|the|a|an|his|her|its|their)\s+[a-z]+)", re.I)


#: A copula right before a superlative: "is the newest", "was its largest", "remains the only".
_RANKED_AS = re.compile(r"\b(?:is|was|are|were|remains|remained|became|becomes|ranks\s+as|ranked\s+as)\s+"
                        r"(?:the\s+|its\s+|their\s+|our\s+)?(?:[\w\-]+\s+)?$", re.I)


_THE_ONLY = re.compile(r"\b(?:is|was|are|were|remains|became)\s+the\s+only\s+([a-z]+)", re.I)


def _only_one(claim: str, sents, known, out: FactCheck, conf, subject: str | None = None) -> None:
    """"X is the only moon known to generate a magnetic field" where the context says so of another name: the one
    thing the context allows, given to the wrong one. The claim's party is the name before its copula (or the
    name its pronoun stands for); the context's, the name its sentence opens with or sets before the copula."""
    m = _THE_ONLY.search(claim)
    if m is None or any(d.slot in ("entity", "comparison") for d in out.differences):
        return
    mine = names(claim[: m.start()], known)
    pronoun = subject if subject and re.search(r"\b(?:it|he|she|they)\s+$", claim[: m.start()], re.I) else None
    who_text = mine[-1].text if mine else pronoun or ""
    who = name_tokens(who_text) if who_text else frozenset()
    if not who:
        return
    what = _fold(stem(m.group(1).lower()))
    rest = set(_parse(claim[m.end():]).term_set)
    for _, sent, p in sents:
        for e in _THE_ONLY.finditer(p.text):
            if _fold(stem(e.group(1).lower())) != what or _coverage(rest, set(_parse(p.text[e.end():]).term_set)) < 0.5:
                continue
            theirs = names(p.text[: e.start()], known)
            lead = re.match(r"\s*([A-Z][\w'’\-]+)", p.text)  # a name that opens its sentence is known nowhere else
            if lead and lead.group(1).lower() not in STOPWORDS and not (theirs and theirs[0].start == lead.start(1)):
                theirs = [Name(lead.start(1), lead.end(1), lead.group(1))] + theirs
            if theirs and not any(n.tokens & who for n in theirs):
                out.differences.append(Difference(slot="entity", claim_value=who_text,
                                                  evidence_value=theirs[0].text, evidence_span=_span(sent),
                                                  confidence=conf["entity"]))
                return


#: "the only merit scholarship", "Northfield's sole supplier", "its only hospital", "the company's only factory": one
#: thing said to be all there is.
_ONLY_NOUN = re.compile(r"\b(?:the|its|their|his|her|our|[A-Z][\w\-]*['\u2019]s|the\s+[a-z][\w\-]*['\u2019]s)\s+(?:only|sole)\s+"
                        r"((?:[a-z][\w\-]*\s+){0,2}[a-z][\w\-]*)")
#: What a claim's "<subject> was the only <noun>" is said of, when it names nothing: the content words of its clause
#: before the copula ("the 14-month delay in making the complaint").
_ONLY_COPULA = re.compile(r"\s(?:is|was|are|were|remains|remained)\s+$", re.I)
#: "One of these, the Harlan Award, ...", "one of its three suppliers": the thing named as one of several.
_ONE_OF = re.compile(r"\bone\s+of\s+(?:these|those|the|its|their|his|her|our|several|many|\d+|two|three|four|five|"
                     r"six|seven|eight|nine|ten)\b", re.I)


def _only_of_several(claim: str, c_names: list[Name], sents, out: FactCheck, conf) -> None:
    """"X is Northfield's only merit scholarship" where the context says X is one of several ("... offers merit
    scholarships ... One of these, the Harlan Award, ..."): a part widened to the whole."""
    m = _ONLY_NOUN.search(claim)
    if m is None or any(d.slot == "quantifier" for d in out.differences):
        return
    head = _fold(stem(m.group(1).split()[-1].lower()))
    parties = [n.tokens for n in c_names if n.tokens]
    if not parties:
        # A claim that names nothing is read of its subject ("the 14-month delay ... was the only factor"): two of
        # the content words of its clause before the copula, and two thirds of them, must be in the evidence
        # sentence. Why: the "one of several" sentence must speak of the same thing, and without a name only its
        # words tell so (reworded a little: "in making the complaint" / "before the complaint was made").
        cop = _ONLY_COPULA.search(claim[: m.start()])
        if cop is None:
            return
        a, _ = _piece_bounds(claim, cop.start())
        subject = frozenset(t for t in _parse(claim[a:cop.start()]).term_set if not t[0].isdigit())
        if len(subject) < 2:
            return
        parties = [subject]

    def said_of(who: frozenset[str], p: _Parsed) -> bool:
        if c_names:
            return who <= words(p.text)
        return len(who & p.term_set) >= 2 and _coverage(set(who), p.term_set) >= 0.66

    for who in parties:
        for k, (_, sent, p) in enumerate(sents):
            one = _ONE_OF.search(p.text)
            if one is None or not said_of(who, p):
                continue
            # the kind of thing is the sentence's own or the one before's ("One of these" refers back)
            kinds = p.term_set | (sents[k - 1][2].term_set if k else frozenset())
            if head in kinds:
                out.differences.append(Difference(slot="quantifier", claim_value=m.group(0), evidence_value=one.group(0),
                                                  evidence_span=_span(sent), confidence=conf["quantifier"]))
                return


def _apposed(text: str, at: int, subject: frozenset[str]) -> bool:
    """A superlative set beside the name in commas: "Io, the innermost, is ..." (the name right before)."""
    m = re.search(r"([\w'’\-]+(?:\s+[\w'’\-]+){0,3})\s*,\s+the\s+$", text[max(0, at - 60):at])
    return m is not None and subject <= words(m.group(1))


def _relation_before(text: str, pos: int, figures: Sequence[Quantity]) -> str | None:
    """The order or comparison word nearest before ``pos`` in the same clause (at most 60 characters back, no other
    figure between): what a figure is said to be the most, the fewest, the highest of."""
    lo = max(0, pos - 60)
    # (a figure counting the set ranked, "the highest turnout of the five wards, at 29%", is the word's phrase)
    # (only the figures that end in the window: found by bisection, as a claim may hold thousands of figures)
    first = bisect_left([q.start for q in figures], lo - 64)
    lo = max([lo] + [q.end for q in takewhile(lambda x: x.start <= pos, islice(figures, first, None))
                     if lo <= q.end <= pos and not lexicon.counts_ranked_set(text[:q.start])])
    cut = re.search(r"[.;!?—]\s[^.;!?—]*$", text[lo:pos])
    if cut:
        lo += cut.start() + 1
    found = lexicon.relation_words(text[lo:pos])
    return found[-1][0] if found else None


def _figure_relation(c: _Parsed, sents, out: FactCheck, conf) -> None:
    """A figure the context states beside the opposite superlative to the claim's: "they conceded the most goals
    in the league, 388" against "Ballyre conceded the most goals (612), while the Comets conceded the fewest
    (388)". Read only where every evidence mention of the figure has an opposed word before it."""
    if any(d.slot in ("comparison", "direction") for d in out.differences):
        return
    for q in c.quantities:
        mine = _relation_before(c.text, q.start, c.quantities)
        if mine is None or lexicon.counts_ranked_set(c.text[:q.start]):
            continue  # ("the deepest of the three reservoirs": three is the set ranked, not a figure ranked)
        key = lexicon.relation_key(mine)
        if key is None or key[1] != "s" or key[0] == "order":
            continue  # (a superlative of amount; "the last ice age, around 13,000 years ago" dates, it does not rank)
        theirs = [(sent, p, e, _relation_before(p.text, e.start, p.quantities))
                  for _, sent, p in sents for e in p.quantities
                  if _equivalent(q, e) or (q.magnitude == e.magnitude and (not e.dimension or q.inherited))]
        # (and the sentence gives the claim's superlative to another figure: both ends ranked side by side)
        if theirs and all(w is not None and lexicon.opposed(mine, w) for _, _, _, w in theirs) and any(
                lexicon.relation_key(x) == lexicon.relation_key(mine) for x, _ in lexicon.relation_words(theirs[0][1].text)):
            sent, p, e, w = theirs[0]
            out.differences.append(Difference(
                slot="comparison", claim_value=f"{mine} ({q.text})", evidence_value=f"{w} ({e.text})",
                evidence_span=_span(sent, e.start, e.end), confidence=conf["comparison"]))
            return


def _superlative_of_name(claim: str, sents, out: FactCheck, conf) -> None:
    """A superlative said of a name that the context ranks the other way in a clause naming it ("St Orlan's ...
    is the newest surviving church" / "St Orlan's is the oldest surviving one, while Holy Cross ... is the
    newest"), read whatever else the claim adds from other sentences (``_relations`` needs the claim to align
    with one sentence as a whole)."""
    if any(d.slot in ("comparison", "direction", "negation", "modality") for d in out.differences):
        return
    for w, pc in lexicon.relation_words(claim):
        if (lexicon.relation_key(w) or ("", "", ""))[1] != "s":
            continue
        own = next(((a, b) for a, b in clauses(claim) if a <= pc < b), (0, len(claim)))
        ranked = _RANKED_AS.search(claim, own[0], pc)
        # (or a superlative of a thing the name has, the same thing the context ranks: "Greenline put in the
        # highest bid" / "Greenline submitted the lowest bid")
        head = _head_after(claim, pc + len(w))
        if not ranked and head is None:
            continue  # only a superlative the name is said to be ("X, built in 1611, is the newest ...")
        subject = [n.tokens for n in names(claim[own[0]:pc], known=None)][:1]
        if not subject and ranked:
            # "The ancho is the hottest": the word right before the copula, when it is all the subject there is.
            lead = re.fullmatch(r"\s*(?:the\s+)?([a-z][\w\-]{2,})\s*", claim[own[0]:ranked.start()], re.I)
            subject = [frozenset({lead.group(1).lower()})] if lead else []
        if not subject:
            continue
        for _, sent, p in sents:
            for a, b in clauses(p.text):
                if not subject[0] <= words(p.text[a:b]):
                    continue
                rel = [(x, q) for x, q in lexicon.relation_words(p.text[a:b])]
                if any(lexicon.relation_key(x) == lexicon.relation_key(w) for x, _ in rel):
                    return  # the context says it too
                anti = [(x, q) for x, q in rel if lexicon.opposed(w, x) and (lexicon.relation_key(x) or ("", "", ""))[1] == "s"
                        and ((ranked and (_RANKED_AS.search(p.text, a, a + q) or _apposed(p.text, a + q, subject[0])))
                             or (head is not None and _head_after(p.text, a + q + len(x)) == head))]
                if anti:
                    x, q = anti[0]
                    out.differences.append(Difference(
                        slot="comparison", claim_value=f"{w} ({_around(claim, pc)})",
                        evidence_value=f"{x} ({_around(p.text, a + q)})", evidence_span=_span(sent, a, b),
                        confidence=conf["comparison"]))
                    return


def _head_after(text: str, pos: int) -> str | None:
    """The noun a superlative ranks, right after it ("the lowest bid" -> bid), folded; None before a figure,
    a preposition or the end ("the highest of the three", "lowest at $18.2 million")."""
    m = re.match(r"\s+([a-z][a-z\-]{2,})\b", text[pos:pos + 30], re.I)
    if not m or m.group(1).lower() in STOPWORDS:
        return None
    return _fold(stem(m.group(1).lower()))


#: The kind of figure each scale of comparison is read from ("lighter": masses; "cheaper": prices).
_SCALE_KINDS = {"weight": ("mass",), "price": ("currency",), "length": ("length", "time"), "height": ("length",),
                "distance": ("length",), "heat": ("temperature",), "speed": ("speed",), "depth": ("length",),
                "width": ("length",), "size": ("length", "area", "volume", "data")}


def _figures_by_name(sents, kinds: tuple[str, ...], known) -> list[tuple[frozenset[str], Quantity, EvidenceSentence, str]]:
    """Figures of ``kinds`` with the name each is stated after in its sentence ("The Model S200 weighs 2.6 kg")."""
    out = []
    for _, sent, p in sents:
        qs = [q for q in p.quantities if q.kind in kinds and not q.bound]
        if not qs:
            continue
        ns = names(p.text, known)
        for q in qs:
            owner = max((n for n in ns if n.end <= q.start and not re.search(r"[;.]", p.text[n.end:q.start])),
                        key=lambda n: n.end, default=None)
            if owner is not None:
                out.append((owner.tokens, q, sent, owner.text))
    return out


#: "The X300 has the larger tank", "the Vela S2 had the longest range": ranked by what it has.
_HAS_RANKED = re.compile(r"\b(?:has|had|have|offers|offered|gives|gave|provides|provided|boasts|comes\s+with)\s+"
                         r"(?:you\s+|us\s+|them\s+)?(?:the\s+|a\s+)?(?:[\w\-]+\s+)?$", re.I)


def _ranked_by_figures(claim: str, sents, known, out: FactCheck, conf) -> None:
    """A comparison said of a name that the context's own figures rank the other way: "The S300 is the lighter
    of the two" where the S200 weighs 2.6 kg and the S300 3.1 kg; "Plan B is the cheapest" where Plan A costs
    less. Read only where the context states one figure of the scale's kind after each name."""
    if any(d.slot in ("comparison", "direction") for d in out.differences):
        return
    for w, pc in lexicon.relation_words(claim):
        key = lexicon.relation_key(w)
        if key is None or key[0] not in _SCALE_KINDS or key[1] not in ("c", "s"):
            continue
        own = next(((a, b) for a, b in clauses(claim) if a <= pc < b), (0, len(claim)))
        ranked = _RANKED_AS.search(claim, own[0], pc) or _HAS_RANKED.search(claim, own[0], pc)
        subject = names(claim[own[0]:ranked.start()], known) if ranked else []
        if not subject:
            continue
        figs = _figures_by_name(sents, _SCALE_KINDS[key[0]], known)
        owners = [t for t, _, _, _ in figs]
        # the words that tell the names apart ("S200" / "S300", not the "Model" both share)
        distinct = [t - frozenset().union(*(o for o in owners if o != t)) for t in owners]
        mine = [f for f, d in zip(figs, distinct) if d & subject[0].tokens]
        others = [f for f, d in zip(figs, distinct) if d and not d & subject[0].tokens]
        than = re.match(r"\s+than\s+([^,.;]{1,60})", claim[pc + len(w):])
        if than:
            rival = {t for n in names(than.group(1), known) for t in n.tokens}
            others = [f for f, d in zip(figs, distinct) if d & rival and not d & subject[0].tokens]
        elif key[1] == "c" and len({f[3] for f in others}) != 1:
            continue  # "the lighter" of more than two: not said which two
        if len({f[3] for f in mine}) != 1 or not others or len({f[3] for f in others}) != len(others):
            continue  # one figure per name, or the figures are not the names' own
        x = mine[0][1]
        if any(not _comparable(x, o[1]) or o[1].rate != x.rate for o in others):
            continue
        beaten = [o for o in others if (o[1].value < x.value if key[2] == "-" else o[1].value > x.value)]
        if beaten:
            o = beaten[0]
            out.differences.append(Difference(
                slot="comparison", claim_value=f"{w} ({subject[0].text})",
                evidence_value=f"{mine[0][3]}: {x.text}; {o[3]}: {o[1].text}", evidence_span=_span(o[2]),
                confidence=conf["comparison"]))
            return


_ORDER_WORDS = frozenset({"before", "after", "earlier", "later", "preceded", "followed", "prior"})

# -- steps in the other order --------------------------------------------------------------------------
#: Two steps in a stated order: "X before Y", "X, (and) then Y", "first X, then Y", "X, followed by Y"
#: (X first), and "after X, Y", "Y after X", "Y once X" (X first).
#: A stretch of time before "later": "two years later", "a few weeks later", "months later".
_SPAN_LATER = r"(?:(?:(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d{1,3}|a\s+few|several|some|many)\s+)?" \
              r"(?:days?|weeks?|months?|years?|decades?)\s+)?"
_THEN = re.compile(r"^(?:first,?\s+)?(.+?)(?:,\s*(?:and\s+)?(?:only\s+)?(?:then|afterwards)|\s+and\s+(?:only\s+)?then|,?\s+followed\s+by|"
                   r",?\s+and\s+(?:only\s+)?(?:after\s+(?:that|this)|afterwards|subsequently|" + _SPAN_LATER + r"later)\s*,?|"
                   # ("faced trial before U.S. District Court Judge ...": before a court, not before a step)
                   r"\s+before(?!\s+(?:an?\s+|the\s+)?(?:[A-Z][\w.]*\s+)*(?:court|judge|jury|committee|panel|congress|"
                   r"parliament|senate|audience|crowd|board|magistrate|tribunal|Court|Judge|Committee|Congress|Parliament|"
                   r"Senate|Board|Tribunal)\b)|"
                   r"\s+prior\s+to)\s+(.+)$", re.I)  # "then" alone is an adverb ("the sample is then sent")
_AFTER_LEAD = re.compile(r"^(?:only\s+)?(?:after|once|when)\s+(.+?),\s*(?:then\s+)?(.+)$", re.I)
_AFTER_TAIL = re.compile(r"^(.+?)\s+(?:only\s+)?(?:after|once)\s+(.+)$", re.I)
_BEFORE_LEAD = re.compile(r"^(?:before)\s+(.+?),\s*(.+)$", re.I)
#: "The Spaniards were driven out, and Moctezuma died shortly afterwards" (X first).
_AND_AFTERWARDS = re.compile(r"^(.+?),?\s+and\s+(.+?)\s+(?:shortly\s+|soon\s+|immediately\s+|only\s+)?"
                             r"(?:afterwards?|thereafter|after\s+that|" + _SPAN_LATER + r"later)\b.*$", re.I)
#: "Only after the supernatant has been removed should the pellet be resuspended" (X first).
_AFTER_INVERTED = re.compile(r"^(?:only\s+)?(?:after|once)\s+(.+?)\s+(?:should|can|may|must|will|do|does|is|are)\s+(.+)$", re.I)
#: "The donation followed a fire" (the fire first); "The survey preceded the vote" (the survey first).
_FOLLOWED = re.compile(r"^(.+?)\s+(?:followed|came\s+after|was\s+preceded\s+by)\s+(.+)$", re.I)
_PRECEDED = re.compile(r"^(.+?)\s+(?:preceded|came\s+before|was\s+followed\s+by)\s+(.+)$", re.I)
#: The inverted main clause after an "only after" clause: "... is installed should you run", "... can the lid be".
_INVERTED_MODAL = re.compile(r"\s+(?=(?:should|must|can|may|will|do|does)\s+(?:you|we|they|it|the|your|our|this|these)\b)",
                             re.I)
_AFTER_WHICH = re.compile(r",\s*after\s+(?:which|that|this)(?=\s)", re.I)
_SPAN_BEFORE = re.compile(r"(\b(?:\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|twelve|24|48)\s+"
                          r"(?:seconds?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)\s+)before\s", re.I)
#: "24–48 hours after birth": a time after an event named by one noun, no step (not "two years after Chen had left").
_SPAN_AFTER = re.compile(_SPAN_BEFORE.pattern.replace("before", "after") + r"(?=(?:the\s+|a\s+)?\w+\s*(?:[,.;)]|and\b|or\b|$))",
                         re.I)


#: "after three days," with nothing after the span in its clause: a time waited, no event it follows.
_AFTER_SPAN = re.compile(r"\bafter\s(?=(?:\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|twelve|a\s+few|several)\s+"
                         r"(?:(?:working|business|full|clear)\s+)?(?:minutes?|hours?|days?|weeks?|months?|years?)\s*(?:[,.;)]|$))",
                         re.I)


#: Event nouns whose verb is spelt apart from them ("Moctezuma's death" is "Moctezuma died").
_EVENT_NOUN = {"death": "die", "deaths": "die", "birth": "born", "arrival": "arriv", "departure": "depar",
               "sale": "sell", "loss": "lose", "win": "won", "victory": "won", "marriage": "marri", "flight": "fly"}


def _step_word(t: str) -> str:
    """A step's word: its action where the text layer lists one ("relocated" -> move), else its stem."""
    t = _EVENT_NOUN.get(t.lower(), t)
    act = lexicon.action(t)
    # Five letters: a noun and its verb are one step ("donation" / "donated").
    return act if act != t.lower() else stem(_fold(t))[:5]


@functools.lru_cache(maxsize=4096)
def _steps(text: str) -> list[tuple[frozenset[str], frozenset[str], int, int]]:
    """(first step's words, second step's words, start, end) for each sentence of ``text`` that orders two
    steps. Words are stems, so "deploy" and "deploying" are one step."""
    out = []
    # "at least 45 minutes before your appointment" bounds a time; it orders no two steps.
    text = _SPAN_BEFORE.sub(lambda m: m.group(1) + "ahead  ", text)
    text = _SPAN_AFTER.sub(lambda m: m.group(1) + "since ", text)  # "24–48 hours after birth": a time, no step
    # ("if symptoms do not improve after three days, see your GP": a time the clause waits, no step before it)
    text = _AFTER_SPAN.sub(lambda m: "past  " + m.group(0)[6:], text)
    # "X, after which Y" is "X, then Y" (the "which" is X): no "Y after X" with the steps the other way round.
    text = _AFTER_WHICH.sub(lambda m: ", then" + " " * (len(m.group(0)) - 6), text)
    # (a dot inside a version or a number is no sentence end: "before installing 3.0, run the script")
    for m in _STEP_SENTENCE.finditer(text):
        if len(m.group(0)) > _MAX_STEP_SENTENCE:
            continue  # (no sentence that orders two steps runs this long; the patterns' backtracking would: 40 kB in 8 s)
        for first, second in _ordered_in(m.group(0).strip()) + _dated_events(m.group(0)):
            # (a later step that acts on the earlier one's object by a pronoun shares its words: "toast the seeds,
            # then grind them")
            second = lexicon.step_with_object(first, second)
            # Verbs of one action are one step ("moved its headquarters" / "relocated its headquarters").
            fx = frozenset(_step_word(t) for t, _ in terms_with_offsets(first))
            for then in dict.fromkeys((second, _first_step(second))):
                fy = frozenset(_step_word(t) for t, _ in terms_with_offsets(then))
                if fx and fy and len(fx) + len(fy) >= 4:  # (an event may be one noun: "The donation followed a fire")
                    out.append((fx, fy, m.start(), m.end()))
    return out


@functools.lru_cache(maxsize=4096)
def _fallback_steps(text: str) -> list[tuple[frozenset[str], frozenset[str], int, int]]:
    """(first step's words, fallback step's words, start, end) for a text that says to do one thing and another
    only if it fails ("Start by writing to HR; if that doesn't resolve it, speak to your manager"), as ``_steps``
    gives them. Why: ``_steps`` reads a sentence up to a ";" and orders only by "then", "before" and "after"."""
    pair = lexicon.fallback_split(text)
    if pair is None:
        return []
    fx = frozenset(_step_word(t) for t, _ in terms_with_offsets(pair[0]))
    fy = frozenset(_step_word(t) for t, _ in terms_with_offsets(pair[1]))
    return [(fx, fy, 0, len(text))] if fx and fy and len(fx) + len(fy) >= 4 else []


#: A stretch of text that may order steps: to a sentence's end or a colon's heading ("Upgrading to 3.0: before
#: installing ..."), a dot between a figure and a character ("3.0", "2.x") and a clock's colon kept inside it.
_STEP_SENTENCE = re.compile(r"(?:[^.;:!?\n]|(?<=\d)\.(?=\w)|:(?!\s))+")


_MAX_STEP_SENTENCE = 800


def _first_step(steps: str) -> str:
    """The first of several steps listed after "then" ("then whisk in the sugar until pale, stir in the butter and
    bake"): each comes after the step before "then", and the first one is what the order is read on."""
    cut = _NEXT_LISTED_STEP.search(steps)
    return steps[:cut.start()] if cut else steps


#: A comma before a step of its own: a verb phrase of three words or more ("..., stir in the cooled butter").
_NEXT_LISTED_STEP = re.compile(r",\s+(?!and\b|or\b|but\b|which\b|who\b|then\b|so\b)[a-z]+\s+[a-z]+\s+[a-z]+")


def _spell_steps(step: frozenset[str], spelled: dict[str, frozenset[str]]) -> frozenset[str]:
    out = set(step)
    for t in step:
        if t in spelled and len(t) >= 3:
            out.discard(t)
            out |= {_step_word(w) for w in spelled[t]}
    return frozenset(out)


_STEP_PATTERNS = ((_AFTER_LEAD, False), (_AFTER_INVERTED, False), (_BEFORE_LEAD, True), (_THEN, False),
                  (_AND_AFTERWARDS, False), (_AFTER_TAIL, True), (_FOLLOWED, True), (_PRECEDED, False))
#: Where a step ends when a new clause with its own subject follows: ", and Tom Keller ... became chair".
_NEW_CLAUSE = re.compile(r",\s+(?:and|but|while)\s+(?=[A-Z])")


def _ordered_in(piece: str, depth: int = 0) -> list[tuple[str, str]]:
    """(earlier, later) for the steps a piece orders, each step read again for an order of its own: "Whisk the
    eggs, then stir in the butter before folding in the flour" orders the whisking before the rest, and the
    butter before the flour."""
    for pat, swap in _STEP_PATTERNS:
        hit = pat.match(piece)
        if hit and pat is _AFTER_LEAD and _THEN.match(hit.group(2)):
            # "After centrifuging, resuspend the pellet and then remove the supernatant": the two steps
            # the claim orders are in the main clause.
            hit = _THEN.match(hit.group(2))
        inverted = _INVERTED_MODAL.search(hit.group(1)) if hit and pat is _AFTER_LEAD else None
        # (an "after" clause of its own subject and verb, not the subject alone: "Once you do this, restart")
        if hit and inverted and len(hit.group(1)[:inverted.start()].split()) >= 2:
            # "Only after the package is installed should you run migrate, then restart": the comma ends the inverted
            # main clause, not the "after" clause; the package first, then migrate, then the restart.
            x, y = hit.group(1)[:inverted.start()], hit.group(1)[inverted.start():]
            pairs = [(x, y), (y, hit.group(2))]
            if depth < 2:
                pairs += _ordered_in(hit.group(2).strip(), depth + 1)
            return pairs
        if hit:
            x, y = hit.group(1), hit.group(2)
            end = _NEW_CLAUSE.search(y)
            y = y[: end.start()] if end else y
            first, second = (y, x) if swap else (x, y)
            pairs = [(first, second)]
            if depth < 2:
                pairs += _ordered_in(x.strip(), depth + 1) + _ordered_in(y.strip(), depth + 1)
            return pairs
    return []


def _dated_events(piece: str) -> list[tuple[str, str]]:
    """(earlier, later) for the events of one sentence each given its own date: "It acquired Nordlys Line in 1958
    and moved its headquarters to Oslo in 1973"; "appointed Raman as CFO in March 2021, two years before she
    succeeded Keller as chief executive in April 2023"."""
    parts = [(a, b) for a, b in _pieces_at(piece, _EVENT_JOIN)]
    dated = []
    for a, b in parts:
        ds = [d for d in _parse(piece[a:b]).dates if d.year is not None]
        if len(ds) == 1:
            d = ds[0]
            dated.append(((d.year, d.month or 0, d.day or 0), piece[a:b]))
    out = []
    for (ka, ta), (kb, tb) in zip(dated, dated[1:]):
        if ka != kb:
            out.append((ta, tb) if ka < kb else (tb, ta))
    return out


_EVENT_JOIN = re.compile(r",?\s+and\s+(?=[a-z])|,\s+(?:\w+\s+){0,3}?(?:before|after|ahead)\s+|;\s*")


def _pieces_at(text: str, sep: re.Pattern[str]) -> list[tuple[int, int]]:
    out, pos = [], 0
    for m in sep.finditer(text):
        out.append((pos, m.start()))
        pos = m.end()
    out.append((pos, len(text)))
    return [(a, b) for a, b in out if text[a:b].strip()]


_WHEN_LED = re.compile(r"\s*(?:when|while|as)\b", re.I)


def _sym_coverage(a: frozenset[str], b: frozenset[str]) -> float:
    return max(_coverage(set(a), b), _coverage(set(b), a))


def _step_order(claim: str, sents, out: FactCheck, conf) -> None:
    """Two steps the context orders, given the other way round ("Deploy the new version first, and then run
    the migration" where the context says to run the migration before deploying). Each of the claim's steps
    must hold most of the words of the context's other step and few of its own."""
    if any(d.slot == "comparison" for d in out.differences):
        return
    mine = _steps(claim) + _fallback_steps(claim)
    if not mine:
        return
    # (an initialism the context spells out is read as its words: "becoming its CFO" / "chief financial officer")
    spelled: dict[str, frozenset[str]] = {}
    for _, _, p in sents:
        spelled.update(acronyms(p.text))
    mine = [(_spell_steps(cx, spelled), _spell_steps(cy, spelled), a, b) for cx, cy, a, b in mine]
    # (a word both steps of a pair use orders nothing: "add the water before adding the salt" is water / salt)
    mine = [(cx - cy, cy - cx, a, b) if cx - cy and cy - cx else (cx, cy, a, b) for cx, cy, a, b in mine]
    # (the context's steps in one sentence, or in two when the second opens "Then ..." / "Next, ..."; or two events
    # each dated in a sentence of its own)
    for ex, ey, s, a, b in _ordered_pairs(sents) + _dated_sentence_pairs(sents):
        if ex - ey and ey - ex:
            ex, ey = ex - ey, ey - ex
        for cx, cy, _, _ in mine:
            crossed = min(_coverage(set(cx), ey), _coverage(set(cy), ex))
            kept = max(_coverage(set(cx), ex), _coverage(set(cy), ey))
            # Read both ways too: a claim's step may hold more words than the context's ("Arvo Tech moved its
            # headquarters to Leeds" / "the combined company relocated its headquarters to Leeds"), the
            # subject named once in another sentence.
            crossed2 = min(_sym_coverage(cx, ey), _sym_coverage(cy, ex))
            kept2 = max(_sym_coverage(cx, ex), _sym_coverage(cy, ey))
            # (short steps on the evidence side, sixteen words at most: two words of a long
            # news sentence tie any two steps on RAGTruth)
            loose = crossed2 >= 0.5 and kept2 < 0.4 and crossed2 >= 1.5 * kept2 and not (
                _WHEN_LED.match(claim) or _WHEN_LED.match(s[3][a:b])) and min(len(cx), len(cy)) >= 2 \
                and len(ex) + len(ey) <= 16 and (cx & ey) - _LIGHT_STEP_WORDS \
                and (cy & ex) - _LIGHT_STEP_WORDS
            # (a word of substance each way: "done" alone crosses "QA is done before ..." with "QC activities are done
            # during the manufacturing process")
            if ((crossed >= 0.6 and kept < 0.5) or loose) and not _timed_in_order(claim):
                out.differences.append(Difference(slot="comparison", claim_value=claim.strip()[:120],
                                                  evidence_value=s[3][a:b].strip()[:120],
                                                  evidence_span=_span(s, a, b), confidence=conf["comparison"]))
                return


#: Verbs that name no step of their own ("is done", "was made", "got"): a crossing on them alone crosses nothing.
_LIGHT_STEP_WORDS = frozenset(_step_word(w) for w in "do does did done doing make makes made making get gets got take "
                              "takes took taken go goes went gone have has had be is was were been".split())


@functools.lru_cache(maxsize=1024)
def _timed_in_order(claim: str) -> bool:
    """Steps the claim orders each at its own clock time, the first the earlier: the times say the order, and the
    time checks verify each ("After the police alerted the team at 14:05, a helicopter lifted the climbers off at
    17:30" is no flip of "the team was alerted at 14:05 after two climbers became stuck")."""
    for m in re.finditer(r"[^.;!?\n]+", claim):
        for first, second in _ordered_in(m.group(0).strip()):
            t1, t2 = parse_times(first), parse_times(second)
            if t1 and t2 and max(t.minutes for t in t1) < min(t.minutes for t in t2):
                return True
    return False


#: A numbered step: "1) Back up the database.", "2. Stop the workers", "Step 3: Run the migration".
_NUMBERED = re.compile(r"(?:^|(?<=\s))(?:step\s+)?(\d{1,2})[.):]\s+(.+?)(?=\s+(?:step\s+)?\d{1,2}[.):]\s|$)", re.I | re.S)
#: Words that present a claim's steps as an order ("..., and then run the migration").
_IN_ORDER = re.compile(r"\b(?:then|first|next|finally|afterwards?|followed\s+by|once\s+(?:that|this|everything)|last)\b", re.I)
_STEP_SPLIT = re.compile(r",\s*(?:and\s+)?(?:then\s+)?|;\s*|\s+and\s+then\s+|\s+then\s+|[.!]\s+", re.I)


def _numbered_order(claim: str, sents, out: FactCheck, conf) -> None:
    """Steps the context numbers ("1) Back up the database. 2) Stop the workers. 3) Run the migration. 4) Restart
    the servers."), given by the claim in another order ("..., restart the servers, and then run the migration").
    The claim must present its steps as an order; each of its pieces is matched to the numbered step it states
    most of (and clearly more than any other)."""
    if any(d.slot == "comparison" for d in out.differences) or not _IN_ORDER.search(claim):
        return
    steps: list[tuple[int, frozenset[str], EvidenceSentence]] = []
    for _, s, p in sents:
        for m in _NUMBERED.finditer(p.text):
            steps.append((int(m.group(1)), _parse(m.group(2)).term_set, s))
    if len(steps) < 3 or len({n for n, _, _ in steps}) != len(steps):
        return
    order: list[tuple[int, str]] = []
    for piece in _STEP_SPLIT.split(claim):
        terms = _parse(piece).term_set
        if len(terms) < 2:
            continue
        fits = sorted(((_coverage(set(terms), set(st)), n) for n, st, _ in steps), reverse=True)
        if fits[0][0] >= 0.6 and fits[0][0] >= fits[1][0] + 0.25:
            order.append((fits[0][1], piece.strip()))
    for (n1, p1), (n2, p2) in zip(order, order[1:]):
        if n1 > n2:
            s = next(x for n, _, x in steps if n == n2)
            out.differences.append(Difference(slot="comparison", claim_value=f"{p1} before {p2}",
                                              evidence_value=f"step {n2} before step {n1}", evidence_span=_span(s),
                                              confidence=conf["comparison"]))
            return


#: A sentence that follows the one before it in a sequence: "Next, press ...", "Then ...", "After that, ...".
_NEXT_STEP = re.compile(r"\s*(?:next|then|after\s+(?:that|this)|afterwards?|finally|subsequently|once\s+(?:that|this)\s+is\s+done)\b",
                        re.I)
#: Where a claim's first step ends: its first "and", ", then", or clause mark.
_FIRST_STEP_END = re.compile(r",?\s+(?:and|then|before|after|until|while)\b|[,;:]", re.I)


def _ordered_pairs(sents) -> list[tuple[frozenset[str], frozenset[str], EvidenceSentence, int, int]]:
    """The context's ordered steps: those one sentence orders (``_steps``), and a sentence with the one before
    it when it opens by saying it comes next ("... first disconnect it from the modem. Next, press and hold
    the reset button ...")."""
    out = [(ex, ey, s, a, b) for _, s, p in sents for ex, ey, a, b in _steps(p.text) + _fallback_steps(p.text)]
    for k in range(1, len(sents)):
        (_, s0, p0), (_, s1, p1) = sents[k - 1], sents[k]
        # (or by saying the step before it failed: "If the matter is not resolved within 10 working days, ...")
        turn = lexicon.fallback_opener(p1.text) if s0[0] == s1[0] else None
        if s0[0] == s1[0] and (_NEXT_STEP.match(p1.text) or turn is not None):
            ex = frozenset(_step_word(t) for t, _ in terms_with_offsets(p0.text))
            ey = frozenset(_step_word(t) for t, _ in terms_with_offsets(p1.text[turn or 0:]))
            if ex and ey:
                out.append((ex, ey, s1, 0, len(p1.text)))
    return out


_WHEN_YEAR = re.compile(r"\b(?:in|on|by|since|from|during|until|of)\s+(?:(?:early|late|mid|the\s+spring|the\s+summer|the\s+autumn|"
                        r"the\s+winter|the\s+year)\s+)?$", re.I)


def _dated_sentence_pairs(sents) -> list[tuple[frozenset[str], frozenset[str], EvidenceSentence, int, int]]:
    """(earlier, later) for two sentences of one document that each date one event by its year ("Ashford's railway
    station opened in 1930 ... Two years later, in 1932, the Ashford Bridge was completed"). Why: a history told
    one event a sentence orders its events by their dates alone, and "the bridge was completed in 1932, before
    the station opened" reverses them. Read only for a claim that orders two steps; the first eight dated
    sentences at most."""
    dated: list[tuple[tuple[int, int, int], str, EvidenceSentence, _Parsed]] = []
    for _, s, p in sents:
        ds = [d for d in p.dates if d.year is not None]
        # (a year that says when: "in 1932", "on 22 December 1995"; not a model's or a thing's year, "a 1985
        # Chevrolet", which dates no event of the sentence)
        if len(ds) == 1 and len({d.year for d in p.dates}) == 1 and (
                ds[0].month is not None or _WHEN_YEAR.search(p.text, max(0, ds[0].start - 24), ds[0].start)):
            d = ds[0]
            assert d.year is not None
            dated.append(((d.year, d.month or 0, d.day or 0), s[0], s, p))
            if len(dated) >= 8:
                break
    out = []
    for i, (ki, doc_i, si, pi) in enumerate(dated):
        for kj, doc_j, sj, pj in dated[i + 1:]:
            if doc_i != doc_j or ki == kj or (ki[0] == kj[0] and not (ki[1] and kj[1])):
                continue  # (a year and a day in it are not ordered: "Vanished in 1995" / "on December 22, 1995")
            p0, s1, p1 = (pi, sj, pj) if ki < kj else (pj, si, pi)
            ex = frozenset(_step_word(t) for t, _ in terms_with_offsets(p0.text))
            ey = frozenset(_step_word(t) for t, _ in terms_with_offsets(p1.text))
            if ex and ey:
                out.append((ex, ey, s1, 0, len(p1.text)))
    return out


def _order_after(before: str, claim: str, sents, out: FactCheck, conf) -> None:
    """A claim that says it comes after the one before ("After that, disconnect the router from the modem"),
    where the context puts its first step before that claim's: each side must hold most of the words of the
    context's other step and fewer of its own."""
    if any(d.slot == "comparison" for d in out.differences):
        return
    body = re.sub(r"^\W*(?:after\s+(?:that|this)|afterwards?|then|next|subsequently|later|finally)\b\W*", "", claim, flags=re.I)
    body = re.sub(r"\b(?:(?:shortly|soon|immediately|only)\s+)?(?:afterwards?|thereafter|after\s+that)\b", " ", body, flags=re.I)
    later = lexicon.span_later_end(body)  # ("... two years later": a time, no word of the step)
    body = body[:later.start()] if later else body
    end = _FIRST_STEP_END.search(body)
    first = body[: end.start()] if end and end.start() > 8 else body
    cx = frozenset(_step_word(t) for t, _ in terms_with_offsets(before))
    cy = frozenset(_step_word(t) for t, _ in terms_with_offsets(first))
    if len(cx) < 2 or len(cy) < 2:
        return
    for ex, ey, s, a, b in _ordered_pairs(sents):
        crossed = min(_coverage(set(cx), ey), _coverage(set(cy), ex))
        kept = max(_coverage(set(cx), ex), _coverage(set(cy), ey))
        if crossed >= 0.6 and kept < 0.5:
            out.differences.append(Difference(slot="comparison", claim_value=f"after '{before.strip()[:60]}': {first.strip()[:60]}",
                                              evidence_value=s[3][a:b].strip()[:120], evidence_span=_span(s, a, b),
                                              confidence=conf["comparison"]))
            return


def _bound_use(text: str, end: int) -> bool:
    """'more than 5', 'over 12 km', 'before 9 am': a bound on a value, compared by the number checks."""
    return bool(re.match(r"\s+(?:than\s+)?(?:[$€£]?\d|a\s+\d|one|two|three|four|five|six|seven|eight|nine|ten)", text[end:], re.I))


def _around(text: str, pos: int) -> str:
    a = max(0, text.rfind(" ", 0, max(0, pos - 25)))
    b = text.find(" ", pos + 25)
    return text[a:b if b > 0 else len(text)].strip()


def _sides(text: str, pos: int):
    """Which side of the relation word at ``pos`` a position is on. "Before X, Y" reads as "Y before X":
    a clause-initial relation word puts the words after the next comma on its left."""
    head = text[:pos]
    initial = not head.strip() or head.rstrip().endswith((",", ";", ":"))
    comma = text.find(",", pos)
    if initial and comma > pos:
        return lambda p: (p < pos) or (p > comma)
    return lambda p: p < pos


def _anchor_order(c_terms, pc: int, e_terms, pe: int, skip: set[str], claim: str = "", ev: str = "") -> str | None:
    """Do the shared words before / after the relation word sit on the same sides in the evidence?"""
    e_pos: dict[str, list[int]] = {}
    for t, p in e_terms:
        e_pos.setdefault(_fold(t), []).append(p)
    left_of_c, left_of_e = _sides(claim, pc), _sides(ev, pe)
    same = rev = 0
    sides = set()
    for t, p in c_terms:
        f = _fold(t)
        if t in skip or f not in e_pos or t[0].isdigit():
            continue
        left_c = left_of_c(p)
        sides.add(left_c)
        for q in e_pos[f]:
            if left_of_e(q) == left_c:
                same += 1
            else:
                rev += 1
    if same == rev:
        return None
    if same == 0 and rev >= 3 and len(sides) == 2:
        return "swapped"  # every shared word on the other side, words on both sides: a clean reversal
    return "same" if same > rev else "reversed"


# -- conditions ---------------------------------------------------------------------------------
#: A claim that says outright it needs no condition ("whether or not anyone signs it off", "regardless of age").
_NO_CONDITION = re.compile(r"(?:^|,)\s*whether\s+or\s+not\b|\b(?:regardless|irrespective|no\s+matter|in\s+all\s+cases|even\s+if|"
                           r"whatever\s+(?:the|your|their|its)\b|"
                           r"without\s+(?:any|needing|having|the\s+need))\b", re.I)


#: A subject of listed items before its verb: "Opened software, earphones and personal care products can ...".
_LISTED_SUBJECT = re.compile(r"\s*((?:[\w'’\-]+\s+){0,3}[\w'’\-]+(?:,\s*(?:[\w'’\-]+\s+){0,3}[\w'’\-]+)*,?\s+(?:and|or)\s+"
                             r"(?:[\w'’\-]+\s+){0,3}[\w'’\-]+)\s+(?:can|cannot|can't|may|must|will|are|is|should|need|have|qualify)\b")


def _conditions(claim: str, c_terms: set[str], sents, support, out: FactCheck, conf, near: Sequence[int] = ()) -> None:
    """A condition or restriction of the evidence ("only with the landlord's consent", "only for Premium
    units") that the claim drops or says is not needed ("without asking the landlord", "on all units").
    A mismatch found already stands, unless it is one too weak to flag by itself (a "without" read as a
    negation)."""
    if any(d.kind == "mismatch" and d.confidence >= 0.1 for d in out.differences):
        return
    strong = lexicon.condition_cues(claim)
    # (and a claim that says a clause holds in every case: "..., personalised items can't be returned under any
    # circumstances, and refunds go back ..." is read clause by clause too)
    if strong or lexicon.condition_cues(claim, strong=False) or _ALL_CASES.search(claim):
        # A condition of one clause is not the other's: "... covers a battery replacement, and accidental damage
        # is excluded unless you bought CarePlus" keeps the second clause's condition and may drop the first's.
        parts = [claim[a:b] for a, b in clauses(claim)]
        for part in parts if len(parts) > 1 else ():
            if lexicon.condition_cues(part) or lexicon.condition_cues(part, strong=False):
                continue
            # (an aside between commas is no word of what the clause says: "personalised items, however, can't be ...")
            p_terms = set(_parse(lexicon.without_asides(part)).term_set)
            idf = _idf(p_terms, [p for _, _, p in sents])
            scores = [_coverage(p_terms, p.term_set, idf) for _, _, p in sents]
            for k in sorted((k for k in range(len(sents)) if scores[k] >= 0.5), key=lambda k: -scores[k])[:3]:
                _conditions(part, p_terms, sents, [k], out, conf)
                if any(d.slot == "condition" for d in out.differences):
                    return
        if strong:
            return
    # (the sentence it aligns to best, or, for a claim that says it holds unconditionally, any it aligns to:
    # "... whether or not anyone signs it off; ... exempt from the cap" against "... only if approved")
    ks = list(dict.fromkeys(list(support[:1]) + list(near)))[:4] if _NO_CONDITION.search(claim) else list(support[:1])
    if support and not lexicon.condition_cues(claim, strong=False):
        # (and a sentence with a rule of its own for what sets the claim's subject apart from the general rule it
        # aligns to: "Opened software, earphones ... can only be returned if faulty" against "Items can be returned
        # within 30 days", for "opened earphones can be returned within 30 days")
        own = c_terms - sents[support[0]][2].term_set
        ks += [k for k in range(len(sents)) if k not in ks and own and own <= sents[k][2].term_set
               and lexicon.condition_cues(sents[k][2].text)][:2]
    for k in ks:
        text = sents[k][2].text
        cues = lexicon.condition_cues(text)
        weak = False
        if not cues:
            # A trailing "if" / "when" is a condition too where it limits a permission, an obligation or a
            # payment ("Pets are allowed in the cabin if they weigh less than 8 kg"), or where the claim
            # says the thing holds for all ("reimbursed for all travel" against "... when the trip is longer").
            cues = [(cue, end) for cue, end in lexicon.condition_cues(text, strong=False)
                    if cue in ("if", "when") and end - len(cue) > 0 and text[: end - len(cue)].strip()]
            if not cues or not (_ENTITLEMENT.search(text[: cues[0][1] - len(cues[0][0])]) or lexicon.unconditional(claim)) \
                    or lexicon.condition_cues(claim, strong=False):
                continue  # (a claim with an "if" / "when" of its own states its condition)
            weak = True
        cue, end = cues[0]
        cond = _parse(text[end:end + 80])
        cond_all = set(cond.term_set) | _anchors(cond)  # "if you are under 18": the figure is the condition
        cond_terms = cond_all - c_terms
        # (a setting that opens the sentence is where the rule holds, not the rule: "At Tarn House, the deposit is ...")
        main_terms = set(_parse(_SETTING.sub("", text[: end - len(cue)], count=1)).term_set)
        # (a listed subject is said of each of its items: "Opened software, earphones and personal care products can
        # only be returned if faulty" is the rule for "opened earphones"; the other items are no words to cover)
        listed = _LISTED_SUBJECT.match(text[: end - len(cue)])
        if listed:
            items = [set(_parse(x).term_set) for x in re.split(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", listed.group(1))]
            if len(items) >= 2 and any(i & c_terms for i in items):
                main_terms -= set().union(*(i for i in items if not i & c_terms))
        covered_main = _coverage(main_terms, c_terms) if main_terms else 0.0
        # (the words right before the cue are the rule it gates, and the claim's: "... without a change fee, provided")
        lead = text[: end - len(cue)]
        lead = lead[max((m.end() for m in re.finditer(r"[.;:]\s", lead)), default=0):]
        gated = {_fold(t) for t in content_terms(lead)[-8:]}
        if len(main_terms & c_terms) >= 4 and len(gated & c_terms) >= 2 \
                and re.match(r"provided|as\s+long\s+as|only\s|unless|on\s+condition", cue):
            # (or the claim is the rule of a long sentence, whose preamble it leaves out: "you can switch to another
            # flight up to 19 March without paying a change fee" of "Storm Ingrid travel waiver: due to forecast high
            # winds, customers booked to ... may change to another flight up to and including 19 March without a change
            # fee, provided ...")
            covered_main = max(covered_main, _coverage(c_terms, main_terms))
        # (a requirement to show something, by its own words: "a discount with a valid student ID" repeats "students")
        shown = cue.startswith(("with", "on ", "upon"))
        # (and a strong condition's word that is also its clause's topic is not the condition kept: "Travel delay benefits
        # reimburse ..., but only if the delay exceeds 6 hours" is not kept by "Travel delay cover reimburses")
        # (a plain "if" keeps its words: RAGTruth answers repeat them where the condition is their own)
        mentions_cond = bool(((cond_all - main_terms or cond_all) if shown or not weak else cond_all)
                             & (c_terms | _anchors(_parse(claim))))
        if mentions_cond and not weak and _anchors(cond) and not _anchors(cond) & _anchors(_parse(claim)):
            # A strong condition kept by its act but not its limit is dropped all the same: "refundable if you cancel"
            # of "refundable only if the booking is cancelled at least 14 days before arrival"
            mentions_cond = False
        if weak and mentions_cond:
            continue  # the claim keeps the condition in its own words ("free for visitors under 18")
        if mentions_cond and (_EXCEPT.search(claim) or _EXCEPTED_AFTER.search(claim)):
            continue  # and states it as an exception of its own: "(gas cookers excluded)" for "excluding gas cookers"
        if lexicon.unconditional(claim) and (mentions_cond or covered_main >= 0.5):
            pass
        elif covered_main >= (0.8 if weak else 0.6) and cond_terms and not mentions_cond and len(cond_all) >= 1:
            pass
        else:
            continue
        # The claim's "without" read as a negation is this condition said not to be needed: one finding.
        out.differences[:] = [d for d in out.differences if not (d.slot == "negation" and d.claim_value == "without")]
        out.differences.append(Difference(slot="condition", claim_value=claim.strip(),
                                          evidence_value=f"{cue} {text[end:end + 80].strip()}".split(".")[0],
                                          evidence_span=_span(sents[k][1]), confidence=conf["condition"]))
        return


#: A second predicate of the claim's subject, joined by "and" and opened by an auxiliary or a denial: "... is paid
#: twice a year and won't affect your other benefits".
_AND_AUXILIARY = re.compile(r",?\s+and\s+(?=(?:also\s+)?(?:won['\u2019]t|will|does|doesn['\u2019]t|do|don['\u2019]t|is|isn['\u2019]t|"
                            r"are|aren['\u2019]t|can|cannot|can['\u2019]t|has|have|must|may|need|needs)\b)", re.I)


def _condition_of_second_predicate(claim: str, sents, support, out: FactCheck, conf) -> None:
    """The condition of a claim's second predicate, read in the sentence that states it: "The supplement is paid
    twice a year and won't affect any of your other benefits" against "It will not affect your other benefits unless
    you are subject to the benefit cap". Why: the whole claim aligns to the sentence of its first predicate, so the
    condition checks never see the sentence whose exception the second one drops. Only a claim with such an "and"
    reads the evidence, and only a sentence with half of the predicate's words and a strong condition of its own."""
    if any(d.kind == "mismatch" and d.confidence >= 0.1 for d in out.differences):
        return
    m = _AND_AUXILIARY.search(claim)
    if m is None or lexicon.condition_cues(claim) or lexicon.condition_cues(claim, strong=False):
        return
    second = claim[m.end():]
    terms = set(_parse(second).term_set)
    if len(terms) < 2:
        return
    # (any sentence, not only those near the whole claim: a short second predicate, "and does not have to be repaid",
    # shares too few words with the whole claim to bring its sentence near)
    for k in range(len(sents)):
        if k in support[:1] or _coverage(terms, sents[k][2].term_set) < 0.5:
            continue
        if lexicon.condition_cues(sents[k][2].text):
            _conditions(second, terms, sents, [k], out, conf)
            if any(d.slot == "condition" for d in out.differences):
                return


#: A place or a party named at the start of a rule's sentence, before its subject: "At Tarn House, ", "For Premium
#: members, ". It says where the rule holds; a claim that answers a question about that place need not repeat it.
_SETTING = re.compile(r"^\s*(?:[Aa]t|[Ii]n|[Ff]or|[Oo]n)\s+(?:the\s+)?[A-Z][\w'\u2019&-]*(?:\s+[A-Z][\w'\u2019&-]*){0,3},\s+")
#: A clause said to hold in every case, outright ("can't be returned under any circumstances").
_ALL_CASES = re.compile(r"\b(?:under\s+any\s+circumstances|in\s+(?:all|every|any)\s+cases?|regardless|always|whether\s+or\s+not|"
                        r"no\s+matter|at\s+all\s+times|without\s+exception)\b", re.I)
_WITHOUT_ING = re.compile(r"\bwithout\s+(?:first\s+|actually\s+|ever\s+)?([a-z]{3,}ing)\b", re.I)


def _done_without(claim: str, sents, out: FactCheck, conf) -> None:
    """The claim says a thing does what the context says it does *without* doing: "`--dry-run`: applies the
    changes" against "`--dry-run` shows the changes without applying them". The claim's clause must share
    two other words with the evidence's, and say the verb plainly (not "without ..." or "not ..." itself).
    A loose negation finding (too weak to flag by itself) about the same "without" gives way to this one."""
    if any(d.kind == "mismatch" and d.confidence >= 0.1 for d in out.differences):
        return
    c_pieces = [(claim[a:b], set(_parse(claim[a:b]).term_set)) for a, b in _pieces(claim)] or [(claim, set(_parse(claim).term_set))]
    for _, sent, p in sents:
        for m in _WITHOUT_ING.finditer(p.text):
            verb = _fold(stem(m.group(1).lower()))
            e_terms = set(_parse(p.text[max(0, m.start() - 80): m.end() + 40]).term_set) - {verb}
            for piece, terms in c_pieces:
                if verb not in terms or len((terms - {verb}) & e_terms) < 2:
                    continue
                said = next((w for w in re.finditer(r"[A-Za-z]+", piece) if _fold(stem(w.group(0).lower())) == verb), None)
                if said is None or re.search(r"\b(?:without|not|never|no)\s+(?:\w+\s+){0,2}$", piece[: said.start()], re.I) \
                        or re.match(r"\s+(?:no|nothing|none|zero)\b", piece[said.end():], re.I):
                    continue  # the claim negates it too ("pay no fee")
                out.differences[:] = [d for d in out.differences if not (d.slot == "negation" and d.evidence_value == "without")]
                out.differences.append(Difference(slot="done_without", claim_value=said.group(0), evidence_value=m.group(0),
                                                  evidence_span=_span(sent, m.start(), m.end()), confidence=conf["done_without"]))
                return


#: A predicate that grants, requires or pays something: an "if" after it is the condition of the grant.
_ENTITLEMENT = re.compile(r"\b(?:may|can|must|allowed|permitted|eligible|entitled|refundable|refunded|reimbursed|free|"
                          r"required|qualif\w*|covered|accepted|admitted|waived|granted)\b", re.I)
#: "except (for) X", "other than X": X up to the verb or punctuation that ends it ("except contractors must ...").
#: An exception said after what it excepts: "(gas cookers excluded)", "weekends not included", "under-5s exempt".
_EXCEPTED_AFTER = re.compile(r"\b(?:excluded|not\s+included|exempt(?:ed)?)\b", re.I)
_EXCEPT = re.compile(r"\b(?:except(?:\s+(?:for|on|in|at))?|other\s+than|apart\s+from|excluding|but\s+not)\s+"
                     r"([^,.;:()]{1,60}?)(?=\s+(?:must|may|might|can|cannot|should|will|would|shall|is|are|was|were|"
                     r"has|have|had|do|does|did|need|needs|get|gets|pay|pays)\b|\s*[,.;:()]|\s*$)", re.I)


_ALL_OF = re.compile(r"\b(?:all|every|any|each)\s+(?:of\s+(?:the\s+)?)?(?:[a-z]+\s+){0,2}?([a-z]{3,})\b", re.I)


#: A claim that grants, allows or pays something for the nouns it quantifies ("any item can be refunded").
_GRANTED = re.compile(r"\b(?:may|can|allowed|permitted|eligible|entitled|free|refund\w*|available|paid|covered|accepted|"
                      r"exchang\w*|return\w*|waived|valid|appl(?:y|ies)|qualif\w*|billed|charged)\b", re.I)
_TEMPORAL_NOUNS = frozenset(_fold(stem(w)) for w in "year month week day hour minute time season term night morning "
                             "evening weekend quarter semester visit session".split())


def _widened(c: _Parsed, sents, support, out: FactCheck, conf) -> None:
    """"all orders" where the evidence speaks only of "orders over $50": a limit on the claim's noun, dropped
    and widened to all of them ("children under 12", "tickets of more than €100")."""
    if any(d.kind == "mismatch" for d in out.differences):
        return
    for m in _ALL_OF.finditer(c.text):
        noun = _fold(stem(m.group(1).lower()))
        for k in support:
            p = sents[k][2]
            low = p.text.lower()
            for t, pos in p.terms:
                if _fold(t) != noun:
                    continue
                end = pos + len(re.match(r"[a-z\-']*", low[pos:]).group(0))  # type: ignore[union-attr]  # * always matches
                q = next((q for q in p.quantities if q.bound and end < q.start + 1 <= end + 24
                          and re.fullmatch(r"\s*(?:of\s+|aged\s+|that\s+cost\s+|(?:that|which|who)\s+(?:are|is)\s+|"
                                           r"[a-z]+(?:ed|en|ing)\s+)?", p.text[end:q.start])), None)
                if q is not None and not any(_equivalent(x, q) for x in c.quantities):
                    out.differences.append(Difference(slot="condition", claim_value=m.group(0), evidence_value=p.text[pos:q.end],
                                                      evidence_span=_span(sents[k][1], pos, q.end), confidence=conf["condition"]))
                    return
            # A condition on the noun itself ("within 14 days if the item is unused") that the claim drops
            # for every one of them ("for any item").
            if noun in _TEMPORAL_NOUNS or not _GRANTED.search(c.text):
                continue  # "each tax year": how often; "remove any air bubbles": an instruction, not a grant
            for cue, end in lexicon.condition_cues(p.text, strong=False):
                if cue not in ("if", "when", "only if", "only when", "provided", "provided that", "as long as", "unless"):
                    continue
                cond = p.text[end:]
                cond = cond[:next((x.start() for x in re.finditer(r"[,;.]", cond)), len(cond))]
                terms = set(_parse(cond).term_set)
                if noun in terms and terms - {noun} - c.term_set:
                    a = end - len(cue)
                    out.differences.append(Difference(slot="condition", claim_value=m.group(0),
                                                      evidence_value=p.text[a:end + len(cond)].strip(),
                                                      evidence_span=_span(sents[k][1], a, end + len(cond)), confidence=conf["condition"]))
                    return


#: Where a sentence joins two parallel statements: "A plays the violin and B plays the cello"; "...; ...".
_PARALLEL_JOIN = re.compile(r"\s*;\s*|,?\s+(?:and|but|while|whereas)\s+", re.I)


def _parallel_crossed(claim: str, c: _Parsed, sents, support, out: FactCheck, conf) -> None:
    """Two parallel statements of one sentence, mixed: "Ana plays the violin and Ben plays the cello" for "Ben
    plays the violin"; "the north wing houses the sculptures; the south wing the textiles" for "the south
    wing houses the sculptures". The two parts share a word the claim has too (the parallel verb); the claim
    takes words that only one part has *and* words that only the other has, and leaves out some of each (a
    claim that restates both, or all of one with its subject, is not mixed)."""
    if any(d.kind == "mismatch" for d in out.differences) or _PARALLEL_JOIN.search(claim.strip().rstrip(".")):
        return
    mine = set(c.term_set)
    for k in support[:2]:
        text = sents[k][2].text
        # A leading label ("Parental leave: ...") and a trailing ", both at full pay" belong to every part.
        lead = re.match(r"[^:;,.]{1,40}:\s", text)
        tail = re.search(r",\s*(?:both|each|all|either)\b[^;]*$", text)
        lo, hi = (lead.end() if lead else 0), (tail.start() if tail else len(text))
        common = set(_parse(text[:lo] + " " + text[hi:]).term_set)
        cuts = [lo] + [x for m in _PARALLEL_JOIN.finditer(text, lo, hi) for x in (m.start(), m.end())] + [hi]
        parts = [(cuts[i], cuts[i + 1]) for i in range(0, len(cuts), 2)]
        for (a0, a1), (b0, b1) in zip(parts, parts[1:]):
            ta, tb = set(_parse(text[a0:a1]).term_set) | common, set(_parse(text[b0:b1]).term_set) | common
            # Short parts, and a claim made of their words only: a long sentence's clauses joined by "and" are
            # no pair of parallel statements, and a claim that says more than they do is no mix of them.
            if not ta & tb & mine or len(ta) > 12 or len(tb) > 12 or not mine <= ta | tb:
                continue
            da, db = ta - tb, tb - ta
            # Parallel: each part names its own subject before the word they share ("Ana plays" / "Ben plays").
            pa, pb = _parse(text[a0:a1]).terms, _parse(text[b0:b1]).terms
            shared = ta & tb & mine
            first_a = next((i for i, (t, _) in enumerate(pa) if _fold(t) in shared), None)
            first_b = next((i for i, (t, _) in enumerate(pb) if _fold(t) in shared), None)
            if first_a is None or first_b is None or not any(_fold(t) in da for t, _ in pa[:first_a]) \
                    or not any(_fold(t) in db for t, _ in pb[:first_b]):
                continue
            # The mix is a subject of one part with what the other says of its own: the claim's words of one part
            # all stand before the shared word there, its words of the other all after it.
            def side(ts, first, own):
                before = {_fold(t) for t, _ in ts[:first]} & own & mine
                after = {_fold(t) for t, _ in ts[first + 1:]} & own & mine
                return ("subject" if before and not after else "predicate" if after and not before else None)
            sides = {side(pa, first_a, da), side(pb, first_b, db)}
            if sides != {"subject", "predicate"}:
                continue
            if da & mine and db & mine and da - mine and db - mine:
                out.differences.append(Difference(
                    slot="moved", claim_value=claim.strip(),
                    evidence_value=f"'{text[a0:a1].strip()}' / '{text[b0:b1].strip()}'",
                    evidence_span=_span(sents[k][1], a0, b1), confidence=conf["moved"]))
                return


#: A recurring period a schedule, price or rule holds in: "during exam weeks", "on weekdays", "in winter".
_PERIOD_QUALIFIER = re.compile(
    r"\b(?:during|in|on|at|over|throughout|outside)\s+(?:(?:the\s+)?(?:summer|winter|spring|autumn)|"
    r"(?:[\w-]+\s+){0,2}(?:weeks|weekends|weekdays|holidays|term\s+time|peak\s+(?:hours|times|season)|off-peak(?:\s+hours)?|"
    r"business\s+days|school\s+days|(?:mon|tues|wednes|thurs|fri|satur|sun)days))\b(?!\s+(?:of\s+)?(?:1[5-9]|20)\d\d)", re.I)


_PERIOD_WORD = re.compile(r"\b(?:weeks|weekends?|weekdays|holidays|summer|winter|spring|autumn|season|term|semesters?|exams?|"
                          r"peak|off-peak|(?:mon|tues|wednes|thurs|fri|satur|sun)days)\b", re.I)


_ALWAYS = re.compile(r"\b(?:always|at\s+any\s+time|any\s+time|anytime|regardless\s+of\s+\w+|in\s+all\s+cases|without\s+limit)\b", re.I)


def _limit_dropped(c: _Parsed, sents, support, out: FactCheck, conf) -> None:
    """A grant limited by a figure on its noun ("the fare is waived for children under 5", "free delivery on
    orders over $40"), restated for the noun without the figure ("the fare is waived for children"). Only for
    grants (free, waived, allowed, eligible, ...) and a claim that says the rest of the sentence."""
    if any(d.kind == "mismatch" for d in out.differences) or c.quantities:
        return
    k = support[0]
    p = sents[k][2]
    if not _ENTITLEMENT.search(p.text):
        return
    always = _ALWAYS.search(c.text)
    if always:
        # "Cancellations are always free" against "free up to 48 hours before arrival": a limit said away.
        rest = set(_parse(c.text[:always.start()] + " " + c.text[always.end():]).term_set)
        q = next((q for q in p.quantities if q.bound), None)
        if q is not None and rest and _coverage(rest, p.term_set) >= 0.8:
            out.differences.append(Difference(slot="condition", claim_value=always.group(0), evidence_value=p.text[q.start:].split(".")[0],
                                              evidence_span=_span(sents[k][1], q.start, q.end), confidence=conf["condition"]))
        return
    if _coverage(set(c.term_set), p.term_set) < 0.8:
        return
    low = p.text.lower()
    for t, pos in p.terms:
        if _fold(t) not in c.term_set or t[0].isdigit():
            continue
        end = pos + len(re.match(r"[a-z\-']*", low[pos:]).group(0))  # type: ignore[union-attr]  # * always matches
        q = next((q for q in p.quantities if q.bound and end < q.start + 1 <= end + 24
                  and re.fullmatch(r"\s*(?:of\s+|aged\s+|(?:that|which|who)\s+(?:are|is)\s+|[a-z]+(?:ed|en|ing)\s+)?",
                                   p.text[end:q.start])), None)
        if q is not None:
            out.differences.append(Difference(slot="condition", claim_value=c.text.strip(), evidence_value=p.text[pos:q.end],
                                              evidence_span=_span(sents[k][1], pos, q.end), confidence=conf["condition"]))
            return


def _period_dropped(c: _Parsed, sents, support, out: FactCheck, conf) -> None:
    """A schedule, price or rule the context gives for a recurring period only ("open until 10 pm during exam
    weeks"), restated as if it always held ("open until 10 pm"). Only for a claim that restates a value of
    that sentence and says no period of its own; a dated past event ("in the summer of 2019") is not a period."""
    if any(d.kind == "mismatch" for d in out.differences) or _PERIOD_WORD.search(c.text) \
            or re.search(r"\b(?:was|were|had)\b", c.text, re.I):
        return
    if not (c.times or c.quantities or c.dates):
        return
    k = support[0]
    p = sents[k][2]
    said = any(t.same(e) for t in c.times for e in p.times) or any(
        _equivalent(q, e) for q in c.quantities for e in p.quantities)
    if not said:
        return
    for m in _PERIOD_QUALIFIER.finditer(p.text):
        words_ = set(_parse(m.group(0)).term_set)
        main = set(p.term_set) - words_
        if words_ and not words_ & c.term_set and _coverage(main, c.term_set) >= 0.6:
            out.differences.append(Difference(slot="condition", claim_value=c.text.strip(), evidence_value=m.group(0),
                                              evidence_span=_span(sents[k][1], m.start(), m.end()), confidence=conf["condition"]))
            return


def _excepted_terms(text: str, m: re.Match[str]) -> set[str]:
    """The words that single out the excepted case: those of "except X" the rest of the sentence does not use
    ("but not on international flights" against "domestic flights": international)."""
    rest = set(_parse(text[: m.start()] + " " + text[m.end():]).term_set)
    return set(_parse(m.group(1)).term_set) - rest


def _exceptions(claim: str, c_terms: set[str], sents, support, out: FactCheck, conf) -> None:
    """The claim says of the case the evidence excepts what the evidence says of the others ("open on Mondays"
    against "open every day except Monday"): a condition the claim turned around."""
    if any(d.kind == "mismatch" for d in out.differences) or lexicon.negated(claim) or _EXCEPT.search(claim) \
            or _EXCEPTED_AFTER.search(claim):
        return  # (the claim states its own exception: "except gas cookers", "(gas cookers excluded)")
    for k in support[:1]:
        text = sents[k][2].text
        m = _EXCEPT.search(text)
        if m is None or lexicon.negated(text[: m.start()]):
            continue
        excepted = _excepted_terms(text, m)
        main = set(_parse(text[: m.start()] + " " + text[m.end():]).term_set)
        rest = c_terms - excepted
        if not (excepted & c_terms) or len(rest & main) < 2 or _coverage(rest, main) < 0.6:
            continue
        out.differences.append(Difference(slot="condition", claim_value=claim.strip(), evidence_value=text[: m.end()].strip(),
                                          evidence_span=_span(sents[k][1]), confidence=conf["condition"]))
        return


#: A permission and the act it allows: "you can renew", "members may bring", "are allowed to park".
_PERMIT = re.compile(r"\b(?:can|may|(?:is|are)\s+(?:allowed|able|eligible|entitled)\s+to)\s+(?:still\s+|also\s+|now\s+)?"
                     r"([a-z]{3,})\b", re.I)


@functools.lru_cache(maxsize=16384)
def _excepted_permissions(text: str) -> tuple[tuple[str, frozenset[str], frozenset[str]], ...]:
    """(the act, the rest of the rule's words, the exception's words and figures) for each permission of ``text``
    that an "unless" after it limits: "You can renew your adult passport online unless your current passport was
    issued before you turned 16" -> (renew, {adult, passport, onlin}, {current, passport, issu, turn, 16}).
    Cached: every claim of an answer reads the same evidence sentences."""
    m = re.search(r"\bunless\b", text, re.I)
    if m is None:
        return ()
    main = text[: m.start()]
    main = main[max((x.end() for x in re.finditer(r"[.;:]\s", main)), default=0):]
    exc = _parse(text[m.end(): m.end() + 80].split(";")[0])
    words_ = frozenset(exc.term_set) | _anchors(exc)
    out = []
    for pm in _PERMIT.finditer(main):
        rest = _parse(main[pm.end():])
        out.append((_fold(stem(pm.group(1).lower())), frozenset(rest.term_set), words_))
    return tuple(out)


def _exception_dropped(claim: str, sents, out: FactCheck, conf) -> None:
    """A permission stated without the "unless" the evidence limits it with: "You can renew online for £88.50"
    against "You can renew your adult passport online unless your current passport was issued before you turned
    16". The claim's figures and the rest of its words often align it to another sentence (the one with the fee),
    so the condition checks, which read the sentence it aligns to, never see the exception. The act must be the
    same verb and the rule share a word with the claim's piece after it; silent when the claim states a condition
    of its own or a word of the exception. Read only for a claim with a permission ("can", "may")."""
    if any(d.kind == "mismatch" and d.confidence >= 0.1 for d in out.differences) or not _PERMIT.search(claim):
        return
    if lexicon.negated(claim) or _UNLESS.search(claim) or lexicon.condition_cues(claim, strong=False):
        return
    said = set(_parse(claim).term_set) | _anchors(_parse(claim))
    for pm in _PERMIT.finditer(claim):
        verb = _fold(stem(pm.group(1).lower()))
        a, b = _piece_bounds(claim, pm.end())
        rest = set(_parse(claim[pm.end(): b]).term_set) - {verb}
        if not rest:
            continue
        for _, s, p in sents:
            for everb, erest, exc in _excepted_permissions(p.text):
                if everb == verb and rest & erest and exc and not exc & said:
                    out.differences.append(Difference(slot="condition", claim_value=claim.strip(),
                                                      evidence_value=p.text.strip(), evidence_span=_span(s),
                                                      confidence=conf["condition"]))
                    return


#: A limit a claim states of its own: a time, an "only", a bound in words.
_OWN_LIMIT = re.compile(r"\b(?:only|peak|off[\s-]?peak)\b|\b(?:after|before|until|till|from|between)\s+(?:\d|noon|midday|midnight)|"
                        r"\d", re.I)
#: Days or times a claim says a thing holds on: "on weekdays", "at weekends".
_SCOPE_WORD = re.compile(r"\b(?:weekdays?|weekends?|sundays?|saturdays?|holidays?|school\s+days|term\s+days)\b", re.I)


def _scoped_limit_dropped(claim: str, sents, out: FactCheck, conf) -> None:
    """A thing said to hold on days the context limits it on to a time ("concessionary passes are accepted on
    weekdays and weekends" against "On weekdays they are valid only after 9:30am"). Why: the claim's other words
    align it to the general rule ("... are accepted on all city routes"), so the condition checks never read the
    sentence of the limit. Read only for an affirmed claim with a grant word that names the scope and states no
    limit of its own, and only where the limit's sentence (or the one before, for its "they") shares a word of it."""
    if any(d.kind == "mismatch" and d.confidence >= 0.1 for d in out.differences) or not _SCOPE_WORD.search(claim) \
            or not _ENTITLEMENT.search(claim) or lexicon.negated(claim) or _OWN_LIMIT.search(claim):
        return
    mine = {_fold(t) for t in _parse(claim).term_set}
    for k, (_, s, p) in enumerate(sents):
        for scope, limited in lexicon.scoped_limits(p.text):
            if not {_fold(stem(w)) for w in scope.lower().split()} <= mine:
                continue
            about = set(p.term_set) | (sents[k - 1][2].term_set if k and sents[k - 1][1][0] == s[0] else frozenset())
            if len((mine & about) - {_fold(stem(w)) for w in scope.lower().split()}) >= 2:
                out.differences.append(Difference(slot="condition", claim_value=claim.strip(),
                                                  evidence_value=f"{scope} {limited}".strip(), evidence_span=_span(s),
                                                  confidence=conf["condition"]))
                return


def _exclusion_dropped(claim: str, sents, out: FactCheck, conf) -> None:
    """A rule restated for every case ("any interruption longer than 12 hours entitles household customers to £50")
    where the next sentence takes cases out of it ("This does not apply where the interruption was caused by severe
    weather"). Why: the exclusion is a sentence of its own, so the condition checks, which read the condition words
    of the sentence the claim aligns to, never see it. Read only for an affirmed claim that says it holds in every
    case, that states the rule's figures or three of its words, and that names nothing the exclusion adds."""
    if any(d.kind == "mismatch" and d.confidence >= 0.1 for d in out.differences) or not lexicon.unconditional(claim) \
            or lexicon.negated(claim):
        return
    c = _parse(claim)
    said = set(c.term_set) | _anchors(c)
    for k in range(1, len(sents)):
        lead = lexicon.exclusion_lead(sents[k][2].text)
        if lead is None or sents[k - 1][1][0] != sents[k][1][0]:
            continue
        rule = sents[k - 1][2]
        shared = said & (set(rule.term_set) | _anchors(rule))
        figures = _anchors(c) & _anchors(rule)
        if not (len(shared) >= 3 and (figures or len(shared) >= 4)):
            continue
        excluded = set(_parse(sents[k][2].text[lead:]).term_set) - rule.term_set
        if excluded and not excluded & said:
            out.differences.append(Difference(slot="condition", claim_value=claim.strip(),
                                              evidence_value=sents[k][2].text.strip(), evidence_span=_span(sents[k][1]),
                                              confidence=conf["condition"]))
            return


def _every_case_excepted(claim: str, sents, out: FactCheck, conf) -> None:
    """A rule said to hold whatever the case ("you're entitled to a full refund whatever the reason") where the
    rule's own sentence excepts cases ("..., except where the cancellation is caused by adverse weather"). Why: the
    claim often states a condition of its own ("If the ferry is cancelled, ..."), so the condition checks take it
    for a faithful restatement, and its "whatever" is what denies the exception. Read only with the claim's
    every-case words (not "any" / "all"), for an affirmed claim that shares three of the rule's words, and silent
    when the claim names a word the excepted case adds."""
    if any(d.kind == "mismatch" and d.confidence >= 0.1 for d in out.differences) or not lexicon.every_case(claim) \
            or lexicon.negated(claim):
        return
    # (the every-case words are not the claim's own: "whatever the cause" names no cause)
    c = _parse(lexicon.without_every_case(claim))
    said = set(c.term_set) | _anchors(c)
    for _, s, p in sents:
        for cue, a, b in lexicon.case_exceptions(p.text):
            rule = _parse(p.text[:cue])
            excepted = set(_parse(p.text[a:b]).term_set) - rule.term_set
            if len(said & (set(rule.term_set) | _anchors(rule))) >= 3 and excepted and not excepted & said:
                out.differences.append(Difference(slot="condition", claim_value=claim.strip(),
                                                  evidence_value=p.text[:b].strip(), evidence_span=_span(s),
                                                  confidence=conf["condition"]))
                return


#: An act named by its gerund as a sentence's subject, then denied: "Downgrading to 3.7 is not supported",
#: "Transferring a ticket to another person is not permitted".
_GERUND_BANNED = re.compile(r"(?:^|(?<=[.;:!?]\s)|(?<=[,\u2014\u2013]\s))\s*([A-Za-z]+ing)\b((?:[^,.;:()]|(?<=\d)\.(?=\d)){0,60}?)\s+(?:is|are)\s+"
                            r"(?:not\s+(?:supported|possible|allowed|permitted)|unsupported|impossible|prohibited|forbidden)\b")


@functools.lru_cache(maxsize=16384)
def _banned_acts(text: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """(the act's stem, what singles out its object) for each act ``text`` denies by its gerund: the object's
    figures and its first word, its head ("Downgrading to 3.7 is not supported" -> (downgr, {3.7}); "Transferring
    a ticket to another person ..." -> (transf, {ticket})). A later word ("another") is too loose to tell one act
    from another. Cached: every claim of an answer reads the same sentences."""
    out = []
    for m in _GERUND_BANNED.finditer(text):
        obj = _parse(m.group(2))
        head = [_fold(t) for t, _ in obj.terms if not t[0].isdigit()][:1]
        out.append((_fold(stem(m.group(1).lower())), frozenset(head) | frozenset(_anchors(obj))))
    return tuple(out)


def _banned_act(claim: str, sents, out: FactCheck, conf) -> None:
    """A permission for an act the evidence denies by its gerund: "You can downgrade to 3.7 afterwards" against
    "Downgrading to 3.7 is not supported once 3.8 is installed". The denial is a predicate of the act's noun, not a
    modal on its verb, so neither the modal checks (which want "cannot downgrade") nor the negation sites (which
    want "supported" in the claim) read it. The act must be the same verb with a word or figure of its object;
    silent when any evidence sentence permits that act. Read only for a claim with a permission ("can", "may")."""
    if any(d.kind == "mismatch" and d.confidence >= 0.1 for d in out.differences) or not _PERMIT.search(claim) \
            or lexicon.negated(claim):
        return
    banned = [(s, act, obj) for _, s, p in sents for act, obj in _banned_acts(p.text)]
    if not banned:
        return
    for pm in _PERMIT.finditer(claim):
        verb = _fold(stem(pm.group(1).lower()))
        _, b = _piece_bounds(claim, pm.end())
        after = _parse(claim[pm.end(): b])
        rest = (set(after.term_set) | _anchors(after)) - {verb}
        hit = next((s for s, act, obj in banned if act == verb and obj & rest), None)
        if hit is None:
            continue
        allowed = any(_fold(stem(x.group(1).lower())) == verb and not lexicon.negated(p.text[max(0, x.start() - 20): x.end()])
                      for _, _, p in sents for x in _PERMIT.finditer(p.text))
        if not allowed:
            out.differences.append(Difference(slot="modality", claim_value=f"{pm.group(0)} (allowed)",
                                              evidence_value=f"{hit[3].strip()} (forbidden)", evidence_span=_span(hit),
                                              confidence=conf["modality"]))
            return


# -- lists -------------------------------------------------------------------------------------
# "a, b, c and d": two or more comma-ended items, then "x and/or y". Anchored where a run of item
# characters starts (see find_enumeration); it matches exactly what the unanchored pattern matched.
#: "A, B, C and D". The comma-separated items are written so that the whitespace after a comma splits one way only
#: (a space is both whitespace and an item character): the whitespace up to its last tab or newline, else one space,
#: then the item. Written as "(item , \s+){2,} item" the engine tried every split of every run of spaces, and
#: "a,  a,  a, ..." (two spaces each) took seconds at 25 items and never ended at 1,000.
#: (no item starts inside a decimal: "roughly 1.5 m off the ground, clear of radiators, ..." lists nothing from "5 m")
_ENUM = re.compile(r"(?<![\w' -])(?<!\d\.)[\w' -]+(?:,(?:(?:[ ]*[^\S ])+[\w' -]+|[ ][\w' -]+)){2,},?\s+(?:and|or)\s+[\w' -]+")
_ENUM_ITEMS = re.compile(r"(?:[\w' -]+,\s+)+")
_ITEM_RUN_START = re.compile(r"(?<![\w' -])(?<!\d\.)[\w' -]")


def find_enumeration(text: str) -> re.Match[str] | None:
    """The first enumeration in ``text``, the match ``re.search`` of the unanchored pattern returns, in linear time.

    Why not a plain ``search``: the item class holds letters and spaces, so the engine retried the
    pattern from every character of a long run and backtracked over the rest of it each time, and
    a 100 kB answer without a full stop (one claim) took 23 s (200 kB: 110 s). Two facts make the
    search linear without changing what it finds: the leftmost match starts where a run of item
    characters starts (a match from inside a run also matches from the run's start), hence the
    anchor; and when the attempt from the start of a chain of comma-ended items fails, an attempt
    from inside the chain, whose first item ends at one of the chain's commas, sees a subset of the
    same continuations and fails too, so the search goes on after the chain's last comma (not after
    the whitespace that follows it: in ", ," that space is an item of its own). tests/test_facts.py
    checks the two against each other on generated text.
    """
    pos = 0
    while (run := _ITEM_RUN_START.search(text, pos)) is not None:
        at = run.start()
        if (m := _ENUM.match(text, at)) is not None:
            return m
        chain = _ENUM_ITEMS.match(text, at)
        pos = at + chain.group().rindex(",") + 1 if chain else at + 1
    return None


def _lists(claim: str, all_text: str, out: FactCheck, conf) -> None:
    if any(d.kind == "mismatch" for d in out.differences):
        return
    m = find_enumeration(claim)
    if not m:
        return
    items = re.split(r",\s+(?:and\s+|or\s+)?|\s+(?:and|or)\s+", m.group(0))
    if any(_DISCOURSE.fullmatch(it.strip()) for it in items[1:]):
        return  # "personalised items, however, can't be returned ...": an aside between commas, no list
    if any(re.match(r"\s*(?:which|who|whose|where|i\.e\.|that\s+is)\b", it, re.I) for it in items[1:]):
        return  # "8 km, which is roughly 5 miles, and ...": a relative clause between commas says more of the thing
    ev_terms = {_fold(t) for t in content_terms(all_text)}
    for it in items[1:]:
        terms = {_fold(t) for t in content_terms(it) if not t[0].isdigit()}
        if terms and not (terms & ev_terms):
            out.differences.append(Difference(slot="list_item", kind="not_stated", claim_value=it.strip(),
                                              confidence=conf["list_item"]))
            return


def _enumerated(text: str, trim_last: bool = False, long_items: bool = False) -> list[tuple[str, int]] | None:
    """The items of the first list in ``text`` with their offsets: "A, B and C", "A, B, or C", and two items
    after a cue ("only A and B", ": A and B"). The first item starts after the list's verb or colon ("The
    three members are Ahmed"), so the words before it are the claim's own; with ``trim_last`` the last item
    keeps only as many content words as the longest middle item ("Canada and Mexico qualified for the
    semi-finals": "Mexico"), for a claim whose predicate follows its list.

    Linear: each "and" / "or" looks back at most 300 characters, to the last sentence or clause mark. A short
    aside in brackets ("wheat (gluten), sesame and milk") is blanked, offsets kept: it qualifies an item."""
    text = _ASIDE_BRACKETS.sub(lambda b: " " * len(b.group(0)), text)
    for m in _AND.finditer(text):
        # (a decimal point is no sentence mark: "three USB-A 3.2 ports, one HDMI 2.1 output and ...")
        lo = max(max((b.end() for b in _LIST_BOUND.finditer(text, max(0, m.start() - 300), m.start())), default=0),
                 m.start() - 300)
        parts, pos = [], lo
        for piece in _LIST_COMMA.split(text[lo:m.start()]):  # (not the comma of "2,000")
            parts.append((piece, pos))
            pos += len(piece) + 1
        # (300 characters at most, as before it: with decimals read through, "3.5% and 3.5% and ..." has no end)
        tail = re.match(r"(?:[^,.;:!?\n()\[\]\u2014\u2013]|(?<=\d)\.(?=\d))+", text[m.end():m.end() + 300])
        if not tail:
            continue
        items = [(t.strip(), p + len(t) - len(t.lstrip())) for t, p in parts if t.strip()]
        items.append((tail.group().strip(), m.end()))
        cue = _LIST_CUE.search(items[0][0]) if items else None
        if len(items) >= 2 and not _PAIR_CUE.search(text[max(0, lo - 40):m.start()]):
            # A pair of names after a preposition ("... at 38 sites in Canada and Germany"), whatever stands before
            # the first name; the piece before it must not be a name too (then it is a longer list)
            lead, tail = _PAIR_NAME_END.search(items[-2][0]), _PAIR_NAME.match(items[-1][0])
            if lead and tail and (len(items) == 2 or not _PAIR_NAME.fullmatch(items[-3][0])):
                return [(lead.group(1), items[-2][1] + lead.start(1)), (tail.group(0), items[-1][1])]
            if len(items) == 2:
                continue
        if len(items) < 2:
            continue
        if cue is not None:
            items[0] = (items[0][0][cue.end():].strip(), items[0][1] + cue.end() + len(items[0][0][cue.end():]) -
                        len(items[0][0][cue.end():].lstrip()))
        middle = items[1:-1]
        if len(middle) >= 2 and len(content_terms(items[0][0])) > 4 and not _DISCOURSE.match(items[0][0]) \
                and all(len(content_terms(t)) <= 4 and not _DISCOURSE.match(t) for t, _ in middle):
            # A lead-in with no cue word ("The pass grants free entry to the National Gallery, the Maritime
            # Museum, ..."): the first item is as long as the items after it, from its end.
            keep = max(len(content_terms(t)) for t, _ in middle)
            first, at = items[0]
            ws = list(re.finditer(r"\d+(?:[.,]\d+)+|[\w'’\-]+", first))  # ("1.5 m off the ground": one figure)
            n, cut = 0, None
            for w in reversed(ws):
                n += w.group().lower() not in STOPWORDS
                if n == keep:
                    cut = w.start()
                    break
            if cut is not None:
                art = re.search(r"\b(?:the|a|an)\s+$", first[:cut], re.I)
                cut = art.start() if art else cut
                items[0] = (first[cut:], at + cut)
        # (items of a list after a colon may be longer, for a list said to be complete: "you'll need: proof of the
        # business address dated within the last 3 months, your company registration certificate, and ...")
        longest = 8 if long_items and lo > 0 and text[lo - 1] == ":" and len(items) >= 3 else 4
        if not items[0][0] or any(len(content_terms(t)) > longest or _DISCOURSE.match(t) for t, _ in items[:-1]) \
                or _DISCOURSE.match(items[-1][0]):
            continue  # clauses ("Based on the passages, it appears that ..."), not items
        if trim_last:
            keep = max([len(content_terms(t)) for t, _ in middle] + [len(content_terms(items[0][0])), 1])
            words_ = list(re.finditer(r"[\w'’\-]+", items[-1][0]))
            n = 0
            for w in words_:
                n += w.group().lower() not in STOPWORDS
                if n == keep:
                    items[-1] = (items[-1][0][: w.end()], items[-1][1])
                    break
        return items
    # A labelled list with no "and": "Allergens: wheat, sesame, milk, walnuts."
    for m in _LABELLED_LIST.finditer(text):
        items, pos = [], m.start(1)
        for piece in _LIST_COMMA.split(m.group(1)):
            if piece.strip():
                items.append((piece.strip(), pos + len(piece) - len(piece.lstrip())))
            pos += len(piece) + 1
        if len(items) >= 3 and all(0 < len(content_terms(t)) <= 4 for t, _ in items):
            return items
    return None


_LIST_BOUND = re.compile(r"[:;!?\n()\[\]\u2014\u2013]|\.(?!\d)|(?<!\d)\.")
_LABELLED_LIST = re.compile(r"(?:^|[.;\n]\s*)[A-Z][\w ]{0,30}:\s*([^:.;\n]+)")
_AND = re.compile(r",?\s+(?:and|or)\s+")
_ASIDE_BRACKETS = re.compile(r"\s?\([a-z][^()\n]{0,39}\)")  # (lower case: "(gluten)", not "(Lisa Yamada)")
_LIST_COMMA = re.compile(r"(?<!\d),|,(?!\d{3}(?!\d))")
_DISCOURSE = re.compile(r"(?:and|but|or|since|however|additionally|also|therefore|finally|overall|alternatively|then|thus|so|while|"
                        r"in\s+conclusion|based\s+on|according\s+to|for\s+example|first|second|next|once)\b", re.I)
#: Where a list begins inside its first piece: after the verb or preposition that introduces it.
_LIST_CUE = re.compile(r"^.*\b(?:are|is|were|was|include|includes|including|included|offers?|offered|covers?|covered|"
                       r"has|have|had|comprises?|contains?|such\s+as|like|namely|only|just|both|supports?|lists?|"
                       r"provide|provides|submit|submits|bring|brings|need|needs|require|requires|requiring|show|"
                       r"present|send|upload|attach|enclose)\s+", re.I)
_PAIR_NAME = re.compile(r"[A-Z][a-z][\w'’\-]*(?:\s+[A-Z][a-z][\w'’\-]*){0,2}(?=\s*(?:$|[,.;]|\s(?:and|or|but|for|in|on|at|to)\b))")
_PAIR_NAME_END = re.compile(r"\b(?:in|at|from|to|with|between|of|by)\s+([A-Z][a-z][\w'’\-]*(?:\s+[A-Z][a-z][\w'’\-]*){0,2})\s*$")
_PAIR_CUE = re.compile(r"\b(?:only|just|both|two)\b|[:\u2014\u2013]\s*[^:\u2014\u2013]*$", re.I)
#: "the three members are", "only", "just": the claim gives its list as the whole list.
#: A list said to be the whole of it, after its items: "everything else on the menu is nut-free".
_NOTHING_ELSE = re.compile(r"\b(?:everything\s+else|all\s+(?:the\s+)?other|nothing\s+else|no\s+other|none\s+of\s+the\s+other|"
                           r"the\s+rest\s+(?:of\s+(?:the\s+)?\w+\s+)?(?:is|are)|(?:that|those|these)\s+are\s+(?:all|the\s+only)|"
                           r"that['\u2019]?s\s+(?:all|it|the\s+(?:full|complete)))\b", re.I)
_COMPLETE = re.compile(r"\b(?:only|just|all|entire|everything|(?:full|complete|whole)\s+(?:[\w-]+\s+)?(?:list|set|range|line-?up)|"
                       r"in\s+full(?=\s*:))\b", re.I)  # ("lists these error codes in full: ...")


def _with_referent(sents, k: int) -> frozenset[str]:
    """Sentence ``k``'s terms, and the sentence before's when ``k`` opens with a pronoun ("It also has a cafe")."""
    terms = sents[k][2].term_set
    if k and re.match(r"\s*(?:it|its|they|their|he|his|she|her|this|these)\b", sents[k][2].text, re.I) \
            and sents[k - 1][1][0] == sents[k][1][0]:
        terms = terms | sents[k - 1][2].term_set
    return terms


def _item_terms(item: str) -> frozenset[str]:
    return frozenset(_fold(t) for t in content_terms(item) if not t[0].isdigit())


def _aligned_list(claim: str, c: _Parsed, sents, out: FactCheck, conf) -> None:
    """A list compared with the context's list of the same things: an item put in the place of one the
    context lists ("Spain, Japan, Canada and Mexico qualified" where the four are Spain, Japan, Canada and
    Ghana, Mexico eliminated), or a part given as the whole ("its three members are A, B and C" where the
    context names five). A count found wrong already ("four directors" against "six") does not stop it: the
    list says which items are missing."""
    if any(d.kind == "mismatch" and d.slot != "number" for d in out.differences):
        return
    c_items = _enumerated(claim, trim_last=True)
    if not c_items or len(c_items) < 2:
        return
    c_terms = [_item_terms(i) for i, _ in c_items]
    if not all(c_terms):
        return
    # (a list said to be complete, "three things: ...", "everything in the box: ...", is read against the context's
    # lists with longer items too)
    complete = bool([q for q in c.quantities if q.start < c_items[0][1] and math.isclose(q.magnitude, len(c_items))]) \
        or bool(_COMPLETE.search(claim[: c_items[0][1] + len(c_items[0][0])]) or _NOTHING_ELSE.search(claim))
    best = None
    for k, (_, _, p) in enumerate(sents):
        e_items = _enumerated(p.text, long_items=complete)
        if not e_items and complete:
            # (a keyed list, "E10 - no water supply, check the tap; E20 - ...", read as its keys only against a list said
            # to be the whole: its entries' commas hide it from the reading of "A, B and C")
            e_items = keyed_list(p.text) or None
        if not e_items:
            continue
        e_terms = [_item_terms(i) for i, _ in e_items]
        matched = [i for i, ct in enumerate(c_terms) if any(ct & et for et in e_terms)]
        pair = len(c_items) == len(e_items) == 2 and len(matched) == 1  # (a pair of names, one of them shared)
        if (len(matched) >= 2 or pair) and (best is None or len(matched) > len(best[3])):
            best = (k, e_items, e_terms, matched)
    if best is None:
        return
    k, e_items, e_terms, matched = best
    lost = [e_items[j][0] for j, et in enumerate(e_terms) if not any(ct & et for ct in c_terms)]
    extra = [i for i in range(len(c_items)) if i not in matched]
    item_words = frozenset().union(*c_terms)
    predicate = set(c.term_set) - item_words
    # One item exchanged for another in a list of the same length: what a swap is. Lists of other lengths
    # (a review's "great staff, clean, modern" against an answer's amenities) were mostly other lists on
    # RAGTruth dev half A.
    # (two names of a pair count too: "sites in Canada and France" against "in Canada and Germany")
    proper = len(c_items) == len(e_items) == 2 and len(extra) == 1 and len(lost) == 1 and all(
        re.fullmatch(r"(?:the\s+)?[A-Z][\w'’\-]*(?:\s+[A-Z][\w'’\-]*){0,2}", x.strip()) for x in (c_items[extra[0]][0], lost[0]))
    # (items of four content words at most: longer ones, allowed for a list after a colon, are phrases a swap
    # of one word in does not make)
    short_items = all(len(t) <= 4 for t in c_terms + e_terms)
    if len(extra) == 1 and len(lost) == 1 and (len(c_items) == len(e_items) >= 3 or proper) and short_items \
            and not any(_equivalent(x, y) for x in parse_quantities(c_items[extra[0]][0])
                        for j, et in enumerate(e_terms) if not any(ct & et for ct in c_terms)
                        for y in parse_quantities(sents[k][2].text[max(0, e_items[j][1] - 24):e_items[j][1] + len(e_items[j][0])])):
        # (not an item that states the lost one's figure: "roughly 1.5 m off the ground" is "1.5 metres above the floor")
        for i in extra:
            # An item the context states with the claim's predicate elsewhere is the claim combining two lists.
            said = [_with_referent(sents, j) for j, (_, _, p) in enumerate(sents) if j != k and c_terms[i] & p.term_set]
            if any(_coverage(predicate, terms) >= 0.5 for terms in said) or not predicate:
                continue
            # The item is named once, as the swap it is, not also as an item "not in the context".
            out.differences = [d for d in out.differences if not (d.slot == "list_item" and c_items[i][0] in d.claim_value)]
            out.differences.append(Difference(
                slot="list_swap", claim_value=c_items[i][0], evidence_value=", ".join(lost),
                evidence_span=_span(sents[k][1]), confidence=conf["list_swap"]))
            return
    # (for a list said to be complete, an item counts as given only when a claim item holds half its words: "the
    # business's tax identification number" is not "proof of the business address")
    unnamed = [e_items[j][0] for j, et in enumerate(e_terms) if not any(_same_item(ct, et) for ct in c_terms)]
    if not extra and unnamed and len(e_items) > len(c_items):
        lost = unnamed
    if not extra and lost:
        counts = [q for q in c.quantities if q.start < c_items[0][1] and math.isclose(q.magnitude, len(c_items))]
        if counts or _COMPLETE.search(claim[: c_items[0][1] + len(c_items[0][0])]) or _NOTHING_ELSE.search(claim):
            out.differences.append(Difference(
                slot="list_incomplete", claim_value=f"{len(c_items)} items: " + ", ".join(i for i, _ in c_items),
                evidence_value=f"{len(e_items)} items: " + ", ".join(i for i, _ in e_items),
                evidence_span=_span(sents[k][1]), confidence=conf["list_incomplete"]))


#: A count, then (within a few words) the colon its list follows: "three things ... won't pay for:", "four
#: oversubscription criteria, in this order:".
_COUNT_COLON = re.compile(r"[^:.;]{0,80}:\s*(?=\S)")
#: The separators of a list after a colon: semicolons where it has them ("wear and tear; insects, vermin or
#: pests; ..."), else commas; and a leading "and" / "or" / "1." off each item.
_ITEM_LEAD = re.compile(r"^\s*(?:(?:and|or)\s+)?(?:\(?\d{1,2}[.)]\s+|[a-z][.)]\s+)?", re.I)


def _colon_items(text: str) -> list[str]:
    """The items of the list after the last colon of ``text`` (three at least), or []."""
    at = text.rfind(":")
    if at < 0:
        return []
    body = text[at + 1:].strip().rstrip(".")
    parts = body.split(";") if ";" in body else re.split(r",\s+", body)
    items = [_ITEM_LEAD.sub("", x).strip() for x in parts]
    return [x for x in items if x] if len(items) >= 3 else []


def _line_items(sents, k: int) -> list[str]:
    """The items of a list given one to a line after sentence ``k``'s closing colon ("... any of the following:"
    then "- contactless bank card", "- the Metrocard smartcard", ...), three at least, or []. Why: the sentence
    splitter makes each line a sentence of its own, so the colon's sentence holds no items to count. An item is a
    short fragment of the same document, with no full stop, so the prose that follows the list is not one."""
    if not sents[k][2].text.rstrip().endswith(":"):
        return []
    items: list[str] = []
    for _, s, p in sents[k + 1:k + 13]:
        text = p.text.strip().rstrip(";,")
        if s[0] != sents[k][1][0] or not text or text[-1] in ".!?:" or len(text.split()) > 12:
            break
        items.append(_ITEM_LEAD.sub("", text).strip())
    return items if len(items) >= 3 else []


def _rule_outcome_swapped(claim: str, sents, out: FactCheck, conf) -> None:
    """A case of the context's rules given another rule's outcome: "Red light flashing: the machine needs
    descaling" where the context says "If the red light flashes, the water tank is empty. If the red and green
    lights flash together, the machine needs descaling." Why: each case and each outcome is stated, so the words
    and values all align; only the pairing is wrong. Read only where the claim is such a rule and the context
    states two rules at least; the claim's case must be one rule's case word for word (a case the claim widens
    or narrows is some other rule's), its outcome share no word with that rule's outcome, and most of its words
    be another rule's outcome."""
    if any(d.kind == "mismatch" for d in out.differences):
        return
    mine = lexicon.rule_parts(claim)
    if mine is None:
        return
    case, outcome = _item_terms(mine[0]), _item_terms(mine[1])
    if len(case) < 2 or len(outcome) < 2:
        return
    rules = [(sent, _item_terms(r[0]), _item_terms(r[1])) for _, sent, p in sents
             if (r := lexicon.rule_parts(p.text)) is not None]
    own = [r for r in rules if r[1] == case]
    if len(rules) < 2 or len(own) != 1 or outcome & own[0][2]:
        return
    other = next((r for r in rules if r is not own[0] and len(outcome & r[2]) >= max(2.0, 0.6 * len(outcome))), None)
    if other is not None:
        out.differences.append(Difference(slot="condition", claim_value=claim.strip(), evidence_value=own[0][0][3].strip(),
                                          evidence_span=_span(own[0][0]), confidence=conf["condition"]))


def _counted_list(claim: str, c: _Parsed, sents, out: FactCheck, conf) -> None:
    """A list the claim counts ("three things the policy won't pay for: ...", "four criteria, in this order:
    ...") where the context's list of the same things, after its own colon, is longer: the claim names most of its
    items and says that is all of them. The context's items are split at its semicolons (or commas), so items
    that hold "and" or "or" ("wear and tear or gradual deterioration") are read whole."""
    if any(d.slot in ("list_incomplete", "list_swap") for d in out.differences):
        return
    count = next((q for q in c.quantities if q.kind in ("", "count") and 2 <= q.magnitude <= 12
                  and float(q.magnitude).is_integer() and _COUNT_COLON.match(claim, q.end)), None)
    if count is None:
        return
    colon = _COUNT_COLON.match(claim, count.end)
    assert colon is not None
    said = {_fold(t) for t in content_terms(claim[colon.end():]) if not t[0].isdigit()}
    for k, (_, sent, p) in enumerate(sents):
        items = _colon_items(p.text) or _line_items(sents, k)
        if len(items) <= count.magnitude:
            continue
        terms = [_item_terms(x) for x in items]
        named = [x for x, t in zip(items, terms) if t and len(t & said) >= max(1.0, 0.5 * min(len(t), 3))]
        if len(named) >= max(2, int(count.magnitude) - 1) and len(named) < len(items):
            missing = [x for x in items if x not in named]
            out.differences.append(Difference(
                slot="list_incomplete", claim_value=f"{count.text} items: {claim[colon.end():].strip()}",
                evidence_value=f"{len(items)} items; not named: " + "; ".join(missing),
                evidence_span=_span(sent), confidence=conf["list_incomplete"]))
            return


def _same_item(a: frozenset[str], b: frozenset[str]) -> bool:
    """Two list items name one thing: they share half the words of the shorter ("the remote" / "a remote control
    with two AAA batteries"), not one word of many ("the business's tax number" / "proof of the business address")."""
    return len(a & b) >= max(1.0, 0.5 * min(len(a), len(b)))


# -- abstentions --------------------------------------------------------------------------------
def _false_abstention(claim: str, sents, idf, out: FactCheck, conf) -> None:
    """An abstention is itself false when an evidence sentence covers what it says is missing and states
    a value of the asked kind (a number for "how much", a date for "when", a name for "who"). Each abstention of
    the claim is read: "... doesn't mention any Christmas arrangements, so I can't say whether the gardens are open
    on 26 December" is refuted by "closed on 25 and 26 December", though nothing says "Christmas"."""
    # (a later one only when it names what it asks about by a date, a figure or a name: "so I can't confirm you'd be
    # covered for that" restates the first)
    pieces = [claim] + [claim[m.end():] for m in re.finditer(r",\s*so\b|;|,\s*(?:but|and)\b", claim)
                        if lexicon.is_abstention(claim[m.end():]) and _names_its_topic(claim[m.end():])]
    for piece in pieces:
        found = len(out.differences)
        _false_abstention_of(piece, claim, sents, out, conf)
        if len(out.differences) > found:
            return


#: A passage's label: up to four words and a colon at its start ("Parental leave:", "Refunds:").
_PASSAGE_LABEL = re.compile(r"\s*((?:[A-Z][\w'’\-]*)(?:\s+[\w'’\-]+){0,3}):\s")


def _names_its_topic(abstention: str) -> bool:
    t = _parse(lexicon.abstention_topic(abstention))
    return bool(t.dates or t.times or t.quantities or names(t.text))


def _false_abstention_of(claim: str, whole: str, sents, out: FactCheck, conf) -> None:
    """One abstention of ``whole`` (``claim``: it, from its start) against the evidence."""
    topic = lexicon.abstention_topic(claim)
    # (what kind of value it says is missing, read up to the topic's end: "doesn't say which side won the toss, only
    # that ... when rain stopped play" asks for a name, not a date)
    at = claim.find(topic)
    wants = _asked_kind(claim[max(0, at - 30): at + len(topic)] if at >= 0 else claim)
    warning = lexicon.denies_warning(claim)
    yes_no = not warning and re.search(r"\b(?:whether|if)\b", claim, re.I) is not None
    topic = re.sub(r"^\s*(?:whether|if)\s+", "", topic, flags=re.I)
    # Words that ask for the value ("location", "details") are not what the evidence must share; nor, in a
    # yes/no topic, the verb that asks it ("whether the device works with iOS": "not with iOS" answers it).
    everywhere = frozenset().union(*(p.term_set for _, _, p in sents))
    modal_asked = yes_no and lexicon.modality(topic) is not None or re.search(
        r"\b(?:allowed|permitted|required|allow|permit|require)\b", topic, re.I) is not None
    t_terms = set(_parse(topic).term_set) - _ASKING - (_YES_NO_VERBS if yes_no else frozenset())
    # A word that names the kind of figure asked for ("weight limit", "how long") is what the evidence states a
    # figure of, not a word it must share: "weighing at most 7 kg" states the weight limit.
    dims = {_DIMENSION_WORDS[t] for t in t_terms if t in _DIMENSION_WORDS}
    if _fold(stem("rate")) in t_terms:
        dims.add("currency")  # "the junior membership rate": a price as often as a percentage
    how_long = re.search(r"\bhow\s+long\b(.*)", claim, re.I)
    if how_long:  # "how long the bridge is": a length; "how long refunds take": a time
        dims.add("length" if re.search(r"\b(?:is|are|was|were)\W*$", how_long.group(1), re.I) else "time")
    # "how old he was when he died": an age, stated as "aged 35", "the age of 35" or "35 years old" (the death or
    # birth it is counted to is the age's own wording)
    age = re.search(r"\bhow\s+old\b|\bage\b", claim, re.I) is not None and re.search(r"\bold\b|\bage\b", topic, re.I) is not None
    if age:
        dims.add("age")
        t_terms -= {_fold(stem(w)) for w in "old age aged die died dying death born birth he she they".split()}
    if dims:
        t_terms -= set(_DIMENSION_WORDS) | {"long"}
    # "which release addressed CVE-2024-31882": asked for a release, of the issue the identifier names; a sentence
    # that states the identifier is about it (the verb is the abstention's own: "1.8.3 - Fixes CVE-2024-31882")
    ids = tracker_ids(topic) if wants == "release" else frozenset()
    if ids:
        t_terms -= _RELEASE_WORDS
    owned = _owner_states(whole, topic, dims, sents)
    if owned is not None:
        out.differences.append(Difference(slot="false_abstention", claim_value=whole.strip(),
                                          evidence_value=sents[owned][2].text.strip(), evidence_span=_span(sents[owned][1]),
                                          confidence=conf["false_abstention"]))
        return
    if not t_terms and not age:
        return
    # "repairs in the second year": the period's words are said by its bounds ("between 12 and 24 months")
    periods = ordinal_periods(topic)
    period_terms = set().union(*(_parse(topic[a:b]).term_set for _, _, a, b in periods)) & t_terms if periods else set()
    act = next((_fold(t) for t, _ in _parse(topic).terms if _fold(t) in t_terms), "")  # the topic's first word
    # A passage that opens with a label ("Parental leave: employees ...") is about it in every sentence ("21 days'
    # notice is required" gives the notice period for parental leave).
    labels: dict[str, frozenset[str]] = {}
    for _, s, p in sents:
        if s[0] not in labels:
            m = _PASSAGE_LABEL.match(p.text)
            labels[s[0]] = _parse(m.group(1)).term_set if m else frozenset()
    best = None
    for k, (_, s, p) in enumerate(sents):
        if lexicon.is_abstention(p.text) or re.search(r"\b(?:not|no)\s+(?:say|state|mention|specify|disclose)", p.text, re.I):
            continue
        cov = _coverage(t_terms, _with_referent(sents, k) | labels[s[0]])  # "Its headquarters moved ...": the firm before
        if ids and ids <= tracker_ids(p.text):
            cov = 1.0
        if period_terms and t_terms - period_terms and _states_period(p, periods):
            cov = max(cov, _coverage(t_terms - period_terms, _with_referent(sents, k) | labels[s[0]]))
        if cov < 0.99 and k and sents[k - 1][1][0] == sents[k][1][0] and not names(p.text) \
                and _coverage(t_terms, p.term_set) > 0:
            # A sentence that names nothing of its own goes on about the one before ("The lecture is on 22 April.
            # Admission is free but booking is required." answers whether you need to book for the lecture).
            cov = max(cov, _coverage(t_terms, p.term_set | sents[k - 1][2].term_set))
        figures = [q for q in p.quantities if (not dims or q.kind in dims or ("age" in dims and (
                       _AGED_BEFORE.search(p.text, max(0, q.start - 24), q.start) or _AGED_AFTER.match(p.text, q.end))))
                   and not re.search(r"\b(?:every|each|per)\s+$", p.text[max(0, q.start - 8):q.start], re.I)]
        if age and not t_terms:
            cov = 1.0 if figures else 0.0  # (what the age is of is the abstention's pronoun: any stated age answers it)
        # A figure of the very dimension asked for ("how long the course stays open": "closes six hours after
        # the start") needs fewer of the topic's words: the abstention's verbs are its own wording.
        need = 0.33 if dims and figures and len(t_terms) >= 3 else 0.5 if warning else 0.66 if len(t_terms) >= 2 else 1.0
        if cov < need:
            continue
        # (a rate asked for is stated by a multiple in words too, in a sentence about all of the topic: "Sunday
        # overtime is paid at double time"; not "bank holiday shifts are paid at time and a half" for night shifts)
        rate_asked = not dims or "currency" in dims
        has = {"number": bool(figures) or (rate_asked and cov >= 0.99 and states_multiple(p.text)), "date": bool(p.dates or p.times),
               "name": bool(names(p.text)) or (wants == "name" and _role_does(p, act)),
               "code": bool(_CODE_VALUE.search(p.text)), "release": _RELEASE_VALUE.search(p.text) is not None}
        has["place"] = has["name"]
        # A yes/no topic is answered by a sentence about all of it, whatever values it states.
        # (a figure of the kind asked for, when a kind is: "the parking charges" is not answered by "240 spaces")
        ok = has[wants] if wants else (cov >= 0.99 and (yes_no or (has["number"] if dims else any(has.values()))))
        # "whether overnight parking is allowed": a sentence that says it is or is not permitted answers it
        # (every word of the topic in the context, the rest in a sentence nearby: "overnight parking ... is not
        # permitted" answers it for "the Dunmere trailhead" the sentence before names; "pets" never named does not)
        ok = ok or (yes_no and cov >= 0.66 and modal_asked and (t_terms <= everywhere or _ELIGIBLE.search(p.text) is not None)
                    and (lexicon.modality(p.text) in ("allowed", "forbidden", "required", "optional")
                         or _ELIGIBLE.search(p.text) is not None))
        if warning:  # "does not warn against ...": refuted by a ban or a caution on its act, and by nothing else
            ok = (cov >= 0.66 or (cov >= 0.5 and act in p.term_set)) and lexicon.modality(p.text) in ("forbidden", "discouraged")
        if ok and (best is None or cov > best[0]):
            best = (cov, k)
    if best is not None:
        # "... no specific instructions, but rather mention 5-10 minutes": the claim gives the figure itself. Only
        # when it gives every figure the sentence states: "gives the full-time length of 12 months but not the
        # part-time one" against "12 months full-time or 24 months part-time" leaves one the context does state.
        stated = [e for e in sents[best[1]][2].quantities if not dims or e.kind in dims]
        given = _parse(whole).quantities
        if stated and all(any(_equivalent(q, e) for q in given) for e in stated):
            best = None
    if best is not None:
        k = best[1]
        out.differences.append(Difference(slot="false_abstention", claim_value=whole.strip(),
                                          evidence_value=sents[k][2].text.strip(), evidence_span=_span(sents[k][1]),
                                          confidence=conf["false_abstention"]))


def _states_period(p: _Parsed, periods: list[tuple[float, float, int, int]]) -> bool:
    """Does ``p`` state one of the periods by its bounds ("between 12 and 24 months" for "the second year")?"""
    spans = [q for q in p.quantities if q.dimension == "time"]
    return any(any(abs(q.value - lo) <= 0.01 * hi and q.bound == "min" for q in spans)
               and any(abs(q.value - hi) <= 0.01 * hi and q.bound == "max" for q in spans) for lo, hi, _, _ in periods)


def _role_does(p: _Parsed, act: str) -> bool:
    """Is the topic's verb ``act`` said in ``p`` of a party named by its role ("the customer pays")? (who pays)"""
    return bool(act) and any(_fold(t) == act and lexicon.role_before(p.text, q) for t, q in p.terms)


#: A topic said of a pronoun's owner: "her finishing time", "his salary", "its price".
_OWNED_TOPIC = re.compile(r"(her|his|its|their)\s+\w", re.I)


def _owner_states(whole: str, topic: str, dims: set[str], sents) -> int | None:
    """The evidence sentence that states the figure an abstention says is missing of someone the claim itself names
    ("names Tsige Alemu as runner-up, but doesn't give her finishing time" against "Tsige Alemu was second in
    14:23.50"), or None. Why: the topic's words are the pronoun and the figure's kind, which the evidence states
    with the owner's name and the figure alone ("was second in"), so no word of the topic is there to align on.
    Read only for a figure of the very kind asked (a dimension word: "salary", "height"; a race's "time": an
    elapsed time, not a clock time), stated in the clause that names the owner (a person for "her" / "his":
    a name of two or more words), and not given by the claim itself."""
    m = _OWNED_TOPIC.match(topic)
    at = whole.find(topic)
    race = re.search(r"\btime\b", topic, re.I) is not None and not dims
    if m is None or at < 0 or not (dims or race) or (race and elapsed_times(whole)):
        return None
    person = m.group(1).lower() in ("her", "his")
    owner = next((n for n in names(whole[:at]) if len(n.tokens) >= 2 or not person), None)
    if owner is None:
        return None
    for k, (_, _, p) in enumerate(sents):
        if not owner.tokens <= words(p.text):
            continue
        last = max(re.finditer(r"\b(?:%s)\b" % "|".join(map(re.escape, owner.tokens)), p.text, re.I), key=lambda x: x.end())
        a, b = last.end(), _piece_bounds(p.text, last.end())[1]
        if race and any(a <= x < b for x, _ in elapsed_times(p.text)):
            return k
        if not race and any(q.kind in dims and a <= q.start < b for q in p.quantities):
            if not any(any(_equivalent(g, q) for g in _parse(whole).quantities) for q in p.quantities if a <= q.start < b):
                return k
    return None


#: Words of an abstention that ask for a value rather than name the topic ("the starting location of the
#: marathon": the evidence must speak of the marathon's start, not use the word "location"), or ask whether
#: the topic exists at all ("whether support is available on Saturdays": a sentence about Saturday support
#: answers it).
_ASKING = frozenset(_fold(stem(w)) for w in "location located place address information details detail detailed "
                    "instructions instruction specific exact "
                    "exactly mention value figure limit maximum minimum restriction requirement take takes took need needs "
                    "get gets available availability offer offers offered provide provides provided exist exists "
                    "possible accessible much many often anything something change changes changed update updates "
                    "updated version versions".split())
#: Words that settle whether someone may take part ("People who work night shifts are not eligible").
_ELIGIBLE = re.compile(r"\b(?:eligible|ineligible|eligibility|welcome|excluded|barred|banned|prohibited)\b", re.I)
_YES_NO_VERBS = frozenset(_fold(stem(w)) for w in "part join joins participate participates enrol enroll apply eligible "
                          "work works run runs support supports allow allows allowed include "
                          "includes accept accepts use uses cover covers apply applies come comes require requires "
                          "need needs compatible".split())
#: Words that name the kind of figure an abstention says is missing, and the quantity kind that states it.
_DIMENSION_WORDS = {_fold(stem(w)): kind for kind, ws in {
    "mass": "weight heavy", "currency": "price cost fee charge fare rent salary wage budget money payment",
    "length": "length height tall distance far wide width deep depth", "time": "duration period",
    "percent": "percentage rate share", "temperature": "temperature warm hot cold heated",
}.items() for w in ws.split()}
#: An age stated with its figure: "aged 35", "aged between 35 and 45", "at the age of 35" | "35 years old", "a 35-year-old".
_AGED_BEFORE = re.compile(r"\b(?:aged|age\s+of|ages?)\s+(?:between\s+|about\s+|around\s+|roughly\s+|\d+\s*(?:and|to|-|\u2013)\s*)?$",
                          re.I)
_AGED_AFTER = re.compile(r"[\s-]*(?:years?|yrs?)[\s-]*old\b", re.I)
#: A value that is neither a number, a date nor a name: a path, a command, an identifier, a file.
_CODE_VALUE = re.compile(r"`[^`]+`|[~/\\][\w.\-/\\]+|\b\w+[._]\w+\.\w+\b|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b")


#: Words that ask for a release rather than name the topic ("which release fixed ...", "which build added ...").
_RELEASE_WORDS = frozenset(_fold(stem(w)) for w in "release releases version versions build builds update updates "
                           "patch patches firmware".split())
#: A release's number: "1.8.3", "v2.1", "version 4".
_RELEASE_VALUE = re.compile(r"\b(?:v|version\s+|release\s+)?\d+(?:\.\d+)+\b|\b(?:version|release|v)\s*\d+\b", re.I)
#: "which release ...", "what version ...": asked for a release, stated by a version number ("1.8.3").
_WHICH_RELEASE = re.compile(r"\b(?:which|what)\s+(?:release|version|build|update|patch|firmware(?:\s+version)?)\b")


def _asked_kind(text: str) -> str | None:
    # (the verb "address" asks for no place: "it does not address hiding friends")
    t = re.sub(r"\b(?:(?:not|n't|never)\s+(?:\w+\s+)?)address\b", "discuss", text.lower())
    if _WHICH_RELEASE.search(t):
        return "release"
    if re.search(r"\bhow\s+(?:much|many|long|far|old|often|big|large|high|tall|heavy|warm|hot|cold|fast|deep|wide)\b|"
                 r"\b(?:price|cost|amount|number|"
                 r"dose|dosage|duration|size|weight|length|percentage|rate|fee|allowance|stipend|salary|wage|budget|"
                 r"discount|deposit|capacity|population|temperature|distance|age)\b", t):
        return "number"
    if re.search(r"\bwhere\b|\b(?:location|located|address|venue|headquarter\w*|city|country)\b", t):
        return "place"
    # (a "who" before a date word asks for a party: "who pays postage for repairs in the second year")
    who, when = re.search(r"\bwho(?:m)?\b", t), re.search(r"\bwhen\b|\b(?:date|day|year|time|hour|deadline)\b", t)
    if who and when and who.start() < when.start():
        return "name"
    if when:
        return "date"
    if re.search(r"\bwho\b|\bwhom\b|\bwhich\s+(?:company|person|team|side|club|player|party|firm|candidate|driver|rider|"
                 r"country|city|airline|bank|school|hospital)\b", t):
        return "name"
    return None
