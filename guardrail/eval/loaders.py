"""Dataset loaders: every source format becomes a list of :class:`EvalExample`.

``load_dataset(spec)`` takes a short name, a group alias or a path:

- ``ragtruth:dev`` (also plain ``ragtruth``), ``ragtruth:train``, ``ragtruth:all``: the shared RAGTruth
  file, split the project's way (:func:`guardrail.datasets.split_ragtruth`, dev fraction 0.1, seed 13,
  grouped by source context). Gold spans come from the labels; a response with any span is hallucinated.
- ``summac_frank``, ``summac_cogensumm``, ``summac_xsumfaith``, ``summac_polytope``, ``summac_factcc``,
  ``aggrefact_cnndm``, ``aggrefact_xsum``, ``wice``: the validation files in ``<data>/dev``; the aliases
  ``summac``, ``aggrefact`` and ``dev-all`` load several of them (``limit`` applies to each file).
- a path to a ``.jsonl`` or ``.jsonl.gz`` file; the format is detected from the first row's fields and
  every row must then have that format.

Formats and how their labels translate (``hallucinated`` is True when the response is NOT grounded):

==================  ==========================================================  ===========================
format              fields                                                      hallucinated when
==================  ==========================================================  ===========================
RAGTruth            id, task_type, query, context, response, labels            ``labels`` is non-empty
document/claim      document, claim, label (SummaC, AggreFact)                  label is 0 / "0" /
                                                                                "not_supported"
WiCE                claim, evidence (list of sentences = passages), label       label is "not_supported" or
                                                                                "partially_supported"
HaluEval QA         knowledge, question, right_answer, hallucinated_answer      two examples, one per answer
HaluEval summary    document, right_summary, hallucinated_summary               two examples
HaluEval dialogue   knowledge, dialogue_history, right_response,                two examples (the history
                    hallucinated_response                                       is the question)
plain               context (text or list), response, label; optional          label is 1 / true /
                    question, id, task, group                                   "hallucinated"
==================  ==========================================================  ===========================

Note the opposite conventions: in document/claim files label 1 means *consistent*, in plain files
label 1 means *hallucinated* (the sources define them; plain files follow the guardrail's own
``hallucinated`` flag).

WiCE ``partially_supported`` counts as hallucinated: part of the claim has no support in the cited
evidence, and that unsupported part is exactly what an inline guardrail must flag before a user reads
it. (Counting it as supported would reward a checker that lets half-true claims through.)

Groups: examples that share a source (one RAGTruth context, one SummaC document, one WiCE article,
one HaluEval row) share ``group``, so the runner never puts one in calibration and its sibling in
evaluation. The RAGTruth group is the same context key :mod:`guardrail.train.grounding` uses for its
dev halves, so a run on ``ragtruth:dev`` can reproduce the halves the shipped model was calibrated on.

Bad input raises :class:`InputError` naming file, line and field; no row is ever dropped silently.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal, overload

from pydantic import ValidationError

from ..errors import InputError
from .types import EvalExample, GoldSpan

__all__ = ["DEV_FILES", "ALIASES", "dataset_names", "load_dataset", "load_file", "take_groups"]

#: Short name -> file name under ``<data>/dev``.
DEV_FILES: dict[str, str] = {
    "summac_frank": "summac_frank_val.jsonl.gz",
    "summac_cogensumm": "summac_cogensumm_val.jsonl.gz",
    "summac_xsumfaith": "summac_xsumfaith_val.jsonl.gz",
    "summac_polytope": "summac_polytope_val.jsonl.gz",
    "summac_factcc": "summac_factcc_val.jsonl.gz",
    "aggrefact_cnndm": "aggrefact_cnndm_val.jsonl.gz",
    "aggrefact_xsum": "aggrefact_xsum_val.jsonl.gz",
    "wice": "wice_claim_dev.jsonl.gz",
}

#: Alias -> the datasets it stands for, in this order.
ALIASES: dict[str, tuple[str, ...]] = {
    "summac": tuple(k for k in DEV_FILES if k.startswith("summac_")),
    "aggrefact": tuple(k for k in DEV_FILES if k.startswith("aggrefact_")),
    "dev-all": tuple(DEV_FILES),
}

_RAGTRUTH_PARTS = ("dev", "train", "all")


def dataset_names() -> list[str]:
    """Every name ``load_dataset`` accepts besides a path."""
    return ["ragtruth:dev", "ragtruth:train", "ragtruth:all", *DEV_FILES, *ALIASES]


def load_dataset(spec: str, *, limit: int | None = None, seed: int = 13) -> list[EvalExample]:
    """Examples for a name, an alias or a path (see the module docstring).

    ``limit`` keeps at most that many examples per dataset, taking whole groups in an order shuffled
    with ``seed`` (the same ``seed`` always picks the same groups), so a small sample still never
    splits a group. At least one group is kept even when it alone is larger than ``limit``.
    """
    if limit is not None and limit < 1:
        raise InputError(f"limit must be at least 1, got {limit}")
    spec = spec.strip()
    if spec in ALIASES:
        return [ex for name in ALIASES[spec] for ex in load_dataset(name, limit=limit, seed=seed)]
    if spec == "ragtruth" or spec.startswith("ragtruth:"):
        examples = _load_ragtruth(spec.partition(":")[2] or "dev")
    elif spec in DEV_FILES:
        from ..datasets import data_dir

        path = data_dir() / "dev" / DEV_FILES[spec]
        if not path.is_file():
            raise InputError(f"dataset '{spec}': {path} not found (set GUARDRAIL_DATA_DIR to the shared data folder)")
        examples = load_file(path, dataset=spec)
    else:
        path = Path(spec).expanduser()
        if not path.is_file():
            raise InputError(
                f"unknown dataset '{spec}': not a file, and not one of {', '.join(dataset_names())}"
            )
        examples = load_file(path)
    return take_groups(examples, limit, seed) if limit is not None else examples


def take_groups(examples: list[EvalExample], limit: int, seed: int) -> list[EvalExample]:
    """At most ``limit`` examples made of whole groups, picked in a seeded order; input order kept."""
    sizes: dict[str, int] = {}
    for ex in examples:
        key = _group_of(ex)
        sizes[key] = sizes.get(key, 0) + 1
    keys = sorted(sizes)
    random.Random(f"{seed}:limit").shuffle(keys)
    chosen: set[str] = set()
    total = 0
    for key in keys:
        if chosen and total + sizes[key] > limit:
            break
        chosen.add(key)
        total += sizes[key]
    return [ex for ex in examples if _group_of(ex) in chosen]


def _group_of(ex: EvalExample) -> str:
    # An example without a group is a group of its own.
    return ex.group if ex.group is not None else f"id:{ex.id}"


def _sha1(*parts: str) -> str:
    return hashlib.sha1("\x00".join(parts).encode("utf-8")).hexdigest()


# ---------------------------------------------------------------------------------------- RAGTruth

_PROMPT_TAIL = re.compile(r"\s*Overview:\s*$")


def _ragtruth_context(task: str, context: str) -> str:
    """The context as a caller would hand it in. RAGTruth's Data2txt contexts end with the prompt's
    "Overview:" cue, which is not data (same rule as ``guardrail.train.grounding.ragtruth_context``)."""
    return _PROMPT_TAIL.sub("", context) if task == "Data2txt" else context


def _ragtruth_group(context: str, query: str) -> str:
    # Must equal guardrail.train.grounding._context_key (a test holds them together): the dev halves
    # the shipped model was calibrated on are drawn over this key.
    return _sha1(context, query)


def _load_ragtruth(part: str) -> list[EvalExample]:
    from ..datasets import load_ragtruth, split_ragtruth

    if part not in _RAGTRUTH_PARTS:
        raise InputError(f"unknown RAGTruth part '{part}' (expected ragtruth:dev, ragtruth:train or ragtruth:all)")
    try:
        rows = load_ragtruth()
    except FileNotFoundError as exc:
        raise InputError(str(exc)) from exc
    if part != "all":
        train, dev = split_ragtruth(rows, dev_fraction=0.1, seed=13)
        rows = dev if part == "dev" else train
    name = "ragtruth" if part == "dev" else f"ragtruth_{part}"
    return [
        EvalExample(
            id=f"{name}:{r.id}",
            dataset=name,
            task=r.task_type,
            question=r.query if r.query.strip() else None,  # the prompt the LLM answered, as in training
            context=_ragtruth_context(r.task_type, r.context),
            response=r.response,
            hallucinated=r.hallucinated,
            spans=[GoldSpan(start=s.start, end=s.end, label=s.label_type) for s in r.labels],
            group=_ragtruth_group(r.context, r.query),
        )
        for r in rows
    ]


# ---------------------------------------------------------------------------------------- files


class _Where:
    """File and line of the row being read, for error messages."""

    def __init__(self, path: Path, line: int) -> None:
        self.path, self.line = path, line

    def error(self, field: str | None, problem: str) -> InputError:
        at = f"{self.path}:{self.line}"
        return InputError(f"{at}: field '{field}': {problem}" if field else f"{at}: {problem}")


def _rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line; a line that is not a JSON object raises."""
    opener: Callable[..., Any] = gzip.open if path.name.endswith(".gz") else open
    try:
        fh = opener(path, "rb")
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from exc
    lineno = 0
    try:
        with fh:
            for lineno, raw in enumerate(fh, 1):
                if not raw.strip():
                    continue
                where = _Where(path, lineno)
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise where.error(None, f"not valid UTF-8 (byte {exc.start})") from exc
                try:
                    obj = json.loads(text)
                except json.JSONDecodeError as exc:
                    raise where.error(None, f"not JSON ({exc.msg} at column {exc.colno})") from exc
                if not isinstance(obj, dict):
                    raise where.error(None, f"expected a JSON object, got {type(obj).__name__}")
                yield lineno, obj
    except (OSError, EOFError) as exc:  # gzip.BadGzipFile, truncated stream
        raise InputError(f"{path}:{lineno + 1}: cannot read the file: {exc}") from exc


