"""Targeted regeneration: rewrite or drop only the flagged claims, splice, re-check, repeat.

The LLM never sees the answer as something to rewrite wholesale: it gets the original answer
for context, then each flagged claim with its verdict and the evidence that contradicts or fails
to support it, and must answer with ``{claim id: replacement or ""}``. Replacements are spliced
back at the claims' character offsets, so every byte outside them is the original byte.

The loop itself is written once, as a generator (``regeneration``) that yields what it needs
(``AskLLM``, ``CheckAnswer``) and receives the result; the drivers in ``_guard`` perform those steps,
blocking or awaiting. Nothing blocks inside the loop, so both paths share every rule: the deadline,
stopping when the number of flagged claims stops falling, and the policy fallback when the LLM is down.
Each report is analysed once, by the ``decide`` that judges it; the loop reads ``Decision.analysis``.

A rewrite request goes through ``guardrail.llm`` with a per-call budget from the policy (the time left
before the deadline, ``llm_retries``, ``retry_wait_s``): the client owns retries and deadlines, and an
unusable reply gets ``chat_parsed``'s one repair turn; nothing here retries or waits on its own.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import GuardrailError, InputError, LLMError, LLMResponseError, LLMTimeout
from ..llm import CallBudget, ChatModel, achat_parsed, chat_parsed, extract_json
from ..types import CheckReport, Claim, ClaimVerdict
from ._decision import Analysis, Attempt, Decision, Reason, analyse, decide, text_for
from ._policy import SEVERITY, Action, Policy, ReasonCode
from ._text import best_sentences
from ._verification import require_stage

__all__ = ["corrective_messages", "parse_rewrites", "splice", "fallback_decision", "first_decision",
           "regeneration", "AskLLM", "CheckAnswer", "ask_llm", "aask_llm"]

REQUEST_OPEN, REQUEST_CLOSE = "<flagged_claims>", "</flagged_claims>"
ANSWER_OPEN, ANSWER_CLOSE = "Original answer:\n<<<\n", "\n>>>\n"


SYSTEM_PROMPT = """You correct answers written by a retrieval-augmented assistant.
A fact checker flagged some claims of the answer: they are contradicted by the evidence, or the evidence does not support them.
For each flagged claim, either rewrite it so that it states only what the evidence supports, or drop it (empty string) when the evidence says nothing that could replace it.
Each replacement must be a drop-in substitute for the claim text: same language, same role in the text, no new facts, no citation markers for sources that are not given.
If the claim carries citation markers such as [1], end the replacement with the marker of the evidence id it relies on.
Do not change, repeat or return anything else of the answer.
Reply with one JSON object and nothing else, with exactly the flagged claim ids as keys: {"<claim id>": "<replacement text or empty string>"}"""


# --------------------------------------------------------------------------- prompt


def _evidence_for(claim: Claim, verdict: ClaimVerdict | None, report: CheckReport, budget: int) -> list[dict[str, str]]:
    """The evidence the verdict rests on: its exact span first, then its documents, trimmed to the budget."""
    out: list[dict[str, str]] = []
    used = 0
    if verdict is not None and verdict.evidence_span is not None:
        span = verdict.evidence_span.text[:budget]
        out.append({"id": verdict.evidence_span.evidence_id, "text": span})
        used += len(span)
    ids = list(verdict.evidence_ids) if verdict is not None and verdict.evidence_ids else [e.id for e in report.evidence]
    by_id = {e.id: e for e in report.evidence}
    for eid in ids:
        doc = by_id.get(eid)
        left = budget - used
        if doc is None or left < 80:
            continue
        text = best_sentences(claim.check_text, doc.text, left)
        if any(text in o["text"] for o in out):
            continue
        out.append({"id": eid, "text": text})
        used += len(text)
    return out


def corrective_messages(report: CheckReport, targets: Sequence[Claim], policy: Policy, *,
                        analysis: Analysis | None = None) -> list[dict[str, str]]:
    """System + user messages asking to rewrite or drop exactly ``targets``.

    ``analysis``: the policy's reading of ``report`` when the caller has it (``Decision.analysis``);
    without it the report is analysed here.
    """
    a = analysis if analysis is not None else analyse(report, policy)
    claims = []
    for claim in targets:
        v = report.verdict_for(claim.id)
        item: dict[str, Any] = {
            "id": claim.id,
            "text": claim.text,
            "verdict": a.labels.get(claim.id, "unevaluatable"),
        }
        if v is not None and v.error_type is not None:
            item["error_type"] = v.error_type.value
        if v is not None and v.reason:
            item["why"] = v.reason
        item["evidence"] = _evidence_for(claim, v, report, policy.regenerate.max_evidence_chars)
        claims.append(item)
    payload = {"claims": claims}
    system = SYSTEM_PROMPT + (f"\n{policy.regenerate.instructions.strip()}" if policy.regenerate.instructions.strip() else "")
    user = (
        ("Question:\n" + report.question + "\n\n" if report.question else "")
        + ANSWER_OPEN + report.answer + ANSWER_CLOSE + "\n"
        + "Flagged claims, with their verdict and the evidence (JSON):\n"
        + REQUEST_OPEN + "\n" + json.dumps(payload, ensure_ascii=False, indent=1) + "\n" + REQUEST_CLOSE + "\n\n"
        + "Return the JSON object with keys " + ", ".join(json.dumps(c.id) for c in targets) + "."
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def _reply_schema(ids: Sequence[str]) -> dict[str, Any]:
    return {
        "title": "rewrites",
        "type": "object",
        "properties": {i: {"type": "string"} for i in ids},
        "required": list(ids),
        "additionalProperties": False,
    }


def parse_rewrites(text: str, allowed: Sequence[str]) -> tuple[dict[str, str], list[str]]:
    """``{claim id: replacement}`` from an LLM reply, and the ids it returned that were not asked for.

    Raises ``LLMResponseError`` (with the reply) when there is no JSON object of strings.
    """
    try:
        obj = extract_json(text)
    except ValueError as exc:
        raise LLMResponseError(f"rewrite reply holds no JSON object: {exc}", last_output=text[:2000]) from exc
    if isinstance(obj, dict) and set(obj) == {"rewrites"} and isinstance(obj["rewrites"], dict):
        obj = obj["rewrites"]
    if not isinstance(obj, dict):
        raise LLMResponseError(f"rewrite reply is a JSON {type(obj).__name__}, not an object", last_output=text[:2000])
    rewrites, ignored = {}, []
    wanted = set(allowed)
    for key, value in obj.items():
        if str(key) not in wanted:
            ignored.append(str(key))
            continue
        if value is None:
            value = ""
        if not isinstance(value, str):
            raise LLMResponseError(f"rewrite for {key!r} is a {type(value).__name__}, not a string", last_output=text[:2000])
        rewrites[str(key)] = value.strip()
    return rewrites, ignored


# --------------------------------------------------------------------------- splice


_STOP = ".!?"
_TRAILING_MARKERS = re.compile(r"(?:\s*\[[^\[\]]{1,40}\])+\s*$")


def _fit(replacement: str, claim: Claim) -> str:
    """Shape a replacement like the claim it replaces.

    Extractors often leave the citation marker and the full stop outside the claim
    ("dose is 500 mg [1]." -> claim "dose is 500 mg"); a replacement ending in "." or "[1]"
    would then double them.
    """
    text = claim.text.rstrip()
    strip_stop = bool(text) and text[-1] not in _STOP
    strip_markers = bool(claim.citations) and not any(m in claim.text for m in claim.citations)
    out, before = replacement, None
    while out != before:  # "x [1]." and "x. [1]" both shrink to "x"
        before = out
        if strip_stop and out and out[-1] in _STOP:
            out = out[:-1].rstrip()
        if strip_markers:
            out = _TRAILING_MARKERS.sub("", out)
    return out


def _drop_end(answer: str, claim: Claim) -> int:
    """Where a dropped claim really ends: its markers and, for a sentence, its full stop."""
    end, n = claim.end, len(answer)
    if claim.citations:
        j = end
        while True:
            k = j
            while k < n and answer[k] in " \t":
                k += 1
            marker = next((m for m in claim.citations if m and answer.startswith(m, k)), None)
            if marker is None:
                break
            j = k + len(marker)
        end = j
    if claim.kind == "sentence" and claim.text.rstrip()[-1:] not in tuple(_STOP) and end < n and answer[end] in _STOP:
        end += 1
    return end


def splice(answer: str, claims: Sequence[Claim], rewrites: dict[str, str]) -> tuple[str, list[str]]:
    """Replace each rewritten claim at its offsets; returns the new answer and the ids applied.

    A dropped claim ("") takes its own citation markers and full stop with it, and the spaces
    that separated it from the next text (else the ones before it), so dropping a sentence
    leaves neither a stray "[1]." nor a double space. Claims whose offsets do not match the
    answer, or that overlap one already applied, are not applied.
    """
    spans = sorted(
        (c for c in claims if c.id in rewrites and 0 <= c.start <= c.end <= len(answer) and answer[c.start : c.end] == c.text),
        key=lambda c: (c.start, c.end),
    )
    parts, pos, applied = [], 0, []
    for c in spans:
        start, end, new = c.start, c.end, _fit(rewrites[c.id], c)
        if start < pos:
            continue
        if new == "":
            end = _drop_end(answer, c)
            e = end
            while e < len(answer) and answer[e] in " \t":
                e += 1
            if e == end:  # nothing after it on the line: take the separator before it instead
                while start > pos and answer[start - 1] in " \t":
                    start -= 1
            end = e
        parts += [answer[pos:start], new]
        pos = end
        applied.append(c.id)
    parts.append(answer[pos:])
    return "".join(parts), applied


# --------------------------------------------------------------------------- loop


@dataclass
class AskLLM:
    """Step: ask the LLM for ``{claim id: replacement}`` over ``allowed`` ids, before ``deadline``."""

    messages: list[dict[str, str]]
    allowed: list[str]
    deadline: float


@dataclass
class CheckAnswer:
    """Step: check ``answer`` against the context of the guard (a rewrite, or the answer itself)."""

    answer: str


def _analysis(decision: Decision, report: CheckReport, policy: Policy) -> Analysis:
    """The analysis ``decision`` was made from; a decision built without one (by hand) gets it here."""
    return decision.analysis if decision.analysis is not None else analyse(report, policy)


def _targets(report: CheckReport, decision: Decision, analysis: Analysis) -> list[Claim]:
    """Flagged claims plus any claim named by a reason that asked for regeneration."""
    ids = set(analysis.flagged)
    ids.update(cid for r in decision.reasons if r.action is Action.regenerate for cid in r.claim_ids)
    return [c for c in report.claims if c.id in ids]


def fallback_decision(first: Decision, policy: Policy, why: str, *, code: ReasonCode = ReasonCode.regeneration_failed,
                      attempts: Sequence[Attempt] = (), best: int | None = None, best_decision: Decision | None = None) -> Decision:
    """The policy's fallback (caveat, abstain or escalate) after regeneration could not converge.

    ``best`` is the attempt whose answer is caveated (fewest flagged claims); None: the original.
    ``best_decision`` is that attempt's decision when the caller kept it (the loop does), so its
    report is not decided a second time.
    """
    action = Action(policy.regenerate.fallback)
    reason = Reason(code=code, action=action, claim_ids=list(first.claim_ids), message=f"{why}; fallback: {action.value}")
    base = first
    if best is not None:
        att = attempts[best - 1]
        if best_decision is not None:
            base = best_decision
        elif att.report is not None:
            base = decide(att.report, policy)
    text, caveats = text_for(action, code, base.answer, base.caveats, policy)
    return first.model_copy(update={
        "action": action, "code": code, "reasons": [*first.reasons, reason], "final_text": text,
        "caveats": caveats if action is Action.caveat else base.caveats, "attempts": list(attempts), "final_attempt": best,
    })


def _loop(report: CheckReport, policy: Policy, first: Decision, clock: Callable[[], float]) -> Generator[Any, Any, Decision]:
    """The rounds. Each report is analysed once, by the ``decide`` that judges it; every count and
    target below reads that decision's ``analysis``."""
    rp = policy.regenerate
    deadline = clock() + rp.deadline_s
    cur_report, cur_decision, cur_analysis = report, first, _analysis(first, report, policy)
    attempts: list[Attempt] = []
    best, best_decision, best_flagged = None, None, len(cur_analysis.flagged)
    why = f"max_attempts ({rp.max_attempts}) reached"
    for n in range(1, rp.max_attempts + 1):
        targets = _targets(cur_report, cur_decision, cur_analysis)
        before = len(cur_analysis.flagged)
        if not targets:
            why = "no claim to rewrite: the action was not driven by a claim"
            break
        if clock() >= deadline:
            why = f"deadline of {rp.deadline_s:g} s reached"
            break
        t0 = clock()
        ids = [c.id for c in targets]
        try:
            rewrites, ignored = yield AskLLM(corrective_messages(cur_report, targets, policy, analysis=cur_analysis), ids, deadline)
        except LLMError as exc:
            attempts.append(Attempt(n=n, flagged_before=before, error=f"{type(exc).__name__}: {exc}", latency_ms=(clock() - t0) * 1e3))
            why = f"LLM unavailable ({type(exc).__name__}: {exc})"
            break
        new_answer, applied = splice(cur_report.answer, cur_report.claims, rewrites)
        ignored = ignored + [i for i in rewrites if i not in applied]
        if new_answer == cur_report.answer:
            attempts.append(Attempt(n=n, rewrites=rewrites, ignored=ignored, flagged_before=before,
                                    error="the rewrite changed nothing", latency_ms=(clock() - t0) * 1e3))
            why = "the LLM changed nothing"
            break
        try:
            new_report = require_stage((yield CheckAnswer(new_answer)), policy)
        except GuardrailError as exc:
            attempts.append(Attempt(n=n, rewrites=rewrites, ignored=ignored, answer=new_answer, flagged_before=before,
                                    error=f"re-check failed: {type(exc).__name__}: {exc}", latency_ms=(clock() - t0) * 1e3))
            why = f"re-check failed ({exc})"
            break
        new_decision = decide(new_report, policy)
        new_analysis = _analysis(new_decision, new_report, policy)
        after = len(new_analysis.flagged)
        attempts.append(Attempt(n=n, rewrites=rewrites, ignored=ignored, answer=new_answer, flagged_before=before,
                                flagged_after=after, action=new_decision.action, report=new_report, latency_ms=(clock() - t0) * 1e3))
        if SEVERITY[new_decision.action] < SEVERITY[Action.regenerate]:
            done = Reason(
                code=ReasonCode.regenerated, action=Action.regenerate, claim_ids=list(first.claim_ids),
                message=f"rewrote {', '.join(applied)} in {n} attempt(s); the re-checked answer is {new_decision.action.value}",
            )
            return first.model_copy(update={
                "action": Action.regenerate, "reasons": [*first.reasons, done], "final_text": new_decision.final_text,
                "caveats": new_decision.caveats, "attempts": attempts, "final_attempt": n,
            })
        if new_decision.action is not Action.regenerate:
            why = f"the rewritten answer was judged {new_decision.action.value} ({new_decision.code.value})"
            break
        if after < best_flagged:
            best, best_decision, best_flagged = n, new_decision, after
        if after >= before:
            why = f"flagged claims stopped falling ({before} -> {after})"
            break
        cur_report, cur_decision, cur_analysis = new_report, new_decision, new_analysis
    return fallback_decision(first, policy, why, attempts=attempts, best=best, best_decision=best_decision)


