"""GuardrailRunnable on real langchain-core objects: in-memory vector store with the packaged MiniLM
embeddings, prompt templates, langchain-core's fake chat models, LCEL composition.

Checks go through ``lexical_check`` (tests/test_policy_helpers.py), a real deterministic checker,
so the expected decision of every answer is known; ``test_real_guardrail_end_to_end`` runs the
library's own ``Guardrail`` instead.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import FakeListChatModel, ParrotFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda, RunnableParallel, RunnablePassthrough
from langchain_core.vectorstores import InMemoryVectorStore

import guardrail_langchain
from guardrail.errors import ConfigError, InputError, LLMResponseError, LLMTimeout
from guardrail.policy import Action, FailMode, PolicyStore, ReasonCode
from guardrail_langchain import (
    EvidenceCollector,
    GuardedChunk,
    GuardedOutput,
    GuardrailEmbeddings,
    GuardrailRunnable,
    LangChainChat,
)
from openai_stub import Reply, openai_stub  # noqa: F401  (fixture)
from test_policy_helpers import lexical_check

REPO = Path(__file__).resolve().parent.parent
STORE = PolicyStore(REPO / "policies")
LENIENT, STRICT = STORE.get("internal-search"), STORE.get("healthcare")

EIFFEL = [
    "The Eiffel Tower is 330 metres tall. It was completed in 1889 for the World's Fair.",
    "The tower is repainted every seven years. About 60 tonnes of paint are used each time.",
]
ASPIRIN = [
    "Adults may take 300 mg of aspirin every four hours. Do not exceed 4 g in 24 hours.",
    "Aspirin is not recommended for children under 16 because of Reye's syndrome.",
]
Q_EIFFEL = "How tall is the Eiffel Tower and when was it completed?"
Q_ASPIRIN = "How much aspirin can an adult take?"

SUPPORTED = "The Eiffel Tower is 330 metres tall. It was completed in 1889 for the World's Fair."
ONE_WRONG = "The Eiffel Tower is 330 metres tall. It was completed in 1887 for the World's Fair."
REWRITE = '{"c2": "It was completed in 1889 for the World\'s Fair."}'
UNSUPPORTED = "The tower has a rooftop cinema."


@pytest.fixture(scope="module")
def store() -> InMemoryVectorStore:
    vs = InMemoryVectorStore(GuardrailEmbeddings())
    vs.add_texts(EIFFEL + ASPIRIN, metadatas=[{"source": f"doc{i}"} for i in range(4)])
    return vs


@pytest.fixture(scope="module")
def retriever(store):
    return store.as_retriever(search_kwargs={"k": 2})


def fmt(docs: list[Document]) -> str:
    return "\n".join(f"[{i}] {d.page_content}" for i, d in enumerate(docs, 1))


PROMPT = ChatPromptTemplate.from_messages([("system", "Answer from the sources only.\n{context}"), ("human", "{question}")])


def rag(retriever, model, parser: bool = True):
    chain = {"context": retriever | fmt, "question": RunnablePassthrough()} | PROMPT | model
    return chain | StrOutputParser() if parser else chain


class ChatLog(BaseCallbackHandler):
    """Records the messages of every chat model call (per test, passed in the config)."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def on_chat_model_start(self, serialized: Any, messages: list[list[Any]], **kwargs: Any) -> None:
        self.calls.append("\n".join(str(m.content) for m in messages[0]))


def tenant(t: str, **extra: Any) -> dict:
    return {"configurable": {"tenant_id": t, **extra}}


# --------------------------------------------------------------------------------------------- invoke


def test_invoke_captures_evidence_from_the_retriever_callback(retriever):
    model = FakeListChatModel(responses=[SUPPORTED])
    guarded = GuardrailRunnable(rag(retriever, model), guardrail=lexical_check, policy=STORE)
    out = guarded.with_report().invoke(Q_EIFFEL, tenant("internal-search"))
    assert isinstance(out, GuardedOutput) and out.output == SUPPORTED and out.tenant == "internal-search"
    d = out.decision
    assert d.action is Action.respond and d.policy_name == "internal-search"
    retrieved = retriever.invoke(Q_EIFFEL)
    assert [e.text for e in d.report.evidence] == [doc.page_content for doc in retrieved]
    assert [e.id for e in d.report.evidence] == ["1", "2"]  # the numbering the prompt showed
    assert d.report.question == Q_EIFFEL
    # Plain invoke returns the chain's own type.
    model.i = 0
    assert guarded.invoke(Q_EIFFEL, tenant("internal-search")) == SUPPORTED


