"""Checking shards: one function for a shard, run by the local engine in this process or by Ray Data actors.

``audit_shard`` is the whole per-shard job (read rows, check them with ``Guardrail.check_batch``, write
the shard's Parquet). Both engines call it with a ``Guardrail`` built once per process from the job's
``CheckSettings`` (the same builder as check-batch's), so the engines cannot disagree on a verdict:
they differ only in which process runs which shard.

Ray: the pending shards become a Ray Dataset of shard names, and ``map_batches`` runs ``ShardAuditor``
on an actor pool of ``workers`` actors. Each actor loads the models once in ``__init__`` and then
audits whole shards, writing their output itself (nothing but a small result travels back to the
driver), so the output of a 10-million-answer audit never funnels through one machine.
"""

from __future__ import annotations

import os
import resource
import socket
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..cli_io import batch_item_from_row
from ..errors import BackendError, ConfigError, GuardrailError, InputError
from . import io as bulk_io
from .job import AuditJob, Shard, ShardResult

__all__ = ["audit_shard", "group_values", "pending", "run_local", "run_ray", "ShardAuditor", "require_ray"]


def group_values(row: Any, keys: list[str]) -> dict[str, str | None]:
    """The row's group key values as strings (``a.b`` reaches into objects); a missing key is None."""
    out: dict[str, str | None] = {}
    for key in keys:
        value: Any = row
        for part in key.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        out[key] = None if value is None else (value if isinstance(value, str) else str(value))
    return out


def _ident(row: Any) -> str | None:
    ident = row.get("id") if isinstance(row, dict) else None
    return None if ident is None else str(ident)


def _claim_rows(base: dict[str, Any], report: Any) -> list[dict[str, Any]]:
    flagged = {claim.id for claim, _ in report.flagged}
    rows = []
    for index, claim in enumerate(report.claims):
        v = report.verdict_for(claim.id)
        span = v.evidence_span if v else None
        rows.append({
            **base, "claim": index, "start": claim.start, "end": claim.end, "text": claim.text,
            "label": v.label.value if v else "unevaluatable",
            "confidence": v.confidence if v else None, "hallucination_score": v.hallucination_score if v else None,
            "flagged": claim.id in flagged, "error_type": v.error_type.value if v and v.error_type else None,
            "evidence_id": span.evidence_id if span else None, "evidence_start": span.start if span else None,
            "evidence_end": span.end if span else None, "evidence_text": span.text if span else None,
            "reason": v.reason if v else "no verdict",
        })
    return rows


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux reports KiB


def audit_shard(job: AuditJob, shard: Shard, guardrail: Any) -> ShardResult:
    """Check every row of ``shard`` and write its answers and claims. An unreadable file or a failed
    write is the shard's ``failure`` (nothing written for it, a rerun retries it); a bad row is an error row."""
    t0 = time.perf_counter()
    result = ShardResult(shard=shard.name, worker=f"{socket.gethostname()}:{os.getpid()}")
    where = "line" if shard.format == "jsonl" else "row"
    # Streamed: rows are parsed as check_batch asks for items, and only each row's key and group values
    # wait in `queued` for its report, so a shard's memory is its output, not its contexts.
    queued: deque[tuple[int, dict[str, Any], Any]] = deque()  # (row number, key and group columns, item or error)

    def items() -> Iterator[Any]:
        for number, obj in bulk_io.read_rows(shard):
            base = {"shard": shard.name, "row": number, "id": _ident(obj), **group_values(obj, job.group_by)}
            if isinstance(obj, InputError):
                queued.append((number, base, obj))
                continue
            try:
                item = batch_item_from_row(obj, f"{where} {number}")
            except InputError as exc:
                queued.append((number, base, exc))
                continue
            queued.append((number, base, item))
            yield item

    answers: list[dict[str, Any]] = []
    claims: list[dict[str, Any]] = []

    def error_row(number: int, base: dict[str, Any], exc: Exception) -> None:
        message = str(exc)
        answers.append({**base, "error": message if message.startswith(f"{where} ") else f"{where} {number}: {message}"})
        result.errors += 1

    def drain_errors() -> None:
        while queued and isinstance(queued[0][2], Exception):
            error_row(*queued.popleft())

    try:
        # check-batch's engine: a report (or the item's exception) per item, in order.
        for outcome in guardrail.check_batch(items(), chunk_size=job.batch_size):
            drain_errors()
            number, base, _ = queued.popleft()
            if isinstance(outcome, Exception):
                error_row(number, base, outcome)
                continue
            claim_rows = _claim_rows(base, outcome)
            claims += claim_rows
            answers.append({**base, "hallucination_score": outcome.hallucination_score, "flagged": outcome.hallucinated,
                            "complete": outcome.complete, "latency_ms": outcome.latencies_ms.get("total"),
                            "claims": len(claim_rows), "flagged_claims": sum(r["flagged"] for r in claim_rows),
                            "error": None})
            result.flagged += bool(outcome.hallucinated)
        drain_errors()
    except InputError as exc:  # the file itself could not be read: nothing is written for the shard
        result.failure = str(exc)
        result.seconds = time.perf_counter() - t0
        return result
    result.answers = len(answers)
    result.claims = len(claims)
    try:
        bulk_io.write_shard(job, shard.name, answers, claims)
    except InputError as exc:
        result.failure = str(exc)
    result.seconds = time.perf_counter() - t0
    result.peak_rss_mb = _peak_rss_mb()
    return result


