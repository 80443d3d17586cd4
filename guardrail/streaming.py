"""Checked streaming: release a streamed answer sentence by sentence, each only after it was checked.

Why a buffer at all: a guardrail that checks after the last token makes the user wait for the
whole answer; one that passes tokens through unchecked is no guardrail. Here text is buffered to
sentence boundaries (``guardrail.claims.split_units``, the same splitter the claims come from),
each complete sentence goes through the tenant's ``guardrail.Pipeline`` (check -> policy -> optional
regeneration) and only then is released: respond as is, caveat marked, regenerate replaced,
abstain/escalate withheld.

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
from dataclasses import dataclass
from collections.abc import AsyncIterable, AsyncIterator, Callable, Generator, Iterable, Iterator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .claims import split_units
from .errors import BackendError, ConfigError, InputError, StreamInterrupted
from .pipeline import Pipeline
from .policy import SEVERITY, Action, AuditLog, Decision, Policy, Reason, ReasonCode, decide_failure, render_marks

__all__ = ["SentenceBuffer", "CheckedSegment", "StreamGuard", "check_stream", "acheck_stream", "run_stream", "arun_stream",
           "STREAM_CHECK"]


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

_SegmentKind = Literal["sentence", "passthrough", "notice"]


class CheckedSegment(BaseModel):
    """One released piece of a checked stream, with what was decided about it and when."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    index: int = Field(description="0-based position among the segments of the stream.")
    kind: _SegmentKind = Field(
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

#: Name of the "check" an interrupted stream fails, for ``failure.checks`` in a policy.
STREAM_CHECK = "stream"


def _worst(actions: Iterable[Action]) -> Action:
    return max(actions, key=SEVERITY.__getitem__, default=Action.respond)


def _withholds(action: Action) -> bool:
    return SEVERITY[action] >= SEVERITY[Action.abstain]


def _wants_rewrite(d: Decision) -> bool:
    """The policy asked for regeneration but it was not run (checked without an LLM, see ``_drain``)."""
    return d.code is ReasonCode.regeneration_unavailable


def _only_no_claims(d: Decision) -> bool:
    """The segment holds nothing checkable and only the answer-level ``on_no_claims`` rule makes it
    more than respond: a sentence without claims is not an answer without claims, so the whole
    answer decides (``_settle_deferred``)."""
    if d.report is None or d.report.claims or d.error is not None:
        return False
    others = _worst(r.action for r in d.reasons if r.code is not ReasonCode.no_claims)
    return SEVERITY[d.action] > SEVERITY[others]


@dataclass(frozen=True)
class _GuardText:
    """Step: the decision for ``text`` from ``pipeline`` (``guard`` or ``aguard``)."""

    pipeline: Pipeline
    text: str


@dataclass(frozen=True)
class _Record:
    """Step: append ``decision`` to the stream's audit log."""

    decision: Decision


@dataclass
class _Held:
    """A segment checked but not yet released, with its decision (None: whitespace, nothing to check)."""

    segment: str
    ready: float
    decision: Decision | None
    check_ms: float


#: A stream step: yields work (``_GuardText``, ``_Record``) and the segments it releases.
_Steps = Generator[_GuardText | _Record | CheckedSegment, Any, None]


class StreamGuard:
    """State of one checked stream. Create one per stream; never share it between streams.

    ``pipeline`` is the tenant's ``guardrail.Pipeline`` (``Pipeline.stream_guard`` passes it); without
    one, ``check``, ``policy``, ``llm``, ``audit`` and ``tenant`` build it (see ``Pipeline``).

    ``context`` (and ``question``) may be a zero-argument callable: it is called before each check,
    so evidence that arrives while the answer streams (a retriever callback, a "context" key of a
    streamed dict) is used as soon as it is there.

    Three rules keep a stream from showing what ``guard`` on the whole answer would withhold:

    - a segment with nothing checkable is held while only ``on_no_claims`` speaks against it; once
      the answer has a claim it is released as streamed, and an answer that ends without one gets
      the whole-answer decision (``on_no_claims`` abstain: the abstain message, not the text);
    - no rewrite request is sent while the answer is still streaming (a one-slot server such as
      llama.cpp would cut the answer stream to serve it): a segment to regenerate, and everything
      after it, waits until the upstream has ended (``end_upstream``);
    - at the end the whole streamed answer goes through ``guard`` once more (without regeneration):
      ``decision`` is the answer's decision, the one ``guard``/``invoke`` gives, made at least as
      severe as what the segments got; if it withholds, nothing more is released.

    The stream records its decisions in the pipeline's audit log itself: one per released segment,
    the whole answer's last.

    An upstream that fails or ends early (``StreamInterrupted``) is a check that could not run:
    the unfinished fragment gets the policy's failure mode for the check "stream".
    """

    def __init__(
        self,
        context: Any,
        *,
        pipeline: Pipeline | None = None,
        check: Callable[..., Any] | None = None,
        policy: Policy | None = None,
        llm: Any | None = None,
        audit: AuditLog | None = None,
        tenant: str = "default",
        question: str | None | Callable[[], str | None] = None,
        request_id: str | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if pipeline is None:
            if check is None or policy is None:
                raise ConfigError("a checked stream needs a pipeline, or a check and a policy to build one", field="pipeline")
            pipeline = Pipeline(check, policy, llm=llm, audit=audit, tenant=tenant)
        elif (check, policy, llm, audit, tenant) != (None, None, None, None, "default"):
            raise ConfigError("give a pipeline, or the check, policy, llm, audit and tenant to build one, not both",
                              field="pipeline")
        self.pipeline = pipeline
        # A segment checked while the upstream still streams is never rewritten (see the class doc), and
        # the stream writes its own audit rows: so the segments' pipelines have no audit, and one no LLM.
        self._checking = pipeline.replace(llm=None, audit=None)
        self._rewriting = pipeline.replace(audit=None)
        self._policy, self._llm, self._audit, self._tenant = pipeline.policy, pipeline.llm, pipeline.audit, pipeline.tenant
        self._context, self._question, self._request_id = context, question, request_id
        self._clock = clock
        self._t0: float | None = None
        self._buffer = SentenceBuffer()
        self._index = 0
        self._footnote_n = 0
        self._tail: list[str] = []  # footnote / list lines, shown once at the end
        self._notices: list[str] = []  # withheld-answer messages and general notes, deduplicated
        self._answer: list[str] = []  # every segment streamed, in order: the answer as a whole
        self._held: list[_Held] = []  # checked, waiting for release in order (a rewrite waits for the upstream)
        self._deferred: list[_Held] = []  # nothing checkable, waiting for the answer-level decision
        self._had_claims = False
        self.upstream_done = False
        self.interrupted: BackendError | None = None
        self.stopped = False  # escalation ends the stream: nothing after it is shown
        self.segments: list[CheckedSegment] = []
        self.decision: Decision | None = None  # the whole answer's decision, set by ``closing``

    # ---- timing
    def start(self) -> None:
        """Mark the stream start (the request); called by the first ``feed`` if not before."""
        if self._t0 is None:
            self._t0 = self._clock()

    def _ms(self) -> float:
        return (self._clock() - (self._t0 or 0.0)) * 1e3

    def _inputs(self) -> tuple[Any, str | None]:
        """The context and question as they are now (either may still be arriving)."""
        ctx = self._context() if callable(self._context) else self._context
        question = self._question() if callable(self._question) else self._question
        return ctx, question

    def _guard(self, pipeline: Pipeline, text: str) -> Decision:
        ctx, question = self._inputs()
        return pipeline.guard(text, ctx, question=question, request_id=self._request_id)

    async def _aguard(self, pipeline: Pipeline, text: str) -> Decision:
        ctx, question = self._inputs()
        return await pipeline.aguard(text, ctx, question=question, request_id=self._request_id)

    def _segments(self) -> Pipeline:
        """The pipeline a new segment is checked with: rewrites only once the upstream has ended."""
        return self._rewriting if self.upstream_done else self._checking

    # ---- splitting (may run in another task than checking: see acheck_stream)
    def split(self, chunk: str | bytes) -> list[tuple[str, float]]:
        """Feed a chunk; the segments it completed, each with the time it became ready."""
        self.start()
        return [(seg, self._ms()) for seg in self._buffer.feed(chunk)]

    def split_end(self) -> list[tuple[str, float]]:
        """The upstream ended normally: the rest of the buffer, as segments."""
        self.start()
        return [(seg, self._ms()) for seg in self._buffer.flush()]

    def split_interrupted(self, exc: BaseException) -> list[tuple[str, float]]:
        """The upstream failed or ended early: the rest of the buffer as segments, the last of which is
        the unfinished fragment (it may stop mid-word or mid-number: it is never checked as a sentence).

        Anything that is not already a project error becomes ``StreamInterrupted`` (the cause kept),
        so the policy's failure mode handles it instead of the caller seeing a shorter answer.
        """
        self.start()
        if not isinstance(exc, BackendError):
            err = StreamInterrupted(f"the answer stream failed mid-way ({type(exc).__name__}: {exc})")
            err.__cause__ = exc
            exc = err
        self.interrupted = exc
        rest = self._buffer.pending
        try:
            segs = self._buffer.flush()
        except InputError:  # ended inside a multi-byte character: keep the decoded part
            segs = [rest] if rest else []
        return [(seg, self._ms()) for seg in segs]

    def end_upstream(self) -> None:
        """No more text will come: held rewrites may now be requested (see the class doc)."""
        self.upstream_done = True

    # ---- checking: each step written once, as a generator; ``_perform`` / ``_aperform`` drive it
    #
    # A step generator yields what it needs done (``_GuardText``: a decision for a text; ``_Record``: an
    # audit row) and receives the result, and yields the segments it releases. The blocking driver calls
    # ``Pipeline.guard`` and ``AuditLog.record``; the async one awaits ``Pipeline.aguard`` and writes the
    # row in a worker thread. How a step waits is the only difference, as in ``guardrail.policy.guard``.

    def _perform(self, steps: _Steps) -> Iterator[CheckedSegment]:
        """Run ``steps`` with blocking calls, yielding each released segment as it comes."""
        send: Any = None
        while True:
            try:
                item = steps.send(send)
            except StopIteration:
                return
            send = None
            if isinstance(item, _GuardText):
                send = self._guard(item.pipeline, item.text)
            elif isinstance(item, _Record):
                assert self._audit is not None  # the steps record only when there is an audit log
                self._audit.record(item.decision, self._tenant, request_id=self._request_id)
            else:
                yield item

    async def _aperform(self, steps: _Steps) -> list[CheckedSegment]:
        """Run ``steps`` on the event loop; the segments they release, in order."""
        out: list[CheckedSegment] = []
        send: Any = None
        while True:
            try:
                item = steps.send(send)
            except StopIteration:
                return out
            send = None
            if isinstance(item, _GuardText):
                send = await self._aguard(item.pipeline, item.text)
            elif isinstance(item, _Record):
                assert self._audit is not None
                await asyncio.to_thread(self._audit.record, item.decision, self._tenant, request_id=self._request_id)
            else:
                out.append(item)

    def _check_steps(self, segment: str, ready: float, fragment: bool) -> _Steps:
        """Check one segment (a fragment goes to the failure mode), then release what may be released."""
        if self.stopped:
            return
        self._answer.append(segment)
        t = self._clock()
        if fragment:
            decision: Decision | None = decide_failure(segment, self.interrupted or "stream ended early", self._policy,
                                                       check=STREAM_CHECK)
        elif not segment.strip():
            decision = None
        else:
            decision = yield _GuardText(self._segments(), segment)
        self._held.append(_Held(segment, ready, decision, (self._clock() - t) * 1e3))
        yield from self._drain_steps()

    def _drain_steps(self) -> _Steps:
        """Release held segments in order; a rewrite is requested only once the upstream has ended."""
        while self._held and not self.stopped:
            h = self._held[0]
            if h.decision is not None and _wants_rewrite(h.decision) and self._llm is not None:
                if not self.upstream_done:
                    break
                t = self._clock()
                h.decision = yield _GuardText(self._rewriting, h.segment)
                h.check_ms += (self._clock() - t) * 1e3
            self._held.pop(0)
            released = list(self._apply(h))
            if self._audit is not None and h.decision is not None and not self._is_deferred(h):
                yield _Record(h.decision)
            yield from released
        if self.stopped:
            self._held.clear()

    def _ending_steps(self, segs: list[tuple[str, float]], interrupted: bool) -> _Steps:
        """The upstream has ended (``interrupted``: its last segment is an unfinished fragment): check the
        rest, release what was held, close."""
        self.end_upstream()
        for i, (seg, ready) in enumerate(segs):
            yield from self._check_steps(seg, ready, interrupted and i == len(segs) - 1)
        yield from self._drain_steps()
        yield from self._closing_steps()

    def _closing_steps(self) -> _Steps:
        """The whole answer's decision (``decision``), what it still withholds, the end-of-stream notice."""
        if self.decision is not None:
            return
        answer = self._whole_answer()
        whole = None
        if answer is not None and self.interrupted is None:
            whole = yield _GuardText(self._checking, answer)
        yield from self._close(whole)
        if self._audit is not None and self.decision is not None:
            yield _Record(self.decision)

    def _is_deferred(self, h: _Held) -> bool:
        """Held for the answer-level decision: audited as part of the answer's row, not on its own."""
        return any(x is h for x in self._deferred)

    # ---- the steps, blocking and async
    def check_segment(self, segment: str, ready: float, *, fragment: bool = False) -> Iterator[CheckedSegment]:
        """Check one segment split off by ``split`` and yield what it releases."""
        yield from self._perform(self._check_steps(segment, ready, fragment))

    async def acheck_segment(self, segment: str, ready: float, *, fragment: bool = False) -> list[CheckedSegment]:
        return await self._aperform(self._check_steps(segment, ready, fragment))

    def feed(self, chunk: str | bytes) -> Iterator[CheckedSegment]:
        for seg, ready in self.split(chunk):
            yield from self.check_segment(seg, ready)

    def finish(self) -> Iterator[CheckedSegment]:
        """The upstream ended normally: check the rest, release what was held, close."""
        yield from self._perform(self._ending_steps(self.split_end(), interrupted=False))

    def fail(self, exc: BaseException) -> Iterator[CheckedSegment]:
        """The upstream failed or ended early (see ``split_interrupted``): complete sentences are
        checked, the fragment goes to the failure mode, what was held is released, and the stream
        closes with the failure recorded."""
        yield from self._perform(self._ending_steps(self.split_interrupted(exc), interrupted=True))

    async def afinish(self, segs: list[tuple[str, float]], *, interrupted: bool = False) -> list[CheckedSegment]:
        """Async ``finish`` / ``fail`` for segments already split (by ``acheck_stream``'s reader)."""
        return await self._aperform(self._ending_steps(segs, interrupted))

    def closing(self) -> Iterator[CheckedSegment]:
        """End of stream: the whole answer's decision (``decision``), what it still withholds, and the
        end-of-stream notice (footnotes, withheld-answer message); call once, after the upstream ended."""
        yield from self._perform(self._closing_steps())

    async def aclosing(self) -> list[CheckedSegment]:
        return await self._aperform(self._closing_steps())

    # ---- the whole answer
    def _whole_answer(self) -> str | None:
        """The answer streamed so far, when there is any text to check."""
        answer = "".join(self._answer)
        return answer if answer.strip() else None

    def _close(self, whole: Decision | None) -> Iterator[CheckedSegment]:
        answer = "".join(self._answer)
        if self.interrupted is not None:
            whole = decide_failure(answer, self.interrupted, self._policy, check=STREAM_CHECK)
        elif whole is None:  # nothing but whitespace streamed: no answer at all
            whole = decide_failure(answer, StreamInterrupted("the answer stream held no text"), self._policy,
                                   check=STREAM_CHECK)
        told = any(s.withheld for s in self.segments)  # a withheld segment already brought its message
        if not self.stopped:
            yield from self._settle_deferred(whole)
        if not self.stopped and _withholds(whole.action) and not told:
            # The answer as a whole is withheld (a rule over several sentences, an answer without a claim,
            # an interruption failing closed): nothing more is shown, and the reader is told.
            if whole.action is Action.escalate:
                self.stopped = True
                yield self._emit("notice", "", ("\n\n" if self._shown() else "") + self._policy.escalation.message, self._ms())
            else:
                self._note(self._policy.abstain.message_for(whole.code))
        yield from self._notice()
        self.decision = self._conclude(whole)

    def _shown(self) -> bool:
        return any(s.output.strip() for s in self.segments)

    def _settle_deferred(self, whole: Decision) -> Iterator[CheckedSegment]:
        deferred, self._deferred = self._deferred, []
        for h in deferred:
            if self._had_claims or whole.action is Action.respond:
                yield self._release_as_streamed(h)
            elif _withholds(whole.action):
                yield self._emit("sentence", h.segment, "", h.ready, action=whole.action, withheld=True,
                                 decision=h.decision, check_ms=h.check_ms)
            else:  # caveat: nothing to mark, so the policy's general note
                self._note(self._policy.caveat.general_note)
                yield self._emit("sentence", h.segment, h.segment, h.ready, action=whole.action,
                                 decision=h.decision, check_ms=h.check_ms)

    def _conclude(self, whole: Decision) -> Decision:
        """The stream's decision: the whole answer's, at least as severe as any released segment's.

        When the whole answer asked for regeneration and the segments were rewritten one by one (an
        LLM was there), their outcome stands for it. ``final_text`` is what the stream showed.
        """
        # (segment, its decision, its action) for each checked sentence.
        checked = [(s, s.decision, s.action) for s in self.segments
                   if s.kind == "sentence" and s.decision is not None and s.action is not None]
        rewrote = self._llm is not None and any(r.action is Action.regenerate for _, d, _ in checked for r in d.reasons)
        base = Action.respond if _wants_rewrite(whole) and rewrote else whole.action
        worst = max(checked, key=lambda c: SEVERITY[c[2]], default=None)
        action, code, reasons = base, whole.code, list(whole.reasons)
        if worst is not None and SEVERITY[worst[2]] > SEVERITY[base]:
            worst_seg, d, worst_action = worst
            action, code = worst_action, d.code
            reasons.append(Reason(code=d.code, action=worst_action,
                                  message=f"streamed segment {worst_seg.index}, checked on its own: "
                                          + next((r.message for r in d.reasons if r.action is d.action), d.code.value)))
        elif base is not whole.action:
            action = _worst([Action.respond, *(a for _, _, a in checked)])
            code = next((d.code for _, d, a in checked if a is action), ReasonCode.regenerated)
        total = {**whole.latencies_ms, "stream_total": self._ms()}
        return whole.model_copy(update={"action": action, "code": code, "reasons": reasons,
                                        "final_text": "".join(s.output for s in self.segments), "latencies_ms": total})

    # ---- policy -> released text
    def _emit(self, kind: _SegmentKind, text: str, output: str, ready: float, **kw: Any) -> CheckedSegment:
        seg = CheckedSegment(index=self._index, kind=kind, text=text, output=output, ready_ms=ready,
                             released_ms=self._ms(), **kw)
        self._index += 1
        self.segments.append(seg)
        return seg

    def _release_as_streamed(self, h: _Held) -> CheckedSegment:
        others = _worst(r.action for r in h.decision.reasons if r.code is not ReasonCode.no_claims) if h.decision else None
        return self._emit("sentence", h.segment, h.segment, h.ready, action=others, decision=h.decision, check_ms=h.check_ms)

    def _apply(self, h: _Held) -> Iterator[CheckedSegment]:
        segment, d, ready = h.segment, h.decision, h.ready
        if d is None:  # whitespace between sentences
            if self._deferred:
                self._deferred.append(h)
            else:
                yield self._emit("passthrough", segment, segment, ready)
            return
        if _only_no_claims(d):
            # "Sure!", a heading: shown once the answer has a claim; until then the answer decides.
            if self._had_claims:
                yield self._release_as_streamed(h)
            else:
                self._deferred.append(h)
            return
        if d.report is not None and d.report.claims:
            self._had_claims = True
            deferred, self._deferred = self._deferred, []
            for earlier in deferred:  # the answer has a claim now: on_no_claims no longer applies to them
                yield (self._release_as_streamed(earlier) if earlier.decision is not None
                       else self._emit("passthrough", earlier.segment, earlier.segment, earlier.ready))
        common = {"action": d.action, "decision": d, "check_ms": h.check_ms}
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

        The policy's own renderer (``render_marks``), numbering on across the stream; the footnotes / list
        lines are collected for the end (the list header once), so a caveated stream reads like the same
        answer caveated in one piece.
        """
        base, caveats, cp = d.final_answer, d.caveats, self._policy.caveat
        if not caveats:
            if d.final_text != base and d.final_text.startswith(base):
                self._note(cp.general_note)  # a caveat with no claim to mark
            return base
        body, lines, numbered = render_marks(base, caveats, cp, first_n=self._footnote_n + 1)
        self._footnote_n += len(numbered)
        for line in lines:
            if line == cp.list_header:
                self._tail_line("", header=line)
            else:
                self._tail_line(line)
        return body

    def _tail_line(self, line: str, header: str | None = None) -> None:
        if header and header not in self._tail:
            self._tail.append(header)
        if line:
            self._tail.append(line)

    def _note(self, text: str) -> None:
        if text and text not in self._notices:
            self._notices.append(text)

    def _notice(self) -> Iterator[CheckedSegment]:
        """The end-of-stream notice (footnotes, withheld-answer message), if any."""
        if self.stopped:
            return
        blocks = ["\n".join(self._tail)] if self._tail else []
        blocks += self._notices
        if blocks:
            lead = "\n\n" if self._shown() else ""
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


def _is_caller_error(exc: BaseException) -> bool:
    """Bad input or configuration is the caller's to fix; anything else from the upstream interrupts it."""
    return isinstance(exc, (InputError, ConfigError))


def check_stream(chunks: Iterable[str | bytes], context: Any, **kw: Any) -> Iterator[CheckedSegment]:
    """Check a stream of text chunks sentence by sentence; yields each segment once it is released.

    Keyword arguments are those of ``StreamGuard`` (pipeline, or check, policy, llm, audit, tenant;
    question, request_id, clock); ``Pipeline.stream`` is the same with the tenant's pipeline. ``"".join(s.output for s in ...)`` is the text to show. An upstream that
    raises (other than ``InputError`` / ``ConfigError``) ends in the policy's failure mode for the
    check "stream", never in a shorter answer. To read the whole answer's ``Decision`` afterwards,
    create the ``StreamGuard`` yourself and use ``run_stream``.
    """
    sg = StreamGuard(context, **kw)
    yield from run_stream(sg, chunks)


def run_stream(sg: StreamGuard, chunks: Iterable[str | bytes]) -> Iterator[CheckedSegment]:
    """Drive ``sg`` over ``chunks`` (see ``check_stream``); ``sg.decision`` is set when it ends."""
    sg.start()
    it = iter(chunks)
    while not sg.stopped:
        try:
            chunk = next(it)
        except StopIteration:
            yield from sg.finish()
            return
        except Exception as exc:
            if _is_caller_error(exc):
                raise
            yield from sg.fail(exc)
            return
        yield from sg.feed(chunk)
    # Escalated: the rest of the upstream is never read; the decision covers what was streamed.
    yield from sg.closing()


async def acheck_stream(chunks: AsyncIterable[str | bytes] | Iterable[str | bytes], context: Any,
                        **kw: Any) -> AsyncIterator[CheckedSegment]:
    """Async ``check_stream``. The upstream is read and split by a separate task while a sentence is
    being checked, so checking overlaps with generation and each segment's ``ready_ms`` is when it
    really was complete."""
    sg = StreamGuard(context, **kw)
    async for out in arun_stream(sg, chunks):
        yield out


async def arun_stream(sg: StreamGuard, chunks: AsyncIterable[str | bytes] | Iterable[str | bytes]) -> AsyncIterator[CheckedSegment]:
    """Drive ``sg`` over ``chunks`` (see ``acheck_stream``); ``sg.decision`` is set when it ends."""
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
            segs = sg.split_end()
            sg.end_upstream()  # from here on a held rewrite may be requested
            await queue.put(("end", segs))
        except Exception as exc:
            if _is_caller_error(exc):
                await queue.put(("error", exc))  # handed to the consumer, which re-raises it
            else:
                segs = sg.split_interrupted(exc)
                sg.end_upstream()
                await queue.put(("interrupted", segs))

    task = asyncio.create_task(produce())
    try:
        while True:
            kind, item = await queue.get()
            if kind == "error":
                raise item
            if kind in ("end", "interrupted"):
                for out in await sg.afinish(item, interrupted=kind == "interrupted"):
                    yield out
                return
            for out in await sg.acheck_segment(*item):
                yield out
            if sg.stopped:
                for out in await sg.aclosing():
                    yield out
                return
    finally:
        if not task.done():
            task.cancel()
            try:
                await task
            except BaseException:  # noqa: BLE001 - the upstream is being abandoned on purpose
                pass
