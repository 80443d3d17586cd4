"""Bulk audit of logged answers (``guardrail audit-bulk``): JSONL or Parquet shards in, per-shard
Parquet of answers and claims plus a summary out, on this machine or on a Ray cluster.

See docs/bulk.md. Ray is optional (the ``bulk`` extra); the local engine needs only pyarrow.
"""

from .audit import AuditRun, make_job, run_audit
from .job import AuditJob, CheckSettings, Shard, ShardResult
from .summary import AuditSummary

__all__ = ["AuditJob", "AuditRun", "AuditSummary", "CheckSettings", "Shard", "ShardResult", "make_job", "run_audit"]
