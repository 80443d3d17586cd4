"""``guardrail guard`` and ``guardrail audit``: registered on the main parser by ``add_commands``.

The main CLI (``guardrail/cli.py``) owns the parser and the exit-code convention (0 done, 2 bad
input or setup); this module only adds its two sub-commands, so the policy engine can evolve
without touching the entry point.
"""

from __future__ import annotations

import argparse
import inspect
import json
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..cli_io import add_llm_options, collect_context, llm_from_args, positive_int, read_answer
from ..errors import InputError

__all__ = ["add_commands"]

_STYLE = {"respond": "bold green", "caveat": "bold yellow", "regenerate": "bold cyan", "abstain": "bold red", "escalate": "bold magenta"}


def add_commands(subparsers: Any, make_guardrail: Callable[..., Any]) -> None:
    """Register ``guard`` and ``audit``. ``make_guardrail()`` builds the checking facade
    (called with ``verifier=`` when it accepts it)."""
    g = subparsers.add_parser("guard", help="check an answer and apply a tenant's policy (respond/caveat/regenerate/abstain/escalate)")
    g.add_argument("--tenant", required=True, help="tenant id: <policies>/tenants/<tenant>.yaml or <policies>/<tenant>.yaml")
    g.add_argument("--policies", type=Path,
                   help="policy directory (default: $GUARDRAIL_POLICIES, else the policies shipped with the package)")
    g.add_argument("--fallback-to-default", action="store_true", help="use default.yaml for a tenant without a policy file")
    src = g.add_mutually_exclusive_group(required=True)
    src.add_argument("--answer", help="answer text, or '-' to read it from stdin")
    src.add_argument("--answer-file", type=Path, help="file holding the answer")
    g.add_argument("--context", action="append", default=[], help="a context passage (repeatable)")
    g.add_argument("--context-file", action="append", type=Path, default=[], help="a file holding one passage (repeatable); .json holds a list")
    g.add_argument("--question", help="the user's question, if any")
    g.add_argument("--json", action="store_true", help="print the whole decision as JSON")
    g.add_argument("--verifier", default="default", help="verifier spec passed to the guardrail")
    llm = g.add_mutually_exclusive_group()
    llm.add_argument("--llm-base-url", help="OpenAI-compatible endpoint for regeneration (with --llm-model)")
    llm.add_argument("--offline-rewriter", action="store_true",
                     help="regenerate with the deterministic EvidenceRewriter (quotes evidence; not an LLM)")
    add_llm_options(g, "regeneration")
    g.add_argument("--audit-db", type=Path, help="append the decision to this SQLite audit log")
    g.add_argument("--redact", action="store_true", help="store lengths instead of texts in the audit log")
    g.add_argument("--fail-on", default="", help="comma-separated actions that make the command exit 1 (e.g. abstain,escalate)")
    g.set_defaults(func=lambda args: _cmd_guard(args, make_guardrail))

    a = subparsers.add_parser("audit", help="list and summarise decisions in an audit log")
    a.add_argument("--db", required=True, type=Path, help="SQLite audit log written by guard")
    a.add_argument("--last", type=positive_int, default=20, metavar="N", help="show the N most recent decisions (N >= 1, default 20)")
    a.add_argument("--tenant", help="only this tenant")
    a.add_argument("--summary", action="store_true", help="hallucination rate, actions and reasons instead of rows")
    a.add_argument("--drift-target", type=float, help="expected hallucination rate: adds a CUSUM drift check to --summary")
    a.add_argument("--json", action="store_true", help="JSON output")
    a.set_defaults(func=_cmd_audit)


# --------------------------------------------------------------------------- guard


def _llm(args: argparse.Namespace) -> Any:
    if args.offline_rewriter:
        from ._rewriter import EvidenceRewriter

        return EvidenceRewriter()
    return llm_from_args(args)


def _build(make_guardrail: Callable[..., Any], verifier: str) -> Any:
    params: Mapping[str, inspect.Parameter]
    try:
        params = inspect.signature(make_guardrail).parameters
    except (TypeError, ValueError):
        params = {}
    return make_guardrail(verifier=verifier) if "verifier" in params else make_guardrail()


