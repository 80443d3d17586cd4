"""Policy engine: turn a ``CheckReport`` into respond / caveat / regenerate / abstain / escalate.

    policy = load_policy("policies/tenants/healthcare.yaml")        # or PolicyStore(dir).get(tenant)
    decision = decide(report, policy)                                 # pure
    decision = guard(answer, context, check=g.check, policy=policy, llm=llm, audit=AuditLog(path), tenant="t")
    g_for_tenant = policy_guardrail(g, policy)                        # the verifier its verification section asks for

Built once per tenant and called per answer, the same chain is ``guardrail.Pipeline`` (the adapters use it).

Reference of every policy field: docs/policies.md (generated from the model's descriptions).
"""

from ._audit import AuditLog, AuditRecord, AuditSummary, DriftConfig, DriftStatus
from ._bundled import POLICIES_ENV, bundled_policies_dir
from ._caveat import Caveat, render_caveat, render_marks
from ._decision import Analysis, Attempt, Decision, Reason, decide, decide_failure
from ._guard import aguard, aregenerate, guard, regenerate
from ._loader import load_policy, policy_from_yaml
from ._policy import SEVERITY, Action, CaveatStyle, FailMode, Policy, ReasonCode
from ._regenerate import corrective_messages, parse_rewrites, splice
from ._rewriter import EvidenceRewriter
from ._store import PolicySource, PolicyStore, resolve_policy
from ._verification import policy_guardrail

__all__ = [
    "Action",
    "SEVERITY",
    "ReasonCode",
    "FailMode",
    "CaveatStyle",
    "Policy",
    "load_policy",
    "policy_from_yaml",
    "PolicyStore",
    "PolicySource",
    "resolve_policy",
    "policy_guardrail",
    "bundled_policies_dir",
    "POLICIES_ENV",
    "Decision",
    "Analysis",
    "Reason",
    "Attempt",
    "Caveat",
    "decide",
    "decide_failure",
    "render_caveat",
    "render_marks",
    "corrective_messages",
    "parse_rewrites",
    "splice",
    "regenerate",
    "aregenerate",
    "EvidenceRewriter",
    "guard",
    "aguard",
    "AuditLog",
    "AuditRecord",
    "AuditSummary",
    "DriftConfig",
    "DriftStatus",
]
