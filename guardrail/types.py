"""The public contract: every object that crosses a boundary of the guardrail.

All models are pydantic v2, JSON-serialisable (``model_dump_json``) and strict about
unknown fields, so a report written by one version can be read back and audited by
another without silent loss.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "Label",
    "is_flagged",
    "ErrorType",
    "Evidence",
    "Window",
    "Claim",
    "EvidenceSpan",
    "VerificationItem",
    "ClaimVerdict",
    "Difference",
    "CitationResult",
    "CitationReport",
    "SchemaIssue",
    "SchemaResult",
    "SkippedCheck",
    "UncheckedSpan",
    "CheckReport",
    "HALLUCINATED_LABELS",
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


class Label(str, Enum):
    """Verdict of one claim against the evidence."""

    supported = "supported"
    contradicted = "contradicted"
    unsupported = "unsupported"
    partially_supported = "partially_supported"
    unevaluatable = "unevaluatable"


#: Labels that count as a hallucination when their confidence clears the threshold.
HALLUCINATED_LABELS = frozenset({Label.contradicted, Label.unsupported})


def is_flagged(label: Label, hallucination_score: float, threshold: float) -> bool:
    """The one definition of a flagged claim: a hallucination label at or above the threshold. The engine's
    report, the CLI's table and the policy's analysis (with its own threshold and its relabelling of
    partial support) all ask this, so "is this claim flagged?" is answered in one place."""
    return label in HALLUCINATED_LABELS and hallucination_score >= threshold


class ErrorType(str, Enum):
    """What kind of mistake a flagged claim makes, when a verifier can tell."""

    entity = "entity"
    number = "number"
    temporal = "temporal"
    negation = "negation"
    overgeneralization = "overgeneralization"
    fabrication = "fabrication"
    unit = "unit"
    modality = "modality"
    condition = "condition"
    direction = "direction"
    comparison = "comparison"
    role = "role"
    superseded = "superseded"
    incomplete = "incomplete"
    false_abstention = "false_abstention"
    injection = "injection"
    other = "other"


class Evidence(_Model):
    """One retrieved document or passage, as the caller handed it in."""

    id: str = Field(description="Stable id; citations such as [1] or [doc2] resolve to it.")
    text: str
    source: str | None = Field(default=None, description="Where it came from (URL, file, title).")
    metadata: dict[str, Any] = Field(default_factory=dict)


class Window(_Model):
    """A slice of one evidence document sized to fit the verifier."""

    evidence_id: str
    start: int = Field(ge=0, description="Offset into the evidence text.")
    end: int = Field(ge=0)
    text: str
    score: float | None = Field(default=None, description="Retrieval score for the claim it was picked for.")


class Claim(_Model):
    """An atomic statement of the answer, located by character offsets."""

    id: str
    text: str
    start: int = Field(ge=0, description="answer[start:end] == text")
    end: int = Field(ge=0)
    kind: str = Field(default="sentence", description="sentence | clause | list_item | field | llm")
    statement: str | None = Field(
        default=None,
        description="Decontextualised restatement (e.g. from an LLM extractor); verifiers check it instead of text when set.",
    )
    citations: list[str] = Field(default_factory=list, description="Citation markers attached to the claim, raw.")
    field_path: str | None = Field(default=None, description="JSON path when the claim is a string field of a structured answer.")
    subject: str | None = Field(
        default=None,
        description="The name a leading pronoun refers to ('It was designed by ...' after 'The Eiffel Tower was "
        "completed ...'), from the answer's preceding sentence; the fact checks compare it with the evidence's.",
    )
    after: str | None = Field(
        default=None,
        description="The answer's claim before this one, when this one says it comes after it ('After that, disconnect "
        "the router', 'Moctezuma died shortly afterwards'): the fact checks compare that order with the context's.",
    )
    record: str | None = Field(
        default=None,
        description="For a field of a structured answer: the other fields of the same record ('seat: 14C; departure: "
        "08:15'), which tell the fact checks which evidence sentence states the record.",
    )

    @model_validator(mode="after")
    def _ordered(self) -> "Claim":
        if self.end < self.start:
            raise ValueError(f"claim {self.id}: end {self.end} < start {self.start}")
        return self


    @property
    def check_text(self) -> str:
        """What a verifier should judge: the restatement if any, else the answer text."""
        return self.statement or self.text


class EvidenceSpan(_Model):
    """The exact evidence text a verdict rests on."""

    evidence_id: str
    start: int
    end: int
    text: str


class VerificationItem(_Model):
    """What a verifier sees for one claim: the claim, the windows picked for it, the question."""

    claim: Claim
    windows: list[Window]
    question: str | None = None


class Difference(_Model):
    """One typed slot where the claim and its aligned evidence differ, both values side by side.

    ``kind``: ``mismatch`` (the evidence states another value in the same slot: the claim is
    contradicted), ``not_stated`` (the context never states the claim's value: unsupported),
    ``conflict`` (two passages of the context disagree on the slot).
    """

    slot: str = Field(description="number | scale | bound | unit | currency | percent_points | date | time | entity | "
                                  "attribution | role | negation | modality | condition | direction | comparison | "
                                  "quantifier | superseded | list_item | addition | false_abstention | injection")
    kind: Literal["mismatch", "not_stated", "conflict"] = "mismatch"
    claim_value: str
    evidence_value: str | None = None
    evidence_span: EvidenceSpan | None = None
    confidence: float = Field(ge=0.0, le=1.0, description="Precision of this kind of finding on the RAGTruth dev split.")
    alignment: float | None = Field(
        default=None, ge=0.0, le=1.0,
        description="How closely the claim and the evidence sentence say the same thing apart from the differing slot "
        "(the smaller share of each side's words found in the other): a mismatch in a near-copy is a blatant one.",
    )
    grade: Literal["near_copy", "same_words", "loose"] | None = Field(
        default=None,
        description="How the mismatch's confidence was graded: in a near-copy of the evidence sentence, on the very "
        "words the evidence states the other way ('is not suitable for diving' / 'is suitable for diving') in a "
        "looser paraphrase, or in a loose paraphrase (the kind's measured precision alone).",
    )


class ClaimVerdict(_Model):
    claim_id: str
    label: Label
    confidence: float = Field(ge=0.0, le=1.0, description="Probability that the label is right.")
    hallucination_score: float = Field(
        ge=0.0, le=1.0, description="Probability that the claim is not supported by the evidence."
    )
    evidence_ids: list[str] = Field(default_factory=list)
    evidence_span: EvidenceSpan | None = None
    error_type: ErrorType | None = None
    reason: str | None = Field(default=None, description="Why this label; for unevaluatable, why it could not be checked.")
    verifier: str = ""
    differences: list[Difference] = Field(
        default_factory=list, description="Fact-level differences between the claim and its evidence (guardrail.facts)."
    )
    non_factual: bool = Field(
        default=False,
        description="The sentence states no fact about the world (an abstention such as 'the documents do not say'); "
        "unevaluatable, excluded from the score, and not counted as an unchecked claim.",
    )


class CitationResult(_Model):
    marker: str = Field(description="The marker as written, e.g. '[2]' or '[doc-a]'.")
    claim_id: str | None
    target_ids: list[str]
    exists: bool = Field(description="Every cited source is among the evidence.")
    quote_ok: bool | None = Field(default=None, description="Quoted text matches the source; None when nothing is quoted.")
    supports: bool | None = Field(default=None, description="The cited passage supports the claim; None when not checked.")
    support_score: float | None = None
    reason: str | None = None


class CitationReport(_Model):
    results: list[CitationResult] = Field(default_factory=list)
    attribution_precision: float | None = Field(
        default=None, description="Share of citations whose target exists and supports its claim."
    )
    uncited_claim_ids: list[str] = Field(default_factory=list)


class SchemaIssue(_Model):
    path: str = Field(description="JSON path of the offending value, '$' for the root.")
    message: str


class SchemaResult(_Model):
    valid: bool
    issues: list[SchemaIssue] = Field(default_factory=list)
    parsed: Any = None


class SkippedCheck(_Model):
    """A check that could not run. It is never counted as passed; the policy decides."""

    check: str = Field(description="claims | evidence | verify | citations | schema | <verifier name>")
    reason: str
    claim_ids: list[str] = Field(default_factory=list)


class UncheckedSpan(_Model):
    """Text of the answer that no claim covers, with why it was left out.

    The claims and these spans together cover every non-whitespace character of the answer, so
    a reader (or the policy) can see exactly what was not checked. ``factual`` says whether the
    span looks like it states something a source could back or refute (a presupposing question,
    text an LLM extractor left out): such a span is an unchecked fact, and the policy decides
    what it means (``rules.unchecked_text``). Markup, citation markers, pleasantries, pure
    questions, code and bibliography entries are recorded with ``factual`` false.
    """

    start: int = Field(ge=0, description="answer[start:end] == text")
    end: int = Field(ge=0)
    text: str
    reason: Literal[
        "markup", "connective", "pleasantry", "question", "lead_in", "heading", "table_header", "bibliography",
        "code", "not_extracted",
    ] = Field(description="markup: markdown syntax, citation markers, punctuation; connective: a conjunction "
                          "between split clauses; pleasantry: 'Hope this helps!'; question: a question that asserts "
                          "nothing (factual when it presupposes a figure or a name: 'Why is it 530 metres tall?'); "
                          "lead_in: 'Here is how:'; heading / table_header: a label that states nothing; "
                          "bibliography: an entry after 'Sources:'; code: code in a code block; not_extracted: text "
                          "the claim extractor did not turn into a claim.")
    factual: bool = Field(default=False, description="The span looks like it states a checkable fact.")

    @model_validator(mode="after")
    def _ordered(self) -> "UncheckedSpan":
        if self.end <= self.start:
            raise ValueError(f"unchecked span: end {self.end} <= start {self.start}")
        return self


class CheckReport(_Model):
    answer: str
    question: str | None = None
    claims: list[Claim] = Field(default_factory=list)
    verdicts: list[ClaimVerdict] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list, description="The evidence the answer was checked against.")
    citations: CitationReport | None = None
    schema_result: SchemaResult | None = None
    hallucination_score: float = Field(ge=0.0, le=1.0, description="Aggregate: highest claim hallucination score.")
    hallucinated: bool
    threshold: float = Field(ge=0.0, le=1.0)
    latencies_ms: dict[str, float] = Field(default_factory=dict)
    skipped: list[SkippedCheck] = Field(default_factory=list)
    unchecked: list[UncheckedSpan] = Field(
        default_factory=list,
        description="Text no claim covers, with why; claims and these spans cover every non-whitespace character.",
    )
    verifier: str = ""

    def verdict_for(self, claim_id: str) -> ClaimVerdict | None:
        return next((v for v in self.verdicts if v.claim_id == claim_id), None)

    @property
    def flagged(self) -> list[tuple[Claim, ClaimVerdict]]:
        """Claims whose verdict is a hallucination above threshold, in answer order."""
        out = []
        for claim in self.claims:
            v = self.verdict_for(claim.id)
            if v and is_flagged(v.label, v.hallucination_score, self.threshold):
                out.append((claim, v))
        return out

    @property
    def unchecked_factual(self) -> list[UncheckedSpan]:
        """Spans that look like they state a fact but were not checked."""
        return [u for u in self.unchecked if u.factual]

    @property
    def unevaluated_claim_ids(self) -> list[str]:
        """Claims that carry a fact but got no real verdict (unevaluatable, or no verdict at all)."""
        out = []
        for claim in self.claims:
            v = self.verdict_for(claim.id)
            if v is None or (v.label is Label.unevaluatable and not v.non_factual):
                out.append(claim.id)
        return out

    @property
    def complete(self) -> bool:
        """True when every check that was asked for ran and no factual text went unchecked.

        A report that is not complete never reads as clean, even when ``hallucinated`` is False:
        nothing was flagged only because something was not checked.
        """
        return not self.skipped and not self.unevaluated_claim_ids and not self.unchecked_factual

    @property
    def verifier_failure(self) -> str | None:
        """Why the verifier could not run at all (a skipped "verify" check and no claim evaluated), else None.

        The pipeline turns a verifier's exception into that rather than raising, so the policy can apply
        its fail mode; an evaluation or red-team run counts such an answer as an error, not a result.
        """
        failed = [s.reason for s in self.skipped if s.check == "verify" and s.reason]
        if failed and self.verdicts and all(v.label is Label.unevaluatable for v in self.verdicts):
            return failed[0]
        return None

    def not_checked_summary(self) -> str | None:
        """One line saying what was not checked, or None when the report is complete."""
        parts = []
        n_uneval = len(self.unevaluated_claim_ids)
        if self.claims and n_uneval == len(self.claims):
            parts.append(f"none of the {n_uneval} claim(s) could be checked")
        elif n_uneval:
            parts.append(f"{n_uneval} of {len(self.claims)} claim(s) could not be checked")
        if self.unchecked_factual:
            parts.append(f"{len(self.unchecked_factual)} factual span(s) not checked")
        named = {s.check for s in self.skipped} - {"verify", "evidence"}
        if named:
            parts.append("skipped check(s): " + ", ".join(sorted(named)))
        if not parts and self.skipped:
            parts.append("skipped check(s): " + ", ".join(sorted({s.check for s in self.skipped})))
        return "; ".join(parts) if parts else None
