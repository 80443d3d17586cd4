"""Dates and clock times, whatever their format: "3 March 2021" = "2021-03-03" = "March 3rd, 2021",
"3 pm" = "15:00", a bare year, a month, a weekday.

Why here, once: the fact checks compare the date a claim states with the dates its evidence sentence
states, so both sides must be parsed into the same partial (year, month, day) triple; a reformatted
date is the same date, a changed day or year is not. Why not dateparser: it parses one string it is
handed and is slow to import (~0.5 s) and to run (~1 ms a call); here every date of every evidence
sentence must be *found* in running text first, in microseconds.

Numeric dates such as 04/05/2024 are ambiguous. The text's own order settles it where it has one (a
declared "MM/DD/YYYY", or another numeric date with a value over 12), else ``month_first``; a date still
ambiguous is read day first and marked ``swappable``: it agrees with a date of either reading ("11/9/1989"
is 9 November to a British reader and 11 September to an American one), and conflicts only with a date that
neither reading gives.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["DateValue", "TimeValue", "parse_dates", "parse_times", "numeric_date_order", "MONTHS", "WEEKDAYS",
           "weekdays_in_ranges", "date_ranges"]

MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december"]
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_MONTH_OF = {m: i + 1 for i, m in enumerate(MONTHS)} | {m[:3]: i + 1 for i, m in enumerate(MONTHS)} | {"sept": 9}
_MON = r"(?P<mon>" + "|".join(sorted(_MONTH_OF, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>1[5-9]\d\d|20\d\d)"
_PATTERNS = [
    re.compile(r"\b(?P<y>1[5-9]\d\d|20\d\d)-(?P<m>[01]?\d)-(?P<d>[0-3]?\d)\b"),  # ISO
    re.compile(r"\b(?P<a>[0-3]?\d)[/.](?P<b>[0-3]?\d)[/.](?P<y>1[5-9]\d\d|20\d\d)\b"),  # 03/04/2021
    re.compile(rf"\b(?:the\s+)?{_DAY}(?:\s+of)?\s+{_MON}(?:,?\s+{_YEAR})?\b", re.I),  # 3 March 2021
    # (not "May 5 percent", "March 3 runners"; but "March 18, 2025 at 7 pm", "March 3 and 4")
    re.compile(rf"\b{_MON}\s+{_DAY}(?:,?\s+{_YEAR})?\b(?!\s*(?:%|percent|(?!(?:at|in|on|and|or|to|from|until|till|through|"
               rf"for|by|with|the|is|was|will|when|before|after)\b)[a-z]))", re.I),  # March 3, 2021
    re.compile(rf"\b{_MON}(?:\s+of)?,?\s+{_YEAR}\b", re.I),  # March 2021
    re.compile(r"\bFY\s?(?P<yy>20\d\d)\b"),  # FY2023: a fiscal year
    re.compile(r"(?<![\d.,$€£])\b(?P<yy>1[5-9]\d\d|20\d\d)s?\b(?![.,]\d|\s*(?:%|percent|per\b|mg\b|kg\b|km\b|g\b|m\b|ml\b|"
               r"people|units|employees|residents|visitors|users|items|pieces|copies|tons|tonnes|metres|meters|feet|miles))"),  # 1998
    re.compile(rf"\b{_MON}\b", re.I),  # March (a month alone)
]
#: Between a range's two days: a dash, or "to", "until", "through" ("from 3 to 21 February"), or "and" after
#: "between" ("between 3 and 21 February"; a plain "3 and 21 February" names two days of February too).
_RANGE_JOIN = r"(?:\s*[-\u2013]\s*|\s+(?:to|until|till|through|thru|and)\s+)"
_DAY_RANGE = re.compile(
    rf"\b{_MON}\s+(?P<d1>[0-3]?\d)(?:st|nd|rd|th)?{_RANGE_JOIN}(?P<d2>[0-3]?\d)(?:st|nd|rd|th)?(?:,?\s+{_YEAR})?\b(?!\s*(?:[:.]\d|%|am|pm|a\.m|p\.m))"
    rf"|\b(?P<e1>[0-3]?\d)(?:st|nd|rd|th)?{_RANGE_JOIN}(?P<e2>[0-3]?\d)(?:st|nd|rd|th)?\s+(?P<mon2>"
    + "|".join(sorted(_MONTH_OF, key=len, reverse=True)) + r")\.?(?:,?\s+(?P<year2>1[5-9]\d\d|20\d\d))?\b", re.I)
_WEEKDAY = re.compile(r"\b(" + "|".join(WEEKDAYS) + r")s?\b", re.I)


@dataclass(frozen=True)
class DateValue:
    """A date as far as the text says it: missing parts are None. ``weekday`` for "Monday"."""

    start: int
    end: int
    text: str
    year: int | None = None
    month: int | None = None
    day: int | None = None
    weekday: int | None = None
    swappable: bool = False  # a numeric date whose day and month could be either way round

    def _readings(self) -> list["DateValue"]:
        if not self.swappable:
            return [self]
        return [self, DateValue(self.start, self.end, self.text, self.year, self.day, self.month, self.weekday)]

    def compatible(self, other: "DateValue") -> bool:
        """Could both name the same day? Parts stated on both sides must agree (in some reading of each)."""
        return any(_compatible(a, b) for a in self._readings() for b in other._readings())

    def conflicts(self, other: "DateValue") -> bool:
        """Both state a part of the same kind and it differs (another year, another day of the month), in
        every reading of each."""
        return all(_conflicts(a, b) for a in self._readings() for b in other._readings())


def _compatible(x: DateValue, y: DateValue) -> bool:
    pairs = [(x.year, y.year), (x.month, y.month), (x.day, y.day), (x.weekday, y.weekday)]
    return all(a is None or b is None or a == b for a, b in pairs) and any(a is not None and b is not None for a, b in pairs)


def _conflicts(x: DateValue, y: DateValue) -> bool:
    pairs = [(x.year, y.year), (x.month, y.month), (x.day, y.day), (x.weekday, y.weekday)]
    return any(a is not None and b is not None and a != b for a, b in pairs)


_DECLARED = re.compile(r"\b(?:(?P<md>mm[/.-]dd)|(?P<dm>dd[/.-]mm))\b", re.I)


def numeric_date_order(text: str) -> bool | None:
    """True when the text's numeric dates are month first, False when day first, None when it does not say."""
    m = _DECLARED.search(text)
    if m:
        return m.group("md") is not None
    for n in _PATTERNS[1].finditer(text):
        a, b = int(n.group("a")), int(n.group("b"))
        if a > 12 >= b:
            return False
        if b > 12 >= a:
            return True
    return None


