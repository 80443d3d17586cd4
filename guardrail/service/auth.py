"""API key -> tenant. A key reaches exactly one tenant; a request can never pick another one.

Keys are compared as SHA-256 digests: the server holds no plain key, and the lookup is a dict
access on the digest, so the time it takes does not depend on how much of a guessed key is right.
Keys never reach a log line or an error message: only the tenant they resolved to does.

Without keys configured (no key file, no environment variable) the server serves the default
tenant only and needs no key: a local development setup bound to 127.0.0.1.
"""

from __future__ import annotations

import hashlib

from fastapi import Request

from .errors import ApiError
from .settings import DEFAULT_TENANT, TenantSettings

__all__ = ["Authenticator", "hash_key"]


def hash_key(key: str) -> str:
    """The digest a key file stores for ``key`` (same as ``printf %s KEY | sha256sum``)."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def _presented_key(request: Request) -> str | None:
    auth = request.headers.get("authorization")
    if auth:
        scheme, _, value = auth.partition(" ")
        if scheme.lower() == "bearer" and value.strip():
            return value.strip()
        raise ApiError(401, "unauthorized", "Authorization header must be 'Bearer <key>'",
                       headers={"WWW-Authenticate": "Bearer"})
    return request.headers.get("x-api-key") or None


class Authenticator:
    """Resolves the caller's tenant from its key and checks the tenant it asks for."""

    def __init__(self, tenants: dict[str, TenantSettings], *, required: bool):
        self.required = required
        self.tenants = tenants
        self._by_digest = {digest: tenant for tenant, s in tenants.items() for digest in s.keys}

    def tenant_of(self, request: Request) -> str:
        """The tenant the request's key belongs to (401 without a valid key when keys are required)."""
        key = _presented_key(request)
        if not self.required:
            return DEFAULT_TENANT
        if key is None:
            raise ApiError(401, "unauthorized", "an API key is required (Authorization: Bearer <key> or X-API-Key)",
                           headers={"WWW-Authenticate": "Bearer"})
        tenant = self._by_digest.get(hash_key(key))
        if tenant is None:
            raise ApiError(401, "unauthorized", "unknown API key", headers={"WWW-Authenticate": "Bearer"})
        return tenant

    @staticmethod
    def check_requested(tenant: str, requested: str | None) -> None:
        """A body naming a tenant must name the caller's own: 403 otherwise, never a silent switch."""
        if requested is not None and requested != tenant:
            raise ApiError(403, "forbidden", f"this key may use tenant {tenant!r} only", field="tenant")
