"""Input limits: nesting and size are refused up front with an error naming field and limit, never a traceback.

Each case here used to raise ``RecursionError`` (json decoding, jsonschema, flattening) or run
unbounded; the test asserts the project error and, where a hang was the bug, a generous time bound.
"""

from __future__ import annotations

import json
import random
import time

import pytest

from guardrail import Guardrail
from guardrail.errors import ConfigError, GuardrailError, InputError
from guardrail.evidence import normalize_context
from guardrail.limits import LIMITS, Limits, check_input_sizes, check_json_text, json_text_depth, value_depth
from guardrail.structured import looks_like_json, parse_structured, validate_structured

DEEP = LIMITS.max_json_depth + 1


def nested_list(depth: int) -> str:
    return "[" * depth + "]" * depth


def nested_value(depth: int) -> object:
    value: object = "x"
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.fixture(scope="module")
def guardrail() -> Guardrail:
    return Guardrail("heuristic")


# --------------------------------------------------------------------------- the scanners


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ("{}", 1),
        ('{"a": [1, {"b": []}]}', 4),
        ('{"a": "[[[[[[ not brackets ]"}', 1),  # brackets inside a string do not count
        ('["a \\" [[[", [2]]', 2),  # nor after an escaped quote
        ("plain text", 0),
        ("[[[", 3),  # unclosed: still measured (the parser reports the syntax error afterwards)
    ],
)
def test_json_text_depth(text, depth):
    assert json_text_depth(text)[0] == depth


def random_value(rng: random.Random, depth: int = 0) -> object:
    kind = rng.choice(["leaf", "list", "dict"] if depth < 6 else ["leaf"])
    if kind == "list":
        return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if kind == "dict":
        return {rng.choice(['k', '[', '"{', "\\]"]) + str(i): random_value(rng, depth + 1) for i in range(rng.randint(0, 3))}
    return rng.choice([None, True, 3, "plain", "[[", '"}{', "\\", "]]]"])


def test_text_and_value_depth_agree():
    """The text scan and the value walk measure the same thing, whatever the strings hold."""
    rng = random.Random(7)
    for _ in range(500):
        value = random_value(rng)
        assert json_text_depth(json.dumps(value))[0] == value_depth(value)


def test_value_depth_stops_on_a_value_that_contains_itself():
    loop: list = []
    loop.append(loop)
    assert value_depth(loop, stop_above=5) == 6


# --------------------------------------------------------------------------- JSON answers


@pytest.mark.parametrize("depth", [DEEP, 1000, 100_000])
def test_deep_json_answer_is_an_input_error_naming_the_limit(guardrail, depth):
    t0 = time.perf_counter()
    with pytest.raises(InputError, match=r"answer: JSON nested more than 100 levels.*max_json_depth=100"):
        guardrail.check(answer=nested_list(depth), context="Paris is in France.")
    assert time.perf_counter() - t0 < 5


def test_deep_json_in_a_fence_names_the_answer_line(guardrail):
    answer = "Here it is:\n\n```json\n" + nested_list(1000) + "\n```"
    with pytest.raises(InputError, match=r"line 4, column 101"):
        guardrail.check(answer=answer, context="Paris is in France.")


def test_json_at_the_limit_is_still_checked():
    answer = nested_list(LIMITS.max_json_depth)
    assert looks_like_json(answer)
    assert parse_structured(answer) is not None


def test_deep_json_is_refused_not_read_as_prose():
    """looks_like_json used to swallow the failure and the answer went to the prose extractor."""
    with pytest.raises(InputError):
        looks_like_json('{"a": ' * DEEP + "1" + "}" * DEEP)


def test_deep_answer_with_a_schema_is_an_invalid_answer(guardrail):
    report = guardrail.check(answer=nested_list(1000), context="Paris is in France.", schema={"type": "array"})
    assert report.schema_result is not None and not report.schema_result.valid
    assert "max_json_depth" in report.schema_result.issues[0].message
    assert any(s.check == "schema" for s in report.skipped)


def test_deep_schema_is_a_config_error():
    schema: dict = {"type": "string"}
    for _ in range(DEEP):
        schema = {"type": "array", "items": schema}
    with pytest.raises(ConfigError, match="schema.*max_json_depth"):
        validate_structured("[1]", schema)


def test_deep_parsed_answer_is_an_input_error():
    with pytest.raises(InputError, match="answer: nested more than 100"):
        validate_structured(nested_value(1000), {"type": "object"})


def test_schema_that_refers_to_itself_without_end_is_a_config_error():
    with pytest.raises(ConfigError, match=r"\$ref"):
        validate_structured("[1]", {"$ref": "#"})


def test_schema_at_the_limit_validates():
    schema: dict = {"type": "string"}
    answer: object = "x"
    for _ in range(LIMITS.max_json_depth - 1):
        schema, answer = {"type": "array", "items": schema}, [answer]
    assert validate_structured(json.dumps(answer), schema).valid


# --------------------------------------------------------------------------- context


def test_deep_json_context_passage_stays_text():
    [ev] = normalize_context(nested_list(1000))
    assert ev.text == nested_list(1000)
    assert not ev.metadata.get("flattened")


def test_deep_context_record_is_an_input_error_naming_the_item():
    with pytest.raises(InputError, match=r"context\[1\]: nested more than 100"):
        normalize_context([{"text": "fine"}, nested_value(1000)])


# --------------------------------------------------------------------------- sizes


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"answer": "x" * (LIMITS.max_answer_chars + 1), "question": None, "context_chars": 10}, "max_answer_chars"),
        ({"answer": "x", "question": "q" * (LIMITS.max_question_chars + 1), "context_chars": 10}, "max_question_chars"),
        ({"answer": "x", "question": None, "context_chars": LIMITS.max_context_chars + 1}, "max_context_chars"),
    ],
)
def test_sizes_over_the_limit_name_the_field(kwargs, field):
    with pytest.raises(InputError, match=field):
        check_input_sizes(**kwargs)


def test_sizes_at_the_limit_pass():
    check_input_sizes("x" * LIMITS.max_answer_chars, "q" * LIMITS.max_question_chars, LIMITS.max_context_chars)


def test_guardrail_refuses_an_answer_over_the_limit(guardrail):
    with pytest.raises(InputError, match=r"answer is 1,000,001 characters.*max_answer_chars"):
        guardrail.check(answer="x" * (LIMITS.max_answer_chars + 1), context="x")


def test_limits_are_one_validated_config():
    assert Limits(max_json_depth=5).max_json_depth == 5
    with pytest.raises(ValueError):
        Limits(max_json_depth=0)
    with pytest.raises(InputError, match="max_json_depth=5"):
        check_json_text(nested_list(6), "answer", limits=Limits(max_json_depth=5))


def test_fuzz_structured_raises_only_project_errors():
    """Whatever the text, the JSON entry points raise nothing but the project's errors."""
    rng = random.Random(11)
    alphabet = '[]{}"\\ ,:1a'
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 300))) for _ in range(400)]
    texts += [nested_list(d) for d in (99, 100, 101, 5000)] + ['{"a":' * 2000]
    for text in texts:
        for call in (parse_structured, looks_like_json, lambda t: validate_structured(t, {"type": "array"})):
            try:
                call(text)
            except GuardrailError:
                pass
