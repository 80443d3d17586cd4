"""Generate the policy JSON Schema, the commented default policy and the field reference.

All three come from the ``Policy`` model's fields and descriptions, so they cannot drift apart
from what the loader enforces; a test runs ``--check`` to keep the committed copies current.

    python -m guardrail.policy.reference --write    # regenerate the files
    python -m guardrail.policy.reference --check    # exit 1 if any committed copy is stale
"""

from __future__ import annotations

import argparse
import enum
import json
import sys
import textwrap
import types
import typing
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ._policy import Policy

__all__ = ["policy_schema", "default_yaml", "reference_markdown", "render_docs", "outputs", "main"]

REPO = Path(__file__).resolve().parents[2]
SCHEMA_ID = "https://github.com/rag-guardrail/rag-guardrail/policies/policy.schema.json"
BEGIN, END = "<!-- BEGIN GENERATED REFERENCE (python -m guardrail.policy.reference --write) -->", "<!-- END GENERATED REFERENCE -->"


def policy_schema() -> dict[str, Any]:
    schema = Policy.model_json_schema(by_alias=True, mode="validation")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID, **schema}


def _scalar(value: Any) -> str:
    if isinstance(value, enum.Enum):
        value = value.value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return json.dumps(value, ensure_ascii=False)


def _comment(text: str, indent: str) -> list[str]:
    return [f"{indent}# {line}" for line in textwrap.wrap(text, 96 - len(indent))] or []


def _yaml_lines(model: BaseModel, indent: str = "") -> list[str]:
    lines: list[str] = []
    for name, field in type(model).model_fields.items():
        key = field.alias or name
        value = getattr(model, name)
        if field.description:
            lines += _comment(field.description, indent)
        if isinstance(value, BaseModel):
            lines.append(f"{indent}{key}:")
            lines += _yaml_lines(value, indent + "  ")
        elif isinstance(value, dict):
            if not value:
                lines.append(f"{indent}{key}: {{}}")
            else:
                lines.append(f"{indent}{key}:")
                lines += [f"{indent}  {_scalar(k)}: {_scalar(v)}" for k, v in value.items()]
        else:
            lines.append(f"{indent}{key}: {_scalar(value)}")
        if not indent:
            lines.append("")
    return lines


def default_yaml() -> str:
    header = [
        "# The default policy: every field with its default value and what it does.",
        "# Generated from guardrail/policy/_policy.py by `python -m guardrail.policy.reference --write`;",
        "# edit the model's descriptions and defaults there, not this file. Tenant policies under",
        "# tenants/ override what they need with `extends: default`. Schema: policy.schema.json.",
        "",
    ]
    return "\n".join(header + _yaml_lines(Policy(name="default"))).rstrip() + "\n"


def _type_name(tp: Any) -> str:
    origin = typing.get_origin(tp)
    if origin is typing.Literal:
        return " \\| ".join(str(a) for a in typing.get_args(tp))
    if origin in (typing.Union, types.UnionType):
        return " \\| ".join(_type_name(a) for a in typing.get_args(tp))
    if origin is dict:
        k, v = typing.get_args(tp)
        return f"map {_type_name(k)} → {_type_name(v)}"
    if origin is list:
        return f"list of {_type_name(typing.get_args(tp)[0])}"
    if origin is tuple:
        return f"[{', '.join(_type_name(a) for a in typing.get_args(tp))}]"
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return " \\| ".join(m.value for m in tp)
    if tp is type(None):
        return "null"
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return "section"
    return getattr(tp, "__name__", str(tp))


def _default_text(value: Any) -> str:
    if isinstance(value, BaseModel):
        return ""
    if isinstance(value, dict):
        return "`{}`" if not value else "see default.yaml"
    return f"`{_scalar(value)}`"


def _md_sections(model: BaseModel, prefix: str, out: list[str]) -> None:
    rows, subs = [], []
    for name, field in type(model).model_fields.items():
        key = field.alias or name
        value = getattr(model, name)
        desc = (field.description or "").replace("|", "\\|")
        if isinstance(value, BaseModel):
            subs.append((f"{prefix}{key}", value, desc))
            rows.append(f"| `{key}` | section | | {desc} (see `{prefix}{key}` below) |")
        else:
            rows.append(f"| `{key}` | {_type_name(field.annotation)} | {_default_text(value)} | {desc} |")
    title = prefix.rstrip(".") or "(top level)"
    doc = (type(model).__doc__ or "").strip().splitlines()[0] if type(model).__doc__ else ""
    out += [f"### `{title}`", ""]
    if doc:
        out += [doc, ""]
    out += ["| field | type | default | meaning |", "|---|---|---|---|", *rows, ""]
    for p, sub, _ in subs:
        _md_sections(sub, p + ".", out)


def reference_markdown() -> str:
    out: list[str] = []
    _md_sections(Policy(name="default"), "", out)
    return "\n".join(out).rstrip() + "\n"


def render_docs(current: str) -> str:
    """``docs/policies.md`` with its generated block replaced (the hand-written parts are kept)."""
    block = f"{BEGIN}\n\n{reference_markdown()}\n{END}"
    if BEGIN in current and END in current:
        head, rest = current.split(BEGIN, 1)
        return head + block + rest.split(END, 1)[1]
    return current.rstrip() + "\n\n## Field reference\n\n" + block + "\n"


def outputs(root: Path = REPO) -> dict[Path, str]:
    docs = root / "docs" / "policies.md"
    current = docs.read_text(encoding="utf-8") if docs.exists() else "# Policies\n"
    return {
        root / "policies" / "policy.schema.json": json.dumps(policy_schema(), indent=2, ensure_ascii=False) + "\n",
        root / "policies" / "default.yaml": default_yaml(),
        docs: render_docs(current),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true")
    mode.add_argument("--check", action="store_true")
    parser.add_argument("--root", type=Path, default=REPO)
    args = parser.parse_args(argv)
    stale = []
    for path, text in outputs(args.root).items():
        old = path.read_text(encoding="utf-8") if path.exists() else None
        if old != text:
            stale.append(path)
            if args.write:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
    verb = "wrote" if args.write else "stale"
    for p in stale:
        print(f"{verb}: {p}", file=sys.stderr)
    return 1 if (stale and args.check) else 0


if __name__ == "__main__":
    sys.exit(main())
