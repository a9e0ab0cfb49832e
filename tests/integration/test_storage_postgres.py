"""The PostgreSQL adapter on a real server: opening, schema versions, appends, reads, sessions."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest
from pg_support import (
    POSTGRES_URL,
    StepClock,
    admin_connect,
    decision,
    decisions,
    open_pg,
    pg_marks,
    with_query,
)
from psycopg import sql
from row_form_support import check_row_holds_the_canonical_bytes

import semreport
from semreport import (
    ConfigurationError,
    CorruptStorage,
    Decision,
    DecisionAlreadyRecorded,
    DecisionNotFound,
    IncompatibleSchema,
    LegacySession,
    Participant,
    SessionAlreadyRecorded,
    SessionNotFound,
    StorageError,
    Turn,
)
from semreport.storage import open_storage
from semreport.storage.postgres import SCHEMA_VERSION, PostgresStorage, open_postgres
from semreport.wire import to_wire

pytestmark = pg_marks


def _meta(schema: str) -> dict[str, str]:
    with admin_connect() as conn:
        rows = conn.execute(
            sql.SQL("SELECT key, value FROM {}.semreport_meta").format(sql.Identifier(schema))
        ).fetchall()
    return dict(rows)


def _execute(schema: str, statement: str, *params: Any) -> None:
    with admin_connect() as conn:
        conn.execute(sql.SQL(statement).format(s=sql.Identifier(schema)), params)  # type: ignore[arg-type]


def session(index: int, project: str = "p-1", **changes: Any) -> LegacySession:
    fields: dict[str, Any] = {
        "id": f"s-{index}",
        "project_id": project,
        "title": f"Session {index}",
        "started_at": datetime(2025, 1, 1, tzinfo=UTC) + timedelta(hours=index),
        "participants": [Participant("u-1", "Ada"), Participant("a-1", "Agent", "agent")],
        "turns": [
            Turn(0, datetime(2025, 1, 1, tzinfo=UTC), "user", "u-1", "Which doors?"),
            Turn(1, datetime(2025, 1, 1, 0, 1, tzinfo=UTC), "agent", "a-1", "EI60."),
        ],
    }
    fields.update(changes)
    return LegacySession(**fields)


class TestOpening:
    """Opening creates and versions the schema, and refuses what it cannot use."""

    def test_every_scheme_opens_the_adapter(self, pg_schema: str) -> None:
        for scheme in ("postgresql", "postgres"):
            url = POSTGRES_URL.replace("postgresql://", f"{scheme}://", 1)
            url = with_query(url, schema=pg_schema)
            store = open_storage(url)
            assert isinstance(store, PostgresStorage)
            assert store.schema == pg_schema
            store.close()

    def test_the_facade_opens_it_with_options(self, pg_schema: str) -> None:
        with semreport.open(POSTGRES_URL, schema=pg_schema, pool_max_size=2) as sr:
            assert isinstance(sr.storage, PostgresStorage)
            assert sr.storage.pool.max_size == 2

    def test_the_schema_is_created_and_its_version_recorded(self, pg_schema: str) -> None:
        open_pg(pg_schema).close()
        assert _meta(pg_schema) == {"schema_version": str(SCHEMA_VERSION)}
        with admin_connect() as conn:
            rows = conn.execute(
                sql.SQL("SELECT version FROM {}.semreport_migrations").format(
                    sql.Identifier(pg_schema)
                )
            ).fetchall()
        assert [r[0] for r in rows] == list(range(1, SCHEMA_VERSION + 1))

    def test_reopening_keeps_everything(self, pg_schema: str) -> None:
        store = open_pg(pg_schema)
        stored = store.record(decisions(3))
        store.close()
        again = open_pg(pg_schema)
        assert list(again.decisions("p-1")) == stored
        again.close()

    def test_a_newer_schema_is_refused(self, pg_schema: str) -> None:
        open_pg(pg_schema).close()
        _execute(pg_schema, "UPDATE {s}.semreport_meta SET value = '99'")
        with pytest.raises(IncompatibleSchema, match="version 99, newer"):
            open_pg(pg_schema)

    def test_a_garbled_version_is_refused(self, pg_schema: str) -> None:
        open_pg(pg_schema).close()
        _execute(pg_schema, "UPDATE {s}.semreport_meta SET value = 'banana'")
        with pytest.raises(IncompatibleSchema, match="not a semreport schema"):
            open_pg(pg_schema)

    def test_someone_elses_tables_are_not_taken_over(self, pg_schema: str) -> None:
        _execute(pg_schema, "CREATE SCHEMA {s}")
        _execute(pg_schema, "CREATE TABLE {s}.decisions (x int)")
        with pytest.raises(IncompatibleSchema, match="already holds tables named decisions"):
            open_pg(pg_schema)

    def test_schemas_keep_tenants_apart(self, pg_schemas: Any) -> None:
        first, second = pg_schemas.new(), pg_schemas.new()
        a, b = open_pg(first), open_pg(second)
        a.record(decisions(2))
        assert b.latest_sequence("p-1") == 0
        assert a.latest_sequence("p-1") == 2
        a.close()
        b.close()

    def test_the_url_names_the_schema_and_pool(self, pg_schema: str) -> None:
        url = with_query(
            POSTGRES_URL,
            schema=pg_schema,
            pool_min_size="0",
            pool_max_size="3",
            pool_timeout="5",
            copy_threshold="10",
            application_name="sr-test",
        )
        store = open_postgres(url)
        assert (store.schema, store.pool.min_size, store.pool.max_size) == (pg_schema, 0, 3)
        store.record(decisions(1))
        with store.pool.connection() as conn:
            row = conn.execute("SHOW application_name").fetchone()
        assert row == ("sr-test",)
        store.close()

    def test_keywords_win_over_the_url(self, pg_schemas: Any) -> None:
        chosen = pg_schemas.new()
        store = open_postgres(with_query(POSTGRES_URL, schema="ignored_here"), schema=chosen)
        assert store.schema == chosen
        store.close()

    def test_concurrent_first_opens_migrate_once(self, pg_schema: str) -> None:
        stores: list[PostgresStorage] = []
        errors: list[BaseException] = []

        def opener() -> None:
            try:
                stores.append(open_pg(pg_schema, pool_min_size=0))
            except Exception as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=opener) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        assert len(stores) == 4
        for store in stores:
            store.close()
        assert _meta(pg_schema) == {"schema_version": str(SCHEMA_VERSION)}

    def test_a_read_only_server_opens_a_migrated_schema_for_reading(self, pg_schema: str) -> None:
        writer = open_pg(pg_schema)
        stored = writer.record(decisions(2))
        writer.close()
        replica_like = with_query(POSTGRES_URL, options="-c default_transaction_read_only=on")
        reader = open_pg(pg_schema, url=replica_like)
        assert list(reader.decisions("p-1")) == stored
        with pytest.raises(StorageError, match="read-only"):
            reader.record(decisions(1, start=10))
        reader.close()

    @pytest.mark.parametrize(
        ("options", "message"),
        [
            ({"schema": "no spaces allowed"}, "not a plain PostgreSQL name"),
            ({"schema": "x" * 64}, "not a plain PostgreSQL name"),
            ({"pool_min_size": 3, "pool_max_size": 2}, "pool sizes"),
            ({"pool_max_size": 0, "pool_min_size": 0}, "pool sizes"),
            ({"pool_timeout": 0}, "pool_timeout must be positive"),
            ({"copy_threshold": 0}, "copy_threshold"),
            ({"pool_max_size": "many"}, "must be a number"),
            ({"pool_max_size": True}, "must be a number"),
            ({"colour": "blue"}, "does not take the option"),
        ],
    )
    def test_bad_options_are_refused(self, options: dict[str, Any], message: str) -> None:
        with pytest.raises(ConfigurationError, match=message):
            open_postgres(POSTGRES_URL, **options)

    def test_an_unreachable_server_is_a_clear_storage_error(self) -> None:
        with pytest.raises(StorageError, match=r"cannot use PostgreSQL at postgresql://u:\*\*\*@"):
            open_postgres("postgresql://u:secret@127.0.0.1:1/none?connect_timeout=2")

    def test_the_password_never_shows(self, pg_schema: str) -> None:
        store = open_postgres(POSTGRES_URL, schema=pg_schema)
        assert "PostgresStorage(url=" in repr(store)
        store.close()
        with pytest.raises(StorageError) as caught:
            open_postgres("postgresql://me:hunter2@127.0.0.1:1/x?connect_timeout=1")
        assert "hunter2" not in str(caught.value)
        assert "me:***@" in str(caught.value)

    def test_a_closed_store_refuses_every_call(self, pg_schema: str) -> None:
        store = open_pg(pg_schema)
        store.close()
        store.close()
        for call in (
            lambda: store.record(decisions(1)),
            lambda: store.latest_sequence("p-1"),
            lambda: store.get("p-1", "d-1"),
            lambda: store.record_sessions([session(1)]),
        ):
            with pytest.raises(StorageError, match="closed"):
                call()


class TestAppends:
    """Appends assign gap-free sequences in one transaction per batch."""

    @pytest.mark.parametrize("copy_threshold", [1, 1000], ids=["copy", "insert"])
    def test_a_batch_gets_sequences_and_reads_back_equal(
        self, pg_schema: str, copy_threshold: int
    ) -> None:
        clock = StepClock()
        store = open_pg(pg_schema, clock=clock, copy_threshold=copy_threshold)
        stored = store.record(decisions(5))
        assert [d.sequence for d in stored] == [1, 2, 3, 4, 5]
        assert {d.recorded_at for d in stored} == {clock.now}
        assert [d.id for d in stored] == [f"d-{i}" for i in range(5)]
        assert list(store.decisions("p-1")) == stored
        assert store.get("p-1", "d-3") == stored[3]
        assert to_wire(store.get("p-1", "d-3")) == to_wire(stored[3])
        more = store.record(decisions(2, start=5))
        assert [d.sequence for d in more] == [6, 7]
        assert store.latest_sequence("p-1") == 7
        store.close()

    def test_copy_and_insert_store_the_same_rows(self, pg_schemas: Any) -> None:
        batch = decisions(20)
        forms = []
        for threshold in (1, 1000):
            store = open_pg(pg_schemas.new(), clock=StepClock(), copy_threshold=threshold)
            store.record(batch)
            forms.append([to_wire(d) for d in store.decisions("p-1")])
            store.close()
        assert forms[0] == forms[1]

    def test_a_batch_may_span_projects(self, pg_schema: str) -> None:
        store = open_pg(pg_schema)
        store.record(decisions(2, project="p-b"))
        batch = [decision(0, "p-a"), decision(9, "p-b"), decision(1, "p-a")]
        stored = store.record(batch)
        assert [(d.project_id, d.sequence) for d in stored] == [("p-a", 1), ("p-b", 3), ("p-a", 2)]
        assert store.latest_sequence("p-a") == 2
        assert store.latest_sequence("p-b") == 3
        store.close()

    @pytest.mark.parametrize("copy_threshold", [1, 1000], ids=["copy", "insert"])
    def test_a_recorded_id_writes_nothing(self, pg_schema: str, copy_threshold: int) -> None:
        store = open_pg(pg_schema, copy_threshold=copy_threshold)
        first = store.record(decisions(3))
        with pytest.raises(DecisionAlreadyRecorded, match="'d-1' is already recorded"):
            store.record([decision(7), decision(1), decision(8)])
        with pytest.raises(DecisionAlreadyRecorded, match="appears twice"):
            store.record([decision(7), decision(7)])
        assert list(store.decisions("p-1")) == first
        assert store.latest_sequence("p-1") == 3
        with pytest.raises(DecisionNotFound):
            store.get("p-1", "d-7")
        assert store.record([decision(7)])[0].sequence == 4
        store.close()

    def test_the_same_id_in_another_project_is_fine(self, pg_schema: str) -> None:
        store = open_pg(pg_schema)
        store.record([decision(1, "p-a")])
        assert store.record([decision(1, "p-b")])[0].sequence == 1
        store.close()

    def test_recorded_at_never_goes_back(self, pg_schema: str) -> None:
        clock = StepClock()
        store = open_pg(pg_schema, clock=clock)
        first = store.record(decisions(1))[0]
        clock.step(-3600)
        second = store.record(decisions(1, start=1))[0]
        assert second.recorded_at == first.recorded_at
        clock.step(7200)
        third = store.record(decisions(1, start=2))[0]
        assert third.recorded_at == clock.now
        other = store.record([decision(0, "p-2")])[0]
        assert other.recorded_at == clock.now
        store.close()

    def test_a_non_utc_clock_is_stored_as_utc(self, pg_schema: str) -> None:
        from datetime import timezone

        local = datetime(2026, 3, 1, 12, 0, tzinfo=timezone(timedelta(hours=2)))
        store = open_pg(pg_schema, clock=lambda: local)
        stored = store.record(decisions(1))[0]
        assert stored.recorded_at == local
        assert stored.recorded_at is not None
        assert stored.recorded_at.tzinfo == UTC
        assert store.get("p-1", "d-0") == stored
        store.close()

    def test_an_empty_batch_records_nothing(self, pg_schema: str) -> None:
        store = open_pg(pg_schema)
        assert store.record([]) == []
        assert store.record_sessions([]) == []
        assert not store.has_project("p-1")
        store.close()

    def test_the_tables_refuse_updates_and_deletes(self, pg_schema: str) -> None:
        store = open_pg(pg_schema)
        store.record(decisions(1))
        store.record_sessions([session(1)])
        for statement in (
            "UPDATE {s}.decisions SET id = 'x'",
            "DELETE FROM {s}.decisions",
            "TRUNCATE {s}.decisions",
            "DELETE FROM {s}.sessions",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege, match="append-only"):
                _execute(pg_schema, statement)
        assert store.latest_sequence("p-1") == 1
        store.close()


class TestReads:
    """Reads as of a sequence number, by id, and of the latest sequence."""

    @pytest.fixture
    def store(self, pg_schema: str) -> Any:
        store = open_pg(pg_schema, page_size=3)
        store.record(decisions(10))
        yield store
        store.close()

    @pytest.mark.parametrize(
        ("after", "as_of", "expected"),
        [
            (0, None, list(range(1, 11))),
            (4, None, list(range(5, 11))),
            (0, 6, list(range(1, 7))),
            (2, 7, [3, 4, 5, 6, 7]),
            (0, 99, list(range(1, 11))),
            (0, 0, []),
            (0, -5, []),
            (-3, 2, [1, 2]),
            (10, None, []),
            (7, 3, []),
        ],
    )
    def test_after_and_as_of(
        self, store: PostgresStorage, after: int, as_of: int | None, expected: list[int]
    ) -> None:
        got = [d.sequence for d in store.decisions("p-1", after=after, as_of=as_of)]
        assert got == expected

    def test_the_bound_is_fixed_when_the_read_starts(self, store: PostgresStorage) -> None:
        reading = store.decisions("p-1")
        first = next(reading)
        store.record(decisions(5, start=100))
        rest = list(reading)
        assert [first.sequence, *(d.sequence for d in rest)] == list(range(1, 11))
        assert [d.sequence for d in store.decisions("p-1", as_of=99)][-1] == 15

    def test_unknown_things_are_absent(self, store: PostgresStorage) -> None:
        assert list(store.decisions("nobody")) == []
        assert store.latest_sequence("nobody") == 0
        assert not store.has_project("nobody")
        assert store.has_project("p-1")
        with pytest.raises(DecisionNotFound, match="'nobody' has no decision 'd-1'"):
            store.get("nobody", "d-1")

    def test_reads_stay_consistent_while_appends_go_on(self, pg_schema: str) -> None:
        store = open_pg(pg_schema, page_size=50, pool_max_size=4)
        stop = threading.Event()
        failures: list[str] = []

        def append() -> None:
            index = 0
            while not stop.is_set() and index < 3000:
                size = 1 + index % 97
                store.record(decisions(size, start=index, prefix="c"))
                index += size

        writer = threading.Thread(target=append)
        writer.start()
        checks = 0
        try:
            while writer.is_alive() and checks < 40:
                latest = store.latest_sequence("p-1")
                seen = [d.sequence for d in store.decisions("p-1", as_of=latest)]
                if seen != list(range(1, latest + 1)):
                    failures.append(f"as of {latest} got {len(seen)} records")
                checks += 1
        finally:
            stop.set()
            writer.join()
        assert failures == []
        assert checks > 0
        final = [d.sequence for d in store.decisions("p-1")]
        assert final == list(range(1, len(final) + 1))
        store.close()


class TestSessions:
    """Legacy sessions: stored whole, read by id and by project in order."""

    def test_sessions_round_trip_in_order(self, pg_schema: str) -> None:
        store = open_pg(pg_schema)
        late, early = session(5), session(1)
        same_time_b = session(7, id="s-b", started_at=early.started_at)
        stored = store.record_sessions([late, early, same_time_b])
        assert stored == [late, early, same_time_b]
        assert store.get_session("s-5") == late
        assert list(store.sessions("p-1")) == [early, same_time_b, late]
        assert list(store.sessions("p-2")) == []
        assert store.has_project("p-1")
        assert store.latest_sequence("p-1") == 0
        store.close()

    def test_a_recorded_session_writes_nothing(self, pg_schema: str) -> None:
        store = open_pg(pg_schema)
        store.record_sessions([session(1)])
        with pytest.raises(SessionAlreadyRecorded, match="'s-1' is already recorded"):
            store.record_sessions([session(2), session(1)])
        with pytest.raises(SessionAlreadyRecorded, match="twice"):
            store.record_sessions([session(3), session(3)])
        with pytest.raises(SessionNotFound, match="'s-2'"):
            store.get_session("s-2")
        store.close()


class TestTypes:
    """The adapter provides every storage port."""

    def test_it_is_a_storage(self, pg_schema: str) -> None:
        from semreport.domain import Storage

        store = open_pg(pg_schema)
        assert isinstance(store, Storage)
        store.close()

    def test_decisions_are_decisions(self, pg_schema: str) -> None:
        store = open_pg(pg_schema)
        store.record(decisions(1))
        assert all(type(d) is Decision for d in store.decisions("p-1"))
        store.close()


class TestTheRowForm:
    """A row holds the record's canonical bytes; a read checks them with one hash."""

    @pytest.mark.parametrize("copy_threshold", [1, 1000], ids=["copy", "insert"])
    def test_a_whole_number_float_is_kept_and_read_without_canonicalising(
        self, pg_schema: str, copy_threshold: int, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        store = open_pg(pg_schema, copy_threshold=copy_threshold)
        try:
            given = decision(1, attributes={"cost_eur": 60.0, "share": 0.5})
            (kept,) = store.record([given])
            with admin_connect() as conn:
                (body,) = conn.execute(
                    sql.SQL("SELECT record::text FROM {}.decisions").format(
                        sql.Identifier(pg_schema)
                    )
                ).fetchone()
            check_row_holds_the_canonical_bytes(store, kept, body, monkeypatch)
        finally:
            store.close()


class TestLeastPrivilege:
    """A service role with only the documented grants can append and read."""

    def test_the_documented_grants_are_enough(self, pg_schema: str) -> None:
        role = f"{pg_schema}_app"
        open_pg(pg_schema).close()  # the owner migrates
        grants = [
            "CREATE ROLE {r} LOGIN",
            "GRANT USAGE ON SCHEMA {s} TO {r}",
            "GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA {s} TO {r}",
            "GRANT UPDATE ON {s}.projects TO {r}",
        ]
        with admin_connect() as conn:
            for grant in grants:
                conn.execute(
                    sql.SQL(grant).format(s=sql.Identifier(pg_schema), r=sql.Identifier(role))
                )
        try:
            parts = POSTGRES_URL.split("://", 1)
            as_app = f"{parts[0]}://{role}@{parts[1].split('@', 1)[-1]}"
            store = open_pg(pg_schema, url=as_app)
            stored = store.record(decisions(70))  # COPY
            stored += store.record(decisions(2, start=70))  # INSERT
            store.record_sessions([session(1)])
            assert list(store.decisions("p-1")) == stored
            assert store.get_session("s-1") == session(1)
            store.close()
        finally:
            with admin_connect() as conn:
                conn.execute(sql.SQL("DROP OWNED BY {}").format(sql.Identifier(role)))
                conn.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(role)))


