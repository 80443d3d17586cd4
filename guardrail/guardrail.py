"""The facade: ``Guardrail(...).check(answer, context)`` runs claims → evidence → verdicts → report.

Each stage is a separate module with a small protocol; this file only wires them, times them and
turns every stage that cannot run into an explicit ``SkippedCheck`` / ``unevaluatable`` verdict, so
a report never passes silently. ``check_batch`` verifies the claims of many answers in one batched
verifier call, which is where throughput on a CPU comes from.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from .citations import parse_markers, verify_citations
from .claims import ClaimExtractor, SentenceClaimExtractor, unchecked_spans
from .errors import BackendError, InputError
from .evidence import EvidenceSelector, normalize_context
from .limits import check_input_sizes
from .structured import field_claims, looks_like_json, parse_structured, structure_spans, validate_structured
from .tracing import span
from .types import (
    HALLUCINATED_LABELS,
    CheckReport,
    Label,
    Claim,
    ClaimVerdict,
    Evidence,
    SchemaResult,
    SkippedCheck,
    UncheckedSpan,
    VerificationItem,
)
from .verifiers import Verifier, VerifierRun, make_verifier, run_verifier, unevaluatable

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
    """An answer after claim extraction and evidence selection, waiting for the verifier."""

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
        self._given = {"threshold": threshold, "selector": selector}  # for with_verifier: what was chosen, not derived
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
            verifier, extractor=self.extractor, selector=self._given["selector"], threshold=self._given["threshold"],
            check_citations=self.check_citations, require_citations=self.require_citations, schema=self.schema,
            max_context_chars=self.max_context_chars, batch_size=self.batch_size, verifier_timeout_s=self.verifier_timeout_s,
        )

    # ------------------------------------------------------------------ public API

    def check(self, answer: str, context: Any, question: str | None = None, *, schema: Schema | None = None) -> CheckReport:
        # Spans (guardrail.tracing) mirror the stages timed in latencies_ms; no-ops without an exporter.
        with span("check", verifier=self.verifier.name):
            with span("prepare"):  # claims + evidence selection
                prepared = self._prepare(answer, context, question, schema)
            with span("verify", items=len(prepared.items)):
                verdicts = self._verify([prepared])
            with span("finish"):  # citations + the report
                return self._finish(prepared, verdicts[0])

    async def acheck(self, answer: str, context: Any, question: str | None = None, *, schema: Schema | None = None) -> CheckReport:
        """Runs the CPU-bound check in a worker thread so the event loop stays free."""
        return await asyncio.to_thread(self.check, answer, context, question, schema=schema)

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
        with span("verify", items=sum(len(p.items) for p in ready), answers=len(ready)):
            verdicts = iter(self._verify(ready)) if ready else iter(())
        for _, p in chunk:
            yield self._finish(p, next(verdicts)) if isinstance(p, _Prepared) else p

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
            return p

        t0 = time.perf_counter()
        p.items = self.selector.select(p.claims, evidence, question)
        timings["evidence_select"] = _ms(t0)
        return p

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
            return SchemaResult(valid=False, issues=[{"path": "$", "message": str(exc)}]), []
        result = validate_structured(answer, schema)
        # Valid or not, every field the answer states is checked against the context, numbers included.
        return result, field_claims(answer, result.parsed) if result.parsed is not None else []

    def _verify(self, prepared: Sequence[_Prepared]) -> list[list[ClaimVerdict]]:
        """One batched verifier call over the items of every prepared answer."""
        flat = [it for p in prepared for it in p.items]
        t0 = time.perf_counter()
        failure: str | None = None
        run = VerifierRun(verdicts=[])
        if flat:
            # run_verifier turns anything a (custom) verifier raises, a wrong-length or malformed reply, into BackendError.
            try:
                run = run_verifier(self.verifier, flat, batch_size=self.batch_size, timeout_s=self.verifier_timeout_s)
            except BackendError as exc:
                failure = f"verifier '{self.verifier.name}' failed: {exc}"
                run = VerifierRun(verdicts=[unevaluatable(it, failure, self.verifier.name) for it in flat])
        verdicts = run.verdicts
        per_item_ms = _ms(t0) / max(len(flat), 1)
        out, pos = [], 0
        for p in prepared:
            mine = verdicts[pos : pos + len(p.items)]
            pos += len(p.items)
            by_id = {v.claim_id: v for v in mine} | p.preset
            out.append([by_id[c.id] for c in p.claims if c.id in by_id])
            p.latencies_ms["verify"] = per_item_ms * len(p.items)
            if failure and p.items:
                p.skipped.append(SkippedCheck(check="verify", reason=failure, claim_ids=[it.claim.id for it in p.items]))
            # Claims whose verdict stands although part of the verifier did not run (a cascade's judge).
            p.skipped.extend(run.skipped(flat, pos - len(p.items), pos))
        return out

    def _finish(self, p: _Prepared, verdicts: list[ClaimVerdict]) -> CheckReport:
        citations = None
        if self.check_citations and p.claims and (self.require_citations or parse_markers(p.answer)):
            t0 = time.perf_counter()
            try:
                citations = verify_citations(
                    p.claims,
                    p.evidence,
                    verifier=self.verifier,
                    make_item=lambda claim, docs: self.selector.select([claim], docs, p.question)[0],
                    require_citations=self.require_citations,
                    support_threshold=self.threshold,
                )
            except (BackendError, InputError) as exc:  # verifier down, or more markers than citations.MAX_MARKERS
                p.skipped.append(SkippedCheck(check="citations", reason=f"citation support check failed: {exc}"))
            p.latencies_ms["citations"] = _ms(t0)
        p.skipped.extend(_unevaluated_checks(verdicts, p.skipped))
        # Unevaluatable verdicts carry no score; they surface through report.complete / skipped.
        score = max((v.hallucination_score for v in verdicts if v.label is not Label.unevaluatable), default=0.0)
        flagged = any(v.label in HALLUCINATED_LABELS and v.hallucination_score >= self.threshold for v in verdicts)
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
