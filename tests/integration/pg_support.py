"""Shared helpers for the PostgreSQL tests: the server URL, throwaway schemas, decisions.

Tests reach PostgreSQL through ``SEMREPORT_TEST_POSTGRES_URL``. Unset, every
PostgreSQL test skips saying so; set, a server that does not answer makes them
fail (the session fixture connects and lets the error through). Each run works
in schemas named ``srt_<random>_<n>`` and drops them afterwards.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import socketserver
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest
from psycopg import sql

from semreport import Decision, Evidence, Link
from semreport.storage.postgres import PostgresStorage, open_postgres

URL_VARIABLE = "SEMREPORT_TEST_POSTGRES_URL"
POSTGRES_URL = os.environ.get(URL_VARIABLE, "")

requires_postgres = pytest.mark.skipif(
    not POSTGRES_URL, reason=f"{URL_VARIABLE} is not set (no PostgreSQL server to test against)"
)
pg_marks = [pytest.mark.postgres, requires_postgres]


def admin_connect() -> psycopg.Connection[Any]:
    """A plain autocommit connection to the test server (fails if it does not answer)."""
    return psycopg.connect(POSTGRES_URL, autocommit=True, connect_timeout=10)


def drop_schema(schema: str) -> None:
    with admin_connect() as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))


class SchemaFactory:
    """Hands out fresh schema names for one test run and drops them all at the end."""

    def __init__(self) -> None:
        self.prefix = f"srt_{secrets.token_hex(4)}"
        self._count = 0

    def new(self) -> str:
        self._count += 1
        return f"{self.prefix}_{self._count}"

    def drop_all(self) -> None:
        with admin_connect() as conn:
            rows = conn.execute(
                "SELECT nspname FROM pg_namespace WHERE nspname LIKE %s",
                (self.prefix + "\\_%",),
            ).fetchall()
            for (name,) in rows:
                conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(name)))


@pytest.fixture(scope="session")
def pg_schemas() -> Iterator[SchemaFactory]:
    """The run's schema factory; connecting here makes a silent server a failure."""
    with admin_connect() as conn:
        conn.execute("SELECT 1")
    factory = SchemaFactory()
    yield factory
    factory.drop_all()


@pytest.fixture
def pg_schema(pg_schemas: SchemaFactory) -> Iterator[str]:
    """A fresh schema name for one test, dropped afterwards."""
    name = pg_schemas.new()
    yield name
    drop_schema(name)


def alter_stored(schema: str, table: str, where: str, params: tuple[Any, ...], change: Any) -> None:
    """Rewrite one row's stored record behind the adapter, as a person with access could.

    The append-only trigger is switched off for this one transaction (the table's
    owner may), and ``change`` receives the stored JSON text.
    """
    trigger = f"{table}_append_only"
    with admin_connect() as conn, conn.transaction():
        target = sql.Identifier(schema, table)
        conn.execute(
            sql.SQL("ALTER TABLE {} DISABLE TRIGGER {}").format(target, sql.Identifier(trigger))
        )
        query = sql.SQL("SELECT record::text FROM {} WHERE " + where).format(target)
        row = conn.execute(query, params).fetchone()
        assert row is not None
        update = sql.SQL("UPDATE {} SET record = %s::json WHERE " + where).format(target)
        conn.execute(update, (change(row[0]), *params))
        conn.execute(
            sql.SQL("ALTER TABLE {} ENABLE TRIGGER {}").format(target, sql.Identifier(trigger))
        )


def open_pg(schema: str, url: str | None = None, **options: Any) -> PostgresStorage:
    """Open the adapter on the test server in ``schema``."""
    return open_postgres(url or POSTGRES_URL, schema=schema, **options)


def with_query(url: str, **params: str) -> str:
    """Append query parameters to a URL."""
    from urllib.parse import quote, urlencode

    joiner = "&" if "?" in url else "?"
    return url + joiner + urlencode(params, quote_via=quote)


def decision(index: int, project: str = "p-1", prefix: str = "d", **changes: Any) -> Decision:
    """A small, valid decision numbered ``index``."""
    fields: dict[str, Any] = {
        "id": f"{prefix}-{index}",
        "project_id": project,
        "title": f"Decision {index}",
        "statement": f"Use option {index} for the stair core doors",
        "agent": "agent-1",
        "rationale": "Approved Document B asks for 60 minutes",
        "domain": "regulation",
        "status": "accepted",
        "tags": {"fire", f"t{index % 7}"},
        "attributes": {"cost_eur": 100.5 + index, "fire_resistance_min": 60, "ok": True},
        "evidence": [Evidence("regulation", "ADB B3", "Approved Document B", "p.12", "shall")],
        "links": [Link("relates_to", f"{prefix}-{index + 1}")],
        "elements": {"e-1", f"e-{index % 5}"},
    }
    fields.update(changes)
    return Decision(**fields)


