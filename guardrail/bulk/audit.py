"""One bulk audit end to end: list the shards, skip the finished ones, check the rest, summarise.

The driver's part is small on purpose: it never holds answers, only shard names and per-shard
results; the engines write each shard where it is checked, and the summary streams the written
Parquet back, so the same code serves a laptop and a cluster.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, Field

from ..errors import InputError
from . import engine as bulk_engine
from . import io as bulk_io
from .job import AuditJob, CheckSettings, ShardResult
from .summary import AuditSummary, summarize, write_summary

__all__ = ["AuditRun", "make_job", "run_audit"]

Engine = Literal["local", "ray"]


class AuditRun(BaseModel):
    """What one invocation did (the summary covers every finished shard, this run's and earlier ones)."""

    engine: str
    workers: int
    skipped: list[str] = Field(description="Shards already finished by an earlier run, not checked again.")
    results: list[ShardResult] = Field(description="One per shard this run was given, in shard order.")
    seconds: float = Field(description="Wall time of the checking (engine start, models, shards), not the summary.")
    summary: AuditSummary
    files: dict[str, str]

    @property
    def failed(self) -> list[ShardResult]:
        return [r for r in self.results if r.failure]

    @property
    def answers_checked(self) -> int:
        return sum(r.answers for r in self.results if not r.failure)


def make_job(input: str, output: str, settings: CheckSettings, group_by: list[str] | None = None,
             batch_size: int = 16) -> AuditJob:
    in_fs, in_root = bulk_io.resolve(input)
    out_fs, out_root = bulk_io.resolve(output)
    if type(in_fs) is type(out_fs) and (out_root == in_root or out_root.startswith(in_root.rstrip("/") + "/")):
        raise InputError(f"--output {output} is inside --input {input}: a rerun would read the audit as input")
    keys = [k.strip() for k in (group_by or []) if k.strip()]
    if len(set(keys)) != len(keys):
        raise InputError(f"--group-by names a key twice: {','.join(keys)}")
    return AuditJob(input=input, output=output, settings=settings, group_by=keys,
                    shards=bulk_io.list_shards(input), batch_size=batch_size)


def run_audit(
    job: AuditJob,
    *,
    engine: Engine = "local",
    workers: int = 2,
    cpus_per_worker: float = 1.0,
    address: str | None = None,
    object_store_mb: int = 512,
    progress: bool = True,
    on_shard: Callable[[ShardResult], None] | None = None,
) -> AuditRun:
    """Checks every shard of ``job`` not finished yet, then writes the summary of all finished shards."""
    if engine == "ray":
        bulk_engine.require_ray()  # before anything is written: a missing extra is a one-line error
    bulk_io.prepare_output(job)
    skipped = bulk_io.done_shards(job)
    todo = bulk_engine.pending(job, skipped)
    t0 = time.perf_counter()
    if engine == "ray":
        results = bulk_engine.run_ray(job, todo, workers=workers, cpus_per_worker=cpus_per_worker, address=address,
                                      object_store_mb=object_store_mb, progress=progress, on_shard=on_shard)
    elif engine == "local":
        results = bulk_engine.run_local(job, todo, on_shard=on_shard) if todo else []
        workers = 1
    else:
        raise InputError(f"unknown engine {engine!r}: local or ray")
    seconds = time.perf_counter() - t0
    failed = [r for r in results if r.failure]
    summary = summarize(job, failed)
    files = write_summary(job, summary)
    return AuditRun(engine=engine, workers=workers, skipped=skipped, results=results, seconds=seconds,
                    summary=summary, files=files)
