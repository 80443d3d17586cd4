"""Proper names and clauses.

Why regex and not spaCy's NER: ``en_core_web_sm`` takes ~10 ms to parse one 30-word sentence on this
CPU and a 2k-token context costs ~150 ms, over the whole fact-check budget; what the checks need is
"which capitalised names does this sentence mention, and which of them does the claim not", which a
capitalised-run rule answers in microseconds. A name is a run of capitalised words (inner "of", "de",
"van", "&" allowed); a sentence-initial single word counts only when it is capitalised elsewhere too.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
import re
from dataclasses import dataclass

from .dates import MONTHS, WEEKDAYS
from .quantities import UNITS
from .terms import STOPWORDS

__all__ = ["Name", "keyed_list", "names", "name_tokens", "words", "acronyms", "spelled_out", "clauses", "codes", "code_shape", "endpoints", "lettered", "tracker_ids",
           "bracket_tags", "quotations", "TITLES", "ORG_WORDS", "affiliations"]

TITLES = frozenset("dr dr. mr mr. mrs mrs. ms ms. prof prof. sir dame st st. captain capt gen general president "
                   "minister senator judge justice professor doctor mayor governor king queen prince princess lord "
                   "lady saint".split())
_RUN = re.compile(
    # (a run starts a word: the "Ah" of "mAh", the "B" of "3B" are no names)
    # (a code that opens with its number goes on a name: "Room 4B", "Platform 9A", "Terminal 2E")
    r"(?<![\w'’\-])(?:[A-Z][\w'’\-\.]*[\w]|[A-Z])(?:\s+(?:(?:of|de|da|del|der|van|von|la|le|du|the|and|&)\s+)?"
    r"(?:[A-Z][\w'’\-]*[\w]|[A-Z]\.?|\d{1,4}[A-Z]{1,2}(?![\w'’\-])))*"
)
_COMMON_START = frozenset(
    "the a an this that these those it its he she they we you i in on at for from by with as if when while after before "
    "during since until although though because however but and or so yet each every all some most many several both "
    "no not one two three there here what which who whom whose how why where our your their his her my adults children "
    "patients users employees visitors customers students staff members".split()
)
_NOT_NAMES = frozenset(m.capitalize() for m in MONTHS + WEEKDAYS) | {"I", "AM", "PM", "OK"} | {
    m[:3].capitalize() for m in MONTHS + WEEKDAYS if m[:3] != "jan"} | {"Sept", "Tues", "Thurs"}  # ("Sept. 30"; "Jan" names)


@dataclass(frozen=True)
class Name:
    start: int
    end: int
    text: str

    @property
    def tokens(self) -> frozenset[str]:
        return name_tokens(self.text)


@functools.lru_cache(maxsize=32768)
def name_tokens(text: str) -> frozenset[str]:
    """The identifying words of a name, lower-cased, hyphens and possessives dropped: titles and joiners
    out ("Dr. Paul Brenner" -> paul, brenner; "Wi-Fi" -> wifi)."""
    out = set()
    for t in re.findall(r"[\w'’\-]+", text.lower()):
        t = re.sub(r"['’]s$", "", t).strip("'’-")
        if not t or t in TITLES or t.rstrip(".") in TITLES or t in _JOINERS:
            continue
        out.add(_DAY_PLURAL.get(t, t).replace("-", ""))
    return frozenset(out)


#: "on alternate Thursdays" names the day "every other Thursday" does.
_DAY_PLURAL = {d + "s": d for d in "monday tuesday wednesday thursday friday saturday sunday".split()}


@functools.lru_cache(maxsize=16384)
def words(text: str) -> frozenset[str]:
    """Lower-cased words of ``text`` in the form :func:`name_tokens` gives them, to test whether a name occurs.
    Cached: the evidence sentences are read for every claim."""
    toks = [_DAY_PLURAL.get(x, x) for x in
            (re.sub(r"['’]s$", "", t).strip("'’-").replace("-", "") for t in re.findall(r"[\w'’\-]+", text.lower()))]
    return frozenset(toks) | {a + b for a, b in zip(toks, toks[1:])} | frozenset(acronyms(text))  # "Wi Fi" also as "wifi"


@functools.lru_cache(maxsize=16384)
def acronyms(text: str) -> dict[str, frozenset[str]]:
    """The initialisms a run of words of ``text`` spells, each with the words it stands for: "European Central
    Bank" -> ecb, "annual general meeting" -> agm, "Department of Health and Social Care" -> dhsc. A claim
    that writes "the ECB" or "the AGM" names what the context spells out. Runs of two to six capitalised
    words, or two to four lower-case ones ("vice president" -> vp), that start and end on a content word;
    "of", "and", "for", "the", "&" inside are skipped, as initialisms do."""
    out: dict[str, frozenset[str]] = {}
    for initialism, used, _, _ in _initialism_runs(text):
        out.setdefault(initialism, used)
    return out  # (a fresh dict: callers may add to it)


def spelled_out(text: str) -> dict[str, str]:
    """Each initialism of :func:`acronyms` with the run of ``text`` that spells it, as written: "ceo" -> "chief
    executive", "agm" -> "annual general meeting" (the first run that spells it)."""
    out: dict[str, str] = {}
    for initialism, _, a, b in _initialism_runs(text):
        out.setdefault(initialism, text[a:b])
    return out


