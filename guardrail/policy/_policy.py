"""The policy model: every knob of the decision engine, as one strict pydantic model.

The model is the single source of truth: ``policies/policy.schema.json``, the commented
``policies/default.yaml`` and the reference in ``docs/policies.md`` are generated from it
(``python -m guardrail.policy.reference --write``), so a field cannot be documented in one
place and behave differently in another. Every sub-model forbids unknown keys because a
misspelt threshold that is silently ignored is the worst kind of policy bug: it looks
enforced and is not.
"""

from __future__ import annotations

import hashlib
import json
import re
from enum import Enum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from ..errors import ConfigError
from ..types import ErrorType
from ..verifiers import check_spec
from ._text import safe_format

__all__ = [
    "Action",
    "ReasonCode",
    "FailMode",
    "CaveatStyle",
    "Policy",
    "ClaimsPolicy",
    "RulesPolicy",
    "FlaggedRule",
    "ContradictionRule",
    "UnsupportedRule",
    "AggregateRule",
    "NoEvidenceRule",
    "ConfidenceRule",
    "ErrorTypeRule",
    "ConflictRule",
    "UncheckedTextRule",
    "CitationPolicy",
    "SchemaPolicy",
    "FailurePolicy",
    "EscalationPolicy",
    "CaveatPolicy",
    "RegeneratePolicy",
    "AbstainPolicy",
    "VerificationPolicy",
    "DoubleCheckPolicy",
    "LLMEndpointPolicy",
    "SEVERITY",
]


class Action(str, Enum):
    """What happens to the answer. Listed from least to most severe."""

    respond = "respond"
    caveat = "caveat"
    regenerate = "regenerate"
    abstain = "abstain"
    escalate = "escalate"


#: Severity order used when several rules fire: the most severe action wins.
SEVERITY: dict[Action, int] = {a: i for i, a in enumerate(Action)}


class ReasonCode(str, Enum):
    """Stable machine-readable codes for why a decision was taken (audited, filterable)."""

    supported = "supported"
    no_claims = "no_claims"
    flagged_claim = "flagged_claim"
    contradiction = "contradiction"
    unsupported = "unsupported"
    aggregate_score = "aggregate_score"
    error_type = "error_type"
    no_relevant_evidence = "no_relevant_evidence"
    low_confidence = "low_confidence"
    citation_missing = "citation_missing"
    citation_invalid = "citation_invalid"
    schema_invalid = "schema_invalid"
    check_failed = "check_failed"
    check_skipped = "check_skipped"
    high_risk = "high_risk"
    regenerated = "regenerated"
    regeneration_failed = "regeneration_failed"
    regeneration_unavailable = "regeneration_unavailable"
    context_conflict = "context_conflict"
    unchecked_text = "unchecked_text"


class FailMode(str, Enum):
    """What to do with a check that could not run (model error, LLM timeout, context too long...)."""

    open = "open"
    caveat = "caveat"
    closed = "closed"


class CaveatStyle(str, Enum):
    inline = "inline"
    footnotes = "footnotes"
    list = "list"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", use_enum_values=False, validate_default=True)


def _check_template(template: str, fields: set[str], must_have: frozenset[str] | set[str] = frozenset()) -> str:
    """Reject templates with unknown placeholders at load time, not at the first caveat."""
    try:
        safe_format(template, {f: "" for f in fields})  # plain names only: no {text.__class__}, no {n[0]}
    except (KeyError, IndexError, ValueError) as exc:
        raise ValueError(f"bad template {template!r}: unknown or malformed placeholder {exc}; allowed: {sorted(fields)}") from None
    missing = [f for f in must_have if "{" + f + "}" not in template]
    if missing:
        raise ValueError(f"template {template!r} must contain {', '.join('{' + m + '}' for m in missing)}")
    return template


# --------------------------------------------------------------------------- claims


class ClaimsPolicy(_Strict):
    """Which claim verdicts count as flagged."""

    score_threshold: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description=(
            "A contradicted or unsupported verdict counts as flagged when its hallucination score is at or "
            "above this value. null uses the threshold the report was checked with (CheckReport.threshold)."
        ),
    )
    partial_counts_as_unsupported: bool = Field(
        default=False,
        description=(
            "Treat partially_supported verdicts (at or above the score threshold) as unsupported. Strict "
            "tenants turn this on because half a supported sentence can still carry the wrong dose."
        ),
    )
    on_no_claims: Action = Field(
        default=Action.respond,
        description=(
            "Action when the answer holds no checkable claim (for example 'I don't know.'). The reason "
            "no_claims is recorded either way. An answer whose only text is factual but unchecked is not 'no "
            "claims': rules.unchecked_text decides it."
        ),
    )


