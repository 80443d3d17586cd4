"""Issue 15's reproductions, each run in its own process and classified by what it did.

    python benchmarks/issue15_cases.py [--repo PATH] [--json OUT] [--only NAME] [--before JSON] [--markdown]

Why a script and not tests: the closing note of issue 15 asks for a table of the same inputs
run against the code before and after the fixes. Tests of the fixed code cannot run against the
old code (they import what the fixes added); these cases use only the public surface both
versions share: ``Guardrail``, ``guardrail.policy`` (``guard``, ``PolicyStore``, ``AuditLog``),
the ``guardrail`` command line (``python -m guardrail.cli``) and the LangChain and LlamaIndex
adapters.

Every case runs in a fresh subprocess with ``PYTHONPATH=<repo>:<repo>/integrations`` (so
``--repo /tmp/before``, a ``git worktree`` of the old commit, measures the old code with the
same virtual environment) and a hard timeout, so a hang or a crash is contained. Its outcome is
exactly one of, judged by behaviour (exit codes, report fields, decision actions), never by
version:

    caught        the bad input is flagged, withheld or marked not checked, as the issue demands
                  (for a stall: the input was handled, honestly, within the time bound)
    clear_error   a project error (GuardrailError) or exit code 2 with a message, no traceback
    traceback     any other exception, or a traceback on stderr
    hang          the case took longer than HANG_S seconds (killed at TIMEOUT_S)
    silent_pass   the false or bad input went through as fine (the thing the issue forbids)

The control cases (``ctl_*``) are true answers that must pass: they show that a ``caught`` is
the fault at work, not a checker that refuses everything. They are listed apart from the totals.

Two runs give the before/after table:

    git worktree add /tmp/before 7bde084
    python benchmarks/issue15_cases.py --repo /tmp/before --json /tmp/issue15_before.json
    python benchmarks/issue15_cases.py --json /tmp/issue15_after.json --before /tmp/issue15_before.json
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
DEFAULT_REPO = HERE.parent.parent
#: A case running longer than this is a stall ("hang"), whatever it returned.
HANG_S = 20.0
#: A case still running after this is killed (and is a "hang").
TIMEOUT_S = 60.0
OUTCOMES = ("caught", "clear_error", "traceback", "hang", "silent_pass")
RESULT_TAG = "ISSUE15_RESULT "
#: An endpoint nothing listens on: connection refused at once (port 9, "discard", is closed here).
DEAD_LLM = "http://127.0.0.1:9/v1"

# The issue's own inputs.
EIFFEL_CTX = "The Eiffel Tower is 330 metres tall. The gift shop is in room 530."
EIFFEL_530 = "The Eiffel Tower is 530 metres tall."
EIFFEL_FULL = [
    "The Eiffel Tower is 330 metres tall. It was completed in 1889 for the World's Fair.",
    "The tower is repainted every seven years. About 60 tonnes of paint are used each time.",
]
ASPIRIN_CTX = "Adults may take 300 mg of aspirin every four hours. Do not exceed 4 g in 24 hours."
TRUE_CITED = "Adults may take 300 mg of aspirin every four hours [1]."
# Issue 15, item 2: the same false dose (4000 mg every hour) in each structure the splitter skipped.
STRUCTURES = {
    "filler": "Feel free to take 4000 mg every hour if the pain continues.",
    "sources": "Sources:\n[1] Aspirin leaflet. Adults may take 4000 mg of aspirin every hour.",
    "heading": "## Adults may take 4000 mg of aspirin every hour",
    "code": "```\nAdults may take 4000 mg of aspirin every hour.\n```",
    "table_header": "| Adults may take 4000 mg of aspirin every hour |\n|---|",
    "question": "Did you know that adults may take 4000 mg of aspirin every hour?",
    "lead_in": "According to the leaflet, adults may take 4000 mg of aspirin every hour:",
}


# ============================================================================ case registry


@dataclass(frozen=True)
class Case:
    name: str
    group: str
    what: str
    run: Callable[[Path, Path], dict[str, Any]]
    control: bool = False


CASES: dict[str, Case] = {}


def case(group: str, what: str, *, control: bool = False):
    def register(fn: Callable[[Path, Path], dict[str, Any]]):
        CASES[fn.__name__] = Case(fn.__name__, group, what, fn, control)
        return fn

    return register


def result(outcome: str, detail: str, **extra: Any) -> dict[str, Any]:
    assert outcome in OUTCOMES or outcome in ("pass", "false_alarm"), outcome
    return {"outcome": outcome, "detail": detail, **extra}


# ============================================================================ helpers (run in the worker)


def cli(*args: str, stdin: str | None = None, timeout: float = TIMEOUT_S) -> tuple[int, str, str]:
    """``python -m guardrail.cli ARGS`` with the worker's environment (its PYTHONPATH picks the checkout)."""
    env = {**os.environ, "COLUMNS": "200"}
    p = subprocess.run([sys.executable, "-m", "guardrail.cli", *args], check=False, input=stdin, capture_output=True,
                       text=True, env=env, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def cli_failure(rc: int, err: str) -> dict[str, Any] | None:
    """A traceback or a usage/setup error, or None when the command ran to a result."""
    if "Traceback (most recent call last)" in err:
        return result("traceback", _last_line(err))
    if rc == 2:
        return result("clear_error" if err.strip() else "traceback", _last_line(err) or "exit 2 without a message")
    if rc not in (0, 1, 3):
        return result("traceback", f"exit {rc}: {_last_line(err)}")
    return None


def check_exit(rc: int, out: str, err: str) -> dict[str, Any]:
    """``guardrail check --fail-on-hallucination``: 1 flagged, 3 not fully checked (new), 0 passed."""
    failed = cli_failure(rc, err)
    if failed:
        return failed
    if rc == 1:
        return result("caught", "exit 1: a claim was flagged")
    if rc == 3:
        return result("caught", "exit 3: nothing flagged, but part of the answer was not checked")
    return result("silent_pass", "exit 0: " + (_grep(out, ("no claim flagged", "NOT FULLY CHECKED")) or "passed"))


def guard_cli(root: Path, tenant: str, answer: str, *context: str, policies: Path | None = None,
              extra: tuple[str, ...] = ()) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """``guardrail guard --json``: (decision, None) or (None, failure outcome)."""
    args = ["guard", "--tenant", tenant, "--policies", str(policies or root / "policies"), "--answer", answer, "--json", *extra]
    for c in context:
        args += ["--context", c]
    rc, out, err = cli(*args)
    failed = cli_failure(rc, err)
    if failed:
        return None, failed
    return json.loads(out), None


def decision_outcome(d: dict[str, Any]) -> dict[str, Any]:
    """respond is a pass; any other action flags, marks or withholds the answer."""
    action, code = d["action"], d["code"]
    if action == "respond":
        return result("silent_pass", f"respond ({code})")
    return result("caught", f"{action} ({code})")


def report_outcome(report: Any) -> dict[str, Any]:
    """A CheckReport: flagged, or incomplete (something not checked), or a pass."""
    if report.hallucinated:
        return result("caught", f"flagged, score {report.hallucination_score:.2f}")
    missing = [s.check for s in report.skipped] + [f"unchecked:{u.reason}" for u in getattr(report, "unchecked_factual", [])]
    if not report.complete or missing:
        return result("caught", f"not flagged but marked not checked: {sorted(set(missing)) or 'complete=False'}")
    labels = [v.label.value for v in report.verdicts]
    return result("silent_pass", f"not flagged, complete, verdicts {labels}")


def copy_policies(root: Path, tmp: Path) -> Path:
    """A writable policy folder holding the checkout's default.yaml (tenants extend it)."""
    d = tmp / "policies"
    (d / "tenants").mkdir(parents=True, exist_ok=True)
    (d / "default.yaml").write_text((root / "policies" / "default.yaml").read_text())
    return d


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1][:200] if lines else ""


