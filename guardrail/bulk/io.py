"""Reading input shards and writing per-shard Parquet, on any filesystem pyarrow (and so Ray Data) reads.

Paths without a scheme are local; ``s3://``, ``gs://``, ``hdfs://``... go through
``pyarrow.fs.FileSystem.from_uri``, the filesystem layer Ray Data itself uses, so the local engine and
the Ray workers read and write the same locations the same way.

Nothing lost, nothing twice:
- every input row becomes exactly one row of ``answers/`` (a malformed row is an error row with its
  id and reason), in input order;
- a shard's two files are written to a temporary name and moved into place, claims first and answers
  last: a shard is finished exactly when ``answers/NAME.parquet`` exists, so a rerun after a crash
  skips finished shards and rewrites the rest whole;
- ``manifest.json`` records the inputs and settings; a rerun with other inputs or settings into the
  same folder is refused rather than mixing two audits.
"""

from __future__ import annotations

import io
import json
import posixpath
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..cli_io import jsonl_rows
from ..errors import ConfigError, InputError
from .job import ANSWER_COLUMNS, CLAIM_COLUMNS, AuditJob, Shard, ShardFormat

__all__ = ["require_pyarrow", "resolve", "list_shards", "read_rows", "answers_schema", "claims_schema",
           "shard_done", "write_shard", "prepare_output", "answers_path", "claims_path", "done_shards"]

_FORMATS: dict[str, ShardFormat] = {".jsonl": "jsonl", ".jsonl.gz": "jsonl", ".json": "jsonl", ".ndjson": "jsonl",
                                    ".parquet": "parquet"}
_TMP = ".tmp-"


def require_pyarrow() -> Any:
    """pyarrow, or a ConfigError naming the extra: the audit writes Parquet with either engine."""
    try:
        import pyarrow
        import pyarrow.fs  # noqa: F401 - the submodules are what is used
        import pyarrow.parquet  # noqa: F401
    except ImportError as exc:
        raise ConfigError("audit-bulk reads and writes Parquet with pyarrow: pip install 'rag-guardrail[bulk]' "
                          "(pyarrow alone is enough for --engine local)") from exc
    return pyarrow


def resolve(location: str) -> tuple[Any, str]:
    """(pyarrow filesystem, path on it) for a local path or a URI."""
    pa = require_pyarrow()
    if "://" in location:
        try:
            return pa.fs.FileSystem.from_uri(location)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError) as exc:
            raise InputError(f"cannot open {location}: {exc}") from exc
    return pa.fs.LocalFileSystem(), Path(location).expanduser().resolve().as_posix()


def _format(path: str) -> ShardFormat | None:
    lower = path.lower()
    for suffix, fmt in _FORMATS.items():
        if lower.endswith(suffix):
            return fmt
    return None


def list_shards(location: str) -> list[Shard]:
    """One shard per input file: ``location`` itself, or every JSONL / JSONL.gz / Parquet file under it
    (recursively, in path order; names starting with '.' or '_' are skipped, as Spark and Ray write them)."""
    pa = require_pyarrow()
    fs, root = resolve(location)
    info = fs.get_file_info(root)
    if info.type == pa.fs.FileType.NotFound:
        raise InputError(f"--input {location} does not exist")
    if info.type == pa.fs.FileType.File:
        fmt = _format(root)
        if fmt is None:
            raise InputError(f"--input {location}: not .jsonl, .jsonl.gz or .parquet")
        files = [(root, info.size, fmt)]
    else:
        found = fs.get_file_info(pa.fs.FileSelector(root, recursive=True))
        files = sorted((f.path, f.size, fmt) for f in found
                       if f.type == pa.fs.FileType.File and (fmt := _format(f.path))
                       and not any(part[:1] in "._" for part in posixpath.relpath(f.path, root).split("/")))
        if not files:
            raise InputError(f"--input {location}: no .jsonl, .jsonl.gz or .parquet files in it")
    scheme = location.split("://", 1)[0] + "://" if "://" in location else ""
    return [Shard(name=f"shard-{i:05d}", path=scheme + path if scheme and "://" not in path else path,
                  format=fmt, size=int(size or 0)) for i, (path, size, fmt) in enumerate(files)]


def read_rows(shard: Shard) -> Iterator[tuple[int, Any]]:
    """(row number from 1, the row as a dict, or the ``InputError`` that row is) for every row of the shard.

    JSONL rows go through check-batch's own line reader (blank lines skipped, numbers are line numbers);
    Parquet rows are numbered in file order. An unreadable file raises; a bad row never does.
    """
    pa = require_pyarrow()
    fs, path = resolve(shard.path)
    try:
        if shard.format == "jsonl":
            with fs.open_input_stream(path, compression="detect") as stream:
                yield from jsonl_rows(io.BufferedReader(stream))
            return
        number = 0
        with fs.open_input_file(path) as handle:
            for batch in pa.parquet.ParquetFile(handle).iter_batches(batch_size=1024):
                for row in batch.to_pylist():
                    number += 1
                    yield number, row
    except (OSError, pa.ArrowException) as exc:
        raise InputError(f"cannot read {shard.path}: {exc}") from exc