# --------------------------------------------------------------------------- rules


class FlaggedRule(_Strict):
    """The floor for any flagged claim, before the count and ratio rules below."""

    action: Action = Field(
        default=Action.caveat,
        description="Action when at least one claim is flagged (contradicted or unsupported). respond lets it through, recorded.",
    )


class ContradictionRule(_Strict):
    max_count: int = Field(
        default=0,
        ge=0,
        description="Number of contradicted claims tolerated. The rule fires when the count exceeds it (0: any contradiction fires).",
    )
    action: Action = Field(default=Action.regenerate, description="Action when the rule fires.")


class UnsupportedRule(_Strict):
    max_ratio: float = Field(
        default=0.25,
        ge=0.0,
        le=1.0,
        description=(
            "Share of evaluated claims that may be flagged unsupported. The rule fires when the share "
            "exceeds it (0.25: fires at 2 of 5, not at 1 of 4)."
        ),
    )
    action: Action = Field(default=Action.regenerate, description="Action when the rule fires.")


class AggregateRule(_Strict):
    max_score: float = Field(
        default=1.0,
        ge=0.0,
        le=1.0,
        description=(
            "Highest tolerated aggregate hallucination score of the report (the highest claim score). "
            "The rule fires when the score exceeds it; 1.0 never fires."
        ),
    )
    action: Action = Field(default=Action.regenerate, description="Action when the rule fires.")


class NoEvidenceRule(_Strict):
    action: Action = Field(
        default=Action.abstain,
        description=(
            "Action when the evidence cannot answer at all: no evidence was given, or every evaluated "
            "claim is unsupported and none is supported or contradicted. Reason code no_relevant_evidence."
        ),
    )


class ConfidenceRule(_Strict):
    min_confidence: float = Field(
        default=0.0,
        ge=0.0,
        le=1.0,
        description=(
            "Lowest tolerated verifier confidence over the evaluated claims. The rule fires when the "
            "lowest confidence is below it (0: never fires)."
        ),
    )
    action: Action = Field(default=Action.caveat, description="Action when the rule fires. Reason code low_confidence.")


class ErrorTypeRule(_Strict):
    actions: dict[ErrorType, Action] = Field(
        default_factory=dict,
        description=(
            "Severity by error type: the action taken when a flagged claim makes this kind of mistake "
            "(entity, number, temporal, negation, overgeneralization, fabrication, other). Types not "
            "listed add nothing beyond the other rules."
        ),
    )


class ConflictRule(_Strict):
    action: Action = Field(
        default=Action.caveat,
        description=(
            "Action when two passages of the context disagree on a value a claim states (a context-conflict "
            "finding of the fact checks, naming both passages): the answer picked one side of a disagreement "
            "the reader should know about."
        ),
    )


class UncheckedTextRule(_Strict):
    """Factual text no claim covers (CheckReport.unchecked with factual true) is never a silent pass."""

    action: Action = Field(
        default=Action.caveat,
        description=(
            "Action when part of the answer looks like it states a fact but was not checked (a question that "
            "presupposes a figure, text an LLM extractor left out). caveat marks the unchecked spans; reason code "
            "unchecked_text. Also what an answer made only of such spans gets, instead of claims.on_no_claims."
        ),
    )
    fail_open: bool = Field(
        default=False,
        description="true lets such answers through (respond) whatever action says; the reason unchecked_text is still recorded.",
    )


class RulesPolicy(_Strict):
    """Thresholds over the verdicts. Every rule that fires adds a reason; the most severe action wins."""

    flagged: FlaggedRule = Field(default_factory=FlaggedRule, description="Any flagged claim.")
    contradiction: ContradictionRule = Field(default_factory=ContradictionRule, description="Contradicted claims.")
    unsupported: UnsupportedRule = Field(default_factory=UnsupportedRule, description="Share of unsupported claims.")
    aggregate: AggregateRule = Field(default_factory=AggregateRule, description="Aggregate hallucination score.")
    no_evidence: NoEvidenceRule = Field(default_factory=NoEvidenceRule, description="Evidence that does not address the answer.")
    confidence: ConfidenceRule = Field(default_factory=ConfidenceRule, description="Verifier confidence.")
    error_types: ErrorTypeRule = Field(default_factory=ErrorTypeRule, description="Severity of the kind of mistake.")
    context_conflict: ConflictRule = Field(default_factory=ConflictRule, description="Passages that disagree.")
    unchecked_text: UncheckedTextRule = Field(default_factory=UncheckedTextRule, description="Factual text that was not checked.")


