"""Run the application with uvicorn: :func:`serve` and ``python -m semreport.http``.

One process serves with its own facade; ``workers=N`` starts N worker
processes (the gunicorn meaning of the word; see :mod:`semreport.http._workers`
for how they share the port), each opening the same storage with the same
cursor key, so that a cursor from one process is valid at every other and
after a restart.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import os
import secrets
import socket
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import attrs
import h11
import uvicorn
from starlette.applications import Starlette
from uvicorn.protocols.http.h11_impl import H11Protocol

from semreport.domain import Authenticator, ConfigurationError, Principal
from semreport.http._app import DEFAULT_HEAVY, DEFAULT_LIGHT, create_app
from semreport.http._auth import OIDCAuthenticator, StaticTokenAuthenticator
from semreport.http._lanes import ExecutorLimits
from semreport.http._workers import HEALTHCHECK_TIMEOUT, run_workers

__all__ = [
    "CURSOR_KEY_ENV",
    "DEFAULT_HEADER_TIMEOUT",
    "DEFAULT_KEEP_ALIVE",
    "DEFAULT_LIMIT_CONCURRENCY",
    "DEFAULT_SWITCH_INTERVAL",
    "AuthSettings",
    "HeaderTimeoutProtocol",
    "build_authenticator",
    "main",
    "read_cursor_key",
    "serve",
    "worker_app",
]

CURSOR_KEY_ENV: Final = "SEMREPORT_CURSOR_KEY"
"""The environment variable holding a shared cursor key (text, at least 16 bytes)."""

DEFAULT_LIMIT_CONCURRENCY: Final = 1024
"""Connections and requests open at once before new ones are answered 503 by uvicorn."""
DEFAULT_KEEP_ALIVE: Final = 5
"""Seconds an idle keep-alive connection is kept."""
DEFAULT_HEADER_TIMEOUT: Final = 10.0
"""Seconds a client has to send a request's line and headers once it connects or starts one."""
DEFAULT_SWITCH_INTERVAL: Final = 0.001
"""Seconds a thread holds the GIL before a waiting thread gets it (Python's default is 0.005).

A server process sets it so that the event loop and cheap calls are not made to
wait 5 ms at a time behind a report or an export running on another thread."""

_WORKER_ENV: Final = "SEMREPORT_WORKER_CONFIG"


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


@attrs.frozen
class AuthSettings:
    """How to build the authenticator: what worker processes are handed to build their own.

    An authenticator holds threads, locks and caches, so each process builds
    one from these settings (the arguments of :func:`build_authenticator`).
    """

    oidc_issuer: str | None = None
    oidc_audience: str | None = None
    oidc_jwks: str | None = None
    roles_claim: str = "roles"
    projects_claim: str = "projects"
    dev_token: str | None = attrs.field(default=None, repr=False)

    def build(self) -> Authenticator:
        """Build the authenticator (see :func:`build_authenticator`)."""
        return build_authenticator(**attrs.asdict(self))


def read_cursor_key(
    path: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None
) -> bytes | None:
    """The shared cursor key: from a file (its bytes, trailing newline dropped) or the environment.

    Returns:
        The key, or ``None`` when neither names one (the server then draws one
        at start-up and hands it to every worker).

    Raises:
        ConfigurationError: the file cannot be read, or the key is shorter than 16 bytes.
    """
    env = os.environ if env is None else env
    if path is not None:
        try:
            key = Path(path).read_bytes().rstrip(b"\r\n")
        except OSError as exc:
            raise ConfigurationError(f"cannot read the cursor key file: {exc.strerror}") from None
        where = "the cursor key file"
    elif env.get(CURSOR_KEY_ENV):
        key = env[CURSOR_KEY_ENV].encode("utf-8")
        where = CURSOR_KEY_ENV
    else:
        return None
    if len(key) < 16:
        raise ConfigurationError(f"{where} holds {len(key)} bytes; a cursor key needs 16 or more")
    return key


class HeaderTimeoutProtocol(H11Protocol):
    """uvicorn's h11 protocol with a header timeout.

    A request's line and headers must arrive within ``header_timeout`` seconds
    of the connection (or of their first byte), or the connection is closed.
    uvicorn's keep-alive timeout covers idle connections between requests.
    """

    def __init__(self, *args: Any, header_timeout: float, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_timeout = header_timeout
        self._header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type] # uvicorn narrows it
        # asyncio sets TCP_NODELAY only when the listening socket says IPPROTO_TCP; the one
        # uvicorn binds for its worker processes says 0, and every answer on a kept-alive
        # connection then waits for the client's delayed ACK (about 40 ms). Set it here.
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is h11.IDLE:
            if self._header_timer is None:
                self._arm()
        else:
            self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._header_timer = self.loop.call_later(self._header_timeout, self._expire)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _expire(self) -> None:
        self._header_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()


