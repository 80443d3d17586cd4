"""The objects one server process shares between requests, and whether it is ready to serve.

Everything per request (the tenant, its policy, the deadline) is looked up per call; what a
tenant's policy builds (its ``guardrail.Pipeline``: the verifier the policy asks for, resolved once)
is kept until the policy file changes. The service stays stateless across requests: several processes (``--workers``) or replicas behind a
load balancer serve the same tenants from the same policy directory and the same audit file
(SQLite in WAL mode takes appends from several processes).

The guardrail's models load in a background thread after the server has started, so that
``/healthz`` answers at once and ``/readyz`` says 503 until inference can run.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel, Field

from ..errors import InputError
from ..guardrail import Guardrail
from ..pipeline import Pipeline, PipelineCache
from ..policy import AuditLog, DriftConfig, Policy, PolicyStore
from ..types import CheckReport
from .auth import Authenticator
from .errors import ApiError
from .limits import ConcurrencyLimiter
from .metrics import ServiceMetrics
from .settings import ServiceSettings, TenantSettings
from .workers import DeadlineExceeded, WorkerPool

__all__ = ["Service", "ReadyReport"]

log = logging.getLogger("guardrail.service")


class ReadyReport(BaseModel):
    """Body of ``/readyz``: ready only when models are loaded, every tenant has a policy and the audit is writable."""

    ready: bool
    models: str = Field(description="loaded, loading, or the load error.")
    verifier: str | None = None
    policies: dict[str, str] = Field(description="Tenant -> 'ok <hash>' or why its policy cannot be served.")
    policy_errors: dict[str, str] = Field(
        default_factory=dict,
        description="Tenants served by their last good policy because the current file is broken (ready, but fix it).",
    )
    audit: str = Field(description="writable, or why not.")


def _make_llm(settings: ServiceSettings) -> Any:
    if not settings.llm_base_url:
        return None
    if not settings.llm_model:
        raise InputError("llm_base_url needs llm_model")
    from ..llm import OpenAIChat

    return OpenAIChat(base_url=settings.llm_base_url, model=settings.llm_model, timeout_s=settings.llm_timeout_s,
                      response_format=settings.llm_response_format)


class Service:
    """Settings, policies, audit, worker pool, limits and metrics of one server process."""

    def __init__(self, settings: ServiceSettings, *, guardrail: Guardrail | None = None,
                 make_guardrail: Callable[[], Guardrail] | None = None, llm: Any = None):
        self.settings = settings
        self.auth = Authenticator(settings.tenants, required=settings.auth_required)
        self.limiter = ConcurrencyLimiter(settings.tenants)
        self.metrics = ServiceMetrics()
        self.pool = WorkerPool(settings.worker_threads)
        # Keyless mode serves the default tenant only: the built-in policy when there is no default.yaml.
        # With keys, a tenant without a policy file is an error on /readyz, never the default's rules.
        self.store = PolicyStore(settings.policies, fallback_to_default=not settings.auth_required, check_interval_s=1.0)
        self.audit = AuditLog(settings.audit_file())
        self.llm = llm if llm is not None else _make_llm(settings)
        # Set together when the models are ready: the tenants' pipelines are built around the guardrail.
        self.pipelines: PipelineCache | None = self._pipelines(guardrail) if guardrail is not None else None
        self.guardrail: Guardrail | None = guardrail
        self.load_error: str | None = None
        longest = max(t.timeout_s for t in settings.tenants.values())
        self._make_guardrail = make_guardrail or (lambda: Guardrail(settings.verifier, verifier_timeout_s=longest))

    # ---------------------------------------------------------------- lifecycle

    async def load(self) -> None:
        """Load the models off the event loop; a failure is reported on /readyz, not raised."""
        if self.guardrail is not None:
            return
        try:
            guardrail = await asyncio.to_thread(self._make_guardrail)
            self.pipelines = self._pipelines(guardrail)
            self.guardrail = guardrail
            log.info("models loaded (verifier %s)", guardrail.verifier.name)
        except Exception as exc:  # noqa: BLE001 - reported as not ready, with the reason
            self.load_error = f"{type(exc).__name__}: {exc}"
            log.error("models failed to load: %s", self.load_error)

    def _pipelines(self, guardrail: Guardrail) -> PipelineCache:
        return PipelineCache(guardrail, llm=self.llm, audit=self.audit)

    def refresh_drift(self) -> None:
        """Per-tenant hallucination rate and CUSUM from the audit log, for /metrics (read at scrape time)."""
        for tenant, ts in self.settings.tenants.items():
            config = DriftConfig(target_rate=ts.drift_target) if ts.drift_target is not None else None
            self.metrics.observe_drift(tenant, self.audit.summary(tenant, drift=config))

    async def close(self) -> None:
        """After the server drained its requests: stop the pool and close the audit (rows are committed per write)."""
        self.pool.shutdown()
        await asyncio.to_thread(self.audit.close)

    # ---------------------------------------------------------------- per request

    def ready_guardrail(self) -> Guardrail:
        if self.guardrail is None:
            message = f"models failed to load: {self.load_error}" if self.load_error else "models are loading"
            raise ApiError(503, "not_ready", message, headers={"Retry-After": "2"})
        return self.guardrail

    def tenant_settings(self, tenant: str) -> TenantSettings:
        return self.settings.tenants[tenant]

    def policy_for(self, tenant: str) -> Policy:
        """The tenant's current policy (hot-reloaded; a broken edit keeps the last good one)."""
        policy = self.store.get(tenant)
        broken = self.store.errors().get(tenant)
        self.metrics.policy_errors.labels(tenant).set(1 if broken else 0)
        return policy

    def pipeline_for(self, tenant: str) -> Pipeline:
        """The tenant's pipeline under its current policy, shared until the policy changes.

        Building one resolves the verifier the policy's verification section asks for, which may load a
        model the first time: call it off the event loop.
        """
        self.ready_guardrail()
        assert self.pipelines is not None  # set with the guardrail
        return self.pipelines.get(tenant, self.policy_for(tenant))

    def bounded_check(self, tenant: str, route: str, deadline: float, schema: dict | None = None,
                      guardrail: Guardrail | None = None) -> Callable[..., Awaitable[CheckReport]]:
        """``check(answer, context[, question])`` in the worker pool, within the request's deadline.

        ``guardrail``: the one to check with (a tenant pipeline's, for its policy); None: the service's own.
        """
        engine = guardrail if guardrail is not None else self.ready_guardrail()
        loop = asyncio.get_running_loop()

        def run(answer: str, context: Any, question: str | None) -> CheckReport:
            return engine.check(answer, context, question, schema=schema)

        async def check(answer: str, context: Any, question: str | None = None) -> CheckReport:
            try:
                return await self.pool.run(run, answer, context, question, timeout=deadline - loop.time())
            except DeadlineExceeded:
                self.metrics.deadlines.labels(tenant, route).inc()
                log.warning("deadline exceeded", extra={"tenant": tenant, "route": route})
                raise

        return check

    # ---------------------------------------------------------------- readiness

    async def readiness(self) -> ReadyReport:
        models = "loaded" if self.guardrail is not None else (self.load_error or "loading")
        policies: dict[str, str] = {}
        for tenant in self.settings.tenants:
            try:
                policy = await asyncio.to_thread(self.policy_for, tenant)
                policies[tenant] = f"ok {policy.name} {policy.content_hash[:12]}"
            except Exception as exc:  # noqa: BLE001 - the reason is the report
                policies[tenant] = f"error: {exc}"
        audit_path = self.audit.path
        audit = "writable" if os.access(audit_path, os.W_OK) and os.access(audit_path.parent, os.W_OK) else \
            f"not writable: {audit_path}"
        ready = self.guardrail is not None and audit == "writable" and all(v.startswith("ok ") for v in policies.values())
        return ReadyReport(
            ready=ready, models=models, verifier=self.guardrail.verifier.name if self.guardrail is not None else None,
            policies=policies, policy_errors=self.store.errors(), audit=audit,
        )
