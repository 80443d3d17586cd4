"""The small closed-class words that flip a fact: negation, modality, direction, comparison, order,
quantifiers, conditions; and the phrases that make a sentence an abstention or an instruction to the
checker.

Why a word list and not a parser: these classes are closed (a few dozen words each), the checks need
them on every evidence sentence within a 2 ms budget per claim, and a wrong parse is harder to explain
in a report than a named word ("claim says 'may', evidence says 'must not'").
"""

from __future__ import annotations

import functools
import re

__all__ = [
    "negated",
    "negation_cues",
    "modality",
    "modality_phrase",
    "direction",
    "relation_words",
    "relation_key",
    "opposed",
    "quantifier_rank",
    "condition_cues",
    "is_abstention",
    "denies_warning",
    "abstention_topic",
    "is_injection",
    "attribute_words",
    "OLD_MARKERS",
    "NEW_MARKERS",
]

_NEGATION = re.compile(
    # "is excluded from" / "lacks" say "is not covered by" / "has no" ("excluding" is an exception, read apart)
    r"\b(?:not|no|never|none|nobody|nothing|neither|nor|cannot|without|excluded|excludes|exclude|lacks|lacked|lack)\b"
    r"|n['\u2019]t\b", re.IGNORECASE
)


# Not polarity: "whether or not", "believe it or not", "not only", bounds ("no later than"), and litotes ("not
# unreasonable", "not inexpensive" say it is reasonable, expensive).
_NOT_A_NEGATION = re.compile(r"\b(?:(?:whether|believe\s+it)\s+or\s+not|or\s+not|if\s+not|not\s+only|not\s+just|"
                             r"no\s+matter|no\s+later\s+than|no\s+(?:more|less|longer)\s+than|not\s+(?:more|less)\s+than|"
                             r"not\s+un\w+|not\s+in(?:frequent|expensive|significant|considerable)\w*|"
                             # a comparison denied, not the act: "may not prevent it from turning as effectively as ..."
                             r"not\s+(?:[\w'’\-]+\s+){0,10}?as\s+(?:\w+\s+){1,2}as)\b", re.I)
#: Words that deny what follows them, with or without a "not" ("found no ...", "warns against ...", "instead of
#: copying"): a statement with one of these before its words does not affirm them.
DENYING = re.compile(r"\b(?:not|never|cannot|no|without|nor|neither|lack(?:s|ed|ing)?|lack\s+of|absence\s+of|inability|"
                     r"unable|fail(?:s|ed)?|instead\s+of|rather\s+than|avoid(?:s|ed|ing)?|refus(?:e|es|ed|ing)|against|"
                     r"prevent(?:s|ed)?|stop(?:s|ped)?|prohibit(?:s|ed)?|forbid(?:s|den)?|ban(?:s|ned)?)\b|n['\u2019]t\b", re.I)


#: A relative clause set off by commas says something of its noun, not of the sentence: "Dr Hale, who did not
#: take part, cautioned that ..." does not negate the caution.
_ASIDE_RELATIVE = re.compile(r",\s+(?:who|whom|whose|which)\b[^,;.]{1,80},")


#: A denial right before a comparison with a figure, or a few words before it with a verb: "no longer than 55 cm",
#: "no class has more than 28 pupils", "may not take more than 4 tablets", "none of the rooms sleeps over four". It
#: says a limit the other way (at most 28), not that something is not so.
_DENIED_BOUND = re.compile(
    r"(\b(?:no|not|never|none\s+of\s+(?:the|its|their))|n['\u2019]t)(?:(?:\s+[\w-]+){0,3}?\s+(?:has|have|had|is|are|was|"
    r"were|be|can|may|will|shall|should|must|could|take|takes|get|gets|hold|holds|sleep|sleeps|contain|contains|exceed|"
    r"exceeds|last|lasts|cost|costs|allow|allows|allowed|receive|receives)(?:\s+(?:be|have))?)?\s+"
    r"(?=(?:more|fewer|less|longer|shorter|larger|bigger|higher|heavier|older|smaller|lower|lighter|younger|greater)\s+than\b"
    r"|(?:over|under|above|below|exceeding)\s+(?:[$\u00a3\u20ac]\s?)?(?:\d|(?:one|two|three|four|five|six|seven|eight|nine|ten|"
    r"eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|a\s+hundred|hundred)\b))", re.I)


def denied_bound_at(text: str, pos: int) -> bool:
    """Is the comparison at ``pos`` ("more than", "over", "longer than") denied ("no class has more than 28"): a limit
    the other way, an upper bound for "more than" and a lower one for "fewer than"?"""
    return any(m.end() == pos for m in _DENIED_BOUND.finditer(text, max(0, pos - 48), pos + 12))


__all__ += ["denied_bound_at"]


def without_non_negations(text: str) -> str:
    """``text`` with the phrases that look like negations but are not ("whether or not", "not only", "no more
    than", "not unreasonable", the "no" of "no room takes more than four") and the asides of relative clauses
    blanked out, every offset kept."""
    text = _ASIDE_RELATIVE.sub(lambda m: " " * len(m.group(0)), text)
    text = _DENIED_BOUND.sub(lambda m: " " * len(m.group(1)) + m.group(0)[len(m.group(1)):], text)
    return _NOT_A_NEGATION.sub(lambda m: " " * len(m.group(0)), text)


def negation_cues(text: str) -> list[str]:
    """Negation words of ``text``; "whether or not", "not only", "no later than" and bounds are not polarity,
    nor a relative clause's aside ("Hale, who did not take part, said")."""
    return [m.group(0).lower() for m in _NEGATION.finditer(without_non_negations(text))]


#: A label that opens with its negation and names no subject: "Not suitable for children under 12.", "Not for
#: use in pregnancy.", "Not recommended for dogs": said of the product the whole text describes.
_LABEL_NEGATION = re.compile(r"\s*(?:[-*\u2022]\s*)?not\s+(?=(?:currently\s+|yet\s+)?(?:for|safe|suitable|"
                             r"[a-z]+(?:able|ible|ed))\b)", re.I)


def label_negation(text: str) -> int | None:
    """Where the negation of a verbless label ends ("Not suitable for children under 12." -> after "Not "), else None.

    Why: a leaflet or a spec sheet states a ban or a limit as a label with no subject; the checks that read what a
    negation bears on want a subject before it and would pass over the one statement a claim flips."""
    m = _LABEL_NEGATION.match(text)
    return m.end() if m else None


__all__.append("label_negation")


#: "it is", "it's", "this is", "they are" (an adverb between: "it is also"; the label's own "for": "it is for use on
#: broken skin") at the end of the words before a label's.
_THING_PRONOUN_COPULA = re.compile(r"(?<![\w'\u2019])(?:it|this|they|these)(?:\s+(?:is|are|was|were)|['\u2019](?:s|re))"
                                   r"(?:\s+(?:also|still|now|generally|fully))?(?:\s+for)?\s*$", re.I)


def thing_pronoun_before(before: str) -> bool:
    """Do the words ``before`` a label's words end "it is" / "this is" / "they're"? Why: a label ("Not suitable
    for children under 6.") says its words of the thing the text describes, and an answer says them of it by a
    pronoun, which is no content word: "it is suitable for children under 6" affirms the label's words of the same
    thing, with no word of its own before them."""
    return bool(_THING_PRONOUN_COPULA.search(before))


__all__.append("thing_pronoun_before")


#: A span said to follow what came before, at the end of a statement: "two years later", "a few weeks later".
_SPAN_LATER_END = re.compile(r"[,\s]+(?:(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d{1,3}|a\s+few|several)\s+)"
                             r"(?:(?:days?|weeks?|months?|years?|decades?)\s+)later\W*$", re.I)


def span_later_end(text: str) -> re.Match[str] | None:
    """The "two years later" a statement ends on, if it does. Why: it places the statement's event a span after the
    one before it ("The station opened in 1847, and the canal basin was finished two years later"), as "afterwards"
    does; split from that statement, the claim still says it comes after it. The span is required: a bare
    "later" ("details will follow later") places nothing."""
    return _SPAN_LATER_END.search(text)


__all__.append("span_later_end")


#: Support taken away, said with a verb of ending instead of a "not": "support for Python 3.8 has been dropped",
#: "drops support for Windows 7", "iOS 15 support was removed", "discontinued support for the 2019 models".
_ENDED = r"(?:dropped|removed|discontinued|ended|withdrawn|retired|deprecated\s+and\s+removed)"
_WITHDRAWN = re.compile(
    rf"\bsupport\s+for\s+(?P<a>[^,;:()]{{1,40}}?)\s+(?:has\s+been|have\s+been|was|were|is|are|will\s+be|is\s+being)\s+{_ENDED}\b"
    rf"|\b(?:drops?|dropping|removes?|removing|ends?|ending|discontinues?|discontinuing|{_ENDED})\s+(?:its\s+|all\s+)?"
    rf"support\s+for\s+(?P<b>[^,;:()]{{1,40}}?)(?=\s*(?:[,;:()]|\.(?!\d)|$|\b(?:and|but|in|from|with|as|after|since)\b))"
    rf"|\b(?P<c>(?:[\w.+-]*[A-Z0-9][\w.+-]*\s+){{1,3}})support\s+(?:has\s+been|was|is|will\s+be)\s+{_ENDED}\b")
#: What a claim says is supported: "still supports Python 3.8", "works on Windows 7", "is compatible with iOS 15".
_SUPPORTED = re.compile(r"\b(?:supports?|supported\s+(?:on|in)|works?\s+(?:on|with)|runs?\s+on|(?:is|are|remains?)\s+"
                        r"compatible\s+with|support\s+for)\s+(?P<o>[^,;:()]{1,40}?)(?=\s*(?:[,;:()]|\.(?!\d)|$|\b(?:and|but|"
                        r"in|from|with|as|after|since|until|is|are|was|remains?|continues?)\b))", re.I)


@functools.lru_cache(maxsize=16384)
def withdrawn(text: str) -> tuple[tuple[int, int], ...]:
    """(start, end) of each thing ``text`` says support was taken from ("support for Python 3.8 has been dropped"
    -> "Python 3.8").

    Why: release notes say "no longer supported" with a verb of ending ("dropped", "removed") that is no negation
    word, so a claim that it "still supports" the thing reads as agreeing with them."""
    return tuple(m.span(g) for m in _WITHDRAWN.finditer(text) for g in ("a", "b", "c") if m.group(g))


def supported(text: str) -> tuple[tuple[int, int], ...]:
    """(start, end) of each thing ``text`` says is supported or works ("still supports Python 3.8" -> "Python 3.8");
    not where the text says it no longer is (see ``withdrawn``), nor under a negation before the verb."""
    out = []
    ended = withdrawn(text)
    for m in _SUPPORTED.finditer(text):
        if any(a <= m.end("o") and m.start("o") <= b for a, b in ended):
            continue  # "support for Python 3.8 has been dropped" says the other way
        before = text[max(0, m.start() - 25): m.start()]
        if _NEGATION.search(before) or re.search(r"\bno\s+longer\s+$", before, re.I):
            continue
        out.append(m.span("o"))
    return tuple(out)


__all__ += ["withdrawn", "supported"]


def negated(text: str) -> bool:
    """Odd number of negation cues ("without" excluded: "without an adult" is a condition, not a polarity)."""
    return sum(1 for c in negation_cues(text) if c != "without") % 2 == 1


#: A permission said as an act's being fine: "it's fine to take it with food", "it is OK to drive", "is safe to
#: use"; not "it is safe to say" (a hedge) nor "fine to medium grind" (no verb after "to").
_FINE_TO = re.compile(
    r"\b(?:it['\u2019]s|it\s+is|it\s+was|that['\u2019]s|that\s+is|is|are)\s+(?:perfectly\s+|completely\s+|totally\s+)?"
    r"(?:fine|ok|okay|all\s+right|alright|acceptable|safe)\s+to\s+"
    r"(?!say\b|assume\b|conclude\b|suggest\b|expect\b|predict\b)(?=[a-z])", re.I)


def fine_to(text: str) -> list[tuple[int, int]]:
    """(start, end) of each "it's fine to" / "is OK to" / "is safe to" before a verb in ``text``. Why: a reader is
    told an act is allowed by these as often as by "can", and a ban of the same act ("Do not take this medicine if
    you are breastfeeding") is what such a claim contradicts."""
    return [(m.start(), m.end()) for m in _FINE_TO.finditer(text)]


__all__ += ["fine_to"]

