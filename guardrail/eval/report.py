"""Reports of an :class:`~guardrail.eval.runner.EvalResult`: JSON, Markdown tables, HTML with PNG plots.

The tables are built once as plain rows and rendered twice (Markdown and HTML), so the two never
disagree. Plots use matplotlib's object API (``Figure`` + Agg canvas), not ``pyplot``: no global
backend switch in a process that may have its own. matplotlib is an optional dependency (the
``eval`` extra); JSON and Markdown are written first, so a missing matplotlib never costs the results.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import BackendError, InputError
from . import metrics as M
from .runner import ConfigResult, EvalResult, ExampleResult, Metrics

__all__ = ["write_report", "markdown", "Table", "tables", "html_table", "html_page", "figure_class"]

_NONE = "—"


@dataclass
class Table:
    title: str
    header: list[str]
    rows: list[list[str]]
    note: str = ""
    level: int = 2
    plots: list[str] = field(default_factory=list)


def _f(x: float | None, digits: int = 3) -> str:
    return _NONE if x is None else f"{x:.{digits}f}"


def _ms(x: float | None) -> str:
    return _NONE if x is None else (f"{x:.0f}" if x >= 100 else f"{x:.1f}")


def _ratio(clean: float | None, hall: float | None, ratio: float | None) -> str:
    if ratio is not None:
        return f"{ratio:.2f}"
    if clean == 0 and hall:
        return "∞"  # no clean claim flagged at all
    return _NONE


_MAIN_HEADER = [
    "config", "n (halluc.)", "AUC", "ECE",
    "policy t", "P", "R", "F1", "BAcc",
    "tuned t", "P", "R", "F1", "BAcc",
    "span F1 (policy / tuned)", "p50 ms", "p95 ms", "errors / incomplete",
]


def _main_row(label: str, m: Metrics) -> list[str]:
    pol, tun = m.policy, m.tuned

    def point(t: Any) -> list[str]:
        if t is None:
            return [_NONE] * 5
        return [f"{t.threshold:.3g}", _f(t.precision), _f(t.recall), _f(t.f1), _f(t.balanced_accuracy)]

    spans = (pol.span_f1 if pol else None, tun.span_f1 if tun else None)
    return [
        label, f"{m.n} ({m.hallucinated})", _f(m.auc), _f(m.ece),
        *point(pol), *point(tun),
        _NONE if spans == (None, None) else f"{_f(spans[0])} / {_f(spans[1])}",
        _ms(m.latency_p50_ms), _ms(m.latency_p95_ms), f"{m.errors} / {m.incomplete}",
    ]


def _shown(m: Metrics | None) -> bool:
    # A task whose examples all landed in the calibration part has nothing to show.
    return m is not None and (m.n > 0 or m.errors > 0)


def _name(c: ConfigResult) -> str:
    return c.config.name if c.config.name == c.config.verifier else f"{c.config.name} ({c.config.verifier})"


def tables(result: EvalResult) -> list[Table]:
    """Every table of the report, in order: overall, then per dataset (and its tasks), per task,
    claim-level proxies."""
    out: list[Table] = []
    note = (f"Evaluation part only (calibration fraction {result.calibration_fraction:g}, seed {result.seed}). "
            "policy t: the configuration's threshold as the product applies it (a claim is flagged when the "
            "verifier labels it contradicted/unsupported and its score reaches t); tuned t: the response score "
            "with the best F1 on the calibration part. Latency: one check, all examples.")
    if len(result.datasets) > 1:
        out.append(Table("All datasets", _MAIN_HEADER, [_main_row(_name(c), c.overall) for c in result.configs],
                         note=note + " Tuned t: on all calibration parts pooled."))
    for d in result.datasets:
        info = result.split[d]
        rows = [_main_row(_name(c), c.datasets[d]) for c in result.configs]
        out.append(Table(
            d, _MAIN_HEADER, rows, plots=[f"pr_{_slug(d)}.png"],
            note=(f"{info.evaluation_examples} evaluation examples ({info.evaluation_groups} group(s)); "
                  f"{info.calibration_examples} for calibration ({info.calibration_groups} group(s)). "
                  + (note if len(result.datasets) == 1 else "")),
        ))
        tasks = sorted({t for c in result.configs for t in c.datasets[d].tasks})
        if len(tasks) > 1:
            out.append(Table(f"{d} per task", ["task", *_MAIN_HEADER],
                             [[t, *_main_row(_name(c), c.datasets[d].tasks[t])]
                              for t in tasks for c in result.configs if _shown(c.datasets[d].tasks.get(t))],
                             note=f"At the thresholds of {d}.", level=3))
    tasks = sorted({t for c in result.configs for t in c.tasks})
    if len(tasks) > 1 and len(result.datasets) > 1:
        out.append(Table("Per task, all datasets", ["task", *_MAIN_HEADER],
                         [[t, *_main_row(_name(c), c.tasks[t])] for t in tasks for c in result.configs if _shown(c.tasks.get(t))],
                         note="At the pooled tuned threshold."))
    proxy_rows = []
    for c in result.configs:
        scopes = [("all", c.overall)] if len(result.datasets) > 1 else []
        scopes += [(d, c.datasets[d]) for d in result.datasets]
        for scope, m in scopes:
            for which, point in (("policy", m.policy), ("tuned", m.tuned)):
                if point is None or point.proxy is None:
                    continue
                p = point.proxy
                proxy_rows.append([
                    _name(c), scope, f"{which} {point.threshold:.3g}", str(p.pairs),
                    f"{p.clean_claims} / {p.hallucinated_claims}", _f(p.clean_flag_rate), _f(p.hallucinated_flag_rate),
                    _ratio(p.clean_flag_rate, p.hallucinated_flag_rate, p.flag_rate_ratio), _f(p.claim_auc),
                ])
    cost_rows = [[_name(c), _f(c.overall.llm_calls_per_answer, 2), _f(c.overall.llm_tokens_per_answer, 1)]
                 for c in result.configs if c.overall.llm_calls_per_answer]
    if cost_rows:
        out.append(Table("LLM cost per answer", ["config", "calls", "tokens"], cost_rows,
                         note="Mean over every checked example (both parts), as the LLM server reported its usage."))
    if proxy_rows:
        out.append(Table(
            "Claim-level proxies (paired responses)",
            ["config", "dataset", "threshold", "pairs", "claims clean / halluc.", "clean flag rate",
             "halluc. flag rate", "ratio", "claim AUC"],
            proxy_rows,
            note="Over groups holding both a hallucinated and a faithful response; each claim inherits its "
                 "response's label. A useful checker flags claims of hallucinated responses far more often.",
        ))
    return out


def _cell_md(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def markdown(result: EvalResult) -> str:
    """The report's tables as Markdown (what ``guardrail eval`` prints)."""
    lines = [f"# Evaluation: {', '.join(result.datasets)}", "",
             f"{result.n_examples} examples, {len(result.configs)} configuration(s); created {result.created}.", ""]
    for t in tables(result):
        lines += [f"{'#' * t.level} {t.title}", ""]
        if t.note:
            lines += [t.note, ""]
        lines.append("| " + " | ".join(_cell_md(h) for h in t.header) + " |")
        lines.append("|" + "|".join("---" for _ in t.header) + "|")
        lines += ["| " + " | ".join(_cell_md(c) for c in row) + " |" for row in t.rows]
        lines.append("")
    if result.notes:
        lines += ["## Notes", ""] + [f"- {n}" for n in result.notes] + [""]
    return "\n".join(lines)


