"""Report files: valid JSON that reads back, Markdown tables, HTML that references real PNGs."""

from __future__ import annotations

import builtins
import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from openai_stub import Reply, ScriptedOpenAI
from test_eval_runner import ScriptedVerifier, _paired

from guardrail.errors import BackendError
from guardrail.eval.report import markdown, write_report
from guardrail.eval.runner import EvalConfig, EvalResult, run_eval
from guardrail.eval.types import EvalExample


@pytest.fixture(scope="module")
def result() -> EvalResult:
    examples, scores = _paired(8)
    # A second dataset with two tasks, so the per-dataset and per-task tables both appear.
    for i in range(8):
        text = f"Other claim {i}."
        scores[text] = 0.9 if i % 2 else 0.1
        examples.append(EvalExample(id=f"other:{i}", dataset="other", task="QA" if i < 4 else "Summary",
                                    context="Some context.", response=text, hallucinated=bool(i % 2), group=f"o{i}"))
    examples.append(EvalExample(id="other:boom", dataset="other", task="QA", context="c", response="It goes BOOM.",
                                hallucinated=True, group="ob"))
    return run_eval(examples, [EvalConfig(name="fake", verifier="scripted", threshold=0.5),
                               EvalConfig(name="fake-0.4", verifier="scripted", threshold=0.4)],
                    verifier_factory=lambda spec, llm: ScriptedVerifier(scores), progress=False)


def test_markdown_tables(result):
    md = markdown(result)
    assert md.startswith("# Evaluation: toy, other")
    for heading in ("## All datasets", "## toy", "## other", "### other per task", "## Claim-level proxies"):
        assert heading in md
    header = next(line for line in md.splitlines() if line.startswith("| config |"))
    rows = [line for line in md.splitlines()
            if line.startswith("| fake-0.4 (scripted) |") and len(line.split("|")) == len(header.split("|"))]
    assert len(rows) == 3  # overall, toy, other (the proxy table has fewer columns)
    toy_row = rows[1].split(" | ")
    # policy 0.4 flags the 0.45s: F1 1.0 on toy; n 8 of which 4 hallucinated.
    assert toy_row[1] == "8 (4)" and toy_row[4:8] == ["0.4", "1.000", "1.000", "1.000"]
    lenient_toy = [line for line in md.splitlines() if line.startswith("| fake (scripted) |")][1].split(" | ")
    assert lenient_toy[4:8] == ["0.5", "0.000", "0.000", "0.000"]
    assert "could not be checked" in md  # the BOOM example is reported, not hidden


def test_write_report_files(result, tmp_path):
    files = write_report(result, tmp_path / "out")
    data = json.loads(files["json"].read_text(encoding="utf-8"))
    assert EvalResult.model_validate(data) == result
    assert files["markdown"].read_text(encoding="utf-8") == markdown(result)

    pngs = {k: p for k, p in files.items() if k.endswith(".png")}
    assert set(pngs) == {"pr_toy.png", "pr_other.png", "reliability_fake.png", "reliability_fake-0.4.png"}
    for p in pngs.values():
        blob = p.read_bytes()
        assert blob.startswith(b"\x89PNG\r\n\x1a\n") and len(blob) > 5000

    class Collect(HTMLParser):
        def __init__(self):
            super().__init__()
            self.images, self.open_tags, self.tables = [], [], 0

        def handle_starttag(self, tag, attrs):
            if tag == "img":
                self.images.append(dict(attrs)["src"])
            elif tag == "table":
                self.tables += 1
            if tag not in ("img", "meta"):
                self.open_tags.append(tag)

        def handle_endtag(self, tag):
            assert self.open_tags and self.open_tags[-1] == tag, f"unbalanced </{tag}>"
            self.open_tags.pop()

    parser = Collect()
    page = files["html"].read_text(encoding="utf-8")
    parser.feed(page)
    assert parser.open_tags == [] and parser.tables >= 4
    assert sorted(parser.images) == sorted(f"plots/{k}" for k in pngs)
    assert all((files["html"].parent / src).is_file() for src in parser.images)


