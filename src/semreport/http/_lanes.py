"""Bounded executors: cheap calls never wait behind heavy ones, and nothing queues without bound.

Each :class:`~semreport.contract.Lane` of the contract gets its own
:class:`Executor`: a fixed number of threads and a bounded queue in front of
them. A request that finds its executor's threads busy and its queue full is
refused at once with :class:`Busy` (503 with ``Retry-After``) rather than
waiting; a queued request whose client has gone away is dropped before it
starts (:class:`ClientGone`).
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Final, TypeVar

import attrs

from semreport.domain import SemReportError

__all__ = ["Busy", "ClientGone", "Executor", "ExecutorLimits", "TimedOut"]

T = TypeVar("T")

_EWMA: Final = 0.2


class Busy(SemReportError):
    """Every thread of the request's executor is busy and its queue is full: retry later."""

    code = "SERVICE_BUSY"

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class TimedOut(SemReportError):
    """The request took longer than its use case's time limit; its work was abandoned."""

    code = "REQUEST_TIMED_OUT"

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ClientGone(Exception):
    """The client went away: its work is skipped or stopped at the next check."""


class _NotStarted(ClientGone):
    """The client went away while the job waited: it never ran."""


@attrs.frozen
class ExecutorLimits:
    """The size of one executor: its threads and the requests that may wait for them.

    Attributes:
        threads: Threads running facade calls of this lane at once.
        queue: Requests that may wait for a thread; one more is answered 503.
    """

    threads: int = attrs.field(validator=attrs.validators.ge(1))
    queue: int = attrs.field(validator=attrs.validators.ge(0))


class Executor:
    """A thread pool with a bounded queue, refusing work beyond it at once.

    Args:
        name: The lane's name (thread names, logs, metrics).
        limits: Threads and queue size.
        on_change: Called with ``(running, queued)`` whenever either changes
            (the metrics' gauges).
    """

    def __init__(
        self,
        name: str,
        limits: ExecutorLimits,
        on_change: Callable[[int, int], None] | None = None,
    ) -> None:
        self.name = name
        self.limits = limits
        self._pool = ThreadPoolExecutor(limits.threads, thread_name_prefix=f"semreport-{name}")
        self._lock = threading.Lock()
        self._admitted = 0
        self._running = 0
        self._mean = 0.0  # seconds per job, moving average (for Retry-After)
        self._on_change = on_change

    def __repr__(self) -> str:
        return f"Executor({self.name!r}, threads={self.limits.threads}, queue={self.limits.queue})"

    @property
    def running(self) -> int:
        """Jobs running now."""
        return self._running

    @property
    def queued(self) -> int:
        """Jobs admitted and waiting for a thread."""
        return self._admitted - self._running

    def retry_after(self) -> int:
        """Seconds after which a refused request may well be served (at least 1)."""
        with self._lock:
            waiting = self._admitted - self._running
            mean = self._mean
        return max(1, math.ceil(mean * (waiting + 1) / self.limits.threads))

    def submit(self, job: Callable[[], T], cancelled: threading.Event) -> Future[T]:
        """Admit ``job`` or refuse it at once.

        The job is skipped, raising :class:`ClientGone`, if ``cancelled`` is set
        by the time a thread takes it.

        Raises:
            Busy: the threads are busy and the queue is full.
        """
        with self._lock:
            if self._admitted >= self.limits.threads + self.limits.queue:
                admitted = False
            else:
                admitted = True
                self._admitted += 1
        if not admitted:
            raise Busy(
                f"the service is busy ({self.name} work: {self.limits.threads} running, "
                f"{self.limits.queue} waiting); retry later",
                self.retry_after(),
            )
        self._changed()
        try:
            future = self._pool.submit(self._run, job, cancelled)
        except RuntimeError:  # shut down
            self._release_unstarted()
            raise
        future.add_done_callback(self._release)
        return future

    async def run(self, job: Callable[[], T], cancelled: threading.Event) -> T:
        """Run ``job`` on this executor and await its result (see :meth:`submit`)."""
        return await asyncio.wrap_future(self.submit(job, cancelled))

    def _run(self, job: Callable[[], T], cancelled: threading.Event) -> T:
        if cancelled.is_set():
            raise _NotStarted
        with self._lock:
            self._running += 1
        self._changed()
        started = time.monotonic()
        try:
            return job()
        finally:
            took = time.monotonic() - started
            with self._lock:
                self._running -= 1
                self._admitted -= 1
                self._mean += _EWMA * (took - self._mean)
            self._changed()

    def _release(self, future: Future[Any]) -> None:
        # A job that ran released itself in _run; one skipped or never started is released here.
        if not future.cancelled() and not isinstance(future.exception(), _NotStarted):
            return
        self._release_unstarted()

    def _release_unstarted(self) -> None:
        with self._lock:
            self._admitted -= 1
        self._changed()

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change(self._running, self._admitted - self._running)

    def shutdown(self) -> None:
        """Stop taking work; queued jobs are dropped, running ones finish."""
        self._pool.shutdown(wait=False, cancel_futures=True)
