"""The red-team suite: each mutation on hand-made examples, skips, determinism, scoring and outputs."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest

from guardrail.eval.redteam import (
    CATEGORIES,
    INJECTIONS,
    MUST_FLAG_CATEGORIES,
    Attack,
    AttackSuite,
    Mutation,
    RedteamResult,
    add_commands,
    build_attacks,
    handled,
    make_attacks,
    render_markdown,
    run_redteam,
    write_outputs,
)
from guardrail.eval.runner import EvalConfig
from guardrail.eval.types import EvalExample
from guardrail.guardrail import Guardrail
from guardrail.types import CheckReport, Claim, ClaimVerdict, Label

FIXTURE = Path(__file__).parent / "fixtures" / "redteam" / "examples.jsonl"


def _fixture() -> list[EvalExample]:
    """The fixture's plain-format rows (label 1 = hallucinated) with their ids as written."""
    rows = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [
        EvalExample(
            id=r["id"],
            dataset="fixture",
            task=r["task"],
            question=r["question"],
            context=r["context"],
            response=r["response"],
            hallucinated=bool(r["label"]),
            spans=r["spans"],
            group=r["group"],
        )
        for r in rows
    ]


def _ex(id: str, response: str, context: str | list[str], group: str | None = None) -> EvalExample:
    return EvalExample(id=id, dataset="test", context=context, response=response, hallucinated=False, group=group or id)


def _ctx(ex: EvalExample) -> str:
    return ex.context if isinstance(ex.context, str) else "\n\n".join(ex.context)


def _only(attacks: list[Attack], category: str) -> Attack:
    found = [a for a in attacks if a.category == category]
    assert len(found) == 1, [a.id for a in found]
    return found[0]


def _splice_ok(source: EvalExample, attack: Attack) -> None:
    """The mutated answer is the source with exactly original -> replacement at the recorded span."""
    m = attack.mutation
    mutated = attack.example.response
    assert mutated[m.start : m.end] == m.replacement
    if attack.category == "unsupported_addition" or attack.mutation.description.startswith("unsupported_addition"):
        base = source.response.rstrip()  # an insertion after the answer: only a separator in between
        assert mutated.startswith(base) and not mutated[len(base) : m.start].strip() and m.end == len(mutated)
        return
    assert mutated[: m.start] == source.response[: m.start]
    tail = len(mutated) - m.end
    assert mutated[m.end :] == source.response[len(source.response) - tail :]
    assert source.response[m.start : len(source.response) - tail] == m.original
    assert mutated != source.response


# ----------------------------------------------------------------------------- mutations


def test_number_swap_changes_a_shared_number_to_an_unsupported_value_in_the_same_format():
    ex = _ex(
        "stadium", "The stadium holds 50,000 people.", "The stadium, opened in 1998, holds 50,000 people and 300 staff."
    )
    a = _only(make_attacks([ex], categories=["number_swap"]), "number_swap")
    _splice_ok(ex, a)
    assert a.mutation.original == "50,000"
    # x0.5 .. x3, rounded (half up) to ten thousands like the original, written with a comma
    assert a.mutation.replacement in {"30,000", "40,000", "60,000", "80,000", "100,000", "150,000"}
    assert a.mutation.replacement not in _ctx(ex)
    assert a.kind == "must_flag" and a.example.hallucinated is True
    assert [(s.start, s.end) for s in a.example.spans] == [(a.mutation.start, a.mutation.end)]


def test_number_swap_keeps_decimals_and_leaves_years_and_days_alone():
    ex = _ex(
        "louvre",
        "On 10 August 1793 it showed paintings; 8.7 million people came.",
        "It opened on 10 August 1793. About 8.7 million people visited.",
    )
    a = _only(make_attacks([ex], categories=["number_swap"]), "number_swap")
    assert a.mutation.original == "8.7"
    assert re.fullmatch(r"\d+\.\d", a.mutation.replacement) and a.mutation.replacement != "8.7"


