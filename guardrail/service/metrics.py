"""Prometheus metrics, all named ``guardrail_*``, in a registry of the app's own.

Why a registry per app: two apps in one process (tests, an embedding application) would
otherwise share and double-count the global one. What an operator watches:

- traffic and errors: ``guardrail_requests_total{route,tenant,status}``, ``guardrail_request_seconds{route}``;
- where time goes: ``guardrail_stage_seconds{stage}`` from each report's ``latencies_ms``;
- what the guard decided: ``guardrail_actions_total{tenant,action}``, and the flagged-claim rate as
  ``guardrail_flagged_claims_total / guardrail_claims_total`` per tenant;
- what could not run: ``guardrail_verifier_failures_total{tenant,check}`` (skipped checks, failed
  guards), ``guardrail_deadline_exceeded_total{tenant,route}``, ``guardrail_rejected_total{tenant,reason}``;
- drift: ``guardrail_hallucination_rate{tenant}`` and, for a tenant with a ``drift_target`` in the key
  file, the audit log's CUSUM ``guardrail_drift_cusum{tenant}`` / ``guardrail_drift_alert{tenant}``;
- load: ``guardrail_in_flight{tenant}``; configuration: ``guardrail_policy_errors{tenant}`` (1 while a
  tenant runs on its last good policy because its file is broken).
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from ..policy import AuditSummary, Decision
from ..types import CheckReport

__all__ = ["ServiceMetrics"]

_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


class ServiceMetrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.requests = Counter("guardrail_requests_total", "HTTP requests served.", ["route", "tenant", "status"], registry=r)
        self.latency = Histogram("guardrail_request_seconds", "Request latency, end to end in the server.", ["route"],
                                 buckets=_LATENCY_BUCKETS, registry=r)
        self.stages = Histogram("guardrail_stage_seconds", "Time per pipeline stage (the report's latencies_ms).", ["stage"],
                                buckets=_LATENCY_BUCKETS, registry=r)
        self.actions = Counter("guardrail_actions_total", "Decisions by action.", ["tenant", "action"], registry=r)
        self.claims = Counter("guardrail_claims_total", "Claims checked.", ["tenant"], registry=r)
        self.flagged = Counter("guardrail_flagged_claims_total", "Claims flagged as hallucinated.", ["tenant"], registry=r)
        self.failures = Counter("guardrail_verifier_failures_total", "Checks that could not run (skipped or failed).",
                                ["tenant", "check"], registry=r)
        self.deadlines = Counter("guardrail_deadline_exceeded_total", "Checks past their tenant's deadline.",
                                 ["tenant", "route"], registry=r)
        self.rejected = Counter("guardrail_rejected_total", "Requests refused before any check ran.", ["tenant", "reason"], registry=r)
        self.in_flight = Gauge("guardrail_in_flight", "Requests being served.", ["tenant"], registry=r)
        self.policy_errors = Gauge("guardrail_policy_errors", "1 while the tenant runs on its last good policy (broken edit).",
                                   ["tenant"], registry=r)
        self.hallucination_rate = Gauge("guardrail_hallucination_rate", "Share of audited answers with a flagged claim.",
                                        ["tenant"], registry=r)
        self.drift = Gauge("guardrail_drift_cusum", "One-sided CUSUM of the hallucination rate above the tenant's target.",
                           ["tenant"], registry=r)
        self.drift_alert = Gauge("guardrail_drift_alert", "1 while the CUSUM is over its threshold.", ["tenant"], registry=r)

    def observe_drift(self, tenant: str, summary: AuditSummary) -> None:
        """The audit log's view of a tenant, read when /metrics is scraped (the log is the one record)."""
        if summary.hallucination_rate is not None:
            self.hallucination_rate.labels(tenant).set(summary.hallucination_rate)
        if summary.drift is not None:
            self.drift.labels(tenant).set(summary.drift.statistic)
            self.drift_alert.labels(tenant).set(1 if summary.drift.alert else 0)

    def observe_report(self, tenant: str, report: CheckReport) -> None:
        self.claims.labels(tenant).inc(len(report.claims))
        self.flagged.labels(tenant).inc(len(report.flagged))
        for stage, ms in report.latencies_ms.items():
            self.stages.labels(stage).observe(ms / 1e3)
        for skipped in report.skipped:
            self.failures.labels(tenant, skipped.check).inc()

    def observe_decision(self, tenant: str, decision: Decision) -> None:
        self.actions.labels(tenant, decision.action.value).inc()
        if decision.report is not None:
            self.observe_report(tenant, decision.report)
        elif decision.error is not None:
            self.failures.labels(tenant, "check").inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)