def _initialism_runs(text: str) -> tuple[tuple[str, frozenset[str], int, int], ...]:
    """(initialism, the words it stands for, start, end) of each run of words that spells one (see :func:`acronyms`).
    Cached by the text: every claim of an answer reads the same context sentences."""
    return _initialism_runs_of(text)


@functools.lru_cache(maxsize=16384)
def _initialism_runs_of(text: str) -> tuple[tuple[str, frozenset[str], int, int], ...]:
    return tuple(_each_initialism_run(text))


def _each_initialism_run(text: str) -> Iterator[tuple[str, frozenset[str], int, int]]:
    toks = [(m.group(0), m.start(), m.end()) for m in re.finditer(r"[A-Za-z][\w'’]*|&", text)]
    for i, (first, _, _) in enumerate(toks):
        if first.lower() in STOPWORDS or first == "&":
            continue
        upper = first[0].isupper()
        letters, used = [], []
        for j, (t, _, end) in enumerate(toks[i:i + 9], start=i):
            low = t.lower()
            if low in _ACRONYM_SKIP or t == "&":
                continue
            if low in STOPWORDS or t[0].isupper() != upper:
                break
            letters.append(low[0])
            used.append(re.sub(r"['’]s$", "", low))
            if len(letters) >= 2:
                yield "".join(letters), frozenset(used), toks[i][1], end
                if used[0] == "chief" and len(letters) == 2 and (j + 1 >= len(toks) or toks[j + 1][0].lower() != "officer"):
                    # ("the chief executive" is the CEO: a chief's title drops its "officer")
                    yield "".join(letters) + "o", frozenset(used), toks[i][1], end
            if len(letters) == (6 if upper else 4):
                break


_ACRONYM_SKIP = frozenset({"of", "and", "for", "the", "de", "on"})


_JOINERS = frozenset("of de da del der van von la le du the and".split())


def _clean(tok_text: str) -> str:
    return re.sub(r"['’]s$", "", tok_text)


def names(text: str, known: set[str] | frozenset[str] | None = None) -> list[Name]:
    """Capitalised name runs of ``text``. ``known``: lower-cased tokens seen capitalised mid-sentence elsewhere
    (the evidence), which lets a sentence-initial single word count as a name ("Porto had ...")."""
    out: list[Name] = []
    for s, name, initial_single in _runs(text):
        if initial_single and (known is None or name.lower() not in known):
            continue
        out.append(Name(s, s + len(name), name))
    return out


