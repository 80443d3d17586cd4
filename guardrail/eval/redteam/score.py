"""Running a guardrail on the attacks and scoring it: what counts as handled, per category and kind.

Part of the red-team package; see ``guardrail/eval/redteam/__init__.py`` for what the suite is and why.
"""


from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ...errors import InputError
from ..runner import EvalConfig
from .models import Attack, AttackOutcome, AttackSuite, Category, CategoryScore, Kind, RedteamResult

if TYPE_CHECKING:  # pragma: no cover

    from ...types import CheckReport

# ---------------------------------------------------------------------------------------------
# Public: run and score
# ---------------------------------------------------------------------------------------------

_FLAG_LABELS = ("contradicted", "unsupported")
_DOUBT_LABELS = ("contradicted", "unsupported", "partially_supported")


def handled(attack: Attack, report: CheckReport) -> tuple[bool, str]:
    """Whether ``report`` handles ``attack``, and why.

    * must_flag: a claim overlapping the mutated span is flagged (contradicted / unsupported at or above
      the threshold). Without a span, the report must be flagged.
    * must_not_fool (clean answer): the report is not flagged, and no claim is unevaluatable (a check
      that did not run is not a pass).
    * contradictory_passages: the claim holding the contested value is *not passed as supported*: its
      label is contradicted, unsupported or partially_supported, at any score (even under the flagging
      threshold, noticing the conflict counts). Labelled supported, unevaluatable, or no claim covering
      the value: not handled. Flagging the answer is not required: it agrees with one of the passages.
    """
    m = attack.mutation
    if attack.kind == "must_flag" or attack.category == "contradictory_passages":
        if m.start is None or m.end is None:
            return (
                report.hallucinated,
                f"no span: report {'flagged' if report.hallucinated else 'not flagged'} (score {report.hallucination_score:.2f})",
            )
        a, z = m.start, m.end
        over = [c for c in report.claims if c.start < z and a < c.end]
        if not over:
            return False, f"no claim covers the targeted span {a}-{z}"
        parts = []
        for c in over:
            v = report.verdict_for(c.id)
            if v is None:
                parts.append(f"claim {c.id}: no verdict")
                continue
            parts.append(f"claim {c.id} {v.label.value} {v.hallucination_score:.2f}")
            if attack.category == "contradictory_passages":
                if v.label.value in _DOUBT_LABELS:
                    return True, f"claim {c.id} not passed as supported: {v.label.value} {v.hallucination_score:.2f}"
            elif v.label.value in _FLAG_LABELS and v.hallucination_score >= report.threshold:
                return True, f"flagged claim {c.id}: {v.label.value} {v.hallucination_score:.2f} >= {report.threshold}"
        verb = "passed as supported or not evaluated" if attack.category == "contradictory_passages" else "not flagged"
        return False, f"{verb}: " + "; ".join(parts)
    unevaluated = [v for v in report.verdicts if v.label.value == "unevaluatable"]
    if report.hallucinated:
        worst = max(report.flagged, key=lambda cv: cv[1].hallucination_score, default=None)
        where = f": claim {worst[0].id} {worst[1].label.value} {worst[1].hallucination_score:.2f}" if worst else ""
        return False, f"clean answer flagged{where}"
    if unevaluated:
        return False, f"{len(unevaluated)} claim(s) unevaluatable: {unevaluated[0].reason}"
    return True, f"not flagged (score {report.hallucination_score:.2f})"


def run_redteam(
    attacks: Sequence[Attack] | AttackSuite,
    configs: Sequence[EvalConfig],
    *,
    llm: Any = None,
    progress: bool = True,
    dataset: str | None = None,
    make_guardrail: Callable[[EvalConfig], Any] | None = None,
) -> RedteamResult:
    """Checks every attack with every configuration and scores the share handled per category.

    Each configuration (the eval runner's :class:`EvalConfig`) is
    ``Guardrail(verifier=make_verifier(spec, llm), threshold=...)`` unless
    ``make_guardrail`` builds it (tests pass fakes that way). Every guardrail is built before any attack
    runs, so a bad spec fails at once. An attack whose check raises is a failure carrying the message.
    """
    suite = attacks if isinstance(attacks, AttackSuite) else None
    items = list(attacks.attacks if isinstance(attacks, AttackSuite) else attacks)
    if not configs:
        raise InputError("no verifier configuration to run")
    names = [c.name for c in configs]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise InputError(f"configuration names must be unique; repeated: {', '.join(dupes)}")
    build = make_guardrail or (lambda cfg: _default_guardrail(cfg, llm))
    guardrails = []
    for cfg in configs:
        guard = build(cfg)
        used = getattr(guard, "threshold", cfg.threshold)
        guardrails.append((cfg.model_copy(update={"threshold": used}), guard))

    from tqdm import tqdm

    outcomes: list[AttackOutcome] = []
    with tqdm(
        total=len(items) * len(configs), unit="attack", disable=not progress, file=sys.stderr, desc="redteam"
    ) as bar:
        for cfg, guard in guardrails:
            for attack, report in zip(items, _checked(guard, items)):
                outcomes.append(_outcome(attack, cfg, report))
                bar.update(1)
    categories = list(suite.categories) if suite else list(dict.fromkeys(a.category for a in items))
    return _score(outcomes, [c for c, _ in guardrails], categories, suite, dataset, len(items))


