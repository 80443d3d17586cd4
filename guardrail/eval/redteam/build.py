"""Building the attack suite from faithful answers: one attack per category and example, or the reason it was skipped.

Part of the red-team package; see ``guardrail/eval/redteam/__init__.py`` for what the suite is and why.
"""


from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import cast

from ...errors import InputError
from ..types import EvalExample, GoldSpan
from .models import (
    CATEGORIES,
    INJECTIONS,
    MUST_FLAG_CATEGORIES,
    PAIR_SWAPS,
    Attack,
    AttackSuite,
    Category,
    Mutation,
    SkippedAttack,
)
from .reword import reword
from .mutate import (
    CONNECTOR,
    META,
    PRONOUN_START,
    Edit,
    FLIP_CATEGORIES,
    Entity,
    apply,
    contains_word,
    ctx_text,
    date_edits,
    entities,
    flip_edits,
    meaning_problem,
    mid_sentence_in,
    negate,
    number_edits,
    role_edits,
    sentence_around,
    sentences,
)

# ---------------------------------------------------------------------------------------------
# Building attacks
# ---------------------------------------------------------------------------------------------


class _Builder:
    """State shared by the attacks of one ``build_attacks`` call: the donor pool and caches."""

    def __init__(self, donors: Sequence[EvalExample], seed: int, buried_chars: int):
        self.donors = list(donors)
        self.seed = seed
        self.buried_chars = buried_chars
        self._ents: dict[int, list[Entity]] = {}
        self._sents: dict[int, list[str]] = {}

    def rng(self, *parts: object) -> random.Random:
        # A string seed is hashed with SHA-512 by random.Random: stable across runs and PYTHONHASHSEED.
        return random.Random(":".join(str(p) for p in (self.seed, *parts)))

    def pool(self, ex: EvalExample, rng: random.Random) -> list[int]:
        """Indices of donors unrelated to ``ex`` (other group, other context), in a seeded order."""
        ctx = ctx_text(ex.context)
        idx = [
            i
            for i, d in enumerate(self.donors)
            if d.id != ex.id and (ex.group is None or d.group != ex.group) and ctx_text(d.context) != ctx
        ]
        rng.shuffle(idx)
        return idx

    def donor_entities(self, i: int) -> list[Entity]:
        """Names in a donor's prose; structured records (JSON data) give field values, not names."""
        if i not in self._ents:
            text = ctx_text(self.donors[i].context)
            self._ents[i] = [] if text.lstrip()[:1] in ("{", "[") else entities(text)
        return self._ents[i]

    def donor_sentences(self, i: int) -> list[str]:
        if i not in self._sents:
            text = ctx_text(self.donors[i].context)
            self._sents[i] = [text[s:e] for s, e in sentences(text)]
        return self._sents[i]

    # ---- response edits

    def entity_edits(self, ex: EvalExample, ctx: str, rng: random.Random) -> Iterator[Edit]:
        response = ex.response
        targets = [
            e
            for e in entities(response, allow_initial_single=mid_sentence_in(ctx), context_text=ctx)
            if contains_word(ctx, e.text, case=True)
        ]
        rng.shuffle(targets)
        pool = self.pool(ex, rng)[:80]
        for t in targets:
            # Preference: after the same word ("in", "by"), then from a donor of the same task, then any.
            same_slot: list[str] = []
            same_task: list[str] = []
            same_kind: list[str] = []
            for i in pool:
                for d in self.donor_entities(i):
                    if d.shape != t.shape or d.kind != t.kind or d.text in same_kind:
                        continue
                    if not self._entity_absent(d.text, ctx, response):
                        continue
                    same_kind.append(d.text)
                    if t.slot and d.slot == t.slot:
                        same_slot.append(d.text)
                    if self.donors[i].task == ex.task:
                        same_task.append(d.text)
            choices = same_slot or same_task or same_kind
            if choices:
                yield Edit(t.start, t.end, t.text, rng.choice(choices), "entity")

    @staticmethod
    def _entity_absent(name: str, ctx: str, response: str) -> bool:
        words = [w.lower() for w in name.split(" ") if not re.fullmatch(CONNECTOR, w)]
        return not any(contains_word(ctx, w) or contains_word(response, w) for w in words)

    def negation_edits(self, ex: EvalExample, ctx: str, rng: random.Random) -> Iterator[Edit]:
        spans = [(s, e) for s, e in sentences(ex.response) if not META.search(ex.response[s:e])]
        rng.shuffle(spans)
        for s, e in spans:
            edit = negate(ex.response, s, e)
            if edit is not None:
                yield edit

    def addition_edits(self, ex: EvalExample, ctx: str, rng: random.Random) -> Iterator[Edit]:
        ctx_terms = set(_content_terms(ctx))
        base = ex.response.rstrip()
        sep = " " if base.endswith((".", "!", "?", '"', "'", ")", "]", "\u201d")) else "\n\n"
        for i in self.pool(ex, rng)[:60]:
            eligible = []
            for sent in self.donor_sentences(i):
                if not (40 <= len(sent) <= 220) or re.search(r"[\n:{}\[\]|\\]", sent) or not sent.endswith("."):
                    continue
                if not sent[0].isupper() or PRONOUN_START.match(sent):
                    continue
                terms = set(_content_terms(sent))
                if len(terms) < 4 or len(terms & ctx_terms) / len(terms) >= 0.3:
                    continue
                eligible.append(sent)
            if eligible:
                sent = rng.choice(eligible)
                yield Edit(len(base), len(ex.response), ex.response[len(base) :], sep + sent, "addition")
                return

    def edits(self, category: str, ex: EvalExample, ctx: str, rng: random.Random) -> Iterator[Edit]:
        if category == "number_swap":
            return number_edits(ex.response, ctx, rng)
        if category == "date_shift":
            return date_edits(ex.response, ctx, rng)
        if category == "entity_swap":
            return self.entity_edits(ex, ctx, rng)
        if category == "negation":
            return self.negation_edits(ex, ctx, rng)
        if category == "unsupported_addition":
            return self.addition_edits(ex, ctx, rng)
        if category in FLIP_CATEGORIES:
            return self._outside_meta(ex.response, flip_edits(ex.response, FLIP_CATEGORIES[category], rng))
        if category == "role_swap":
            return self._outside_meta(ex.response, role_edits(ex.response, ctx, rng))
        raise InputError(category)

    @staticmethod
    def _outside_meta(response: str, found: Iterator[Edit]) -> Iterator[Edit]:
        """Edits outside sentences that talk about the answer itself ("Based on the passages, ...")."""
        for edit in found:
            s, e = sentence_around(response, edit.start)
            if not META.search(response[s:e]):
                yield edit

    # ---- context edits

    def bury(self, ex: EvalExample, rng: random.Random) -> tuple[str | list[str], str] | str:
        """The context in the middle of other examples' contexts, or the reason it cannot be done."""
        filler: list[str] = []
        total = 0
        for i in self.pool(ex, rng):
            text = ctx_text(self.donors[i].context).strip()
            if not text:
                continue
            filler.append(text)
            total += len(text)
            if total >= self.buried_chars:
                break
        if total < self.buried_chars:
            return f"not enough unrelated donor context ({total:,} < {self.buried_chars:,} characters)"
        half, before, acc = total / 2, [], 0
        for text in filler:
            if acc >= half:
                break
            before.append(text)
            acc += len(text)
        after = filler[len(before) :]
        if not after:  # one huge donor: split it
            before, after = before[:-1], before[-1:]
        original = ex.context if isinstance(ex.context, list) else [ex.context]
        passages = before + list(original) + after
        note = (
            f"context buried between {sum(map(len, before)):,} and {sum(map(len, after)):,} characters "
            f"of {len(filler)} other examples' contexts"
        )
        return (passages if isinstance(ex.context, list) else "\n\n".join(passages)), note

    def inject(self, ex: EvalExample, rng: random.Random) -> tuple[str | list[str], str, str]:
        """The context with an instruction planted at a sentence boundary inside one passage."""
        injection = rng.choice(INJECTIONS)
        passages = list(ex.context) if isinstance(ex.context, list) else [ex.context]
        k = rng.randrange(len(passages))
        text = passages[k]
        cuts = sorted({e for _, e in sentences(text)} | {0})
        cut = rng.choice(cuts)
        if cut == 0:
            passages[k] = injection + " " + text
        else:
            passages[k] = text[:cut] + " " + injection + text[cut:]
        where = f"passage {k + 1}, character {cut}" if len(passages) > 1 else f"character {cut}"
        return (passages if isinstance(ex.context, list) else passages[0]), injection, where


