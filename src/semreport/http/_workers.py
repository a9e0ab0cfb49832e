"""Worker processes that each listen on their own socket, so the kernel spreads connections.

uvicorn's supervisor hands its workers one shared listening socket. The
first worker to wake accepts a whole burst of new connections, and
keep-alive then pins them to it: under a load balancer's or a benchmark's
persistent connections a second process added nothing (32 keep-alive
connections against two workers: one served every request). On Linux each
worker started here binds its own socket to the address with
``SO_REUSEPORT``, and the kernel hands each new connection to one of them by
a hash of its addresses. Elsewhere :func:`run_workers` uses uvicorn's
supervisor.

The supervisor binds the address first (a port in use fails at once, and
port 0 becomes the one port every worker binds), starts the workers, starts
another when one dies, and stops them all on SIGINT or SIGTERM. Workers that
fail to start (the storage is missing, say) stop the server with uvicorn's
start-up failure status.
"""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import socket
import sys
from collections.abc import Mapping
from types import FrameType
from typing import Any, Final

import uvicorn
from uvicorn.config import STARTUP_FAILURE

__all__ = ["STOP_TIMEOUT", "bind_shared", "reuse_port_supported", "run_workers"]

STOP_TIMEOUT: Final = 30.0
"""Seconds a worker has to finish its requests after SIGTERM before it is killed."""

_logger = logging.getLogger("uvicorn.error")
_SPAWN = multiprocessing.get_context("spawn")


def reuse_port_supported() -> bool:
    """Whether the kernel spreads connections over sockets sharing a port (Linux)."""
    return sys.platform == "linux" and hasattr(socket, "SO_REUSEPORT")


def bind_shared(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` that other ``SO_REUSEPORT`` sockets may share.

    Not listening yet: uvicorn listens on it (with its backlog) when it starts serving.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, port))
    except BaseException:
        sock.close()
        raise
    return sock


def run_workers(app: str, workers: int, options: Mapping[str, Any]) -> None:
    """Serve the application factory ``app`` from ``workers`` processes until interrupted.

    Args:
        app: The import string of an application factory (``module:function``).
        workers: How many worker processes serve at once.
        options: :class:`uvicorn.Config` options (``host`` and ``port`` among them).

    Raises:
        SystemExit: with uvicorn's start-up failure status when a worker
            fails to start, as ``uvicorn.run`` does.
    """
    if not reuse_port_supported():
        uvicorn.run(app, factory=True, workers=workers, **options)
        return
    uvicorn.Config(app, factory=True, **options)  # configures logging, as uvicorn.run does
    host = str(options.get("host", "127.0.0.1"))
    reserved = bind_shared(host, int(options.get("port", 8000)))
    port = int(reserved.getsockname()[1])
    wake_read, wake_write = os.pipe()
    stopping: list[int] = []

    def stop(signum: int, frame: FrameType | None) -> None:
        stopping.append(signum)
        os.write(wake_write, b"\0")

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    processes: list[multiprocessing.process.BaseProcess] = []
    failed = False
    try:
        _logger.info("Started parent process [%d], serving on %s:%d", os.getpid(), host, port)
        # One at a time: if a start fails, the ones started are stopped below.
        processes.extend(_start(app, options, port) for _ in range(workers))
        while not stopping:
            sentinels = [process.sentinel for process in processes]
            multiprocessing.connection.wait([*sentinels, wake_read])
            for slot, process in enumerate(processes):
                if stopping or process.is_alive():
                    continue
                process.join()
                if process.exitcode == STARTUP_FAILURE:
                    _logger.error("Worker [%d] failed to start; stopping", process.pid)
                    failed = True
                    stopping.append(0)
                    break
                _logger.warning(
                    "Worker [%d] exited with status %s; starting another",
                    process.pid,
                    process.exitcode,
                )
                processes[slot] = _start(app, options, port)
    finally:
        _stop_all(processes)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        os.close(wake_read)
        os.close(wake_write)
        reserved.close()
    if failed:
        sys.exit(STARTUP_FAILURE)


def _start(app: str, options: Mapping[str, Any], port: int) -> multiprocessing.process.BaseProcess:
    process = _SPAWN.Process(target=_serve_one, args=(app, dict(options), port))
    process.start()
    _logger.info("Started worker process [%d]", process.pid)
    return process


def _stop_all(processes: list[multiprocessing.process.BaseProcess]) -> None:
    """SIGTERM to every live worker (uvicorn's graceful shutdown), SIGKILL after the timeout."""
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(STOP_TIMEOUT)
        if process.is_alive():  # pragma: no cover - a worker stuck in shutdown
            _logger.error("Worker [%d] did not stop in time; killing it", process.pid)
            process.kill()
            process.join()


def _serve_one(app: str, options: dict[str, Any], port: int) -> None:  # pragma: no cover
    """One worker: its own socket on the shared port, one uvicorn server (runs in the child)."""
    server = uvicorn.Server(uvicorn.Config(app, factory=True, **{**options, "port": port}))
    try:
        server.run(sockets=[bind_shared(str(options.get("host", "127.0.0.1")), port)])
    except Exception:
        if server.started:
            raise
        # The port could not be bound, or the factory raised (a missing storage,
        # say): uvicorn lets the factory's error through.
        _logger.exception("Worker [%d] failed to start", os.getpid())
    if not server.started:
        sys.exit(STARTUP_FAILURE)
