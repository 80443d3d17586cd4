"""The JSON Schema, default.yaml and docs/policies.md are generated from the Policy model and kept current."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from pydantic import BaseModel

from guardrail.policy import Policy
from guardrail.policy import reference

REPO = Path(__file__).resolve().parent.parent
POLICY_FILES = sorted((REPO / "policies").rglob("*.yaml"))


def test_generated_files_are_up_to_date():
    stale = [str(p.relative_to(REPO)) for p, text in reference.outputs(REPO).items()
             if not p.exists() or p.read_text(encoding="utf-8") != text]
    assert not stale, f"run `python -m guardrail.policy.reference --write`; stale: {stale}"
    assert reference.main(["--check", "--root", str(REPO)]) == 0


def test_check_mode_detects_a_stale_copy(tmp_path):
    (tmp_path / "policies").mkdir()
    (tmp_path / "docs").mkdir()
    assert reference.main(["--check", "--root", str(tmp_path)]) == 1
    assert reference.main(["--write", "--root", str(tmp_path)]) == 0
    assert reference.main(["--check", "--root", str(tmp_path)]) == 0
    (tmp_path / "policies" / "default.yaml").write_text("name: default\n")
    assert reference.main(["--check", "--root", str(tmp_path)]) == 1


def _fields(model: type[BaseModel], prefix: str = ""):
    for name, field in model.model_fields.items():
        path = prefix + (field.alias or name)
        yield path, field
        ann = field.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            yield from _fields(ann, path + ".")


def test_every_field_is_described_and_documented():
    docs = (REPO / "docs" / "policies.md").read_text(encoding="utf-8")
    default_yaml = (REPO / "policies" / "default.yaml").read_text(encoding="utf-8")
    for path, field in _fields(Policy):
        assert field.description and len(field.description) > 10, f"{path} has no description"
        leaf = path.rsplit(".", 1)[-1]
        assert f"| `{leaf}` |" in docs, f"{path} missing from docs/policies.md"
        assert f"{leaf}:" in default_yaml, f"{path} missing from default.yaml"
    # default.yaml: every key line is preceded by a comment line
    lines = default_yaml.splitlines()
    for i, line in enumerate(lines):
        if line.strip() and not line.lstrip().startswith("#") and ":" in line and not line.startswith("    "):
            key_indent = len(line) - len(line.lstrip())
            if key_indent <= 2:
                assert lines[i - 1].lstrip().startswith("#"), f"uncommented key: {line!r}"


@pytest.mark.parametrize("path", POLICY_FILES, ids=lambda p: p.name)
def test_bundled_policies_validate_against_the_json_schema(path):
    schema = json.loads((REPO / "policies" / "policy.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(yaml.safe_load(path.read_text()), schema)


@pytest.mark.parametrize("doc", [{"rules": {"flagged": {"acton": "caveat"}}}, {"failure": {"closed_action": "caveat"}},
                                 {"claims": {"score_threshold": 2}}, {"rules": {"error_types": {"actions": {"numbr": "abstain"}}}}])
def test_json_schema_and_model_agree_on_invalid_documents(doc):
    schema = reference.policy_schema()
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, schema)
    with pytest.raises(Exception):
        Policy.model_validate(doc)