def test_number_swap_is_skipped_when_every_plausible_value_is_in_the_context():
    ex = _ex(
        "team",
        "The team has 3 players.",
        "The team has 3 players, 1 coach, 2 medics, 4 fans, 5 cars, 6 bikes and 8 dogs.",
    )
    suite = build_attacks([ex], categories=["number_swap"])
    assert suite.attacks == [] and [s.category for s in suite.skipped] == ["number_swap"]


@pytest.mark.parametrize(
    "response",
    [
        "Install Kodi on the Apple TV 2 first.",  # part of a name
        "Call 202-543-9994 to check.",  # a phone number
        "Steps:\n2. Open the settings.",  # a list marker
    ],
)
def test_number_swap_leaves_names_identifiers_and_list_markers_alone(response):
    ex = _ex("n", response, "Apple TV 2 owners can call 202-543-9994.\n2. Open the settings.")
    assert make_attacks([ex], categories=["number_swap"]) == []


def test_date_shift_moves_a_shared_year_and_keeps_decades_whole():
    ex = _ex("tower", "The tower was completed in 1889.", "Work began in 1887; the tower was completed in 1889.")
    a = _only(make_attacks([ex], categories=["date_shift"]), "date_shift")
    _splice_ok(ex, a)
    assert a.mutation.original == "1889"
    shifted = int(a.mutation.replacement)
    assert shifted - 1889 in (-10, -5, -3, -2, -1, 1, 2, 3, 5, 10) and shifted != 1887

    dec = _ex("music", "The style peaked in the 1990s.", "The style peaked in the 1990s in Seattle.")
    d = _only(make_attacks([dec], categories=["date_shift"]), "date_shift")
    assert int(d.mutation.replacement) - 1990 in (-20, -10, 10, 20)
    assert d.example.response.endswith(d.mutation.replacement + "s.")


def test_date_shift_falls_back_to_month_names_and_era_years():
    ex = _ex("moon", "The landing was in July.", "Apollo 11 landed in July.")
    a = _only(make_attacks([ex], categories=["date_shift"]), "date_shift")
    assert a.mutation.original == "July" and a.mutation.replacement in {
        "April",
        "May",
        "June",
        "August",
        "September",
        "October",
    }
    era = _ex("colosseum", "It was completed in AD 80.", "It was completed in AD 80 under Titus.")
    e = _only(make_attacks([era], categories=["date_shift"]), "date_shift")
    assert e.mutation.original == "80" and e.example.response.startswith("It was completed in AD ")


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("The museum does not allow flash photography.", "The museum does allow flash photography."),
        ("The tower isn't open at night.", "The tower is open at night."),
        ("Visitors cannot enter the crypt.", "Visitors can enter the crypt."),
        ("The tower is 330 metres tall.", "The tower is not 330 metres tall."),
        ("Guests can park on site.", "Guests cannot park on site."),
        ("The cafe has a rating of 4.5 stars.", "The cafe does not have a rating of 4.5 stars."),
        ("The bridge has been repainted twice.", "The bridge has not been repainted twice."),
        ("Alexander Fleming discovered penicillin.", "Alexander Fleming never discovered penicillin."),
        ("He had accidentally shot himself.", "He had not accidentally shot himself."),
        ("He has never lost a match.", "He has lost a match."),
    ],
)
def test_negation_flips_the_polarity_of_one_verb_phrase(sentence, expected):
    ex = _ex("n", sentence, "Unrelated text about gardens and their history.")
    a = _only(make_attacks([ex], categories=["negation"]), "negation")
    assert a.example.response == expected
    _splice_ok(ex, a)


def test_negation_skips_an_answer_that_the_context_states_negated_already():
    ex = _ex("n", "The tower is open at night.", "Some say the tower is not open at night.")
    suite = build_attacks([ex], categories=["negation"])
    assert suite.attacks == []
    assert len(suite.skipped) == 1 and "the negated sentence is in the context" in suite.skipped[0].reason


