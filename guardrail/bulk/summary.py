"""The audit's summary: hallucination rates per group with 95% Wilson intervals, score distributions,
top error types and the highest-scoring flagged answers, as ``summary.json`` and ``summary.html``.

It is computed from the written Parquet of every finished shard (not from what this run checked), so
a resumed audit summarises all of its shards, and it streams shard by shard: memory grows with the
number of groups, not of answers. The HTML page uses the eval report's table and page helpers and
matplotlib's object API; without matplotlib the page is written without plots and says so.
"""

from __future__ import annotations

import heapq
import io
import posixpath
from datetime import datetime, timezone
from typing import Any

from pydantic import BaseModel, Field

from ..calibrate import Interval, wilson
from ..eval.report import Table, figure_class, html_page, html_table
from . import io as bulk_io
from .job import AuditJob, CheckSettings, ShardResult

__all__ = ["AuditSummary", "GroupRate", "ErrorTypeCount", "FlaggedAnswer", "summarize", "write_summary"]

BINS = 10  # equal-width score bins over [0, 1]
TOP = 20


class GroupRate(BaseModel):
    group: dict[str, str | None] = Field(description="Group key values (None: the row had no such field).")
    answers: int = Field(description="Input rows in the group, error rows included.")
    errors: int = Field(description="Rows that could not be checked (malformed, or the check failed).")
    checked: int
    flagged: int
    incomplete: int = Field(description="Checked, not flagged, but part of the answer was not checked.")
    rate: Interval = Field(description="flagged / checked with a 95% Wilson interval.")
    mean_score: float | None
    score_histogram: list[int] = Field(description=f"Checked answers per score bin ({BINS} equal bins over 0..1).")


class ErrorTypeCount(BaseModel):
    error_type: str = Field(description="The flagged claim's error type; 'unspecified' when the verifier gave none.")
    claims: int
    answers: int


class FlaggedAnswer(BaseModel):
    shard: str
    row: int
    id: str | None
    group: dict[str, str | None]
    hallucination_score: float


class AuditSummary(BaseModel):
    created: str
    input: str
    output: str
    settings: CheckSettings
    group_by: list[str]
    shards_total: int
    shards_done: int
    failed_shards: list[ShardResult] = Field(default_factory=list, description="Shards this run could not write.")
    answers: int
    errors: int
    checked: int
    flagged: int
    incomplete: int
    rate: Interval
    score_bins: list[float]
    score_histogram: list[int]
    groups: list[GroupRate]
    error_types: list[ErrorTypeCount]
    top_flagged: list[FlaggedAnswer] = Field(description=f"The {TOP} flagged answers with the highest scores.")


class _Counts:
    def __init__(self) -> None:
        self.answers = self.errors = self.checked = self.flagged = self.incomplete = 0
        self.score_sum = 0.0
        self.hist = [0] * BINS

    def add(self, error: str | None, score: float | None, flagged: bool | None, complete: bool | None) -> None:
        self.answers += 1
        if error is not None or score is None:
            self.errors += 1
            return
        self.checked += 1
        self.flagged += bool(flagged)
        self.incomplete += (not flagged) and (not complete)
        self.score_sum += score
        self.hist[min(BINS - 1, max(0, int(score * BINS)))] += 1

    def rate(self) -> Interval:
        return wilson(self.flagged, self.checked)


