"""Faithful rewordings of an answer: the same facts in other words, which a guard must accept.

The counterpart of :mod:`.mutate`: where a mutation changes what a sentence says, a rewording changes only
how it says it: digits as words and words as digits, a unit converted ("5 km" -> "about 3.1 miles"), a
scale written out ("1,200,000" -> "1.2 million"), a figure rounded under "about", a date or a clock time
in another format, "45%" as "45 per cent". Each value is read by the one text layer
(:mod:`guardrail.text.quantities`, :mod:`guardrail.text.dates`) and written back with the same value, so
the fact checks that read the claim read the same facts.

Why: the grounding model learnt "supported" from sentences that copy their premise; on the hand-written fact
suites it scored faithful rewordings ("fell thirty-four runs short", "about 3.1 miles") as not supported
(cross-encoder alone 0.7-0.9). ``python -m guardrail.train.nli rewordings`` adds rewordings of supported
RAGTruth claims to the training mix, labelled supported, against the premise that still has the original
wording.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Iterator

from guardrail.text.dates import parse_dates, parse_times
from guardrail.text.quantities import Quantity, parse_quantities

from .mutate import Edit

__all__ = ["REWORD_KINDS", "rewordings", "reword", "number_words"]

REWORD_KINDS = ("number_words", "unit_conversion", "scale", "rounding", "date_format", "time_format", "percent")

_ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen " \
        "seventeen eighteen nineteen".split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
_MONTHS = ("January February March April May June July August September October November December").split()

#: unit as written (lower case) -> (the other system's unit word, factor from this unit to that one)
_CONVERSIONS: dict[str, tuple[str, float]] = {}
for _names, _other, _factor in (
    (("km", "kilometre", "kilometres", "kilometer", "kilometers", "kms"), "miles", 0.621371192),
    (("mi", "mile", "miles"), "kilometres", 1.609344),
    (("kg", "kgs", "kilogram", "kilograms", "kilo", "kilos"), "pounds", 2.20462262),
    (("lb", "lbs"), "kilograms", 0.45359237),
    (("m", "metre", "metres", "meter", "meters"), "feet", 3.2808399),
    (("ft", "foot", "feet"), "metres", 0.3048),
    (("cm", "centimetre", "centimetres", "centimeter", "centimeters"), "inches", 0.393700787),
    (("inch", "inches"), "centimetres", 2.54),
    (("l", "litre", "litres", "liter", "liters"), "US gallons", 0.264172052),
    (("g", "gram", "grams"), "ounces", 0.0352739619),
):
    for _n in _names:
        _CONVERSIONS[_n] = (_other, _factor)
#: metric prefixes written out the other way: 1,500 m -> 1.5 km; 2,500 mg -> 2.5 g; 0.5 l -> 500 ml
_PREFIX_UP = {"m": ("km", 1e-3), "metres": ("kilometres", 1e-3), "mg": ("g", 1e-3), "g": ("kg", 1e-3), "ml": ("litres", 1e-3)}
_PREFIX_DOWN = {"km": ("metres", 1e3), "kg": ("grams", 1e3), "g": ("mg", 1e3), "l": ("ml", 1e3), "litres": ("ml", 1e3)}


def number_words(n: int) -> str | None:
    """0-999 in words ("forty-two", "three hundred and five"); None above."""
    if n < 0 or n > 999:
        return None
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("" if n % 10 == 0 else "-" + _ONES[n % 10])
    rest = n % 100
    head = _ONES[n // 100] + " hundred"
    return head if rest == 0 else f"{head} and {number_words(rest)}"


def _fmt(x: float, digits: int = 2) -> str:
    """``x`` to ``digits`` significant digits, with thousands separators and no trailing zeros."""
    if x == 0:
        return "0"
    r = round(x, digits - 1 - int(math.floor(math.log10(abs(x)))))
    if abs(r) >= 1000 or float(r).is_integer():
        return f"{r:,.0f}" if float(r).is_integer() else f"{r:,}"
    return f"{r:.6f}".rstrip("0").rstrip(".")


def _plain(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,}".rstrip("0").rstrip(".")


def _edit(text: str, start: int, end: int, replacement: str, kind: str) -> Edit:
    return Edit(start, end, text[start:end], replacement, kind)


def _qty_rewordings(text: str, q: Quantity, rng: random.Random) -> Iterator[Edit]:
    raw = text[q.start:q.end]
    if q.bound or q.rate or q.labelled or q.inherited:
        return  # "up to 4", "£3 per kg", "room 530": their wording carries more than the value
    if re.match(r"\s+[A-Z]", text[q.end:q.end + 2]) and not q.unit:
        return  # "214 State St", "Century 16 Cinema": a number in an address or a name is no figure to reword
    num = re.search(r"\d[\d,]*(?:\.\d+)?", raw)
    if q.is_word:
        if float(q.magnitude).is_integer() and raw.lower() == raw and q.dimension.startswith("count"):
            yield _edit(text, q.start, q.end, _plain(q.magnitude), "number_words")
        return
    if num is None:
        return
    a, b = q.start + num.start(), q.start + num.end()
    written = num.group()
    unit = q.unit.lower().strip()
    after = text[b:q.end]
    # digits as words: small whole counts and measures ("12 hours" -> "twelve hours")
    if float(q.magnitude).is_integer() and 2 <= q.magnitude <= 99 and "." not in written and "," not in written \
            and not re.match(r"\s*(?:million|billion|thousand|bn|m|k)\b", after, re.I) and q.kind in ("count", "time", ""):
        w = number_words(int(q.magnitude))
        # not a number in a name or label ("Century 16", "Passage 3", "Route 9"): a capitalised word before it
        named = re.search(r"(?<![.!?:]\s)(?<!^)\b[A-Z][\w'\-]*\s+$", text[:a]) is not None
        if w and not named and not re.match(r"[\d:/\-]", text[b:b + 1]) and not re.search(r"[\-#]$", text[:a]):
            yield _edit(text, a, b, w, "number_words")
    # a scale written out: 1,200,000 -> 1.2 million; 3.4 million -> 3,400,000
    scale = re.match(r"\s*(million|billion)\b", after, re.I)
    if scale and q.magnitude < 1e11:
        yield _edit(text, a, a + num.end() - num.start() + scale.end(), _plain(q.magnitude), "scale")
    elif "," in written and q.magnitude >= 1e6 and float(q.magnitude / 1e5).is_integer():
        word, div = ("billion", 1e9) if q.magnitude >= 1e9 else ("million", 1e6)
        yield _edit(text, a, b, f"{_plain(q.magnitude / div)} {word}", "scale")
    # a unit converted, rounded under "about"
    if unit in _CONVERSIONS and q.kind in ("mass", "length", "volume") and not q.approx and q.magnitude > 0:
        other, factor = _CONVERSIONS[unit]
        unit_at = text.lower().find(unit, b, q.end + 1)
        if unit_at >= 0:
            rep = f"about {_fmt(q.magnitude * factor, 2 if q.magnitude * factor < 100 else 3)} {other}"
            yield _edit(text, a, unit_at + len(unit), rep, "unit_conversion")
    for table in (_PREFIX_UP, _PREFIX_DOWN):
        if unit in table and q.kind in ("mass", "length", "volume"):
            other, factor = table[unit]
            x = q.magnitude * factor
            unit_at = text.lower().find(unit, b, q.end + 1)
            if unit_at >= 0 and 0.1 <= x < 10000 and len(_plain(x)) <= 7:
                yield _edit(text, a, unit_at + len(unit), f"{_plain(x)} {other}", "unit_conversion")
    if q.kind == "temperature" and unit in ("°c", "c", "°f", "f"):
        to_f = unit.endswith("c")
        x = q.magnitude * 9 / 5 + 32 if to_f else (q.magnitude - 32) * 5 / 9
        yield _edit(text, q.start, q.end, f"about {round(x):,}°{'F' if to_f else 'C'}", "unit_conversion")
    # rounding under "about": only where the figure has three significant digits or more and is not a year
    if q.digits >= 3 and q.magnitude >= 100 and not q.approx and not re.fullmatch(r"1[5-9]\d\d|20\d\d", written) \
            and not re.search(r"(?:about|around|roughly|approximately|some|nearly|almost)\s+$", text[:q.start], re.I):
        r = _fmt(q.magnitude, 2)
        if r.replace(",", "") != written.replace(",", "") and abs(float(r.replace(",", "")) - q.magnitude) / q.magnitude < 0.05:
            hedge = rng.choice(("about", "around", "roughly"))
            yield _edit(text, q.start, b, f"{hedge} {text[q.start:a]}{r}", "rounding")
    if q.kind == "percent":
        m = re.fullmatch(r"(\d[\d,]*(?:\.\d+)?)\s*%", raw)
        if m:
            yield _edit(text, q.start, q.end, f"{m.group(1)} {rng.choice(('per cent', 'percent'))}", "percent")


def rewordings(text: str, rng: random.Random) -> Iterator[Edit]:
    """Every faithful rewording the text layer can make of ``text`` (its kind in ``Edit.what``)."""
    for q in parse_quantities(text):
        yield from _qty_rewordings(text, q, rng)
    for d in parse_dates(text):
        if d.year and d.month and d.day and not d.swappable and d.weekday is None:
            month = _MONTHS[d.month - 1]
            forms = [f"{d.day} {month} {d.year}", f"{month} {d.day}, {d.year}", f"{d.year}-{d.month:02d}-{d.day:02d}"]
            forms = [f for f in forms if f != d.text]
            if forms:
                yield _edit(text, d.start, d.end, rng.choice(forms), "date_format")
    for t in parse_times(text):
        if t.either_half or not re.fullmatch(r"\d{1,2}[:.]\d\d(?:\s*(?:am|pm|a\.m\.|p\.m\.))?|\d{1,2}\s*(?:am|pm)", t.text, re.I):
            continue
        h, m = divmod(t.minutes, 60)
        if re.search(r"am|pm|a\.m|p\.m", t.text, re.I):
            new = f"{h:02d}:{m:02d}"
        elif h >= 13 or h == 0:
            h12 = h % 12 or 12
            new = f"{h12}{':%02d' % m if m else ''} {'pm' if h >= 12 else 'am'}"
        else:
            continue  # "8:15" alone may be morning or evening: no am/pm to add
        yield _edit(text, t.start, t.end, new, "time_format")


def reword(text: str, rng: random.Random, kinds: tuple[str, ...] = REWORD_KINDS, most: int = 2) -> tuple[str, list[str]] | None:
    """``text`` with up to ``most`` non-overlapping rewordings applied (a seeded choice); None when none applies."""
    found = [e for e in rewordings(text, rng) if e.what in kinds]
    if not found:
        return None
    rng.shuffle(found)
    chosen: list[Edit] = []
    for e in found:
        if len(chosen) < most and all(e.end <= c.start or e.start >= c.end for c in chosen):
            chosen.append(e)
    out = text
    for e in sorted(chosen, key=lambda c: -c.start):
        out = out[: e.start] + e.replacement + out[e.end:]
    return out, [e.what for e in chosen]
