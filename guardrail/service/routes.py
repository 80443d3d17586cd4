"""The HTTP API, version 1: thin adapters from JSON bodies to the library's calls.

Every route does the same four things and nothing else: resolve the caller's tenant from its
key (``auth``), refuse what is over the tenant's limits (``limits``), run the check in the worker
pool within the tenant's deadline (``runtime.Service.bounded_check``), and answer with the
library's own models (``CheckReport``, ``Decision``, ``CheckedSegment``). Deciding what to show is the
tenant's ``guardrail.Pipeline``'s job (built once per policy version, its checks run in the pool), streaming
is ``guardrail.streaming``'s; nothing is re-implemented here.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import StreamingResponse
from starlette.background import BackgroundTask
from prometheus_client import CONTENT_TYPE_LATEST
from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..errors import InputError
from ..evidence import normalize_context
from ..guardrail import BatchItem, Guardrail
from ..pipeline import Pipeline
from ..policy import Decision
from ..streaming import StreamGuard, arun_stream
from ..types import CheckReport
from .auth import Authenticator
from .errors import ApiError, ErrorBody, ErrorDetail
from .limits import check_body_size, check_field_sizes
from .logs import request_id_var
from .runtime import ReadyReport, Service
from .settings import TenantSettings
from .workers import DeadlineExceeded

__all__ = ["router"]

log = logging.getLogger("guardrail.service")

router = APIRouter()

_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody, "description": why}
    for code, why in [(401, "Missing or unknown API key."), (403, "The key may not use that tenant."),
                      (413, "Body or field over the limit."), (422, "Bad input."), (429, "Tenant concurrency limit."),
                      (503, "Not ready, or the tenant's policy cannot be served.")]
}

# --------------------------------------------------------------------------------------------- bodies


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    context: Any = Field(default=None, description="Retrieved context: a string, a list of strings, or documents ({text, id, ...}).")
    question: str | None = Field(default=None, description="The user's question, if any.")
    tenant: str | None = Field(default=None, description="Must be the key's own tenant when given (403 otherwise).")


class CheckRequest(_Body):
    answer: str = Field(description="The answer to check.")
    json_schema: dict[str, Any] | None = Field(default=None, alias="schema",
                                               description="JSON Schema a JSON answer must satisfy.")


class GuardRequest(CheckRequest):
    pass


class StreamRequest(_Body):
    """The answer as the model streamed it: ``chunks`` (released sentence by sentence), or ``answer`` whole."""

    chunks: list[str] | None = Field(default=None, description="The streamed chunks, in order.")
    answer: str | None = Field(default=None, description="The whole answer, when it is not in chunks.")

    @model_validator(mode="after")
    def _one_source(self) -> "StreamRequest":
        if (self.chunks is None) == (self.answer is None):
            raise ValueError("give exactly one of 'chunks' and 'answer'")
        return self

    def text_chunks(self) -> list[str]:
        return self.chunks if self.chunks is not None else [self.answer or ""]


class BatchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    items: list[BatchItem] = Field(description="Answers to check; their claims are verified in shared batches.")
    tenant: str | None = None


class GuardResponse(BaseModel):
    request_id: str = Field(description="Id of this decision in the audit log: GET /v1/decisions/{request_id}.")
    decision: Decision


class BatchResult(BaseModel):
    id: str | None = None
    report: CheckReport | None = None
    error: ErrorDetail | None = None


class BatchResponse(BaseModel):
    results: list[BatchResult]


class DecisionRecord(BaseModel):
    request_id: str
    tenant: str
    ts: float = Field(description="Unix time the decision was recorded.")
    audit_id: int
    decision: Decision


# --------------------------------------------------------------------------------------------- caller


@dataclass
class Caller:
    service: Service
    tenant: str
    settings: TenantSettings
    request_id: str


async def caller(request: Request) -> Caller:
    """Authenticate, then check the tenant's body limit; the request id was set by the middleware."""
    service: Service = request.app.state.service
    tenant = service.auth.tenant_of(request)
    request.state.tenant = tenant
    settings = service.tenant_settings(tenant)
    check_body_size(len(await request.body()), settings)
    return Caller(service, tenant, settings, request_id_var.get())


def _deadline(c: Caller) -> float:
    return asyncio.get_running_loop().time() + c.settings.timeout_s


def _admit(c: Caller, requested_tenant: str | None, **fields: str | None) -> None:
    Authenticator.check_requested(c.tenant, requested_tenant)
    check_field_sizes(**fields)
    c.service.ready_guardrail()


