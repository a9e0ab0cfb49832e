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
port 0 becomes the one port every worker binds), starts the workers, and
keeps them as uvicorn's supervisor does:

- a worker that dies is replaced; one that stops answering the health check
  (a ping over a pipe, answered by a thread of the worker) within
  ``timeout_worker_healthcheck`` seconds is killed and replaced;
- SIGHUP replaces every worker, one at a time, each retired only once its
  replacement serves; SIGTTIN adds a worker, SIGTTOU retires one (never the
  last); SIGINT and SIGTERM stop them all, each finishing its requests;
- workers that fail to start (the storage is missing, say) stop the server
  with uvicorn's start-up failure status, except a replacement during a
  SIGHUP restart: then the workers serving are kept.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Mapping
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from types import FrameType
from typing import Any, Final, Literal, Protocol

import attrs
import uvicorn
from uvicorn.config import STARTUP_FAILURE

__all__ = [
    "HEALTHCHECK_TIMEOUT",
    "PING_EVERY",
    "START_TIMEOUT",
    "STOP_TIMEOUT",
    "bind_shared",
    "reuse_port_supported",
    "run_workers",
]

STOP_TIMEOUT: Final = 30.0
"""Seconds a worker has to finish its requests after SIGTERM before it is killed."""
HEALTHCHECK_TIMEOUT: Final = 5
"""Seconds a started worker has to answer a ping (uvicorn's ``timeout_worker_healthcheck``)."""
PING_EVERY: Final = 1.0
"""Seconds between a worker's answer and the next ping."""
START_TIMEOUT: Final = 60.0
"""Seconds a new worker has to answer its first ping, and to serve when it replaces another."""

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
        workers: How many worker processes serve at once (SIGTTIN and SIGTTOU
            change it while serving).
        options: :class:`uvicorn.Config` options (``host``, ``port`` and
            ``timeout_worker_healthcheck`` among them).

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
    healthcheck = float(options.get("timeout_worker_healthcheck", HEALTHCHECK_TIMEOUT))
    supervisor = _Supervisor(app, options, port, healthcheck=healthcheck)
    handled = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGTTIN, signal.SIGTTOU)
    previous = {sig: signal.signal(sig, supervisor.notify) for sig in handled}
    try:
        _logger.info("Started parent process [%d], serving on %s:%d", os.getpid(), host, port)
        supervisor.run(workers)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        supervisor.close()
        reserved.close()
    if supervisor.failed:
        sys.exit(STARTUP_FAILURE)


@attrs.define(eq=False)
class _Worker:
    """A worker process, the supervisor's end of its health-check pipe, and its last ping."""

    process: BaseProcess
    conn: Connection
    pinged_at: float | None = None  # when the ping awaiting an answer was sent
    answered_at: float | None = None  # when it last answered
    serving: bool = False  # its last answer: its server has started


_Outcome = Literal["serving", "failed", "stopping"]


