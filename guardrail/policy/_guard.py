"""The steps of one guarded answer (check -> decide -> regenerate -> audit), and the one loop that runs them.

A guard is written once, as a generator (``_guard_steps``) that yields each thing it needs done
(``CheckAnswer``, ``AskLLM``, ``RecordDecision``) and receives the result; the regeneration rounds
(``_regenerate.regeneration``) yield the same steps. One coroutine (``_run``) performs them: the async
guard awaits it, the sync guard runs it to the end on its own thread with blocking calls (``_drive``),
since nothing is awaited then. How a step waits is the only difference between the two, so every rule
(what a failed check means, when to regenerate, what is recorded) exists once, and ``guard`` /
``aguard`` / ``regenerate`` / ``aregenerate`` are each a line or two over it.

``guardrail.Pipeline`` is the usual way in: built once per tenant, it resolves the policy's guardrail
once and calls ``guard`` / ``aguard`` with its own check. Called directly, ``guard(check=...)`` turns a
bound ``Guardrail.check`` / ``acheck`` into the one the policy's ``verification`` section asks for
(``policy_check``); a report from any other check that lacks the double check the policy asks for
lists it as skipped (``require_stage``), for the failure mode to decide.

A guard never ends in a traceback because a component broke: whatever a check raises that is not the
caller's own mistake (``InputError``, ``ConfigError``) becomes a ``BackendError`` (``_failed_check``, the
one place that says so) and then a decision under the policy's failure mode, recorded in the audit log
like any other.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable, Generator
from dataclasses import dataclass
from typing import Any

from ..errors import BackendError, ConfigError, GuardrailError
from ..llm import as_chat_model
from ..tracing import span
from ..types import CheckReport
from ._audit import AuditLog
from ._decision import Decision, decide, decide_failure
from ._policy import Action, Policy, ReasonCode
from ._regenerate import (
    AskLLM,
    CheckAnswer,
    aask_llm,
    ask_llm,
    fallback_decision,
    first_decision,
    regeneration,
)
from ._verification import policy_check, require_stage

__all__ = ["guard", "aguard", "regenerate", "aregenerate"]

CheckFn = Callable[..., CheckReport]


@dataclass
class RecordDecision:
    """Step: append ``decision`` to the audit log."""

    decision: Decision


Step = CheckAnswer | AskLLM | RecordDecision
Steps = Generator[Step, Any, Decision]


# --------------------------------------------------------------------------- the steps


def _failed_check(exc: Exception) -> Exception:
    """What a check that raised ``exc`` hands to the steps.

    A project error stays what it is: a ``BackendError`` goes to the failure mode, an ``InputError`` /
    ``ConfigError`` is the caller's to fix and reaches the caller. Anything else (a custom verifier's
    ZeroDivisionError, KeyError ...) is a component that could not run, not bad input: a ``BackendError``
    with the original as its cause.
    """
    if isinstance(exc, GuardrailError):
        return exc
    error = BackendError(f"check raised {type(exc).__name__}: {exc}")
    error.__cause__ = exc
    return error


def _given(checked: CheckReport | Exception) -> CheckReport:
    """The report of an answer checked before the guard started (a batch), or its failure raised."""
    if isinstance(checked, Exception):
        raise _failed_check(checked)
    return checked


def _guard_steps(answer: str, policy: Policy, *, checked: CheckReport | Exception | None, regenerating: bool,
                 recording: bool, tenant: str, clock: Callable[[], float]) -> Steps:
    """check -> decide -> (regenerate) -> audit for ``answer``; ``checked``: its check's outcome, when known."""
    t0 = clock()
    try:
        report = require_stage((yield CheckAnswer(answer)) if checked is None else _given(checked), policy)
    except BackendError as exc:
        decision = decide_failure(answer, exc, policy)
    else:
        with span("decide", tenant=tenant):
            decision = decide(report, policy)
        if decision.action is Action.regenerate and not regenerating:
            decision = fallback_decision(decision, policy, "no LLM configured for regeneration",
                                         code=ReasonCode.regeneration_unavailable)
        elif decision.action is Action.regenerate:
            with span("regenerate", tenant=tenant):
                decision = yield from regeneration(report, policy, decision)
    decision = decision.model_copy(update={"latencies_ms": {**decision.latencies_ms, "total": (clock() - t0) * 1e3}})
    if recording:
        with span("audit", tenant=tenant, action=decision.action.value):
            yield RecordDecision(decision)
    return decision


