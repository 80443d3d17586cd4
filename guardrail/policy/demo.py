"""The policy demo: four bundled answers under two tenant policies, all four main actions.

The same answers are guarded under ``healthcare`` (strict) and ``internal-search`` (lenient):
a grounded answer is shown as is, an answer with one unsupported claim is rewritten or marked,
a wrong dose is withheld or corrected, an answer the sources do not address is withheld or
marked. Decisions come from the real ``check`` passed in and the bundled policy files; nothing
is scripted. Regeneration uses the given ``ChatModel``, or, offline, ``EvidenceRewriter``, a
deterministic corrector that quotes evidence (the demo says which one it uses).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..pipeline import Pipeline
from ..types import CheckReport, Evidence
from ._bundled import POLICIES_ENV, bundled_policies_dir
from ._decision import Decision
from ._policy import Action
from ._rewriter import EvidenceRewriter
from ._store import PolicyStore

__all__ = ["run_policy_demo", "EXAMPLES", "CONTEXT", "TENANTS", "DemoResult"]

CONTEXT = [
    Evidence(id="1", source="leaflet: amoxicillin", text=(
        "Amoxicillin is a penicillin antibiotic used to treat bacterial infections. "
        "The usual adult dose is 500 mg every 8 hours. Common side effects include nausea and diarrhoea.")),
    Evidence(id="2", source="leaflet: allergies", text=(
        "Patients with a penicillin allergy should not take amoxicillin. "
        "Doxycycline is a common alternative for patients with a penicillin allergy.")),
    Evidence(id="3", source="clinic information", text=(
        "The clinic is open Monday to Friday from 8 am to 6 pm. "
        "Repeat prescriptions can be requested through the patient portal.")),
]

#: (title, question, answer)
EXAMPLES = [
    ("grounded answer", "What is the usual adult dose of amoxicillin?",
     "The usual adult dose is 500 mg every 8 hours [1]. Patients with a penicillin allergy should not take amoxicillin [2]."),
    ("one unsupported claim", "What are the side effects of amoxicillin?",
     "Common side effects include nausea and diarrhoea [1]. Amoxicillin is a penicillin antibiotic [1]. "
     "It is best taken with grapefruit juice [1]."),
    ("wrong dose", "How often should adults take amoxicillin?",
     "The usual adult dose is 500 mg every 12 hours [1]. Doxycycline is a common alternative for patients with a penicillin allergy [2]."),
    ("sources do not cover it", "Is there parking at the clinic?",
     "The clinic offers free parking for all visitors [3]. Walk-in vaccinations are available on Saturdays [3]."),
]

TENANTS = ("healthcare", "internal-search")

_STYLE = {"respond": "bold green", "caveat": "bold yellow", "regenerate": "bold cyan", "abstain": "bold red", "escalate": "bold magenta"}


@dataclass(frozen=True)
class DemoResult:
    example: str
    tenant: str
    decision: Decision


def _policies_dir(policies_dir: str | os.PathLike[str] | None, tenants: tuple[str, ...]) -> Path:
    """The directory given, else ``$GUARDRAIL_POLICIES`` or the shipped policies (in a wheel too)."""
    path = Path(policies_dir) if policies_dir is not None else bundled_policies_dir()
    missing = [t for t in tenants if not (path / "tenants" / f"{t}.yaml").is_file()]
    if missing:
        raise ConfigError(
            f"the demo policies were not found: no tenants/{missing[0]}.yaml; pass policies_dir= or set {POLICIES_ENV}",
            file=str(path),
        )
    return path


def run_policy_demo(
    check: Callable[..., CheckReport],
    console: Any = None,
    *,
    llm: Any | None = None,
    policies_dir: str | os.PathLike[str] | None = None,
    tenants: tuple[str, ...] = TENANTS,
) -> list[DemoResult]:
    """Guard every bundled example under each tenant policy and print what the user would see.

    ``check(answer, context, question)`` is the checking engine (``Guardrail.check``, or any check); each
    tenant gets its ``guardrail.Pipeline`` around it. Returns the decisions, in display order.
    """
    from rich.console import Console
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    console = console or Console()
    store = PolicyStore(_policies_dir(policies_dir, tenants))
    policies = {t: store.get(t) for t in tenants}
    corrector = llm if llm is not None else EvidenceRewriter()
    pipelines = {t: Pipeline(check, p, llm=corrector, tenant=t) for t, p in policies.items()}
    how = (f"regeneration: {corrector!r}" if llm is not None
           else "regeneration: EvidenceRewriter, a deterministic offline corrector that quotes the best evidence "
                "sentence or drops the claim (not an LLM; pass llm= to use one)")
    console.print(Panel.fit(
        Text("The same answers under two tenant policies.\n"
             + "\n".join(f"{t}: {p.description}" for t, p in policies.items()) + "\n" + how),
        title="policy demo: respond / caveat / regenerate / abstain"))

    results: list[DemoResult] = []
    for title, question, answer in EXAMPLES:
        console.print()
        console.print(Text.assemble((title, "bold"), f"  Q: {question}"))
        console.print(Text(f"  answer: {answer}", style="dim"))
        for tenant, pipeline in pipelines.items():
            d = pipeline.guard(answer, CONTEXT, question=question)
            results.append(DemoResult(title, tenant, d))
            line = Text("  ")
            line.append(f"{tenant:>16} ", style="bold")
            line.append(f"{d.action.value.upper():<10}", style=_STYLE[d.action.value])
            line.append(f" {d.code.value}")
            if d.attempts:
                line.append(f" (attempts: {len(d.attempts)})")
            console.print(line)
            shown = d.final_text if d.final_text != answer else "(the answer, unchanged)"
            console.print(Text("                   " + shown.replace("\n", "\n                   ")))

    table = Table(title="actions", show_lines=False)
    table.add_column("example")
    for t in tenants:
        table.add_column(t)
    for title, _, _ in EXAMPLES:
        row = [title]
        for t in tenants:
            d = next(r.decision for r in results if r.example == title and r.tenant == t)
            row.append(f"[{_STYLE[d.action.value]}]{d.action.value}[/] ({d.code.value})")
        table.add_row(*row)
    console.print()
    console.print(table)
    seen = {r.decision.action for r in results}
    missing = [a.value for a in (Action.respond, Action.caveat, Action.regenerate, Action.abstain) if a not in seen]
    console.print("all four main actions shown" if not missing else f"not shown with this checker: {', '.join(missing)}")
    return results
