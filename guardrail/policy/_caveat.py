"""Mark flagged claims in the answer without touching anything else.

The answer is rebuilt from slices of the original string: every byte outside a marked claim
is copied, never re-typed, so whitespace, markdown and citations survive exactly. A claim
whose offsets do not match the answer (a pipeline bug) is not dropped: it goes into a list
appended at the end instead of being spliced at a guessed position.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ._policy import DEFAULT_NOTES, CaveatPolicy, CaveatStyle
from ._text import safe_format

__all__ = ["Caveat", "render_caveat", "render_marks", "DEFAULT_NOTES"]


class Caveat(BaseModel):
    """One marked span of the answer."""

    model_config = ConfigDict(extra="forbid")

    claim_id: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    text: str = Field(description="answer[start:end] as checked.")
    label: str = Field(description="Verdict label, or 'citation' for a claim marked for its citation only.")
    note: str
    n: int = Field(default=0, description="1-based number in the rendered answer (footnote number).")


def note_for(label: str, policy: CaveatPolicy) -> str:
    return policy.notes.get(label) or DEFAULT_NOTES.get(label, label)


def _merge_overlaps(items: list[Caveat]) -> list[Caveat]:
    """Overlapping claims (a clause inside its sentence) become one mark over their union."""
    out: list[Caveat] = []
    for c in sorted(items, key=lambda c: (c.start, -c.end)):
        if out and c.start < out[-1].end:
            prev = out[-1]
            notes = prev.note if c.note in prev.note.split("; ") else f"{prev.note}; {c.note}"
            out[-1] = prev.model_copy(update={"end": max(prev.end, c.end), "note": notes})
        else:
            out.append(c.model_copy())
    return out


def render_marks(answer: str, caveats: list[Caveat], policy: CaveatPolicy, first_n: int = 1
                 ) -> tuple[str, list[str], list[Caveat]]:
    """The caveats in the policy's style: the answer with its marks in place, the lines that go at the end
    (footnotes, or the list under its header), and the caveats as numbered from ``first_n``.

    The one renderer: ``render_caveat`` joins the two parts for a whole answer; checked streaming
    (``guardrail.streaming``) numbers on across segments and collects the end lines for the stream's end.
    """
    placeable = [c for c in caveats if 0 <= c.start <= c.end <= len(answer) and answer[c.start : c.end] == c.text]
    stray = [c for c in caveats if c not in placeable]
    marks = _merge_overlaps(placeable)
    for c in marks:
        c.text = answer[c.start : c.end]
    numbered = [m.model_copy(update={"n": first_n + i}) for i, m in enumerate(marks)]
    numbered += [s.model_copy(update={"n": first_n + len(marks) + i}) for i, s in enumerate(stray)]

    def fmt(template: str, c: Caveat) -> str:
        return safe_format(template, {"text": c.text, "note": c.note, "n": c.n, "label": c.label, "claim_id": c.claim_id})

    in_place = numbered[: len(marks)]
    tail_lines: list[str] = []
    if policy.style is CaveatStyle.list:
        body = answer
        tail_lines = [policy.list_header, *(fmt(policy.list_item_template, c) for c in numbered)] if numbered else []
    else:
        template = policy.inline_template if policy.style is CaveatStyle.inline else policy.footnote_marker
        parts, pos = [], 0
        for c in in_place:
            parts += [answer[pos : c.start], fmt(template, c)]
            pos = c.end
        parts.append(answer[pos:])
        body = "".join(parts)
        if policy.style is CaveatStyle.footnotes:
            tail_lines = [fmt(policy.footnote_template, c) for c in in_place]
        if stray:
            tail_lines += [policy.list_header, *(fmt(policy.list_item_template, c) for c in numbered[len(marks) :])]
    return body, [line for line in tail_lines if line], numbered


def render_caveat(answer: str, caveats: list[Caveat], policy: CaveatPolicy) -> tuple[str, list[Caveat]]:
    """The answer with the caveats applied in the policy's style, and the caveats as numbered.

    With no caveat at all the general note is appended, so a caveat decision is never
    indistinguishable from a clean answer.
    """
    body, tail_lines, numbered = render_marks(answer, caveats, policy)
    if not numbered:
        return answer + "\n\n" + policy.general_note, []
    tail = "\n".join(tail_lines)
    return (body + "\n\n" + tail if tail else body), numbered