class TestTamperedStores:
    """Rows written around the library, or a schema dropped underneath, fail clearly."""

    def test_a_row_written_around_the_lock_is_corrupt_storage(self, pg_schema: str) -> None:
        store = open_pg(pg_schema)
        store.record(decisions(1))
        _execute(
            pg_schema,
            "INSERT INTO {s}.decisions"
            " (project_id, sequence, id, recorded_at, record, record_sha256)"
            " VALUES ('p-1', 2, 'sneaky', now(), '{{}}', '')",
        )
        with pytest.raises(CorruptStorage, match="written without semreport's locks"):
            store.record(decisions(1, start=5))
        with pytest.raises(CorruptStorage, match="written without semreport's locks"):
            store.record(decisions(70, start=5))  # the COPY path too
        assert store.latest_sequence("p-1") == 1
        store.close()

    def test_an_undecodable_row_is_corrupt_storage(self, pg_schema: str) -> None:
        store = open_pg(pg_schema)
        _execute(
            pg_schema,
            "INSERT INTO {s}.decisions"
            " (project_id, sequence, id, recorded_at, record, record_sha256)"
            """ VALUES ('p-1', 1, 'odd', now(), '{{"id": "odd"}}', '')""",
        )
        with pytest.raises(CorruptStorage, match=r"'p-1' \(decision 'odd', sequence 1\) does not"):
            store.get("p-1", "odd")
        store.close()

    def test_a_dropped_schema_is_a_storage_error(self, pg_schema: str) -> None:
        store = open_pg(pg_schema)
        store.record(decisions(1))
        _execute(pg_schema, "DROP SCHEMA {s} CASCADE")
        with pytest.raises(StorageError, match="reading the latest sequence failed"):
            store.latest_sequence("p-1")
        with pytest.raises(StorageError, match="recording decisions failed"):
            store.record(decisions(1, start=1))
        store.close()
