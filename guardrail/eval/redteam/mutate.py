"""The edits an attack makes to an answer: numbers, dates, entities, negation, and the check that an edit changes the meaning.

Part of the red-team package; see ``guardrail/eval/redteam/__init__.py`` for what the suite is and why.
"""


from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from typing import NamedTuple

# ---------------------------------------------------------------------------------------------
# Text helpers
# ---------------------------------------------------------------------------------------------


class Edit(NamedTuple):
    """A replacement of response[start:end] (offsets into the source answer)."""

    start: int
    end: int
    original: str
    replacement: str
    what: str  # "number" | "year" | "month" | "entity" | "negation" | "addition" | a flip kind | "roles"


def ctx_text(context: str | list[str]) -> str:
    return context if isinstance(context, str) else "\n\n".join(context)


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def contains_word(haystack: str, needle: str, *, case: bool = False) -> bool:
    """``needle`` occurs in ``haystack`` as whole words (not inside a longer word or number)."""
    pattern = r"(?<![\w])" + re.escape(needle) + r"(?![\w])"
    return re.search(pattern, haystack, 0 if case else re.IGNORECASE) is not None


def sentences(text: str) -> list[tuple[int, int]]:
    from ...claims import split_sentences

    return split_sentences(text)


def sentence_around(text: str, pos: int) -> tuple[int, int]:
    for s, e in sentences(text):
        if s <= pos < e:
            return s, e
    return 0, len(text)


def _is_sentence_initial(text: str, pos: int) -> bool:
    j = pos - 1
    while j >= 0 and text[j] in " \t\"'\u201c\u2018(*[-":
        j -= 1
    return j < 0 or text[j] in ".!?\n:;"


def apply(response: str, edit: Edit) -> tuple[str, int, int]:
    mutated = response[: edit.start] + edit.replacement + response[edit.end :]
    return mutated, edit.start, edit.start + len(edit.replacement)


# ---- numbers ---------------------------------------------------------------------------------

_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTH_RE = re.compile(r"\b(" + "|".join(_MONTHS) + r")\b")
_NUM_RE = re.compile(r"(?<![\w.,\-/:$\u20ac\u00a3])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w/]|[.,:]\d)")
_NUM_ANY = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
_NUM_WORDS = {
    w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split()) if i >= 2
}
_NUM_WORD_RE = re.compile(r"\b(" + "|".join(_NUM_WORDS) + r")\b", re.IGNORECASE)
_YEAR_RE = re.compile(r"(?<![\w.,\-/:$])(1[5-9]\d\d|20\d\d)(s)?(?![\w]|[.,]\d)")
_ERA_RE = re.compile(r"\b(?:AD|A\.D\.)[ \u00a0](\d{1,4})\b|\b(\d{1,4})[ \u00a0](?:BC|BCE|AD|CE)\b")


def _values(text: str) -> set[float]:
    """Every number of ``text`` as a value ("1,000" and "1000" alike), number words two..twelve included."""
    out = {round(float(m.group(0).replace(",", "")), 6) for m in _NUM_ANY.finditer(text)}
    out |= {float(_NUM_WORDS[m.group(1).lower()]) for m in _NUM_WORD_RE.finditer(text)}
    return out


def _is_name_number(text: str, m: re.Match[str]) -> bool:
    """Part of a name or an identifier rather than a quantity: "Apple TV 2", "iOS 5.2", "Apollo 11",
    a phone number "202-543-9994", a list marker "5." at the start of a line."""
    before = text[max(0, m.start() - 40) : m.start()]
    prev = re.search(r"(\S+)[ \u00a0]$", before)
    if (
        prev
        and any(ch.isupper() for ch in prev.group(1))
        and not _is_sentence_initial(text, m.start() - len(prev.group(0)))
    ):
        return True
    if re.match(r"-\d", text[m.end() : m.end() + 2]):
        return True
    line_start = before.rfind("\n") + 1 if "\n" in before else (0 if m.start() < 40 else -1)
    return line_start >= 0 and not before[line_start:].strip() and text[m.end() : m.end() + 1] in (".", ")")


