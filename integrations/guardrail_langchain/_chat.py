"""``LangChainChat``: a LangChain chat model as a ``guardrail.llm.ChatModel``, so regeneration (or a judge)
can use the app's own model.

It lives here, not in the core, so that the core never imports langchain. The core still accepts a
LangChain chat model passed as it is (``guardrail.llm.as_chat_model`` wraps anything with ``invoke`` in
``InvokeChat``, by duck typing); this class is that adapter made exact: the model is checked to be a
``BaseChatModel``, messages go through LangChain's own conversion (a bad role fails here, not in the
provider), and ``config`` makes every call a child of one invocation's run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import convert_to_messages
from langchain_core.runnables import RunnableConfig

from guardrail.errors import ConfigError
from guardrail.llm import InvokeChat, Message

__all__ = ["LangChainChat"]


class LangChainChat(InvokeChat):
    """``chat`` / ``achat`` over a langchain-core ``BaseChatModel``; failures become ``LLMError`` types.

    Retries are the LangChain model's business (its ``max_retries``); regeneration bounds the calls
    with its policy's budget through ``guardrail.llm.as_chat_model``. ``config``: the ``RunnableConfig``
    each call runs under. The regeneration loop may call the model from a worker thread, where
    LangChain's context variable (the parent run) is not set; passing the config explicitly keeps the
    rewrite calls in the invocation's trace and callbacks.
    """

    def __init__(self, chat_model: Any, config: RunnableConfig | None = None):
        if not isinstance(chat_model, BaseChatModel):
            raise ConfigError(f"LangChainChat needs a langchain-core BaseChatModel, got {type(chat_model).__name__}",
                              field="chat_model")
        super().__init__(chat_model, **({"config": config} if config is not None else {}))

    @property
    def chat_model(self) -> BaseChatModel:
        return self.model

    def convert(self, messages: Sequence[Message]) -> list[Any]:
        return convert_to_messages([dict(m) for m in messages])
