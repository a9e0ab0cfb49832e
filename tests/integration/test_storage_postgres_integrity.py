"""PostgreSQL: tamper-evident rows, bounded waits, one failure per call, create=False.

Issue 11 found that a bit flipped in a stored record silently changed a
decision, that a stalled client's lock made other writers wait for ever, that
a server that was down failed each call twice (after twice the timeout), and
that opening for reading created the schema. Each class here is one of those.
"""

from __future__ import annotations

import random
import socket
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import psycopg
import pytest
from pg_support import (
    POSTGRES_URL,
    TcpProxy,
    admin_connect,
    alter_stored,
    decision,
    decisions,
    open_pg,
    pg_marks,
    with_query,
)
from psycopg import sql

import semreport
from semreport.canonical import record_sha256
from semreport.domain import (
    ConfigurationError,
    CorruptStorage,
    Decision,
    DecisionNotFound,
    StorageError,
    StorageNotFound,
)
from semreport.storage._common import encode_decision, encode_session
from semreport.storage.postgres import (
    DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT,
    DEFAULT_LOCK_TIMEOUT,
    SCHEMA_VERSION,
    PostgresStorage,
    open_postgres,
)
from semreport.testing import ManualClock

pytestmark = pg_marks


def _exists(schema: str) -> bool:
    with admin_connect() as conn:
        row = conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", (schema,)).fetchone()
    return row is not None


def _requests(store: PostgresStorage) -> int:
    """How many connections the store has asked its pool for (each call asks once per try)."""
    return int(store.pool.get_stats().get("requests_num", 0))


class TestCreateFalse:
    """Opening for reading never creates the schema; a missing store is StorageNotFound."""

    def test_a_missing_store_is_not_created(self, pg_schema: str) -> None:
        with pytest.raises(StorageNotFound, match=pg_schema):
            open_pg(pg_schema, create=False)
        with pytest.raises(StorageNotFound):
            semreport.open(with_query(POSTGRES_URL, schema=pg_schema), create=False)
        assert not _exists(pg_schema)

    def test_an_existing_store_opens(self, pg_schema: str) -> None:
        open_pg(pg_schema).close()  # the default creates it
        store = open_pg(pg_schema, create=False)
        assert store.record(decisions(2))[1].sequence == 2
        store.close()


class TestTheStoredHash:
    """Each row keeps its record's citation hash, and old stores get theirs when migrated."""

    def test_the_hash_is_the_citation_id(self, pg_schema: str) -> None:
        url = with_query(POSTGRES_URL, schema=pg_schema)
        with semreport.open(url, clock=ManualClock()) as sr:
            stored = sr.record(decisions(70))  # the COPY path
            stored += sr.record(decisions(3, start=70))  # the INSERT path
            report = sr.report("p-1")
        with admin_connect() as conn:
            rows = conn.execute(
                sql.SQL("SELECT record_sha256 FROM {}.decisions ORDER BY sequence").format(
                    sql.Identifier(pg_schema)
                )
            ).fetchall()
        hashes = [h for (h,) in rows]
        assert hashes == [record_sha256(d) for d in stored]
        assert [f"sha256:{h}" for h in hashes] == [r.sha256 for r in report.records]

    def test_a_version_1_store_is_migrated_and_hashed(self, pg_schema: str) -> None:
        kept = [
            d.recorded(n + 1, datetime(2025, 5, 1, tzinfo=UTC)) for n, d in enumerate(decisions(3))
        ]
        session = semreport.LegacySession(
            "s-1", "p-1", "Workshop", datetime(2025, 5, 1, tzinfo=UTC)
        )
        _make_version_1(pg_schema, kept, session)
        store = open_pg(pg_schema)
        assert list(store.decisions("p-1")) == kept
        assert store.get_session("s-1") == session
        assert store.record([decision(9)])[0].sequence == 4
        with admin_connect() as conn:
            s = sql.Identifier(pg_schema)
            version = conn.execute(
                sql.SQL("SELECT value FROM {}.semreport_meta WHERE key = 'schema_version'").format(
                    s
                )
            ).fetchone()
            hashes = conn.execute(
                sql.SQL("SELECT record_sha256 FROM {}.decisions ORDER BY sequence").format(s)
            ).fetchall()
            # The append-only trigger is back on after the migration.
            with pytest.raises(Exception, match="append-only"):
                conn.execute(sql.SQL("DELETE FROM {}.decisions").format(s))
        assert version == (str(SCHEMA_VERSION),)
        assert [h for (h,) in hashes][:3] == [record_sha256(d) for d in kept]
        store.close()

    def test_an_undecodable_old_row_reads_as_corrupt_not_a_failed_migration(
        self, pg_schema: str
    ) -> None:
        kept = [decision(0).recorded(1, datetime(2025, 5, 1, tzinfo=UTC))]
        _make_version_1(pg_schema, kept, None, extra_row='{"id": "odd"}')
        store = open_pg(pg_schema)
        assert store.get("p-1", "d-0") == kept[0]
        with pytest.raises(CorruptStorage, match=r"'p-1' \(decision 'odd', sequence 2\)"):
            store.get("p-1", "odd")
        store.close()


