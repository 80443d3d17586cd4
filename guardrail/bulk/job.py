"""What a bulk audit is asked to do, as typed models that travel from the driver to every worker.

An ``AuditJob`` is the whole description of one audit: the check settings (the same options as
``guardrail check-batch``), the group keys, and the input shards in a fixed order. It is written to
``DIR/manifest.json`` on the first run, so a rerun can prove it is finishing the same audit (same
inputs, same settings) before it skips the shards already done; a Ray worker receives it as JSON and
builds its ``Guardrail`` from it once.
"""

from __future__ import annotations

import argparse
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..errors import InputError

__all__ = ["CheckSettings", "Shard", "AuditJob", "ShardResult", "ANSWER_COLUMNS", "CLAIM_COLUMNS", "checker_fingerprint"]

# Output columns of the answers and claims tables; a group key may not take one of these names.
ANSWER_COLUMNS = ("shard", "row", "id", "hallucination_score", "flagged", "complete", "latency_ms", "claims",
                  "flagged_claims", "error")
CLAIM_COLUMNS = ("shard", "row", "id", "claim", "start", "end", "text", "label", "confidence", "hallucination_score",
                 "flagged", "error_type", "evidence_id", "evidence_start", "evidence_end", "evidence_text", "reason")


class CheckSettings(BaseModel):
    """The options that decide a verdict: the same fields as check-batch's command-line options."""

    model_config = ConfigDict(extra="forbid")

    verifier: str = Field(default="default", description="Verifier spec, as for `guardrail check --verifier`.")
    threshold: float | None = Field(default=None, description="Flagging threshold; None: the verifier's recommended one.")
    top_k: int | None = Field(default=None, description="Evidence windows per claim; None: the verifier's.")
    require_citations: bool = Field(default=False, description="List factual claims without a citation.")
    llm_base_url: str | None = Field(default=None, description="OpenAI-compatible endpoint for LLM verifiers.")
    llm_model: str | None = Field(default=None, description="Model name at llm_base_url.")
    llm_timeout: float = Field(default=30.0, description="Seconds per LLM request.")
    llm_response_format: str = Field(default="none", description="JSON constraint for LLM replies.")

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> CheckSettings:
        return cls(**{name: getattr(args, name) for name in cls.model_fields if hasattr(args, name)})

    def build(self) -> Any:
        """The ``Guardrail`` these settings describe, built by the same function as check-batch's."""
        from ..cli_io import guardrail_from_args

        return guardrail_from_args(argparse.Namespace(**self.model_dump()))


ShardFormat = Literal["jsonl", "parquet"]


class Shard(BaseModel):
    """One input file. Its output is ``answers/NAME.parquet`` and ``claims/NAME.parquet``."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="shard-00000, by the input file's position in path order.")
    path: str = Field(description="Path or URI of the input file.")
    format: ShardFormat
    size: int = Field(description="Bytes when listed: a rerun refuses an input that changed since.")


class AuditJob(BaseModel):
    """One audit: what to read, how to check it, how to group it, where to write."""

    model_config = ConfigDict(extra="forbid")

    input: str
    output: str
    settings: CheckSettings
    group_by: list[str] = Field(default_factory=list, description="Row fields (dots reach into objects) to group by.")
    shards: list[Shard]
    batch_size: int = Field(default=16, ge=1, description="Answers whose claims are verified in one model call.")

    def shard(self, name: str) -> Shard:
        for s in self.shards:
            if s.name == name:
                return s
        raise InputError(f"no shard named {name!r} in this audit")

    def identity(self) -> dict[str, Any]:
        """What must match for a rerun to continue an earlier run's output: the inputs, every setting that
        can change a verdict or a column (not batch size, engine or workers, which cannot), and the checker
        itself: an upgrade or a retrained model between two runs would give half the shards other verdicts."""
        return {"settings": self.settings.model_dump(), "group_by": self.group_by,
                "shards": [s.model_dump() for s in self.shards], "checker": checker_fingerprint(self.settings.verifier)}


def checker_fingerprint(verifier: str) -> dict[str, str]:
    """SHA-256 of the package's Python sources and of the model configurations a verdict depends on (the
    shipped models', and a ``grounding:DIR`` / ``hf:DIR`` folder's): the code and weights that decide a
    verdict, so a rerun refuses to finish another checker's audit. A model's config.json changes with every
    retraining or recalibration (it records the weights' training run and the calibration)."""
    import hashlib
    from pathlib import Path

    pkg = Path(__file__).resolve().parent.parent
    code = hashlib.sha256()
    for path in sorted(pkg.rglob("*.py")):
        code.update(str(path.relative_to(pkg)).encode())
        code.update(path.read_bytes())
    models = hashlib.sha256()
    configs = sorted((pkg / "models").glob("*/config.json"))
    _, _, folder = verifier.partition(":")
    if folder and (Path(folder) / "config.json").is_file():
        configs.append(Path(folder) / "config.json")
    for path in configs:
        models.update(path.read_bytes())
    return {"code": code.hexdigest(), "models": models.hexdigest()}


class ShardResult(BaseModel):
    """What a worker reports for one shard it was given."""

    shard: str
    answers: int = 0
    errors: int = Field(default=0, description="Rows that became error rows (malformed, or the check failed).")
    flagged: int = 0
    claims: int = 0
    seconds: float = 0.0
    worker: str = Field(default="", description="host:pid of the process that checked it.")
    peak_rss_mb: float | None = Field(default=None, description="Peak resident memory of that process so far.")
    failure: str | None = Field(default=None, description="Why the shard was not written (unreadable file); a rerun retries it.")