# ------------------------------------------------------------------------------------------ local


def run_local(job: AuditJob, shards: list[Shard], *, on_shard: Callable[[ShardResult], None] | None = None) -> list[ShardResult]:
    """Every pending shard in this process, one after the other, with one Guardrail."""
    guardrail = job.settings.build()
    results = []
    for shard in shards:
        result = audit_shard(job, shard, guardrail)
        results.append(result)
        if on_shard:
            on_shard(result)
    return results


# ------------------------------------------------------------------------------------------ Ray


def require_ray() -> Any:
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError as exc:
        raise ConfigError("--engine ray needs Ray Data: pip install 'rag-guardrail[bulk]' "
                          "(or use --engine local, which needs no Ray)") from exc
    return ray


class ShardAuditor:
    """The Ray Data actor: loads the guardrail once, then audits whole shards, one per call.

    ``threads``: onnxruntime threads per actor (its CPUs), so N actors on N cores do not each start a
    pool as large as the machine and fight over it.
    """

    def __init__(self, job_json: str, threads: int) -> None:
        os.environ.setdefault("GUARDRAIL_THREADS", str(threads))
        self.job = AuditJob.model_validate_json(job_json)
        self.guardrail = self.job.settings.build()

    def __call__(self, batch: dict[str, Any]) -> dict[str, list[str]]:
        done = [audit_shard(self.job, self.job.shard(str(name)), self.guardrail) for name in batch["shard"]]
        return {"result": [r.model_dump_json() for r in done]}


def run_ray(
    job: AuditJob,
    shards: list[Shard],
    *,
    workers: int = 2,
    cpus_per_worker: float = 1.0,
    address: str | None = None,
    object_store_mb: int = 512,
    progress: bool = True,
    on_shard: Callable[[ShardResult], None] | None = None,
) -> list[ShardResult]:
    """Pending shards through ``map_batches`` on a pool of ``workers`` ``ShardAuditor`` actors.

    ``address``: an existing cluster ("auto" finds the local node's; "ray://host:10001" a remote one).
    Without it, and when this process is not connected to Ray already, a local Ray is started with
    ``workers * cpus_per_worker`` CPUs, no dashboard and a small object store (only shard names and
    results pass through it), and shut down at the end.
    """
    ray = require_ray()
    if not shards:
        return []
    started = False
    if not ray.is_initialized():
        try:
            if address:
                ray.init(address=address, log_to_driver=progress)
            else:
                ray.init(num_cpus=max(1, int(round(workers * cpus_per_worker))), include_dashboard=False,
                         object_store_memory=object_store_mb * 1024 * 1024, log_to_driver=progress)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise BackendError(f"cannot start or reach Ray{f' at {address}' if address else ''}: {exc}") from exc
        started = True
    try:
        ctx = ray.data.DataContext.get_current()
        ctx.enable_progress_bars = progress
        ds = ray.data.from_items([{"shard": s.name} for s in shards], override_num_blocks=len(shards))
        ds = ds.map_batches(
            ShardAuditor,
            fn_constructor_kwargs={"job_json": job.model_dump_json(), "threads": max(1, int(cpus_per_worker))},
            batch_size=1,
            # One shard in flight per actor: a queued shard waits for a free actor, not behind a busy one.
            compute=ray.data.ActorPoolStrategy(size=workers, max_tasks_in_flight_per_actor=1),
            num_cpus=cpus_per_worker,
            batch_format="numpy",
        )
        results = []
        for row in ds.iter_rows():
            result = ShardResult.model_validate_json(str(row["result"]))
            results.append(result)
            if on_shard:
                on_shard(result)
    except GuardrailError:
        raise
    except Exception as exc:  # a Ray task or actor failure: shards written so far stay, a rerun resumes
        raise BackendError(f"the Ray job failed ({type(exc).__name__}: {exc}); shards already written are kept, "
                           "rerun the same command to finish the rest") from exc
    finally:
        if started:
            ray.shutdown()
    return sorted(results, key=lambda r: r.shard)


def pending(job: AuditJob, names: Iterable[str]) -> list[Shard]:
    done = set(names)
    return [s for s in job.shards if s.name not in done]