def test_entity_swap_takes_a_donor_name_of_the_same_kind_absent_from_the_context():
    ex = _ex(
        "bridge",
        "The bridge in Lisbon was designed by Maria Lopez.",
        "The bridge in Lisbon was designed by Maria Lopez in 1966.",
    )
    donors = [
        ex,
        _ex("d1", "x", "The museum in Madrid was founded by John Smith. The Eiffel Tower is in Paris."),
        _ex("d2", "x", "A palace built by Anna Berg stands in Oslo."),
    ]
    attacks = make_attacks([ex], categories=["entity_swap"], per_example=2, donors=donors)
    swaps = {a.mutation.original: a.mutation.replacement for a in attacks}
    assert set(swaps) == {"Lisbon", "Maria Lopez"}  # two targets, two attacks
    assert swaps["Lisbon"] in {"Madrid", "Oslo", "Paris"}  # places after "in"
    assert swaps["Maria Lopez"] in {"John Smith", "Anna Berg"}  # two-word names, not "Eiffel Tower" (a building)
    for a in attacks:
        _splice_ok(ex, a)
        assert a.mutation.replacement.lower() not in _ctx(ex).lower()


def test_entity_swap_keeps_modifiers_with_modifiers_and_skips_halves_of_coordinated_names():
    ex = _ex(
        "war",
        "The Saudi airstrikes hit Sanaa, and migrants from Central and South America waited.",
        "The Saudi airstrikes hit Sanaa. Migrants from Central and South America waited at the border.",
    )
    donors = [ex, _ex("d1", "x", "The convoy met French authorities near the port of Aden. The report came from Oslo.")]
    attacks = make_attacks([ex], categories=["entity_swap"], per_example=3, donors=donors)
    swaps = {a.mutation.original: a.mutation.replacement for a in attacks}
    assert "Central" not in swaps and "South America" not in swaps
    assert swaps.get("Saudi") == "French"  # a modifier for a modifier, not a name or a place
    assert swaps.get("Sanaa") in {"Aden", "Oslo"}


def test_entity_swap_is_skipped_without_a_donor_of_the_same_kind():
    ex = _ex("bridge", "The bridge was designed by Maria Lopez.", "The bridge was designed by Maria Lopez in 1966.")
    donors = [ex, _ex("d1", "x", "The Eiffel Tower is a landmark. Visitors queue at the Louvre Museum.")]
    suite = build_attacks([ex], categories=["entity_swap"], donors=donors)
    assert suite.attacks == [] and [s.category for s in suite.skipped] == ["entity_swap"]
    assert "same kind" in suite.skipped[0].reason


def test_unsupported_addition_appends_an_unrelated_donor_sentence():
    ex = _ex(
        "bees",
        "Honey bees use a waggle dance to show where flowers are.",
        "Honey bees use a waggle dance to show other workers where flowers are.",
    )
    donor = _ex("d1", "x", "The Chrysler Building in New York City was finished in 1930 after two years of work.")
    a = _only(make_attacks([ex], categories=["unsupported_addition"], donors=[ex, donor]), "unsupported_addition")
    added = "The Chrysler Building in New York City was finished in 1930 after two years of work."
    assert a.example.response == ex.response + " " + added
    assert a.example.response[a.mutation.start : a.mutation.end] == added
    assert added not in _ctx(ex)


def test_attacks_that_cannot_be_made_are_skipped_and_counted_never_faked():
    ex = _ex(
        "bees",
        "honey bees use a waggle dance to tell other workers where flowers are.",
        "Honey bees use a waggle dance to tell other workers where flowers are.",
    )
    suite = build_attacks([ex], categories=["number_swap", "date_shift", "entity_swap", "contradictory_passages"])
    assert suite.attacks == []
    assert sorted(s.category for s in suite.skipped) == [
        "contradictory_passages",
        "date_shift",
        "entity_swap",
        "number_swap",
    ]
    assert all(s.source_id == "bees" and s.reason for s in suite.skipped)


def test_only_faithful_examples_are_attacked():
    examples = _fixture()
    suite = build_attacks(examples, buried_chars=1_000)
    wrong = [e.id for e in examples if e.hallucinated is not False]
    assert wrong and suite.n_not_faithful == len(wrong)
    assert not {a.source_id for a in suite.attacks} & set(wrong)
    assert suite.n_sources == len(examples) - len(wrong)