def _grep(text: str, needles: tuple[str, ...]) -> str:
    for ln in text.splitlines():
        if any(n in ln for n in needles):
            return ln.strip()[:160]
    return ""


# ============================================================================ silent passes 1-7


@case("1 number anywhere", "Eiffel 530 vs context 330 + 'room 530'; check --fail-on-hallucination")
def sp1_eiffel_530(root: Path, tmp: Path) -> dict[str, Any]:
    return check_exit(*cli("check", "--answer", EIFFEL_530, "--context", EIFFEL_CTX, "--fail-on-hallucination"))


@case("1 number anywhere", "aspirin 4000 mg cited to 'Ibuprofen: a full pack contains 4000 mg.'; guard healthcare")
def sp1_ibuprofen_aspirin_healthcare(root: Path, tmp: Path) -> dict[str, Any]:
    d, failed = guard_cli(root, "healthcare", "Adults may take 4000 mg of aspirin every four hours [1].",
                          "Ibuprofen: a full pack contains 4000 mg.", extra=("--fail-on", "abstain,escalate"))
    return failed or decision_outcome(d)


@case("1 number anywhere", "Eiffel 530 vs the 330 sentence inside ~100k tokens of filler with numbers (530 among them)")
def sp1_long_context_filler_numbers(root: Path, tmp: Path) -> dict[str, Any]:
    from guardrail import Guardrail

    filler = [f"Room {n} of the annex was repainted in {1900 + n % 120} and holds {n % 40 + 2} chairs." for n in range(1, 2601)]
    filler[529] = "The gift shop is in room 530, which was refitted in 1998."
    half = len(filler) // 2
    context = " ".join(filler[:half] + ["The Eiffel Tower is 330 metres tall."] + filler[half:] * 5)
    report = Guardrail().check(EIFFEL_530, context)
    out = report_outcome(report)
    out["detail"] += f" (context {len(context):,} chars)"
    return out


def _structure(root: Path, name: str, alone: bool) -> dict[str, Any]:
    answer = STRUCTURES[name] if alone else f"{TRUE_CITED}\n\n{STRUCTURES[name]}"
    # Alone: the default policy (the "no_claims / respond"; healthcare abstains on no claims anyway).
    tenant = "default" if alone else "healthcare"
    d, failed = guard_cli(root, tenant, answer, ASPIRIN_CTX)
    return failed or decision_outcome(d)


for _name in STRUCTURES:
    for _alone in (False, True):
        def _run(root: Path, tmp: Path, _n: str = _name, _a: bool = _alone) -> dict[str, Any]:
            return _structure(root, _n, _a)

        _run.__name__ = f"sp2_{_name}_{'alone' if _alone else 'after_true_claim'}"
        case("2 never checked",
             f"false dose as {_name.replace('_', ' ')}" + (" alone; guard default" if _alone else " after one cited true claim; guard healthcare")
             )(_run)


def fixed_retriever(texts: list[str]):
    """A LangChain retriever returning the given passages (the runnable captures evidence from retriever runs).
    Built in the worker: langchain is imported only by the cases that need it."""
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever

    class FixedRetriever(BaseRetriever):
        texts: list[str]

        def _get_relevant_documents(self, query: str, *, run_manager: Any = None) -> list[Document]:
            return [Document(page_content=t, metadata={"source": f"doc{i}"}) for i, t in enumerate(self.texts)]

    return FixedRetriever(texts=texts)


