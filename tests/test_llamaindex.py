"""guardrail_llamaindex on real llama-index-core objects: a VectorStoreIndex embedded with the packaged
MiniLM (``GuardrailEmbedding``), the stock retriever query engine with ``MockLLM``, node post-processing.

``MockLLM`` echoes its prompt, so a fixed ``text_qa_template`` makes the engine answer a known text
through the real synthesizer. Checks go through ``lexical_check`` (tests/test_policy_helpers.py) so
each decision is known exactly; ``test_real_guardrail_end_to_end`` uses the library's ``Guardrail``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from llama_index.core import Document, PromptTemplate, Settings, VectorStoreIndex
from llama_index.core.base.response.schema import Response
from llama_index.core.llms import MockLLM
from llama_index.core.query_engine import CustomQueryEngine
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import MetadataMode, NodeWithScore, TextNode

import guardrail_llamaindex
from guardrail.llm import OpenAIChat
from guardrail.policy import Action, PolicyStore, ReasonCode
from guardrail_llamaindex import (
    GuardedQueryEngine,
    GuardrailEmbedding,
    GuardrailNodePostprocessor,
    LlamaIndexChat,
    nodes_to_evidence,
)
from openai_stub import openai_stub  # noqa: F401  (fixture)
from test_policy_helpers import lexical_check

REPO = Path(__file__).resolve().parent.parent
STORE = PolicyStore(REPO / "policies")
STRICT = STORE.get("healthcare")

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


@pytest.fixture(scope="module", autouse=True)
def settings():
    old_llm, old_embed = Settings._llm, Settings._embed_model
    Settings.llm = MockLLM()
    Settings.embed_model = GuardrailEmbedding()
    yield
    Settings._llm, Settings._embed_model = old_llm, old_embed


@pytest.fixture(scope="module")
def index(settings) -> VectorStoreIndex:
    docs = [Document(text=t, metadata={"source": f"doc{i}"}) for i, t in enumerate(EIFFEL + ASPIRIN)]
    return VectorStoreIndex.from_documents(docs)


def engine(index, answer: str, **kw):
    """The stock retriever query engine; MockLLM echoes the fixed template, so the answer is ``answer``."""
    return index.as_query_engine(similarity_top_k=2, node_postprocessors=[GuardrailNodePostprocessor()],
                                 text_qa_template=PromptTemplate(answer), **kw)


# --------------------------------------------------------------------------------------------- post-processor


def test_postprocessor_numbers_copies_and_shows_ids_to_the_llm(index):
    retrieved = index.as_retriever(similarity_top_k=2).retrieve(Q_EIFFEL)
    out = GuardrailNodePostprocessor().postprocess_nodes(retrieved, query_str=Q_EIFFEL)
    assert [n.node.metadata["evidence_id"] for n in out] == ["1", "2"]
    assert all("evidence_id" not in n.node.metadata for n in retrieved)  # originals untouched
    assert out[0].node.get_content(metadata_mode=MetadataMode.LLM).startswith("source: ") and "evidence_id: 1" in out[0].node.get_content(metadata_mode=MetadataMode.LLM)
    assert "evidence_id" not in out[0].node.get_content(metadata_mode=MetadataMode.EMBED)
    assert [n.node.get_content() for n in out] == EIFFEL


def test_postprocessor_hash_ids_are_stable_and_min_score_drops_weak_nodes():
    a, b, c = (TextNode(text=t) for t in (EIFFEL[0], EIFFEL[1], ASPIRIN[0]))
    pp = GuardrailNodePostprocessor(id_template="doc-{hash}", min_score=0.5)
    first = pp.postprocess_nodes([NodeWithScore(node=a, score=0.9), NodeWithScore(node=b, score=0.6), NodeWithScore(node=c, score=0.1)])
    second = pp.postprocess_nodes([NodeWithScore(node=b, score=0.7), NodeWithScore(node=a, score=None)])
    ids1 = {n.node.get_content(): n.node.metadata["evidence_id"] for n in first}
    ids2 = {n.node.get_content(): n.node.metadata["evidence_id"] for n in second}
    assert set(ids1) == {EIFFEL[0], EIFFEL[1]}  # 0.1 < 0.5 dropped
    assert ids1 == ids2  # same passage, same id, whatever the order; unscored nodes are kept
    with pytest.raises(ValueError, match="placeholder"):
        GuardrailNodePostprocessor(id_template="{rank}")
    with pytest.raises(ValueError, match="two nodes"):
        GuardrailNodePostprocessor(id_template="same").postprocess_nodes([NodeWithScore(node=a), NodeWithScore(node=b)])


async def test_postprocessor_async_path(index):
    retrieved = await index.as_retriever(similarity_top_k=2).aretrieve(Q_ASPIRIN)
    out = await GuardrailNodePostprocessor().apostprocess_nodes(retrieved)
    assert [n.node.metadata["evidence_id"] for n in out] == ["1", "2"] and out[0].node.get_content() in ASPIRIN


# --------------------------------------------------------------------------------------------- query engine


def test_query_checks_source_nodes_and_returns_the_decision(index):
    guarded = GuardedQueryEngine(engine(index, SUPPORTED), guardrail=lexical_check, policy=STORE, tenant="internal-search")
    resp = guarded.query(Q_EIFFEL)
    d = resp.metadata["guardrail"]
    assert resp.response == SUPPORTED and d.action is Action.respond and d.policy_name == "internal-search"
    assert [e.id for e in d.report.evidence] == ["1", "2"]
    assert [e.text for e in d.report.evidence] == [n.node.get_content() for n in resp.source_nodes] == EIFFEL
    assert d.report.question == Q_EIFFEL


def test_query_applies_the_tenants_policy(index):
    base = GuardedQueryEngine(engine(index, ONE_WRONG), guardrail=lexical_check, policy=STORE, tenant="internal-search")
    lenient = base.query(Q_EIFFEL)
    assert lenient.metadata["guardrail"].action is Action.caveat
    assert lenient.response.startswith("The Eiffel Tower is 330 metres tall. It was completed in 1887 for the World's Fair. [\u26a0")
    strict = base.for_tenant("healthcare").query(Q_EIFFEL)
    assert strict.metadata["guardrail"].action is Action.abstain
    assert strict.response == STRICT.abstain.messages[ReasonCode.contradiction]
    assert len(strict.source_nodes) == 2  # sources stay available for review


async def test_aquery_two_tenants_concurrently(index):
    eiffel = GuardedQueryEngine(engine(index, ONE_WRONG), guardrail=lexical_check, policy=STORE, tenant="internal-search")
    aspirin = GuardedQueryEngine(engine(index, "Adults may take 300 mg of aspirin every four hours [1]."),
                                 guardrail=lexical_check, policy=STORE, tenant="healthcare")
    jobs = [(eiffel, Q_EIFFEL), (aspirin, Q_ASPIRIN)] * 3
    outs = await asyncio.gather(*(e.aquery(q) for e, q in jobs))
    for (e, _), resp in zip(jobs, outs):
        d = resp.metadata["guardrail"]
        assert d.policy_name == e.tenant
        own = EIFFEL if e is eiffel else ASPIRIN
        assert {ev.text for ev in d.report.evidence} == set(own)
        assert d.action is (Action.caveat if e is eiffel else Action.respond), d.reasons


def test_streaming_engine_response_is_checked_whole(index):
    guarded = GuardedQueryEngine(engine(index, ONE_WRONG, streaming=True), guardrail=lexical_check, policy=STRICT)
    resp = guarded.query(Q_EIFFEL)
    assert resp.metadata["guardrail"].action is Action.abstain and "1887" not in resp.response


def test_regeneration_through_an_openai_compatible_endpoint(index, openai_stub):  # noqa: F811
    openai_stub.add('{"c2": "It was completed in 1889 for the World\'s Fair."}')
    llm = OpenAIChat(base_url=openai_stub.base_url, model="stub")
    guarded = GuardedQueryEngine(engine(index, ONE_WRONG), guardrail=lexical_check, policy=STORE, tenant="internal-search", llm=llm)
    resp = guarded.query(Q_EIFFEL)
    d = resp.metadata["guardrail"]
    assert resp.response == SUPPORTED and d.regenerated
    assert "1887" in openai_stub.requests[0]["json"]["messages"][-1]["content"]


class NoAnswerEngine(CustomQueryEngine):
    """A custom engine that retrieved sources but produced no answer text."""

    retriever: BaseRetriever

    def custom_query(self, query_str: str) -> Response:
        return Response(response=None, source_nodes=self.retriever.retrieve(query_str))


def test_empty_answer_is_no_answer_never_a_pass(index):
    # Was: returned unchecked with no decision (a silent pass).
    guarded = GuardedQueryEngine(NoAnswerEngine(retriever=index.as_retriever(similarity_top_k=1)), guardrail=lexical_check)
    resp = guarded.query(Q_EIFFEL)
    d = resp.metadata["guardrail"]
    assert len(resp.source_nodes) == 1 and "empty answer" in resp.metadata["guardrail_skipped"]
    assert d.action is Action.abstain and d.code is ReasonCode.no_claims and resp.response == d.final_text
    resp = asyncio.run(guarded.aquery(Q_EIFFEL))  # CustomQueryEngine's async path: the sync one
    assert resp.metadata["guardrail"].action is Action.abstain


class PlaceholderEngine(CustomQueryEngine):
    """What LlamaIndex's synthesizers return when nothing was retrieved."""

    def custom_query(self, query_str: str) -> Response:
        return Response(response="Empty Response", source_nodes=[])


