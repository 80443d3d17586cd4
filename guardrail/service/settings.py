"""What the server is configured with: where policies live, who may call it, and each tenant's limits.

Why limits live in the key file and not in the policy: a policy says what to show (respond,
caveat, abstain ...) and is edited by whoever owns the tenant's content rules; how many requests
a tenant may run at once and how long one may take are the operator's capacity decisions, made
where the operator grants the tenant its keys. The policy schema stays what it is.

Key file (YAML or JSON), keys stored as SHA-256 hex digests so that the file itself is no secret::

    tenants:
      acme:
        keys: ["9f86d081884c7d65..."]      # printf %s "$KEY" | sha256sum
        max_concurrency: 8
        timeout_s: 10
        max_body_bytes: 2000000

or the environment: ``GUARDRAIL_API_KEYS="acme:9f86d08...,beta:60303ae..."`` (default limits).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..errors import ConfigError

__all__ = ["TenantSettings", "KeyFile", "ServiceSettings", "load_key_file", "keys_from_env", "KEYS_ENV", "DEFAULT_TENANT"]

#: Environment variable holding ``tenant:sha256hex`` pairs, comma separated.
KEYS_ENV = "GUARDRAIL_API_KEYS"
#: The tenant served without a key file (local development).
DEFAULT_TENANT = "default"

_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_TENANT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")


class TenantSettings(BaseModel):
    """One tenant: its API keys (hashed) and its capacity limits."""

    model_config = ConfigDict(extra="forbid")

    keys: list[str] = Field(default_factory=list, description="SHA-256 hex digests of the tenant's API keys.")
    max_concurrency: int = Field(default=8, ge=1, le=10_000, description="Requests of this tenant in flight at once; more get 429.")
    timeout_s: float = Field(default=30.0, gt=0, le=3600, description="Deadline of one check; past it the policy's fail mode answers.")
    max_body_bytes: int = Field(default=8_000_000, ge=1, description="Largest request body; larger ones get 413.")
    drift_target: float | None = Field(
        default=None, ge=0.0, le=1.0,
        description="Expected hallucination rate: /metrics then exports the audit log's one-sided CUSUM for this "
                    "tenant (guardrail_drift_cusum, guardrail_drift_alert), an alarm when the rate drifts above it.")

    @field_validator("keys")
    @classmethod
    def _hashed(cls, keys: list[str]) -> list[str]:
        for i, key in enumerate(keys):
            if not _SHA256.match(key.lower()):
                # Never echo the value: it may be a plain key pasted by mistake.
                raise ValueError(f"keys[{i}] is not a SHA-256 hex digest (64 hex characters); store hashes, not keys")
        return [k.lower() for k in keys]


class KeyFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tenants: dict[str, TenantSettings] = Field(description="Tenant id -> keys and limits.")

    @field_validator("tenants")
    @classmethod
    def _tenant_ids(cls, tenants: dict[str, TenantSettings]) -> dict[str, TenantSettings]:
        for tenant in tenants:
            if not _TENANT.match(tenant):  # the ids PolicyStore accepts, checked at startup rather than per request
                raise ValueError(f"tenant id {tenant!r}: letters, digits, '_', '.', '-' only (max 128)")
        return tenants


class ServiceSettings(BaseModel):
    """Everything ``create_app`` needs; ``guardrail serve`` builds it from its options."""

    model_config = ConfigDict(extra="forbid")

    policies: Path = Field(description="Policy directory (<dir>/tenants/<tenant>.yaml, <dir>/default.yaml).")
    tenants: dict[str, TenantSettings] = Field(
        default_factory=lambda: {DEFAULT_TENANT: TenantSettings()},
        description="Who may call. Without keys anywhere, only the default tenant is served, without authentication.",
    )
    auth_required: bool = Field(default=False, description="True once keys are configured: every /v1 call needs a key.")
    verifier: str = Field(default="default", description="Verifier spec for Guardrail(...).")
    audit_path: Path | None = Field(default=None, description="SQLite audit log (GET /v1/decisions/{id}); None: <policies>/audit.db.")
    worker_threads: int = Field(default=2, ge=1, le=256, description="Threads running checks; inference never runs on the event loop.")
    max_batch_items: int = Field(default=256, ge=1, description="Most answers in one /v1/batch request.")
    log_json: bool = Field(default=True, description="Structured JSON logs (one object per line).")
    llm_base_url: str | None = Field(default=None, description="OpenAI-compatible endpoint for regeneration (none: the policy fallback).")
    llm_model: str | None = Field(default=None, description="Model name at llm_base_url.")
    llm_timeout_s: float = Field(default=30.0, gt=0, description="Seconds per LLM request.")
    llm_response_format: str = Field(default="none", description="As guardrail guard --llm-response-format.")

    def audit_file(self) -> Path:
        return self.audit_path if self.audit_path is not None else self.policies / "audit.db"


def _parse_tenants(data: object, source: str) -> dict[str, TenantSettings]:
    try:
        parsed = KeyFile.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfigError(first["msg"], file=source, field=where) from exc
    _check_unique(parsed.tenants, source)
    return parsed.tenants


def _check_unique(tenants: dict[str, TenantSettings], source: str) -> None:
    """A key hash granted to two tenants would make the tenant a key reaches ambiguous."""
    owner: dict[str, str] = {}
    for tenant, settings in tenants.items():
        for key in settings.keys:
            if key in owner and owner[key] != tenant:
                raise ConfigError(f"the same key hash is granted to tenants {owner[key]!r} and {tenant!r}", file=source)
            owner[key] = tenant


def load_key_file(path: str | os.PathLike[str]) -> dict[str, TenantSettings]:
    """Tenants from a YAML or JSON key file; a ConfigError names the file and the field at fault."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read key file: {exc.strerror}", file=str(path)) from exc
    try:
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise ConfigError(f"not valid {'JSON' if path.suffix == '.json' else 'YAML'}: {exc}", file=str(path)) from exc
    return _parse_tenants(data, str(path))


def keys_from_env(value: str) -> dict[str, TenantSettings]:
    """Tenants from ``tenant:sha256hex[,tenant:sha256hex...]`` (default limits)."""
    grouped: dict[str, list[str]] = {}
    for i, pair in enumerate(p.strip() for p in value.split(",") if p.strip()):
        tenant, sep, digest = pair.partition(":")
        if not sep or not tenant.strip():
            raise ConfigError(f"entry {i + 1} is not tenant:sha256hex", file=f"${KEYS_ENV}")
        grouped.setdefault(tenant.strip(), []).append(digest.strip())
    return _parse_tenants({"tenants": {t: {"keys": ks} for t, ks in grouped.items()}}, f"${KEYS_ENV}")
