"""Where an LLM's quotation sits in the text it quotes: ``locate_quote``.

Why here and not in ``guardrail.text``: this is not parsing of our own inputs but undoing what a model
does to a passage it quotes back (re-typed case, spacing, curly quotes, a changed word). The LLM
claim extractor, the judge and chain-of-verification map their models' quotes to exact offsets with it.
"""

from __future__ import annotations

import difflib

__all__ = ["locate_quote"]

_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-"})


def _normalise(text: str) -> tuple[str, list[int]]:
    """Lower-cased, whitespace-collapsed text and, per kept character, its offset in ``text``."""
    chars: list[str] = []
    index: list[int] = []
    for i, ch in enumerate(text):
        if ch.isspace():
            if chars and chars[-1] != " ":
                chars.append(" ")
                index.append(i)
            continue
        low = ch.lower().translate(_QUOTES)
        chars.append(low if len(low) == 1 else ch)
        index.append(i)
    if chars and chars[-1] == " ":
        chars.pop()
        index.pop()
    return "".join(chars), index


def locate_quote(text: str, quote: str, *, min_ratio: float = 0.8) -> tuple[int, int] | None:
    """Where an LLM's quotation of ``text`` sits in it, as ``(start, end)`` offsets, or ``None``.

    LLMs re-type what they quote (case, spacing, curly quotes, a changed word), so an exact find
    is tried first, then a case/whitespace-insensitive one, then the best fuzzy window
    (``difflib`` ratio at least ``min_ratio``), snapped outward to whole words.
    """
    q = quote.strip()
    if not q or not text:
        return None
    i = text.find(q)
    if i >= 0:
        return i, i + len(q)
    nt, index = _normalise(text)
    nq, _ = _normalise(q)
    if not nq or not nt:
        return None
    j = nt.find(nq)
    if j >= 0:
        return index[j], index[j + len(nq) - 1] + 1
    best = _fuzzy_window(nt, nq, min_ratio)
    if best is None:
        return None
    s, e = index[best[0]], index[best[1] - 1] + 1
    while s > 0 and text[s - 1].isalnum() and text[s].isalnum():
        s -= 1
    while e < len(text) and text[e - 1].isalnum() and text[e].isalnum():
        e += 1
    return s, e


def _fuzzy_window(text: str, quote: str, min_ratio: float) -> tuple[int, int] | None:
    sm = difflib.SequenceMatcher(None, autojunk=False)
    sm.set_seq2(quote)

    def ratio(s: int, e: int) -> float:
        sm.set_seq1(text[s:e])
        return sm.ratio()

    n, L = len(text), len(quote)
    anchor = difflib.SequenceMatcher(None, text, quote, autojunk=False)
    starts = {max(0, min(n - 1, a - b)) for a, b, size in anchor.get_matching_blocks() if size >= 3}
    if not starts:
        return None
    best = max(((ratio(s, min(n, s + L)), s) for s in starts))
    score, s = best
    e = min(n, s + L)
    slack = max(3, L // 5)
    for _ in range(2):  # refine the end, then the start, around the best alignment
        score, e = max((ratio(s, ee), ee) for ee in range(max(s + 1, e - slack), min(n, e + slack) + 1))
        score, s = max((ratio(ss, e), -ss) for ss in range(max(0, s - slack), min(e - 1, s + slack) + 1))
        s = -s
    if score < min_ratio:
        return None
    return s, e