def html_table(t: Table) -> list[str]:
    """A table's heading, note and rows as HTML lines (every cell escaped); shared with the bulk audit page."""
    esc = html.escape
    out = [f"<h{t.level}>{esc(t.title)}</h{t.level}>"]
    if t.note:
        out.append(f"<p class='note'>{esc(t.note)}</p>")
    out.append("<table><thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in t.header) + "</tr></thead><tbody>")
    out += ["<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in t.rows]
    out.append("</tbody></table>")
    return out


def html_page(title: str, body: Sequence[str]) -> str:
    """A self-contained HTML page (one stylesheet) around ``body`` lines; ``title`` is escaped here."""
    style = ("body{font-family:sans-serif;margin:2em;max-width:110em}table{border-collapse:collapse;margin:.5em 0 1.5em}"
             "th,td{border:1px solid #ccc;padding:.25em .5em;text-align:right}td:first-child,th:first-child{text-align:left}"
             "th{background:#f3f3f3}.note{color:#555;font-size:90%}img{max-width:48em}")
    return (f"<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")


def _html(result: EvalResult, plots: dict[str, Path], out_dir: Path) -> str:
    esc = html.escape
    body = [f"<h1>Evaluation: {esc(', '.join(result.datasets))}</h1>",
            f"<p>{result.n_examples} examples, {len(result.configs)} configuration(s); created {esc(result.created)}.</p>"]
    for t in tables(result):
        body += html_table(t)
        for name in t.plots:
            if name in plots:
                rel = plots[name].relative_to(out_dir).as_posix()
                body.append(f"<figure><img src='{esc(rel)}' alt='{esc(t.title)} precision-recall curve'>"
                            f"<figcaption>Precision-recall, evaluation part of {esc(t.title)}</figcaption></figure>")
    rel_plots = [(k, p) for k, p in plots.items() if k.startswith("reliability_")]
    if rel_plots:
        body.append("<h2>Reliability</h2><p class='note'>Observed hallucination rate against the mean response "
                    "score, ten equal-width bins, evaluation part. On the diagonal = calibrated.</p>")
        for k, p in rel_plots:
            body.append(f"<figure><img src='{esc(p.relative_to(out_dir).as_posix())}' alt='{esc(k)}'></figure>")
    if result.notes:
        body.append("<h2>Notes</h2><ul>" + "".join(f"<li>{esc(n)}</li>" for n in result.notes) + "</ul>")
    return html_page("guardrail eval", body)


# ------------------------------------------------------------------------------------------ plots


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") or "x"


def figure_class() -> Any:
    """matplotlib's ``Figure`` (object API, Agg canvas: no global backend switch); ImportError naming matplotlib."""
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise ImportError("matplotlib") from exc
    return Figure


def _evaluated(examples: Sequence[ExampleResult], dataset: str | None = None) -> tuple[list[bool], list[float]]:
    ev = [(e.hallucinated, e.score) for e in examples if e.part == "evaluation" and e.error is None
          and e.hallucinated is not None and e.score is not None and (dataset is None or e.dataset == dataset)]
    return [bool(h) for h, _ in ev], [float(s) for _, s in ev]


def _pr_plot(result: EvalResult, dataset: str, path: Path) -> bool:
    Figure = figure_class()
    fig = Figure(figsize=(6, 4.5), dpi=100)
    ax = fig.add_subplot()
    drawn = False
    for i, c in enumerate(result.configs):
        y, s = _evaluated(c.examples, dataset)
        pts = M.pr_curve(y, s)
        if not pts:
            continue
        color = f"C{i % 10}"
        ap = M.average_precision(y, s)
        # As scikit-learn draws it: from full recall down, each precision held until the next point.
        ax.plot([p.recall for p in reversed(pts)] + [0.0], [p.precision for p in reversed(pts)] + [pts[0].precision],
                drawstyle="steps-post", color=color, label=f"{c.config.name} (AP {ap:.3f})")
        m = c.datasets[dataset]
        for point, marker in ((m.policy, "o"), (m.tuned, "s")):
            if point is not None:
                ax.plot([point.recall], [point.precision], marker=marker, color=color, markersize=7,
                        markerfacecolor="white" if marker == "o" else color)
        drawn = True
    if not drawn:
        return False
    gold = _evaluated(result.configs[0].examples, dataset)[0]
    base = sum(gold) / len(gold)  # the precision of flagging everything
    ax.axhline(base, color="grey", linestyle=":", linewidth=1, label=f"flag everything ({base:.2f})")
    ax.set(xlim=(0, 1.02), ylim=(0, 1.02), xlabel="recall (hallucinated responses caught)", ylabel="precision",
           title=f"{dataset}: precision-recall (o policy, ■ tuned)")
    ax.legend(loc="lower left", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, format="png")
    return True


def _reliability_plot(config: ConfigResult, path: Path) -> bool:
    Figure = figure_class()
    y, s = _evaluated(config.examples)
    if not y:
        return False
    fig = Figure(figsize=(5, 5), dpi=100)
    ax = fig.add_subplot()
    bins = M.reliability_bins(y, s, bins=10)
    used = [b for b in bins if b.count]
    ax.bar([(b.lower + b.upper) / 2 for b in used], [b.observed_rate for b in used], width=0.1, alpha=0.35,
           edgecolor="C0", label="observed rate per bin")
    ax.plot([b.mean_score for b in used], [b.observed_rate for b in used], "o-", color="C0",
            label="at the bin's mean score")
    for b in used:  # how many responses each bar rests on
        ax.annotate(str(b.count), ((b.lower + b.upper) / 2, b.observed_rate), ha="center", va="bottom", fontsize=7)
    ax.plot([0, 1], [0, 1], color="grey", linestyle=":", linewidth=1)
    ece = M.ece(y, s)
    ax.set(xlim=(0, 1), ylim=(0, 1.02), xlabel="response hallucination score", ylabel="observed hallucination rate",
           title=f"{config.config.name}: reliability, all datasets (ECE {ece:.3f})")
    ax.legend(loc="upper left", fontsize=7)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, format="png")
    return True


# ------------------------------------------------------------------------------------------ entry


def write_report(result: EvalResult, out_dir: str | Path) -> dict[str, Path]:
    """Writes results.json, results.md, report.html and plots/*.png into ``out_dir``.

    Returns every written file by key: ``json``, ``markdown``, ``html``, ``pr_<dataset>.png`` and
    ``reliability_<config>.png``. Raises :class:`BackendError` naming the ``eval`` extra when
    matplotlib is missing (after JSON and Markdown are written).
    """
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the report folder {out}: {exc.strerror or exc}") from exc
    written: dict[str, Path] = {}
    written["json"] = out / "results.json"
    # Compact: a full dev run holds every claim of every example per configuration (tens of MB indented).
    written["json"].write_text(result.model_dump_json() + "\n", encoding="utf-8")
    written["markdown"] = out / "results.md"
    written["markdown"].write_text(markdown(result), encoding="utf-8")

    plots_dir = out / "plots"
    plots: dict[str, Path] = {}
    try:
        plots_dir.mkdir(exist_ok=True)
        for d in result.datasets:
            name = f"pr_{_slug(d)}.png"
            if _pr_plot(result, d, plots_dir / name):
                plots[name] = plots_dir / name
        for c in result.configs:
            name = f"reliability_{_slug(c.config.name)}.png"
            if _reliability_plot(c, plots_dir / name):
                plots[name] = plots_dir / name
    except ImportError as exc:
        raise BackendError(
            f"the HTML report needs matplotlib: pip install 'rag-guardrail[eval]' "
            f"({written['json']} and {written['markdown']} were written)"
        ) from exc
    written.update(plots)
    written["html"] = out / "report.html"
    written["html"].write_text(_html(result, plots, out), encoding="utf-8")
    return written