@pytest.mark.parametrize("tenant", ["default", "healthcare"])
def test_empty_response_placeholder_is_not_checked_as_a_claim(tenant):
    # Was: "Empty Response" went to the checker as a factual claim.
    checked = []

    def check(answer, context, question=None):
        checked.append(answer)
        return lexical_check(answer, context, question)

    guarded = GuardedQueryEngine(PlaceholderEngine(), guardrail=check, policy=STORE, tenant=tenant)
    for resp in (guarded.query(Q_EIFFEL), asyncio.run(guarded.aquery(Q_EIFFEL))):
        d = resp.metadata["guardrail"]
        assert checked == [] and d.report.claims == []
        assert d.action is Action.abstain and resp.response == STORE.get(tenant).abstain.message_for(ReasonCode.no_claims)
        assert "Empty Response" in resp.metadata["guardrail_skipped"] and "Empty Response" not in resp.response


def test_llamaindex_llm_adapter_and_argument_errors(index):
    chat = LlamaIndexChat(MockLLM())
    assert "hello there" in chat.chat([{"role": "user", "content": "hello there"}])
    assert "hello again" in asyncio.run(chat.achat([{"role": "user", "content": "hello again"}]))
    with pytest.raises(TypeError, match="query engine"):
        GuardedQueryEngine("not an engine")
    with pytest.raises(TypeError, match="llm must be"):
        GuardedQueryEngine(engine(index, SUPPORTED), llm=42)
    assert [e.id for e in nodes_to_evidence([NodeWithScore(node=TextNode(text="x"), score=0.3)])] == ["1"]


def test_real_guardrail_end_to_end(index):
    from guardrail import Guardrail

    guarded = GuardedQueryEngine(engine(index, ONE_WRONG), guardrail=Guardrail(), policy=STORE, tenant="internal-search")
    d = guarded.query(Q_EIFFEL).metadata["guardrail"]
    assert d.report is not None and len(d.report.evidence) == 2
    flagged = {c.id: v for c, v in d.report.flagged}
    assert flagged["c2"].label.value == "contradicted" and "1887" in d.report.claims[1].text and d.action is not Action.respond
    assert {e.id for e in d.report.evidence} == {"1", "2"}


def test_public_surface():
    assert sorted(guardrail_llamaindex.__all__) == sorted(
        ["GuardrailNodePostprocessor", "GuardedQueryEngine", "GuardrailEmbedding", "LlamaIndexChat", "nodes_to_evidence"])
