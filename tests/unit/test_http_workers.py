"""The worker supervisor: its own socket per worker, replacement, start-up failure, signals."""

from __future__ import annotations

import itertools
import os
import signal
import socket
from typing import Any

import pytest

from semreport.http import _workers

STARTUP_FAILURE = 3


class _FakeProcess:
    """A worker that does, when started, what its script says; its sentinel is a pipe."""

    _pids = itertools.count(1000)

    def __init__(self, script: str) -> None:
        self.script = script
        self.pid = next(self._pids)
        self.exitcode: int | None = None
        self.terminated = False
        self.sentinel, self._write = os.pipe()

    def start(self) -> None:
        if self.script == "fail":
            self._exit(STARTUP_FAILURE)
        elif self.script == "die":
            self._exit(-signal.SIGKILL)
        elif self.script == "interrupt":  # the server is told to stop while this one serves
            os.kill(os.getpid(), signal.SIGTERM)

    def _exit(self, code: int) -> None:
        self.exitcode = code
        os.close(self._write)  # the sentinel reads as ready: the process has ended

    def is_alive(self) -> bool:
        return self.exitcode is None

    def join(self, timeout: float | None = None) -> None:
        pass

    def terminate(self) -> None:
        self.terminated = True
        self._exit(-signal.SIGTERM)

    def close(self) -> None:
        os.close(self.sentinel)


class _FakeContext:
    """Hands out fake processes, one script each, in order."""

    def __init__(self, *scripts: str) -> None:
        self.scripts = list(scripts)
        self.started: list[_FakeProcess] = []

    def Process(self, target: Any, args: tuple[Any, ...]) -> _FakeProcess:
        assert target is _workers._serve_one
        app, options, port = args
        assert (app, options["host"], port > 0) == ("m:factory", "127.0.0.1", True)
        process = _FakeProcess(self.scripts.pop(0))
        self.started.append(process)
        return process


@pytest.fixture
def context(monkeypatch: pytest.MonkeyPatch) -> Any:
    def make(*scripts: str) -> _FakeContext:
        fake = _FakeContext(*scripts)
        monkeypatch.setattr(_workers, "_SPAWN", fake)
        monkeypatch.setattr(_workers, "reuse_port_supported", lambda: True)
        return fake

    return make


_OPTIONS = {"host": "127.0.0.1", "port": 0, "log_level": "critical"}


class TestSupervisor:
    """run_workers with fake processes: what it starts, replaces and stops."""

    def test_a_worker_that_dies_is_replaced_until_the_server_is_stopped(self, context: Any) -> None:
        fake = context("serve", "die", "interrupt")
        before = signal.getsignal(signal.SIGTERM)
        _workers.run_workers("m:factory", 2, _OPTIONS)
        serving, died, replacement = fake.started
        assert (serving.terminated, died.terminated, replacement.terminated) == (True, False, True)
        assert signal.getsignal(signal.SIGTERM) is before  # the handlers are given back
        for process in fake.started:
            process.close()

    def test_a_worker_that_cannot_start_stops_every_worker(self, context: Any) -> None:
        fake = context("serve", "fail")
        with pytest.raises(SystemExit) as stopped:
            _workers.run_workers("m:factory", 2, _OPTIONS)
        assert stopped.value.code == STARTUP_FAILURE
        serving, failed = fake.started
        assert serving.terminated
        assert not failed.terminated
        for process in fake.started:
            process.close()

    def test_uvicorn_supervises_where_ports_cannot_be_shared(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        seen: dict[str, Any] = {}
        monkeypatch.setattr(_workers, "reuse_port_supported", lambda: False)
        monkeypatch.setattr(
            _workers.uvicorn, "run", lambda app, **kwargs: seen.update(app=app, **kwargs)
        )
        _workers.run_workers("m:factory", 3, _OPTIONS)
        assert (seen["app"], seen["factory"], seen["workers"]) == ("m:factory", True, 3)


class TestSharedPort:
    """Every worker binds its own socket to one port."""

    @pytest.mark.skipif(not _workers.reuse_port_supported(), reason="SO_REUSEPORT (Linux)")
    def test_two_sockets_bind_one_port(self) -> None:
        first = _workers.bind_shared("127.0.0.1", 0)
        port = first.getsockname()[1]
        second = _workers.bind_shared("127.0.0.1", port)
        try:
            for sock in (first, second):
                assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT) == 1
                assert sock.getsockname()[1] == port
        finally:
            first.close()
            second.close()

    def test_a_port_held_without_sharing_is_refused(self) -> None:
        holder = socket.socket()
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        try:
            with pytest.raises(OSError, match="in use"):
                _workers.bind_shared("127.0.0.1", holder.getsockname()[1])
        finally:
            holder.close()
