"""Fuzz suite (issue 15): arbitrary and hostile inputs through every public entry point.

Why: a guardrail's worst failure is the silent pass, and the second worst is a traceback or a stall
on input nobody thought of. These properties feed ``check``, ``check_batch``, ``guard``, the checked
stream, the policy loader and the CLI with arbitrary Unicode, control bytes, markdown, tables,
code, JSON (deep and huge) and numbers, and assert what must hold for *every* input:

1. nothing escapes but the project's own error tree (``GuardrailError``);
2. each input finishes in bounded time (hypothesis ``deadline`` per example, pytest-timeout per test);
3. a report's claims and unchecked spans cover every non-whitespace character of the answer, and
   every offset points at its own text;
4. no ``respond`` for an answer with an unchecked factual span unless the policy says fail-open;
5. the policy loader raises nothing but ``ConfigError`` for any text;
6. the CLI returns an exit code for any arguments and files, never a traceback.

The profiles (``ci``, the default, and ``long``) are registered in tests/conftest.py; see
docs/testing.md. The heuristic verifier is used throughout (no model load, milliseconds per
answer); one property runs the default verifier on a few examples.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from guardrail import Guardrail
from guardrail.cli import main as cli_main
from guardrail.errors import ConfigError, GuardrailError
from guardrail.policy import Action, PolicyStore, guard, policy_from_yaml
from guardrail.streaming import StreamGuard, arun_stream, run_stream

pytestmark = [pytest.mark.fuzz]

REPO = Path(__file__).resolve().parent.parent
STORE = PolicyStore(REPO / "policies")
DEFAULT_YAML = (REPO / "policies" / "default.yaml").read_text(encoding="utf-8")

#: Hard wall-clock bound per test (pytest-timeout), scaled with the profile's example count so
#: the long profile is not cut short; a hang is a failure, not a slow pass.
_EXAMPLES = settings.default.max_examples
TEST_TIMEOUT = max(240, 3 * _EXAMPLES)
timeout = pytest.mark.timeout(TEST_TIMEOUT)

#: Generating a 100 kB answer is slow for hypothesis' own health checks, not for the code under test.
_BIG = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example])


@functools.cache
def heuristic() -> Guardrail:
    """One warmed-up heuristic guardrail for the whole module (the first check loads the embedder)."""
    g = Guardrail(verifier="heuristic")
    g.check("The tower is 330 metres tall.", "The tower is 330 metres tall.")
    return g


@functools.cache
def default_guardrail() -> Guardrail:
    g = Guardrail()
    g.check("The tower is 330 metres tall.", "The tower is 330 metres tall.")
    return g


# --------------------------------------------------------------------------------------------- strategies

#: Characters that break naive text handling: zero-width and bidi controls, combining marks, NUL and
#: other C0/C1 controls, line/paragraph separators, odd spaces, wide/other-script digits, emoji.
EDGE = [
    "\u200b", "\u200c", "\u200d", "\ufeff", "\u200e", "\u200f", "\u202e", "\u2066", "\u0301", "\u0308", "\u20dd",
    "\x00", "\x01", "\x07", "\x08", "\x0b", "\x0c", "\x1b", "\x1f", "\x7f", "\x85", "\x9f", "\u2028", "\u2029",
    "\r\n", "\r", "\n", "\t", "\xa0", "\u2009", "\u3000", "１２３", "٣٤", "²", "½", "Ⅻ", "🗼", "👩‍👩‍👧", "東京タワー",
    "שלום", "مرحبا", "İ", "ß", "ﬁ", "\U0010fffd", "\ufffd", "...", "…", "!?", "e.g.", "Dr.", "No.", "U.S.",
]
WORDS = [
    "The", "tower", "Eiffel", "is", "was", "not", "never", "tall", "built", "in", "Paris", "by", "and", "or", "but",
    "it", "patients", "should", "take", "dose", "daily", "before", "after", "may", "Hope", "this", "helps", "Note",
    "that", "However", "Sources", "According", "to", "the", "document", "I", "don't", "know", "Why", "does", "cost",
]
NUMBERS = [
    "330", "1889", "1,234.5", "3.5%", "12 km", "330 metres", "5 mg", "2 x 500 mg", "$5", "€10.50", "-40 °C", "1e9",
    "March 31, 2024", "2024-03-31", "31/03/2024", "Q3 2023", "9 a.m.", "14:30", "twice", "three", "1/2", "0.0001",
    "10^6", "∞", "NaN", "99999999999999999999999", "5-10", "between 3 and 4", "~7", "≥ 18",
]
CITATIONS = ["[1]", "[2]", "[doc-a]", "[1, 2]", "[^1]", "[99]", "[]", "[[1]]", "(source: a)", "【1】"]

#: Whatever hypothesis can make of Unicode, minus lone surrogates (not encodable, never in real text).
any_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=300)
token = st.one_of(st.sampled_from(WORDS), st.sampled_from(NUMBERS), st.sampled_from(EDGE), st.sampled_from(CITATIONS),
                  st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=8))


@st.composite
def sentences(draw) -> str:
    words = draw(st.lists(token, min_size=1, max_size=14))
    end = draw(st.sampled_from([".", "!", "?", ":", "", ".\n", " [1].", ";", "...", "\u3002"]))
    return " ".join(words) + end


@st.composite
def markdown_blocks(draw) -> str:
    s = draw(sentences())
    kind = draw(st.sampled_from(["plain", "heading", "list", "olist", "nested", "table", "code", "quote", "sources",
                                 "bold", "link", "hr", "html"]))
    if kind == "heading":
        return "#" * draw(st.integers(1, 7)) + " " + s
    if kind == "list":
        return "\n".join(f"{draw(st.sampled_from('-*+'))} {draw(sentences())}" for _ in range(draw(st.integers(1, 4))))
    if kind == "olist":
        return "\n".join(f"{i}. {draw(sentences())}" for i in range(1, draw(st.integers(2, 5))))
    if kind == "nested":
        return "\n".join("  " * d + f"- {draw(sentences())}" for d in range(draw(st.integers(1, 6))))
    if kind == "table":
        cols = draw(st.integers(1, 4))
        rows = [" | ".join(draw(st.lists(token, min_size=cols, max_size=cols))) for _ in range(draw(st.integers(1, 4)))]
        sep = "|".join(["---"] * cols)
        return f"| {rows[0]} |\n|{sep}|\n" + "\n".join(f"| {r} |" for r in rows[1:])
    if kind == "code":
        fence = draw(st.sampled_from(["```", "```python", "~~~", "```json"]))
        closed = draw(st.booleans())
        return f"{fence}\n{s}\nx = {draw(st.sampled_from(NUMBERS))!r}\n" + ("```" if closed else "")
    if kind == "quote":
        return "> " + s
    if kind == "sources":
        return "Sources:\n" + "\n".join(f"[{i}] {draw(sentences())}" for i in range(1, draw(st.integers(2, 4))))
    if kind == "bold":
        return f"**{s}**"
    if kind == "link":
        return f"[{s}](https://example.org/{draw(st.integers(0, 9))})"
    if kind == "hr":
        return "---"
    if kind == "html":
        return f"<b>{s}</b><br/>"
    return s


json_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
                      st.sampled_from(NUMBERS), sentences(), any_text)
json_values = st.recursive(json_leaf, lambda kids: st.one_of(st.lists(kids, max_size=4),
                                                             st.dictionaries(any_text, kids, max_size=4)), max_leaves=20)


@st.composite
def json_answers(draw) -> str:
    kind = draw(st.sampled_from(["value", "deep", "huge", "broken"]))
    if kind == "deep":  # around the nesting limit (guardrail.limits: 100 levels)
        n = draw(st.integers(90, 400))
        inner = json.dumps(draw(sentences()))
        if draw(st.booleans()):
            return "[" * n + inner + "]" * n
        return '{"a": ' * n + inner + "}" * n
    if kind == "huge":
        item = draw(json_values)
        return json.dumps({"items": [item] * draw(st.integers(100, 2000))})
    text = json.dumps(draw(st.dictionaries(any_text, json_values, min_size=1, max_size=5)), ensure_ascii=draw(st.booleans()))
    if kind == "broken":
        cut = draw(st.integers(1, max(1, len(text) - 1)))
        return text[:cut]
    return text


#: Long inputs built by repetition, drawn as (unit, count, separator) so a failure prints short and shrinks fast:
#: a very long line, a long run with no sentence end, many sentences, thousands of figures.
huge_parts = st.tuples(
    st.one_of(sentences(), st.sampled_from(["x", "word ", "a, ", "1,", "- ", "| a ", "\u200b", "(", "[1]", "330: ", "3.5% and "])),
    st.integers(1_000, 40_000),
    st.sampled_from(["", " ", "\n", "\r\n"]),
)


def build_huge(unit: str, size: int, sep: str) -> str:
    return sep.join([unit] * max(size // max(len(unit), 1), 1))


mixed_answers = st.lists(st.one_of(markdown_blocks(), sentences()), min_size=1, max_size=8).flatmap(
    lambda blocks: st.sampled_from(["\n\n", "\n", " ", "\r\n"]).map(lambda sep: sep.join(blocks)))

answers = st.one_of(any_text, mixed_answers, json_answers(),
                    st.lists(st.one_of(st.sampled_from(EDGE), sentences()), min_size=1).map("".join))

context_text = st.one_of(any_text, st.lists(sentences(), max_size=6).map(" ".join),
                         st.just("The Eiffel Tower is 330 metres tall. It was completed in 1889 in Paris."))
contexts = st.one_of(
    st.none(),
    context_text,
    st.lists(context_text, max_size=4),
    st.lists(st.fixed_dictionaries({"id": st.one_of(st.text(max_size=5), st.integers()), "text": context_text}), max_size=4),
    st.lists(st.dictionaries(st.sampled_from(["id", "text", "source", "metadata", "page_content", "x"]),
                             st.one_of(context_text, st.integers(), st.none(), st.lists(st.integers(), max_size=2)),
                             max_size=4), max_size=3),
    context_text.map(lambda t: t.encode("utf-8")),
    st.binary(max_size=50),
    st.integers(),
)
questions = st.one_of(st.none(), any_text, sentences())


# --------------------------------------------------------------------------------------------- invariants


def assert_covers(report) -> None:
    """Invariant 3: offsets point at their own text, and claims + unchecked spans cover the answer.

    A JSON answer's claims are its fields (keys and punctuation are structure, stated through each
    field claim's ``statement``), so only the offsets are checked for it.
    """
    answer = report.answer
    covered = bytearray(len(answer))
    for span in [*report.claims, *report.unchecked]:
        assert 0 <= span.start <= span.end <= len(answer), (span, len(answer))
        assert answer[span.start:span.end] == span.text, span
        covered[span.start:span.end] = b"\x01" * (span.end - span.start)
    if any(c.kind == "field" for c in report.claims) or report.schema_result is not None:
        return
    missing = [i for i, ch in enumerate(answer) if not covered[i] and not ch.isspace()]
    assert not missing, f"uncovered characters at {missing[:10]}: {[answer[i] for i in missing[:10]]!r}"


def assert_no_silent_respond(decision, policy) -> None:
    """Invariant 4: an unchecked factual span never ends in ``respond`` unless the policy is fail-open for it."""
    report = decision.report
    if report is not None and report.unchecked_factual and not policy.rules.unchecked_text.fail_open:
        assert decision.action is not Action.respond, [u.text for u in report.unchecked_factual]


def call(fn, *args, **kw):
    """Invariant 1: whatever ``fn`` raises must be a GuardrailError (returned, so a test can look at it)."""
    try:
        return fn(*args, **kw)
    except GuardrailError as exc:
        return exc


# --------------------------------------------------------------------------------------------- check / batch


@timeout
@_BIG
@given(answer=answers, context=contexts, question=questions)
@example(answer="\x00", context="\x00", question=None)
@example(answer="\u200b\u200b. \u200f?", context="x", question="\u202e")
@example(answer="```\nThe dose is 5 mg.", context="The dose is 2 mg.", question=None)
def test_check_raises_only_project_errors_and_covers_the_answer(answer, context, question):
    report = call(heuristic().check, answer, context, question)
    if not isinstance(report, GuardrailError):
        assert_covers(report)


@timeout
@settings(_BIG, phases=[Phase.explicit, Phase.reuse, Phase.generate])  # shrinking 40 kB inputs takes minutes
@given(parts=huge_parts, context=context_text)
@example(parts=("x", 100_000, ""), context="x")  # one 100 kB "sentence": 23 s (facts enumeration regex backtracking)
@example(parts=("330: ", 35_000, ""), context="0000000")  # 7,000 figures in one claim: 20 s (facts._arithmetic)
def test_huge_answers_finish_in_bounded_time(parts, context):
    report = call(heuristic().check, build_huge(*parts), context)
    if not isinstance(report, GuardrailError):
        assert_covers(report)


@timeout
@_BIG
@given(items=st.lists(st.one_of(
    st.fixed_dictionaries({"response": answers, "context": contexts}, optional={"question": questions, "id": st.text(max_size=4)}),
    st.dictionaries(st.sampled_from(["response", "context", "question", "id", "extra"]),
                    st.one_of(st.integers(), st.none(), any_text, st.lists(any_text, max_size=2)), max_size=4),
), max_size=5))
def test_check_batch_yields_a_report_or_a_project_error_per_item(items):
    out = list(heuristic().check_batch(items, chunk_size=2))
    assert len(out) == len(items)
    for result in out:
        assert isinstance(result, GuardrailError) or hasattr(result, "claims"), repr(result)[:300]
        if not isinstance(result, Exception):
            assert_covers(result)


@settings(max_examples=min(_EXAMPLES, 8), deadline=None)  # the model: seconds per answer on a loaded CPU
@timeout
@given(answer=st.one_of(mixed_answers, json_answers()), context=contexts)
def test_default_verifier_raises_only_project_errors(answer, context):
    report = call(default_guardrail().check, answer, context)
    if not isinstance(report, GuardrailError):
        assert_covers(report)


def test_check_batch_reports_a_malformed_item_as_an_input_error():
    """Shrunk from the batch property: an item without a response (or with a number for one) is yielded
    as pydantic's ValidationError, outside the project's error tree (guardrail/guardrail.py, check_batch)."""
    out = list(heuristic().check_batch([{}, {"response": 5}, {"response": "The tower is tall.", "context": "x"}]))
    assert isinstance(out[0], GuardrailError) and isinstance(out[1], GuardrailError), [type(o).__name__ for o in out]
    assert hasattr(out[2], "claims")


# --------------------------------------------------------------------------------------------- guard / stream

POLICIES = ["default", "healthcare"]


@functools.cache
def fail_open_policy():
    return policy_from_yaml("extends: default\nrules:\n  unchecked_text:\n    fail_open: true\n", name="open",
                            base_dir=REPO / "policies")


@timeout
@_BIG
@given(answer=answers, context=contexts, question=questions, tenant=st.sampled_from(POLICIES))
@example(answer="Why is the Eiffel Tower 530 metres tall?", context="The Eiffel Tower is 330 metres tall.",
         question=None, tenant="default")
def test_guard_never_responds_over_unchecked_facts(answer, context, question, tenant):
    policy = STORE.get(tenant)
    decision = call(guard, answer, context, check=heuristic().check, policy=policy, question=question)
    if not isinstance(decision, GuardrailError):
        assert_no_silent_respond(decision, policy)


@timeout
@given(answer=st.one_of(mixed_answers, sentences()))
@example(answer="Why is the Eiffel Tower 530 metres tall?")
def test_fail_open_policy_lets_unchecked_facts_through_recorded(answer):
    decision = call(guard, answer, "The Eiffel Tower is 330 metres tall.", check=heuristic().check, policy=fail_open_policy())
    if isinstance(decision, GuardrailError) or decision.report is None or not decision.report.unchecked_factual:
        return
    assert any(r.code.value == "unchecked_text" for r in decision.reasons)


@st.composite
def chunked(draw, text_strategy=st.one_of(mixed_answers, sentences(), any_text)):
    """An answer cut at arbitrary points, as str or as UTF-8 bytes (multi-byte characters split)."""
    text = draw(text_strategy)
    as_bytes = draw(st.booleans())
    data = text.encode("utf-8") if as_bytes else text
    cuts = sorted(draw(st.lists(st.integers(0, len(data)), max_size=12)))
    pieces, pos = [], 0
    for cut in [*cuts, len(data)]:
        pieces.append(data[pos:cut])
        pos = cut
    return text, pieces


@timeout
@_BIG
@given(stream=chunked(), context=contexts, tenant=st.sampled_from(POLICIES), use_async=st.booleans())
def test_stream_raises_only_project_errors_and_decides_like_guard(stream, context, tenant, use_async):
    text, pieces = stream
    policy = STORE.get(tenant)
    sg = StreamGuard(context, check=heuristic().check, policy=policy)

    def run():
        if use_async:
            async def collect():
                return [s async for s in arun_stream(sg, pieces)]
            return asyncio.run(collect())
        return list(run_stream(sg, pieces))

    segments = call(run)
    if isinstance(segments, GuardrailError):
        return
    assert "".join(s.text for s in segments if s.kind != "notice") == text
    assert sg.decision is not None
    assert_no_silent_respond(sg.decision, policy)


# --------------------------------------------------------------------------------------------- policy loader

yaml_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), any_text,
                         st.sampled_from(["respond", "caveat", "regenerate", "abstain", "escalate", "open", "closed",
                                          "inline", "footnotes", "list", "{text}", "{text.__class__}", "default"]))
POLICY_KEYS = ["name", "description", "extends", "claims", "rules", "citations", "schema", "failure", "escalation",
               "caveat", "score_threshold", "action", "max_count", "fail_open", "checks", "stakes", "style",
               "inline_template", "unchecked_text", "on_no_claims", "regeneration"]
yaml_docs = st.recursive(yaml_scalars, lambda kids: st.one_of(
    st.lists(kids, max_size=4), st.dictionaries(st.one_of(st.sampled_from(POLICY_KEYS), any_text), kids, max_size=5)),
    max_leaves=25)


def _yaml_dump(doc) -> str:
    import yaml

    return yaml.safe_dump(doc, allow_unicode=True)


@st.composite
def policy_texts(draw) -> str:
    kind = draw(st.sampled_from(["doc", "raw", "mutated", "anchors", "deep", "flow"]))
    if kind == "doc":
        return _yaml_dump(draw(yaml_docs))
    if kind == "raw":
        return draw(st.one_of(any_text, st.lists(st.sampled_from(EDGE + [":", "- ", "{", "[", "&a", "*a", "!!python/object", "%YAML 1.2", "---", "? "]), max_size=40).map("".join)))
    if kind == "mutated":  # the real default policy with one line replaced or damaged
        lines = DEFAULT_YAML.splitlines()
        i = draw(st.integers(0, len(lines) - 1))
        lines[i] = draw(st.one_of(st.just(""), any_text, st.just(lines[i] + " " + draw(st.sampled_from(["[", "&x", "*x", "{", "!!binary"])))))
        return "\n".join(lines)
    if kind == "anchors":
        n = draw(st.integers(1, 6))
        lines = ["a0: &a0 [x, x, x]"] + [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 3) + "]" for i in range(1, n)]
        return "\n".join(lines) + "\nrules: *a0\n"
    if kind == "deep":
        n = draw(st.integers(20, 2000))
        return "rules: " + "{a: " * n + "1" + "}" * n if draw(st.booleans()) else "- " * n + "x"
    return json.dumps(draw(yaml_docs))  # JSON is YAML


@timeout
@_BIG
@given(text=policy_texts())
@example(text="")
@example(text="\x00")
@example(text="rules: !!python/object/apply:os.system ['true']")
def test_policy_loader_raises_only_config_errors(text):
    try:
        policy = policy_from_yaml(text)
    except ConfigError:
        return
    assert policy.name


# --------------------------------------------------------------------------------------------- CLI

file_bytes = st.one_of(st.binary(max_size=200), answers.map(lambda t: t.encode("utf-8")),
                       json_answers().map(lambda t: t.encode("utf-8")), st.just(b"\xff\xfe\x00"),
                       st.just(b"\xef\xbb\xbfThe tower is tall."))
safe_arg = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=200).filter(lambda s: s != "-")


def run_cli(argv: list[str]) -> int:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli_main(argv)
        except SystemExit as exc:  # argparse refusing the arguments: its usage error, exit 2
            code = exc.code
    assert isinstance(code, int), (code, err.getvalue()[-500:])
    assert code in (0, 1, 2, 3), (code, err.getvalue()[-500:])
    return code


@timeout
@_BIG
@given(answer=st.one_of(safe_arg, mixed_answers.filter(lambda s: s != "-")), contexts_=st.lists(safe_arg, max_size=3),
       question=st.one_of(st.none(), safe_arg), flags=st.sets(st.sampled_from(["--json", "--fail-on-hallucination",
                                                                               "--require-citations", "--top-k=1", "--threshold=0.5",
                                                                               "--threshold=nan", "--threshold=-1"])))
def test_cli_check_text_arguments_exit_with_a_code(answer, contexts_, question, flags):
    argv = ["check", "--verifier", "heuristic", f"--answer={answer}"]
    for c in contexts_:
        argv.append(f"--context={c}")
    if question is not None:
        argv.append(f"--question={question}")
    run_cli(argv + sorted(flags))


@timeout
@_BIG
@given(answer=file_bytes, context=file_bytes, context_suffix=st.sampled_from([".txt", ".json", ""]),
       schema=st.one_of(st.none(), file_bytes, st.just(json.dumps({"type": "object"}).encode())))
def test_cli_check_files_with_odd_bytes_exit_with_a_code(answer, context, context_suffix, schema):
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "answer.txt").write_bytes(answer)
        (d / f"ctx{context_suffix}").write_bytes(context)
        argv = ["check", "--verifier", "heuristic", "--answer-file", str(d / "answer.txt"),
                "--context-file", str(d / f"ctx{context_suffix}"), "--json", "--fail-on-hallucination"]
        if schema is not None:
            (d / "schema.json").write_bytes(schema)
            argv += ["--schema", str(d / "schema.json")]
        run_cli(argv)


@timeout
@_BIG
@given(lines=st.lists(st.one_of(
    st.fixed_dictionaries({"id": st.text(max_size=4), "response": answers, "context": contexts.filter(
        lambda c: not isinstance(c, bytes))}).map(lambda d: json.dumps(d).encode()),
    st.binary(max_size=60),
    any_text.map(lambda t: t.encode("utf-8")),
), max_size=4))
def test_cli_check_batch_exits_with_a_code(lines):
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "in.jsonl").write_bytes(b"\n".join(line.replace(b"\n", b" ") for line in lines))
        run_cli(["check-batch", "--verifier", "heuristic", "--no-progress", "--input", str(d / "in.jsonl"),
                 "--output", str(d / "out.jsonl")])