def _content_terms(text: str) -> list[str]:
    from ...evidence import content_terms

    return content_terms(text)




# ---------------------------------------------------------------------------------------------
# Public: build
# ---------------------------------------------------------------------------------------------


def build_attacks(
    examples: Sequence[EvalExample],
    *,
    categories: Sequence[str] | None = None,
    seed: int = 13,
    per_example: int = 1,
    donors: Sequence[EvalExample] | None = None,
    buried_chars: int = 20_000,
) -> AttackSuite:
    """Attacks from the faithful examples of ``examples``, plus every attack that could not be made.

    Pure and deterministic: the same examples, donors and seed give the same attacks (each example ×
    category draws from its own seeded generator, so asking for fewer categories does not change the
    others). ``donors`` (default: ``examples``) supply other contexts: entities for swaps, sentences
    for additions, filler for buried evidence; a donor never shares the source's group or context.
    ``per_example`` attacks per example and category, each on a different target where the category
    has targets; a missing one is a skip with its reason.
    """
    cats = check_categories(categories)
    if per_example < 1:
        raise InputError(f"per_example must be at least 1, got {per_example}")
    if buried_chars < 0:
        raise InputError(f"buried_chars must be >= 0, got {buried_chars}")
    b = _Builder(donors if donors is not None else examples, seed, buried_chars)
    suite = AttackSuite(seed=seed, categories=list(cats))
    for ex in examples:
        if ex.hallucinated is not False:
            suite.n_not_faithful += 1
            continue
        if not ex.response.strip() or not ctx_text(ex.context).strip():
            for cat in cats:
                suite.skipped.append(
                    SkippedAttack(source_id=ex.id, category=cat, reason="empty answer or empty context")
                )
            continue
        suite.n_sources += 1
        for cat in cats:
            made, reasons = _attacks_for(b, ex, cat, per_example)
            suite.attacks.extend(made)
            suite.skipped.extend(SkippedAttack(source_id=ex.id, category=cat, reason=r) for r in reasons)
    return suite


