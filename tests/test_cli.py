"""The command line, end to end: real parsing, real pipeline, files and stdin."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from guardrail.cli import main

WRONG = "The Eiffel Tower was completed in 1887 in Lyon."
CONTEXT = "The Eiffel Tower was completed in 1889 in Paris."


def test_check_json_flags_wrong_facts(capsys):
    assert main(["check", "--answer", WRONG, "--context", CONTEXT, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["hallucinated"] is True
    assert report["verdicts"][0]["label"] in ("contradicted", "unsupported")
    reason = report["verdicts"][0]["reason"].lower()
    assert "1887" in reason and "lyon" in reason, "both wrong facts must be named"


def test_check_table_and_exit_code(capsys):
    assert main(["check", "--answer", WRONG, "--context", CONTEXT, "--fail-on-hallucination"]) == 1
    out = capsys.readouterr().out
    assert "HALLUCINATION FLAGGED" in out and "1887" in out


def test_check_reads_files_and_stdin(tmp_path, monkeypatch, capsys):
    doc = tmp_path / "paris.txt"
    doc.write_text(CONTEXT, encoding="utf-8")

    class _Stdin:
        buffer = __import__("io").BytesIO(WRONG.encode())

    monkeypatch.setattr(sys, "stdin", _Stdin)
    assert main(["check", "--answer", "-", "--context-file", str(doc), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["evidence"][0]["id"] == "paris" and report["hallucinated"]


def test_check_bad_input_names_the_problem(tmp_path, capsys):
    bad = tmp_path / "answer.txt"
    bad.write_bytes(b"caf\xe9")
    assert main(["check", "--answer-file", str(bad), "--context", CONTEXT]) == 2
    assert "not valid UTF-8" in capsys.readouterr().err
    assert main(["check", "--answer", "", "--context", CONTEXT]) == 2
    assert "empty" in capsys.readouterr().err
    assert main(["check", "--answer-file", str(tmp_path / "nope.txt"), "--context", CONTEXT]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_check_batch_reports_bad_lines_and_goes_on(tmp_path, capsys):
    src = tmp_path / "in.jsonl"
    lines = [
        json.dumps({"id": "ok", "context": CONTEXT, "response": CONTEXT}).encode(),
        b"{not json",
        json.dumps({"id": "wrong", "context": [CONTEXT], "response": WRONG}).encode(),
        b"\xff\xfe garbage",
        json.dumps({"id": "noresp", "context": CONTEXT}).encode(),
        json.dumps({"id": "empty", "context": CONTEXT, "response": ""}).encode(),
        json.dumps({"id": "nocontext", "response": WRONG}).encode(),
    ]
    src.write_bytes(b"\n".join(lines) + b"\n")
    out = tmp_path / "out.jsonl"
    assert main(["check-batch", "--input", str(src), "--output", str(out), "--no-progress"]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["line"] for r in rows] == [1, 2, 3, 4, 5, 6, 7]
    assert rows[0]["hallucinated"] is False and rows[0]["claims"][0]["label"] == "supported"
    assert "line 2" in rows[1]["error"] and "not JSON" in rows[1]["error"]
    assert rows[2]["hallucinated"] is True
    claim = rows[2]["claims"][0]
    assert WRONG[claim["start"] : claim["end"]] == claim["text"]
    assert {"start", "end", "text", "label", "confidence", "evidence"} <= set(claim)
    assert "UTF-8" in rows[3]["error"]
    assert "response" in rows[4]["error"]
    assert "empty" in rows[5]["error"]
    assert rows[6]["complete"] is False and rows[6]["claims"][0]["label"] == "unevaluatable"
    assert "checked 3 answers, 1 flagged, 4 lines with errors" in capsys.readouterr().err


@pytest.mark.data
def test_check_batch_on_ragtruth_rows(tmp_path, shared_data):
    src = tmp_path / "rt.jsonl"
    with gzip.open(shared_data / "ragtruth" / "ragtruth_train.jsonl.gz", "rt") as f, src.open("w") as out:
        for i, line in zip(range(40), f):
            row = json.loads(line)
            out.write(json.dumps({"id": row["id"], "question": row["query"], "context": row["context"], "response": row["response"]}) + "\n")
    dst = tmp_path / "out.jsonl"
    assert main(["check-batch", "--input", str(src), "--output", str(dst), "--no-progress"]) == 0
    rows = [json.loads(line) for line in dst.read_text().splitlines()]
    assert len(rows) == 40 and all("error" not in r for r in rows)
    assert all(0.0 <= r["hallucination_score"] <= 1.0 for r in rows)


def test_installed_entry_point_runs_demo():
    exe = Path(sys.executable).with_name("guardrail")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "guardrail.cli"]
    proc = subprocess.run([*cmd, "demo"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "faithful answer" in proc.stdout
    assert "HALLUCINATION FLAGGED" in proc.stdout


# ---------------------------------------------------------------------------- LLM judge from the CLI

from openai_stub import Reply, openai_stub  # noqa: E402,F401  (fixture)


def _judge_reply(label: str, quote: str) -> str:
    return json.dumps(
        {"reasoning": "compare the year with the evidence", "label": label, "confidence": 0.9,
         "evidence_quote": quote, "evidence_window": 1, "error_type": "temporal" if label != "supported" else None}
    )


def test_check_with_llm_judge(openai_stub, capsys):
    openai_stub.add(_judge_reply("contradicted", "completed in 1889"))
    argv = ["check", "--answer", WRONG, "--context", CONTEXT, "--json", "--verifier", "judge",
            "--llm-base-url", openai_stub.base_url, "--llm-model", "stub"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["verifier"] == "llm-judge" and report["hallucinated"] is True
    assert report["verdicts"][0]["label"] == "contradicted"
    assert "1889" in openai_stub.requests[0]["json"]["messages"][-1]["content"]


def test_check_with_llm_judge_down_is_never_a_pass(openai_stub, capsys):
    for _ in range(6):
        openai_stub.add(Reply(status=500))
    argv = ["check", "--answer", WRONG, "--context", CONTEXT, "--json", "--verifier", "judge",
            "--llm-base-url", openai_stub.base_url, "--llm-model", "stub", "--llm-timeout", "5"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["verdicts"][0]["label"] == "unevaluatable"
    assert "500" in report["verdicts"][0]["reason"]


def test_judge_without_llm_is_a_clear_error(capsys):
    assert main(["check", "--answer", WRONG, "--context", CONTEXT, "--verifier", "judge"]) == 2
    assert "needs an LLM" in capsys.readouterr().err


# --------------------------------------------------------------------------- bad arguments: a clear error, never a traceback


def batch_input(tmp_path: Path) -> Path:
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps({"id": "a", "response": WRONG, "context": CONTEXT}) + "\n", encoding="utf-8")
    return path


def test_check_batch_output_is_a_directory(tmp_path, capsys):
    src = batch_input(tmp_path)
    before = src.read_bytes()
    assert main(["check-batch", "--input", str(src), "--output", str(tmp_path), "--verifier", "heuristic", "--no-progress"]) == 2
    assert "is a directory" in capsys.readouterr().err
    assert src.read_bytes() == before


def test_check_batch_output_cannot_be_created(tmp_path, capsys):
    src = batch_input(tmp_path)
    blocker = tmp_path / "file.txt"
    blocker.write_text("x", encoding="utf-8")
    assert main(["check-batch", "--input", str(src), "--output", str(blocker / "out.jsonl"), "--verifier", "heuristic",
                 "--no-progress"]) == 2
    assert "cannot write --output" in capsys.readouterr().err


def test_check_batch_output_is_the_input_and_the_input_is_kept(tmp_path, capsys):
    src = batch_input(tmp_path)
    before = src.read_bytes()
    assert main(["check-batch", "--input", str(src), "--output", str(src), "--verifier", "heuristic", "--no-progress"]) == 2
    assert "is the --input file" in capsys.readouterr().err
    assert src.read_bytes() == before


def test_check_batch_still_writes_a_good_output(tmp_path, capsys):
    src = batch_input(tmp_path)
    out = tmp_path / "new" / "out.jsonl"
    assert main(["check-batch", "--input", str(src), "--output", str(out), "--verifier", "heuristic", "--no-progress"]) == 0
    assert json.loads(out.read_text(encoding="utf-8").splitlines()[0])["id"] == "a"


@pytest.mark.parametrize(("argv", "words"), [
    (["check", "--answer", "x", "--llm-timeout", "-1"], "must be a positive number"),
    (["check", "--answer", "x", "--llm-timeout", "0"], "must be a positive number"),
    (["check", "--answer", "x", "--llm-timeout", "nan"], "must be a positive number"),
    (["check", "--answer", "x", "--top-k", "0"], "must be at least 1"),
    (["check-batch", "--input", "i", "--output", "o", "--top-k", "-3"], "must be at least 1"),
    (["guard", "--tenant", "t", "--policies", ".", "--answer", "x", "--llm-timeout", "-1"], "must be a positive number"),
    (["audit", "--db", "x.db", "--last", "-5"], "must be at least 1"),
    (["audit", "--db", "x.db", "--last", "0"], "must be at least 1"),
    (["eval", "--dataset", "x.jsonl", "--limit", "0"], "must be at least 1"),
])
def test_bad_numbers_are_usage_errors(argv, words, capsys):
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_audit_last_refuses_a_negative_count_in_the_api_too(tmp_path):
    from guardrail.errors import InputError
    from guardrail.policy import AuditLog

    with AuditLog(tmp_path / "a.db") as log, pytest.raises(InputError, match="at least 1"):
        log.last(-5)


def test_check_schema_nested_too_deep_names_the_file(tmp_path, capsys):
    schema = tmp_path / "deep.json"
    schema.write_text("{\n" + '{"items": ' * 1000 + "{}" + "}" * 1000 + "\n}", encoding="utf-8")
    assert main(["check", "--answer", "[1]", "--context", CONTEXT, "--schema", str(schema), "--verifier", "heuristic"]) == 2
    err = capsys.readouterr().err
    assert f"schema file {schema}" in err and "line 2" in err and "max_json_depth" in err


def test_check_deep_json_answer_is_exit_2(capsys):
    assert main(["check", "--answer", "[" * 1000 + "]" * 1000, "--context", CONTEXT, "--verifier", "heuristic"]) == 2
    assert "max_json_depth" in capsys.readouterr().err


def test_tables_show_bracketed_ids_literally(capsys):
    """rich read "[1]" and "[doc-id]" as markup and dropped them from the table."""
    from rich.console import Console

    from guardrail import Guardrail
    from guardrail.policy import Policy, decide
    from guardrail.policy.cli import print_decision
    from guardrail.render import print_report

    answer = "The Eiffel Tower was completed in 1887 [doc-id]. See [1]."
    report = Guardrail("heuristic").check(answer, [{"id": "doc-id", "text": CONTEXT}])
    console = Console(record=True, width=200)
    print_report(report, console=console)
    print_decision(decide(report, Policy()), console=console)
    out = console.export_text()
    assert "│ [doc-id] 1889" in out  # the evidence column
    assert "1887 [doc-id]. See" in out and "[1]." in out  # the claim column and the final text
    assert "[doc-id] (does not support), [1] (does not support)" in out  # the reasons table


def test_context_file_nested_too_deep_is_a_clear_error(tmp_path, capsys):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 5000 + "]" * 5000)
    code = main(["check", "--answer", "The sky is blue.", "--context-file", str(deep), "--verifier", "heuristic"])
    err = capsys.readouterr().err
    assert code == 2 and "deep.json" in err and "Traceback" not in err
