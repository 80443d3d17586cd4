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
    rows = [json.loads(l) for l in out.read_text().splitlines()]
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
    rows = [json.loads(l) for l in dst.read_text().splitlines()]
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