# --------------------------------------------------------------------------- citations / schema


class CitationPolicy(_Strict):
    required: bool = Field(
        default=False,
        description=(
            "Every claim must carry a citation marker. Uncited claims fire missing_action (reason citation_missing). "
            "When the answer cites sources but the citation check did not run, the failure mode of the "
            "'citations' check applies."
        ),
    )
    missing_action: Action = Field(default=Action.caveat, description="Action when required is true and a claim has no citation.")
    invalid_action: Action = Field(
        default=Action.caveat,
        description=(
            "Action when a citation points to a source that is not in the evidence, misquotes it, or "
            "does not support its claim (reason citation_invalid)."
        ),
    )
    min_attribution_precision: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description=(
            "Lowest tolerated share of citations that exist and support their claim; fires invalid_action "
            "when the precision is below it. null disables the check."
        ),
    )


class SchemaPolicy(_Strict):
    required: bool = Field(
        default=False,
        description=(
            "The answer must have been validated against a JSON schema. When true and no schema result is "
            "in the report, the failure mode of the 'schema' check applies."
        ),
    )
    invalid_action: Action = Field(default=Action.regenerate, description="Action when the structured answer fails its schema (reason schema_invalid).")


# --------------------------------------------------------------------------- failures / escalation


class FailurePolicy(_Strict):
    """Checks that could not run are never a silent pass: each one is recorded and handled here."""

    default: FailMode = Field(
        default=FailMode.closed,
        description=(
            "Failure mode for a check not listed in checks. open: let the answer through and record "
            "check_skipped; caveat: let it through with the unchecked claims marked; closed: take "
            "closed_action (reason check_failed)."
        ),
    )
    checks: dict[str, FailMode] = Field(
        default_factory=dict,
        description=(
            "Failure mode per check name as reported in CheckReport.skipped (claims, evidence, verify, "
            "citations, schema, or a verifier's name). Unevaluatable claim verdicts and claims without a "
            "verdict count as the 'verify' check."
        ),
    )
    closed_action: Literal["abstain", "escalate"] = Field(
        default="abstain", description="Action of a fail-closed check: abstain or escalate."
    )

    def mode_for(self, check: str) -> FailMode:
        return self.checks.get(check, self.default)


class EscalationPolicy(_Strict):
    stakes: float = Field(
        default=0.0,
        ge=0.0,
        description=(
            "How costly a wrong answer is for this tenant (0 disables escalation). Risk = stakes x "
            "(1 - confidence), where confidence is the lowest verifier confidence over the evaluated claims. "
            "When no claim could be evaluated the failure mode decides (failure.closed_action may be escalate)."
        ),
    )
    max_risk: float = Field(
        default=0.5,
        ge=0.0,
        description="Escalate to human review when the risk exceeds this bound. Escalation overrides every other action.",
    )
    message: str = Field(
        default="This answer is being reviewed by a person before it is shown.",
        description="Text shown in place of the answer while it waits for review.",
    )

    @model_validator(mode="after")
    def _reachable(self) -> "EscalationPolicy":
        if self.stakes > 0 and self.max_risk >= self.stakes:
            # risk = stakes x (1 - confidence) <= stakes, so such a bound could never be exceeded.
            raise ValueError(
                f"max_risk ({self.max_risk}) must be below stakes ({self.stakes}), otherwise escalation can never fire"
            )
        return self


# --------------------------------------------------------------------------- actions


CAVEAT_FIELDS = {"text", "note", "n", "label", "claim_id"}


#: The note a caveat carries for each label, unless a policy's ``caveat.notes`` says otherwise.
DEFAULT_NOTES = {
    "contradicted": "contradicted by the sources",
    "unsupported": "not found in the sources",
    "partially_supported": "only partly supported by the sources",
    "unevaluatable": "could not be checked",
    "citation": "its citation does not check out",
    "low_confidence": "not verified with confidence",
    "unchecked": "not checked against the sources",
    "conflict": "the sources disagree on this",
}


