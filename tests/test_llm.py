"""The OpenAI-compatible client, JSON replies and quote location, against a real local HTTP stub."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from types import SimpleNamespace
from typing import Any

import pytest
import tenacity
from openai_stub import Reply, ScriptedOpenAI, free_port, openai_stub  # noqa: F401  (fixture)
from pydantic import BaseModel, ValidationError

from guardrail.errors import ConfigError, LLMError, LLMResponseError, LLMTimeout
from guardrail.llm import (
    BoundedChat,
    CallBudget,
    ChatModel,
    InvokeChat,
    LLMConfig,
    OpenAIChat,
    achat_json,
    as_chat_model,
    chat_json,
    chat_parsed,
    content_text,
    extract_json,
    locate_quote,
)

USER = [{"role": "user", "content": "hi"}]


def client(stub: ScriptedOpenAI, **kw: Any) -> OpenAIChat:
    kw.setdefault("backoff_s", 0.0)
    return OpenAIChat(base_url=stub.base_url, model="test-model", **kw)


class Verdict(BaseModel):
    label: str
    confidence: float


# -- config -----------------------------------------------------------------------------------


def test_config_reads_api_key_from_env_and_forbids_unknown_fields(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    assert LLMConfig(base_url="http://x/v1", model="m").api_key == "sk-from-env"
    monkeypatch.delenv("OPENAI_API_KEY")
    cfg = LLMConfig(base_url="http://x/v1", model="m")
    assert cfg.api_key == "not-needed" and cfg.timeout_s == 30 and cfg.max_retries == 2
    assert "not-needed" not in repr(cfg)
    with pytest.raises(ValidationError):
        LLMConfig(base_url="http://x/v1", model="m", timout_s=3)
    with pytest.raises(TypeError):
        OpenAIChat(base_url="http://x/v1")


def test_importing_the_module_does_not_import_openai():
    code = "import guardrail.llm, sys; assert 'openai' not in sys.modules and 'langchain_core' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_core_never_imports_langchain():
    # The LangChain adapter lives in guardrail_langchain; the core (regeneration included) knows a
    # LangChain model only by duck typing.
    code = ("import sys, guardrail, guardrail.llm, guardrail.policy, guardrail.pipeline, guardrail.streaming; "
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('langchain_core', 'langchain', 'guardrail_langchain')); "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_clients_satisfy_the_protocol(openai_stub):
    assert isinstance(client(openai_stub), ChatModel)


# -- plain chat -------------------------------------------------------------------------------


def test_chat_sends_config_and_returns_content(openai_stub):
    openai_stub.add("hello there")
    llm = OpenAIChat(LLMConfig(base_url=openai_stub.base_url, model="m1", api_key="sk-1", temperature=0.0, max_tokens=77))
    assert llm.chat(USER) == "hello there"
    (req,) = openai_stub.requests
    assert req["json"]["model"] == "m1"
    assert req["json"]["messages"] == USER
    assert req["json"]["max_tokens"] == 77 and req["json"]["temperature"] == 0.0
    assert req["headers"]["authorization"] == "Bearer sk-1"


def test_chat_kwargs_override_the_request(openai_stub):
    openai_stub.add("x")
    client(openai_stub).chat(USER, max_tokens=5, stop=["\n"])
    assert openai_stub.requests[0]["json"]["max_tokens"] == 5
    assert openai_stub.requests[0]["json"]["stop"] == ["\n"]


@pytest.mark.parametrize("status", [500, 503, 429])
def test_transient_status_is_retried(openai_stub, status):
    openai_stub.add(Reply(status=status), "recovered")
    assert client(openai_stub).chat(USER) == "recovered"
    assert len(openai_stub.requests) == 2


def test_500_after_all_retries_is_a_response_error_with_attempts(openai_stub):
    import openai

    openai_stub.add(*[Reply(status=500, content="backend down")] * 3)
    with pytest.raises(LLMResponseError) as info:
        client(openai_stub, max_retries=2).chat(USER)
    assert info.value.attempts == 3 and len(openai_stub.requests) == 3
    assert "HTTP 500" in str(info.value) and "backend down" in (info.value.last_output or "")
    assert isinstance(info.value.__cause__, openai.InternalServerError)


@pytest.mark.parametrize("status", [400, 401, 404])
def test_client_errors_are_not_retried(openai_stub, status):
    openai_stub.add(Reply(status=status), "never served")
    with pytest.raises(LLMResponseError) as info:
        client(openai_stub).chat(USER)
    assert info.value.attempts == 1 and len(openai_stub.requests) == 1 and openai_stub.pending == 1


def test_timeout_is_retried_then_raised_as_llm_timeout(openai_stub):
    openai_stub.add(Reply(delay=2.0), Reply(delay=2.0))
    t0 = time.monotonic()
    with pytest.raises(LLMTimeout) as info:
        client(openai_stub, timeout_s=0.3, max_retries=1).chat(USER)
    assert info.value.attempts == 2 and len(openai_stub.requests) == 2
    assert time.monotonic() - t0 < 1.8


def test_timeout_then_success(openai_stub):
    openai_stub.add(Reply(delay=2.0), "second time lucky")
    assert client(openai_stub, timeout_s=0.3).chat(USER) == "second time lucky"


def test_hard_deadline_holds_against_a_trickling_server(openai_stub):
    # One byte every 0.1 s: no single read ever times out, only the per-request deadline can fire.
    openai_stub.add(Reply(content="slow", drip=0.1))
    t0 = time.monotonic()
    with pytest.raises(LLMTimeout):
        client(openai_stub, timeout_s=0.5, max_retries=0).chat(USER)
    assert time.monotonic() - t0 < 1.5


def test_malformed_body_is_a_response_error_with_the_body_and_no_retry(openai_stub):
    openai_stub.add(Reply(body="{this is not json"), "unused")
    with pytest.raises(LLMResponseError) as info:
        client(openai_stub).chat(USER)
    assert info.value.last_output == "{this is not json" and info.value.attempts == 1
    assert len(openai_stub.requests) == 1


def test_json_without_choices_is_a_response_error(openai_stub):
    openai_stub.add(Reply(body='{"object": "chat.completion"}'))
    with pytest.raises(LLMResponseError, match="not a chat completion"):
        client(openai_stub).chat(USER)


def test_null_content_is_a_response_error(openai_stub):
    openai_stub.add(Reply(content=None))
    with pytest.raises(LLMResponseError, match="no text content"):
        client(openai_stub).chat(USER)


def test_unreachable_endpoint_is_an_llm_error_after_retries():
    llm = OpenAIChat(base_url=f"http://127.0.0.1:{free_port()}/v1", model="m", backoff_s=0.0, max_retries=1)
    with pytest.raises(LLMError) as info:
        llm.chat(USER)
    assert info.value.attempts == 2 and "cannot connect" in str(info.value)
    assert not isinstance(info.value, (LLMTimeout, LLMResponseError))


def test_caller_retry_policy_replaces_the_default(openai_stub):
    openai_stub.add(Reply(status=500), "would have recovered")
    once = tenacity.Retrying(stop=tenacity.stop_after_attempt(1), reraise=True)
    with pytest.raises(LLMResponseError) as info:
        client(openai_stub, retrying=once).chat(USER)
    assert info.value.attempts == 1 and openai_stub.pending == 1


def test_caller_retry_policy_without_reraise_is_unwrapped(openai_stub):
    openai_stub.add(Reply(status=502), Reply(status=502))
    policy = tenacity.Retrying(stop=tenacity.stop_after_attempt(2))
    with pytest.raises(LLMResponseError, match="HTTP 502") as info:
        client(openai_stub, retrying=policy).chat(USER)
    assert info.value.attempts == 2


# -- per-call budget --------------------------------------------------------------------------------


def test_budget_retries_replace_the_clients_for_that_call(openai_stub):
    openai_stub.add(Reply(status=500), Reply(status=500), "third time")
    llm = client(openai_stub, max_retries=0)
    assert llm.chat(USER, budget=CallBudget(max_retries=2)) == "third time"
    assert len(openai_stub.requests) == 3
    openai_stub.add(Reply(status=500), "unused")
    with pytest.raises(LLMResponseError) as info:
        client(openai_stub, max_retries=5).chat(USER, budget=CallBudget(max_retries=0))
    assert info.value.attempts == 1 and openai_stub.pending == 1


def test_budget_timeout_bounds_the_whole_call_not_each_attempt(openai_stub):
    openai_stub.add(*[Reply(delay=2.0)] * 4)
    t0 = time.monotonic()
    with pytest.raises(LLMTimeout) as info:
        client(openai_stub, timeout_s=30, max_retries=3).chat(USER, budget=CallBudget(timeout_s=0.4))
    # Well under one 2 s reply (let alone four), with room for a loaded CI machine.
    assert time.monotonic() - t0 < 1.9
    assert info.value.attempts == 1 and len(openai_stub.requests) == 1 and "0.4 s" in str(info.value)


async def test_budget_timeout_bounds_achat(openai_stub):
    openai_stub.add(*[Reply(delay=2.0)] * 4)
    t0 = time.monotonic()
    with pytest.raises(LLMTimeout):
        await client(openai_stub, timeout_s=30, max_retries=3).achat(USER, budget=CallBudget(timeout_s=0.4))
    assert time.monotonic() - t0 < 1.9 and len(openai_stub.requests) == 1


def test_budget_after_spends_time_and_runs_out():
    b = CallBudget(timeout_s=1.0, max_retries=1)
    assert b.after(0.25) == CallBudget(timeout_s=0.75, max_retries=1)
    assert CallBudget(max_retries=1).after(5.0) == CallBudget(max_retries=1)
    with pytest.raises(LLMTimeout, match="spent"):
        b.after(1.0)
    with pytest.raises(ValidationError):
        CallBudget(timeout_s=0)


# -- any chat model, bounded like the client -------------------------------------------------------


class Flaky:
    """A user's ChatModel: raises the scripted exceptions, then answers."""

    def __init__(self, *script: Any):
        self.script, self.calls = list(script), 0

    def chat(self, messages: list[dict], **kw: Any) -> Any:
        self.calls += 1
        step = self.script.pop(0)
        if isinstance(step, BaseException):
            raise step
        return step(messages) if callable(step) else step


