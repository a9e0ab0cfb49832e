"""The PostgreSQL adapter under faults: many writers, killed writers, cut connections."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg
import pytest
from pg_support import (
    POSTGRES_URL,
    TcpProxy,
    admin_connect,
    append_worker,
    big_batch_worker,
    decisions,
    open_pg,
    pg_marks,
    reader_worker,
    stalled_batch_worker,
    terminate_backends,
    with_query,
)

from semreport import StorageError
from semreport.storage.postgres import PostgresStorage

pytestmark = [*pg_marks, pytest.mark.slow]

SPAWN = multiprocessing.get_context("spawn")


def _ids(store: PostgresStorage, project: str = "p-1") -> list[str]:
    return [d.id for d in store.decisions(project)]


def _assert_gap_free(store: PostgresStorage, project: str = "p-1") -> int:
    sequences = [d.sequence for d in store.decisions(project)]
    assert sequences == list(range(1, len(sequences) + 1))
    assert store.latest_sequence(project) == len(sequences)
    return len(sequences)


class TestManyWriters:
    """Eight processes appending to one project at once lose and repeat nothing."""

    def test_eight_processes_append_a_thousand_each(self, pg_schema: str) -> None:
        open_pg(pg_schema).close()  # create the schema once, up front
        start, stop = SPAWN.Event(), SPAWN.Event()
        results, reads = SPAWN.Queue(), SPAWN.Queue()
        writers = [
            SPAWN.Process(
                target=append_worker, args=(POSTGRES_URL, pg_schema, w, 1000, start, results)
            )
            for w in range(8)
        ]
        reader = SPAWN.Process(
            target=reader_worker, args=(POSTGRES_URL, pg_schema, start, stop, reads)
        )
        for process in [*writers, reader]:
            process.start()
        start.set()
        returned = dict(results.get(timeout=300) for _ in writers)
        stop.set()
        checks, bad = reads.get(timeout=120)
        for process in [*writers, reader]:
            process.join(60)
            assert process.exitcode == 0

        assert sorted(returned) == list(range(8))
        every = sorted(s for sequences in returned.values() for s in sequences)
        assert every == list(range(1, 8001))
        for sequences in returned.values():
            assert sequences == sorted(sequences)  # each writer's batches in its own order
        store = open_pg(pg_schema)
        stored = list(store.decisions("shared"))
        assert [d.sequence for d in stored] == list(range(1, 8001))
        assert len({d.id for d in stored}) == 8000
        times = [d.recorded_at for d in stored]
        assert times == sorted(times)  # type: ignore[type-var]
        store.close()
        assert checks > 0
        assert bad == []


class TestKilledWriter:
    """A process killed inside a batch leaves nothing of it, and the next append works."""

    def _seeded(self, schema: str) -> tuple[PostgresStorage, list[Any]]:
        store = open_pg(schema)
        return store, store.record(decisions(10))

    def _assert_untouched(self, store: PostgresStorage, seeded: list[Any]) -> None:
        assert list(store.decisions("p-1")) == seeded
        assert store.latest_sequence("p-1") == 10
        with admin_connect() as conn:
            left = conn.execute(
                psycopg.sql.SQL("SELECT count(*) FROM {}.decisions WHERE id LIKE 'k-%%'").format(
                    psycopg.sql.Identifier(store.schema)
                )
            ).fetchone()
        assert left == (0,)
        after = store.record(decisions(1, start=10))
        assert after[0].sequence == 11
        _assert_gap_free(store)

    def test_sigkill_in_the_middle_of_a_copy(self, pg_schema: str) -> None:
        store, seeded = self._seeded(pg_schema)
        name = f"srkill{os.getpid()}{time.monotonic_ns() % 10**6}"
        url = with_query(POSTGRES_URL, application_name=name)
        child = SPAWN.Process(target=big_batch_worker, args=(url, pg_schema, 60000))
        child.start()
        copied = 0
        deadline = time.monotonic() + 120
        with admin_connect() as conn:
            while copied < 2000 and time.monotonic() < deadline and child.is_alive():
                row = conn.execute(
                    "SELECT p.tuples_processed FROM pg_stat_progress_copy p"
                    " JOIN pg_stat_activity a USING (pid) WHERE a.application_name = %s",
                    (name,),
                ).fetchone()
                copied = row[0] if row else 0
                time.sleep(0.005)
        assert child.is_alive(), "the batch finished before it could be interrupted"
        assert copied >= 2000
        os.kill(child.pid or 0, signal.SIGKILL)
        child.join(30)
        assert child.exitcode == -signal.SIGKILL
        self._assert_untouched(store, seeded)
        store.close()

    def test_sigkill_while_holding_the_project_lock(self, pg_schema: str, tmp_path: Path) -> None:
        store, seeded = self._seeded(pg_schema)
        flag = tmp_path / "inside"
        child = SPAWN.Process(
            target=stalled_batch_worker, args=(POSTGRES_URL, pg_schema, str(flag))
        )
        child.start()
        deadline = time.monotonic() + 60
        while not flag.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert flag.exists()
        os.kill(child.pid or 0, signal.SIGKILL)
        child.join(30)
        self._assert_untouched(store, seeded)
        store.close()


class TestCutConnections:
    """Backends killed or the server gone: the next call works or fails clearly."""

    def _named(self, schema: str, **options: Any) -> tuple[PostgresStorage, str]:
        name = f"srcut{os.getpid()}{time.monotonic_ns() % 10**6}"
        store = open_pg(schema, url=with_query(POSTGRES_URL, application_name=name), **options)
        return store, name

    def test_the_next_call_after_killed_backends_succeeds(self, pg_schema: str) -> None:
        store, name = self._named(pg_schema, pool_min_size=2, pool_max_size=2)
        store.record(decisions(5))
        assert terminate_backends(name) >= 1
        assert store.record(decisions(5, start=5))[-1].sequence == 10
        assert terminate_backends(name) >= 1
        assert store.latest_sequence("p-1") == 10
        assert terminate_backends(name) >= 1
        assert len(list(store.decisions("p-1"))) == 10
        _assert_gap_free(store)
        store.close()

    def test_a_pool_of_broken_connections_costs_one_reconnect(self, pg_schema: str) -> None:
        # A restarted server leaves every pooled connection broken. The pool backs off
        # before each new check (0, 1, 2, 4 s...), so finding eight broken connections
        # one by one would outlast a pool_timeout of five seconds; once one is broken,
        # the others are checked at once and the call waits for one fresh connection.
        store, name = self._named(pg_schema, pool_min_size=8, pool_max_size=8, pool_timeout=5)
        store.record(decisions(5))
        assert terminate_backends(name, wait=True) == 8
        assert store.latest_sequence("p-1") == 5
        store.pool.wait(timeout=60)  # the pool has opened its eight connections again
        assert terminate_backends(name, wait=True) == 8
        assert store.record(decisions(5, start=5))[-1].sequence == 10
        assert store.pool.get_stats()["connections_lost"] >= 16
        _assert_gap_free(store)
        store.close()

    def test_backends_killed_while_in_use(
        self, pg_schema: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # Sixteen batches on a pool of two or three connections; in half of them every
        # connection of the pool is cut, each time at a fixed point of the batch, so the
        # outcome of every batch is known in advance (no kill races the writer).
        store, name = self._named(pg_schema, pool_min_size=2, pool_max_size=3, copy_threshold=10)
        original = store._record
        cycle = ("", "idle", "", "in transaction", "", "before commit", "", "read")
        cut_at = {batch: cycle[batch % len(cycle)] for batch in range(16)}
        current = {"batch": -1, "attempts": 0}
        kills: list[int] = []

        def cut() -> None:
            kills.append(terminate_backends(name, wait=True))

        def record(conn: psycopg.Connection[Any], batch: list[Any]) -> Any:
            current["attempts"] += 1
            where = cut_at[current["batch"]] if current["attempts"] == 1 else ""
            if where == "in transaction":  # the connection dies before the batch's rows
                cut()
            result = original(conn, batch)
            if where == "before commit":  # the rows are written, the commit never arrives
                cut()
            return result

        monkeypatch.setattr(store, "_record", record)
        outcomes: list[str] = []
        for batch in range(16):
            current.update(batch=batch, attempts=0)
            if cut_at[batch] == "idle":  # every pooled connection dies between batches
                cut()
            try:
                store.record(decisions(25, start=batch * 25))
                if cut_at[batch] == "read":
                    cut()
                store.latest_sequence("p-1")
                outcomes.append("ok")
            except StorageError as exc:
                outcomes.append(str(exc))

        assert len(kills) == 8
        assert all(killed >= 1 for killed in kills)  # each cut found the pool's connections
        stored = set(_ids(store))
        for batch, outcome in enumerate(outcomes):
            ids = {f"d-{i}" for i in range(batch * 25, batch * 25 + 25)}
            if cut_at[batch] == "before commit":
                assert "PostgreSQL" in outcome
                assert "whether the batch was recorded is unknown" in outcome
                assert not ids & stored  # the server rolled the batch back
            else:  # a cut before the rows or between calls is retried on a fresh connection
                assert outcome == "ok"
                assert ids <= stored
        total = _assert_gap_free(store)
        assert total == 14 * 25
        assert store.record(decisions(1, start=10_000))[0].sequence == total + 1
        store.close()

    def test_a_failure_before_commit_is_retried(
        self, pg_schema: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        store = open_pg(pg_schema)
        original = store._record
        calls = []

        def dies_first_time(conn: psycopg.Connection[Any], batch: list[Any]) -> Any:
            calls.append(conn.info.backend_pid)
            if len(calls) == 1:
                with admin_connect() as admin:
                    admin.execute("SELECT pg_terminate_backend(%s)", (conn.info.backend_pid,))
            return original(conn, batch)

        monkeypatch.setattr(store, "_record", dies_first_time)
        stored = store.record(decisions(3))
        assert [d.sequence for d in stored] == [1, 2, 3]
        assert len(calls) == 2
        assert _ids(store) == ["d-0", "d-1", "d-2"]
        store.close()

    def test_a_lost_commit_is_reported_as_unknown(
        self, pg_schema: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        store = open_pg(pg_schema)
        original = store._record

        def dies_before_commit(conn: psycopg.Connection[Any], batch: list[Any]) -> Any:
            result = original(conn, batch)
            with admin_connect() as admin:
                admin.execute("SELECT pg_terminate_backend(%s)", (conn.info.backend_pid,))
            return result

        monkeypatch.setattr(store, "_record", dies_before_commit)
        with pytest.raises(StorageError, match="whether the batch was recorded is unknown") as err:
            store.record(decisions(3))
        # Like every other failure of this adapter, it names the backend and the server.
        assert "the connection to PostgreSQL at postgresql://" in str(err.value)
        monkeypatch.undo()
        assert _ids(store) == []  # killed before the commit reached the server
        assert [d.sequence for d in store.record(decisions(3))] == [1, 2, 3]
        store.close()

    def test_reads_retry_once_then_fail_clearly(self, pg_schema: str) -> None:
        store = open_pg(pg_schema)
        attempts = []

        def body(conn: psycopg.Connection[Any], die: int) -> int:
            attempts.append(1)
            if len(attempts) <= die:
                with admin_connect() as admin:
                    admin.execute("SELECT pg_terminate_backend(%s)", (conn.info.backend_pid,))
            row = conn.execute("SELECT 42").fetchone()
            assert row is not None
            return int(row[0])

        assert store._read("probing", lambda conn: body(conn, 1)) == 42
        attempts.clear()
        with pytest.raises(StorageError, match="probing failed on PostgreSQL"):
            store._read("probing", lambda conn: body(conn, 2))
        store.close()

    def test_a_server_that_goes_away_and_comes_back(self, pg_schema: str) -> None:
        target = urlsplit(POSTGRES_URL)
        proxy = TcpProxy(target.hostname or "127.0.0.1", target.port or 5432)
        proxy.start()
        url = POSTGRES_URL.replace(target.netloc.split("@")[-1], f"127.0.0.1:{proxy.port}", 1)
        store = open_pg(pg_schema, url=url, pool_timeout=3)
        try:
            store.record(decisions(5))
            proxy.stop()
            started = time.monotonic()
            with pytest.raises(StorageError, match="PostgreSQL"):
                store.record(decisions(5, start=5))
            with pytest.raises(StorageError, match="PostgreSQL"):
                store.latest_sequence("p-1")
            assert time.monotonic() - started < 30
            proxy.start()
            deadline = time.monotonic() + 60
            while True:
                try:
                    store.record(decisions(5, start=5))
                    break
                except StorageError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.5)
            assert _assert_gap_free(store) == 10
        finally:
            store.close()
            proxy.stop()
