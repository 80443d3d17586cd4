"""Per-tenant limits: request size (413) and requests in flight (429).

Why refuse instead of queue: a tenant that sends more than its share would otherwise fill the
worker pool's queue and make every other tenant wait behind it. A 429 with ``Retry-After`` tells
its client to back off, and the other tenants' latency does not move.

The body limit is enforced twice: an ASGI wrapper caps every body at the largest tenant limit
while it is being received (a chunked upload without Content-Length is cut as soon as it goes
over, never buffered whole), and the route checks the caller's own tenant limit once the tenant
is known. Field sizes beyond ``guardrail.limits.LIMITS`` are 413 too, naming the field.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..limits import LIMITS
from .errors import ApiError, error_response
from .settings import TenantSettings

__all__ = ["BodySizeLimit", "ConcurrencyLimiter", "check_body_size", "check_field_sizes"]


class BodySizeLimit:
    """ASGI middleware: 413 for a body over ``max_bytes``, by Content-Length or while it streams in."""

    def __init__(self, app: ASGIApp, max_bytes: int):
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.max_bytes:
            await _send_413(send, self.max_bytes)
            return
        received = 0

        async def limited() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    # An HTTPException is what FastAPI lets through from body parsing unchanged.
                    raise HTTPException(413, f"request body over {self.max_bytes:,} bytes")
            return message

        await self.app(scope, limited, send)


async def _send_413(send: Send, max_bytes: int) -> None:
    response = error_response(413, "too_large", f"request body over {max_bytes:,} bytes")
    await send({"type": "http.response.start", "status": 413, "headers": response.raw_headers})
    await send({"type": "http.response.body", "body": response.body})


def check_body_size(body_bytes: int, settings: TenantSettings) -> None:
    if body_bytes > settings.max_body_bytes:
        raise ApiError(413, "too_large", f"request body over this tenant's {settings.max_body_bytes:,} bytes")


def check_field_sizes(**fields: str | None) -> None:
    """413 naming the field when an answer or question is over ``LIMITS`` (context: the body limit).

    Field names are paths (``items[3].response``); the last part picks the bound. ``chunks`` is a
    streamed answer, bounded as a whole."""
    bounds = {"answer": LIMITS.max_answer_chars, "response": LIMITS.max_answer_chars, "chunks": LIMITS.max_answer_chars,
              "question": LIMITS.max_question_chars}
    for name, value in fields.items():
        bound = bounds.get(name.split(".")[-1].split("[")[0])
        if value is not None and bound is not None and len(value) > bound:
            raise ApiError(413, "too_large", f"{name} is over {bound:,} characters ({len(value):,})", field=name)


class ConcurrencyLimiter:
    """Requests in flight per tenant; over the tenant's ``max_concurrency`` -> 429 at once.

    Counted on the event loop only (no await between the test and the increment), so no lock.
    """

    def __init__(self, tenants: dict[str, TenantSettings]):
        self.tenants = tenants
        self.in_flight: dict[str, int] = {t: 0 for t in tenants}

    def acquire(self, tenant: str) -> None:
        limit = self.tenants[tenant].max_concurrency
        if self.in_flight.get(tenant, 0) >= limit:
            raise ApiError(429, "too_many_requests", f"tenant {tenant!r} already has {limit} requests in flight",
                           headers={"Retry-After": "1"})
        self.in_flight[tenant] = self.in_flight.get(tenant, 0) + 1

    def release(self, tenant: str) -> None:
        self.in_flight[tenant] -= 1

    @asynccontextmanager
    async def slot(self, tenant: str) -> AsyncIterator[None]:
        self.acquire(tenant)
        try:
            yield
        finally:
            self.release(tenant)
