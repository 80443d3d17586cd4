"""Tenant id -> policy, reloaded when a file of its ``extends`` chain changes.

Reload is checked on access: one ``stat`` per candidate file plus a hash of the few files of the
chain (a few KB each, bounded by ``LIMITS.max_policy_bytes``), so there is no watcher thread to
start, stop or leak, and an edit that keeps the size and the mtime is still seen. A broken edit
must not take a tenant offline or silently loosen it: the last good policy stays in force and the
reason is logged once per broken version of the file. A tenant whose own file is deleted is no
longer served by it: it gets the fallback when one is configured, an error otherwise.

Locking is per tenant: loading one tenant's policy (parsing, validation) never makes another
tenant wait; two callers of the same tenant share one load.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import stat
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Union

from ..errors import ConfigError, InputError
from ..limits import LIMITS
from ._loader import load_policy
from ._policy import Policy

__all__ = ["PolicyStore"]

log = logging.getLogger("guardrail.policy")

_TENANT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")

# (path, mtime_ns, ctime_ns, size, inode, sha256 of the content) per file; -1 / "" when missing.
_FileSig = tuple[str, int, int, int, int, str]
_Signature = tuple[_FileSig, ...]


def _file_signature(path: str) -> _FileSig:
    """Stat and content hash of one file. The hash is what catches an edit that keeps size and
    mtime (coarse clocks, ``touch -r``, a tool that restores times); files over the policy size
    limit are not hashed (they fail to load anyway, and reading them would be the cost we avoid)."""
    try:
        st = os.stat(path)
    except OSError:
        return (path, -1, -1, -1, -1, "")
    digest = ""
    if st.st_size <= LIMITS.max_policy_bytes and stat.S_ISREG(st.st_mode):
        try:
            with open(path, "rb") as handle:
                digest = hashlib.sha256(handle.read(LIMITS.max_policy_bytes + 1)).hexdigest()
        except OSError:
            digest = "unreadable"
    return (path, st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino, digest)


@dataclass
class _Entry:
    policy: Policy | None
    path: str | None  # the tenant's own file; None when served by the fallback
    signature: _Signature
    broken: _Signature | None = None  # signature of the last version that failed to load
    error: str | None = None
    checked: float = field(default_factory=time.monotonic)


class PolicyStore:
    """Policies of a directory: ``<dir>/tenants/<tenant>.yaml`` or ``<dir>/<tenant>.yaml``.

    ``fallback_to_default``: a tenant with no file of its own gets ``<dir>/default.yaml`` (or the
    built-in defaults when that file does not exist either); without it an unknown tenant is a
    ``ConfigError``, so a typo in a tenant id cannot quietly run under looser rules.
    ``check_interval_s`` throttles the stat calls on very hot paths (0: check on every access).
    """

    def __init__(self, directory: str | os.PathLike[str], *, fallback_to_default: bool = False, check_interval_s: float = 0.0):
        self.directory = Path(directory).resolve()
        if not self.directory.is_dir():
            raise ConfigError("policy directory does not exist", file=str(self.directory))
        self.fallback_to_default = fallback_to_default
        self.check_interval_s = check_interval_s
        self._entries: dict[str, _Entry] = {}
        self._locks: dict[str, threading.Lock] = {}  # one per tenant: see the module docstring
        self._lock = threading.Lock()  # guards self._locks only

    # ------------------------------------------------------------------ lookup

    def _candidates(self, tenant: str) -> list[Path]:
        return [self.directory / sub / f"{tenant}{ext}" for sub in ("tenants", ".") for ext in (".yaml", ".yml")]

    def path_for(self, tenant: str) -> Path | None:
        """The tenant's own policy file, or None when it has none."""
        return next((p for p in self._candidates(tenant) if p.is_file()), None)

    def tenants(self) -> list[str]:
        """Tenant ids that have a policy file of their own (``default`` included when present)."""
        names = {p.stem for sub in ("tenants", ".") for ext in ("*.yaml", "*.yml") for p in (self.directory / sub).glob(ext)}
        return sorted(n for n in names if _TENANT.match(n))

    def _search_path(self) -> list[Path]:
        return [self.directory, self.directory / "tenants"]

    def _load(self, tenant: str) -> tuple[Policy, str | None]:
        own = self.path_for(tenant)
        if own is not None:
            return load_policy(own, search_path=self._search_path()), str(own)
        if not self.fallback_to_default:
            raise ConfigError(
                f"no policy for tenant {tenant!r} and fallback to the default is off "
                f"(looked for {', '.join(str(p) for p in self._candidates(tenant))})",
                file=str(self.directory),
            )
        default = self.path_for("default")
        if default is not None:
            return load_policy(default, search_path=self._search_path()), None
        return Policy(name="default"), None

    def _signature(self, tenant: str, entry_policy: Policy | None) -> _Signature:
        # The tenant's candidate paths are part of the signature so that a file created for a
        # tenant that was being served by the fallback is picked up.
        files = [str(p) for p in self._candidates(tenant)]
        if entry_policy is not None:
            files += list(entry_policy.sources)
        files += [str(p) for p in self._candidates("default")]
        return tuple(_file_signature(f) for f in dict.fromkeys(files))

    # ------------------------------------------------------------------ access

    def _tenant_lock(self, tenant: str) -> threading.Lock:
        with self._lock:  # held for a dict lookup only, never while a policy loads
            return self._locks.setdefault(tenant, threading.Lock())

    def get(self, tenant: str) -> Policy:
        """The tenant's current policy, reloaded first if one of its files changed."""
        if not isinstance(tenant, str) or not _TENANT.match(tenant):
            raise InputError(f"invalid tenant id {tenant!r}: letters, digits, '_', '.', '-' only (max 128)")
        with self._tenant_lock(tenant):
            entry = self._entries.get(tenant)
            now = time.monotonic()
            if entry is not None and entry.policy is not None and now - entry.checked < self.check_interval_s:
                return entry.policy
            if entry is not None:
                entry.checked = now
                sig = self._signature(tenant, entry.policy)
                if sig == entry.signature or sig == entry.broken:
                    if entry.policy is None:
                        raise ConfigError(entry.error or "policy failed to load")
                    return entry.policy
            return self._reload(tenant, entry)

    def _reload(self, tenant: str, entry: _Entry | None) -> Policy:
        if entry is not None and entry.path is not None and self.path_for(tenant) is None:
            # The tenant's own file is gone: that is not a broken edit to ride out with the last
            # good policy, it is a tenant that no longer has one.
            self._entries.pop(tenant, None)
            log.warning("policy file of tenant %r was removed (%s)", tenant, entry.path)
            if not self.fallback_to_default:
                raise ConfigError(f"policy file of tenant {tenant!r} was removed and fallback to the default is off",
                                  file=entry.path)
            entry = None
        try:
            policy, path = self._load(tenant)
        except ConfigError as exc:
            if entry is not None and entry.policy is not None:
                entry.broken = self._signature(tenant, entry.policy)
                entry.error = str(exc)
                log.error(
                    "policy for tenant %r failed to reload, keeping the last good one (%s, hash %s): %s",
                    tenant, entry.policy.name, entry.policy.content_hash[:12], exc,
                )
                return entry.policy
            raise
        old = entry.policy if entry is not None else None
        self._entries[tenant] = _Entry(policy, path, self._signature(tenant, policy))
        if old is not None and old.content_hash != policy.content_hash:
            log.info("policy for tenant %r reloaded: %s -> %s", tenant, old.content_hash[:12], policy.content_hash[:12])
        return policy

    def errors(self) -> dict[str, str]:
        """Tenants currently served by a last good policy because their file is broken, and why."""
        with self._lock:
            entries = list(self._entries.items())
        return {t: e.error for t, e in entries if e.broken is not None and e.error}


#: What an adapter may be configured with: one policy for every tenant, a store, a mapping, a
#: callable, or None for the built-in defaults.
PolicySource = Union[Policy, PolicyStore, Mapping[str, Policy], Callable[[str], Policy], None]

_BUILTIN = Policy(name="default")


def resolve_policy(source: PolicySource, tenant: str) -> Policy:
    """The policy for ``tenant`` from an adapter's configuration, resolved per call so a store's
    hot reload and concurrent tenants both work; an unknown tenant is an error, never the default."""
    if source is None:
        return _BUILTIN
    if isinstance(source, Policy):
        return source
    if isinstance(source, PolicyStore):
        return source.get(tenant)
    if isinstance(source, Mapping):
        if tenant not in source:
            raise ConfigError(f"no policy for tenant {tenant!r} (known: {', '.join(sorted(source)) or 'none'})", field="policy")
        return source[tenant]
    found = source(tenant)
    if not isinstance(found, Policy):
        raise ConfigError(f"policy callable returned {type(found).__name__} for tenant {tenant!r}, not a Policy", field="policy")
    return found
