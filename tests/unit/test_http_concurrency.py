"""The concurrency model: lanes, bounded queues, 503, cancellation, time limits, streaming.

Every test is driven by events: a facade method blocks until the test
releases it, and the test waits for the method to be entered, so that what
runs, waits or is refused is known exactly, never guessed from timing.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Iterator
from typing import Any

import attrs
import pytest
from http_support import Answer, Client, Digest, Report

from semreport import ModelStatus, Principal, Role
from semreport.contract import Lane
from semreport.http import ExecutorLimits, StaticTokenAuthenticator, create_app
from semreport.http._lanes import Busy, ClientGone, Executor

USER = Principal("alice", roles={Role.USER, Role.OPERATOR}, projects={"p-1"})
AUTH = [("Authorization", "Bearer t")]
JSON = [*AUTH, ("Content-Type", "application/json")]


class Gate:
    """A facade method's gate: the test sees it entered and decides when it finishes."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()

    def pass_through(self) -> None:
        self.entered.set()
        assert self.release.wait(30), "the test never released the gate"

    async def wait_entered(self) -> None:
        await asyncio.get_running_loop().run_in_executor(None, self.entered.wait, 30)
        assert self.entered.is_set()


class Recorder:
    """Records the attributes read from a result (what the rendering touched)."""

    def __init__(self, seen: list[str]) -> None:
        self._seen = seen

    @property
    def content(self) -> bytes:
        self._seen.append("content")
        return b"%PDF"

    @property
    def media_type(self) -> str:
        return "application/pdf"

    @property
    def filename(self) -> str:
        return "s.pdf"


class Facade:
    """A facade whose methods block at gates the test controls."""

    def __init__(self) -> None:
        self.gates: dict[str, Gate] = {}
        self.calls: list[str] = []
        self.rendered: list[str] = []
        self.version = "a" * 64

    def gate(self, name: str) -> Gate:
        self.gates[name] = Gate()
        return self.gates[name]

    def _enter(self, name: str) -> None:
        self.calls.append(name)
        gate = self.gates.get(name)
        if gate is not None:
            gate.pass_through()

    def find(self, project_id: str, criteria: Any, *, caller: Principal | None = None) -> Any:
        self._enter("find")
        return {"hits": [], "next_cursor": None}

    def gnn_status(self, *, caller: Principal | None = None) -> ModelStatus:
        self._enter("gnn_status")
        return ModelStatus(loaded=False, reason="none")

    def report(
        self, project_id: str, *, as_of: int | None = None, caller: Principal | None = None
    ) -> Report:
        self._enter("report")
        return Report(project_id, Digest("semreport-digest/1", self.version))

    def export_session(
        self, session_id: str, fmt: str, *, caller: Principal | None = None
    ) -> Recorder:
        self._enter("export_session")
        return Recorder(self.rendered)


def _app(facade: Any, **options: Any) -> Any:
    options.setdefault("light", ExecutorLimits(threads=1, queue=1))
    options.setdefault("heavy", ExecutorLimits(threads=1, queue=1))
    return create_app(facade, StaticTokenAuthenticator({"t": USER}), **options)


async def _queued(app: Any, lane: Lane, count: int) -> None:
    """Wait (yielding to the loop, no clock) until ``count`` requests wait in ``lane``."""
    executor = app.state.semreport_executors[lane]
    while executor.queued < count:
        await asyncio.sleep(0)


def _report() -> Client:
    return Client("GET", "/projects/p-1/report", headers=AUTH)


async def _report_running() -> tuple[Facade, Gate, Any, asyncio.Future[Answer]]:
    """An app whose heavy lane's one thread runs a report held at its gate."""
    facade = Facade()
    gate = facade.gate("report")
    app = _app(facade)
    running = asyncio.ensure_future(_report()(app))
    await gate.wait_entered()
    return facade, gate, app, running


def _find() -> Client:
    return Client("POST", "/projects/p-1/semantic/find", headers=JSON, body=b"{}")