def test_regeneration_uses_the_chains_own_chat_model(retriever):
    model = FakeListChatModel(responses=[ONE_WRONG, REWRITE])
    log = ChatLog()
    out = GuardrailRunnable(rag(retriever, model), guardrail=lexical_check, policy=STORE).with_report().invoke(
        Q_EIFFEL, {**tenant("internal-search"), "callbacks": [log]})
    assert out.output == SUPPORTED
    assert out.decision.regenerated and out.decision.code is ReasonCode.contradiction
    assert len(log.calls) == 2 and "<flagged_claims>" in log.calls[1] and "1887" in log.calls[1]


def test_a_passed_llm_is_used_for_regeneration(retriever):
    chain_model = FakeListChatModel(responses=[ONE_WRONG])
    fixer = FakeListChatModel(responses=[REWRITE])
    guarded = GuardrailRunnable(rag(retriever, chain_model), guardrail=lexical_check, policy=LENIENT, llm=fixer)
    assert guarded.invoke(Q_EIFFEL) == SUPPORTED
    assert chain_model.i == 0 and fixer.i == 0  # each answered exactly once (FakeListChatModel cycles)


def test_tenant_from_config_selects_the_policy(retriever):
    model = FakeListChatModel(responses=[ONE_WRONG])
    guarded = GuardrailRunnable(rag(retriever, model), guardrail=lexical_check, policy=STORE, find_chain_llm=False)
    lenient = guarded.with_report().invoke(Q_EIFFEL, tenant("internal-search"))
    assert lenient.decision.action is Action.caveat and lenient.decision.code is ReasonCode.regeneration_unavailable
    assert lenient.output.startswith("The Eiffel Tower is 330 metres tall. It was completed in 1887") and "\u26a0" in lenient.output
    strict = guarded.with_report().invoke(Q_EIFFEL, tenant("healthcare"))
    assert strict.decision.action is Action.abstain and strict.decision.policy_name == "healthcare"
    assert strict.output == strict.decision.final_text and "1887" not in strict.output
    with pytest.raises(ConfigError, match="no policy for tenant 'nobody'"):
        guarded.invoke(Q_EIFFEL, tenant("nobody"))


def test_message_output_keeps_its_type_with_the_decision_in_metadata(retriever):
    model = FakeListChatModel(responses=[f"{SUPPORTED} {UNSUPPORTED}"])
    out = GuardrailRunnable(rag(retriever, model, parser=False), guardrail=lexical_check, policy=LENIENT).invoke(Q_EIFFEL)
    assert isinstance(out, AIMessage)
    assert out.content == f"{SUPPORTED} {UNSUPPORTED} [\u26a0 not found in the sources]"
    meta = out.response_metadata["guardrail"]
    assert meta["action"] == "caveat" and meta["policy"] == "internal-search" and meta["claim_ids"] == ["c3"]


def test_dict_output_composed_in_lcel_uses_the_context_key(retriever):
    model = FakeListChatModel(responses=[ONE_WRONG])
    chain = RunnableParallel(context=retriever, question=RunnablePassthrough()).assign(
        answer=(lambda x: {"context": fmt(x["context"]), "question": x["question"]}) | PROMPT | model | StrOutputParser())
    guarded = chain | GuardrailRunnable(guardrail=lexical_check, policy=STRICT)
    out = guarded.invoke(Q_EIFFEL)
    assert set(out) == {"context", "question", "answer"} and out["context"] == retriever.invoke(Q_EIFFEL)
    assert out["answer"] == STRICT.abstain.messages[ReasonCode.contradiction]