def make_attacks(
    examples: Sequence[EvalExample],
    *,
    categories: Sequence[str] | None = None,
    seed: int = 13,
    per_example: int = 1,
    donors: Sequence[EvalExample] | None = None,
    buried_chars: int = 20_000,
) -> list[Attack]:
    """The attacks of :func:`build_attacks` alone (use that when the skip counts matter)."""
    return build_attacks(
        examples, categories=categories, seed=seed, per_example=per_example, donors=donors, buried_chars=buried_chars
    ).attacks


def check_categories(categories: Sequence[str] | None) -> tuple[Category, ...]:
    if categories is None:
        return CATEGORIES
    unknown = [c for c in categories if c not in CATEGORIES]
    if unknown:
        raise InputError(
            f"unknown red-team categor{'y' if len(unknown) == 1 else 'ies'} {', '.join(map(repr, unknown))} (expected: {', '.join(CATEGORIES)})"
        )
    return cast("tuple[Category, ...]", tuple(dict.fromkeys(categories)))  # each one of CATEGORIES (checked above)


def _first_valid(
    b: _Builder,
    category: str,
    ex: EvalExample,
    ctx: str,
    rng: random.Random,
    n: int,
    avoid: set[tuple[int, int]] | None = None,
) -> tuple[list[Edit], Counter[str]]:
    """Up to ``n`` meaning-changing edits on distinct spans, and why rejected candidates failed."""
    found: list[Edit] = []
    rejected: Counter[str] = Counter()
    seen = set(avoid or ())
    for edit in b.edits(category, ex, ctx, rng):
        if (edit.start, edit.end) in seen:
            continue
        problem = meaning_problem(category, edit, ex.response, ctx)
        if problem:
            rejected[problem] += 1
            continue
        seen.add((edit.start, edit.end))
        found.append(edit)
        if len(found) >= n:
            break
    return found, rejected


