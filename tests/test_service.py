"""`guardrail serve` against a real server: uvicorn on 127.0.0.1 on a free port, real HTTP (httpx).

Covers each route, auth and tenant isolation, the limits (413, 429), a verifier that fails and one
that hangs (answered by the tenant policy's fail mode), readiness while the models load, a broken
policy edit, metrics, spans, and a property test: no request body gets a 500 or a traceback.
"""

from __future__ import annotations

import json
import logging
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
pytest.importorskip("prometheus_client")

import uvicorn  # noqa: E402
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st  # noqa: E402

from guardrail import Guardrail  # noqa: E402
from guardrail.errors import ConfigError  # noqa: E402
from guardrail.policy import Decision  # noqa: E402
from guardrail.service import ServiceSettings, TenantSettings, create_app, hash_key, keys_from_env, load_key_file  # noqa: E402
from guardrail.service.logs import JsonFormatter, request_id_var  # noqa: E402
from guardrail.streaming import CheckedSegment  # noqa: E402
from guardrail.types import CheckReport  # noqa: E402

CONTEXT = ["The Eiffel Tower is 330 metres tall. It was completed in 1889 for the World's Fair in Paris."]
TRUE = "The Eiffel Tower is 330 metres tall."
FALSE = "It was completed in 1887 for the World's Fair."
KEY_A, KEY_B = "alpha-secret-key-0123456789", "beta-secret-key-9876543210"
ALPHA_ABSTAIN = "Alpha withholds this answer."


# --------------------------------------------------------------------------------------------- server


