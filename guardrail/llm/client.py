"""One small client for any OpenAI-compatible chat endpoint, and JSON replies validated by pydantic.

Why our own thin layer over ``openai``: the guardrail sits inline, so an LLM call needs a hard
deadline, retries on transient failures only (a 400 or a wrong answer is not fixed by asking
again the same way), and one error type the pipeline can turn into an ``unevaluatable`` verdict.
Every backend failure ends as ``LLMTimeout`` / ``LLMResponseError`` (or plain ``LLMError`` when the
endpoint cannot be reached), raised ``from`` the original exception with the attempt count and the
last output, so nothing is swallowed and nothing is lost.

``ChatModel`` is the seam: ``OpenAIChat`` (any OpenAI-compatible server: OpenAI, vLLM, llama.cpp,
Ollama...), ``LangChainChat`` (a chain's own model) or anything with ``chat``/``achat``.
"""

from __future__ import annotations

import asyncio
import difflib
import json
import logging
import os
import re
import threading
import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .deadline import call_with_deadline
from .errors import ConfigError, LLMError, LLMResponseError, LLMTimeout

if TYPE_CHECKING:  # pragma: no cover
    import tenacity

__all__ = [
    "LLMConfig",
    "LLMUsage",
    "ChatModel",
    "OpenAIChat",
    "LangChainChat",
    "TextCompletion",
    "TokenLogprob",
    "chat_json",
    "achat_json",
    "extract_json",
    "locate_quote",
]

log = logging.getLogger("guardrail.llm")

Message = dict[str, Any]
M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")


class LLMConfig(BaseModel):
    """How to reach one OpenAI-compatible chat endpoint."""

    model_config = ConfigDict(extra="forbid")

    base_url: str = Field(description="API root including /v1, e.g. http://127.0.0.1:8080/v1.")
    model: str = Field(description="Model name sent with each request (any string for single-model servers).")
    api_key: str = Field(
        default_factory=lambda: os.environ.get("OPENAI_API_KEY") or "not-needed",
        repr=False,
        description="Bearer key; OPENAI_API_KEY when set, else a placeholder local servers accept.",
    )
    timeout_s: float = Field(default=30.0, gt=0, description="Hard deadline for one request (one attempt).")
    max_retries: int = Field(default=2, ge=0, description="Extra attempts after a transient failure (timeout, connection, 429, 5xx).")
    backoff_s: float = Field(default=0.5, ge=0, description="First wait between attempts; doubles up to 8 s, with jitter.")
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    max_tokens: int = Field(default=512, gt=0)
    response_format: Literal["none", "json_object", "json_schema", "llamacpp_schema"] = Field(
        default="none",
        description=(
            "How chat_json asks the server for JSON: none (prompt only), json_object (OpenAI JSON mode), "
            "json_schema (OpenAI structured outputs), llamacpp_schema (llama-cpp-python grammar from the schema)."
        ),
    )


class LLMUsage(BaseModel):
    """Requests answered and tokens spent, as the server reported them (``usage`` of each reply).

    Why: an LLM check's cost is calls and tokens, not only seconds; ``guardrail eval`` reports them per
    answer so that verifiers (judge, CoVe) can be compared on what they cost. A server that sends no
    ``usage`` counts its calls with zero tokens.
    """

    model_config = ConfigDict(extra="forbid")

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def minus(self, earlier: "LLMUsage") -> "LLMUsage":
        """What was spent since ``earlier`` (a snapshot of the same counter)."""
        return LLMUsage(calls=self.calls - earlier.calls, prompt_tokens=self.prompt_tokens - earlier.prompt_tokens,
                        completion_tokens=self.completion_tokens - earlier.completion_tokens)


@runtime_checkable
class ChatModel(Protocol):
    """Anything that turns chat messages into the assistant's reply text.

    Implementations must accept (and may ignore) the keyword ``json_schema``: a JSON Schema the
    reply should match, which a server able to constrain decoding can enforce.
    """

    def chat(self, messages: list[Message], **kw: Any) -> str: ...

    async def achat(self, messages: list[Message], **kw: Any) -> str: ...


# ---------------------------------------------------------------------------------------------
# OpenAI-compatible client
# ---------------------------------------------------------------------------------------------


class _Malformed(Exception):
    """The endpoint answered 200 but not with a usable chat completion."""

    def __init__(self, message: str, raw: str | None = None):
        super().__init__(message)
        self.raw = raw