def _is_date_number(text: str, m: re.Match[str]) -> bool:
    token = m.group(0)
    if re.fullmatch(r"(1[5-9]\d\d|20\d\d)", token):
        return True  # a year: date_shift's target
    before, after = text[max(0, m.start() - 12) : m.start()], text[m.end() : m.end() + 12]
    if re.search(r"(?:" + "|".join(_MONTHS) + r"|AD|A\.D\.)\.?\s$", before) or re.match(
        r"\s(?:" + "|".join(_MONTHS) + r"|BC|BCE|AD|CE)\b", after
    ):
        return True  # day of month, or an era year
    return re.match(r"(?:st|nd|rd|th)\b", after) is not None


def _perturb_number(token: str, rng: random.Random, taken: set[float]) -> str | None:
    """Another plausible value in the same format: small counts move by a few, larger ones by a factor
    rounded to the original's roundness (50,000 x 0.75 -> 40,000, not 37,500)."""
    commas = "," in token
    plain = token.replace(",", "")
    whole, _, dec = plain.partition(".")
    value = float(plain)
    opts: list[float]
    if not dec:
        iv = int(whole)
        if iv < 20:
            opts = [iv + d for d in (-3, -2, -1, 1, 2, 3, 5) if iv + d > 0]
        else:
            zeros = len(whole) - len(whole.rstrip("0"))
            q = 10 ** min(zeros, len(whole) - 1)
            opts = sorted({int(iv * f / q + 0.5) * q for f in (0.5, 0.6, 0.75, 1.25, 1.5, 2, 3)})  # half up
        fmt: Callable[[float], str] = (lambda x: f"{int(x):,}") if commas else (lambda x: str(int(x)))
    else:
        nd = len(dec)
        if value < 20:
            opts = [round(value + d, nd) for d in (-1.5, -1.0, -0.5, 0.5, 1.0, 1.5, 2.0) if value + d > 0]
        else:
            opts = [round(value * f, nd) for f in (0.5, 0.6, 0.75, 1.25, 1.5, 2, 3)]
        fmt = (lambda x: f"{x:,.{nd}f}") if commas else (lambda x: f"{x:.{nd}f}")
    opts = [o for o in opts if abs(o - value) > 1e-9 and round(float(o), 6) not in taken]
    return fmt(rng.choice(opts)) if opts else None


def number_edits(response: str, ctx: str, rng: random.Random) -> Iterator[Edit]:
    taken = _values(ctx) | _values(response)
    targets: list[tuple[int, int, str, bool]] = []
    for m in _NUM_RE.finditer(response):
        if _is_date_number(response, m) or _is_name_number(response, m):
            continue
        if round(float(m.group(0).replace(",", "")), 6) in _values(ctx):
            targets.append((m.start(), m.end(), m.group(0), False))
    for m in _NUM_WORD_RE.finditer(response):
        if float(_NUM_WORDS[m.group(1).lower()]) in _values(ctx):
            targets.append((m.start(), m.end(), m.group(0), True))
    rng.shuffle(targets)
    for s, e, token, is_word in targets:
        new: str | None
        if is_word:
            v = _NUM_WORDS[token.lower()]
            opts = [w for w, x in _NUM_WORDS.items() if 0 < abs(x - v) <= 3 and float(x) not in taken]
            if not opts:
                continue
            new = rng.choice(sorted(opts))
            new = new.capitalize() if token[0].isupper() else new
        else:
            new = _perturb_number(token, rng, taken)
            if new is None:
                continue
        yield Edit(s, e, token, new, "number")


# ---- dates -----------------------------------------------------------------------------------


def _years(text: str) -> set[int]:
    out = {int(m.group(1)) for m in _YEAR_RE.finditer(text)}
    out |= {int(m.group(1) or m.group(2)) for m in _ERA_RE.finditer(text)}
    return out


