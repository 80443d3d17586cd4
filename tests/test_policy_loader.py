"""Policy files: bundled policies, extends, errors with file/line/field, and the hot-reloading store."""

from __future__ import annotations

import logging
import os
import textwrap
import time
from pathlib import Path

import pytest

from guardrail.errors import ConfigError, InputError
from guardrail.policy import Action, CaveatStyle, Policy, PolicyStore, load_policy, policy_from_yaml

REPO = Path(__file__).resolve().parent.parent
POLICIES = REPO / "policies"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def touch_later(path: Path, text: str) -> None:
    """Rewrite a file and push its mtime forward, so coarse file-system clocks still see a change."""
    st = path.stat()
    write(path, text)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))


# --------------------------------------------------------------------------- bundled policies


def test_default_yaml_is_the_model_defaults():
    p = load_policy(POLICIES / "default.yaml")
    assert p.model_dump() == Policy().model_dump()
    assert p.content_hash == Policy().content_hash


def test_bundled_tenants_extend_default():
    hc = load_policy(POLICIES / "tenants" / "healthcare.yaml")
    assert hc.name == "healthcare" and hc.extends == "default"
    assert hc.sources == (str(POLICIES / "tenants" / "healthcare.yaml"), str(POLICIES / "default.yaml"))
    assert hc.citations.required and hc.rules.contradiction.action is Action.abstain
    assert hc.caveat.style is CaveatStyle.footnotes
    assert hc.caveat.notes == Policy().caveat.notes  # inherited untouched
    lenient = load_policy(POLICIES / "tenants" / "internal-search.yaml")
    assert lenient.rules.no_evidence.action is Action.caveat and lenient.regenerate.fallback == "caveat"
    assert hc.content_hash != lenient.content_hash


# --------------------------------------------------------------------------- extends


def test_extends_merges_mappings_and_replaces_values(tmp_path):
    write(tmp_path / "base.yaml", """
        rules:
          contradiction: {max_count: 2, action: abstain}
          error_types: {actions: {number: abstain}}
        caveat: {style: list}
    """)
    child = write(tmp_path / "child.yaml", """
        extends: base
        rules:
          contradiction: {max_count: 1}
          error_types: {actions: {entity: escalate}}
    """)
    p = load_policy(child)
    assert p.name == "child"
    assert p.rules.contradiction.max_count == 1 and p.rules.contradiction.action is Action.abstain
    assert {t.value: a.value for t, a in p.rules.error_types.actions.items()} == {"number": "abstain", "entity": "escalate"}
    assert p.caveat.style is CaveatStyle.list


def test_extends_relative_path_and_search_path(tmp_path):
    write(tmp_path / "shared" / "base.yaml", "rules: {flagged: {action: abstain}}\n")
    a = write(tmp_path / "t" / "a.yaml", "extends: ../shared/base.yaml\n")
    assert load_policy(a).rules.flagged.action is Action.abstain
    b = write(tmp_path / "t" / "b.yaml", "extends: base\n")
    with pytest.raises(ConfigError) as e:
        load_policy(b)
    assert e.value.field == "extends" and e.value.line == 1 and "no such policy" in str(e.value)
    assert load_policy(b, search_path=[tmp_path / "shared"]).rules.flagged.action is Action.abstain


@pytest.mark.parametrize("files, start, closing", [
    ({"a.yaml": "extends: b\n", "b.yaml": "name: bee\nextends: a\n"}, "a.yaml", ("b.yaml", 2)),
    ({"self.yaml": "# me\nextends: self\n"}, "self.yaml", ("self.yaml", 2)),
])
def test_circular_extends(tmp_path, files, start, closing):
    for name, text in files.items():
        write(tmp_path / name, text)
    with pytest.raises(ConfigError) as e:
        load_policy(tmp_path / start)
    assert "circular extends" in str(e.value)
    assert e.value.file == str(tmp_path / closing[0]) and e.value.line == closing[1] and e.value.field == "extends"


# --------------------------------------------------------------------------- errors name file, line, field


