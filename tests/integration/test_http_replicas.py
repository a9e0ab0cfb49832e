"""Replicas behind a load balancer: processes sharing one PostgreSQL database and one cursor key.

Three processes share one database: a writer appends decisions through the
library, two HTTP servers read. After each append, both readers follow the
log to the writer's latest sequence number; a cursor issued by one reader is
valid at the other, and still valid at a reader restarted with the same key.
A ``--workers 2`` server shares one key among its worker processes, spreads
keep-alive connections over them, replaces a worker that dies or stops
answering its health check, replaces every worker on SIGHUP, adds and
retires one on SIGTTIN and SIGTTOU, and stops when its workers cannot start.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from pg_support import POSTGRES_URL, pg_marks, with_query

import semreport
from semreport.testing.samples import sample_decisions

TOKEN = "replica-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}

WRITER = """
import json, sys
import semreport
from semreport.testing.samples import sample_decisions

url = sys.argv[1]
with semreport.open(url) as service:
    print("ready", flush=True)
    for line in sys.stdin:
        start, count = json.loads(line)
        batch = sample_decisions("p-1", start + count)[start:]
        stored = service.record(batch)
        print(json.dumps(stored[-1].sequence), flush=True)
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Reader:
    """``python -m semreport.http`` on a loopback port."""

    def __init__(self, url: str, key_file: Path | None, *extra: str) -> None:
        self.url = url
        self.key_file = key_file
        self.extra = extra
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> Reader:
        command = [
            sys.executable,
            "-m",
            "semreport.http",
            "--url",
            self.url,
            "--port",
            str(self.port),
            "--dev-token",
            TOKEN,
            "--log-level",
            "warning",
            *(["--cursor-key-file", str(self.key_file)] if self.key_file else []),
            *self.extra,
        ]
        self.process = subprocess.Popen(command)
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{self.base}/readyz", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            assert self.process.poll() is None, "the reader exited"
            assert time.monotonic() < deadline, "the reader did not start"
            time.sleep(0.1)

    def stop(self) -> None:
        if self.process is not None:
            self.process.send_signal(signal.SIGINT)
            self.process.wait(timeout=30)
            self.process = None

    def post(self, path: str, body: Any) -> httpx.Response:
        # A new connection per request, as a load balancer may hand each to another replica.
        return httpx.post(f"{self.base}{path}", json=body, headers=AUTH, timeout=30)

    def get(self, path: str) -> httpx.Response:
        return httpx.get(f"{self.base}{path}", headers=AUTH, timeout=30)


