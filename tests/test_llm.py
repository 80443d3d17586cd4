"""The OpenAI-compatible client, JSON replies and quote location, against a real local HTTP stub."""

from __future__ import annotations

import subprocess
import sys
import time
from typing import Any

import pytest
import tenacity
from openai_stub import Reply, ScriptedOpenAI, free_port, openai_stub  # noqa: F401  (fixture)
from pydantic import BaseModel, ValidationError

from guardrail.errors import LLMError, LLMResponseError, LLMTimeout
from guardrail.llm import (
    ChatModel,
    LangChainChat,
    LLMConfig,
    OpenAIChat,
    achat_json,
    chat_json,
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


# -- LangChain adapter ---------------------------------------------------------------------------


def test_langchain_adapter_converts_messages_and_returns_text():
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    llm = LangChainChat(FakeListChatModel(responses=['{"label": "contradicted", "confidence": 0.6}']))
    msgs = [{"role": "system", "content": "judge"}, {"role": "user", "content": "claim"}]
    assert chat_json(llm, msgs, Verdict) == Verdict(label="contradicted", confidence=0.6)
    assert LangChainChat._convert(msgs)[0].type == "system"
    assert LangChainChat._convert(msgs)[1].type == "human"


async def test_langchain_adapter_async_and_error_mapping():
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    llm = LangChainChat(FakeListChatModel(responses=["async text"]))
    assert await llm.achat(USER) == "async text"

    class Broken(FakeListChatModel):
        def _call(self, *a: Any, **k: Any) -> str:
            raise TimeoutError("model took too long")

    with pytest.raises(LLMTimeout, match="took too long"):
        LangChainChat(Broken(responses=["x"])).chat(USER)
    with pytest.raises(TypeError):
        LangChainChat(object())


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
