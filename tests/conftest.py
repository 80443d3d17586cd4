"""Shared test setup: offline, no network, shared data located beside the repo (tests skip without it)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("GUARDRAIL_DATA_DIR", REPO.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not (DATA / "ragtruth" / "ragtruth_train.jsonl.gz").is_file():
        pytest.skip(f"shared data not found at {DATA} (set GUARDRAIL_DATA_DIR)")
    return DATA