def regeneration(report: CheckReport, policy: Policy, first: Decision,
                 clock: Callable[[], float] = time.monotonic) -> Generator[Any, Any, Decision]:
    """The regeneration steps of ``report`` (decided ``first``), for a driver in ``_guard`` to perform;
    the decision it returns carries the time regeneration took."""
    t0 = clock()
    result = yield from _loop(report, policy, first, clock)
    return result.model_copy(update={"latencies_ms": {**result.latencies_ms, "regenerate": (clock() - t0) * 1e3}})


def first_decision(answer: str, report: CheckReport, policy: Policy, decision: Decision | None) -> Decision:
    """The decision regeneration starts from (``decide``'s, unless the caller has it), after checking that
    ``answer`` is the report's: claim offsets refer to the report's answer."""
    if answer != report.answer:
        raise InputError("regenerate: the answer differs from report.answer (claim offsets refer to the report's answer)")
    return decision if decision is not None else decide(report, policy)


# --------------------------------------------------------------------------- LLM calls


def _budget(policy: Policy, left_s: float) -> CallBudget:
    """What one rewrite request may spend: the time left before the loop's deadline, the policy's retries.

    The client spends it (``guardrail.llm``: its attempts, deadlines and back-off); regeneration has no
    retry loop of its own, so a round makes at most ``llm_retries + 1`` requests, plus as many again
    for the one repair turn after an unusable reply, all within the deadline.
    """
    if left_s <= 0:
        raise LLMTimeout(f"no time left before the regeneration deadline ({policy.regenerate.deadline_s:g} s)")
    rp = policy.regenerate
    return CallBudget(timeout_s=left_s, max_retries=rp.llm_retries, backoff_s=rp.retry_wait_s)


def _parser(allowed: Sequence[str]) -> Callable[[str], tuple[dict[str, str], list[str]]]:
    def parse(text: str) -> tuple[dict[str, str], list[str]]:
        return parse_rewrites(text, allowed)

    return parse


def ask_llm(chat: ChatModel, req: AskLLM, policy: Policy, clock: Callable[[], float]) -> tuple[dict[str, str], list[str]]:
    """``{claim id: replacement}`` and the ids it returned that were not asked for: one request through
    ``chat`` (``as_chat_model``'s) under the policy's budget, and one repair turn if the reply is unusable."""
    return chat_parsed(chat, req.messages, _parser(req.allowed), what="rewrites JSON",
                       json_schema=_reply_schema(req.allowed), budget=_budget(policy, req.deadline - clock()))


async def aask_llm(chat: ChatModel, req: AskLLM, policy: Policy, clock: Callable[[], float]) -> tuple[dict[str, str], list[str]]:
    """Async ``ask_llm``: the model's ``achat`` (a blocking model in a worker thread)."""
    return await achat_parsed(chat, req.messages, _parser(req.allowed), what="rewrites JSON",
                              json_schema=_reply_schema(req.allowed), budget=_budget(policy, req.deadline - clock()))
