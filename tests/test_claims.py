"""Claim extraction: sentence splitting, markdown, citation markers, compound splitting, offsets."""

from __future__ import annotations

import gzip
import json
import random
import re
from pathlib import Path

import pytest

from guardrail.citations import parse_markers
from guardrail.claims import (
    ClaimExtractor,
    SentenceClaimExtractor,
    TextUnit,
    looks_factual,
    split_sentences,
    split_units,
    unchecked_spans,
)
from guardrail.types import Claim

# (text, expected units) for split_sentences; expected strings are exact slices, in order.
# SPLIT_CASES were used to choose the splitter and tune its repairs; HELDOUT_CASES were written
# afterwards and only measured (see the guardrail.claims docstring).
SPLIT_CASES = [
    # citation markers
    ("Paris is the capital of France [1]. Berlin is the capital of Germany [2].",
     ["Paris is the capital of France [1].", "Berlin is the capital of Germany [2]."]),
    ("Paris is the capital of France.[1] Berlin is the capital of Germany.[2][3]",
     ["Paris is the capital of France.[1]", "Berlin is the capital of Germany.[2][3]"]),
    ("Paris is the capital. [1] Berlin is big. [2, 3]",
     ["Paris is the capital. [1]", "Berlin is big. [2, 3]"]),
    ("The tower is 330 m tall [doc2]. It opened in 1889 [Source 1].",
     ["The tower is 330 m tall [doc2].", "It opened in 1889 [Source 1]."]),
    ("It rained 【1】. It snowed 【2】.", ["It rained 【1】.", "It snowed 【2】."]),
    ("It rained <Content1>. It snowed.", ["It rained <Content1>.", "It snowed."]),
    ("Paris is big (see [1]). Berlin is too.", ["Paris is big (see [1]).", "Berlin is too."]),
    # quotes and brackets after the period
    ("He said 'no.' Then he left.", ["He said 'no.'", "Then he left."]),
    ("He said \u201cno.\u201d Then he left.", ["He said \u201cno.\u201d", "Then he left."]),
    ('She asked, "Is it true?" He nodded.', ['She asked, "Is it true?"', "He nodded."]),
    ("The company (founded in 1998.) grew fast. It now has 3.5k staff.",
     ["The company (founded in 1998.) grew fast.", "It now has 3.5k staff."]),
    ("(This is in brackets.) This is not.", ["(This is in brackets.)", "This is not."]),
    # abbreviations
    ("Dr. Smith went to Washington on Jan. 5. He stayed.", ["Dr. Smith went to Washington on Jan. 5.", "He stayed."]),
    ("It costs approx. 5 dollars. Prices rose e.g. in the U.S. and the U.K. last year.",
     ["It costs approx. 5 dollars.", "Prices rose e.g. in the U.S. and the U.K. last year."]),
    ("Apple Inc. is based in Cupertino. Its CEO is Tim Cook.", ["Apple Inc. is based in Cupertino.", "Its CEO is Tim Cook."]),
    ("It happened in the U.S. The next day it rained.", ["It happened in the U.S.", "The next day it rained."]),
    ("Mr. and Mrs. Smith arrived at 5 p.m. on Friday. They left.",
     ["Mr. and Mrs. Smith arrived at 5 p.m. on Friday.", "They left."]),
    ("Their ratings are: food 4.5, service 3.9, etc. Overall good.",
     ["Their ratings are: food 4.5, service 3.9, etc.", "Overall good."]),
    ("The value is 1.5 vs. 2.5 in No. 3 case. OK then.", ["The value is 1.5 vs. 2.5 in No. 3 case.", "OK then."]),
    ("He lives at 5 W. Haley St. in Santa Barbara. It is nice.",
     ["He lives at 5 W. Haley St. in Santa Barbara.", "It is nice."]),
    ("It was made by Acme Corp. Another firm, Beta Ltd. makes parts.",
     ["It was made by Acme Corp.", "Another firm, Beta Ltd. makes parts."]),
    ("Fig. 3 shows it. See pp. 4-5.", ["Fig. 3 shows it.", "See pp. 4-5."]),
    ("The U.S. economy grew. The E.U. economy shrank.", ["The U.S. economy grew.", "The E.U. economy shrank."]),
    ("He was born in St. Louis, Mo. He moved later.", ["He was born in St. Louis, Mo.", "He moved later."]),
    ("Prof. Jones and Dr. Lee met Gen. Patton. They talked.", ["Prof. Jones and Dr. Lee met Gen. Patton.", "They talked."]),
    ("The report (p. 5) says so. It's clear.", ["The report (p. 5) says so.", "It's clear."]),
    ("She earned a Ph.D. in physics. Then she taught.", ["She earned a Ph.D. in physics.", "Then she taught."]),
    ("The meeting is at 9 a.m. tomorrow. Bring notes.", ["The meeting is at 9 a.m. tomorrow.", "Bring notes."]),
    ("Sales were up i.e. by a lot. Costs were flat.", ["Sales were up i.e. by a lot.", "Costs were flat."]),
    # decimals, versions, numbers, times
    ("Version v2.0.1 was released. Python 3.11 is faster.", ["Version v2.0.1 was released.", "Python 3.11 is faster."]),
    ("Pi is about 3.14. E is about 2.718.", ["Pi is about 3.14.", "E is about 2.718."]),
    ("The rate rose 3.5%. In 2020, it fell.", ["The rate rose 3.5%.", "In 2020, it fell."]),
    ("Open 11:30 AM to 7:00 PM. Closed on Sundays.", ["Open 11:30 AM to 7:00 PM.", "Closed on Sundays."]),
    ("The film grossed $1.2 billion. It was directed by J. Smith in 2003.",
     ["The film grossed $1.2 billion.", "It was directed by J. Smith in 2003."]),
    ("The ratio is 1:2. Section 3.2 covers it.", ["The ratio is 1:2.", "Section 3.2 covers it."]),
    ("The cafe has a rating of 4.0 stars. It opened in 2010.", ["The cafe has a rating of 4.0 stars.", "It opened in 2010."]),
    ("Scores: 4.5/5. Good service.", ["Scores: 4.5/5.", "Good service."]),
    ("The score was 7-3. The team won!!! Fans cheered?!", ["The score was 7-3.", "The team won!!!", "Fans cheered?!"]),
    ("He ran 10.5 km in 52.3 min. A record.", ["He ran 10.5 km in 52.3 min.", "A record."]),
    # initials
    ("J. R. R. Tolkien wrote it. George W. Bush was president.", ["J. R. R. Tolkien wrote it.", "George W. Bush was president."]),
    ("The novel by F. Scott Fitzgerald sold well. It is famous.", ["The novel by F. Scott Fitzgerald sold well.", "It is famous."]),
    ("The case was argued by A. B. Jones. He won.", ["The case was argued by A. B. Jones.", "He won."]),
    # ellipses
    ("He waited... and waited. Then it came.", ["He waited... and waited.", "Then it came."]),
    ("The answer is no... Actually, it is yes.", ["The answer is no...", "Actually, it is yes."]),
    ("Prices range from 10 to 20 USD\u2026 It varies.", ["Prices range from 10 to 20 USD\u2026", "It varies."]),
    # URLs, emails, code-ish tokens
    ("See https://example.com/a.b?c=d for details. Mail john.doe@example.org for info. Done.",
     ["See https://example.com/a.b?c=d for details.", "Mail john.doe@example.org for info.", "Done."]),
    ("Visit www.example.com. It has docs.", ["Visit www.example.com.", "It has docs."]),
    ("Use Node.js and ASP.NET in production. They are frameworks.", ["Use Node.js and ASP.NET in production.", "They are frameworks."]),
    ("The file config.yaml is read first. Then main.py runs.", ["The file config.yaml is read first.", "Then main.py runs."]),
    # markdown: emphasis
    ("**Paris is the capital.** It is large.", ["**Paris is the capital.**", "It is large."]),
    ("The answer is *yes*. It is *definitely* so.", ["The answer is *yes*.", "It is *definitely* so."]),
    ("_Note:_ the store is closed. It reopens Monday.", ["_Note:_ the store is closed.", "It reopens Monday."]),
    # markdown: headings
    ("# Title\nParis is big.", ["Title", "Paris is big."]),
    ("## Summary ##\n\nThe cafe is open. It is cheap.", ["Summary", "The cafe is open.", "It is cheap."]),
    ("Results\n=======\nWe won.", ["Results", "We won."]),
    ("**Summary:**\nThe cafe is open daily.", ["**Summary:**", "The cafe is open daily."]),
    # markdown: lists
    ("- Paris is the capital\n- Berlin is big\n- Rome is old", ["Paris is the capital", "Berlin is big", "Rome is old"]),
    ("* First item. Second sentence.\n* Third item", ["First item.", "Second sentence.", "Third item"]),
    ("1. Cook potatoes.\n2. Fry onions\n3. Serve", ["Cook potatoes.", "Fry onions", "Serve"]),
    ("Steps:\n1) Mix\n2) Bake", ["Steps:", "Mix", "Bake"]),
    ("The hotel offers:\n- Wi-Fi\n- A pool\n\nIt is cheap.", ["The hotel offers:", "Wi-Fi", "A pool", "It is cheap."]),
    ("- [x] Done task\n- [ ] Open task", ["Done task", "Open task"]),
    ("\u2022 Bullet one\n\u2022 Bullet two", ["Bullet one", "Bullet two"]),
    ("- Item one that wraps\n  onto the next line.\n- Item two", ["Item one that wraps\n  onto the next line.", "Item two"]),
    ("a. First option\nb. Second option", ["First option", "Second option"]),
    ("* **Name:** Magic Pita\n* **Rating:** 4.0 stars", ["**Name:** Magic Pita", "**Rating:** 4.0 stars"]),
    ("1. The cafe opens at 9 a.m.\n2. It closes at 5 p.m.", ["The cafe opens at 9 a.m.", "It closes at 5 p.m."]),
    # markdown: tables
    ("| Name | Price |\n|---|---:|\n| Pizza | 9.50 |\n| Pasta | 8.00 |", ["Name | Price", "Pizza | 9.50", "Pasta | 8.00"]),
    ("Name | Price\n--- | ---\nPizza | 9.50", ["Name | Price", "Pizza | 9.50"]),
    # markdown: code fences
    ("Run this:\n```python\nx = 1. \ny = 2\n```\nIt prints. Done.", ["Run this:", "```python\nx = 1. \ny = 2\n```", "It prints.", "Done."]),
    ("~~~\ncode. here.\n~~~", ["~~~\ncode. here.\n~~~"]),
    ("Intro.\n```\nunclosed. code", ["Intro.", "```\nunclosed. code"]),
    # markdown: blockquote and rules
    ("> Quoted text here. Another one.\n\nNormal.", ["Quoted text here.", "Another one.", "Normal."]),
    ("Part one.\n\n---\n\nPart two.", ["Part one.", "Part two."]),
    # newlines
    ("Name: Magic Pita\nAddress: 5 W Haley St\nRating: 4.0", ["Name: Magic Pita", "Address: 5 W Haley St", "Rating: 4.0"]),
    ("The cafe is located in the\ncity centre and is popular.", ["The cafe is located in the\ncity centre and is popular."]),
    ("First paragraph ends here.\n\nSecond paragraph starts here.", ["First paragraph ends here.", "Second paragraph starts here."]),
    ("Line one without period\nLine Two Capitalised", ["Line one without period", "Line Two Capitalised"]),
    ("Windows\r\nline one.\r\nLine two.", ["Windows\r\nline one.", "Line two."]),
    # filler, questions
    ("Sure! Here is the answer. Paris is big.", ["Sure!", "Here is the answer.", "Paris is big."]),
    ("Is it big? Yes, it is.", ["Is it big?", "Yes, it is."]),
    # misc
    ("", []),
    ("   \n\n  ", []),
    ("No terminal punctuation", ["No terminal punctuation"]),
    ("Trailing space.   ", ["Trailing space."]),
    ("Use the Worksheets.Add method. It adds a sheet.", ["Use the Worksheets.Add method.", "It adds a sheet."]),
    ("It is located at 418 State St, Santa Barbara, CA. Open daily, it serves food.",
     ["It is located at 418 State St, Santa Barbara, CA.", "Open daily, it serves food."]),
    ("The show airs on E! next week. It is new.", ["The show airs on E! next week.", "It is new."]),
    ("It is hit or miss. Overall, it is good.", ["It is hit or miss.", "Overall, it is good."]),
    ("What a day! It was great.", ["What a day!", "It was great."]),
    ("The numbers are 1, 2, and 3. They add to 6.", ["The numbers are 1, 2, and 3.", "They add to 6."]),
    ("He works at the U.N. in N.Y. and likes it. Really.", ["He works at the U.N. in N.Y. and likes it.", "Really."]),
    ("Temperatures hit 40\u00b0C. Rain followed.", ["Temperatures hit 40\u00b0C.", "Rain followed."]),
    ("The iPhone 15 launched. iOS 17 shipped with it.", ["The iPhone 15 launched.", "iOS 17 shipped with it."]),
]

