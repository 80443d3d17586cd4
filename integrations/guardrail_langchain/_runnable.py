"""``GuardrailRunnable``: the guardrail as a LangChain runnable, in the data path of a chain.

Two ways to use it, one class:

    guarded = GuardrailRunnable(rag_chain, policy=store)       # wraps: evidence captured from retriever runs
    guarded = rag_chain | GuardrailRunnable(policy=store)      # composes: evidence from a dict key or the config

All per-invocation state (tenant, question, captured documents, output shape) lives in objects
created inside each call; the runnable itself only holds configuration and lazily built,
call-independent helpers (the default ``Guardrail``, the chat model found in the chain, one
``guardrail.Pipeline`` per tenant), so one instance serves concurrent calls. The checking, deciding
and regenerating are the pipeline's: this module only translates LangChain objects to and from it.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler, BaseCallbackManager
from langchain_core.callbacks.manager import adispatch_custom_event, dispatch_custom_event
from langchain_core.documents import Document
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessageChunk, BaseMessage, BaseMessageChunk
from langchain_core.runnables import Runnable, RunnableConfig, RunnableSerializable
from langchain_core.runnables.config import patch_config
from langchain_core.runnables.utils import Input, Output
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator

from guardrail.errors import InputError, StreamInterrupted
from guardrail.llm import ChatModel, content_text
from guardrail.pipeline import Pipeline, PipelineCache
from guardrail.policy import Decision, Policy, PolicyStore, resolve_policy
from guardrail.streaming import CheckedSegment, StreamGuard, arun_stream, run_stream

from ._chat import LangChainChat
from ._evidence import EvidenceCollector, documents_to_evidence

__all__ = ["GuardrailRunnable", "GuardedOutput", "GuardedChunk", "find_chat_model"]

ANSWER_KEYS = ("answer", "output", "result", "text", "response", "content")
QUESTION_KEYS = ("question", "input", "query")
#: Custom event names, visible to callback handlers and in ``astream_events``.
DECISION_EVENT = "guardrail_decision"
SEGMENT_EVENT = "guardrail_segment"



class GuardedOutput(BaseModel):
    """What ``with_report()`` returns from invoke: the chain's output (guarded) and the decision."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    output: Any = Field(description="The chain's output with the final text in place of the answer, same type as the chain's.")
    decision: Decision
    tenant: str


class GuardedChunk(BaseModel):
    """What ``with_report()`` yields when streaming: one output chunk and the segment it releases.

    ``segment`` is None for parts of a streamed dict that are not the answer (retrieved context...);
    ``chunk`` is None for a withheld segment.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    chunk: Any = None
    segment: CheckedSegment | None = None
    tenant: str


# --------------------------------------------------------------------------------------------- helpers


def find_chat_model(runnable: Runnable) -> BaseChatModel | None:
    """The chat model that writes the chain's answer: the last ``BaseChatModel`` in the chain's graph."""
    if isinstance(runnable, BaseChatModel):
        return runnable
    try:
        nodes = list(runnable.get_graph().nodes.values())
    except Exception:  # noqa: BLE001 - a custom runnable whose graph cannot be drawn: nothing found
        return None
    models = [n.data for n in nodes if isinstance(n.data, BaseChatModel)]
    return models[-1] if models else None


def _text(content: Any) -> str:
    text = content_text(content)  # content blocks: only the text ones are answer text
    if text is not None:
        return text
    raise InputError(f"message content of type {type(content).__name__} holds no text")


def _pick(keys: tuple[str, ...], data: Mapping[str, Any], explicit: str | None) -> str | None:
    if explicit is not None:
        return explicit if explicit in data else None
    return next((k for k in keys if k in data), None)


def _question_of(value: Any, key: str | None) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        k = _pick(QUESTION_KEYS, value, key)
        q = value.get(k) if k else None
        return q if isinstance(q, str) else None
    if isinstance(value, (list, tuple)) and value and isinstance(value[-1], BaseMessage):
        return _text(value[-1].content)
    return None


def _collectors(config: RunnableConfig) -> list[EvidenceCollector]:
    """Collectors the caller put in the invocation's callbacks (used when composed in LCEL)."""
    cbs = config.get("callbacks")
    if isinstance(cbs, BaseCallbackManager):
        handlers = [*cbs.handlers, *cbs.inheritable_handlers]
    else:
        handlers = list(cbs or [])
    return list(dict.fromkeys(h for h in handlers if isinstance(h, EvidenceCollector)))


