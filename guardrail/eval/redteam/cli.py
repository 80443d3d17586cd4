"""``guardrail redteam``: the sub-command's options and how it runs the suite.

Part of the red-team package; see ``guardrail/eval/redteam/__init__.py`` for what the suite is and why.
"""


from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...cli_io import add_llm_options, llm_from_args
from ...errors import ConfigError, InputError
from .build import build_attacks, check_categories
from .models import CATEGORIES
from .render import render_markdown, write_outputs
from .score import run_redteam

if TYPE_CHECKING:  # pragma: no cover
    import argparse


# ---------------------------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------------------------


def add_commands(subparsers: argparse._SubParsersAction[Any]) -> None:
    p = subparsers.add_parser(
        "redteam",
        help="adversarial suite: mutate faithful answers and contexts, report robustness per category",
        description="Makes attacks from the faithful answers of a dataset (entity/number/date swaps, negation, "
        "unsupported additions, buried evidence, contradictory passages, prompt injection) and reports, per "
        "verifier configuration and category, the share a guardrail handles.",
    )
    p.add_argument(
        "--suite",
        choices=["mutations", "facts"],
        default="mutations",
        help="mutations: attacks made from a dataset's faithful answers; facts: the hand-written fact cases "
        "(one blatant error per must-catch case across 27 categories, faithful rewordings as controls)",
    )
    p.add_argument(
        "--dataset",
        action="append",
        default=[],
        help="mutations: dataset spec for guardrail.eval.loaders.load_dataset (ragtruth:dev, wice, a JSONL path, "
        "...); facts: dev, holdout or a cases file (repeatable; default both)",
    )
    p.add_argument("--limit", type=int, help="number of faithful source answers to attack (seeded sample; default all)")
    p.add_argument(
        "--verifier",
        action="append",
        default=[],
        metavar="SPEC[=NAME]",
        help="verifier spec to test, optionally named, as for `guardrail eval`; repeatable (default: default)",
    )
    p.add_argument(
        "--threshold",
        type=float,
        help="flagging threshold for every configuration (default: each verifier's recommended one, else 0.5)",
    )
    p.add_argument("--categories", help=f"comma-separated subset of: {', '.join(CATEGORIES)}")
    p.add_argument("--per-example", type=int, default=1, help="attacks per source answer and category")
    p.add_argument(
        "--buried-chars", type=int, default=20_000, help="characters of unrelated context around buried evidence"
    )
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--out", type=Path, help="write redteam.json, redteam.md and attacks.jsonl here")
    add_llm_options(p, "LLM verifiers (judge, cascade, selfcheck, logprob, prompt-judge)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    from ..fact_suite import add_options as add_fact_options

    add_fact_options(p)
    p.set_defaults(func=_cmd_redteam)


def _cmd_redteam(args: argparse.Namespace) -> int:
    if args.suite == "facts":
        from ..fact_suite import run_from_args

        if len(args.verifier) > 1:
            raise InputError("--suite facts runs one verifier at a time")
        args.data = args.dataset
        args.verifier = args.verifier[0] if args.verifier else "default"
        return run_from_args(args)
    if len(args.dataset) != 1:
        raise InputError("--suite mutations needs exactly one --dataset (ragtruth:dev, wice, a JSONL path, ...)")
    args.dataset = args.dataset[0]
    try:
        from ..loaders import load_dataset
    except ImportError as exc:
        raise ConfigError(f"dataset loaders are not available (guardrail.eval.loaders): {exc}") from exc

    from ..cli import (
        parse_verifier_option,  # the same SPEC[=NAME] rules as `guardrail eval`
    )

    if args.limit is not None and args.limit < 1:
        raise InputError(f"--limit must be at least 1, got {args.limit}")
    if args.threshold is not None and not 0.0 <= args.threshold <= 1.0:
        raise InputError(f"--threshold must be within 0..1, got {args.threshold}")
    configs = [parse_verifier_option(v, args.threshold) for v in (args.verifier or ["default"])]
    categories = [c.strip() for c in args.categories.split(",") if c.strip()] if args.categories else None
    check_categories(categories)
    llm = llm_from_args(args)

    examples = load_dataset(args.dataset, seed=args.seed)
    faithful = [e for e in examples if e.hallucinated is False]
    if not faithful:
        raise InputError(f"dataset {args.dataset!r} has no example labelled faithful (hallucinated = false) to attack")
    if args.limit is not None and args.limit < len(faithful):
        faithful = random.Random(f"{args.seed}:sources").sample(faithful, args.limit)
    suite = build_attacks(
        faithful,
        categories=categories,
        seed=args.seed,
        per_example=args.per_example,
        donors=examples,
        buried_chars=args.buried_chars,
    )
    suite.n_not_faithful = len(examples) - len([e for e in examples if e.hallucinated is False])
    if not suite.attacks:
        raise InputError(
            f"no attack could be made from {suite.n_sources} source answers ({len(suite.skipped)} skipped)"
        )
    result = run_redteam(suite, configs, llm=llm, progress=not args.no_progress, dataset=args.dataset)
    print(render_markdown(result), end="")
    if args.out:
        paths = write_outputs(result, args.out, suite)
        print("\nwrote " + ", ".join(str(p) for p in paths.values()), file=sys.stderr)
    return 0
