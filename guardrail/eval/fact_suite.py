"""The fact red team: hand-written cases of one blatant error each, and faithful rewordings that must pass.

Why this exists: corpus benchmarks (RAGTruth and the like) average over long, noisy answers, so a
detector can score well there and still miss the errors a careful human reader checks first (a
swapped number, mg for micrograms, "at least" for "up to", a dropped "only if", the wrong party
quoted) or cry wolf on a faithful answer that merely rounds, converts units or reformats a date.
``guardrail/eval/data/fact_cases.jsonl`` holds small cases of both kinds, one idea per case:

- ``must_catch`` rows (expect "flag"): the answer contains exactly one checkable error; 27 categories.
- ``control`` rows (expect "pass"): the answer is faithful to the context, only reworded; 14 categories.

A row counts as flagged when ``Guardrail(verifier=...).check(answer, context, question).hallucinated``
is true. Per category it prints n, the share flagged and the rate that matters for that kind (caught
for must_catch, false alarm for control), then the totals: must_catch caught overall, the weakest
must_catch category, the control false-alarm rate and the median time per answer.

Two files ship: ``fact_cases.jsonl`` (the development set the fact checks were built against) and
``fact_cases_holdout.jsonl`` (written apart by someone who never saw the first file or the code, and
never tuned to: report both). Run:

    guardrail redteam --suite facts                                  # both files, default verifier
    guardrail redteam --suite facts --verifier heuristic --show-failures
    guardrail redteam --suite facts --dataset holdout --category unit_swap --json out.json
    python benchmarks/fact_cases.py ...                              # the same, as a script

The data file is validated, without running any model, by ``tests/test_fact_cases_data.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

#: The shipped case files by name: the development set and the holdout set.
DATA_FILES = {
    "dev": Path(__file__).resolve().parent / "data" / "fact_cases.jsonl",
    "holdout": Path(__file__).resolve().parent / "data" / "fact_cases_holdout.jsonl",
}
DATA = DATA_FILES["dev"]

KINDS = ("must_catch", "control")


# --------------------------------------------------------------------------- entry point


def main(argv: list[str] | None = None) -> int:
    return run_from_args(parse_args(argv))


def run_from_args(args: argparse.Namespace) -> int:
    """Run the suite for parsed options (this module's parser, or `guardrail redteam --suite facts`)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    specs = args.data or ["dev", "holdout"]
    for spec in specs:
        rc = _run_one(args, DATA_FILES.get(str(spec), Path(spec)))
        if rc:
            return rc
    return 0


def _run_one(args: argparse.Namespace, path: Path) -> int:
    from ..errors import InputError

    if not path.is_file():
        raise InputError(f"fact cases file not found: {path} (or name one of {', '.join(DATA_FILES)})")
    cases = load_cases(path)
    if args.category:
        unknown = sorted(set(args.category) - {c["category"] for c in cases})
        if unknown:
            print(f"unknown categories: {', '.join(unknown)}", file=sys.stderr)
            return 2
        cases = [c for c in cases if c["category"] in set(args.category)]

    from guardrail import Guardrail  # heavy import: only when we actually run

    guard = Guardrail(verifier=args.verifier)
    results = run_cases(guard, cases)
    summary = summarize(results)

    print(f"\nverifier: {guard.verifier.name}   threshold: {guard.threshold:.3f}   cases: {len(results)}   data: {path}")
    print_table(summary)
    if args.show_failures:
        print_failures(results)
    if args.json:
        out = Path(args.json)
        write_json(out.with_name(f"{out.stem}-{path.stem}{out.suffix}") if len(args.data or [1, 2]) > 1 else out,
                   guard, summary, results)
    return 0


def add_options(ap: argparse.ArgumentParser, data_flag: str = "--data") -> None:
    ap.add_argument("--category", action="append", default=[], help="only this category (repeatable)")
    ap.add_argument("--show-failures", action="store_true",
                    help="print each missed must_catch and each flagged control, with claim labels and reasons")
    ap.add_argument("--json", type=Path, metavar="OUT", help="write the summary and per-case results to OUT")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--verifier", default="default",
                    help="Guardrail verifier spec (default: the library default; e.g. heuristic, grounding, hf:PATH)")
    ap.add_argument("--data", action="append", default=[],
                    help=f"cases file or one of {', '.join(DATA_FILES)} (repeatable; default: both)")
    add_options(ap)
    return ap.parse_args(argv)


# --------------------------------------------------------------------------- data


def load_cases(path: Path = DATA) -> list[dict[str, Any]]:
    """The rows of the JSONL file, in file order (blank lines skipped)."""
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


# --------------------------------------------------------------------------- running


@dataclass
class ClaimOutcome:
    text: str
    label: str | None
    score: float | None
    reason: str | None


@dataclass
class CaseResult:
    id: str
    category: str
    kind: str
    expect: str
    flagged: bool
    ms: float
    answer: str
    why: str
    hallucination_score: float | None = None
    error: str | None = None
    claims: list[ClaimOutcome] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    @property
    def correct(self) -> bool:
        return self.flagged == (self.expect == "flag")


def run_cases(guard: Any, cases: list[dict[str, Any]]) -> list[CaseResult]:
    """Checks every case with ``guard``; a case whose check raises counts as not flagged, error kept."""
    return [run_case(guard, case) for case in cases]


