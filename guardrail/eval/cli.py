"""``guardrail eval``: verifier configurations side by side on one or more datasets.

    guardrail eval --dataset summac_frank --dataset ragtruth:dev \\
        --verifier default --verifier heuristic --verifier overlap --out runs/eval

prints the Markdown tables and writes results.json, results.md, report.html and plots/ into ``--out``.
Only argparse is imported when the command line is built; the runner, the models and matplotlib load
when the command runs, so ``guardrail --help`` stays fast.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..cli_io import add_llm_options, llm_from_args, positive_int
from ..errors import InputError

__all__ = ["add_commands", "parse_verifier_option"]


def add_commands(subparsers: argparse._SubParsersAction[Any]) -> None:
    p = subparsers.add_parser(
        "eval",
        help="measure verifier configurations side by side on labelled datasets (tables + HTML report)",
        description="Checks every example of the datasets with each verifier configuration and reports "
        "precision/recall/F1/balanced accuracy at the policy threshold and at the threshold tuned on a "
        "calibration part, ROC-AUC, ECE, span F1, claim-level proxies and latency, per dataset and task.",
    )
    p.add_argument("--dataset", action="append", required=True, metavar="SPEC",
                   help="ragtruth:dev|train|all, summac_frank, summac_cogensumm, summac_xsumfaith, summac_polytope, "
                        "summac_factcc, aggrefact_cnndm, aggrefact_xsum, wice, summac, aggrefact, dev-all, or a "
                        ".jsonl/.jsonl.gz path (RAGTruth, document/claim, WiCE, HaluEval or context/response/label); "
                        "SPEC@N caps that dataset at N examples per file (overrides --limit); repeatable")
    p.add_argument("--verifier", action="append", default=[], metavar="SPEC[=NAME]",
                   help="verifier spec (default, heuristic, grounding, hf:PATH, judge, cascade, overlap, embedding, "
                        "selfcheck, logprob, prompt-judge, with options as NAME:key=value,...), optionally named; "
                        "repeatable (default: default)")
    p.add_argument("--threshold", type=float, default=None,
                   help="policy threshold for every configuration (default: each verifier's recommended one, else 0.5)")
    p.add_argument("--limit", type=positive_int, help="at most N examples per dataset (N >= 1), whole groups, seeded sample")
    p.add_argument("--calibration-fraction", type=float, default=0.5,
                   help="share of each dataset's groups used to tune the threshold (default 0.5; 0 = no tuning)")
    p.add_argument("--seed", type=int, default=13, help="seed of the sample and of the calibration split")
    p.add_argument("--out", type=Path, default=Path("eval-report"), help="report folder (default: ./eval-report)")
    add_llm_options(p, "LLM verifiers (judge, cascade, selfcheck, logprob, prompt-judge)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    p.set_defaults(func=_cmd_eval)


def parse_verifier_option(value: str, threshold: float | None = None) -> Any:
    """``SPEC[=NAME]`` -> ``EvalConfig``.

    Specs may hold '=' themselves (``selfcheck:n=5``, ``hf:/models/a=b``), so a trailing ``=NAME`` is
    split off only when it cannot belong to the spec: after options (``NAME:key=value,...``) when the
    last option has a second '=', otherwise when the text after the last '=' is not part of a path.
    """
    from pydantic import ValidationError

    from .runner import EvalConfig

    value = value.strip()
    base, colon, opts = value.partition(":")
    if colon and base != "hf" and "=" in opts:  # option-style spec
        named = opts.rsplit(",", 1)[-1].count("=") >= 2
    else:
        _, sep, tail = value.rpartition("=")
        named = bool(sep) and bool(tail) and "/" not in tail
    spec, name = (value.rpartition("=")[0], value.rpartition("=")[2]) if named else (value, value)
    if not spec or not name:
        raise InputError(f"--verifier '{value}': expected SPEC or SPEC=NAME")
    try:
        return EvalConfig(name=name, verifier=spec, threshold=threshold)
    except ValidationError as exc:
        problem = exc.errors()[0]
        raise InputError(f"--verifier '{value}': {'.'.join(map(str, problem['loc']))}: {problem['msg']}") from exc


def _cmd_eval(args: argparse.Namespace) -> int:
    from .loaders import load_dataset
    from .report import markdown, write_report
    from .runner import run_eval

    if args.threshold is not None and not 0.0 <= args.threshold <= 1.0:
        raise InputError(f"--threshold must be within 0..1, got {args.threshold}")
    configs = [parse_verifier_option(v, args.threshold) for v in (args.verifier or ["default"])]
    llm = llm_from_args(args)

    examples = []
    source_of: dict[str, str] = {}
    for spec in args.dataset:
        spec, limit = _split_limit(spec, args.limit)
        loaded = load_dataset(spec, limit=limit, seed=args.seed)
        for name in dict.fromkeys(e.dataset for e in loaded):
            if name in source_of:
                raise InputError(f"dataset '{name}' is loaded twice (by --dataset {source_of[name]} and --dataset {spec})")
            source_of[name] = spec
        examples += loaded
    counts: dict[str, int] = {}
    for e in examples:
        counts[e.dataset] = counts.get(e.dataset, 0) + 1
    _err(f"{len(examples)} examples: " + ", ".join(f"{d} {n}" for d, n in counts.items())
         + f"; configurations: {', '.join(c.name for c in configs)}")

    result = run_eval(examples, configs, llm=llm, calibration_fraction=args.calibration_fraction, seed=args.seed,
                      progress=not args.no_progress)
    print(markdown(result), end="")
    files = write_report(result, args.out)
    _err(f"wrote {files['json']}, {files['markdown']}, {files['html']} and {len(files) - 3} plot(s)")
    return 0


def _split_limit(spec: str, default: int | None) -> tuple[str, int | None]:
    """``SPEC@N`` caps one dataset (``--dataset ragtruth:dev --dataset summac@200``); else ``--limit``."""
    base, sep, n = spec.rpartition("@")
    if not sep or not n.isdigit() or not base:
        return spec, default
    if int(n) < 1:
        raise InputError(f"--dataset {spec}: @N must be at least 1")
    return base, int(n)


def _err(message: str) -> None:
    print(message, file=sys.stderr)