# ------------------------------------------------------------------------------------------ output tables


def answers_schema(group_by: list[str]) -> Any:
    pa = require_pyarrow()
    return pa.schema([
        ("shard", pa.string()), ("row", pa.int64()), ("id", pa.string()),
        *[(key, pa.string()) for key in group_by],
        ("hallucination_score", pa.float64()), ("flagged", pa.bool_()), ("complete", pa.bool_()),
        ("latency_ms", pa.float64()), ("claims", pa.int32()), ("flagged_claims", pa.int32()), ("error", pa.string()),
    ])


def claims_schema(group_by: list[str]) -> Any:
    pa = require_pyarrow()
    return pa.schema([
        ("shard", pa.string()), ("row", pa.int64()), ("id", pa.string()), *[(key, pa.string()) for key in group_by],
        ("claim", pa.int32()), ("start", pa.int64()), ("end", pa.int64()), ("text", pa.string()), ("label", pa.string()),
        ("confidence", pa.float64()), ("hallucination_score", pa.float64()), ("flagged", pa.bool_()),
        ("error_type", pa.string()), ("evidence_id", pa.string()), ("evidence_start", pa.int64()),
        ("evidence_end", pa.int64()), ("evidence_text", pa.string()), ("reason", pa.string()),
    ])


def _dir(job: AuditJob, kind: str) -> tuple[Any, str]:
    fs, root = resolve(job.output)
    return fs, f"{root}/{kind}"


def answers_path(job: AuditJob, shard: str) -> tuple[Any, str]:
    fs, d = _dir(job, "answers")
    return fs, f"{d}/{shard}.parquet"


def claims_path(job: AuditJob, shard: str) -> tuple[Any, str]:
    fs, d = _dir(job, "claims")
    return fs, f"{d}/{shard}.parquet"


def shard_done(job: AuditJob, shard: str) -> bool:
    pa = require_pyarrow()
    fs, path = answers_path(job, shard)
    return fs.get_file_info(path).type == pa.fs.FileType.File


def done_shards(job: AuditJob) -> list[str]:
    return [s.name for s in job.shards if shard_done(job, s.name)]


def _write_atomic(fs: Any, path: str, table: Any) -> None:
    """Parquet written under a temporary name beside ``path``, then moved onto it: a reader (or a rerun)
    sees the whole file or none. On object stores the move is a copy of a complete object."""
    pa = require_pyarrow()
    directory, name = posixpath.split(path)
    tmp = f"{directory}/.{name}{_TMP}{uuid.uuid4().hex}"
    try:
        pa.parquet.write_table(table, tmp, filesystem=fs)
        fs.move(tmp, path)
    except (OSError, pa.ArrowException) as exc:
        raise InputError(f"cannot write {path}: {exc}") from exc


def write_shard(job: AuditJob, shard: str, answers: list[dict[str, Any]], claims: list[dict[str, Any]]) -> None:
    """A shard's claims, then its answers (the file whose presence marks the shard finished)."""
    pa = require_pyarrow()
    fs, cpath = claims_path(job, shard)
    _write_atomic(fs, cpath, pa.Table.from_pylist(claims, schema=claims_schema(job.group_by)))
    fs, apath = answers_path(job, shard)
    _write_atomic(fs, apath, pa.Table.from_pylist(answers, schema=answers_schema(job.group_by)))


def prepare_output(job: AuditJob) -> None:
    """Create the output folders, refuse a folder that holds another audit, record this one, and remove
    temporary files a killed run left behind (never a finished shard)."""
    pa = require_pyarrow()
    reserved = set(ANSWER_COLUMNS) | set(CLAIM_COLUMNS)
    clash = [k for k in job.group_by if k in reserved]
    if clash:
        raise InputError(f"--group-by {', '.join(clash)}: the output already has a column of that name")
    fs, root = resolve(job.output)
    try:
        for kind in ("answers", "claims"):
            fs.create_dir(f"{root}/{kind}", recursive=True)
            for f in fs.get_file_info(pa.fs.FileSelector(f"{root}/{kind}")):
                if f.type == pa.fs.FileType.File and _TMP in f.base_name:
                    fs.delete_file(f.path)
        manifest = f"{root}/manifest.json"
        if fs.get_file_info(manifest).type == pa.fs.FileType.File:
            with fs.open_input_stream(manifest) as handle:
                before = json.loads(handle.read().decode("utf-8"))
            if before != job.identity():
                raise InputError(
                    f"--output {job.output} holds an audit of other inputs, settings or checker version (see its manifest.json); "
                    "give a new folder, or delete that one to start over")
        else:
            tmp = f"{root}/.manifest.json{_TMP}{uuid.uuid4().hex}"
            with fs.open_output_stream(tmp) as handle:
                handle.write(json.dumps(job.identity(), indent=2).encode("utf-8"))
            fs.move(tmp, manifest)
    except (OSError, pa.ArrowException, json.JSONDecodeError) as exc:
        raise InputError(f"cannot use --output {job.output}: {exc}") from exc