def test_composed_step_takes_evidence_from_the_config_or_a_collector(retriever):
    model = FakeListChatModel(responses=[SUPPORTED])
    step = GuardrailRunnable(guardrail=lexical_check, policy=LENIENT).with_report()
    chain = rag(retriever, model) | step
    out = chain.invoke(Q_EIFFEL, tenant("internal-search", guardrail_context=EIFFEL))
    assert out.decision.action is Action.respond and [e.text for e in out.decision.report.evidence] == EIFFEL
    # Without a collector the composed step cannot see the retriever: no evidence is a decision, not a pass.
    model.i = 0
    out = chain.invoke(Q_EIFFEL)
    assert out.decision.action is Action.caveat and out.decision.code is ReasonCode.no_relevant_evidence
    model.i = 0
    out = chain.invoke(Q_EIFFEL, {"callbacks": [EvidenceCollector()]})
    assert out.decision.action is Action.respond and len(out.decision.report.evidence) == 2


def test_missing_answer_key_is_a_clear_error():
    step = GuardrailRunnable(guardrail=lexical_check, policy=LENIENT)
    with pytest.raises(InputError, match="no answer key"):
        step.invoke({"summary": "x"})
    with pytest.raises(TypeError, match="policy must be"):
        GuardrailRunnable(policy=42)


# --------------------------------------------------------------------------------------------- batch / async


def test_batch_and_abatch_keep_order_and_evidence(retriever):
    def answer(x: dict) -> list:
        top = x["context"].splitlines()[0].split("] ", 1)[1]
        return [HumanMessage(top.split(". ")[0] + ".")]

    chain = {"context": retriever | fmt, "question": RunnablePassthrough()} | RunnableLambda(answer) | ParrotFakeChatModel() | StrOutputParser()
    guarded = GuardrailRunnable(chain, guardrail=lexical_check, policy=LENIENT).with_report()
    outs = guarded.batch([Q_EIFFEL, Q_ASPIRIN])
    assert [o.output for o in outs] == ["The Eiffel Tower is 330 metres tall.", "Adults may take 300 mg of aspirin every four hours."]
    assert [o.decision.action for o in outs] == [Action.respond, Action.respond]
    assert outs[1].decision.report.evidence[0].text == ASPIRIN[0]
    aouts = asyncio.run(guarded.abatch([Q_ASPIRIN, Q_EIFFEL]))
    assert [o.output for o in aouts] == [outs[1].output, outs[0].output]


async def test_concurrent_ainvoke_for_two_tenants_does_not_mix_evidence_or_policies(retriever):
    async def answer(x: dict) -> list:
        await asyncio.sleep(0.01 if "aspirin" in x["question"] else 0.03)  # interleave the calls
        top = x["context"].splitlines()[0].split("] ", 1)[1]
        return [HumanMessage(top.split(". ")[0] + " [1].")]

    chain = {"context": retriever | fmt, "question": RunnablePassthrough()} | RunnableLambda(answer) | ParrotFakeChatModel() | StrOutputParser()
    guarded = GuardrailRunnable(chain, guardrail=lexical_check, policy=STORE).with_report()
    jobs = [(Q_EIFFEL, "internal-search"), (Q_ASPIRIN, "healthcare")] * 4
    outs = await asyncio.gather(*(guarded.ainvoke(q, tenant(t)) for q, t in jobs))
    for (q, t), out in zip(jobs, outs):
        own = EIFFEL if t == "internal-search" else ASPIRIN
        assert out.tenant == t and out.decision.policy_name == t
        assert {e.text for e in out.decision.report.evidence} <= set(own)
        assert out.decision.action is Action.respond, (t, out.decision.reasons)


async def test_ainvoke_keeps_the_event_loop_free_while_checking(retriever):
    def slow_check(answer, context, question=None):
        time.sleep(0.2)  # stands for model inference
        return lexical_check(answer, context, question)

    model = FakeListChatModel(responses=[SUPPORTED])
    guarded = GuardrailRunnable(rag(retriever, model), guardrail=slow_check, policy=LENIENT)
    gaps: list[float] = []
    done = asyncio.Event()

    async def ticker():
        last = time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(0.01)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    tick = asyncio.create_task(ticker())
    assert await guarded.ainvoke(Q_EIFFEL) == SUPPORTED
    done.set()
    await tick
    assert max(gaps) < 0.1


# --------------------------------------------------------------------------------------------- streaming