def _as_context(value: Any, id_key: str) -> Any:
    """Documents become ``Evidence`` with citation ids; anything else goes to the check as it is."""
    if isinstance(value, Document):
        value = [value]
    if isinstance(value, (list, tuple)) and any(isinstance(v, Document) for v in value):
        return documents_to_evidence(value, id_key=id_key)
    return value


class _Lazy:
    """Helpers derived from the configuration, built on first use (the default Guardrail loads models)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.guardrail: Any = None
        self.pipelines: PipelineCache | None = None
        self.chain_llm: BaseChatModel | None = None
        self.searched = False


@dataclass
class _Call:
    """One invocation's state. Created inside invoke / stream, never stored on the runnable."""

    tenant: str
    pipeline: Pipeline
    question: str | None
    request_id: str | None
    id_key: str
    from_config: Any = None
    from_output: Any = None
    streamed_context: list[Any] = field(default_factory=list)
    collectors: list[EvidenceCollector] = field(default_factory=list)

    def evidence(self) -> Any:
        """Output dict key, then the config, then what retriever runs returned."""
        if self.from_output is not None:
            return _as_context(self.from_output, self.id_key)
        if self.streamed_context:
            parts = self.streamed_context
            flat = [d for p in parts for d in (p if isinstance(p, (list, tuple)) else [p])]
            return _as_context(flat, self.id_key) if any(isinstance(d, Document) for d in flat) else (
                flat[0] if len(flat) == 1 else flat)
        if self.from_config is not None:
            return _as_context(self.from_config, self.id_key)
        docs = [d for c in self.collectors for d in c.documents]
        return documents_to_evidence(docs, id_key=self.id_key) if docs else []


@dataclass
class _Shape:
    """How the stream's answer chunks look, so released text goes back in the same type."""

    kind: str | None = None  # str | message | dict
    key: str | None = None
    inner: str | None = None  # for dict: str | message

    def wrap(self, text: str) -> Any:
        if self.kind == "message":
            return AIMessageChunk(content=text)
        if self.kind == "dict":
            return {self.key: AIMessageChunk(content=text) if self.inner == "message" else text}
        return text


class _StreamEnd(BaseCallbackHandler):
    """Did the chat model say it had finished? One per stream.

    Chat models that name their provider on each chunk (``response_metadata["model_provider"]``,
    as langchain-openai does for every OpenAI-compatible server, llama.cpp included) send the
    finish reason on their last chunk. A stream of theirs that ends without one was cut (a
    dropped connection, a one-slot server that took another request), and one that ends on
    "length" / "max_tokens" stopped mid-answer: both are ``StreamInterrupted``, which the
    checked stream hands to the policy's failure mode, never a shorter complete answer. Models
    that do not name a provider (test fakes, custom runnables) give nothing to judge by.
    """

    CUT = ("length", "max_tokens")

    def __init__(self) -> None:
        super().__init__()
        self.provider: str | None = None
        self.finish: str | None = None
        self.chars = 0

    def on_llm_end(self, response: Any, **kwargs: Any) -> None:
        """A chat model run of the wrapped chain ended (its chunks may reach us parsed to text):
        the last run is the one that wrote the answer."""
        gens = getattr(response, "generations", None) or [[]]
        gen = gens[0][0] if gens and gens[0] else None
        msg = getattr(gen, "message", None)
        if isinstance(msg, BaseMessage):
            self.provider, self.finish, self.chars = None, None, 0
            self.see(msg)
            info = getattr(gen, "generation_info", None) or {}
            if info.get("finish_reason"):
                self.finish = str(info["finish_reason"])

    def see(self, chunk: Any) -> None:
        msg = chunk
        if isinstance(chunk, Mapping):
            msg = next((v for v in chunk.values() if isinstance(v, BaseMessage)), None)
        if not isinstance(msg, BaseMessage):
            return
        meta = msg.response_metadata or {}
        self.provider = self.provider or meta.get("model_provider")
        reason = meta.get("finish_reason") or meta.get("stop_reason")
        if reason:
            self.finish = str(reason)
        if isinstance(msg.content, str):
            self.chars += len(msg.content)

    def check(self) -> None:
        if self.provider is None:
            return
        if self.finish is None:
            raise StreamInterrupted(
                f"the {self.provider} answer stream ended after {self.chars} characters without a finish reason "
                "(connection dropped or the server cut it)")
        if self.finish in self.CUT:
            raise StreamInterrupted(f"the {self.provider} answer stopped at its token limit "
                                    f"(finish reason {self.finish!r}) after {self.chars} characters",
                                    finish_reason=self.finish)


