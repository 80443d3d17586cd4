"""The OpenAI-compatible client: ``OpenAIChat``, its settings (``LLMConfig``) and what it spent (``LLMUsage``).

Why our own thin layer over ``openai``: the guardrail sits inline, so an LLM call needs a hard
deadline, retries on transient failures only (a 400 or a wrong answer is not fixed by asking
again the same way), and one error type the pipeline can turn into an ``unevaluatable`` verdict.
Every backend failure ends as ``LLMTimeout`` / ``LLMResponseError`` (or plain ``LLMError`` when the
endpoint cannot be reached), raised ``from`` the original exception with the attempt count and the
last output, so nothing is swallowed and nothing is lost. The retries and deadlines themselves are
``budget.Attempts``'s; a caller that must bound one call tighter passes a ``CallBudget``.

``ChatModel`` is the seam: ``OpenAIChat`` (any OpenAI-compatible server: OpenAI, vLLM, llama.cpp,
Ollama...), the integrations' adapters (``guardrail_langchain.LangChainChat``,
``guardrail_llamaindex.LlamaIndexChat``) or anything with ``chat``/``achat``.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import ConfigError, LLMError, LLMResponseError, LLMTimeout
from .budget import Attempts, CallBudget, DeadlineExceeded, retry_policy

if TYPE_CHECKING:  # pragma: no cover
    import tenacity

__all__ = ["LLMConfig", "LLMUsage", "ChatModel", "Message", "OpenAIChat", "TextCompletion", "TokenLogprob"]

Message = dict[str, Any]
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

    def minus(self, earlier: LLMUsage) -> LLMUsage:
        """What was spent since ``earlier`` (a snapshot of the same counter)."""
        return LLMUsage(calls=self.calls - earlier.calls, prompt_tokens=self.prompt_tokens - earlier.prompt_tokens,
                        completion_tokens=self.completion_tokens - earlier.completion_tokens)


@runtime_checkable
class ChatModel(Protocol):
    """Anything that turns chat messages into the assistant's reply text.

    Implementations must accept (and may ignore) the keyword ``json_schema``: a JSON Schema the
    reply should match, which a server able to constrain decoding can enforce. Only ``OpenAIChat``
    takes ``budget=`` itself; ``guardrail.llm.as_chat_model`` gives any other model the same limits.
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


def _is_transient(exc: BaseException) -> bool:
    import openai

    if isinstance(exc, (TimeoutError, openai.APITimeoutError, openai.APIConnectionError, openai.RateLimitError)):
        return True
    return isinstance(exc, openai.APIStatusError) and (exc.status_code >= 500 or exc.status_code == 408)


class OpenAIChat:
    """``ChatModel`` over the ``openai`` package, for any OpenAI-compatible server.

    The ``openai`` package's own retries are off: ours (tenacity, or the ``retrying`` you pass) retry
    transient failures only, and each attempt runs under a hard deadline of ``timeout_s`` even if the
    server keeps trickling bytes. Every request method takes ``budget=`` (a ``CallBudget``): the limits
    of that one call, for a caller that must fit it into its own deadline. Safe to share between
    threads and event loops: it keeps no per-call state.
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
        self._retrying = retrying if retrying is not None else retry_policy(config.max_retries, config.backoff_s, _is_transient)
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

    def __enter__(self) -> OpenAIChat:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def _where(self) -> str:
        return f"model {self.config.model!r} at {self.config.base_url}"

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

    def chat(self, messages: list[Message], *, budget: CallBudget | None = None, **kw: Any) -> str:
        request = self._request(messages, kw)
        return self._call(lambda client, timeout: client.chat.completions.create(**_timed(request, timeout)),
                          self._content, budget)

    async def achat(self, messages: list[Message], *, budget: CallBudget | None = None, **kw: Any) -> str:
        request = self._request(messages, kw)
        return await self._acall(lambda client, timeout: client.chat.completions.create(**_timed(request, timeout)),
                                 self._content, budget)

    def chat_choices(self, messages: list[Message], n: int, *, budget: CallBudget | None = None, **kw: Any) -> list[str]:
        """Up to ``n`` sampled replies from one request (the ``n`` parameter of the chat API).

        Servers that ignore ``n`` (llama-cpp-python) return one choice; callers that need ``n``
        samples make further requests for the rest. Use ``temperature`` > 0, or every choice is the same.
        """
        if n < 1:
            raise ConfigError("n must be at least 1")
        request = self._request(messages, {**kw, "n": n})
        return self._call(lambda client, timeout: client.chat.completions.create(**_timed(request, timeout)),
                          self._contents, budget)

    def complete(self, prompt: str, *, budget: CallBudget | None = None, **kw: Any) -> TextCompletion:
        """One request to the legacy ``/v1/completions`` endpoint, with its token log-probabilities.

        Keywords are those of ``openai.OpenAI().completions.create`` (``echo``, ``logprobs``,
        ``max_tokens``, ``seed``, ``stop`` ...); server-specific ones go in ``extra_body``
        (llama.cpp: ``{"grammar": ...}``). Temperature and max_tokens default to the config's.
        """
        request: dict[str, Any] = {"model": self.config.model, "prompt": prompt,
                                   "temperature": self.config.temperature, "max_tokens": self.config.max_tokens}
        request.update(kw)
        return self._call(lambda client, timeout: client.completions.create(**_timed(request, timeout)),
                          _text_completion, budget)

    # -- one request under the retry policy, the deadlines and the error mapping ----------------
    def _attempts(self, budget: CallBudget | None) -> Attempts:
        # A reply the request's own timer gave up on is reported at the limit that applied: the call's budget when
        # it is the tighter one (a loaded machine lets the client's timer fire before the budget's deadline).
        limits = [t for t in (self.config.timeout_s, budget.timeout_s if budget is not None else None) if t is not None]
        limit = min(limits) if limits else None
        return Attempts(self._retrying, self.config.timeout_s, budget,
                        lambda exc, attempts: self._error(exc, attempts, limit))

    def _call(self, create: Callable[[Any, float | None], Any], parse: Callable[[Any], T], budget: CallBudget | None) -> T:
        client = self._sync_client()

        def attempt(timeout: float | None) -> T:
            resp = create(client, timeout)
            self._count(resp)
            return parse(resp)

        return self._attempts(budget).run(attempt)

    async def _acall(self, create: Callable[[Any, float | None], Any], parse: Callable[[Any], T],
                     budget: CallBudget | None) -> T:
        client = self._async_client()

        async def attempt(timeout: float | None) -> T:
            resp = await create(client, timeout)
            self._count(resp)
            return parse(resp)

        return await self._attempts(budget).arun(attempt)

    def _error(self, exc: BaseException, attempts: int, limit: float | None = None) -> LLMError:
        import openai

        tries = f"{attempts} attempt{'s' if attempts != 1 else ''}"
        if isinstance(exc, DeadlineExceeded):
            return LLMTimeout(f"{self._where}: {exc} ({tries})", attempts=attempts)
        if isinstance(exc, (TimeoutError, openai.APITimeoutError)):
            within = limit if limit is not None else self.config.timeout_s
            return LLMTimeout(f"{self._where}: no reply within {within:g} s ({tries})", attempts=attempts)
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


def _timed(request: dict[str, Any], timeout: float | None) -> dict[str, Any]:
    """``request`` with the attempt's deadline as the ``openai`` per-request timeout (unless the caller
    set one), so an abandoned attempt's connection is also given up by the HTTP layer."""
    return request if timeout is None or "timeout" in request else {**request, "timeout": timeout}


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