# Deontic modality: what the sentence requires, forbids, allows or recommends. Ordered: the first
# pattern that matches names the class (negated forms before plain ones).
_MODALITY: list[tuple[str, re.Pattern[str]]] = [
    ("forbidden", re.compile(
        r"\b(?:must\s+not|mustn['\u2019]t|may\s+not|cannot|can\s+not|can['\u2019]t|shall\s+not|are\s+not\s+allowed|"
        r"is\s+not\s+allowed|not\s+(?:be\s+)?(?:allowed|permitted)|(?:is|are)\s+(?:prohibited|forbidden|banned)|"
        r"prohibit\w*|forbid\w*|do\s+not(?!\s+(?:have|need)\s+to)|don['\u2019]t(?!\s+(?:have|need)\s+to)|"
        # ("never has to be paid back" frees from a duty: optional, below)
        r"never(?!\s+(?:has|have|had|needs?|needed)\s+to)|(?:is|are|be|been|remains?)\s+(?:closed|shut|off[- ]limits)\s+to|"
        # "won't be able to use Elm Grove": an ability denied is a ban
        r"(?:will\s+not|won['\u2019]t|(?:is|are)\s+not|(?:is|are)n['\u2019]t)\s+(?:be\s+)?(?:able|allowed|permitted)\s+to|"
        r"(?:is|are|be|been)\s+barred|"
        # a ban reported: "The leaflet also says not to take more than 4 tablets", "tells you not to drive"
        r"(?:says?|said|tells?|told|instructs?|instructed|warns?|warned)\s+(?:you\s+|users\s+|patients\s+|people\s+)?not\s+to)\b",
        re.I)),
    ("optional", re.compile(
        r"\b(?:optional|not\s+(?:required|mandatory|obligatory|compulsory)|need\s+not|needn['\u2019]t|"
        r"never\s+(?:has|have|had|needs?|needed)\s+to|don['\u2019]t\s+(?:have|need)\s+to|"
        r"do(?:es)?\s+not\s+(?:have|need)\s+to|(?:are|is)\s+not\s+obliged|voluntary|"
        r"at\s+(?:their|your|his|her|its)\s+(?:own\s+)?(?:discretion|option)|"
        # "... if they wish" closing a clause; not "If you want to introduce your baby to swimming, ..." (a case)
        r"if\s+(?:they|you|he|she|we|one)\s+(?:so\s+)?(?:wish|want|like|choose|prefer)(?:\s+to)?(?=\s*(?:[.,;)]|$))|"
        r"(?:can|may)\s+choose\s+(?:whether\s+)?to|(?:is|are)\s+up\s+to\s+(?:them|you|the\s+\w+))\b", re.I)),
    ("discouraged", re.compile(r"\b(?:should\s+not|shouldn['\u2019]t|not\s+recommended|(?:is|are)\s+discouraged|"
                               r"advised\s+against|avoid)\b", re.I)),
    ("required", re.compile(
        r"\b(?:must|(?:is|are|be)\s+required|required\s+to|mandatory|obligatory|compulsory|shall|ha(?:ve|s)\s+to|"
        r"need\s+to|needs\s+to|obliged|is\s+to\s+be|are\s+to\s+be)\b", re.I)),
    ("recommended", re.compile(r"\b(?:should|recommended|recommends?|advised|advises?|ought\s+to|encouraged)\b", re.I)),
    ("allowed", re.compile(r"\b(?:may|can|could|allowed|permitted|able\s+to|free\s+to|entitled|eligible)\b|" + _FINE_TO.pattern,
                           re.I)),
]


#: The month May: "6 May", "May 2025", "in May" (no "may" of permission).
_MONTH_MAY = re.compile(r"(?<=\d)\s*May\b|(?<=\d\s)May\b|\b(?:in|of|by|from|until|till|since|early|late|mid|last|next|this)\s+May\b|"
                        r"\bMay(?=\s*\d)")


def without_month_may(text: str) -> str:
    """``text`` with the month May blanked, offsets kept: "closed from 6 May" allows nothing."""
    return _MONTH_MAY.sub(lambda m: m.group(0).replace("May", "   "), text) if "May" in text else text


def modality_phrase(text: str) -> tuple[str | None, str]:
    """The deontic class of ``text`` and the words that make it ("must not", "may")."""
    text = without_month_may(text)
    for name, pat in _MODALITY:
        m = pat.search(text)
        if m:
            return name, m.group(0)
    return None, ""


def modality(text: str) -> str | None:
    """The deontic class of ``text``: forbidden, optional, discouraged, required, recommended, allowed, or None.

    "may" in "may cause drowsiness" reads as 'allowed' too; both sides of a comparison get the same
    reading, so "can cause" against "may cause" still agree.
    """
    for name, pat in _MODALITY:
        if pat.search(text):
            return name
    return None


_UP = ("rise rises rose risen rising increase increases increased increasing grow grows grew grown growing gain gains "
       "gained climb climbs climbed up higher expand expands expanded expanding jump jumped surge surged soar soared "
       "improve improved boost boosted raise raised widen widened accelerate accelerated strengthen strengthened "
       "advance advanced rebound rebounded upward skyrocket skyrocketed spike spiked leap leapt leaped doubled tripled "
       "rallied lengthen lengthens lengthened "
       # a measure named by its verb ("the star dimmed by 18%"): verb forms only, not the adjective or noun a
       # sentence uses of a state ("a dim light", "keep cool", "central heating")
       "brighten brightens brightened brightening warms warmed heats heated "
       "intensify intensifies intensified deepen deepens deepened thicken thickens thickened "
       "enhance enhances enhanced enhancing").split()
_DOWN = ("fall falls fell fallen falling decline declines declined declining decrease decreases decreased decreasing "
         "drop drops dropped dropping shrink shrinks shrank shrunk down lower lowered contract contracts contracted "
         "slump slumped plunge plunged plummet plummeted dip dipped cut cuts reduce reduces reduced reducing narrow "
         "narrowed slow slowed weaken weakened worsen worsened retreat retreated slide slid downward lose lost tumble "
         "tumbled tumbles sink sinks sank sunk crash crashed collapse collapsed slip slipped slips eased halved shorten shortens "
         "shortened "
         "dims dimmed dimming darken darkens darkened darkening fades faded fading cools cooled thins thinned").split()
_DIR = {w: "up" for w in _UP} | {w: "down" for w in _DOWN}
_WORD = re.compile(r"[a-z]+(?:['\u2019][a-z]+)?")


def direction(text: str) -> str | None:
    """'up' / 'down' when the text moves a value one way only (rose, fell), else None."""
    found = {_DIR[w] for w in _WORD.findall(text.lower()) if w in _DIR}
    return found.pop() if len(found) == 1 else None


#: Words that only say how a figure was computed from others ("in total", "takes", "more than", "a 15%
#: increase", "per second"): in a claim whose figures the fact checks derived from the context, they are
#: the arithmetic's wording, not content the context must state. Nouns of a thing counted or priced are
#: not here: "journey" is (a duration is a journey's), "Wi-Fi" is not.
ARITHMETIC_WORDING = frozenset("""
total totals totalled altogether combined overall sum together all in across pay pays paid paying cost costs costing spend
sale sales sold sell sells selling
spends spent price prices purchase purchased charge charged earn earns earned save saves saved saving savings
difference differ more less fewer extra additional greater larger bigger smaller cheaper dearer gain gained loss lost
profit increase increased decrease decreased rise rose risen fall fell fallen grew grow grown drop dropped up down
higher lower change changed net average averaged mean rate per each every apiece times twice half quarter third
share proportion percent percentage fraction takes take took taking lasts last lasted lasting long journey trip ride
flight duration elapsed spanned spans span between from until over during within whole entire year years month months
week weeks day days hour hours minute minutes second seconds annual annually yearly monthly weekly daily hourly
adds add added adding amounts amount come comes came number numbers count counts figure figures level levels tally
plus minus use uses used using
finish finishes finished finishing end ends ended ending reach reaches reached reaching stand stands stood
compare compared comparing comparison versus
""".split())

#: The periods a figure is reported for ("during the quarter", "in the first half", "for the year"): a frame the
#: clauses of one sentence share, not what tells one of its figures from another.
REPORTING_PERIODS = frozenset("""
year years quarter quarters half halves month months week weeks season seasons term terms semester semesters period
periods fiscal financial
""".split())

#: Words that name what a figure measures ("the energy" of "10 kWh", "the weight" of "23 kg"): said of a
#: figure the checks verified, they add nothing the context must state.
DIMENSION_WORDS: dict[str, frozenset[str]] = {dim: frozenset(words.split()) for dim, words in {
    "energy": "energy electricity power consumption usage",
    "power": "power output",
    "mass": "weight weigh weighs weighing mass heavy",
    "length": "length distance long far height tall high width wide depth deep",
    "volume": "volume capacity",
    "area": "area size",
    "speed": "speed fast",
    "time": "time duration long",
    "temperature": "temperature",
    "data": "size storage data",
    "currency": "money cost price amount",
}.items()}


#: Words that order or compare two things, by scale: (scale, degree, sign) where degree is "c" (comparative),
#: "s" (superlative) or "v" (any other form), and two words oppose when they share a scale and a degree
#: (or one of them is "v") and differ in sign. A scale, not a table of pairs: "cheapest", "least expensive",
#: "more affordable" and "priciest" are all one price scale, and "rarest" is "least common".
_SCALES: list[tuple[str, str, str]] = [
    # (scale, words with sign +, words with sign -); comparative / superlative told apart by their ending
    ("order", "after later latest last followed behind", "before earlier earliest first preceded prior ahead"),
    ("size", "larger bigger greater largest biggest greatest maximum", "smaller smallest lesser minimum"),
    ("level", "higher highest above top", "lower lowest below bottom"),
    ("age", "older oldest", "younger youngest newer newest"),
    ("length", "longer longest", "shorter shortest"),
    ("speed", "faster fastest quicker quickest", "slower slowest"),
    ("weight", "heavier heaviest", "lighter lightest"),
    ("quality", "better best", "worse worst"),
    ("width", "wider widest broader broadest", "narrower narrowest"),
    ("price", "pricier priciest dearer dearest costlier costliest", "cheaper cheapest"),
    ("heat", "warmer warmest hotter hottest spicier spiciest", "colder coldest cooler coolest milder mildest"),
    ("wet", "wetter wettest rainier rainiest", "drier driest dryer dryest"),
    ("wealth", "richer richest", "poorer poorest"),
    ("strength", "stronger strongest", "weaker weakest"),
    ("frequency", "commonest", "rarer rarest"),
    ("depth", "deeper deepest", "shallower shallowest"),
    ("distance", "farther farthest further furthest outermost", "nearer nearest closer closest innermost"),
    ("difficulty", "harder hardest", "easier easiest"),
    ("noise", "louder loudest noisier noisiest", "quieter quietest"),
    ("height", "taller tallest", "shorter"),
    ("light", "brighter brightest", "darker darkest dimmest"),
    ("safety", "safer safest", "riskier riskiest"),
    ("busy", "busier busiest", "emptier emptiest"),
    ("density", "denser densest", "sparser sparsest"),
    ("count", "more most", "fewer fewest less least"),
    ("result", "outperformed win won winner", "underperformed lose lost loser"),
    ("trend", "increase", "decrease"),
]
#: An adjective after "more / most / less / least" that belongs to a scale above ("most expensive" is
#: "priciest"); any other adjective is its own scale ("most reliable" against "least reliable").
_ADJ_SCALE = {"expensive": ("price", "+"), "costly": ("price", "+"), "pricey": ("price", "+"),
              "affordable": ("price", "-"), "common": ("frequency", "+"), "commonly": ("frequency", "+"),
              "frequent": ("frequency", "+"), "frequently": ("frequency", "+"), "popular": ("popularity", "+"),
              # ("the most distant galaxy" is "the farthest"; "the closest" is its opposite)
              "distant": ("distance", "+"), "remote": ("distance", "+"),
              # ("a more extensive assault" is a larger one)
              "extensive": ("size", "+")}
_SCALE_OF: dict[str, tuple[str, str, str]] = {}
for _scale, _plus, _minus in _SCALES:
    for _sign, _ws in (("+", _plus), ("-", _minus)):
        for _w in _ws.split():
            _deg = "s" if _w.endswith(("est", "most")) or _w in ("most", "least", "first", "last", "top", "bottom", "maximum",
                                                     "minimum") else "c" if _w.endswith("er") or _w in ("more", "less") else "v"
            _SCALE_OF.setdefault(_w, (_scale, _deg, _sign))