HELDOUT_CASES = [
    ("The study by Smith et al. was published in 2019. It found no effect.", ["The study by Smith et al. was published in 2019.", "It found no effect."]),
    ("Revenue was $4.5M in Q3. Margins improved to 12.5%.", ["Revenue was $4.5M in Q3.", "Margins improved to 12.5%."]),
    ("The drug (approved in 2021) costs ca. 300 EUR. Insurers cover it.", ["The drug (approved in 2021) costs ca. 300 EUR.", "Insurers cover it."]),
    ("Gov. Newsom signed the bill. It takes effect Jan. 1.", ["Gov. Newsom signed the bill.", "It takes effect Jan. 1."]),
    ("The package requires numpy>=1.24. Install it with pip.", ["The package requires numpy>=1.24.", "Install it with pip."]),
    ("Lt. Col. Harris led the unit. Sgt. Diaz followed.", ["Lt. Col. Harris led the unit.", "Sgt. Diaz followed."]),
    ("It is open Mon.-Fri. from 9 to 5. Weekends are closed.", ["It is open Mon.-Fri. from 9 to 5.", "Weekends are closed."]),
    ("The answer is 42! Everyone agreed.", ["The answer is 42!", "Everyone agreed."]),
    ('He called it "the best pizza in town." Others disagreed.', ['He called it "the best pizza in town."', "Others disagreed."]),
    ("Temperatures reached 35 \u00b0F. Snow fell overnight.", ["Temperatures reached 35 \u00b0F.", "Snow fell overnight."]),
    ("See section 4.2.1 for details. Appendix B lists sources.", ["See section 4.2.1 for details.", "Appendix B lists sources."]),
    ("The firm, XYZ Ltd., was fined. Its CEO resigned.", ["The firm, XYZ Ltd., was fined.", "Its CEO resigned."]),
    ("He holds an M.Sc. from MIT. He works at Google.", ["He holds an M.Sc. from MIT.", "He works at Google."]),
    ("Email support@acme.io or call 555-0100. We reply fast.", ["Email support@acme.io or call 555-0100.", "We reply fast."]),
    ("Download it from https://acme.io/v1.2/get. Then run it.", ["Download it from https://acme.io/v1.2/get.", "Then run it."]),
    ("The store is in Austin, TX. It opened in May.", ["The store is in Austin, TX.", "It opened in May."]),
    ("Prices start at 9.99. Delivery is free [2].", ["Prices start at 9.99.", "Delivery is free [2]."]),
    ("Paris has 2.1M people.[1][2] Lyon has fewer.[3]", ["Paris has 2.1M people.[1][2]", "Lyon has fewer.[3]"]),
    ("It rained (heavily). The match was delayed.", ["It rained (heavily).", "The match was delayed."]),
    ("- Open: 9 a.m.\n- Close: 5 p.m.\n- Price: $10", ["Open: 9 a.m.", "Close: 5 p.m.", "Price: $10"]),
    ("### Key facts\n\n1. Founded in 1998.\n2. Based in Ohio.", ["Key facts", "Founded in 1998.", "Based in Ohio."]),
    ("**Address:** 12 Main St.\n**Phone:** 555-0100", ["**Address:** 12 Main St.", "**Phone:** 555-0100"]),
    ("| City | Pop. |\n| --- | --- |\n| Rome | 2.8M |", ["City | Pop.", "Rome | 2.8M"]),
    ("Here is the code:\n\n```js\nconst a = 1; // Done.\n```\n\nThat is all.", ["Here is the code:", "```js\nconst a = 1; // Done.\n```", "That is all."]),
    ("> Note: prices may change.\n\nThey rose in 2023.", ["Note: prices may change.", "They rose in 2023."]),
    ("The U.K. left the EU in 2020. Trade fell.", ["The U.K. left the EU in 2020.", "Trade fell."]),
    ("The vote was 5\u20134. Justice Kagan dissented.", ["The vote was 5\u20134.", "Justice Kagan dissented."]),
    ("Is the cafe open late? It closes at 10 p.m. on weekdays.", ["Is the cafe open late?", "It closes at 10 p.m. on weekdays."]),
    ("Chapter 3, pp. 45-67, covers it. Read it first.", ["Chapter 3, pp. 45-67, covers it.", "Read it first."]),
    ("The ship sank in 1912... Nobody expected it.", ["The ship sank in 1912...", "Nobody expected it."]),
    ("The team (led by Dr. A. Rao, Ph.D.) won. They celebrated.", ["The team (led by Dr. A. Rao, Ph.D.) won.", "They celebrated."]),
    ("She moved to Washington, D.C. in 2010. She still lives there.", ["She moved to Washington, D.C. in 2010.", "She still lives there."]),
    ("Item 1: Soup.\nItem 2: Salad.", ["Item 1: Soup.", "Item 2: Salad."]),
    ("It is rated 4.5/5 \u2b50. Reviews are positive.", ["It is rated 4.5/5 \u2b50.", "Reviews are positive."]),
    ("The brothers (Wilbur and Orville) flew in 1903. Their plane was the Flyer.", ["The brothers (Wilbur and Orville) flew in 1903.", "Their plane was the Flyer."]),
    ("* Pros: cheap, fast\n* Cons: noisy", ["Pros: cheap, fast", "Cons: noisy"]),
    ("The file is named report_v2.final.pdf. Open it.", ["The file is named report_v2.final.pdf.", "Open it."]),
    ("Sure, here you go:\n\nThe capital is Paris.", ["Sure, here you go:", "The capital is Paris."]),
    ("No.\n\nThe museum is closed on Mondays.", ["No.", "The museum is closed on Mondays."]),
    ("Its motto is \u201cE pluribus unum.\u201d The eagle is its symbol.", ["Its motto is \u201cE pluribus unum.\u201d", "The eagle is its symbol."]),
]


