"""A blocking call with a deadline: the one place the pipeline gives up on a call that does not return.

Why a thread: httpx timeouts bound each read, not a whole request, and a custom verifier may block on
anything; an inline guardrail must answer anyway. Python cannot stop a thread, so a hung call is
abandoned (it ends when its backend gives up), never waited for; a daemon thread does not hold up exit.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

__all__ = ["call_with_deadline"]


def call_with_deadline(fn: Callable[[], T], timeout_s: float, what: str,
                       error: Callable[[str], BaseException]) -> T:
    """``fn()``, or ``error("<what>: no result within <timeout_s> s")`` raised once the time has passed.

    An exception ``fn`` raises is re-raised in the caller's thread, unchanged.
    """
    done = threading.Event()
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread below
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=run, name=f"guardrail-deadline-{what}"[:60], daemon=True).start()
    if not done.wait(timeout_s):
        raise error(f"{what}: no result within {timeout_s:g} s")
    if "error" in box:
        raise box["error"]
    return box["value"]