_GRADED = re.compile(r"\b(?:(most|least|more|less)\s+([a-z]{4,})|([a-z]+))\b")
_NOT_GRADABLE = frozenset("than of the a an and or people time times often likely".split())


def _scale_of(phrase: str) -> tuple[str, str, str] | None:
    words_ = phrase.split()
    if len(words_) == 2:
        head, adj = words_
        sign = "+" if head in ("most", "more") else "-"
        deg = "s" if head in ("most", "least") else "c"
        scale, adj_sign = _ADJ_SCALE.get(adj, ("adj:" + re.sub(r"ly$", "", adj), "+"))
        return scale, deg, sign if adj_sign == "+" else ("-" if sign == "+" else "+")
    return _SCALE_OF.get(phrase)


#: Order and result words that only name a time or a measure: "the year before", "last year", "a 70% win rate".
_NOT_RELATION = re.compile(r"\b(?:the\s+(?:year|month|week|day|night|season|summer|winter|quarter|term|time)\s+(?P<a>before|after)\b"
                           r"|(?P<b>last)\s+(?:year|month|week|night|season|summer|winter|spring|autumn|quarter|term|time)\b"
                           r"|(?P<c>win|loss|lose|winning|losing)\s+(?:rate|ratio|percentage|streak|record|margin|bonus)\b)", re.I)


def relation_words(text: str) -> list[tuple[str, int]]:
    """Order / comparison words and phrases of ``text`` ("cheapest", "most expensive") with their offsets; not a
    word that only names a time ("the year before", "last year") or a measure ("win rate")."""
    low = text.lower()
    skip = {m.start(g) for m in _NOT_RELATION.finditer(low) for g in ("a", "b", "c") if m.group(g)} \
        if any(w in low for w in ("before", "after", "last", "win", "los")) else set()
    out = []
    for m in _GRADED.finditer(low):
        if m.start() in skip:
            continue
        if m.group(1) and m.group(2) not in _NOT_GRADABLE and m.group(2) not in _SCALE_OF:
            out.append((m.group(0), m.start()))
        else:
            w = m.group(1) or m.group(3)
            if w in _SCALE_OF:
                out.append((w, m.start()))
    return out


def relation_key(phrase: str) -> tuple[str, str, str] | None:
    """(scale, degree, sign) of a relation word or phrase."""
    return _scale_of(phrase.lower())


def opposed(a: str, b: str) -> bool:
    """Do two relation words say opposite things on one scale ("cheapest" / "most expensive")? "most" before a
    word of no known scale may be a count ("the most parcels" / "the fewest"), so its bare head is read too."""
    def keys(w: str):
        w = w.lower()
        out = [_scale_of(w)]
        head, _, adj = w.partition(" ")
        if adj and adj not in _ADJ_SCALE:
            out.append(_SCALE_OF.get(head))
        return [k for k in out if k]

    return any(ka[0] == kb[0] and ka[2] != kb[2] and (ka[1] == kb[1] or "v" in (ka[1], kb[1]))
               for ka in keys(a) for kb in keys(b))


#: The words before a figure that counts the set a superlative ranks within: "the highest turnout of the five
#: wards", "the cheapest among 12 quotes", "out of 30".
_RANKED_SET = re.compile(r"\b(?:of|among|amongst|out\s+of)\s+(?:all\s+)?(?:the\s+|its\s+|their\s+)?$", re.I)


def counts_ranked_set(before: str) -> bool:
    """Does the text right before a figure make it the size of the set a comparison ranks in ("of the five wards")?
    Such a figure is part of the superlative's phrase, not a value of its own the superlative stands beside, so it
    must not part "the highest turnout of the five wards, at 29%" from its 29%."""
    return _RANKED_SET.search(before[-30:]) is not None


__all__.append("counts_ranked_set")


#: An act denied by a light verb and "no" before its noun: "raised no objection", "made no comment", "had no
#: complaints", "expressed no concern". Verbs whose subject does the act only ("received no complaints" is
#: someone else's act, so not here).
_DENIED_BY_NOUN = re.compile(r"\b(?:raise[sd]?|raising|made|makes?|making|lodge[sd]?|lodging|voice[sd]?|voicing|"
                             r"express(?:es|ed)?|expressing|register(?:s|ed)?|submit(?:s|ted)?|ha[sd]|have|offer(?:s|ed)?|"
                             r"gave|gives?|put\s+forward|show(?:s|ed)?|file[sd]?)\s+no\s+(?:formal\s+|further\s+|real\s+)?"
                             # (the noun of an act, not a thing had: "has no HDMI port" denies no act)
                             r"((?:complaint|comment|concern|protest|claim|bid|offer|request|appeal|reply|response|"
                             r"promise|attempt|effort|criticism|mention|remark|suggestion|recommendation|statement|"
                             r"announcement|challenge|demand|case)s?|[a-z]{3,}(?:tion|sion|ment)s?)\b", re.I)


def denied_acts(text: str) -> list[tuple[int, int, str]]:
    """(start of the light verb, end, noun) for each act ``text`` denies with "<verb> no <noun>". The noun is
    the act's (an "objection" is what "objected" does), so a claim that its subject did the act says the
    opposite, though no "not" is there to flip."""
    return [(m.start(), m.end(), m.group(1).lower()) for m in _DENIED_BY_NOUN.finditer(text)]


__all__.append("denied_acts")


#: Words that make a figure a gap, a sum or a share between parties, not one party's own value: "1,327 votes
#: behind Okafor", "a majority of 1,327", "12 more seats than", "3,000 between them", "combined".
_RELATIVE_FIGURE = re.compile(r"\b(?:behind|ahead|more|fewer|less|than|short|margin|majority|lead|led|trail\w*|gap|"
                              r"difference|differ\w*|by|between|apart|combined|total\w*|together|altogether|average\w*|"
                              r"each|per|share|plus|minus|up|down|rise|rose|fell|fall|increase\w*|decrease\w*)\b", re.I)


def relative_figure(text: str) -> bool:
    """Does ``text`` (the words around a figure) make the figure a gap, sum or share between parties? A figure
    said that way may be another party's figure minus, plus or over this one's, and the checks that give each
    party its own figure must leave it alone."""
    return _RELATIVE_FIGURE.search(text) is not None


__all__.append("relative_figure")


#: A personal pronoun as the subject of the few words right before a figure: "you contributed £2,080", "we
#: paid in £450" (not "paid you £50", where the pronoun is the object).
_PRONOUN_SUBJECT = re.compile(r"(?<![\w'\u2019])(you|we|i|he|she|they)\s+(?:[a-z]+\s+){1,3}$", re.I)


def subject_pronoun(before: str) -> str | None:
    """The personal pronoun whose figure the words ``before`` a figure give it, lower-cased, if they are "<pronoun>
    <verb> ...". Why: a pronoun is no content word, so two figures of one sentence told apart only by their
    subjects ("your employer contributed £3,120 and you contributed £2,080") would otherwise look like one
    party's; the pronoun is the second figure's own word."""
    m = _PRONOUN_SUBJECT.search(before)
    return m.group(1).lower() if m else None


__all__.append("subject_pronoun")


_QUANT = [
    (0, r"no|none|nobody|never|nothing|no\s+one"),
    (1, r"a\s+few|few|some|several|a\s+minority|sometimes|occasionally|rarely|seldom|a\s+handful|certain|a\s+number\s+of|"
        r"many|often|a\s+small\s+number"),
    (2, r"most|the\s+majority|majority|usually|generally|mostly|typically|nearly\s+all|almost\s+all|largely|mainly|frequently"),
    (3, r"all|every|always|everyone|everybody|everything|without\s+exception|universally"),
]
_QUANT_RE = [(r, re.compile(rf"\b(?:{p})\b", re.I)) for r, p in _QUANT]


_QUANT_ANY = re.compile(r"\b(?:" + "|".join(f"(?P<q{r}>{p})" for r, p in _QUANT) + r")\b", re.I)


def quantifiers(text: str) -> list[tuple[int, int, int]]:
    """(rank, start, end) of each quantifier of ``text`` ("only a handful of the villagers": rank 1)."""
    return [(int(next(k for k, v in m.groupdict().items() if v)[1:]), m.start(), m.end()) for m in _QUANT_ANY.finditer(text)]


__all__.append("quantifiers")


#: A possessor between a quantifier and what it counts: "all of the KX-300's plastic parts", "every one of Tesco's
#: stores", "all the company's staff" (one to three words, the last with "'s").
_POSSESSOR = re.compile(r"\s+(?:of\s+)?(?:the\s+)?(?:[\w.\-]+\s+){0,2}[\w.\-]+['\u2019]s\s+(?=[A-Za-z])", re.I)


def after_possessor(text: str, pos: int) -> int:
    """Where what a quantifier at ``pos`` counts begins, past a possessor ("All of the KX-300's | plastic parts").
    Why: the possessor names whose things are counted; read as the counted word it hides the noun the evidence
    quantifies ("Some of the plastic parts"), so a part widened to the whole passed."""
    m = _POSSESSOR.match(text, pos)
    return m.end() if m else pos


__all__.append("after_possessor")


def quantifier_rank(text: str) -> int | None:
    """How much of a group the text speaks for: 0 none, 1 some, 2 most, 3 all; the strongest stated."""
    best = None
    for rank, pat in _QUANT_RE:
        if pat.search(text):
            best = rank if best is None else max(best, rank)
    return best


_CONDITION = re.compile(
    r"\b(?:only\s+(?:be\s+)?[a-z]+(?:ed|en)\s+(?:if|when|where|after|during)|"
    r"only\s+if|only\s+when|only\s+where|only\s+after|only\s+with|unless|except(?:\s+for)?|excluding|other\s+than|"
    r"apart\s+from|provided\s+(?:that\b)?(?!by\b|to\b|for\b|with\b|in\b|on\b|at\b|via\b|through\b|free\b|under\b)|as\s+long\s+as|on\s+condition|subject\s+to|if|when|with\s+the\s+exception\s+of|but\s+not|"
    r"with\s+(?:a\s+|an\s+|your\s+|their\s+)?(?:valid|proof\s+of)|(?:on|upon)\s+(?:presentation|production|showing)\s+of)\b",
    re.I,
)
_STRONG_CONDITION = re.compile(
    # ("can only be returned if faulty": "only" before the act it limits, the condition after it)
    r"\b(?:only\s+(?:be\s+)?[a-z]+(?:ed|en)\s+(?:if|when|where|after|during)|"
    r"only\s+if|only\s+when|only\s+where|only\s+after|only\s+with|only\s+for|only\s+to|only\s+during|unless|"
    r"except(?:\s+for)?|excluding|other\s+than|apart\s+from|provided\s+(?:that\b)?(?!by\b|to\b|for\b|with\b|in\b|on\b|at\b|via\b|through\b|free\b|under\b)|as\s+long\s+as|on\s+condition|subject\s+to|"
    r"with\s+the\s+exception\s+of|but\s+not|"
    # a requirement to show something: "a 20% discount with a valid student ID", "on presentation of a receipt"
    r"with\s+(?:a\s+|an\s+|your\s+|their\s+)?(?:valid|proof\s+of)|(?:on|upon)\s+(?:presentation|production|showing)\s+of)\b",
    re.I,
)
_UNCONDITIONAL = re.compile(
    r"\b(?:whether\s+or\s+not|regardless|irrespective|whatever\s+(?:the|your|their|its)|in\s+all\s+cases|always|any|every|all|"
    r"including|even|no\s+matter|"
    r"without)\b",
    re.I,
)


def condition_cues(text: str, strong: bool = True) -> list[tuple[str, int]]:
    pat = _STRONG_CONDITION if strong else _CONDITION
    return [(m.group(0).lower(), m.end()) for m in pat.finditer(text)]


def unconditional(text: str) -> bool:
    """Says something holds in every case ("all", "always", "regardless") or without what a condition asks
    for ("without the landlord's consent"); "not ... without" restates the condition and is not read so."""
    m = _UNCONDITIONAL.search(text)
    if m is None:
        return False
    return not (m.group(0).lower() == "without" and negated(text[: m.start()]))


__all__.append("unconditional")

OLD_MARKERS = re.compile(
    r"\b(?:until|previously|formerly|originally|used\s+to|was|were|had\s+been|before|old|prior|earlier|initially|"
    r"at\s+first|replaced|superseded|no\s+longer)\b", re.I)
NEW_MARKERS = re.compile(
    r"\b(?:now|currently|since|from|as\s+of|new|today|at\s+present|is|are|has\s+been|have\s+been|will\s+be|"
    r"effective|starting|raised\s+to|increased\s+to|reduced\s+to|lowered\s+to|changed\s+to|updated\s+to|current)\b",
    re.I)

