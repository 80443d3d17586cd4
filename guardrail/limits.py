"""Input limits, enforced up front, so every input is refused with a clear error or checked in bounded time.

Why up front: Python's parsers recurse (``json.loads`` and jsonschema raise ``RecursionError`` near
1000 levels) and YAML aliases let a few hundred bytes stand for millions of nodes. Scanning the raw
text first is linear and cheap, and it turns what would be a traceback or a stall into an
``InputError`` / ``ConfigError`` that names the field and the limit. The limits sit far above what a
real answer, schema or policy needs (see docs/policies.md, "Limits"); they live here, in one place,
so the documentation, the checks and the tests agree.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .errors import InputError

__all__ = ["Limits", "LIMITS", "json_text_depth", "value_depth", "check_json_text", "check_value_depth", "check_input_sizes"]


class Limits(BaseModel):
    """The bounds every entry point enforces (characters are Python ``str`` characters)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_answer_chars: int = Field(default=1_000_000, ge=1, description="Longest answer checked (a long report is ~50,000).")
    max_question_chars: int = Field(default=100_000, ge=1, description="Longest question.")
    max_context_chars: int = Field(
        default=64_000_000, ge=1,
        description="Hard cap on the context's total text. Below it, Guardrail(max_context_chars=...) (4,000,000 by default) "
        "marks the claims unevaluatable instead of refusing the call.",
    )
    max_json_depth: int = Field(
        default=100, ge=1,
        description="Deepest nesting of a JSON answer or JSON Schema (objects and arrays); json and jsonschema recurse per level.",
    )
    max_policy_bytes: int = Field(default=1_000_000, ge=1, description="Largest policy YAML file (the shipped ones are a few KB).")
    max_policy_depth: int = Field(default=32, ge=1, description="Deepest nesting of mappings and lists in a policy file.")


#: The limits in force. A frozen model: a caller who needs other bounds passes a ``Limits`` to the checks.
LIMITS = Limits()

# A JSON string literal (closed or, at the end of a truncated text, open) or one bracket. Strings are
# matched whole so that a bracket inside a string never counts.
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[{]|[\]}]', re.DOTALL)


def json_text_depth(text: str, stop_above: int | None = None) -> tuple[int, int]:
    """(deepest bracket nesting of the JSON ``text``, offset where it was reached); linear, no recursion.

    Stops early once the depth passes ``stop_above``. Malformed text is scanned all the same: the
    parser reports that afterwards, with its own line and column.
    """
    depth = deepest = 0
    where = 0
    for m in _JSON_TOKEN.finditer(text):
        ch = m.group(0)[0]
        if ch in "[{":
            depth += 1
            if depth > deepest:
                deepest, where = depth, m.start()
                if stop_above is not None and deepest > stop_above:
                    break
        elif ch in "]}":
            depth = max(depth - 1, 0)
    return deepest, where


def value_depth(value: Any, stop_above: int | None = None) -> int:
    """Deepest nesting of dicts/lists/tuples in a Python value, walked with an explicit stack (no recursion).

    A container shared by several parents is walked once per parent; a value that contains itself
    only terminates with ``stop_above``, which every check passes.
    """
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Sequence[Any] = list(item.values())
        elif isinstance(item, (list, tuple)):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        if stop_above is not None and deepest > stop_above:
            return deepest
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list, tuple)))
    return deepest


def _line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def check_json_text(text: str, what: str, *, offset: int = 0, full_text: str | None = None, limits: Limits = LIMITS) -> None:
    """``InputError`` when the JSON ``text`` nests deeper than ``limits.max_json_depth``, before any parser recurses.

    ``offset`` / ``full_text``: where ``text`` sits in the text a person sees (a fenced block in an
    answer), so the line and column in the message are those of the whole answer.
    """
    deepest, where = json_text_depth(text, stop_above=limits.max_json_depth)
    if deepest > limits.max_json_depth:
        line, col = _line_col(full_text if full_text is not None else text, offset + where)
        raise InputError(
            f"{what}: JSON nested more than {limits.max_json_depth} levels deep (at line {line}, column {col}); "
            f"the limit is max_json_depth={limits.max_json_depth}"
        )


def check_value_depth(value: Any, what: str, *, limits: Limits = LIMITS) -> None:
    """``InputError`` when a parsed JSON-like value nests deeper than ``limits.max_json_depth``."""
    if value_depth(value, stop_above=limits.max_json_depth) > limits.max_json_depth:
        raise InputError(f"{what}: nested more than {limits.max_json_depth} levels deep; the limit is max_json_depth={limits.max_json_depth}")


def check_input_sizes(answer: str, question: str | None, context_chars: int, *, limits: Limits = LIMITS) -> None:
    """``InputError`` naming the field when the answer, question or context is over its hard size limit."""
    for what, size, limit, name in (
        ("answer", len(answer), limits.max_answer_chars, "max_answer_chars"),
        ("question", len(question or ""), limits.max_question_chars, "max_question_chars"),
        ("context", context_chars, limits.max_context_chars, "max_context_chars"),
    ):
        if size > limit:
            raise InputError(f"{what} is {size:,} characters, over the limit of {limit:,} ({name})")