class _DeadlineExceeded(TimeoutError):
    pass


def _is_transient(exc: BaseException) -> bool:
    import openai

    if isinstance(exc, (TimeoutError, openai.APITimeoutError, openai.APIConnectionError, openai.RateLimitError)):
        return True
    return isinstance(exc, openai.APIStatusError) and (exc.status_code >= 500 or exc.status_code == 408)


def _log_retry(state: "tenacity.RetryCallState") -> None:
    exc = state.outcome.exception() if state.outcome else None
    log.warning("LLM request failed (%s: %s); attempt %d, retrying", type(exc).__name__, exc, state.attempt_number)


class OpenAIChat:
    """``ChatModel`` over the ``openai`` package, for any OpenAI-compatible server.

    The client's own retries are off: ours (tenacity, or the ``retrying`` you pass) retry transient
    failures only, and each attempt runs under a hard deadline of ``timeout_s`` even if the server
    keeps trickling bytes. Safe to share between threads and event loops: it keeps no per-call state.
    """

    def __init__(self, config: LLMConfig | None = None, *, base_url: str | None = None, model: str | None = None,
                 retrying: "tenacity.Retrying | None" = None, **overrides: Any):
        if config is None:
            if base_url is None or model is None:
                raise TypeError("OpenAIChat needs a config or both base_url= and model=")
            config = LLMConfig(base_url=base_url, model=model, **overrides)
        elif base_url is not None or model is not None or overrides:
            upd = {k: v for k, v in {"base_url": base_url, "model": model, **overrides}.items() if v is not None}
            config = LLMConfig.model_validate({**config.model_dump(), **upd})
        self.config = config
        self._retrying = retrying if retrying is not None else self._default_retrying()
        self._client: Any = None
        self._aclients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()
        self._usage = LLMUsage()

    def usage(self) -> LLMUsage:
        """Every reply received so far (a copy): calls and the tokens the server reported."""
        with self._lock:
            return self._usage.model_copy()

    def _count(self, resp: Any) -> None:
        usage = getattr(resp, "usage", None)
        prompt, completion = getattr(usage, "prompt_tokens", 0), getattr(usage, "completion_tokens", 0)
        with self._lock:
            u = self._usage
            u.calls += 1
            u.prompt_tokens += prompt if isinstance(prompt, int) else 0
            u.completion_tokens += completion if isinstance(completion, int) else 0

    def __repr__(self) -> str:
        return f"OpenAIChat(model={self.config.model!r}, base_url={self.config.base_url!r})"

    def close(self) -> None:
        """Close the sync HTTP connection pool (async pools close with their event loop's clients)."""
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()

    def __enter__(self) -> "OpenAIChat":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def _where(self) -> str:
        return f"model {self.config.model!r} at {self.config.base_url}"

    def _default_retrying(self) -> "tenacity.Retrying":
        import tenacity

        return tenacity.Retrying(
            stop=tenacity.stop_after_attempt(self.config.max_retries + 1),
            wait=tenacity.wait_exponential_jitter(multiplier=self.config.backoff_s, max=8.0, jitter=self.config.backoff_s),
            retry=tenacity.retry_if_exception(_is_transient),
            before_sleep=_log_retry,
            reraise=True,
        )

    def _async_retrying(self) -> "tenacity.AsyncRetrying":
        import tenacity

        r = self._retrying
        return tenacity.AsyncRetrying(stop=r.stop, wait=r.wait, retry=r.retry, before=r.before, after=r.after,
                                      before_sleep=r.before_sleep, reraise=r.reraise,
                                      retry_error_callback=r.retry_error_callback)

    # -- clients (created lazily so that importing guardrail never imports openai) --------------
    def _client_kwargs(self) -> dict[str, Any]:
        return {"base_url": self.config.base_url, "api_key": self.config.api_key,
                "timeout": self.config.timeout_s, "max_retries": 0}

    def _sync_client(self) -> Any:
        with self._lock:
            if self._client is None:
                import openai

                self._client = openai.OpenAI(**self._client_kwargs())
            return self._client

    def _async_client(self) -> Any:
        # One AsyncOpenAI per event loop: an async connection pool must not cross loops.
        loop = asyncio.get_running_loop()
        with self._lock:
            client = self._aclients.get(loop)
            if client is None:
                import openai

                client = self._aclients[loop] = openai.AsyncOpenAI(**self._client_kwargs())
            return client

    # -- requests -------------------------------------------------------------------------------
    def _request(self, messages: Sequence[Message], kw: dict[str, Any]) -> dict[str, Any]:
        kw = dict(kw)
        schema = kw.pop("json_schema", None)
        req: dict[str, Any] = {"model": self.config.model, "messages": list(messages),
                               "temperature": self.config.temperature, "max_tokens": self.config.max_tokens}
        mode = self.config.response_format
        if schema is not None and mode != "none" and "response_format" not in kw:
            if mode == "json_object":
                req["response_format"] = {"type": "json_object"}
            elif mode == "llamacpp_schema":
                req["response_format"] = {"type": "json_object", "schema": schema}
            else:
                req["response_format"] = {"type": "json_schema",
                                          "json_schema": {"name": str(schema.get("title") or "reply"), "schema": schema}}
        req.update(kw)
        return req

    @staticmethod
    def _content(resp: Any) -> str:
        try:
            content = resp.choices[0].message.content
        except (AttributeError, IndexError, TypeError, KeyError) as exc:
            raw = resp if isinstance(resp, str) else repr(resp)
            raise _Malformed(f"reply is not a chat completion ({type(exc).__name__}: {exc})", raw[:2000]) from exc
        if not isinstance(content, str):
            raise _Malformed("reply has no text content", repr(resp)[:2000])
        return content

    @staticmethod
    def _contents(resp: Any) -> list[str]:
        try:
            choices = list(resp.choices)
        except (AttributeError, TypeError) as exc:
            raw = resp if isinstance(resp, str) else repr(resp)
            raise _Malformed(f"reply is not a chat completion ({type(exc).__name__}: {exc})", raw[:2000]) from exc
        out = [c.message.content for c in choices if isinstance(getattr(getattr(c, "message", None), "content", None), str)]
        if not out:
            raise _Malformed("reply has no choice with text content", repr(resp)[:2000])
        return out

    def chat(self, messages: list[Message], **kw: Any) -> str:
        request = self._request(messages, kw)
        return self._call(lambda client: client.chat.completions.create(**request), self._content)

    async def achat(self, messages: list[Message], **kw: Any) -> str:
        request = self._request(messages, kw)
        return await self._acall(lambda client: client.chat.completions.create(**request), self._content)

    def chat_choices(self, messages: list[Message], n: int, **kw: Any) -> list[str]:
        """Up to ``n`` sampled replies from one request (the ``n`` parameter of the chat API).

        Servers that ignore ``n`` (llama-cpp-python) return one choice; callers that need ``n``
        samples make further requests for the rest. Use ``temperature`` > 0, or every choice is the same.
        """
        if n < 1:
            raise ConfigError("n must be at least 1")
        request = self._request(messages, {**kw, "n": n})
        return self._call(lambda client: client.chat.completions.create(**request), self._contents)

    def complete(self, prompt: str, **kw: Any) -> "TextCompletion":
        """One request to the legacy ``/v1/completions`` endpoint, with its token log-probabilities.

        Keywords are those of ``openai.OpenAI().completions.create`` (``echo``, ``logprobs``,
        ``max_tokens``, ``seed``, ``stop`` ...); server-specific ones go in ``extra_body``
        (llama.cpp: ``{"grammar": ...}``). Temperature and max_tokens default to the config's.
        """
        request: dict[str, Any] = {"model": self.config.model, "prompt": prompt,
                                   "temperature": self.config.temperature, "max_tokens": self.config.max_tokens}
        request.update(kw)
        return self._call(lambda client: client.completions.create(**request), _text_completion)

    # -- one request under the retry policy, the deadline and the error mapping -----------------
    def _call(self, create: Callable[[Any], Any], parse: Callable[[Any], T]) -> T:
        client = self._sync_client()
        attempts = 0
        try:
            for attempt in self._retrying.copy():
                with attempt:
                    attempts = attempt.retry_state.attempt_number
                    # httpx bounds each read, not the whole request: a server that trickles bytes must not
                    # hold an inline guardrail forever (the abandoned thread ends at its next read timeout).
                    resp = call_with_deadline(lambda: create(client), self.config.timeout_s, "no complete reply",
                                              _DeadlineExceeded)
                    self._count(resp)
                    return parse(resp)
        except Exception as exc:
            cause = _unwrap(exc)
            if isinstance(cause, LLMError):
                raise cause
            raise self._error(cause, attempts) from cause
        raise LLMError(f"{self._where}: retry policy gave up without an attempt", attempts=attempts)  # pragma: no cover

    async def _acall(self, create: Callable[[Any], Any], parse: Callable[[Any], T]) -> T:
        client = self._async_client()
        attempts = 0
        try:
            async for attempt in self._async_retrying():
                with attempt:
                    attempts = attempt.retry_state.attempt_number
                    resp = await asyncio.wait_for(create(client), self.config.timeout_s)
                    self._count(resp)
                    return parse(resp)
        except Exception as exc:
            cause = _unwrap(exc)
            if isinstance(cause, LLMError):
                raise cause
            raise self._error(cause, attempts) from cause
        raise LLMError(f"{self._where}: retry policy gave up without an attempt", attempts=attempts)  # pragma: no cover

    def _error(self, exc: BaseException, attempts: int) -> LLMError:
        import openai

        tries = f"{attempts} attempt{'s' if attempts != 1 else ''}"
        if isinstance(exc, (TimeoutError, openai.APITimeoutError)):
            return LLMTimeout(f"{self._where}: no reply within {self.config.timeout_s:g} s ({tries})", attempts=attempts)
        if isinstance(exc, openai.APIStatusError):
            body = _safe_text(exc.response)
            return LLMResponseError(f"{self._where}: HTTP {exc.status_code} ({tries}): {exc.message}",
                                    attempts=attempts, last_output=body)
        if isinstance(exc, openai.APIConnectionError):
            return LLMError(f"{self._where}: cannot connect ({tries}): {exc}", attempts=attempts)
        if isinstance(exc, json.JSONDecodeError):
            return LLMResponseError(f"{self._where}: reply body is not JSON: {exc} ({tries})", attempts=attempts,
                                    last_output=exc.doc[:2000])
        if isinstance(exc, _Malformed):
            return LLMResponseError(f"{self._where}: {exc} ({tries})", attempts=attempts, last_output=exc.raw)
        return LLMResponseError(f"{self._where}: {type(exc).__name__}: {exc} ({tries})", attempts=attempts)


