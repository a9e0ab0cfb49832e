"""The worker supervisor: its own socket per worker, health checks, replacement, signals."""

from __future__ import annotations

import itertools
import multiprocessing
import os
import signal
import socket
import threading
import types
from collections.abc import Callable, Iterator
from typing import Any

import attrs
import pytest

from semreport.http import _workers

STARTUP_FAILURE = 3


@attrs.frozen
class Script:
    """What a fake worker does: when started, pinged and terminated."""

    on_start: str | None = None  # "fail": cannot start; "die": exits at once
    signal_on_start: int | None = None  # sent to the test's own process (the supervisor's)
    answers: int | None = None  # pings answered, then no more (None: every ping)
    starting: int = 0  # pings answered "still starting" before "serving"
    signal_on_ping: int | None = None
    signal_on_terminate: int | None = None


SERVE = Script()


class _FakeConn:
    """The supervisor's end of a fake worker's pipe: the worker answers a ping at once."""

    def __init__(self) -> None:
        self.worker: _FakeProcess | None = None
        self._replies: list[bool] = []
        self._read, self._write = os.pipe()
        self._open = True

    def fileno(self) -> int:
        return self._read

    def send(self, message: object) -> None:
        assert message == b"ping"
        worker = self.worker
        assert worker is not None
        worker.pings += 1
        if worker.script.signal_on_ping is not None:
            os.kill(os.getpid(), worker.script.signal_on_ping)
        answers = worker.script.answers
        if worker.is_alive() and (answers is None or worker.pings <= answers):
            self._replies.append(worker.pings > worker.script.starting)
            os.write(self._write, b"\0")

    def poll(self) -> bool:
        return bool(self._replies)

    def recv(self) -> bool:
        os.read(self._read, 1)
        return self._replies.pop(0)

    def close(self) -> None:
        if self._open:
            self._open = False
            os.close(self._read)
            os.close(self._write)


class _FakeChild:
    def close(self) -> None:
        pass


class _FakeProcess:
    """A worker that does what its script says; its sentinel is a pipe."""

    _pids = itertools.count(1000)

    def __init__(self, name: str, script: Script, events: list[str]) -> None:
        self.name = name
        self.script = script
        self.events = events
        self.pid = next(self._pids)
        self.exitcode: int | None = None
        self.terminated = self.killed = False
        self.pings = 0
        self.sentinel, self._write = os.pipe()

    def start(self) -> None:
        self.events.append(f"start {self.name}")
        if self.script.on_start == "fail":
            self._exit(STARTUP_FAILURE)
        elif self.script.on_start == "die":
            self._exit(-signal.SIGKILL)
        if self.script.signal_on_start is not None:
            os.kill(os.getpid(), self.script.signal_on_start)

    def _exit(self, code: int) -> None:
        if self.exitcode is None:
            self.exitcode = code
            os.close(self._write)  # the sentinel reads as ready: the process has ended

    def is_alive(self) -> bool:
        return self.exitcode is None

    def join(self, timeout: float | None = None) -> None:
        pass

    def terminate(self) -> None:
        self.events.append(f"terminate {self.name}")
        self.terminated = True
        self._exit(-signal.SIGTERM)
        if self.script.signal_on_terminate is not None:
            os.kill(os.getpid(), self.script.signal_on_terminate)

    def kill(self) -> None:
        self.events.append(f"kill {self.name}")
        self.killed = True
        self._exit(-signal.SIGKILL)


class _FakeContext:
    """Hands out fake processes, one script each, in order, named A, B, C..."""

    def __init__(self, *scripts: Script) -> None:
        self.scripts = list(scripts)
        self.started: list[_FakeProcess] = []
        self.events: list[str] = []
        self._conns: list[_FakeConn] = []

    def Pipe(self) -> tuple[_FakeConn, _FakeChild]:
        conn = _FakeConn()
        self._conns.append(conn)
        return conn, _FakeChild()

    def Process(self, target: Any, args: tuple[Any, ...]) -> _FakeProcess:
        assert target is _workers._serve_one
        app, options, port, child = args
        assert (app, options["host"], port > 0) == ("m:factory", "127.0.0.1", True)
        assert isinstance(child, _FakeChild)
        name = "ABCDEFGH"[len(self.started)]
        process = _FakeProcess(name, self.scripts.pop(0), self.events)
        self._conns[-1].worker = process
        self.started.append(process)
        return process

    def close(self) -> None:
        for process in self.started:
            os.close(process.sentinel)
            if process.exitcode is None:
                os.close(process._write)
        for conn in self._conns:
            conn.close()


