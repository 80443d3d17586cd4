"""Structured answers: JSON parsing, schema validation with paths, string fields as claims."""

from __future__ import annotations

import json
import random

import pytest
from pydantic import BaseModel, ConfigDict, Field

from guardrail.errors import ConfigError, InputError
from guardrail.structured import parse_structured, string_field_claims, validate_structured

# --------------------------------------------------------------------------- parse_structured


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ("  [1, 2]\n", [1, 2]),
        ('"just a string"', "just a string"),
        ('Here you go:\n```json\n{"a": [1, 2]}\n```\nHope it helps.', {"a": [1, 2]}),
        ('```JSON\n{"a": 1}\n```', {"a": 1}),
        ('```\n{"a": 1}\n```', {"a": 1}),  # untagged fence that holds JSON
        ('```python\nx = 1\n```\n```json\n{"a": 2}\n```', {"a": 2}),  # the json fence, not the first fence
    ],
)
def test_parse_structured(answer: str, expected: object) -> None:
    assert parse_structured(answer) == expected


def test_bad_json_names_line_and_column_of_the_answer() -> None:
    answer = 'Here is the JSON:\n\n```json\n{\n  "a": 1,\n  "b": \n}\n```'
    with pytest.raises(InputError, match=r"line 7, column 1"):
        parse_structured(answer)
    with pytest.raises(InputError, match=r"line 1, column 9"):
        parse_structured('{"a": 1,}')


@pytest.mark.parametrize("answer", ["", "   \n", "```json\n\n```"])
def test_empty_answer(answer: str) -> None:
    with pytest.raises(InputError, match="empty"):
        parse_structured(answer)


# --------------------------------------------------------------------------- JSON Schema

ITEMS_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["items", "total"],
    "additionalProperties": False,
    "properties": {
        "total": {"type": "number"},
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "price"],
                "properties": {"name": {"type": "string"}, "price": {"type": "number", "minimum": 0}},
            },
        },
        "contact": {"type": "string", "format": "email"},
        "weird key": {"type": "integer"},
    },
}


def test_valid_answer() -> None:
    result = validate_structured('{"items": [{"name": "tea", "price": 2.5}], "total": 2.5}', ITEMS_SCHEMA)
    assert result.valid and result.issues == []
    assert result.parsed == {"items": [{"name": "tea", "price": 2.5}], "total": 2.5}


def test_all_errors_with_paths() -> None:
    answer = {
        "items": [{"name": "a", "price": 1}, {"name": "b", "price": 2}, {"name": "c", "price": -3}, {"price": "x"}],
        "contact": "not-an-email",
        "weird key": 1.5,
        "extra": True,
    }
    result = validate_structured(answer, ITEMS_SCHEMA)
    assert not result.valid
    got = {(i.path, i.message) for i in result.issues}
    assert ("$.items[2].price", "-3 is less than the minimum of 0") in got
    assert ("$.items[3].price", "'x' is not of type 'number'") in got
    assert ("$.items[3]", "'name' is a required property") in got
    assert ("$", "'total' is a required property") in got
    assert ("$.contact", "'not-an-email' is not a 'email'") in got
    assert ("$['weird key']", "1.5 is not of type 'integer'") in got
    assert any(i.path == "$" and "'extra' was unexpected" in i.message for i in result.issues)
    assert len(result.issues) == 7
    # Issues come out in document order.
    paths = [i.path for i in result.issues]
    assert paths.index("$.items[2].price") < paths.index("$.items[3]")