@functools.lru_cache(maxsize=16384)
def _runs(text: str) -> tuple[tuple[int, str, bool], ...]:
    """The name runs of ``text``, each with whether it is one word opening a sentence (a name only where the
    caller knows it from elsewhere). Cached: the fact checks read the same evidence sentences for every claim."""
    out = []
    for m in _RUN.finditer(text):
        s, e = m.start(), m.end()
        run = _clean(text[s:e]).rstrip(".")
        words = run.split()
        j = s - 1
        while j >= 0 and text[j] in " \t\"'“‘(*_":
            j -= 1
        initial = j < 0 or text[j] in ".!?\n;-•>#|"
        if initial and words and (words[0].lower() in _COMMON_START or words[0].lower() in STOPWORDS):
            words = words[1:]
            if not words:
                continue
            s = s + run.index(words[0])
            initial = False
        if len(words) == 1 and (words[0] in _NOT_NAMES or words[0].lower() in STOPWORDS):
            continue
        if len(words) == 1 and words[0].lower() in UNITS and re.search(r"\d\s*$", text[:s]):
            continue  # a unit after its figure: "4.9 TWh", "30 MW"
        name = " ".join(words)
        if len(name) < 2 or name.isupper() and len(name) <= 2:
            continue
        out.append((s, name, initial and len(words) == 1))
    return tuple(out)


_CLAUSE_SPLIT = re.compile(
    r";\s*|,['\u2019\u201d\"]?\s+(?=(?:while|whereas|but|although|though|even\s+though|even\s+if|and|yet)\b)|\s+(?=(?:while|whereas)\b)",
    re.IGNORECASE,
)


#: The head words of a body's name ("University of Leeds", "Pasteur Institute"): a name with one is no person's, and
#: they tell no two bodies apart (every university is a "university").
ORG_WORDS = frozenset("""
university universities college institute institution school hospital hospitals clinic museum society academy
foundation council department centre center laboratory laboratories lab labs observatory agency trust ministry board
commission association union polytechnic corporation company group inc ltd plc llc bank office service services
""".split())
#: What joins a person to the body they belong to: "Dr Osei of the University of Leeds", "Raj Patel, from Acme".
_AFFILIATED = re.compile(r",?\s+(?:of|at|from)\s+(?:the\s+)?")
_INNER_OF = re.compile(r"\s+of\s+(?:the\s+)?")


def _person(n: Name, text: str) -> bool:
    """``n`` reads as a person's name: no body's head word, and a title or two to four words of its own."""
    toks = n.tokens
    if not toks or toks & ORG_WORDS:
        return False
    titled = re.search(r"\b(?:" + "|".join(re.escape(t.rstrip(".")) for t in TITLES) + r")\.?\s+$",
                       text[max(0, n.start - 12):n.start] + n.text.split(" ", 1)[0] + " ", re.I)
    return titled is not None or 2 <= len(toks) <= 4


def affiliations(text: str, found: list[Name]) -> list[tuple[Name, Name]]:
    """(person, body) for each person ``text`` names with the body they belong to: "Dr Amara Osei of the University
    of Leeds", "Ines Moreau of Lyon University" (one capitalised run), "Raj Patel, from Acme". ``found``: the names
    of ``text`` (:func:`names`).

    Why: a person's body is a fact said of the person that a claim can swap while every other word stays the
    evidence's, and a body's head word ("university") makes the swapped name look stated. Read only where a
    person's name runs straight into "of" / "at" / "from" and another name, so that a loose paraphrase gives none."""
    out: list[tuple[Name, Name]] = []
    for i, n in enumerate(found):
        inner = _INNER_OF.search(n.text)
        if inner:
            head = Name(n.start, n.start + inner.start(), n.text[:inner.start()])
            body = Name(n.start + inner.end(), n.end, n.text[inner.end():])
            if body.tokens and _person(head, text):
                out.append((head, body))
            continue
        nxt = found[i + 1] if i + 1 < len(found) else None
        if nxt is not None and nxt.tokens and _AFFILIATED.fullmatch(text, n.end, nxt.start) and _person(n, text) \
                and not _person(nxt, text):
            out.append((n, nxt))
    return out


def clauses(text: str) -> list[tuple[int, int]]:
    """(start, end) of the clauses of a sentence: split at ';' and before ', while / whereas / but / and'."""
    return list(_clauses_of(text))


@functools.lru_cache(maxsize=16384)
def _clauses_of(text: str) -> tuple[tuple[int, int], ...]:
    spans, pos = [], 0
    for m in _CLAUSE_SPLIT.finditer(text):
        if m.start() > pos:
            spans.append((pos, m.start()))
        pos = m.end()
    if pos < len(text):
        spans.append((pos, len(text)))
    return tuple((a, b) for a, b in spans if text[a:b].strip()) or ((0, len(text)),)