def test_stream_releases_checked_sentences_in_the_chains_type(retriever):
    answer = f"{SUPPORTED} {UNSUPPORTED} The tower is repainted every seven years."
    model = FakeListChatModel(responses=[answer])  # streams one character per chunk
    guarded = GuardrailRunnable(rag(retriever, model), guardrail=lexical_check, policy=LENIENT)
    chunks = list(guarded.stream(Q_EIFFEL))
    assert all(isinstance(c, str) for c in chunks)
    assert chunks == ["The Eiffel Tower is 330 metres tall.", " It was completed in 1889 for the World's Fair.",
                      f" {UNSUPPORTED} [\u26a0 not found in the sources]", " The tower is repainted every seven years."]
    model.i = 0
    reports = list(guarded.with_report().stream(Q_EIFFEL))
    assert all(isinstance(r, GuardedChunk) and r.segment.decision.report.answer == r.segment.text for r in reports)
    assert [r.segment.action for r in reports] == [Action.respond, Action.respond, Action.caveat, Action.respond]
    assert all(r.segment.released_ms >= r.segment.ready_ms for r in reports)


def test_stream_replaces_a_flagged_sentence_using_the_chains_model(retriever):
    model = FakeListChatModel(responses=[ONE_WRONG, '{"c1": "It was completed in 1889 for the World\'s Fair."}'])
    guarded = GuardrailRunnable(rag(retriever, model), guardrail=lexical_check, policy=LENIENT)
    assert "".join(guarded.stream(Q_EIFFEL)) == SUPPORTED


async def test_astream_message_chunks_withhold_what_the_strict_policy_withholds(retriever):
    answer = "Adults may take 300 mg of aspirin every four hours [1]. Adults may take 900 mg of aspirin every four hours [1]. Do not exceed 4 g in 24 hours [1]."
    model = FakeListChatModel(responses=[answer])
    guarded = GuardrailRunnable(rag(retriever, model, parser=False), guardrail=lexical_check, policy=STORE, find_chain_llm=False)
    chunks = [c async for c in guarded.astream(Q_ASPIRIN, tenant("healthcare"))]
    assert all(isinstance(c, AIMessageChunk) for c in chunks)
    text = "".join(c.content for c in chunks)
    assert "900 mg" not in text
    assert text.startswith("Adults may take 300 mg of aspirin every four hours [1]. Do not exceed 4 g in 24 hours [1].")
    assert text.endswith(STRICT.abstain.messages[ReasonCode.contradiction])


async def test_astream_dict_passes_other_keys_through_and_reports_events(retriever):
    model = FakeListChatModel(responses=[SUPPORTED])
    chain = RunnableParallel(context=retriever, question=RunnablePassthrough()).assign(
        answer=(lambda x: {"context": fmt(x["context"]), "question": x["question"]}) | PROMPT | model | StrOutputParser())
    guarded = chain | GuardrailRunnable(guardrail=lexical_check, policy=LENIENT)
    chunks = [c async for c in guarded.astream(Q_EIFFEL)]
    answers = [c["answer"] for c in chunks if "answer" in c]
    assert answers == ["The Eiffel Tower is 330 metres tall.", " It was completed in 1889 for the World's Fair."]
    assert any("context" in c for c in chunks) and any(c.get("question") == Q_EIFFEL for c in chunks)
    model.i = 0
    events = [e async for e in guarded.astream_events(Q_EIFFEL, version="v2") if e["event"] == "on_custom_event"]
    # Was: only segment events; the decision event invoke dispatches was missing from streams.
    assert [e["name"] for e in events] == ["guardrail_segment", "guardrail_segment", "guardrail_decision"]
    assert all(e["data"].action is Action.respond for e in events)


def test_invoke_dispatches_the_decision_event(retriever):
    seen = []

    class Events(BaseCallbackHandler):
        def on_custom_event(self, name, data, **kwargs):
            seen.append((name, data))

    model = FakeListChatModel(responses=[SUPPORTED])
    GuardrailRunnable(rag(retriever, model), guardrail=lexical_check, policy=LENIENT).invoke(Q_EIFFEL, {"callbacks": [Events()]})
    assert [n for n, _ in seen] == ["guardrail_decision"] and seen[0][1].action is Action.respond


def _no_claims_check(answer, context, question=None):
    """``lexical_check`` with the project's extractor; no claim is left to ``on_no_claims`` (as ``Guardrail.check``)."""
    from guardrail.claims import SentenceClaimExtractor

    report = lexical_check(answer, context, question, extractor=SentenceClaimExtractor())
    return report if report.claims else report.model_copy(update={"skipped": []})