# --------------------------------------------------------------------------------------------- routes


@router.post("/v1/check", response_model=CheckReport, responses=_ERRORS, tags=["check"])
async def check(body: CheckRequest, c: Caller = Depends(caller)) -> CheckReport:
    """Check an answer's claims against the context: the report, no policy applied."""
    _admit(c, body.tenant, answer=body.answer, question=body.question)
    async with _slot(c):
        run = c.service.bounded_check(c.tenant, "check", _deadline(c), schema=body.json_schema)
        try:
            report = await run(body.answer, body.context, body.question)
        except DeadlineExceeded as exc:
            # No policy is in play here, so there is no fail mode to answer with: say so.
            raise ApiError(504, "deadline_exceeded", str(exc)) from exc
    c.service.metrics.observe_report(c.tenant, report)
    return report


@router.post("/v1/guard", response_model=GuardResponse, responses=_ERRORS, tags=["guard"])
async def guard(body: GuardRequest, c: Caller = Depends(caller)) -> GuardResponse:
    """Check -> decide -> (regenerate) -> audit under the caller's tenant policy. A check that fails or
    passes its deadline is decided by the policy's fail mode (fail-closed by default)."""
    _admit(c, body.tenant, answer=body.answer, question=body.question)
    pipeline = await _pipeline(c)
    async with _slot(c):
        check = c.service.bounded_check(c.tenant, "guard", _deadline(c), schema=body.json_schema, guardrail=pipeline.guardrail)
        decision = await pipeline.replace(check=check).aguard(body.answer, body.context, question=body.question,
                                                              request_id=c.request_id)
    c.service.metrics.observe_decision(c.tenant, decision)
    return GuardResponse(request_id=c.request_id, decision=decision)


@router.post("/v1/guard/stream", responses={**_ERRORS, 200: {"content": {"text/event-stream": {}}}}, tags=["guard"])
async def guard_stream(body: StreamRequest, c: Caller = Depends(caller)) -> StreamingResponse:
    """Server-sent events: ``segment`` (a CheckedSegment, without its decision) as each sentence is
    released, then ``decision`` (GuardResponse: the whole answer's decision), or ``error`` (ErrorBody)."""
    _admit(c, body.tenant, answer=body.answer, question=body.question,
           chunks=None if body.chunks is None else "".join(body.chunks))
    # Bad context is a 422 now, before the 200 of the event stream is sent, not an error event later.
    normalize_context(body.context)
    pipeline = await _pipeline(c)
    release = _hold(c)  # until the stream ends: released by _events, or after the response if it never started
    # Each sentence's check gets the tenant's full deadline: a stream is as long as the answer.
    sg = pipeline.replace(check=_per_check_deadline(c, pipeline.guardrail)).stream_guard(
        body.context, question=body.question, request_id=c.request_id)
    return StreamingResponse(_events(c, sg, body.text_chunks(), release), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
                             background=BackgroundTask(release))


async def _pipeline(c: Caller) -> Pipeline:
    """The caller's tenant pipeline; off the event loop, since the first one for a policy may load its verifier."""
    return await asyncio.to_thread(c.service.pipeline_for, c.tenant)


def _per_check_deadline(c: Caller, guardrail: Guardrail | None):
    async def check(answer: str, context: Any, question: str | None = None) -> CheckReport:
        return await c.service.bounded_check(c.tenant, "stream", _deadline(c), guardrail=guardrail)(answer, context, question)

    return check


def _sse(event: str, data: str) -> str:
    return f"event: {event}\ndata: {data}\n\n"


async def _events(c: Caller, sg: StreamGuard, chunks: list[str], release: Callable[[], None]) -> AsyncIterator[str]:
    token = request_id_var.set(c.request_id)  # the response body is sent outside the route's context
    try:
        async for segment in arun_stream(sg, chunks):
            yield _sse("segment", segment.model_dump_json(exclude={"decision"}))
        if sg.decision is not None:
            c.service.metrics.observe_decision(c.tenant, sg.decision)
            yield _sse("decision", GuardResponse(request_id=c.request_id, decision=sg.decision).model_dump_json())
    except InputError as exc:
        yield _sse("error", ErrorBody(error=ErrorDetail(code="invalid_input", message=str(exc))).model_dump_json())
    except Exception:  # noqa: BLE001 - the status line is sent; the client gets the error event, the log the trace
        log.exception("stream failed")
        detail = ErrorDetail(code="internal", message=f"internal error; request id {c.request_id}")
        yield _sse("error", ErrorBody(error=detail).model_dump_json())
    finally:
        release()
        request_id_var.reset(token)