def date_edits(response: str, ctx: str, rng: random.Random) -> Iterator[Edit]:
    """Years first (a calendar year, a decade, an era year "AD 80"), then month names; each must be
    in the context, and the shifted value must not be."""
    ctx_years = _years(ctx)
    years: list[tuple[int, int, int, bool]] = []
    for m in _YEAR_RE.finditer(response):
        if int(m.group(1)) in ctx_years:
            years.append((m.start(1), m.end(1), int(m.group(1)), bool(m.group(2))))
    for m in _ERA_RE.finditer(response):
        g = 1 if m.group(1) else 2
        if int(m.group(g)) in ctx_years:
            years.append((m.start(g), m.end(g), int(m.group(g)), False))
    rng.shuffle(years)
    for s, e, year, decade in years:
        shifts = (-20, -10, 10, 20) if decade else (-10, -5, -3, -2, -1, 1, 2, 3, 5, 10)
        ceiling = max(year, 2025)
        opts = [
            year + d
            for d in shifts
            if 0 < year + d <= ceiling and year + d not in ctx_years and not contains_word(ctx, str(year + d))
        ]
        if opts:
            new = rng.choice(opts)
            yield Edit(s, e, response[s:e], str(new), "year")
    months = [m for m in _MONTH_RE.finditer(response) if contains_word(ctx, m.group(1), case=True)]
    rng.shuffle(months)
    for m in months:
        i = _MONTHS.index(m.group(1))
        names = [_MONTHS[(i + d) % 12] for d in (-3, -2, -1, 1, 2, 3)]
        names = [o for o in names if not contains_word(ctx, o, case=True)]
        if names:
            yield Edit(m.start(), m.end(), m.group(1), rng.choice(names), "month")


# ---- entities --------------------------------------------------------------------------------

_CAPWORD = r"(?:[A-Z\u00c0-\u00de][^\W\d_]*(?:[\-'\u2019][^\W\d_]+)*)"
CONNECTOR = r"(?:of|de|du|da|la|le|von|van|der|del|di|the)"
_ENTITY_RE = re.compile(rf"{_CAPWORD}(?:(?: {CONNECTOR}){{0,2}} {_CAPWORD})*")
_LEADING_STOP = frozenset(
    "The A An This That These Those It Its In On At By For From With As After Before During When While He She "
    "They We I You Our His Her Their My Your According Based Yes No However Also Both Each Some Many Most "
    "There Here What Which Who Where Why How If But And Or So To Of Overall Additionally Furthermore Moreover "
    "Finally First Second Third Then Today Currently Although Though Because Since Unlike Like All Any Every "
    "Not Only One".split()
)
# Sentences about the answer or its sources rather than the world ("Here is a summary", "Based on the passages").
META = re.compile(
    r"\b(?:here (?:is|are)|based on|according to the (?:passage|article|context|text)|passages?\b|the article|summary|"
    r"unable to|I (?:cannot|can't|do not|don't))",
    re.IGNORECASE,
)
# Openers that lean on a previous sentence: an appended sentence must read on its own.
PRONOUN_START = re.compile(
    r"^(?:It|Its|He|She|They|This|These|That|Those|His|Her|Their|We|I|You|Our|There|Here|Such|Both|Each|The latter|"
    r"The former|But|And|Or|So|Thus|Then|However|Also|Still|Yet|As a result|For myself|Meanwhile)\b"
)
_NOT_ENTITY = frozenset(m.lower() for m in _MONTHS + _WEEKDAYS) | {"i", "ok", "okay"}


_HEAD_CLASS = {
    **dict.fromkeys(
        "Tower Building Bridge Museum Palace Cathedral Church Temple Stadium Hall Centre Center Castle Station "
        "Airport Hotel Cafe Restaurant Hospital School College University Library Theatre Theater Gallery".split(),
        "building",
    ),
    **dict.fromkeys(
        "River Lake Mountain Mountains Island Islands Sea Ocean Bay Harbor Harbour Valley Park Street Avenue "
        "Road Square City County State Province Republic Kingdom Coast Desert Forest Canal St Ave Rd Blvd Ln "
        "Hwy".split(),
        "geo",
    ),
    **dict.fromkeys(
        "Company Corporation Corp Inc Ltd Group Association Institute Council Committee Party Agency "
        "Department Ministry Bank Foundation Society Club Team Airlines Records Studios Press Times News".split(),
        "org",
    ),
    **dict.fromkeys(
        "War Prize Award Awards Cup Games Olympics Championship Festival Fair Revolution Treaty Act".split(),
        "event",
    ),
}
_PLACE_SLOT = frozenset(["in", "at", "from", "near", "to", "across", "outside", "inside", "into"])


