"""How long and how often one LLM call may try: the one place retries and deadlines live.

Why one place: the guardrail sits inline, so every LLM call needs a hard deadline and retries on
transient failures only (a timeout, a dropped connection, 429, 5xx; a 400 or an unusable reply is not
fixed by asking again the same way). When two layers each retry, a caller's loop around a client that
retries, the requests multiply and neither layer's deadline bounds the other's: regeneration once made
up to 3 x 3 = 9 requests a round that way. So the client owns both, and a caller that knows what it may
spend (a regeneration round under its policy's deadline) hands the call a ``CallBudget`` instead of
wrapping it in a loop of its own.

``Attempts`` runs the attempts of one call: the client's tenacity policy (which failures are retried,
how often, how long to wait) narrowed by the call's budget, each attempt under its deadline (a blocking
attempt in a thread that is abandoned on overrun, ``guardrail.deadline``; an async one under
``asyncio.wait_for``). The last failure leaves as an ``LLMError`` carrying the number of attempts.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from ..deadline import call_with_deadline
from ..errors import LLMError, LLMTimeout

if TYPE_CHECKING:  # pragma: no cover
    import tenacity

__all__ = ["CallBudget", "Attempts", "DeadlineExceeded", "retry_policy"]

log = logging.getLogger("guardrail.llm")

T = TypeVar("T")
#: What a client makes of the failure its last attempt ended in (never called with an ``LLMError``).
ErrorMap = Callable[[BaseException, int], LLMError]


class CallBudget(BaseModel):
    """What one call may spend, chosen by the caller per call; a field left None keeps the client's own.

    Why per call: only the caller knows how much time is left. A regeneration round passes the time
    left before its policy's deadline and the policy's retries; the client keeps its own per-attempt
    timeout when that is shorter.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    timeout_s: float | None = Field(
        default=None, gt=0,
        description="Wall-clock limit of the whole call: every attempt and every wait between attempts.")
    max_retries: int | None = Field(
        default=None, ge=0, description="Extra attempts after a transient failure (timeout, connection, 429, 5xx).")
    backoff_s: float | None = Field(
        default=None, ge=0, description="First wait between attempts; it doubles per attempt, within the time left.")

    def after(self, spent_s: float) -> CallBudget:
        """This budget less ``spent_s`` seconds: what the next request of a multi-request call (a JSON
        repair turn) may spend. Raises ``LLMTimeout`` when no time is left."""
        if self.timeout_s is None:
            return self
        left = self.timeout_s - spent_s
        if left <= 0:
            raise LLMTimeout(f"the call's budget of {self.timeout_s:g} s is spent", attempts=0)
        return self.model_copy(update={"timeout_s": left})


class DeadlineExceeded(TimeoutError):
    """One attempt ran past its deadline (a blocking one is left to finish in its abandoned thread)."""


def _overrun(timeout_s: float) -> DeadlineExceeded:
    return DeadlineExceeded(f"no reply within {timeout_s:.3g} s")


def _log_retry(state: tenacity.RetryCallState) -> None:
    exc = state.outcome.exception() if state.outcome else None
    log.warning("LLM request failed (%s: %s); attempt %d, retrying", type(exc).__name__, exc, state.attempt_number)


def retry_policy(max_retries: int, backoff_s: float, transient: Callable[[BaseException], bool]) -> tenacity.Retrying:
    """A client's default policy: ``transient`` failures retried ``max_retries`` times, the wait
    doubling from ``backoff_s`` up to 8 s, with jitter."""
    import tenacity

    return tenacity.Retrying(
        stop=tenacity.stop_after_attempt(max_retries + 1),
        wait=tenacity.wait_exponential_jitter(multiplier=backoff_s, max=8.0, jitter=backoff_s),
        retry=tenacity.retry_if_exception(transient),
        before_sleep=_log_retry,
        reraise=True,
    )


def _unwrap(exc: BaseException) -> BaseException:
    """The failure itself, out of the ``RetryError`` a policy without ``reraise`` wraps it in."""
    import tenacity

    if isinstance(exc, tenacity.RetryError) and exc.last_attempt.failed:
        inner = exc.last_attempt.exception()
        if inner is not None:
            return inner
    return exc


