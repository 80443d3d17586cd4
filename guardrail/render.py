"""Terminal rendering of a report with rich; kept apart so the core never imports a UI library."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .types import CheckReport, Label, is_flagged

__all__ = ["print_report", "report_table"]

_STYLE = {
    Label.supported: "green",
    Label.partially_supported: "yellow",
    Label.unsupported: "red",
    Label.contradicted: "bold red",
    Label.unevaluatable: "magenta",
}


def _clip(text: str, width: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def report_table(report: CheckReport, title: str | None = None) -> Table:
    table = Table(title=title, show_lines=True, expand=False)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("claim", ratio=3)
    table.add_column("label", no_wrap=True)
    table.add_column("conf.", justify="right", no_wrap=True)
    table.add_column("halluc.", justify="right", no_wrap=True)
    table.add_column("evidence", ratio=3)
    for claim in report.claims:
        v = report.verdict_for(claim.id)
        if v is None:
            table.add_row(Text(claim.id), Text(_clip(claim.text)), Text("no verdict", style="magenta"), "", "", "")
            continue
        label = v.label.value + (f" ({v.error_type.value})" if v.error_type else "")
        flagged = is_flagged(v.label, v.hallucination_score, report.threshold)
        evidence = (
            f"[{v.evidence_span.evidence_id}] {_clip(v.evidence_span.text, 120)}" if v.evidence_span else (v.reason or "")
        )
        # Every cell from the report is a Text, never a str: rich would read "[1]" or "[doc-id]" in a
        # claim or an evidence id as markup and drop it from the table.
        table.add_row(
            Text(claim.id),
            Text(_clip(claim.text, 160), style="bold" if flagged else ""),
            Text(label, style=_STYLE[v.label]),
            f"{v.confidence:.2f}",
            f"{v.hallucination_score:.2f}",
            Text(_clip(evidence, 160)),
        )
    return table


def print_report(report: CheckReport, console: Console | None = None, title: str | None = None) -> None:
    console = console or Console()
    console.print(report_table(report, title=title))
    missing = report.not_checked_summary()
    if report.hallucinated:
        verdict = Text("HALLUCINATION FLAGGED", style="bold red")
    elif missing:  # nothing flagged because something was not checked is not a clean report
        verdict = Text(f"NOT FULLY CHECKED: {missing}", style="bold magenta")
    else:
        verdict = Text("no claim flagged", style="green")
    summary = Text.assemble(
        verdict,
        f"  score {report.hallucination_score:.2f} (threshold {report.threshold:.2f}), ",
        f"{len(report.claims)} claims, verifier {report.verifier}, {report.latencies_ms.get('total', 0):.0f} ms",
    )
    console.print(summary)
    if report.citations and report.citations.results:
        ap = report.citations.attribution_precision
        console.print(f"citations: {len(report.citations.results)} checked, attribution precision {ap:.2f}" if ap is not None else "citations: none resolvable")
        for r in report.citations.results:
            if not (r.exists and r.supports is not False and r.quote_ok is not False):
                console.print(Text(f"  {r.marker} on {r.claim_id}: {r.reason or 'not supported'}", style="red"))
    if report.schema_result and not report.schema_result.valid:
        for issue in report.schema_result.issues:
            console.print(Text(f"schema: {issue.path}: {issue.message}", style="red"))
    for s in report.skipped:
        console.print(Text(f"not checked ({s.check}): {s.reason}", style="magenta"))
    for u in report.unchecked_factual:
        console.print(Text(f"not checked ({u.reason}, chars {u.start}-{u.end}): {_clip(u.text)}", style="magenta"))