def _spans_of(text: str, expected: list[str]) -> list[tuple[int, int]]:
    out, pos = [], 0
    for piece in expected:
        i = text.index(piece, pos)
        out.append((i, i + len(piece)))
        pos = i + len(piece)
    return out


@pytest.mark.parametrize(("text", "expected"), SPLIT_CASES + HELDOUT_CASES)
def test_split_sentences(text: str, expected: list[str]) -> None:
    spans = split_sentences(text)
    assert [text[a:b] for a, b in spans] == expected
    assert spans == _spans_of(text, expected)


# --------------------------------------------------------------------------- split_units kinds

MARKDOWN = """# Guide

Intro sentence here. Second one.

- item one
- item two

| A | B |
|---|---|
| 1 | 2 |

```python
print("x. y.")
```
"""


def test_split_units_kinds() -> None:
    units = split_units(MARKDOWN)
    got = [(MARKDOWN[u.start : u.end], u.kind) for u in units]
    assert got == [
        ("Guide", "heading"),
        ("Intro sentence here.", "sentence"),
        ("Second one.", "sentence"),
        ("item one", "list_item"),
        ("item two", "list_item"),
        ("A | B", "table_header"),
        ("1 | 2", "table_row"),
        ('```python\nprint("x. y.")\n```', "code"),
    ]
    assert all(isinstance(u, TextUnit) for u in units)
    assert split_sentences(MARKDOWN) == [(u.start, u.end) for u in units]