class _Supervisor:
    """Starts, checks, replaces and stops the workers; one per serving process."""

    def __init__(
        self, app: str, options: Mapping[str, Any], port: int, *, healthcheck: float
    ) -> None:
        self.app = app
        self.options = dict(options)
        self.port = port
        self.healthcheck = healthcheck
        self.workers: list[_Worker] = []
        self.queued: list[int] = []  # SIGHUP, SIGTTIN and SIGTTOU received, not handled yet
        self.stopping = False
        self.failed = False
        self._wake_read, self._wake_write = os.pipe()
        os.set_blocking(self._wake_read, False)
        os.set_blocking(self._wake_write, False)

    def notify(self, signum: int, frame: FrameType | None) -> None:
        """The signal handler: note the signal and wake the loop."""
        if signum in (signal.SIGINT, signal.SIGTERM):
            self.stopping = True
        else:
            self.queued.append(signum)
        with contextlib.suppress(BlockingIOError):  # full: the loop wakes anyway
            os.write(self._wake_write, b"\0")

    def run(self, count: int) -> None:
        """Start ``count`` workers and keep them until stopped (or one cannot start)."""
        try:
            # One at a time: if a start fails, the ones started are stopped below.
            for _ in range(count):
                if self.stopping:
                    break
                self.workers.append(self._start())
            while not self.stopping:
                self._wait(
                    [w for worker in self.workers for w in (worker.process.sentinel, worker.conn)]
                )
                for worker in self.workers:
                    _receive(worker)
                if self._reap() and self._handle_queued():
                    self._check_health()
        finally:
            _stop_all(self.workers)

    def close(self) -> None:
        """Close the wake-up pipe."""
        os.close(self._wake_read)
        os.close(self._wake_write)

    # -- the loop's steps ----------------------------------------------------------------

    def _wait(self, waitables: list[Any], timeout: float | None = None) -> None:
        """Until one of ``waitables`` or a signal is ready, or the next health check is due."""
        if timeout is None:
            timeout = self._next_check()
        multiprocessing.connection.wait([*waitables, self._wake_read], timeout)
        with contextlib.suppress(BlockingIOError):
            while os.read(self._wake_read, 512):
                pass

    def _next_check(self) -> float:
        """Seconds until a worker is due a ping, or has left one unanswered too long."""
        now = time.monotonic()
        return max(0.0, min((self._due(w, now) for w in self.workers), default=now) - now)

    def _due(self, worker: _Worker, now: float) -> float:
        if worker.pinged_at is not None:
            return worker.pinged_at + self._limit(worker)
        if worker.answered_at is None:  # just started: pinged at once
            return now
        return worker.answered_at + PING_EVERY

    def _reap(self) -> bool:
        """Replace each worker that exited; ``False`` when one could not start (stopping)."""
        for slot, worker in enumerate(self.workers):
            if worker.process.is_alive():
                continue
            worker.process.join()
            worker.conn.close()
            if worker.process.exitcode == STARTUP_FAILURE:
                _logger.error("Worker [%d] failed to start; stopping", worker.process.pid)
                self.failed = self.stopping = True
                del self.workers[slot]
                return False
            _logger.warning(
                "Worker [%d] exited with status %s; starting another",
                worker.process.pid,
                worker.process.exitcode,
            )
            self.workers[slot] = self._start()
        return True

    def _check_health(self) -> None:
        """Ping the workers due; kill and replace one that left a ping unanswered too long."""
        now = time.monotonic()
        for slot, worker in enumerate(self.workers):
            if self._due(worker, now) > now:
                continue
            if worker.pinged_at is None:
                _ping(worker, now)
            else:
                _logger.error(
                    "Worker [%d] did not answer the health check within %g s; killing it",
                    worker.process.pid,
                    self._limit(worker),
                )
                _kill(worker)
                self.workers[slot] = self._start()

    def _limit(self, worker: _Worker) -> float:
        """Seconds it has to answer a ping: more before its first answer (it is starting)."""
        return self.healthcheck if worker.answered_at is not None else START_TIMEOUT

    def _handle_queued(self) -> bool:
        """Act on the signals received; ``False`` when one stopped the server meanwhile."""
        while self.queued and not self.stopping:
            signum = self.queued.pop(0)
            if signum == signal.SIGHUP:
                _logger.info("Received SIGHUP: replacing every worker, one at a time")
                self._restart_all()
            elif signum == signal.SIGTTIN:
                self.workers.append(self._start())
                _logger.info("Received SIGTTIN: one worker more, %d in all", len(self.workers))
            elif len(self.workers) > 1:  # SIGTTOU
                _retire(self.workers.pop())
                _logger.info("Received SIGTTOU: one worker fewer, %d in all", len(self.workers))
            else:
                _logger.info("Received SIGTTOU: one worker left, kept")
        return not self.stopping

    def _restart_all(self) -> None:
        """Replace each worker by a new one, retiring it once its replacement serves."""
        for old in list(self.workers):
            if self.stopping:
                return
            new = self._start()
            outcome = self._until_serving(new)
            if outcome == "serving":
                self.workers[self.workers.index(old)] = new
                _retire(old)
                continue
            if outcome == "stopping":
                self.workers.append(new)  # stopped with the others
            else:
                _logger.error(
                    "Worker [%d] did not start serving; keeping the workers serving",
                    new.process.pid,
                )
                _kill(new)
            return

    def _until_serving(self, worker: _Worker) -> _Outcome:
        """Wait until a new worker's server has started, it exited, or the server stops."""
        deadline = time.monotonic() + START_TIMEOUT
        while not self.stopping:
            _receive(worker)
            if worker.serving:
                return "serving"
            now = time.monotonic()
            if not worker.process.is_alive() or now >= deadline:
                return "failed"
            if worker.pinged_at is None:
                if worker.answered_at is not None:
                    # It answered that it is still starting: ask again a little later.
                    self._wait([worker.process.sentinel], min(_STARTING_POLL, deadline - now))
                    now = time.monotonic()
                _ping(worker, now)
            self._wait([worker.process.sentinel, worker.conn], max(0.0, deadline - now))
        return "stopping"

    def _start(self) -> _Worker:
        parent, child = _SPAWN.Pipe()
        process = _SPAWN.Process(target=_serve_one, args=(self.app, self.options, self.port, child))
        process.start()
        child.close()  # the worker holds its own end: the supervisor's end then sees it exit
        _logger.info("Started worker process [%d]", process.pid)
        return _Worker(process, parent)


