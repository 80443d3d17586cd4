"""``decide(report, policy) -> Decision``: the pure heart of the policy engine.

Every rule that fires adds a ``Reason`` carrying the action it asks for; the most severe
action wins (respond < caveat < regenerate < abstain < escalate), then escalation may
override it. Nothing here does I/O or reads a clock, so the same report and policy always
give the same decision, and every threshold can be tested at its edge.

Checks that could not run are never a silent pass: each ``SkippedCheck``, each unevaluatable
verdict and each claim without a verdict becomes a reason whose action comes from the
policy's failure mode for that check. Factual text no claim covers (``CheckReport.unchecked``)
is one too: ``rules.unchecked_text`` decides it, and it is never read as "no claims".
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ..types import CheckReport, Claim, ClaimVerdict, Label, SkippedCheck, is_flagged
from ._caveat import Caveat, note_for, render_caveat
from ._policy import SEVERITY, Action, FailMode, Policy, ReasonCode

__all__ = ["Reason", "Attempt", "Decision", "decide", "decide_failure", "Analysis", "analyse", "text_for", "flagged_claims"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


# ---------------------------------------------------------------------------- analysis


class Analysis(_Model):
    """The report seen through the policy's eyes: which claims count as what.

    Computed once per report, by ``decide``, and carried by the ``Decision``: regeneration picks its
    targets and counts flagged claims from it instead of analysing the same report again.
    """

    threshold: float = Field(description="The flagging threshold: the policy's score_threshold, else the report's.")
    flagged: list[str]
    contradicted: list[str]
    unsupported: list[str]
    supported: list[str]
    evaluated: list[str]
    unevaluated: list[str] = Field(description="Claims with an unevaluatable verdict or with no verdict at all.")
    confidence: float | None
    labels: dict[str, str]


class Reason(_Model):
    """One rule that fired (or one check that could not run), with the action it asks for."""

    code: ReasonCode
    message: str
    action: Action
    claim_ids: list[str] = Field(default_factory=list)
    check: str | None = Field(default=None, description="The check concerned, for check_failed / check_skipped.")


class Attempt(_Model):
    """One regeneration round."""

    n: int = Field(ge=1)
    rewrites: dict[str, str] = Field(default_factory=dict, description="claim id -> replacement ('' drops the claim).")
    ignored: list[str] = Field(default_factory=list, description="Ids the LLM returned that were not flagged claims.")
    answer: str | None = Field(default=None, description="The spliced answer; None when the round failed before splicing.")
    flagged_before: int
    flagged_after: int | None = None
    action: Action | None = Field(default=None, description="Decision on the re-checked answer.")
    report: CheckReport | None = None
    error: str | None = None
    latency_ms: float = 0.0


class Decision(_Model):
    """What to do with one answer, why, and the text to show."""

    action: Action
    code: ReasonCode = Field(description="Primary reason: the first reason asking for the final action.")
    reasons: list[Reason]
    claim_ids: list[str] = Field(default_factory=list, description="Claims that drove the action, in answer order.")
    final_text: str = Field(
        description=(
            "What to show. For action regenerate from decide() (not yet regenerated) it is the policy "
            "fallback, so a caller that ignores regeneration never shows the unflagged answer."
        )
    )
    answer: str = Field(description="The original answer.")
    caveats: list[Caveat] = Field(default_factory=list)
    policy_name: str
    policy_hash: str
    confidence: float | None = Field(default=None, description="Lowest verifier confidence over the evaluated claims.")
    risk: float | None = Field(default=None, description="stakes x (1 - confidence), when escalation is enabled.")
    report: CheckReport | None = Field(default=None, description="The report of the original answer; None when the check itself failed.")
    analysis: Analysis | None = Field(default=None, description="How the policy read the report (flagged claims, labels); None without a report.")
    attempts: list[Attempt] = Field(default_factory=list)
    latencies_ms: dict[str, float] = Field(default_factory=dict)
    error: str | None = Field(default=None, description="Why the check could not run, when it could not.")

    final_attempt: int | None = Field(
        default=None, description="Number of the regeneration attempt whose answer the final text is built on; None: the original."
    )

    @property
    def regenerated(self) -> bool:
        """The final text is built on a rewritten answer."""
        return self.final_attempt is not None

    @property
    def final_answer(self) -> str:
        """The answer the final text is built on (before caveat markers): a rewrite or the original."""
        if self.final_attempt is not None:
            return self.attempts[self.final_attempt - 1].answer or self.answer
        return self.answer

    @property
    def final_report(self) -> CheckReport | None:
        """The report of ``final_answer``."""
        if self.final_attempt is not None:
            return self.attempts[self.final_attempt - 1].report
        return self.report


def analyse(report: CheckReport, policy: Policy) -> Analysis:
    th = policy.claims.score_threshold if policy.claims.score_threshold is not None else report.threshold
    partial = policy.claims.partial_counts_as_unsupported
    flagged: list[str] = []
    contra: list[str] = []
    unsup: list[str] = []
    supp: list[str] = []
    evald: list[str] = []
    uneval: list[str] = []
    labels: dict[str, str] = {}
    confs: list[float] = []
    for claim in report.claims:
        v = report.verdict_for(claim.id)
        if v is not None and v.non_factual:
            labels[claim.id] = "non_factual"  # an abstention: nothing to check, nothing left unchecked
            continue
        if v is None or v.label is Label.unevaluatable:
            uneval.append(claim.id)
            labels[claim.id] = Label.unevaluatable.value
            continue
        evald.append(claim.id)
        confs.append(v.confidence)
        label = v.label
        if label is Label.partially_supported and partial and v.hallucination_score >= th:
            label = Label.unsupported
        if label in (Label.supported, Label.partially_supported) and th < report.threshold \
                and v.hallucination_score >= th:
            # A tenant threshold below the verifier's (fitted by `guardrail calibrate` for more recall):
            # the verifier called it supported only because its own bar was higher.
            label = Label.unsupported
        labels[claim.id] = label.value
        if is_flagged(label, v.hallucination_score, th):
            flagged.append(claim.id)
            (contra if label is Label.contradicted else unsup).append(claim.id)
        elif label in (Label.supported, Label.partially_supported):
            supp.append(claim.id)
    # No evaluated claim means no verifier confidence at all: the failure mode decides, not escalation.
    confidence = min(confs) if confs else None
    return Analysis(
        threshold=th, flagged=flagged, contradicted=contra, unsupported=unsup, supported=supp,
        evaluated=evald, unevaluated=uneval, confidence=confidence, labels=labels,
    )


_EPS = 1e-9


def _exceeds(value: float, bound: float) -> bool:
    """value > bound, robust to float noise (1 - 0.7 is 0.30000000000000004, which must not exceed 0.3)."""
    return value - bound > _EPS


def _below(value: float, bound: float) -> bool:
    return bound - value > _EPS


def _clip(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "\u2026"


def _ids(ids: list[str]) -> str:
    return ", ".join(ids[:8]) + (f" (+{len(ids) - 8})" if len(ids) > 8 else "")


def _failure(check: str, why: str, claim_ids: list[str], policy: Policy) -> Reason:
    mode = policy.failure.mode_for(check)
    if mode is FailMode.closed:
        return Reason(
            code=ReasonCode.check_failed, action=Action(policy.failure.closed_action), check=check, claim_ids=claim_ids,
            message=f"check '{check}' could not run ({why}); fail-closed",
        )
    return Reason(
        code=ReasonCode.check_skipped, action=Action.caveat if mode is FailMode.caveat else Action.respond,
        check=check, claim_ids=claim_ids, message=f"check '{check}' could not run ({why}); fail-{mode.value}",
    )


def _reasons(report: CheckReport, policy: Policy, a: Analysis) -> list[Reason]:
    """All reasons, in priority order: the first one asking for the final action becomes the code."""
    r: list[Reason] = []
    rules, cit = policy.rules, policy.citations

    # 0. No evidence at all: the root cause of every check below that could not run.
    if report.claims and not report.evidence:
        r.append(Reason(code=ReasonCode.no_relevant_evidence, action=rules.no_evidence.action, message="no evidence was given"))

    # 1. Checks that could not run.
    skipped: list[SkippedCheck] = list(report.skipped)
    names = {s.check for s in skipped}
    cited_any = any(c.citations for c in report.claims)
    if (cit.required or cit.min_attribution_precision is not None) and report.citations is None and cited_any and "citations" not in names:
        skipped.append(SkippedCheck(check="citations", reason="the answer cites sources but the report has no citation result"))
    if policy.schema_.required and report.schema_result is None and "schema" not in names:
        skipped.append(SkippedCheck(check="schema", reason="no schema result in the report, but the policy requires one"))
    for s in skipped:
        r.append(_failure(s.check, s.reason, list(s.claim_ids), policy))
    # Claims a 'verify' skipped check already names (the pipeline lists unevaluatable verdicts there) are not
    # listed twice: it is the same check under the same failure mode.
    in_verify = {cid for s in skipped if s.check == "verify" for cid in s.claim_ids}
    unevaluated = [c for c in a.unevaluated if c not in in_verify]
    if unevaluated:
        why = "; ".join(
            sorted({(v.reason or "no reason given") if (v := report.verdict_for(c)) else "no verdict" for c in unevaluated})
        )
        r.append(_failure("verify", f"{len(unevaluated)} claim(s) not evaluated: {why}", unevaluated, policy))

    # 1b. Factual text that no claim covers: not checked, so not passed.
    unchecked = report.unchecked_factual
    if unchecked:
        rule = rules.unchecked_text
        what = "; ".join(f"{u.reason} \u201c{_clip(u.text)}\u201d" for u in unchecked[:4]) + (
            f" (+{len(unchecked) - 4})" if len(unchecked) > 4 else ""
        )
        r.append(Reason(
            code=ReasonCode.unchecked_text, action=Action.respond if rule.fail_open else rule.action,
            message=f"{len(unchecked)} factual span(s) not checked: {what}" + ("; fail-open" if rule.fail_open else ""),
        ))

    # 2. Evidence that cannot answer at all.
    if report.evidence and a.evaluated and len(a.unsupported) == len(a.evaluated):
        r.append(Reason(
            code=ReasonCode.no_relevant_evidence, action=rules.no_evidence.action, claim_ids=a.unsupported,
            message=f"none of the {len(a.evaluated)} evaluated claim(s) is supported or contradicted by the evidence",
        ))

    # 3. Thresholds over the verdicts.
    if len(a.contradicted) > rules.contradiction.max_count:
        r.append(Reason(
            code=ReasonCode.contradiction, action=rules.contradiction.action, claim_ids=a.contradicted,
            message=f"{len(a.contradicted)} contradicted claim(s) ({_ids(a.contradicted)}), more than the {rules.contradiction.max_count} tolerated",
        ))
    by_action: dict[Action, list[tuple[str, str]]] = {}
    for cid in a.flagged:
        v = report.verdict_for(cid)
        if v is not None and v.error_type is not None and v.error_type in rules.error_types.actions:
            by_action.setdefault(rules.error_types.actions[v.error_type], []).append((cid, v.error_type.value))
    for act in sorted(by_action, key=SEVERITY.__getitem__, reverse=True):
        pairs = by_action[act]
        r.append(Reason(
            code=ReasonCode.error_type, action=act, claim_ids=[c for c, _ in pairs],
            message="flagged claim error type(s): " + ", ".join(f"{c}={t}" for c, t in pairs),
        ))
    conflicts = [(v.claim_id, d) for v in report.verdicts for d in v.differences if d.kind == "conflict"]
    if conflicts:
        r.append(Reason(
            code=ReasonCode.context_conflict, action=rules.context_conflict.action,
            claim_ids=list(dict.fromkeys(c for c, _ in conflicts)),
            message="passages disagree: " + "; ".join(f"{c}: {d.slot} {d.evidence_value}" for c, d in conflicts[:4]),
        ))
    if report.schema_result is not None and not report.schema_result.valid:
        issues = "; ".join(f"{i.path}: {i.message}" for i in report.schema_result.issues[:5]) or "invalid"
        r.append(Reason(code=ReasonCode.schema_invalid, action=policy.schema_.invalid_action, message=f"structured answer fails its schema: {issues}"))
    if cit.required and report.claims:
        # Claims carry their own markers, so missing citations are known even when the pipeline
        # was not asked to list them.
        listed = set(report.citations.uncited_claim_ids) if report.citations is not None else set()
        uncited = [c.id for c in report.claims if not c.citations or c.id in listed]
        if uncited:
            r.append(Reason(
                code=ReasonCode.citation_missing, action=cit.missing_action, claim_ids=uncited,
                message=f"{len(uncited)} claim(s) without a citation ({_ids(uncited)})",
            ))
    if report.citations is not None:
        c = report.citations
        bad = [x for x in c.results if not x.exists or x.quote_ok is False or x.supports is False]
        if bad:
            what = ", ".join(
                f"{x.marker} ({'missing source' if not x.exists else 'misquoted' if x.quote_ok is False else 'does not support'})" for x in bad[:6]
            )
            r.append(Reason(
                code=ReasonCode.citation_invalid, action=cit.invalid_action,
                claim_ids=list(dict.fromkeys(x.claim_id for x in bad if x.claim_id)), message=f"invalid citation(s): {what}",
            ))
        p = c.attribution_precision
        if cit.min_attribution_precision is not None and p is not None and _below(p, cit.min_attribution_precision):
            r.append(Reason(
                code=ReasonCode.citation_invalid, action=cit.invalid_action,
                message=f"attribution precision {p:.2f} below {cit.min_attribution_precision:.2f}",
            ))
    if a.evaluated:
        ratio = len(a.unsupported) / len(a.evaluated)
        if _exceeds(ratio, rules.unsupported.max_ratio):
            r.append(Reason(
                code=ReasonCode.unsupported, action=rules.unsupported.action, claim_ids=a.unsupported,
                message=f"{len(a.unsupported)}/{len(a.evaluated)} evaluated claims unsupported ({ratio:.2f} > {rules.unsupported.max_ratio:.2f})",
            ))
    if _exceeds(report.hallucination_score, rules.aggregate.max_score):
        top = [v.claim_id for v in report.verdicts if _exceeds(v.hallucination_score, rules.aggregate.max_score) and v.label is not Label.unevaluatable]
        r.append(Reason(
            code=ReasonCode.aggregate_score, action=rules.aggregate.action, claim_ids=top,
            message=f"aggregate hallucination score {report.hallucination_score:.3f} above {rules.aggregate.max_score:.3f}",
        ))
    if a.evaluated and a.confidence is not None and _below(a.confidence, rules.confidence.min_confidence):
        low = [v.claim_id for v in report.verdicts if v.claim_id in a.evaluated and _below(v.confidence, rules.confidence.min_confidence)]
        r.append(Reason(
            code=ReasonCode.low_confidence, action=rules.confidence.action, claim_ids=low,
            message=f"verifier confidence {a.confidence:.3f} below {rules.confidence.min_confidence:.3f}",
        ))
    if a.flagged:
        r.append(Reason(
            code=ReasonCode.flagged_claim, action=rules.flagged.action, claim_ids=a.flagged,
            message=f"{len(a.flagged)} flagged claim(s): {_ids(a.flagged)}",
        ))
    if not report.claims and "claims" not in names and not unchecked:
        r.append(Reason(code=ReasonCode.no_claims, action=policy.claims.on_no_claims, message="the answer holds no checkable claim"))
    if not r:
        r.append(Reason(code=ReasonCode.supported, action=Action.respond, message=f"all {len(a.evaluated)} claim(s) supported"))
    return r


_CATEGORY = {
    ReasonCode.context_conflict: "conflict",
    ReasonCode.check_failed: "unevaluatable",
    ReasonCode.check_skipped: "unevaluatable",
    ReasonCode.citation_missing: "citation",
    ReasonCode.citation_invalid: "citation",
    ReasonCode.low_confidence: "low_confidence",
}


def _caveats(report: CheckReport, policy: Policy, a: Analysis, reasons: list[Reason]) -> list[Caveat]:
    """Claims to mark: flagged ones, and those named by any reason asking for more than respond."""
    why: dict[str, str] = {cid: a.labels[cid] for cid in a.flagged}
    for reason in reasons:
        if reason.action is Action.respond and reason.code is not ReasonCode.flagged_claim:
            continue
        for cid in reason.claim_ids:
            why.setdefault(cid, _CATEGORY.get(reason.code, a.labels.get(cid, "unevaluatable")))
    marks = [
        Caveat(claim_id=c.id, start=c.start, end=c.end, text=c.text, label=why[c.id], note=note_for(why[c.id], policy.caveat))
        for c in report.claims
        if c.id in why
    ]
    if any(r.code is ReasonCode.unchecked_text and r.action is not Action.respond for r in reasons):
        # Unchecked factual spans are marked where they stand; they are not claims, so their id names the span.
        marks += [
            Caveat(claim_id=f"unchecked@{u.start}-{u.end}", start=u.start, end=u.end, text=u.text, label="unchecked",
                   note=note_for("unchecked", policy.caveat))
            for u in report.unchecked_factual
        ]
        marks.sort(key=lambda c: (c.start, -c.end))
    return marks


def text_for(action: Action, code: ReasonCode, answer: str, caveats: list[Caveat], policy: Policy) -> tuple[str, list[Caveat]]:
    """The text shown for an action; regenerate shows its fallback until a rewrite is accepted."""
    if action is Action.regenerate:
        action = Action(policy.regenerate.fallback)
    if action is Action.respond:
        return answer, []
    if action is Action.caveat:
        return render_caveat(answer, caveats, policy.caveat)
    if action is Action.abstain:
        return policy.abstain.message_for(code), []
    return policy.escalation.message, []


def decide(report: CheckReport, policy: Policy) -> Decision:
    """Turn a report into a decision under a policy. Pure: no I/O, no clock, no randomness."""
    a = analyse(report, policy)
    reasons = _reasons(report, policy, a)
    action = max((r.action for r in reasons), key=SEVERITY.__getitem__)
    risk = None
    if policy.escalation.stakes > 0 and a.confidence is not None:
        risk = policy.escalation.stakes * (1.0 - a.confidence)
        if _exceeds(risk, policy.escalation.max_risk):
            low = [v.claim_id for v in report.verdicts if v.claim_id in a.evaluated and v.confidence <= a.confidence] or a.unevaluated
            reasons.append(Reason(
                code=ReasonCode.high_risk, action=Action.escalate, claim_ids=low,
                message=f"risk {risk:.3f} = stakes {policy.escalation.stakes:g} x (1 - confidence {a.confidence:.3f}) exceeds {policy.escalation.max_risk:g}",
            ))
            action = Action.escalate
    code = next(r.code for r in reasons if r.action is action)
    order = {c.id: i for i, c in enumerate(report.claims)}
    driving = sorted({cid for r in reasons if r.action is action for cid in r.claim_ids}, key=lambda c: order.get(c, len(order)))
    caveats = _caveats(report, policy, a, reasons)
    final_text, numbered = text_for(action, code, report.answer, caveats, policy)
    return Decision(
        action=action, code=code, reasons=reasons, claim_ids=driving, final_text=final_text, answer=report.answer,
        caveats=numbered if numbered else caveats if action in (Action.caveat, Action.regenerate) else [],
        policy_name=policy.name, policy_hash=policy.content_hash, confidence=a.confidence, risk=risk, report=report,
        analysis=a, latencies_ms={f"check.{k}": v for k, v in report.latencies_ms.items()},
    )


def flagged_claims(report: CheckReport, policy: Policy) -> list[tuple[Claim, ClaimVerdict]]:
    """The claims the policy counts as flagged, with their verdicts, in answer order."""
    a = analyse(report, policy)
    flagged = set(a.flagged)
    return [(c, v) for c in report.claims if c.id in flagged and (v := report.verdict_for(c.id)) is not None]


def decide_failure(answer: str, error: BaseException | str, policy: Policy, check: str = "check") -> Decision:
    """Decision when the whole check raised (no report): the failure mode of ``check`` decides.

    Fail-open lets the unchecked answer through with the failure recorded; it is never a pass.
    """
    why = f"{type(error).__name__}: {error}" if isinstance(error, BaseException) else str(error)
    reason = _failure(check, why, [], policy)
    text, caveats = text_for(reason.action, reason.code, answer, [], policy)
    return Decision(
        action=reason.action, code=reason.code, reasons=[reason], final_text=text, answer=answer, caveats=caveats,
        policy_name=policy.name, policy_hash=policy.content_hash, report=None, error=why,
    )