def serve(
    url: str | None = None,
    *,
    authenticator: Authenticator | AuthSettings,
    service: Any = None,
    host: str = "127.0.0.1",
    port: int = 8000,
    workers: int = 1,
    light: ExecutorLimits = DEFAULT_LIGHT,
    heavy: ExecutorLimits = DEFAULT_HEAVY,
    cursor_key: bytes | str | None = None,
    limit_concurrency: int | None = DEFAULT_LIMIT_CONCURRENCY,
    timeout_keep_alive: int = DEFAULT_KEEP_ALIVE,
    header_timeout: float = DEFAULT_HEADER_TIMEOUT,
    timeout_worker_healthcheck: int = HEALTHCHECK_TIMEOUT,
    switch_interval: float | None = DEFAULT_SWITCH_INTERVAL,
    metrics: bool = False,
    access_log: bool = True,
    log_level: str = "info",
    **storage_options: Any,
) -> None:
    """Serve the contract over HTTP with uvicorn until interrupted.

    Args:
        url: The storage URL; the facade is opened with ``require_caller=True``
            and ``create=False`` (a missing storage raises
            :class:`~semreport.StorageNotFound` rather than being created), and
            closed when the server stops.
        authenticator: Turns bearer tokens into callers; with several workers,
            the :class:`AuthSettings` each worker builds its own from.
        service: An open facade to serve instead of ``url`` (left open; one
            worker only).
        host: The interface to listen on (loopback by default).
        port: The TCP port.
        workers: Worker processes, each with its own facade over ``url``.
        light: Threads and queue of the cheap calls' executor (per process).
        heavy: Threads and queue of the reports' and exports' executor (per process).
        cursor_key: The key signing search cursors, shared by every worker; by
            default one is drawn at start-up and handed to every worker.
        limit_concurrency: Connections and requests open at once (per process)
            before uvicorn answers 503; ``None`` for no limit.
        timeout_keep_alive: Seconds an idle keep-alive connection is kept.
        header_timeout: Seconds a client has to send a request's headers.
        timeout_worker_healthcheck: With several workers, seconds a worker has
            to answer the supervisor's health check before it is killed and
            replaced.
        switch_interval: The serving processes' ``sys.setswitchinterval`` (see
            :data:`DEFAULT_SWITCH_INTERVAL`); ``None`` leaves Python's default.
        metrics: Serve Prometheus metrics at ``/metrics``.
        access_log: One structured line per request on ``semreport.http.access``
            (instead of uvicorn's access log).
        log_level: uvicorn's log level.
        **storage_options: Passed to the storage adapter (JSON values with several workers).

    Raises:
        ConfigurationError: inconsistent options.
    """
    if (url is None) == (service is None):
        raise ConfigurationError("give serve() a storage url or an open service, not both")
    if workers < 1:
        raise ConfigurationError("workers must be at least 1")
    if timeout_worker_healthcheck < 1:
        raise ConfigurationError("timeout_worker_healthcheck must be at least 1 second")
    options: dict[str, Any] = {
        "host": host,
        "port": port,
        "log_level": log_level,
        "proxy_headers": False,
        "access_log": not access_log,
        "limit_concurrency": limit_concurrency,
        "timeout_keep_alive": timeout_keep_alive,
        "timeout_worker_healthcheck": timeout_worker_healthcheck,
        "http": functools.partial(HeaderTimeoutProtocol, header_timeout=header_timeout),
    }
    app_options: dict[str, Any] = {
        "switch_interval": switch_interval,
        "light": attrs.asdict(light),
        "heavy": attrs.asdict(heavy),
        "metrics": metrics,
        "access_log": access_log,
    }
    if workers > 1:
        if service is not None or url is None:
            raise ConfigurationError("several workers open the storage themselves: give a url")
        if not isinstance(authenticator, AuthSettings):
            raise ConfigurationError(
                "several workers build their own authenticator: give AuthSettings"
            )
        key = secrets.token_bytes(32) if cursor_key is None else _key_bytes(cursor_key)
        config = {
            "url": url,
            "storage_options": storage_options,
            "auth": attrs.asdict(authenticator),
            "cursor_key": key.hex(),
            **app_options,
        }
        try:
            os.environ[_WORKER_ENV] = json.dumps(config)
        except TypeError as exc:
            raise ConfigurationError(
                f"storage options must be JSON values with several workers: {exc}"
            ) from None
        run_workers(f"{__name__}:worker_app", workers, options)
        return
    auth = authenticator.build() if isinstance(authenticator, AuthSettings) else authenticator
    if switch_interval is not None:
        sys.setswitchinterval(switch_interval)
    own = service is None
    if own:
        service = _open(url or "", cursor_key, storage_options)
    try:
        app = create_app(
            service, auth, light=light, heavy=heavy, metrics=metrics, access_log=access_log
        )
        uvicorn.run(app, **options)
    finally:
        if own:
            service.close()