def run_case(guard: Any, case: dict[str, Any]) -> CaseResult:
    base = dict(id=case["id"], category=case["category"], kind=case["kind"], expect=case["expect"],
                answer=case["answer"], why=case.get("why", ""))
    start = time.perf_counter()
    try:
        report = guard.check(answer=case["answer"], context=case["context"], question=case.get("question"))
    except Exception as exc:  # noqa: BLE001 - one broken case must not stop the benchmark
        return CaseResult(**base, flagged=False, ms=(time.perf_counter() - start) * 1000,
                          error=f"{type(exc).__name__}: {exc}")
    ms = (time.perf_counter() - start) * 1000
    claims = []
    for claim in report.claims:
        verdict = report.verdict_for(claim.id)
        claims.append(ClaimOutcome(
            text=claim.text,
            label=verdict.label.value if verdict else None,
            score=verdict.hallucination_score if verdict else None,
            reason=verdict.reason if verdict else None,
        ))
    return CaseResult(**base, flagged=bool(report.hallucinated), ms=ms,
                      hallucination_score=report.hallucination_score, claims=claims,
                      skipped=[f"{s.check}: {s.reason}" for s in report.skipped])


# --------------------------------------------------------------------------- scoring


def summarize(results: list[CaseResult]) -> dict[str, Any]:
    """Per-category and overall rates. For must_catch the flagged share is the caught rate; for control
    it is the false-alarm rate."""
    by_cat: dict[tuple[str, str], list[CaseResult]] = defaultdict(list)
    for r in results:
        by_cat[(r.kind, r.category)].append(r)

    categories: list[dict[str, Any]] = []
    for kind in KINDS:
        for (k, cat), rows in by_cat.items():
            if k != kind:
                continue
            share = sum(r.flagged for r in rows) / len(rows)
            categories.append({
                "category": cat, "kind": kind, "n": len(rows), "flagged": share,
                "caught": share if kind == "must_catch" else None,
                "false_alarm": share if kind == "control" else None,
                "errors": sum(r.error is not None for r in rows),
            })

    def rate(kind: str) -> float | None:
        rows = [r for r in results if r.kind == kind]
        return sum(r.flagged for r in rows) / len(rows) if rows else None

    caught = [c for c in categories if c["kind"] == "must_catch"]
    weakest = min(caught, key=lambda c: c["caught"]) if caught else None
    return {
        "categories": categories,
        "must_catch_n": sum(r.kind == "must_catch" for r in results),
        "control_n": sum(r.kind == "control" for r in results),
        "must_catch_caught": rate("must_catch"),
        "min_category_caught": weakest["caught"] if weakest else None,
        "min_category": weakest["category"] if weakest else None,
        "control_false_alarm": rate("control"),
        "median_ms": statistics.median(r.ms for r in results) if results else None,
        "errors": sum(r.error is not None for r in results),
    }


# --------------------------------------------------------------------------- output


def _pct(x: float | None) -> str:
    return "" if x is None else f"{100 * x:5.1f}%"


def print_table(summary: dict[str, Any]) -> None:
    print(f"\n{'category':<22} {'kind':<11} {'n':>3} {'flagged':>8} {'caught':>8} {'false alarm':>12}")
    kind = None
    for c in summary["categories"]:
        if c["kind"] != kind:
            kind = c["kind"]
            print("-" * 68)
        err = f"   ({c['errors']} errors)" if c["errors"] else ""
        print(f"{c['category']:<22} {c['kind']:<11} {c['n']:>3} {_pct(c['flagged']):>8} "
              f"{_pct(c['caught']):>8} {_pct(c['false_alarm']):>12}{err}")
    print("-" * 68)
    print(f"must_catch caught overall:   {_pct(summary['must_catch_caught'])}  (n={summary['must_catch_n']})")
    if summary["min_category"] is not None:
        print(f"min category caught rate:    {_pct(summary['min_category_caught'])}  ({summary['min_category']})")
    print(f"control false-alarm rate:    {_pct(summary['control_false_alarm'])}  (n={summary['control_n']})")
    if summary["median_ms"] is not None:
        print(f"median ms per answer:        {summary['median_ms']:.1f}")
    if summary["errors"]:
        print(f"cases whose check raised:    {summary['errors']}")


def print_failures(results: list[CaseResult]) -> None:
    failures = [r for r in results if not r.correct]
    print(f"\nfailures: {len(failures)}")
    for r in failures:
        what = "MISSED" if r.kind == "must_catch" else "FALSE ALARM"
        score = "" if r.hallucination_score is None else f"  score={r.hallucination_score:.3f}"
        print(f"\n[{what}] {r.id}{score}")
        print(f"  why:    {r.why}")
        print(f"  answer: {r.answer!r}")
        if r.error:
            print(f"  error:  {r.error}")
        for c in r.claims:
            s = "" if c.score is None else f" {c.score:.3f}"
            print(f"  - {c.label or 'no verdict'}{s}: {c.text!r}")
            if c.reason:
                print(f"      reason: {c.reason}")
        for s in r.skipped:
            print(f"  skipped: {s}")


def write_json(out: Path, guard: Any, summary: dict[str, Any], results: list[CaseResult]) -> None:
    payload = {
        "verifier": guard.verifier.name,
        "threshold": guard.threshold,
        "summary": summary,
        "results": [asdict(r) | {"correct": r.correct} for r in results],
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(payload, indent=2, ensure_ascii=False), encoding="utf-8")
    print(f"\nwrote {out}")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