def _rag(model: Any, texts: list[str]):
    """retriever -> prompt -> chat model -> text: the shape of the chains in docs/integrations.md."""
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.runnables import RunnablePassthrough

    prompt = ChatPromptTemplate.from_messages([("system", "Answer from the sources only.\n{context}"), ("human", "{question}")])
    def fmt(docs):
        return "\n".join(f"[{i}] {d.page_content}" for i, d in enumerate(docs, 1))

    return {"context": fixed_retriever(texts) | fmt, "question": RunnablePassthrough()} | prompt | model | StrOutputParser()


def _events_handler(seen: list[tuple[str, Any]]):
    from langchain_core.callbacks import BaseCallbackHandler

    class Events(BaseCallbackHandler):
        def on_custom_event(self, name: str, data: Any, **kwargs: Any) -> None:
            seen.append((name, data))

    return Events()


def _healthcare_no_claims_stream(root: Path) -> tuple[Any, str, list[tuple[str, Any]]]:
    from guardrail_langchain import GuardrailRunnable
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    from guardrail import Guardrail
    from guardrail.policy import PolicyStore

    answer = "Sure!\n\nHappy to help."
    model = FakeListChatModel(responses=[answer] * 2)
    guarded = GuardrailRunnable(_rag(model, [ASPIRIN_CTX]), guardrail=Guardrail(), policy=PolicyStore(root / "policies"),
                                find_chain_llm=False)
    seen: list[tuple[str, Any]] = []
    config = {"configurable": {"tenant_id": "healthcare"}, "callbacks": [_events_handler(seen)]}
    invoked = guarded.with_report().invoke("How much aspirin can an adult take?", config)
    seen.clear()
    streamed = "".join(guarded.stream("How much aspirin can an adult take?", config))
    return invoked, streamed, seen


@case("3 streaming", "healthcare (on_no_claims: abstain), answer with no claim: stream shows what invoke withholds?")
def sp3_stream_no_claims_healthcare(root: Path, tmp: Path) -> dict[str, Any]:
    invoked, streamed, _ = _healthcare_no_claims_stream(root)
    d = invoked.decision
    if "Sure!" in streamed or "Happy to help" in streamed:
        return result("silent_pass", f"invoke {d.action.value}, stream released the text: {streamed[:60]!r}")
    return result("caught", f"invoke {d.action.value}, stream showed {streamed[:60]!r}")


@case("3 streaming", "stream dispatches the answer-level guardrail_decision event (not only segment events)")
def sp3_stream_decision_event(root: Path, tmp: Path) -> dict[str, Any]:
    _, _, seen = _healthcare_no_claims_stream(root)
    names = [n for n, _ in seen]
    if "guardrail_decision" in names:
        return result("caught", f"events {names}")
    return result("silent_pass", f"no guardrail_decision event; events {names}")


def _cut_stream_model(pieces: list[str], finish: str | None):
    """A chat model that streams like langchain-openai: provider on each chunk, finish reason on the last
    (none at all when the server cut the stream)."""
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, AIMessageChunk
    from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult

    class CutStreamChat(BaseChatModel):
        pieces: list[str]
        finish: str | None = None

        @property
        def _llm_type(self) -> str:
            return "cut-stream-fake"

        def _generate(self, messages, stop=None, run_manager=None, **kw) -> ChatResult:
            meta = {"model_provider": "openai", **({"finish_reason": self.finish} if self.finish else {})}
            return ChatResult(generations=[ChatGeneration(message=AIMessage(content="".join(self.pieces), response_metadata=meta))])

        def _stream(self, messages, stop=None, run_manager=None, **kw):
            for i, piece in enumerate(self.pieces):
                meta: dict[str, Any] = {"model_provider": "openai"}
                if i == len(self.pieces) - 1 and self.finish:
                    meta["finish_reason"] = self.finish
                chunk = ChatGenerationChunk(message=AIMessageChunk(content=piece, response_metadata=meta))
                if run_manager:
                    run_manager.on_llm_new_token(piece, chunk=chunk)
                yield chunk

    return CutStreamChat(pieces=pieces, finish=finish)


CUT_PIECES = ["The Eiffel Tower is ", "330 metres tall.", " It was completed in 1889", " for the"]


def _stream_internal_search(root: Path, finish: str | None) -> tuple[str, list[tuple[str, Any]]]:
    from guardrail_langchain import GuardrailRunnable

    from guardrail import Guardrail
    from guardrail.policy import PolicyStore

    guarded = GuardrailRunnable(_rag(_cut_stream_model(CUT_PIECES, finish), EIFFEL_FULL), guardrail=Guardrail(),
                                policy=PolicyStore(root / "policies"), find_chain_llm=False)
    seen: list[tuple[str, Any]] = []
    config = {"configurable": {"tenant_id": "internal-search"}, "callbacks": [_events_handler(seen)]}
    return "".join(guarded.stream("How tall is the Eiffel Tower?", config)), seen


@case("4 stream cut short", "chat stream ends without a finish reason mid-sentence; internal-search tenant")
def sp4_stream_cut_short(root: Path, tmp: Path) -> dict[str, Any]:
    text, seen = _stream_internal_search(root, None)
    fragment = "".join(CUT_PIECES)
    actions = [getattr(d, "action", None) for n, d in seen if n == "guardrail_decision"]
    if text.strip() == fragment.strip():
        return result("silent_pass", f"the fragment was released as the whole answer ({len(fragment)} chars); decisions {actions}")
    return result("caught", f"shown {text[len(fragment) - 10:][:90]!r}; decisions {[a.value for a in actions if a]}")