def _make_version_1(
    schema: str,
    kept: list[Decision],
    session: semreport.LegacySession | None,
    extra_row: str | None = None,
) -> None:
    """Build a store as semreport 0.1 (schema version 1) left it, rows without hashes."""
    from semreport.storage.postgres import _MIGRATIONS, _q

    with admin_connect() as conn, conn.transaction():
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
        version, description, statements, _step = _MIGRATIONS[0]
        for statement in statements:
            conn.execute(_q(statement, schema))
        conn.execute(_q("INSERT INTO {s}.semreport_meta VALUES ('schema_version', '1')", schema))
        conn.execute(
            _q(
                "INSERT INTO {s}.semreport_migrations (version, description) VALUES (%s, %s)",
                schema,
            ),
            (version, description),
        )
        rows = [(d.id, d.sequence, d.recorded_at, encode_decision(d)) for d in kept]
        if extra_row is not None:
            rows.append(("odd", len(kept) + 1, datetime(2025, 5, 1, tzinfo=UTC), extra_row))
        for decision_id, sequence, at, text in rows:
            conn.execute(
                _q(
                    "INSERT INTO {s}.decisions (project_id, sequence, id, recorded_at, record)"
                    " VALUES ('p-1', %s, %s, %s, %s::json)",
                    schema,
                ),
                (sequence, decision_id, at, text),
            )
        conn.execute(
            _q("INSERT INTO {s}.projects VALUES ('p-1', %s, %s)", schema),
            (len(rows), datetime(2025, 5, 1, tzinfo=UTC)),
        )
        if session is not None:
            conn.execute(
                _q(
                    "INSERT INTO {s}.sessions (id, project_id, started_at, record)"
                    " VALUES (%s, %s, %s, %s::json)",
                    schema,
                ),
                (session.id, session.project_id, session.started_at, encode_session(session)),
            )


class TestBitFlipsBySQL:
    """A bit flipped in a stored row (by SQL, around the adapter) never changes a decision.

    Each trial flips one random bit of one row's record text or hash with an
    UPDATE (the server refuses text that is no longer UTF-8 or JSON: such a
    trial changes nothing), reads everything back, then puts the row back.
    Every read must return the original decisions or raise CorruptStorage.
    """

    TRIALS = 150

    @pytest.fixture
    def store(self, pg_schema: str) -> Iterator[PostgresStorage]:
        store = open_pg(pg_schema, clock=ManualClock())
        yield store
        store.close()

    def test_every_read_is_the_original_or_corrupt_storage(self, store: PostgresStorage) -> None:
        stored = store.record(
            [decision(n, attributes={"cost": 10.0 * n, "n": n}) for n in range(20)]
        )
        rng = random.Random(20260301)
        outcomes = {"refused by the server": 0, "unchanged": 0, "corrupt": 0}
        for trial in range(self.TRIALS):
            target = rng.choice(stored)
            column = "record" if rng.random() < 0.8 else "record_sha256"
            where = f"trial {trial}: {column} of {target.id}"
            original = _column(store.schema, target.sequence or 0, column)
            data = original.encode()
            offset, bit = rng.randrange(len(data)), rng.randrange(8)
            changed = bytearray(data)
            changed[offset] ^= 1 << bit
            try:
                _set_column(store.schema, target.sequence or 0, column, bytes(changed).decode())
            except (UnicodeDecodeError, psycopg.DataError):
                # Not UTF-8, or not JSON: the server would not store it.
                outcomes["refused by the server"] += 1
                continue
            try:
                outcomes[_read_back(store, stored, where)] += 1
            finally:
                _set_column(store.schema, target.sequence or 0, column, original)
        assert outcomes["corrupt"] > self.TRIALS // 4, outcomes
        assert list(store.decisions("p-1")) == stored


