"""Where the shipped policy files are, in a checkout and in an installed wheel alike.

Why a function and not a path relative to the repo: an installed ``rag-guardrail`` has no repo
around it, so ``guardrail demo`` and ``guardrail guard`` used to fail outside a checkout. The
repo's top-level ``policies/`` stays the one source of truth (``python -m guardrail.policy.reference
--write`` writes there); ``guardrail/policies`` is a symlink to it, so setuptools ships the same
files as package data and ``importlib.resources`` finds them in both layouts without a copy in git.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

from ..errors import ConfigError

__all__ = ["POLICIES_ENV", "bundled_policies_dir"]

#: Environment variable naming a policy directory to use instead of the shipped one.
POLICIES_ENV = "GUARDRAIL_POLICIES"


def bundled_policies_dir() -> Path:
    """The policy directory to use when none is given: ``$GUARDRAIL_POLICIES``, else the shipped one.

    The result is resolved (no symlink left in it), so a policy's ``extends`` chain stays inside the
    directory the loader is given. A shipped copy that is not a plain folder (a zipped install) is a
    setup error with a way out, never a silent fallback to some other ``policies/`` in the working
    directory.
    """
    env = os.environ.get(POLICIES_ENV)
    if env:
        path = Path(env)
        if not path.is_dir():
            raise ConfigError(f"{POLICIES_ENV} does not name a directory", file=str(path))
        return path.resolve()
    shipped = resources.files("guardrail").joinpath("policies")
    if not isinstance(shipped, Path) or not (shipped / "default.yaml").is_file():
        raise ConfigError(
            f"the shipped policies were not found at {shipped} (a zipped or partial install?); "
            f"pass a policy directory or set {POLICIES_ENV}"
        )
    return shipped.resolve()