@case("4 stream cut short", "control: the same stream with finish_reason 'stop' is released as it is", control=True)
def ctl_stream_complete(root: Path, tmp: Path) -> dict[str, Any]:
    text, _ = _stream_internal_search(root, "stop")
    ok = text.strip() == "".join(CUT_PIECES).strip()
    return result("pass" if ok else "false_alarm", f"shown {text[:100]!r}")


@case("5 cascade fails open", "contradicted at 0.29 (below the judge band): cascade check --fail-on-hallucination")
def sp5_cascade_below_band(root: Path, tmp: Path) -> dict[str, Any]:
    answer = "The tower is repainted every seven years using 600 tonnes of paint."
    return check_exit(*cli("check", "--verifier", "cascade", "--llm-base-url", DEAD_LLM, "--llm-model", "x", "--llm-timeout", "2",
                           "--answer", answer, "--context", EIFFEL_FULL[1], "--fail-on-hallucination"))


@case("5 cascade fails open", "true claim + unsupported claim in the judge band (0.36), judge unreachable; guard internal-search")
def sp5_cascade_judge_unreachable(root: Path, tmp: Path) -> dict[str, Any]:
    from guardrail import Guardrail
    from guardrail.llm import OpenAIChat
    from guardrail.policy import PolicyStore, guard

    llm = OpenAIChat(base_url=DEAD_LLM, model="x", timeout_s=2, max_retries=0)
    g = Guardrail("cascade", llm=llm)
    answer = "Adults may take 300 mg of aspirin every four hours. Aspirin is recommended for children under 16."
    # The leaflet is silent on children: the second claim is unsupported, 0.36 with the shipped model.
    d = guard(answer, [ASPIRIN_CTX], check=g.check, policy=PolicyStore(root / "policies").get("internal-search"))
    r = d.report
    out = decision_outcome(d.model_dump(mode="json"))
    verdicts = [(v.label.value, round(v.hallucination_score, 2)) for v in r.verdicts]
    out["detail"] += f"; verdicts {verdicts}, report complete={r.complete}, skipped={[s.check for s in r.skipped]}"
    return out


@case("6 nothing checked", "every verdict unevaluatable (judge unreachable): check --fail-on-hallucination")
def sp6_all_unevaluatable(root: Path, tmp: Path) -> dict[str, Any]:
    return check_exit(*cli("check", "--verifier", "judge", "--llm-base-url", DEAD_LLM, "--llm-model", "x", "--llm-timeout", "2",
                           "--answer", EIFFEL_530, "--context", EIFFEL_CTX, "--fail-on-hallucination"))


@case("7 numbers/JSON/citations", 'JSON answer {"height_m": 530} vs 330 m; check --fail-on-hallucination')
def sp7_json_number_field(root: Path, tmp: Path) -> dict[str, Any]:
    return check_exit(*cli("check", "--answer", '{"height_m": 530}', "--context", EIFFEL_CTX, "--fail-on-hallucination"))


@case("7 numbers/JSON/citations", '{"height_m": 530} with a schema saying height_m is a number')
def sp7_json_number_field_schema(root: Path, tmp: Path) -> dict[str, Any]:
    schema = tmp / "schema.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"height_m": {"type": "number"}}}))
    return check_exit(*cli("check", "--answer", '{"height_m": 530}', "--schema", str(schema), "--context", EIFFEL_CTX,
                           "--fail-on-hallucination"))


@case("7 numbers/JSON/citations", "NUL byte inside the number: 'The Eiffel Tower is 5\\x0030 metres tall.' (API)")
def sp7_nul_in_number(root: Path, tmp: Path) -> dict[str, Any]:
    from guardrail import Guardrail

    return report_outcome(Guardrail().check("The Eiffel Tower is 5\x0030 metres tall.", EIFFEL_CTX))


@case("7 numbers/JSON/citations", "claim scored 0.20 unsupported (threshold 0.12) cites [1]: does [1] 'support' it? (API)")
def sp7_citation_support_threshold(root: Path, tmp: Path) -> dict[str, Any]:
    from guardrail import Guardrail

    report = Guardrail().check("It was completed in 1889 for the Olympic Games [1].", EIFFEL_FULL)
    score = max((v.hallucination_score for v in report.verdicts), default=None)
    cited = [c for c in (report.citations.results if report.citations else []) if c.marker == "[1]"]
    if not cited:
        return result("caught", f"citation [1] not judged (skipped: {[s.check for s in report.skipped]})")
    if cited[0].supports:
        return result("silent_pass", f"[1] counted as supporting a claim scored {score} at threshold {report.threshold}")
    return result("caught", f"[1] does not support the claim (claim score {score}, threshold {report.threshold})")


# ============================================================================ crashes


@case("crash", "JSON answer nested 1000 deep (API Guardrail.check)")
def crash_json_depth_api(root: Path, tmp: Path) -> dict[str, Any]:
    from guardrail import Guardrail

    report = Guardrail().check('{"a": ' * 1000 + "1" + "}" * 1000, EIFFEL_CTX)
    return result("silent_pass", f"checked without complaint: {len(report.claims)} claims, hallucinated={report.hallucinated}")