#: An identifier that mixes digits and letters: "seat 17C", "gate B12", "booking QX7R2L", "the A320".
_CODE = re.compile(r"(?<![\w\-/.])(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]{2,10}(?![\w\-/]|\.\d)")
#: A release written with two dots or more ("3.8.0", "10.2.14"): an identifier, no quantity ("3.8.1" is no 3.8).
_RELEASE = re.compile(r"(?<![\w.])\d+(?:\.\d+){2,3}(?![\w]|\.\d)")
#: Letters after digits that make a measure, an ordinal, a decade or a clock time, not a code: "5kg", "2nd",
#: "1990s", "3pm", "4x", "10k", "5G" (a network generation reads as a code either way).
_NOT_CODE_SUFFIX = re.compile(r"(?:st|nd|rd|th|s|am|pm|x|k|m|bn|mn|p|d|h|hr|hrs|min|mins|sec|secs|yr|yrs|"
                              r"ng|ug|mg|g|kg|t|lb|lbs|oz|nm|mm|cm|km|ft|yd|mi|ml|cl|dl|l|ms|kb|mb|gb|tb|"
                              r"ha|kw|mw|gw|kwh|mwh|w|v|mah|hz|khz|mhz|ghz|px|dpi|fps|mph|kph|kmh|in)", re.I)


#: A grade or a band named by one letter after its label: "council tax band D", "EPC rating C", "zone B", "grade A*".
_LETTER_GRADE = re.compile(r"\b(band|grade|class|rating|zone|category|tier|group|block|wing|row|section|platform|terminal|"
                           r"bay|phase)\s+([A-Z][+*-]?)(?![\w'’])", re.I)


def codes(text: str) -> list[Name]:
    """The identifiers of ``text`` that mix digits and letters ("17C", "B12", "QX7R2L"), not measures
    ("5kg", "3pm", "2nd"); a letter grade with its label ("band D", "rating C"); and a release ("3.8.0")."""
    out = [Name(m.start(), m.end(), f"{m.group(1).lower()} {m.group(2)}") for m in _LETTER_GRADE.finditer(text)
           if m.group(2).isupper()]
    out += [Name(m.start(), m.end(), m.group(0)) for m in _RELEASE.finditer(text)]
    for m in _CODE.finditer(text):
        tok = m.group(0)
        if m.start() and text[m.start() - 1] in "°º":
            continue
        if tok[0].isdigit() and re.fullmatch(r"\d+", tok.rstrip("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")) \
                and _NOT_CODE_SUFFIX.fullmatch(tok.lstrip("0123456789")):
            continue
        out.append(Name(m.start(), m.end(), tok))
    return out


#: One entry of a keyed list: a short key (a code or a capitalised word), a dash or colon, its text to the next ";".
_KEYED_ENTRY = re.compile(r"(?:(?<=^)|(?<=:\s)|(?<=;\s))([A-Z][A-Za-z0-9]{0,11}|\d{1,4}[A-Za-z]?)\s+[-\u2013\u2014:]\s+[^;:]+?(?=;\s|\.(?:\s|$)|$)")


def keyed_list(text: str) -> list[tuple[str, int]]:
    """The keys and their offsets of a list written as entries "KEY - text; KEY - text; ...", three entries at
    least ("Error codes: E10 - no water supply, check the tap; E20 - drain pump blocked; E40 - ..."). Why: its
    entries hold commas of their own, so no "A, B and C" reading finds the list, and its keys are its items."""
    out: list[tuple[str, int]] = []
    for m in _KEYED_ENTRY.finditer(text):
        if out and ";" not in text[out[-1][1]:m.start()]:
            break  # (entries follow one another, each after a ";")
        out.append((m.group(1), m.start(1)))
    return out if len(out) >= 3 else []


#: An HTTP endpoint: a method in capitals and the path it applies to ("POST /v2/orders/query", "`DELETE /users/{id}`").
_ENDPOINT = re.compile(r"(?<![\w/])(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+(/[\w{}.:~%\-/]*[\w}])")


