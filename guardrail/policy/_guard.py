"""``guard`` / ``aguard``: check -> decide -> (regenerate) -> audit, for one answer.

The facade (``Guardrail.guard``) binds ``check`` to its pipeline and ``policy`` to the tenant's
policy; everything here takes what it needs as parameters and keeps no state between calls,
so one set of objects can serve concurrent requests.

The policy's ``verification`` section picks the verifier: a ``check`` that is a bound
``Guardrail.check`` / ``acheck`` runs on ``policy_guardrail(guardrail, policy)`` (the section's fast
verifier and LLM double check); a report from any other ``check`` that lacks the double check the
policy asks for lists it as skipped, for the failure mode to decide (``_verification``).

A guard never ends in a traceback because a component broke: whatever ``check`` raises that is not
the caller's own mistake (``InputError``, ``ConfigError``) becomes a ``BackendError`` and then a
decision under the policy's failure mode, recorded in the audit log like any other.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import Any

from ..errors import BackendError, GuardrailError
from ..tracing import span
from ..types import CheckReport
from ._audit import AuditLog
from ._decision import Decision, decide, decide_failure
from ._policy import Action, Policy, ReasonCode
from ._regenerate import aregenerate, fallback_decision, regenerate
from ._verification import policy_check, require_stage

__all__ = ["guard", "aguard"]

CheckFn = Callable[..., CheckReport]


def _args(answer: str, context: Any, question: str | None) -> tuple[Any, ...]:
    return (answer, context) if question is None else (answer, context, question)


def _backend_error(exc: Exception) -> BackendError | None:
    """``exc`` as the BackendError the failure mode handles, or None for the caller's own errors.

    A custom verifier or extractor may raise anything (ZeroDivisionError, KeyError ...); that is a
    component that could not run, not bad input, so it must reach the policy and not the caller.
    """
    if isinstance(exc, BackendError):
        return exc
    if isinstance(exc, GuardrailError):  # InputError / ConfigError: the caller's to fix
        return None
    return BackendError(f"check raised {type(exc).__name__}: {exc}")


def _safe(check: Callable[..., Any]) -> Callable[..., Any]:
    """``check`` with every component failure raised as ``BackendError`` (see ``_backend_error``)."""

    def run(*args: Any) -> Any:
        try:
            return check(*args)
        except Exception as exc:  # noqa: BLE001 - classified, never swallowed
            error = _backend_error(exc)
            if error is None or error is exc:
                raise
            raise error from exc

    return run


def _staged(check: Callable[..., Any], policy: Policy) -> Callable[..., Any]:
    """``check`` whose reports list the policy's double check as skipped when it did not run (``require_stage``)."""

    def run(*args: Any) -> Any:
        return require_stage(check(*args), policy)

    return run


def _finish(decision: Decision, started: float, clock: Callable[[], float]) -> Decision:
    return decision.model_copy(update={"latencies_ms": {**decision.latencies_ms, "total": (clock() - started) * 1e3}})


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
    clock: Callable[[], float] = time.perf_counter,
) -> Decision:
    """Check ``answer`` against ``context`` and decide what to show under ``policy``.

    ``check(answer, context[, question]) -> CheckReport`` is the pipeline (``Guardrail.check``).
    A ``BackendError`` from it, or any exception other than ``InputError`` / ``ConfigError``, becomes
    a decision under the policy's failure mode for the check named "check". Regeneration needs ``llm``; without one, the policy fallback applies with
    reason regeneration_unavailable. The decision is recorded in ``audit`` when given.
    """
    t0 = clock()
    check = _staged(_safe(policy_check(check, policy)), policy)
    try:
        report = check(*_args(answer, context, question))
    except BackendError as exc:
        decision = decide_failure(answer, exc, policy)
    else:
        with span("decide", tenant=tenant):
            decision = decide(report, policy)
        if decision.action is Action.regenerate:
            if llm is None:
                decision = fallback_decision(decision, policy, "no LLM configured for regeneration", code=ReasonCode.regeneration_unavailable)
            else:
                with span("regenerate", tenant=tenant):
                    decision = regenerate(
                        report.answer, report, check=lambda a: check(*_args(a, context, question)), llm=llm, policy=policy,
                        decision=decision,
                    )
    decision = _finish(decision, t0, clock)
    if audit is not None:
        with span("audit", tenant=tenant, action=decision.action.value):
            audit.record(decision, tenant, request_id=request_id)
    return decision


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
    clock: Callable[[], float] = time.perf_counter,
) -> Decision:
    """Async ``guard``: an async ``check`` (``Guardrail.acheck``) is awaited, a sync one runs in a
    worker thread; the LLM is called through ``achat``; the audit write runs off the event loop."""

    check = policy_check(check, policy)

    async def call(a: str) -> CheckReport:
        if inspect.iscoroutinefunction(check):
            return require_stage(await check(*_args(a, context, question)), policy)
        out = await asyncio.to_thread(check, *_args(a, context, question))
        return require_stage(await out if inspect.isawaitable(out) else out, policy)

    async def run(a: str) -> CheckReport:
        try:
            return await call(a)
        except Exception as exc:  # noqa: BLE001 - classified as in guard(), never swallowed
            error = _backend_error(exc)
            if error is None or error is exc:
                raise
            raise error from exc

    t0 = clock()
    try:
        report = await run(answer)
    except BackendError as exc:
        decision = decide_failure(answer, exc, policy)
    else:
        with span("decide", tenant=tenant):
            decision = decide(report, policy)
        if decision.action is Action.regenerate:
            if llm is None:
                decision = fallback_decision(decision, policy, "no LLM configured for regeneration", code=ReasonCode.regeneration_unavailable)
            else:
                with span("regenerate", tenant=tenant):
                    decision = await aregenerate(report.answer, report, check=run, llm=llm, policy=policy, decision=decision)
    decision = _finish(decision, t0, clock)
    if audit is not None:
        with span("audit", tenant=tenant, action=decision.action.value):
            await asyncio.to_thread(audit.record, decision, tenant, request_id=request_id)
    return decision