@case("crash", "check --schema with a JSON Schema nested 1000 deep")
def crash_schema_depth_cli(root: Path, tmp: Path) -> dict[str, Any]:
    schema = tmp / "deep.json"
    schema.write_text('{"items": ' * 1000 + '{"type": "number"}' + "}" * 1000)
    rc, _out, err = cli("check", "--answer", "[530]", "--schema", str(schema), "--context", EIFFEL_CTX)
    return cli_failure(rc, err) or result("silent_pass", f"exit {rc}, the schema was used")


@case("crash", "guard with a tenant policy nested 5000 deep")
def crash_policy_depth_guard(root: Path, tmp: Path) -> dict[str, Any]:
    pol = copy_policies(root, tmp)
    (pol / "tenants" / "deep.yaml").write_text("extends: default\ndescription: " + "[" * 5000 + "]" * 5000 + "\n")
    d, failed = guard_cli(root, "deep", EIFFEL_530, EIFFEL_CTX, policies=pol)
    return failed or result("silent_pass", f"the policy loaded; decision {d['action']}")


def _batch_input(tmp: Path) -> Path:
    src = tmp / "in.jsonl"
    src.write_text(json.dumps({"id": "a", "response": EIFFEL_530, "context": EIFFEL_CTX}) + "\n")
    return src


@case("crash", "check-batch --output an existing directory")
def crash_batch_output_directory(root: Path, tmp: Path) -> dict[str, Any]:
    (tmp / "outdir").mkdir()
    rc, _out, err = cli("check-batch", "--input", str(_batch_input(tmp)), "--output", str(tmp / "outdir"), "--no-progress")
    return cli_failure(rc, err) or result("silent_pass", f"exit {rc}: {_last_line(err)}")


@case("crash", "check-batch --output under a regular file (unwritable path)")
def crash_batch_output_unwritable(root: Path, tmp: Path) -> dict[str, Any]:
    (tmp / "afile").write_text("x")
    rc, _out, err = cli("check-batch", "--input", str(_batch_input(tmp)), "--output", str(tmp / "afile" / "out.jsonl"), "--no-progress")
    return cli_failure(rc, err) or result("silent_pass", f"exit {rc}: {_last_line(err)}")


@case("crash", "check --verifier judge --llm-timeout -1")
def crash_llm_timeout_negative(root: Path, tmp: Path) -> dict[str, Any]:
    rc, _out, err = cli("check", "--verifier", "judge", "--llm-base-url", DEAD_LLM, "--llm-model", "x", "--llm-timeout", "-1",
                       "--answer", EIFFEL_530, "--context", EIFFEL_CTX)
    return cli_failure(rc, err) or result("silent_pass", f"exit {rc}: a negative timeout was accepted")


@case("crash", "guard() with a custom verifier raising ZeroDivisionError (healthcare: fail closed)")
def crash_custom_verifier_raises(root: Path, tmp: Path) -> dict[str, Any]:
    from guardrail import Guardrail
    from guardrail.policy import PolicyStore, guard

    class Broken:
        name = "broken"

        def verify(self, items, batch_size: int = 32):
            return [1 / 0 for _ in items]

    g = Guardrail(Broken(), threshold=0.5)
    d = guard(TRUE_CITED, [ASPIRIN_CTX], check=g.check, policy=PolicyStore(root / "policies").get("healthcare"))
    if d.action.value == "respond":
        return result("silent_pass", f"respond ({d.code.value}) although the verifier failed")
    return result("caught", f"{d.action.value} ({d.code.value}): {'; '.join(r.message for r in d.reasons)[:100]}")


# ============================================================================ stalls


ALIAS_BOMB = "".join(
    ["# nine levels of nine aliases: 9**9 leaves\nextends: default\ndescription: bomb\n"]
    + [f'{chr(97)}: &{chr(97)} ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n']
    + [f"{chr(97 + i)}: &{chr(97 + i)} [{','.join(['*' + chr(96 + i)] * 9)}]\n" for i in range(1, 9)]
)


def _bomb_store(root: Path, tmp: Path):
    from guardrail.policy import PolicyStore

    pol = copy_policies(root, tmp)
    (pol / "tenants" / "bomb.yaml").write_text(ALIAS_BOMB)
    (pol / "tenants" / "calm.yaml").write_text("extends: default\ndescription: an ordinary tenant\n")
    return PolicyStore(pol)


@case("stall", f"YAML alias bomb ({len(ALIAS_BOMB)} bytes) as a tenant policy: PolicyStore.get")
def stall_alias_bomb(root: Path, tmp: Path) -> dict[str, Any]:
    store = _bomb_store(root, tmp)
    store.get("bomb")
    return result("silent_pass", "the alias bomb loaded as a policy")


@case("stall", "another tenant's PolicyStore.get while the alias bomb loads (one global lock?)")
def stall_alias_bomb_other_tenant(root: Path, tmp: Path) -> dict[str, Any]:
    from guardrail.errors import GuardrailError

    store = _bomb_store(root, tmp)
    bomb: dict[str, Any] = {}

    def load_bomb() -> None:
        try:
            store.get("bomb")
            bomb["outcome"] = "loaded"
        except GuardrailError as exc:
            bomb["outcome"] = f"{type(exc).__name__}: {exc}"[:120]
        except Exception as exc:  # noqa: BLE001 - reported in the detail
            bomb["outcome"] = f"traceback {type(exc).__name__}"

    t = threading.Thread(target=load_bomb, daemon=True)
    t.start()
    time.sleep(0.5)
    t0 = time.perf_counter()
    store.get("calm")
    waited = time.perf_counter() - t0
    t.join(timeout=max(HANG_S - waited, 0.1))
    return result("caught", f"calm tenant served in {waited:.2f} s; bomb: {bomb.get('outcome', 'still loading')}", op_s=waited)


