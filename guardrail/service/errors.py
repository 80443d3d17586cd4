"""One error shape for every failure: ``{"error": {"code", "message", "field"}}``, never a traceback.

Why one shape: a TypeScript or Java client handles one type; a traceback leaks paths and code
and tells the caller nothing they can fix. The library's own exceptions map to statuses here,
in one place: ``InputError`` is the caller's (422), ``ConfigError`` is the operator's (503: the
server cannot serve this tenant until its configuration is fixed), a ``BackendError`` that reaches
here (the audit log cannot be written) is 503 too, anything unexpected is 500
with a request id to find the log line by.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..errors import BackendError, ConfigError, InputError

__all__ = ["ApiError", "ErrorDetail", "ErrorBody", "install_error_handlers", "error_response"]

log = logging.getLogger("guardrail.service")


class ErrorDetail(BaseModel):
    code: str = Field(description="Stable machine-readable code: invalid_input, too_large, unauthorized, forbidden, "
                                  "too_many_requests, not_ready, policy_unavailable, backend_unavailable, deadline_exceeded, not_found, internal.")
    message: str = Field(description="What went wrong, for a person.")
    field: str | None = Field(default=None, description="The request field at fault (dotted path), when one is.")


class ErrorBody(BaseModel):
    error: ErrorDetail


class ApiError(Exception):
    """Raised by the routes and dependencies; rendered as ``ErrorBody`` with ``status``."""

    def __init__(self, status: int, code: str, message: str, field: str | None = None,
                 headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status, self.code, self.message, self.field, self.headers = status, code, message, field, headers


def error_response(status: int, code: str, message: str, field: str | None = None,
                   headers: dict[str, str] | None = None) -> JSONResponse:
    body = ErrorBody(error=ErrorDetail(code=code, message=message, field=field))
    return JSONResponse(body.model_dump(), status_code=status, headers=headers)


def _field_of(loc: Sequence[Any]) -> str | None:
    parts = [str(p) for p in loc if p != "body"]
    return ".".join(parts) or None


_STATUS_CODES = {400: "invalid_input", 404: "not_found", 405: "method_not_allowed", 413: "too_large", 401: "unauthorized", 403: "forbidden"}


def install_error_handlers(app: FastAPI) -> None:
    """Every exception a request can end in becomes ``ErrorBody``."""

    @app.exception_handler(ApiError)
    async def _api(request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, exc.code, exc.message, exc.field, exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        first = errors[0] if errors else {"loc": (), "msg": "invalid request"}
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        return error_response(422, "invalid_input", f"{first['msg']}{more}", _field_of(first.get("loc", ())))

    @app.exception_handler(InputError)
    async def _input(request: Request, exc: InputError) -> JSONResponse:
        return error_response(422, "invalid_input", str(exc))

    @app.exception_handler(ConfigError)
    async def _config(request: Request, exc: ConfigError) -> JSONResponse:
        log.error("configuration error serving a request: %s", exc)
        return error_response(503, "policy_unavailable", str(exc), exc.field)

    @app.exception_handler(BackendError)
    async def _backend(request: Request, exc: BackendError) -> JSONResponse:
        # What aguard does not turn into a fail-mode decision: the audit log could not be written.
        log.error("backend error serving a request: %s", exc)
        return error_response(503, "backend_unavailable", str(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return error_response(exc.status_code, _STATUS_CODES.get(exc.status_code, "http_error"), str(exc.detail))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        request_id = getattr(request.state, "request_id", None)
        log.exception("unexpected error (request %s)", request_id)
        return error_response(500, "internal", f"internal error; request id {request_id}")