_NO_TARGET = {
    "number_swap": "no quantity that the answer shares with the context (years, days of month, numbers in names and identifiers excluded)",
    "date_shift": "no year or month name that the answer shares with the context",
    "entity_swap": "no capitalised name shared by the answer and the context with an unsupported donor name of the same kind",
    "negation": "no verb phrase whose polarity a local edit can flip",
    "unsupported_addition": "no donor sentence unrelated to the context",
    "direction_flip": "no word of a direction (rose, fell, increased) to reverse",
    "relation_flip": "no order or comparison word (before, larger, oldest) to reverse",
    "modality_change": "no modal word (must, may, optional) to change",
    "quantifier_widened": "no quantifier (some, most, often) to widen",
    "role_swap": "no sentence naming two names of the same kind with a word between them",
}


def _skip_reason(category: str, rejected: Counter[str]) -> str:
    if rejected:
        problem, _ = rejected.most_common(1)[0]
        return f"{_NO_TARGET[category]}; candidates rejected: {problem}"
    return _NO_TARGET[category]


def _mutated_example(
    ex: EvalExample,
    attack_id: str,
    response: str,
    context: str | list[str],
    span: tuple[int, int] | None,
    label: str,
    hallucinated: bool | None,
) -> EvalExample:
    spans = (
        [GoldSpan(start=span[0], end=span[1], label=label)]
        if (hallucinated and span)
        else ([] if hallucinated is False else None)
    )
    return ex.model_copy(
        update={
            "id": attack_id,
            "response": response,
            "context": context,
            "hallucinated": hallucinated,
            "spans": spans,
            "group": ex.group or ex.id,
        }
    )


def _describe(edit: Edit) -> str:
    if edit.what == "addition":
        return f"appended an unsupported sentence: {edit.replacement.strip()!r}"
    return f"{edit.what} {edit.original!r} -> {edit.replacement!r}"