def _dataset_name(path: Path) -> str:
    name = path.name
    for suffix in (".gz", ".jsonl", ".json"):
        name = name.removesuffix(suffix)
    return name


def load_file(path: str | Path, *, dataset: str | None = None) -> list[EvalExample]:
    """Every row of a JSONL (optionally gzipped) file, in any of the supported formats.

    ``dataset`` names the examples (default: the file name without its extensions).
    """
    p = Path(path)
    name = dataset or _dataset_name(p)
    reader: Callable[[dict[str, Any], _Where, str], list[EvalExample]] | None = None
    out: list[EvalExample] = []
    seen_ids: dict[str, int] = {}
    for lineno, row in _rows(p):
        where = _Where(p, lineno)
        if reader is None:
            reader = _detect(row, where)
        for ex in reader(row, where, name):
            if ex.id in seen_ids:
                raise where.error("id", f"duplicate id '{ex.id}' (first on line {seen_ids[ex.id]})")
            seen_ids[ex.id] = lineno
            out.append(ex)
    if not out:
        raise InputError(f"{p}: no rows")
    return out


def _detect(row: dict[str, Any], where: _Where) -> Callable[[dict[str, Any], _Where, str], list[EvalExample]]:
    keys = set(row)
    for _, fields, reader in _FORMATS:
        if fields <= keys:
            return reader
    known = "; ".join(f"{fmt}: {', '.join(sorted(fields))}" for fmt, fields, _ in _FORMATS)
    raise where.error(None, f"unknown format: fields {sorted(keys)} match none of the known formats ({known})")