@pytest.mark.parametrize("answer", ["Sure!\n\nHappy to help.", "Sure! " + SUPPORTED, ONE_WRONG])
async def test_stream_and_astream_decide_and_report_as_invoke(retriever, answer):
    # Was: "Sure!" streamed although healthcare (on_no_claims: abstain) withheld it on invoke, and
    # streams dispatched no guardrail_decision event.
    seen: list[tuple[str, Any]] = []

    class Events(BaseCallbackHandler):
        def on_custom_event(self, name, data, **kwargs):
            seen.append((name, data))

    model = FakeListChatModel(responses=[answer] * 3)
    guarded = GuardrailRunnable(rag(retriever, model), guardrail=_no_claims_check, policy=STORE, find_chain_llm=False)
    config = {**tenant("healthcare"), "callbacks": [Events()]}
    invoked = guarded.with_report().invoke(Q_EIFFEL, config)
    streamed = "".join(guarded.stream(Q_EIFFEL, config))
    astreamed = "".join([c async for c in guarded.astream(Q_EIFFEL, config)])
    decisions = [d for n, d in seen if n == "guardrail_decision"]
    assert len(decisions) == 3  # one per answer: invoke, stream, astream
    for d in decisions[1:]:
        assert (d.action, d.code) == (invoked.decision.action, invoked.decision.code)
    if invoked.decision.action is Action.abstain:
        assert invoked.output.strip() in streamed and invoked.output.strip() in astreamed
        assert "Sure" not in streamed or invoked.decision.report.claims  # text without claims shown only beside a claim


# --------------------------------------------------------------------------------------------- real guardrail


def test_real_guardrail_end_to_end(retriever):
    from guardrail import Guardrail

    model = FakeListChatModel(responses=[ONE_WRONG])
    guarded = GuardrailRunnable(rag(retriever, model), guardrail=Guardrail(), policy=LENIENT, find_chain_llm=False).with_report()
    out = guarded.invoke(Q_EIFFEL)
    d = out.decision
    assert d.report is not None and d.report.verifier and len(d.report.evidence) == 2
    assert d.action is not Action.respond and "1887" in d.report.answer
    flagged = {c.id: v for c, v in d.report.flagged}
    assert flagged["c2"].label.value == "contradicted" and "1887" in d.report.claims[1].text


# --------------------------------------------------------------------------------------------- the chat-model adapter

USER = [{"role": "user", "content": "hi"}]


def test_langchain_chat_converts_messages_and_returns_text():
    from pydantic import BaseModel

    from guardrail.llm import chat_json

    class Verdict(BaseModel):
        label: str
        confidence: float

    llm = LangChainChat(FakeListChatModel(responses=['{"label": "contradicted", "confidence": 0.6}']))
    msgs = [{"role": "system", "content": "judge"}, {"role": "user", "content": "claim"}]
    assert chat_json(llm, msgs, Verdict) == Verdict(label="contradicted", confidence=0.6)
    assert [m.type for m in llm.convert(msgs)] == ["system", "human"]
    assert llm.chat_model is llm.model and repr(llm) == "LangChainChat(FakeListChatModel)"


async def test_langchain_chat_async_and_error_mapping():
    llm = LangChainChat(FakeListChatModel(responses=["async text"]))
    assert await llm.achat(USER) == "async text"

    class Broken(FakeListChatModel):
        def _call(self, *a: Any, **k: Any) -> str:
            raise TimeoutError("model took too long")

    with pytest.raises(LLMTimeout, match="took too long"):
        LangChainChat(Broken(responses=["x"])).chat(USER)
    with pytest.raises(LLMResponseError, match="ValueError"):
        LangChainChat(FakeListChatModel(responses=["x"])).chat([{"role": "no-such-role", "content": "x"}])
    with pytest.raises(ConfigError, match="BaseChatModel"):
        LangChainChat(object())


def test_langchain_chat_runs_its_calls_under_the_given_config():
    seen = []

    class Recorder(BaseCallbackHandler):
        def on_chat_model_start(self, serialized: Any, messages: Any, **kw: Any) -> None:
            seen.append(kw.get("tags"))

    llm = LangChainChat(FakeListChatModel(responses=["ok"]), {"callbacks": [Recorder()], "tags": ["regen"]})
    assert llm.chat(USER) == "ok" and seen == [["regen"]]


