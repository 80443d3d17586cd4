"""Any chat model the caller hands over, made one the pipeline can bound: ``as_chat_model``.

Regeneration needs every call to fit its policy's budget (a deadline, so many retries). ``OpenAIChat``
takes a ``CallBudget`` itself; ``as_chat_model`` gives any other model the same through ``BoundedChat``,
which runs its calls with the client's ``budget.Attempts``, so retries and deadlines still live in one
place whatever the model:

- ``OpenAIChat``: used as it is;
- anything with ``chat`` / ``achat`` (a ``ChatModel``: ``guardrail_langchain.LangChainChat``,
  ``guardrail_llamaindex.LlamaIndexChat``, ``EvidenceRewriter``, a user's class): in a ``BoundedChat``;
- anything with ``invoke`` / ``ainvoke`` answering a message with ``.content`` (a LangChain chat model
  passed as it is): through ``InvokeChat``, then in a ``BoundedChat``.

Why duck typing rather than the LangChain adapter: the core must not import langchain, nor the
integration that does (``guardrail_langchain`` imports the core; the core importing it back would run
up the floors). A LangChain chat model takes OpenAI-style message dicts in ``invoke`` and answers with
a message whose ``content`` is text or content blocks, which is all ``InvokeChat`` relies on;
``guardrail_langchain.LangChainChat`` builds on it with LangChain's message conversion, a type check
and an invocation's tracing config. A registration hook (the integration registering its adapter on
import) was the other way; it would make what ``as_chat_model`` returns depend on what happened to be
imported first.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from ..errors import ConfigError, LLMError, LLMResponseError, LLMTimeout
from .budget import Attempts, CallBudget, retry_policy
from .client import Message, OpenAIChat

__all__ = ["as_chat_model", "BoundedChat", "InvokeChat", "content_text"]

#: A foreign model's retries are its own business unless the caller's budget asks for some.
_FOREIGN_RETRIES = 0
_FOREIGN_BACKOFF_S = 0.5


def as_chat_model(llm: Any) -> OpenAIChat | BoundedChat:
    """``llm`` as a chat model whose calls take ``budget=`` (see the module docstring for what is accepted)."""
    if isinstance(llm, (OpenAIChat, BoundedChat)):
        return llm
    if callable(getattr(llm, "chat", None)) or callable(getattr(llm, "achat", None)):
        return BoundedChat(llm)
    if callable(getattr(llm, "invoke", None)):
        return BoundedChat(InvokeChat(llm))
    raise ConfigError("llm must have chat(messages) (a guardrail.llm.ChatModel) or invoke(messages) "
                      f"(a LangChain chat model), got {type(llm).__name__}", field="llm")


# --------------------------------------------------------------------------- any model, under a budget


def _transient(exc: BaseException) -> bool:
    """A failure worth another try: a timeout or a connection that could not be made (``LLMError``
    itself says so; ``LLMResponseError``, a reply that came and was unusable, does not)."""
    if isinstance(exc, (TimeoutError, ConnectionError)):
        return True
    return isinstance(exc, LLMError) and not isinstance(exc, LLMResponseError)


def _takes(fn: Callable[..., Any], keyword: str) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.kind is p.VAR_KEYWORD or p.name == keyword for p in params)


class BoundedChat:
    """A chat model that is not our client, its calls bounded like the client's.

    With ``budget=`` a call gets the budget's deadline (a blocking model runs in a thread abandoned on
    overrun) and its transient failures (timeouts, connection errors, plain ``LLMError``) are retried
    as the budget says; without one a call is made once, as the model makes it. Either way a failure
    leaves as an ``LLMError`` type and a reply that is not text as ``LLMResponseError``.
    """

    def __init__(self, model: Any):
        self.model = model
        chat, achat = getattr(model, "chat", None), getattr(model, "achat", None)
        self._chat = chat if callable(chat) else None
        self._achat = achat if callable(achat) else None
        self._policy = retry_policy(_FOREIGN_RETRIES, _FOREIGN_BACKOFF_S, _transient)

    def __repr__(self) -> str:
        return f"BoundedChat({self.model!r})"

    def _name(self) -> str:
        return type(self.model).__name__

    def _kw(self, fn: Callable[..., Any], json_schema: dict[str, Any] | None, kw: dict[str, Any]) -> dict[str, Any]:
        # The schema hint goes only to a model that takes it (a ChatModel must, a user's class may not).
        return {**kw, "json_schema": json_schema} if json_schema is not None and _takes(fn, "json_schema") else kw

    def _error(self, exc: BaseException, attempts: int) -> LLMError:
        tries = f"{attempts} attempt{'s' if attempts != 1 else ''}"
        if isinstance(exc, TimeoutError):
            return LLMTimeout(f"{self._name()}: {str(exc) or 'timed out'} ({tries})", attempts=attempts)
        return LLMError(f"{self._name()}: {type(exc).__name__}: {exc} ({tries})", attempts=attempts)

    def _text(self, reply: Any, method: str) -> str:
        if not isinstance(reply, str):
            raise LLMResponseError(f"{self._name()}.{method}() returned {type(reply).__name__}, not text")
        return reply

    def chat(self, messages: list[Message], *, budget: CallBudget | None = None,
             json_schema: dict[str, Any] | None = None, **kw: Any) -> str:
        chat = self._chat
        if chat is None:
            raise ConfigError(f"{self._name()} has only achat(): call it from async code (aguard, aregenerate)",
                              field="llm")
        args = self._kw(chat, json_schema, kw)
        attempts = Attempts(self._policy, None, budget, self._error)
        return attempts.run(lambda timeout: self._text(chat(messages, **args), "chat"))

    async def achat(self, messages: list[Message], *, budget: CallBudget | None = None,
                    json_schema: dict[str, Any] | None = None, **kw: Any) -> str:
        achat, chat = self._achat, self._chat
        if achat is None:  # a blocking model: in a worker thread, so the event loop stays free
            assert chat is not None  # as_chat_model wraps only models with one of the two
            args = self._kw(chat, json_schema, kw)

            def call() -> Awaitable[Any]:
                return asyncio.to_thread(chat, messages, **args)
        else:
            args = self._kw(achat, json_schema, kw)

            def call() -> Awaitable[Any]:
                return achat(messages, **args)

        async def attempt(timeout: float | None) -> str:
            return self._text(await call(), "achat")

        return await Attempts(self._policy, None, budget, self._error).arun(attempt)


# --------------------------------------------------------------------------- invoke / ainvoke models


def content_text(content: Any) -> str | None:
    """The text of a message's ``content``: a string, or the text blocks of a list of content blocks
    (what LangChain messages carry); None when it holds no text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b if isinstance(b, str) else str(b.get("text", "")) for b in content
                       if isinstance(b, str) or (isinstance(b, dict) and b.get("type") == "text"))
    return None


