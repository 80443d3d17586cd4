"""The contract every ``make_verifier`` spec keeps, whatever its backend.

Why one parametrised test: the pipeline trusts any verifier to return one well-formed verdict per
item, in order (``run_verifier`` repairs a bad one, but a repair is a bug in the verifier), and to
never let a claim pass as checked when its backend failed. Each spec of ``VERIFIER_SPECS`` must have
a case here; adding a spec without one fails ``test_every_registered_spec_has_a_contract_case``.

LLM specs run against tests/openai_stub.py's scripted server (and test_logprob's completions stub
for ``logprob``); a backend failure is that server answering HTTP 500 to everything.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from openai_stub import Reply, ScriptedOpenAI
from test_logprob import CompletionsStub, grammar_server

from guardrail.errors import ConfigError, ModelLoadError
from guardrail.llm import OpenAIChat
from guardrail.types import Claim, ClaimVerdict, Label, VerificationItem, Window
from guardrail.verifiers import VERIFIER_SPECS, make_verifier, run_verifier, shipped_model_available

EVIDENCE = ("The Eiffel Tower is in Paris. It was completed in 1889 for the World's Fair. "
            "The tower is 330 metres tall.")
SHIPPED = Path(__file__).resolve().parent.parent / "guardrail" / "models" / "grounding-minilm"


def _items() -> list[VerificationItem]:
    """A supported claim, a contradicted one, one with no evidence window, a repeat of the first under
    another id (verdicts follow item order, by id, even when two claims read the same), and one the evidence
    does not settle (a fast stage is unsure of it: the cascade and CoVe ask their LLM about it, whatever the
    shipped model's confidence on the others)."""
    window = Window(evidence_id="wiki", start=0, end=len(EVIDENCE), text=EVIDENCE)
    claims = [("c1", "The Eiffel Tower is in Paris.", [window]),
              ("c2", "It was completed in 1925.", [window]),
              ("c3", "The tower is painted bright green.", []),
              ("c4", "The Eiffel Tower is in Paris.", [window]),
              ("c5", "The tower is visited by millions each year.", [window])]
    return [VerificationItem(claim=Claim(id=cid, text=t, start=0, end=len(t)), windows=ws,
                             question="Tell me about the Eiffel Tower.") for cid, t, ws in claims]


# -- the scripted LLM: answers each verifier's prompt by its shape --------------------------------


def _healthy(request: dict[str, Any]) -> Reply | str:
    """A plausible reply to any chat prompt of the LLM verifiers, deterministic in the request."""
    messages = request["json"]["messages"]
    system = messages[0]["content"] if messages[0]["role"] == "system" else ""
    user = messages[-1]["content"]
    if "verification question" in system:  # cove: one question per numbered claim
        claims = re.findall(r'<claim n="(\d+)">(.*?)</claim>', user, re.S)
        return json.dumps({"questions": [{"id": int(n), "question": "In what year was the Eiffel Tower completed?"
                                          if "completed" in c else "Where is the Eiffel Tower?"} for n, c in claims]})
    if "from evidence passages alone" in system:  # cove: answers from the evidence, without the claims
        asked = re.findall(r'<question n="(\d+)">(.*?)</question>', user, re.S) or [("1", user)]
        answers = [{"id": int(n), "found": True, "quote": "It was completed in 1889",
                    "answer": "The Eiffel Tower was completed in 1889.", "passage": 1} if "year" in q else
                   {"id": int(n), "found": True, "quote": "The Eiffel Tower is in Paris",
                    "answer": "The Eiffel Tower is in Paris.", "passage": 1} for n, q in asked]
        return json.dumps({"answers": answers} if '"answers"' in system else answers[0])
    if "scale from 0 to 1" in system:  # prompt-judge: one score per numbered statement
        statements = re.findall(r"^(\d+)\. (.*)$", user.split("Statements:")[-1], re.M)
        return json.dumps({"scores": [{"id": int(i), "score": 0.9 if "1925" in s else 0.1} for i, s in statements]})
    claim = re.search(r"<claim>(.*?)</claim>", user, re.S)
    if claim:  # the LLM judge
        wrong = "1925" in claim.group(1)
        return json.dumps({"reasoning": "compared with the evidence", "label": "contradicted" if wrong else "supported",
                           "confidence": 0.9, "evidence_quote": "", "evidence_window": None,
                           "error_type": "number" if wrong else None})
    return "The Eiffel Tower is in Paris and was completed in 1889."  # selfcheck: a sampled answer


def _chat(url: str) -> OpenAIChat:
    return OpenAIChat(base_url=url, model="stub", backoff_s=0.0, max_retries=0, timeout_s=5.0)


def _chat_llm(healthy: bool) -> Iterator[OpenAIChat]:
    with ScriptedOpenAI(responder=_healthy if healthy else (lambda req: Reply(status=500))) as stub:
        yield _chat(stub.base_url)


def _completions_llm(healthy: bool) -> Iterator[OpenAIChat]:
    server = grammar_server if healthy else (lambda payload: (500, {"error": {"message": "down"}}))
    with CompletionsStub(server) as stub:
        yield _chat(stub.base_url)


def _tiny_hf_model(path: Path) -> str:
    """A randomly initialised one-layer BERT NLI head saved to ``path`` (no download)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    words = "the a is in of paris eiffel tower it was completed 1889 1925 tall painted green".split()
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words, ".", ","]
    path.mkdir(parents=True)
    (path / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    transformers.BertTokenizerFast(vocab_file=str(path / "vocab.txt"), do_lower_case=True).save_pretrained(str(path))
    labels = {0: "entailment", 1: "neutral", 2: "contradiction"}
    cfg = transformers.BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                                  intermediate_size=37, max_position_embeddings=64, num_labels=3, id2label=labels,
                                  label2id={v: k for k, v in labels.items()})
    transformers.BertForSequenceClassification(cfg).eval().save_pretrained(str(path))
    return f"hf:{path}"


#: Spec -> which LLM it needs (None: a local verifier).
LLM_SPECS: dict[str, Callable[[bool], Iterator[OpenAIChat]]] = {
    "judge": _chat_llm, "cascade": _chat_llm, "cove": _chat_llm, "selfcheck": _chat_llm, "prompt-judge": _chat_llm,
    "logprob": _completions_llm,
}
LOCAL_SPECS = ["default", "heuristic", "grounding", "grounding:SHIPPED", "hf:TINY", "overlap", "embedding",
               "overlap:threshold=0.3", "embedding:center=0.5,width=0.1"]


def _local(spec: str, tmp_path: Path):
    if spec in ("default", "grounding", "grounding:SHIPPED") and not shipped_model_available():
        pytest.skip("the shipped grounding model is not in this checkout")
    if spec == "grounding:SHIPPED":
        return make_verifier(f"grounding:{SHIPPED}")
    if spec == "hf:TINY":
        return make_verifier(_tiny_hf_model(tmp_path / "tiny-nli"))
    return make_verifier(spec)


def _raw(verifier: Any, items: list[VerificationItem]) -> list[Any]:
    """What the verifier itself returns, before ``run_verifier`` would repair anything."""
    native = getattr(verifier, "verify_run", None)
    out = native(items, 32) if native is not None else verifier.verify(items)
    return list(getattr(out, "verdicts", out))


def _assert_well_formed(verifier: Any, items: list[VerificationItem]) -> list[ClaimVerdict]:
    raw = _raw(verifier, items)
    assert len(raw) == len(items), "one verdict per item"
    for item, v in zip(items, raw):
        assert isinstance(v, ClaimVerdict)
        ClaimVerdict.model_validate(v.model_dump())  # no assignment slipped past validation
        assert v.claim_id == item.claim.id, "verdicts in item order, ids matching"
        assert isinstance(v.label, Label)
        for score in (v.hallucination_score, v.confidence):
            assert not math.isnan(score) and 0.0 <= score <= 1.0
        assert v.verifier, "a verdict names the verifier that gave it"
        if not item.windows:
            assert v.label is not Label.supported, "no evidence can support a claim"
    # run_verifier had nothing to repair, and the same input gives the same verdicts
    assert run_verifier(verifier, items).verdicts == raw
    assert _raw(verifier, items) == raw
    return raw


# -- the contract ---------------------------------------------------------------------------------


def test_every_registered_spec_has_a_contract_case():
    covered = {s.partition(":")[0] for s in LOCAL_SPECS} | set(LLM_SPECS)
    assert covered == set(VERIFIER_SPECS)


@pytest.mark.parametrize("spec", LOCAL_SPECS)
def test_local_spec_returns_well_formed_verdicts(spec, tmp_path):
    _assert_well_formed(_local(spec, tmp_path), _items())


@pytest.mark.parametrize("spec", sorted(LLM_SPECS))
def test_llm_spec_returns_well_formed_verdicts(spec):
    if spec in ("cascade", "cove") and not shipped_model_available():
        pytest.skip("the cascade's fast stage is the shipped grounding model")
    for llm in LLM_SPECS[spec](True):
        verdicts = _assert_well_formed(make_verifier(spec, llm), _items())
        assert any(v.label is not Label.unevaluatable for v in verdicts), "a healthy backend gives real verdicts"


@pytest.mark.parametrize("spec", sorted(LLM_SPECS))
def test_llm_spec_backend_failure_is_never_a_silent_pass(spec):
    """With every request failing, each claim that needed the LLM is unevaluatable or listed as unchecked;
    only a claim the verifier settles without it (no evidence, or the cascade's confident fast stage)
    keeps a real label, and never ``supported`` for lack of evidence."""
    if spec in ("cascade", "cove") and not shipped_model_available():
        pytest.skip("the cascade's fast stage is the shipped grounding model")
    items = _items()
    for llm in LLM_SPECS[spec](False):
        run = run_verifier(make_verifier(spec, llm), items)
    unchecked = {u.index for u in run.unchecked}
    fast_only = _settled_without_llm(spec, items)
    for i, (item, v) in enumerate(zip(items, run.verdicts)):
        assert v.claim_id == item.claim.id
        if not item.windows:
            assert v.label is not Label.supported
        elif i not in fast_only:
            assert v.label is Label.unevaluatable or i in unchecked, f"{item.claim.id}: {v.label} after a failure"
            if v.label is Label.unevaluatable:
                assert v.reason and v.hallucination_score == 0.5
    assert any(v.label is Label.unevaluatable for v in run.verdicts) or unchecked, "the failure is visible"


def _settled_without_llm(spec: str, items: list[VerificationItem]) -> set[int]:
    """Items the cascade's fast stage decides on its own (the judge, or CoVe, is never asked about them)."""
    if spec not in ("cascade", "cove"):
        return set()
    asked: set[str] = set()
    with ScriptedOpenAI(responder=_healthy) as stub:
        make_verifier(spec, _chat(stub.base_url)).verify(items)
        for request in stub.requests:
            asked.update(re.findall(r"<claim(?: n=\"\d+\")?>(.*?)</claim>", request["json"]["messages"][-1]["content"], re.S))
    return {i for i, item in enumerate(items) if item.claim.text not in asked}


@pytest.mark.parametrize("spec", ["grounding:MISSING", "hf:MISSING"])
def test_a_local_backend_that_cannot_load_fails_at_build_naming_it(spec, tmp_path):
    if spec.startswith("hf:"):
        pytest.importorskip("transformers")
    missing = tmp_path / "no-such-model"
    with pytest.raises((ModelLoadError, ConfigError), match="no-such-model"):
        make_verifier(spec.replace("MISSING", str(missing)))