class CaveatPolicy(_Strict):
    """How flagged claims are marked. Text outside the flagged claims is never altered."""

    style: CaveatStyle = Field(
        default=CaveatStyle.inline,
        description=(
            "inline: a marker after each flagged claim; footnotes: a numbered marker and a footnote block "
            "at the end; list: the answer untouched, followed by a list of the flagged statements."
        ),
    )
    inline_template: str = Field(
        default="{text} [unverified: {note}]",
        description="inline style: replaces each flagged claim. Placeholders {text} (required), {note}, {n}, {label}, {claim_id}.",
    )
    footnote_marker: str = Field(
        default="{text}[^{n}]",
        description="footnotes style: replaces each flagged claim. Placeholders as inline_template; {text} required.",
    )
    footnote_template: str = Field(
        default="[^{n}]: {note}",
        description="footnotes style: one line per flagged claim, appended after a blank line.",
    )
    list_header: str = Field(
        default="Some statements above could not be verified against the sources:",
        description="list style: line appended after a blank line, before the list.",
    )
    list_item_template: str = Field(
        default="- \u201c{text}\u201d: {note}",
        description="list style: one line per flagged claim.",
    )
    general_note: str = Field(
        default="Parts of this answer could not be checked against the sources.",
        description="Appended after a blank line when the decision is caveat but no single claim can be marked (a failed check, an invalid schema).",
    )
    notes: dict[str, str] = Field(
        default_factory=lambda: dict(DEFAULT_NOTES),
        description=(
            "The {note} text per verdict label (contradicted, unsupported, partially_supported, unevaluatable), "
            "'citation' for a claim marked because of its citation, 'low_confidence' for one marked because the verifier was unsure "
            "and 'unchecked' for factual text that no claim covered."
        ),
    )

    @field_validator("inline_template", "footnote_marker")
    @classmethod
    def _marker_keeps_text(cls, v: str) -> str:
        return _check_template(v, CAVEAT_FIELDS, {"text"})

    @field_validator("footnote_template", "list_item_template")
    @classmethod
    def _line_template(cls, v: str) -> str:
        return _check_template(v, CAVEAT_FIELDS)

    @field_validator("notes")
    @classmethod
    def _known_labels(cls, v: dict[str, str]) -> dict[str, str]:
        allowed = set(DEFAULT_NOTES)
        unknown = sorted(set(v) - allowed)
        if unknown:
            raise ValueError(f"unknown verdict label(s) {unknown}; allowed: {sorted(allowed)}")
        return v


class RegeneratePolicy(_Strict):
    max_attempts: int = Field(
        default=2,
        ge=1,
        le=10,
        description="Rewrite rounds at most. Regeneration also stops as soon as the number of flagged claims stops falling.",
    )
    fallback: Literal["caveat", "abstain", "escalate"] = Field(
        default="caveat",
        description=(
            "What to show when regeneration does not converge, runs out of time, or no LLM is available: "
            "caveat (mark the remaining flagged claims of the best attempt), abstain or escalate."
        ),
    )
    deadline_s: float = Field(default=30.0, gt=0.0, description="Wall-clock budget for the whole regeneration loop, LLM calls and re-checks included.")
    llm_retries: int = Field(
        default=2, ge=0, le=10,
        description=(
            "Extra attempts the LLM client makes per rewrite request after a transient failure (timeout, connection "
            "error, 429, 5xx), within the deadline. A reply that is not the JSON asked for gets one repair turn."
        ),
    )
    retry_wait_s: float = Field(default=0.5, ge=0.0, description="First back-off between those attempts; it doubles per attempt, within the deadline.")
    max_evidence_chars: int = Field(
        default=1500, ge=100, description="Evidence text sent per flagged claim in the corrective prompt, at most."
    )
    instructions: str = Field(
        default="",
        description="Extra tenant-specific instructions appended to the corrective system prompt (tone, terminology).",
    )


class AbstainPolicy(_Strict):
    message: str = Field(
        default="I can't give a reliable answer to this from the available sources.",
        description="Text shown instead of the answer when the decision is abstain.",
    )
    messages: dict[ReasonCode, str] = Field(
        default_factory=dict,
        description="Per reason code overrides of message (no_relevant_evidence, contradiction, low_confidence, check_failed, ...).",
    )

    def message_for(self, code: ReasonCode | None) -> str:
        return self.messages.get(code, self.message) if code is not None else self.message


# --------------------------------------------------------------------------- verification


