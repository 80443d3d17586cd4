"""JSON out of a model's reply text, and the one repair turn when the reply cannot be used.

Models wrap JSON in fences and prose and leave trailing commas; ``extract_json`` finds the value the
reply means. ``chat_json`` validates it against a pydantic model; ``chat_parsed`` takes any parser
(regeneration's ``parse_rewrites``). When the reply cannot be used, the model is shown its reply and
the error and asked once more (``repair_attempts``): a malformed reply is the model's mistake, which a
second identical request would repeat and a request that names the error usually fixes. This is not
a retry of failed requests: those are the client's (``budget.Attempts``), inside each request.

The conversation is written once, as a generator (``_conversation``) that yields the messages to send
and receives the reply; the sync and async functions only make the requests.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Generator, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ..errors import ConfigError, LLMResponseError
from .budget import CallBudget
from .client import ChatModel, Message

__all__ = ["extract_json", "chat_json", "achat_json", "chat_parsed", "achat_parsed"]

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")

_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n?(.*?)```", re.S)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


# --------------------------------------------------------------------------- extraction


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        fixed = _TRAILING_COMMA.sub(r"\1", text)
        if fixed == text:
            raise
        return json.loads(fixed)


def _candidates(text: str) -> list[Any]:
    """Every JSON value the reply plausibly means, most plausible first."""
    found: list[Any] = []
    for block in _FENCE.findall(text):
        try:
            found.append(_loads(block.strip()))
        except json.JSONDecodeError:
            pass
    try:
        found.append(_loads(text.strip()))
    except json.JSONDecodeError:
        pass
    # JSON embedded in prose: decode from every '{' / '[' and prefer the longest value.
    decoder = json.JSONDecoder()
    cleaned = _TRAILING_COMMA.sub(r"\1", text)
    spans: list[tuple[int, int, Any]] = []
    for m in re.finditer(r"[{\[]", cleaned):
        try:
            obj, end = decoder.raw_decode(cleaned, m.start())
        except json.JSONDecodeError:
            continue
        if isinstance(obj, (dict, list)):
            spans.append((end - m.start(), m.start(), obj))
    found.extend(obj for _, _, obj in sorted(spans, key=lambda s: (-s[0], s[1])))
    return found


def extract_json(text: str) -> Any:
    """The JSON value in an LLM reply: fenced, bare, or inside prose; tolerates trailing commas.

    Raises ``ValueError`` when the reply holds no JSON object or array.
    """
    found = _candidates(text)
    if not found:
        raise ValueError("no JSON object or array found in the reply")
    return found[0]


def _validator(schema: type[M]) -> Callable[[str], M]:
    """A parser: the first JSON value in the reply that validates as ``schema``."""

    def parse(text: str) -> M:
        found = _candidates(text)
        if not found:
            raise ValueError("no JSON object or array found in the reply")
        first_error: ValidationError | None = None
        for obj in found:
            try:
                return schema.model_validate(obj)
            except ValidationError as exc:
                first_error = first_error or exc
        assert first_error is not None
        raise ValueError(_short_validation_error(first_error))

    return parse


def _short_validation_error(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        loc = ".".join(str(p) for p in err["loc"]) or "$"
        parts.append(f"{loc}: {err['msg']}")
    return "JSON does not match the schema: " + "; ".join(parts)


# --------------------------------------------------------------------------- the conversation


def _repair_message(error: str) -> Message:
    return {"role": "user", "content": (
        f"Your previous reply could not be used: {error[:800]}\n"
        "Reply again with only the JSON, exactly in the format asked for, and nothing else.")}


def _conversation(messages: Sequence[Message], parse: Callable[[str], T], repair_attempts: int,
                  what: str) -> Generator[list[Message], str, T]:
    """Yield the messages of each request, receive its reply; return the first reply ``parse`` accepts.

    ``parse`` rejects a reply with ``ValueError`` or ``LLMResponseError``; after ``repair_attempts``
    extra turns the last rejection becomes ``LLMResponseError`` (with the reply as ``last_output``).
    """
    if repair_attempts < 0:
        raise ConfigError("repair_attempts must be >= 0")
    convo = list(messages)
    for turn in range(1, repair_attempts + 2):
        text = yield convo
        try:
            return parse(text)
        except (ValueError, LLMResponseError) as exc:
            rejected: Exception = exc
            convo = [*convo, {"role": "assistant", "content": text}, _repair_message(str(exc))]
    raise LLMResponseError(f"reply is not valid {what} after {turn} attempt(s): {rejected}",
                           attempts=turn, last_output=text) from rejected


def _request_kw(kw: dict[str, Any], json_schema: dict[str, Any] | None, budget: CallBudget | None,
                started: float | None) -> dict[str, Any]:
    """The keywords of one request: the caller's, the schema hint, and what is left of the budget
    (``started``: when the first request went out; None for the first itself)."""
    out = dict(kw)
    if json_schema is not None:
        out["json_schema"] = json_schema
    if budget is not None:
        out["budget"] = budget if started is None else budget.after(time.monotonic() - started)
    return out


def chat_parsed(model: ChatModel, messages: Sequence[Message], parse: Callable[[str], T], *, what: str = "JSON",
                json_schema: dict[str, Any] | None = None, repair_attempts: int = 1, budget: CallBudget | None = None,
                **kw: Any) -> T:
    """Ask ``model`` and return ``parse(reply)``; a rejected reply gets a repair turn that names the error.

    ``budget`` (for a model that takes it: ``OpenAIChat``, ``as_chat_model``'s) bounds the whole
    exchange, each request getting what the earlier ones left. Raises ``LLMResponseError`` when no
    reply is accepted after ``repair_attempts`` extra turns; endpoint failures propagate as the model
    raised them.
    """
    turns = _conversation(messages, parse, repair_attempts, what)
    convo, started = next(turns), None
    while True:
        kw_turn = _request_kw(kw, json_schema, budget, started)
        started = started if started is not None else time.monotonic()
        text = model.chat(convo, **kw_turn)
        try:
            convo = turns.send(text)
        except StopIteration as done:
            return done.value


async def achat_parsed(model: ChatModel, messages: Sequence[Message], parse: Callable[[str], T], *, what: str = "JSON",
                       json_schema: dict[str, Any] | None = None, repair_attempts: int = 1,
                       budget: CallBudget | None = None, **kw: Any) -> T:
    """Async twin of ``chat_parsed`` (the model's ``achat``)."""
    turns = _conversation(messages, parse, repair_attempts, what)
    convo, started = next(turns), None
    while True:
        kw_turn = _request_kw(kw, json_schema, budget, started)
        started = started if started is not None else time.monotonic()
        text = await model.achat(convo, **kw_turn)
        try:
            convo = turns.send(text)
        except StopIteration as done:
            return done.value


def chat_json(model: ChatModel, messages: Sequence[Message], schema: type[M], *, repair_attempts: int = 1,
              **kw: Any) -> M:
    """Ask ``model`` and validate its reply as ``schema``; on a bad reply, ask again with the error.

    Raises ``LLMResponseError`` (with ``last_output``) when no reply validates after
    ``repair_attempts`` extra turns; endpoint failures propagate as the model raised them.
    """
    return chat_parsed(model, messages, _validator(schema), what=f"{schema.__name__} JSON",
                       json_schema=schema.model_json_schema(), repair_attempts=repair_attempts, **kw)


async def achat_json(model: ChatModel, messages: Sequence[Message], schema: type[M], *, repair_attempts: int = 1,
                     **kw: Any) -> M:
    """Async twin of ``chat_json``."""
    return await achat_parsed(model, messages, _validator(schema), what=f"{schema.__name__} JSON",
                              json_schema=schema.model_json_schema(), repair_attempts=repair_attempts, **kw)