def test_as_chat_model_keeps_the_client_and_bounds_everything_else(openai_stub):
    llm = client(openai_stub)
    assert as_chat_model(llm) is llm
    bounded = as_chat_model(Flaky("x"))
    assert isinstance(bounded, BoundedChat) and as_chat_model(bounded) is bounded
    assert isinstance(as_chat_model(Invoker("y")).model, InvokeChat)
    with pytest.raises(ConfigError, match="chat"):
        as_chat_model(42)


def test_bounded_chat_retries_transient_failures_as_the_budget_says():
    model = Flaky(LLMError("connection refused"), TimeoutError("slow"), "ok")
    assert as_chat_model(model).chat(USER, budget=CallBudget(max_retries=2, backoff_s=0)) == "ok" and model.calls == 3
    model = Flaky(LLMError("connection refused"), "ok")
    with pytest.raises(LLMError, match="refused") as info:
        as_chat_model(model).chat(USER)  # no budget: the model's own behaviour, one call
    assert model.calls == 1 and info.value.attempts == 1


def test_bounded_chat_does_not_retry_unusable_replies_or_bugs():
    model = Flaky(LLMResponseError("HTTP 400"), "unused")
    with pytest.raises(LLMResponseError):
        as_chat_model(model).chat(USER, budget=CallBudget(max_retries=3, backoff_s=0))
    model = Flaky(KeyError("k"), "unused")
    with pytest.raises(LLMError, match="KeyError") as info:
        as_chat_model(model).chat(USER, budget=CallBudget(max_retries=3, backoff_s=0))
    assert model.calls == 1 and isinstance(info.value.__cause__, KeyError)
    with pytest.raises(LLMResponseError, match="not text"):
        as_chat_model(Flaky(lambda m: {"a": 1})).chat(USER)