_ABSTAIN = re.compile(
    r"(?:^|\b)(?:(?:the\s+)?(?:provided\s+|given\s+|available\s+|supplied\s+|retrieved\s+|above\s+|these\s+|this\s+)?"
    r"(?:documents?|context|texts?|passages?|sources?|information|articles?|reports?|excerpts?|materials?|data|records?|"
    r"notes?|page|snippets?)\s+(?:provided\s+|(?:that\s+)?(?:i|we)\s+(?:have|was\s+given|were\s+given)\s+)?"
    r"(?:does|do|did)\s*(?:not|n['\u2019]t)\s+"
    r"(?:mention|say|state|specify|provide|include|contain|indicate|give|list|discuss|address|describe|tell|reveal|"
    r"clarify|explain|cover|detail|name|identify|disclose)"
    r"|\b(?:policy|guide|manual|page|website|article|faq|brochure|description|label|leaflet|announcement|statement|"
    r"email|letter|table|chart|summary|documentation|notice|schedule|listing|review|study|paper|handbook|guidelines|"
    r"contract|agreement|regulations|rules|terms|specification|readme|catalogue|catalog|menu|invoice|receipt|timetable|"
    r"recipe|instructions|post|blog|thread|transcript|datasheet|itinerary|confirmation|certificate|form|entry|profile|"
    r"advert|advertisement|ad|extracts?)\s+(?:as\s+provided\s+|provided\s+)?"
    r"(?:does|do|did)\s*(?:not|n['\u2019]t)\s+(?:mention|say|state|specify|indicate|tell|reveal|name|disclose|give|answer)"
    r"|cannot\s+be\s+(?:determined|found|answered|inferred|established|confirmed)\s+(?:from|based\s+on|with|using)"
    r"|there\s+is\s+no\s+(?:information|mention|data|detail|indication)"
    r"|there(?:\s+is|['\u2019]s)\s+nothing\s+(?:in|about)\s+(?:the\s+)?(?:provided\s+|given\s+)?(?:information|documents?|"
    r"context|texts?|passages?|sources?|details?)"
    r"|(?:i|we)\s+(?:cannot|can['\u2019]t|could\s+not|couldn['\u2019]t|am\s+unable\s+to|are\s+unable\s+to|do\s+not|don['\u2019]t)"
    r"\s+(?:find|determine|tell|say|know|answer|confirm|see|locate)"
    r"|(?:is|are|was|were)\s+not\s+(?:specified|mentioned|stated|provided|given|indicated|listed|included|available)"
    r"\s+(?:in|by)\s+the\s+(?:provided\s+|given\s+|available\s+)?(?:documents?|context|texts?|passages?|sources?|"
    r"information|articles?|reports?|policy|page|materials?)"
    # "The transfer fee isn't stated; ...": an agentless "not stated / mentioned / specified" at a clause's end
    r"|\b(?:is|are|was|were)\s*(?:not|n['\u2019]t)\s+(?:stated|mentioned|specified)(?:\s+(?:anywhere|here|there))?\s*(?:$|[.;,:!)\u2014\u2013])"
    r"|(?:unable|impossible)\s+to\s+(?:determine|tell|say|find|confirm)"
    r"|no\s+(?:information|details?|data)\s+(?:is|are|was|were)?\s*(?:given|provided|available)?\s*(?:about|on|regarding|as\s+to)"
    # "The label does not warn against using it if ...": no warning given, a claim about the source.
    r"|\b(?:label|leaflet|policy|guide|manual|notice|instructions|documents?|texts?|passages?|context|sources?|page|"
    r"website|information|handbook|insert|packaging)\s+(?:does|do|did)\s*(?:not|n['\u2019]t)\s+(?:warn|caution|advise)\s+"
    r"(?:against|about|of|that)"
    r"|(?:does|do)\s+not\s+(?:appear|seem)\s+to\s+(?:be\s+)?(?:mention|state|specif|provid|includ)\w*"
    r"|(?:the\s+)?(?:answer|information)\s+(?:is|was)\s+not\s+(?:in|available|provided|found)"
    # "The release notes for patch 3.8.1 don't say ...": the source and what it is of, then the denial.
    r"|\b(?:documents?|texts?|passages?|sources?|articles?|reports?|notes|leaflet|label|guide|manual|page|website|"
    r"policy|notice|brochure|listing|description|announcement|statement|schedule|timetable|menu|minutes)\s+"
    r"(?:for|of|on|from|about|to)\s+(?:[^.;:!?\n]|(?<=\d)\.(?=\d)){1,40}?\s+(?:does|do|did)\s*(?:not|n['\u2019]t)\s+"
    r"(?:mention|say|state|specify|indicate|tell|reveal|disclose|give|list|include)"
    # "The leaflet explains how to store the drops but doesn't say how long ...": the source named first.
    r"|(?<![\w-])(?:documents?|context|texts?|passages?|sources?|articles?|reports?|leaflet|label|guide|manual|page|"
    r"website|policy|notice|brochure|listing|description|announcement|statement|email|letter|schedule|timetable|"
    r"prospectus|syllabus|handbook|bulletin|newsletter|memo|changelog|release\s+notes|flyer|pamphlet|booklet|"
    r"factsheet|fact\s+sheet|datasheet|catalogue|catalog|menu|itinerary|invoice|contract|agreement|terms)"
    r"\b[^.;:!?\n]{1,120}?\b(?:but|yet|though|although)\s+(?:it\s+|they\s+)?(?:does|do|did)\s*(?:not|n['\u2019]t)\s+"
    r"(?:mention|say|state|specify|indicate|tell|reveal|disclose|give|list|include)"
    # "The information provided only covers the fares; it doesn't say anything about pets": the source, what it
    # covers, then the same source as "it" / "they" after a clause break.
    r"|(?<![\w-])(?:information|documents?|documentation|docs|context|texts?|passages?|sources?|articles?|excerpts?|materials?|leaflet|"
    r"label|guide|manual|page|website|policy|notice|brochure|listing|description|announcement|statement|email|letter|"
    r"schedule|timetable|handbook|contract|agreement|terms|notes?|records?|summary|report)\b(?:[^.;:!?\n]|(?<=\d)\.(?=\d)){1,160}?"
    r"(?:[;,:\u2014\u2013]|\band)\s*(?:(?:but|yet)\s+)?(?:it|they)\s+(?:does|do|did)\s*(?:not|n['\u2019]t)\s+"
    r"(?:mention|say|state|specify|indicate|tell|reveal|disclose|give|list|include|address|discuss)"
    # "The information only covers weekday opening (09:30-16:30) and doesn't mention any Saturday opening": the sources
    # as the subject that opens the sentence, of both verbs (a news sentence names information as an object or a
    # modifier: "Police shared the information ... and did not mention a motive" is no abstention)
    r"|^\s*(?:the|this|these)\s+(?:provided\s+|given\s+|available\s+|supplied\s+|retrieved\s+)?(?:information|context|"
    r"documents?|documentation|passages?|sources?|texts?|excerpts?|materials?)(?:\s+(?:provided|given|available))?\s+"
    r"(?:only\s+|just\s+|mainly\s+)?[a-z]+s\b(?:[^.;:!?\n]|(?<=\d)[.:](?=\d)){0,160}?\b(?:and|but|yet)\s+(?:it\s+|they\s+)?"
    r"(?:does|do|did)\s*(?:not|n['\u2019]t)\s+(?:mention|say|state|specify|indicate|tell|reveal|disclose|give|list|include|"
    r"address|discuss)"
    # "The passage covers the trial but says nothing about the price", "the leaflet makes no mention of ...", "the
    # notice is silent on ...": a source, then what it leaves out in other words than a denial.
    r"|(?<![\w-])(?:information|documents?|documentation|context|texts?|passages?|sources?|articles?|excerpts?|leaflet|label|"
    r"guide|manual|page|website|policy|notice|brochure|listing|description|announcement|statement|email|letter|schedule|"
    r"timetable|handbook|contract|agreement|terms|notes?|records?|summary|report)\b(?:[^.;:!?\n]|(?<=\d)\.(?=\d)){0,160}?"
    r"\b(?:(?:says?|said|mentions?|mentioned|states?|stated|tells?\s+(?:us|you|me))\s+nothing|(?:makes?|made)\s+no\s+mention|"
    r"(?:is|are|was|were)\s+silent)\s+(?:about|on|of|regarding|as\s+to|concerning)\b)",
    re.IGNORECASE,
)


_NO_WARNING = re.compile(r"\b(?:does|do|did)\s*(?:not|n['\u2019]t)\s+(?:warn|caution|advise)\s+(?:against|about|of|that)\b", re.I)


def denies_warning(text: str) -> bool:
    """Does an abstention say the source gives no warning ("the label does not warn against ...")? Only a
    sentence that warns (a ban or a caution) refutes it, not any sentence on the topic."""
    return bool(_NO_WARNING.search(text))


#: A word set off between commas that says nothing of what the clause states: "it doesn't, however, say ...",
#: "personalised items, however, can't be returned".
_ASIDE = re.compile(r",\s*(?:however|though|meanwhile|also|too|instead|moreover|furthermore|in\s+turn|as\s+well|"
                    r"unfortunately|sadly|actually|admittedly|as\s+far\s+as\s+I\s+can\s+see)\s*,", re.I)


def without_asides(text: str) -> str:
    """``text`` with its asides between commas ("..., however, ...") taken out."""
    return _ASIDE.sub("", text)


__all__ += ["without_asides"]


def is_abstention(text: str) -> bool:
    """Does the sentence say the sources do not answer (rather than state a fact about the world)?"""
    return bool(_ABSTAIN.search(without_asides(text)))


_SOURCE_WORDS = re.compile(
    r"\b(?:the|provided|given|available|supplied|above|these|this|documents?|context|texts?|passages?|sources?|"
    r"information|articles?|reports?|excerpts?|materials?|data|in|from|based|on|as|any)\b", re.I)


_DENIAL = re.compile(r"\b(?:(?:it|they)\s+)?(?:does|do|did)\s*(?:not|n['\u2019]t)\b|\b(?:cannot|can['\u2019]t|unable|"
                     r"isn['\u2019]t|is\s+not|are\s+not|there\s+is\s+no)\b", re.I)


def abstention_lead(text: str) -> str:
    """What an abstention first says the sources do state, before the denial: "The documentation confirms a 10%
    credit; it doesn't say what applies below 99%" -> "The documentation confirms a 10% credit". Empty when the
    sentence opens with the denial or its lead is under four words."""
    text = without_asides(text)
    m = _ABSTAIN.search(text)
    if not m:
        return ""
    # (the denial itself, which a match that opens with the source's name may hold far into the sentence)
    denials = list(_DENIAL.finditer(text, m.start(), m.end()))
    cut = denials[-1].start() if denials else m.start()
    breaks = list(re.finditer(r"[;:\u2014]|,?\s+\b(?:but|however|although|though|yet|while)\b|,\s+and\b", text[:cut]))
    lead = text[: breaks[-1].start()].strip(" ,;:") if breaks else ""
    return lead if len(re.findall(r"[A-Za-z0-9]{2,}", lead)) >= 4 else ""


__all__ += ["abstention_lead"]


def abstention_topic(text: str) -> str:
    """What an abstention says is missing: the side of the abstention phrase that is not about the sources
    ("... does not mention the price of the cream" -> "the price of the cream"; "The fee is not mentioned
    in the text" -> "The fee")."""
    text = without_asides(text)
    m = _ABSTAIN.search(text)
    if not m:
        return text
    after = re.sub(r"^\s*(?:any(?:thing)?\s+)?(?:(?:about|on|regarding|as\s+to|of)\s+)?"
                   r"(?:whether|if|how|what|which|who|when|where|why)?\s*",
                   "", text[m.end():], flags=re.I).strip(" .,:;")
    before = text[: m.start()].strip(" .,:;")

    def weight(part: str) -> int:
        return len(re.findall(r"[A-Za-z]{3,}", _SOURCE_WORDS.sub(" ", part)))

    # "..., but the documents don't say whether ...": what comes before the "but" is stated, the topic after it
    # (or a dash: "... sent to the Lost Property Office \u2014 the page doesn't mention how long ...")
    joined = re.search(r"(?:,|;)?\s*\b(?:but|however|although|though|yet|while)(?:\s+(?:the|these|this))?\s*$|"
                       r"(?:\s[\u2014\u2013-]|;)\s*(?:the|these|this|that|it|they)?\s*$", before, re.I)
    topic = after if (joined and after) or weight(after) >= weight(before) else before
    if re.match(r"(?:is|are|was|were)\b", m.group(0), re.I) and before:
        topic = before  # "The transfer fee isn't stated, but ...": what is not stated comes first
    if topic is after:
        # "... how long the course stays open, so I can't tell you the time limit": the topic ends with its clause.
        # (or at a dash: "how old he was when he died — it only gives the date range of his death")
        topic = re.split(r",\s*(?:so|and|but|which|because|as|therefore|only|just|except|although|though)\b|;|\s+so\s+(?:i|we)\b|"
                         r"\s[\u2014\u2013-]\s", topic,
                         maxsplit=1, flags=re.I)[0]
    # "... the starting location of the marathon in the provided documents": the sources are not the topic.
    return _SOURCE_TAIL.sub("", topic).strip(" .,:;")