_DEMONYM = re.compile(r"^[A-Z][a-z]+(?:an|ese|ish|i|ic|ch|ek|ss|ai)$")
_PEOPLE = re.compile(r"^[A-Z][a-z]+(?:ans|is)$")  # "Italians", "Yemenis": a group of people, not a place
# After a name, these words make it the subject or an object ("Logan said"), not an adjective ("Saudi airstrikes").
_NOT_NOUN_AFTER = re.compile(
    r" (?:is|was|were|are|has|have|had|said|says|told|will|would|can|could|may|might|must|who|which|that|and|or|of|in|on|"
    r"at|to|for|with|by|from|as|[a-z]+ed)\b"
)


class Entity(NamedTuple):
    start: int
    end: int
    text: str
    shape: str  # "X" per capitalised word, "o" per connector: "Champ de Mars" (XoX) is not "Neil Armstrong" (XX)
    acronym: bool
    slot: str  # the lower-case word before it ("in", "by"), "" at a sentence start
    modifier: bool  # a lone word used as an adjective: "Saudi airstrikes", "Guatemalan child"

    @property
    def kind(self) -> str:
        """A coarse kind by shape: acronym, modifier, the class of a head noun ("... Tower" -> building),
        a place after a locative preposition, else a name (person or organisation)."""
        if self.acronym:
            return "acronym"
        if self.modifier:
            return "modifier"
        if _PEOPLE.match(self.text):
            return "people"
        head = _HEAD_CLASS.get(self.text.split(" ")[-1])
        if head:
            return head
        return "place" if self.slot in _PLACE_SLOT else "name"


def entities(
    text: str, *, allow_initial_single: Callable[[str], bool] | None = None, context_text: str | None = None
) -> list[Entity]:
    """Capitalised name runs; a lone capitalised word opening a sentence ("Construction began") is only
    a name when ``allow_initial_single`` says so. A lone word must also appear after a lower-case word
    somewhere in ``text`` or ``context_text`` and never in lower case."""
    out: list[Entity] = []
    for m in _ENTITY_RE.finditer(text):
        s, name = m.start(), m.group(0)
        while True:  # drop sentence openers: "The Eiffel Tower" -> "Eiffel Tower"
            first, _, rest = name.partition(" ")
            if first in _LEADING_STOP and rest:
                rest = re.sub(rf"^(?:{CONNECTOR} )+", "", rest)
                s, name = m.end() - len(rest), rest
                if not re.match(_CAPWORD, name):
                    break
                continue
            break
        if name in _LEADING_STOP or not name:
            continue
        if name.endswith(("'s", "\u2019s")):
            name = name[:-2]
        tokens = name.split(" ")
        words = [w for w in tokens if not re.fullmatch(CONNECTOR, w)]
        if not words or all(w.lower() in _NOT_ENTITY for w in words) or len(name) < 3:
            continue
        initial = _is_sentence_initial(text, s)
        if len(words) == 1 and initial and not (allow_initial_single and allow_initial_single(name)):
            continue
        if len(words) == 1 and not name.isupper():
            if re.search(r"(?<!\w)" + re.escape(name.lower()) + r"(?!\w)", text):
                continue  # also written in lower case: an ordinary word ("Add the pineapple", "add salt")
            if not re.search(
                r"\b(?:[a-z]+,?|The|A|An)[ \t]+" + re.escape(name) + r"(?!\w)", text + "\n" + (context_text or "")
            ):
                continue  # never after a lower-case word ("in Paris"): a sentence opener ("Otherwise", "Talk")
        end = s + len(name)
        after = text[end : end + 40]
        if re.match(r"\s*(?:and|&|or)\s+[A-Z]", after) or re.search(
            r"[A-Z][\w'\-]*\s+(?:and|&|or)\s*$", text[max(0, s - 40) : s]
        ):
            continue  # half of a coordinated name: "Central and South America", "Beauty & Spas"
        if re.match(r", [A-Z][^,.\n]*, [A-Z]", after):
            continue  # an item of a list of labels ("categories: Wine Bars, Bars, Day Spas"), not a name
        prev = re.search(r"([A-Za-z]+)[ \t]+$", text[max(0, s - 30) : s])
        slot = "" if initial or not prev else prev.group(1).lower()
        acronym = all(w.isupper() and len(w) > 1 for w in words)
        shape = "".join("o" if re.fullmatch(CONNECTOR, w) else "X" for w in tokens)
        modifier = (
            len(tokens) == 1
            and bool(_DEMONYM.match(name))
            and re.match(r" [a-z]", after) is not None
            and not _NOT_NOUN_AFTER.match(after)
        )
        out.append(Entity(s, end, name, shape, acronym, slot, modifier))
    return out


