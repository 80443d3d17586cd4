"""``Pipeline``: the guarded pipeline of one tenant, built once: check -> decide -> regenerate -> audit.

Why a class: every adapter (the LangChain runnable, the LlamaIndex engine, the HTTP service, the CLI's
``guard``, the policy demo, checked streaming) needs the same chain for a tenant: the guardrail its
policy asks for, the policy, the rewrite model, the audit log. Rebuilt per answer, the policy's verifier
is resolved again on every call and each adapter wires the parts its own way. A ``Pipeline`` is built
once from the parts and called per answer; an adapter only turns its framework's objects into
``(answer, context, question)`` and the ``Decision`` back into its framework's output.

    pipeline = Pipeline(Guardrail(), store.get("healthcare"), llm=chat, audit=AuditLog(path), tenant="healthcare")
    decision = pipeline.guard(answer, context, question=question)        # or: await pipeline.aguard(...)
    for decision in pipeline.guard_batch(items): ...                       # one batched verifier call per chunk
    for segment in pipeline.stream(chunks, context): ...                   # checked streaming, sentence by sentence

The steps themselves, sync and async, are ``guardrail.policy.guard`` / ``aguard`` (written once, as one
generator with two drivers); streaming is ``guardrail.streaming``'s. What the pipeline adds is what
belongs to the tenant, settled once: the policy's guardrail, the parts, and one place to call.
``PipelineCache`` keeps one pipeline per tenant for adapters whose tenant's policy may be reloaded.
"""

from __future__ import annotations

import copy
import sys
import threading
from collections import OrderedDict
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from .errors import ConfigError, InputError
from .llm import BoundedChat, OpenAIChat, as_chat_model
from .policy import AuditLog, Decision, Policy, policy_guardrail
from .policy import aguard as policy_aguard
from .policy import guard as policy_guard
from .types import CheckReport

if TYPE_CHECKING:
    from .guardrail import BatchItem, Guardrail
    from .streaming import CheckedSegment, StreamGuard

__all__ = ["Pipeline", "PipelineCache"]

#: "Leave this part as it is" in ``Pipeline.replace`` (None is a value there: no LLM, no audit).
_KEEP: Any = object()