@pytest.mark.parametrize("text, line, field, words", [
    ("rules:\n  contradiction:\n    max_count: many\n", 3, "rules.contradiction.max_count", "valid integer"),
    ("name: x\nrules:\n  contradction:\n    max_count: 1\n", 3, "rules.contradction", "unknown key"),
    ("claims: {score_threshold: 1.5}\n", 1, "claims.score_threshold", "less than or equal to 1"),
    ("caveat:\n  style: inline\n  inline_template: '{txt}'\n", 3, "caveat.inline_template", "unknown or malformed placeholder"),
    ("rules:\n  error_types:\n    actions:\n      numbr: abstain\n", 4, "rules.error_types.actions.numbr", "'number'"),
    ("failure:\n  closed_action: caveat\n", 2, "failure.closed_action", "'abstain' or 'escalate'"),
    ("bogus: 1\n", 1, "bogus", "unknown key"),
    ("escalation:\n  stakes: 0.2\n", 1, "escalation", "must be below stakes"),
])
def test_validation_errors_name_file_line_field(tmp_path, text, line, field, words):
    path = write(tmp_path / "p.yaml", text)
    with pytest.raises(ConfigError) as e:
        load_policy(path)
    err = e.value
    assert (err.file, err.line, err.field) == (str(path), line, field), str(err)
    assert words in str(err) and str(err).startswith(f"{path}:{line}, field '{field}'")


def test_bad_yaml_names_line(tmp_path):
    path = write(tmp_path / "p.yaml", "rules:\n  flagged: {action: caveat\nname: x\n")
    with pytest.raises(ConfigError) as e:
        load_policy(path)
    assert e.value.file == str(path) and e.value.line == 3 and "invalid YAML" in str(e.value)


def test_duplicate_key_and_non_mapping(tmp_path):
    with pytest.raises(ConfigError) as e:
        load_policy(write(tmp_path / "d.yaml", "rules:\n  flagged: {action: caveat}\n  flagged: {action: abstain}\n"))
    assert e.value.line == 3 and e.value.field == "rules.flagged" and "first set on line 2" in str(e.value)
    with pytest.raises(ConfigError) as e:
        load_policy(write(tmp_path / "l.yaml", "- a\n- b\n"))
    assert e.value.line == 1 and "mapping" in str(e.value)


def test_only_safe_yaml(tmp_path):
    marker = tmp_path / "pwned"
    path = write(tmp_path / "p.yaml", f"name: !!python/object/apply:os.system ['touch {marker}']\n")
    with pytest.raises(ConfigError) as e:
        load_policy(path)
    assert not marker.exists() and e.value.line == 1


def test_error_in_parent_is_attributed_to_the_parent(tmp_path):
    parent = write(tmp_path / "base.yaml", "rules:\n  flagged:\n    action: caveat\n    acton: abstain\n")
    child = write(tmp_path / "child.yaml", "extends: base\nrules:\n  flagged:\n    action: abstain\n")
    with pytest.raises(ConfigError) as e:
        load_policy(child)
    assert (e.value.file, e.value.line, e.value.field) == (str(parent), 4, "rules.flagged.acton")
    # ... and an override in the child is attributed to the child.
    write(tmp_path / "base.yaml", "rules:\n  flagged:\n    action: caveat\n")
    write(tmp_path / "child.yaml", "extends: base\nrules:\n  flagged:\n    action: maybe\n")
    with pytest.raises(ConfigError) as e:
        load_policy(child)
    assert (e.value.file, e.value.line) == (str(child), 4)


def test_several_errors_are_all_reported(tmp_path):
    path = write(tmp_path / "p.yaml", "rules:\n  flagged: {action: nope}\nclaims: {score_threshold: -1}\n")
    with pytest.raises(ConfigError) as e:
        load_policy(path)
    assert e.value.line == 2 and "1 more" in str(e.value) and f"{path}:3" in str(e.value)


def test_missing_file_and_from_yaml():
    with pytest.raises(ConfigError) as e:
        load_policy("/nonexistent/policy.yaml")
    assert e.value.file == "/nonexistent/policy.yaml"
    p = policy_from_yaml("rules: {flagged: {action: abstain}}\n", name="inline")
    assert p.name == "inline" and p.rules.flagged.action is Action.abstain
    with pytest.raises(ConfigError) as e:
        policy_from_yaml("claims:\n  bad: 1\n")
    assert e.value.file == "<string>" and e.value.line == 2