def _column(schema: str, sequence: int, column: str) -> str:
    with admin_connect() as conn:
        row = conn.execute(
            sql.SQL(
                "SELECT {}::text FROM {}.decisions WHERE project_id = 'p-1' AND sequence = %s"
            ).format(sql.Identifier(column), sql.Identifier(schema)),
            (sequence,),
        ).fetchone()
    assert row is not None
    return str(row[0])


def _set_column(schema: str, sequence: int, column: str, value: str) -> None:
    if column == "record":
        alter_stored(
            schema,
            "decisions",
            "project_id = 'p-1' AND sequence = %s",
            (sequence,),
            lambda _old: value,
        )
        return
    with admin_connect() as conn, conn.transaction():
        target = sql.Identifier(schema, "decisions")
        conn.execute(sql.SQL("ALTER TABLE {} DISABLE TRIGGER decisions_append_only").format(target))
        conn.execute(
            sql.SQL(
                "UPDATE {} SET record_sha256 = %s WHERE project_id = 'p-1' AND sequence = %s"
            ).format(target),
            (value, sequence),
        )
        conn.execute(sql.SQL("ALTER TABLE {} ENABLE TRIGGER decisions_append_only").format(target))


def _read_back(store: PostgresStorage, stored: list[Decision], where: str) -> str:
    outcome = "unchanged"
    try:
        assert list(store.decisions("p-1")) == stored, where
    except CorruptStorage:
        outcome = "corrupt"
    for kept in stored:
        try:
            assert store.get("p-1", kept.id) == kept, where
        except CorruptStorage:
            outcome = "corrupt"
        except DecisionNotFound:  # pragma: no cover - the key columns are not flipped here
            raise AssertionError(where) from None
    return outcome