def _key_bytes(key: bytes | str) -> bytes:
    return key.encode("utf-8") if isinstance(key, str) else key


def _open(url: str, cursor_key: bytes | str | None, storage_options: Mapping[str, Any]) -> Any:
    import semreport  # noqa: PLC0415 - the composition root, imported when needed

    # A server only reads: a storage that does not exist is refused, never created.
    options = {"create": False, **storage_options}
    return semreport.open(url, require_caller=True, cursor_key=cursor_key, **options)


def worker_app() -> Starlette:
    """The application of one worker process, from the configuration its parent handed it.

    uvicorn calls this factory in each worker process that :func:`serve`
    starts; it opens the facade (closed when the worker stops) with the
    shared cursor key and builds the authenticator from its settings.

    Raises:
        ConfigurationError: the process was not started by :func:`serve`.
    """
    text = os.environ.get(_WORKER_ENV)
    if not text:
        raise ConfigurationError(f"worker_app() runs in workers started by serve() ({_WORKER_ENV})")
    config = json.loads(text)
    if config["switch_interval"] is not None:
        sys.setswitchinterval(config["switch_interval"])
    authenticator = AuthSettings(**config["auth"]).build()
    service = _open(config["url"], bytes.fromhex(config["cursor_key"]), config["storage_options"])
    return create_app(
        service,
        authenticator,
        light=ExecutorLimits(**config["light"]),
        heavy=ExecutorLimits(**config["heavy"]),
        metrics=config["metrics"],
        access_log=config["access_log"],
        on_shutdown=service.close,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """The ``python -m semreport.http`` command line."""
    env = os.environ
    parser = argparse.ArgumentParser(
        prog="python -m semreport.http", description="Serve the semreport contract over HTTP."
    )
    parser.add_argument("--url", required=True, help="storage URL, e.g. sqlite:///project.db")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--workers", type=int, default=1, help="worker processes")
    parser.add_argument("--threads", type=int, default=DEFAULT_LIGHT.threads)
    parser.add_argument("--heavy-threads", type=int, default=DEFAULT_HEAVY.threads)
    parser.add_argument("--queue", type=int, default=DEFAULT_LIGHT.queue)
    parser.add_argument("--heavy-queue", type=int, default=DEFAULT_HEAVY.queue)
    parser.add_argument("--cursor-key-file", default=None)
    parser.add_argument("--limit-concurrency", type=int, default=DEFAULT_LIMIT_CONCURRENCY)
    parser.add_argument("--timeout-keep-alive", type=int, default=DEFAULT_KEEP_ALIVE)
    parser.add_argument("--header-timeout", type=float, default=DEFAULT_HEADER_TIMEOUT)
    parser.add_argument("--timeout-worker-healthcheck", type=int, default=HEALTHCHECK_TIMEOUT)
    parser.add_argument("--switch-interval", type=float, default=DEFAULT_SWITCH_INTERVAL)
    parser.add_argument("--metrics", action="store_true", help="serve /metrics (Prometheus)")
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
    settings = AuthSettings(
        oidc_issuer=args.oidc_issuer,
        oidc_audience=args.oidc_audience,
        oidc_jwks=args.oidc_jwks,
        roles_claim=args.roles_claim,
        projects_claim=args.projects_claim,
        dev_token=args.dev_token,
    )
    try:
        authenticator = settings.build()
        cursor_key = read_cursor_key(args.cursor_key_file)
        light = ExecutorLimits(args.threads, args.queue)
        heavy = ExecutorLimits(args.heavy_threads, args.heavy_queue)
    except (ConfigurationError, ValueError) as exc:
        parser.error(str(exc))
    try:
        serve(
            args.url,
            authenticator=settings if args.workers > 1 else authenticator,
            host=args.host,
            port=args.port,
            workers=args.workers,
            light=light,
            heavy=heavy,
            cursor_key=cursor_key,
            limit_concurrency=args.limit_concurrency or None,
            timeout_keep_alive=args.timeout_keep_alive,
            header_timeout=args.header_timeout,
            timeout_worker_healthcheck=args.timeout_worker_healthcheck,
            switch_interval=args.switch_interval or None,
            metrics=args.metrics,
            log_level=args.log_level,
        )
    except ConfigurationError as exc:  # an option out of range (--workers 0, say)
        parser.error(str(exc))
    return 0
