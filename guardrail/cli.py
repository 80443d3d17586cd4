"""The ``guardrail`` command line: check, check-batch, audit-bulk, bench, demo, guard, audit, eval, redteam, serve.

Exit codes: 0 done, 1 ``--fail-on-hallucination`` and a claim was flagged, 2 bad input or setup,
3 ``--fail-on-hallucination``, nothing flagged, but part of the answer was not checked (the report is
not complete: a claim unevaluatable, a check skipped, factual text no claim covered).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .cli_io import (
    add_llm_options,
    batch_item_from_row,
    collect_context,
    guardrail_from_args,
    jsonl_rows,
    positive_int,
    read_answer,
    read_text,
)
from .errors import GuardrailError, InputError
from .limits import check_json_text

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = _build_parser()
    if argv[:1] == ["train"]:  # everything after 'train' belongs to the training command, --help included
        args = argparse.Namespace(func=_cmd_train, args=argv[1:])
    else:
        args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except GuardrailError as exc:
        _err(f"error: {exc}")
        return 2
    except KeyboardInterrupt:
        _err("interrupted")
        return 130


# ---------------------------------------------------------------------------- parser


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="guardrail", description="Check RAG answers against their retrieved context.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = sub.add_parser("check", help="check one answer against its context")
    src = check.add_mutually_exclusive_group(required=True)
    src.add_argument("--answer", help="answer text, or '-' to read it from stdin")
    src.add_argument("--answer-file", type=Path, help="file holding the answer")
    check.add_argument("--context", action="append", default=[], help="a context passage (repeat for several; '-' reads stdin)")
    check.add_argument("--context-file", action="append", type=Path, default=[], help="a file holding one passage (repeatable); .json holds a list")
    check.add_argument("--question", help="the user's question, if any")
    check.add_argument("--schema", type=Path, help="JSON Schema file the (JSON) answer must satisfy")
    check.add_argument("--json", action="store_true", help="print the full report as JSON")
    check.add_argument("--fail-on-hallucination", action="store_true",
                       help="exit 1 when a claim is flagged, 3 when nothing is flagged but part of the answer was not "
                            "checked (unevaluatable claims, skipped checks, unchecked factual text)")
    _add_guardrail_options(check)
    check.set_defaults(func=_cmd_check)

    batch = sub.add_parser("check-batch", help="check a JSONL file of answers")
    batch.add_argument("--input", required=True, type=Path, help="JSONL: id, question?, context (string or list), response")
    batch.add_argument("--output", required=True, type=Path, help="JSONL report, one line per input line")
    batch.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    _add_guardrail_options(batch)
    batch.set_defaults(func=_cmd_check_batch)

    demo = sub.add_parser("demo", help="a guarded RAG example over bundled documents")
    demo.add_argument("--verifier", default="default", help="verifier spec (default: the embedded model)")
    demo.add_argument("--no-policy", action="store_true", help="skip the policy part of the demo")
    demo.set_defaults(func=_cmd_demo)

    bench = sub.add_parser("bench", help="time the guard on this machine, stage by stage, against the token-overlap floor")
    bench.add_argument("--verifier", action="append", default=None,
                       help="verifier spec to time (repeatable; default: default, then overlap as the floor)")
    bench.add_argument("--runs", type=positive_int, default=30, help="timed checks per verifier (default 30)")
    bench.add_argument("--answers", type=positive_int, default=30, help="distinct inputs (default 30)")
    bench.add_argument("--threads", type=positive_int, default=None, help="model threads (default: every core)")
    bench.add_argument("--warm", action="store_true", help="keep the embedding cache between checks")
    bench.add_argument("--json", type=Path, default=None, help="also write the figures as JSON")
    bench.set_defaults(func=_cmd_bench)

    train = sub.add_parser("train", help="retrain the embedded grounding model (needs the [train] extra); see docs/model-card.md", add_help=False)
    train.add_argument("args", nargs=argparse.REMAINDER, help="arguments of the training command (--help lists them)")
    train.set_defaults(func=_cmd_train)

    try:
        from .policy.cli import add_commands
    except ImportError:  # the policy package is optional at import time only while it is being built
        pass
    else:
        add_commands(sub, make_guardrail=lambda verifier="default": _make_guardrail(argparse.Namespace(verifier=verifier)))
    from .calibrate import add_commands as add_calibrate_commands

    add_calibrate_commands(sub, make_guardrail=lambda verifier="default": _make_guardrail(argparse.Namespace(verifier=verifier)))
    from .service.cli import add_commands as add_serve_commands  # argparse only: fastapi loads when serve runs

    add_serve_commands(sub)
    from .bulk.cli import add_commands as add_bulk_commands  # argparse only: pyarrow and Ray load when it runs

    add_bulk_commands(sub, _add_guardrail_options)

    # Evaluation tools: each module imports only what its parser needs; models load when a command runs.
    from .eval.cli import add_commands as add_eval_commands
    from .eval.redteam import add_commands as add_redteam_commands

    add_eval_commands(sub)
    add_redteam_commands(sub)
    return parser


def _add_guardrail_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--verifier", default="default", help="default | heuristic | grounding | hf:PATH | judge | cascade")
    p.add_argument("--threshold", type=float, default=None,
                   help="hallucination score at which a claim is flagged (default: the verifier's recommended one, else 0.5)")
    p.add_argument("--require-citations", action="store_true", help="list factual claims without a citation")
    p.add_argument("--top-k", type=positive_int, default=None,
                   help="evidence windows per claim, at least 1 (default: the verifier's, else 3)")
    add_llm_options(p, "the LLM verifiers (judge, cascade, selfcheck, logprob, prompt-judge)")


def _make_guardrail(args: argparse.Namespace):
    return guardrail_from_args(args)


# ---------------------------------------------------------------------------- check


def _cmd_check(args: argparse.Namespace) -> int:
    answer = read_answer(args)
    context = collect_context(args)
    schema = None
    if args.schema:
        text = read_text(args.schema, "schema")
        check_json_text(text, f"schema file {args.schema}")  # before json.loads can recurse
        try:
            schema = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"{args.schema}:{exc.lineno}:{exc.colno}: schema is not JSON: {exc.msg}") from exc
    report = _make_guardrail(args).check(answer, context, args.question, schema=schema)
    if args.json:
        print(report.model_dump_json(indent=2))
    else:
        from .render import print_report

        print_report(report)
    if not args.fail_on_hallucination:
        return 0
    if report.hallucinated:
        return 1
    # Nothing flagged because nothing (or not everything) was checked is not a pass.
    return 0 if report.complete else 3


# ---------------------------------------------------------------------------- check-batch


def _batch_lines(path: Path):
    """Yields (line_number, id, parsed item or InputError); never stops on a bad line."""
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from exc
    with handle:
        for number, obj in jsonl_rows(handle):
            if isinstance(obj, InputError):
                yield number, None, obj
                continue
            try:
                item = batch_item_from_row(obj, f"line {number}")
            except InputError as exc:
                yield number, obj.get("id") if isinstance(obj, dict) else None, exc
                continue
            yield number, item.id, item


def _report_line(ident: str | None, report) -> dict[str, Any]:
    from .types import Label

    by_id = {v.claim_id: v for v in report.verdicts}
    claims = []
    for c in report.claims:
        v = by_id.get(c.id)
        claims.append(
            {
                "start": c.start,
                "end": c.end,
                "text": c.text,
                "label": v.label.value if v else Label.unevaluatable.value,
                "confidence": round(v.confidence, 4) if v else 0.0,
                "hallucination_score": round(v.hallucination_score, 4) if v else None,
                "error_type": v.error_type.value if v and v.error_type else None,
                "evidence": (
                    {"evidence_id": v.evidence_span.evidence_id, "start": v.evidence_span.start, "end": v.evidence_span.end, "text": v.evidence_span.text}
                    if v and v.evidence_span
                    else None
                ),
                "reason": v.reason if v else "no verdict",
            }
        )
    return {
        "id": ident,
        "hallucination_score": round(report.hallucination_score, 4),
        "hallucinated": report.hallucinated,
        "complete": report.complete,
        "claims": claims,
        "skipped": [s.model_dump() for s in report.skipped],
        "unchecked": [u.model_dump() for u in report.unchecked_factual],
        "latency_ms": report.latencies_ms.get("total"),
    }


def _cmd_check_batch(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    _check_output(args.output, args.input)  # before the models load: a bad --output fails at once
    guardrail = _make_guardrail(args)
    try:
        total = sum(1 for raw in args.input.open("rb") if raw.strip())
    except OSError as exc:
        raise InputError(f"cannot read {args.input}: {exc.strerror}") from exc

    # Parse errors and checks are interleaved in input order; parsed items are checked in chunks.
    parsed = list(_batch_lines(args.input))
    items = [(n, ident, x) for n, ident, x in parsed if not isinstance(x, Exception)]
    results = guardrail.check_batch(x for _, _, x in items)
    n_err = n_flag = n_incomplete = 0
    with _open_output(args.output) as out, tqdm(total=total, unit="answer", disable=args.no_progress, file=sys.stderr) as bar:
        it = iter(results)
        for number, ident, x in parsed:
            if isinstance(x, Exception):
                row = {"line": number, "id": ident, "error": str(x)}
                n_err += 1
            else:
                result = next(it)
                if isinstance(result, Exception):
                    row = {"line": number, "id": ident, "error": f"line {number}: {result}"}
                    n_err += 1
                else:
                    row = {"line": number, **_report_line(ident, result)}
                    n_flag += bool(result.hallucinated)
                    n_incomplete += not result.hallucinated and not result.complete
            _write_row(out, row, args.output)
            bar.update(1)
    _err(f"checked {total - n_err} answers, {n_flag} flagged, {n_err} lines with errors, "
         f"{n_incomplete} not flagged but not fully checked -> {args.output}")
    return 0


def _check_output(output: Path, input_path: Path) -> None:
    """Refuse an --output that cannot take the report before anything is checked, and one that is the
    --input file, which opening it for writing would empty before a single line is read."""
    if output.is_dir():
        raise InputError(f"--output {output} is a directory; give the path of a .jsonl file")
    try:
        same = output.exists() and output.samefile(input_path)
    except OSError:
        same = False
    if same:
        raise InputError(f"--output {output} is the --input file; writing the report there would erase the answers")
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        with output.open("a", encoding="utf-8"):  # append: proves it is writable without truncating it
            pass
    except OSError as exc:
        raise InputError(f"cannot write --output {output}: {exc.strerror or exc}") from exc


def _open_output(output: Path):
    try:
        return output.open("w", encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write --output {output}: {exc.strerror or exc}") from exc


def _write_row(out, row: dict[str, Any], output: Path) -> None:
    """One JSONL line, flushed so the lines written so far survive an interruption."""
    try:
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
        out.flush()
    except OSError as exc:
        raise InputError(f"cannot write --output {output} (stopped before input line {row.get('line')}): "
                         f"{exc.strerror or exc}") from exc


# ---------------------------------------------------------------------------- bench


def _cmd_bench(args: argparse.Namespace) -> int:
    from .bench import format_bench, run_bench

    specs = args.verifier or ["default", "overlap"]
    results = [run_bench(spec, runs=args.runs, answers=args.answers, warm=args.warm, threads=args.threads,
                         make_guardrail=lambda v: _make_guardrail(argparse.Namespace(verifier=v))) for spec in specs]
    print(format_bench(results))
    if args.json:
        args.json.write_text(json.dumps([r.model_dump() for r in results], indent=2), encoding="utf-8")
    return 0


# ---------------------------------------------------------------------------- demo


def _cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    return run_demo(verifier=args.verifier, with_policy=not args.no_policy)


def _cmd_train(args: argparse.Namespace) -> int:
    try:
        from .train.grounding import main as train_main
    except ImportError as exc:
        raise InputError(f"training needs the train extra: pip install -c constraints.txt 'rag-guardrail[train]' ({exc})") from exc
    return train_main(args.args)


def _err(message: str) -> None:
    print(message, file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sys.exit(main())