def endpoints(text: str) -> list[tuple[str, str, int, int]]:
    """The HTTP endpoints of ``text`` as (method, path, start, end) of the method. Why: an API document names
    one path under one method, and an answer that keeps the path but swaps the method ("GET" for "POST") calls
    another endpoint; the method is a capitalised word that the name and code readings do not compare."""
    return [(m.group(1), m.group(2).rstrip("/").lower(), m.start(1), m.end(1)) for m in _ENDPOINT.finditer(text)]


#: A member of a set named by the set's name and a lower-case letter: "TOI-2318 b", "Kepler-62 f", "Proxima
#: Centauri b" (the letters b to h; "a" and "i" are words).
_LETTERED = re.compile(r"\b((?:[A-Z][\w]*-?\d[\w\-]*|[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?))\s+([b-h])\b(?![.'\u2019\w-])")


def lettered(text: str) -> list[tuple[str, str, int]]:
    """(the set's name lower-cased, the member's letter, the offset) of each lettered member ``text`` names. Why:
    the name reading keeps "TOI-2318" and drops the letter, so the two planets of one system read as one name, and a
    figure stated of planet c reads as stated of planet b."""
    return [(m.group(1).lower(), m.group(2), m.start()) for m in _LETTERED.finditer(text)]


def code_shape(code: str) -> str:
    """Where an identifier has digits and where letters: "17C" and "17A" share "99A"; "B12" is "A99"."""
    return re.sub(r"[A-Za-z]", "A", re.sub(r"\d", "9", code))


#: A short upper-case tag in brackets right after a name: "Katie Bryce (GBR)", "Apple (AAPL)", "Sen. Ruiz (D)".
_TAG_AFTER = re.compile(r"\s*\(([A-Z]{1,5})\)")


@functools.lru_cache(maxsize=4096)
def bracket_tags(text: str) -> tuple[tuple[frozenset[str], Name], ...]:
    """Each name written with a bracketed upper-case tag right after it, as (the name's tokens, the tag). Why: a
    results table or a roster pins a country, team, party or ticker to a name this way, and a tag swapped onto
    the name ("Bryce (IRL)" for "Bryce (GBR)") is a changed fact the name check cannot see, since both the
    name and the other tag are stated elsewhere or read as mere acronyms."""
    if "(" not in text:
        return ()
    found = []
    for n in names(text):
        m = _TAG_AFTER.match(text, n.end)
        if m is not None and not n.text.isupper():
            found.append((n.tokens, Name(m.start(1), m.end(1), m.group(1))))
    return tuple(found)


#: A quotation: an opening mark not after a letter ("Students' union" opens nothing), its words (an apostrophe
#: only between letters: "don't"), a closing mark not before a letter.
_QUOTATION = re.compile(r"(?<!\w)['\u2018\"\u201c]((?:[^'\u2018\u2019\"\u201c\u201d\n]|(?<=\w)['\u2019](?=\w)){3,200}?)"
                        r"['\u2019\"\u201d](?!\w)")


@functools.lru_cache(maxsize=4096)
def quotations(text: str) -> tuple[Name, ...]:
    """The words inside each pair of quotation marks, with their offsets. Why: a quotation is someone's exact
    words, so the same words quoted in the context identify who said them better than any overlap of paraphrase."""
    if not any(q in text for q in "'\u2018\"\u201c"):
        return ()
    return tuple(Name(m.start(1), m.end(1), m.group(1)) for m in _QUOTATION.finditer(text))


#: A tracker's identifier: an upper-case prefix, a hyphen and digits ("CVE-2024-31882", "JIRA-221", "RFC-9110").
_TRACKER_ID = re.compile(r"\b[A-Z][A-Z0-9]{1,9}(?:-\d+)+\b")


def tracker_ids(text: str) -> frozenset[str]:
    """The tracker identifiers ``text`` names ("CVE-2024-31882"), upper-cased. Why: such an identifier names one
    issue and nothing else, so a sentence that states it is about that issue whatever verb either side uses
    ("addressed" / "fixes"); ``codes`` leaves them out, as their digits read as figures elsewhere."""
    return frozenset(m.group(0).upper() for m in _TRACKER_ID.finditer(text)) if "-" in text else frozenset()