def test_missing_matplotlib_names_the_extra_and_keeps_the_results(result, tmp_path, monkeypatch):
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError(f"No module named '{name}'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    with pytest.raises(BackendError, match=r"pip install 'rag-guardrail\[eval\]'"):
        write_report(result, tmp_path / "out")
    assert (tmp_path / "out" / "results.json").is_file() and (tmp_path / "out" / "results.md").is_file()
    assert not (tmp_path / "out" / "report.html").exists()


# ------------------------------------------------------------------------------------------ CLI


def test_verifier_option_parsing():
    from guardrail.errors import InputError
    from guardrail.eval.cli import parse_verifier_option as parse

    def pair(v):
        c = parse(v)
        return c.verifier, c.name

    assert pair("heuristic") == ("heuristic", "heuristic")
    assert pair("heuristic=heur") == ("heuristic", "heur")
    assert pair("selfcheck:n=5") == ("selfcheck:n=5", "selfcheck:n=5")  # an option, not a name
    assert pair("selfcheck:n=5,temperature=1.0=sc") == ("selfcheck:n=5,temperature=1.0", "sc")
    assert pair("hf:/models/nli=deberta") == ("hf:/models/nli", "deberta")
    assert pair("hf:/models/a=b/nli") == ("hf:/models/a=b/nli", "hf:/models/a=b/nli")
    assert parse("judge", threshold=0.3).threshold == 0.3
    with pytest.raises(InputError, match="expected SPEC"):
        parse("=name")
    with pytest.raises(InputError, match="threshold"):
        parse("heuristic", threshold=2.0)


def test_cli_eval_end_to_end(tmp_path, capsys):
    from guardrail.cli import main

    fix = Path(__file__).parent / "fixtures" / "eval"
    out = tmp_path / "report"
    code = main(["eval", "--dataset", str(fix / "plain.jsonl"), "--dataset", str(fix / "halueval_qa.jsonl"),
                 "--verifier", "heuristic=heur", "--verifier", "overlap", "--threshold", "0.5",
                 "--out", str(out), "--no-progress"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "# Evaluation: plain, halueval_qa" in captured.out
    assert "| heur (heuristic) |" in captured.out and "| overlap |" in captured.out
    assert "8 examples: plain 4, halueval_qa 4" in captured.err
    data = json.loads((out / "results.json").read_text())
    assert [c["config"]["name"] for c in data["configs"]] == ["heur", "overlap"]
    assert (out / "report.html").is_file() and any((out / "plots").glob("pr_*.png"))


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--dataset", "no-such-dataset"], "unknown dataset 'no-such-dataset'"),
        (["--dataset", "{fix}/malformed/plain_bad_label.jsonl"], "plain_bad_label.jsonl:3: field 'label'"),
        (["--dataset", "{fix}/plain.jsonl", "--verifier", "nonsense"], "unknown verifier 'nonsense'"),
        (["--dataset", "{fix}/plain.jsonl", "--verifier", "judge"], "needs an LLM"),
        (["--dataset", "{fix}/plain.jsonl", "--threshold", "3"], "--threshold must be within 0..1"),
        (["--dataset", "{fix}/plain.jsonl", "--calibration-fraction", "1"], "calibration_fraction"),
        (["--dataset", "{fix}/plain.jsonl", "--dataset", "{fix}/plain.jsonl"], "loaded twice"),
        (["--dataset", "{fix}/plain.jsonl", "--llm-base-url", "http://127.0.0.1:9/v1"], "needs --llm-model"),
        (["--dataset", "{fix}/plain.jsonl", "--limit", "0"], "--limit: must be at least 1"),  # refused by argparse
    ],
)
def test_cli_eval_bad_input_exits_2_with_a_message(argv, message, tmp_path, capsys):
    from guardrail.cli import main

    fix = str(Path(__file__).parent / "fixtures" / "eval")
    argv = [a.replace("{fix}", fix) for a in argv]
    try:
        code = main(["eval", *argv, "--out", str(tmp_path / "r"), "--no-progress"])
    except SystemExit as exc:  # a bad number is refused while parsing the arguments: argparse's exit 2
        code = exc.code
    assert code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "r" / "results.json").exists()


def test_cli_eval_with_an_llm_judge_on_the_stub_server(tmp_path, capsys):
    """--llm-base-url reaches the LLM verifiers; the judge's verdicts become the scores."""
    from guardrail.cli import main

    def judge(request):
        prompt = request["json"]["messages"][-1]["content"]
        wrong = "Acme had 400" in prompt or "revenue was 20 million" in prompt
        return Reply(content=json.dumps({
            "reasoning": "compare with the evidence", "label": "contradicted" if wrong else "supported",
            "confidence": 0.9, "evidence_quote": "The company has 40 employees.", "evidence_window": 1,
            "error_type": "number" if wrong else None}))

    fix = Path(__file__).parent / "fixtures" / "eval"
    with ScriptedOpenAI(responder=judge) as stub:
        code = main(["eval", "--dataset", str(fix / "plain.jsonl"), "--verifier", "judge",
                     "--llm-base-url", stub.base_url, "--llm-model", "stub", "--calibration-fraction", "0",
                     "--out", str(tmp_path / "r"), "--no-progress"])
        calls = len(stub.requests)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert calls == 4 + 1  # one claim per answer, plus the warm-up check
    data = json.loads((tmp_path / "r" / "results.json").read_text())
    overall = data["configs"][0]["overall"]
    assert data["configs"][0]["verifier_name"] == "llm-judge"
    assert (overall["n"], overall["hallucinated"], overall["incomplete"]) == (4, 2, 0)
    assert overall["policy"]["f1"] == 1.0 and overall["auc"] == 1.0
