"""guardrail audit-bulk (guardrail/bulk): same verdicts as check-batch on both engines, nothing lost or
written twice across a crash and a rerun, the summary's figures, and Ray staying optional.

The Ray tests share one local Ray (2 CPUs, 200 MB object store) per module and skip, saying why, only
when Ray is not installed; `scripts/setup.sh --dev` installs the bulk extra, so CI runs them.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from guardrail.calibrate import wilson
from guardrail.cli import main

pa = pytest.importorskip("pyarrow", reason="audit-bulk writes Parquet: the bulk extra (pip install 'rag-guardrail[bulk]')")
import pyarrow.parquet as pq  # noqa: E402

HAS_RAY = importlib.util.find_spec("ray") is not None
needs_ray = pytest.mark.skipif(not HAS_RAY, reason="Ray is not installed (pip install 'rag-guardrail[bulk]')")

CTX = "The Eiffel Tower was completed in 1889 in Paris. It is 330 metres tall and was designed by Gustave Eiffel's company."
CTX2 = ["Marie Curie won the Nobel Prize in Physics in 1903.", "She won the Nobel Prize in Chemistry in 1911."]


def _rows() -> list[list[dict | str]]:
    """Two shards: faithful and wrong answers, list contexts, a question, no context, citations, a JSON
    answer, and rows that cannot be checked (not JSON, no response, an empty answer)."""
    return [
        [
            {"id": "a1", "tenant": "acme", "model": "m1", "context": CTX, "response": "The Eiffel Tower was completed in 1889 in Paris."},
            {"id": "a2", "tenant": "acme", "model": "m2", "context": CTX, "response": "The Eiffel Tower was completed in 1887 in Lyon."},
            {"id": "a3", "tenant": "globex", "model": "m1", "context": CTX2, "question": "When did Curie win?",
             "response": "Marie Curie won the Nobel Prize in Physics in 1903 and in Chemistry in 1921."},
            "{not json",
            {"id": "a4", "tenant": "globex", "model": "m2", "context": None, "response": "The tower is 330 metres tall."},
        ],
        [
            {"id": 5, "tenant": "acme", "model": "m1", "context": CTX, "response": "It is 300 metres tall [1]."},
            {"id": "a6", "tenant": "acme", "model": "m1", "context": CTX},
            {"id": "a7", "tenant": "globex", "model": "m1", "context": CTX2, "response": '{"laureate": "Marie Curie", "year": 1911}'},
            {"id": "a8", "tenant": "globex", "model": "m2", "context": CTX, "response": ""},
            {"id": "a9", "meta": {"tenant": "initech"}, "context": CTX, "response": "Gustave Eiffel's company designed the tower."},
        ],
    ]


def _write_jsonl(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, rows in enumerate(_rows()):
        path = folder / f"part-{i}.jsonl"
        path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
        paths.append(path)
    return paths


def _answers(out: Path) -> list[dict]:
    return pq.read_table(out / "answers").to_pylist() if (out / "answers").is_dir() else []


def _table(out: Path, kind: str) -> list[dict]:
    """Every row of answers/ or claims/, in shard and row order, without the timing column."""
    rows = []
    for path in sorted((out / kind).glob("shard-*.parquet")):
        rows += pq.read_table(path).to_pylist()
    for r in rows:
        r.pop("latency_ms", None)
    return sorted(rows, key=lambda r: (r["shard"], r["row"], r.get("claim") or 0))


def _check_batch(paths: list[Path], tmp: Path) -> dict[tuple[str, int], dict]:
    """check-batch's report lines for each input file, keyed like audit-bulk's rows (shard, line)."""
    out = {}
    for i, path in enumerate(paths):
        report = tmp / f"check-batch-{i}.jsonl"
        assert main(["check-batch", "--input", str(path), "--output", str(report), "--no-progress"]) == 0
        for line in report.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            out[(f"shard-{i:05d}", row["line"])] = row
    return out


def _verdicts_from_bulk(out: Path) -> dict[tuple[str, int], dict]:
    claims: dict[tuple[str, int], list] = {}
    for c in _table(out, "claims"):
        claims.setdefault((c["shard"], c["row"]), []).append(
            (c["start"], c["end"], c["label"], None if c["hallucination_score"] is None else round(c["hallucination_score"], 4),
             c["error_type"], c["evidence_start"], c["evidence_end"]))
    verdicts = {}
    for a in _table(out, "answers"):
        key = (a["shard"], a["row"])
        verdicts[key] = ({"id": a["id"], "error": a["error"]} if a["error"] else
                         {"id": a["id"], "score": round(a["hallucination_score"], 4), "flagged": a["flagged"],
                          "complete": a["complete"], "claims": claims.get(key, [])})
    return verdicts


def _verdicts_from_check_batch(rows: dict[tuple[str, int], dict]) -> dict[tuple[str, int], dict]:
    verdicts = {}
    for key, r in rows.items():
        ident = None if r["id"] is None else str(r["id"])
        verdicts[key] = ({"id": ident, "error": r["error"]} if "error" in r else
                         {"id": ident, "score": r["hallucination_score"], "flagged": r["hallucinated"], "complete": r["complete"],
                          "claims": [(c["start"], c["end"], c["label"], c["hallucination_score"], c["error_type"],
                                      (c["evidence"] or {}).get("start"), (c["evidence"] or {}).get("end")) for c in r["claims"]]})
    return verdicts


def _audit(inp: Path, out: Path, *extra: str) -> int:
    return main(["audit-bulk", "--input", str(inp), "--output", str(out), "--group-by", "tenant,model", "--no-progress",
                 *extra])


@pytest.fixture(scope="module")
def ray_local():
    """One local Ray for the module's Ray tests (audit-bulk uses a Ray it finds running and leaves it up)."""
    if not HAS_RAY:
        pytest.skip("Ray is not installed (pip install 'rag-guardrail[bulk]')")
    import ray

    ray.init(num_cpus=2, include_dashboard=False, object_store_memory=200 * 1024 * 1024, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


# ------------------------------------------------------------------------------------------ same verdicts


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """The sample's input shards, check-batch's verdicts on them and the local engine's output."""
    tmp = tmp_path_factory.mktemp("bulk-sample")
    paths = _write_jsonl(tmp / "in")
    expected = _verdicts_from_check_batch(_check_batch(paths, tmp))
    assert _audit(tmp / "in", tmp / "local") == 0
    return tmp, expected


def test_local_engine_gives_check_batch_verdicts(sample):
    tmp, expected = sample
    got = _verdicts_from_bulk(tmp / "local")
    assert got == expected
    # the sample covers what it is meant to: flagged and passed answers, an incomplete one, every error kind
    answers = [v for v in got.values() if "error" not in v]
    assert {a["flagged"] for a in answers} == {True, False}
    assert any(not a["complete"] for a in answers)
    errors = sorted(v["error"] for v in got.values() if "error" in v)
    assert len(errors) == 3 and any("not JSON" in e for e in errors) and any("'response'" in e for e in errors)


@needs_ray
def test_ray_engine_gives_check_batch_verdicts(sample, ray_local, tmp_path):
    tmp, expected = sample
    assert _audit(tmp / "in", tmp_path / "ray", "--engine", "ray", "--workers", "2") == 0
    assert _verdicts_from_bulk(tmp_path / "ray") == expected
    # not only the verdicts: every column of every row (bar timing) is what the local engine wrote
    assert _table(tmp_path / "ray", "answers") == _table(tmp / "local", "answers")
    assert _table(tmp_path / "ray", "claims") == _table(tmp / "local", "claims")


def test_every_row_is_one_answer_row_with_its_group(sample):
    tmp, _ = sample
    rows = _table(tmp / "local", "answers")
    assert [(r["shard"], r["row"]) for r in rows] == [
        ("shard-00000", n) for n in range(1, 6)] + [("shard-00001", n) for n in range(1, 6)]
    by_id = {r["id"]: r for r in rows}
    assert by_id["5"]["tenant"] == "acme"  # a numeric id is kept, as a string
    assert by_id["a9"]["tenant"] is None  # the key is not at the top level of that row
    assert by_id["a6"]["error"] == "line 2: missing field 'response'" and by_id["a6"]["tenant"] == "acme"


def test_parquet_input_gives_the_same_output_as_the_same_rows_in_jsonl(tmp_path):
    pq_in, js_in = tmp_path / "pq", tmp_path / "js"
    pq_in.mkdir(), js_in.mkdir()
    for i, rows in enumerate(_rows()):
        good = [dict(r) for r in rows if isinstance(r, dict)]
        for r in good:  # one Parquet schema per file: ids as strings, contexts as lists of passages
            r["id"] = str(r["id"])
            r["context"] = [r["context"]] if isinstance(r.get("context"), str) else r.get("context")
        table = pa.Table.from_pylist(good)
        pq.write_table(table, pq_in / f"part-{i}.parquet")
        (js_in / f"part-{i}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in table.to_pylist()), encoding="utf-8")
    assert _audit(pq_in, tmp_path / "pq-out") == 0
    assert _audit(js_in, tmp_path / "js-out") == 0
    got, want = _table(tmp_path / "pq-out", "answers"), _table(tmp_path / "js-out", "answers")
    assert [r["error"] for r in got] == [None if r["error"] is None else r["error"].replace("line ", "row ", 1) for r in want]
    for r in got + want:
        r.pop("error")
    assert got == want and _table(tmp_path / "pq-out", "claims") == _table(tmp_path / "js-out", "claims")
    assert sum(r["flagged"] is None for r in got) == 2  # the row without a response and the empty answer


def test_uri_input_and_nested_group_key(sample, tmp_path):
    tmp, _ = sample
    out = tmp_path / "out"
    assert main(["audit-bulk", "--input", (tmp / "in").as_uri(), "--output", out.as_uri(), "--group-by", "meta.tenant",
                 "--no-progress"]) == 0
    rows = {r["id"]: r for r in _table(out, "answers")}
    assert rows["a9"]["meta.tenant"] == "initech" and rows["a1"]["meta.tenant"] is None


# ------------------------------------------------------------------------------------------ summary


def test_summary_rates_per_group_with_wilson_intervals(sample):
    tmp, _ = sample
    summary = json.loads((tmp / "local" / "summary.json").read_text(encoding="utf-8"))
    rows = _table(tmp / "local", "answers")
    checked = [r for r in rows if r["error"] is None]
    assert (summary["answers"], summary["checked"], summary["errors"]) == (len(rows), len(checked), len(rows) - len(checked))
    assert summary["flagged"] == sum(r["flagged"] for r in checked)
    assert summary["rate"] == wilson(summary["flagged"], summary["checked"]).model_dump()
    assert sum(summary["score_histogram"]) == len(checked)
    for g in summary["groups"]:
        mine = [r for r in rows if (r["tenant"], r["model"]) == (g["group"]["tenant"], g["group"]["model"])]
        ok = [r for r in mine if r["error"] is None]
        assert g["answers"] == len(mine) and g["checked"] == len(ok)
        assert g["rate"] == wilson(sum(r["flagged"] for r in ok), len(ok)).model_dump()
    assert sum(g["answers"] for g in summary["groups"]) == len(rows)
    flagged_claims = [c for c in _table(tmp / "local", "claims") if c["flagged"]]
    assert sum(e["claims"] for e in summary["error_types"]) == len(flagged_claims)
    assert [a["id"] for a in summary["top_flagged"]] and all(a["hallucination_score"] >= 0 for a in summary["top_flagged"])
    html = (tmp / "local" / "summary.html").read_text(encoding="utf-8")
    assert "Per group (tenant, model)" in html and "95% CI" in html
    if importlib.util.find_spec("matplotlib"):
        assert "plots/scores.png" in html and (tmp / "local" / "plots" / "scores.png").stat().st_size > 1000


# ------------------------------------------------------------------------------------------ nothing lost, nothing twice

_KILL_MIDWAY = textwrap.dedent("""
    import os, signal, sys
    import pyarrow.parquet as pq
    real = pq.write_table
    calls = []

    def write_then_die(table, where, *args, **kwargs):
        calls.append(where)
        real(table, where, *args, **kwargs)
        if len(calls) == 4:  # shard 0: claims, answers; shard 1: claims, then its answers half written
            size = os.path.getsize(where)
            with open(where, "r+b") as f:
                f.truncate(size // 2)
            os.kill(os.getpid(), signal.SIGKILL)

    pq.write_table = write_then_die
    from guardrail.cli import main
    sys.exit(main(sys.argv[1:]))
""")


def _three_shards(folder: Path) -> Path:
    folder.mkdir()
    for s in range(3):
        lines = [json.dumps({"id": f"s{s}-{i}", "tenant": f"t{i % 2}", "model": "m", "context": CTX,
                             "response": f"The Eiffel Tower was completed in {1887 + (s + i) % 3} in Paris."}) for i in range(3)]
        (folder / f"day-{s}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("rerun_engine", ["local", pytest.param("ray", marks=needs_ray)])
def test_killed_run_then_rerun_equals_one_clean_run(tmp_path, rerun_engine, request):
    inp = _three_shards(tmp_path / "in")
    clean, crashed = tmp_path / "clean", tmp_path / "crashed"
    assert _audit(inp, clean) == 0

    args = ["audit-bulk", "--input", str(inp), "--output", str(crashed), "--group-by", "tenant,model", "--no-progress"]
    proc = subprocess.run([sys.executable, "-c", _KILL_MIDWAY, *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert sorted(p.name for p in (crashed / "answers").glob("shard-*")) == ["shard-00000.parquet"]
    assert list((crashed / "answers").glob(".*tmp-*"))  # the half-written file it died on
    finished = (crashed / "answers" / "shard-00000.parquet").stat()

    if rerun_engine == "ray":
        request.getfixturevalue("ray_local")
    assert _audit(inp, crashed, "--engine", rerun_engine) == 0
    assert (crashed / "answers" / "shard-00000.parquet").stat().st_mtime_ns == finished.st_mtime_ns  # not redone
    assert not list((crashed / "answers").glob(".*")) and not list((crashed / "claims").glob(".*"))
    for kind in ("answers", "claims"):
        assert _table(crashed, kind) == _table(clean, kind)
    a, b = (json.loads((d / "summary.json").read_text(encoding="utf-8")) for d in (clean, crashed))
    a.pop("created"), b.pop("created"), a.pop("output"), b.pop("output")
    assert a == b


@pytest.mark.parametrize("engine", ["local", pytest.param("ray", marks=needs_ray)])
def test_unreadable_shard_fails_alone_and_a_rerun_finishes_it(tmp_path, monkeypatch, engine, request, capsys):
    inp = _three_shards(tmp_path / "in")
    assert _audit(inp, tmp_path / "clean") == 0
    if engine == "ray":
        request.getfixturevalue("ray_local")
    import guardrail.bulk.io as bulk_io

    real = bulk_io.list_shards
    bad = inp / "day-1.jsonl"
    good = bad.read_bytes()

    def list_then_break(location):  # the file goes away between listing and reading, as on a shared filesystem
        shards = real(location)
        bad.unlink()
        bad.mkdir()
        return shards

    monkeypatch.setattr(bulk_io, "list_shards", list_then_break)
    out = tmp_path / "out"
    assert _audit(inp, out, "--engine", engine) == 1
    assert "shard-00001 not written" in capsys.readouterr().err
    assert sorted(p.name for p in (out / "answers").glob("shard-*")) == ["shard-00000.parquet", "shard-00002.parquet"]
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["shards_done"] == 2 and [f["shard"] for f in summary["failed_shards"]] == ["shard-00001"]

    monkeypatch.setattr(bulk_io, "list_shards", real)
    bad.rmdir()
    bad.write_bytes(good)
    assert _audit(inp, out, "--engine", engine) == 0
    for kind in ("answers", "claims"):
        assert _table(out, kind) == _table(tmp_path / "clean", kind)


def test_rerun_with_other_settings_is_refused(tmp_path, capsys):
    inp = _three_shards(tmp_path / "in")
    assert _audit(inp, tmp_path / "out") == 0
    assert main(["audit-bulk", "--input", str(inp), "--output", str(tmp_path / "out"), "--group-by", "tenant",
                 "--no-progress"]) == 2
    assert "holds an audit of other inputs, settings or checker version" in capsys.readouterr().err


def test_rerun_with_another_checker_is_refused(tmp_path, capsys, monkeypatch):
    # A retrained model (or an upgrade) between two runs would give half the shards other verdicts.
    inp = _three_shards(tmp_path / "in")
    assert _audit(inp, tmp_path / "out") == 0
    import guardrail.bulk.job as job

    monkeypatch.setattr(job, "checker_fingerprint", lambda verifier: {"code": "other", "models": "other"})
    assert _audit(inp, tmp_path / "out") == 2
    assert "checker version" in capsys.readouterr().err


def test_checker_fingerprint_follows_a_model_folder(tmp_path):
    from guardrail.bulk.job import checker_fingerprint

    (tmp_path / "config.json").write_text('{"name": "a"}')
    first = checker_fingerprint(f"grounding:{tmp_path}")
    assert first == checker_fingerprint(f"grounding:{tmp_path}")
    (tmp_path / "config.json").write_text('{"name": "b"}')
    assert checker_fingerprint(f"grounding:{tmp_path}")["models"] != first["models"]
    assert checker_fingerprint(f"grounding:{tmp_path}")["code"] == first["code"]


def test_group_key_that_names_an_output_column_is_refused(tmp_path, capsys):
    inp = _three_shards(tmp_path / "in")
    assert main(["audit-bulk", "--input", str(inp), "--output", str(tmp_path / "out"), "--group-by", "flagged"]) == 2
    assert "already has a column" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------ Ray is optional


def test_local_engine_needs_no_ray_and_ray_engine_names_the_extra(tmp_path, monkeypatch, capsys):
    for name in [m for m in sys.modules if m == "ray" or m.startswith("ray.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError, as without the extra
    inp = _three_shards(tmp_path / "in")
    assert _audit(inp, tmp_path / "local") == 0
    assert len(_table(tmp_path / "local", "answers")) == 9
    assert _audit(inp, tmp_path / "ray", "--engine", "ray") == 2
    err = capsys.readouterr().err
    assert "rag-guardrail[bulk]" in err and "Traceback" not in err
    assert not (tmp_path / "ray").exists()  # refused before anything was written


def test_output_inside_the_input_folder_is_refused(tmp_path, capsys):
    inp = _three_shards(tmp_path / "in")
    assert main(["audit-bulk", "--input", str(inp), "--output", str(inp / "audit")]) == 2
    assert "inside --input" in capsys.readouterr().err and not (inp / "audit").exists()


def test_without_pyarrow_the_error_names_the_extra(tmp_path, monkeypatch, capsys):
    inp = _three_shards(tmp_path / "in")
    for name in [m for m in sys.modules if m == "pyarrow" or m.startswith("pyarrow.")]:
        monkeypatch.setitem(sys.modules, name, None)  # import pyarrow -> ImportError, as in the default install
    assert _audit(inp, tmp_path / "out") == 2
    err = capsys.readouterr().err
    assert "pyarrow" in err and "rag-guardrail[bulk]" in err and "Traceback" not in err