# --------------------------------------------------------------------------- running the steps


@dataclass(frozen=True)
class _Calls:
    """How the steps of one guard are performed: each returns its result, or an awaitable of it."""

    check: Callable[[str], Any]  # CheckAnswer: the answer's check, bound to its context and question
    ask: Callable[[AskLLM], Any]  # AskLLM: the rewrite model
    record: Callable[[Decision], Any]  # RecordDecision: the audit log


def _calls(check: Callable[[str], Any], llm: Any, audit: AuditLog | None, policy: Policy, *, awaiting: bool,
           tenant: str = "default", request_id: str | None = None, clock: Callable[[], float] = time.monotonic) -> _Calls:
    """Blocking calls, or (``awaiting``) calls that return awaitables: the LLM asked through ``achat`` when it
    has one, the audit row written in a worker thread. ``clock`` is the regeneration deadline's. The LLM is
    ``as_chat_model``'s, so its calls take the per-call budget regeneration passes (``guardrail.llm``)."""
    chat = as_chat_model(llm) if llm is not None else None

    def ask(step: AskLLM) -> Any:
        assert chat is not None  # the steps ask only when there is an LLM (regenerating=llm is not None)
        return (aask_llm if awaiting else ask_llm)(chat, step, policy, clock)

    def record(decision: Decision) -> Any:
        assert audit is not None  # the steps record only when there is an audit log
        if awaiting:
            return asyncio.to_thread(audit.record, decision, tenant, request_id=request_id)
        return audit.record(decision, tenant, request_id=request_id)

    return _Calls(check, ask, record)


async def _run(steps: Steps, calls: _Calls) -> Decision:
    """Perform ``steps`` until the decision they end in.

    A step that raises is handed back to the steps, which decide what it means; a failed check goes
    back as ``_failed_check`` says. The one loop of every guard: ``_drive`` runs it without an event loop.
    """
    send: Any = None
    error: Exception | None = None
    try:
        while True:
            try:
                step = steps.throw(error) if error is not None else steps.send(send)
            except StopIteration as stop:
                return stop.value
            send, error = None, None
            try:
                if isinstance(step, CheckAnswer):
                    out = calls.check(step.answer)
                elif isinstance(step, AskLLM):
                    out = calls.ask(step)
                else:
                    out = calls.record(step.decision)
                send = await out if inspect.isawaitable(out) else out
            except Exception as exc:  # noqa: BLE001 - handed to the steps, which decide what it means
                error = _failed_check(exc) if isinstance(step, CheckAnswer) else exc
    finally:
        steps.close()


def _drive(steps: Steps, calls: _Calls) -> Decision:
    """``_run`` on this thread, with blocking ``calls``: nothing is ever awaited, so the coroutine ends at
    its first ``send`` and needs no event loop. The sync guard is the async one, minus the waiting."""
    run = _run(steps, calls)
    try:
        run.send(None)
    except StopIteration as done:
        return done.value
    run.close()
    raise RuntimeError("a blocking guard step returned an awaitable")  # _blocking keeps the checks from it


# --------------------------------------------------------------------------- checks bound to one answer


def _args(answer: str, context: Any, question: str | None) -> tuple[Any, ...]:
    return (answer, context) if question is None else (answer, context, question)


def _bound(check: Callable[..., Any], context: Any, question: str | None) -> Callable[[str], Any]:
    """``check(answer, context[, question])`` as the one-argument check the steps ask for."""

    def run(answer: str) -> Any:
        return check(*_args(answer, context, question))

    return run


def _blocking(check: Callable[[str], Any]) -> Callable[[str], CheckReport]:
    """``check`` for a blocking guard. An async check cannot be waited for there: that is a setup error
    (``ConfigError``), not a check that failed, so it reaches the caller instead of the failure mode."""

    def run(answer: str) -> CheckReport:
        out = check(answer)
        if inspect.isawaitable(out):
            close = getattr(out, "close", None)
            if callable(close):
                close()
            raise ConfigError("the check is async (it returned an awaitable): use aguard, or pass a blocking check",
                              field="check")
        return out

    return run


