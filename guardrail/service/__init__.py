"""The guard as an HTTP service: ``guardrail serve`` (FastAPI on uvicorn), see docs/service.md.

    from guardrail.service import ServiceSettings, create_app
    app = create_app(ServiceSettings(policies="policies"))          # any ASGI server

Needs the ``serve`` extra (fastapi, uvicorn, prometheus-client, opentelemetry-api).
"""

from .app import app_from_env, create_app
from .auth import hash_key
from .settings import ServiceSettings, TenantSettings, keys_from_env, load_key_file

__all__ = ["create_app", "app_from_env", "ServiceSettings", "TenantSettings", "load_key_file", "keys_from_env", "hash_key"]