def summarize(job: AuditJob, failed: list[ShardResult] | None = None) -> AuditSummary:
    """Aggregates the answers and claims of every finished shard."""
    pa = bulk_io.require_pyarrow()
    total = _Counts()
    groups: dict[tuple[Any, ...], _Counts] = {}
    top: list[tuple[float, str, int, FlaggedAnswer]] = []
    types: dict[str, int] = {}
    type_answers: dict[str, set[tuple[str, int]]] = {}
    done = bulk_io.done_shards(job)
    keys = job.group_by
    for name in done:
        fs, path = bulk_io.answers_path(job, name)
        cols = ["row", "id", *keys, "hallucination_score", "flagged", "complete", "error"]
        table = pa.parquet.read_table(path, filesystem=fs, columns=cols).to_pydict()
        for i in range(len(table["row"])):
            group = {k: table[k][i] for k in keys}
            score, flagged = table["hallucination_score"][i], table["flagged"][i]
            args = (table["error"][i], score, flagged, table["complete"][i])
            total.add(*args)
            groups.setdefault(tuple(group.values()), _Counts()).add(*args)
            if flagged and table["error"][i] is None:
                entry = FlaggedAnswer(shard=name, row=table["row"][i], id=table["id"][i], group=group, hallucination_score=score)
                item = (score, name, -table["row"][i], entry)
                if len(top) < TOP:
                    heapq.heappush(top, item)
                elif item[:3] > top[0][:3]:
                    heapq.heapreplace(top, item)
        fs, path = bulk_io.claims_path(job, name)
        claims = pa.parquet.read_table(path, filesystem=fs, columns=["row", "flagged", "error_type"]).to_pydict()
        for row, flagged, etype in zip(claims["row"], claims["flagged"], claims["error_type"]):
            if flagged:
                etype = etype or "unspecified"
                types[etype] = types.get(etype, 0) + 1
                type_answers.setdefault(etype, set()).add((name, row))
    group_rates = [
        GroupRate(group=dict(zip(keys, values)), answers=c.answers, errors=c.errors, checked=c.checked, flagged=c.flagged,
                  incomplete=c.incomplete, rate=c.rate(), mean_score=c.score_sum / c.checked if c.checked else None,
                  score_histogram=c.hist)
        for values, c in sorted(groups.items(), key=lambda kv: (-kv[1].answers, [str(v) for v in kv[0]]))
    ] if keys else []
    return AuditSummary(
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        input=job.input, output=job.output, settings=job.settings, group_by=keys,
        shards_total=len(job.shards), shards_done=len(done), failed_shards=list(failed or []),
        answers=total.answers, errors=total.errors, checked=total.checked, flagged=total.flagged,
        incomplete=total.incomplete, rate=total.rate(), score_bins=[i / BINS for i in range(BINS + 1)],
        score_histogram=total.hist, groups=group_rates,
        error_types=[ErrorTypeCount(error_type=t, claims=n, answers=len(type_answers[t]))
                     for t, n in sorted(types.items(), key=lambda kv: (-kv[1], kv[0]))],
        top_flagged=[entry for *_, entry in sorted(top, key=lambda x: x[:3], reverse=True)],
    )


# ------------------------------------------------------------------------------------------ output


def _pct(interval: Interval) -> tuple[str, str]:
    return f"{interval.estimate:.1%}", f"{interval.low:.1%} – {interval.high:.1%}"


def _group_label(group: dict[str, str | None]) -> str:
    return ", ".join(f"{k}={'—' if v is None else v}" for k, v in group.items())


def _tables(s: AuditSummary) -> list[Table]:
    rate, ci = _pct(s.rate)
    out = [Table("Overall", ["answers", "checked", "flagged", "rate", "95% CI", "not fully checked", "error rows",
                             "shards done"],
                 [[str(s.answers), str(s.checked), str(s.flagged), rate, ci, str(s.incomplete), str(s.errors),
                   f"{s.shards_done} / {s.shards_total}"]],
                 note=f"verifier {s.settings.verifier}; rate = flagged / checked; error rows are malformed rows or "
                      "failed checks, with their reason in answers/*.parquet.")]
    if s.groups:
        out.append(Table(f"Per group ({', '.join(s.group_by)})",
                         ["group", "answers", "checked", "flagged", "rate", "95% CI", "mean score", "not fully checked",
                          "error rows"],
                         [[_group_label(g.group), str(g.answers), str(g.checked), str(g.flagged), *_pct(g.rate),
                           "—" if g.mean_score is None else f"{g.mean_score:.3f}", str(g.incomplete), str(g.errors)]
                          for g in s.groups]))
    if s.error_types:
        out.append(Table("Error types of flagged claims", ["error type", "claims", "answers"],
                         [[e.error_type, str(e.claims), str(e.answers)] for e in s.error_types]))
    if s.top_flagged:
        out.append(Table(f"Highest-scoring flagged answers (top {TOP})", ["id", "shard", "row", "group", "score"],
                         [[a.id or "—", a.shard, str(a.row), _group_label(a.group), f"{a.hallucination_score:.3f}"]
                          for a in s.top_flagged]))
    if s.failed_shards:
        out.append(Table("Shards not written (rerun to retry)", ["shard", "reason"],
                         [[f.shard, f.failure or ""] for f in s.failed_shards]))
    return out


