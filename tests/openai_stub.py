"""A scripted OpenAI-compatible HTTP server on 127.0.0.1, for network-free tests of LLM paths.

Why a real socket rather than a mocked client: retries, timeouts, HTTP status handling and body
parsing live in the ``openai`` package and its HTTP stack, and only a real server exercises them.

Usage (pytest puts ``tests/`` on ``sys.path``)::

    from openai_stub import Reply, ScriptedOpenAI, openai_stub  # noqa: F401  (fixture import)

    def test_something(openai_stub):             # fixture: a running server, closed after the test
        openai_stub.add("plain text reply")         # 200, assistant content
        openai_stub.add(Reply(status=500))          # HTTP 500 with an OpenAI-style error body
        openai_stub.add(Reply(status=429))          # rate limited
        openai_stub.add(Reply(delay=2.0, content="late"))  # sleeps before answering (timeouts)
        openai_stub.add(Reply(body="{not json"))    # raw malformed body, status 200
        openai_stub.add(Reply(content="x", drip=0.2))  # body trickles one byte per 0.2 s
        openai_stub.add(Reply(content="yes", logprobs=[("yes", -0.01)]))  # with choice logprobs
        openai_stub.add(Reply(pieces=["Hel", "lo."], finish_reason=None))  # "stream": true, cut: no finish reason
        client = OpenAIChat(base_url=openai_stub.base_url, model="stub")
        ...
        assert openai_stub.requests[0]["json"]["messages"][0]["role"] == "system"

    with ScriptedOpenAI(responder=lambda req: Reply(content="...")) as stub:   # context manager
        ...

Replies are served in FIFO order. When the queue is empty the optional ``responder(request)`` is
asked (handy when concurrent requests arrive in no fixed order: answer by request content); with
neither, the server answers HTTP 500 ``"no scripted reply left"`` so a test that makes more calls
than it scripted fails loudly. ``requests`` records every POST to ``/v1/chat/completions`` (path,
headers with lower-cased names, parsed JSON) in arrival order. ``GET /v1/models`` lists ``model_id``.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

__all__ = ["Reply", "ScriptedOpenAI", "free_port", "openai_stub"]


@dataclass
class Reply:
    """One scripted answer. ``body`` (raw text) wins over ``content`` when given."""

    content: str | None = ""
    status: int = 200
    delay: float = 0.0
    body: str | None = None
    logprobs: list[tuple[str, float]] | None = None
    finish_reason: str | None = "stop"
    headers: dict[str, str] = field(default_factory=dict)
    #: Send the body one byte every ``drip`` seconds (a server that trickles: no read timeout fires).
    drip: float = 0.0
    #: For ``"stream": true`` requests: the content deltas, sent as server-sent events ``gap`` seconds
    #: apart, then a chunk with ``finish_reason`` (none when it is None: a stream the server cut) and [DONE].
    pieces: list[str] | None = None
    gap: float = 0.0


Responder = Callable[[dict[str, Any]], "Reply | str"]


class ScriptedOpenAI:
    """Threaded stdlib HTTP server speaking enough of the OpenAI chat API for client tests."""

    def __init__(self, replies: list[Reply | str] | None = None, *, responder: Responder | None = None,
                 model_id: str = "stub-model"):
        self._queue: deque[Reply] = deque(_as_reply(r) for r in replies or [])
        self.responder = responder
        self.model_id = model_id
        self.requests: list[dict[str, Any]] = []
        #: ``time.monotonic()`` when each streamed reply ended (requests carry "arrived" the same way).
        self.streams_done: list[float] = []
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- scripting -----------------------------------------------------------------------------
    def add(self, *replies: Reply | str) -> "ScriptedOpenAI":
        with self._lock:
            self._queue.extend(_as_reply(r) for r in replies)
        return self

    @property
    def pending(self) -> int:
        """Scripted replies not yet served."""
        with self._lock:
            return len(self._queue)

    @property
    def base_url(self) -> str:
        assert self._server is not None, "server not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    # -- lifecycle -----------------------------------------------------------------------------
    def start(self) -> "ScriptedOpenAI":
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep pytest output clean
                pass

            def do_GET(self) -> None:
                if self.path.rstrip("/") == "/v1/models":
                    self._send(200, json.dumps({"object": "list", "data": [
                        {"id": stub.model_id, "object": "model", "created": 0, "owned_by": "stub"}]}))
                else:
                    self._send(404, _error_body(404, f"no route {self.path}"))

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, _error_body(404, f"no route {self.path}"))
                    return
                try:
                    payload = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    self._send(400, _error_body(400, "request body is not JSON"))
                    return
                request = {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "json": payload,
                           "arrived": time.monotonic()}
                with stub._lock:
                    stub.requests.append(request)
                    reply = stub._queue.popleft() if stub._queue else None
                if reply is None and stub.responder is not None:
                    reply = _as_reply(stub.responder(request))
                if reply is None:
                    self._send(500, _error_body(500, "no scripted reply left"))
                    return
                if reply.delay and stub._closing.wait(reply.delay):
                    return  # server closing: drop the request
                if payload.get("stream") and reply.status == 200 and reply.body is None:
                    self._stream(reply, payload)
                    return
                if reply.body is not None:
                    self._send(reply.status, reply.body, reply.headers, reply.drip)
                elif reply.status != 200:
                    self._send(reply.status, _error_body(reply.status, reply.content or "scripted error"), reply.headers)
                else:
                    self._send(200, json.dumps(_completion(reply, payload, stub.model_id)), reply.headers, reply.drip)

            def _stream(self, reply: Reply, request: dict[str, Any]) -> None:
                pieces = reply.pieces if reply.pieces is not None else [reply.content or ""]
                model = request.get("model") or stub.model_id
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Connection", "close")
                    self.end_headers()
                    for piece in pieces:
                        self._event(_chunk(model, {"content": piece}, None))
                        if reply.gap and stub._closing.wait(reply.gap):
                            return
                    if reply.finish_reason is not None:
                        self._event(_chunk(model, {}, reply.finish_reason))
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass
                finally:
                    with stub._lock:
                        stub.streams_done.append(time.monotonic())
                    self.close_connection = True

            def _event(self, data: dict[str, Any]) -> None:
                self.wfile.write(b"data: " + json.dumps(data).encode() + b"\n\n")
                self.wfile.flush()

            def _send(self, status: int, body: str, headers: dict[str, str] | None = None, drip: float = 0.0) -> None:
                data = body.encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    if not drip:
                        self.wfile.write(data)
                        return
                    for i in range(len(data)):
                        self.wfile.write(data[i:i + 1])
                        self.wfile.flush()
                        if stub._closing.wait(drip):
                            return
                except (BrokenPipeError, ConnectionResetError):  # client gave up (timeout test)
                    pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        server.block_on_close = False  # a handler sleeping on a scripted delay must not block close
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, name="openai-stub", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self._closing.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> "ScriptedOpenAI":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


def _as_reply(r: Reply | str) -> Reply:
    return r if isinstance(r, Reply) else Reply(content=r)


def _error_body(status: int, message: str) -> str:
    return json.dumps({"error": {"message": message, "type": "stub_error", "code": status}})


def _completion(reply: Reply, request: dict[str, Any], model_id: str) -> dict[str, Any]:
    choice: dict[str, Any] = {
        "index": 0,
        "message": {"role": "assistant", "content": reply.content},
        "finish_reason": reply.finish_reason,
        "logprobs": None,
    }
    if reply.logprobs is not None:
        choice["logprobs"] = {"content": [
            {"token": t, "logprob": lp, "bytes": list(t.encode()), "top_logprobs": []} for t, lp in reply.logprobs]}
    return {
        "id": f"chatcmpl-stub-{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model") or model_id,
        "choices": [choice],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


def _chunk(model: str, delta: dict[str, Any], finish_reason: str | None) -> dict[str, Any]:
    return {"id": "chatcmpl-stub-stream", "object": "chat.completion.chunk", "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": None}]}


def free_port() -> int:
    """A TCP port nothing listens on right now (for servers that need the port up front)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def openai_stub() -> Iterator[ScriptedOpenAI]:
    """A running ``ScriptedOpenAI`` with an empty script; closed after the test."""
    with ScriptedOpenAI() as stub:
        yield stub