_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class LLMEndpointPolicy(_Strict):
    """The OpenAI-compatible endpoint of the double check. The key is never in the file, only its variable's name."""

    base_url: str | None = Field(
        default=None,
        description="API root including /v1, e.g. http://127.0.0.1:8080/v1. Required when double_check.method is not none.",
    )
    model: str | None = Field(default=None, description="Model name sent with each request. Required when double_check.method is not none.")
    api_key_env: str | None = Field(
        default=None,
        description=(
            "Name of the environment variable holding the API key (e.g. CLINICAL_LLM_KEY), never the key itself. "
            "null: no key (a local server). A variable that is not set when the check runs makes the double check "
            "fail, and the failure mode decides."
        ),
    )
    timeout_s: float = Field(default=30.0, gt=0.0, le=600.0, description="Hard deadline of one request (one attempt).")
    max_retries: int = Field(default=1, ge=0, le=5, description="Extra attempts after a transient failure (timeout, connection, 429, 5xx).")
    response_format: Literal["none", "json_object", "json_schema", "llamacpp_schema"] = Field(
        default="none",
        description="How JSON is asked for: none (prompt only), json_object, json_schema, llamacpp_schema (llama-cpp-python grammar).",
    )

    @model_validator(mode="before")
    @classmethod
    def _no_key_in_file(cls, data: object) -> object:
        # Checked on the mapping, not per field, so that the error never echoes the value: a key pasted
        # where its variable's name belongs must not end up in a log line.
        if not isinstance(data, dict):
            return data
        if any(k in data for k in ("api_key", "key", "token")):
            raise ValueError("an API key must not be written in a policy file: put it in an environment variable and "
                             "name that variable in api_key_env")
        env = data.get("api_key_env")
        if env is not None and not (isinstance(env, str) and _ENV_NAME.match(env)):
            raise ValueError("api_key_env must be the NAME of an environment variable (letters, digits, '_'), not a key")
        return data

    @field_validator("base_url")
    @classmethod
    def _url(cls, v: str | None) -> str | None:
        if v is not None and not v.startswith(("http://", "https://")):
            raise ValueError(f"base_url must start with http:// or https://, got {v!r}")
        return v


class DoubleCheckPolicy(_Strict):
    """An LLM second look at the claims the fast verifier routes to it, within a call budget per answer."""

    method: Literal["none", "cove", "judge"] = Field(
        default="none",
        description=(
            "none: the fast verifier decides every claim (no LLM call). cove: chain-of-verification (a question per "
            "claim, answered from the evidence alone, compared by the fact checks). judge: the LLM judge. A routed "
            "claim the double check could not decide keeps its fast verdict and is listed in skipped under the "
            "check named like the method (cove or judge): failure.checks.cove (or .judge) decides what happens."
        ),
    )
    band: tuple[float, float] = Field(
        default=(0.3, 0.7),
        description=(
            "[low, high]: claims whose fast hallucination score lies in this range (inclusive) are double-checked, "
            "as are claims the fast verifier could not evaluate. [1, 1] routes nothing by score."
        ),
    )
    error_types: list[ErrorType] = Field(
        default_factory=list,
        description=(
            "Claims of these kinds are double-checked whatever their fast score: number (any figure or dose), unit, "
            "temporal (dates, times), entity (names) are read off the claim's text; other kinds are routed when the "
            "fast verdict names them."
        ),
    )
    max_calls_per_answer: int | None = Field(
        default=None,
        ge=2,
        le=64,
        description=(
            "cove only: LLM requests per answer at most, repairs included (null: 8). Claims past the budget keep their "
            "fast verdict and are listed in skipped. The judge makes one request per routed claim: narrow the routing."
        ),
    )
    per: Literal["answer", "question"] = Field(
        default="answer",
        description="cove only: one answer call for all questions of an answer (2 calls), or one isolated call per question (1 + k).",
    )
    timeout_s: float | None = Field(
        default=None,
        gt=0.0,
        description="Deadline of the whole double check of one batch; past it every routed claim is skipped. null: none beyond llm.timeout_s per request.",
    )
    llm: LLMEndpointPolicy = Field(default_factory=LLMEndpointPolicy, description="The endpoint the double check calls.")

    @field_validator("band")
    @classmethod
    def _band(cls, v: tuple[float, float]) -> tuple[float, float]:
        lo, hi = v
        if not 0.0 <= lo <= hi <= 1.0:
            raise ValueError(f"band must be [low, high] with 0 <= low <= high <= 1, got [{lo}, {hi}]")
        return v

    @model_validator(mode="after")
    def _runnable(self) -> "DoubleCheckPolicy":
        if self.method == "none":
            return self
        missing = [f"llm.{f}" for f in ("base_url", "model") if getattr(self.llm, f) is None]
        if missing:
            raise ValueError(f"method {self.method} needs an LLM endpoint: set {' and '.join(missing)}")
        if self.method == "judge" and {"max_calls_per_answer", "per"} & self.model_fields_set:
            raise ValueError("max_calls_per_answer and per are cove options; the judge makes one request per routed "
                             "claim (narrow band or error_types instead)")
        return self


