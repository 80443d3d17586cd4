"""The guard as an HTTP service: ``guardrail serve`` (FastAPI on uvicorn), see docs/service.md.

    from guardrail.service import ServiceSettings, create_app
    app = create_app(ServiceSettings(policies="policies"))          # any ASGI server

Needs the ``serve`` extra (fastapi, uvicorn, prometheus-client, opentelemetry-api). The names are
imported on first use, so that ``guardrail --help`` (which registers ``serve`` from
``guardrail.service.cli``) works on an install without the extra.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["create_app", "app_from_env", "ServiceSettings", "TenantSettings", "load_key_file", "keys_from_env", "hash_key"]

_WHERE = {
    "create_app": "app", "app_from_env": "app", "hash_key": "auth",
    "ServiceSettings": "settings", "TenantSettings": "settings", "load_key_file": "settings", "keys_from_env": "settings",
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