def test_every_response_mutation_splices_cleanly_and_its_value_is_absent_from_the_context():
    examples = _fixture()
    by_id = {e.id: e for e in examples}
    suite = build_attacks(examples, buried_chars=1_000)
    checked = 0
    for a in suite.attacks:
        if a.kind != "must_flag":
            continue
        src = by_id[a.source_id]
        _splice_ok(src, a)
        ctx = _ctx(a.example).lower()
        if re.fullmatch(r"[\d,.]+|[A-Z][\w' -]*", a.mutation.replacement):  # a value or a name
            assert not re.search(r"(?<![\w])" + re.escape(a.mutation.replacement.lower()) + r"(?![\w])", ctx), a.id
        checked += 1
    assert checked >= 20


def test_buried_evidence_puts_the_context_in_the_middle_and_pairs_clean_and_mutated():
    examples = _fixture()
    suite = build_attacks(examples, categories=["buried_evidence"], buried_chars=1_500)
    src = next(e for e in examples if e.id == "louvre")
    clean = next(a for a in suite.attacks if a.id == "louvre/buried_evidence/0/clean")
    mutated = next(a for a in suite.attacks if a.id == "louvre/buried_evidence/0/mutated")
    ctx = clean.example.context
    assert isinstance(ctx, str) and len(ctx) >= 1_500 + len(src.context)
    pos = ctx.index(src.context)
    assert pos > 300 and len(ctx) - pos - len(src.context) > 300  # surrounded, not at an edge
    assert (
        clean.kind == "must_not_fool" and clean.example.response == src.response and clean.example.hallucinated is False
    )
    assert mutated.kind == "must_flag" and mutated.example.context == ctx and mutated.example.response != src.response

    listed = next(a for a in suite.attacks if a.id == "colosseum/buried_evidence/0/clean")
    colosseum = next(e for e in examples if e.id == "colosseum")
    assert isinstance(listed.example.context, list)
    i = listed.example.context.index(colosseum.context[0])
    assert 0 < i and listed.example.context[i : i + 2] == colosseum.context

    too_big = build_attacks(examples, categories=["buried_evidence"], buried_chars=10**6)
    assert too_big.attacks == [] and all("not enough unrelated donor context" in s.reason for s in too_big.skipped)


def test_contradictory_passages_adds_a_changed_copy_of_the_supporting_sentence():
    ex = _ex(
        "louvre",
        "The museum opened with 537 paintings.",
        "The museum opened on 10 August 1793 with an exhibition of 537 paintings. It is in Paris.",
    )
    a = _only(make_attacks([ex], categories=["contradictory_passages"]), "contradictory_passages")
    assert a.example.response == ex.response  # the answer is unchanged
    assert a.example.response[a.mutation.start : a.mutation.end] == "537"
    copy = a.mutation.inserted_context
    assert copy.startswith("The museum opened on 10 August 1793 with an exhibition of ") and "537" not in copy
    assert ex.context in a.example.context and copy in a.example.context
    assert a.example.hallucinated is None


def test_prompt_injection_plants_an_instruction_for_both_answers():
    examples = _fixture()
    suite = build_attacks(examples, categories=["prompt_injection"])
    pairs = {}
    for a in suite.attacks:
        pairs.setdefault(a.source_id, {})[a.kind] = a
        ctx = _ctx(a.example)
        assert any(inj in ctx for inj in INJECTIONS)
        assert a.mutation.inserted_context in ctx
    skipped = {s.source_id: s.reason for s in suite.skipped}
    assert len(pairs) == suite.n_sources
    for source, kinds in pairs.items():
        if set(kinds) == {"must_not_fool"}:  # no swap applies to this answer: the skip says so
            assert "mutated half" in skipped[source]
            continue
        assert set(kinds) == {"must_flag", "must_not_fool"}
        assert kinds["must_flag"].example.context == kinds["must_not_fool"].example.context
    assert sum(len(k) == 2 for k in pairs.values()) >= suite.n_sources - 1