def test_list_item_continuation_and_new_paragraph() -> None:
    text = "1. Cook potatoes.\n   Drain them well.\nThen serve."
    got = [(text[u.start : u.end], u.kind) for u in split_units(text)]
    assert got == [("Cook potatoes.", "list_item"), ("Drain them well.", "list_item"), ("Then serve.", "sentence")]


def test_streaming_prefix_is_stable() -> None:
    """A streamed answer is re-split as it grows: finished units must not move when text is appended."""
    text = "Paris is the capital of France [1]. It has 2.1 million people. The Louvre is there."
    final = split_sentences(text)
    prefix = text[: final[1][1]]  # cut right after the second sentence
    assert split_sentences(prefix)[:2] == final[:2]


# --------------------------------------------------------------------------- generated inputs

_WORDS = (
    "Paris is the capital of France and has museums parks cafes . The U.S. Dr. Smith e.g. i.e. etc. "
    "3.14 v2.0.1 10.5% $1.2 9 a.m. J. R. Tolkien https://example.com/a.b john.doe@example.org "
    "Worksheets.Add ASP.NET CA. approx. No. 5 it was were opened closed \u00e9t\u00e9 \u65e5\u672c"
).split()
_MARKERS = ["[1]", "[2, 3]", "[doc2]", "[Source 1]", "<Content1>", "\u30101\u3011", "(Passage 2)", "[1-3]"]
_ENDS = [".", ".", ".", "!", "?", "...", "\u2026", "", ".\"", ".)", ".**"]


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(1, 12))]
    words[0] = words[0][:1].upper() + words[0][1:]
    if rng.random() < 0.2:
        words.insert(rng.randrange(len(words) + 1), rng.choice(_MARKERS))
    if rng.random() < 0.15:
        i = rng.randrange(len(words))
        words[i] = f"**{words[i]}**"
    if rng.random() < 0.1:
        words.insert(0, '"')
    s = " ".join(words) + rng.choice(_ENDS)
    if rng.random() < 0.25:
        s += rng.choice(["", " "]) + rng.choice(_MARKERS)
    return s


def _answer(rng: random.Random) -> str:
    blocks = []
    for _ in range(rng.randint(1, 6)):
        kind = rng.random()
        if kind < 0.45:
            sep = rng.choice([" ", " ", "  ", "\n", "\u00a0"])
            blocks.append(sep.join(_sentence(rng) for _ in range(rng.randint(1, 4))))
        elif kind < 0.65:
            marker = rng.choice(["- ", "* ", "1. ", "2) ", "\u2022 ", "  - "])
            blocks.append("\n".join(marker + _sentence(rng) for _ in range(rng.randint(1, 4))))
        elif kind < 0.72:
            blocks.append(rng.choice(["# ", "## ", "### "]) + _sentence(rng))
        elif kind < 0.79:
            blocks.append("| " + _sentence(rng) + " | 3.5 |\n|---|---|\n| " + _sentence(rng) + " | x |")
        elif kind < 0.85:
            blocks.append("```\n" + _sentence(rng) + "\n" + _sentence(rng) + ("\n```" if rng.random() < 0.8 else ""))
        elif kind < 0.9:
            blocks.append("> " + _sentence(rng))
        elif kind < 0.94:
            blocks.append(rng.choice(["---", "***", "Sure!", "I hope this helps!", "Is that right?"]))
        else:
            blocks.append(" ".join(rng.choice(_MARKERS) for _ in range(rng.randint(1, 3))))
    text = rng.choice(["\n\n", "\n", "\n\n\n"]).join(blocks)
    if rng.random() < 0.1:
        text = text.replace("\n", "\r\n")
    return rng.choice(["", " ", "\n"]) + text + rng.choice(["", " ", "\n"])


GENERATED = [_answer(random.Random(seed)) for seed in range(600)]


def _check_spans(text: str, spans: list[tuple[int, int]]) -> None:
    prev = 0
    for a, b in spans:
        assert prev <= a < b <= len(text), (text, spans)
        assert not text[a].isspace() and not text[b - 1].isspace(), (text, text[a:b])
        prev = b


@pytest.mark.parametrize("seed", range(0, 600, 100))
def test_generated_split_invariants(seed: int) -> None:
    for text in GENERATED[seed : seed + 100]:
        spans = split_sentences(text)
        _check_spans(text, spans)
        covered = bytearray(len(text))
        for a, b in spans:
            covered[a:b] = b"\x01" * (b - a)
        lost = [i for i, ch in enumerate(text) if ch.isalpha() and not covered[i]]
        assert not lost, (text, [text[i] for i in lost])  # no word is ever dropped by the splitter


def _check_claims(answer: str, claims: list[Claim]) -> None:
    assert [c.id for c in claims] == [f"c{i}" for i in range(1, len(claims) + 1)]
    raw_markers = {m.raw for m in parse_markers(answer)}
    prev = 0
    for c in claims:
        assert answer[c.start : c.end] == c.text
        assert prev <= c.start < c.end, (answer, c)
        assert c.text == c.text.strip()
        edge = parse_markers(c.text)
        if edge:
            assert edge[0].start > 0 and edge[-1].end < len(c.text.rstrip(".!?")), (answer, c)
        assert set(c.citations) <= raw_markers
        assert c.kind in ("sentence", "clause", "list_item")
        prev = c.end