def _png(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def _plots(s: AuditSummary) -> dict[str, tuple[bytes, str]]:
    """name -> (PNG bytes, caption)."""
    Figure = figure_class()
    plots: dict[str, tuple[bytes, str]] = {}
    if s.checked:
        fig = Figure(figsize=(6, 3.5), dpi=100)
        ax = fig.add_subplot()
        checked = [g for g in s.groups if g.checked]
        series = ([("all", s.score_histogram)] if len(checked) <= 1 else
                  [(_group_label(g.group), g.score_histogram) for g in checked[:6]])
        width = 1 / BINS / max(1, len(series))
        for i, (label, hist) in enumerate(series):
            n = sum(hist) or 1
            ax.bar([b / BINS + i * width for b in range(BINS)], [h / n for h in hist], width=width, align="edge",
                   label=label, color=f"C{i % 10}")
        ax.set(xlim=(0, 1), xlabel="answer hallucination score", ylabel="share of checked answers",
               title="Score distribution")
        if len(series) > 1:
            ax.legend(fontsize=7)
        plots["scores.png"] = (_png(fig), "Answer scores, share of each group's checked answers per bin")
    shown = [g for g in s.groups if g.checked][:30]
    if shown:
        fig = Figure(figsize=(6, 1.6 + 0.3 * len(shown)), dpi=100)
        ax = fig.add_subplot()
        ys = list(range(len(shown)))[::-1]
        rates = [g.rate.estimate for g in shown]
        ax.errorbar(rates, ys, xerr=[[r - g.rate.low for r, g in zip(rates, shown)],
                                     [g.rate.high - r for r, g in zip(rates, shown)]], fmt="o", capsize=3)
        ax.set_yticks(ys, [_group_label(g.group) for g in shown], fontsize=7)
        ax.set(xlim=(0, 1), ylim=(-0.7, len(shown) - 0.3), xlabel="flagged / checked (95% Wilson interval)",
               title="Hallucination rate per group")
        ax.grid(alpha=0.3)
        plots["rates.png"] = (_png(fig), "Hallucination rate per group (the 30 largest groups)")
    return plots


def write_summary(job: AuditJob, summary: AuditSummary) -> dict[str, str]:
    """``summary.json``, ``summary.html`` and ``plots/*.png`` in the output folder; returns their paths."""
    import html

    fs, root = bulk_io.resolve(job.output)
    written: dict[str, str] = {}

    def put(name: str, data: bytes) -> None:
        path = posixpath.join(root, name)
        fs.create_dir(posixpath.dirname(path), recursive=True)
        with fs.open_output_stream(path) as handle:
            handle.write(data)
        written[name] = path

    put("summary.json", (summary.model_dump_json(indent=2) + "\n").encode("utf-8"))
    body = [f"<h1>Hallucination audit: {html.escape(summary.input)}</h1>",
            f"<p>{summary.answers} answers in {summary.shards_done} of {summary.shards_total} shards; "
            f"created {html.escape(summary.created)}.</p>"]
    for table in _tables(summary):
        body += html_table(table)
    try:
        plots = _plots(summary)
    except ImportError:
        plots = {}
        body.append("<p class='note'>Plots need matplotlib: pip install 'rag-guardrail[bulk]'.</p>")
    for name, (png, caption) in plots.items():
        put(f"plots/{name}", png)
        body.append(f"<figure><img src='plots/{html.escape(name)}' alt='{html.escape(caption)}'>"
                    f"<figcaption>{html.escape(caption)}</figcaption></figure>")
    put("summary.html", html_page("guardrail audit", body).encode("utf-8"))
    return written