# ---------------------------------------------------------------------------------------- field checks


@overload
def _text(row: dict[str, Any], field: str, where: _Where, *, optional: Literal[False] = False) -> str: ...


@overload
def _text(row: dict[str, Any], field: str, where: _Where, *, optional: bool) -> str | None: ...


def _text(row: dict[str, Any], field: str, where: _Where, *, optional: bool = False) -> str | None:
    if field not in row or row[field] is None:
        if optional:
            return None
        raise where.error(field, "missing")
    value = row[field]
    if not isinstance(value, str):
        raise where.error(field, f"expected text, got {type(value).__name__}")
    if not value.strip():
        if optional:
            return None
        raise where.error(field, "empty")
    return value


def _passages(row: dict[str, Any], field: str, where: _Where) -> str | list[str]:
    if field not in row or row[field] is None:
        raise where.error(field, "missing")
    value = row[field]
    if isinstance(value, str):
        if not value.strip():
            raise where.error(field, "empty")
        return value
    if isinstance(value, list):
        bad = next((i for i, v in enumerate(value) if not isinstance(v, str)), None)
        if bad is not None:
            raise where.error(f"{field}[{bad}]", f"expected text, got {type(value[bad]).__name__}")
        if not any(v.strip() for v in value):
            raise where.error(field, "no non-empty passage")
        return value
    raise where.error(field, f"expected text or a list of texts, got {type(value).__name__}")