@pytest.mark.parametrize("seed", range(0, 600, 100))
def test_generated_claim_invariants(seed: int) -> None:
    for split_compound in (True, False):
        extractor = SentenceClaimExtractor(split_compound=split_compound)
        for text in GENERATED[seed : seed + 100]:
            _check_claims(text, extractor.extract(text))


def _ragtruth() -> list[str]:
    path = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "ragtruth" / "ragtruth_train.jsonl.gz"
    if not path.exists():
        pytest.skip(f"RAGTruth not found at {path}")
    with gzip.open(path, "rt") as fh:
        rows = [json.loads(line) for _, line in zip(range(400), fh)]
    return [r["response"] for r in rows]


@pytest.mark.data
def test_ragtruth_responses_keep_offsets() -> None:
    extractor = SentenceClaimExtractor()
    for text in _ragtruth():
        _check_spans(text, split_sentences(text))
        _check_claims(text, extractor.extract(text))


# --------------------------------------------------------------------------- claims


def texts(answer: str, **kw: object) -> list[str]:
    return [c.text for c in SentenceClaimExtractor(**kw).extract(answer)]  # type: ignore[arg-type]


def test_protocol() -> None:
    ex = SentenceClaimExtractor()
    assert isinstance(ex, ClaimExtractor)
    assert ex.name == "sentence"


def test_markers_are_outside_claims_and_attached() -> None:
    claims = SentenceClaimExtractor().extract("Paris is the capital [1]. It has 2.1 million people.[2][3]")
    assert [(c.text, c.citations) for c in claims] == [
        ("Paris is the capital", ["[1]"]),
        ("It has 2.1 million people.", ["[2]", "[3]"]),
    ]


@pytest.mark.parametrize(
    ("answer", "text", "citations"),
    [
        ("Paris is the capital (Passage 1).", "Paris is the capital", ["(Passage 1)"]),
        ("Paris is the capital \u30101\u3011.", "Paris is the capital", ["\u30101\u3011"]),
        ("Paris is the capital <Content2>.", "Paris is the capital", ["<Content2>"]),
        ("Paris is the capital. [Source 1]", "Paris is the capital.", ["[Source 1]"]),
        ("[1] Paris is the capital of France.", "Paris is the capital of France.", ["[1]"]),
        ("Paris [1] is the capital of France [2].", "Paris [1] is the capital of France", ["[1]", "[2]"]),
        ("Paris is the capital of France.\n\n[1][2]", "Paris is the capital of France.", ["[1]", "[2]"]),
        ("See [the guide](http://x.org/1) for the capital.", "See [the guide](http://x.org/1) for the capital.", []),
    ],
)
def test_marker_positions(answer: str, text: str, citations: list[str]) -> None:
    (claim,) = SentenceClaimExtractor().extract(answer)
    assert claim.text == text
    assert claim.citations == citations
    assert answer[claim.start : claim.end] == text


def test_markers_attach_to_the_claim_they_follow() -> None:
    answer = "Paris is big [1]. Berlin is the capital of Germany. Rome is very old [2][3]."
    claims = SentenceClaimExtractor().extract(answer)
    assert [c.citations for c in claims] == [["[1]"], [], ["[2]", "[3]"]]


@pytest.mark.parametrize(
    "answer",
    [
        "# Heading only",
        "```\nx = 1. It is code.\n```",
        "Sure!",
        "Certainly. I hope this helps!",
        "Is Paris the capital of France?",
        "Based on the provided passages, here is how to grill tomatoes:",
        "Let me know if you need anything else.",
        "| Name | Price |\n|---|---|",
        "[1][2]",
    ],
)
def test_non_claims_are_skipped(answer: str) -> None:
    assert SentenceClaimExtractor().extract(answer) == []


def test_mixed_answer() -> None:
    answer = (
        "Sure! Here is what the passages say:\n\n"
        "## Facts\n\n"
        "The Eiffel Tower is 330 metres tall [1]. Is it the tallest? It was the tallest until 1930.\n\n"
        "- Opened in 1889 for the World's Fair\n"
        "- Designed by the firm of Gustave Eiffel\n\n"
        "| Year | Visitors |\n|---|---|\n| 2019 | 6.2 million |\n\n"
        "I hope this helps!\n\n"
        "Sources:\n[1] Wikipedia, Eiffel Tower\n[2] Britannica"
    )
    claims = SentenceClaimExtractor().extract(answer)
    assert [(c.text, c.kind, c.citations) for c in claims] == [
        ("The Eiffel Tower is 330 metres tall", "sentence", ["[1]"]),
        ("It was the tallest until 1930.", "sentence", []),
        ("Opened in 1889 for the World's Fair", "list_item", []),
        ("Designed by the firm of Gustave Eiffel", "list_item", []),
        ("2019 | 6.2 million", "list_item", []),
    ]


def test_table_rows_are_claims_kind_list_item() -> None:
    (c,) = SentenceClaimExtractor().extract("| City | Pop |\n|---|---|\n| Paris | 2.1 million |")
    assert (c.text, c.kind) == ("Paris | 2.1 million", "list_item")


@pytest.mark.parametrize(
    ("sentence", "clauses"),
    [
        ("The cafe opens at 9 AM, and it closes at 5 PM.", ["The cafe opens at 9 AM", "it closes at 5 PM."]),
        ("Paris is the capital of France; Berlin is the capital of Germany.",
         ["Paris is the capital of France", "Berlin is the capital of Germany."]),
        ("Prices rose sharply in 2020, but they fell again in 2021.", ["Prices rose sharply in 2020", "they fell again in 2021."]),
        ("Sales grew by 5 percent, while costs fell by 3 percent.", ["Sales grew by 5 percent", "costs fell by 3 percent."]),
        ("He likes Paris a lot, and Berlin is his second home.", ["He likes Paris a lot", "Berlin is his second home."]),
        ("The museum was closed, and the staff were on strike [2].", ["The museum was closed", "the staff were on strike"]),
    ],
)
def test_compound_sentences_split(sentence: str, clauses: list[str]) -> None:
    claims = SentenceClaimExtractor().extract(sentence)
    assert [c.text for c in claims] == clauses
    assert all(c.kind == "clause" for c in claims)
    assert texts(sentence, split_compound=False) == [sentence.replace(" [2].", "")]