def decisions(
    count: int, project: str = "p-1", prefix: str = "d", start: int = 0
) -> list[Decision]:
    return [decision(i, project, prefix) for i in range(start, start + count)]


class StepClock:
    """A clock that can be told to go backwards, to test that recorded_at never does."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def step(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def backend_pids(application_name: str) -> list[int]:
    with admin_connect() as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE application_name = %s", (application_name,)
        ).fetchall()
    return [row[0] for row in rows]


def terminate_backends(application_name: str, *, wait: bool = False) -> int:
    """Kill every server backend of connections named ``application_name``.

    With ``wait``, return only once each backend has exited (up to a minute
    each), so that the next statement on a killed connection fails for sure.
    """
    with admin_connect() as conn:
        rows = conn.execute(
            "SELECT pg_terminate_backend(pid, %s) FROM pg_stat_activity"
            " WHERE application_name = %s AND pid <> pg_backend_pid()",
            (60_000 if wait else 0, application_name),
        ).fetchall()
    return sum(1 for (killed,) in rows if killed)


class TcpProxy:
    """A TCP proxy in front of the server that can go down and come back, like a restart.

    ``stop()`` closes every proxied connection and refuses new ones;
    ``start()`` accepts again on the same port.
    """

    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()
        self._server: socketserver.ThreadingTCPServer | None = None
        self._sockets: set[socket.socket] = set()
        self._lock = threading.Lock()

    def start(self) -> None:
        proxy = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                upstream = socket.create_connection(proxy.target)
                with proxy._lock:
                    proxy._sockets.update({self.request, upstream})
                pump = threading.Thread(target=_pump, args=(upstream, self.request), daemon=True)
                pump.start()
                _pump(self.request, upstream)
                pump.join()

        socketserver.ThreadingTCPServer.allow_reuse_address = True
        server = socketserver.ThreadingTCPServer(("127.0.0.1", self.port), Handler)
        server.daemon_threads = True
        self._server = server
        threading.Thread(target=server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        with self._lock:
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            self._sockets.clear()


def _pump(source: socket.socket, sink: socket.socket) -> None:
    try:
        while chunk := source.recv(65536):
            sink.sendall(chunk)
    except OSError:
        pass
    finally:
        for sock in (source, sink):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


# -- workers for the multi-process fault tests (top level, so that spawn can import them) --

BATCH_SIZES = (1, 3, 10, 64, 100, 7, 200, 15, 1, 99)


def append_worker(url: str, schema: str, worker: int, count: int, start: Any, results: Any) -> None:
    """Append ``count`` decisions to project ``shared`` in batches of mixed sizes."""
    store = open_postgres(url, schema=schema, pool_min_size=1, pool_max_size=1)
    try:
        start.wait(120)
        sequences: list[int] = []
        index = 0
        batch = 0
        while index < count:
            size = min(BATCH_SIZES[batch % len(BATCH_SIZES)], count - index)
            stored = store.record(
                [decision(i, "shared", prefix=f"w{worker}") for i in range(index, index + size)]
            )
            sequences.extend(d.sequence or 0 for d in stored)
            index += size
            batch += 1
        results.put((worker, sequences))
    finally:
        store.close()


def reader_worker(url: str, schema: str, start: Any, stop: Any, results: Any) -> None:
    """Read as of the latest sequence again and again; report any read that is not 1..N."""
    store = open_postgres(url, schema=schema, pool_min_size=1, pool_max_size=1, page_size=500)
    try:
        start.wait(120)
        checks, bad = 0, []
        while not stop.is_set():
            latest = store.latest_sequence("shared")
            seen = [d.sequence for d in store.decisions("shared", as_of=latest)]
            if seen != list(range(1, latest + 1)):
                bad.append(f"as of {latest}: {len(seen)} records")
            checks += 1
        results.put((checks, bad))
    finally:
        store.close()


def big_batch_worker(url: str, schema: str, count: int) -> None:
    """Append one large batch (COPY); the test kills this process in the middle of it."""
    store = open_postgres(url, schema=schema, pool_min_size=1)
    store.record(decisions(count, prefix="k"))


class _SignallingClock:
    def __init__(self, path: str) -> None:
        self.path = path

    def __call__(self) -> datetime:
        import pathlib
        import time

        pathlib.Path(self.path).write_text("in the transaction")
        time.sleep(600)
        return datetime.now(UTC)  # pragma: no cover - killed before


def stalled_batch_worker(url: str, schema: str, flag: str) -> None:
    """Lock the project and stall inside the batch transaction until killed."""
    store = open_postgres(url, schema=schema, pool_min_size=1, clock=_SignallingClock(flag))
    store.record(decisions(50, prefix="k"))
