"""The facade end to end on the real default pipeline (no mocks of our own stages)."""

from __future__ import annotations

import asyncio

import pytest

from guardrail import CheckReport, Guardrail, InputError, Label
from guardrail.errors import BackendError
from guardrail.verifiers import make_verifier

EIFFEL_CONTEXT = "The Eiffel Tower was completed in 1889 in Paris."
WRONG = "The Eiffel Tower was completed in 1887 in Lyon."
RIGHT = "The Eiffel Tower was completed in 1889 in Paris."


@pytest.fixture(scope="module")
def guard() -> Guardrail:
    return Guardrail()


def _offsets_ok(report: CheckReport) -> None:
    for c in report.claims:
        assert report.answer[c.start : c.end] == c.text


def test_wrong_facts_are_flagged(guard):
    report = guard.check(WRONG, EIFFEL_CONTEXT)
    assert report.hallucinated
    assert report.flagged, "the wrong claim must be listed as flagged"
    claim, verdict = report.flagged[0]
    assert verdict.label in (Label.contradicted, Label.unsupported)
    assert verdict.evidence_ids == ["1"]
    _offsets_ok(report)


def test_faithful_answer_passes(guard):
    report = guard.check(RIGHT, EIFFEL_CONTEXT)
    assert not report.hallucinated
    assert report.complete
    assert all(v.label is Label.supported for v in report.verdicts)


def test_report_round_trips_as_json(guard):
    report = guard.check(WRONG + " It is in France.", [EIFFEL_CONTEXT, "Paris is in France."], question="When?")
    again = CheckReport.model_validate_json(report.model_dump_json())
    assert again == report
    assert set(report.latencies_ms) >= {"claims", "evidence_select", "verify", "total"}


@pytest.mark.parametrize("answer", ["", "   \n\t"])
def test_empty_answer_is_an_error(guard, answer):
    with pytest.raises(InputError, match="empty"):
        guard.check(answer, EIFFEL_CONTEXT)


def test_non_utf8_answer_is_an_error(guard):
    with pytest.raises(InputError, match="UTF-8"):
        guard.check(b"caf\xe9 is open", EIFFEL_CONTEXT)


@pytest.mark.parametrize("context", [None, "", [], ["", "  "]])
def test_missing_context_is_never_a_pass(guard, context):
    report = guard.check(WRONG, context)
    assert report.verdicts and all(v.label is Label.unevaluatable for v in report.verdicts)
    assert all("no context" in v.reason for v in report.verdicts)
    assert not report.complete
    assert [s.check for s in report.skipped] == ["evidence"]


def test_context_over_limit_is_reported_not_cut():
    guard = Guardrail(max_context_chars=1000)
    report = guard.check(RIGHT, EIFFEL_CONTEXT + " filler" * 500)
    assert all(v.label is Label.unevaluatable and "over the limit" in v.reason for v in report.verdicts)
    assert report.skipped[0].check == "evidence"


