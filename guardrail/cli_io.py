"""Reading answers and context for the command line, shared by every subcommand.

Text is decoded as UTF-8 strictly: a wrong encoding is an error that names the file and byte,
never a silently mangled claim.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from .errors import InputError
from .limits import check_json_text

__all__ = ["read_text", "read_stdin", "read_answer", "collect_context", "positive_int", "positive_float",
           "jsonl_rows", "batch_item_from_row", "guardrail_from_args"]


def positive_int(text: str) -> int:
    """argparse type for counts (``--top-k``, ``--last``, ``--limit``): 0 or a negative number would
    otherwise be ignored or mean "no limit" further down, silently."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def positive_float(text: str) -> float:
    """argparse type for durations (``--llm-timeout``): refused here with a usage line, not deep in a
    pydantic model with a traceback."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text}")
    return value


def read_text(path: Path, what: str) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {what} file {path}: {exc.strerror}") from exc
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{what} file {path} is not valid UTF-8 (byte {exc.start})") from exc


def read_stdin(what: str) -> str:
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{what} on stdin is not valid UTF-8 (byte {exc.start})") from exc


def read_answer(args: argparse.Namespace) -> str:
    """``--answer-file PATH``, ``--answer -`` (stdin) or ``--answer TEXT``."""
    if args.answer_file:
        return read_text(args.answer_file, "answer")
    return read_stdin("answer") if args.answer == "-" else args.answer


def collect_context(args: argparse.Namespace) -> list[Any]:
    """Passages from ``--context`` (``-`` reads stdin) and ``--context-file`` (a ``.json`` file holds a list)."""
    docs: list[Any] = []
    for text in args.context:
        docs.append(read_stdin("context") if text == "-" else text)
    for path in args.context_file:
        text = read_text(path, "context")
        if path.suffix == ".json":
            check_json_text(text, str(path))  # a nesting bomb is a clear error, not a RecursionError
            try:
                loaded = json.loads(text)
            except json.JSONDecodeError as exc:
                raise InputError(f"{path}:{exc.lineno}:{exc.colno}: not JSON: {exc.msg}") from exc
            docs.extend(loaded if isinstance(loaded, list) else [loaded])
        else:
            docs.append({"id": path.stem, "text": text, "source": str(path)})
    return docs


def jsonl_rows(lines: Iterable[bytes]) -> Iterator[tuple[int, Any]]:
    """(line number, parsed JSON value or ``InputError``) for each non-blank line of a JSONL byte stream.

    A line that is not UTF-8 or not JSON is yielded as its error, never raised: check-batch and
    audit-bulk turn it into an error row and go on with the next line.
    """
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield number, InputError(f"line {number}: not valid UTF-8 (byte {exc.start})")
            continue
        try:
            yield number, json.loads(text)
        except json.JSONDecodeError as exc:
            yield number, InputError(f"line {number}: not JSON ({exc.msg} at column {exc.colno})")
        except RecursionError:  # a nesting bomb on one line is that line's error, not the job's
            yield number, InputError(f"line {number}: JSON nested too deeply")


def batch_item_from_row(obj: Any, where: str) -> Any:
    """The ``BatchItem`` one input row describes (``id``, ``response``, ``context``, ``question`` or
    ``query``), or an ``InputError`` starting with ``where`` ("line 3", "row 3") naming what is wrong.

    The one reading of a row, for check-batch (JSONL) and audit-bulk (JSONL and Parquet), so both
    check exactly the same item for the same row.
    """
    from .guardrail import BatchItem

    if not isinstance(obj, dict):
        raise InputError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    if "response" not in obj:
        raise InputError(f"{where}: missing field 'response'")
    ident = obj.get("id")
    try:
        return BatchItem(id=None if ident is None else str(ident), response=obj["response"], context=obj.get("context"),
                         question=obj.get("query", obj.get("question")))
    except Exception as exc:  # pydantic ValidationError: wrong field types
        raise InputError(f"{where}: {exc}") from exc


def guardrail_from_args(args: argparse.Namespace) -> Any:
    """The ``Guardrail`` the shared options describe (``--verifier``, ``--threshold``, ``--top-k``,
    ``--require-citations``, the LLM options): the one place check, check-batch, audit-bulk and its
    Ray workers build it, so every command checks with the same configuration."""
    from .evidence import EvidenceSelector
    from .guardrail import Guardrail
    from .verifiers import make_verifier

    llm = llm_from_args(args)
    verifier = make_verifier(getattr(args, "verifier", "default"), llm=llm)
    settings = dict(getattr(verifier, "evidence_selector", None) or {})
    if getattr(args, "top_k", None) is not None:
        settings["top_k"] = args.top_k
    return Guardrail(
        verifier,
        llm=llm,
        selector=EvidenceSelector(**settings),
        threshold=getattr(args, "threshold", None),
        require_citations=getattr(args, "require_citations", False),
    )


def add_llm_options(p: argparse.ArgumentParser | Any, what: str) -> None:
    """The endpoint options every command with an LLM path shares (``what`` says what the LLM is for).
    ``--llm-base-url`` is added by the caller when it must sit in a mutually exclusive group."""
    if not any("--llm-base-url" in a.option_strings for a in getattr(p, "_actions", [])):
        p.add_argument("--llm-base-url", help=f"OpenAI-compatible endpoint for {what}")
    p.add_argument("--llm-model", help="model name at --llm-base-url")
    p.add_argument("--llm-timeout", type=positive_float, default=30.0, help="seconds per LLM request (> 0)")
    p.add_argument("--llm-response-format", default="none",
                   choices=["none", "json_object", "json_schema", "llamacpp_schema"],
                   help="constrain JSON replies (llamacpp_schema: grammar-constrained decoding on llama.cpp; "
                        "small local models rarely produce valid JSON without it)")


def llm_from_args(args: argparse.Namespace) -> Any:
    """The ``OpenAIChat`` the options describe, or None when no endpoint is given."""
    base_url, model = getattr(args, "llm_base_url", None), getattr(args, "llm_model", None)
    if not base_url:
        if model:
            raise InputError("--llm-model needs --llm-base-url")
        return None
    if not model:
        raise InputError("--llm-base-url needs --llm-model")
    from .llm import OpenAIChat

    return OpenAIChat(base_url=base_url, model=model, timeout_s=getattr(args, "llm_timeout", 30.0),
                      response_format=getattr(args, "llm_response_format", "none"))
