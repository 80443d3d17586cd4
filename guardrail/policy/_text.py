"""Small lexical helpers shared by the corrective prompt and the offline rewriter.

Deliberately simple and dependency-free: they only pick which evidence sentences to quote,
never judge support (that is the verifier's job, which re-checks every rewrite).
"""

from __future__ import annotations

import re
import string

__all__ = ["sentences", "tokens", "overlap", "best_sentences", "safe_format"]

_SENT_END = re.compile(r"(?<=[.!?])[\"'\u201d)\]]*\s+(?=[\"'\u201c(\[]?[A-Z0-9])|\n+")
_WORD = re.compile(r"[^\W_]+(?:[.,'][^\W_]+)*", re.UNICODE)
_STOP = frozenset(
    "a an the and or but of to in on at by for with from as is are was were be been being it its this that these those "
    "which who whom whose what when where why how has have had do does did not no so than then there their they them he "
    "she his her we our you your i me my can could may might will would shall should into about over under also".split()
)


_ABBREV = re.compile(r"(?:\b(?:Dr|Mr|Mrs|Ms|Prof|St|Sr|Jr|vs|etc|e\.g|i\.e|No|Fig|approx|Inc|Ltd|Co)|\b[A-Z])\.$")


def sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the sentences of ``text``, whitespace excluded."""
    out, pos = [], 0
    for m in _SENT_END.finditer(text):
        if "\n" not in m.group(0) and _ABBREV.search(text, max(pos, m.start() - 8), m.start()):
            continue  # "Dr. Smith": not a sentence end
        out.append((pos, m.start()))
        pos = m.end()
    out.append((pos, len(text)))
    spans = []
    for s, e in out:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            spans.append((s, e))
    return spans


def tokens(text: str) -> set[str]:
    """Content words, lower-cased; numbers are kept because they are what claims get wrong."""
    return {w for w in (m.group(0).lower() for m in _WORD.finditer(text)) if w not in _STOP}


def overlap(claim: str, sentence: str) -> float:
    """Share of the claim's content words found in the sentence (recall, in [0, 1])."""
    c = tokens(claim)
    return len(c & tokens(sentence)) / len(c) if c else 0.0


def best_sentences(claim: str, text: str, budget: int) -> str:
    """The sentences of ``text`` that share most with ``claim``, in document order, within ``budget`` chars."""
    if len(text) <= budget:
        return text
    spans = sentences(text)
    ranked = sorted(range(len(spans)), key=lambda i: (-overlap(claim, text[spans[i][0] : spans[i][1]]), i))
    keep: list[int] = []
    used = 0
    for i in ranked:
        s, e = spans[i]
        if used + (e - s) + 1 > budget:
            if not keep:
                keep.append(i)
                break
            continue
        keep.append(i)
        used += e - s + 1
    parts = [text[spans[i][0] : spans[i][1]] for i in sorted(keep)]
    return "\n".join(parts)[:budget]


_FORMATTER = string.Formatter()


def safe_format(template: str, values: dict[str, object]) -> str:
    """``template.format(**values)`` restricted to plain placeholders: ``{text}``, ``{n:>3}``, ``{note!r}``.

    Why not ``str.format``: a policy template is configuration that a tenant may edit, and
    ``str.format`` resolves ``{text.__class__.__mro__}`` or ``{n[0]}``, which reads attributes of
    Python objects into the answer. Here a field must be one of ``values`` by name, with no
    attribute or index access and no placeholder nested in a format spec; anything else is a
    ``ValueError`` naming the field (the policy model turns it into a ``ConfigError`` at load).
    """
    out: list[str] = []
    for literal, name, spec, conversion in _FORMATTER.parse(template):  # ValueError on a malformed template
        out.append(literal)
        if name is None:
            continue
        if name not in values:
            raise ValueError(f"{{{name}}} is not an allowed placeholder (plain names only: no attribute or index access)")
        if spec and ("{" in spec or "}" in spec):
            raise ValueError(f"{{{name}:{spec}}}: a placeholder inside a format spec is not allowed")
        value = values[name]
        if conversion:
            value = _FORMATTER.convert_field(value, conversion)
        out.append(format(value, spec or ""))
    return "".join(out)