def _checked(guard: Any, attacks: Sequence[Attack]) -> Iterator[Any]:
    """One report or exception per attack, in order. ``check_batch`` yields an item's own error in place,
    but a verifier that raises something other than BackendError ends the whole batch: the attacks not
    reached yet are then checked one at a time, each keeping its own error."""
    done = 0
    try:
        for report in guard.check_batch(
            {"id": a.id, "response": a.example.response, "context": a.example.context, "question": a.example.question}
            for a in attacks
        ):
            yield report
            done += 1
    except Exception:  # noqa: BLE001 - recovered below, per attack
        for a in attacks[done:]:
            try:
                yield guard.check(a.example.response, a.example.context, a.example.question)
            except Exception as exc:  # noqa: BLE001 - recorded as that attack's failure
                yield exc


def _default_guardrail(cfg: EvalConfig, llm: Any) -> Any:
    from ...guardrail import Guardrail
    from ...verifiers import make_verifier

    return Guardrail(verifier=make_verifier(cfg.verifier, llm), threshold=cfg.threshold)


def _outcome(attack: Attack, cfg: EvalConfig, report: Any) -> AttackOutcome:
    common: dict[str, Any] = {
        "attack_id": attack.id, "config": cfg.name, "category": attack.category, "kind": attack.kind,
    }
    if isinstance(report, Exception):
        msg = f"{type(report).__name__}: {report}"
        return AttackOutcome(**common, handled=False, detail=f"check raised {msg}", error=msg)
    failure = getattr(report, "verifier_failure", None)
    if failure is not None:
        # The verifier could not run (the pipeline turned its exception into a skipped check): an error
        # of this configuration, recorded with its message, never a handled or unhandled attack.
        return AttackOutcome(**common, handled=False, detail=f"verifier did not run: {failure}", error=failure)
    try:
        ok, detail = handled(attack, report)
    except Exception as exc:  # noqa: BLE001 - a malformed report is that attack's failure, not the run's
        msg = f"{type(exc).__name__}: {exc}"
        return AttackOutcome(**common, handled=False, detail=f"could not score the report: {msg}", error=msg)
    return AttackOutcome(
        **common, handled=ok, flagged=report.hallucinated, hallucination_score=report.hallucination_score, detail=detail
    )


def _cell(cfg: str, category: Category, kind: Kind | None, rows: list[AttackOutcome]) -> CategoryScore:
    correct = sum(o.handled for o in rows)
    return CategoryScore(
        config=cfg,
        category=category,
        kind=kind,
        n=len(rows),
        correct=correct,
        score=round(correct / len(rows), 4) if rows else None,
        errors=sum(o.error is not None for o in rows),
        failing=[o.attack_id for o in rows if not o.handled],
    )


def _score(
    outcomes: list[AttackOutcome],
    configs: Sequence[EvalConfig],
    categories: list[Category],
    suite: AttackSuite | None,
    dataset: str | None,
    n_attacks: int,
) -> RedteamResult:
    scores: list[CategoryScore] = []
    overall: dict[str, float | None] = {}
    for cfg in configs:
        mine = [o for o in outcomes if o.config == cfg.name]
        per_cat = []
        for cat in categories:
            rows = [o for o in mine if o.category == cat]
            cell = _cell(cfg.name, cat, None, rows)
            scores.append(cell)
            kinds = sorted({o.kind for o in rows})
            if len(kinds) > 1:
                scores.extend(_cell(cfg.name, cat, k, [o for o in rows if o.kind == k]) for k in kinds)
            if cat != "control" and cell.score is not None:
                per_cat.append(cell.score)
        overall[cfg.name] = round(sum(per_cat) / len(per_cat), 4) if per_cat else None
    skipped = Counter(s.category for s in suite.skipped) if suite else Counter()
    reasons: dict[str, dict[str, int]] = {}
    for s in suite.skipped if suite else []:
        reasons.setdefault(s.category, {})
        reasons[s.category][s.reason] = reasons[s.category].get(s.reason, 0) + 1
    return RedteamResult(
        configs=list(configs),
        categories=categories,
        seed=suite.seed if suite else 13,
        dataset=dataset,
        n_sources=suite.n_sources if suite else len({o.attack_id.split("/")[0] for o in outcomes}),
        n_attacks=n_attacks,
        scores=scores,
        overall=overall,
        skipped={c: skipped.get(c, 0) for c in categories},
        skip_reasons=reasons,
        outcomes=outcomes,
    )


