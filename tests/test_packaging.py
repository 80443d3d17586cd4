"""Packaging: the wheel carries the policies and the licence, and the code finds the policies without a repo."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pytest

from guardrail.errors import ConfigError
from guardrail.policy import POLICIES_ENV, PolicyStore, bundled_policies_dir
from guardrail.policy.cli import add_commands
from guardrail.policy.demo import TENANTS, run_policy_demo

from test_policy_helpers import CONTEXT, lexical_check

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    tomllib = pytest.importorskip("tomli")

REPO = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


class _Guardrail:
    def check(self, answer, context, question=None):
        return lexical_check(answer, context, question)


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def test_the_shipped_policies_are_the_repos_policies_not_a_copy(monkeypatch):
    monkeypatch.delenv(POLICIES_ENV, raising=False)
    shipped = bundled_policies_dir()
    assert shipped == (REPO / "policies").resolve()
    assert all(PolicyStore(shipped).get(t).name == t for t in TENANTS)


def test_package_data_globs_cover_every_policy_file():
    """Every file of policies/ matches a package-data pattern of ``guardrail``, so the wheel has them all
    (a new sub-folder or file type fails here, not in a user's install)."""
    patterns = PYPROJECT["tool"]["setuptools"]["package-data"]["guardrail"]
    pkg = REPO / "guardrail"
    shipped = {p.relative_to(pkg).as_posix() for pattern in patterns for p in pkg.glob(pattern) if p.is_file()}
    wanted = {f"policies/{f}" for f in _files(REPO / "policies") if not f.endswith(".png")}
    assert wanted and wanted <= shipped


def test_license_is_an_spdx_string_with_its_file():
    project = PYPROJECT["project"]
    assert project["license"] == "Apache-2.0"
    assert project["license-files"] == ["LICENSE"]
    assert "Apache License" in (REPO / "LICENSE").read_text(encoding="utf-8")[:200]


def test_environment_variable_overrides_and_a_bad_one_is_a_config_error(tmp_path, monkeypatch):
    monkeypatch.setenv(POLICIES_ENV, str(tmp_path))
    assert bundled_policies_dir() == tmp_path.resolve()
    monkeypatch.setenv(POLICIES_ENV, str(tmp_path / "missing"))
    with pytest.raises(ConfigError, match=POLICIES_ENV):
        bundled_policies_dir()


def test_guard_without_policies_uses_the_shipped_ones(monkeypatch, capsys):
    """Used to be a required option: from a wheel there was no directory to point it at."""
    monkeypatch.delenv(POLICIES_ENV, raising=False)
    parser = argparse.ArgumentParser(prog="guardrail")
    add_commands(parser.add_subparsers(dest="command"), make_guardrail=_Guardrail)
    args = parser.parse_args(["guard", "--tenant", "healthcare", "--json", "--answer",
                              "The Eiffel Tower is 330 metres tall.", *[x for c in CONTEXT for x in ("--context", c)]])
    assert args.func(args) == 0
    decision = json.loads(capsys.readouterr().out)
    assert decision["policy_name"] == "healthcare"


def test_demo_names_the_missing_tenant_file(tmp_path):
    (tmp_path / "tenants").mkdir()
    (tmp_path / "tenants" / "healthcare.yaml").write_text("extends: default\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="internal-search.yaml") as err:
        run_policy_demo(lexical_check, policies_dir=tmp_path)
    assert str(tmp_path) in str(err.value)