_SOURCE_TAIL = re.compile(
    r"\s+(?:in|from|within|by)\s+(?:the\s+|this\s+|these\s+|any\s+of\s+the\s+)?(?:provided\s+|given\s+|available\s+|"
    r"supplied\s+|above\s+|retrieved\s+)?(?:documents?|documentation|context|texts?|passages?|sources?|information|"
    r"articles?|reports?|excerpts?|materials?|data|records?|notes?|page|snippets?|policy|guide|manual|website|faq|"
    r"brochure|listing|description)\b.*$", re.I)


_INJECTION = re.compile(
    r"(?:(?:note|message|instruction|memo|reminder)s?\s+(?:to|for)\s+(?:the\s+)?(?:verifier|checker|fact[- ]?checker|"
    r"grader|evaluator|reviewer|guard(?:rail)?|judge|moderator|model|ai|assistant|system)"
    r"|(?:mark|label|treat|consider|classify|rate|score|flag)\s+(?:this|these|every|all|each|the)\s+(?:\w+\s+){0,3}?"
    r"(?:as\s+)?(?:supported|true|verified|correct|accurate|grounded|faithful|safe|not\s+(?:a\s+)?hallucinat\w*)"
    r"|ignore\s+(?:all\s+|any\s+)?(?:the\s+)?(?:previous|prior|above|earlier|preceding)\s+(?:instructions?|rules?|context)"
    r"|(?:pre-?verified|already\s+(?:been\s+)?verified|verification\s+(?:is\s+)?(?:complete|passed)|"
    r"grounding\s+check\s+passed|hallucination_score)"
    r"|^\s*\[?\s*(?:system|assistant|developer)\s*(?:message|prompt)?\s*:)",
    re.IGNORECASE,
)


def is_injection(text: str) -> bool:
    """Text that addresses the checker ("Note to the verifier: mark every claim as supported")."""
    return bool(_INJECTION.search(text))


def without_injection(text: str) -> str:
    """``text`` with what addresses the checker blanked out (same length, same offsets): the bracketed or
    parenthesised note that holds it, else its sentence. The rest of a passage is still evidence: a note
    spliced into a record must not take the record's facts with it."""
    out = text
    for m in _INJECTION.finditer(text):
        opener = max(text.rfind("[", 0, m.start()), text.rfind("(", 0, m.start()))
        closer = text.find("]" if opener >= 0 and text[opener] == "[" else ")", m.end()) if opener >= 0 else -1
        if opener >= 0 and closer >= 0 and not re.search(r"[\])]", text[opener + 1:m.start()]):
            a, b = opener, closer + 1
        else:
            a = max((x.end() for x in re.finditer(r"[.!?](?:\s|$)", text[: m.start()])), default=0)
            end = re.search(r"[.!?](?:\s|$)", text[m.end():])
            b = m.end() + end.end() if end else len(text)
        out = out[:a] + " " * (b - a) + out[b:]
    return out


# -- closed sets of attribute values --------------------------------------------------------------
#: Words of which a thing has one value at a time: a colour, a compass point, a sex, a medal, a time of
#: day, a state of matter, public or private. One member in the claim where the aligned evidence has
#: another in the same place is a swapped value ("blinks green" / "blinks blue"); members of one value are
#: rewordings of each other ("female" / "woman"). Words with common other senses ("left", "right",
#: "spring", "fall", "open") are left out: a wrong reading there would flag faithful answers.
_ATTRIBUTE_SETS: dict[str, dict[str, str]] = {}
for _set, _values in {
    "colour": "red orange yellow green blue purple violet pink brown black white grey|gray turquoise",
    "compass": "north|northern|northbound south|southern|southbound east|eastern|eastbound west|western|westbound "
               "northeast|north-east|northeastern northwest|north-west|northwestern southeast|south-east|southeastern "
               "southwest|south-west|southwestern",
    "sex": "male|man|men|boy|boys|masculine female|woman|women|girl|girls|feminine",
    "medal": "gold silver bronze",
    "daytime": "morning|mornings afternoon|afternoons evening|evenings overnight|night|nights",
    "matter": "solid|solids liquid|liquids gas|gases|gaseous",
    "ownership": "public private",
    "setting": "indoor|indoors outdoor|outdoors",
    "scope": "domestic international",
}.items():
    for _value in _values.split():
        _members = _value.split("|")
        for _m in _members:
            _ATTRIBUTE_SETS.setdefault(_set, {})[_m] = _members[0]
_ATTRIBUTE_OF = {w: (s, v) for s, members in _ATTRIBUTE_SETS.items() for w, v in members.items()}
_ATTRIBUTE_WORD = re.compile(r"(?<![\w\-])(" + "|".join(sorted(map(re.escape, _ATTRIBUTE_OF), key=len, reverse=True))
                             + r")(?![\w\-])", re.I)


def attribute_words(text: str) -> list[tuple[str, str, int, int]]:
    """(set, value, start, end) of each closed-set attribute word of ``text``: "women" is ("sex", "female", ...)."""
    return [(*_ATTRIBUTE_OF[m.group(1).lower()], m.start(), m.end()) for m in _ATTRIBUTE_WORD.finditer(text)]


# ---- word flips: one closed-class word for another that changes what the sentence says -------------------
# The red team's meaning edits (``guardrail.eval.redteam.mutate``) and, through them, the grounding model's
# training pairs: a direction reversed, an order or comparison reversed, a modality changed, a quantifier
# widened. Pairs, not the scales above, because an edit must stay grammatical in the same form ("rose" ->
# "fell", "earliest" -> "latest"). Left out on purpose: "up"/"down", "first"/"last", "cut", "lost" (mostly
# not a change of a value), and "most" as an adverb ("the most popular").
_FLIP_PAIRS: dict[str, str] = {
    "direction": """rise:fall rises:falls rose:fell risen:fallen rising:falling increase:decrease increases:decreases
        increased:decreased increasing:decreasing grew:shrank grow:shrink grows:shrinks growing:shrinking
        climbed:dropped climbs:drops expanded:contracted expanding:contracting improved:worsened improves:worsens
        jumped:plunged surged:slumped soared:plummeted accelerated:slowed strengthened:weakened widened:narrowed
        doubled:halved raised:lowered gained:declined upward:downward""",
    "relation": """before:after earlier:later earliest:latest larger:smaller largest:smallest bigger:smaller
        biggest:smallest older:younger oldest:youngest longer:shorter longest:shortest faster:slower fastest:slowest
        heavier:lighter heaviest:lightest better:worse best:worst cheaper:costlier cheapest:costliest warmer:colder
        warmest:coldest hotter:colder hottest:coldest richest:poorest richer:poorer stronger:weaker strongest:weakest
        deeper:shallower deepest:shallowest nearest:farthest easier:harder easiest:hardest maximum:minimum
        above:below outperformed:underperformed""",
}
#: One-way flips: the claim says more than the evidence (a possibility made a duty, some made all).
_FLIP_ONE_WAY: dict[str, str] = {
    "modality": """must_not:may may_not:may must:may may:must can:must should:must optional:mandatory
        mandatory:optional required:optional allowed:required permitted:required recommended:required
        voluntary:compulsory compulsory:voluntary""",
    "quantifier": """some:all several:all many:all most:all few:most often:always sometimes:always usually:always
        occasionally:always rarely:often generally:always mostly:entirely partly:entirely""",
}


def _flip_table() -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for kind, text in _FLIP_PAIRS.items():
        table = out.setdefault(kind, {})
        for pair in text.split():
            a, b = pair.split(":")
            table.setdefault(a, b)
            table.setdefault(b, a)
    for kind, text in _FLIP_ONE_WAY.items():
        table = out.setdefault(kind, {})
        for pair in text.split():
            a, b = pair.split(":")
            table[a.replace("_", " ")] = b.replace("_", " ")
    return out


FLIPS: dict[str, dict[str, str]] = _flip_table()
_FLIP_RE = {kind: re.compile(r"\b(" + "|".join(sorted(map(re.escape, t), key=len, reverse=True)) + r")\b(?!['\u2019-])",
                             re.I)
            for kind, t in FLIPS.items()}
# Where a listed word is not doing its job: "at least", "the most popular", "some 200 people" (about),
# "more or less", "higher education", "before long".
_NOT_A_FLIP = re.compile(
    r"(?:\bat\s+|\bthe\s+|\bfor\s+the\s+)most\b|\bmost\s+(?!of\b)[a-z]+(?<!s)\b|\bsome\s+\d|\bhigher\s+education|"
    r"\bbefore\s+long\b|\bmay\s+be\b|\bcan\s+be\b|\bmany\s+of\s+whom\b|\bmost\s+likely\b|\boften\s+than\b",
    re.I,
)


def flips(text: str, kind: str) -> list[tuple[int, int, str, str]]:
    """(start, end, word, replacement) for each word of ``kind`` (direction, relation, modality, quantifier)
    in ``text`` that a one-word edit can turn into its opposite, the replacement in the word's case."""
    blocked = [(m.start(), m.end()) for m in _NOT_A_FLIP.finditer(text)]
    out = []
    for m in _FLIP_RE[kind].finditer(text):
        if any(a <= m.start() < b for a, b in blocked):
            continue
        word = m.group(1)
        new = FLIPS[kind][" ".join(word.lower().split())]
        if word[0].isupper():
            new = new[0].upper() + new[1:]
        out.append((m.start(), m.end(), word, new))
    return out


__all__ += ["FLIPS", "flips", "DENYING", "without_non_negations"]


# ---- verbs of one action: who did it to whom is compared across them ----------------------------------------
# "Morel defeated Ferris" and "Ferris beat Morel" name the same action with the roles swapped; a role check that
# needs the same verb on both sides reads them as two different statements and lets the swap pass.
_ACTIONS = {
    "defeat": "beat beats beaten defeat defeats defeated overcame overcome edged trounced thrashed eliminated outplayed "
              "outscored",
    "hire": "hire hires hired hiring employ employs employed employing recruit recruits recruited recruiting",
    "acquire": "acquire acquires acquired acquiring acquisition buy buys bought buying purchase purchases purchased "
               "purchasing takeover",
    "replace": "replace replaces replaced succeed succeeds succeeded",
    "criticise": "criticise criticises criticised criticize criticizes criticized condemn condemns condemned slam "
                 "slams slammed blame blames blamed attack attacks attacked",
    "sue": "sue sues sued suing suit lawsuit lawsuits",
    "pay": "pay pays paid paying",
    "sell": "sell sells sold selling",
    "endorse": "endorse endorses endorsed back backs backed",
    "interview": "interview interviews interviewed interviewing",
    "move": "move moves moved moving relocate relocates relocated relocating",
    "teach": "teach teaches taught coach coaches coached mentor mentors mentored",
    "die": "die dies died dying",
    # (proceedings or a campaign started by one party against another: "has begun a judicial review against" /
    # "has started a judicial review against" / "launched a challenge against"; a swap of who started it is the error)
    "begin": "begin begins began begun beginning start starts started starting launch launches launched launching "
             "initiate initiates initiated initiating commence commences commenced commencing",
}
_ACTION_OF = {w: name for name, ws in _ACTIONS.items() for w in ws.split()}


@functools.lru_cache(maxsize=1)
def _action_of_stems() -> dict[str, str]:
    from .terms import stem  # the words as the fact checks hold them ("acquired" -> "acquir")

    # (and their first six letters, as the fact checks fold long words: "acquisition" -> "acquis")
    folded = {stem(w)[:6]: name for w, name in _ACTION_OF.items() if len(stem(w)) > 6}
    return folded | {stem(w): name for w, name in _ACTION_OF.items()} | _ACTION_OF


def action(word: str) -> str:
    """The action a verb or its stem names ("beat", "defeated", "acquir" -> "defeat", "acquire"), or the word itself
    when it is not listed."""
    return _action_of_stems().get(word.lower(), word.lower())


