"""Checked streaming latency: time to the first checked sentence, and what checking adds per sentence.

A model that streams tokens at a fixed pace (``--token-ms``, default 40 ms: ~25 tokens/s, a small
model on a CPU) writes a 6-sentence answer about the demo documents (one sentence contradicts
them); the answer goes through ``GuardrailRunnable`` with the library's default ``Guardrail`` and
the bundled internal-search policy, as stream() and as astream().

Reported, over ``--runs`` runs (after one warm-up that loads the models):
  ttfs         stream start -> first sentence handed out by the sentence buffer, unguarded stream
  hold-back    per sentence: its last character received -> handed out (the buffer waits for the
               next sentence's first word, so a boundary is never guessed)
  ttfcs        stream start -> first *checked* sentence released (what the user waits for)
  added/sent   per sentence: released - complete in the buffer (p50 / p95 / max)
  total        stream start -> last text released, and the same for the unguarded stream

Run from the repo root:  .venv/bin/python benchmarks/streaming_latency.py [--token-ms 40] [--runs 5] [--verifier default]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

ANSWER = (
    "The Eiffel Tower stands on the Champ de Mars in Paris. "
    "It is named after the engineer Gustave Eiffel, whose company designed and built it. "
    "Construction began in January 1887. "
    "The tower was completed on 31 March 1891, in time for the World's Fair. "
    "It is 330 metres tall today, including its antennas. "
    "It was the tallest man-made structure in the world until 1930."
)
QUESTION = "Tell me about the Eiffel Tower."


def _docs():
    from langchain_core.documents import Document

    data = json.loads((REPO / "guardrail" / "demo_data" / "documents.json").read_text())
    return [Document(page_content=d["text"], metadata={"source": d["source"]}) for d in data]


def build(token_ms: float, verifier: str):
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.runnables import RunnableLambda, RunnablePassthrough

    from guardrail import Guardrail
    from guardrail.policy import PolicyStore
    from guardrail_langchain import GuardrailRunnable

    docs = _docs()

    class DemoRetriever(BaseRetriever):
        def _get_relevant_documents(self, query, *, run_manager=None):
            return docs[:2]

    class PacedModel(GenericFakeChatModel):
        """GenericFakeChatModel streams word by word; this one waits token_ms per token, like a real model."""

        def _stream(self, *a, **kw):
            for chunk in super()._stream(*a, **kw):
                time.sleep(token_ms / 1000)
                yield chunk

        async def _astream(self, *a, **kw):
            for chunk in GenericFakeChatModel._stream(self, *a, **kw):
                await asyncio.sleep(token_ms / 1000)
                yield chunk

    def model():
        return PacedModel(messages=iter([AIMessage(ANSWER)] * 1000))

    prompt = ChatPromptTemplate.from_messages([("system", "{context}"), ("human", "{question}")])
    fmt = RunnableLambda(lambda ds: "\n".join(d.page_content for d in ds))

    def chain(m):
        return {"context": DemoRetriever() | fmt, "question": RunnablePassthrough()} | prompt | m | StrOutputParser()

    guard = Guardrail(verifier)
    policy = PolicyStore(REPO / "policies").get("internal-search")
    return chain, model, lambda m: GuardrailRunnable(chain(m), guardrail=guard, policy=policy, find_chain_llm=False).with_report(), guard


def raw_times(chain, model) -> tuple[float, float, list[float]]:
    """Unguarded stream through the same sentence buffer: first sentence time, total, and per sentence
    the hold-back of the buffer (last character of the sentence received -> sentence handed out)."""
    from guardrail.claims import split_sentences
    from guardrail.streaming import SentenceBuffer

    ends = [e for _, e in split_sentences(ANSWER)]
    buf, t0, first = SentenceBuffer(), time.perf_counter(), None
    received, complete_at, released_at = 0, [], []
    for chunk in chain(model()).stream(QUESTION):
        now = time.perf_counter()
        received += len(chunk)
        while len(complete_at) < len(ends) and received >= ends[len(complete_at)]:
            complete_at.append(now)
        out = buf.feed(chunk)
        released_at += [now] * len(out)
        if out and first is None:
            first = now - t0
    released_at += [time.perf_counter()] * len(buf.flush())
    hold = [(r - c) * 1e3 for c, r in zip(complete_at, released_at)]
    return first * 1e3, (time.perf_counter() - t0) * 1e3, hold


def guarded_sync(guarded, model) -> tuple[float, list[float], float, str]:
    t0 = time.perf_counter()
    segs, text = [], ""
    for out in guarded(model()).stream(QUESTION):
        if out.segment is not None:
            segs.append(out.segment)
        text += out.chunk or ""
    total = (time.perf_counter() - t0) * 1e3
    sentences = [s for s in segs if s.kind == "sentence"]
    return sentences[0].released_ms, [s.added_ms for s in sentences], total, text


async def guarded_async(guarded, model) -> tuple[float, list[float], float, str]:
    t0 = time.perf_counter()
    segs, text = [], ""
    async for out in guarded(model()).astream(QUESTION):
        if out.segment is not None:
            segs.append(out.segment)
        text += out.chunk or ""
    total = (time.perf_counter() - t0) * 1e3
    sentences = [s for s in segs if s.kind == "sentence"]
    return sentences[0].released_ms, [s.added_ms for s in sentences], total, text


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--token-ms", type=float, default=40.0, help="delay per streamed token (word) of the model")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--verifier", default="default", help="Guardrail verifier spec: default, heuristic, grounding, hf:PATH")
    args = ap.parse_args(argv)

    chain, model, guarded, guard = build(args.token_ms, args.verifier)
    guarded_sync(guarded, model)  # warm-up: loads the embedder and the verifier
    raw = [raw_times(chain, model) for _ in range(args.runs)]
    sync = [guarded_sync(guarded, model) for _ in range(args.runs)]
    asyn = [asyncio.run(guarded_async(guarded, model)) for _ in range(args.runs)]

    print(f"verifier: {guard.verifier.name}   token pace: {args.token_ms:g} ms   runs: {args.runs}   "
          f"answer: {len(ANSWER.split())} tokens, 6 sentences")
    hold = [h for r in raw for h in r[2]]
    print(f"unguarded       ttfs  {statistics.median(r[0] for r in raw):6.1f} ms   buffer hold-back/sentence p50 {pct(hold, 0.5):6.1f}"
          f"  max {max(hold):6.1f} ms   total {statistics.median(r[1] for r in raw):7.1f} ms")
    for name, rows in (("stream()", sync), ("astream()", asyn)):
        added = [a for r in rows for a in r[1]]
        print(f"{name:<15} ttfcs {statistics.median(r[0] for r in rows):6.1f} ms   added/sentence p50 {pct(added, 0.5):6.1f}"
              f"  p95 {pct(added, 0.95):6.1f}  max {max(added):6.1f} ms   total {statistics.median(r[2] for r in rows):7.1f} ms")
    print("\nreleased text (astream):\n" + asyn[-1][3])
    return 0


if __name__ == "__main__":
    sys.exit(main())
