"""Checks run in a bounded thread pool, each with a deadline; the event loop only routes requests.

Why a pool of its own and not ``asyncio.to_thread``: the default executor is shared with
everything else in the process and sized for I/O; model inference is CPU-bound, so a small
fixed pool (about one thread per core) is what keeps latency predictable, and requests beyond
it wait in its queue instead of all competing for the cores at once.

A check past its deadline raises ``DeadlineExceeded`` (a ``BackendError``): ``aguard`` turns that
into a decision under the policy's fail mode, like any check that could not run. Python cannot
kill a thread: a check already running when its deadline passes finishes in the background and
its result is dropped; one still queued is cancelled and never runs.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from ..errors import BackendError

__all__ = ["WorkerPool", "DeadlineExceeded"]

T = TypeVar("T")


class DeadlineExceeded(BackendError):
    """A check did not finish within its tenant's deadline."""


class WorkerPool:
    def __init__(self, threads: int):
        self.threads = threads
        self._executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="guardrail-check")

    async def run(self, fn: Callable[..., T], *args: Any, timeout: float | None = None, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` in a worker thread, in the caller's context (request id, trace span)."""
        call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
        future = asyncio.get_running_loop().run_in_executor(self._executor, call)
        if timeout is None:
            return await future
        if timeout <= 0:
            future.cancel()
            raise DeadlineExceeded("the request's deadline passed before the check could start")
        try:
            return await asyncio.wait_for(future, timeout)
        except asyncio.TimeoutError as exc:
            raise DeadlineExceeded(f"check did not finish within its deadline ({timeout:.3g} s)") from exc

    def shutdown(self) -> None:
        """Stop taking work; queued checks are cancelled (the server has drained its requests by now)."""
        self._executor.shutdown(wait=False, cancel_futures=True)
