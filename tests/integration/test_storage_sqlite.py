"""The SQLite adapter: the conformance suite on real files, and what only SQLite has."""

from __future__ import annotations

import hashlib
import multiprocessing
import sqlite3
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import attrs
import pytest
from row_form_support import check_row_holds_the_canonical_bytes

import semreport
from semreport.canonical import record_sha256
from semreport.domain import (
    ConfigurationError,
    CorruptStorage,
    Decision,
    DecisionAlreadyRecorded,
    IncompatibleSchema,
    InvalidRequest,
    Storage,
    StorageError,
)
from semreport.storage import open_storage
from semreport.storage._common import encode_decision
from semreport.storage.sqlite import (
    APPLICATION_ID,
    DEFAULT_BUSY_TIMEOUT,
    MIGRATIONS,
    SCHEMA_VERSION,
    SQLiteStorage,
    apply_migrations,
    open_sqlite,
)
from semreport.testing import PersistentStorageConformance, StorageConformance
from semreport.testing.conformance import poked


def _decision(decision_id: str, project_id: str = "p-1") -> Decision:
    return Decision(
        id=decision_id, project_id=project_id, title="T", statement="S", agent="agent-1"
    )


def _url(path: Path) -> str:
    return f"sqlite:///{path}"  # path is absolute: sqlite:////tmp/...


def _digest(path: Path) -> dict[str, str]:
    """Hash the database and any -wal/-shm companions (absent ones are noted)."""
    out = {}
    for suffix in ("", "-wal", "-shm", "-journal"):
        candidate = Path(f"{path}{suffix}")
        out[suffix] = (
            hashlib.sha256(candidate.read_bytes()).hexdigest() if candidate.exists() else "absent"
        )
    return out


def _alter_row(
    conn: sqlite3.Connection, table: str, key: str, params: tuple[Any, ...], change: Any
) -> None:
    """Rewrite one row's stored text through a connection of its own, as a person could."""
    (body,) = conn.execute(f"SELECT body FROM {table} WHERE {key}", params).fetchone()
    conn.execute(f"UPDATE {table} SET body = ? WHERE {key}", (change(body), *params))


class _SQLiteTampering:
    """The tamper hooks: the file is edited with SQL, outside the adapter's connection."""

    @staticmethod
    def _connection(storage: Storage) -> sqlite3.Connection:
        assert isinstance(storage, SQLiteStorage)
        if storage.path == ":memory:":
            # A private in-memory database has no other way in than its own connection.
            return storage._conn
        return sqlite3.connect(storage.path, isolation_level=None)

    def alter_stored_decision(
        self, storage: Storage, project_id: str, sequence: int, change: Callable[[str], str]
    ) -> None:
        conn = self._connection(storage)
        _alter_row(
            conn, "decisions", "project_id = ? AND sequence = ?", (project_id, sequence), change
        )
        if conn is not getattr(storage, "_conn", None):
            conn.close()

    def alter_stored_session(
        self, storage: Storage, session_id: str, change: Callable[[str], str]
    ) -> None:
        conn = self._connection(storage)
        _alter_row(conn, "sessions", "id = ?", (session_id,), change)
        if conn is not getattr(storage, "_conn", None):
            conn.close()


class TestSQLiteConformance(_SQLiteTampering, PersistentStorageConformance):
    """``sqlite://`` keeps every storage rule, on a file per storage name."""

    def open_storage(self, name: str, clock: Any) -> SQLiteStorage:
        return open_sqlite(_url(self.tmp_path / f"{name}.db"), clock=clock)


class TestSQLiteInMemoryConformance(_SQLiteTampering, StorageConformance):
    """``sqlite:///:memory:`` keeps the non-persistent rules."""

    def open_storage(self, name: str, clock: Any) -> SQLiteStorage:
        return open_sqlite("sqlite:///:memory:", clock=clock)