class Writer:
    """A process appending through the library, one batch per line it reads."""

    def __init__(self, url: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", WRITER, url],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        assert self.process.stdout.readline().strip() == "ready"

    def append(self, start: int, count: int) -> int:
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.process.stdin.write(json.dumps([start, count]) + "\n")
        self.process.stdin.flush()
        return int(self.process.stdout.readline())

    def close(self) -> None:
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.process.stdin.close()
        assert self.process.wait(timeout=30) == 0
        self.process.stdout.close()


def _walk(readers: list[Reader], limit: int = 3) -> list[str]:
    """Every hit of one search, page after page, each page from the next reader in turn."""
    ids: list[str] = []
    cursor = None
    turn = 0
    while True:
        body: dict[str, Any] = {"text": "fire", "limit": limit, "cursor": cursor}
        page = readers[turn % len(readers)].post("/projects/p-1/semantic/find", body)
        assert page.status_code == 200, page.text
        ids += [hit["decision_id"] for hit in page.json()["hits"]]
        cursor = page.json()["next_cursor"]
        turn += 1
        if cursor is None:
            return ids


@pytest.fixture
def key_file(tmp_path: Path) -> Path:
    path = tmp_path / "cursor.key"
    path.write_bytes(os.urandom(32).hex().encode())
    return path


@pytest.mark.slow
class TestReplicasOnPostgres:
    """Three processes, one PostgreSQL database."""

    pytestmark = pg_marks

    @pytest.fixture
    def url(self, pg_schema: str) -> str:
        url = with_query(POSTGRES_URL, schema=pg_schema)
        semreport.open(url).close()  # the servers never create a storage
        return url

    def test_readers_follow_the_writer_and_share_cursors(self, url: str, key_file: Path) -> None:
        writer = Writer(url)
        first = second = None
        try:
            latest = writer.append(0, 12)
            first, second = Reader(url, key_file).start(), Reader(url, key_file).start()
            for start, count in ((12, 6), (18, 9)):
                for reader in (first, second):
                    report = reader.get("/projects/p-1/report").json()
                    assert report["as_of_sequence"] == latest
                    signals = reader.get("/projects/p-1/semantic/signals").json()
                    assert signals["as_of_sequence"] == latest
                digests = {r.get("/projects/p-1/report").headers["etag"] for r in (first, second)}
                assert len(digests) == 1  # the same records, the same report
                alone = _walk([first])
                assert alone, "the search should find something"
                assert _walk([first, second]) == alone  # cursors cross processes
                assert len(set(alone)) == len(alone)
                latest = writer.append(start, count)
            # A reader restarted with the same key honours a cursor issued before.
            page = first.post("/projects/p-1/semantic/find", {"text": "fire", "limit": 2})
            cursor = page.json()["next_cursor"]
            assert cursor is not None
            second.stop()
            second.start()
            again = second.post(
                "/projects/p-1/semantic/find", {"text": "fire", "limit": 2, "cursor": cursor}
            )
            assert again.status_code == 200, again.text
            assert again.json()["as_of_sequence"] == latest
        finally:
            for reader in (first, second):
                if reader is not None:
                    reader.stop()
            writer.close()


_LINUX = pytest.mark.skipif(
    sys.platform != "linux", reason="workers share the port with SO_REUSEPORT on Linux (/proc)"
)


@pytest.mark.slow
class TestWorkerProcesses:
    """``--workers 2``: one key drawn at start-up, handed to both workers."""

    def test_every_page_is_served_whichever_worker_answers(self, tmp_path: Path) -> None:
        url = f"sqlite:///{tmp_path / 'workers.db'}"
        with semreport.open(url) as seed:
            seed.record(sample_decisions("p-1", 40))
        # No key given: the server draws one at start-up and hands it to both workers.
        reader = Reader(url, None, "--workers", "2")
        reader.start()
        try:
            walks = [_walk([reader], limit=2) for _ in range(5)]
            assert all(walk == walks[0] for walk in walks)
            assert reader.get("/healthz").status_code == 200
        finally:
            reader.stop()

    @_LINUX
    def test_keep_alive_connections_are_spread_over_the_workers(self, tmp_path: Path) -> None:
        url = f"sqlite:///{tmp_path / 'spread.db'}"
        semreport.open(url).close()
        reader = Reader(url, None, "--workers", "2").start()
        assert reader.process is not None
        clients = [httpx.Client(base_url=reader.base, headers=AUTH) for _ in range(32)]
        try:
            _wait_for_listeners(reader.port, 2)
            for client in clients:  # 32 connections opened, each kept alive
                assert client.get("/healthz").status_code == 200
            held = _connections_by_process(_workers_of(reader.process.pid), reader.port)
            # Each connection lands on a worker by a hash of its addresses: all 32 on one
            # worker would happen once in 2**31 runs; with one shared socket it was the rule.
            assert len(held) == 2
            assert sum(held.values()) == 32
            assert min(held.values()) >= 1
        finally:
            for client in clients:
                client.close()
            reader.stop()

    @_LINUX
    @pytest.mark.parametrize("event", ["killed", "stopped", "sighup"])
    def test_workers_are_replaced(self, tmp_path: Path, event: str) -> None:
        """A worker killed or stopped (alive, but no longer answering); every one on SIGHUP."""
        url = f"sqlite:///{tmp_path / 'replaced.db'}"
        with semreport.open(url) as seed:
            seed.record(sample_decisions("p-1", 10))
        extra = ("--workers", "2", "--timeout-worker-healthcheck", "1")
        reader = Reader(url, None, *extra).start()
        assert reader.process is not None
        try:
            _wait_for_listeners(reader.port, 2)
            first = _workers_of(reader.process.pid)
            assert len(first) == 2
            gone = {first[0]}
            if event == "killed":
                os.kill(first[0], signal.SIGKILL)
            elif event == "stopped":
                os.kill(first[0], signal.SIGSTOP)  # it answers no more health checks
            else:
                reader.process.send_signal(signal.SIGHUP)
                gone = set(first)
            _wait_for_workers(reader.process.pid, lambda now: len(now) == 2 and not gone & set(now))
            _wait_for_listeners(reader.port, 2)
            for _ in range(8):  # new connections reach both workers, each serving
                assert reader.get("/projects/p-1/semantic/signals").status_code == 200
        finally:
            reader.stop()

    @_LINUX
    def test_sigttin_adds_a_worker_and_sigttou_retires_one(self, tmp_path: Path) -> None:
        url = f"sqlite:///{tmp_path / 'scale.db'}"
        semreport.open(url).close()
        reader = Reader(url, None, "--workers", "2").start()
        assert reader.process is not None
        try:
            _wait_for_listeners(reader.port, 2)
            reader.process.send_signal(signal.SIGTTIN)
            _wait_for_workers(reader.process.pid, lambda now: len(now) == 3)
            _wait_for_listeners(reader.port, 3)
            reader.process.send_signal(signal.SIGTTOU)
            _wait_for_workers(reader.process.pid, lambda now: len(now) == 2)
            _wait_for_listeners(reader.port, 2)
            assert reader.get("/healthz").status_code == 200
        finally:
            reader.stop()

    @_LINUX
    def test_workers_that_cannot_start_stop_the_server(self, tmp_path: Path) -> None:
        # The storage does not exist and a server never creates one: every worker fails
        # to start, and the server exits with uvicorn's start-up failure status (3)
        # rather than starting workers again and again.
        missing = f"sqlite:///{tmp_path / 'missing.db'}"
        command = [
            *(sys.executable, "-m", "semreport.http", "--url", missing, "--workers", "2"),
            *("--port", str(_free_port()), "--dev-token", TOKEN, "--log-level", "warning"),
        ]
        result = subprocess.run(command, check=False, capture_output=True, text=True, timeout=120)
        assert result.returncode == 3
        assert "failed to start" in result.stderr
        assert "StorageNotFound" in result.stderr


def _workers_of(pid: int) -> list[int]:
    """The worker processes a server's supervisor started (its children serving uvicorn)."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    workers = []
    for child in map(int, children):
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")
        except FileNotFoundError:  # exited meanwhile
            continue
        if b"multiprocessing.spawn" in b" ".join(command) and b"resource_tracker" not in b"".join(
            command
        ):
            workers.append(child)
    return sorted(workers)


def _wait_for_workers(pid: int, done: Callable[[list[int]], bool]) -> None:
    """Until the server's worker processes are as ``done`` wants them."""
    deadline = time.monotonic() + 60
    while not done(now := _workers_of(pid)):
        assert time.monotonic() < deadline, f"the workers stayed {now}"
        time.sleep(0.1)


def _sockets(port: int, state: str) -> set[str]:
    """Inodes of the TCP sockets on local ``port`` in ``state`` (01 established, 0A listening)."""
    found: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == state:
                found.add(fields[9])
    return found


def _wait_for_listeners(port: int, count: int) -> None:
    """Until ``count`` sockets listen on ``port`` (each worker listens once it has started)."""
    deadline = time.monotonic() + 60
    while len(_sockets(port, "0A")) != count:
        assert time.monotonic() < deadline, f"not {count} sockets listening on {port}"
        time.sleep(0.1)


def _connections_by_process(pids: list[int], port: int) -> dict[int, int]:
    """How many established TCP connections to ``port`` each of ``pids`` holds open."""
    established = _sockets(port, "01")
    held: dict[int, int] = {}
    for pid in pids:
        count = 0
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                target = os.readlink(fd)
            except FileNotFoundError:
                continue
            if target.startswith("socket:[") and target[8:-1] in established:
                count += 1
        if count:
            held[pid] = count
    return held
