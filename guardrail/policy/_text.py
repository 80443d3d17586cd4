"""Small lexical helpers shared by the corrective prompt and the offline rewriter.

They only pick which evidence sentences to quote, never judge support (that is the verifier's job,
which re-checks every rewrite); sentences and terms are the text layer's, as everywhere else.
"""

from __future__ import annotations

import string

from ..claims import split_sentences
from ..text.terms import content_terms

__all__ = ["sentences", "tokens", "overlap", "best_sentences", "safe_format"]

def sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the sentences of ``text``, whitespace excluded: the claims' own splitter."""
    return split_sentences(text)


def tokens(text: str) -> set[str]:
    """Content terms (the text layer's: stop words out, crudely stemmed); numbers are kept because they are
    what claims get wrong."""
    return set(content_terms(text))


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
