"""The shapes every evaluation part agrees on: loaders yield :class:`EvalExample`, the runner and the
red-team suite consume them.

One convention for every dataset: ``hallucinated`` is True when the response is *not* grounded in its
context. RAGTruth marks hallucinated spans, SummaC / AggreFact / WiCE mark consistency (label 1 or
"supported" = consistent); the loaders translate, so nothing downstream needs to know the source.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

__all__ = ["GoldSpan", "EvalExample"]


class GoldSpan(BaseModel):
    """A hallucinated stretch of the response, as character offsets (``response[start:end]``)."""

    start: int = Field(ge=0)
    end: int = Field(ge=0)
    label: str | None = None


class EvalExample(BaseModel):
    id: str
    dataset: str = Field(description="Which file/benchmark it came from, e.g. 'ragtruth', 'summac_frank'.")
    task: str | None = Field(default=None, description="Task type where the source has one (QA, Summary, Data2txt).")
    question: str | None = None
    context: str | list[str] = Field(description="What the response must be grounded in: one text or passages.")
    response: str
    hallucinated: bool | None = Field(default=None, description="Gold response-level label; None when unlabelled.")
    spans: list[GoldSpan] | None = Field(
        default=None, description="Gold hallucinated spans; None when the source has no span labels."
    )
    group: str | None = Field(
        default=None,
        description="Examples sharing a group (same source context, or a HaluEval right/hallucinated pair) "
        "are never split across calibration and evaluation parts.",
    )
