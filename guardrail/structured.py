"""Structured (JSON) answers: parse them, validate them against a schema, and find their claims.

A JSON answer can be grounded or not like prose, but its facts sit in string fields. Each string
leaf becomes claims located by offsets into the raw answer text, so a flagged field can be
highlighted in place and a policy can regenerate just that field.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from .claims import SentenceClaimExtractor, looks_factual, split_sentences
from .errors import ConfigError, InputError
from .limits import check_json_text, check_value_depth
from .types import Claim, SchemaIssue, SchemaResult, UncheckedSpan

__all__ = ["parse_structured", "validate_structured", "string_field_claims", "field_claims", "looks_like_json"]

# A fenced block: ```json ... ``` (or an untagged fence holding JSON).
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*(?P<lang>[\w+-]*)[^\n]*\n(?P<body>.*?)^[ \t]*\1[ \t]*$", re.DOTALL | re.MULTILINE)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_DECODER = json.JSONDecoder()
# json.decoder.scanstring (the C scanner, or its pure-Python fallback) is public but missing from typeshed's stub.
_scanstring: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]


def _json_path(parts: Any) -> str:
    """("items", 2, "price") -> "$.items[2].price"; keys that are not identifiers go in brackets."""
    out = ["$"]
    for p in parts:
        if isinstance(p, int):
            out.append(f"[{p}]")
        elif _IDENT.match(str(p)):
            out.append(f".{p}")
        else:
            out.append("['" + str(p).replace("\\", "\\\\").replace("'", "\\'") + "']")
    return "".join(out)


def _locate_json(answer: str) -> tuple[int, int]:
    """(start, end) of the JSON text in ``answer``: the first ```json fence, else the whole answer."""
    fallback: tuple[int, int] | None = None
    for m in _FENCE.finditer(answer):
        lang = m.group("lang").lower()
        body = m.group("body")
        if lang in ("json", "jsonc", "json5"):
            return m.start("body"), m.end("body")
        if not lang and fallback is None and body.lstrip()[:1] in ("{", "["):
            fallback = (m.start("body"), m.end("body"))
    if fallback is not None:
        return fallback
    return 0, len(answer)


def _line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def parse_structured(answer: str) -> Any:
    """The JSON value of ``answer``: the whole text, or the first ```json fenced block in it.

    Raises ``InputError`` naming line and column (of the answer, not of the fence) when the JSON
    is malformed, so the message can be shown to the model that has to fix it.
    """
    start, end = _locate_json(answer)
    body = answer[start:end]
    if not body.strip():
        raise InputError("answer is empty: expected a JSON value")
    check_json_text(body, "answer", offset=start, full_text=answer)  # before json.loads can recurse
    try:
        return json.loads(body)
    except json.JSONDecodeError as exc:
        line, col = _line_col(answer, start + exc.pos)
        raise InputError(f"answer is not valid JSON: {exc.msg} at line {line}, column {col}") from exc


def validate_structured(answer: str | dict | list, schema: dict | bool | type[BaseModel]) -> SchemaResult:
    """Validate an answer against a JSON Schema or a pydantic model, reporting every problem with its path.

    A string answer that is not JSON is an invalid answer (one issue at "$"), not a caller error:
    the model produced it, and the policy decides whether to regenerate. A schema that is itself
    invalid is a configuration error (``ConfigError`` naming where in the schema).

    JSON Schema uses the draft the schema declares in ``$schema``, Draft 2020-12 otherwise, and
    asserts the formats jsonschema can check here (date, email, ipv4, ipv6, uuid, regex, ...);
    other formats stay annotations, as the 2020-12 default says. A pydantic model validates with
    its own config (set ``strict=True`` on the model to refuse "12" for an int).
    """
    if isinstance(answer, str):
        try:
            parsed = parse_structured(answer)
        except InputError as exc:
            return SchemaResult(valid=False, issues=[SchemaIssue(path="$", message=str(exc))])
    else:
        check_value_depth(answer, "answer")
        parsed = answer
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return _validate_pydantic(parsed, schema)
    if isinstance(schema, (dict, bool)):
        try:
            check_value_depth(schema, "schema")
        except InputError as exc:  # the schema is configuration, not the caller's answer
            raise ConfigError(str(exc), field="schema") from exc
        return _validate_jsonschema(parsed, schema)
    raise ConfigError(
        f"schema must be a JSON Schema (dict) or a pydantic model class, got {type(schema).__name__}", field="schema"
    )


def _validate_pydantic(parsed: Any, model: type[BaseModel]) -> SchemaResult:
    try:
        model.model_validate(parsed)
    except ValidationError as exc:
        issues = [SchemaIssue(path=_json_path(e["loc"]), message=e["msg"]) for e in exc.errors()]
        return SchemaResult(valid=False, issues=issues, parsed=parsed)
    return SchemaResult(valid=True, parsed=parsed)


def _validate_jsonschema(parsed: Any, schema: dict | bool) -> SchemaResult:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError
    from jsonschema.validators import validator_for
    from referencing.exceptions import Unresolvable

    cls = validator_for(schema, default=Draft202012Validator)
    try:
        cls.check_schema(schema)
    except SchemaError as exc:
        where = _json_path(exc.absolute_path)
        raise ConfigError(f"invalid JSON Schema: {exc.message}", field=where) from exc
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    try:
        errors = list(validator.iter_errors(parsed))
    except Unresolvable as exc:
        raise ConfigError(f"JSON Schema reference cannot be resolved: {exc}", field="$ref") from exc
    except RecursionError as exc:
        # Both depths are under the limit, so only a $ref cycle that consumes no input
        # ({"$ref": "#"}) gets here: the schema never reaches a decision.
        raise ConfigError("JSON Schema recurses without end (a $ref cycle that never reaches a type check)",
                          field="$ref") from exc

    def order(err: Any) -> tuple:
        return tuple((0, p, "") if isinstance(p, int) else (1, 0, str(p)) for p in err.absolute_path)

    issues = []
    for err in sorted(errors, key=order):
        message = err.message
        if err.context:  # anyOf / oneOf: the branch that got deepest into the answer came closest
            best = max(err.context, key=lambda e: len(e.absolute_path))
            message = f"{message}; closest alternative failed at {_json_path(best.absolute_path)}: {best.message}"
        issues.append(SchemaIssue(path=_json_path(err.absolute_path), message=message))
    return SchemaResult(valid=not issues, issues=issues, parsed=parsed)


# ---------------------------------------------------------------------------------------------
# String fields as claims
# ---------------------------------------------------------------------------------------------

_WS = frozenset(" \t\n\r")
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


class _Leaf:
    __slots__ = ("path", "start", "end", "value")

    def __init__(self, path: tuple, start: int, end: int, value: str):
        self.path, self.start, self.end, self.value = path, start, end, value


def _skip_ws(s: str, i: int) -> int:
    while i < len(s) and s[i] in _WS:
        i += 1
    return i


def _walk(s: str, i: int, path: tuple, leaves: dict[tuple, _Leaf], scalars: dict[tuple, _Leaf] | None = None) -> int:
    """Scan the JSON value at s[i:], recording string leaves with their raw offsets; return its end."""
    i = _skip_ws(s, i)
    ch = s[i : i + 1]
    if ch == "{":
        i = _skip_ws(s, i + 1)
        if s[i : i + 1] == "}":
            return i + 1
        while True:
            key, i = _scanstring(s, _skip_ws(s, i) + 1)
            i = _skip_ws(s, i) + 1  # ':'
            i = _skip_ws(s, _walk(s, i, path + (key,), leaves, scalars))
            if s[i] == "}":
                return i + 1
            i += 1  # ','
    if ch == "[":
        i = _skip_ws(s, i + 1)
        if s[i : i + 1] == "]":
            return i + 1
        n = 0
        while True:
            i = _skip_ws(s, _walk(s, i, path + (n,), leaves, scalars))
            n += 1
            if s[i] == "]":
                return i + 1
            i += 1
    if ch == '"':
        value, end = _scanstring(s, i + 1)
        leaves[path] = _Leaf(path, i + 1, end - 1, value)  # a repeated key: the last one wins, as in json.loads
        return end
    _, end = _DECODER.raw_decode(s, i)
    if scalars is not None:
        scalars[path] = _Leaf(path, i, end, s[i:end])
    return end


def _string_leaves(value: Any, path: tuple = ()) -> list[tuple[tuple, str]]:
    if isinstance(value, str):
        return [(path, value)]
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in _string_leaves(v, path + (k,))]
    if isinstance(value, list):
        return [leaf for n, v in enumerate(value) for leaf in _string_leaves(v, path + (n,))]
    return []


def _decode_map(raw: str) -> tuple[str, list[int]]:
    """Decode a JSON string body; positions[i] is the raw offset of decoded char i (plus one past the end)."""
    out: list[str] = []
    pos: list[int] = []
    i = 0
    while i < len(raw):
        pos.append(i)
        ch = raw[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        code = raw[i + 1]
        if code != "u":
            out.append(_ESCAPES[code])
            i += 2
            continue
        cp = int(raw[i + 2 : i + 6], 16)
        i += 6
        if 0xD800 <= cp < 0xDC00 and raw[i : i + 2] == "\\u":
            low = int(raw[i + 2 : i + 6], 16)
            if 0xDC00 <= low < 0xE000:
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00)
                i += 6
        out.append(chr(cp))
    pos.append(len(raw))
    return "".join(out), pos


def _field_name(path: tuple) -> str | None:
    for p in reversed(path):
        if isinstance(p, str):
            return p
    return None


def string_field_claims(answer: str, parsed: Any, min_chars: int = 12) -> list[Claim]:
    """Claims for every string leaf of ``parsed``, located in the raw JSON text of ``answer``.

    Offsets cover the string literal's content between its quotes. When the literal has escapes
    (``\\n``, ``\\"``, ``\\u00e9``) the claim's text is the raw slice, so the offset invariant holds,
    and ``statement`` is the decoded value the verifier should read. Values that read as prose are
    cut like prose (sentences, list items; questions and pleasantries are not claims). A label-like
    value (shorter than ``min_chars``, or one phrase without a final period: "Paris", "4.5 stars",
    "Mediterranean food") means little alone, so it is one claim whose statement names the field:
    "city: Paris". ``parsed`` must be this answer's JSON; a leaf the text does not hold raises
    ``InputError`` naming its path.
    """
    start, end = _locate_json(answer)
    leaves: dict[tuple, _Leaf] = {}
    try:
        _walk(answer[:end], _skip_ws(answer, start), (), leaves)
    except (ValueError, IndexError, KeyError) as exc:
        raise InputError(f"answer is not valid JSON, cannot locate its fields: {exc}") from exc
    except RecursionError as exc:
        raise InputError("answer JSON is nested too deeply to locate its fields") from exc

    extractor = SentenceClaimExtractor(split_compound=True, min_chars=min_chars)
    found: list[Claim] = []
    for path, value in _string_leaves(parsed):
        leaf = leaves.get(path)
        if leaf is None or leaf.value != value:
            raise InputError(f"parsed value at {_json_path(path)} is not the string the answer holds there")
        if not value.strip():
            continue
        decoded, raw_pos = _decode_map(answer[leaf.start : leaf.end])
        field_path = _json_path(path)
        stripped = value.strip()
        label = stripped[-1] not in ".!?" and "\n" not in stripped and len(split_sentences(stripped)) <= 1
        if len(stripped) < min_chars or label:
            s, e = len(value) - len(value.lstrip()), len(value.rstrip())
            a, b = leaf.start + raw_pos[s], leaf.start + raw_pos[e]
            name = _field_name(path)
            # (the key in words, as a reader says it: "arrival_local: 09:20" is "arrival local: 09:20")
            statement = f"{_key_words(name)}: {stripped}" if name else (stripped if answer[a:b] != stripped else None)
            found.append(
                Claim(id="", text=answer[a:b], start=a, end=b, kind="field", field_path=field_path, statement=statement)
            )
            continue
        for c in extractor.extract(decoded):
            a, b = leaf.start + raw_pos[c.start], leaf.start + raw_pos[c.end]
            text = answer[a:b]
            found.append(
                Claim(
                    id="", text=text, start=a, end=b, kind="field", field_path=field_path,
                    statement=c.text if text != c.text else None, citations=c.citations,
                )
            )
    return _numbered_with_records(found)


def _numbered_with_records(found: list[Claim]) -> list[Claim]:
    """Field claims in answer order, numbered, each knowing its siblings: "destination: York" is checked
    against the sentence that states the ticket, seat and departure of the same record."""
    found.sort(key=lambda c: c.start)
    by_parent: dict[str, list[Claim]] = {}
    for c in found:
        by_parent.setdefault((c.field_path or "$").rsplit(".", 1)[0].rsplit("[", 1)[0], []).append(c)
    for group in by_parent.values():
        for c in group:
            others = [o.statement or o.text for o in group if o is not c][:12]
            c.record = "; ".join(others) or None
    for n, c in enumerate(found, 1):
        c.id = f"c{n}"
    return found


# A key's last word that names the unit of its value ("total_usd", "weight_g", "screen_in").
_KEY_UNITS = {
    "usd": "USD", "eur": "EUR", "gbp": "GBP", "jpy": "JPY", "chf": "CHF", "cad": "CAD", "aud": "AUD", "inr": "INR",
    "kg": "kg", "g": "g", "mg": "mg", "mcg": "mcg", "ug": "mcg", "lb": "lb", "lbs": "lb", "oz": "oz", "km": "km",
    "m": "m", "cm": "cm", "mm": "mm", "in": "inches", "inch": "inches", "inches": "inches", "ft": "ft", "mi": "miles",
    "miles": "miles", "gb": "GB", "mb": "MB", "tb": "TB", "kb": "KB", "pct": "%", "percent": "%", "h": "hours",
    "hours": "hours", "hrs": "hours", "min": "minutes", "mins": "minutes", "minutes": "minutes", "s": "seconds",
    "sec": "seconds", "seconds": "seconds", "ms": "ms", "days": "days", "weeks": "weeks", "months": "months",
    "years": "years", "l": "litres", "ml": "ml", "kwh": "kWh", "kw": "kW", "w": "W", "mph": "mph", "kmh": "km/h",
    "c": "°C", "f": "°F",
}


#: Words that start a key's qualifier: the unit is the word before them.
_KEY_QUALIFIERS = frozenset("for over under per of after before with without by at to from above below".split())


def _key_words(name: str) -> str:
    """A key as words: "arrival_local" -> "arrival local", "homeGoals" -> "home Goals"."""
    return " ".join(w for w in re.split(r"[_\-\s]+|(?<=[a-z])(?=[A-Z])", name) if w)


def _field_statement(path: tuple, raw: str) -> str:
    """"total_usd": 59.9 -> "total: 59.9 USD"; "home_goals": 3 -> "home goals: 3"."""
    name = _field_name(path) or "value"
    words = [w for w in re.split(r"[_\-\s]+|(?<=[a-z])(?=[A-Z])", name) if w]
    # The unit ends the key's head, before any qualifier: "notice_weeks_for_leave_over_5_days" is in weeks.
    numeric = re.fullmatch(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?", raw) is not None
    # A scale word last ("fee_eur_million": 38, "revenue_usd_bn": 2.4) multiplies the value: "fee: €38 million".
    scale = _KEY_SCALES.get(words[-1].lower()) if numeric and len(words) > 1 else None
    if scale:
        words = words[:-1]
    if numeric and len(words) >= 3 and words[-2].lower() == "per" and words[-1].lower() in _KEY_UNITS:
        # A rate: "off_peak_rate_p_per_kwh": 8.5 is 8.5p per kWh, "cost_eur_per_kg": 4 is €4 per kg (the unit after
        # "per" divides; it is never the value's own).
        top = words[-3].lower()
        num = _KEY_UNITS.get(top) or {"p": "p", "pence": "p", "cents": "cents", "cent": "cents"}.get(top)
        label = " ".join(words[:-3] if num else words[:-2])
        per = _KEY_UNITS[words[-1].lower()]
        per = per[:-1] if per in ("hours", "minutes", "seconds", "days", "weeks", "months", "years") else per
        symbol = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥"}.get(num or "")
        amount = f"{symbol}{_with_scale(raw, scale)}" if symbol else f"{_with_scale(raw, scale)}{num if num == 'p' else ' ' + num if num else ''}"
        return f"{label}: {amount} per {per}"
    cut = next((i for i, w in enumerate(words) if i and w.lower() in _KEY_QUALIFIERS), len(words))
    head, tail = words[:cut], words[cut:]
    if len(head) < 2 or head[-1].lower() not in _KEY_UNITS:
        head, tail = words, []  # no unit before a qualifier: the last word may be one ("price_per_night_eur")
    unit = _KEY_UNITS.get(head[-1].lower()) if len(head) > 1 else None
    value = {"true": "yes", "false": "no", "null": "not known"}.get(raw, raw)
    if scale:
        value = f"{value} {scale}"
    if unit and numeric:
        label = " ".join(head[:-1] + tail)
        symbol = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥"}.get(unit)
        return f"{label}: {symbol}{value}" if symbol else f"{label}: {value} {unit}"
    return f"{' '.join(words)}: {value}"


def _with_scale(raw: str, scale: str | None) -> str:
    return f"{raw} {scale}" if scale else raw


#: A key's last word that scales its value ("population_millions": 3.1 is 3.1 million).
_KEY_SCALES = {"thousand": "thousand", "thousands": "thousand", "k": "thousand", "million": "million",
               "millions": "million", "mn": "million", "mln": "million", "billion": "billion", "billions": "billion",
               "bn": "billion"}


def looks_like_json(answer: str) -> bool:
    """An answer that is a JSON object or array (bare or in a ```json fence), not prose that mentions one.

    Raises ``InputError`` when it is JSON nested past ``LIMITS.max_json_depth``: such an answer is
    refused, never checked as if it were prose.
    """
    start, end = _locate_json(answer)
    body = answer[start:end].strip()
    if body[:1] not in ("{", "["):
        return False
    # Too deep is an error, not "prose": otherwise a JSON answer nested past the limit would be
    # checked sentence by sentence as if it were text.
    check_json_text(answer[start:end], "answer", offset=start, full_text=answer)
    try:
        parse_structured(answer)
    except InputError:
        return False
    return True


def field_claims(answer: str, parsed: Any, min_chars: int = 12) -> list[Claim]:
    """One claim per leaf of a JSON answer: string leaves as in :func:`string_field_claims`, and every
    number and boolean as "field: value" (its unit from the key: ``"weight_g": 190`` -> "weight: 190 g").

    Why numbers too: in a structured answer the facts most often *are* the numbers and codes ("total",
    "seat", "departure"); a wrong one must be flagged with its path like a wrong sentence.
    """
    found = string_field_claims(answer, parsed, min_chars)
    start, end = _locate_json(answer)
    leaves: dict[tuple, _Leaf] = {}
    scalars: dict[tuple, _Leaf] = {}
    try:
        _walk(answer[:end], _skip_ws(answer, start), (), leaves, scalars)
    except (ValueError, IndexError, KeyError, RecursionError) as exc:
        raise InputError(f"answer is not valid JSON, cannot locate its fields: {exc}") from exc
    for path, leaf in scalars.items():
        if leaf.value == "null":
            continue
        found.append(Claim(id="", text=leaf.value, start=leaf.start, end=leaf.end, kind="field",
                           field_path=_json_path(path), statement=_field_statement(path, leaf.value)))
    return _numbered_with_records(found)


def structure_spans(answer: str, claims: list[Claim]) -> list[UncheckedSpan]:
    """What a JSON answer's field claims leave out, so the report still accounts for every character:
    its syntax, keys, nulls and any text around the JSON are ``markup``; part of a string value that
    no claim covers is ``not_extracted``, factual when it reads like a statement."""
    start, end = _locate_json(answer)
    leaves: dict[tuple, _Leaf] = {}
    try:
        _walk(answer[:end], _skip_ws(answer, start), (), leaves, {})
    except (ValueError, IndexError, KeyError, RecursionError):
        leaves = {}
    # Cut points: claim edges and string-value edges; each piece between them is covered or not.
    covered = [(c.start, c.end) for c in claims]
    cuts = sorted({0, len(answer)} | {x for c in covered for x in c}
                  | {x for leaf in leaves.values() for x in (leaf.start, leaf.end)})
    out: list[UncheckedSpan] = []
    for a, b in zip(cuts, cuts[1:]):
        if any(x <= a and b <= y for x, y in covered):
            continue
        text = answer[a:b]
        lead = len(text) - len(text.lstrip())
        text = text.strip()
        if not text:
            continue
        a += lead
        b = a + len(text)
        inside = any(leaf.start <= a and b <= leaf.end for leaf in leaves.values())
        reason: Literal["not_extracted", "markup"] = "not_extracted" if inside else "markup"
        factual = inside and looks_factual(text)
        if out and out[-1].reason == reason == "markup" and not any(out[-1].end <= x < a for x, _ in covered):
            a = out.pop().start
            text = answer[a:b]
        out.append(UncheckedSpan(start=a, end=b, text=text, reason=reason, factual=factual))
    return out