def test_bounded_chat_deadline_holds_against_a_blocking_model():
    model = Flaky(lambda m: time.sleep(2) or "late", "unused")
    t0 = time.monotonic()
    with pytest.raises(LLMTimeout) as info:
        as_chat_model(model).chat(USER, budget=CallBudget(timeout_s=0.3, max_retries=2, backoff_s=0))
    assert time.monotonic() - t0 < 1.0 and info.value.attempts == 1 and model.calls == 1


async def test_bounded_chat_async_paths():
    class OnlyAsync:
        async def achat(self, messages: list[dict], **kw: Any) -> str:
            await asyncio.sleep(5)
            return "late"

    with pytest.raises(LLMTimeout):
        await as_chat_model(OnlyAsync()).achat(USER, budget=CallBudget(timeout_s=0.2))
    with pytest.raises(ConfigError, match="achat"):
        as_chat_model(OnlyAsync()).chat(USER)
    assert await as_chat_model(Flaky("from a thread")).achat(USER) == "from a thread"


def test_schema_hint_goes_only_to_models_that_take_it():
    seen: list[dict] = []

    class Strict:
        def chat(self, messages: list[dict]) -> str:
            return '{"label": "supported", "confidence": 0.5}'

    class Open:
        def chat(self, messages: list[dict], **kw: Any) -> str:
            seen.append(kw)
            return '{"label": "supported", "confidence": 0.5}'

    assert chat_json(as_chat_model(Strict()), USER, Verdict).confidence == 0.5
    chat_json(as_chat_model(Open()), USER, Verdict, budget=CallBudget(timeout_s=5))
    assert seen[0]["json_schema"]["title"] == "Verdict" and "budget" not in seen[0]


