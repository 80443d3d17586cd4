"""Read policy YAML into a validated ``Policy``, with errors that point at file, line and field.

The text is first scanned as a stream of events (size, depth, no anchors or aliases: see
``guardrail.limits``), then composed once with the safe loader (never the unsafe one) into a node
tree, from which the data is built; the nodes' marks let a pydantic error location such as
``rules.contradiction.max_count`` be turned back into the line a person has to fix. With
``extends`` the chain is merged first and the merged mapping validated once, so a cross-field
rule sees the effective values; each error is then attributed to the most specific file of the
chain that sets the offending key.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from ..errors import ConfigError
from ..limits import LIMITS
from ._policy import Policy

__all__ = ["load_policy", "policy_from_yaml", "resolve_chain"]

_EXTS = (".yaml", ".yml")


@dataclass(frozen=True)
class _Doc:
    path: str  # as shown in errors
    data: dict[str, Any]
    node: yaml.Node | None
    directory: Path | None


def _check_shape(text: str, file: str) -> None:
    """Refuse, from the event stream and before anything is built, what makes a policy costly to load.

    Aliases first: a few hundred bytes of ``&a [*b, *b, ...]`` stand for millions of nodes, which
    every walk of the tree (duplicate keys, error lines, the merge) would expand. A policy has no
    use for them (``extends`` shares settings between files), so anchors and aliases are an error.
    Depth second: the composer recurses per level. The parser itself is a state machine, and the
    scan stops at the first problem, so this costs one linear pass at most.
    """
    if len(text) > LIMITS.max_policy_bytes:  # characters, at least as many bytes: cheap before the exact count
        _too_big(len(text.encode("utf-8")), file)
    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise ConfigError(
                "anchors and aliases (&name, *name) are not allowed in policy files; share settings with extends",
                file=file,
                line=event.start_mark.line + 1,
            )
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > LIMITS.max_policy_depth:
                raise ConfigError(
                    f"nested more than {LIMITS.max_policy_depth} levels deep (max_policy_depth)",
                    file=file,
                    line=event.start_mark.line + 1,
                )
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def _too_big(size: int, file: str) -> None:
    if size > LIMITS.max_policy_bytes:
        raise ConfigError(f"policy file is {size:,} bytes, over the limit of {LIMITS.max_policy_bytes:,} (max_policy_bytes)", file=file)


def _parse(text: str, file: str, directory: Path | None) -> _Doc:
    try:
        _check_shape(text, file)
        loader = yaml.SafeLoader(text)
        try:
            node = loader.get_single_node()
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise ConfigError(
            f"invalid YAML: {exc.problem or exc.context}", file=file, line=mark.line + 1 if mark else None
        ) from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"invalid YAML: {exc}", file=file) from exc
    if data is None:
        return _Doc(file, {}, None, directory)
    if not isinstance(data, dict) or not isinstance(node, yaml.MappingNode):
        raise ConfigError(
            f"a policy must be a mapping of fields, got {type(data).__name__}",
            file=file,
            line=node.start_mark.line + 1 if node is not None else 1,
        )
    _reject_duplicates(node, file, ())
    return _Doc(file, data, node, directory)


def _reject_duplicates(node: yaml.Node, file: str, path: tuple[str, ...]) -> None:
    """safe_load keeps the last of two equal keys silently; a policy must not."""
    if isinstance(node, yaml.MappingNode):
        seen: dict[str, int] = {}
        for key, value in node.value:
            name = str(key.value)
            if name in seen:
                raise ConfigError(
                    f"duplicate key (first set on line {seen[name]})",
                    file=file,
                    line=key.start_mark.line + 1,
                    field=".".join((*path, name)),
                )
            seen[name] = key.start_mark.line + 1
            _reject_duplicates(value, file, (*path, name))
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _reject_duplicates(item, file, (*path, str(i)))


def _locate(node: yaml.Node | None, loc: Sequence[Any]) -> tuple[int, int | None]:
    """(how many parts of ``loc`` exist in this document, line of the deepest one found)."""
    if node is None:
        return 0, None
    depth, line, cur = 0, node.start_mark.line + 1, node
    for part in loc:
        if part == "[key]":
            break  # the offending dict key itself: its line is already the current one
        if isinstance(cur, yaml.MappingNode):
            hit = next(((k, v) for k, v in cur.value if str(k.value) == str(part)), None)
            if hit is None:
                break
            line, cur = hit[0].start_mark.line + 1, hit[1]
        elif isinstance(cur, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(cur.value):
            cur = cur.value[part]
            line = cur.start_mark.line + 1
        else:
            break
        depth += 1
    return depth, line


def _where(chain: Sequence[_Doc], loc: Sequence[Any]) -> tuple[str, int | None]:
    """The file (child first on ties) that sets the deepest part of ``loc``, and its line."""
    best: tuple[str, int | None, int] = (chain[0].path, None, -1)
    for doc in chain:
        depth, line = _locate(doc.node, loc)
        if depth > best[2]:
            best = (doc.path, line, depth)
    return best[0], best[1]


def _field(loc: Sequence[Any]) -> str | None:
    parts = [str(p) for p in loc if p != "[key]"]
    return ".".join(parts) or None


def _config_error(exc: ValidationError, chain: Sequence[_Doc]) -> ConfigError:
    errors = exc.errors(include_url=False)
    located = []
    for err in errors:
        file, line = _where(chain, err["loc"])
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = "unknown key (not a policy field; check the spelling against policies/policy.schema.json)"
        elif "input" in err and not isinstance(err["input"], dict | list):
            msg = f"{msg} (got {err['input']!r})"
        located.append((file, line, _field(err["loc"]), msg))
    order = {d.path: i for i, d in enumerate(chain)}
    located.sort(key=lambda x: (order.get(x[0], 0), x[1] or 0))  # as a person reads the files: top to bottom
    file, line, field, msg = located[0]
    if len(located) > 1:
        more = "; ".join(f"{f}:{ln} field '{fd}': {m}" for f, ln, fd, m in located[1:])
        msg = f"{msg} [{len(located) - 1} more: {more}]"
    return ConfigError(msg, file=file, line=line, field=field)


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """Mappings merge key by key (so a tenant overrides one threshold); anything else replaces."""
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _extends_line(doc: _Doc) -> int | None:
    return _locate(doc.node, ["extends"])[1]


def _resolve_ref(ref: Any, doc: _Doc, search_path: Sequence[Path], roots: Sequence[Path]) -> Path:
    """The file ``extends: ref`` names, which must lie inside one of ``roots`` (the policy folder).

    Why: a tenant's policy is often edited by the tenant's owner; ``extends: /etc/...`` or
    ``../../other-team/policy.yaml`` would let it read, and inherit, a file nobody reviewed for it.
    """
    line = _extends_line(doc)
    if not isinstance(ref, str) or not ref.strip():
        raise ConfigError(f"extends must be a policy name or a relative path, got {ref!r}", file=doc.path, line=line, field="extends")
    looks_like_path = ref.endswith(_EXTS) or "/" in ref or os.sep in ref
    here = doc.directory or Path.cwd()
    if looks_like_path:
        p = Path(ref)
        if p.is_absolute():
            raise ConfigError(f"extends {ref!r}: an absolute path is not allowed; give a path relative to this file",
                              file=doc.path, line=line, field="extends")
        candidates = [here / p]
    else:
        dirs = list(dict.fromkeys([here, *search_path]))
        candidates = [d / f"{ref}{ext}" for d in dirs for ext in _EXTS]
    for c in candidates:
        if c.is_file():
            target = c.resolve()
            if not any(target.is_relative_to(root) for root in roots):
                raise ConfigError(
                    f"extends {ref!r} resolves to {target}, outside the policy folder ({', '.join(str(r) for r in roots)})",
                    file=doc.path, line=line, field="extends",
                )
            return target
    raise ConfigError(
        f"extends {ref!r}: no such policy (looked for {', '.join(str(c) for c in candidates)})",
        file=doc.path,
        line=line,
        field="extends",
    )


def _read(path: Path) -> _Doc:
    try:
        with path.open("rb") as handle:
            raw = handle.read(LIMITS.max_policy_bytes + 1)  # never read more than the limit allows
        _too_big(len(raw) if len(raw) <= LIMITS.max_policy_bytes else path.stat().st_size, str(path))
        text = raw.decode("utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read policy file: {exc.strerror or exc}", file=str(path)) from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"policy file is not UTF-8: {exc}", file=str(path)) from exc
    return _parse(text, str(path), path.parent)


def resolve_chain(first: _Doc, search_path: Sequence[Path]) -> list[_Doc]:
    """The document and its ancestors, child first; a cycle is an error at the closing ``extends``.

    Every ancestor must lie inside a directory of ``search_path`` (the policy folder), or inside
    the first document's own directory when no search path is given.
    """
    roots = [Path(d).resolve() for d in search_path] or [(first.directory or Path.cwd()).resolve()]
    chain = [first]
    seen = [Path(first.path).resolve()] if first.directory is not None else []
    while (ref := chain[-1].data.get("extends")) is not None:
        target = _resolve_ref(ref, chain[-1], search_path, roots)
        if target in seen:
            cycle = " -> ".join(str(p) for p in [*seen[seen.index(target):], target])
            raise ConfigError(f"circular extends: {cycle}", file=chain[-1].path, line=_extends_line(chain[-1]), field="extends")
        seen.append(target)
        chain.append(_read(target))
    return chain


def _build(chain: list[_Doc], default_name: str) -> Policy:
    merged: dict[str, Any] = {}
    for doc in reversed(chain):
        merged = _merge(merged, doc.data)
    # The name and the parent are the child's own, never inherited.
    merged["name"] = chain[0].data.get("name", default_name)
    merged["extends"] = chain[0].data.get("extends")
    try:
        policy = Policy.model_validate(merged)
    except ValidationError as exc:
        raise _config_error(exc, chain) from None
    policy._sources = tuple(d.path for d in chain)
    return policy


def load_policy(path: str | os.PathLike[str], *, search_path: Sequence[str | os.PathLike[str]] | None = None) -> Policy:
    """Load, merge (``extends``) and validate one policy file.

    A bare ``extends: name`` is looked up as ``name.yaml`` beside the file, then in
    ``search_path`` (default: the file's directory and its parent, so ``tenants/x.yaml`` can
    extend ``default``). Whatever ``extends`` names must lie inside those directories: an
    absolute path or a ``..`` that leaves them is an error. Raises ``ConfigError`` naming file,
    line and field; a file over ``LIMITS.max_policy_bytes``, nested deeper than
    ``LIMITS.max_policy_depth`` or holding a YAML anchor or alias is refused before it is built.
    """
    p = Path(path).resolve()
    dirs = [Path(d).resolve() for d in search_path] if search_path is not None else [p.parent, p.parent.parent]
    chain = resolve_chain(_read(p), dirs)
    return _build(chain, p.stem)


def policy_from_yaml(
    text: str, *, name: str = "default", base_dir: str | os.PathLike[str] | None = None, source: str = "<string>"
) -> Policy:
    """Build a policy from YAML text (tests, embedded configs); ``extends`` resolves against ``base_dir``."""
    directory = Path(base_dir).resolve() if base_dir is not None else None
    doc = _parse(text, source, directory)
    chain = resolve_chain(doc, [directory] if directory else [])
    return _build(chain, name)
