"""Words as the checks compare them: lower-cased, stop words out, crudely stemmed.

Why one place: evidence retrieval (BM25), the heuristic's coverage features, the fact checks' alignment
and the red team's mutations must agree on what counts as "the same word", or a claim aligned by one
is judged by another on different terms.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = ["STOPWORDS", "stem", "content_terms", "terms_with_offsets"]

#: Letters of any alphabet: "Théo", "Müller" and "São" are words, not "th", "ller" and "s" (their accents
#: folded by ``_plain``, so an answer's "Theo Muller" meets the context's "Théo Müller").
#: A prefix that makes a word another thing is part of it: "off-peak" is no "peak", "pre-tax" no "tax" (the hyphen
#: dropped by ``_term``, so "offpeak", "off peak" and "off-peak" are one word). Not "non-": "non-refundable" stays
#: "refundable" read with a denial, which the polarity checks compare.
_WORD = re.compile(r"(?:off|anti|pre|post)-(?=[^\W\d_])[^\W_]+|off\s+(?=peak|season)[a-z]+|[^\W_]+(?:[.,][0-9]+)*")
STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have having
    he her here hers herself him himself his how i if in into is it its itself just me more most my myself no
    nor not of off on once only or other our ours ourselves out over own same she should so some such than that
    the their theirs them themselves then there these they this those through to too under until up very was we
    were what when where which while who whom why will with would you your yours yourself yourselves
    s t don shouldn now d ll m o re ve y ain aren couldn didn doesn hadn hasn haven isn ma mightn mustn needn
    shan wasn weren wont wouldn may might must shall upon via per yes okay""".split()
)


#: Plurals and verb forms no suffix rule reaches ("two children" is the context's "a child"; "is taught by"
#: is "teaches"). Forms that are other words too ("left", "found", "saw", "rose", "fell", "felt") are not here.
_IRREGULAR = {"children": "child", "women": "woman", "men": "man", "people": "person", "feet": "foot",
              "teeth": "tooth", "mice": "mouse", "geese": "goose"} | {
    form: base for base, forms in (
        ("teach", "taught"), ("buy", "bought"), ("bring", "brought"), ("think", "thought"), ("catch", "caught"),
        ("sell", "sold"), ("tell", "told"), ("hold", "held"), ("lead", "led"), ("write", "wrote written"),
        ("give", "gave given"), ("take", "took taken"), ("make", "made"), ("build", "built"), ("run", "ran"),
        ("begin", "began begun"), ("choose", "chose chosen"), ("speak", "spoke spoken"), ("drive", "drove driven"),
        ("eat", "ate eaten"), ("grow", "grew grown"), ("know", "knew known"), ("go", "went gone"), ("come", "came"),
        ("keep", "kept"), ("meet", "met"), ("pay", "paid"), ("send", "sent"), ("spend", "spent"), ("stand", "stood"),
        ("understand", "understood"), ("lose", "lost"), ("hear", "heard"), ("show", "shown"), ("fly", "flew flown"),
        ("throw", "threw thrown"), ("draw", "drew drawn"), ("break", "broke broken"), ("rise", "risen"),
        ("hide", "hid hidden"), ("strike", "struck"), ("swim", "swam"), ("sing", "sang sung"), ("wear", "wore worn"),
        ("freeze", "froze frozen"), ("steal", "stole stolen"), ("forget", "forgot forgotten"), ("seek", "sought"),
        ("fight", "fought"), ("sleep", "slept"), ("feed", "fed"), ("lend", "lent"), ("deal", "dealt"), ("win", "won"),
        # (British spellings of the same noun: "the licence" is the "Apache License")
        ("license", "licence licences licenced licencing"), ("defense", "defence defences"),
        ("offense", "offence offences"))
    for form in forms.split()}


@lru_cache(maxsize=1 << 16)  # pure, and hot: every check stems the same evidence words many times
def stem(word: str) -> str:
    """A crude English lemmatiser: enough to match "restaurants"/"restaurant", "offered"/"offers",
    "metres"/"metre" (a final "e" is dropped after the suffix, so "based" and "base" meet at "bas").

    It never shortens a word below three letters, because a wrong merge hides a changed word from the
    coverage features.
    """
    if word in _IRREGULAR:
        base = _IRREGULAR[word]
        return base if len(base) < 4 else stem(base)
    if len(word) < 4 or word[0].isdigit():
        return word
    # ("ings" as "ing": "buildings" and "building" meet at "build", as "siblings" and "sibling" do)
    for suffix, repl in (("ies", "y"), ("ied", "y"), ("ings", ""), ("ing", ""), ("ed", ""), ("ly", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) + len(repl) >= 3:
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                break
            word = word[: len(word) - len(suffix)] + repl
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


@lru_cache(maxsize=1 << 14)
def _plain(word: str) -> str:
    """``word`` without its accents ("théo" -> "theo"); other letters kept ("µg" stays a word of its own)."""
    return "".join(ch for ch in unicodedata.normalize("NFKD", word) if not unicodedata.combining(ch))


def _term(word: str) -> str:
    if word[0].isdigit():
        return word.replace(",", "")
    if "-" in word or " " in word:
        word = re.sub(r"[\s-]+", "", word)  # ("off-peak", "off peak": "offpeak")
    return stem(word if word.isascii() else _plain(word))


#: "won't" is no "won" (a word of its own: "Verhaegen won the stage"); rewritten in place, offsets kept.
_WONT = re.compile(r"\bwon['\u2019]t\b")


def _lower(text: str) -> str:
    low = text.lower()
    return _WONT.sub("wont_", low) if "won" in low else low


def content_terms(text: str) -> list[str]:
    """Lower-cased, stop-word-free, crudely stemmed terms of ``text``, in order."""
    return [_term(w) for w in _WORD.findall(_lower(text)) if w not in STOPWORDS]


def terms_with_offsets(text: str) -> list[tuple[str, int]]:
    """Content terms of ``text`` with the character offset where each starts (for order checks)."""
    return [(_term(m.group(0)), m.start()) for m in _WORD.finditer(_lower(text)) if m.group(0) not in STOPWORDS]