@pytest.fixture
def context(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., _FakeContext]]:
    made: list[_FakeContext] = []

    def make(*scripts: Script) -> _FakeContext:
        fake = _FakeContext(*scripts)
        made.append(fake)
        monkeypatch.setattr(_workers, "_SPAWN", fake)
        monkeypatch.setattr(_workers, "reuse_port_supported", lambda: True)
        monkeypatch.setattr(_workers, "PING_EVERY", 0.0)  # ping on every turn of the loop
        return fake

    yield make
    for fake in made:
        fake.close()


_OPTIONS = {"host": "127.0.0.1", "port": 0, "log_level": "critical"}
# Health checks at once: a fake answers when pinged, so only one that does not answer fails.
_IMPATIENT = {**_OPTIONS, "timeout_worker_healthcheck": 0}


class TestSupervisor:
    """run_workers with fake processes: what it starts, checks, replaces and stops."""

    def test_a_worker_that_dies_is_replaced_until_the_server_is_stopped(
        self, context: Callable[..., _FakeContext]
    ) -> None:
        fake = context(SERVE, Script(on_start="die"), Script(signal_on_start=signal.SIGTERM))
        # The handlers before, whatever the process inherited (under nohup, SIGHUP is ignored).
        before = signal.getsignal(signal.SIGTERM)
        hangup = signal.getsignal(signal.SIGHUP)
        _workers.run_workers("m:factory", 2, _OPTIONS)
        serving, died, replacement = fake.started
        assert (serving.terminated, died.terminated, replacement.terminated) == (True, False, True)
        assert signal.getsignal(signal.SIGTERM) is before  # the handlers are given back
        assert signal.getsignal(signal.SIGHUP) is hangup

    def test_a_stop_while_starting_starts_no_more_workers(
        self, context: Callable[..., _FakeContext]
    ) -> None:
        fake = context(Script(signal_on_start=signal.SIGINT))
        _workers.run_workers("m:factory", 3, _OPTIONS)
        assert fake.events == ["start A", "terminate A"]

    def test_a_worker_that_cannot_start_stops_every_worker(
        self, context: Callable[..., _FakeContext]
    ) -> None:
        fake = context(SERVE, Script(on_start="fail"))
        with pytest.raises(SystemExit) as stopped:
            _workers.run_workers("m:factory", 2, _OPTIONS)
        assert stopped.value.code == STARTUP_FAILURE
        serving, failed = fake.started
        assert serving.terminated
        assert not failed.terminated

    def test_a_worker_that_stops_answering_is_killed_and_replaced(
        self, context: Callable[..., _FakeContext]
    ) -> None:
        fake = context(SERVE, Script(answers=1), Script(signal_on_start=signal.SIGTERM))
        _workers.run_workers("m:factory", 2, _IMPATIENT)
        serving, hung, replacement = fake.started
        assert hung.pings == 2  # answered the first, not the second
        assert (hung.killed, hung.terminated) == (True, False)
        assert (serving.killed, serving.terminated, replacement.terminated) == (False, True, True)

    def test_sighup_retires_each_worker_once_its_replacement_serves(
        self, context: Callable[..., _FakeContext]
    ) -> None:
        fake = context(
            Script(signal_on_start=signal.SIGHUP),
            Script(signal_on_terminate=signal.SIGTERM),  # stops the server once replaced
            SERVE,
            SERVE,
        )
        _workers.run_workers("m:factory", 2, _OPTIONS)
        assert fake.events == [
            *("start A", "start B"),
            *("start C", "terminate A"),
            *("start D", "terminate B"),
            *("terminate C", "terminate D"),
        ]
        assert fake.started[2].pings >= 1  # C answered that it serves before A was retired

    def test_sighup_asks_a_starting_replacement_again_until_it_serves(
        self, context: Callable[..., _FakeContext]
    ) -> None:
        fake = context(
            # A stop once A is replaced: B is not replaced, and is stopped with C.
            Script(signal_on_start=signal.SIGHUP, signal_on_terminate=signal.SIGTERM),
            SERVE,
            Script(starting=2),
        )
        _workers.run_workers("m:factory", 2, _OPTIONS)
        assert fake.events == [
            *("start A", "start B", "start C", "terminate A"),
            *("terminate C", "terminate B"),  # C took A's place
        ]
        assert fake.started[2].pings == 3  # starting, starting, serving

    def test_a_stop_during_sighup_stops_the_replacement_too(
        self, context: Callable[..., _FakeContext]
    ) -> None:
        fake = context(
            Script(signal_on_start=signal.SIGHUP),
            Script(starting=1, signal_on_ping=signal.SIGTERM),
        )
        _workers.run_workers("m:factory", 1, _OPTIONS)
        assert fake.events == ["start A", "start B", "terminate A", "terminate B"]

    def test_sighup_keeps_the_workers_when_a_replacement_cannot_start(
        self, context: Callable[..., _FakeContext]
    ) -> None:
        fake = context(
            Script(signal_on_start=signal.SIGHUP, signal_on_ping=signal.SIGTERM),
            Script(on_start="fail"),
        )
        _workers.run_workers("m:factory", 1, _OPTIONS)  # no exit status: A kept serving
        assert fake.events == ["start A", "start B", "kill B", "terminate A"]

    def test_sigttin_adds_a_worker_and_sigttou_retires_one_but_never_the_last(
        self, context: Callable[..., _FakeContext], capfd: pytest.CaptureFixture[str]
    ) -> None:
        fake = context(
            Script(signal_on_start=signal.SIGTTIN, signal_on_ping=signal.SIGTERM),
            Script(signal_on_start=signal.SIGTTOU, signal_on_terminate=signal.SIGTTOU),
        )
        # uvicorn configures its loggers (to standard error, not propagating) when it starts.
        _workers.run_workers("m:factory", 1, {**_OPTIONS, "log_level": "info"})
        assert fake.events == ["start A", "start B", "terminate B", "terminate A"]
        logged = capfd.readouterr().err
        assert "Received SIGTTIN: one worker more, 2 in all" in logged
        assert "Received SIGTTOU: one worker fewer, 1 in all" in logged
        assert "Received SIGTTOU: one worker left, kept" in logged

    def test_when_a_worker_is_due_a_ping_or_overdue(self) -> None:
        supervisor = _workers._Supervisor("m:factory", _OPTIONS, 8000, healthcheck=2.0)
        try:
            worker = _workers._Worker(process=None, conn=None)  # type: ignore[arg-type]
            assert supervisor._due(worker, 100.0) == 100.0  # just started: pinged at once
            worker.pinged_at = 100.0
            # Not answered yet: it may still be starting.
            assert supervisor._due(worker, 101.0) == 100.0 + _workers.START_TIMEOUT
            worker.pinged_at, worker.answered_at = None, 103.0
            assert supervisor._due(worker, 103.5) == 103.0 + _workers.PING_EVERY
            worker.pinged_at = 104.0
            assert supervisor._due(worker, 105.0) == 106.0  # answered before: the health check
        finally:
            supervisor.close()

    def test_a_worker_not_due_is_left_alone(self, monkeypatch: pytest.MonkeyPatch) -> None:
        sent: list[object] = []
        conn = types.SimpleNamespace(send=sent.append)
        supervisor = _workers._Supervisor("m:factory", _OPTIONS, 8000, healthcheck=2.0)
        try:
            worker = _workers._Worker(process=None, conn=conn)  # type: ignore[arg-type]
            supervisor.workers.append(worker)
            monkeypatch.setattr(_workers.time, "monotonic", lambda: 50.0)
            worker.answered_at = 49.5  # answered half a second ago
            supervisor._check_health()
            assert (sent, worker.pinged_at) == ([], None)
            worker.answered_at = 49.0  # a second ago: due its next ping
            supervisor._check_health()
            assert (sent, worker.pinged_at) == ([b"ping"], 50.0)
        finally:
            supervisor.close()

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


class TestHealthCheck:
    """A worker's thread answers each ping with whether its server has started."""

    def test_pings_are_answered_until_the_pipe_closes(self) -> None:
        supervisor_end, worker_end = multiprocessing.Pipe()
        server = types.SimpleNamespace(started=False)
        answering = threading.Thread(target=_workers._answer_pings, args=(worker_end, server))
        answering.start()
        supervisor_end.send(b"ping")
        assert supervisor_end.recv() is False
        server.started = True
        supervisor_end.send(b"ping")
        assert supervisor_end.recv() is True
        supervisor_end.close()
        answering.join()  # the closed pipe ends the thread
        worker_end.close()


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
