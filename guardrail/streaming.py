"""Checked streaming: release a streamed answer sentence by sentence, each only after it was checked.

Why a buffer at all: a guardrail that checks after the last token makes the user wait for the
whole answer; one that passes tokens through unchecked is no guardrail. Here text is buffered to
sentence boundaries (``guardrail.claims.split_units``, the same splitter the claims come from),
each complete sentence goes through ``guard`` (check -> policy -> optional regeneration) and only
then is released: respond as is, caveat marked, regenerate replaced, abstain/escalate withheld.

Framework-free on purpose: the LangChain and LlamaIndex adapters only translate chunks to text and
back. Everything that depends on one stream lives in a ``StreamGuard`` created for that stream, so
nothing is shared between concurrent streams.

Boundaries are conservative. A sentence is released only when the next one has started with at
least one whole word (a splitter decides "Dr. Smith" / "e.g. in" / "No. 5" on the next word), or
when the stream ends; so a release never cuts a token. Bytes are decoded incrementally, so a
multi-byte UTF-8 character split across chunks is never cut either.

Each sentence is judged as if it were the whole answer, because later text is not known yet. That
makes answer-level rules (the unsupported ratio, "no relevant evidence") apply per sentence:
stricter than checking the full answer, which is the safe direction for an inline guardrail.
"""

from __future__ import annotations

import asyncio
import codecs
import time
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .claims import split_units
from .errors import InputError
from .policy import Action, Decision, Policy, aguard, guard
from .policy._caveat import Caveat
from .policy._policy import CaveatStyle

__all__ = ["SentenceBuffer", "CheckedSegment", "StreamGuard", "check_stream", "acheck_stream"]


# --------------------------------------------------------------------------------------------- buffer


class SentenceBuffer:
    """Accumulates streamed text and hands out complete segments (gap before a unit + the unit).

    Segments concatenate back to exactly the text fed in: nothing is dropped or re-typed.
    """

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")("strict")
        self._pending = ""  # text not yet handed out

    def feed(self, chunk: str | bytes) -> list[str]:
        """Add a chunk; returns the segments that are now complete (often none)."""
        if isinstance(chunk, (bytes, bytearray)):
            try:
                chunk = self._decoder.decode(bytes(chunk))
            except UnicodeDecodeError as exc:
                raise InputError(f"streamed bytes are not valid UTF-8 ({exc.reason} at byte {exc.start} of a chunk)") from exc
        elif not isinstance(chunk, str):
            raise InputError(f"stream chunks must be str or bytes, got {type(chunk).__name__}")
        self._pending += chunk
        if not any(ch.isspace() for ch in chunk):
            # A release needs whitespace after the next sentence's first word, so a chunk without
            # any cannot complete a segment: skip the re-split (it only ever delays, never cuts).
            return []
        return self._take(final=False)

    def flush(self) -> list[str]:
        """End of stream: every remaining segment, the trailing whitespace attached to the last one."""
        try:
            self._pending += self._decoder.decode(b"", final=True)
        except UnicodeDecodeError as exc:
            raise InputError(f"stream ended inside a multi-byte UTF-8 character ({exc.reason})") from exc
        return self._take(final=True)

    @property
    def pending(self) -> str:
        return self._pending

    def _take(self, final: bool) -> list[str]:
        text = self._pending
        if not text:
            return []
        units = split_units(text)
        if final:
            cuts = [u.end for u in units[:-1]]
            cuts.append(len(text))
        else:
            cuts = []
            for cur, nxt in zip(units, units[1:]):
                # The next unit must hold one whole word before `cur` is final (see module doc).
                body = text[nxt.start :]
                if not any(ch.isspace() for ch in body.lstrip()):
                    break
                cuts.append(cur.end)
        out, pos = [], 0
        for cut in cuts:
            if cut > pos:
                out.append(text[pos:cut])
                pos = cut
        self._pending = text[pos:]
        return out


# --------------------------------------------------------------------------------------------- results