def _unwrap(exc: BaseException) -> BaseException:
    import tenacity

    if isinstance(exc, tenacity.RetryError) and exc.last_attempt.failed:
        inner = exc.last_attempt.exception()
        if inner is not None:
            return inner
    return exc


def _safe_text(response: Any) -> str | None:
    try:
        return str(response.text)[:2000]
    except Exception:  # the body may already be closed; the status line is still in the message
        return None


# ---------------------------------------------------------------------------------------------
# Legacy completions with log-probabilities
# ---------------------------------------------------------------------------------------------


class TokenLogprob(BaseModel):
    """One token of a completion and how likely the model found it."""

    model_config = ConfigDict(extra="forbid")

    token: str
    logprob: float | None = Field(description="Natural-log probability; None where the server gives none (the first echoed token).")
    top: dict[str, float] = Field(default_factory=dict, description="The most likely tokens at this position (may include this one).")
    offset: int | None = Field(default=None, description="Character offset of the token in the server's text, as reported.")


class TextCompletion(BaseModel):
    """A ``/v1/completions`` reply: its text and, when the server sent them, per-token log-probabilities."""

    model_config = ConfigDict(extra="forbid")

    text: str
    finish_reason: str | None = None
    logprobs: list[TokenLogprob] | None = Field(default=None, description="None when the reply carried no logprobs.")