class TestLanes:
    """Cheap calls never wait behind heavy ones; each lane's queue is bounded."""

    def test_find_and_status_answer_while_reports_fill_their_lane(self) -> None:
        async def scenario() -> None:
            _, gate, app, running = await _report_running()
            queued = asyncio.ensure_future(_report()(app))
            await _queued(app, Lane.HEAVY, 1)
            # The heavy lane holds one running and one queued report: the cheap lane is free.
            assert (await _find()(app)).status == 200
            status = await Client("GET", "/gnn/status", headers=AUTH)(app)
            assert status.status == 200
            gate.release.set()
            assert (await running).status == 200
            assert (await queued).status == 200

        asyncio.run(scenario())

    def test_a_full_lane_answers_503_with_retry_after_at_once(self) -> None:
        async def scenario() -> None:
            facade, gate, app, running = await _report_running()
            queued = asyncio.ensure_future(_report()(app))
            await _queued(app, Lane.HEAVY, 1)
            refused = await _report()(app)
            assert refused.status == 503
            problem = json.loads(refused.body)
            assert problem["code"] == "SERVICE_BUSY"
            assert int(refused.headers["retry-after"]) >= 1
            assert facade.calls == ["report"]  # the refused request reached no facade
            gate.release.set()
            assert [(await running).status, (await queued).status] == [200, 200]
            assert facade.calls == ["report", "report"]

        asyncio.run(scenario())

    def test_gnn_infer_answers_404_while_every_lane_is_full(self) -> None:
        async def scenario() -> None:
            facade = Facade()
            heavy, light = facade.gate("report"), facade.gate("find")
            app = _app(facade, light=ExecutorLimits(1, 0), heavy=ExecutorLimits(1, 0))
            busy = [asyncio.ensure_future(_report()(app)), asyncio.ensure_future(_find()(app))]
            await heavy.wait_entered()
            await light.wait_entered()
            refused = await Client("POST", "/gnn/infer", body=b"{")(app)
            assert refused.status == 404
            assert json.loads(refused.body)["code"] == "GNN_MODEL_NOT_LOADED"
            heavy.release.set()
            light.release.set()
            assert [(await b).status for b in busy] == [200, 200]

        asyncio.run(scenario())


class TestCancellation:
    """Work for a client that has gone is not done."""

    def test_a_queued_request_whose_client_left_never_starts(self) -> None:
        async def scenario() -> None:
            facade, gate, app, running = await _report_running()
            leaving = _report()
            waiting = asyncio.ensure_future(leaving(app))
            await _queued(app, Lane.HEAVY, 1)
            leaving.leave.set()
            answer = await waiting  # answered (never delivered) as soon as the client left
            assert answer.status == 499
            gate.release.set()
            assert (await running).status == 200
            # A third request proves the lane is free again and the dropped one never ran.
            facade.gates.clear()
            assert (await _report()(app)).status == 200
            assert facade.calls == ["report", "report"]

        asyncio.run(scenario())

    def test_heavy_work_stops_at_the_next_stage_once_the_client_left(self) -> None:
        async def scenario() -> None:
            facade = Facade()
            gate = facade.gate("export_session")
            app = _app(facade)
            leaving = Client("POST", "/sessions/s-1/export/pdf", headers=AUTH)
            task = asyncio.ensure_future(leaving(app))
            await gate.wait_entered()
            leaving.leave.set()
            assert (await task).status == 499
            gate.release.set()
            # The next request waits for the abandoned one to leave the lane's only thread.
            facade.gates.clear()
            done = await Client("POST", "/sessions/s-1/export/pdf", headers=AUTH)(app)
            assert done.status == 200
            # The abandoned export stopped before rendering: only the second one was read.
            assert facade.rendered == ["content"]

        asyncio.run(scenario())

    def test_a_client_leaving_mid_upload_is_an_info_line(
        self, caplog: pytest.LogCaptureFixture
    ) -> None:
        async def scenario() -> int:
            app = _app(Facade())
            client = Client(
                "POST",
                "/projects/p-1/semantic/find",
                headers=[*JSON, ("Content-Length", "100")],
                body=[b'{"te'],
                complete=False,  # more is announced...
            )
            client.leave.set()  # ...but the client leaves
            return (await client(app)).status

        with caplog.at_level(logging.INFO, logger="semreport.http"):
            assert asyncio.run(scenario()) == 499
        gone = [r for r in caplog.records if "client went away" in r.getMessage()]
        assert [r.levelno for r in gone] == [logging.INFO]
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


class TestTimeLimits:
    """A request over its use case's time limit is answered 503 and its work abandoned."""

    def test_over_the_limit_is_503_with_retry_after(self) -> None:
        async def scenario() -> None:
            facade = Facade()
            gate = facade.gate("export_session")
            app = _app(facade, time_limits={"export_session": 0.01})
            answer = await Client("POST", "/sessions/s-1/export/pdf", headers=AUTH)(app)
            assert answer.status == 503
            assert json.loads(answer.body)["code"] == "REQUEST_TIMED_OUT"
            assert "retry-after" in answer.headers
            gate.release.set()
            facade.gates.clear()
            app_done = await Client("POST", "/sessions/s-1/export/pdf", headers=AUTH)(_app(facade))
            assert app_done.status == 200

        asyncio.run(scenario())


