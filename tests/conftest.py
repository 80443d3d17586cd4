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


# --------------------------------------------------------------------------------------------- hypothesis profiles
# The fuzz suite (tests/test_fuzz.py) runs under one of two profiles; docs/testing.md says when to use which.
#   ci   (default): few examples, derandomized, so CI is fast and a failure reproduces run after run.
#   long (HYPOTHESIS_PROFILE=long): many random examples, for a night's run before a release.
# A deadline per example makes a slow input a failure (shrunk to the smallest slow input), not a slow pass.
from hypothesis import HealthCheck, settings  # noqa: E402 - grouped with the profiles it configures

settings.register_profile(
    "ci",
    max_examples=40,
    derandomize=True,
    database=None,
    deadline=5_000,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "long",
    max_examples=2_000,
    deadline=10_000,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "fuzz: hypothesis properties over every entry point (profile: HYPOTHESIS_PROFILE, default ci)")


@pytest.fixture
def span_names(monkeypatch) -> list[str]:
    """Names of the OpenTelemetry spans started while the test runs (skips without opentelemetry-api)."""
    otel = pytest.importorskip("opentelemetry.trace")
    names: list[str] = []
    real = otel.get_tracer

    class Recording:
        def __init__(self, tracer):
            self.tracer = tracer

        def start_as_current_span(self, name, *a, **kw):
            names.append(name)
            return self.tracer.start_as_current_span(name, *a, **kw)

    monkeypatch.setattr(otel, "get_tracer", lambda *a, **kw: Recording(real(*a, **kw)))
    return names