@pytest.mark.parametrize(
    "sentence",
    [
        "The menu includes pizza, pasta, and fresh salads.",
        "She was born in Paris, and raised in Lyon by her aunt.",
        "The museum, which opened in 1990, and the park are popular.",
        "Visitors can see the Louvre, Notre Dame, and the Eiffel Tower, which was built in 1889.",
        "It serves American, Italian, and French cuisine every day.",
        'He said "we won, and they lost" after the final match.',
        "The hotel (quiet, and it is cheap) is near the station.",
        "It is big, and old.",  # right side too short to stand alone
        "Open Monday 9-5; Tuesday 10-6 for all visitors.",
    ],
)
def test_compound_not_split_when_unsafe(sentence: str) -> None:
    assert texts(sentence) == [sentence]


def test_clause_citations_follow_their_clause() -> None:
    claims = SentenceClaimExtractor().extract("The museum was closed [1], and the staff were on strike [2].")
    assert [(c.text, c.citations) for c in claims] == [("The museum was closed", ["[1]"]), ("the staff were on strike", ["[2]"])]


def test_fragments_merge_into_a_neighbour() -> None:
    assert texts("Yes. The museum opens at 9 a.m. daily.") == ["Yes. The museum opens at 9 a.m. daily."]
    assert texts("The museum opens at 9 a.m. daily. It is free.") == ["The museum opens at 9 a.m. daily. It is free."]
    assert texts("Yes. The museum opens at 9 a.m. daily.", min_chars=0) == ["Yes.", "The museum opens at 9 a.m. daily."]
    assert texts("Yes.") == ["Yes."]  # a lone fragment is kept, never dropped
    assert texts("The hotel offers:\n- Wi-Fi\n- Pool\n\nIt is near the station.") == [
        "The hotel offers:\n- Wi-Fi\n- Pool",
        "It is near the station.",
    ]
    # Same list item first, then across a single line break, never across a blank line.
    assert texts("1. Cook the potatoes.\n2. Fry onions. Season with salt.") == [
        "Cook the potatoes.",
        "Fry onions. Season with salt.",
    ]
    assert texts("No.\n\nThe museum is closed on Mondays.") == ["No.", "The museum is closed on Mondays."]


def test_fragment_citations_survive_merge() -> None:
    (c,) = SentenceClaimExtractor().extract("Yes [1]. The museum opens at 9 a.m. daily [2].")
    assert c.citations == ["[1]", "[2]"]
    assert c.text == "Yes [1]. The museum opens at 9 a.m. daily"


def test_no_factual_text_lost() -> None:
    """Every letter of a plain factual answer is inside a claim or a marker (compound split off)."""
    extractor = SentenceClaimExtractor(split_compound=False)
    for seed in range(200):
        rng = random.Random(seed)
        answer = " ".join(_sentence(rng).replace("?", ".") for _ in range(rng.randint(1, 5)))
        answer = re.sub(r"^\W+", "", answer)
        covered = bytearray(len(answer))
        for c in extractor.extract(answer):
            covered[c.start : c.end] = b"\x01" * (c.end - c.start)
        for m in parse_markers(answer):
            covered[m.start : m.end] = b"\x01" * (m.end - m.start)
        lost = "".join(ch for i, ch in enumerate(answer) if ch.isalpha() and not covered[i])
        assert not lost, (answer, lost)


def test_empty_answer() -> None:
    assert SentenceClaimExtractor().extract("") == []
    assert split_sentences("") == []


def test_quotations_are_not_cut_by_repairs() -> None:
    text = 'Passage 1: "The results show the price range. Use the average price." Then it is hit or miss. Overall fine.'
    assert [text[a:b] for a, b in split_sentences(text)] == [
        'Passage 1: "The results show the price range. Use the average price."',
        "Then it is hit or miss.",
        "Overall fine.",
    ]


# --------------------------------------------------------------------------- unchecked text (issue 15, item 2)
#
# A fact is a claim wherever it sits; what is skipped is listed with its reason, and claims plus
# unchecked spans cover every non-whitespace character of the answer.

FACT = "The Eiffel Tower is 530 metres tall"


def _coverage_holes(answer: str, claims: list[Claim], unchecked) -> list[int]:
    covered = bytearray(len(answer))
    for c in claims:
        covered[c.start : c.end] = b"\x01" * (c.end - c.start)
    for u in unchecked:
        assert answer[u.start : u.end] == u.text
        assert not any(covered[u.start : u.end]), (answer, u)  # an unchecked span never overlaps a claim
        covered[u.start : u.end] = b"\x01" * (u.end - u.start)
    return [i for i, ch in enumerate(answer) if not ch.isspace() and not covered[i]]


@pytest.mark.parametrize("seed", range(0, 600, 100))
def test_claims_and_unchecked_spans_cover_every_character(seed: int) -> None:
    extractor = SentenceClaimExtractor()
    for text in GENERATED[seed : seed + 100]:
        claims, unchecked = extractor.extract_with_unchecked(text)
        assert claims == extractor.extract(text)
        holes = _coverage_holes(text, claims, unchecked)
        assert not holes, (text, [text[i] for i in holes])


MARKDOWN_SHAPES = [
    "# Title\n\nIntro [1].\n\n## Facts\n\n- one thing is true\n- two [2]\n\n> quoted text here.\n\n---\n\n"
    "| A | B |\n|:--|--:|\n| 1 | 2 |\n\n```py\nx = 1\n```\n\n**Bold:** text\n\nSources:\n[1] https://a.b/c\n[2] Doc",
    "Setext heading\n==============\n\n1. First step is here.\n2) Second. Third?\n\n* [ ] todo item\n\n~~~\nunclosed",
    "Sure! Here is how:\n\n- Take it with food, right?\n- Did you know it was built in 1889?\n\nHope this helps!",
    "Paris is big, and it has 2 million people [3]; Berlin is also big.\r\n\r\n\u2022 bullet\u00a0text [doc-1]",
]


@pytest.mark.parametrize("answer", MARKDOWN_SHAPES)
def test_markdown_shapes_are_fully_covered(answer: str) -> None:
    claims, unchecked = SentenceClaimExtractor().extract_with_unchecked(answer)
    assert not _coverage_holes(answer, claims, unchecked)