def test_a_bare_langchain_model_is_bounded_by_duck_typing():
    from guardrail.llm import BoundedChat, CallBudget, InvokeChat, as_chat_model

    chat = as_chat_model(FakeListChatModel(responses=["plain"]))
    assert isinstance(chat, BoundedChat) and type(chat.model) is InvokeChat
    assert chat.chat(USER, budget=CallBudget(timeout_s=5)) == "plain"
    adapted = as_chat_model(LangChainChat(FakeListChatModel(responses=["adapted"])))
    assert isinstance(adapted.model, LangChainChat) and adapted.chat(USER) == "adapted"


def test_public_surface():
    assert sorted(guardrail_langchain.__all__) == sorted([
        "GuardrailRunnable", "GuardedOutput", "GuardedChunk", "EvidenceCollector", "GuardrailEmbeddings",
        "documents_to_evidence", "find_chat_model", "LangChainChat"])


# --------------------------------------------------------------------------------------------- a real OpenAI-compatible stream

STREAMED = ["The Eiffel Tower is ", "330 metres tall.", " It was completed in ", "18"]


def _openai_chain(stub_url: str, retriever):
    from langchain_openai import ChatOpenAI

    model = ChatOpenAI(base_url=stub_url, api_key="sk-stub", model="stub", max_retries=0, timeout=10)
    return rag(retriever, model), model


@pytest.mark.parametrize("finish", [None, "length"])
def test_a_stream_cut_short_is_a_failure_never_a_shorter_answer(openai_stub, retriever, finish):
    # Was (issue 15, item 4): llama.cpp cut the answer stream and the fragment ("... in 18") was shown
    # as the whole answer. Now the fragment is withheld under fail-closed and the decision says why.

    openai_stub.add(Reply(pieces=STREAMED, finish_reason=finish), Reply(pieces=STREAMED, finish_reason=finish))
    chain, _ = _openai_chain(openai_stub.base_url, retriever)
    closed = LENIENT.model_copy(update={"failure": LENIENT.failure.model_copy(update={"checks": {"stream": FailMode.closed}})})
    seen = []

    class Events(BaseCallbackHandler):
        def on_custom_event(self, name, data, **kwargs):
            seen.append((name, data))

    guarded = GuardrailRunnable(chain, guardrail=lexical_check, policy=closed, find_chain_llm=False)
    text = "".join(guarded.stream(Q_EIFFEL, {"callbacks": [Events()]}))
    assert text == f"The Eiffel Tower is 330 metres tall.\n\n{closed.abstain.message_for(ReasonCode.check_failed)}"
    decision = [d for n, d in seen if n == "guardrail_decision"][0]
    assert decision.action is Action.abstain and decision.code is ReasonCode.check_failed
    assert "StreamInterrupted" in decision.error
    # The library's own default (internal-search: fail caveat) shows the fragment, marked as unchecked.
    text = "".join(GuardrailRunnable(chain, guardrail=lexical_check, policy=LENIENT, find_chain_llm=False).stream(Q_EIFFEL))
    assert text.endswith(LENIENT.caveat.general_note) and "in 18" in text


def test_the_rewrite_waits_until_the_answer_stream_has_ended(openai_stub, retriever):
    # Was: the rewrite request went to the server while it was still streaming the answer (one slot
    # on llama.cpp: the answer stream was cut).

    answer = ["It was completed in 1887 ", "for the World's Fair.", " The Eiffel Tower ", "is 330 metres tall.",
              " The tower is repainted ", "every seven years."]
    openai_stub.add(Reply(pieces=answer, gap=0.05), Reply(content='{"c1": "It was completed in 1889 for the World\'s Fair."}'))
    chain, _ = _openai_chain(openai_stub.base_url, retriever)
    guarded = GuardrailRunnable(chain, guardrail=lexical_check, policy=LENIENT)
    text = "".join(guarded.stream(Q_EIFFEL))
    assert text.startswith("It was completed in 1889 for the World's Fair. The Eiffel Tower is 330 metres tall.")
    assert len(openai_stub.requests) == 2 and openai_stub.requests[1]["arrived"] >= openai_stub.streams_done[0]