@router.post("/v1/batch", response_model=BatchResponse, responses=_ERRORS, tags=["check"])
async def batch(body: BatchRequest, c: Caller = Depends(caller)) -> BatchResponse:
    """Check many answers; claims are verified in shared model batches. One item's bad input is
    that item's error, never the batch's."""
    limit = c.service.settings.max_batch_items
    if len(body.items) > limit:
        raise ApiError(413, "too_large", f"{len(body.items)} items; at most {limit} per batch", field="items")
    _admit(c, body.tenant, **{f"items[{i}].response": it.response for i, it in enumerate(body.items)},
           **{f"items[{i}].question": it.question for i, it in enumerate(body.items)})
    guardrail = c.service.ready_guardrail()
    async with _slot(c):
        try:
            out = await c.service.pool.run(lambda: list(guardrail.check_batch(body.items)),
                                           timeout=c.settings.timeout_s)
        except DeadlineExceeded as exc:
            c.service.metrics.deadlines.labels(c.tenant, "batch").inc()
            raise ApiError(504, "deadline_exceeded", str(exc)) from exc
    results = []
    for item, result in zip(body.items, out):
        if isinstance(result, CheckReport):
            c.service.metrics.observe_report(c.tenant, result)
            results.append(BatchResult(id=item.id, report=result))
        else:
            code = "invalid_input" if isinstance(result, InputError) else "check_failed"
            results.append(BatchResult(id=item.id, error=ErrorDetail(code=code, message=str(result))))
    return BatchResponse(results=results)


@router.get("/v1/decisions/{request_id}", response_model=DecisionRecord, responses=_ERRORS, tags=["audit"])
async def decision(request_id: str, c: Caller = Depends(caller)) -> DecisionRecord:
    """A decision from the audit log, by the request id /v1/guard returned. Another tenant's
    decision is 404, exactly like one that does not exist: its existence is not disclosed."""
    record = await asyncio.to_thread(c.service.audit.find, request_id, c.tenant)
    if record is None:
        raise ApiError(404, "not_found", f"no decision {request_id!r} for this tenant", field="request_id")
    return DecisionRecord(request_id=request_id, tenant=record.tenant, ts=record.ts, audit_id=record.id,
                          decision=record.decision())


@router.get("/healthz", tags=["ops"])
async def healthz() -> dict[str, str]:
    """Alive: the process answers (models may still be loading; see /readyz)."""
    return {"status": "alive"}


@router.get("/readyz", response_model=ReadyReport, responses={503: {"model": ReadyReport}}, tags=["ops"])
async def readyz(request: Request, response: Response) -> ReadyReport:
    """Ready: models loaded, every tenant's policy valid (a broken edit running on the last good
    policy is listed under policy_errors), audit writable. 503 otherwise."""
    report = await request.app.state.service.readiness()
    response.status_code = 200 if report.ready else 503
    return report


@router.get("/metrics", tags=["ops"])
async def metrics(request: Request) -> Response:
    """Prometheus exposition of the guardrail_* metrics."""
    service = request.app.state.service
    await asyncio.to_thread(service.refresh_drift)  # a read of the audit log, off the event loop
    return Response(service.metrics.render(), media_type=CONTENT_TYPE_LATEST)


# --------------------------------------------------------------------------------------------- helpers


def _acquire(c: Caller) -> None:
    """Take one of the tenant's concurrency slots (429 when none is free), counted in metrics either way."""
    try:
        c.service.limiter.acquire(c.tenant)
    except ApiError as exc:
        c.service.metrics.rejected.labels(c.tenant, exc.code).inc()
        raise
    c.service.metrics.in_flight.labels(c.tenant).inc()


def _release(c: Caller) -> None:
    c.service.limiter.release(c.tenant)
    c.service.metrics.in_flight.labels(c.tenant).dec()


def _hold(c: Caller) -> Callable[[], None]:
    """Acquire a slot; the returned release may be called any number of times, it releases once."""
    _acquire(c)
    held = [True]

    def release() -> None:
        if held[0]:
            held[0] = False
            _release(c)

    return release


@asynccontextmanager
async def _slot(c: Caller) -> AsyncIterator[None]:
    _acquire(c)
    try:
        yield
    finally:
        _release(c)