STRUCTURES = {
    "heading": (f"# {FACT}", FACT),
    "heading_h3_closed": (f"### {FACT} ###", FACT),
    "bold_heading": (f"**{FACT}**", f"**{FACT}**"),
    "table_header": (f"| {FACT} | Note |\n|---|---|\n| a | b |", f"{FACT} | Note"),
    "after_sources": (f"Paris is in France [1].\n\nSources:\n{FACT}.", f"{FACT}."),
    "after_references_heading": (f"## References\n\n[1] Wikipedia\n\n{FACT} according to the guide.", f"{FACT} according to the guide."),
    "code_block_prose": (f"```\n{FACT}.\n```", f"{FACT}."),
    "did_you_know": (f"Did you know that {FACT[0].lower()}{FACT[1:]}?", f"{FACT[0].lower()}{FACT[1:]}"),
    "tag_question": (f"{FACT}, right?", FACT),
    "isnt_it_true": (f"Isn't it true that {FACT[0].lower()}{FACT[1:]}?", f"{FACT[0].lower()}{FACT[1:]}"),
    "lead_in": (f"{FACT}:", f"{FACT}:"),
    "according_lead_in": ("According to the leaflet, the dose is 4000 mg:", "the dose is 4000 mg:"),  # the source named: a frame
    "filler_number": ("Feel free to take 4000 mg every hour.", "Feel free to take 4000 mg every hour."),
    "filler_instruction": ("Feel free to take ibuprofen with alcohol.", "Feel free to take ibuprofen with alcohol."),
    "filler_name": ("Hope this helps with your visit to Paris!", "Hope this helps with your visit to Paris!"),
}


@pytest.mark.parametrize("name", sorted(STRUCTURES))
def test_a_fact_is_a_claim_wherever_it_sits(name: str) -> None:
    answer, claim_text = STRUCTURES[name]
    claims, unchecked = SentenceClaimExtractor().extract_with_unchecked(answer)
    assert claim_text in [c.text for c in claims], (answer, claims)
    assert not _coverage_holes(answer, claims, unchecked)
    for c in claims:
        assert answer[c.start : c.end] == c.text


NON_FACTUAL = [
    ("Anything else?", "question"),
    ("Is Paris the capital of France?", "question"),
    ("Hope this helps!", "pleasantry"),
    ("Feel free to ask if you have questions.", "pleasantry"),
    ("Let me know if you need anything else.", "pleasantry"),
    ("Based on the provided passages, here is how to grill tomatoes:", "lead_in"),
    ("## Opening hours", "heading"),
    ("## Frequently Asked Questions", "heading"),
    ("| Name | Price |\n|---|---|", "table_header"),
    ("```python\nprint(dose * 2)\n```", "code"),
    ("```\nx = 1. It is code.\n```", "code"),
    ("Sources:\n[1] Wikipedia, Eiffel Tower\n[2] https://www.britannica.com/topic/Eiffel-Tower", "bibliography"),
]


@pytest.mark.parametrize(("answer", "reason"), NON_FACTUAL)
def test_non_factual_spans_are_listed_with_their_reason(answer: str, reason: str) -> None:
    claims, unchecked = SentenceClaimExtractor().extract_with_unchecked(answer)
    assert claims == []
    assert reason in {u.reason for u in unchecked}
    assert not any(u.factual for u in unchecked), unchecked
    assert not _coverage_holes(answer, claims, unchecked)


def test_a_question_that_presupposes_a_figure_is_unchecked_factual() -> None:
    answer = "Why is the Eiffel Tower 530 metres tall?"
    claims, unchecked = SentenceClaimExtractor().extract_with_unchecked(answer)
    assert claims == []
    assert [(u.text, u.reason, u.factual) for u in unchecked] == [(answer, "question", True)]


def test_question_framing_is_listed_around_the_asserted_claim() -> None:
    answer = "Did you know the tower was finished in 1889?"
    claims, unchecked = SentenceClaimExtractor().extract_with_unchecked(answer)
    assert [c.text for c in claims] == ["the tower was finished in 1889"]
    assert [(u.text, u.reason, u.factual) for u in unchecked] == [("Did you know", "question", False), ("?", "question", False)]


def test_the_issue_answer_checks_the_false_line_after_the_true_one() -> None:
    # Regression (issue 15): each of these was skipped, leaving only the true claim.
    for tail in ("Feel free to take 4000 mg every hour.", f"Sources:\n{FACT}.", f"# {FACT}", f"```\n{FACT}.\n```",
                 "Did you know the Eiffel Tower is 530 metres tall?"):
        answer = f"The Eiffel Tower is 330 metres tall [1].\n\n{tail}"
        claims = SentenceClaimExtractor().extract(answer)
        assert len(claims) == 2, (tail, claims)
        assert ("4000 mg" in claims[1].text) or ("530" in claims[1].text)


def test_unchecked_spans_of_another_extractor_come_from_its_offsets() -> None:
    answer = "The tower is 330 metres tall. It was built by Gustave Eiffel in 1889. Hope this helps!"
    first = answer.index(".") + 1
    claims = [Claim(id="x1", text=answer[:first], start=0, end=first)]
    unchecked = unchecked_spans(answer, claims)
    assert [(u.text, u.reason, u.factual) for u in unchecked] == [
        ("It was built by Gustave Eiffel in 1889.", "not_extracted", True),
        ("Hope this helps!", "pleasantry", False),
    ]
    # Part of a sentence left out: the remainder is listed; a bare connective is not a fact.
    answer = "Paris is big, and it has 2 million people."
    part = [Claim(id="x1", text="Paris is big", start=0, end=12)]
    assert [(u.text, u.factual) for u in unchecked_spans(answer, part)] == [(", and it has 2 million people.", True)]


@pytest.mark.parametrize(("text", "factual"), [
    ("by Gustave Eiffel", True), ("in 1889 it opened", True), ("it has three floors", True),
    ("and", False), ("[1].", False), ("Hi!", False), ("**", False),
])
def test_looks_factual(text: str, factual: bool) -> None:
    assert looks_factual(text) is factual


def test_a_negated_statement_in_a_label_is_a_claim() -> None:
    # Regression: "cannot" was no verb, so a negated heading or question was taken for a label.
    for answer, text in [("## Visitors cannot climb the stairs", "Visitors cannot climb the stairs"),
                         ("Did you know visitors cannot climb the stairs?", "visitors cannot climb the stairs")]:
        assert [c.text for c in SentenceClaimExtractor().extract(answer)] == [text]


