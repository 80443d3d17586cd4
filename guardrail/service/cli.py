"""``guardrail serve``: argparse glue; everything else is ``create_app``.

Binds 127.0.0.1 unless told otherwise: a server reachable from the network should be a decision
the operator makes together with the API keys. Without a key file or ``GUARDRAIL_API_KEYS`` it
serves the default tenant only, with no key (local development), and refuses any address other
than loopback unless ``--no-auth`` says that is meant.
"""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
from pathlib import Path
from typing import Any

from ..cli_io import positive_int
from ..errors import ConfigError

__all__ = ["add_commands"]

log = logging.getLogger("guardrail.service")


def add_commands(subparsers: Any, make_guardrail: Any = None) -> None:
    """Register ``serve``. ``make_guardrail`` is accepted for symmetry with the other commands; the
    service builds its Guardrail from ``--verifier`` itself, in each worker process."""
    p = subparsers.add_parser("serve", help="run the guard as an HTTP service (needs the [serve] extra); see docs/service.md")
    p.add_argument("--policies", required=True, type=Path, help="policy directory (tenants/<tenant>.yaml, default.yaml)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8080, help="port (default 8080)")
    p.add_argument("--workers", type=positive_int, default=1, help="server processes (default 1)")
    p.add_argument("--threads", type=positive_int, default=None, help="check threads per process (default: CPU cores, at most 8)")
    p.add_argument("--keys", type=Path, help="key file (YAML/JSON: tenants -> sha256 key hashes and limits); "
                                             "or set GUARDRAIL_API_KEYS=tenant:sha256,...")
    p.add_argument("--audit", type=Path, help="audit log (default: <policies>/audit.db)")
    p.add_argument("--verifier", default="default", help="verifier spec, as for check (default: the shipped model)")
    p.add_argument("--llm-base-url", help="OpenAI-compatible endpoint for regeneration (without: the policy fallback)")
    p.add_argument("--llm-model", help="model name at --llm-base-url")
    p.add_argument("--no-auth", action="store_true",
                   help="allow serving without keys on an address other than loopback (anyone who reaches it is the default tenant)")
    p.add_argument("--plain-logs", action="store_true", help="plain text logs instead of JSON lines")
    p.set_defaults(func=_cmd_serve)


def settings_from_args(args: argparse.Namespace) -> Any:
    from .settings import KEYS_ENV, ServiceSettings, keys_from_env, load_key_file

    tenants = None
    if args.keys is not None:
        tenants = load_key_file(args.keys)
    elif os.environ.get(KEYS_ENV):
        tenants = keys_from_env(os.environ[KEYS_ENV])
    extra: dict[str, Any] = {"tenants": tenants, "auth_required": True} if tenants else {}
    if tenants is not None and not tenants:
        raise ConfigError("the key file lists no tenant", file=str(args.keys))
    if not tenants and not _loopback(args.host) and not args.no_auth:
        raise ConfigError(f"refusing to serve {args.host} without API keys: give --keys (or {KEYS_ENV}), "
                          "or --no-auth if every client that can reach it may use the default tenant")
    return ServiceSettings(
        policies=args.policies, verifier=args.verifier, audit_path=args.audit,
        worker_threads=args.threads or min(os.cpu_count() or 1, 8), log_json=not args.plain_logs,
        llm_base_url=args.llm_base_url, llm_model=args.llm_model, **extra,
    )


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def _cmd_serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from .app import SETTINGS_ENV, create_app
        from .logs import configure_logging
    except ImportError as exc:
        raise ConfigError(f"guardrail serve needs the [serve] extra (pip install 'rag-guardrail[serve]'): {exc}") from exc
    settings = settings_from_args(args)
    configure_logging(settings.log_json)
    log.info("serving %d tenant(s) on http://%s:%d (%s)", len(settings.tenants), args.host, args.port,
             "API keys required" if settings.auth_required else "no keys: default tenant only")
    common = {"host": args.host, "port": args.port, "log_level": "warning", "timeout_graceful_shutdown": 30}
    if args.workers == 1:
        uvicorn.run(create_app(settings), **common)
    else:
        os.environ[SETTINGS_ENV] = settings.model_dump_json()
        uvicorn.run("guardrail.service.app:app_from_env", factory=True, workers=args.workers, **common)
    return 0