class InvokeChat:
    """``ChatModel`` over an object with ``invoke`` / ``ainvoke`` that answers with a message (``.content``):
    a LangChain chat model, without importing LangChain.

    ``invoke_kw`` go with every call (LangChain: ``config=``, so the calls join a run's trace). Retries
    are the model's business; a timeout becomes ``LLMTimeout``, anything else ``LLMResponseError``.
    """

    def __init__(self, model: Any, **invoke_kw: Any):
        self.model = model
        self.invoke_kw = invoke_kw

    def __repr__(self) -> str:
        return f"{type(self).__name__}({type(self.model).__name__})"

    def convert(self, messages: Sequence[Message]) -> Any:
        """The model's input for ``messages`` (OpenAI-style dicts, which LangChain models accept)."""
        return [dict(m) for m in messages]

    def reply_text(self, reply: Any) -> str:
        text = content_text(getattr(reply, "content", reply))
        if text is None:
            raise LLMResponseError(f"{type(self.model).__name__} returned {type(reply).__name__}, not a message with text")
        return text

    def _error(self, exc: Exception) -> LLMError:
        name = type(self.model).__name__
        if isinstance(exc, TimeoutError):
            return LLMTimeout(f"{name}: timed out: {exc}", attempts=1)
        return LLMResponseError(f"{name}: {type(exc).__name__}: {exc}", attempts=1)

    def chat(self, messages: list[Message], **kw: Any) -> str:
        kw.pop("json_schema", None)
        try:
            return self.reply_text(self.model.invoke(self.convert(messages), **self.invoke_kw, **kw))
        except LLMError:
            raise
        except Exception as exc:
            raise self._error(exc) from exc

    async def achat(self, messages: list[Message], **kw: Any) -> str:
        kw.pop("json_schema", None)
        ainvoke = getattr(self.model, "ainvoke", None)
        if not callable(ainvoke):
            return await asyncio.to_thread(self.chat, messages, **kw)
        try:
            return self.reply_text(await ainvoke(self.convert(messages), **self.invoke_kw, **kw))
        except LLMError:
            raise
        except Exception as exc:
            raise self._error(exc) from exc