@case("stall", "a 50 MB tenant policy (a long description): PolicyStore.get")
def stall_policy_50mb(root: Path, tmp: Path) -> dict[str, Any]:
    from guardrail.policy import PolicyStore

    pol = copy_policies(root, tmp)
    line = "  " + " ".join(["the quick brown fox jumps over the lazy dog"] * 2) + "\n"
    with (pol / "tenants" / "big.yaml").open("w") as fh:
        fh.write("extends: default\ndescription: >-\n")
        fh.write(line * (50_000_000 // len(line)))
    PolicyStore(pol).get("big")
    return result("silent_pass", "a 50 MB policy loaded")


def _markers(n: int) -> dict[str, Any]:
    from guardrail import Guardrail

    answer = "The Eiffel Tower is 330 metres tall" + " [1]" * n + "."
    t0 = time.perf_counter()
    report = Guardrail().check(answer, EIFFEL_FULL)
    took = time.perf_counter() - t0
    skipped = [s.check for s in report.skipped]
    return result("caught", f"checked in {took:.1f} s; hallucinated={report.hallucinated}, skipped={skipped}", op_s=took)


@case("stall", "2,000 repeated [1] markers after one true claim (API)")
def stall_markers_2000(root: Path, tmp: Path) -> dict[str, Any]:
    return _markers(2_000)


@case("stall", "50,000 repeated [1] markers after one true claim (API)")
def stall_markers_50000(root: Path, tmp: Path) -> dict[str, Any]:
    return _markers(50_000)


# ============================================================================ smaller items


@case("smaller", "guard with AuditLog(redact=True): evidence id and source path stored in clear?")
def small_redact_keeps_evidence_ids(root: Path, tmp: Path) -> dict[str, Any]:
    from guardrail import Guardrail
    from guardrail.policy import AuditLog, PolicyStore, guard

    secret_id, secret_path = "patient-jane-doe-record", "/records/jane-doe/discharge.pdf"
    db = tmp / "audit.db"
    audit = AuditLog(db, redact=True)
    try:
        guard(f"Adults may take 300 mg of aspirin every four hours [{secret_id}].",
              [{"id": secret_id, "text": ASPIRIN_CTX, "source": secret_path}], check=Guardrail().check,
              policy=PolicyStore(root / "policies").get("default"), audit=audit, tenant="t")
    finally:
        audit.close()
    blob = b"".join(p.read_bytes() for p in tmp.glob("audit.db*"))
    found = [s for s in (secret_id, secret_path) if s.encode() in blob]
    if found:
        return result("silent_pass", f"stored in clear: {found}")
    return result("caught", "neither the evidence id nor its path is in the audit database")


@case("smaller", "check table shows the evidence id [leaflet] (rich markup must not eat it)")
def small_rich_markup_ids(root: Path, tmp: Path) -> dict[str, Any]:
    ctx = tmp / "ctx.json"
    ctx.write_text(json.dumps([{"id": "leaflet", "text": EIFFEL_CTX}]))
    # No marker in the answer: "[leaflet]" can only come from the table's evidence column.
    rc, out, err = cli("check", "--answer", "The Eiffel Tower is 330 metres tall.", "--context-file", str(ctx))
    failed = cli_failure(rc, err)
    if failed:
        return failed
    if "[leaflet] The Eiffel" in out:
        return result("caught", "[leaflet] printed literally in the evidence column")
    return result("silent_pass", "the table dropped [leaflet] (read as a rich style tag)")


@case("smaller", "check --top-k 0")
def small_top_k_zero(root: Path, tmp: Path) -> dict[str, Any]:
    rc, _out, err = cli("check", "--top-k", "0", "--answer", EIFFEL_530, "--context", EIFFEL_CTX)
    return cli_failure(rc, err) or result("silent_pass", f"exit {rc}: --top-k 0 accepted (ignored)")


@case("smaller", "audit --last -5 on a log of 3 decisions")
def small_audit_last_negative(root: Path, tmp: Path) -> dict[str, Any]:
    from guardrail import Guardrail
    from guardrail.policy import AuditLog, PolicyStore, guard

    db, g = tmp / "audit.db", Guardrail()
    policy = PolicyStore(root / "policies").get("default")
    with AuditLog(db) as audit:
        for answer in (EIFFEL_530, "The gift shop is in room 530.", "The Eiffel Tower is 330 metres tall."):
            guard(answer, EIFFEL_CTX, check=g.check, policy=policy, audit=audit, tenant="t")
    rc, out, err = cli("audit", "--db", str(db), "--last", "-5", "--json")
    failed = cli_failure(rc, err)
    if failed:
        return failed
    return result("silent_pass", f"exit {rc}: listed {len(json.loads(out))} decision(s)")


@case("smaller", "caveat template '{text} [{text.__class__.__mro__}]' in a tenant policy")
def small_caveat_template_attribute(root: Path, tmp: Path) -> dict[str, Any]:
    from guardrail import Guardrail
    from guardrail.policy import PolicyStore, guard

    pol = copy_policies(root, tmp)
    (pol / "tenants" / "t.yaml").write_text(textwrap.dedent("""\
        extends: default
        rules:
          contradiction: {action: caveat}
          unsupported: {action: caveat}
        caveat:
          style: inline
          inline_template: "{text} [{text.__class__.__mro__}]"
        """))
    policy = PolicyStore(pol).get("t")
    d = guard(EIFFEL_530, EIFFEL_CTX, check=Guardrail().check, policy=policy)
    if "<class" in d.final_text:
        return result("silent_pass", f"template resolved attributes: {d.final_text[:90]!r}")
    return result("caught", f"accepted, but rendered without attribute access ({d.action.value}: {d.final_text[:60]!r})")


@case("smaller", "extends: an absolute path outside the policy folder")
def small_extends_outside(root: Path, tmp: Path) -> dict[str, Any]:
    from guardrail.policy import PolicyStore

    pol = copy_policies(root, tmp)
    outside = tmp / "elsewhere"
    outside.mkdir()
    (outside / "lenient.yaml").write_text("extends: " + str(pol / "default.yaml") + "\nclaims:\n  on_no_claims: respond\n")
    (pol / "tenants" / "t.yaml").write_text(f"extends: {outside / 'lenient.yaml'}\n")
    policy = PolicyStore(pol).get("t")
    return result("silent_pass", f"loaded policy {policy.name!r} through {outside / 'lenient.yaml'}")


def _tenant_store(root: Path, tmp: Path, body: str):
    from guardrail.policy import PolicyStore

    pol = copy_policies(root, tmp)
    path = pol / "tenants" / "t.yaml"
    path.write_text(body)
    return PolicyStore(pol), path


@case("smaller", "tenant file edited with the same size and mtime: PolicyStore reloads?")
def small_reload_same_size_mtime(root: Path, tmp: Path) -> dict[str, Any]:
    store, path = _tenant_store(root, tmp, "extends: default\nclaims:\n  on_no_claims: respond\n")
    before = store.get("t").claims.on_no_claims.value
    st = path.stat()
    with path.open("r+") as fh:  # same inode, same size
        fh.write("extends: default\nclaims:\n  on_no_claims: abstain\n")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    after = store.get("t").claims.on_no_claims.value
    if after == before:
        return result("silent_pass", f"still serving on_no_claims={after} after the edit")
    return result("caught", f"reloaded: on_no_claims {before} -> {after}")


@case("smaller", "tenant file deleted: PolicyStore still serves it?")
def small_deleted_tenant_served(root: Path, tmp: Path) -> dict[str, Any]:
    store, path = _tenant_store(root, tmp, "extends: default\ndescription: soon gone\n")
    store.get("t")
    path.unlink()
    policy = store.get("t")
    return result("silent_pass", f"deleted tenant still served ({policy.description!r})")


@case("smaller", "LlamaIndex engine answers the 'Empty Response' placeholder: checked as a claim?")
def small_llamaindex_empty_response(root: Path, tmp: Path) -> dict[str, Any]:
    from guardrail_llamaindex import GuardedQueryEngine
    from llama_index.core.base.response.schema import Response
    from llama_index.core.query_engine import CustomQueryEngine

    from guardrail import Guardrail
    from guardrail.policy import PolicyStore

    class PlaceholderEngine(CustomQueryEngine):
        def custom_query(self, query_str: str) -> Response:
            return Response(response="Empty Response", source_nodes=[])

    guarded = GuardedQueryEngine(PlaceholderEngine(), guardrail=Guardrail(), policy=PolicyStore(root / "policies"), tenant="default")
    resp = guarded.query("How tall is the Eiffel Tower?")
    d = resp.metadata.get("guardrail")
    claims = [c.text for c in d.report.claims] if d is not None and d.report is not None else []
    shown = resp.response or ""
    if "Empty Response" in shown or any("Empty Response" in c for c in claims):
        where = "shown to the user" if "Empty Response" in shown else f"checked as claim(s) {claims}"
        return result("silent_pass", f"the placeholder was taken as an answer: {where}; decision "
                                     f"{d.action.value + ' (' + d.code.value + ')' if d else None}")
    return result("caught", f"no claim checked; {d.action.value} ({d.code.value}); shown {shown[:60]!r}")


# ============================================================================ controls


@case("control", "true Eiffel answer (330 m): check --fail-on-hallucination exits 0", control=True)
def ctl_eiffel_true(root: Path, tmp: Path) -> dict[str, Any]:
    rc, _out, _err = cli("check", "--answer", "The Eiffel Tower is 330 metres tall.", "--context", EIFFEL_CTX, "--fail-on-hallucination")
    return result("pass" if rc == 0 else "false_alarm", f"exit {rc}")


@case("control", "one cited true dose alone: guard healthcare responds", control=True)
def ctl_healthcare_true(root: Path, tmp: Path) -> dict[str, Any]:
    d, failed = guard_cli(root, "healthcare", TRUE_CITED, ASPIRIN_CTX)
    if failed:
        return {**failed, "outcome": "false_alarm"}
    return result("pass" if d["action"] == "respond" else "false_alarm", f"{d['action']} ({d['code']})")


# ============================================================================ worker and harness


def worker(name: str) -> int:
    """Runs one case in this process and prints its result as one tagged JSON line."""
    root = Path(os.environ["ISSUE15_REPO"])
    c = CASES[name]
    with tempfile.TemporaryDirectory(prefix=f"issue15-{name}-") as d:
        t0 = time.perf_counter()
        try:
            out = c.run(root, Path(d))
        except subprocess.TimeoutExpired as exc:
            out = result("hang", f"a command ran past {exc.timeout} s")
        except Exception as exc:  # noqa: BLE001 - the classification is the point
            from guardrail.errors import GuardrailError

            kind = "clear_error" if isinstance(exc, GuardrailError) and str(exc).strip() else "traceback"
            out = result(kind, f"{type(exc).__name__}: {str(exc).splitlines()[0][:160] if str(exc) else ''}")
            if c.control:
                out["outcome"] = "false_alarm"
        out.setdefault("op_s", round(time.perf_counter() - t0, 2))
    print(RESULT_TAG + json.dumps(out), flush=True)
    return 0


def run_case(name: str, repo: Path) -> dict[str, Any]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
           "PYTHONPATH": f"{repo}{os.pathsep}{repo / 'integrations'}", "ISSUE15_REPO": str(repo), "PYTHONDONTWRITEBYTECODE": "1"}
    t0 = time.perf_counter()
    # A new session: on timeout the whole group (the worker and any CLI it started) is killed.
    proc = subprocess.Popen([sys.executable, str(HERE), "--worker", name], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, cwd=tempfile.gettempdir(), start_new_session=True)
    try:
        out, err = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return {"outcome": "hang", "detail": f"killed after {TIMEOUT_S:.0f} s", "elapsed_s": round(time.perf_counter() - t0, 1)}
    elapsed = round(time.perf_counter() - t0, 1)
    tagged = [ln[len(RESULT_TAG):] for ln in out.splitlines() if ln.startswith(RESULT_TAG)]
    if tagged:
        res = json.loads(tagged[-1])
    elif "Traceback (most recent call last)" in err or proc.returncode:
        res = result("traceback", f"worker died (exit {proc.returncode}): {_last_line(err)}")
    else:
        res = result("traceback", "worker printed no result")
    res["elapsed_s"] = elapsed
    if elapsed > HANG_S and not CASES[name].control:
        res["detail"] = f"took {elapsed:.0f} s (> {HANG_S:.0f} s); would have been {res['outcome']}: {res['detail']}"
        res["outcome"] = "hang"
    return res


def git_head(repo: Path) -> str:
    try:
        return subprocess.run(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], check=False, capture_output=True, text=True).stdout.strip()
    except OSError:
        return "?"