def mid_sentence_in(ctx: str) -> Callable[[str], bool]:
    """A sentence-opening word is a name when the context writes it capitalised mid-sentence and never
    in lower case."""

    def check(name: str) -> bool:
        if re.search(r"(?<!\w)" + re.escape(name.lower()) + r"(?!\w)", ctx):
            return False
        return any(
            not _is_sentence_initial(ctx, m.start()) for m in re.finditer(r"(?<!\w)" + re.escape(name) + r"(?!\w)", ctx)
        )

    return check




# ---- negation --------------------------------------------------------------------------------

_CONTRACTED = {
    "cannot": "can",
    "can't": "can",
    "won't": "will",
    "isn't": "is",
    "aren't": "are",
    "wasn't": "was",
    "weren't": "were",
    "doesn't": "does",
    "don't": "do",
    "didn't": "did",
    "hasn't": "has",
    "haven't": "have",
    "hadn't": "had",
    "shouldn't": "should",
    "wouldn't": "would",
    "couldn't": "could",
}
_NEG_CONTRACTED = re.compile(
    r"\b(" + "|".join(k.replace("'", "['\u2019]") for k in _CONTRACTED) + r")\b", re.IGNORECASE
)
_AUX = r"is|are|was|were|has|have|had|can|will|would|should|could|must|might|may|do|does|did"
_NEG_NOT = re.compile(rf"\b({_AUX}) not\b")
_NEG_NEVER = re.compile(r"\bnever (\w+)")
_AUX_POS = re.compile(
    r"\b(is|are|was|were|has|have|had|can|will|would|should|could|must|might|may)\b(?! not\b| never\b|n['\u2019]t)"
)
_PARTICIPLE = re.compile(
    r"^(?:been|become|come|gone|done|had|made|built|won|lost|left|kept|met|paid|said|sent|spent|told|brought|bought|caught|"
    r"taught|thought|fought|sought|felt|heard|found|got|put|set|cut|hit|let|shot|led|fed|fled|held|sold|stood|understood|"
    r"meant|read|run|begun|struck|hung|dealt|slept|lent|bent|burnt|learnt|\w+ed|\w+en|\w+wn|\w+ne)$",
    re.IGNORECASE,
)
_HAVE_MAIN = {"has": "does not have", "have": "do not have", "had": "did not have"}
_ED_VERB = re.compile(r"(?<=[a-z,] )([a-z]{3,}ed)\b")
_NEG_PARITY = re.compile(r"\b(?:not|never|cannot|no)\b|n['\u2019]t\b", re.IGNORECASE)


def negate(response: str, s: int, e: int) -> Edit | None:
    """Flip the polarity of the first verb phrase of response[s:e] that can be flipped by a local edit:
    remove an existing negation, else insert "not" after an auxiliary, else "never" before a past tense."""
    sent = response[s:e]
    m = _NEG_CONTRACTED.search(sent)
    if m:
        word = m.group(1)
        key = word.lower().replace("\u2019", "'")
        new = _CONTRACTED[key]
        new = new.capitalize() if word[0].isupper() else new
        return Edit(s + m.start(1), s + m.end(1), word, new, "negation")
    m = _NEG_NOT.search(sent)
    if m:
        return Edit(s + m.start(), s + m.end(), m.group(0), m.group(1), "negation")
    m = _NEG_NEVER.search(sent)
    if m:
        return Edit(s + m.start(), s + m.end(), m.group(0), m.group(1), "negation")
    m = next((x for x in _AUX_POS.finditer(sent) if re.match(r"\s+[A-Za-z0-9]", sent[x.end() :])), None)
    if m:  # an auxiliary followed by a word ("where flowers are." is left alone)
        aux = m.group(1)
        nxt = re.match(r"\s+(?:[a-z]+ly\s+)?([A-Za-z]+)", sent[m.end() :])  # "had accidentally shot"
        if aux in _HAVE_MAIN and not (nxt and _PARTICIPLE.match(nxt.group(1))):
            return Edit(s + m.start(), s + m.end(), aux, _HAVE_MAIN[aux], "negation")
        return Edit(s + m.start(), s + m.end(), aux, "cannot" if aux == "can" else aux + " not", "negation")
    m = _ED_VERB.search(sent)
    if m:
        return Edit(s + m.start(1), s + m.end(1), m.group(1), "never " + m.group(1), "negation")
    return None


