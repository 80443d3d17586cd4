"""Policy files that used to stall or crash the loader: alias bombs, huge and deep files, extends escaping the folder."""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

import pytest

from guardrail.errors import ConfigError
from guardrail.limits import LIMITS
from guardrail.policy import Action, load_policy, policy_from_yaml


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def alias_bomb(levels: int = 8) -> str:
    """~400 bytes standing for 9**levels nodes ("billion laughs")."""
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- YAML shape


def test_alias_bomb_is_refused_at_once(tmp_path):
    path = write(tmp_path / "bomb.yaml", alias_bomb())
    assert path.stat().st_size < 500
    t0 = time.perf_counter()
    with pytest.raises(ConfigError, match="anchors and aliases") as e:
        load_policy(path)
    assert time.perf_counter() - t0 < 5  # it took 12 s (50 s for the variant) walking duplicate keys
    assert (e.value.file, e.value.line) == (str(path), 1)


def test_an_alias_is_refused_with_its_line():
    text = "rules:\n  flagged: {action: abstain}\nescalation: *x\n"
    with pytest.raises(ConfigError, match="anchors and aliases") as e:
        policy_from_yaml(text)
    assert e.value.line == 3


def test_merge_key_with_an_anchor_is_refused():
    text = "base: &b {action: abstain}\nrules:\n  flagged:\n    <<: *b\n"
    with pytest.raises(ConfigError, match="share settings with extends") as e:
        policy_from_yaml(text)
    assert e.value.line == 1


@pytest.mark.parametrize("text", [
    "rules: " + "[" * 5000 + "]" * 5000 + "\n",  # used to raise RecursionError in the composer
    "rules:\n" + "".join("  " * (i + 1) + f"k{i}:\n" for i in range(40)) + "  " * 41 + "x: 1\n",
])
def test_policy_nested_past_the_limit_is_a_config_error(text):
    with pytest.raises(ConfigError, match=r"nested more than 32 levels deep \(max_policy_depth\)") as e:
        policy_from_yaml(text, source="deep.yaml")
    assert e.value.file == "deep.yaml" and e.value.line is not None


def test_policy_at_the_depth_limit_loads_to_validation():
    """Depth is not refused below the limit: the (unknown) key reaches the schema check instead."""
    text = "rules:\n" + "".join("  " * (i + 1) + f"k{i}:\n" for i in range(LIMITS.max_policy_depth - 2)) + "  " * LIMITS.max_policy_depth + "x: 1\n"
    with pytest.raises(ConfigError, match="unknown key"):
        policy_from_yaml(text)


def test_policy_file_over_the_size_limit_is_refused_before_parsing(tmp_path):
    path = tmp_path / "big.yaml"
    with path.open("w", encoding="utf-8") as f:
        f.write("caveat:\n  notes:\n")
        i = 0
        while f.tell() < 3 * LIMITS.max_policy_bytes:
            f.write(f'    k{i}: "{"y" * 60}"\n')
            i += 1
    t0 = time.perf_counter()
    with pytest.raises(ConfigError, match=r"bytes, over the limit of 1,000,000 \(max_policy_bytes\)") as e:
        load_policy(path)
    assert time.perf_counter() - t0 < 1
    assert e.value.file == str(path)


def test_policy_text_over_the_size_limit_is_refused():
    with pytest.raises(ConfigError, match="max_policy_bytes"):
        policy_from_yaml("# " + "x" * LIMITS.max_policy_bytes + "\n")


def test_shipped_policies_still_load():
    root = Path(__file__).resolve().parent.parent / "policies"
    for path in [root / "default.yaml", *sorted((root / "tenants").glob("*.yaml"))]:
        load_policy(path)


# --------------------------------------------------------------------------- extends stays inside the folder


def test_extends_an_absolute_path_is_refused(tmp_path):
    outside = write(tmp_path / "elsewhere" / "base.yaml", "rules: {flagged: {action: respond}}\n")
    child = write(tmp_path / "policies" / "tenants" / "t.yaml", f"# tenant\nextends: {outside}\n")
    with pytest.raises(ConfigError, match="absolute path is not allowed") as e:
        load_policy(child)
    assert (e.value.file, e.value.line, e.value.field) == (str(child), 2, "extends")


def test_extends_dotdot_out_of_the_policy_folder_is_refused(tmp_path):
    write(tmp_path / "elsewhere" / "base.yaml", "rules: {flagged: {action: respond}}\n")
    child = write(tmp_path / "policies" / "tenants" / "t.yaml", "extends: ../../elsewhere/base.yaml\n")
    with pytest.raises(ConfigError, match="outside the policy folder") as e:
        load_policy(child)
    assert (e.value.line, e.value.field) == (1, "extends")


def test_extends_through_a_symlink_out_of_the_folder_is_refused(tmp_path):
    outside = write(tmp_path / "elsewhere" / "base.yaml", "rules: {flagged: {action: respond}}\n")
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "base.yaml").symlink_to(outside)
    child = write(tmp_path / "policies" / "t.yaml", "extends: base\n")
    with pytest.raises(ConfigError, match="outside the policy folder"):
        load_policy(child, search_path=[tmp_path / "policies"])


def test_extends_inside_the_folder_still_works(tmp_path):
    write(tmp_path / "policies" / "default.yaml", "rules: {flagged: {action: abstain}}\n")
    write(tmp_path / "policies" / "shared" / "strict.yaml", "extends: ../default.yaml\n")
    child = write(tmp_path / "policies" / "tenants" / "t.yaml", "extends: ../shared/strict.yaml\n")
    assert load_policy(child).rules.flagged.action is Action.abstain
    by_name = write(tmp_path / "policies" / "tenants" / "u.yaml", "extends: default\n")
    assert load_policy(by_name).rules.flagged.action is Action.abstain


def test_policy_from_yaml_extends_stays_inside_base_dir(tmp_path):
    write(tmp_path / "outside.yaml", "rules: {flagged: {action: respond}}\n")
    (tmp_path / "base").mkdir()
    with pytest.raises(ConfigError, match="outside the policy folder"):
        policy_from_yaml("extends: ../outside.yaml\n", base_dir=tmp_path / "base")
