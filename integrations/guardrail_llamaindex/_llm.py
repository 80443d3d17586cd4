"""A LlamaIndex LLM as a ``guardrail.llm.ChatModel``, so regeneration can use the app's own model."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from guardrail.errors import LLMError, LLMResponseError, LLMTimeout

__all__ = ["LlamaIndexChat"]


class LlamaIndexChat:
    """``chat`` / ``achat`` over a LlamaIndex ``LLM``; failures become ``LLMError`` types.

    Retries are the LLM's business; regeneration bounds its calls with the policy's per-call budget
    through ``guardrail.llm.as_chat_model`` (a deadline, and retries of timeouts only).
    """

    def __init__(self, llm: Any):
        from llama_index.core.llms import LLM

        if not isinstance(llm, LLM):
            raise TypeError(f"LlamaIndexChat needs a llama-index LLM, got {type(llm).__name__}")
        self.llm = llm

    def __repr__(self) -> str:
        return f"LlamaIndexChat({type(self.llm).__name__})"

    @staticmethod
    def _messages(messages: Sequence[dict[str, Any]]) -> list[Any]:
        from llama_index.core.llms import ChatMessage

        return [ChatMessage(role=m["role"], content=m["content"]) for m in messages]

    def _error(self, exc: Exception) -> LLMError:
        name = type(self.llm).__name__
        if isinstance(exc, LLMError):
            return exc
        if isinstance(exc, TimeoutError):
            return LLMTimeout(f"LlamaIndex LLM {name}: timed out: {exc}", attempts=1)
        return LLMResponseError(f"LlamaIndex LLM {name}: {type(exc).__name__}: {exc}", attempts=1)

    @staticmethod
    def _text(resp: Any) -> str:
        content = resp.message.content
        if not isinstance(content, str):
            raise LLMResponseError("LlamaIndex LLM replied without text")
        return content

    def chat(self, messages: list[dict[str, Any]], **kw: Any) -> str:
        kw.pop("json_schema", None)
        try:
            return self._text(self.llm.chat(self._messages(messages), **kw))
        except Exception as exc:
            raise self._error(exc) from exc

    async def achat(self, messages: list[dict[str, Any]], **kw: Any) -> str:
        kw.pop("json_schema", None)
        try:
            return self._text(await self.llm.achat(self._messages(messages), **kw))
        except Exception as exc:
            raise self._error(exc) from exc
