"""A tenant policy's ``verification`` section, turned into the guardrail that checks for that tenant.

Why here and only here: ``guardrail.Pipeline`` (built once per tenant, by every adapter) and ``guard()``
itself need "the guardrail this tenant's policy asks for", and two copies of the wiring would drift. The
section does not build a pipeline of its own: it picks the fast verifier and puts the existing second stage behind it, a
:class:`~guardrail.verifiers.cascade.CascadeVerifier` whose :class:`~guardrail.verifiers.cascade.Routing`
sends on only the claims in the uncertain band or of the listed error types, with CoVe's per-answer
call budget. A stage that cannot run (endpoint down, key variable unset, malformed replies, budget
spent) leaves the fast verdicts in place and the routed claims in ``skipped`` under the method's name,
so the policy's ``failure.checks.cove`` (or ``.judge``) decides, like any check that could not run.

Built guardrails are shared: one per (caller's guardrail, section, key), kept while the caller's
guardrail lives, so CoVe's verdict cache and the HTTP client survive between requests, and a policy
without the section gets the caller's guardrail itself, untouched (no LLM call, no rebuild).

``guard()`` applies this to a ``check`` that is a bound ``Guardrail.check`` / ``acheck``; a check of
any other shape that returns a report without the stage the policy asks for gets that stage listed as
skipped (:func:`require_stage`), so a policy's double check is never dropped silently.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..errors import LLMError
from ..types import CheckReport, ErrorType, SkippedCheck, VerificationItem
from ._policy import DoubleCheckPolicy, LLMEndpointPolicy, Policy, VerificationPolicy

if TYPE_CHECKING:
    from ..guardrail import Guardrail
    from ..verifiers import Verifier

__all__ = ["policy_guardrail", "policy_check", "require_stage", "build_verifier", "double_check_llm"]

#: Sections kept per caller guardrail (one per distinct verification section among its tenants).
MAX_SECTIONS = 64

_lock = threading.Lock()
_derived: "weakref.WeakKeyDictionary[Guardrail, OrderedDict[str, Guardrail]]" = weakref.WeakKeyDictionary()
_origin: "weakref.WeakKeyDictionary[Guardrail, tuple[weakref.ref[Guardrail], str]]" = weakref.WeakKeyDictionary()
_fast: dict[str, "Verifier"] = {}  # fast verifiers by spec: models load once per process


class _MissingKey:
    """``ChatModel`` standing in for an endpoint whose key variable is not set: every call fails.

    Why not fail at build time: the policy is valid, the deployment is missing a secret. That is a
    check that cannot run, which the failure mode handles per tenant, not an error for the caller.
    """

    def __init__(self, variable: str):
        self.variable = variable

    def __repr__(self) -> str:
        return f"_MissingKey({self.variable!r})"

    def chat(self, messages: Any, **kw: Any) -> str:
        raise LLMError(f"the double check's API key variable {self.variable} is not set")

    async def achat(self, messages: Any, **kw: Any) -> str:
        return self.chat(messages)


def double_check_llm(endpoint: LLMEndpointPolicy, env: Mapping[str, str] | None = None) -> Any:
    """The ``ChatModel`` of the section's endpoint, its key read from the named variable of ``env``."""
    from ..llm import OpenAIChat

    env = os.environ if env is None else env
    key = "not-needed"
    if endpoint.api_key_env is not None:
        if not env.get(endpoint.api_key_env):
            return _MissingKey(endpoint.api_key_env)
        key = env[endpoint.api_key_env]
    assert endpoint.base_url is not None and endpoint.model is not None  # checked when the policy loaded
    return OpenAIChat(base_url=endpoint.base_url, model=endpoint.model, api_key=key, timeout_s=endpoint.timeout_s,
                      max_retries=endpoint.max_retries, response_format=endpoint.response_format)


def _routing(section: DoubleCheckPolicy) -> Any:
    from ..verifiers.cascade import Routing

    return Routing(band=(float(section.band[0]), float(section.band[1])),
                   error_types=frozenset(ErrorType(t) for t in section.error_types))


def _stage(section: DoubleCheckPolicy, llm: Any) -> "Verifier":
    """The second stage, named like the method so that ``failure.checks.<method>`` addresses it."""
    if section.method == "cove":
        from ..verifiers.cove import CoveVerifier

        budget = section.max_calls_per_answer if section.max_calls_per_answer is not None else 8
        return CoveVerifier(llm, per=section.per, max_calls=budget, name="cove")
    from ..verifiers.judge import LLMJudgeVerifier

    return LLMJudgeVerifier(llm, name="judge")


