"""The LLM layer, at the edge of the pipeline: one module per concern.

- ``client``: ``OpenAIChat`` for any OpenAI-compatible server, its ``LLMConfig`` and ``LLMUsage``, and
  ``ChatModel``, the protocol every chat model meets (``chat`` / ``achat``);
- ``budget``: ``CallBudget`` and the attempts of one call, the one place retries and deadlines live;
- ``adapters``: ``as_chat_model``, any chat model (a ``ChatModel``, a LangChain model by duck typing)
  bounded like the client, for regeneration;
- ``json``: JSON out of reply text, ``chat_json`` and the one repair turn for an unusable reply;
- ``quotes``: ``locate_quote``, a model's quotation mapped back to offsets.

Importing it imports neither ``openai`` nor ``tenacity`` (the client loads them on first use), and never
langchain: the LangChain adapter is ``guardrail_langchain.LangChainChat``.
"""

from .adapters import BoundedChat, InvokeChat, as_chat_model, content_text
from .budget import CallBudget
from .client import ChatModel, LLMConfig, LLMUsage, Message, OpenAIChat, TextCompletion, TokenLogprob
from .json import achat_json, achat_parsed, chat_json, chat_parsed, extract_json
from .quotes import locate_quote

__all__ = [
    "LLMConfig",
    "LLMUsage",
    "CallBudget",
    "ChatModel",
    "Message",
    "OpenAIChat",
    "BoundedChat",
    "InvokeChat",
    "as_chat_model",
    "content_text",
    "TextCompletion",
    "TokenLogprob",
    "chat_json",
    "achat_json",
    "chat_parsed",
    "achat_parsed",
    "extract_json",
    "locate_quote",
]