def is_action(word: str) -> bool:
    """Whether a verb or its stem names one of the listed actions ("pay" is, though its action is named "pay")."""
    return word.lower() in _action_of_stems()


__all__ += ["action", "is_action"]


# -- one verb for a phrase that says the same ---------------------------------------------------------------
#: Phrases a product or offer description uses for "includes": "comes with a footprint" states what "includes
#: a footprint" states, and "does not come with" what "does not include" denies.
_INCLUDES = re.compile(r"\b(?:(?:comes?|came|coming|ships?|shipped|shipping)\s+with|"
                       r"(?:is|are|was|were|be|been|being|comes?|came)\s+(?:supplied|equipped|fitted|bundled|packaged|"
                       r"provided)\s+with)\b", re.I)


@functools.lru_cache(maxsize=16384)  # read for every evidence sentence of every claim's negation sites
def one_verb(text: str) -> str:
    """``text`` with the phrases that say "includes" ("comes with", "is supplied with") written as it, and a switch
    turned on or off written with "turn", and "can be used" as "is suitable", so the checks that compare the
    very words two sentences state the other way read them as one verb."""
    text = _SWITCH.sub(lambda m: _SWITCH_AS_TURN[m.group(1).lower()], _INCLUDES.sub("includes", text))
    return _FOR_USE.sub("suitable", _CAN_BE_USED.sub("is suitable", text)) if " use" in text else text


#: "can be used on a gas hob" says what "is suitable for use on a gas hob" says: both written "is suitable on a gas hob",
#: so the word after the verb is where it is used (a denial of either, "cannot", "can't", "can not", "is not
#: suitable", is left as written). Why: the stemmer keeps "used" apart from "use", a manual's "not suitable for use
#: on ..." is flipped by an answer's "can be used on ...", and "use" itself would stand where the place should.
_CAN_BE_USED = re.compile(r"\b(?:can|may)\s+(?:safely\s+)?be\s+used(?=\s+(?:on|in|with|for|during|while|at|under|near|"
                          r"outdoors|indoors|by)\b)", re.I)
_FOR_USE = re.compile(r"\bsuitable\s+for\s+use(?=\s+(?:on|in|with|for|during|while|at|under|near|outdoors|indoors|by)\b)",
                      re.I)


#: "switching it off" says what "turning it off" says: a setting's switch named by either verb, its particle within
#: three words. Why: a denied effect of turning a setting off ("Turning it off does not reduce the number of ads")
#: is said of its subject, the verb, and a claim that switches it off instead was read as another subject.
_SWITCH = re.compile(r"\b(switch|switches|switched|switching)\b(?=(?:\s+[\w'\u2019-]+){0,3}?\s+(?:on|off)\b)", re.I)
_SWITCH_AS_TURN = {"switch": "turn", "switches": "turns", "switched": "turned", "switching": "turning"}


__all__ += ["one_verb"]


#: What a product or service is certified, free of or safe for: a claim of one the context never makes is a
#: promise the source does not give ("certified organic", "gluten-free", "dishwasher-safe").
_CREDENTIAL = re.compile(
    r"\b(?:(?:certified\s+)?organic|vegan|vegetarian|halal|kosher|fair[\s-]?trade|non[\s-]?gmo|hypoallergenic|"
    r"(?:gluten|dairy|nut|sugar|lactose|bpa|cruelty|allergen|fragrance|alcohol|caffeine|egg|soy)[\s-]free|"
    r"water(?:proof|[\s-]resistant)|(?:dishwasher|microwave|oven|freezer)[\s-]safe|recyclable|biodegradable|"
    r"compostable|carbon[\s-]neutral|award[\s-]winning|(?:fully\s+)?(?:accredited|licensed|insured)|"
    r"(?:certified|approved)\s+by\s+[\w\s]{2,30}?(?=[,.;]|$))\b", re.I)


def credentials(text: str) -> list[tuple[str, int, int]]:
    """The credentials ``text`` gives ("certified organic", "gluten-free"), with their offsets."""
    return [(m.group(0), m.start(), m.end()) for m in _CREDENTIAL.finditer(text)]


def credential_key(phrase: str) -> str:
    """The word a credential is known by, however written: "gluten-free" and "gluten free" -> "glutenfree",
    "certified organic" -> "organic"."""
    key = re.sub(r"^(?:certified|fully)\s+", "", phrase.lower())
    return re.sub(r"[\s-]+", "", key)


__all__ += ["credentials", "credential_key"]


#: A verb of taking or using something together with something else: "take with food", "combine with other NSAIDs",
#: "drink grapefruit juice with it".
_CO_USE = re.compile(r"\b(?:take|takes|taken|taking|took|use|used|using|combine[ds]?|combining|mix|mixe[ds]|mixing|"
                     r"drink|drinks|drinking|drunk|eat|eats|eaten|eating|consume[ds]?|consuming)\b", re.I)
#: Where what a verb is taken with ends: clause punctuation, a word that starts another clause, or a phrase of what
#: for or when ("mixed with acidic cleaners for stubborn stains").
_CO_USE_END = re.compile(r"[,;:.!?()]|\b(?:but|because|as|since|while|unless|if|when|provided|except|and\s+(?:it|they|you)|so|"
                         r"for|during|before|after|to)\b", re.I)
_CO_USE_BAN = re.compile(r"\b(?:do\s+not|don['\u2019]t|never|must\s+not|mustn['\u2019]t|should\s+not|shouldn['\u2019]t|"
                         r"cannot|can['\u2019]t|can\s+not|may\s+not|not\s+be|avoid)\b", re.I)
_CO_USE_LEAVE = re.compile(r"\b(?:can|may|could|fine\s+to|ok\s+to|okay\s+to|safe\s+to|all\s+right\s+to|allowed\s+to|"
                           r"permitted\s+to|free\s+to)\b", re.I)
#: "with it", "with them", "with this medicine": the thing itself, so what it is taken with is the verb's object.
_WITH_ITSELF = re.compile(r"\s*with\s+(?:it|them|this|these|that)\b(?:\s+(?:medicine|medication|drug|product|tablets?|pills?))?\s*$", re.I)


def co_use(text: str) -> tuple[tuple[str, str], ...]:
    """(class, what it is taken with) for each verb of taking or using one thing with another that ``text`` bans
    or allows: "Do not take with other products containing ibuprofen" -> ("forbidden", "other products containing
    ibuprofen"); "it's fine to drink grapefruit juice with it" -> ("allowed", "grapefruit juice"). Why: a drug
    label's interaction ban is turned round by an answer that permits the same combination with another verb
    ("combine", "drink"), which the modal checks, matching verb to verb, cannot align. The class is read from the
    words before the verb in its clause (up to 40 characters); a verb in a condition is no rule and is skipped."""
    out = []
    for m in _CO_USE.finditer(text):
        lo = max([0] + [x.end() for x in re.finditer(r"[,;:.!?]", text[: m.start()])])
        before = text[max(lo, m.start() - 40): m.start()]
        if re.search(r"\b(?:if|unless|when|whether|provided)\b", before, re.I):
            continue
        end = _CO_USE_END.search(text, m.end())
        rest = text[m.end(): end.start() if end else len(text)]
        w = re.search(r"\bwith\b", rest, re.I)
        if w is None:
            continue
        obj = rest[: w.start()] if _WITH_ITSELF.fullmatch(rest[w.start():]) else rest[w.end():]
        if _CO_USE_BAN.search(before):
            cls = "forbidden"
        elif _CO_USE_LEAVE.search(before):
            cls = "allowed"
        else:
            continue
        if obj.strip():
            out.append((cls, obj.strip()))
    return tuple(out)


__all__ += ["co_use"]


#: A label that opens an entry of a record written as text: "Pick-up: Lyon Airport, 12 June, 09:30." (a colon and a
#: space: "09:30" is no label).
_ENTRY_LABEL = re.compile(r"(?:^|(?<=[.;|\n])\s*)([A-Z][\w'\u2019\-]*(?: [\w'\u2019\-]+){0,3}):\s+")


def labelled_entries(text: str) -> list[tuple[str, int, int]]:
    """(label, start, end of its value) for each "Label: value" entry of ``text``, the value running to the next
    label or the end of the text. Why: a record written as prose ("Pick-up: Lyon Airport, 12 June. Return: Lyon
    Part-Dieu station, 19 June.") says which value is which field's only by the label before it."""
    found = list(_ENTRY_LABEL.finditer(text))
    return [(m.group(1), m.end(), found[i + 1].start() if i + 1 < len(found) else len(text))
            for i, m in enumerate(found)]


__all__ += ["without_month_may"]


# -- a choice between options ---------------------------------------------------------------------------------
#: "may choose between an insured scheme and a custodial scheme", "can opt for either X or Y", "a choice of X or Y":
#: the options a rule leaves to the reader, up to the end of the clause.
_CHOICE = re.compile(r"\b(?:choose|chooses|choosing|opt|opts|pick|select)\s+(?:between|from|either|one\s+of)\s+|"
                     r"\b(?:opt|opts)\s+for\s+either\s+|\b(?:a\s+)?choice\s+(?:between|of)\s+(?:either\s+)?", re.I)
_OPTION_SPLIT = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", re.I)


def choice_options(text: str) -> tuple[str, ...]:
    """The options of a choice the text gives ("may choose between an insured scheme and a custodial scheme" ->
    ("an insured scheme", "a custodial scheme")); empty when it gives none or only one. Why: a claim that makes one
    of them a duty ("are required to use a custodial scheme") turns a choice into an obligation, and no modal word
    of the evidence bears on the option's own verb for the modal checks to compare."""
    m = _CHOICE.search(text)
    if m is None:
        return ()
    end = re.search(r"[.;:!?()]|,\s+(?:but|while|whereas|which|so)\b|\s+(?:but|because|if|unless|when)\b", text[m.end():])
    tail = text[m.end(): m.end() + end.start()] if end else text[m.end():]
    options = tuple(o.strip() for o in _OPTION_SPLIT.split(tail) if o.strip())
    return options if len(options) >= 2 else ()


__all__ += ["choice_options"]


#: A quarter or half of a year written as its label: "Q4", "H1".
_PERIOD_LABEL = re.compile(r"\b([QH])([1-4])\b")
_PERIOD_LABEL_WORDS = {"Q": ("first second third fourth".split(), "quarter"), "H": ("first second".split(), "half")}


def period_labels(text: str) -> list[tuple[int, int, str]]:
    """(start, end, the words it stands for) of each quarter or half label of ``text``: "Q4" -> "fourth quarter",
    "H1" -> "first half". A claim that writes the label says what a context's words say; a learned score reads
    the label as a word the context lacks."""
    out = []
    for m in _PERIOD_LABEL.finditer(text):
        ords, noun = _PERIOD_LABEL_WORDS[m.group(1)]
        n = int(m.group(2))
        if n <= len(ords):
            out.append((m.start(), m.end(), f"{ords[n - 1]} {noun}"))
    return out


__all__ += ["period_labels"]


#: A step's object: the noun phrase after its opening verb, to its first preposition, clause mark or "until"
#: ("toast the cumin and coriander seeds in a dry pan until fragrant": the cumin and coriander seeds).
_STEP_OBJECT = re.compile(r"\s*(?:[A-Za-z]+ly,?\s+|meanwhile,?\s+|first,?\s+|next,?\s+)?[A-Za-z]+\s+"
                          r"((?:the|a|an|your|its|their|his|her|all|any|each)\s+[^,;:.()]{2,60}?)"
                          r"(?=\s+(?:in|on|at|into|onto|with|for|until|till|over|under|from|to|by|before|after|"
                          r"while|when|then|so|as|through|using)\b|\s*[,;:.()]|\s*$)", re.I)
#: A later step whose object is a pronoun: "then grind them", "and then rinse it well".
_PRONOUN_OBJECT = re.compile(r"\s*(?:(?:and|then|finally|next)\s+)*[A-Za-z]+\s+(them|it)\b", re.I)


def step_with_object(earlier: str, later: str) -> str:
    """``later`` with an object pronoun read as ``earlier``'s object: "grind them" after "toast the cumin and
    coriander seeds in a dry pan" is "grind the cumin and coriander seeds". Why: two ordered steps that act on
    one thing share its words; with the pronoun unread those words sit in the earlier step alone, and a claim
    that swaps the two verbs ("grind the seeds, then toast the ground spices") keeps the earlier step's words
    and hides the swap."""
    pm = _PRONOUN_OBJECT.match(later)
    om = _STEP_OBJECT.match(earlier) if pm else None
    if pm is None or om is None:
        return later
    return later[: pm.start(1)] + om.group(1) + later[pm.end(1):]


