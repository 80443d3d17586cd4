"""PolicyStore: one slow tenant does not stall the others, edits are seen by content, deleted files stop being served."""

from __future__ import annotations

import os
import textwrap
import threading
import time
from pathlib import Path

import pytest

from guardrail.errors import ConfigError
from guardrail.policy import Action, PolicyStore
from guardrail.policy import _store


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


@pytest.fixture
def pdir(tmp_path):
    write(tmp_path / "default.yaml", "rules: {flagged: {action: caveat}}\n")
    write(tmp_path / "tenants" / "acme.yaml", "extends: default\nrules: {flagged: {action: abstain}}\n")
    write(tmp_path / "tenants" / "slow.yaml", "extends: default\n")
    return tmp_path


def test_a_slow_load_does_not_block_other_tenants(pdir, monkeypatch):
    """The store held one global lock while parsing, so a tenant with a slow file made every tenant wait."""
    release, entered = threading.Event(), threading.Event()
    real = _store.load_policy

    def load(path, **kw):
        if Path(path).stem == "slow":
            entered.set()
            release.wait(10)
        return real(path, **kw)

    monkeypatch.setattr(_store, "load_policy", load)
    store = PolicyStore(pdir)
    worker = threading.Thread(target=store.get, args=("slow",))
    worker.start()
    try:
        assert entered.wait(5)
        done: list[object] = []
        other = threading.Thread(target=lambda: done.append(store.get("acme")))
        other.start()
        other.join(3)
        assert done and done[0].rules.flagged.action is Action.abstain, "acme waited for slow's load"
    finally:
        release.set()
        worker.join(10)
    assert store.get("slow").name == "slow"


def test_same_tenant_callers_share_one_load(pdir, monkeypatch):
    calls: list[str] = []
    real = _store.load_policy

    def load(path, **kw):
        calls.append(Path(path).stem)
        time.sleep(0.2)
        return real(path, **kw)

    monkeypatch.setattr(_store, "load_policy", load)
    store = PolicyStore(pdir)
    threads = [threading.Thread(target=store.get, args=("acme",)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert calls == ["acme"]


def test_an_edit_with_the_same_size_and_mtime_is_reloaded(pdir):
    path = pdir / "tenants" / "acme.yaml"
    store = PolicyStore(pdir)
    assert store.get("acme").rules.flagged.action is Action.abstain
    st = path.stat()
    write(path, "extends: default\nrules: {flagged: {action: respond}}\n")  # "respond", "abstain": 7 letters each
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_size == st.st_size and path.stat().st_mtime_ns == st.st_mtime_ns
    assert store.get("acme").rules.flagged.action is Action.respond


def test_same_content_rewritten_keeps_the_cached_policy(pdir):
    path = pdir / "tenants" / "acme.yaml"
    store = PolicyStore(pdir)
    first = store.get("acme")
    path.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    assert store.get("acme").content_hash == first.content_hash


def test_a_deleted_tenant_file_stops_being_served(pdir, caplog):
    store = PolicyStore(pdir)
    assert store.get("acme").rules.flagged.action is Action.abstain
    (pdir / "tenants" / "acme.yaml").unlink()
    with pytest.raises(ConfigError, match="acme.*was removed"):
        store.get("acme")
    with pytest.raises(ConfigError, match="no policy for tenant 'acme'"):
        store.get("acme")  # and stays unknown, not the last good policy
    assert "acme" not in store.errors()


def test_a_deleted_tenant_file_falls_back_when_configured(pdir):
    store = PolicyStore(pdir, fallback_to_default=True)
    assert store.get("acme").name == "acme"
    (pdir / "tenants" / "acme.yaml").unlink()
    p = store.get("acme")
    assert p.name == "default" and p.rules.flagged.action is Action.caveat


def test_a_recreated_tenant_file_is_served_again(pdir):
    store = PolicyStore(pdir)
    store.get("acme")
    (pdir / "tenants" / "acme.yaml").unlink()
    with pytest.raises(ConfigError):
        store.get("acme")
    write(pdir / "tenants" / "acme.yaml", "rules: {flagged: {action: escalate}}\n")
    assert store.get("acme").rules.flagged.action is Action.escalate


def test_a_broken_edit_still_keeps_the_last_good_policy(pdir):
    """Deletion is not a broken edit, but a broken edit still is."""
    store = PolicyStore(pdir)
    good = store.get("acme")
    write(pdir / "tenants" / "acme.yaml", "extends: default\nrules: {flagged: {action: nope}}\n")
    assert store.get("acme") is good and "acme" in store.errors()


def test_an_alias_bomb_edit_keeps_the_last_good_policy_without_stalling(pdir):
    store = PolicyStore(pdir)
    good = store.get("acme")
    bomb = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    bomb += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 8)]
    write(pdir / "tenants" / "acme.yaml", "\n".join(bomb) + "\n")
    t0 = time.perf_counter()
    assert store.get("acme") is good
    assert time.perf_counter() - t0 < 5
    assert "anchors and aliases" in store.errors()["acme"]
