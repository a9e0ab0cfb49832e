"""``semreport serve``: the HTTP adapter under uvicorn (extra ``http``)."""

from __future__ import annotations

import click

import semreport
from semreport.cli._app import cli, url_option

__all__ = ["serve"]


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    help="Threads running facade calls (raise only for a thread-safe storage).",
)
@click.option("--log-level", default="info", show_default=True, help="uvicorn's log level.")
@click.option(
    "--oidc-issuer", envvar="SEMREPORT_OIDC_ISSUER", show_envvar=True, help="Expected iss."
)
@click.option(
    "--oidc-audience", envvar="SEMREPORT_OIDC_AUDIENCE", show_envvar=True, help="Expected aud."
)
@click.option(
    "--oidc-jwks",
    envvar="SEMREPORT_OIDC_JWKS",
    show_envvar=True,
    help="The identity provider's JWKS: a URL or a file.",
)
@click.option(
    "--roles-claim",
    envvar="SEMREPORT_OIDC_ROLES_CLAIM",
    default="roles",
    show_default=True,
    help="The claim holding the caller's roles (dotted paths reach into objects).",
)
@click.option(
    "--projects-claim",
    envvar="SEMREPORT_OIDC_PROJECTS_CLAIM",
    default="projects",
    show_default=True,
    help="The claim holding the projects the caller may read.",
)
@click.option(
    "--dev-token",
    envvar="SEMREPORT_DEV_TOKEN",
    show_envvar=True,
    help="A static development token (both roles, every project). Never in production.",
)
@url_option
def serve(
    *,
    host: str,
    port: int,
    workers: int,
    log_level: str,
    oidc_issuer: str | None,
    oidc_audience: str | None,
    oidc_jwks: str | None,
    roles_claim: str,
    projects_claim: str,
    dev_token: str | None,
    url: str,
) -> None:
    """Serve the whole contract over HTTP with uvicorn until interrupted.

    Authentication is OpenID Connect (give --oidc-issuer, --oidc-audience and
    --oidc-jwks) or, for development only, one static --dev-token. Needs the
    http extra: pip install 'semreport[http]'.
    """
    # Imported here: the http extra is optional, and only this command needs it.
    from semreport.http import build_authenticator  # noqa: PLC0415
    from semreport.http import serve as serve_http  # noqa: PLC0415

    authenticator = build_authenticator(
        oidc_issuer=oidc_issuer,
        oidc_audience=oidc_audience,
        oidc_jwks=oidc_jwks,
        roles_claim=roles_claim,
        projects_claim=projects_claim,
        dev_token=dev_token,
    )
    # Opened here, before the banner, so that a --url naming no storage is one line and
    # status 2; serving only reads, so a missing storage is never created. Every request
    # must name its caller: the facade has no default one.
    service = semreport.open(url, require_caller=True, create=False)
    try:
        click.echo(f"serving {url} on http://{host}:{port} (Ctrl-C to stop)", err=True)
        serve_http(
            service=service,
            authenticator=authenticator,
            host=host,
            port=port,
            workers=workers,
            log_level=log_level,
        )
    finally:
        service.close()