# ---- word flips and swapped roles --------------------------------------------------------------

#: The red-team category of each kind of word flip (``guardrail.text.lexicon.flips``).
FLIP_CATEGORIES = {
    "direction_flip": "direction",
    "relation_flip": "relation",
    "modality_change": "modality",
    "quantifier_widened": "quantifier",
}


def flip_edits(response: str, kind: str, rng: random.Random) -> Iterator[Edit]:
    """One closed-class word turned into its opposite ("rose" -> "fell", "before" -> "after", "may" -> "must",
    "some" -> "all"), from the text layer's table, in a random order."""
    from ...text.lexicon import flips

    found = flips(response, kind)
    rng.shuffle(found)
    for s, e, word, new in found:
        yield Edit(s, e, word, new, kind)


_COORDINATED = re.compile(r"^\s*(?:,|and|or|&|/|-|\u2013|,\s*and)?\s*$")


def role_edits(response: str, ctx: str, rng: random.Random) -> Iterator[Edit]:
    """Two names of one sentence exchanged ("Ana hired Ben" -> "Ben hired Ana"): both in the context, of the
    same kind, with a lower-case word between them (a verb or a preposition: not "Ana and Ben")."""
    spans = sentences(response)
    rng.shuffle(spans)
    check = mid_sentence_in(ctx)
    for s, e in spans:
        names = [n for n in entities(response[s:e], allow_initial_single=check, context_text=ctx)
                 if contains_word(ctx, n.text, case=True)]
        pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]
                 if a.text != b.text and a.kind == b.kind and a.text not in b.text and b.text not in a.text]
        rng.shuffle(pairs)
        for a, b in pairs:
            between = response[s + a.end : s + b.start]
            if _COORDINATED.match(between) or not re.search(r"\b[a-z]{2,}\b", between):
                continue
            original = response[s + a.start : s + b.end]
            yield Edit(s + a.start, s + b.end, original, b.text + between + a.text, "roles")
            break


# ---- meaning checks --------------------------------------------------------------------------


def meaning_problem(category: str, edit: Edit, response: str, ctx: str) -> str | None:
    """Why the edit would not change what the answer says (None when it does)."""
    if edit.replacement.strip().lower() == edit.original.strip().lower():
        return f"the replacement equals the original ({edit.original!r})"
    mutated, a, b = apply(response, edit)
    if _norm(mutated) == _norm(response):
        return "the mutated answer reads the same as the original"
    if edit.what == "number":
        new = edit.replacement
        value = _values(new)
        if value & _values(ctx) or contains_word(ctx, new):
            return f"the new number {new} is in the context"
    elif edit.what in ("year", "month", "entity"):
        if contains_word(ctx, edit.replacement):
            return f"the replacement {edit.replacement!r} is in the context"
    elif edit.what == "negation":
        ss, se = sentence_around(mutated, a)
        if _norm(mutated[ss:se]) in _norm(ctx):
            return "the negated sentence is in the context"
        words_before = mutated[max(ss, a - 40) : a].split()[-2:]
        words_after = mutated[b : min(se, b + 40)].split()[:2]
        window = " ".join(words_before + [mutated[a:b]] + words_after)
        if _norm(window) in _norm(ctx):
            return f"the context says {window!r} too"
        os_, oe = sentence_around(response, edit.start)
        if len(_NEG_PARITY.findall(response[os_:oe])) % 2 == len(_NEG_PARITY.findall(mutated[ss:se])) % 2:
            return "the edit does not flip the sentence's negation"
    elif edit.what in ("direction", "relation", "modality", "quantifier", "roles"):
        ss, se = sentence_around(mutated, a)
        if _norm(mutated[ss:se]) in _norm(ctx):
            return "the edited sentence is in the context"
        window = " ".join(mutated[max(ss, a - 40) : a].split()[-2:] + [mutated[a:b]] + mutated[b : min(se, b + 40)].split()[:2])
        if edit.what != "roles" and _norm(window) in _norm(ctx):
            return f"the context says {window!r} too"
    elif edit.what == "addition":
        added = edit.replacement.strip()
        if _norm(added) in _norm(ctx):
            return "the added sentence is in the context"
    return None


