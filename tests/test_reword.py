"""Faithful rewordings (guardrail.eval.redteam.reword): each states the same value in other words, as the fact checks
read it, and never touches a number that is part of a name or a limit."""

import random

import pytest

from guardrail.claims import split_sentences
from guardrail.eval.redteam.reword import number_words, reword, rewordings
from guardrail.facts import check_facts

SENTENCES = [
    "The trail is 8 km long and climbs 420 m to the ridge.",
    "Each tablet contains 500 mg of paracetamol; adults may take 2 tablets every 4 hours.",
    "The library holds 1,250,000 books and welcomed 86,400 visitors in 2023.",
    "The museum opens at 10:00 and closes at 17:30 on 14 March 2026.",
    "Turnout was 62% and 3 councillors lost their seats.",
    "The tank holds 40 litres and the pump weighs 12 kg.",
]


@pytest.mark.parametrize("text", SENTENCES)
def test_every_rewording_is_read_by_the_fact_checks_as_the_same_facts(text):
    evidence = [("d0", a, b, text[a:b]) for a, b in split_sentences(text)]
    found = list(rewordings(text, random.Random(1)))
    assert found, text
    for e in found:
        claim = text[: e.start] + e.replacement + text[e.end:]
        fc = check_facts(claim, evidence)
        assert not fc.numbers_unmatched and not [d for d in fc.differences if d.kind == "mismatch"], (
            e, claim, fc.numbers_unmatched, fc.differences)


def test_numbers_in_names_and_limits_are_left_alone():
    for text in ["She works at Terminal 5 near Gate 12.", "Take up to 4 tablets a day.", "It costs £3 per kg."]:
        assert not [e for e in rewordings(text, random.Random(0)) if e.what == "number_words"], text


def test_number_words_and_a_seeded_choice():
    assert [number_words(n) for n in (7, 40, 42, 115, 300)] == ["seven", "forty", "forty-two", "one hundred and fifteen",
                                                               "three hundred"]
    assert number_words(1000) is None
    a = reword(SENTENCES[0], random.Random(4))
    assert a == reword(SENTENCES[0], random.Random(4)) and a is not None and a[0] != SENTENCES[0]
    assert reword("No figures here at all.", random.Random(0)) is None


def test_addresses_are_not_rounded_or_spelled_out():
    text = "The cafe is at 214 State Street and seats 48 people."
    found = [(e.original, e.what) for e in rewordings(text, random.Random(0))]
    assert ("214", "rounding") not in found and not [f for f in found if f[0] == "214"], found
    assert ("48", "number_words") in found, found