def test_one_megabyte_of_context_is_windowed(guard):
    filler = "The committee met again to discuss the annual budget of the regional library network. "
    block = filler * (510_000 // len(filler))
    context = block + EIFFEL_CONTEXT + " " + block
    assert len(context) > 1_000_000
    report = guard.check(RIGHT, context)
    assert report.complete
    assert not report.hallucinated, "the fact buried in the middle must still be found"
    span = report.verdicts[0].evidence_span
    assert span is not None and "1889" in span.text


class _Broken:
    name = "broken"

    def verify(self, items, batch_size=32):
        raise BackendError("model file is corrupt")


def test_verifier_failure_becomes_unevaluatable():
    report = Guardrail(_Broken()).check(WRONG, EIFFEL_CONTEXT)
    assert all(v.label is Label.unevaluatable and "corrupt" in v.reason for v in report.verdicts)
    assert report.skipped and report.skipped[0].check == "verify"
    assert not report.complete


class _Counting:
    """Wraps the real verifier and counts calls, to show batching across answers."""

    def __init__(self):
        self.inner = make_verifier("heuristic")
        self.name = self.inner.name
        self.calls = 0

    def verify(self, items, batch_size=32):
        self.calls += 1
        return self.inner.verify(items, batch_size=batch_size)


def test_check_batch_keeps_order_batches_and_isolates_errors():
    verifier = _Counting()
    guard = Guardrail(verifier)
    items = [
        {"id": "a", "response": RIGHT, "context": EIFFEL_CONTEXT},
        {"id": "b", "response": "", "context": EIFFEL_CONTEXT},
        {"id": "c", "response": WRONG, "context": [EIFFEL_CONTEXT]},
    ]
    out = list(guard.check_batch(items, chunk_size=16))
    assert len(out) == 3
    assert isinstance(out[0], CheckReport) and not out[0].hallucinated
    assert isinstance(out[1], InputError)
    assert isinstance(out[2], CheckReport) and out[2].hallucinated
    assert verifier.calls == 1


def test_acheck_matches_check(guard):
    async def run():
        return await asyncio.gather(guard.acheck(WRONG, EIFFEL_CONTEXT), guard.acheck(RIGHT, EIFFEL_CONTEXT))

    wrong, right = asyncio.run(run())
    assert wrong.hallucinated and not right.hallucinated


def test_structured_answer_is_validated_and_grounded(guard):
    schema = {
        "type": "object",
        "properties": {"summary": {"type": "string"}, "year": {"type": "integer"}},
        "required": ["summary", "year"],
    }
    answer = '{"summary": "The Eiffel Tower was completed in 1887 in Lyon.", "year": "1887"}'
    report = guard.check(answer, EIFFEL_CONTEXT, schema=schema)
    assert report.schema_result is not None and not report.schema_result.valid
    assert any(i.path == "$.year" for i in report.schema_result.issues)
    assert report.claims and report.claims[0].field_path == "$.summary"
    assert report.hallucinated
    _offsets_ok(report)


def test_citations_are_checked(guard):
    docs = [{"id": "doc-paris", "text": EIFFEL_CONTEXT}, {"id": "doc-rome", "text": "The Colosseum is in Rome."}]
    report = guard.check("The Eiffel Tower was completed in 1889 [doc-paris]. It stands in Rome [doc-missing].", docs)
    assert report.citations is not None
    by_marker = {r.marker: r for r in report.citations.results}
    assert by_marker["[doc-paris]"].exists
    assert not by_marker["[doc-missing]"].exists
    assert report.citations.attribution_precision is not None and report.citations.attribution_precision < 1.0


def test_grounding_spec_with_a_missing_folder_names_it(tmp_path) -> None:
    from guardrail.errors import ModelLoadError
    from guardrail.verifiers import make_verifier

    with pytest.raises(ModelLoadError, match="nope"):
        make_verifier(f"grounding:{tmp_path / 'nope'}")


def test_default_verifier_is_the_one_measured_best_end_to_end() -> None:
    """``default`` is a measured choice (guardrail.verifiers.DEFAULT_VERIFIER), not whichever model is on disk."""
    from guardrail.verifiers import DEFAULT_VERIFIER

    assert type(make_verifier("default")) is type(make_verifier(DEFAULT_VERIFIER))
    assert Guardrail().verifier.name == make_verifier(DEFAULT_VERIFIER).name


# --------------------------------------------------------------------------- unchecked text, unevaluatable verdicts (issue 15)


class _TimesOut:
    """A judge that hands back unevaluatable verdicts instead of raising (as the LLM verifiers do)."""

    name = "judge-stub"

    def verify(self, items, batch_size=32):
        from guardrail.verifiers import unevaluatable

        return [unevaluatable(it, "LLM timed out after 30 s", self.name) for it in items]


def test_unevaluatable_verdicts_add_a_skipped_check_and_the_report_is_not_clean():
    report = Guardrail(_TimesOut()).check(RIGHT + " It is 330 metres tall.", EIFFEL_CONTEXT)
    assert len(report.claims) == 2 and all(v.label is Label.unevaluatable for v in report.verdicts)
    assert not report.hallucinated and not report.complete
    (skip,) = report.skipped
    assert skip.check == "verify" and "judge-stub" in skip.reason and "timed out" in skip.reason
    assert skip.claim_ids == [c.id for c in report.claims]
    assert "none of the 2 claim(s) could be checked" in report.not_checked_summary()


def test_a_verifier_error_is_not_listed_twice():
    report = Guardrail(_Broken()).check(WRONG, EIFFEL_CONTEXT)
    assert [s.check for s in report.skipped] == ["verify"]


def test_abstentions_are_not_skipped_checks(guard):
    report = guard.check("The documents do not say when the Eiffel Tower was completed.", EIFFEL_CONTEXT)
    assert all(v.non_factual for v in report.verdicts if v.label is Label.unevaluatable)
    assert not report.skipped


def test_report_lists_unchecked_text(guard):
    report = guard.check(RIGHT + " Anything else? Why was it completed in 1889 in Paris?", EIFFEL_CONTEXT)
    assert [c.text for c in report.claims] == [RIGHT]
    assert [(u.text, u.reason, u.factual) for u in report.unchecked] == [
        ("Anything else?", "question", False),
        ("Why was it completed in 1889 in Paris?", "question", True),
    ]
    assert not report.hallucinated and not report.complete
    assert "1 factual span(s) not checked" in report.not_checked_summary()
    assert CheckReport.model_validate_json(report.model_dump_json()) == report


class _FirstSentenceOnly:
    """A custom extractor (no extract_with_unchecked): its coverage is computed from its offsets."""

    name = "first"

    def extract(self, answer):
        from guardrail.types import Claim

        end = answer.index(".") + 1
        return [Claim(id="c1", text=answer[:end], start=0, end=end)]


def test_text_a_custom_extractor_leaves_out_is_unchecked():
    answer = RIGHT + " It was designed by Gustave Eiffel."
    report = Guardrail("heuristic", extractor=_FirstSentenceOnly()).check(answer, EIFFEL_CONTEXT)
    assert [(u.text, u.reason, u.factual) for u in report.unchecked] == [
        ("It was designed by Gustave Eiffel.", "not_extracted", True)]
    assert not report.complete


def test_an_answer_of_only_unchecked_facts_is_not_complete(guard):
    report = guard.check("Why is the Eiffel Tower 530 metres tall?", EIFFEL_CONTEXT)
    assert report.claims == [] and not report.hallucinated
    assert not report.complete and report.unchecked_factual


# --------------------------------------------------------------------------- the async path (issue 16)


class _AsyncOnly:
    """A verifier with a native ``averify``; its sync ``verify`` must never be used by ``acheck``."""

    name = "async-only"

    def __init__(self, delay_s: float = 0.0):
        self.delay_s = delay_s
        self.calls: list[tuple[asyncio.AbstractEventLoop, int, int]] = []  # (loop, thread, items)
        self.cancelled = 0

    def verify(self, items, batch_size=32):
        raise AssertionError("acheck ran the sync verify")

    async def averify(self, items, batch_size=32):
        import threading

        from guardrail.verifiers.base import scored_verdict

        self.calls.append((asyncio.get_running_loop(), threading.get_ident(), len(items)))
        try:
            await asyncio.sleep(self.delay_s)
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        return [scored_verdict(it, 0.1, 0.5, "stub", self.name) for it in items]


def test_acheck_awaits_an_async_verifier_on_the_event_loop():
    import threading

    v = _AsyncOnly(delay_s=0.01)
    guard = Guardrail(v, selector=_bm25())

    async def run():
        loop = asyncio.get_running_loop()
        reports = await asyncio.gather(guard.acheck(RIGHT, EIFFEL_CONTEXT), guard.acheck(RIGHT + " [1]", EIFFEL_CONTEXT))
        return loop, reports

    loop, (plain, cited) = asyncio.run(run())
    assert [(lp is loop, tid == threading.get_ident()) for lp, tid, _ in v.calls] == [(True, True), (True, True)]
    assert sorted(n for _, _, n in v.calls) == [1, 2]  # the cited answer: its claim and its citation in one call
    assert plain.complete and not plain.hallucinated and plain.verifier == "async-only"
    assert cited.citations.results[0].supports is True


def test_acheck_and_check_share_one_report_shape():
    guard = Guardrail("heuristic", selector=_bm25())
    answer, context = WRONG + " It opened to visitors [2].", [EIFFEL_CONTEXT, "The tower opened to visitors in 1889."]
    sync = guard.check(answer, context)
    async_ = asyncio.run(guard.acheck(answer, context))
    drop = {"latencies_ms"}
    assert async_.model_dump(exclude=drop) == sync.model_dump(exclude=drop)
    assert set(async_.latencies_ms) == set(sync.latencies_ms)


def test_acheck_times_out_an_async_verifier_and_cancels_it():
    import time

    v = _AsyncOnly(delay_s=30)
    guard = Guardrail(v, selector=_bm25(), verifier_timeout_s=0.05)
    started = time.perf_counter()
    report = asyncio.run(guard.acheck(RIGHT + " [1]", EIFFEL_CONTEXT))
    assert time.perf_counter() - started < 5
    assert v.cancelled == 1
    assert all(x.label is Label.unevaluatable and "no result within 0.05 s" in x.reason for x in report.verdicts)
    assert not report.complete and report.citations is None
    assert {s.check for s in report.skipped} == {"verify", "citations"}


def test_an_async_verifiers_own_timeout_error_is_a_failed_check_not_a_crash():
    class OwnTimeout(_AsyncOnly):
        async def averify(self, items, batch_size=32):
            raise asyncio.TimeoutError("upstream read timed out")

    report = asyncio.run(Guardrail(OwnTimeout(), selector=_bm25()).acheck(RIGHT, EIFFEL_CONTEXT))
    assert all(x.label is Label.unevaluatable for x in report.verdicts)
    (skip,) = report.skipped
    assert skip.check == "verify" and "TimeoutError" in skip.reason


def test_acheck_with_a_sync_verifier_still_runs_it_and_honours_the_timeout():
    import time

    class Slow:
        name = "slow"

        def verify(self, items, batch_size=32):
            time.sleep(1.0)
            return _Broken().verify(items)

    async def run():
        started = time.perf_counter()
        report = await Guardrail(Slow(), selector=_bm25(), verifier_timeout_s=0.05).acheck(RIGHT, EIFFEL_CONTEXT)
        return report, time.perf_counter() - started

    report, elapsed = asyncio.run(run())  # asyncio.run itself then waits for the abandoned thread
    assert elapsed < 0.9
    assert report.skipped[0].check == "verify" and "no result within 0.05 s" in report.skipped[0].reason


def _bm25():
    from guardrail.evidence import EvidenceSelector

    return EvidenceSelector(method="bm25")


def test_the_report_and_the_policy_flag_the_same_claims():
    """"Is this claim flagged?" has one answer (``types.is_flagged``) for the engine's report and for a
    policy that keeps the engine's threshold."""
    from guardrail.policy import Policy, decide

    g = Guardrail("heuristic")
    report = g.check("The bridge opened in 1932. It is 503 metres long. It carries eight lanes.",
                     "The bridge opened in 1932. It is 1,149 metres long and carries eight lanes of traffic.")
    flagged = [c.id for c, _ in report.flagged]
    assert flagged and report.hallucinated
    assert decide(report, Policy()).analysis.flagged == flagged


def test_session21_an_instructions_never_for_do_not_passes(guard):
    context = ["Do not immerse the kettle base in water. Descale the kettle every four weeks."]
    report = guard.check("Never submerge the kettle base in water.", context)
    assert not report.hallucinated, [v.reason for v in report.verdicts]
    report = guard.check("Always submerge the kettle base in water to clean it.", context)
    assert report.hallucinated, [v.reason for v in report.verdicts]
