"""``guardrail audit-bulk``: the command line of the bulk audit (argparse only until it runs).

    guardrail audit-bulk --input logs/2026-11-24/ --output audit/2026-11-24 --group-by tenant,model
    guardrail audit-bulk --input s3://logs/day/ --output s3://audits/day --engine ray --address auto

Exit codes: 0 every shard written, 1 some shard could not be read or written (named; rerun the same
command to retry just those), 2 bad input or setup (one line, no traceback).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from ..cli_io import positive_int

__all__ = ["add_commands"]


def add_commands(subparsers: argparse._SubParsersAction[Any], add_guardrail_options: Callable[[argparse.ArgumentParser], None]) -> None:
    """``add_guardrail_options`` adds check-batch's verifier options, so both commands take the same ones."""
    p = subparsers.add_parser(
        "audit-bulk",
        help="audit a log of answers (JSONL/Parquet shards) into Parquet and a summary, locally or on Ray",
        description="Checks every answer of the input shards with the same pipeline as check-batch and writes "
        "DIR/answers/shard-N.parquet, DIR/claims/shard-N.parquet, DIR/summary.json and DIR/summary.html. "
        "A rerun into the same DIR skips the shards already written (docs/bulk.md).",
    )
    p.add_argument("--input", required=True, help="a .jsonl, .jsonl.gz or .parquet file, or a folder of them "
                   "(one shard per file), local or a URI pyarrow reads (s3://, gs://, hdfs://)")
    p.add_argument("--output", required=True, help="output folder, local or a URI")
    p.add_argument("--engine", choices=["local", "ray"], default="local",
                   help="local: this process (no Ray needed); ray: Ray Data actors (the bulk extra)")
    p.add_argument("--group-by", default="", help="comma-separated row fields to report rates by (a.b reaches into objects)")
    p.add_argument("--batch-size", type=positive_int, default=16, help="answers whose claims are verified in one model call")
    p.add_argument("--workers", type=positive_int, default=2, help="ray: actors, each with its own loaded models")
    p.add_argument("--cpus-per-worker", type=positive_int, default=1, help="ray: CPUs (and onnxruntime threads) per actor")
    p.add_argument("--address", default=None, help="ray: an existing cluster ('auto', or ray://host:10001); "
                   "without it a local Ray is started for this run")
    p.add_argument("--object-store-mb", type=positive_int, default=512,
                   help="ray, local cluster only: object store size (only shard names and results go through it)")
    p.add_argument("--no-progress", action="store_true", help="hide progress output")
    add_guardrail_options(p)
    p.set_defaults(func=_cmd_audit_bulk)


def _cmd_audit_bulk(args: argparse.Namespace) -> int:
    from .audit import make_job, run_audit
    from .job import CheckSettings

    job = make_job(args.input, args.output, CheckSettings.from_args(args), group_by=args.group_by.split(","),
                   batch_size=args.batch_size)

    def progress(result: Any) -> None:
        if not args.no_progress:
            state = f"FAILED: {result.failure}" if result.failure else (
                f"{result.answers} answers, {result.flagged} flagged, {result.errors} error rows, {result.seconds:.1f} s")
            print(f"{result.shard}: {state}", file=sys.stderr)

    run = run_audit(job, engine=args.engine, workers=args.workers, cpus_per_worker=args.cpus_per_worker,
                    address=args.address, object_store_mb=args.object_store_mb, progress=not args.no_progress,
                    on_shard=progress)
    s = run.summary
    rate = f"{s.rate.estimate:.1%} (95% CI {s.rate.low:.1%}-{s.rate.high:.1%})"
    checked = run.answers_checked
    speed = f", {checked / run.seconds:.1f} answers/s" if checked and run.seconds > 0 else ""
    print(f"{len(run.results)} shards checked ({len(run.skipped)} already done){speed}; "
          f"{s.answers} answers: {s.flagged} flagged of {s.checked} checked, {rate}, {s.errors} error rows "
          f"-> {args.output}", file=sys.stderr)
    for failed in run.failed:
        print(f"error: {failed.shard} not written: {failed.failure}", file=sys.stderr)
    if run.failed:
        print(f"{len(run.failed)} shard(s) not written; rerun the same command to retry them", file=sys.stderr)
        return 1
    return 0
