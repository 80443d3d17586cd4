"""The public surface of guardrail.policy is pinned, and importing it stays light."""

from __future__ import annotations

import subprocess
import sys

import guardrail.policy as policy

PUBLIC = {
    "Action", "ReasonCode", "FailMode", "CaveatStyle", "Policy", "load_policy", "policy_from_yaml", "PolicyStore", "PolicySource", "resolve_policy",
    "policy_guardrail",
    "Decision", "Analysis", "Reason", "Attempt", "Caveat", "decide", "decide_failure", "render_caveat", "render_marks",
    "corrective_messages",
    "parse_rewrites", "splice", "regenerate", "aregenerate", "EvidenceRewriter", "guard", "aguard", "AuditLog",
    "AuditRecord", "AuditSummary", "DriftConfig", "DriftStatus", "SEVERITY", "POLICIES_ENV", "bundled_policies_dir",
}


def test_all_is_exactly_the_public_surface():
    assert set(policy.__all__) == PUBLIC
    for name in PUBLIC:
        assert getattr(policy, name) is not None
    assert not {n for n in dir(policy) if not n.startswith("_")} - PUBLIC - {
        "cli", "demo", "reference",  # submodules, imported on demand
    }


def test_import_is_light():
    code = ("import sys, guardrail.policy; heavy = [m for m in ('torch', 'transformers', 'openai', 'rich', 'langchain_core', "
            "'onnxruntime', 'httpx') if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"
