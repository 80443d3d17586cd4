"""Checked streaming core: sentence buffering, per-sentence policy actions, timings, async overlap.

The check is ``lexical_check`` (tests/test_policy_helpers.py): a real, deterministic checker, so each
sentence's verdict is known and the policy action it leads to can be asserted exactly.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from guardrail.errors import InputError
from guardrail.policy import Action, Policy, PolicyStore, ReasonCode
from guardrail.policy._policy import CaveatPolicy, CaveatStyle, EscalationPolicy, RulesPolicy
from guardrail.streaming import CheckedSegment, SentenceBuffer, StreamGuard, acheck_stream, arun_stream, check_stream
from test_policy_helpers import CONTEXT, lexical_check

REPO = Path(__file__).resolve().parent.parent
STORE = PolicyStore(REPO / "policies")
LENIENT = STORE.get("internal-search")
STRICT = STORE.get("healthcare")

GOOD1 = "The Eiffel Tower is 330 metres tall."
GOOD2 = "The tower is repainted every seven years."
WRONG = "It was completed in 1887 for the World's Fair."
UNSUPPORTED = "The tower has a rooftop cinema."


def chunks_of(text: str, size: int = 3, encode: bool = False):
    data = text.encode("utf-8") if encode else text
    return [data[i : i + size] for i in range(0, len(data), size)]


def shown(segments: list[CheckedSegment]) -> str:
    return "".join(s.output for s in segments)


# --------------------------------------------------------------------------------------------- buffer


def test_buffer_segments_join_back_exactly_and_never_split_multibyte_chars():
    text = ("Dr. Smith visited the café at 9 a.m. and left. Der Turm ist 330 m hoch — façade 東京タワー. "
            "It costs approx. 5 euros.\n\n- First item here\n- Second item, e.g. in Paris.\n\n## Heading\nMore text. Done.")
    buf = SentenceBuffer()
    segs = []
    for piece in chunks_of(text, 1, encode=True):  # one byte at a time: multi-byte chars arrive split
        segs += buf.feed(piece)
    segs += buf.flush()
    assert "".join(segs) == text
    assert [s.strip() for s in segs] == [
        "Dr. Smith visited the café at 9 a.m. and left.",
        "Der Turm ist 330 m hoch — façade 東京タワー.",
        "It costs approx. 5 euros.",
        "- First item here",
        "- Second item, e.g. in Paris.",
        "## Heading",
        "More text.",
        "Done.",
    ]


def test_buffer_holds_a_sentence_until_the_next_word_is_complete():
    buf = SentenceBuffer()
    assert buf.feed("He met Dr.") == []
    assert buf.feed(" Smi") == []  # "Dr." could end a sentence or not: wait for the next word
    assert buf.feed("th today. The") == []  # next sentence started but its first word may go on
    assert buf.feed(" end") == ["He met Dr. Smith today."]
    assert buf.pending == " The end"
    assert buf.flush() == [" The end"]


def test_buffer_rejects_invalid_and_truncated_utf8():
    with pytest.raises(InputError, match="not valid UTF-8"):
        SentenceBuffer().feed(b"ok \xff\xfe bad")
    buf = SentenceBuffer()
    buf.feed("café".encode()[:-1])  # ends inside "é"
    with pytest.raises(InputError, match="inside a multi-byte"):
        buf.flush()


# --------------------------------------------------------------------------------------------- actions


def test_supported_stream_is_released_unchanged_sentence_by_sentence():
    answer = f"{GOOD1} {GOOD2}"
    segs = list(check_stream(chunks_of(answer), CONTEXT, check=lexical_check, policy=LENIENT))
    assert shown(segs) == answer
    assert [s.action for s in segs] == [Action.respond, Action.respond]
    assert [s.decision.report.answer for s in segs] == [GOOD1, " " + GOOD2]  # each checked on its own


def test_flagged_sentence_is_caveated_inline_and_the_rest_is_untouched():
    answer = f"{GOOD1} {UNSUPPORTED} {GOOD2}"
    segs = list(check_stream(chunks_of(answer), CONTEXT, check=lexical_check, policy=LENIENT))
    assert shown(segs) == f"{GOOD1} {UNSUPPORTED} [\u26a0 not found in the sources] {GOOD2}"
    assert [s.action for s in segs] == [Action.respond, Action.caveat, Action.respond]


def test_footnotes_number_across_the_stream_and_come_at_the_end():
    policy = Policy(name="fn", rules=RulesPolicy.model_validate({"no_evidence": {"action": "caveat"}, "unsupported": {"action": "caveat"}}),
                    caveat=CaveatPolicy(style=CaveatStyle.footnotes))
    answer = f"{UNSUPPORTED} {GOOD1} The tower is painted pink."
    segs = list(check_stream(chunks_of(answer, 7), CONTEXT, check=lexical_check, policy=policy))
    assert shown(segs) == (f"{UNSUPPORTED}[^1] {GOOD1} The tower is painted pink.[^2]\n\n"
                           "[^1]: not found in the sources\n[^2]: not found in the sources")
    assert segs[-1].kind == "notice"


def test_abstain_withholds_the_sentence_and_says_so_at_the_end():
    answer = f"{GOOD1} {WRONG} {GOOD2}"
    policy = LENIENT.model_copy(update={"rules": LENIENT.rules.model_copy(update={
        "contradiction": LENIENT.rules.contradiction.model_copy(update={"action": Action.abstain})})})
    segs = list(check_stream(chunks_of(answer), CONTEXT, check=lexical_check, policy=policy))
    withheld = [s for s in segs if s.withheld]
    assert [s.text.strip() for s in withheld] == [WRONG]
    assert shown(segs) == f"{GOOD1} {GOOD2}\n\n{policy.abstain.message}"


def test_regenerate_without_llm_falls_back_and_strict_policy_withholds():
    answer = f"{GOOD1} {WRONG}"
    segs = list(check_stream(chunks_of(answer), CONTEXT, check=lexical_check, policy=LENIENT))
    assert segs[1].action is Action.caveat and "contradicted by the sources" in segs[1].output
    segs = list(check_stream(chunks_of(answer), CONTEXT, check=lexical_check, policy=STRICT))
    assert all(s.withheld for s in segs if s.kind == "sentence")  # strict: uncited claims never pass
    assert WRONG not in shown(segs) and GOOD1 not in shown(segs)


def test_flagged_sentence_is_replaced_by_a_checked_rewrite():
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    fixer = FakeListChatModel(responses=['{"c1": "It was completed in 1889 for the World\'s Fair."}'])
    segs = list(check_stream(chunks_of(f"{GOOD1} {WRONG} {GOOD2}"), CONTEXT, check=lexical_check, policy=LENIENT, llm=fixer))
    assert shown(segs) == f"{GOOD1} It was completed in 1889 for the World's Fair. {GOOD2}"
    fixed = segs[1].decision
    assert fixed.regenerated and fixed.attempts[0].report.verdicts[0].label.value == "supported"  # the rewrite was re-checked


def test_escalation_stops_the_stream():
    policy = Policy(name="esc", escalation=EscalationPolicy(stakes=1.0, max_risk=0.1))
    answer = f"{GOOD1} {WRONG} {GOOD2}"
    pulled = []

    def upstream():
        for c in chunks_of(answer, 5):
            pulled.append(c)
            yield c

    segs = list(check_stream(upstream(), CONTEXT, check=lexical_check, policy=policy))
    assert [s.action for s in segs if s.kind == "sentence"] == [Action.respond, Action.escalate]
    assert shown(segs) == f"{GOOD1} {policy.escalation.message}"
    assert "".join(pulled) != answer  # the rest of the upstream was never read


def test_context_callable_is_read_at_each_check():
    seen: list[int] = []
    docs: list[str] = []

    def context():
        seen.append(len(docs))
        return list(docs)

    sg = StreamGuard(context, check=lexical_check, policy=LENIENT)
    out = list(sg.feed(f"{GOOD1} It was"))
    docs.extend(CONTEXT)
    out += list(sg.feed(" completed in 1889 for the World's Fair. "))
    out += list(sg.finish())
    assert seen == [0, 2, 2]  # each sentence, then the whole answer at the end
    assert out[0].action is Action.caveat and out[1].action is Action.respond  # no evidence yet, then evidence


def test_real_guardrail_releases_what_holds_no_claim_as_streamed():
    from guardrail import Guardrail

    answer = f"Sure!\n\n## Tower facts\n\n{WRONG}\n\n```\nheight = 330\n```\n"
    segs = list(check_stream(chunks_of(answer, 4), CONTEXT, check=Guardrail().check, policy=LENIENT))
    by_text = {s.text.strip(): s for s in segs if s.kind == "sentence"}
    for plain in ("Sure!", "## Tower facts", "```\nheight = 330\n```"):
        seg = by_text[plain]
        assert seg.output == seg.text and seg.decision.report.claims == []
    flagged = by_text[WRONG]
    assert flagged.action is not Action.respond and flagged.output != flagged.text
    assert shown(segs).replace(flagged.output, flagged.text) == answer


# --------------------------------------------------------------------------------------------- timing


def test_timings_are_recorded_per_segment():
    answer = f"{GOOD1} {GOOD2} {GOOD1}"

    def slow_check(a, c, q=None):
        time.sleep(0.02)
        return lexical_check(a, c, q)

    sg = StreamGuard(CONTEXT, check=slow_check, policy=LENIENT)
    segs = []
    for chunk in chunks_of(answer, 4):
        segs += list(sg.feed(chunk))
    segs += list(sg.finish())
    assert len(segs) == 3
    for s in segs:
        assert 0 <= s.ready_ms <= s.released_ms
        assert s.check_ms >= 20 and s.added_ms >= s.check_ms - 1
    assert sg.first_checked_ms == segs[0].released_ms


async def test_async_stream_overlaps_checking_with_generation():
    answer = f"{GOOD1} {GOOD2} {GOOD1} {GOOD2}"
    pieces = chunks_of(answer, 6)
    arrivals: list[float] = []

    async def upstream():
        for p in pieces:
            await asyncio.sleep(0.005)
            arrivals.append(time.perf_counter())
            yield p

    checking: list[tuple[float, float]] = []

    def slow_check(a, c, q=None):
        start = time.perf_counter()
        time.sleep(0.05)
        checking.append((start, time.perf_counter()))
        return lexical_check(a, c, q)

    segs = []
    async for seg in acheck_stream(upstream(), CONTEXT, check=slow_check, policy=LENIENT):
        segs.append(seg)
    assert shown(segs) == answer
    # The upstream kept being read while a sentence was being checked (in a worker thread): some chunk
    # arrived during a check. Read in turn, none would. (No wall-clock bound: it holds on a loaded machine.)
    assert any(a < t < b for t in arrivals for a, b in checking)
    assert [s.index for s in segs] == list(range(len(segs)))


async def test_async_stream_event_loop_stays_free_during_checks():
    def slow_check(a, c, q=None):
        time.sleep(0.1)
        return lexical_check(a, c, q)

    gaps: list[float] = []

    async def ticker(stop: asyncio.Event):
        last = time.perf_counter()
        while not stop.is_set():
            await asyncio.sleep(0.01)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    stop = asyncio.Event()
    tick = asyncio.create_task(ticker(stop))
    segs = [s async for s in acheck_stream(chunks_of(f"{GOOD1} {GOOD2}"), CONTEXT, check=slow_check, policy=LENIENT)]
    stop.set()
    await tick
    # Two checks sleep 0.1 s each in worker threads: a free loop ticks about 20 times meanwhile, a loop blocked by
    # the checks about twice. Counting ticks, not the longest gap, keeps a loaded CI machine from failing it.
    assert len(segs) == 2 and len(gaps) >= 8, gaps


async def test_async_stream_upstream_error_ends_in_the_failure_mode_not_a_shorter_answer():
    # Was: the error propagated raw (the LangChain adapter then showed the released part as the answer).
    async def upstream():
        yield GOOD1 + " The tower is 33"
        raise RuntimeError("model connection dropped")

    closed = Policy(name="closed")  # failure.default: closed -> abstain
    sg = StreamGuard(CONTEXT, check=lexical_check, policy=closed)
    segs = [s async for s in arun_stream(sg, upstream())]
    assert shown(segs) == f"{GOOD1}\n\n{closed.abstain.message_for(ReasonCode.check_failed)}"
    fragment = [s for s in segs if s.withheld]
    assert [s.text for s in fragment] == [" The tower is 33"] and fragment[0].decision.code is ReasonCode.check_failed
    assert sg.decision.action is Action.abstain and sg.decision.code is ReasonCode.check_failed
    assert "StreamInterrupted" in sg.decision.error and "connection dropped" in sg.decision.error

    # internal-search fails "caveat": the fragment is shown, marked as unchecked, and the decision says so.
    sg = StreamGuard(CONTEXT, check=lexical_check, policy=LENIENT)
    segs = [s async for s in arun_stream(sg, upstream())]
    assert shown(segs) == f"{GOOD1} The tower is 33\n\n{LENIENT.caveat.general_note}"
    assert sg.decision.action is Action.caveat and sg.decision.code is ReasonCode.check_skipped
    assert any(r.check == "stream" for r in sg.decision.reasons)


async def test_async_stream_bad_chunk_is_the_callers_error():
    async def upstream():
        yield GOOD1 + " "
        yield 42

    with pytest.raises(InputError, match="str or bytes"):
        async for _ in acheck_stream(upstream(), CONTEXT, check=lexical_check, policy=LENIENT):
            pass
