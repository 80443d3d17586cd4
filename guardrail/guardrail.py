"""The facade: ``Guardrail(...).check(answer, context)`` runs claims → evidence → verdicts → report.

Each stage is a separate module with a small protocol; this file only wires them, times them and
turns every stage that cannot run into an explicit ``SkippedCheck`` / ``unevaluatable`` verdict, so
a report never passes silently. ``check_batch`` verifies the claims of many answers in one batched
verifier call, which is where throughput on a CPU comes from; the support checks of an answer's
citations go into that same call.

``check``, ``acheck`` and ``check_batch`` share one prepare stage (claims, evidence, citation plan:
CPU-bound, pure Python) and one finish stage (verdicts split per answer, citations judged, the
report); only the verifier call differs: ``run_verifier`` on the sync paths, ``await
arun_verifier`` on the async one, so an async verifier (an LLM judge) is awaited, not run in a thread.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from .citations import CitationPlan, judge_citations, parse_markers, plan_citations
from .claims import ClaimExtractor, SentenceClaimExtractor, unchecked_spans
from .errors import BackendError, InputError
from .evidence import EvidenceSelector, normalize_context
from .limits import check_input_sizes
from .structured import field_claims, looks_like_json, parse_structured, structure_spans, validate_structured
from .tracing import span
from .types import (
    CheckReport,
    Label,
    Claim,
    ClaimVerdict,
    Evidence,
    SchemaIssue,
    SchemaResult,
    SkippedCheck,
    UncheckedSpan,
    VerificationItem,
    is_flagged,
)
from .verifiers import Verifier, VerifierRun, arun_verifier, make_verifier, run_verifier, unevaluatable

__all__ = ["Guardrail", "BatchItem"]

Schema = dict | type[BaseModel]


class BatchItem(BaseModel):
    """One answer to check in ``check_batch``."""

    id: str | None = None
    response: str
    context: Any = None
    question: str | None = None


@dataclass
class _Prepared:
    """An answer after claim extraction and evidence selection, waiting for the verifier, then its results."""

    answer: str
    question: str | None
    evidence: list[Evidence]
    claims: list[Claim] = field(default_factory=list)
    items: list[VerificationItem] = field(default_factory=list)
    # Items that are unevaluatable before any model runs (no context, context over limit).
    preset: dict[str, ClaimVerdict] = field(default_factory=dict)
    skipped: list[SkippedCheck] = field(default_factory=list)
    # Text no claim covers, with why (guardrail.claims.unchecked_spans).
    unchecked: list[UncheckedSpan] = field(default_factory=list)
    schema_result: SchemaResult | None = None
    latencies_ms: dict[str, float] = field(default_factory=dict)
    # Citations: existence and quotes decided, support checks waiting in citation_items (same verifier call).
    citation_plan: CitationPlan | None = None
    citation_items: list[VerificationItem] = field(default_factory=list)
    # Filled by the verify stage: a verdict per claim and per citation check (index -> why for a check
    # that did not fully run), and the verifier's error when the call carrying the citation checks failed.
    verdicts: list[ClaimVerdict] = field(default_factory=list)
    citation_verdicts: list[ClaimVerdict] = field(default_factory=list)
    citation_not_run: dict[int, str] = field(default_factory=dict)
    citation_error: str | None = None


def _as_text(value: Any, what: str) -> str:
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"{what} is not valid UTF-8 (byte {exc.start}: {value[exc.start:exc.start + 4]!r})") from exc
    if not isinstance(value, str):
        raise InputError(f"{what} must be a string, got {type(value).__name__}")
    return value


def _batch_item(raw: Any, index: int) -> BatchItem:
    """A batch item from a mapping, or an ``InputError`` naming the item and the field at fault."""
    try:
        return BatchItem.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err.get("loc", ())) or "item"
        raise InputError(f"batch item {index}: field '{field}': {err.get('msg')}") from exc


class Guardrail:
    """Checks answers against their retrieved context.

    Args:
        verifier: a ``Verifier`` or a spec string: ``"default"`` (``verifiers.DEFAULT_VERIFIER``, the
            shipped grounding model), ``"grounding"`` (the shipped cross-encoder stacked with the
            heuristic, calibrated), ``"heuristic"`` (the interim checker alone, ~3x faster),
            ``"hf:/path/to/model"``, ``"judge"`` or ``"cascade"`` (these two need ``llm``).
        extractor: how answers are split into claims (default: sentence-level, offline).
        selector: how evidence windows are picked per claim (default: what the verifier was trained with,
            from its ``evidence_selector`` settings; otherwise hybrid BM25 + embeddings, top 3).
        threshold: hallucination score at or above which a contradicted/unsupported claim is flagged
            (default: the verifier's ``recommended_threshold``, tuned with the shipped model, else 0.5).
        check_citations: verify citation markers found in the answer.
        require_citations: list factual claims that carry no citation.
        schema: JSON Schema dict or pydantic model that structured (JSON) answers must satisfy.
        max_context_chars: longer contexts are not checked (each claim unevaluatable, reason given)
            rather than cut silently.
        llm: a ``guardrail.llm.ChatModel`` (e.g. ``OpenAIChat``) for the judge and cascade verifiers.
        verifier_timeout_s: a verifier call (one batch of claims) that has not answered by then is a failed
            check (its claims unevaluatable, a skipped "verify" entry, the policy's fail mode), never a hang.
            None: no limit (the shipped models always return; set it for remote or custom verifiers).
    """

    def __init__(
        self,
        verifier: Verifier | str = "default",
        *,
        extractor: ClaimExtractor | None = None,
        selector: EvidenceSelector | None = None,
        threshold: float | None = None,
        check_citations: bool = True,
        require_citations: bool = False,
        schema: Schema | None = None,
        max_context_chars: int = 4_000_000,
        batch_size: int = 32,
        llm: Any = None,
        verifier_timeout_s: float | None = None,
    ) -> None:
        self.verifier: Verifier = make_verifier(verifier, llm=llm) if isinstance(verifier, str) else verifier
        # For with_verifier: what was chosen, not derived.
        self._given_threshold, self._given_selector = threshold, selector
        if threshold is None:
            threshold = float(getattr(self.verifier, "recommended_threshold", 0.5))
        if not 0.0 <= threshold <= 1.0:
            raise InputError(f"threshold must be within 0..1, got {threshold}")
        self.extractor: ClaimExtractor = extractor or SentenceClaimExtractor()
        # A trained verifier only knows the evidence it was trained on: use its selector settings.
        self.selector = selector or EvidenceSelector(**(getattr(self.verifier, "evidence_selector", None) or {}))
        self.threshold = threshold
        self.check_citations = check_citations
        self.require_citations = require_citations
        self.schema = schema
        self.max_context_chars = max_context_chars
        self.batch_size = batch_size
        if verifier_timeout_s is not None and not verifier_timeout_s > 0:
            raise InputError(f"verifier_timeout_s must be > 0 seconds, got {verifier_timeout_s}")
        self.verifier_timeout_s = verifier_timeout_s

    def with_verifier(self, verifier: Verifier) -> "Guardrail":
        """This guardrail's settings around another verifier (a tenant policy's verification section).

        The threshold and the evidence selection follow the new verifier (its recommended threshold, the
        windows it was trained on) unless they were given to this one explicitly; everything else is kept.
        """
        return Guardrail(
            verifier, extractor=self.extractor, selector=self._given_selector, threshold=self._given_threshold,
            check_citations=self.check_citations, require_citations=self.require_citations, schema=self.schema,
            max_context_chars=self.max_context_chars, batch_size=self.batch_size, verifier_timeout_s=self.verifier_timeout_s,
        )

    # ------------------------------------------------------------------ public API

    def check(self, answer: str, context: Any, question: str | None = None, *, schema: Schema | None = None) -> CheckReport:
        # Spans (guardrail.tracing) mirror the stages timed in latencies_ms; no-ops without an exporter.
        with span("check", verifier=self.verifier.name):
            with span("prepare"):  # claims + evidence selection + citation plan
                prepared = self._prepare(answer, context, question, schema)
            with span("verify", items=_n_items([prepared])):
                self._verify([prepared])
            with span("finish"):  # citations judged + the report
                return self._finish(prepared)

    async def acheck(self, answer: str, context: Any, question: str | None = None, *, schema: Schema | None = None) -> CheckReport:
        """``check`` for an event loop: the CPU-bound prepare stage runs in a worker thread so the loop
        stays free, the verifier is awaited (``arun_verifier``: its own ``averify`` when it has one, so
        an LLM judge's requests run concurrently on the loop; a sync model in a thread), then the
        report is put together. ``verifier_timeout_s`` bounds the verifier call here too."""
        with span("check", verifier=self.verifier.name):
            with span("prepare"):
                prepared = await asyncio.to_thread(self._prepare, answer, context, question, schema)
            with span("verify", items=_n_items([prepared])):
                await self._averify([prepared])
            with span("finish"):
                return self._finish(prepared)

    def check_batch(
        self,
        items: Iterable[BatchItem | dict],
        *,
        chunk_size: int = 16,
        on_error: Callable[[int, Exception], None] | None = None,
    ) -> Iterator[CheckReport | Exception]:
        """Yields one report per item, in order; an item that fails yields its exception.

        Claims of ``chunk_size`` answers are verified in one batched call. An item's error never
        stops the batch: it is yielded in place (and passed to ``on_error`` with its index).
        """
        chunk: list[tuple[int, _Prepared | Exception]] = []
        for index, raw in enumerate(items):
            try:
                item = raw if isinstance(raw, BatchItem) else _batch_item(raw, index)
                chunk.append((index, self._prepare(item.response, item.context, item.question, None)))
            except Exception as exc:  # noqa: BLE001 - reported per item, the batch goes on
                if on_error:
                    on_error(index, exc)
                chunk.append((index, exc))
            if len(chunk) >= chunk_size:
                yield from self._run_chunk(chunk)
                chunk = []
        if chunk:
            yield from self._run_chunk(chunk)

    # ------------------------------------------------------------------ stages

    def _run_chunk(self, chunk: list[tuple[int, _Prepared | Exception]]) -> Iterator[CheckReport | Exception]:
        ready = [p for _, p in chunk if isinstance(p, _Prepared)]
        with span("verify", items=_n_items(ready), answers=len(ready)):
            self._verify(ready)
        for _, p in chunk:
            yield self._finish(p) if isinstance(p, _Prepared) else p

    def _prepare(self, answer: Any, context: Any, question: str | None, schema: Schema | None) -> _Prepared:
        answer = _as_text(answer, "answer")
        if not answer.strip():
            raise InputError("answer is empty: there is nothing to check")
        if question is not None:
            question = _as_text(question, "question")
        timings: dict[str, float] = {}

        t0 = time.perf_counter()
        evidence = normalize_context(context)
        check_input_sizes(answer, question, sum(len(e.text) for e in evidence))
        timings["evidence_parse"] = _ms(t0)
        p = _Prepared(answer=answer, question=question, evidence=evidence, latencies_ms=timings)

        t0 = time.perf_counter()
        schema = schema if schema is not None else self.schema
        if schema is not None:
            p.schema_result, p.claims = self._structured_claims(answer, schema, p.skipped)
            p.unchecked = structure_spans(answer, p.claims) if p.claims else unchecked_spans(answer, p.claims)
        elif looks_like_json(answer):
            # A JSON answer: every field is a claim, numbers and codes included; keys and syntax are markup.
            p.claims = field_claims(answer, parse_structured(answer))
            p.unchecked = structure_spans(answer, p.claims)
        else:
            p.claims, p.unchecked = self._extract(answer)
        timings["claims"] = _ms(t0)
        if not p.claims:  # no claim: the policy's on_no_claims (or unchecked_text, for factual spans) decides
            return p
        if self.check_citations and (self.require_citations or parse_markers(answer)):
            t0 = time.perf_counter()
            try:
                p.citation_plan = plan_citations(p.claims, evidence, require_citations=self.require_citations)
            except InputError as exc:  # more markers than citations.MAX_MARKERS
                p.skipped.append(SkippedCheck(check="citations", reason=f"citation support check failed: {exc}"))
            timings["citations"] = _ms(t0)

        context_chars = sum(len(e.text) for e in evidence)
        if not any(e.text.strip() for e in evidence):
            reason = "no context was given: the claim cannot be checked"
            p.skipped.append(SkippedCheck(check="evidence", reason=reason, claim_ids=[c.id for c in p.claims]))
        elif context_chars > self.max_context_chars:
            reason = f"context is over the limit ({context_chars:,} > {self.max_context_chars:,} characters); not checked"
            p.skipped.append(SkippedCheck(check="evidence", reason=reason, claim_ids=[c.id for c in p.claims]))
        else:
            reason = None
        if reason:
            empty = [VerificationItem(claim=c, windows=[], question=question) for c in p.claims]
            p.preset = {it.claim.id: unevaluatable(it, reason, self.verifier.name) for it in empty}
            if p.citation_plan is not None:  # the cited passages are part of the same context: not checked either
                p.citation_verdicts = [unevaluatable(VerificationItem(claim=ch.claim, windows=[], question=question),
                                                     reason, self.verifier.name) for ch in p.citation_plan.checks]
            return p

        t0 = time.perf_counter()
        p.items = self.selector.select(p.claims, evidence, question)
        timings["evidence_select"] = _ms(t0)
        if p.citation_plan is not None and p.citation_plan.checks:
            t0 = time.perf_counter()
            p.citation_items = self._citation_items(p.citation_plan, evidence, question)
            timings["citations"] += _ms(t0)
        return p

    def _citation_items(self, plan: CitationPlan, evidence: list[Evidence], question: str | None) -> list[VerificationItem]:
        """A verifier item per citation check: the claim against windows of only the passages it cites.

        Checks citing the same passages are selected together, one selector pass per distinct set of
        cited passages (whose index the selector caches), in the order of ``plan.checks``.
        """
        by_id = {e.id: e for e in evidence}
        groups: dict[tuple[str, ...], list[int]] = {}
        for k, check in enumerate(plan.checks):
            groups.setdefault(tuple(check.evidence_ids), []).append(k)
        items: dict[int, VerificationItem] = {}
        for ids, ks in groups.items():
            chosen = self.selector.select([plan.checks[k].claim for k in ks], [by_id[i] for i in ids], question)
            items.update(zip(ks, chosen))
        return [items[k] for k in range(len(plan.checks))]

    def _extract(self, answer: str) -> tuple[list[Claim], list[UncheckedSpan]]:
        """Claims and the text they leave unchecked, from any extractor.

        An extractor that knows why it skipped text (``extract_with_unchecked``) says so; for
        any other, the uncovered text is computed from its claim offsets, so no extractor can
        leave a fact out of the report silently.
        """
        detailed = getattr(self.extractor, "extract_with_unchecked", None)
        if callable(detailed):
            claims, unchecked = detailed(answer)
            return list(claims), list(unchecked)
        claims = self.extractor.extract(answer)
        return claims, unchecked_spans(answer, claims)

    def _structured_claims(self, answer: str, schema: Schema, skipped: list[SkippedCheck]) -> tuple[SchemaResult, list[Claim]]:
        try:
            parse_structured(answer)
        except InputError as exc:
            skipped.append(SkippedCheck(check="schema", reason=str(exc)))
            return SchemaResult(valid=False, issues=[SchemaIssue(path="$", message=str(exc))]), []
        result = validate_structured(answer, schema)
        # Valid or not, every field the answer states is checked against the context, numbers included.
        return result, field_claims(answer, result.parsed) if result.parsed is not None else []

    def _verify(self, prepared: Sequence[_Prepared]) -> None:
        """One batched verifier call over the claim and citation items of every prepared answer."""
        flat = _flat_items(prepared)
        t0 = time.perf_counter()
        run: VerifierRun | BackendError = VerifierRun(verdicts=[])
        if flat:
            # run_verifier turns anything a (custom) verifier raises, a wrong-length or malformed reply, into BackendError.
            try:
                run = run_verifier(self.verifier, flat, batch_size=self.batch_size, timeout_s=self.verifier_timeout_s)
            except BackendError as exc:
                run = exc
        self._settle(prepared, flat, run, _ms(t0))

    async def _averify(self, prepared: Sequence[_Prepared]) -> None:
        """``_verify`` on the event loop: the same call awaited through ``arun_verifier``."""
        flat = _flat_items(prepared)
        t0 = time.perf_counter()
        run: VerifierRun | BackendError = VerifierRun(verdicts=[])
        if flat:
            try:
                run = await arun_verifier(self.verifier, flat, batch_size=self.batch_size, timeout_s=self.verifier_timeout_s)
            except BackendError as exc:
                run = exc
        self._settle(prepared, flat, run, _ms(t0))

    def _settle(self, prepared: Sequence[_Prepared], flat: list[VerificationItem], run: VerifierRun | BackendError,
                elapsed_ms: float) -> None:
        """Hands each answer its share of the call ``flat`` (see ``_flat_items``): its claims' verdicts,
        its citation checks' verdicts, and what did not run. A failed call (``run`` is the error) makes
        every item unevaluatable with the reason and a skipped "verify" check; it is never a pass."""
        failure: str | None = None
        error: str | None = None
        if isinstance(run, BackendError):
            error, failure = str(run), f"verifier '{self.verifier.name}' failed: {run}"
            run = VerifierRun(verdicts=[unevaluatable(it, failure, self.verifier.name) for it in flat])
        per_item_ms = elapsed_ms / max(len(flat), 1)
        pos = 0
        for p in prepared:
            claims_end = pos + len(p.items)
            end = claims_end + len(p.citation_items)
            by_id = {v.claim_id: v for v in run.verdicts[pos:claims_end]} | p.preset
            p.verdicts = [by_id[c.id] for c in p.claims if c.id in by_id]
            if p.citation_items:
                p.citation_verdicts = run.verdicts[claims_end:end]
                p.citation_not_run = {u.index - claims_end: u.reason for u in run.unchecked if claims_end <= u.index < end}
            p.latencies_ms["verify"] = per_item_ms * (end - pos)
            if failure and p.items:
                p.skipped.append(SkippedCheck(check="verify", reason=failure, claim_ids=[it.claim.id for it in p.items]))
            if error and p.citation_items:
                p.citation_error = error
            # Claims whose verdict stands although part of the verifier did not run (a cascade's judge).
            p.skipped.extend(run.skipped(flat, pos, claims_end))
            pos = end

    def _finish(self, p: _Prepared) -> CheckReport:
        t0 = time.perf_counter()
        citations = None
        if p.citation_plan is not None:
            if p.citation_error is not None:  # support unknown: the check did not run, it did not pass
                p.skipped.append(SkippedCheck(check="citations", reason=f"citation support check failed: {p.citation_error}"))
            else:
                citations = judge_citations(p.citation_plan, p.citation_verdicts, support_threshold=self.threshold,
                                            not_run=p.citation_not_run)
            p.latencies_ms["citations"] = p.latencies_ms.get("citations", 0.0) + _ms(t0)
        verdicts = p.verdicts
        p.skipped.extend(_unevaluated_checks(verdicts, p.skipped))
        # Unevaluatable verdicts carry no score; they surface through report.complete / skipped.
        score = max((v.hallucination_score for v in verdicts if v.label is not Label.unevaluatable), default=0.0)
        flagged = any(is_flagged(v.label, v.hallucination_score, self.threshold) for v in verdicts)
        p.latencies_ms["total"] = sum(p.latencies_ms.values())
        return CheckReport(
            answer=p.answer,
            question=p.question,
            claims=p.claims,
            verdicts=verdicts,
            evidence=p.evidence,
            citations=citations,
            schema_result=p.schema_result,
            hallucination_score=score,
            hallucinated=flagged,
            threshold=self.threshold,
            latencies_ms={k: round(v, 3) for k, v in p.latencies_ms.items()},
            skipped=p.skipped,
            unchecked=p.unchecked,
            verifier=self.verifier.name,
        )


def _flat_items(prepared: Sequence[_Prepared]) -> list[VerificationItem]:
    """The items of one verifier call: per answer, its claims' items, then its citation checks' items.

    Keeping an answer's items together keeps what a verifier infers per answer (the chain-of-verification
    budget, ``cove.answer_segments``) per answer; the citation items restart the claim numbering, so
    they read as an answer of their own, as they were when citations had a call of their own.
    """
    return [it for p in prepared for it in (*p.items, *p.citation_items)]


def _n_items(prepared: Sequence[_Prepared]) -> int:
    return sum(len(p.items) + len(p.citation_items) for p in prepared)


def _unevaluated_checks(verdicts: list[ClaimVerdict], skipped: list[SkippedCheck]) -> list[SkippedCheck]:
    """A ``verify`` SkippedCheck for claims a verifier returned unevaluatable without saying so elsewhere.

    A judge that timed out or a cascade stage that failed hands back unevaluatable verdicts
    rather than raising; without this entry the report's ``skipped`` list would be empty and the
    failure visible only verdict by verdict. Abstentions (``non_factual``) are not failures, and
    claims already named by a skipped check (no context, verifier error) are not listed twice.
    The check is named ``verify`` (how the policy's failure modes address verdicts); the reason
    names the verifier.
    """
    named = {cid for s in skipped for cid in s.claim_ids}
    groups: dict[tuple[str, str], list[str]] = {}
    for v in verdicts:
        if v.label is Label.unevaluatable and not v.non_factual and v.claim_id not in named:
            groups.setdefault((v.verifier or "verifier", v.reason or "no reason given"), []).append(v.claim_id)
    return [
        SkippedCheck(check="verify", reason=f"verifier '{name}' could not evaluate {len(ids)} claim(s): {why}", claim_ids=ids)
        for (name, why), ids in groups.items()
    ]


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000.0