def _attacks_for(b: _Builder, ex: EvalExample, category: Category, per_example: int) -> tuple[list[Attack], list[str]]:
    ctx = ctx_text(ex.context)
    out: list[Attack] = []
    if category in MUST_FLAG_CATEGORIES:
        rng = b.rng(ex.id, category)
        edits, rejected = _first_valid(b, category, ex, ctx, rng, per_example)
        for k, edit in enumerate(edits):
            aid = f"{ex.id}/{category}/{k}"
            mutated, a, z = apply(ex.response, edit)
            if edit.what == "addition":  # the span is the sentence, not its separator
                a += len(edit.replacement) - len(edit.replacement.lstrip())
            out.append(
                Attack(
                    id=aid,
                    category=category,
                    kind="must_flag",
                    source_id=ex.id,
                    example=_mutated_example(ex, aid, mutated, ex.context, (a, z), category, True),
                    mutation=Mutation(
                        description=_describe(edit),
                        original=edit.original,
                        replacement=edit.replacement.strip() if edit.what == "addition" else edit.replacement,
                        start=a,
                        end=z,
                    ),
                )
            )
        reasons: list[str] = (
            [_skip_reason(category, rejected)] * (per_example - len(edits)) if len(edits) < per_example else []
        )
        if edits and reasons:
            reasons = [f"only {len(edits)} of {per_example} targets: " + r for r in reasons]
        return out, reasons

    reasons = []
    for k in range(per_example):
        rng = b.rng(ex.id, category, k)
        base = f"{ex.id}/{category}/{k}"
        if category in ("control", "reworded"):
            # A faithful answer that must pass: as given, or with its figures, dates and times said another way.
            if k > 0:
                break  # one per source: repeats would only copy it
            if category == "control":
                response, description = ex.response, "unchanged faithful answer and context"
            else:
                got = reword(ex.response, rng)
                if got is None:
                    reasons.append("no figure, date or time the text layer can reword")
                    continue
                response, description = got[0], "faithful rewording: " + ", ".join(got[1])
            out.append(
                Attack(
                    id=base,
                    category=category,
                    kind="must_not_fool",
                    source_id=ex.id,
                    example=_mutated_example(ex, base, response, ex.context, None, "", False),
                    mutation=Mutation(description=description),
                )
            )
            continue
        if category == "contradictory_passages":
            made = _contradict(b, ex, ctx, rng, base)
            if isinstance(made, str):
                reasons.append(made)
            else:
                out.append(made)
            continue
        # buried_evidence / prompt_injection: one context, a clean and a mutated answer
        if category == "buried_evidence":
            buried = b.bury(ex, rng)
            if isinstance(buried, str):
                reasons.append(buried)
                continue
            new_ctx, note = buried
            inserted = None
        else:
            new_ctx, inserted, where = b.inject(ex, rng)
            note = f"instruction planted in the context at {where}"
        out.append(
            Attack(
                id=base + "/clean",
                category=category,
                kind="must_not_fool",
                source_id=ex.id,
                example=_mutated_example(ex, base + "/clean", ex.response, new_ctx, None, category, False),
                mutation=Mutation(description=f"faithful answer; {note}", context_edit=note, inserted_context=inserted),
            )
        )
        swaps = list(PAIR_SWAPS)
        rng.shuffle(swaps)
        full_ctx = ctx_text(new_ctx)
        for swap in swaps:
            # The mutation is checked against the new context: the filler must not support it either.
            edits, _ = _first_valid(b, swap, ex, full_ctx, b.rng(ex.id, category, k, swap), 1)
            if edits:
                edit = edits[0]
                mutated, a, z = apply(ex.response, edit)
                out.append(
                    Attack(
                        id=base + "/mutated",
                        category=category,
                        kind="must_flag",
                        source_id=ex.id,
                        example=_mutated_example(
                            ex, base + "/mutated", mutated, new_ctx, (a, z), f"{category}+{swap}", True
                        ),
                        mutation=Mutation(
                            description=f"{swap}: {_describe(edit)}; {note}",
                            original=edit.original,
                            replacement=edit.replacement,
                            start=a,
                            end=z,
                            context_edit=note,
                            inserted_context=inserted,
                        ),
                    )
                )
                break
        else:
            reasons.append(f"mutated half: none of {', '.join(PAIR_SWAPS)} applies to this answer")
    return out, reasons


def _contradict(b: _Builder, ex: EvalExample, ctx: str, rng: random.Random, aid: str) -> Attack | str:
    """The context gains a copy of the sentence that states one of the answer's values, with that value
    changed; the answer is left as it is."""
    for swap in ("number_swap", "date_shift", "entity_swap"):  # a changed value is the clearest contradiction
        for edit in b.edits(swap, ex, ctx, rng):
            if meaning_problem(swap, edit, ex.response, ctx):
                continue
            hit = re.search(r"(?<![\w.,])" + re.escape(edit.original) + r"(?![\w]|[.,]\d)", ctx)
            if hit is None:
                continue  # the context writes the value differently ("1,000" vs "1000"): no clean copy
            ss, se = sentence_around(ctx, hit.start())
            sentence = ctx[ss:se]
            copy = sentence[: hit.start() - ss] + edit.replacement + sentence[hit.end() - ss :]
            if copy == sentence:
                continue
            passages = list(ex.context) if isinstance(ex.context, list) else [ex.context]
            pos = rng.randrange(len(passages) + 1)
            passages.insert(pos, copy)
            new_ctx: str | list[str] = passages if isinstance(ex.context, list) else "\n\n".join(passages)
            note = f"context gains a copy of {sentence!r} with {edit.original!r} -> {edit.replacement!r} (passage {pos + 1})"
            return Attack(
                id=aid,
                category="contradictory_passages",
                kind="must_not_fool",
                source_id=ex.id,
                example=_mutated_example(ex, aid, ex.response, new_ctx, None, "", None),
                mutation=Mutation(
                    description=note,
                    original=edit.original,
                    start=edit.start,
                    end=edit.end,
                    context_edit=note,
                    inserted_context=copy,
                ),
            )
    return "no number, year or name that the answer and a context sentence share (written the same way) to contradict"