@dataclass(frozen=True)
class TimeValue:
    """A clock time in minutes after midnight. ``either_half``: said in words with no morning or evening ("half
    past five"), so 5:30 or 17:30."""

    start: int
    end: int
    text: str
    minutes: int
    either_half: bool = False

    def same(self, other: "TimeValue") -> bool:
        """The same clock time ("half past five in the evening" is 17:30; "half past five" is 5:30 or 17:30)."""
        if self.either_half or other.either_half:
            return self.minutes % 720 == other.minutes % 720
        return self.minutes == other.minutes


def _month(word: str | None) -> int | None:
    return _MONTH_OF.get(word.lower().rstrip(".")) if word else None


def parse_dates(text: str, month_first: bool | None = None) -> list[DateValue]:
    """Every date of ``text`` (longest reading wins), in order. "may" is a month only when capitalised.
    ``month_first``: the order of numeric dates where ``text`` does not settle it (its document's order);
    None when nothing does: ambiguous ones are then ``swappable``."""
    taken: list[tuple[int, int]] = []
    out: list[DateValue] = []
    order = numeric_date_order(text) if "/" in text or "." in text else None
    if order is None:
        order = month_first

    def free(a: int, b: int) -> bool:
        return all(b <= s or a >= e for s, e in taken)

    # A range of days in one month: "December 24–26, 2025", "24–26 December 2025" are two dates.
    for m in _DAY_RANGE.finditer(text):
        month_word: str = m.group("mon") or m.group("mon2") or ""
        range_month, range_year = _month(month_word), m.group("year") or m.group("year2")
        d1, d2 = int(m.group("d1") or m.group("e1")), int(m.group("d2") or m.group("e2"))
        if range_month is None or not (1 <= d1 < d2 <= 31) or (month_word.lower() == "may" and not month_word[0].isupper()):
            continue
        year = int(range_year) if range_year else None
        mid = m.start("d2") if m.group("d2") else m.start("e2")
        first_end = m.end("d1") if m.group("d1") else m.end("e1")
        suffix = re.match(r"(?:st|nd|rd|th)\b", text[first_end:], re.I)
        first_end += len(suffix.group(0)) if suffix else 0  # "3rd"
        out.append(DateValue(m.start(), first_end, text[m.start():first_end], year, range_month, d1))
        out.append(DateValue(mid, m.end(), text[mid:m.end()], year, range_month, d2))
        taken.append((m.start(), m.end()))
    for pat in _PATTERNS:
        for m in pat.finditer(text):
            if not free(m.start(), m.end()):
                continue
            g = m.groupdict()
            mon = g.get("mon")
            if mon and mon.lower() == "may" and not mon[0].isupper():
                continue  # the verb
            if mon and mon.lower() == "mar" and not mon[0].isupper():
                continue
            y = g.get("y") or g.get("year") or g.get("yy")
            if g.get("a"):
                assert y is not None  # the numeric pattern (the only one with a, b) requires its year
                a, b = int(g["a"]), int(g["b"])
                d, mo = (b, a) if (order and a <= 12) or b > 12 else (a, b)
                if a > 12:
                    d, mo = a, b
                dv = DateValue(m.start(), m.end(), m.group(0), int(y), mo, d,
                               swappable=order is None and a != b and a <= 12 and b <= 12)
            elif g.get("m"):
                assert y is not None  # the ISO pattern (the only one with m, d) requires its year
                dv = DateValue(m.start(), m.end(), m.group(0), int(y), int(g["m"]), int(g["d"]))
            else:
                day = int(g["day"]) if g.get("day") else None
                if day is not None and not 1 <= day <= 31:
                    continue
                dv = DateValue(m.start(), m.end(), m.group(0), int(y) if y else None, _month(mon), day)
            if dv.year is None and dv.day is not None and re.match(r"\s+of\s+the\s+same\s+year", text[m.end():], re.I):
                earlier = [d for d in out if d.year is not None and d.start < m.start()]
                if earlier:
                    dv = DateValue(dv.start, dv.end, dv.text, earlier[-1].year, dv.month, dv.day)
            taken.append((m.start(), m.end()))
            out.append(dv)
    for m in _WEEKDAY.finditer(text):
        if free(m.start(), m.end()):
            out.append(DateValue(m.start(), m.end(), m.group(0), weekday=WEEKDAYS.index(m.group(1).lower())))
    return sorted(out, key=lambda d: d.start)