# --------------------------------------------------------------------------------------------- runnable


class GuardrailRunnable(RunnableSerializable[Input, Output]):
    """Checks a chain's answer against the documents it retrieved and applies the tenant's policy.

    The output keeps the chain's type (str, AIMessage, dict) with the final text in place of the
    answer. The ``Decision`` is reachable three ways: ``with_report()`` (returns ``GuardedOutput``),
    the ``guardrail_decision`` custom event (callbacks, ``astream_events``), and, for message
    outputs, ``response_metadata["guardrail"]``. Streaming releases the answer sentence by sentence,
    each after it was checked (see ``guardrail.streaming``).

    Per-invocation settings come from ``config["configurable"]``: ``tenant_id`` (default
    "default"), ``guardrail_context`` (evidence, when not in the output and not retrieved) and
    ``guardrail_question``.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    chain: Runnable | None = Field(
        default=None,
        description="Chain to guard. None: the runnable is a step of an LCEL sequence and checks the previous step's output.",
    )
    guardrail: Any = Field(
        default=None,
        description="A guardrail.Guardrail, or any check(answer, context[, question]) -> CheckReport. None: Guardrail() built on first use.",
    )
    policy: Any = Field(
        default=None,
        description="A Policy for every tenant, a PolicyStore, a mapping tenant id -> Policy, or a callable tenant -> Policy. None: the default policy.",
    )
    llm: Any = Field(
        default=None,
        description="Chat model for regeneration: a LangChain BaseChatModel or a guardrail ChatModel. None: the chain's own chat model.",
    )
    find_chain_llm: bool = Field(default=True, description="Look for a chat model in the chain for regeneration when llm is None.")
    answer_key: str | None = Field(default=None, description=f"Key of the answer in dict outputs. None: the first of {', '.join(ANSWER_KEYS)}.")
    context_key: str = Field(default="context", description="Key of the retrieved documents in dict outputs; used before captured retriever documents.")
    question_key: str | None = Field(default=None, description=f"Key of the question in dict inputs. None: the first of {', '.join(QUESTION_KEYS)}.")
    evidence_id_key: str = Field(default="evidence_id", description="Document metadata key holding its citation id; without it, the 1-based retrieval position.")
    audit: Any = Field(default=None, description="A guardrail.policy.AuditLog that records every decision, or None.")
    return_decision: bool = Field(default=False, description="Return GuardedOutput / GuardedChunk instead of the bare output (see with_report).")

    # Built once from the configuration and shared with with_report() copies; no per-call state.
    _lazy: _Lazy = PrivateAttr(default_factory=lambda: _Lazy())

    def __init__(self, chain: Runnable | Any | None = None, **kwargs: Any) -> None:
        super().__init__(chain=chain, **kwargs)

    @field_validator("chain", mode="before")
    @classmethod
    def _coerce_chain(cls, v: Any) -> Any:
        if v is None or isinstance(v, Runnable):
            return v
        from langchain_core.runnables.base import coerce_to_runnable

        return coerce_to_runnable(v)

    @field_validator("policy")
    @classmethod
    def _check_policy(cls, v: Any) -> Any:
        if v is None or isinstance(v, (Policy, PolicyStore, Mapping)) or callable(v):
            return v
        raise TypeError(f"policy must be a Policy, PolicyStore, mapping or callable, got {type(v).__name__}")

    @field_validator("llm")
    @classmethod
    def _check_llm(cls, v: Any) -> Any:
        if v is None or isinstance(v, (BaseChatModel, ChatModel)):
            return v
        raise TypeError(f"llm must be a LangChain BaseChatModel or a guardrail ChatModel, got {type(v).__name__}")

    @classmethod
    def is_lc_serializable(cls) -> bool:
        return False

    @property
    def InputType(self) -> Any:  # noqa: N802 - LangChain's name
        return self.chain.InputType if self.chain is not None else Any

    @property
    def OutputType(self) -> Any:  # noqa: N802
        return GuardedOutput if self.return_decision else (self.chain.OutputType if self.chain is not None else Any)

    def with_report(self) -> GuardrailRunnable:
        """The same runnable returning ``GuardedOutput(output, decision, tenant)`` (``GuardedChunk`` when streaming)."""
        return self.model_copy(update={"return_decision": True})

    # ------------------------------------------------------------------ configuration -> helpers

    def _guardrail(self) -> Any:
        if self.guardrail is not None:
            return self.guardrail
        lazy = self._lazy
        with lazy.lock:
            if lazy.guardrail is None:
                from guardrail import Guardrail

                lazy.guardrail = Guardrail()
            return lazy.guardrail

    def _pipeline_for(self, tenant: str) -> Pipeline:
        """The tenant's pipeline: its policy looked up per call (a store reloads edited files), the
        pipeline built once per policy version and guardrail."""
        guardrail = self._guardrail()
        lazy = self._lazy
        with lazy.lock:
            if lazy.pipelines is None or lazy.pipelines.guardrail is not guardrail:
                lazy.pipelines = PipelineCache(guardrail)
            pipelines = lazy.pipelines
        return pipelines.get(tenant, resolve_policy(self.policy, tenant))

    def _regeneration_llm(self, config: RunnableConfig) -> Any:
        """The rewrite model for one invocation, its calls traced under ``config`` (our child config)."""
        model: Any = self.llm
        if model is None and self.find_chain_llm and self.chain is not None:
            lazy = self._lazy
            with lazy.lock:
                if not lazy.searched:
                    lazy.chain_llm = find_chat_model(self.chain)
                    lazy.searched = True
                model = lazy.chain_llm
        if isinstance(model, BaseChatModel):
            return LangChainChat(model, patch_config(config, run_name="guardrail_regeneration"))
        return model

    # ------------------------------------------------------------------ per-call plumbing

    def _start(self, input: Any, config: RunnableConfig, run_manager: Any, pipeline: Pipeline | None = None) -> _Call:
        conf = config.get("configurable") or {}
        tenant = conf.get("tenant_id") or "default"
        if not isinstance(tenant, str):
            raise InputError(f"configurable tenant_id must be a string, got {type(tenant).__name__}")
        question = conf.get("guardrail_question") or _question_of(input, self.question_key)
        return _Call(
            tenant=tenant,
            pipeline=pipeline if pipeline is not None else self._pipeline_for(tenant),
            question=question,
            request_id=str(run_manager.run_id) if run_manager is not None else None,
            id_key=self.evidence_id_key,
            from_config=conf.get("guardrail_context"),
            collectors=_collectors(config),
        )

    def _chain_config(self, config: RunnableConfig, run_manager: Any, call: _Call,
                      end: _StreamEnd | None = None) -> RunnableConfig:
        """The chain runs as our child, with a collector of its own for this call only (and, when
        streaming, the watcher of its chat model's finish reason)."""
        collector = EvidenceCollector()
        call.collectors.append(collector)
        callbacks = run_manager.get_child()
        callbacks.add_handler(collector, inherit=True)
        if end is not None:
            callbacks.add_handler(end, inherit=True)
        return patch_config(config, callbacks=callbacks)

    def _answer(self, output: Any, call: _Call) -> str:
        if isinstance(output, str):
            return output
        if isinstance(output, BaseMessage):
            return _text(output.content)
        if isinstance(output, Mapping):
            key = _pick(ANSWER_KEYS, output, self.answer_key)
            if key is None:
                wanted = self.answer_key or " / ".join(ANSWER_KEYS)
                raise InputError(f"GuardrailRunnable: no answer key ({wanted}) in the output; keys: {sorted(output)}")
            if self.context_key in output:
                call.from_output = output[self.context_key]
            if call.question is None:
                call.question = _question_of(output, self.question_key)
            value = output[key]
            return value if isinstance(value, str) else _text(getattr(value, "content", value))
        raise InputError(f"GuardrailRunnable cannot find an answer in a {type(output).__name__} (expected str, message or dict)")

    def _rebuild(self, output: Any, decision: Decision, call: _Call) -> Any:
        text = decision.final_text
        if isinstance(output, str):
            return text
        if isinstance(output, BaseMessage):
            meta = {**output.response_metadata, "guardrail": _summary(decision, call)}
            return output.model_copy(update={"content": text, "response_metadata": meta})
        key = _pick(ANSWER_KEYS, output, self.answer_key)
        value = output[key]
        new = text if isinstance(value, str) else self._rebuild(value, decision, call)
        return {**output, key: new}

    def _result(self, output: Any, decision: Decision, call: _Call) -> Any:
        rebuilt = self._rebuild(output, decision, call)
        return GuardedOutput(output=rebuilt, decision=decision, tenant=call.tenant) if self.return_decision else rebuilt

    def _pipeline(self, call: _Call, config: RunnableConfig) -> Pipeline:
        """The tenant's pipeline with this invocation's rewrite model (traced under ``config``) and the audit log."""
        return call.pipeline.replace(llm=self._regeneration_llm(config), audit=self.audit)

    # ------------------------------------------------------------------ invoke

    def invoke(self, input: Input, config: RunnableConfig | None = None, **kwargs: Any) -> Output:
        return self._call_with_config(self._invoke, input, config, **kwargs)

    def _invoke(self, input: Any, run_manager: Any, config: RunnableConfig, **kwargs: Any) -> Any:
        call = self._start(input, config, run_manager)
        child = patch_config(config, callbacks=run_manager.get_child())
        if self.chain is not None:
            output = self.chain.invoke(input, self._chain_config(config, run_manager, call), **kwargs)
        else:
            output = input
        answer = self._answer(output, call)
        decision = self._pipeline(call, child).guard(answer, call.evidence(), question=call.question,
                                                     request_id=call.request_id)
        dispatch_custom_event(DECISION_EVENT, decision, config=child)
        return self._result(output, decision, call)

    async def ainvoke(self, input: Input, config: RunnableConfig | None = None, **kwargs: Any) -> Output:
        return await self._acall_with_config(self._ainvoke, input, config, **kwargs)

    async def _ainvoke(self, input: Any, run_manager: Any, config: RunnableConfig, **kwargs: Any) -> Any:
        call = await self._astart(input, config, run_manager)
        child = patch_config(config, callbacks=run_manager.get_child())
        if self.chain is not None:
            output = await self.chain.ainvoke(input, self._chain_config(config, run_manager, call), **kwargs)
        else:
            output = input
        answer = self._answer(output, call)
        decision = await self._pipeline(call, child).aguard(answer, call.evidence(), question=call.question,
                                                            request_id=call.request_id)
        await adispatch_custom_event(DECISION_EVENT, decision, config=child)
        return self._result(output, decision, call)

    async def _astart(self, input: Any, config: RunnableConfig, run_manager: Any) -> _Call:
        # Loading a policy file, building the default Guardrail (model files) or the verifier a policy
        # asks for is blocking I/O: off the event loop.
        conf = config.get("configurable") or {}
        tenant = conf.get("tenant_id") or "default"
        pipeline = await asyncio.to_thread(self._pipeline_for, tenant) if isinstance(tenant, str) else None
        return self._start(input, config, run_manager, pipeline)

    # ------------------------------------------------------------------ streaming

    def stream(self, input: Input, config: RunnableConfig | None = None, **kwargs: Any) -> Iterator[Output]:
        yield from self.transform(iter([input]), config, **kwargs)

    def transform(self, input: Iterator[Input], config: RunnableConfig | None = None, **kwargs: Any) -> Iterator[Output]:
        yield from self._transform_stream_with_config(input, self._transform, config, **kwargs)

    async def astream(self, input: Input, config: RunnableConfig | None = None, **kwargs: Any) -> AsyncIterator[Output]:
        async def one() -> AsyncIterator[Any]:
            yield input

        async for out in self.atransform(one(), config, **kwargs):
            yield out

    async def atransform(self, input: AsyncIterator[Input], config: RunnableConfig | None = None,
                         **kwargs: Any) -> AsyncIterator[Output]:
        async for out in self._atransform_stream_with_config(input, self._atransform, config, **kwargs):
            yield out

    def _transform(self, inputs: Iterator[Any], run_manager: Any, config: RunnableConfig, **kwargs: Any) -> Iterator[Any]:
        end = _StreamEnd()
        if self.chain is not None:
            final = _accumulate(inputs)
            call = self._start(final, config, run_manager)
            upstream: Iterator[Any] = self.chain.stream(final, self._chain_config(config, run_manager, call, end), **kwargs)
        else:
            call = self._start(None, config, run_manager)
            upstream = inputs
        shape, parts = _Shape(), list[Any]()

        def texts() -> Iterator[str]:
            for chunk in upstream:
                end.see(chunk)
                text = self._absorb(chunk, call, shape, parts)
                if text:
                    yield text
            end.check()

        sg = self._stream_guard(call, config)
        try:
            for seg in run_stream(sg, texts()):
                yield from self._passthrough(parts, call)
                dispatch_custom_event(SEGMENT_EVENT, seg, config=config)
                yield from self._release(seg, shape, call)
            yield from self._passthrough(parts, call)
        finally:
            close = getattr(upstream, "close", None)
            if callable(close):
                close()
        if sg.decision is not None:  # the whole answer's decision, once per stream, as invoke dispatches it
            dispatch_custom_event(DECISION_EVENT, sg.decision, config=config)

    async def _atransform(self, inputs: AsyncIterator[Any], run_manager: Any, config: RunnableConfig,
                          **kwargs: Any) -> AsyncIterator[Any]:
        end = _StreamEnd()
        if self.chain is not None:
            final = await _aaccumulate(inputs)
            call = await self._astart(final, config, run_manager)
            upstream: AsyncIterator[Any] = self.chain.astream(final, self._chain_config(config, run_manager, call, end), **kwargs)
        else:
            call = await self._astart(None, config, run_manager)
            upstream = inputs
        shape, parts = _Shape(), list[Any]()

        async def texts() -> AsyncIterator[str]:
            async for chunk in upstream:
                end.see(chunk)
                text = self._absorb(chunk, call, shape, parts)
                if text:
                    yield text
            end.check()

        sg = self._stream_guard(call, config)
        async for seg in arun_stream(sg, texts()):
            for out in self._passthrough(parts, call):
                yield out
            await adispatch_custom_event(SEGMENT_EVENT, seg, config=config)
            for out in self._release(seg, shape, call):
                yield out
        for out in self._passthrough(parts, call):
            yield out
        if sg.decision is not None:
            await adispatch_custom_event(DECISION_EVENT, sg.decision, config=config)

    def _stream_guard(self, call: _Call, config: RunnableConfig) -> StreamGuard:
        """One stream's state; evidence and question are read as they arrive (a streamed dict may carry them)."""
        return self._pipeline(call, config).stream_guard(call.evidence, question=lambda: call.question,
                                                        request_id=call.request_id)

    def _absorb(self, chunk: Any, call: _Call, shape: _Shape, parts: list[Any]) -> str | None:
        """Answer text of one upstream chunk; other parts of a dict chunk are kept to pass through."""
        if isinstance(chunk, str):
            shape.kind = shape.kind or "str"
            return chunk
        if isinstance(chunk, (BaseMessageChunk, BaseMessage)):
            shape.kind = shape.kind or "message"
            return _text(chunk.content)
        if isinstance(chunk, Mapping):
            key = _pick(ANSWER_KEYS, chunk, self.answer_key)
            rest = {k: v for k, v in chunk.items() if k != key}
            if self.context_key in rest:
                call.streamed_context.append(rest[self.context_key])
            if call.question is None:
                call.question = _question_of(rest, self.question_key)
            if rest:
                parts.append(rest)
            if key is None:
                return None
            value = chunk[key]
            shape.kind, shape.key = "dict", key
            if isinstance(value, str):
                shape.inner = shape.inner or "str"
                return value
            shape.inner = shape.inner or "message"
            return _text(getattr(value, "content", value))
        raise InputError(f"GuardrailRunnable cannot stream a {type(chunk).__name__} chunk (expected str, message or dict)")

    def _passthrough(self, parts: list[Any], call: _Call) -> Iterator[Any]:
        while parts:
            part = parts.pop(0)
            yield GuardedChunk(chunk=part, tenant=call.tenant) if self.return_decision else part

    def _release(self, seg: CheckedSegment, shape: _Shape, call: _Call) -> Iterator[Any]:
        out = shape.wrap(seg.output) if seg.output else None
        if self.return_decision:
            yield GuardedChunk(chunk=out, segment=seg, tenant=call.tenant)
        elif out is not None:
            yield out


def _summary(decision: Decision, call: _Call) -> dict[str, Any]:
    return {"action": decision.action.value, "code": decision.code.value, "tenant": call.tenant,
            "policy": decision.policy_name, "policy_hash": decision.policy_hash, "claim_ids": list(decision.claim_ids),
            "regenerated": decision.regenerated}


def _accumulate(inputs: Iterator[Any]) -> Any:
    final, first = None, True
    for chunk in inputs:
        if first:
            final, first = chunk, False
            continue
        try:
            final = final + chunk
        except TypeError:
            final = chunk
    return final


async def _aaccumulate(inputs: AsyncIterator[Any]) -> Any:
    final, first = None, True
    async for chunk in inputs:
        if first:
            final, first = chunk, False
            continue
        try:
            final = final + chunk
        except TypeError:
            final = chunk
    return final
