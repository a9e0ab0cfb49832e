"""``semreport serve``: the HTTP adapter under uvicorn (extra ``http``)."""

from __future__ import annotations

from typing import Any

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
    help="Worker processes, each opening the storage (use PostgreSQL for several).",
)
@click.option(
    "--threads",
    type=click.IntRange(1, 256),
    default=4,
    show_default=True,
    help="Threads per process for cheap calls (status, search, signals).",
)
@click.option(
    "--heavy-threads",
    type=click.IntRange(1, 256),
    default=1,
    show_default=True,
    help="Threads per process for reports and exports.",
)
@click.option(
    "--queue",
    type=click.IntRange(0, 100_000),
    default=256,
    show_default=True,
    help="Cheap calls that may wait for a thread; beyond, 503 with Retry-After.",
)
@click.option(
    "--heavy-queue",
    type=click.IntRange(0, 100_000),
    default=64,
    show_default=True,
    help="Reports and exports that may wait for a thread; beyond, 503 with Retry-After.",
)
@click.option(
    "--cursor-key-file",
    type=click.Path(dir_okay=False),
    default=None,
    help="A file holding the key that signs search cursors (at least 16 bytes), shared by "
    "every replica. Default: $SEMREPORT_CURSOR_KEY, else one key drawn at start-up for all "
    "workers.",
)
@click.option(
    "--limit-concurrency",
    type=click.IntRange(0, 1_000_000),
    default=1024,
    show_default=True,
    help="Connections and requests per process before uvicorn answers 503 (0: no limit).",
)
@click.option(
    "--timeout-keep-alive",
    type=click.IntRange(1, 3600),
    default=5,
    show_default=True,
    help="Seconds an idle keep-alive connection is kept.",
)
@click.option(
    "--header-timeout",
    type=click.FloatRange(0.1, 3600),
    default=10.0,
    show_default=True,
    help="Seconds a client has to send a request's headers.",
)
@click.option(
    "--timeout-worker-healthcheck",
    type=click.IntRange(1, 3600),
    default=5,
    show_default=True,
    help="With several workers: seconds a worker has to answer the supervisor's health check "
    "before it is killed and replaced.",
)
@click.option(
    "--switch-interval",
    type=click.FloatRange(0.0, 1.0),
    default=0.001,
    show_default=True,
    help="Seconds a thread keeps the GIL while others wait (Python's default: 0.005; 0 keeps "
    "it): short, so that cheap calls do not wait behind reports and exports.",
)
@click.option("--metrics", is_flag=True, help="Serve Prometheus metrics at /metrics.")
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
    threads: int,
    heavy_threads: int,
    queue: int,
    heavy_queue: int,
    cursor_key_file: str | None,
    limit_concurrency: int,
    timeout_keep_alive: int,
    header_timeout: float,
    timeout_worker_healthcheck: int,
    switch_interval: float,
    metrics: bool,
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
    from semreport.http import (  # noqa: PLC0415
        AuthSettings,
        ExecutorLimits,
        read_cursor_key,
    )
    from semreport.http import serve as serve_http  # noqa: PLC0415

    settings = AuthSettings(
        oidc_issuer=oidc_issuer,
        oidc_audience=oidc_audience,
        oidc_jwks=oidc_jwks,
        roles_claim=roles_claim,
        projects_claim=projects_claim,
        dev_token=dev_token,
    )
    authenticator = settings.build()
    cursor_key = read_cursor_key(cursor_key_file)
    # Opened here, before the banner, so that a --url naming no storage is one line and
    # status 2; serving only reads, so a missing storage is never created. Every request
    # must name its caller: the facade has no default one.
    service = semreport.open(url, require_caller=True, create=False, cursor_key=cursor_key)
    options: dict[str, Any] = {
        "host": host,
        "port": port,
        "light": ExecutorLimits(threads, queue),
        "heavy": ExecutorLimits(heavy_threads, heavy_queue),
        "limit_concurrency": limit_concurrency or None,
        "timeout_keep_alive": timeout_keep_alive,
        "header_timeout": header_timeout,
        "timeout_worker_healthcheck": timeout_worker_healthcheck,
        "switch_interval": switch_interval or None,
        "metrics": metrics,
        "log_level": log_level,
    }
    if workers > 1:
        # Each worker process opens the storage itself, with the same cursor key.
        service.close()
        click.echo(
            f"serving {url} on http://{host}:{port} with {workers} workers (Ctrl-C to stop)",
            err=True,
        )
        serve_http(url, authenticator=settings, workers=workers, cursor_key=cursor_key, **options)
        return
    try:
        click.echo(f"serving {url} on http://{host}:{port} (Ctrl-C to stop)", err=True)
        serve_http(service=service, authenticator=authenticator, **options)
    finally:
        service.close()