_STARTING_POLL: Final = 0.1  # seconds between pings of a worker that is still starting


def _ping(worker: _Worker, now: float) -> None:
    with contextlib.suppress(OSError):  # it exited: reaped on the next turn
        worker.conn.send(b"ping")
        worker.pinged_at = now


def _receive(worker: _Worker) -> None:
    """Read every answer the worker has sent."""
    with contextlib.suppress(EOFError, OSError):  # it exited: reaped on the next turn
        while worker.conn.poll():
            worker.serving = bool(worker.conn.recv())
            worker.pinged_at = None
            worker.answered_at = time.monotonic()


def _kill(worker: _Worker) -> None:
    worker.process.kill()
    worker.process.join()
    worker.conn.close()


def _retire(worker: _Worker) -> None:
    """SIGTERM (uvicorn's graceful shutdown), SIGKILL after :data:`STOP_TIMEOUT`."""
    _stop_all([worker])


def _stop_all(workers: list[_Worker]) -> None:
    """SIGTERM to every live worker (uvicorn's graceful shutdown), SIGKILL after the timeout."""
    for worker in workers:
        if worker.process.is_alive():
            worker.process.terminate()
    for worker in workers:
        worker.process.join(STOP_TIMEOUT)
        if worker.process.is_alive():  # pragma: no cover - a worker stuck in shutdown
            _logger.error("Worker [%d] did not stop in time; killing it", worker.process.pid)
            worker.process.kill()
            worker.process.join()
        worker.conn.close()


class _Started(Protocol):
    started: bool


def _answer_pings(conn: Connection, server: _Started) -> None:
    """Answer each ping with whether the server has started, until the pipe closes."""
    with contextlib.suppress(EOFError, OSError):
        while True:
            conn.recv()
            conn.send(server.started)


def _serve_one(
    app: str, options: dict[str, Any], port: int, conn: Connection
) -> None:  # pragma: no cover
    """One worker: its own socket on the shared port, one uvicorn server (runs in the child)."""
    server = uvicorn.Server(uvicorn.Config(app, factory=True, **{**options, "port": port}))
    # A thread answers the supervisor's pings: a process that stops running Python
    # (stopped, or stuck in a call that holds the GIL) stops answering.
    threading.Thread(target=_answer_pings, args=(conn, server), daemon=True).start()
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