def test_attacks_are_deterministic_for_a_seed_and_per_category():
    examples = _fixture()
    one = build_attacks(examples, seed=7, buried_chars=1_000)
    two = build_attacks(examples, seed=7, buried_chars=1_000)
    assert one.model_dump_json() == two.model_dump_json()
    other = build_attacks(examples, seed=8, buried_chars=1_000)
    assert [a.example.response for a in other.attacks] != [a.example.response for a in one.attacks]
    numbers = build_attacks(examples, seed=7, categories=["number_swap"])
    assert numbers.attacks == [a for a in one.attacks if a.category == "number_swap"]


def test_unknown_category_is_an_error():
    from guardrail.errors import InputError

    with pytest.raises(InputError, match="unknown red-team category 'typo'"):
        build_attacks(_fixture(), categories=["typo"])


# ----------------------------------------------------------------------------- handled()


def _report(claims: list[tuple[int, int, str, float]], answer: str = "x" * 100, threshold: float = 0.5) -> CheckReport:
    cs = [Claim(id=f"c{i}", text=answer[s:e], start=s, end=e) for i, (s, e, _, _) in enumerate(claims)]
    vs = [
        ClaimVerdict(claim_id=f"c{i}", label=Label(label), confidence=0.9, hallucination_score=h)
        for i, (_, _, label, h) in enumerate(claims)
    ]
    flagged = any(v.label in (Label.contradicted, Label.unsupported) and v.hallucination_score >= threshold for v in vs)
    return CheckReport(
        answer=answer,
        claims=cs,
        verdicts=vs,
        hallucination_score=max((v.hallucination_score for v in vs), default=0.0),
        hallucinated=flagged,
        threshold=threshold,
    )


def _attack(category: str, kind: str, span: tuple[int, int] | None) -> Attack:
    ex = EvalExample(id="a", dataset="t", context="c", response="x" * 100, hallucinated=kind == "must_flag")
    m = Mutation(description="t", start=span[0] if span else None, end=span[1] if span else None)
    return Attack(id="a", category=category, kind=kind, source_id="s", example=ex, mutation=m)


def test_must_flag_needs_a_flagged_claim_over_the_changed_span():
    a = _attack("number_swap", "must_flag", (60, 63))
    assert handled(a, _report([(0, 50, "supported", 0.1), (51, 90, "contradicted", 0.8)]))[0]
    # flagged, but elsewhere: the mutation itself went unnoticed
    assert not handled(a, _report([(0, 50, "contradicted", 0.8), (51, 90, "supported", 0.1)]))[0]
    # right claim, under the threshold
    assert not handled(a, _report([(51, 90, "unsupported", 0.4)]))[0]
    assert not handled(a, _report([(51, 90, "unevaluatable", 0.5)]))[0]


def test_clean_answer_must_pass_and_be_evaluated():
    a = _attack("buried_evidence", "must_not_fool", None)
    assert handled(a, _report([(0, 50, "supported", 0.2)]))[0]
    assert not handled(a, _report([(0, 50, "unsupported", 0.7)]))[0]
    ok, why = handled(a, _report([(0, 50, "unevaluatable", 0.5)]))
    assert not ok and "unevaluatable" in why


def test_contradictory_passages_is_handled_when_the_claim_is_not_passed_as_supported():
    a = _attack("contradictory_passages", "must_not_fool", (10, 13))
    assert handled(a, _report([(0, 40, "partially_supported", 0.3)]))[0]
    assert handled(a, _report([(0, 40, "contradicted", 0.2)]))[0]  # noticed, even under the threshold
    assert not handled(a, _report([(0, 40, "supported", 0.1)]))[0]
    assert not handled(a, _report([(0, 40, "unevaluatable", 0.5)]))[0]
    assert not handled(a, _report([(50, 90, "contradicted", 0.9)]))[0]  # another claim


# ----------------------------------------------------------------------------- run_redteam


class _FixedVerifier:
    """Labels every claim the same way: a verifier that passes (or flags) everything."""

    def __init__(self, label: Label, score: float):
        self.name = f"always-{label.value}"
        self.label, self.score = label, score

    def verify(self, items, batch_size=32):
        return [
            ClaimVerdict(
                claim_id=it.claim.id,
                label=self.label,
                confidence=0.9,
                hallucination_score=self.score,
                verifier=self.name,
            )
            for it in items
        ]


class _Exploding:
    name = "exploding"

    def verify(self, items, batch_size=32):
        raise RuntimeError("model file is corrupt")


