#!/usr/bin/env bash
# Runs the whole test suite offline. Sets up .venv with the test extras first if needed.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! .venv/bin/python -c "import pytest, hypothesis, torch, langchain_core, llama_index.core, llama_cpp.server, fastapi, uvicorn, ray, pyarrow" 2>/dev/null; then
  bash scripts/setup.sh --dev
fi
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
exec .venv/bin/python -m pytest -q "$@"