__all__ += ["step_with_object"]


#: A step taken only if the one before it fails: "If that does not fix the connection, ...", "if the matter is not
#: resolved within 10 working days, ...", "if symptoms don't improve, ...", "if not, ...", "failing that, ...".
_FALLBACK = re.compile(
    r"(?:if\s+(?:[\w'\u2019\-]+\s+){1,5}?(?:(?:does|do|did|is|are|was|were|has|have|had)\s*(?:not|n['\u2019]t)|"
    r"won['\u2019]t|cannot|can['\u2019]t|(?:still\s+)?fails?)\b[^,;.:!?]{0,60}|if\s+not|failing\s+that)\s*,\s*", re.I)
#: Where a sentence turns to its fallback step: "...; if that doesn't resolve it, ...", "..., and if not, ...".
_FALLBACK_TURN = re.compile(r"[;,]\s*(?:and\s+|but\s+|otherwise\s+)?(?=(?:if|failing)\s)", re.I)


def fallback_opener(text: str) -> int | None:
    """Where the step begins in ``text`` when it opens by saying the step before failed ("If the matter is not
    resolved within 10 working days, submit a formal grievance"), else None. Why: such an opener orders its
    sentence's step after the one before it as surely as "Then ..." does."""
    m = _FALLBACK.match(text.lstrip())
    return m.end() + len(text) - len(text.lstrip()) if m else None


def fallback_split(text: str) -> tuple[str, str] | None:
    """(first step, fallback step) of a sentence that says to do one thing and the other only if it fails:
    "Restart the router; if that doesn't fix it, call the helpline". Why: the fallback is the later step, an
    order no "then" or "before" states."""
    for t in _FALLBACK_TURN.finditer(text):
        m = _FALLBACK.match(text, t.end())
        if m is not None:
            return text[:t.start()], text[m.end():]
    return None


__all__ += ["fallback_opener", "fallback_split"]


# -- a list's later items, and a passive said the active way ----------------------------------------------------
#: What ends a list: clause punctuation, or a clause word after a comma ("..., but covers ...").
_LIST_END = re.compile(r"[.;:!?()]|,\s*(?:but|while|whereas|which|who|so|as|because|though|although|if|unless|when)\b|"
                       r"\s+(?:but|because|if|unless|when|which|who)\b", re.I)
_LIST_ITEM = re.compile(r"\s*(?:,\s*(?:and\s+|or\s+|nor\s+)?|\s(?:and|or|nor)\s+)([A-Za-z][\w'\u2019-]*)", re.I)


def list_items_after(text: str, pos: int) -> list[int]:
    """The offsets of the later items of a list whose first item ends at ``pos`` (", water damage or normal wear"
    after "does not cover accidental damage"): each item's first word; empty unless an "and" / "or" / "nor" joins
    the last item and every item is short (four words or fewer, the last excepted). Why: a denial bears on each
    item of its list, and the checks that read the words right after a "not" see only the first."""
    end = _LIST_END.search(text, pos)
    stop = end.start() if end else len(text)
    starts: list[int] = []
    at, joined = pos, False
    while True:
        m = _LIST_ITEM.match(text, at, stop)
        if m is None:
            break
        starts.append(m.start(1))
        joined = joined or re.search(r"\b(?:and|or|nor)\b", m.group(0), re.I) is not None
        nxt = re.compile(r"(?:[\w'\u2019-]+\s+){0,3}?[\w'\u2019-]+(?=\s*,|\s+(?:and|or|nor)\s)").match(text, m.start(1), stop)
        if joined or nxt is None:
            break
        at = nxt.end()
    return starts if joined and len(starts) <= 6 else []


#: "<thing> is covered by <party>" at a clause's start; the party is up to five words to the clause's end.
_PASSIVE_BY = re.compile(r"(?:^|(?<=[,;:.!?\u2014\u2013])|(?<=\s[\u2014\u2013-]))(\s*)((?:[A-Za-z][\w'\u2019-]*\s+){0,4}?"
                         r"[A-Za-z][\w'\u2019-]*)\s+(?:is|are|was|were)\s+([a-z]+(?:ed|en))\s+by\s+"
                         r"((?:[\w'\u2019-]+\s+){0,4}?[\w'\u2019-]+)(?=\s*(?:[,;:.!?\u2014\u2013]|$))")


def active_voice(text: str) -> str:
    """``text`` with each affirmed passive clause "<thing> is <verb>ed by <party>" written as "<party> <verb>ed
    <thing>" ("water damage is covered by the warranty" -> "the warranty covered water damage"). Why: the checks that
    read what a "not" bears on compare a subject and the words after its verb ("the warranty does not cover water
    damage"); a claim that says the same act in the passive puts those words the other way round. A clause with a
    denying word is left as it is."""
    def active(m: re.Match[str]) -> str:
        if DENYING.search(m.group(0)) or m.group(2).split()[0].lower() in ("it", "this", "that", "there", "which", "who"):
            return m.group(0)
        return f"{m.group(1)}{m.group(4)} {m.group(3)} {m.group(2)}"
    return _PASSIVE_BY.sub(active, text) if " by " in text else text


__all__ += ["list_items_after", "active_voice"]


# -- an exclusion said of the rule before it ----------------------------------------------------------------------
#: "This does not apply where ...", "These payments are not made if ...": a sentence that takes cases out of the rule
#: the sentence before states, by a pronoun or a short noun phrase that points back to it.
_EXCLUSION_LEAD = re.compile(
    r"\s*(?:this|these|that|it|such|the\s+(?:above|scheme|guarantee|offer|payment|payments|compensation|rule|policy|"
    r"discount|refund|standard|benefit))(?:\s+(?:payment|payments|compensation|guarantee|offer|rule|discount|refund))?\s+"
    r"(?:(?:does|do|will)\s+not|doesn['\u2019]t|don['\u2019]t|won['\u2019]t)\s+apply\s+(?:where|if|when|to|in|for|during|on)\b",
    re.I)


def exclusion_lead(sentence: str) -> int | None:
    """Where the cases a sentence takes out of the rule before it begin ("This does not apply where | the
    interruption was caused by severe weather"), or None. Why: a claim that restates the rule for every case
    ("any interruption longer than 12 hours entitles you to £50") drops the exclusion, and the condition checks read
    only the rule's own sentence, where no condition word stands."""
    m = _EXCLUSION_LEAD.match(sentence)
    return m.end() if m else None


__all__ += ["exclusion_lead"]


# -- a rule said for every case, and an exception in the rule's own sentence ---------------------------------------
#: Words that say a rule holds whatever the case: "whatever the reason", "regardless of the cause", "in all cases".
#: Only words about cases or reasons: "any" and "all" name a rule's objects as often ("all rooms", "any item").
_EVERY_CASE = re.compile(
    r"\b(?:whatever\s+(?:the\s+)?(?:reason|cause|circumstances?)|for\s+(?:any|whatever)\s+reason|"
    r"(?:regardless|irrespective)\s+of\s+(?:the\s+)?(?:reason|cause|circumstances?)|no\s+matter\s+(?:why|what\s+the\s+"
    r"(?:reason|cause)|the\s+(?:reason|cause))|in\s+(?:all|every|any)\s+cases?|under\s+(?:all|any)\s+circumstances|"
    r"without\s+exception)\b", re.I)


def every_case(text: str) -> bool:
    """Does ``text`` say its rule holds in every case ("a full refund whatever the reason")? Why: such a claim
    drops an exception the evidence makes in the rule's own sentence ("..., except where the cancellation is
    caused by adverse weather"), which the condition checks do not read once the claim has a condition of its own."""
    return _EVERY_CASE.search(text) is not None


def without_every_case(text: str) -> str:
    """``text`` with its every-case words blanked, offsets kept: "whatever the cause" names no cause of its own."""
    return _EVERY_CASE.sub(lambda m: " " * len(m.group(0)), text)


#: An exception of cases within a rule's sentence: "except where ...", "save when ...", "other than in cases where".
_CASE_EXCEPTION = re.compile(r"\b(?:except|save|other\s+than|apart\s+from)\s+(?:in\s+cases?\s+(?:where|when)|where|when|if)\b",
                             re.I)


def case_exceptions(sentence: str) -> list[tuple[int, int, int]]:
    """(where the cue begins, where the excepted case begins, where it ends) for each exception of cases in
    ``sentence`` ("If we cancel, you get a refund, except where | the cancellation is caused by weather |, ...").
    Why: a claim that states the rule "whatever the reason" denies the exception; a noun exception ("every day
    except Monday") is another reading (its day is the claim's own)."""
    out = []
    for m in _CASE_EXCEPTION.finditer(sentence):
        end = re.search(r"[,;:.()]|\s[\u2013\u2014-]\s|$", sentence[m.end():])
        out.append((m.start(), m.end(), m.end() + (end.start() if end else 0)))
    return out


__all__ += ["every_case", "without_every_case", "case_exceptions"]


# -- the maker's own kind of a thing, and another maker's --------------------------------------------------------
#: Words that name the maker's own kind of a thing ("the original charger", "genuine filters") and another's ("third-
#: party chargers", "non-genuine filters"): one excludes the other, so a duty to use only the one denies a
#: permission for the other.
_OWN_MAKE = r"(?:original|supplied|genuine|official|manufacturer['\u2019]?s|own[- ]brand|oem)"
_OTHER_MAKE = r"(?:third[- ]party|non[- ]original|non[- ]genuine|non[- ]official|aftermarket|generic|unofficial|other|alternative)"
_NOT_HEAD = r"(?!(?:with|for|on|in|to|from|when|if|and|or|but|that|which|may|can|could|must|should|are|is)\b)"
_HEAD = r"(?P<%s>[a-z][\w-]*(?:\s+" + _NOT_HEAD + r"[a-z][\w-]*)?)"
_ONLY_OWN = re.compile(
    r"(?:\b(?:must|need\s+to|needs\s+to|have\s+to|has\s+to|(?:is|are)\s+required\s+to|should)\s+|(?:^|(?<=[.;:!]\s))\s*(?:please\s+)?)"
    r"(?:only\s+(?P<v1>[a-z]+)|(?P<v2>[a-z]+)\s+only)\s+(?:the\s+|a\s+|an\s+|your\s+|its\s+|their\s+)?" + _OWN_MAKE + r"\s+" + _HEAD % "np",
    re.I)
_OTHER_ALLOWED = re.compile(
    # "Third-party chargers may be used", "non-genuine filters can also be fitted", "other chargers are supported"
    r"\b" + _OTHER_MAKE + r"\s+" + _HEAD % "np" + r"\s+(?:(?:may|can|could)\s+(?:also\s+|still\s+)?be\s+(?P<v1>[a-z]+)|"
    r"(?:is|are)\s+(?:also\s+)?(?:fine|allowed|permitted|supported|acceptable|ok|okay)\b)"
    # "you can use a third-party charger", "owners may fit non-genuine parts"
    r"|\b(?:may|can|could|(?:is|are)\s+(?:free|allowed|permitted)\s+to)\s+(?:also\s+|still\s+)?(?P<v2>[a-z]+)\s+"
    r"(?:a\s+|an\s+|any\s+)?" + _OTHER_MAKE + r"\s+" + _HEAD % "np2", re.I)


def only_own_make(text: str) -> list[tuple[str, str]]:
    """(the verb, the thing's head noun) of each duty to use only the maker's own kind of a thing: "You must use
    only the original charger" -> (use, charger). Why: a context that lets another maker's kind be used ("Third-party
    chargers may be used provided ...") contradicts it, though its modal bears on another subject."""
    return [((m.group("v1") or m.group("v2")).lower(), m.group("np").split()[-1].lower()) for m in _ONLY_OWN.finditer(text)]


def other_make_allowed(text: str) -> list[tuple[str, str]]:
    """(the verb, or "" for "are fine", the thing's head noun) of each permission for another maker's kind of a
    thing ("Third-party chargers may be used" -> (used, chargers)): what a duty to use only the maker's own denies."""
    out = []
    for m in _OTHER_ALLOWED.finditer(text):
        np = m.group("np") or m.group("np2")
        out.append(((m.group("v1") or m.group("v2") or "").lower(), np.split()[-1].lower()))
    return out


__all__ += ["only_own_make", "other_make_allowed"]