_WEEKDAY_RANGE = re.compile(r"\b(" + "|".join(WEEKDAYS) + r")s?\s*(?:to|through|thru|until|till|[-\u2013\u2014])\s*("
                            + "|".join(WEEKDAYS) + r")s?\b", re.I)


_DATE_RANGE_JOIN = re.compile(r"\s*(?:[-\u2013\u2014]|to|until|till|through|thru|and)\s*", re.I)
_RANGE_OPENER = re.compile(r"\b(?:between|from)\s+(?:the\s+)?$", re.I)


def date_ranges(text: str, dates: Sequence[DateValue]) -> list[tuple[DateValue, DateValue]]:
    """The (first, last) day of each span of days ``text`` states: "between 3 and 21 February", "from 3 March to
    21 April", "24–26 December"; ``dates`` are its parsed dates. A day inside one is not contradicted by its ends."""
    out = []
    for a, b in zip(dates, dates[1:]):
        if None in (a.month, a.day, b.month, b.day) or (a.year and b.year and a.year != b.year):
            continue
        join = _DATE_RANGE_JOIN.fullmatch(text, a.end, b.start)
        dash = join is not None and re.search(r"[-\u2013\u2014]", join.group(0)) is not None
        if join and (dash or _RANGE_OPENER.search(text, 0, a.start)) and (a.month, a.day) < (b.month, b.day):
            out.append((a, b))
    return out


def weekdays_in_ranges(text: str) -> frozenset[int]:
    """The weekdays (0 = Monday) inside the ranges of ``text``: "Tuesday to Friday" holds Wednesday and Thursday,
    "Friday–Monday" the weekend."""
    out: set[int] = set()
    for m in _WEEKDAY_RANGE.finditer(text):
        a, b = WEEKDAYS.index(m.group(1).lower()), WEEKDAYS.index(m.group(2).lower())
        out.update((a + i) % 7 for i in range((b - a) % 7 + 1))
    return frozenset(out)