class CheckedSegment(BaseModel):
    """One released piece of a checked stream, with what was decided about it and when."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    index: int = Field(description="0-based position among the segments of the stream.")
    kind: Literal["sentence", "passthrough", "notice"] = Field(
        description=(
            "sentence: checked text; passthrough: whitespace or markup with nothing to check; notice: text the "
            "policy adds (withheld-answer message, footnotes, general caveat note)."
        )
    )
    text: str = Field(description="The segment as the model streamed it ('' for notices).")
    output: str = Field(description="What is released to the user ('' when withheld).")
    action: Action | None = Field(default=None, description="The policy action for this segment; None when nothing was checked.")
    withheld: bool = False
    decision: Decision | None = Field(default=None, description="Full decision of the segment's check; None when nothing was checked.")
    ready_ms: float = Field(description="Stream start -> segment complete in the buffer.")
    released_ms: float = Field(description="Stream start -> segment released.")
    check_ms: float = Field(default=0.0, description="Time spent in check + policy (+ regeneration) for this segment.")

    @property
    def added_ms(self) -> float:
        """Latency the guardrail added to this segment: from complete in the buffer to released."""
        return self.released_ms - self.ready_ms


# --------------------------------------------------------------------------------------------- guard


class StreamGuard:
    """State of one checked stream. Create one per stream; never share it between streams.

    ``context`` (and ``question``) may be a zero-argument callable: it is called before each check,
    so evidence that arrives while the answer streams (a retriever callback, a "context" key of a
    streamed dict) is used as soon as it is there.
    """

    def __init__(
        self,
        context: Any,
        *,
        check: Callable[..., Any],
        policy: Policy,
        llm: Any | None = None,
        audit: Any | None = None,
        tenant: str = "default",
        question: str | None | Callable[[], str | None] = None,
        request_id: str | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self._context = context
        self._check, self._policy, self._llm, self._audit = check, policy, llm, audit
        self._tenant, self._question, self._request_id = tenant, question, request_id
        self._clock = clock
        self._t0: float | None = None
        self._buffer = SentenceBuffer()
        self._index = 0
        self._footnote_n = 0
        self._tail: list[str] = []  # footnote / list lines, shown once at the end
        self._notices: list[str] = []  # withheld-answer messages and general notes, deduplicated
        self.stopped = False  # escalation ends the stream: nothing after it is shown
        self.segments: list[CheckedSegment] = []

    # ---- timing
    def start(self) -> None:
        """Mark the stream start (the request); called by the first ``feed`` if not before."""
        if self._t0 is None:
            self._t0 = self._clock()

    def _ms(self) -> float:
        return (self._clock() - (self._t0 or 0.0)) * 1e3

    def _args(self, segment: str) -> dict[str, Any]:
        ctx = self._context() if callable(self._context) else self._context
        question = self._question() if callable(self._question) else self._question
        return {"answer": segment, "context": ctx, "check": self._check, "policy": self._policy, "llm": self._llm,
                "audit": self._audit, "tenant": self._tenant, "question": question, "request_id": self._request_id}

    # ---- splitting (may run in another task than checking: see acheck_stream)
    def split(self, chunk: str | bytes) -> list[tuple[str, float]]:
        """Feed a chunk; the segments it completed, each with the time it became ready."""
        self.start()
        return [(seg, self._ms()) for seg in self._buffer.feed(chunk)]

    def split_end(self) -> list[tuple[str, float]]:
        self.start()
        return [(seg, self._ms()) for seg in self._buffer.flush()]

    # ---- checking
    def check_segment(self, segment: str, ready: float) -> Iterator[CheckedSegment]:
        if self.stopped:
            return
        if not segment.strip():
            yield self._emit("passthrough", segment, segment, ready)
            return
        t = self._clock()
        decision = guard(**self._args(segment))
        yield from self._apply(segment, decision, ready, (self._clock() - t) * 1e3)

    async def acheck_segment(self, segment: str, ready: float) -> list[CheckedSegment]:
        if self.stopped:
            return []
        if not segment.strip():
            return [self._emit("passthrough", segment, segment, ready)]
        t = self._clock()
        decision = await aguard(**self._args(segment))
        return list(self._apply(segment, decision, ready, (self._clock() - t) * 1e3))

    # ---- one-call conveniences
    def feed(self, chunk: str | bytes) -> Iterator[CheckedSegment]:
        for seg, ready in self.split(chunk):
            yield from self.check_segment(seg, ready)

    def finish(self) -> Iterator[CheckedSegment]:
        for seg, ready in self.split_end():
            yield from self.check_segment(seg, ready)
        yield from self.closing()

    # ---- policy -> released text
    def _emit(self, kind: str, text: str, output: str, ready: float, **kw: Any) -> CheckedSegment:
        seg = CheckedSegment(index=self._index, kind=kind, text=text, output=output, ready_ms=ready,
                             released_ms=self._ms(), **kw)
        self._index += 1
        self.segments.append(seg)
        return seg

    def _apply(self, segment: str, d: Decision, ready: float, check_ms: float) -> Iterator[CheckedSegment]:
        common = {"action": d.action, "decision": d, "check_ms": check_ms}
        if d.report is not None and not d.report.claims and d.error is None:
            # Nothing checkable in it (a heading, "Sure!", a code block): shown as streamed, recorded.
            yield self._emit("sentence", segment, segment, ready, **common)
            return
        if d.action is Action.escalate:
            self.stopped = True
            yield self._emit("sentence", segment, "", ready, withheld=True, **common)
            yield self._emit("notice", "", _lead(segment) + d.final_text, ready)
            return
        if d.action is Action.abstain:
            self._note(self._policy.abstain.message_for(d.code))
            yield self._emit("sentence", segment, "", ready, withheld=True, **common)
            return
        yield self._emit("sentence", segment, self._render(d), ready, **common)

    def _render(self, d: Decision) -> str:
        """The segment as shown: the final answer (original or rewrite) with its caveats in the policy style.

        Footnote numbers run on across the stream and footnotes / lists are collected for the end,
        so a caveated stream reads like the same answer caveated in one piece.
        """
        base, caveats, cp = d.final_answer, d.caveats, self._policy.caveat
        if not caveats:
            if d.final_text != base and d.final_text.startswith(base):
                self._note(cp.general_note)  # a caveat with no claim to mark
            return base
        placeable = sorted((c for c in caveats if 0 <= c.start <= c.end <= len(base) and base[c.start : c.end] == c.text),
                           key=lambda c: c.start)
        stray = [c for c in caveats if c not in placeable]

        def fmt(template: str, c: Caveat, n: int) -> str:
            return template.format(text=c.text, note=c.note, n=n, label=c.label, claim_id=c.claim_id)

        if cp.style is CaveatStyle.list:
            for c in caveats:
                self._footnote_n += 1
                self._tail_line(fmt(cp.list_item_template, c, self._footnote_n), header=cp.list_header)
            return base
        template = cp.inline_template if cp.style is CaveatStyle.inline else cp.footnote_marker
        parts, pos = [], 0
        for c in placeable:
            if c.start < pos:  # overlapping marks were merged by the policy; keep the first
                continue
            self._footnote_n += 1
            parts += [base[pos : c.start], fmt(template, c, self._footnote_n)]
            if cp.style is CaveatStyle.footnotes:
                self._tail_line(fmt(cp.footnote_template, c, self._footnote_n))
            pos = c.end
        parts.append(base[pos:])
        for c in stray:
            self._footnote_n += 1
            self._tail_line(fmt(cp.list_item_template, c, self._footnote_n), header=cp.list_header)
        return "".join(parts)

    def _tail_line(self, line: str, header: str | None = None) -> None:
        if header and header not in self._tail:
            self._tail.append(header)
        if line:
            self._tail.append(line)

    def _note(self, text: str) -> None:
        if text and text not in self._notices:
            self._notices.append(text)

    def closing(self) -> Iterator[CheckedSegment]:
        """The end-of-stream notice (footnotes, withheld-answer message), if any; call once."""
        if self.stopped:
            return
        blocks = ["\n".join(self._tail)] if self._tail else []
        blocks += self._notices
        if blocks:
            lead = "\n\n" if any(s.output.strip() for s in self.segments) else ""
            yield self._emit("notice", "", lead + "\n\n".join(blocks), self._ms())

    # ---- measurements
    @property
    def first_checked_ms(self) -> float | None:
        """Stream start -> first checked sentence released (time to first checked sentence)."""
        return next((s.released_ms for s in self.segments if s.kind == "sentence"), None)


def _lead(segment: str) -> str:
    """The whitespace a segment starts with, so a notice in its place keeps the layout."""
    return segment[: len(segment) - len(segment.lstrip())]


# --------------------------------------------------------------------------------------------- drivers


def check_stream(chunks: Iterable[str | bytes], context: Any, **kw: Any) -> Iterator[CheckedSegment]:
    """Check a stream of text chunks sentence by sentence; yields each segment once it is released.

    Keyword arguments are those of ``StreamGuard`` (check, policy, llm, audit, tenant, question,
    request_id, clock). ``"".join(s.output for s in ...)`` is the text to show.
    """
    sg = StreamGuard(context, **kw)
    sg.start()
    for chunk in chunks:
        yield from sg.feed(chunk)
        if sg.stopped:
            return
    yield from sg.finish()


async def acheck_stream(chunks: AsyncIterable[str | bytes] | Iterable[str | bytes], context: Any,
                        **kw: Any) -> AsyncIterator[CheckedSegment]:
    """Async ``check_stream``. The upstream is read and split by a separate task while a sentence is
    being checked, so checking overlaps with generation and each segment's ``ready_ms`` is when it
    really was complete."""
    sg = StreamGuard(context, **kw)
    sg.start()
    queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()

    async def produce() -> None:
        try:
            if isinstance(chunks, AsyncIterable):
                async for chunk in chunks:
                    for item in sg.split(chunk):
                        await queue.put(("segment", item))
            else:
                for chunk in chunks:
                    for item in sg.split(chunk):
                        await queue.put(("segment", item))
            for item in sg.split_end():
                await queue.put(("segment", item))
            await queue.put(("end", None))
        except Exception as exc:  # handed to the consumer, which re-raises it
            await queue.put(("error", exc))

    task = asyncio.create_task(produce())
    try:
        while True:
            kind, item = await queue.get()
            if kind == "error":
                raise item
            if kind == "end":
                for out in sg.closing():
                    yield out
                return
            for out in await sg.acheck_segment(*item):
                yield out
            if sg.stopped:
                return
    finally:
        if not task.done():
            task.cancel()
            try:
                await task
            except BaseException:  # noqa: BLE001 - the upstream is being abandoned on purpose
                pass