def build_verifier(section: VerificationPolicy, fast: "Verifier", *, llm: Any = None) -> "Verifier":
    """``fast`` alone, or ``fast`` with the section's double check behind it (a routed cascade).

    ``llm`` replaces the section's endpoint (tests, a caller that manages its own client).
    """
    dc = section.double_check
    if dc.method == "none":
        return fast
    from ..verifiers.cascade import CascadeVerifier

    stage = _stage(dc, llm if llm is not None else double_check_llm(dc.llm))
    return CascadeVerifier(fast, stage, routing=_routing(dc), judge_timeout_s=dc.timeout_s)


def _fast_verifier(spec: str) -> "Verifier":
    from ..verifiers import make_verifier

    with _lock:
        found = _fast.get(spec)
    if found is None:
        found = make_verifier(spec)  # outside the lock: a model may take seconds to load
        with _lock:
            found = _fast.setdefault(spec, found)
    return found


def _key(section: VerificationPolicy) -> str:
    data = section.model_dump(mode="json")
    name = section.double_check.llm.api_key_env
    # The key's digest, not the key: a rotated key builds a new client, the key itself is kept nowhere here.
    data["key"] = hashlib.sha256(os.environ.get(name, "").encode()).hexdigest() if name else ""
    return json.dumps(data, sort_keys=True)


def policy_guardrail(base: "Guardrail", policy: Policy) -> "Guardrail":
    """The guardrail that checks answers for ``policy``: ``base`` itself when the policy's verification
    section is the default, else ``base``'s settings around the section's verifier (built once, shared).

    ``base`` may itself come from this function (a guard of a guard): the section is applied to the
    guardrail it was derived from, never stacked. A policy without the section returns ``base`` as given.
    """
    section = policy.verification
    if section.is_default:
        return base
    key = _key(section)
    with _lock:
        origin = _origin.get(base)
    if origin is not None:
        if origin[1] == key:
            return base
        source = origin[0]()
        if source is not None:
            base = source
    with _lock:
        cached = _derived.get(base, OrderedDict()).get(key)
    if cached is not None:
        return cached
    fast = _fast_verifier(section.verifier) if section.verifier is not None else base.verifier
    derived = base.with_verifier(build_verifier(section, fast))
    with _lock:
        per_base = _derived.setdefault(base, OrderedDict())
        derived = per_base.setdefault(key, derived)
        per_base.move_to_end(key)
        while len(per_base) > MAX_SECTIONS:
            per_base.popitem(last=False)
        _origin[derived] = (weakref.ref(base), key)
    return derived


def policy_check(check: Callable[..., Any], policy: Policy) -> Callable[..., Any]:
    """``check`` for ``policy``: a bound ``Guardrail.check`` / ``acheck`` becomes the same method of
    :func:`policy_guardrail`; any other callable is returned as it is."""
    facade = sys.modules.get("guardrail.guardrail")  # not loaded: check cannot be one of its methods
    owner = getattr(check, "__self__", None)
    name = getattr(check, "__name__", "")
    if facade is None or not isinstance(owner, facade.Guardrail) or name not in ("check", "acheck"):
        return check
    return getattr(policy_guardrail(owner, policy), name)


def require_stage(report: CheckReport, policy: Policy) -> CheckReport:
    """``report``, with the claims the policy's double check should have seen listed as skipped when the
    check that made it had no such stage (a custom ``check`` that bypassed :func:`policy_guardrail`).

    The claims listed are those the section's routing selects from the report's own verdicts.
    """
    dc = policy.verification.double_check
    if dc.method == "none" or (report.verifier or "").endswith(f"->{dc.method})") or not report.verdicts:
        return report
    routing = _routing(dc)
    claims = {c.id: c for c in report.claims}
    verdicts = [v for v in report.verdicts if v.claim_id in claims and not v.non_factual]
    items = [VerificationItem(claim=claims[v.claim_id], windows=[], question=report.question) for v in verdicts]
    routed = [verdicts[i].claim_id for i in routing.select(items, verdicts)]
    if not routed:
        return report
    reason = (f"the policy asks for a {dc.method} double check of these claims, but the check that ran "
              f"(verifier '{report.verifier or 'unknown'}') has no {dc.method} stage; build the guardrail with "
              "guardrail.policy.policy_guardrail")
    return report.model_copy(update={"skipped": [*report.skipped, SkippedCheck(check=dc.method, reason=reason,
                                                                                claim_ids=routed)]})