class TestBoundedWaits:
    """A stalled or dead client never blocks another writer without bound."""

    def test_a_held_project_lock_times_out_clearly_and_once(self, pg_schema: str) -> None:
        store = open_pg(pg_schema, lock_timeout=1)
        store.record(decisions(2))
        with admin_connect() as stalled:
            # Another client takes the project's counter-row lock and then stalls.
            stalled.execute("BEGIN")
            stalled.execute(
                sql.SQL("SELECT 1 FROM {}.projects WHERE project_id = 'p-1' FOR UPDATE").format(
                    sql.Identifier(pg_schema)
                )
            )
            before = _requests(store)
            with pytest.raises(StorageError, match=r"lock_timeout \(1 s") as caught:
                store.record(decisions(1, start=2))
            assert "nothing was recorded" in caught.value.message
            assert _requests(store) - before == 1  # failed once, not retried
            stalled.execute("ROLLBACK")
        assert store.latest_sequence("p-1") == 2
        assert store.record(decisions(1, start=2))[0].sequence == 3
        store.close()

    def test_a_client_stalled_inside_its_batch_is_ended_by_the_server(self, pg_schema: str) -> None:
        inside = threading.Event()
        release = threading.Event()

        def stalling_clock() -> datetime:
            # Called inside the batch's transaction, with the project locked.
            inside.set()
            release.wait(timeout=60)
            return datetime(2026, 1, 1, tzinfo=UTC)

        stalled = open_pg(pg_schema, clock=stalling_clock, idle_in_transaction_session_timeout=1)
        other = open_pg(pg_schema, lock_timeout=30)
        results: list[Any] = []

        def run_stalled() -> None:
            try:
                results.append(stalled.record(decisions(3, prefix="stalled")))
            except StorageError as exc:  # pragma: no cover - it is retried on a fresh connection
                results.append(exc)

        thread = threading.Thread(target=run_stalled)
        thread.start()
        try:
            assert inside.wait(timeout=60)
            # The server ends the stalled session after 1 s, releasing its lock; this
            # writer then gets the project's first sequences (before the release below).
            mine = other.record(decisions(2))
            assert [d.sequence for d in mine] == [1, 2]
        finally:
            release.set()
            thread.join(timeout=120)
        # The stalled batch never committed; retried on a fresh connection, it follows.
        assert [d.sequence for d in results[0]] == [3, 4, 5]
        assert [d.sequence for d in other.decisions("p-1")] == [1, 2, 3, 4, 5]
        stalled.close()
        other.close()

    def test_the_limits_are_set_on_every_connection(self, pg_schema: str) -> None:
        url = with_query(POSTGRES_URL, lock_timeout="2.5", statement_timeout="600")
        store = open_postgres(url, schema=pg_schema, idle_in_transaction_session_timeout=45)
        with store.pool.connection() as conn:
            shown = [
                conn.execute(f"SHOW {name}").fetchone()
                for name in (
                    "lock_timeout",
                    "idle_in_transaction_session_timeout",
                    "statement_timeout",
                )
            ]
        assert shown == [("2500ms",), ("45s",), ("10min",)]
        store.close()

    def test_the_defaults(self, pg_schema: str) -> None:
        store = open_pg(pg_schema)
        with store.pool.connection() as conn:
            lock = conn.execute("SHOW lock_timeout").fetchone()
            idle = conn.execute("SHOW idle_in_transaction_session_timeout").fetchone()
        assert lock == (f"{DEFAULT_LOCK_TIMEOUT:g}s",)
        assert idle == (f"{DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT / 60:g}min",)
        store.close()

    @pytest.mark.parametrize("value", ["-1", "soon", "9e99"])
    def test_bad_limits_are_refused(self, pg_schema: str, value: str) -> None:
        with pytest.raises(ConfigurationError, match="lock_timeout"):
            open_postgres(with_query(POSTGRES_URL, lock_timeout=value), schema=pg_schema)


class _CountingListener:
    """A TCP port that accepts connections and closes them at once, counting them."""

    def __init__(self) -> None:
        self._socket = socket.create_server(("127.0.0.1", 0))
        self.port = self._socket.getsockname()[1]
        self.accepted = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._socket.accept()
            except OSError:
                return
            self.accepted += 1
            conn.close()

    def close(self) -> None:
        self._socket.close()


def _url_via(port: int) -> str:
    target = urlsplit(POSTGRES_URL)
    return POSTGRES_URL.replace(target.netloc.split("@")[-1], f"127.0.0.1:{port}", 1)


class TestAServerThatIsDown:
    """A server that does not answer fails each call once, within the configured timeout."""

    def test_opening_tries_once(self, pg_schema: str) -> None:
        listener = _CountingListener()
        try:
            with pytest.raises(StorageError, match="cannot use PostgreSQL"):
                open_postgres(_url_via(listener.port), schema=pg_schema, connect_timeout=2)
            assert listener.accepted == 1
        finally:
            listener.close()

    def test_each_call_fails_once_within_the_pool_timeout(self, pg_schema: str) -> None:
        target = urlsplit(POSTGRES_URL)
        proxy = TcpProxy(target.hostname or "127.0.0.1", target.port or 5432)
        proxy.start()
        timeout = 2.0
        store = open_pg(pg_schema, url=_url_via(proxy.port), pool_timeout=timeout)
        try:
            store.record(decisions(3))
            proxy.stop()
            calls = [
                lambda: store.record(decisions(1, start=3)),
                lambda: store.latest_sequence("p-1"),
                lambda: list(store.decisions("p-1", as_of=2)),
            ]
            for call in calls:
                before = _requests(store)
                with pytest.raises(StorageError, match=f"within {timeout:g} s"):
                    call()
                # One request to the pool, so one wait of at most pool_timeout: the count
                # proves the bound (before the fix, two requests waited twice as long).
                assert _requests(store) - before == 1
        finally:
            store.close()
            proxy.stop()
