"""Audit log: every decision, one SQLite row, committed before ``record`` returns.

SQLite in WAL mode with ``synchronous=FULL``: a committed row survives the process being
killed (and a power cut), a reader never blocks the writer, and several processes may append
to the same file. Each row keeps the queryable summary in columns and the whole ``Decision``
(report, reasons, attempts, latencies) as JSON, so an audit can replay why an answer was shown.
With ``redact=True`` the texts (answer, evidence, claims, rewrites, reasons) are replaced by
their length before anything touches the disk, and what names a document (evidence ids, sources,
citation markers, metadata values) by a hash keyed with a random salt kept in the log's ``meta``
table, so joins and counts per document still work within the log; codes, scores, claim ids and
policy hashes are kept.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..errors import BackendError, ConfigError, InputError
from ._decision import Decision

__all__ = ["AuditLog", "AuditRecord", "AuditSummary", "DriftConfig", "DriftStatus", "redact", "pseudonym"]

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS decisions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    ts REAL NOT NULL,
    tenant TEXT NOT NULL,
    policy_name TEXT NOT NULL,
    policy_hash TEXT NOT NULL,
    action TEXT NOT NULL,
    code TEXT NOT NULL,
    reason_codes TEXT NOT NULL,
    hallucinated INTEGER,
    hallucination_score REAL,
    n_claims INTEGER,
    n_flagged INTEGER,
    attempts INTEGER NOT NULL,
    latency_ms REAL,
    redacted INTEGER NOT NULL,
    request_id TEXT,
    decision TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS decisions_tenant ON decisions (tenant, id);
CREATE INDEX IF NOT EXISTS decisions_request ON decisions (request_id);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""

#: Keys whose string values (or, for mappings, whose values) are user or document text.
_TEXT_KEYS = frozenset({
    "answer", "final_text", "text", "question", "statement", "reason", "message", "why", "note", "last_output",
    "claim_value", "evidence_value", "subject", "record",
})
_MAP_KEYS = frozenset({"rewrites"})
#: Keys whose string values (or lists of strings) name a document: paths, URLs, titles, ids chosen by
#: the caller. They are replaced by a keyed hash, so "which claims cited the same passage" and counts
#: per document still work on a redacted log while the name itself is gone.
_ID_KEYS = frozenset({"source", "evidence_id", "evidence_ids", "target_ids", "marker", "citations"})
#: Keys whose whole value is answer content of any shape (the parsed JSON of a structured answer).
_WHOLE_KEYS = frozenset({"parsed"})
_HASH_PREFIX = "h:"  # the stand-in stays a plain string, so a redacted row still validates as a Decision


def _mask(value: str) -> str:
    return f"[redacted: {len(value)} chars]"


def pseudonym(value: str, key: bytes) -> str:
    """A stable, keyed stand-in for an identifier: equal inputs give equal outputs within one log
    (``key`` is the log's own random salt), and without the key a guessable id ("1", "report.pdf")
    cannot be recovered by hashing candidates."""
    return _HASH_PREFIX + hmac.new(key, value.encode("utf-8"), hashlib.sha256).hexdigest()[:16]


def redact(data: Any, _key: str | None = None, *, key: bytes = b"") -> Any:
    """A copy of a JSON-like value with every text replaced by its length and every document
    identity (evidence ids, sources, citation markers, metadata values) by a keyed hash.

    ``key``: the salt of the hashes; ``AuditLog`` passes its own, so hashes join within one log.
    """
    if isinstance(data, dict):
        out: dict[str, Any] = {}
        for k, v in data.items():
            if k in _MAP_KEYS and isinstance(v, dict):
                out[k] = {kk: _mask(vv) if isinstance(vv, str) else "[redacted]" for kk, vv in v.items()}
            elif k == "metadata" and isinstance(v, dict):
                # Keys are the caller's field names (title, page, url); their values may name the document.
                out[k] = {kk: pseudonym(json.dumps(vv, sort_keys=True, default=str), key) for kk, vv in v.items()}
            elif k in _WHOLE_KEYS and v is not None:
                out[k] = "[redacted]"
            elif k == "evidence" and isinstance(v, list):
                out[k] = [_redact_evidence(e, key) for e in v]
            else:
                out[k] = redact(v, k, key=key)
        return out
    if isinstance(data, list):
        return [redact(v, _key, key=key) for v in data]
    if isinstance(data, str) and _key in _TEXT_KEYS:
        return _mask(data)
    if isinstance(data, str) and _key in _ID_KEYS:
        return pseudonym(data, key)
    return data


def _redact_evidence(item: Any, key: bytes) -> Any:
    """An evidence record: its ``id`` is a document identity too (only here: claim ids are ours)."""
    out = redact(item, "evidence", key=key)
    if isinstance(out, dict) and isinstance(out.get("id"), str):
        out["id"] = pseudonym(out["id"], key)
    return out


class DriftConfig(BaseModel):
    """One-sided CUSUM on the hallucination indicator: alerts when the rate drifts above target."""

    model_config = ConfigDict(extra="forbid")

    target_rate: float = Field(ge=0.0, le=1.0, description="Expected hallucination rate (e.g. measured on a validation week).")
    slack: float = Field(default=0.05, ge=0.0, le=1.0, description="Drift tolerated before evidence accumulates (k).")
    threshold: float = Field(default=4.0, gt=0.0, description="Alert when the CUSUM statistic exceeds it (h).")
    window: int = Field(default=10_000, ge=1, description="Most recent decisions the statistic is computed over.")


class DriftStatus(BaseModel):
    model_config = ConfigDict(extra="forbid")

    statistic: float
    alert: bool
    since_id: int | None = Field(default=None, description="Row id from which the statistic has been rising without reset.")
    samples: int
    config: DriftConfig


class AuditRecord(BaseModel):
    """One row of the log."""

    model_config = ConfigDict(extra="forbid")

    id: int
    ts: float
    tenant: str
    policy_name: str
    policy_hash: str
    action: str
    code: str
    reason_codes: list[str]
    hallucinated: bool | None = Field(description="The answer had a claim the policy flagged (its threshold, not the "
                                      "engine's); None when the answer could not be checked.")
    hallucination_score: float | None
    n_claims: int | None
    n_flagged: int | None = Field(description="Claims the policy flagged.")
    attempts: int
    latency_ms: float | None
    redacted: bool
    request_id: str | None
    decision_json: str = Field(repr=False)

    def decision(self) -> Decision:
        """The full decision as recorded (texts masked when the row is redacted)."""
        return Decision.model_validate_json(self.decision_json)


class AuditSummary(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tenant: str | None
    total: int
    actions: dict[str, int]
    reasons: dict[str, int]
    checked: int = Field(description="Decisions whose answer could be checked (with a report).")
    hallucination_rate: float | None = Field(description="Share of checked original answers with a flagged claim.")
    regenerations: int
    regeneration_success_rate: float | None
    mean_latency_ms: float | None
    first_ts: float | None
    last_ts: float | None
    drift: DriftStatus | None = None


class AuditLog:
    """Append-only SQLite log of decisions; safe to share between threads and processes."""

    def __init__(self, path: str | os.PathLike[str], *, redact: bool = False, drift: DriftConfig | None = None,
                 clock: Callable[[], float] = time.time):
        self.path = Path(path)
        self.redact = redact
        self.drift = drift
        self._clock = clock
        self._lock = threading.Lock()
        try:
            if self.path.parent and not self.path.parent.exists():
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=10.0, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA busy_timeout = 10000")
            mode = self._db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise ConfigError(f"audit log cannot use WAL journaling (got {mode!r})", file=str(self.path))
            self._db.execute("PRAGMA synchronous = FULL")
            self._db.executescript(_SCHEMA)
            row = self._db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
            if row is None:
                self._db.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            elif int(row[0]) != SCHEMA_VERSION:
                raise ConfigError(f"audit log schema version {row[0]} is not {SCHEMA_VERSION}", file=str(self.path))
            # OR IGNORE: several processes may open a new log at once; all then read the one that won.
            self._db.execute("INSERT OR IGNORE INTO meta VALUES ('redaction_salt', ?)", (secrets.token_hex(32),))
            self._salt = bytes.fromhex(self._db.execute("SELECT value FROM meta WHERE key = 'redaction_salt'").fetchone()[0])
        except sqlite3.Error as exc:
            raise BackendError(f"cannot open audit log {self.path}: {exc}") from exc

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> "AuditLog":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ------------------------------------------------------------------ write

    def record(self, decision: Decision, tenant: str, *, request_id: str | None = None) -> int:
        """Append one decision and commit it; returns the row id."""
        report = decision.report
        data = decision.model_dump(mode="json")
        if self.redact:
            data = redact(data, key=self._salt)
        latency = decision.latencies_ms.get("total")
        if latency is None and report is not None:
            latency = report.latencies_ms.get("total")
        # The policy's reading of the report, the one that acted (its threshold may differ from the
        # engine's); a decision built by hand without an analysis falls back to the engine's view.
        flagged = None if report is None else (len(decision.analysis.flagged) if decision.analysis is not None
                                                else len(report.flagged))
        hallucinated = None if report is None else (bool(decision.analysis.flagged) if decision.analysis is not None
                                                    else report.hallucinated)
        row = (
            self._clock(), tenant, decision.policy_name, decision.policy_hash, decision.action.value, decision.code.value,
            json.dumps(list(dict.fromkeys(r.code.value for r in decision.reasons))),
            None if hallucinated is None else int(hallucinated),
            None if report is None else report.hallucination_score,
            None if report is None else len(report.claims),
            flagged,
            len(decision.attempts), latency, int(self.redact), request_id,
            json.dumps(data, ensure_ascii=False, separators=(",", ":")),
        )
        try:
            with self._lock:
                cur = self._db.execute(
                    "INSERT INTO decisions (ts, tenant, policy_name, policy_hash, action, code, reason_codes, hallucinated, "
                    "hallucination_score, n_claims, n_flagged, attempts, latency_ms, redacted, request_id, decision) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    row,
                )  # autocommit mode: the row is committed when execute returns
                assert cur.lastrowid is not None  # set by every INSERT
                return int(cur.lastrowid)
        except sqlite3.Error as exc:
            raise BackendError(f"cannot write to audit log {self.path}: {exc}") from exc

    # ------------------------------------------------------------------ read

    _COLUMNS = ("id, ts, tenant, policy_name, policy_hash, action, code, reason_codes, hallucinated, hallucination_score, "
                "n_claims, n_flagged, attempts, latency_ms, redacted, request_id, decision")

    @staticmethod
    def _record(row: tuple[Any, ...]) -> AuditRecord:
        (id_, ts, tenant, pname, phash, action, code, reasons, halluc, score, n_claims, n_flagged, attempts, latency,
         redacted, request_id, decision) = row
        return AuditRecord(
            id=id_, ts=ts, tenant=tenant, policy_name=pname, policy_hash=phash, action=action, code=code,
            reason_codes=json.loads(reasons), hallucinated=None if halluc is None else bool(halluc), hallucination_score=score,
            n_claims=n_claims, n_flagged=n_flagged, attempts=attempts, latency_ms=latency, redacted=bool(redacted),
            request_id=request_id, decision_json=decision,
        )

    def _query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            with self._lock:
                return self._db.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise BackendError(f"cannot read audit log {self.path}: {exc}") from exc

    def last(self, n: int = 20, tenant: str | None = None) -> list[AuditRecord]:
        """The ``n`` most recent decisions, newest first, optionally of one tenant."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise InputError(f"last(n): n must be a whole number of at least 1, got {n!r} (SQLite reads a negative LIMIT as no limit)")
        where, params = ("WHERE tenant = ?", (tenant,)) if tenant is not None else ("", ())
        rows = self._query(f"SELECT {self._COLUMNS} FROM decisions {where} ORDER BY id DESC LIMIT ?", (*params, int(n)))
        return [self._record(r) for r in rows]

    def find(self, request_id: str, tenant: str | None = None) -> AuditRecord | None:
        """The newest decision recorded under ``request_id`` (a stream records one per released
        segment and the whole answer's last), optionally only if it belongs to ``tenant``."""
        where, params = ("AND tenant = ?", (tenant,)) if tenant is not None else ("", ())
        rows = self._query(f"SELECT {self._COLUMNS} FROM decisions WHERE request_id = ? {where} ORDER BY id DESC LIMIT 1",
                           (request_id, *params))
        return self._record(rows[0]) if rows else None

    def count(self, tenant: str | None = None) -> int:
        where, params = ("WHERE tenant = ?", (tenant,)) if tenant is not None else ("", ())
        return int(self._query(f"SELECT COUNT(*) FROM decisions {where}", params)[0][0])

    def tenants(self) -> list[str]:
        return [r[0] for r in self._query("SELECT DISTINCT tenant FROM decisions ORDER BY tenant")]

    def summary(self, tenant: str | None = None, *, drift: DriftConfig | None = None) -> AuditSummary:
        """Counts by action and reason, hallucination rate, regeneration success, latency, drift.

        ``drift``: the CUSUM settings for this call (a tenant's own target), else the log's."""
        drift_config = drift if drift is not None else self.drift
        where, params = ("WHERE tenant = ?", (tenant,)) if tenant is not None else ("", ())
        rows = self._query(
            f"SELECT action, reason_codes, hallucinated, attempts, latency_ms, ts, id FROM decisions {where} ORDER BY id", params
        )
        actions: Counter[str] = Counter()
        reasons: Counter[str] = Counter()
        halluc = [r[2] for r in rows if r[2] is not None]
        latencies = [r[4] for r in rows if r[4] is not None]
        regen = [r for r in rows if r[3] > 0]
        for r in rows:
            actions[r[0]] += 1
            reasons.update(json.loads(r[1]))
        status = None
        if drift_config is not None:
            status = cusum([(r[6], r[2]) for r in rows if r[2] is not None][-drift_config.window :], drift_config)
        return AuditSummary(
            tenant=tenant,
            total=len(rows),
            actions=dict(actions),
            reasons=dict(reasons),
            checked=len(halluc),
            hallucination_rate=(sum(halluc) / len(halluc)) if halluc else None,
            regenerations=len(regen),
            regeneration_success_rate=(sum(1 for r in regen if r[0] == "regenerate") / len(regen)) if regen else None,
            mean_latency_ms=(sum(latencies) / len(latencies)) if latencies else None,
            first_ts=rows[0][5] if rows else None,
            last_ts=rows[-1][5] if rows else None,
            drift=status,
        )


def cusum(samples: list[tuple[int, int]], config: DriftConfig) -> DriftStatus:
    """Upper CUSUM S_t = max(0, S_{t-1} + x_t - (target + slack)) over (row id, hallucinated 0/1)."""
    s, since = 0.0, None
    for row_id, x in samples:
        s = max(0.0, s + float(x) - (config.target_rate + config.slack))
        if s == 0.0:
            since = None
        elif since is None:
            since = row_id
    return DriftStatus(statistic=s, alert=s > config.threshold, since_id=since, samples=len(samples), config=config)