class VerificationPolicy(_Strict):
    """Which verifier checks this tenant's claims, and which claims an LLM double-checks."""

    verifier: str | None = Field(
        default=None,
        description=(
            "The fast verifier, a spec without an LLM: default, grounding, heuristic, overlap, embedding (options as "
            "NAME:key=value). null: the one the caller runs (guardrail guard --verifier, the service's --verifier)."
        ),
    )
    double_check: DoubleCheckPolicy = Field(default_factory=DoubleCheckPolicy, description="LLM second look at routed claims.")

    @field_validator("verifier")
    @classmethod
    def _fast_spec(cls, v: str | None) -> str | None:
        if v is None:
            return v
        try:
            entry = check_spec(v)
        except ConfigError as exc:
            raise ValueError(str(exc).removeprefix(f"field '{exc.field}': ")) from None
        if entry.needs_llm:
            raise ValueError(f"verifier {v!r} needs an LLM; the fast verifier runs without one (put LLM checks "
                             "under double_check)")
        if ":" in v and entry.argument in ("path", "required"):
            raise ValueError(f"verifier {v!r}: a model path is not allowed in a policy; name a shipped verifier")
        return v

    @property
    def is_default(self) -> bool:
        """True when the section changes nothing: the caller's verifier, no double check."""
        return self.verifier is None and self.double_check.method == "none"


# --------------------------------------------------------------------------- root


class Policy(_Strict):
    """A tenant's policy: how a CheckReport becomes respond, caveat, regenerate, abstain or escalate."""

    name: str = Field(
        default="default",
        min_length=1,
        description="Policy name recorded in every decision and audit row. Defaults to the file name without .yaml.",
    )
    description: str = Field(default="", description="Free text for people reading the policy.")
    extends: str | None = Field(
        default=None,
        description=(
            "Parent policy this one overrides: a path relative to this file, or a policy name looked up as "
            "<name>.yaml in this file's directory and then in the policy directories. Mappings merge key by "
            "key, other values replace. Circular extends is an error."
        ),
    )
    claims: ClaimsPolicy = Field(default_factory=ClaimsPolicy, description="Which verdicts count as flagged.")
    rules: RulesPolicy = Field(default_factory=RulesPolicy, description="Thresholds over the verdicts.")
    citations: CitationPolicy = Field(default_factory=CitationPolicy, description="Citation requirements.")
    schema_: SchemaPolicy = Field(default_factory=SchemaPolicy, alias="schema", description="Structured answer validity.")
    failure: FailurePolicy = Field(default_factory=FailurePolicy, description="Fail-open or fail-closed per check that could not run.")
    escalation: EscalationPolicy = Field(default_factory=EscalationPolicy, description="Human review for high-stakes, low-confidence answers.")
    caveat: CaveatPolicy = Field(default_factory=CaveatPolicy, description="How flagged claims are marked.")
    regenerate: RegeneratePolicy = Field(default_factory=RegeneratePolicy, description="Targeted regeneration of flagged claims.")
    abstain: AbstainPolicy = Field(default_factory=AbstainPolicy, description="What is said instead of the answer.")
    verification: VerificationPolicy = Field(
        default_factory=VerificationPolicy, description="Which verifier checks the claims, and which claims an LLM double-checks."
    )

    model_config = ConfigDict(extra="forbid", validate_default=True, populate_by_name=True)

    _sources: tuple[str, ...] = PrivateAttr(default=())

    @property
    def sources(self) -> tuple[str, ...]:
        """Files this policy was built from, child first (empty for a policy built in code)."""
        return self._sources

    @property
    def content_hash(self) -> str:
        """SHA-256 of the effective settings, so audits can prove which rules judged an answer.

        Computed over the resolved model (not the file bytes), so comments, formatting and the
        ``extends`` chain do not change it, while any effective change does.
        """
        data = self.model_dump(mode="json", by_alias=True, exclude={"extends"})
        blob = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()