class TestTheRowForm:
    """A row holds the record's canonical bytes; a read checks them with one hash."""

    def test_a_whole_number_float_is_kept_and_read_without_canonicalising(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        path = tmp_path / "rows.db"
        store = open_sqlite(_url(path))
        try:
            given = attrs.evolve(_decision("d-1"), attributes={"cost_eur": 60.0, "share": 0.5})
            (kept,) = store.record([given])
            with sqlite3.connect(path) as conn:
                (body,) = conn.execute("SELECT body FROM decisions").fetchone()
            check_row_holds_the_canonical_bytes(store, kept, body, monkeypatch)
        finally:
            store.close()


class TestURLs:
    """``sqlite:///relative.db``, ``sqlite:////absolute.db`` and bad URLs."""

    def test_relative_path(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.chdir(tmp_path)
        store = open_storage("sqlite:///rel.db")
        store.close()
        assert (tmp_path / "rel.db").exists()

    def test_absolute_path(self, tmp_path: Path) -> None:
        target = tmp_path / "abs.db"
        store = open_storage(f"sqlite:///{target}")
        assert isinstance(store, SQLiteStorage)
        assert store.path == str(target)
        store.close()
        assert target.exists()

    def test_percent_escapes_are_decoded(self, tmp_path: Path) -> None:
        store = open_storage(f"sqlite:///{tmp_path}/with%20space.db")
        store.close()
        assert (tmp_path / "with space.db").exists()

    @pytest.mark.parametrize("url", ["sqlite://", "sqlite:///", "sqlite://host/x.db"])
    def test_malformed_urls_are_configuration_errors(self, url: str) -> None:
        with pytest.raises(ConfigurationError):
            open_sqlite(url)

    def test_a_missing_directory_is_a_configuration_error(self, tmp_path: Path) -> None:
        with pytest.raises(ConfigurationError, match="directory"):
            open_sqlite(_url(tmp_path / "nope" / "x.db"))

    def test_a_directory_is_not_a_database(self, tmp_path: Path) -> None:
        with pytest.raises(ConfigurationError, match="directory"):
            open_sqlite(_url(tmp_path))

    def test_unknown_options_are_refused(self, tmp_path: Path) -> None:
        with pytest.raises(ConfigurationError, match="colour"):
            open_sqlite(_url(tmp_path / "x.db"), colour="red")

    def test_not_a_sqlite_url(self) -> None:
        with pytest.raises(ConfigurationError):
            open_sqlite("memory://")

    @pytest.mark.parametrize("timeout", [-1, "5", True, float("nan")])
    def test_bad_busy_timeouts_are_refused(self, tmp_path: Path, timeout: object) -> None:
        with pytest.raises(InvalidRequest):
            open_sqlite(_url(tmp_path / "x.db"), busy_timeout=timeout)


class TestPragmas:
    """WAL, busy timeout, application id and schema version are set on open."""

    def test_wal_is_on(self, tmp_path: Path) -> None:
        open_sqlite(_url(tmp_path / "x.db")).close()
        with sqlite3.connect(tmp_path / "x.db") as conn:
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"

    def test_busy_timeout_defaults_to_thirty_seconds(self, tmp_path: Path) -> None:
        store = open_sqlite(_url(tmp_path / "x.db"))
        assert DEFAULT_BUSY_TIMEOUT == 30.0
        assert store._conn.execute("PRAGMA busy_timeout").fetchone()[0] == 30_000
        store.close()

    def test_busy_timeout_is_configurable(self, tmp_path: Path) -> None:
        store = open_sqlite(_url(tmp_path / "x.db"), busy_timeout=2.5)
        assert store._conn.execute("PRAGMA busy_timeout").fetchone()[0] == 2_500
        store.close()

    def test_application_id_and_schema_version_are_recorded(self, tmp_path: Path) -> None:
        store = open_sqlite(_url(tmp_path / "x.db"))
        assert store.schema_version == SCHEMA_VERSION
        store.close()
        with sqlite3.connect(tmp_path / "x.db") as conn:
            assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
            assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION

    def test_migrations_are_ordered_and_end_at_the_schema_version(self) -> None:
        versions = [m.version for m in MIGRATIONS]
        assert versions == list(range(1, len(MIGRATIONS) + 1))
        assert versions[-1] == SCHEMA_VERSION

    def test_a_busy_writer_times_out_as_a_storage_error(self, tmp_path: Path) -> None:
        open_sqlite(_url(tmp_path / "x.db")).close()
        blocker = sqlite3.connect(tmp_path / "x.db", isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")
        try:
            store = open_sqlite(_url(tmp_path / "x.db"), busy_timeout=0.2)
            with pytest.raises(StorageError, match="locked"):
                store.record([_decision("a")])
            blocker.execute("ROLLBACK")
            assert store.record([_decision("a")])[0].sequence == 1
            store.close()
        finally:
            blocker.close()

    def test_a_closed_storage_refuses_reads(self, tmp_path: Path) -> None:
        store = open_sqlite(_url(tmp_path / "x.db"))
        store.close()
        store.close()  # idempotent
        with pytest.raises(StorageError, match="closed"):
            store.latest_sequence("p-1")


class TestQueryPlans:
    """Reads by id are index lookups, however many rows the project holds."""

    def test_get_records_looks_each_id_up_in_the_id_index(self, tmp_path: Path) -> None:
        store = open_sqlite(_url(tmp_path / "x.db"))
        store.record([_decision(f"d{n}") for n in range(50)])
        statements: list[str] = []
        store._conn.set_trace_callback(statements.append)
        try:
            got = store.get_records("p-1", ["d7", "d3", "d41"])
        finally:
            store._conn.set_trace_callback(None)
        assert [r.decision_id for r in got] == ["d7", "d3", "d41"]
        (read,) = [s for s in statements if "decisions" in s]  # one query, values inlined
        plan = [row[3] for row in store._conn.execute(f"EXPLAIN QUERY PLAN {read}")]
        assert any("INDEX sqlite_autoindex_decisions_2 (project_id=? AND id=?)" in p for p in plan)
        assert not any(p.startswith(("SCAN d", "SEARCH d USING PRIMARY KEY")) for p in plan)
        store.close()


class TestMigration:
    """An older schema is migrated on open, in one transaction, keeping its records."""

    def test_version_one_is_migrated_to_the_latest(self, tmp_path: Path) -> None:
        path = tmp_path / "old.db"
        kept = _decision("a").recorded(1, datetime(2025, 5, 1, tzinfo=UTC))
        with sqlite3.connect(path, isolation_level=None) as conn:
            conn.execute("BEGIN")
            apply_migrations(conn, 0, 1)
            conn.execute(
                "INSERT INTO decisions (project_id, sequence, id, recorded_at, body) "
                "VALUES (?, ?, ?, ?, ?)",
                ("p-1", 1, "a", "2025-05-01T00:00:00.000000Z", encode_decision(kept)),
            )
            conn.execute("COMMIT")
            assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
        conn.close()
        store = open_sqlite(_url(path))
        assert store.schema_version == SCHEMA_VERSION
        assert store.get("p-1", "a") == kept
        assert store.record([_decision("b")])[0].sequence == 2
        store.record_sessions([])  # the sessions table exists now
        assert list(store.sessions("p-1")) == []
        store.close()
        with sqlite3.connect(path) as conn:
            (sha256,) = conn.execute("SELECT sha256 FROM decisions WHERE id = 'a'").fetchone()
        conn.close()
        assert sha256 == record_sha256(kept)

    def test_a_failing_migration_leaves_the_old_version(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        import semreport.storage.sqlite as module

        path = tmp_path / "old.db"
        with sqlite3.connect(path, isolation_level=None) as conn:
            conn.execute("BEGIN")
            apply_migrations(conn, 0, 1)
            conn.execute("COMMIT")
        conn.close()
        broken = (
            *MIGRATIONS,
            module.Migration(SCHEMA_VERSION + 1, "broken", ("CREATE TABLE oops (",)),
        )
        monkeypatch.setattr(module, "MIGRATIONS", broken)
        monkeypatch.setattr(module, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
        with pytest.raises(StorageError):
            open_sqlite(_url(path))
        with sqlite3.connect(path) as conn:
            assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        conn.close()
        assert "sessions" not in tables


class TestRefusedFiles:
    """Files semreport cannot use are refused with a clear error, and left unchanged."""

    def _assert_refused(self, path: Path, error: type[Exception], match: str) -> None:
        before = _digest(path)
        with pytest.raises(error, match=match):
            open_sqlite(_url(path))
        assert _digest(path) == before
        # Through the facade too.
        with pytest.raises(error):
            semreport.open(_url(path))
        assert _digest(path) == before

    def test_a_newer_schema_is_refused(self, tmp_path: Path) -> None:
        path = tmp_path / "new.db"
        open_sqlite(_url(path)).close()
        with sqlite3.connect(path) as conn:
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        conn.close()
        self._assert_refused(path, IncompatibleSchema, "newer")

    def test_a_text_file_is_corrupt_storage(self, tmp_path: Path) -> None:
        path = tmp_path / "notes.db"
        path.write_text("these are not the tables you are looking for\n" * 20)
        self._assert_refused(path, CorruptStorage, "not a SQLite database")

    def test_a_damaged_database_is_corrupt_storage(self, tmp_path: Path) -> None:
        path = tmp_path / "damaged.db"
        store = open_sqlite(_url(path))
        store.record([_decision(f"d{n}") for n in range(200)])
        store.close()
        data = bytearray(path.read_bytes())
        data[100:4096] = b"\xff" * (4096 - 100)  # the schema page, after the header
        path.write_bytes(bytes(data))
        self._assert_refused(path, CorruptStorage, "damaged")

    def test_a_sqlite_file_of_another_application_is_refused(self, tmp_path: Path) -> None:
        path = tmp_path / "other.db"
        with sqlite3.connect(path) as conn:
            conn.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
            conn.execute("INSERT INTO customers (name) VALUES ('Ada')")
        conn.close()
        self._assert_refused(path, IncompatibleSchema, "another application")

    def test_a_foreign_application_id_is_refused(self, tmp_path: Path) -> None:
        path = tmp_path / "other.db"
        with sqlite3.connect(path) as conn:
            conn.execute("PRAGMA application_id = 1234")
            conn.execute("CREATE TABLE t (x)")
        conn.close()
        self._assert_refused(path, IncompatibleSchema, "0x4d2")

    def test_an_empty_file_is_refused_not_reset(self, tmp_path: Path) -> None:
        # A 0-byte file is a truncated database or someone else's: never silently reset.
        path = tmp_path / "empty.db"
        path.touch()
        self._assert_refused(path, CorruptStorage, "empty file")
        with pytest.raises(CorruptStorage, match="empty file"):
            open_sqlite(_url(path), create=False)
        assert path.stat().st_size == 0

    def test_a_corrupt_row_is_corrupt_storage(self, tmp_path: Path) -> None:
        path = tmp_path / "x.db"
        store = open_sqlite(_url(path))
        store.record([_decision("a")])
        with sqlite3.connect(path) as conn:
            conn.execute("UPDATE decisions SET body = '{\"id\": 3}'")
        conn.close()
        with pytest.raises(CorruptStorage, match=r"'p-1' \(decision 'a', sequence 1\) does not"):
            store.get("p-1", "a")
        store.close()


class TestConcurrentReaders:
    """Reading as of N gives exactly N records while another connection appends."""

    def test_as_of_reads_while_another_connection_appends(self, tmp_path: Path) -> None:
        path = tmp_path / "x.db"
        writer = open_sqlite(_url(path))
        reader = open_sqlite(_url(path))
        writer.record([_decision(f"d{n}") for n in range(1, 101)])
        stop = threading.Event()
        failures: list[str] = []

        def append() -> None:
            n = 101
            while not stop.is_set() and n < 600:
                writer.record([_decision(f"d{n}"), _decision(f"d{n + 1}")])
                n += 2

        thread = threading.Thread(target=append)
        thread.start()
        try:
            for _ in range(30):
                got = [d.sequence for d in reader.decisions("p-1", as_of=100)]
                if got != list(range(1, 101)):
                    failures.append(f"as_of=100 gave {len(got)} records")
                latest = reader.latest_sequence("p-1")
                seen = [d.sequence for d in reader.decisions("p-1")]
                # A full read is a gap-free prefix, at least as long as the latest seen before.
                if seen != list(range(1, len(seen) + 1)) or len(seen) < latest:
                    failures.append(f"latest={latest} gave {len(seen)} ending {seen[-3:]}")
                as_of = latest - 1
                if [d.sequence for d in reader.decisions("p-1", as_of=as_of)] != list(
                    range(1, as_of + 1)
                ):
                    failures.append(f"as_of={as_of} was not exact")
        finally:
            stop.set()
            thread.join()
        writer.close()
        reader.close()
        assert failures == []


def _append_in_process(
    url: str, worker: str, batches: int, size: int, start: Any, spans: Any, slot: int
) -> None:
    store = open_sqlite(url)
    try:
        start.wait(timeout=60)  # both processes begin appending together
        spans[2 * slot] = time.monotonic()
        for batch in range(batches):
            store.record([_decision(f"{worker}-{batch}-{i}") for i in range(size)])
            store.record([_decision(f"{worker}-{batch}-x", f"p-{worker}")])
        spans[2 * slot + 1] = time.monotonic()
    finally:
        store.close()


def _run_two(url: str, batches: int, size: int) -> list[tuple[float, float]]:
    """Run two appending processes; return each one's (start, end) of appending.

    ``time.monotonic`` is the system-wide ``CLOCK_MONOTONIC`` on Linux, so the
    two processes' readings are comparable.
    """
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(2)
    spans = context.Array("d", 4)
    workers = [
        context.Process(
            target=_append_in_process, args=(url, name, batches, size, start, spans, slot)
        )
        for slot, name in enumerate(("a", "b"))
    ]
    for process in workers:
        process.start()
    for process in workers:
        process.join(timeout=180)
    assert [p.exitcode for p in workers] == [0, 0]
    return [(spans[0], spans[1]), (spans[2], spans[3])]


class TestTwoProcesses:
    """Two real processes appending to one file: no duplicate or missing sequence, nothing lost."""

    def test_two_processes_append_at_once(self, tmp_path: Path) -> None:
        # Concurrency is shown by the two processes' appending spans overlapping in
        # time, not by their batches interleaving in the log: SQLite's busy handler
        # sleeps while the lock holder loops, so one writer may legitimately wait
        # until the other is done. On a loaded machine one process may even finish
        # before the other is scheduled, so rounds grow until the spans overlap;
        # the correctness checks hold on every round.
        overlapped = False
        for round_, batches in enumerate((60, 120, 240, 480)):
            url = _url(tmp_path / f"shared-{round_}.db")
            open_sqlite(url).close()  # create and migrate once, before the race
            overlapped = self._append_twice_and_check(url, batches, size=3)
            if overlapped:
                break
        assert overlapped, "the two processes never ran at the same time"

    @staticmethod
    def _append_twice_and_check(url: str, batches: int, size: int) -> bool:
        (a_start, a_end), (b_start, b_end) = _run_two(url, batches, size)
        store = open_sqlite(url)
        stored = list(store.decisions("p-1"))
        assert [d.sequence for d in stored] == list(range(1, 2 * batches * size + 1))
        assert len({d.id for d in stored}) == 2 * batches * size
        for name in ("a", "b"):
            mine = [d for d in stored if d.id.startswith(f"{name}-")]
            assert len(mine) == batches * size
            # Each process's batches stay contiguous: a batch is one transaction.
            for batch in range(batches):
                seqs = [d.sequence for d in mine if d.id.startswith(f"{name}-{batch}-")]
                assert seqs == list(range(seqs[0], seqs[0] + size))
            assert store.latest_sequence(f"p-{name}") == batches
        store.close()
        return a_start < b_end and b_start < a_end

    def test_two_processes_creating_the_same_new_file(self, tmp_path: Path) -> None:
        url = _url(tmp_path / "new.db")
        _run_two(url, 3, 2)
        store = open_sqlite(url)
        assert [d.sequence for d in store.decisions("p-1")] == list(range(1, 13))
        store.close()


class TestFacade:
    """``semreport.open("sqlite:///...")`` works, and bad input loses nothing stored."""

    def test_open_record_and_read(self, tmp_path: Path) -> None:
        sr = semreport.open(_url(tmp_path / "x.db"))
        stored = sr.record(
            [{"id": "d-1", "project_id": "p-1", "title": "T", "statement": "S", "agent": "a"}]
        )
        assert stored[0].sequence == 1
        sr.close()
        again = semreport.open(_url(tmp_path / "x.db"))
        assert again.decisions("p-1") == stored
        again.close()

    @pytest.mark.parametrize(
        "bad",
        [
            pytest.param([_decision("new"), _decision("new")], id="duplicate-in-batch"),
            pytest.param([_decision("kept")], id="already-stored"),
            pytest.param(
                [
                    {
                        "id": "n",
                        "project_id": "p-1",
                        "title": "T",
                        "statement": "S",
                        "agent": "a",
                        "attributes": {"cost_eur": float("nan")},
                    },
                ],
                id="nan",
            ),
            pytest.param(
                [
                    {
                        "id": "n",
                        "project_id": "p-1",
                        "title": "T",
                        "statement": "S",
                        "agent": "a",
                        "recorded_at": "2026-01-01T00:00:00",
                    },
                ],
                id="naive-datetime",
            ),
            pytest.param(
                [
                    {
                        "id": "bad id!",
                        "project_id": "p-1",
                        "title": "T",
                        "statement": "S",
                        "agent": "a",
                    }
                ],
                id="bad-identifier",
            ),
            pytest.param(
                [
                    {
                        "id": "n",
                        "project_id": "p-1",
                        "title": "T",
                        "statement": "S",
                        "agent": "a",
                        "domain": "astrology",
                    }
                ],
                id="unknown-enum",
            ),
            pytest.param([_decision("ok"), {"id": "n"}], id="one-bad-in-batch"),
        ],
    )
    def test_bad_input_loses_nothing(self, tmp_path: Path, bad: list[Any]) -> None:
        path = tmp_path / "x.db"
        sr = semreport.open(_url(path))
        kept = sr.record([_decision("kept")])
        with pytest.raises(semreport.SemReportError) as caught:
            sr.record(bad)
        assert isinstance(caught.value, InvalidRequest | DecisionAlreadyRecorded)
        sr.close()
        again = semreport.open(_url(path))
        assert again.decisions("p-1") == kept
        assert again.latest_sequence("p-1") == 1
        again.close()

    def test_lone_surrogates_are_invalid_input(self, tmp_path: Path) -> None:
        sr = semreport.open(_url(tmp_path / "x.db"))
        kept = sr.record([_decision("kept")])
        # A decision altered after construction reaches the adapter, which refuses it.
        altered = poked(Decision("b", "p-1", "T", "S", "a"), rationale="\ud800")
        with pytest.raises(InvalidRequest, match="surrogate"):
            sr.storage.record([_decision("a"), altered])
        # Validated fields refuse them on construction, and the wire form everywhere.
        with pytest.raises(ValueError, match="surrogate"):
            Decision("b", "p-1", "T\ud800", "S", "a")
        with pytest.raises(InvalidRequest, match="surrogate"):
            sr.record(
                [
                    {
                        "id": "c",
                        "project_id": "p-1",
                        "title": "T",
                        "statement": "\udfff",
                        "agent": "a",
                    }
                ]
            )
        assert sr.decisions("p-1") == kept
        sr.close()


class TestDatabaseFailures:
    """SQLite errors after opening are ``StorageError``s, and a failed write writes nothing."""

    def test_a_failing_insert_rolls_back_the_whole_batch(self, tmp_path: Path) -> None:
        path = tmp_path / "x.db"
        store = open_sqlite(_url(path))
        store.record([_decision("kept")])
        with sqlite3.connect(path) as conn:
            conn.execute(
                "CREATE TRIGGER refuse BEFORE INSERT ON decisions WHEN NEW.id = 'bad' "
                "BEGIN SELECT RAISE(ABORT, 'refused by trigger'); END"
            )
            conn.execute(
                "CREATE TRIGGER refuse_s BEFORE INSERT ON sessions "
                "BEGIN SELECT RAISE(ABORT, 'refused by trigger'); END"
            )
        conn.close()
        with pytest.raises(StorageError, match="refused by trigger"):
            store.record([_decision("ok"), _decision("bad")])
        assert [d.id for d in store.decisions("p-1")] == ["kept"]
        assert store.record([_decision("next")])[0].sequence == 2
        with pytest.raises(StorageError, match="refused by trigger"):
            store.record_sessions(
                [
                    semreport.LegacySession(
                        "s-1", "p-1", "S", started_at=datetime(2026, 1, 1, tzinfo=UTC)
                    )
                ]
            )
        store.close()

    def test_a_read_error_is_a_storage_error(self, tmp_path: Path) -> None:
        path = tmp_path / "x.db"
        store = open_sqlite(_url(path))
        with sqlite3.connect(path) as conn:
            conn.execute("DROP TABLE decisions")
        conn.close()
        with pytest.raises(StorageError, match="no such table"):
            store.latest_sequence("p-1")
        assert repr(store) == f"SQLiteStorage({str(path)!r})"
        store.close()