class Invoker:
    """Duck-typed LangChain-like model: invoke(messages) answers a message whose content is text blocks."""

    def __init__(self, text: str):
        self.text = text
        self.received: list[Any] = []

    def invoke(self, messages: Any, **kw: Any) -> Any:
        self.received.append((messages, kw))
        return SimpleNamespace(content=[{"type": "text", "text": self.text}, {"type": "image_url", "image_url": "x"}])


def test_invoke_models_are_chat_models_by_duck_typing():
    model = Invoker("hello")
    chat = InvokeChat(model, config={"tags": ["t"]})
    assert chat.chat(USER, json_schema={"x": 1}) == "hello"
    assert model.received == [(USER, {"config": {"tags": ["t"]}})]
    assert asyncio.run(chat.achat(USER)) == "hello"  # no ainvoke: invoke in a worker thread
    with pytest.raises(LLMResponseError, match="not a message with text"):
        InvokeChat(SimpleNamespace(invoke=lambda m: SimpleNamespace(content=3))).chat(USER)
    assert content_text("plain") == "plain" and content_text(None) is None


def test_chat_parsed_spends_one_budget_across_the_repair_turn():
    budgets: list[CallBudget] = []

    class Slow:
        def chat(self, messages: list[dict], *, budget: CallBudget | None = None, **kw: Any) -> str:
            budgets.append(budget)
            time.sleep(0.05)
            return "no json" if len(budgets) == 1 else '{"label": "supported", "confidence": 1}'

    v = chat_parsed(Slow(), USER, lambda t: Verdict.model_validate(extract_json(t)), budget=CallBudget(timeout_s=5, max_retries=1))
    assert v.confidence == 1 and len(budgets) == 2
    assert budgets[0].timeout_s == 5 and budgets[1].timeout_s < 4.96 and budgets[1].max_retries == 1


def test_logprobs_pass_through_kwargs(openai_stub):
    openai_stub.add(Reply(content="yes", logprobs=[("yes", -0.01)]))
    assert client(openai_stub).chat(USER, logprobs=True) == "yes"
    assert openai_stub.requests[0]["json"]["logprobs"] is True


async def test_achat_retries_and_returns(openai_stub):
    openai_stub.add(Reply(status=503), "async ok")
    assert await client(openai_stub).achat(USER) == "async ok"
    assert len(openai_stub.requests) == 2


async def test_achat_timeout(openai_stub):
    openai_stub.add(Reply(delay=2.0), Reply(delay=2.0))
    with pytest.raises(LLMTimeout) as info:
        await client(openai_stub, timeout_s=0.3, max_retries=1).achat(USER)
    assert info.value.attempts == 2


async def test_achat_malformed(openai_stub):
    openai_stub.add(Reply(body="<html>oops</html>"))
    with pytest.raises(LLMResponseError) as info:
        await client(openai_stub).achat(USER)
    assert info.value.last_output == "<html>oops</html>"


# -- response_format ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "expected_type"),
    [("none", None), ("json_object", "json_object"), ("json_schema", "json_schema"), ("llamacpp_schema", "json_object")],
)
def test_json_schema_hint_becomes_response_format(openai_stub, mode, expected_type):
    openai_stub.add('{"label": "supported", "confidence": 0.9}')
    chat_json(client(openai_stub, response_format=mode), USER, Verdict)
    rf = openai_stub.requests[0]["json"].get("response_format")
    if expected_type is None:
        assert rf is None
    else:
        assert rf["type"] == expected_type
        schema = rf.get("schema") or rf.get("json_schema", {}).get("schema")
        if mode != "json_object":
            assert schema["properties"]["label"]["type"] == "string"