def _text_completion(resp: Any) -> TextCompletion:
    try:
        choice = resp.choices[0]
        text = choice.text
    except (AttributeError, IndexError, TypeError, KeyError) as exc:
        raw = resp if isinstance(resp, str) else repr(resp)
        raise _Malformed(f"reply is not a text completion ({type(exc).__name__}: {exc})", raw[:2000]) from exc
    if not isinstance(text, str):
        raise _Malformed("reply has no text", repr(resp)[:2000])
    lp = getattr(choice, "logprobs", None)
    tokens = getattr(lp, "tokens", None) if lp is not None else None
    if not tokens:
        return TextCompletion(text=text, finish_reason=getattr(choice, "finish_reason", None))
    values = list(getattr(lp, "token_logprobs", None) or [])
    tops = list(getattr(lp, "top_logprobs", None) or [])
    offsets = list(getattr(lp, "text_offset", None) or [])
    if len(values) != len(tokens):
        raise _Malformed(f"logprobs list {len(tokens)} tokens but {len(values)} token_logprobs", repr(resp)[:2000])
    out = []
    try:
        for i, tok in enumerate(tokens):
            top = tops[i] if i < len(tops) else None
            out.append(TokenLogprob(token=tok, logprob=values[i],
                                    top={str(k): float(v) for k, v in (top or {}).items() if v is not None},
                                    offset=offsets[i] if i < len(offsets) else None))
    except (ValidationError, TypeError, ValueError) as exc:
        raise _Malformed(f"logprobs are malformed: {exc}", repr(resp)[:2000]) from exc
    return TextCompletion(text=text, finish_reason=getattr(choice, "finish_reason", None), logprobs=out)


