"""Caveat templates take plain placeholders only: ``{text.__class__.__mro__}`` used to read Python internals into the answer."""

from __future__ import annotations

import re

import pytest

from guardrail.errors import ConfigError
from guardrail.policy import Caveat, policy_from_yaml, render_caveat
from guardrail.policy._policy import CaveatPolicy
from guardrail.policy._text import safe_format

VALUES = {"text": "It is 5 km.", "note": "not found", "n": 2, "label": "unsupported", "claim_id": "c1"}


@pytest.mark.parametrize("field", ["inline_template", "footnote_marker", "footnote_template", "list_item_template"])
@pytest.mark.parametrize("template", [
    "{text.__class__.__mro__}",
    "{text} {note.__class__}",
    "{text}{n.real}",
    "{text}{label[0]}",
    "{text}{0}",
    "{text}{}",
    "{text}{n:{note}}",  # a placeholder hidden in a format spec is formatted too
])
def test_attribute_index_and_nested_fields_are_a_config_error_naming_the_field(field, template):
    yaml_text = f"caveat:\n  style: inline\n  {field}: '{template}'\n"
    with pytest.raises(ConfigError) as e:
        policy_from_yaml(yaml_text, source="t.yaml")
    assert e.value.field == f"caveat.{field}" and e.value.line == 3
    assert re.search(r"is not an allowed placeholder|inside a format spec is not allowed", str(e.value))


def test_plain_placeholders_with_specs_and_conversions_still_work():
    p = CaveatPolicy(style="inline", inline_template="{text} [{n:>2}: {note!r}]")
    answer = "It is 5 km. Fine."
    out, _ = render_caveat(answer, [Caveat(claim_id="c1", start=0, end=11, text="It is 5 km.", label="unsupported", note="nf")], p)
    assert out.startswith("It is 5 km. [ 1: 'nf']")


def test_rendering_never_resolves_attributes_even_for_an_unvalidated_policy():
    """A policy built without validation (model_construct) still cannot reach attributes at render time."""
    p = CaveatPolicy.model_construct(**{**CaveatPolicy().model_dump(), "style": CaveatPolicy().style,
                                        "inline_template": "{text.__class__.__mro__}"})
    with pytest.raises(ValueError, match="not an allowed placeholder"):
        render_caveat("abc", [Caveat(claim_id="c1", start=0, end=3, text="abc", label="unsupported", note="n")], p)


def test_safe_format_matches_str_format_on_plain_fields():
    for template in ("{text}", "[{n}] {note}", "{label!s:>12}|{claim_id}", "{{literal}} {text}"):
        assert safe_format(template, VALUES) == template.format(**VALUES)