# -- JSON extraction ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        '{"label": "supported", "confidence": 0.9}',
        'Sure! Here it is:\n```json\n{"label": "supported", "confidence": 0.9}\n```\nAnything else?',
        '```\n{"label": "supported", "confidence": 0.9}\n```',
        'My verdict is {"label": "supported", "confidence": 0.9} as requested.',
        '{"label": "supported", "confidence": 0.9,}',
        'Reasoning first.\n{"label": "supported",\n "confidence": 0.9,\n}\nDone.',
    ],
)
def test_chat_json_extracts_json_from_common_reply_shapes(openai_stub, reply):
    openai_stub.add(reply)
    v = chat_json(client(openai_stub), USER, Verdict)
    assert v == Verdict(label="supported", confidence=0.9)
    assert len(openai_stub.requests) == 1


def test_extract_json_prefers_the_longest_embedded_value():
    assert extract_json('see [1] and then {"a": [1, 2], "b": {"c": 3}}') == {"a": [1, 2], "b": {"c": 3}}
    with pytest.raises(ValueError, match="no JSON"):
        extract_json("no json here at all")


def test_chat_json_repairs_once_with_the_validation_error(openai_stub):
    openai_stub.add('{"label": "supported"}', '{"label": "supported", "confidence": 0.8}')
    v = chat_json(client(openai_stub), USER, Verdict)
    assert v.confidence == 0.8
    second = openai_stub.requests[1]["json"]["messages"]
    assert second[:1] == USER
    assert second[1] == {"role": "assistant", "content": '{"label": "supported"}'}
    assert second[2]["role"] == "user" and "confidence" in second[2]["content"]


def test_chat_json_gives_up_after_repair_with_last_output(openai_stub):
    openai_stub.add("I think it is supported.", "Definitely supported!")
    with pytest.raises(LLMResponseError) as info:
        chat_json(client(openai_stub), USER, Verdict, repair_attempts=1)
    assert info.value.last_output == "Definitely supported!" and info.value.attempts == 2
    assert "no JSON" in str(info.value)
    assert len(openai_stub.requests) == 2


def test_chat_json_without_repair_makes_one_call(openai_stub):
    openai_stub.add("nope", "unused")
    with pytest.raises(LLMResponseError):
        chat_json(client(openai_stub), USER, Verdict, repair_attempts=0)
    assert openai_stub.pending == 1


def test_chat_json_propagates_endpoint_errors(openai_stub):
    openai_stub.add(Reply(status=401))
    with pytest.raises(LLMResponseError, match="HTTP 401"):
        chat_json(client(openai_stub), USER, Verdict)


async def test_achat_json_repairs(openai_stub):
    openai_stub.add('{"label": 3}', '```json\n{"label": "unsupported", "confidence": 0.7}\n```')
    v = await achat_json(client(openai_stub), USER, Verdict)
    assert v == Verdict(label="unsupported", confidence=0.7)
    assert len(openai_stub.requests) == 2


# -- quote location ------------------------------------------------------------------------------

TEXT = "The Eiffel Tower was completed in 1889.  It is 330 metres tall and stands in Paris."


def test_locate_quote_exact():
    s, e = locate_quote(TEXT, "completed in 1889")
    assert TEXT[s:e] == "completed in 1889"


def test_locate_quote_ignores_case_whitespace_and_curly_quotes():
    s, e = locate_quote(TEXT, "1889. it IS 330\nmetres")
    assert TEXT[s:e] == "1889.  It is 330 metres"
    text = "He said \u201cno\u201d twice."
    s, e = locate_quote(text, 'said "no" twice')
    assert text[s:e] == "said \u201cno\u201d twice"


def test_locate_quote_fuzzy_snaps_to_words():
    s, e = locate_quote(TEXT, "It is 330 meters tall and stand in Paris")
    assert TEXT[s:e] == "It is 330 metres tall and stands in Paris"


def test_locate_quote_rejects_what_is_not_there():
    assert locate_quote(TEXT, "The Statue of Liberty is green") is None
    assert locate_quote(TEXT, "") is None
    assert locate_quote("", "anything") is None


def test_client_closes_and_reopens(openai_stub):
    openai_stub.add("one", "two")
    with client(openai_stub) as llm:
        assert llm.chat(USER) == "one"
    assert llm._client is None
    assert llm.chat(USER) == "two"  # a closed client reconnects lazily
    with pytest.raises(ValueError):
        chat_json(llm, USER, Verdict, repair_attempts=-1)