def table(after: dict[str, Any], before: dict[str, Any] | None, markdown: bool) -> str:
    cols = ["case", "reproduction"] + (["before", "after"] if before else ["outcome"])
    rows, controls = [], []
    for name, c in CASES.items():
        if name not in after["results"]:
            continue
        cells = [name, c.what]
        if before:
            b = before["results"].get(name)
            cells.append(b["outcome"] if b else "-")
        cells.append(after["results"][name]["outcome"])
        (controls if c.control else rows).append(cells)
    totals = []
    for outcome in OUTCOMES:
        cells = [f"**{outcome}**" if markdown else outcome, "total"]
        for run in ([before] if before else []) + [after]:
            cells.append(str(sum(1 for n, r in run["results"].items() if n in CASES and not CASES[n].control
                                 and n in after["results"] and r["outcome"] == outcome)))
        totals.append(cells)
    cases_row = ["**cases tried**" if markdown else "cases tried", "total"] + [str(len(rows))] * (2 if before else 1)
    if markdown:
        def md(rs: list[list[str]]) -> list[str]:
            return ["| " + " | ".join(r) + " |" for r in rs]

        lines = md([cols]) + ["|" + "---|" * len(cols)] + md(rows) + md([cases_row] + totals)
        if controls:
            lines += ["", "Controls (true answers that must pass):", ""] + md([cols]) + ["|" + "---|" * len(cols)] + md(controls)
        return "\n".join(lines)
    widths = [max(len(r[i]) for r in [cols] + rows + controls + totals + [cases_row]) for i in range(len(cols))]
    widths[1] = min(widths[1], 70)

    def fmt(r: list[str]) -> str:
        return "  ".join((r[i][:widths[i]]).ljust(widths[i]) for i in range(len(cols)))

    lines = [fmt(cols), fmt(["-" * w for w in widths])] + [fmt(r) for r in rows] + [fmt(["-" * w for w in widths]), fmt(cases_row)]
    lines += [fmt(r) for r in totals]
    if controls:
        lines += ["", "controls (true answers that must pass):"] + [fmt(r) for r in controls]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repo", type=Path, default=DEFAULT_REPO, help="checkout whose code the cases run (default: this one)")
    p.add_argument("--json", type=Path, help="write every case's outcome, detail and time here")
    p.add_argument("--only", action="append", default=[], help="run only this case (repeatable; a prefix selects several)")
    p.add_argument("--before", type=Path, help="a --json file of an earlier run, shown as the 'before' column")
    p.add_argument("--markdown", action="store_true", help="print the table as markdown")
    p.add_argument("--list", action="store_true", help="list the cases and exit")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        return worker(args.worker)
    if args.list:
        for c in CASES.values():
            print(f"{c.name:42} {c.group:26} {c.what}")
        return 0
    names = [n for n in CASES if not args.only or any(n == o or n.startswith(o) for o in args.only)]
    if not names:
        p.error(f"--only matches no case: {args.only} (see --list)")
    repo = args.repo.resolve()
    if not (repo / "guardrail" / "__init__.py").is_file():
        p.error(f"--repo {repo}: no guardrail package there")
    run: dict[str, Any] = {"repo": str(repo), "commit": git_head(repo), "hang_s": HANG_S, "timeout_s": TIMEOUT_S, "results": {}}
    for name in names:
        res = run_case(name, repo)
        run["results"][name] = res
        print(f"{name:42} {res['outcome']:12} {res['elapsed_s']:6.1f} s  {res['detail'][:110]}", file=sys.stderr, flush=True)
    if args.json:
        args.json.write_text(json.dumps(run, indent=2))
    before = json.loads(args.before.read_text()) if args.before else None
    print(table(run, before, args.markdown))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