_CONSISTENT = {"1", "supported", "consistent", "true"}
_INCONSISTENT = {"0", "not_supported", "unsupported", "partially_supported", "inconsistent", "false"}


def _consistency_label(row: dict[str, Any], where: _Where) -> bool:
    """Document/claim/WiCE label -> hallucinated (label 1 / "supported" = consistent)."""
    if "label" not in row or row["label"] is None:
        raise where.error("label", "missing")
    value = row["label"]
    key = str(value).strip().lower() if isinstance(value, (str, int, bool)) else None
    if isinstance(value, bool):
        key = "1" if value else "0"
    if key in _CONSISTENT:
        return False
    if key in _INCONSISTENT:
        return True
    raise where.error("label", f"{value!r} is not a consistency label (1 / 'supported' = consistent; "
                               "0 / 'not_supported' / 'partially_supported' = not)")


_HALLUCINATED = {"1", "true", "hallucinated", "yes"}
_FAITHFUL = {"0", "false", "faithful", "no"}


def _hallucination_label(row: dict[str, Any], where: _Where) -> bool:
    """Plain-file label -> hallucinated (label 1 / true / "hallucinated" = hallucinated)."""
    if "label" not in row or row["label"] is None:
        raise where.error("label", "missing")
    value = row["label"]
    if isinstance(value, bool):
        return value
    key = str(value).strip().lower() if isinstance(value, (str, int)) else None
    if key in _HALLUCINATED:
        return True
    if key in _FAITHFUL:
        return False
    raise where.error("label", f"{value!r} is not a hallucination label (1 / true / 'hallucinated' = hallucinated; "
                               "0 / false / 'faithful' = faithful)")


def _spans(row: dict[str, Any], field: str, response: str, where: _Where) -> list[GoldSpan] | None:
    if row.get(field) is None:
        return None
    value = row[field]
    if not isinstance(value, list):
        raise where.error(field, f"expected a list of {{start, end}}, got {type(value).__name__}")
    spans = []
    for i, raw in enumerate(value):
        try:
            span = GoldSpan.model_validate(
                {"start": raw["start"], "end": raw["end"], "label": raw.get("label", raw.get("label_type"))}
                if isinstance(raw, dict) else raw
            )
        except (KeyError, ValidationError) as exc:
            raise where.error(f"{field}[{i}]", f"not a span with start and end: {exc}") from exc
        if not span.start <= span.end <= len(response):
            raise where.error(f"{field}[{i}]", f"offsets {span.start}..{span.end} are outside the response "
                                               f"({len(response)} characters)")
        spans.append(span)
    return spans


# ---------------------------------------------------------------------------------------- readers


def _read_ragtruth(row: dict[str, Any], where: _Where, name: str) -> list[EvalExample]:
    from ..datasets import RagTruthRow

    try:
        r = RagTruthRow.model_validate({**row, "id": str(row.get("id", where.line))})
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        raise where.error(field, f"{first['msg']} (not a RAGTruth row)") from exc
    for i, s in enumerate(r.labels):
        if not s.start <= s.end <= len(r.response):
            raise where.error(f"labels[{i}]", f"offsets {s.start}..{s.end} are outside the response "
                                              f"({len(r.response)} characters)")
    if not r.response.strip():
        raise where.error("response", "empty")
    return [
        EvalExample(
            id=f"{name}:{r.id}",
            dataset=name,
            task=r.task_type,
            question=r.query if r.query.strip() else None,
            context=_ragtruth_context(r.task_type, r.context),
            response=r.response,
            hallucinated=r.hallucinated,
            spans=[GoldSpan(start=s.start, end=s.end, label=s.label_type) for s in r.labels],
            group=_ragtruth_group(r.context, r.query),
        )
    ]


