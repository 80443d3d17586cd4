"""``GuardedQueryEngine``: any LlamaIndex query engine, its answer checked against its own sources.

The check belongs after synthesis (the answer must exist), so this wraps the engine rather than
sitting in the retrieval pipeline. Both ``query`` and ``aquery`` are implemented; the async path
awaits the engine's ``aquery`` and runs the CPU-bound check in a worker thread, so it never
blocks the event loop. Checking, deciding, regenerating and recording are the tenant's
``guardrail.Pipeline``'s, built once per policy version; the engine holds configuration and that
pipeline only: nothing of one query is stored on it.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.base.response.schema import AsyncStreamingResponse, Response, StreamingResponse
from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle

from guardrail.errors import InputError
from guardrail.pipeline import Pipeline, PipelineCache
from guardrail.policy import Action, Decision, Policy, PolicyStore, Reason, ReasonCode, decide, resolve_policy
from guardrail.types import CheckReport, Evidence

__all__ = ["GuardedQueryEngine", "nodes_to_evidence", "non_answer_decision", "EMPTY_RESPONSE"]

#: Key of the ``Decision`` in ``Response.metadata``.
DECISION_KEY = "guardrail"
#: What LlamaIndex's synthesizers return when they had nothing to answer from (no nodes retrieved):
#: a placeholder, not an answer. It is never checked as a claim, nor shown as if it were an answer.
EMPTY_RESPONSE = "Empty Response"


def non_answer_decision(answer: str, evidence: list[Evidence], policy: Policy, why: str) -> Decision:
    """The decision for a response that is no answer (empty, or the "Empty Response" placeholder).

    The policy's ``on_no_claims`` rule is what speaks for an answer with nothing to check, so it is
    decided from a report with no claims; but a placeholder is never shown as the answer: a respond
    or caveat becomes abstain (the abstain message). An escalation stays an escalation.
    """
    report = CheckReport(answer=answer, evidence=evidence, hallucination_score=0.0, hallucinated=False,
                         threshold=policy.claims.score_threshold if policy.claims.score_threshold is not None else 0.5)
    decided = decide(report, policy)
    if decided.action is Action.escalate:
        return decided
    reason = Reason(code=ReasonCode.no_claims, action=Action.abstain, message=f"no answer to check or show: {why}")
    return decided.model_copy(update={
        "action": Action.abstain, "code": ReasonCode.no_claims, "reasons": [*decided.reasons, reason], "caveats": [],
        "final_text": policy.abstain.message_for(ReasonCode.no_claims),
    })


def nodes_to_evidence(nodes: Sequence[NodeWithScore], *, id_key: str = "evidence_id") -> list[Evidence]:
    """Source nodes as evidence: ``metadata[id_key]`` as id (set by ``GuardrailNodePostprocessor``),
    else the 1-based position; the text without metadata, as the passage itself reads."""
    out = []
    for i, nws in enumerate(nodes, 1):
        node = nws.node
        meta = dict(node.metadata or {})
        eid = meta.get(id_key)
        source = meta.get("source") or meta.get("file_name") or meta.get("title") or node.node_id
        meta.update({"node_id": node.node_id, "score": nws.score})
        out.append(Evidence(
            id=str(eid) if eid is not None else str(i),
            text=node.get_content(metadata_mode=MetadataMode.NONE),
            source=str(source),
            metadata={k: v for k, v in meta.items() if v is None or isinstance(v, (str, int, float, bool, list, dict))},
        ))
    return out


class GuardedQueryEngine(BaseQueryEngine):
    """Wraps a query engine: checks ``response.source_nodes`` against the response, applies the policy.

    Returns a ``Response`` whose text is the decision's final text, with the original source
    nodes and the ``Decision`` in ``response.metadata["guardrail"]``.

    Args:
        query_engine: any LlamaIndex query engine.
        guardrail: a ``guardrail.Guardrail`` or any ``check(answer, context[, question])``; None builds
            ``Guardrail()`` on first use.
        policy: a ``Policy``, a ``PolicyStore`` / mapping / callable resolved with ``tenant``; None:
            the default policy.
        tenant: tenant id for the policy lookup and the audit (``for_tenant`` gives a per-tenant view).
        llm: model for regeneration: a LlamaIndex LLM or a guardrail ``ChatModel``; None: no
            regeneration (the policy fallback applies).
        audit: a ``guardrail.policy.AuditLog`` recording every decision.
        id_key: node metadata key holding the evidence id.
    """

    def __init__(
        self,
        query_engine: BaseQueryEngine,
        *,
        guardrail: Any = None,
        policy: Policy | PolicyStore | Mapping[str, Policy] | Callable[[str], Policy] | None = None,
        tenant: str = "default",
        llm: Any = None,
        audit: Any = None,
        id_key: str = "evidence_id",
    ) -> None:
        if not isinstance(query_engine, BaseQueryEngine):
            raise TypeError(f"GuardedQueryEngine wraps a llama-index query engine, got {type(query_engine).__name__}")
        if not (policy is None or isinstance(policy, (Policy, PolicyStore, Mapping)) or callable(policy)):
            raise TypeError(f"policy must be a Policy, PolicyStore, mapping or callable, got {type(policy).__name__}")
        super().__init__(callback_manager=query_engine.callback_manager)
        self._engine = query_engine
        self._checker = guardrail if isinstance(guardrail, _Lazy) else _Lazy(guardrail)
        self._policy = policy
        self.tenant = tenant
        self._llm = _as_chat(llm)
        self._audit = audit
        self._id_key = id_key
        self._pipelines: PipelineCache | None = None  # built with the guardrail, on first use

    def for_tenant(self, tenant: str) -> GuardedQueryEngine:
        """The same engine, guardrail and policies, deciding under ``tenant``'s policy."""
        return GuardedQueryEngine(self._engine, guardrail=self._checker, policy=self._policy, tenant=tenant,
                                  llm=self._llm, audit=self._audit, id_key=self._id_key)

    @property
    def query_engine(self) -> BaseQueryEngine:
        return self._engine

    def _get_prompt_modules(self) -> dict[str, Any]:
        return {"query_engine": self._engine}

    # ------------------------------------------------------------------ helpers

    def _pipeline(self, policy: Policy) -> Pipeline:
        """This tenant's pipeline under ``policy`` (its current version): built once per version."""
        guardrail = self._checker.get()
        pipelines = self._pipelines
        if pipelines is None or pipelines.guardrail is not guardrail:
            pipelines = self._pipelines = PipelineCache(guardrail, llm=self._llm, audit=self._audit)
        return pipelines.get(self.tenant, policy)

    def _policy_for(self) -> Policy:
        return resolve_policy(self._policy, self.tenant)

    @staticmethod
    def _text_response(response: Any) -> Response:
        """The engine's answer as a text ``Response`` (a structured one cannot be checked as text)."""
        if not isinstance(response, Response):
            raise InputError(f"GuardedQueryEngine checks text responses; the engine returned {type(response).__name__}")
        return response

    def _finish(self, response: Response, decision: Decision | None, why: str | None = None) -> Response:
        meta = dict(response.metadata or {})
        meta[DECISION_KEY] = decision
        if why:
            meta["guardrail_skipped"] = why
        text = decision.final_text if decision is not None else response.response
        return Response(response=text, source_nodes=list(response.source_nodes), metadata=meta)

    # ------------------------------------------------------------------ query

    def _query(self, query_bundle: QueryBundle) -> Response:
        raw = self._engine.query(query_bundle)
        response = self._text_response(raw.get_response() if isinstance(raw, StreamingResponse) else raw)
        answer = response.response or ""
        evidence = nodes_to_evidence(response.source_nodes, id_key=self._id_key)
        why = _no_answer(answer)
        if why is not None:
            decision = non_answer_decision(answer, evidence, self._policy_for(), why)
            if self._audit is not None:
                self._audit.record(decision, self.tenant)
            return self._finish(response, decision, why)
        decision = self._pipeline(self._policy_for()).guard(answer, evidence, question=query_bundle.query_str or None)
        return self._finish(response, decision)

    async def _aquery(self, query_bundle: QueryBundle) -> Response:
        raw = await self._engine.aquery(query_bundle)
        if isinstance(raw, AsyncStreamingResponse):
            raw = await raw.get_response()
        elif isinstance(raw, StreamingResponse):
            raw = await asyncio.to_thread(raw.get_response)
        response = self._text_response(raw)
        answer = response.response or ""
        # Loading a policy file or the default models is blocking I/O: off the event loop.
        policy = await asyncio.to_thread(self._policy_for)
        why = _no_answer(answer)
        if why is not None:
            decision = non_answer_decision(answer, nodes_to_evidence(response.source_nodes, id_key=self._id_key), policy, why)
            if self._audit is not None:
                await asyncio.to_thread(self._audit.record, decision, self.tenant)
            return self._finish(response, decision, why)
        pipeline = await asyncio.to_thread(self._pipeline, policy)  # the first one loads models
        evidence = nodes_to_evidence(response.source_nodes, id_key=self._id_key)
        decision = await pipeline.aguard(answer, evidence, question=query_bundle.query_str or None)
        return self._finish(response, decision)


def _no_answer(answer: str) -> str | None:
    """Why ``answer`` is no answer at all, or None when it is one."""
    if not answer.strip():
        return "the engine returned an empty answer"
    if answer.strip() == EMPTY_RESPONSE:
        return f"the engine returned LlamaIndex's {EMPTY_RESPONSE!r} placeholder (nothing was retrieved to answer from)"
    return None


class _Lazy:
    """The guardrail given, or ``Guardrail()`` built once on first use; shared by ``for_tenant`` views."""

    def __init__(self, value: Any) -> None:
        self._value = value
        self._lock = threading.Lock()

    def get(self) -> Any:
        with self._lock:
            if self._value is None:
                from guardrail import Guardrail

                self._value = Guardrail()
            return self._value


def _as_chat(llm: Any) -> Any:
    from llama_index.core.llms import LLM

    if llm is None:
        return None
    if isinstance(llm, LLM):
        from ._llm import LlamaIndexChat

        return LlamaIndexChat(llm)
    if callable(getattr(llm, "chat", None)):
        return llm
    raise TypeError(f"llm must be a llama-index LLM or a guardrail ChatModel, got {type(llm).__name__}")