@pytest.fixture(scope="module")
def suite() -> AttackSuite:
    return build_attacks(_fixture(), buried_chars=1_200)


def _fake_guardrails(cfg: EvalConfig) -> Guardrail:
    verifier = {
        "pass-all": _FixedVerifier(Label.supported, 0.0),
        "flag-all": _FixedVerifier(Label.unsupported, 0.9),
        "exploding": _Exploding(),
    }[cfg.verifier]
    return Guardrail(verifier=verifier, threshold=0.5)


def test_a_verifier_that_passes_everything_scores_zero_on_must_flag_categories(suite):
    res = run_redteam(
        suite,
        [EvalConfig(name="pass", verifier="pass-all"), EvalConfig(name="flag", verifier="flag-all")],
        progress=False,
        make_guardrail=_fake_guardrails,
    )
    for cat in MUST_FLAG_CATEGORIES:
        assert res.score("pass", cat).score == 0.0 and res.score("pass", cat).n > 0
        assert res.score("flag", cat).score == 1.0
    for cat in ("buried_evidence", "prompt_injection"):
        assert res.score("pass", cat, "must_flag").score == 0.0
        assert res.score("pass", cat, "must_not_fool").score == 1.0
        assert res.score("flag", cat, "must_not_fool").score == 0.0
    assert res.score("pass", "contradictory_passages").score == 0.0
    assert res.score("pass", "control").score == 1.0 and res.score("flag", "control").score == 0.0
    assert res.score("pass", "number_swap").failing == [a.id for a in suite.attacks if a.category == "number_swap"]
    # faithful rewordings must pass: pass-all handles them all, flag-all none
    assert res.score("pass", "reworded").score == 1.0 and res.score("flag", "reworded").score == 0.0
    assert res.score("pass", "reworded").n > 0
    # overall: mean of the attack categories (control left out); pass-all gets only the clean halves and rewordings
    attack_categories = len(MUST_FLAG_CATEGORIES) + 4  # + buried_evidence, contradictory_passages, prompt_injection, reworded
    assert res.overall["pass"] == pytest.approx(round((0.5 + 0.5 + 1.0) / attack_categories, 4), abs=0.02)
    assert len(res.outcomes) == 2 * len(suite.attacks)


def test_errors_are_failures_with_their_message_never_dropped(suite):
    res = run_redteam(
        suite.attacks[:6],
        [EvalConfig(name="boom", verifier="exploding")],
        progress=False,
        make_guardrail=_fake_guardrails,
    )
    assert len(res.outcomes) == 6
    assert all(not o.handled and "model file is corrupt" in (o.error or "") for o in res.outcomes)
    assert sum(s.errors for s in res.scores if s.kind is None) == 6


@pytest.fixture(scope="module")
def heuristic_result(suite) -> RedteamResult:
    return run_redteam(
        suite, [EvalConfig(name="heuristic", verifier="heuristic")], progress=False, dataset=str(FIXTURE)
    )


def test_heuristic_catches_unsupported_additions_and_passes_clean_answers(heuristic_result):
    res = heuristic_result
    assert res.score("heuristic", "unsupported_addition").score >= 0.75
    assert res.score("heuristic", "control").score == 1.0
    assert res.score("heuristic", "buried_evidence", "must_not_fool").score >= 0.75
    assert all(o.error is None for o in res.outcomes)


def test_outputs_are_valid_files(tmp_path, suite, heuristic_result):
    paths = write_outputs(heuristic_result, tmp_path, suite)
    back = RedteamResult.model_validate_json(paths["json"].read_text(encoding="utf-8"))
    assert back == heuristic_result
    md = paths["markdown"].read_text(encoding="utf-8")
    assert "| category | expected | heuristic | skipped |" in md
    rows = [line for line in md.splitlines() if line.startswith("| ")]
    assert all(line.count("|") == rows[0].count("|") for line in rows)
    for cat in CATEGORIES:
        assert f"| {cat}" in md
    lines = paths["attacks"].read_text(encoding="utf-8").splitlines()
    assert [Attack.model_validate_json(line).id for line in lines] == [a.id for a in suite.attacks]