def _read_document_claim(row: dict[str, Any], where: _Where, name: str) -> list[EvalExample]:
    document = _text(row, "document", where)
    return [
        EvalExample(
            id=f"{name}:{where.line}",
            dataset=name,
            task="Summary",
            context=document,
            response=_text(row, "claim", where),
            hallucinated=_consistency_label(row, where),
            group=_sha1(document),
        )
    ]


def _read_wice(row: dict[str, Any], where: _Where, name: str) -> list[EvalExample]:
    evidence = _passages(row, "evidence", where)
    raw_meta = row.get("meta")
    meta = raw_meta if isinstance(raw_meta, dict) else {}
    # Claims of one Wikipedia article often cite the same pages: the article is the group.
    title = meta.get("claim_title")
    group = _sha1("wice-article", title) if isinstance(title, str) and title else _sha1(json.dumps(evidence))
    ident = meta.get("id")
    return [
        EvalExample(
            id=f"{name}:{ident if isinstance(ident, str) and ident else where.line}",
            dataset=name,
            task="Claim",
            context=evidence,
            response=_text(row, "claim", where),
            hallucinated=_consistency_label(row, where),
            group=group,
        )
    ]


def _halueval(
    task: str, context_field: str, question_field: str | None, right: str, wrong: str
) -> Callable[[dict[str, Any], _Where, str], list[EvalExample]]:
    def read(row: dict[str, Any], where: _Where, name: str) -> list[EvalExample]:
        context = _text(row, context_field, where)
        question = _text(row, question_field, where) if question_field else None
        group = _sha1(context, question or "")
        return [
            EvalExample(
                id=f"{name}:{where.line}:{kind}",
                dataset=name,
                task=task,
                question=question,
                context=context,
                response=_text(row, field, where),
                hallucinated=kind == "hallucinated",
                group=group,
            )
            for kind, field in (("right", right), ("hallucinated", wrong))
        ]

    return read


def _read_plain(row: dict[str, Any], where: _Where, name: str) -> list[EvalExample]:
    context = _passages(row, "context", where)
    response = _text(row, "response", where)
    question = _text(row, "question", where, optional=True)
    ident = row.get("id")
    if ident is not None and not isinstance(ident, (str, int)):
        raise where.error("id", f"expected text or a number, got {type(ident).__name__}")
    group = row.get("group")
    if group is not None and not isinstance(group, (str, int)):
        raise where.error("group", f"expected text or a number, got {type(group).__name__}")
    task = _text(row, "task", where, optional=True)
    return [
        EvalExample(
            id=f"{name}:{ident if ident is not None else where.line}",
            dataset=name,
            task=task,
            question=question,
            context=context,
            response=response,
            hallucinated=_hallucination_label(row, where),
            spans=_spans(row, "spans", response, where),
            # Responses to the same context and question belong together unless the file says otherwise.
            group=str(group) if group is not None else _sha1(json.dumps(context), question or ""),
        )
    ]


# Most specific first: a HaluEval summary row also has 'document', a RAGTruth row also has 'context'.
_FORMATS: list[tuple[str, set[str], Callable[[dict[str, Any], _Where, str], list[EvalExample]]]] = [
    ("RAGTruth", {"task_type", "context", "response", "labels"}, _read_ragtruth),
    ("HaluEval QA", {"knowledge", "question", "right_answer", "hallucinated_answer"},
     _halueval("QA", "knowledge", "question", "right_answer", "hallucinated_answer")),
    ("HaluEval dialogue", {"knowledge", "dialogue_history", "right_response", "hallucinated_response"},
     _halueval("Dialogue", "knowledge", "dialogue_history", "right_response", "hallucinated_response")),
    ("HaluEval summarization", {"document", "right_summary", "hallucinated_summary"},
     _halueval("Summary", "document", None, "right_summary", "hallucinated_summary")),
    ("WiCE", {"claim", "evidence", "label"}, _read_wice),
    ("document/claim", {"document", "claim", "label"}, _read_document_claim),
    ("plain", {"context", "response", "label"}, _read_plain),
]