def _abound(check: Callable[..., Any], context: Any, question: str | None) -> Callable[[str], Awaitable[CheckReport]]:
    """``_bound`` for the async guard: an async check is awaited, a blocking one runs in a worker thread
    so the event loop stays free."""

    async def run(answer: str) -> CheckReport:
        args = _args(answer, context, question)
        if inspect.iscoroutinefunction(check):
            return await check(*args)
        out = await asyncio.to_thread(check, *args)
        return await out if inspect.isawaitable(out) else out

    return run


def _guard(answer: str, check: Callable[[str], Any], policy: Policy, llm: Any, audit: AuditLog | None, tenant: str,
           request_id: str | None, checked: CheckReport | Exception | None, clock: Callable[[], float], *,
           awaiting: bool) -> tuple[Steps, _Calls]:
    """The steps of one guard and how they are performed (``guard`` and ``aguard`` differ only in ``awaiting``)."""
    steps = _guard_steps(answer, policy, checked=checked, regenerating=llm is not None, recording=audit is not None,
                         tenant=tenant, clock=clock)
    return steps, _calls(check, llm, audit, policy, awaiting=awaiting, tenant=tenant, request_id=request_id)


# --------------------------------------------------------------------------- entry points


def guard(
    answer: str,
    context: Any,
    *,
    check: CheckFn,
    policy: Policy,
    llm: Any | None = None,
    audit: AuditLog | None = None,
    tenant: str = "default",
    question: str | None = None,
    request_id: str | None = None,
    checked: CheckReport | Exception | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> Decision:
    """Check ``answer`` against ``context`` and decide what to show under ``policy``.

    ``check(answer, context[, question]) -> CheckReport`` is the checking engine (``Guardrail.check``).
    A ``BackendError`` from it, or any exception other than ``InputError`` / ``ConfigError``, becomes
    a decision under the policy's failure mode for the check named "check". Regeneration needs ``llm``;
    without one, the policy fallback applies with reason regeneration_unavailable. The decision is
    recorded in ``audit`` when given. ``checked``: the outcome of checking ``answer`` when that already
    happened (a batch: its report, or the exception the check raised); ``check`` then only re-checks rewrites.
    """
    bound = _blocking(_bound(policy_check(check, policy), context, question))
    return _drive(*_guard(answer, bound, policy, llm, audit, tenant, request_id, checked, clock, awaiting=False))


async def aguard(
    answer: str,
    context: Any,
    *,
    check: Callable[..., CheckReport | Awaitable[CheckReport]],
    policy: Policy,
    llm: Any | None = None,
    audit: AuditLog | None = None,
    tenant: str = "default",
    question: str | None = None,
    request_id: str | None = None,
    checked: CheckReport | Exception | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> Decision:
    """Async ``guard``: an async ``check`` (``Guardrail.acheck``) is awaited, a sync one runs in a
    worker thread; the LLM is called through ``achat``; the audit write runs off the event loop."""
    bound = _abound(policy_check(check, policy), context, question)
    return await _run(*_guard(answer, bound, policy, llm, audit, tenant, request_id, checked, clock, awaiting=True))


def regenerate(
    answer: str,
    report: CheckReport,
    *,
    check: Callable[[str], CheckReport],
    llm: Any,
    policy: Policy,
    decision: Decision | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Decision:
    """Rewrite the flagged claims of ``answer`` with ``llm`` until the re-check passes.

    ``check(new_answer)`` re-checks a rewrite against the same context. Returns a ``Decision``:
    action regenerate with the rewritten text when a rewrite is judged respond or caveat, else the
    policy fallback (caveat / abstain / escalate) with every attempt recorded. LLM failures after
    the retries, and re-check failures, end in the fallback rather than an exception.
    ``decision``: ``decide(report, policy)`` when the caller has it (its analysis is reused).
    """
    first = first_decision(answer, report, policy, decision)
    calls = _calls(_blocking(check), as_chat_model(llm), None, policy, awaiting=False, clock=clock)
    return _drive(regeneration(report, policy, first, clock), calls)


async def aregenerate(
    answer: str,
    report: CheckReport,
    *,
    check: Callable[[str], CheckReport | Awaitable[CheckReport]],
    llm: Any,
    policy: Policy,
    decision: Decision | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Decision:
    """Async ``regenerate``: ``llm.achat`` when it has one, ``check`` may be sync or async."""
    first = first_decision(answer, report, policy, decision)
    calls = _calls(check, as_chat_model(llm), None, policy, awaiting=True, clock=clock)
    return await _run(regeneration(report, policy, first, clock), calls)