@pytest.mark.parametrize("framing", ["Note that", "Feel free to remember that", "Keep in mind that", "It is worth noting that"])
def test_framing_is_a_lead_in_and_the_claim_is_what_it_frames(framing: str) -> None:
    answer = f"{framing} visitors cannot climb the stairs [2]."
    claims, unchecked = SentenceClaimExtractor().extract_with_unchecked(answer)
    assert [(c.text, c.citations) for c in claims] == [("visitors cannot climb the stairs", ["[2]"])]
    assert (framing, "lead_in", False) in [(u.text, u.reason, u.factual) for u in unchecked]
    assert not _coverage_holes(answer, claims, unchecked)


def test_an_answer_that_counts_itself_is_a_lead_in_not_a_claim():
    # "in 68 words" is about the answer, not the sources: checked, it flagged a quarter of faithful
    # RAGTruth summaries. A number about the sources in a lead-in is still a claim.
    x = SentenceClaimExtractor()
    for lead in ("Here's the summary in 74 words:", "Below is a summary within 120 words:",
                 "Based on the passages, a caldera can be defined as:"):
        claims, unchecked = x.extract_with_unchecked(lead + "\n\nThe crater is 8 km wide.")
        assert [c.text for c in claims] == ["The crater is 8 km wide."]
        assert unchecked and unchecked[0].reason == "lead_in" and not unchecked[0].factual
    claims, _ = x.extract_with_unchecked("According to the survey, the crater is 8 km wide:\n\n- It formed 2 Ma ago.")
    assert claims[0].text.startswith("According to the survey, the crater is 8 km wide")



def test_an_instruction_line_opening_a_list_is_a_lead_in():
    from guardrail.claims import SentenceClaimExtractor

    texts = [c.text for c in SentenceClaimExtractor().extract("You will need to bring:\n- A packed lunch\n- Wellington boots")]
    assert texts and not any(t.startswith("You will need") for t in texts)
    # one that counts or names what follows states a fact of its own
    texts = [c.text for c in SentenceClaimExtractor().extract("The three documents you must bring are:\n- A passport\n- A bill")]
    assert any("three documents" in t for t in texts)


@pytest.mark.parametrize("answer, first", [
    ("You asked about the Harwick ferry: it runs every 40 minutes.", "it runs every 40 minutes."),
    ("To answer your question about parking: there are 40 spaces.", "there are 40 spaces."),
    ("As for the deposit: it is refundable.", "As for the deposit: it is refundable."),   # the lead names the "it"
])
def test_session21_a_lead_in_that_restates_the_question_is_no_part_of_the_claim(answer, first):
    claims = SentenceClaimExtractor().extract(answer)
    assert claims[0].text == first and answer[claims[0].start:claims[0].end] == first


def test_session21_two_instructions_at_a_semicolon_are_two_claims():
    claims = SentenceClaimExtractor().extract("Never leave the iron on the board; unplug it and let it cool first.")
    assert [c.text for c in claims] == ["Never leave the iron on the board", "unplug it and let it cool first."]


def test_session21_a_suggestion_to_check_the_source_is_no_claim_unless_it_states_something():
    claims = SentenceClaimExtractor().extract("The update rolls out over two weeks. It's worth checking the release notes.")
    assert [c.text for c in claims] == ["The update rolls out over two weeks."]
    assert SentenceClaimExtractor().extract("It is worth checking with Dr Patel before 5 May.")


@pytest.mark.parametrize("answer, parts", [
    # a semicolon parts two statements, the second's verb a negated auxiliary
    ("The clinic reopens on 3 June, so book your check-up after that; your old appointment card doesn't work any more.",
     ["The clinic reopens on 3 June, so book your check-up after that",
      "your old appointment card doesn't work any more."]),
    # no clause after it: one claim
    ("Opening hours: Monday 9-5; Tuesday 10-4.", ["Opening hours: Monday 9-5; Tuesday 10-4."]),
])
def test_session22_a_semicolon_before_a_clause_with_a_negated_auxiliary_parts_two_claims(answer, parts):
    assert [c.text for c in SentenceClaimExtractor().extract(answer)] == parts


@pytest.mark.parametrize("answer, text", [
    ("According to the leaflet, it seems the clinic opens at 8am on Saturdays.", "the clinic opens at 8am on Saturdays."),
    ("It looks like the refund takes five working days.", "the refund takes five working days."),
    # a person named is an attribution the checks compare, not a frame
    ("According to Dr Okafor, the wound heals in two weeks.", "According to Dr Okafor, the wound heals in two weeks."),
])
def test_session22_a_hedge_or_the_source_named_before_a_claim_is_a_lead_in(answer, text):
    assert [c.text for c in SentenceClaimExtractor().extract(answer)] == [text]


# -- session 22 (wtb2) ---
def test_session22_wtb2_a_numbered_instruction_comes_after_the_one_numbered_before_it():
    answer = "1. Unplug the kettle.\n2. Fill it with water and vinegar.\n3. Do a rinse with clean water."
    claims = SentenceClaimExtractor().extract(answer)
    assert [c.after for c in claims] == [None, "Unplug the kettle.", "Fill it with water and vinegar."]
    # a bulleted list orders nothing, and numbered facts are no steps
    assert all(c.after is None for c in SentenceClaimExtractor().extract("- Unplug the kettle.\n- Fill it with water."))
    facts = "1. The company cut 500 jobs.\n2. The merger was completed in May."
    assert all(c.after is None for c in SentenceClaimExtractor().extract(facts))


def test_session22_a_suggestion_a_sentence_ends_on_after_so_is_no_claim():
    x = SentenceClaimExtractor()
    answer = "The leaflet lists the bin days but not the bank holiday changes, so it's worth checking with the council."
    claims, unchecked = x.extract_with_unchecked(answer)
    assert [c.text for c in claims] == ["The leaflet lists the bin days but not the bank holiday changes"]
    assert any(u.reason == "pleasantry" and "worth checking" in u.text for u in unchecked)
    # ", so" before a statement parts nothing
    assert [c.text for c in x.extract("The ferry was full, so we took the 14:10 sailing.")] == [
        "The ferry was full, so we took the 14:10 sailing."]


@pytest.mark.parametrize("answer", [
    "The notice gives the closure dates; it doesn't say when the footpath reopens.",
    "Based on the leaflet, the pool opens at 7am, but it doesn't say whether there's a lifeguard.",
])
def test_session22_an_abstention_stays_one_claim_with_the_source_it_names(answer):
    x = SentenceClaimExtractor()
    texts = [c.text for c in x.extract(answer)]
    assert any("doesn't say" in t and ("notice" in t or "leaflet" in t) for t in texts), texts
