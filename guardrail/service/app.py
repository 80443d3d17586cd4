"""``create_app(settings)``: the ASGI application of ``guardrail serve``.

The factory wires the concerns kept in their own modules (settings, auth, limits, workers,
metrics, logs, routes, errors) and owns the lifecycle: models load in the background after
start-up (``/readyz`` is 503 until then); at shutdown, after uvicorn has drained the requests in
flight, the worker pool stops and the audit log is closed.

``--workers N`` runs N processes; each builds its app with ``app_from_env`` from the settings the
parent put in ``GUARDRAIL_SERVICE_SETTINGS`` (uvicorn needs an import string to start workers).
"""

from __future__ import annotations

import asyncio
import os
import re
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .. import __version__
from ..guardrail import Guardrail
from ..tracing import span
from .errors import install_error_handlers
from .limits import BodySizeLimit
from .logs import request_id_var
from .metrics import ServiceMetrics
from .routes import router
from .runtime import Service
from .settings import ServiceSettings

__all__ = ["create_app", "app_from_env", "SETTINGS_ENV"]

#: Environment variable carrying the JSON settings to worker processes.
SETTINGS_ENV = "GUARDRAIL_SERVICE_SETTINGS"

# A caller-supplied X-Request-ID is kept (to join logs across services) only when it is short and plain.
_REQUEST_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")


class RequestContext:
    """ASGI middleware: request id (header in, header out, in every log line), a span, and the
    request metrics, for every response including errors and streams."""

    def __init__(self, app: ASGIApp, metrics: ServiceMetrics):
        self.app, self.metrics = app, metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = dict(scope.get("headers") or []).get(b"x-request-id", b"").decode("latin-1")
        request_id = given if _REQUEST_ID.match(given) else uuid.uuid4().hex
        token = request_id_var.set(request_id)
        scope.setdefault("state", {})
        status = [500]
        started = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"x-request-id", request_id.encode())]
            await send(message)

        try:
            with span("request", method=scope.get("method"), path=scope.get("path"), request_id=request_id):
                await self.app(scope, receive, send_with_id)
        finally:
            route = getattr(scope.get("route"), "path", None) or "unmatched"  # bounded label values
            tenant = scope["state"].get("tenant", "-")
            self.metrics.requests.labels(route, tenant, str(status[0])).inc()
            self.metrics.latency.labels(route).observe(time.perf_counter() - started)
            request_id_var.reset(token)


def create_app(
    settings: ServiceSettings,
    *,
    guardrail: Guardrail | None = None,
    make_guardrail: Callable[[], Guardrail] | None = None,
    llm: Any = None,
) -> FastAPI:
    """The app for ``settings``. ``guardrail`` (ready at once) or ``make_guardrail`` (loaded in the
    background) replace the one built from ``settings.verifier``: tests inject failing or slow verifiers."""
    service = Service(settings, guardrail=guardrail, make_guardrail=make_guardrail, llm=llm)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        loading = asyncio.create_task(service.load())
        try:
            yield
        finally:
            if not loading.done():
                loading.cancel()
            await service.close()

    app = FastAPI(
        title="rag-guardrail",
        version=__version__,
        description="Checks RAG answers against their retrieved context and decides what to show under each tenant's policy.",
        lifespan=lifespan,
    )
    app.state.service = service
    install_error_handlers(app)
    app.include_router(router)
    # Added last = outermost: the request context sees every response, the 413s of the body limit included.
    app.add_middleware(BodySizeLimit, max_bytes=max(t.max_body_bytes for t in settings.tenants.values()))
    app.add_middleware(RequestContext, metrics=service.metrics)
    return app


def app_from_env() -> FastAPI:
    """Factory for uvicorn worker processes (``--workers N``)."""
    raw = os.environ.get(SETTINGS_ENV)
    if not raw:
        raise RuntimeError(f"{SETTINGS_ENV} is not set: start the server with `guardrail serve`")
    return create_app(ServiceSettings.model_validate_json(raw))