@dataclass(frozen=True)
class Attempts:
    """The attempts of one call.

    ``policy``: the client's retry policy; ``timeout_s``: the client's deadline for one attempt (None:
    none); ``budget``: the caller's, which narrows both; ``error``: the client's map from the last failure
    to an ``LLMError`` (an ``LLMError`` raised by the attempt leaves as it is, with the attempt count).
    """

    policy: tenacity.Retrying
    timeout_s: float | None
    budget: CallBudget | None
    error: ErrorMap

    def _plan(self) -> tuple[tenacity.Retrying, Callable[[], float | None]]:
        """The policy for this call, and the deadline of its next attempt (None: none)."""
        import tenacity

        budget = self.budget or CallBudget()
        ends = None if budget.timeout_s is None else time.monotonic() + budget.timeout_s

        def left() -> float | None:
            return None if ends is None else ends - time.monotonic()

        attempts_stop = self.policy.stop if budget.max_retries is None else tenacity.stop_after_attempt(budget.max_retries + 1)

        def stop(state: tenacity.RetryCallState) -> bool:
            rest = left()  # no attempt starts once the call's time is up
            return bool(attempts_stop(state)) or (rest is not None and rest <= 0)

        base_wait = self.policy.wait if budget.backoff_s is None else tenacity.wait_exponential_jitter(
            multiplier=budget.backoff_s, max=8.0, jitter=budget.backoff_s)

        def wait(state: tenacity.RetryCallState) -> float:
            rest = left()
            seconds = base_wait(state)
            return seconds if rest is None else max(0.0, min(seconds, rest))

        def attempt_timeout() -> float | None:
            rest = left()
            if rest is None:
                return self.timeout_s
            if rest <= 0:
                raise DeadlineExceeded(f"no time left of the call's {budget.timeout_s:g} s")
            return rest if self.timeout_s is None else min(rest, self.timeout_s)

        return self.policy.copy(stop=stop, wait=wait), attempt_timeout

    def _failure(self, exc: BaseException, tries: int) -> LLMError:
        cause = _unwrap(exc)
        if isinstance(cause, LLMError):
            cause.attempts = max(cause.attempts or 0, tries)
            return cause
        failure = self.error(cause, tries)
        failure.__cause__ = cause
        return failure

    def run(self, attempt: Callable[[float | None], T]) -> T:
        """``attempt(deadline)`` until it succeeds or the policy and the budget stop it; blocking."""
        retrying, deadline = self._plan()
        tries = 0
        try:
            for each in retrying:
                with each:
                    tries = each.retry_state.attempt_number
                    timeout = deadline()
                    if timeout is None:
                        return attempt(None)
                    # httpx bounds each read, not a whole request, and a foreign model may block on
                    # anything: the attempt runs in a thread that is abandoned once its time is up.
                    return call_with_deadline(lambda: attempt(timeout), timeout, "LLM request",
                                              lambda _message: _overrun(timeout))
        except Exception as exc:
            failure = self._failure(exc, tries)
            raise failure from failure.__cause__
        raise LLMError("the retry policy gave up without an attempt", attempts=tries)  # pragma: no cover

    async def arun(self, attempt: Callable[[float | None], Awaitable[T]]) -> T:
        """``run`` for an attempt that is awaited."""
        import tenacity

        retrying, deadline = self._plan()
        r = retrying
        aretrying = tenacity.AsyncRetrying(stop=r.stop, wait=r.wait, retry=r.retry, before=r.before, after=r.after,
                                           before_sleep=r.before_sleep, reraise=r.reraise,
                                           retry_error_callback=r.retry_error_callback)
        tries = 0
        try:
            async for each in aretrying:
                with each:
                    tries = each.retry_state.attempt_number
                    timeout = deadline()
                    if timeout is None:
                        return await attempt(None)
                    try:
                        return await asyncio.wait_for(attempt(timeout), timeout)
                    except TimeoutError as exc:
                        raise _overrun(timeout) from exc
        except Exception as exc:
            failure = self._failure(exc, tries)
            raise failure from failure.__cause__
        raise LLMError("the retry policy gave up without an attempt", attempts=tries)  # pragma: no cover
