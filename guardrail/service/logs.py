"""Structured logs: one JSON object per line, each carrying the id of the request it belongs to.

Why a context variable: a line logged deep inside the library (a policy reload, a verifier
failure) knows nothing about HTTP, yet an operator needs to join it to the request. The id is
set once per request by the middleware and copied into worker threads with the context
(``workers.WorkerPool``), so every line of a request carries it. Headers are never logged: they
hold API keys.
"""

from __future__ import annotations

import json
import logging
from contextvars import ContextVar

__all__ = ["request_id_var", "JsonFormatter", "configure_logging"]

#: The id of the request being served in this context ("-" outside one).
request_id_var: ContextVar[str] = ContextVar("guardrail_request_id", default="-")

_STANDARD = frozenset(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """``{"ts", "level", "logger", "message", "request_id", ...extra}``; exceptions as one string field."""

    def format(self, record: logging.LogRecord) -> str:
        out = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": request_id_var.get(),
        }
        out.update({k: v for k, v in record.__dict__.items() if k not in _STANDARD and not k.startswith("_")})
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str, ensure_ascii=False)


def configure_logging(json_lines: bool, level: int = logging.INFO) -> None:
    """Route the ``guardrail`` loggers (library and service) to stderr, as JSON lines or plain text."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if json_lines else logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger("guardrail")
    logger.handlers[:] = [handler]
    logger.setLevel(level)
    logger.propagate = False