# ----------------------------------------------------------------------------- CLI


def test_cli_prints_the_table_and_writes_outputs(tmp_path, capsys):
    from guardrail.cli import main

    code = main(
        [
            "redteam",
            "--dataset",
            str(FIXTURE),
            "--limit",
            "3",
            "--verifier",
            "heuristic=heur",
            "--categories",
            "number_swap,control",
            "--out",
            str(tmp_path),
            "--no-progress",
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "| category | expected | heur | skipped |" in out and "| number_swap |" in out
    res = json.loads((tmp_path / "redteam.json").read_text(encoding="utf-8"))
    assert res["n_sources"] == 3 and res["configs"][0]["verifier"] == "heuristic"
    assert res["categories"] == ["number_swap", "control"]
    assert res["dataset"] == str(FIXTURE)
    assert (tmp_path / "redteam.md").read_text(encoding="utf-8") == out
    assert len((tmp_path / "attacks.jsonl").read_text(encoding="utf-8").splitlines()) == res["n_attacks"]


def test_cli_rejects_unknown_categories_before_loading_anything(capsys):
    from guardrail.cli import main

    assert main(["redteam", "--dataset", "/nonexistent.jsonl", "--categories", "number_swap,nope"]) == 2
    assert "unknown red-team category 'nope'" in capsys.readouterr().err


def test_add_commands_registers_redteam():
    parser = argparse.ArgumentParser(prog="guardrail")
    add_commands(parser.add_subparsers())
    args = parser.parse_args(["redteam", "--dataset", "d", "--verifier", "hf:/models/a=b", "--verifier", "heuristic=h"])
    assert args.verifier == ["hf:/models/a=b", "heuristic=h"] and callable(args.func)


def test_render_markdown_marks_control_as_reference(heuristic_result):
    md = render_markdown(heuristic_result)
    assert "control (reference, not in overall)" in md and "**overall**" in md


# ----------------------------------------------------------------------------- meaning edits (text layer flips, roles)


@pytest.mark.parametrize(
    ("category", "response", "context", "original", "replacement"),
    [
        ("direction_flip", "Ticket sales rose by a fifth in May.", "Ticket sales rose by a fifth in May, the club said.",
         "rose", "fell"),
        ("relation_flip", "The east wing was finished before the chapel.",
         "Builders finished the east wing in 1702, before the chapel was begun.", "before", "after"),
        ("modality_change", "Visitors must sign in at the front desk.",
         "All visitors must sign in at the front desk on arrival.", "must", "may"),
        ("quantifier_widened", "Some of the tenants objected to the rent rise.",
         "Some of the tenants objected to the rent rise at the meeting.", "Some", "All"),
    ],
)
def test_word_flips_come_from_the_text_layer_and_change_one_word(category, response, context, original, replacement):
    ex = _ex("f", response, context)
    attack = _only(make_attacks([ex], categories=[category]), category)
    _splice_ok(ex, attack)
    assert (attack.mutation.original, attack.mutation.replacement) == (original, replacement)
    assert attack.kind == "must_flag" and attack.example.hallucinated is True


def test_role_swap_exchanges_two_names_around_a_verb_and_leaves_coordinated_names_alone():
    ex = _ex("r", "Ortega defeated Lindqvist in the final.", "In the final, Ortega defeated Lindqvist in three sets.")
    attack = _only(make_attacks([ex], categories=["role_swap"]), "role_swap")
    _splice_ok(ex, attack)
    assert attack.example.response == "Lindqvist defeated Ortega in the final."
    both = _ex("c", "Ortega and Lindqvist reached the final.", "Ortega and Lindqvist reached the final in June.")
    suite = build_attacks([both], categories=["role_swap"])
    assert not suite.attacks and suite.skipped and "two names" in suite.skipped[0].reason


def test_a_flip_the_context_already_states_is_skipped_never_faked():
    ex = _ex("s", "Rents rose.", "Rents rose. In the suburbs, rents fell.")
    suite = build_attacks([ex], categories=["direction_flip"])
    assert not suite.attacks and "context" in suite.skipped[0].reason
