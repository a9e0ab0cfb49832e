"""Run the application with uvicorn: :func:`serve` and ``python -m semreport.http``."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from typing import Any

import uvicorn

from semreport.domain import Authenticator, ConfigurationError, Principal
from semreport.http._app import create_app
from semreport.http._auth import OIDCAuthenticator, StaticTokenAuthenticator

__all__ = ["build_authenticator", "main", "serve"]


def build_authenticator(
    *,
    oidc_issuer: str | None = None,
    oidc_audience: str | None = None,
    oidc_jwks: str | None = None,
    roles_claim: str = "roles",
    projects_claim: str = "projects",
    dev_token: str | None = None,
) -> Authenticator:
    """Build the authenticator a command line asks for: OpenID Connect or a dev token.

    Give either the three ``oidc_*`` options or ``dev_token`` (a static token
    whose caller has both roles and every project; for development only).

    Raises:
        ConfigurationError: neither or both are given, or an OIDC option is missing.
    """
    oidc = [oidc_issuer, oidc_audience, oidc_jwks]
    if dev_token and any(oidc):
        raise ConfigurationError("give either the OpenID Connect options or a dev token, not both")
    if dev_token:
        return StaticTokenAuthenticator({dev_token: Principal.local("dev")})
    if not all(oidc):
        raise ConfigurationError(
            "configure authentication: --oidc-issuer, --oidc-audience and --oidc-jwks "
            "(or SEMREPORT_OIDC_ISSUER, SEMREPORT_OIDC_AUDIENCE, SEMREPORT_OIDC_JWKS), "
            "or a development token with --dev-token / SEMREPORT_DEV_TOKEN"
        )
    return OIDCAuthenticator(
        issuer=str(oidc_issuer),
        audience=str(oidc_audience),
        jwks=str(oidc_jwks),
        roles_claim=roles_claim,
        projects_claim=projects_claim,
    )


def serve(
    url: str | None = None,
    *,
    authenticator: Authenticator,
    service: Any = None,
    host: str = "127.0.0.1",
    port: int = 8000,
    workers: int = 1,
    log_level: str = "info",
    **storage_options: Any,
) -> None:
    """Serve the contract over HTTP with uvicorn until interrupted.

    Args:
        url: The storage URL; the facade is opened with ``require_caller=True``
            and ``create=False`` (a missing storage raises
            :class:`~semreport.StorageNotFound` rather than being created), and
            closed when the server stops.
        authenticator: Turns bearer tokens into callers.
        service: An open facade to serve instead of ``url`` (left open).
        host: The interface to listen on (loopback by default).
        port: The TCP port.
        workers: Threads running facade calls (see :func:`create_app`).
        log_level: uvicorn's log level.
        **storage_options: Passed to the storage adapter.
    """
    if (url is None) == (service is None):
        raise ConfigurationError("give serve() a storage url or an open service, not both")
    own = service is None
    if own:
        import semreport  # noqa: PLC0415 - the composition root, imported when needed

        # A server only reads: a storage that does not exist is refused, never created.
        options = {"create": False, **storage_options}
        service = semreport.open(url or "", require_caller=True, **options)
    try:
        app = create_app(service, authenticator, workers=workers)
        uvicorn.run(app, host=host, port=port, log_level=log_level, proxy_headers=False)
    finally:
        if own:
            service.close()


def main(argv: Sequence[str] | None = None) -> int:
    """The ``python -m semreport.http`` command line."""
    env = os.environ
    parser = argparse.ArgumentParser(
        prog="python -m semreport.http", description="Serve the semreport contract over HTTP."
    )
    parser.add_argument("--url", required=True, help="storage URL, e.g. sqlite:///project.db")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--workers", type=int, default=1, help="threads running facade calls")
    parser.add_argument("--log-level", default="info")
    parser.add_argument("--oidc-issuer", default=env.get("SEMREPORT_OIDC_ISSUER"))
    parser.add_argument("--oidc-audience", default=env.get("SEMREPORT_OIDC_AUDIENCE"))
    parser.add_argument(
        "--oidc-jwks", default=env.get("SEMREPORT_OIDC_JWKS"), help="JWKS URL or file"
    )
    parser.add_argument("--roles-claim", default=env.get("SEMREPORT_OIDC_ROLES_CLAIM", "roles"))
    parser.add_argument(
        "--projects-claim", default=env.get("SEMREPORT_OIDC_PROJECTS_CLAIM", "projects")
    )
    parser.add_argument(
        "--dev-token",
        default=env.get("SEMREPORT_DEV_TOKEN"),
        help="a static development token (both roles, every project); not for production",
    )
    args = parser.parse_args(argv)
    try:
        authenticator = build_authenticator(
            oidc_issuer=args.oidc_issuer,
            oidc_audience=args.oidc_audience,
            oidc_jwks=args.oidc_jwks,
            roles_claim=args.roles_claim,
            projects_claim=args.projects_claim,
            dev_token=args.dev_token,
        )
    except ConfigurationError as exc:
        parser.error(str(exc))
    serve(
        args.url,
        authenticator=authenticator,
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_level=args.log_level,
    )
    return 0