def _cmd_guard(args: argparse.Namespace, make_guardrail: Callable[..., Any]) -> int:
    from ..pipeline import Pipeline  # the command is an entry point over the whole chain
    from ._audit import AuditLog
    from ._bundled import bundled_policies_dir
    from ._policy import Action
    from ._store import PolicyStore

    fail_on = {s.strip() for s in args.fail_on.split(",") if s.strip()}
    unknown = fail_on - {a.value for a in Action}
    if unknown:
        raise InputError(f"--fail-on: unknown action(s) {sorted(unknown)}; choose from {[a.value for a in Action]}")
    policies = args.policies if args.policies is not None else bundled_policies_dir()
    policy = PolicyStore(policies, fallback_to_default=args.fallback_to_default).get(args.tenant)
    answer = read_answer(args)
    context = collect_context(args)
    audit = AuditLog(args.audit_db, redact=args.redact) if args.audit_db else None
    try:
        # The tenant's policy may pick the verifier and an LLM double check (its verification section):
        # the pipeline resolves it.
        pipeline = Pipeline(_build(make_guardrail, args.verifier), policy, llm=_llm(args), audit=audit, tenant=args.tenant)
        decision = pipeline.guard(answer, context, question=args.question)
    finally:
        if audit is not None:
            audit.close()
    if args.json:
        print(decision.model_dump_json(indent=2))
    else:
        print_decision(decision, tenant=args.tenant)
    return 1 if decision.action.value in fail_on else 0


def print_decision(decision: Any, *, tenant: str | None = None, console: Any = None) -> None:
    """Action, reasons and final text, for people."""
    from rich.console import Console
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    console = console or Console()
    head = Text()
    head.append(decision.action.value.upper(), style=_STYLE.get(decision.action.value, "bold"))
    head.append(f"  ({decision.code.value})  policy {decision.policy_name} {decision.policy_hash[:12]}")
    if tenant:
        head.append(f"  tenant {tenant}")
    if decision.attempts:
        head.append(f"  regeneration attempts: {len(decision.attempts)}")
    console.print(head)
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for col in ("reason", "asks", "claims", "detail"):
        table.add_column(col, overflow="fold")
    for r in decision.reasons:
        # Text, not str, for everything from the decision: rich would take "[c1]" or "[doc-id]" for markup.
        table.add_row(r.code.value, Text(r.action.value, style=_STYLE.get(r.action.value, "")), Text(", ".join(r.claim_ids)), Text(r.message))
    console.print(table)
    console.print(Panel(Text(decision.final_text), title="shown to the user", title_align="left"))


# --------------------------------------------------------------------------- audit


def _cmd_audit(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from ._audit import AuditLog, DriftConfig

    if not args.db.exists():
        raise InputError(f"audit log {args.db} does not exist")
    drift = DriftConfig(target_rate=args.drift_target) if args.drift_target is not None else None
    with AuditLog(args.db, drift=drift) as log:
        if args.summary:
            summary = log.summary(args.tenant)
            if args.json:
                print(summary.model_dump_json(indent=2))
                return 0
            console = Console()
            t = Table(title=f"audit summary{' for ' + escape(args.tenant) if args.tenant else ''}", show_header=False)
            rate = "n/a" if summary.hallucination_rate is None else f"{summary.hallucination_rate:.1%} of {summary.checked}"
            rows = [
                ("decisions", str(summary.total)),
                ("hallucination rate", rate),
                ("actions", ", ".join(f"{k} {v}" for k, v in sorted(summary.actions.items()))),
                ("reasons", ", ".join(f"{k} {v}" for k, v in sorted(summary.reasons.items(), key=lambda kv: -kv[1]))),
                ("regenerations", f"{summary.regenerations}" + ("" if summary.regeneration_success_rate is None else f" ({summary.regeneration_success_rate:.0%} succeeded)")),
                ("mean latency", "n/a" if summary.mean_latency_ms is None else f"{summary.mean_latency_ms:.1f} ms"),
            ]
            if summary.drift is not None:
                d = summary.drift
                rows.append(("drift (CUSUM)", f"{'ALERT' if d.alert else 'ok'}: S={d.statistic:.2f} (h={d.config.threshold:g}, "
                                               f"target {d.config.target_rate:.1%}) over {d.samples}"))
            for k, v in rows:
                t.add_row(k, escape(v))
            console.print(t)
            return 0
        records = log.last(args.last, tenant=args.tenant)
    if args.json:
        print(json.dumps([r.model_dump(exclude={"decision_json"}) for r in records], indent=2))
        return 0
    from rich.text import Text

    console = Console()
    t = Table(title=f"last {len(records)} decision(s)", box=None, pad_edge=False, header_style="bold")
    for col in ("id", "time (UTC)", "tenant", "action", "code", "score", "flagged", "tries", "ms"):
        t.add_column(col, overflow="fold")
    for r in records:
        t.add_row(
            str(r.id), datetime.fromtimestamp(r.ts, timezone.utc).strftime("%m-%d %H:%M:%S"), escape(r.tenant),
            Text(r.action, style=_STYLE.get(r.action, "")), escape(r.code),
            "-" if r.hallucination_score is None else f"{r.hallucination_score:.2f}",
            "-" if r.n_claims is None else f"{r.n_flagged}/{r.n_claims}",
            str(r.attempts), "-" if r.latency_ms is None else f"{r.latency_ms:.0f}",
        )
    console.print(t)
    return 0