class TestExecutor:
    """The executor's own bookkeeping."""

    def test_admission_counts_and_release(self) -> None:
        changes: list[tuple[int, int]] = []
        executor = Executor("x", ExecutorLimits(1, 1), lambda r, q: changes.append((r, q)))
        gate = Gate()
        never = threading.Event()
        first = executor.submit(gate.pass_through, never)
        gate.entered.wait(30)
        cancelled = threading.Event()
        second = executor.submit(lambda: "ran", cancelled)
        with pytest.raises(Busy) as refused:
            executor.submit(lambda: None, never)
        assert refused.value.retry_after >= 1
        assert (executor.running, executor.queued) == (1, 1)
        cancelled.set()
        gate.release.set()
        first.result(30)
        with pytest.raises(ClientGone):
            second.result(30)
        assert (executor.running, executor.queued) == (0, 0)
        assert changes[-1] == (0, 0)
        assert "threads=1" in repr(executor)
        executor.shutdown()
        with pytest.raises(RuntimeError):
            executor.submit(lambda: None, never)
        assert (executor.running, executor.queued) == (0, 0)


class Streaming(Facade):
    """A facade with a streamed export (what ``SemReport.stream_report`` offers)."""

    def __init__(self, chunks: list[bytes]) -> None:
        super().__init__()
        self.chunks = chunks
        self.produced: list[int] = []

    def export_report(
        self, project_id: str, *, as_of: int | None = None, caller: Principal | None = None
    ) -> Any:
        self._enter("export_report")

        @attrs.frozen
        class Whole:
            html: str
            digest: Digest

        return Whole(b"".join(self.chunks).decode(), Digest("semreport-digest/1", self.version))

    def stream_report(
        self, project_id: str, *, as_of: int | None = None, caller: Principal | None = None
    ) -> Any:
        self._enter("stream_report")
        facade = self

        class Stream:
            digest = Digest("semreport-digest/1", facade.version)
            media_type = "text/html; charset=utf-8"
            filename = "p-1-report.html"

            def __iter__(self) -> Iterator[bytes]:
                for number, chunk in enumerate(facade.chunks):
                    facade.produced.append(number)
                    yield chunk

        return Stream()


class TestStreaming:
    """A row with a stream method sends the body as it is produced."""

    def test_the_export_streams_with_its_digest_and_etag(self) -> None:
        facade = Streaming([b"<!doctype html>", b"<p>one</p>", b"<p>two</p>"])
        answer = asyncio.run(
            Client("POST", "/projects/p-1/report/export", headers=AUTH)(_app(facade))
        )
        assert answer.status == 200
        assert answer.body == b"<!doctype html><p>one</p><p>two</p>"
        assert answer.headers["content-type"] == "text/html; charset=utf-8"
        assert answer.headers["semreport-digest-report-sha256"] == facade.version
        assert answer.headers["etag"] == f'W/"{facade.version}"'
        assert "inline" in answer.headers["content-disposition"]
        assert facade.calls == ["stream_report"]
        assert len([c for c in answer.chunks if c]) == 3

    def test_the_json_envelope_is_not_streamed(self) -> None:
        facade = Streaming([b"<p>x</p>"])
        headers = [*AUTH, ("Accept", "application/json")]
        answer = asyncio.run(
            Client("POST", "/projects/p-1/report/export", headers=headers)(_app(facade))
        )
        assert json.loads(answer.body)["html"] == "<p>x</p>"
        assert answer.headers["etag"] == f'W/"{facade.version}-json"'
        assert facade.calls == ["export_report"]

    def test_a_client_leaving_mid_stream_stops_the_production(self) -> None:
        chunks = [b"x" * 10] * 100

        async def scenario() -> Streaming:
            facade = Streaming(chunks)
            client = Client("POST", "/projects/p-1/report/export", headers=AUTH)
            task = asyncio.ensure_future(client(_app(facade)))
            await client.started.wait()
            client.leave.set()
            await task
            return facade

        facade = asyncio.run(scenario())
        assert len(facade.produced) < len(chunks)


class Failing(Streaming):
    """A stream that fails after its first chunk."""

    def stream_report(
        self, project_id: str, *, as_of: int | None = None, caller: Principal | None = None
    ) -> Any:
        class Stream:
            digest = Digest("semreport-digest/1", "c" * 64)
            media_type = "text/html; charset=utf-8"
            filename = None

            def __iter__(self) -> Iterator[bytes]:
                yield b"<p>first</p>"
                raise RuntimeError("the disk went away")

        return Stream()


class TestStreamFailures:
    """A stream that fails after its response started is cut short, never ended as complete."""

    def test_the_connection_is_cut_and_the_failure_logged(
        self, caplog: pytest.LogCaptureFixture
    ) -> None:
        client = Client("POST", "/projects/p-1/report/export", headers=AUTH)
        with (
            caplog.at_level(logging.INFO, logger="semreport.http"),
            pytest.raises(Exception, match="cut short"),
        ):
            asyncio.run(client(_app(Failing([]))))
        assert client.answer.status == 200
        assert client.answer.body == b"<p>first</p>"
        failures = [r for r in caplog.records if "failed while streaming" in r.getMessage()]
        assert [r.levelno for r in failures] == [logging.ERROR]