class Pipeline:
    """The guarded pipeline of one tenant: check -> decide -> regenerate -> audit, for one answer
    (``guard`` / ``aguard``), many (``guard_batch``) or a stream (``stream`` / ``astream`` / ``stream_guard``).

    Args:
        guardrail: the checking engine. A ``Guardrail`` (or its bound ``check`` / ``acheck``) is resolved
            here, once, to the guardrail the policy's ``verification`` section asks for
            (``policy_guardrail``: the caller's own when the section is the default); that is
            ``self.guardrail``. Any other object with ``check`` (and optionally an async ``acheck``), or
            a callable ``check(answer, context[, question]) -> CheckReport``, sync or async, is used as
            it is (``self.guardrail`` is None); a report of its without the double check the policy asks
            for lists that check as skipped, for the failure mode to decide.
        policy: the tenant's policy.
        llm: the rewrite model for regeneration (a ``guardrail.llm.ChatModel`` or a LangChain chat
            model), made one whose calls take the policy's per-call budget once, here
            (``guardrail.llm.as_chat_model``); None: a decision to regenerate takes the policy's fallback.
        audit: the ``AuditLog`` each decision is recorded in, once per decision; None: not recorded.
        tenant: the tenant's name, in audit rows and spans.

    Thresholds and citations: the policy decides, the engine measures. Nothing is copied between the
    two here, and the pipeline configures neither.

    - A decision flags a claim whose hallucination score reaches ``policy.claims.score_threshold``.
      When the policy sets none, the engine's threshold is that bar: ``Guardrail(threshold=...)``, by
      default its verifier's recommended operating point, which each report carries as
      ``CheckReport.threshold``. A policy threshold below the engine's also flags the claims the
      verifier called supported only because its own bar was higher (a threshold fitted for recall
      by ``guardrail calibrate``). ``report.hallucinated`` / ``report.flagged`` are the engine's view
      at its own threshold; ``decision.analysis.flagged`` is the policy's, and the one that acts.
    - The engine's ``check_citations`` / ``require_citations`` say what a report measures (markers,
      quotes, whether the cited passage supports the claim; claims without a marker); the policy's
      ``citations`` section says what a missing or invalid citation does. A policy that needs the
      measurement from an engine that did not take it (citation checks off while claims cite) gets a
      skipped "citations" check, decided by its failure mode, never a silent pass; uncited claims are
      read from the claims' own markers, so ``citations.required`` holds whatever the engine's
      ``require_citations`` says.
    """

    _check: Callable[..., Any]  # check(answer, context[, question]) as guard calls it
    _acheck: Callable[..., Any]  # the same for aguard: async, or blocking (then run in a worker thread)

    def __init__(self, guardrail: Any, policy: Policy, *, llm: Any = None, audit: AuditLog | None = None,
                 tenant: str = "default") -> None:
        if not isinstance(policy, Policy):
            raise ConfigError(f"a pipeline needs a Policy, got {type(policy).__name__}", field="policy")
        engine = _engine(guardrail)
        self.policy = policy
        self.guardrail: Guardrail | None = policy_guardrail(engine, policy) if engine is not None else None
        self._check, self._acheck = _checks(self.guardrail) if self.guardrail is not None else _given_checks(guardrail)
        self.llm = _chat(llm)
        self.audit = audit
        self.tenant = tenant

    def __repr__(self) -> str:
        engine = self.guardrail.verifier.name if self.guardrail is not None else "custom check"
        return f"Pipeline(tenant={self.tenant!r}, policy={self.policy.name!r}, engine={engine!r})"

    def replace(self, *, check: Any = _KEEP, llm: Any = _KEEP, audit: Any = _KEEP) -> Pipeline:
        """This pipeline with some parts swapped and nothing resolved again.

        ``llm`` / ``audit``: for one call (an invocation's traced chat model; a stream, which records
        its decisions itself). ``check``: run the checks another way, e.g. the service runs
        ``self.guardrail.check`` in its worker pool under each request's deadline; the copy has no
        engine of its own then, so its ``guard_batch`` checks one answer at a time.
        """
        other = copy.copy(self)
        if check is not _KEEP:
            if not callable(check):
                raise ConfigError(f"check must be callable, got {type(check).__name__}", field="check")
            other.guardrail, other._check, other._acheck = None, check, check
        if llm is not _KEEP:
            other.llm = _chat(llm)
        if audit is not _KEEP:
            other.audit = audit
        return other

    # ------------------------------------------------------------------ one answer

    def guard(self, answer: str, context: Any, *, question: str | None = None, request_id: str | None = None) -> Decision:
        """Check ``answer`` against ``context`` and decide what to show (blocking).

        A check that fails becomes a decision under the policy's failure mode; only the caller's own
        mistakes (``InputError``, ``ConfigError``) raise. The decision is recorded once when there is an
        audit log, under ``request_id``.
        """
        return policy_guard(answer, context, check=self._check, policy=self.policy, llm=self.llm, audit=self.audit,
                            tenant=self.tenant, question=question, request_id=request_id)

    async def aguard(self, answer: str, context: Any, *, question: str | None = None,
                     request_id: str | None = None) -> Decision:
        """``guard`` for the event loop: the engine's ``acheck`` is awaited (a blocking check runs in a worker
        thread), the LLM is asked through ``achat``, the audit write runs off the loop."""
        return await policy_aguard(answer, context, check=self._acheck, policy=self.policy, llm=self.llm,
                                   audit=self.audit, tenant=self.tenant, question=question, request_id=request_id)

    # ------------------------------------------------------------------ many answers

    def guard_batch(self, items: Iterable[BatchItem | dict[str, Any]], *, chunk_size: int = 16
                    ) -> Iterator[Decision | InputError]:
        """One decision per item (``BatchItem`` or its dict), in order, as each chunk is decided.

        With an engine, the claims of ``chunk_size`` answers are verified in one batched call
        (``Guardrail.check_batch``), then each answer is decided (and regenerated, and recorded under
        its ``id``) like ``guard`` would. An item's own mistake (empty answer, bad field) is yielded in its
        place as the ``InputError``, never stopping the batch; a check that failed is a decision under the
        failure mode, as in ``guard``.
        """
        raws = list(items)
        outcomes: Iterable[CheckReport | Exception | None] = (
            self.guardrail.check_batch(raws, chunk_size=chunk_size) if self.guardrail is not None else [None] * len(raws)
        )
        for index, (raw, checked) in enumerate(zip(raws, outcomes)):
            if isinstance(checked, InputError):  # the engine could not take the item (bad field, empty answer)
                yield checked
                continue
            try:
                item = _batch_item(raw, index)
                outcome: Decision | InputError = policy_guard(
                    item.response, item.context, check=self._check, policy=self.policy, llm=self.llm, audit=self.audit,
                    tenant=self.tenant, question=item.question, request_id=item.id, checked=checked)
            except InputError as exc:  # without an engine, the item's own mistake shows here
                outcome = exc
            yield outcome

    # ------------------------------------------------------------------ streams

    def stream_guard(self, context: Any, *, question: str | None | Callable[[], str | None] = None,
                     request_id: str | None = None) -> StreamGuard:
        """The state of one checked stream (``guardrail.streaming.StreamGuard``), for a caller that drives it
        (``run_stream`` / ``arun_stream``) and reads the whole answer's ``decision`` afterwards.
        ``context`` and ``question`` may be zero-argument callables (evidence that arrives while the answer streams).
        """
        from .streaming import StreamGuard  # streaming is built on the pipeline: imported when a stream starts

        return StreamGuard(context, pipeline=self, question=question, request_id=request_id)

    def stream(self, chunks: Iterable[str | bytes], context: Any, *, question: str | None = None,
               request_id: str | None = None) -> Iterator[CheckedSegment]:
        """Check a streamed answer sentence by sentence; yields each segment once it may be shown."""
        from .streaming import run_stream

        yield from run_stream(self.stream_guard(context, question=question, request_id=request_id), chunks)

    async def astream(self, chunks: AsyncIterable[str | bytes] | Iterable[str | bytes], context: Any, *,
                      question: str | None = None, request_id: str | None = None) -> AsyncIterator[CheckedSegment]:
        """Async ``stream``: the upstream is read while a sentence is being checked."""
        from .streaming import arun_stream

        async for segment in arun_stream(self.stream_guard(context, question=question, request_id=request_id), chunks):
            yield segment