# ---------------------------------------------------------------------------------------------
# LangChain adapter
# ---------------------------------------------------------------------------------------------


class LangChainChat:
    """``ChatModel`` over a langchain-core ``BaseChatModel``, so a chain's own model can be reused.

    Retries are the LangChain model's business; failures are mapped to ``LLMError`` types.
    """

    def __init__(self, chat_model: Any):
        from langchain_core.language_models import BaseChatModel

        if not isinstance(chat_model, BaseChatModel):
            raise TypeError(f"LangChainChat needs a langchain-core BaseChatModel, got {type(chat_model).__name__}")
        self.chat_model = chat_model

    def __repr__(self) -> str:
        return f"LangChainChat({type(self.chat_model).__name__})"

    @staticmethod
    def _convert(messages: Sequence[Message]) -> list[Any]:
        from langchain_core.messages import convert_to_messages

        return convert_to_messages([dict(m) for m in messages])

    @staticmethod
    def _text(msg: Any) -> str:
        content = getattr(msg, "content", msg)
        if isinstance(content, str):
            return content
        if isinstance(content, list):  # content blocks
            return "".join(b if isinstance(b, str) else str(b.get("text", "")) for b in content
                           if isinstance(b, str) or (isinstance(b, dict) and b.get("type") == "text"))
        raise LLMResponseError(f"LangChain model returned {type(msg).__name__}, not a message with text")

    def _error(self, exc: Exception) -> LLMError:
        name = type(self.chat_model).__name__
        if isinstance(exc, LLMError):
            return exc
        if isinstance(exc, TimeoutError):
            return LLMTimeout(f"LangChain model {name}: timed out: {exc}", attempts=1)
        return LLMResponseError(f"LangChain model {name}: {type(exc).__name__}: {exc}", attempts=1)

    def chat(self, messages: list[Message], **kw: Any) -> str:
        kw.pop("json_schema", None)
        try:
            return self._text(self.chat_model.invoke(self._convert(messages), **kw))
        except Exception as exc:
            raise self._error(exc) from exc

    async def achat(self, messages: list[Message], **kw: Any) -> str:
        kw.pop("json_schema", None)
        try:
            return self._text(await self.chat_model.ainvoke(self._convert(messages), **kw))
        except Exception as exc:
            raise self._error(exc) from exc


# ---------------------------------------------------------------------------------------------
# JSON replies
# ---------------------------------------------------------------------------------------------

