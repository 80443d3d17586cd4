"""RAGTruth loading and a leak-free train/dev split, for fitting and measuring the verifiers.

Why a split grouped by source context: RAGTruth has one response per LLM for the same context (about
six per context), so splitting by response id puts the same passages in train and dev and inflates
every dev number. Each context goes to exactly one side; within a task type the share of contexts in
dev is ``dev_fraction``, so QA, Summary and Data2txt keep their proportions.

The data is public but not part of this package: it is read in place from ``../shared/data``
(relative to the repo root) or from ``$GUARDRAIL_DATA_DIR``.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import InputError

__all__ = ["RagTruthSpan", "RagTruthRow", "TASK_TYPES", "data_dir", "ragtruth_path", "load_ragtruth", "split_ragtruth"]

TaskType = Literal["QA", "Summary", "Data2txt"]
TASK_TYPES: tuple[str, ...] = ("QA", "Summary", "Data2txt")
_RAGTRUTH_FILE = Path("ragtruth") / "ragtruth_train.jsonl.gz"


class RagTruthSpan(BaseModel):
    """One gold hallucination span; ``response[start:end] == text``."""

    # The public file carries a few more bookkeeping fields; we keep what the checks use.
    model_config = ConfigDict(extra="ignore")

    start: int = Field(ge=0)
    end: int = Field(ge=0)
    text: str
    label_type: str = Field(description="Evident/Subtle Conflict (contradiction) or Evident/Subtle Baseless Info.")
    implicit_true: bool = False
    due_to_null: bool = False

    @property
    def is_conflict(self) -> bool:
        return "Conflict" in self.label_type


class RagTruthRow(BaseModel):
    """One RAGTruth response with its context and gold spans (a span is a hallucination)."""

    model_config = ConfigDict(extra="ignore")

    id: str
    task_type: TaskType
    model: str = ""
    query: str = ""
    context: str
    response: str
    labels: list[RagTruthSpan] = Field(default_factory=list)

    @property
    def hallucinated(self) -> bool:
        """Response-level gold label: any labelled span makes the response hallucinated."""
        return bool(self.labels)

    @property
    def context_key(self) -> str:
        """Hash of the context text: the unit the split groups by."""
        return hashlib.sha1(self.context.encode("utf-8")).hexdigest()


def data_dir() -> Path:
    """``$GUARDRAIL_DATA_DIR`` when set, else ``../shared/data`` next to the repository root."""
    env = os.environ.get("GUARDRAIL_DATA_DIR")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[1].parent / "shared" / "data"


def ragtruth_path() -> Path:
    """Where :func:`load_ragtruth` looks by default (the file may be absent)."""
    return data_dir() / _RAGTRUTH_FILE


def load_ragtruth(path: str | Path | None = None, task_types: Iterable[str] | None = None) -> list[RagTruthRow]:
    """Rows of the RAGTruth train file (gzipped or plain JSONL), optionally only some task types.

    Raises ``FileNotFoundError`` naming the path (and the env variable that moves it) when the file is
    absent, and :class:`InputError` naming file and line for a row that does not parse.
    """
    p = Path(path) if path is not None else ragtruth_path()
    wanted: set[str] | None = None
    if task_types is not None:
        wanted = set(task_types)
        unknown = wanted - set(TASK_TYPES)
        if unknown:
            raise InputError(f"unknown RAGTruth task type(s) {sorted(unknown)}; expected some of {list(TASK_TYPES)}")
    if not p.is_file():
        raise FileNotFoundError(
            f"RAGTruth data not found at {p} (set GUARDRAIL_DATA_DIR to the folder holding ragtruth/ragtruth_train.jsonl.gz)"
        )
    opener = gzip.open if p.suffix == ".gz" else open
    rows: list[RagTruthRow] = []
    with opener(p, "rt", encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                raw = json.loads(line)
                if wanted is not None and raw.get("task_type") not in wanted:
                    continue
                raw["id"] = str(raw.get("id"))
                rows.append(RagTruthRow.model_validate(raw))
            except (json.JSONDecodeError, ValidationError) as exc:
                raise InputError(f"{p}:{lineno}: not a RAGTruth row: {exc}") from exc
    return rows


def split_ragtruth(
    rows: Sequence[RagTruthRow], dev_fraction: float = 0.1, seed: int = 13
) -> tuple[list[RagTruthRow], list[RagTruthRow]]:
    """(train, dev), grouped by context and stratified by task type; deterministic for a given seed.

    The result does not depend on the order of ``rows``: groups are sorted by context hash before the
    seeded shuffle, and each side keeps the input order of its rows.
    """
    if not 0.0 <= dev_fraction <= 1.0:
        raise InputError(f"dev_fraction must be within 0..1, got {dev_fraction}")
    groups: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for r in rows:
        groups[r.context_key][r.task_type] += 1
    by_task: dict[str, list[str]] = defaultdict(list)
    for key, counts in groups.items():
        # A context shared by two task types (not seen in RAGTruth) is stratified by its majority type.
        task = max(sorted(counts), key=lambda t: counts[t])
        by_task[task].append(key)
    dev_keys: set[str] = set()
    for task in sorted(by_task):
        keys = sorted(by_task[task])
        random.Random(f"{seed}:{task}").shuffle(keys)
        dev_keys.update(keys[: round(len(keys) * dev_fraction)])
    train = [r for r in rows if r.context_key not in dev_keys]
    dev = [r for r in rows if r.context_key in dev_keys]
    return train, dev