_TIME = re.compile(
    r"\b(?P<h>[01]?\d|2[0-3])(?:[:.](?P<m>[0-5]\d))?\s*(?P<ap>a\.m\.|p\.m\.|a\.?m|p\.?m)(?![a-z])"
    # (not a race time's minutes and seconds: "1:55.40")
    r"|\b(?P<h24>[01]?\d|2[0-3]):(?P<m24>[0-5]\d)\b(?!\s*(?:a\.?m|p\.?m)|\.\d)"
    r"|\b(?P<word>noon|midday|midnight)\b",
    re.I,
)


_HOUR_WORDS = {w: i + 1 for i, w in enumerate("one two three four five six seven eight nine ten eleven twelve".split())}
#: A clock time in words: "half past five in the evening", "a quarter to seven", "ten past nine", "six o'clock".
_WORD_TIME = re.compile(
    r"\b(?:(?P<part>(?:a\s+)?quarter|half|five|ten|twenty|twenty-five)\s+(?P<rel>past|to)\s+(?P<h>"
    + "|".join(_HOUR_WORDS) + r"|1[0-2]|[1-9])|(?P<oh>" + "|".join(_HOUR_WORDS) + r")\s+o['\u2019]clock)"
    r"(?:\s+(?:in\s+the\s+(?P<per>morning|afternoon|evening)|at\s+night(?P<night>)|(?P<ap>a\.m\.|p\.m\.|am|pm)\b))?",
    re.I)
_PART_MINUTES = {"quarter": 15, "a quarter": 15, "half": 30, "five": 5, "ten": 10, "twenty": 20, "twenty-five": 25}


def _word_times(text: str) -> list[TimeValue]:
    out = []
    for m in _WORD_TIME.finditer(text):
        h_word = (m.group("h") or m.group("oh")).lower()
        h = _HOUR_WORDS.get(h_word) or int(h_word)
        mins = 0
        if m.group("part"):
            part = _PART_MINUTES[re.sub(r"\s+", " ", m.group("part").lower())]
            mins = part if m.group("rel").lower() == "past" else -part
        total = (h % 12) * 60 + mins
        per = (m.group("per") or m.group("ap") or ("night" if m.group("night") is not None else "")).lower()
        pm = per in ("afternoon", "evening", "night") or per.startswith("p")
        if pm:
            total += 720
        out.append(TimeValue(m.start(), m.end(), m.group(0), total % 1440, either_half=not per))
    return out


#: Opening hours as data records write them, minutes unpadded: "7:0-19:0", "16:30-22:0" (Yelp-style JSON).
_HOURS_RANGE = re.compile(r"\b([01]?\d|2[0-3]):([0-5]?\d)\s*[-\u2013]\s*([01]?\d|2[0-3]):([0-5]?\d)\b")


def parse_times(text: str) -> list[TimeValue]:
    out = []
    if ":" in text:
        for m in _HOURS_RANGE.finditer(text):
            if len(m.group(2)) == 1 or len(m.group(4)) == 1:
                out += [TimeValue(m.start(1), m.end(2), m.group(0)[: m.end(2) - m.start(1)], int(m.group(1)) * 60 + int(m.group(2))),
                        TimeValue(m.start(3), m.end(4), text[m.start(3):m.end(4)], int(m.group(3)) * 60 + int(m.group(4)))]
    for m in _TIME.finditer(text):
        if m.group("word"):
            mins = 0 if m.group("word").lower() == "midnight" else 12 * 60
        elif m.group("ap"):
            h = int(m.group("h")) % 12 + (12 if m.group("ap").lower().startswith("p") else 0)
            mins = h * 60 + int(m.group("m") or 0)
        else:
            mins = int(m.group("h24")) * 60 + int(m.group("m24"))
        if any(t.start < m.end() and m.start() < t.end for t in out):
            continue  # (read already as an end of a record's hours)
        out.append(TimeValue(m.start(), m.end(), m.group(0), mins))
    if "past" in text or " to " in text or "clock" in text:
        out = out + [w for w in _word_times(text) if not any(t.start < w.end and w.start < t.end for t in out)]
    return sorted(out, key=lambda t: t.start)
