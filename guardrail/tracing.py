"""OpenTelemetry spans for the pipeline's stages, a no-op unless the operator configures an exporter.

Why through ``opentelemetry-api`` only: the API is a few kilobytes with no exporter and no
network; without an SDK configured by the application, ``get_tracer`` returns a no-op tracer
and a span costs a function call. The library, the service and an application embedding the
library all emit the same spans (``guardrail.claims``, ``guardrail.verify`` ...), so a trace
looks the same whether the guard runs in-process or behind ``guardrail serve``.

When ``opentelemetry-api`` is not installed at all the spans are skipped silently: tracing is
observability, never a condition for a check to run.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

try:  # optional: the [serve] extra installs it, the core library does not need it
    from opentelemetry import trace as _otel_trace
except ImportError:  # pragma: no cover - exercised only without the extra
    _otel_trace = None  # type: ignore[assignment]  # the optional-import idiom: None stands for "not installed"

__all__ = ["span", "TRACER_NAME"]

#: Instrumentation scope of every span this package emits.
TRACER_NAME = "guardrail"

_Attr = str | bool | int | float


@contextmanager
def span(name: str, **attributes: _Attr | None) -> Iterator[Any]:
    """A span named ``guardrail.<name>`` around the block, with the attributes that are not None.

    An exception leaving the block is recorded on the span and re-raised unchanged.
    """
    if _otel_trace is None:
        with nullcontext() as nothing:
            yield nothing
        return
    tracer = _otel_trace.get_tracer(TRACER_NAME)
    with tracer.start_as_current_span(f"guardrail.{name}") as current:
        for key, value in attributes.items():
            if value is not None:
                current.set_attribute(f"guardrail.{key}", value)
        yield current
