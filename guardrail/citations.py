"""Citation markers in answers, and whether each one points at evidence that backs its claim.

Answers cite their sources in many house styles: ``[1]``, ``[2, 3]``, ``[1-3]``, ``[doc2]``,
``[doc-a]``, ``[Source 1]``, ``<Content1>``, ``【1】`` (and ``【4:0†source】``), ``(Passage 2)``. A marker is only as
good as the passage it points at, so a citation is checked three ways: the target exists among the
evidence, text the claim quotes appears in the cited source, and (given a verifier) the cited
passage alone supports the claim. Attribution precision is the share of citations that pass.

Bracketed text is ambiguous, so the parser is deliberately narrow: markdown links ``[text](url)``,
reference definitions ``[1]: url``, checkboxes ``[x]``, JSON arrays (``"ids": [1, 2]``, nested
``[[1, 2], [3]]``) and anything inside code are not markers; a lone ``[1, 2, 3]`` in prose is,
because that is how numeric citations look.

Checking runs in two steps so that support is judged in the same batched verifier call as the
claims: :func:`plan_citations` decides existence and quotes and lists the support checks (each cited
claim against only the passages its marker points to), the facade puts them into its one verifier
call, and :func:`judge_citations` turns the verdicts it is handed into the report. This module never
calls a verifier, so it sits below them (the evidence selector and the verifiers strip markers
with its ``strip_markers``).

Support is judged at the report's threshold (the claim threshold), never at a fixed 0.5: a passage
the verifier would flag the claim against does not back it. Each distinct (claim, cited passages)
pair is one check however often the marker repeats, and an answer with more than ``MAX_MARKERS``
markers is refused with an ``InputError`` (the pipeline reports the citation check as skipped)
rather than checked for minutes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from .errors import InputError
from .types import CitationReport, CitationResult, Claim, ClaimVerdict, Evidence, Label

__all__ = [
    "CitationMarker",
    "CitationCheck",
    "CitationPlan",
    "MAX_MARKERS",
    "parse_markers",
    "strip_markers",
    "resolve_target",
    "plan_citations",
    "judge_citations",
]

#: Most citation markers checked in one answer. A real answer cites a few dozen times at most; an
#: answer with thousands of markers is degenerate output, and checking it would cost time per marker.
MAX_MARKERS = 1_000


class CitationMarker(BaseModel):
    """One marker as written in the text, with the targets it names (ranges expanded)."""

    model_config = ConfigDict(extra="forbid")

    start: int
    end: int
    raw: str
    targets: list[str]


# Words that introduce a numbered source: "Source 1", "doc2", "Passage #3", "Content1".
_LABEL = r"(?:sources?|src|refs?|references?|passages?|documents?|docs?|context|contents?|chunks?)"
_NUM = r"\d{1,4}"
_ITEM = (
    rf"(?:\^?{_NUM}(?:\s*[-\u2013]\s*{_NUM})?"  # 1, 1-3, ^1 (markdown footnote)
    rf"|{_LABEL}[ \t_#:-]*{_NUM}"  # Source 1, doc2, passage #3
    rf"|{_LABEL}[-_:][\w.-]*\w"  # doc-a, doc_intro, source:kb.7
    rf"|(?=[\w.-]*\d)[A-Za-z][\w.-]*\w"  # ids with a digit: S1, kb-2024-01, ref12a
    rf"|(?!(?:citation|clarification|verification|source)[-_]needed\b)"  # editorial notes, not ids
    rf"[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)+)"  # slug ids: statue-of-liberty, faq_returns
)
_ITEMS = rf"{_ITEM}(?:\s*[,;]\s*{_ITEM})*"
_BRACKET = re.compile(rf"\[\s*(?P<b>{_ITEMS})\s*\]", re.IGNORECASE)
_LENTICULAR = re.compile(rf"\u3010\s*(?P<l>{_ITEMS})\s*(?:[\u2020:][^\u3011\n]*)?\u3011", re.IGNORECASE)
_TAG = re.compile(rf"<\s*(?P<t>{_LABEL}\s*[-_ ]?\s*{_NUM})\s*/?>", re.IGNORECASE)
# "(Passage 2)", "(passages 1 and 3)", "(according to Passage 1, step 4)": the style of many RAG
# prompts (2,154 such markers in 469 RAGTruth train responses). A label word is required so that
# "(1)", "(2020)" or "(see above)" are never read as citations.
_PLABEL = r"(?:passages?|sources?|documents?|docs?|contexts?|contents?|references?|refs?|chunks?)"
_PNUM = rf"{_NUM}(?:\s*:\s*\d+)?"
_QUALIFIER = r"(?:steps?|facts?|points?|parts?|items?|paragraphs?|paras?|lines?|sections?|sentences?)\s*\d+"
_PAREN = re.compile(
    rf"\(\s*(?:(?:according to|see|from|based on|per|cf\.?|in)\s+)?(?P<p>{_PLABEL}\s*#?\s*{_PNUM}"
    rf"(?:\s*(?:,|;|&|\band\b|\bor\b)\s*(?:{_PLABEL}\s*#?\s*)?{_PNUM})*)"
    rf"(?:\s*,\s*{_QUALIFIER})*\s*\)",
    re.IGNORECASE,
)
_PAREN_ITEM = re.compile(rf"(?:({_PLABEL})\s*#?\s*)?({_NUM})(?:\s*:\s*\d+)?", re.IGNORECASE)
_SPLIT_ITEMS = re.compile(r"\s*[,;]\s*")
_RANGE = re.compile(rf"^({_NUM})\s*[-\u2013]\s*({_NUM})$")
_LABELLED_NUM = re.compile(rf"^{_LABEL}[\s_#:-]*({_NUM})$", re.IGNORECASE)
# Fenced code (fences at the start of a line, as in markdown; an unclosed fence runs to the end) and inline code.
_CODE = re.compile(
    r"^[ \t]{0,3}(`{3,}|~{3,}).*?(?:^[ \t]{0,3}\1|\Z)|`[^`\n]+`",
    re.DOTALL | re.MULTILINE,
)
#: Ranges longer than this are kept as one unresolvable target rather than expanded.
_MAX_RANGE = 50


def _targets(items: str) -> list[str]:
    out: list[str] = []
    for item in _SPLIT_ITEMS.split(items.strip()):
        item = item.lstrip("^")
        m = _RANGE.match(item)
        if m and int(m.group(1)) <= int(m.group(2)) <= int(m.group(1)) + _MAX_RANGE:
            out.extend(str(i) for i in range(int(m.group(1)), int(m.group(2)) + 1))
        else:
            out.append(item)
    return out


def _paren_targets(items: str) -> list[str]:
    """ "Passages 1 and 3" -> ["Passages 1", "3"]; the position within a passage (1:2) is dropped."""
    return [f"{label} {num}" if label else num for label, num in _PAREN_ITEM.findall(items)]


def _prev_char(text: str, i: int) -> str:
    while i > 0 and text[i - 1] in " \t":
        i -= 1
    return text[i - 1] if i > 0 else ""


def _is_array_or_link(text: str, start: int, end: int) -> bool:
    """Context says this bracket is a JSON array, a nested list or a link, not a citation."""
    after = text[end : end + 1]
    if after == "(" or after == "]":  # [text](url) link; inner item of [[1], [2]]
        return True
    if after == ":" and (start == 0 or text[start - 1] == "\n"):  # [1]: https://... definition
        return True
    return _prev_char(text, start) in (":", "=", "[", "{")


def parse_markers(text: str) -> list[CitationMarker]:
    """Every citation marker in ``text``, in order, with offsets such that ``text[start:end] == raw``."""
    if "[" not in text and "(" not in text and "<" not in text and "\u3010" not in text:
        return []
    code = [m.span() for m in _CODE.finditer(text)] if "`" in text or "~~~" in text else []
    found: list[CitationMarker] = []
    for pattern, group in ((_BRACKET, "b"), (_LENTICULAR, "l"), (_TAG, "t"), (_PAREN, "p")):
        for m in pattern.finditer(text):
            start, end = m.span()
            if any(a <= start < b for a, b in code):
                continue
            if pattern is _BRACKET and _is_array_or_link(text, start, end):
                continue
            targets = _paren_targets(m.group(group)) if pattern is _PAREN else _targets(m.group(group))
            found.append(CitationMarker(start=start, end=end, raw=m.group(0), targets=targets))
    found.sort(key=lambda c: c.start)
    return found


def strip_markers(text: str) -> str:
    """``text`` without its citation markers and the space that led up to each one.

    "Paris [1] is big [2]." becomes "Paris is big." so a verifier judges the words, not the
    bookkeeping.
    """
    markers = parse_markers(text)
    if not markers:
        return text
    out: list[str] = []
    pos = 0
    for mk in markers:
        chunk = text[pos : mk.start]
        following = text[mk.end : mk.end + 1]
        if chunk.endswith((" ", "\t")) and (following == "" or following in " \t\n.,;:!?)\u3011"):
            chunk = chunk.rstrip(" \t")
        out.append(chunk)
        pos = mk.end
    out.append(text[pos:])
    return "".join(out)


def _norm_id(s: str) -> str:
    return re.sub(r"[\W_]+", "", s).casefold()


def resolve_target(target: str, evidence: Sequence[Evidence]) -> str | None:
    """The id of the evidence a marker target names, or None.

    Order matters when ids are themselves numbers: an exact id always wins over a position, so
    with ids "0", "1", "2" the target "1" is the evidence whose id is "1". Then case and
    punctuation are ignored ("Doc-2" finds "doc2"), then "2", "doc2", "Content2", "Source 2"
    are read as the 1-based position 2.
    """
    target = target.strip()
    for ev in evidence:
        if ev.id == target:
            return ev.id
    key = _norm_id(target)
    if key:
        for ev in evidence:
            if _norm_id(ev.id) == key:
                return ev.id
    number: str | None = target if target.isdigit() else None
    if number is None:
        m = _LABELLED_NUM.match(target)
        number = m.group(1) if m else None
    if number is None:
        return None
    for ev in evidence:  # "Source 2" may name the evidence whose id is "2"
        if ev.id == number:
            return ev.id
    index = int(number) - 1
    return evidence[index].id if 0 <= index < len(evidence) else None


_QUOTE = re.compile(r"\"((?:[^\"\n]|\n(?!\s*\n)){2,}?)\"|\u201c((?:[^\u201d\n]|\n(?!\s*\n)){2,}?)\u201d")
_QUOTE_CHARS = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-"})
_ELLIPSIS = re.compile(r"\s*(?:\.\.\.|\u2026)\s*")


def _norm_text(s: str) -> str:
    return " ".join(s.translate(_QUOTE_CHARS).casefold().split())


def _quotes(text: str) -> list[str]:
    return [q for m in _QUOTE.finditer(text) for q in (m.group(1) or m.group(2),) if q.strip()]


def _quote_found(quote: str, sources: list[str]) -> bool:
    """The quote's words appear in one source, in order across any "..." elisions.

    Punctuation at the edges of the quote is ignored because writers move it inside the quote
    marks ("said “no.”" for a source that reads "no,").
    """
    parts = [_norm_text(p).strip(" .,;:!?'\"") for p in _ELLIPSIS.split(strip_markers(quote))]
    parts = [p for p in parts if p]
    if not parts:
        return True
    for src in sources:
        pos = 0
        for part in parts:
            hit = src.find(part, pos)
            if hit < 0:
                break
            pos = hit + len(part)
        else:
            return True
    return False


def _marker_targets(raw: str) -> list[str]:
    parsed = parse_markers(raw)
    if len(parsed) == 1:
        return parsed[0].targets
    stripped = raw.strip().strip("[]\u3010\u3011<>/ ")
    return [stripped] if stripped else []


class CitationCheck(BaseModel):
    """One support check a citation needs: ``claim`` judged against the cited passages alone.

    Why the facade builds the verifier item and not this module: the item's windows come from the
    evidence selector and the verdict from the verifier, and both live above this floor; the checks
    go into the same batched verifier call as the claims (one model pass per answer or batch).
    """

    model_config = ConfigDict(extra="forbid")

    claim: Claim
    evidence_ids: list[str] = Field(description="The cited passages, in the order the marker resolved them.")


class CitationPlan(BaseModel):
    """The citations of one answer before any verifier ran.

    ``results`` have existence and quotes decided and ``supports`` still open; ``checks`` are the
    support checks a verifier must judge, one per distinct (claim, cited passages) pair; ``judged_by``
    says which check decides which result, as (index into results, index into checks).
    """

    model_config = ConfigDict(extra="forbid")

    results: list[CitationResult] = Field(default_factory=list)
    checks: list[CitationCheck] = Field(default_factory=list)
    judged_by: list[tuple[int, int]] = Field(default_factory=list)
    uncited_claim_ids: list[str] = Field(default_factory=list)


def plan_citations(
    claims: Sequence[Claim],
    evidence: Sequence[Evidence],
    *,
    require_citations: bool = False,
    max_markers: int = MAX_MARKERS,
) -> CitationPlan:
    """Every citation attached to ``claims``: whether its targets exist, whether its quotes match, and
    the support checks that remain for a verifier.

    Each marker is judged on its own because attribution is about the marker: "[1][2]" where only
    [1] backs the claim has one good and one bad citation. A check names only the cited evidence, so
    a passage the answer did not cite can never make a citation look supported. There is one check
    per distinct (claim, cited passages) pair: a marker repeated on the same claim, or "[1]" and
    "[Source 1]", reuse one verdict. A citation to a missing source needs no check: it is unsupported.

    Raises ``InputError`` when the claims carry more than ``max_markers`` markers; the caller reports
    it as a skipped check.
    """
    n_markers = sum(len(c.citations) for c in claims)
    if n_markers > max_markers:
        raise InputError(f"the answer has {n_markers:,} citation markers, over the limit of {max_markers:,}; "
                         "its citations were not checked")
    by_id = {ev.id: ev for ev in evidence}
    plan = CitationPlan(uncited_claim_ids=[c.id for c in claims if not c.citations] if require_citations else [])
    check_of: dict[tuple[str, str, tuple[str, ...]], int] = {}
    for claim in claims:
        quotes = _quotes(claim.text)
        seen: dict[str, CitationResult] = {}  # raw marker -> its result, for markers repeated on this claim
        for raw in claim.citations:
            if raw in seen:
                result = seen[raw].model_copy()
            else:
                result = seen[raw] = _citation(claim, raw, quotes, evidence, by_id)
            plan.results.append(result)
            if result.exists:
                key = (claim.id, claim.check_text, tuple(result.target_ids))
                if key not in check_of:
                    check_of[key] = len(plan.checks)
                    plan.checks.append(CitationCheck(claim=claim, evidence_ids=list(result.target_ids)))
                plan.judged_by.append((len(plan.results) - 1, check_of[key]))
    return plan


def judge_citations(
    plan: CitationPlan,
    verdicts: Sequence[ClaimVerdict] | None,
    *,
    support_threshold: float,
    not_run: Mapping[int, str] | None = None,
) -> CitationReport:
    """The citation report of ``plan`` given a verdict per check (in ``plan.checks`` order).

    ``verdicts`` None means there is no verifier: support stays unknown and ``attribution_precision``
    None (a precision over the missing sources alone would mislead). ``support_threshold`` is the
    report's threshold, never a fixed 0.5: a citation ``supports`` its claim when the verdict is
    ``supported`` or its hallucination score is under the threshold, so a contradicted or unsupported
    verdict at or above it never counts as support; ``support_score`` is ``1 - hallucination_score``.
    An unevaluatable verdict, or one whose check did not fully run (``not_run``: check index -> why,
    e.g. a cascade's judge was down), leaves ``supports`` None with the reason.
    ``attribution_precision`` is supported / judged citations, where a citation to a missing source is
    judged unsupported and one left at None is left out; None when no citation could be judged.
    ``plan`` is not changed.

    Raises ``InputError`` when the verdicts do not match the checks one to one.
    """
    results = [r.model_copy() for r in plan.results]
    if verdicts is not None:
        if len(verdicts) != len(plan.checks):
            raise InputError(f"{len(verdicts)} verdicts for {len(plan.checks)} citation checks")
        not_run = not_run or {}
        for index, k in plan.judged_by:
            _apply_verdict(results[index], verdicts[k], support_threshold, not_run.get(k))
    precision: float | None = None
    if verdicts is not None:
        judged = [r for r in results if r.supports is not None]
        precision = sum(r.supports is True for r in judged) / len(judged) if judged else None
    return CitationReport(results=results, attribution_precision=precision, uncited_claim_ids=list(plan.uncited_claim_ids))


def _citation(claim: Claim, raw: str, quotes: list[str], evidence: Sequence[Evidence],
              by_id: dict[str, Evidence]) -> CitationResult:
    """What one marker on ``claim`` cites and whether its targets exist and hold its quotes (support aside)."""
    targets = _marker_targets(raw)
    resolved = [resolve_target(t, evidence) for t in targets]
    missing = [t for t, r in zip(targets, resolved) if r is None]
    ids = list(dict.fromkeys(r for r in resolved if r is not None))
    cited = [by_id[i] for i in ids]
    reasons: list[str] = []
    exists = bool(targets) and not missing
    if not targets:
        reasons.append(f"marker {raw!r} names no source")
    elif missing:
        reasons.append(f"cited source(s) {', '.join(map(repr, missing))} not among the evidence")
    quote_ok: bool | None = None
    if quotes:
        sources = [_norm_text(ev.text) for ev in cited]
        bad = [q for q in quotes if not _quote_found(q, sources)]
        quote_ok = not bad
        if bad:
            reasons.append(f"quoted text {bad[0]!r} not found in the cited source")
    return CitationResult(
        marker=raw,
        claim_id=claim.id,
        target_ids=ids,
        exists=exists,
        quote_ok=quote_ok,
        supports=False if not exists else None,
        reason="; ".join(reasons) or None,
    )


def _apply_verdict(result: CitationResult, verdict: ClaimVerdict, threshold: float, not_run: str | None) -> None:
    if verdict.label is Label.unevaluatable or not_run is not None:
        note = f"support not checked: {not_run or verdict.reason or 'verifier could not evaluate'}"
        result.reason = f"{result.reason}; {note}" if result.reason else note
        return
    result.support_score = 1.0 - verdict.hallucination_score
    result.supports = verdict.label is Label.supported or verdict.hallucination_score < threshold
    if not result.supports:
        note = (f"cited passage does not support the claim ({verdict.label.value}, score "
                f"{verdict.hallucination_score:.2f} >= threshold {threshold:.2f})")
        result.reason = f"{result.reason}; {note}" if result.reason else note