_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n?(.*?)```", re.S)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


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


def _parse(text: str, schema: type[M]) -> M:
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


def _short_validation_error(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        loc = ".".join(str(p) for p in err["loc"]) or "$"
        parts.append(f"{loc}: {err['msg']}")
    return "JSON does not match the schema: " + "; ".join(parts)


def _repair_message(error: str) -> Message:
    return {"role": "user", "content": (
        f"Your previous reply could not be used: {error[:800]}\n"
        "Reply again with only the JSON, exactly in the format asked for, and nothing else.")}


def chat_json(model: ChatModel, messages: Sequence[Message], schema: type[M], *, repair_attempts: int = 1,
              **kw: Any) -> M:
    """Ask ``model`` and validate its reply as ``schema``; on a bad reply, ask again with the error.

    Raises ``LLMResponseError`` (with ``last_output``) when no reply validates after
    ``repair_attempts`` extra turns; endpoint failures propagate as the model raised them.
    """
    if repair_attempts < 0:
        raise ConfigError("repair_attempts must be >= 0")
    convo = list(messages)
    hint = schema.model_json_schema()
    for turn in range(repair_attempts + 1):
        text = model.chat(convo, json_schema=hint, **kw)
        try:
            return _parse(text, schema)
        except ValueError as exc:
            error = str(exc)
            convo = [*convo, {"role": "assistant", "content": text}, _repair_message(error)]
    raise LLMResponseError(f"reply is not valid {schema.__name__} JSON after {turn + 1} attempt(s): {error}",
                           attempts=turn + 1, last_output=text)


async def achat_json(model: ChatModel, messages: Sequence[Message], schema: type[M], *, repair_attempts: int = 1,
                     **kw: Any) -> M:
    """Async twin of ``chat_json``."""
    if repair_attempts < 0:
        raise ConfigError("repair_attempts must be >= 0")
    convo = list(messages)
    hint = schema.model_json_schema()
    for turn in range(repair_attempts + 1):
        text = await model.achat(convo, json_schema=hint, **kw)
        try:
            return _parse(text, schema)
        except ValueError as exc:
            error = str(exc)
            convo = [*convo, {"role": "assistant", "content": text}, _repair_message(error)]
    raise LLMResponseError(f"reply is not valid {schema.__name__} JSON after {turn + 1} attempt(s): {error}",
                           attempts=turn + 1, last_output=text)


# ---------------------------------------------------------------------------------------------
# Mapping quoted text back to offsets
# ---------------------------------------------------------------------------------------------

_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-"})


def _normalise(text: str) -> tuple[str, list[int]]:
    """Lower-cased, whitespace-collapsed text and, per kept character, its offset in ``text``."""
    chars: list[str] = []
    index: list[int] = []
    for i, ch in enumerate(text):
        if ch.isspace():
            if chars and chars[-1] != " ":
                chars.append(" ")
                index.append(i)
            continue
        low = ch.lower().translate(_QUOTES)
        chars.append(low if len(low) == 1 else ch)
        index.append(i)
    if chars and chars[-1] == " ":
        chars.pop()
        index.pop()
    return "".join(chars), index


def locate_quote(text: str, quote: str, *, min_ratio: float = 0.8) -> tuple[int, int] | None:
    """Where an LLM's quotation of ``text`` sits in it, as ``(start, end)`` offsets, or ``None``.

    LLMs re-type what they quote (case, spacing, curly quotes, a changed word), so an exact find
    is tried first, then a case/whitespace-insensitive one, then the best fuzzy window
    (``difflib`` ratio at least ``min_ratio``), snapped outward to whole words.
    """
    q = quote.strip()
    if not q or not text:
        return None
    i = text.find(q)
    if i >= 0:
        return i, i + len(q)
    nt, index = _normalise(text)
    nq, _ = _normalise(q)
    if not nq or not nt:
        return None
    j = nt.find(nq)
    if j >= 0:
        return index[j], index[j + len(nq) - 1] + 1
    best = _fuzzy_window(nt, nq, min_ratio)
    if best is None:
        return None
    s, e = index[best[0]], index[best[1] - 1] + 1
    while s > 0 and text[s - 1].isalnum() and text[s].isalnum():
        s -= 1
    while e < len(text) and text[e - 1].isalnum() and text[e].isalnum():
        e += 1
    return s, e


def _fuzzy_window(text: str, quote: str, min_ratio: float) -> tuple[int, int] | None:
    sm = difflib.SequenceMatcher(None, autojunk=False)
    sm.set_seq2(quote)

    def ratio(s: int, e: int) -> float:
        sm.set_seq1(text[s:e])
        return sm.ratio()

    n, L = len(text), len(quote)
    anchor = difflib.SequenceMatcher(None, text, quote, autojunk=False)
    starts = {max(0, min(n - 1, a - b)) for a, b, size in anchor.get_matching_blocks() if size >= 3}
    if not starts:
        return None
    best = max(((ratio(s, min(n, s + L)), s) for s in starts))
    score, s = best
    e = min(n, s + L)
    slack = max(3, L // 5)
    for _ in range(2):  # refine the end, then the start, around the best alignment
        score, e = max((ratio(s, ee), ee) for ee in range(max(s + 1, e - slack), min(n, e + slack) + 1))
        score, s = max((ratio(ss, e), -ss) for ss in range(max(0, s - slack), min(e - 1, s + slack) + 1))
        s = -s
    if score < min_ratio:
        return None
    return s, e