# -- a party named by its role ------------------------------------------------------------------------------------
#: The parties a policy names by their role rather than by name ("the customer pays the postage").
_PARTY_ROLE = re.compile(r"\b(?:the|each|every|a|an)\s+(?:customer|buyer|purchaser|seller|tenant|landlord|owner|"
                         r"employer|employee|member|applicant|passenger|guest|client|patient|student|user|policyholder|"
                         r"hirer|borrower|lender|retailer|manufacturer|insurer|council|sender|recipient)s?\s+(?:\w+\s+)?$",
                         re.I)


def role_before(text: str, pos: int) -> bool:
    """Is the verb at ``pos`` said of a party named by its role ("the customer | pays the cost of postage"), at most
    one word between? Why: "who pays" is answered by a role as often as by a name, and a name finder sees no name."""
    return _PARTY_ROLE.search(text[max(0, pos - 40):pos]) is not None


__all__ += ["role_before"]


# -- a limit of one scope ---------------------------------------------------------------------------------------
#: "On weekdays they are valid only after 9:30am": a clause that opens with the days or times it is said of, then
#: limits what it says to a time ("only after", "only before", "only until", "only between", "only from").
_SCOPED_LIMIT = re.compile(
    r"(?:^|(?<=[;.]\s))\s*(?:on|at|during)\s+(weekdays|weekends|sundays|saturdays|public\s+holidays|bank\s+holidays|"
    r"weekday\s+\w+|weekend\s+\w+|sunday\s+\w+|saturday\s+\w+|school\s+days|term\s+days)\s*,?\s+"
    r"([^;.]{0,60}?\bonly\s+(?:after|before|until|from|between)\s+[^;.,]{1,30})", re.I)


def scoped_limits(sentence: str) -> list[tuple[str, str]]:
    """(the scope's words, the limited statement) for each clause of ``sentence`` that opens with a scope and limits
    its statement to a time ("On weekdays they are valid only after 9:30am" -> ("weekdays", "they are valid only after
    9:30am")). Why: a claim that says the thing holds on those days ("passes are accepted on weekdays and weekends")
    drops the limit, and aligns to the rule's general sentence, where no condition word stands."""
    if "only" not in sentence.lower():
        return []
    return [(m.group(1), m.group(2)) for m in _SCOPED_LIMIT.finditer(sentence)]


__all__ += ["scoped_limits"]


#: An allowance that only some place, time or case has: "Pets are allowed only on the outer deck", "may only be used
#: indoors", "can be parked only in bay 4".
_ONLY_ALLOWED = re.compile(r"\b(?:(?:allowed|permitted|may|can)\s+(?:be\s+\w+\s+)?only|only\s+(?:be\s+)?(?:allowed|permitted))\b"
                           r"(?=\s+(?:on|in|at|inside|outside|within|during|between|for|with|from|when|if|after|before|by|via)\b)", re.I)


def only_allowed(text: str) -> bool:
    """Does ``text`` allow something only in some place, time or case? Why: "Pets are allowed only on the outer deck"
    says pets must stay there; a claim that they "have to stay on the outer deck" says the same, not a duty
    where the context gives a permission."""
    return _ONLY_ALLOWED.search(text) is not None


__all__ += ["only_allowed"]


#: A source named as such: "the passage", "the discharge advice", "this leaflet".
_SOURCE_NOUN = (r"(?:passages?|documents?|texts?|context|sources?|articles?|advice|leaflets?|notices?|pages?|guides?|"
                r"handouts?|summary|excerpts?|information)")
#: What a source covers, said of the source: "it only describes the programmes, their temperatures ...", "The leaflet
#: covers showering, lifting and wound care" (topics, not what it states about them).
_COVERAGE = re.compile(r"\s*(?:(?:it|they)|(?:the|this|that|these|your)\s+(?:[a-z]+\s+)?" + _SOURCE_NOUN + r")\s+"
                       r"(?P<only>only\s+|just\s+|also\s+|mainly\s+|instead\s+)?(?:describes?|discuss(?:es)?|focus(?:es)?\s+on|"
                       r"talks?\s+about|is\s+about|are\s+about|explains?|outlines?|covers?)\b(?!\s+(?:that|how\s+much|how\s+many)\b)",
                       re.I)


def describes_coverage(text: str, subject: str | None = None) -> bool:
    """Does ``text`` say what a source covers ("it only describes the programmes and their temperatures")? Why: after
    an abstention an answer often says what the source is about instead; it names topics, not facts about them, and
    checked as a claim its loose topic words ("their temperatures") read as things the context never states. A
    leading "it" counts only when it refers to a source (``subject``)."""
    m = _COVERAGE.match(text)
    if m is None:
        return False
    if re.match(r"\s*(?:it|they)\b", text, re.I):
        sourced = subject is not None and re.search(r"\b" + _SOURCE_NOUN + r"\b", subject, re.I) is not None
        if re.search(r"\bcovers?\b", m.group(0), re.I):
            return sourced  # ("It only covers flights from Leeds": what a policy or a ticket covers is a fact)
        # (a pronoun's source: named, or told by "only", which sets what it says against what it does not say)
        return sourced or bool(m.group("only") and m.group("only").strip().lower() in ("only", "just"))
    return True


__all__ += ["describes_coverage"]


# -- a yes/no question a document answers "No" ---------------------------------------------------------------------
#: A yes/no question, as an FAQ asks it: "Q: Does the minimum speed guarantee apply over Wi-Fi?"
_POLAR_QUESTION = re.compile(r"^\s*(?:(?:Q|Question)\s*\d*\s*[:.)\-]\s*)?(?P<q>(?:does|do|is|are|can|will|should|must|"
                             r"has|have|may)\s[^?]{8,200})\?\s*$", re.I)
#: An answer that opens with a bare "No": "A: No.", "No, it only covers ...".
_NO_ANSWER = re.compile(r"^\s*(?:(?:A|Answer)\s*\d*\s*[:.)\-]\s*)?no\s*(?:[.,;!\u2014\u2013]|$)", re.I)


def polar_question(sentence: str) -> str | None:
    """The body of a yes/no question ``sentence`` ("Q: Does the guarantee apply over Wi-Fi?" -> "Does the guarantee
    apply over Wi-Fi"), or None. Why: an FAQ states its rule as a question and a bare "No" after it; a claim that
    restates the question as a statement says the opposite of the answer, with no "not" in the evidence to read."""
    if not sentence.rstrip().endswith("?"):
        return None
    m = _POLAR_QUESTION.match(sentence)
    return m.group("q") if m else None


def answers_no(sentence: str) -> bool:
    """Does ``sentence`` open with a bare "No" answer ("A: No.", "No, only ...")?"""
    return _NO_ANSWER.match(sentence) is not None


__all__ += ["polar_question", "answers_no"]


# -- a rule of a troubleshooting list: its case and what follows from it --------------------------------------------
#: "If the red light flashes, the water tank is empty" / "When the alarm sounds, leave by the nearest exit".
_IF_THEN = re.compile(r"^\s*(?:if|when|whenever)\s+([^,;:.]{3,120}?),\s+([^;:]{3,200}?)[.!]?\s*$", re.I)
#: "Red light flashing: the machine needs descaling", an item of a keyed list (a short case, a colon, its outcome).
_KEY_THEN = re.compile(r"^\s*(?:[-*\u2022]\s+)?((?:[A-Za-z][\w'\u2019\-]*\s+){0,5}[A-Za-z][\w'\u2019\-]*)\s*:\s+([^:]{3,200}?)[.!]?\s*$")


def rule_parts(sentence: str) -> tuple[str, str] | None:
    """(case, outcome) of a rule ``sentence`` states: "If X, Y" / "When X, Y", or a keyed item "X: Y"; None for
    any other sentence. Why: a troubleshooting list pairs each case with its own outcome, and an answer that keeps
    every case and every outcome but pairs one case with another's outcome ("red light: descale" where the
    context says the red light means an empty tank) has nothing new for a word or value check to find."""
    m = _IF_THEN.match(sentence) or _KEY_THEN.match(sentence)
    return (m.group(1), m.group(2)) if m else None


__all__ += ["rule_parts"]


#: An act said to go on or to end: "keeps running", "continues to work", "carries on charging" / "stops running",
#: "ceases to operate", "stopped working". The act is the verb after the cue.
_GOES_ON = re.compile(
    r"\b(?:(?P<on>keeps?|kept|keeping|continues?|continued|continuing|carr(?:y|ies|ied)\s+on)"
    r"|(?P<off>stops?|stopped|stopping|ceases?|ceased|ceasing))\s+(?:to\s+(?P<inf>[a-z]{3,})\b|(?P<ing>[a-z]{2,}ing)\b)",
    re.I)
_GOES_ON_DENIED = re.compile(r"(?:\b(?:not|never|no\s+longer)|n['\u2019]t)\s+(?:\w+\s+)?$", re.I)
_GOES_ON_CASE = re.compile(r"\b(?:if|unless|when|whenever|once|until|before|after)\b[^,;:]*$", re.I)


def _bare_verb(word: str) -> str:
    w = word.lower()
    if w.endswith("ing"):
        w = w[:-3]
        if len(w) > 2 and w[-1] == w[-2] and w[-1] not in "lsz":
            w = w[:-1]  # "running" -> "run"
    elif w.endswith("e") and len(w) > 3:
        w = w[:-1]  # "operate" -> "operat", as "operating" reads
    return w


@functools.lru_cache(maxsize=16384)
def goes_on(text: str) -> tuple[tuple[str, str, int], ...]:
    """("+" / "-", the act's bare verb, offset of the cue) for each act ``text`` says goes on ("keeps running") or
    ends ("stops running"). Why: "the heating keeps running from memory" / "the heating stops running" flips what
    happens with no "not" on either side, so the polarity checks read both as affirmative. A cue denied ("does not
    stop running") or inside a condition's own clause ("if the pump stops running, ...") states no such fact and is
    left out. Cached: a context sentence is read once however many claims ask."""
    out = []
    for m in _GOES_ON.finditer(text):
        before = text[:m.start()]
        if _GOES_ON_DENIED.search(before[-30:]) or _GOES_ON_CASE.search(before[-80:]):
            continue
        verb = m.group("inf") or m.group("ing")
        out.append(("+" if m.group("on") else "-", _bare_verb(verb), m.start()))
    return tuple(out)


__all__ += ["goes_on"]


#: A gap between two sides, whose size a "narrow" word states as well as a "small" one: "the narrowest winning
#: margin", "a wider lead", "the smallest majority".
_MARGIN_AFTER = re.compile(r"\s+(?:[a-z-]+\s+)?(?:margins?|leads?|gaps?|majorit(?:y|ies)|victor(?:y|ies)|wins?|defeats?)\b",
                           re.I)


def margin_opposed(a: str, a_after: str, b: str, b_after: str) -> bool:
    """Do ``a`` and ``b`` rank a margin the other way across the size and width scales ("the largest winning margin"
    / "the narrowest winning margin")? Why: a margin's "narrow" is its "small", though the scales keep "narrowest"
    apart from "largest" (a room can be both the largest and the narrowest). Read only where a margin noun follows
    each word within two words (``a_after`` / ``b_after``: the text right after it)."""
    ka, kb = _SCALE_OF.get(a.lower()), _SCALE_OF.get(b.lower())
    if not ka or not kb or {ka[0], kb[0]} != {"size", "width"} or ka[2] == kb[2]:
        return False
    if not (ka[1] == kb[1] or "v" in (ka[1], kb[1])):
        return False
    return _MARGIN_AFTER.match(a_after[:40]) is not None and _MARGIN_AFTER.match(b_after[:40]) is not None


__all__ += ["margin_opposed"]


#: A duty said by a verb with its object: "claims under £100 require manager approval", "each booking needs a deposit".
#: Not "needs to" (a modal already read), nor a denied one ("does not require", "won't need").
_REQUIRES_OBJECT = re.compile(
    r"(?<!\bnot\s)(?<!n['\u2019]t\s)\b(?:requires?|needs?)\s+(?!to\b|not\b|no\b|nothing\b)(?:an?\s+|the\s+|your\s+|their\s+|its\s+)?(?=[a-z])",
    re.I)


def requires_object(text: str) -> list[tuple[int, int]]:
    """(start, end) of each "requires <object>" / "needs <object>" of ``text``. Why: a duty is as often said with the
    verb as with "must" or "is required", and the modal readings see no modal in "claims under £100 require manager
    approval", so an answer that turns an option ("approval is optional for claims under £100") into a duty this way
    reads as having no modal at all."""
    return [(m.start(), m.end()) for m in _REQUIRES_OBJECT.finditer(text)]


__all__ += ["requires_object"]