@contextmanager
def serve(app) -> Iterator[str]:
    """Run ``app`` on uvicorn in a thread, on a free port of 127.0.0.1; yields the base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=5))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        sock.close()


def wait_ready(client: httpx.Client, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while client.get("/readyz").status_code != 200:
        if time.monotonic() > deadline:
            raise AssertionError(f"not ready: {client.get('/readyz').json()}")
        time.sleep(0.05)


@pytest.fixture(scope="module")
def heuristic() -> Guardrail:
    return Guardrail("heuristic")


def write_policies(root: Path) -> Path:
    (root / "tenants").mkdir(parents=True)
    (root / "tenants" / "alpha.yaml").write_text(
        "name: alpha\n"
        "rules:\n  contradiction:\n    max_count: 0\n    action: abstain\n"
        f"abstain:\n  message: {ALPHA_ABSTAIN!r}\n", encoding="utf-8")
    # beta lets an answer whose check could not run through, marked (fail-open, recorded).
    (root / "tenants" / "beta.yaml").write_text("name: beta\nfailure:\n  default: open\n", encoding="utf-8")
    return root


def tenant_settings(**alpha: object) -> dict[str, TenantSettings]:
    return {
        "alpha": TenantSettings(keys=[hash_key(KEY_A)], **alpha),
        "beta": TenantSettings(keys=[hash_key(KEY_B)]),
    }


def keyed(tmp_path: Path, **alpha: object) -> ServiceSettings:
    return ServiceSettings(policies=write_policies(tmp_path / "policies"), tenants=tenant_settings(**alpha),
                           auth_required=True, audit_path=tmp_path / "audit.db", worker_threads=2)


@pytest.fixture
def server(tmp_path, heuristic) -> Iterator[str]:
    with serve(create_app(keyed(tmp_path), guardrail=heuristic)) as url:
        yield url


def client(url: str, key: str | None = None, **kw) -> httpx.Client:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.Client(base_url=url, headers=headers, timeout=30, **kw)


# --------------------------------------------------------------------------------------------- routes


def test_check_returns_the_report(server):
    with client(server, KEY_A) as c:
        r = c.post("/v1/check", json={"answer": f"{TRUE} {FALSE}", "context": CONTEXT})
    assert r.status_code == 200, r.text
    report = CheckReport.model_validate(r.json())
    assert report.hallucinated and [v.label.value for v in report.verdicts] == ["supported", "contradicted"]
    assert len(r.headers["x-request-id"]) >= 16


def test_check_with_a_schema_checks_the_fields(server):
    schema = {"type": "object", "properties": {"height_m": {"type": "integer"}}, "required": ["height_m"]}
    with client(server, KEY_A) as c:
        ok = c.post("/v1/check", json={"answer": '{"height_m": 330}', "context": CONTEXT, "schema": schema})
        bad = c.post("/v1/check", json={"answer": '{"height": "tall"}', "context": CONTEXT, "schema": schema})
    assert ok.status_code == 200 and ok.json()["schema_result"]["valid"] is True
    assert bad.status_code == 200 and bad.json()["schema_result"]["valid"] is False


def test_guard_decides_under_the_tenants_policy_and_the_decision_is_in_the_audit(server):
    with client(server, KEY_A) as a, client(server, KEY_B) as b:
        ra = a.post("/v1/guard", json={"answer": f"{TRUE} {FALSE}", "context": CONTEXT})
        rb = b.post("/v1/guard", json={"answer": f"{TRUE} {FALSE}", "context": CONTEXT})
        assert ra.status_code == 200 and rb.status_code == 200
        da, db = Decision.model_validate(ra.json()["decision"]), Decision.model_validate(rb.json()["decision"])
        assert (da.policy_name, da.action.value, da.final_text) == ("alpha", "abstain", ALPHA_ABSTAIN)
        assert db.policy_name == "beta" and db.action.value != "abstain"
        rid = ra.json()["request_id"]
        assert rid == ra.headers["x-request-id"]
        got = a.get(f"/v1/decisions/{rid}")
        assert got.status_code == 200 and got.json()["tenant"] == "alpha"
        assert Decision.model_validate(got.json()["decision"]).final_text == ALPHA_ABSTAIN
        # Tenant isolation: beta cannot read alpha's decision, and learns nothing about it (404, as if absent).
        leak = b.get(f"/v1/decisions/{rid}")
        assert leak.status_code == 404 and ALPHA_ABSTAIN not in leak.text
        assert a.get("/v1/decisions/no-such-id").json()["error"]["code"] == "not_found"


def test_a_caller_supplied_request_id_is_kept_and_a_hostile_one_replaced(server):
    with client(server, KEY_A) as c:
        kept = c.post("/v1/guard", json={"answer": TRUE, "context": CONTEXT}, headers={"X-Request-ID": "trace-42.a"})
        replaced = c.post("/v1/guard", json={"answer": TRUE, "context": CONTEXT}, headers={"X-Request-ID": "x\x7f" + "y" * 300})
    assert kept.json()["request_id"] == "trace-42.a"
    assert replaced.json()["request_id"] != "x\x7f" + "y" * 300 and len(replaced.json()["request_id"]) == 32


def parse_sse(text: str) -> list[tuple[str, dict]]:
    events = []
    for block in text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        events.append((lines["event"], json.loads(lines["data"])))
    return events


def test_stream_releases_checked_sentences_then_the_decision(server):
    chunks = ["The Eiffel Tower is 330 ", "metres tall. It was completed in 1887 ", "for the World's Fair."]
    with client(server, KEY_A) as c:
        with c.stream("POST", "/v1/guard/stream", json={"chunks": chunks, "context": CONTEXT}) as r:
            assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
            events = parse_sse(r.read().decode())
    kinds = [e for e, _ in events]
    assert kinds[-1] == "decision" and set(kinds[:-1]) == {"segment"}
    segments = [CheckedSegment.model_validate(d) for e, d in events if e == "segment"]
    shown = "".join(s.output for s in segments)
    assert "1887" not in shown  # the false sentence is never released
    final = Decision.model_validate(events[-1][1]["decision"])
    assert final.policy_name == "alpha" and final.action.value == "abstain"


def test_stream_needs_exactly_one_of_chunks_and_answer(server):
    with client(server, KEY_A) as c:
        both = c.post("/v1/guard/stream", json={"chunks": ["a"], "answer": "a", "context": CONTEXT})
        whole = c.post("/v1/guard/stream", json={"answer": TRUE, "context": CONTEXT})
    assert both.status_code == 422 and both.json()["error"]["code"] == "invalid_input"
    assert parse_sse(whole.text)[-1][1]["decision"]["action"] == "respond"


def test_batch_reports_each_item_and_an_items_bad_input_is_its_own_error(server):
    items = [{"id": "t", "response": TRUE, "context": CONTEXT}, {"id": "empty", "response": "   ", "context": CONTEXT},
             {"id": "f", "response": FALSE, "context": CONTEXT}]
    with client(server, KEY_B) as c:
        r = c.post("/v1/batch", json={"items": items})
    assert r.status_code == 200, r.text
    results = {x["id"]: x for x in r.json()["results"]}
    assert results["t"]["report"]["hallucinated"] is False and results["f"]["report"]["hallucinated"] is True
    assert results["empty"]["report"] is None and results["empty"]["error"]["code"] == "invalid_input"


def test_health_ready_metrics_and_openapi(server):
    with client(server) as c:  # the ops routes need no key
        assert c.get("/healthz").json() == {"status": "alive"}
        ready = c.get("/readyz").json()
        assert ready["ready"] and ready["models"] == "loaded" and set(ready["policies"]) == {"alpha", "beta"}
        paths = c.get("/openapi.json").json()["paths"]
        assert {"/v1/check", "/v1/guard", "/v1/guard/stream", "/v1/batch", "/v1/decisions/{request_id}"} <= set(paths)
    with client(server, KEY_A) as c:
        c.post("/v1/guard", json={"answer": f"{TRUE} {FALSE}", "context": CONTEXT})
        text = c.get("/metrics").text
    assert 'guardrail_actions_total{action="abstain",tenant="alpha"} 1.0' in text
    assert 'guardrail_claims_total{tenant="alpha"} 2.0' in text and 'guardrail_flagged_claims_total{tenant="alpha"} 1.0' in text
    assert 'guardrail_requests_total{route="/v1/guard",status="200",tenant="alpha"} 1.0' in text
    assert "guardrail_stage_seconds_bucket" in text and "guardrail_request_seconds_bucket" in text


# --------------------------------------------------------------------------------------------- auth


def test_auth_rejects_missing_unknown_and_malformed_keys_and_never_logs_them(server, caplog):
    caplog.set_level(logging.DEBUG)
    body = {"answer": TRUE, "context": CONTEXT}
    with client(server) as c:
        assert c.post("/v1/check", json=body).status_code == 401
        wrong = c.post("/v1/check", json=body, headers={"Authorization": "Bearer not-a-key"})
        basic = c.post("/v1/check", json=body, headers={"Authorization": "Basic abc"})
        header = c.post("/v1/check", json=body, headers={"X-API-Key": KEY_B})
    assert wrong.status_code == 401 and wrong.json()["error"]["code"] == "unauthorized"
    assert basic.status_code == 401 and header.status_code == 200
    assert KEY_A not in caplog.text and KEY_B not in caplog.text and "not-a-key" not in caplog.text


def test_a_key_can_use_only_its_own_tenant(server):
    with client(server, KEY_A) as c:
        r = c.post("/v1/guard", json={"answer": TRUE, "context": CONTEXT, "tenant": "beta"})
        own = c.post("/v1/guard", json={"answer": TRUE, "context": CONTEXT, "tenant": "alpha"})
    assert r.status_code == 403 and r.json()["error"] == {"code": "forbidden", "message": "this key may use tenant 'alpha' only",
                                                          "field": "tenant"}
    assert own.status_code == 200 and own.json()["decision"]["policy_name"] == "alpha"


def test_without_keys_only_the_default_tenant_is_served(tmp_path, heuristic):
    settings = ServiceSettings(policies=write_policies(tmp_path / "p"), audit_path=tmp_path / "a.db")
    with serve(create_app(settings, guardrail=heuristic)) as url, client(url) as c:
        ok = c.post("/v1/guard", json={"answer": TRUE, "context": CONTEXT})
        other = c.post("/v1/guard", json={"answer": TRUE, "context": CONTEXT, "tenant": "alpha"})
    assert ok.status_code == 200 and ok.json()["decision"]["policy_name"] == "default"
    assert other.status_code == 403


def test_key_file_and_environment_hold_hashes_only(tmp_path):
    good = tmp_path / "keys.yaml"
    good.write_text(f"tenants:\n  alpha:\n    keys: ['{hash_key(KEY_A)}']\n    max_concurrency: 2\n", encoding="utf-8")
    assert load_key_file(good)["alpha"].max_concurrency == 2
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps({"tenants": {"alpha": {"keys": [KEY_A]}}}), encoding="utf-8")
    with pytest.raises(ConfigError) as exc:
        load_key_file(plain)
    assert "tenants.alpha.keys" in str(exc.value) and KEY_A not in str(exc.value) and "plain.json" in str(exc.value)
    shared = tmp_path / "shared.yaml"
    shared.write_text(f"tenants:\n  a:\n    keys: ['{hash_key(KEY_A)}']\n  b:\n    keys: ['{hash_key(KEY_A)}']\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="granted to tenants"):
        load_key_file(shared)
    assert set(keys_from_env(f"alpha:{hash_key(KEY_A)}, beta:{hash_key(KEY_B)}")) == {"alpha", "beta"}
    with pytest.raises(ConfigError, match="tenant:sha256hex"):
        keys_from_env("just-a-key")
    with pytest.raises(ConfigError, match="tenant id"):
        keys_from_env(f"../etc:{hash_key(KEY_A)}")


# --------------------------------------------------------------------------------------------- limits


def test_body_over_the_tenants_limit_is_413_by_length_and_while_streaming(tmp_path, heuristic):
    app = create_app(keyed(tmp_path, max_body_bytes=2_000), guardrail=heuristic)
    big = {"answer": TRUE, "context": ["x " * 2_000]}
    with serve(app) as url, client(url, KEY_A) as a, client(url, KEY_B) as b:
        r = a.post("/v1/check", json=big)
        assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"
        assert b.post("/v1/check", json=big).status_code == 200  # beta's limit is the default
        # Chunked, no Content-Length: cut by the server-wide cap (the largest tenant limit) as it arrives.
        payload = json.dumps({"answer": TRUE, "context": ["y" * 9_000_000]}).encode()
        chunked = b.post("/v1/check", content=iter([payload[i:i + 65536] for i in range(0, len(payload), 65536)]),
                         headers={"Content-Type": "application/json"})
        assert chunked.status_code == 413 and chunked.json()["error"]["code"] == "too_large"


def test_an_answer_over_the_library_limit_is_413_naming_the_field(server):
    from guardrail.limits import LIMITS

    over = "a" * (LIMITS.max_answer_chars + 1)
    half = "a" * (LIMITS.max_answer_chars // 2 + 1)
    with client(server, KEY_A) as c:
        r = c.post("/v1/guard", json={"answer": over, "context": CONTEXT})
        batch = c.post("/v1/batch", json={"items": [{"response": TRUE, "context": CONTEXT}, {"response": over, "context": CONTEXT}]})
        stream = c.post("/v1/guard/stream", json={"chunks": [half, half], "context": CONTEXT})  # each chunk under, the answer over
    assert r.status_code == 413 and r.json()["error"]["field"] == "answer"
    assert batch.status_code == 413 and batch.json()["error"]["field"] == "items[1].response"
    assert stream.status_code == 413 and stream.json()["error"]["field"] == "chunks"


class Gate:
    """A verifier that waits for ``opened`` (or ``hold_s``) before answering like the heuristic."""

    def __init__(self, inner, opened: threading.Event, hold_s: float = 30.0):
        self.inner, self.opened, self.hold_s, self.name = inner, opened, hold_s, "gate"
        self.entered = threading.Event()

    def verify(self, items, batch_size=32):
        self.entered.set()
        self.opened.wait(self.hold_s)
        return self.inner.verify(items, batch_size)


def gated(heuristic: Guardrail, gate) -> Guardrail:
    return Guardrail(gate, selector=heuristic.selector, threshold=heuristic.threshold)


def test_a_tenant_over_its_concurrency_limit_gets_429_and_others_are_unaffected(tmp_path, heuristic):
    opened = threading.Event()
    gate = Gate(heuristic.verifier, opened)
    app = create_app(keyed(tmp_path, max_concurrency=1), guardrail=gated(heuristic, gate))
    with serve(app) as url, client(url, KEY_A) as a, client(url, KEY_B) as b:
        first: dict = {}
        t = threading.Thread(target=lambda: first.update(r=a.post("/v1/check", json={"answer": TRUE, "context": CONTEXT})))
        t.start()
        try:
            assert gate.entered.wait(10)
            second = a.post("/v1/check", json={"answer": TRUE, "context": CONTEXT})
            assert second.status_code == 429 and second.headers["retry-after"] == "1"
            assert second.json()["error"]["code"] == "too_many_requests"
            opened.set()  # beta is not limited by alpha's slot
            assert b.post("/v1/check", json={"answer": TRUE, "context": CONTEXT}).status_code == 200
        finally:
            opened.set()
            t.join(10)
        assert first["r"].status_code == 200
        assert 'guardrail_rejected_total{reason="too_many_requests",tenant="alpha"} 1.0' in a.get("/metrics").text
        assert a.post("/v1/check", json={"answer": TRUE, "context": CONTEXT}).status_code == 200  # slot released


# --------------------------------------------------------------------------------------------- failures


class Broken:
    name = "broken"

    def verify(self, items, batch_size=32):
        raise ZeroDivisionError("model exploded")


def test_a_failing_verifier_is_decided_by_each_tenants_fail_mode(tmp_path, heuristic):
    app = create_app(keyed(tmp_path), guardrail=Guardrail(Broken(), selector=heuristic.selector))
    with serve(app) as url, client(url, KEY_A) as a, client(url, KEY_B) as b:
        ra = a.post("/v1/guard", json={"answer": TRUE, "context": CONTEXT})
        rb = b.post("/v1/guard", json={"answer": TRUE, "context": CONTEXT})
        report = a.post("/v1/check", json={"answer": TRUE, "context": CONTEXT})
        metrics = a.get("/metrics").text
    assert ra.status_code == 200 and ra.json()["decision"]["action"] == "abstain"  # alpha: fail-closed (default)
    assert rb.status_code == 200 and rb.json()["decision"]["action"] != "abstain"  # beta: fail-open, recorded
    assert any(r["code"] == "check_skipped" for r in rb.json()["decision"]["reasons"])
    assert report.status_code == 200 and CheckReport.model_validate(report.json()).complete is False
    assert report.json()["skipped"][0]["check"] == "verify"
    assert 'guardrail_verifier_failures_total{check="verify",tenant="alpha"}' in metrics


def test_a_hanging_verifier_is_answered_at_the_deadline_by_the_fail_mode(tmp_path, heuristic):
    opened = threading.Event()
    app = create_app(keyed(tmp_path, timeout_s=0.5), guardrail=gated(heuristic, Gate(heuristic.verifier, opened)))
    try:
        with serve(app) as url, client(url, KEY_A) as a:
            t0 = time.monotonic()
            r = a.post("/v1/guard", json={"answer": TRUE, "context": CONTEXT})
            took = time.monotonic() - t0
            check = a.post("/v1/check", json={"answer": TRUE, "context": CONTEXT})
            metrics = a.get("/metrics").text
            assert a.get("/healthz").status_code == 200  # the event loop was never blocked
    finally:
        opened.set()
    assert r.status_code == 200 and took < 5
    d = r.json()["decision"]
    assert d["action"] == "abstain" and d["code"] == "check_failed" and "deadline" in d["error"]
    assert check.status_code == 504 and check.json()["error"]["code"] == "deadline_exceeded"
    assert 'guardrail_deadline_exceeded_total{route="guard",tenant="alpha"} 1.0' in metrics


def test_not_ready_while_the_models_load(tmp_path, heuristic):
    loaded = threading.Event()

    def slow_load() -> Guardrail:
        loaded.wait(30)
        return heuristic

    app = create_app(keyed(tmp_path), make_guardrail=slow_load)
    try:
        with serve(app) as url, client(url, KEY_A) as c:
            assert c.get("/healthz").status_code == 200
            ready = c.get("/readyz")
            assert ready.status_code == 503 and ready.json()["models"] == "loading"
            r = c.post("/v1/check", json={"answer": TRUE, "context": CONTEXT})
            assert r.status_code == 503 and r.json()["error"]["code"] == "not_ready" and "retry-after" in r.headers
            loaded.set()
            wait_ready(c)
            assert c.post("/v1/check", json={"answer": TRUE, "context": CONTEXT}).status_code == 200
    finally:
        loaded.set()


def test_models_that_fail_to_load_are_reported_not_raised(tmp_path):
    def fail() -> Guardrail:
        raise OSError("model file missing")

    with serve(create_app(keyed(tmp_path), make_guardrail=fail)) as url, client(url, KEY_A) as c:
        deadline = time.monotonic() + 10
        while "model file missing" not in c.get("/readyz").json()["models"] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert c.get("/readyz").status_code == 503 and "model file missing" in c.get("/readyz").json()["models"]
        assert "model file missing" in c.post("/v1/guard", json={"answer": TRUE, "context": CONTEXT}).json()["error"]["message"]


def test_a_broken_policy_edit_keeps_the_last_good_policy_and_shows_on_readyz(tmp_path, heuristic):
    settings = keyed(tmp_path)
    with serve(create_app(settings, guardrail=heuristic)) as url, client(url, KEY_A) as c:
        assert c.get("/readyz").json()["policy_errors"] == {}
        (settings.policies / "tenants" / "alpha.yaml").write_text("name: alpha\nrules: [not, a, mapping\n", encoding="utf-8")
        time.sleep(1.1)  # the store re-stats at most once a second
        ready = c.get("/readyz")
        assert ready.status_code == 200 and "alpha" in ready.json()["policy_errors"]
        r = c.post("/v1/guard", json={"answer": f"{TRUE} {FALSE}", "context": CONTEXT})
        assert r.json()["decision"]["final_text"] == ALPHA_ABSTAIN  # still alpha's last good rules
        assert 'guardrail_policy_errors{tenant="alpha"} 1.0' in c.get("/metrics").text


def test_a_tenant_without_a_policy_file_makes_the_server_not_ready(tmp_path, heuristic):
    settings = keyed(tmp_path)
    settings.tenants["gamma"] = TenantSettings(keys=[hash_key("gamma-key")])
    with serve(create_app(settings, guardrail=heuristic)) as url, client(url, "gamma-key") as c:
        ready = c.get("/readyz")
        assert ready.status_code == 503 and ready.json()["policies"]["gamma"].startswith("error")
        r = c.post("/v1/guard", json={"answer": TRUE, "context": CONTEXT})
        assert r.status_code == 503 and r.json()["error"]["code"] == "policy_unavailable"


# --------------------------------------------------------------------------------------------- observability


def test_spans_per_stage_through_the_opentelemetry_api(server, span_names):
    with client(server, KEY_A) as c:
        assert c.post("/v1/check", json={"answer": TRUE, "context": CONTEXT}).status_code == 200
    assert {"guardrail.request", "guardrail.check", "guardrail.prepare", "guardrail.verify", "guardrail.finish"} <= set(span_names)


def test_json_log_lines_carry_the_request_id():
    token = request_id_var.set("req-123")
    try:
        record = logging.LogRecord("guardrail.service", logging.WARNING, __file__, 1, "deadline %s", ("exceeded",), None)
        record.tenant = "alpha"
        line = json.loads(JsonFormatter().format(record))
    finally:
        request_id_var.reset(token)
    assert line["request_id"] == "req-123" and line["message"] == "deadline exceeded" and line["tenant"] == "alpha"


# --------------------------------------------------------------------------------------------- properties

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
FIELD = st.sampled_from(["answer", "context", "question", "schema", "tenant", "chunks", "items", "response", "id"])
BODIES = st.one_of(
    JSON,
    st.dictionaries(FIELD, JSON, max_size=5),
    st.fixed_dictionaries({"answer": st.text(max_size=200), "context": JSON}, optional={"question": JSON, "schema": JSON}),
    st.fixed_dictionaries({"items": st.lists(st.fixed_dictionaries({"response": st.text(max_size=80), "context": JSON}), max_size=3)}),
    st.fixed_dictionaries({"chunks": st.lists(st.text(max_size=40), max_size=4), "context": JSON}),
)
ROUTES = st.sampled_from(["/v1/check", "/v1/guard", "/v1/guard/stream", "/v1/batch"])


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory, heuristic) -> Iterator[str]:
    with serve(create_app(keyed(tmp_path_factory.mktemp("prop")), guardrail=heuristic)) as url:
        yield url


@hsettings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(route=ROUTES, body=BODIES, raw=st.booleans())
def test_no_request_body_gets_a_500_or_a_traceback(shared_server, route, body, raw):
    with client(shared_server, KEY_A) as c:
        if raw:  # bytes that may not even be JSON
            r = c.post(route, content=json.dumps(body)[:-1].encode() + b"\xff", headers={"Content-Type": "application/json"})
        else:
            r = c.post(route, json=body)
    assert r.status_code < 500, (r.status_code, r.text)
    assert "Traceback" not in r.text
    if r.status_code >= 400:
        assert set(r.json()["error"]) == {"code", "message", "field"}
    elif route == "/v1/guard/stream":
        assert all(e in ("segment", "decision") for e, _ in parse_sse(r.text)), r.text


# --------------------------------------------------------------------------------------------- default model


def test_smoke_with_the_default_verifier(tmp_path):
    settings = keyed(tmp_path)
    with serve(create_app(settings)) as url, client(url, KEY_A) as c:
        wait_ready(c)
        assert c.get("/readyz").json()["verifier"] != "heuristic"
        r = c.post("/v1/guard", json={"answer": f"{TRUE} {FALSE}", "context": CONTEXT})
    assert r.status_code == 200 and r.json()["decision"]["report"]["hallucinated"] is True


# --------------------------------------------------------------------------------------------- command line


def serve_args(*argv: str):
    from guardrail.cli import _build_parser

    return _build_parser().parse_args(["serve", *argv])


def test_serve_refuses_a_network_address_without_keys(tmp_path, monkeypatch):
    from guardrail.service.cli import settings_from_args

    monkeypatch.delenv("GUARDRAIL_API_KEYS", raising=False)
    policies = str(write_policies(tmp_path / "p"))
    assert settings_from_args(serve_args("--policies", policies)).auth_required is False  # 127.0.0.1 by default
    with pytest.raises(ConfigError, match="without API keys"):
        settings_from_args(serve_args("--policies", policies, "--host", "0.0.0.0"))
    assert settings_from_args(serve_args("--policies", policies, "--host", "0.0.0.0", "--no-auth")).auth_required is False
    monkeypatch.setenv("GUARDRAIL_API_KEYS", f"alpha:{hash_key(KEY_A)}")
    keyed_settings = settings_from_args(serve_args("--policies", policies, "--host", "0.0.0.0"))
    assert keyed_settings.auth_required and set(keyed_settings.tenants) == {"alpha"}


def test_the_cli_registers_serve_without_importing_the_serve_extra():
    import subprocess
    import sys

    code = ("import sys; from guardrail.cli import _build_parser; _build_parser(); "
            "print(sorted(m for m in ('fastapi', 'uvicorn', 'prometheus_client') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_metrics_export_the_audit_drift_of_a_tenant_with_a_target(tmp_path, heuristic):
    # alpha expects 0% hallucinated answers: three flagged answers push its CUSUM over a low threshold.
    with serve(create_app(keyed(tmp_path, drift_target=0.0), guardrail=heuristic)) as url:
        with client(url, KEY_A) as a, client(url, KEY_B) as b:
            for _ in range(3):
                assert a.post("/v1/guard", json={"answer": FALSE, "context": CONTEXT}).status_code == 200
            assert b.post("/v1/guard", json={"answer": TRUE, "context": CONTEXT}).status_code == 200
            text = a.get("/metrics").text
    assert 'guardrail_hallucination_rate{tenant="alpha"} 1.0' in text
    assert 'guardrail_hallucination_rate{tenant="beta"} 0.0' in text
    assert 'guardrail_drift_cusum{tenant="alpha"} 2.85' in text  # 3 x (1 - (0 + 0.05 slack))
    assert 'guardrail_drift_cusum{tenant="beta"}' not in text  # no target, no drift statistic


# --------------------------------------------------------------------------------------------- from the OpenAPI schema


def _from_json_schema(schema: dict, components: dict, depth: int = 0) -> st.SearchStrategy:
    """Values a JSON Schema (the subset FastAPI writes for our pydantic bodies) accepts, plus, with a
    small chance at each node, any JSON at all: the schema's own shape and its near misses."""
    if "$ref" in schema:
        return _from_json_schema(components[schema["$ref"].rsplit("/", 1)[-1]], components, depth)
    if "anyOf" in schema or "oneOf" in schema:
        return st.one_of([_from_json_schema(s, components, depth) for s in schema.get("anyOf", schema.get("oneOf"))])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if kind == "object" and "properties" in schema and depth < 4:
        props = {k: _from_json_schema(v, components, depth + 1) for k, v in schema["properties"].items()}
        required = set(schema.get("required", []))
        return st.fixed_dictionaries({k: v for k, v in props.items() if k in required},
                                     optional={k: v for k, v in props.items() if k not in required})
    if kind == "array":
        return st.lists(_from_json_schema(schema.get("items", {}), components, depth + 1), max_size=3)
    simple = {"string": st.text(max_size=120), "integer": st.integers(-2**40, 2**40), "boolean": st.booleans(),
              "number": st.floats(allow_nan=False, allow_infinity=False), "null": st.none()}
    if kind in simple:
        return simple[kind]
    return JSON  # no type: the context field takes any JSON


def _openapi_bodies():
    import tempfile

    where = Path(tempfile.mkdtemp(prefix="guardrail-openapi-"))
    app = create_app(ServiceSettings(policies=write_policies(where / "policies"), audit_path=where / "audit.db"),
                     guardrail=object())
    spec = app.openapi()
    components = spec["components"]["schemas"]
    routes = []
    for path, ops in spec["paths"].items():
        body = ops.get("post", {}).get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
        if body is not None:
            routes.append(st.tuples(st.just(path), _from_json_schema(body, components)))
    assert len(routes) >= 4, spec["paths"].keys()  # check, guard, guard/stream, batch
    return st.one_of(routes)


@hsettings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(request=st.deferred(_openapi_bodies))
def test_bodies_generated_from_the_openapi_schema_never_get_a_500(shared_server, request):
    route, body = request
    with client(shared_server, KEY_A) as c:
        r = c.post(route, json=body)
    assert r.status_code < 500, (route, body, r.status_code, r.text)
    assert "Traceback" not in r.text
    if r.status_code >= 400:
        assert set(r.json()["error"]) == {"code", "message", "field"}