# --------------------------------------------------------------------------- store


@pytest.fixture
def pdir(tmp_path):
    write(tmp_path / "default.yaml", "rules: {flagged: {action: caveat}}\n")
    write(tmp_path / "tenants" / "acme.yaml", "extends: default\nrules: {flagged: {action: abstain}}\n")
    return tmp_path


def test_store_maps_tenants_and_falls_back_only_when_configured(pdir):
    strict = PolicyStore(pdir)
    assert strict.get("acme").rules.flagged.action is Action.abstain
    assert strict.tenants() == ["acme", "default"]
    with pytest.raises(ConfigError) as e:
        strict.get("unknown")
    assert "fallback to the default is off" in str(e.value)
    loose = PolicyStore(pdir, fallback_to_default=True)
    p = loose.get("unknown")
    assert p.name == "default" and p.rules.flagged.action is Action.caveat
    with pytest.raises(InputError):
        strict.get("../etc/passwd")
    with pytest.raises(ConfigError):
        PolicyStore(pdir / "missing")


def test_store_without_default_file_falls_back_to_builtin(tmp_path):
    assert PolicyStore(tmp_path, fallback_to_default=True).get("x").model_dump() == Policy().model_dump()


def test_store_hot_reloads_changed_files(pdir):
    store = PolicyStore(pdir)
    first = store.get("acme")
    assert store.get("acme") is first  # unchanged: cached object
    touch_later(pdir / "tenants" / "acme.yaml", "extends: default\nrules: {flagged: {action: escalate}}\n")
    assert store.get("acme").rules.flagged.action is Action.escalate
    # A change in the parent reaches the child too.
    touch_later(pdir / "default.yaml", "rules: {flagged: {action: caveat}}\ncaveat: {style: list}\n")
    assert store.get("acme").caveat.style is CaveatStyle.list


def test_store_keeps_last_good_policy_on_a_broken_edit(pdir, caplog):
    store = PolicyStore(pdir)
    good = store.get("acme")
    touch_later(pdir / "tenants" / "acme.yaml", "extends: default\nrules: {flagged: {acton: escalate}}\n")
    with caplog.at_level(logging.ERROR, logger="guardrail.policy"):
        assert store.get("acme") is good
        assert store.get("acme") is good
    errors = [r for r in caplog.records if "keeping the last good one" in r.getMessage()]
    assert len(errors) == 1  # logged once per broken version, not on every access
    assert "rules.flagged.acton" in errors[0].getMessage() and "acme.yaml:2" in errors[0].getMessage()
    assert "acme" in store.errors()
    touch_later(pdir / "tenants" / "acme.yaml", "extends: default\nrules: {flagged: {action: respond}}\n")
    assert store.get("acme").rules.flagged.action is Action.respond and store.errors() == {}


def test_store_picks_up_a_new_tenant_file_and_raises_when_never_good(pdir):
    store = PolicyStore(pdir, fallback_to_default=True)
    assert store.get("newco").name == "default"
    write(pdir / "tenants" / "newco.yaml", "extends: default\nrules: {flagged: {action: escalate}}\n")
    assert store.get("newco").name == "newco"
    write(pdir / "tenants" / "broken.yaml", "rules: [\n")
    with pytest.raises(ConfigError):
        store.get("broken")


def test_store_check_interval_throttles_stats(pdir):
    store = PolicyStore(pdir, check_interval_s=3600)
    first = store.get("acme")
    touch_later(pdir / "tenants" / "acme.yaml", "extends: default\nrules: {flagged: {action: escalate}}\n")
    assert store.get("acme") is first


def test_store_access_is_cheap(pdir):
    store = PolicyStore(pdir)
    store.get("acme")
    t0 = time.perf_counter()
    for _ in range(2000):
        store.get("acme")
    per_call_us = (time.perf_counter() - t0) / 2000 * 1e6
    assert per_call_us < 500, per_call_us
