"""Audit log: rows, redaction, queries, summary, CUSUM drift, and durability under SIGKILL."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from guardrail.policy import Action, AuditLog, DriftConfig, Policy, decide
from guardrail.policy._audit import cusum

from test_policy_helpers import make_report

REPO = Path(__file__).resolve().parent.parent

SECRET = "Patient Jane Roe takes 50 mg of drug X."


def decision(label="supported", answer=SECRET):
    r = make_report(answer, [{"text": answer, "label": label}])
    return decide(r, Policy(name="p"))


def test_record_and_read_back(tmp_path):
    with AuditLog(tmp_path / "a.db") as log:
        d1 = decision()
        d2 = decision("contradicted")
        i1 = log.record(d1, "acme", request_id="r1")
        i2 = log.record(d2, "beta")
        assert (i1, i2) == (1, 2)
        rows = log.last(10)
        assert [r.id for r in rows] == [2, 1]  # newest first
        assert rows[0].tenant == "beta" and rows[0].action == "regenerate" and rows[0].hallucinated is True
        assert rows[1].request_id == "r1" and rows[1].reason_codes == ["supported"] and rows[1].policy_hash == d1.policy_hash
        assert rows[1].decision() == d1  # the whole decision round-trips
        assert [r.id for r in log.last(10, tenant="acme")] == [1] and log.count() == 2 and log.tenants() == ["acme", "beta"]
    db = sqlite3.connect(tmp_path / "a.db")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_redaction_keeps_codes_and_scores_but_no_text(tmp_path):
    path = tmp_path / "r.db"
    with AuditLog(path, redact=True) as log:
        log.record(decision("unsupported"), "acme")
        row = log.last(1)[0]
        d = row.decision()
    raw = path.read_bytes() + (path.with_name("r.db-wal").read_bytes() if path.with_name("r.db-wal").exists() else b"")
    assert b"Jane Roe" not in raw and b"drug X" not in raw
    assert row.redacted and row.hallucinated is True and d.action is Action.abstain
    assert d.answer == f"[redacted: {len(SECRET)} chars]" and d.report.claims[0].text.startswith("[redacted")


def test_summary_and_drift(tmp_path):
    log = AuditLog(tmp_path / "s.db", drift=DriftConfig(target_rate=0.1, slack=0.05, threshold=2.0))
    for label in ["supported"] * 6 + ["contradicted"] * 4:
        log.record(decision(label), "acme")
    log.record(decision(), "other")
    s = log.summary("acme")
    assert s.total == 10 and s.checked == 10 and s.hallucination_rate == pytest.approx(0.4)
    assert s.actions == {"respond": 6, "regenerate": 4} and s.reasons["contradiction"] == 4
    assert s.drift is not None and s.drift.alert and s.drift.since_id == 7
    assert s.drift.statistic == pytest.approx(4 * 0.85)
    assert log.summary().total == 11 and log.summary("other").drift.alert is False


def test_cusum_resets_and_detects_upward_drift_only():
    cfg = DriftConfig(target_rate=0.2, slack=0.05, threshold=1.0)
    steady = [(i, int(i % 5 == 0)) for i in range(200)]  # exactly the target rate
    assert not cusum(steady, cfg).alert
    drifted = steady + [(200 + i, 1) for i in range(2)]
    assert cusum(drifted, cfg).alert  # 2 x 0.75 = 1.5 > 1
    assert cusum([(i, 0) for i in range(50)], cfg).statistic == 0.0


def test_open_errors(tmp_path):
    from guardrail.errors import BackendError

    (tmp_path / "dir.db").mkdir()
    with pytest.raises(BackendError):
        AuditLog(tmp_path / "dir.db")


WRITER = textwrap.dedent("""
    import sys
    sys.path.insert(0, {tests!r})
    from guardrail.policy import AuditLog, Policy, decide
    from test_policy_helpers import make_report
    log = AuditLog({db!r})
    policy = Policy(name="p")
    i = 0
    while True:
        answer = f"Claim number {{i}} is stated here with padding " + "x" * 2000 + "."
        label = "contradicted" if i % 3 == 0 else "supported"
        log.record(decide(make_report(answer, [{{"text": answer, "label": label}}]), policy), "batch")
        i += 1
        if i == 20:
            print("ready", flush=True)
""")


def test_rows_survive_sigkill_mid_batch(tmp_path):
    db = tmp_path / "kill.db"
    AuditLog(db).close()
    proc = subprocess.Popen([sys.executable, "-c", WRITER.format(tests=str(REPO / "tests"), db=str(db))],
                            stdout=subprocess.PIPE, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        assert proc.stdout.readline().strip() == b"ready"
        time.sleep(0.3)  # let it write more, then kill it in the middle of the batch
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()
    log = AuditLog(db)
    n = log.count()
    assert n >= 20
    rows = log.last(n + 10)
    assert [r.id for r in rows] == list(range(n, 0, -1))  # contiguous: no torn or missing row
    for row in rows:
        d = row.decision()  # every committed row parses back into a Decision
        assert d.answer.startswith("Claim number") and row.action == d.action.value
    assert log.record(decision(), "after") == n + 1  # and the log still takes writes


def test_the_rows_flags_are_the_policys_not_the_engines(tmp_path):
    # The engine (threshold 0.5) calls the claim clean at 0.4; a calibrated policy (0.3) flags it and acts.
    r = make_report(SECRET, [{"text": SECRET, "label": "unsupported", "score": 0.4}])
    assert not r.hallucinated and not r.flagged
    calibrated = decide(r, Policy.model_validate({"name": "c", "claims": {"score_threshold": 0.3}}))
    lenient = decide(r, Policy(name="p"))
    with AuditLog(tmp_path / "a.db") as log:
        log.record(calibrated, "acme")
        log.record(lenient, "acme")
        strict_row, lenient_row = log.last(2)[::-1]
        assert (strict_row.hallucinated, strict_row.n_flagged) == (True, 1)
        assert (lenient_row.hallucinated, lenient_row.n_flagged) == (False, 0)
        assert log.summary("acme").hallucination_rate == 0.5