class PipelineCache:
    """The ``Pipeline`` of each tenant, built on first use and built again when the tenant's policy changes.

    Adapters look a tenant's policy up per call (a ``PolicyStore`` reloads an edited file) and ask here
    for its pipeline: the same policy, or one with the same content hash, gets the pipeline already
    built, so the policy's guardrail is resolved once per policy version. Thread-safe; a pipeline is
    built outside the lock (resolving a verification section may load a model), and the least recently
    used tenant is dropped past ``max_tenants``.
    """

    def __init__(self, guardrail: Any, *, llm: Any = None, audit: AuditLog | None = None, max_tenants: int = 1024) -> None:
        self.guardrail, self.llm, self.audit, self.max_tenants = guardrail, llm, audit, max_tenants
        self._lock = threading.Lock()
        self._built: OrderedDict[str, Pipeline] = OrderedDict()

    def get(self, tenant: str, policy: Policy) -> Pipeline:
        with self._lock:
            found = self._built.get(tenant)
            if found is not None and (found.policy is policy or found.policy.content_hash == policy.content_hash):
                self._built.move_to_end(tenant)
                return found
        built = Pipeline(self.guardrail, policy, llm=self.llm, audit=self.audit, tenant=tenant)
        with self._lock:
            self._built[tenant] = built
            self._built.move_to_end(tenant)
            while len(self._built) > self.max_tenants:
                self._built.popitem(last=False)
        return built


# --------------------------------------------------------------------------- helpers


def _chat(llm: Any) -> OpenAIChat | BoundedChat | None:
    """The rewrite model, resolved once per pipeline (a model it cannot use is a ``ConfigError`` here)."""
    return as_chat_model(llm) if llm is not None else None


def _engine(guardrail: Any) -> Guardrail | None:
    """The ``Guardrail`` behind ``guardrail``: itself, or the owner of its bound ``check`` / ``acheck``."""
    facade = sys.modules.get("guardrail.guardrail")  # not loaded: no Guardrail exists yet, so nothing to resolve
    if facade is None:
        return None
    for candidate in (guardrail, getattr(guardrail, "__self__", None)):
        if isinstance(candidate, facade.Guardrail):
            return candidate
    return None


def _checks(engine: Guardrail) -> tuple[Callable[..., CheckReport], Callable[..., Any]]:
    """The resolved engine's check and acheck, as plain functions.

    Not its bound methods: ``guard`` resolves a bound ``Guardrail.check`` for the policy as it goes
    (``policy_check``), and these are already what the policy asks for.
    """

    def check(*args: Any) -> CheckReport:
        return engine.check(*args)

    async def acheck(*args: Any) -> CheckReport:
        return await engine.acheck(*args)

    return check, acheck


def _given_checks(checker: Any) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """Check and async check of an object with ``check`` (and maybe ``acheck``), or of a check callable."""
    check = getattr(checker, "check", None)
    if callable(check):
        acheck = getattr(checker, "acheck", None)
        return check, acheck if callable(acheck) else check
    if callable(checker):
        return checker, checker
    raise ConfigError(f"guardrail must be a Guardrail or a check callable, got {type(checker).__name__}", field="guardrail")


def _batch_item(raw: Any, index: int) -> BatchItem:
    """``raw`` as a ``BatchItem``; an ``InputError`` naming the item when it is not one."""
    from .guardrail import BatchItem  # the facade (evidence stack) is loaded only when a batch is guarded

    if isinstance(raw, BatchItem):
        return raw
    try:
        return BatchItem.model_validate(raw)
    except ValidationError as exc:
        raise InputError(f"batch item {index}: {exc.errors()[0].get('msg')}") from exc