def test_any_of_names_the_closest_branch() -> None:
    schema = {"anyOf": [{"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}}, {"type": "string"}]}
    (issue,) = validate_structured('{"id": "seven"}', schema).issues
    assert issue.path == "$"
    assert "closest alternative failed at $.id" in issue.message and "'seven' is not of type 'integer'" in issue.message


def test_answer_that_is_not_json_is_an_invalid_answer() -> None:
    result = validate_structured("Sure! The total is 5.", ITEMS_SCHEMA)
    assert not result.valid
    assert result.issues[0].path == "$" and "not valid JSON" in result.issues[0].message and "line 1" in result.issues[0].message


def test_fenced_answer_is_validated() -> None:
    answer = 'Here:\n```json\n{"items": [], "total": "5"}\n```'
    result = validate_structured(answer, ITEMS_SCHEMA)
    assert [(i.path, i.message) for i in result.issues] == [("$.total", "'5' is not of type 'number'")]


def test_declared_draft_is_used() -> None:
    draft7 = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "array", "items": [{"type": "integer"}], "additionalItems": False}
    assert validate_structured("[1]", draft7).valid
    assert [i.path for i in validate_structured('[1, "x"]', draft7).issues] == ["$"]


def test_boolean_schemas() -> None:
    assert validate_structured("[1]", True).valid
    assert not validate_structured("[1]", False).valid


@pytest.mark.parametrize(
    ("schema", "where"),
    [
        ({"type": "objekt"}, "$.type"),
        ({"properties": {"a": {"minimum": "zero"}}}, "$.properties.a.minimum"),
        ({"required": "name"}, "$.required"),
    ],
)
def test_invalid_schema_is_a_config_error(schema: dict, where: str) -> None:
    with pytest.raises(ConfigError, match="invalid JSON Schema") as info:
        validate_structured("{}", schema)
    assert info.value.field == where
    assert where in str(info.value)


def test_unresolvable_ref_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="cannot be resolved"):
        validate_structured('{"a": 1}', {"properties": {"a": {"$ref": "#/$defs/missing"}}})


def test_schema_of_wrong_type() -> None:
    with pytest.raises(ConfigError, match="JSON Schema .dict. or a pydantic model class, got str"):
        validate_structured("{}", "not a schema")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- pydantic


class Item(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    price: float = Field(ge=0)


class Order(BaseModel):
    model_config = ConfigDict(extra="forbid")
    items: list[Item]
    total: float


def test_pydantic_valid() -> None:
    result = validate_structured('{"items": [{"name": "tea", "price": 2}], "total": 2}', Order)
    assert result.valid and result.parsed == {"items": [{"name": "tea", "price": 2}], "total": 2}


def test_pydantic_errors_with_paths() -> None:
    answer = '{"items": [{"name": "a", "price": 1}, {"name": "b", "price": -1}, {"price": "x"}], "note": 1}'
    result = validate_structured(answer, Order)
    got = {(i.path, i.message) for i in result.issues}
    assert ("$.items[1].price", "Input should be greater than or equal to 0") in got
    assert ("$.items[2].name", "Field required") in got
    assert ("$.items[2].price", "Input should be a valid number, unable to parse string as a number") in got
    assert ("$.total", "Field required") in got
    assert ("$.note", "Extra inputs are not permitted") in got
    assert not result.valid and len(result.issues) == 5


# --------------------------------------------------------------------------- string_field_claims

ANSWER = """Here is the record:
```json
{
  "name": "Magic Pita",
  "summary": "The cafe is in Santa Barbara [1]. It serves \\"shawarma\\" and falafel.\\nIt opens at 11 a.m. daily.",
  "rating": 4.0,
  "open": true,
  "tags": ["cheap", "Mediterranean food", ""],
  "address": {"city": "Caf\\u00e9 \\ud83d\\ude00 town", "street": "5 W Haley St"},
  "reviews": [{"text": "Great food. Would come again."}],
  "name": "Magic Pita Cafe"
}
```"""


def test_string_field_claims() -> None:
    parsed = parse_structured(ANSWER)
    claims = string_field_claims(ANSWER, parsed)
    got = [(c.id, c.field_path, c.text, c.statement, c.citations) for c in claims]
    assert got == [
        ("c1", "$.summary", "The cafe is in Santa Barbara", None, ["[1]"]),
        ("c2", "$.summary", 'It serves \\"shawarma\\" and falafel.', 'It serves "shawarma" and falafel.', []),
        ("c3", "$.summary", "It opens at 11 a.m. daily.", None, []),
        ("c4", "$.tags[0]", "cheap", "tags: cheap", []),
        ("c5", "$.tags[1]", "Mediterranean food", "tags: Mediterranean food", []),
        ("c6", "$.address.city", "Caf\\u00e9 \\ud83d\\ude00 town", "city: Caf\u00e9 \U0001f600 town", []),
        ("c7", "$.address.street", "5 W Haley St", "street: 5 W Haley St", []),
        ("c8", "$.reviews[0].text", "Great food. Would come again.", None, []),
        ("c9", "$.name", "Magic Pita Cafe", "name: Magic Pita Cafe", []),  # the repeated key: last wins
    ]
    for c in claims:
        assert ANSWER[c.start : c.end] == c.text
        assert c.kind == "field"


def test_keys_are_not_claims_and_min_chars() -> None:
    answer = '{"The summary of this record": "Paris is the capital of France. It is large."}'
    claims = string_field_claims(answer, json.loads(answer))
    assert [c.text for c in claims] == ["Paris is the capital of France.", "It is large."]
    merged = string_field_claims(answer, json.loads(answer), min_chars=20)
    assert [c.text for c in merged] == ["Paris is the capital of France. It is large."]


def test_root_string_and_arrays() -> None:
    answer = '"Paris is the capital of France."'
    (c,) = string_field_claims(answer, json.loads(answer))
    assert (c.field_path, c.text, c.statement) == ("$", "Paris is the capital of France.", None)
    answer = '[["Paris is big.", "x"], {"k": ["Rome is old."]}]'
    claims = string_field_claims(answer, json.loads(answer))
    assert [(c.field_path, c.text, c.statement) for c in claims] == [
        ("$[0][0]", "Paris is big.", None),
        ("$[0][1]", "x", None),
        ("$[1].k[0]", "Rome is old.", None),  # a sentence, not a label: no field name needed
    ]


def test_parsed_must_match_the_answer() -> None:
    answer = '{"a": "Paris is the capital of France."}'
    with pytest.raises(InputError, match=r"\$\.a"):
        string_field_claims(answer, {"a": "Berlin is the capital of Germany."})
    with pytest.raises(InputError, match=r"\$\.b"):
        string_field_claims(answer, {"a": "Paris is the capital of France.", "b": "extra value here"})


def test_unparseable_answer() -> None:
    with pytest.raises(InputError):
        string_field_claims('{"a": "x",', {"a": "x"})


def _random_string(rng: random.Random) -> str:
    pieces = ["Paris is big.", " It has 2.1M people [1].", "\n- item one", "caf\u00e9", "\U0001f600", '"quoted"',
              "back\\slash", "tab\there", "U.S. data", " Is it?", "\u2028", "e.g. this", "3.14"]
    return "".join(rng.choice(pieces) for _ in range(rng.randint(0, 6)))


def _random_value(rng: random.Random, depth: int = 0) -> object:
    r = rng.random()
    if depth < 3 and r < 0.3:
        return {f"k{i}" if rng.random() < 0.8 else f"key {i}": _random_value(rng, depth + 1) for i in range(rng.randint(0, 4))}
    if depth < 3 and r < 0.5:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    if r < 0.6:
        return rng.choice([1, 2.5, True, None, -3e5])
    return _random_string(rng)


@pytest.mark.parametrize("seed", range(4))
def test_generated_json_offsets(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(100):
        value = _random_value(rng)
        answer = json.dumps(value, ensure_ascii=rng.random() < 0.5, indent=rng.choice([None, 2]))
        if rng.random() < 0.3:
            answer = f"Result:\n```json\n{answer}\n```\n"
        claims = string_field_claims(answer, parse_structured(answer))
        assert [c.id for c in claims] == [f"c{i}" for i in range(1, len(claims) + 1)]
        prev = 0
        for c in claims:
            assert answer[c.start : c.end] == c.text
            assert c.start >= prev
            prev = c.end
            decoded = json.loads(f'"{c.text}"')  # every claim is a whole slice of one JSON string literal
            if c.statement is None:
                assert decoded == c.text
            else:
                assert c.statement.endswith(decoded.strip()) or c.statement == decoded


def test_numeric_fields_are_claims_with_a_schema_too():
    # A schema says the field is a number; only the context says whether it is the right one.
    from guardrail import Guardrail
    from guardrail.verifiers import make_verifier

    schema = {"type": "object", "properties": {"depth_m": {"type": "number"}, "lake": {"type": "string"}}}
    ctx = "Lake Orm is 212 metres deep. The visitor centre is in building 97."
    g = Guardrail(make_verifier("heuristic"))
    bad = g.check('{"lake": "Lake Orm", "depth_m": 97}', ctx, schema=schema)
    assert [c.field_path for c in bad.claims] == ["$.lake", "$.depth_m"]
    assert bad.hallucinated and bad.verdict_for(bad.claims[1].id).label.value != "supported"
    good = g.check('{"lake": "Lake Orm", "depth_m": 212}', ctx, schema=schema)
    assert not good.hallucinated


def test_json_answers_account_for_every_character():
    from guardrail.structured import field_claims, parse_structured, structure_spans

    for answer in ['{"a": "Porto", "n": 5, "q": "The tower is tall. Why is it 530 metres tall?", "x": null}',
                   '```json\n[1, {"a": true, "b": [2.5, "x y z"]}]\n```']:
        claims = field_claims(answer, parse_structured(answer))
        spans = structure_spans(answer, claims)
        covered = set()
        for c in claims:
            covered |= set(range(c.start, c.end))
        for u in spans:
            assert answer[u.start:u.end] == u.text
            assert not covered & set(range(u.start, u.end)), u
            covered |= set(range(u.start, u.end))
        assert {i for i, ch in enumerate(answer) if not ch.isspace()} <= covered
    q = '{"q": "The tower is tall. Why is it 530 metres tall?"}'
    spans = structure_spans(q, field_claims(q, parse_structured(q)))
    assert any(u.factual and "530" in u.text for u in spans)


def test_a_keys_unit_comes_before_its_qualifier():
    from guardrail.structured import field_claims
    answer = '{"refund_days_after_purchase_over_100_usd": 30, "fee_per_night_eur": 12, "max_stay_over_days": 7}'
    texts = [c.text for c in field_claims(answer, json.loads(answer))]
    statements = [c.statement for c in field_claims(answer, json.loads(answer))]
    assert texts == ["30", "12", "7"], texts
    assert statements == ["refund after purchase over 100 usd: 30 days", "fee per night: €12", "max stay over: 7 days"], statements


def test_a_keys_scale_word_multiplies_its_value():
    from guardrail.structured import field_claims
    answer = '{"budget_gbp_million": 4.5, "visitors_thousands": 120, "revenue_usd_bn": 2, "rooms": 3}'
    statements = [c.statement for c in field_claims(answer, json.loads(answer))]
    assert statements == ["budget: £4.5 million", "visitors: 120 thousand", "revenue: $2 billion", "rooms: 3"], statements


def test_session19_a_key_ending_per_unit_is_a_rate_not_the_values_unit():
    from guardrail.structured import _field_statement

    assert _field_statement(("off_peak_rate_p_per_kwh",), "8.5") == "off peak rate: 8.5p per kWh"
    assert _field_statement(("cost_eur_per_kg",), "4") == "cost: €4 per kg"
    assert _field_statement(("price_per_night_eur",), "120") == "price per night: €120"
