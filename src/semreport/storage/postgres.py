r"""The PostgreSQL storage adapter (``postgresql://``): Decision Memory on a shared server.

Many service processes may append to and read from one database at once:

- Each project has a counter row in ``projects``; a batch locks the counter
  rows of its projects (``INSERT ... ON CONFLICT DO UPDATE``, in project
  order, so two batches never deadlock) inside the batch's one transaction.
  Sequence numbers are therefore strictly increasing and gap-free per project,
  and a batch commits whole or not at all: a process killed mid-batch leaves
  nothing behind, because the server rolls back the open transaction.
- Large batches go through ``COPY ... FROM STDIN (FORMAT BINARY)``, still in
  the one transaction.
- Records are stored as their wire JSON in a ``json`` column. The JSON
  encoder escapes control characters, so a NUL byte in a statement is kept
  as ``\u0000`` and read back unchanged (``text`` and ``jsonb`` cannot hold
  NUL); lone surrogates are escaped the same way.
- Reads page through the log by sequence number, each page on a short pool
  checkout, up to a bound fixed when the read starts: a read as of ``N``
  never sees ``N + 1``, however many appends follow.
- Connections are checked when taken from the pool, so a restarted server or
  a killed backend costs one reconnect. A call that fails before its commit
  is retried once on a fresh connection; a commit whose answer is lost raises
  :class:`~semreport.StorageError` saying so (a repeat of that batch raises
  :class:`~semreport.DecisionAlreadyRecorded` if it did commit, so nothing is
  ever recorded twice).

Every statement is a constant; identifiers (the schema name) are composed with
:class:`psycopg.sql.Identifier`, values are always bound parameters.

Example:
    >>> from semreport.storage import open_storage
    >>> url = "postgresql://app@db.example/semreport?schema=tenant_a&sslmode=verify-full"
    >>> store = open_storage(url)  # doctest: +SKIP
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import Any, Final, TypeVar
from urllib.parse import unquote, urlsplit, urlunsplit

import attrs
import orjson
import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg.copy import QueuedLibpqWriter
from psycopg_pool import ConnectionPool, PoolTimeout

from semreport.domain import (
    ConfigurationError,
    CorruptStorage,
    Decision,
    DecisionNotFound,
    Evidence,
    IncompatibleSchema,
    LegacySession,
    Link,
    SemReportError,
    SessionNotFound,
    StorageError,
)
from semreport.storage._common import (
    Clock,
    already_recorded,
    check_decision_batch,
    check_session_batch,
    decode_decision,
    decode_session,
    encode_decision,
    encode_session,
    next_recorded_at,
    session_already_recorded,
    utc_now,
)
from semreport.wire import format_datetime, parse_datetime, to_wire

__all__ = ["SCHEMA_VERSION", "PostgresStorage", "open_postgres"]

SCHEMA_VERSION: Final = 1
"""The schema version this library writes and reads."""

DEFAULT_SCHEMA: Final = "semreport"
_SCHEMA_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")
_TABLES: Final = ("semreport_meta", "projects", "decisions", "sessions")
_OPTIONS: Final = ("schema", "pool_min_size", "pool_max_size", "pool_timeout", "copy_threshold")

T = TypeVar("T")


def _q(template: str, schema: str) -> sql.Composed:
    """Compose a constant statement, with ``{s}`` as the schema identifier."""
    return sql.SQL(template).format(s=sql.Identifier(schema))


# Version 1: the whole schema. Later versions append (version, description, statements).
_MIGRATIONS: Final[tuple[tuple[int, str, tuple[str, ...]], ...]] = (
    (
        1,
        "decision log, project counters, legacy sessions",
        (
            "CREATE TABLE {s}.semreport_meta ("
            ' key text COLLATE "C" PRIMARY KEY, value text NOT NULL)',
            "CREATE TABLE {s}.semreport_migrations ("
            " version integer PRIMARY KEY, description text NOT NULL,"
            " applied_at timestamptz NOT NULL DEFAULT now())",
            "CREATE TABLE {s}.projects ("
            ' project_id text COLLATE "C" PRIMARY KEY,'
            " last_sequence bigint NOT NULL DEFAULT 0 CHECK (last_sequence >= 0),"
            " last_recorded_at timestamptz)",
            "CREATE TABLE {s}.decisions ("
            ' project_id text COLLATE "C" NOT NULL,'
            " sequence bigint NOT NULL CHECK (sequence >= 1),"
            ' id text COLLATE "C" NOT NULL,'
            " recorded_at timestamptz NOT NULL,"
            " record json NOT NULL,"
            " PRIMARY KEY (project_id, sequence),"
            " UNIQUE (project_id, id))",
            "CREATE TABLE {s}.sessions ("
            ' id text COLLATE "C" PRIMARY KEY,'
            ' project_id text COLLATE "C" NOT NULL,'
            " started_at timestamptz NOT NULL,"
            " record json NOT NULL)",
            "CREATE INDEX sessions_project ON {s}.sessions (project_id, started_at, id)",
            # Append-only is a property of the store, not only of this library.
            "CREATE FUNCTION {s}.semreport_append_only() RETURNS trigger LANGUAGE plpgsql AS $$"
            " BEGIN RAISE EXCEPTION 'semreport records are append-only (% on %)',"
            " TG_OP, TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege'; END $$",
            "CREATE TRIGGER decisions_append_only BEFORE UPDATE OR DELETE OR TRUNCATE"
            " ON {s}.decisions FOR EACH STATEMENT EXECUTE FUNCTION {s}.semreport_append_only()",
            "CREATE TRIGGER sessions_append_only BEFORE UPDATE OR DELETE OR TRUNCATE"
            " ON {s}.sessions FOR EACH STATEMENT EXECUTE FUNCTION {s}.semreport_append_only()",
        ),
    ),
)
assert _MIGRATIONS[-1][0] == SCHEMA_VERSION


@attrs.frozen
class _Statements:
    """Every statement the adapter runs, composed once for its schema."""

    version: sql.Composed
    set_version: sql.Composed
    add_migration: sql.Composed
    lock_project: sql.Composed
    existing_ids: sql.Composed
    insert_decision: sql.Composed
    copy_decisions: sql.Composed
    advance_project: sql.Composed
    latest: sql.Composed
    page: sql.Composed
    get: sql.Composed
    has_project: sql.Composed
    lock_sessions: sql.Composed
    existing_sessions: sql.Composed
    insert_session: sql.Composed
    get_session: sql.Composed
    sessions: sql.Composed

    @classmethod
    def for_schema(cls, schema: str) -> _Statements:
        return cls(
            version=_q("SELECT value FROM {s}.semreport_meta WHERE key = 'schema_version'", schema),
            set_version=_q(
                "INSERT INTO {s}.semreport_meta (key, value) VALUES ('schema_version', %s)"
                " ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                schema,
            ),
            add_migration=_q(
                "INSERT INTO {s}.semreport_migrations (version, description) VALUES (%s, %s)",
                schema,
            ),
            # The upsert locks the counter row (creating it if need be) and returns the
            # latest committed values, even when another batch just committed.
            lock_project=_q(
                "INSERT INTO {s}.projects AS p (project_id) VALUES (%s)"
                " ON CONFLICT (project_id) DO UPDATE SET project_id = p.project_id"
                " RETURNING last_sequence, last_recorded_at",
                schema,
            ),
            existing_ids=_q(
                "SELECT id FROM {s}.decisions WHERE project_id = %s AND id = ANY(%s) LIMIT 1",
                schema,
            ),
            insert_decision=_q(
                "INSERT INTO {s}.decisions (project_id, sequence, id, recorded_at, record)"
                " VALUES (%s, %s, %s, %s, %s::json)",
                schema,
            ),
            copy_decisions=_q(
                "COPY {s}.decisions (project_id, sequence, id, recorded_at, record)"
                " FROM STDIN (FORMAT BINARY)",
                schema,
            ),
            advance_project=_q(
                "UPDATE {s}.projects SET last_sequence = %s, last_recorded_at = %s"
                " WHERE project_id = %s",
                schema,
            ),
            latest=_q("SELECT last_sequence FROM {s}.projects WHERE project_id = %s", schema),
            page=_q(
                "SELECT sequence, record::text FROM {s}.decisions"
                " WHERE project_id = %s AND sequence > %s AND sequence <= %s"
                " ORDER BY sequence LIMIT %s",
                schema,
            ),
            get=_q(
                "SELECT record::text FROM {s}.decisions WHERE project_id = %s AND id = %s",
                schema,
            ),
            has_project=_q(
                "SELECT EXISTS (SELECT 1 FROM {s}.projects"
                " WHERE project_id = %s AND last_sequence > 0)"
                " OR EXISTS (SELECT 1 FROM {s}.sessions WHERE project_id = %s)",
                schema,
            ),
            # Serialises session writers of this schema only; readers are not blocked,
            # and no privilege beyond INSERT is needed.
            lock_sessions=_q(
                "SELECT pg_advisory_xact_lock(hashtext('semreport.sessions'), hashtext(%s))",
                schema,
            ),
            existing_sessions=_q(
                "SELECT id FROM {s}.sessions WHERE id = ANY(%s) ORDER BY id LIMIT 1", schema
            ),
            insert_session=_q(
                "INSERT INTO {s}.sessions (id, project_id, started_at, record)"
                " VALUES (%s, %s, %s, %s::json)",
                schema,
            ),
            get_session=_q("SELECT record::text FROM {s}.sessions WHERE id = %s", schema),
            sessions=_q(
                "SELECT record::text FROM {s}.sessions WHERE project_id = %s"
                " ORDER BY started_at, id",
                schema,
            ),
        )


def _encode_decision(decision: Decision) -> bytes:
    r"""Return :func:`~semreport.storage._common.encode_decision` as UTF-8, several times faster.

    orjson writes the same JSON value as the shared codec (control characters,
    NUL included, escaped as ``\u0000``, which a ``json`` column keeps). What
    orjson refuses (a lone surrogate, an integer beyond 64 bits) goes through the
    shared codec, which refuses the same text for every adapter or encodes it.
    """
    try:
        return orjson.dumps(_decision_wire(decision))
    except TypeError:
        return encode_decision(decision).encode()


_DECISION_FIELDS: Final = tuple(a.name for a in attrs.fields(Decision))
# The hand-written codecs below mirror the wire converter for the one hot type;
# if the model gains or loses a field they step aside for the converter.
_FAST_CODEC: Final = _DECISION_FIELDS == (
    "id", "project_id", "title", "statement", "agent", "rationale", "domain", "status",
    "session_id", "tags", "attributes", "evidence", "links", "elements", "sequence",
    "recorded_at",
) and tuple(a.name for a in attrs.fields(Evidence)) == (
    "kind", "ref", "title", "locator", "quote"
)  # fmt: skip


_COPIED_FIELDS: Final = tuple(n for n in _DECISION_FIELDS if n not in {"sequence", "recorded_at"})


def _decision_wire(d: Decision) -> dict[str, Any]:
    """Return ``to_wire(d)`` for a recorded decision, several times faster."""
    if not _FAST_CODEC:  # pragma: no cover - only when the model changed
        wire: dict[str, Any] = to_wire(d)
        return wire
    # Enumeration members are str subclasses: equal to their values, and written as
    # them by orjson. The attributes' private dict is already in sorted key order.
    return {
        "id": d.id,
        "project_id": d.project_id,
        "title": d.title,
        "statement": d.statement,
        "agent": d.agent,
        "rationale": d.rationale,
        "domain": d.domain,
        "status": d.status,
        "session_id": d.session_id,
        "tags": sorted(d.tags),
        "attributes": dict(d.attributes._data),
        "evidence": [
            {"kind": e.kind, "ref": e.ref, "title": e.title, "locator": e.locator,
             "quote": e.quote}
            for e in d.evidence
        ],
        "links": [{"kind": link.kind, "target": link.target} for link in d.links],
        "elements": sorted(d.elements),
        "sequence": d.sequence,
        "recorded_at": None if d.recorded_at is None else format_datetime(d.recorded_at),
    }  # fmt: skip


def _decode_decision(text: str) -> Decision:
    """Return :func:`~semreport.storage._common.decode_decision` of a stored row, faster.

    Rows were written by an adapter, so the model's own validators are check
    enough; anything unexpected goes through the shared codec, which names
    the problem (:class:`~semreport.CorruptStorage`).
    """
    if _FAST_CODEC:
        try:
            wire = orjson.loads(text)
            at = wire["recorded_at"]
            if len(wire) == len(_DECISION_FIELDS) and isinstance(at, str):
                fields: dict[str, Any] = {
                    **wire,
                    "evidence": [Evidence(**e) for e in wire["evidence"]],
                    "links": [Link(**link) for link in wire["links"]],
                    "recorded_at": parse_datetime(at),
                }
                return Decision(**fields)
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            pass
    return decode_decision(text)


def _stamped(decision: Decision, sequence: int, recorded_at: datetime) -> Decision:
    """Return ``decision.recorded(sequence, recorded_at)`` without re-validating every field.

    The decision was validated when it was built and ``recorded_at`` comes from
    :func:`~semreport.storage._common.next_recorded_at` (aware, UTC), so copying
    the slots is equivalent and several times faster.
    """
    new = object.__new__(Decision)
    for name in _COPIED_FIELDS:
        object.__setattr__(new, name, getattr(decision, name))
    object.__setattr__(new, "sequence", sequence)
    object.__setattr__(new, "recorded_at", recorded_at)
    return new


def _redact(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


class _AmbiguousCommit(Exception):
    """The connection failed while the commit was in flight."""


class PostgresStorage:
    """Decision Memory and legacy sessions in a PostgreSQL schema, shared by many processes.

    Build it with :func:`open_postgres` (or ``semreport.open("postgresql://...")``).
    Thread-safe: each call takes a connection from the pool for its duration.
    """

    def __init__(
        self,
        conninfo: str,
        *,
        schema: str = DEFAULT_SCHEMA,
        pool_min_size: int = 1,
        pool_max_size: int = 4,
        pool_timeout: float = 30.0,
        copy_threshold: int = 64,
        page_size: int = 5000,
        clock: Clock = utc_now,
        display_url: str | None = None,
    ) -> None:
        if not _SCHEMA_NAME.fullmatch(schema):
            raise ConfigurationError(
                f"schema {schema[:80]!r} is not a plain PostgreSQL name "
                f"(must match ^{_SCHEMA_NAME.pattern}$)"
            )
        if not 0 <= pool_min_size <= pool_max_size or pool_max_size < 1:
            raise ConfigurationError(
                f"pool sizes must satisfy 0 <= pool_min_size <= pool_max_size >= 1, "
                f"got {pool_min_size} and {pool_max_size}"
            )
        if pool_timeout <= 0 or copy_threshold < 1 or page_size < 1:
            raise ConfigurationError(
                "pool_timeout must be positive, copy_threshold and page_size at least 1"
            )
        self.schema = schema
        self._clock = clock
        self._copy_threshold = copy_threshold
        self._page_size = page_size
        self._timeout = pool_timeout
        self._url = display_url or "postgresql://"
        self._sql = _Statements.for_schema(schema)
        self._closed = False
        self._close_lock = threading.Lock()
        self._pool: ConnectionPool[psycopg.Connection[Any]] = ConnectionPool(
            conninfo,
            min_size=pool_min_size,
            max_size=pool_max_size,
            timeout=pool_timeout,
            kwargs={"autocommit": True},
            check=ConnectionPool.check_connection,
            open=False,
            name=f"semreport:{schema}",
        )
        try:
            # One direct connection first: a bad password or host fails at once, with
            # the server's own words, rather than as a pool timeout.
            direct = conninfo
            if "connect_timeout" not in conninfo_to_dict(conninfo):
                direct = make_conninfo(conninfo, connect_timeout=max(1, round(pool_timeout)))
            with psycopg.connect(direct, autocommit=True) as conn:
                self._migrate(conn)
            self._pool.open(wait=pool_min_size > 0, timeout=pool_timeout)
        except BaseException as exc:
            self._pool.close()
            self._closed = True
            if isinstance(exc, SemReportError):
                raise
            if isinstance(exc, PoolTimeout | psycopg.Error):
                raise StorageError(
                    f"cannot use PostgreSQL at {self._url} (schema {schema!r}): {exc}"
                ) from exc
            raise

    def __repr__(self) -> str:
        return f"PostgresStorage(url={self._url!r}, schema={self.schema!r})"

    @property
    def pool(self) -> ConnectionPool[psycopg.Connection[Any]]:
        """The connection pool, for sizing and statistics (``pool.get_stats()``)."""
        return self._pool

    # -- schema ----------------------------------------------------------------

    def _read_version(self, conn: psycopg.Connection[Any]) -> int | None:
        found = conn.execute(
            "SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = %s AND tablename = %s",
            (self.schema, "semreport_meta"),
        ).fetchone()
        if found is None:
            return None
        row = conn.execute(self._sql.version).fetchone()
        if row is None or not str(row[0]).isdigit():
            raise IncompatibleSchema(
                f"schema {self.schema!r} has a semreport_meta table without a valid "
                "schema_version; it is not a semreport schema"
            )
        return int(row[0])

    def _check_version(self, version: int | None) -> None:
        if version is not None and version > SCHEMA_VERSION:
            raise IncompatibleSchema(
                f"schema {self.schema!r} is at version {version}, newer than this library "
                f"knows ({SCHEMA_VERSION}); upgrade semreport to use it"
            )

    def _migrate(self, conn: psycopg.Connection[Any]) -> None:
        # Read first without writing, so that a read-only replica opens fine.
        version = self._read_version(conn)
        self._check_version(version)
        if version == SCHEMA_VERSION:
            return
        with conn.transaction():
            conn.execute(
                "SELECT pg_advisory_xact_lock(hashtext('semreport.migrate'), hashtext(%s))",
                (self.schema,),
            )
            version = self._read_version(conn)  # another process may have migrated
            self._check_version(version)
            if version is None:
                self._create_schema(conn)
                version = 0
            for number, description, statements in _MIGRATIONS:
                if number <= version:
                    continue
                for statement in statements:
                    conn.execute(_q(statement, self.schema))
                conn.execute(self._sql.add_migration, (number, description))
                conn.execute(self._sql.set_version, (str(number),))

    def _create_schema(self, conn: psycopg.Connection[Any]) -> None:
        foreign = conn.execute(
            "SELECT tablename FROM pg_catalog.pg_tables"
            " WHERE schemaname = %s AND tablename = ANY(%s) ORDER BY tablename",
            (self.schema, list(_TABLES)),
        ).fetchall()
        if foreign:
            names = ", ".join(row[0] for row in foreign)
            raise IncompatibleSchema(
                f"schema {self.schema!r} already holds tables named {names} but no "
                "semreport_meta: it is not a semreport schema; choose another schema"
            )
        conn.execute(_q("CREATE SCHEMA IF NOT EXISTS {s}", self.schema))

    # -- plumbing ----------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            raise StorageError("the storage is closed")

    def _fail(self, what: str, exc: BaseException) -> StorageError:
        if isinstance(exc, PoolTimeout):
            return StorageError(
                f"{what}: no PostgreSQL connection to {self._url} within {self._timeout:g} s "
                f"(is the server up, is the pool large enough?): {exc}"
            )
        return StorageError(f"{what} failed on PostgreSQL at {self._url}: {exc}")

    def _read(self, what: str, body: Callable[[psycopg.Connection[Any]], T]) -> T:
        """Run a read; a connection lost on the way is retried once on a fresh one."""
        self._check_open()
        for attempt in (1, 2):
            try:
                with self._pool.connection() as conn:
                    return body(conn)
            except psycopg.OperationalError as exc:
                if attempt == 2:
                    raise self._fail(what, exc) from exc
            except (PoolTimeout, psycopg.Error) as exc:
                raise self._fail(what, exc) from exc
        raise AssertionError("unreachable")  # pragma: no cover

    def _write(self, what: str, body: Callable[[psycopg.Connection[Any]], T]) -> T:
        """Run ``body`` in one transaction; retry once if the connection failed before commit."""
        self._check_open()
        for attempt in (1, 2):
            try:
                with self._pool.connection() as conn:
                    return self._transaction(conn, body)
            except _AmbiguousCommit as exc:
                cause = exc.__cause__
                raise StorageError(
                    f"{what}: the connection to {self._url} was lost while committing, so "
                    "whether the batch was recorded is unknown; read it back before "
                    "retrying (a repeat of a recorded batch raises an already-recorded "
                    f"error and records nothing): {cause}"
                ) from cause
            except psycopg.errors.UniqueViolation as exc:
                raise self._duplicate(what, exc) from exc
            except psycopg.OperationalError as exc:
                # The transaction never committed: the server rolled it back.
                if attempt == 2:
                    raise self._fail(what, exc) from exc
            except (PoolTimeout, psycopg.Error) as exc:
                raise self._fail(what, exc) from exc
        raise AssertionError("unreachable")  # pragma: no cover

    @staticmethod
    def _transaction(
        conn: psycopg.Connection[Any], body: Callable[[psycopg.Connection[Any]], T]
    ) -> T:
        body_done = False
        try:
            with conn.transaction():
                result = body(conn)
                body_done = True
        except psycopg.OperationalError as exc:
            if body_done:
                raise _AmbiguousCommit() from exc
            raise
        return result

    @staticmethod
    def _duplicate(what: str, exc: psycopg.Error) -> SemReportError:
        # The ids are checked under the project's lock first, so a unique violation
        # means rows were written around this library (by hand, or another tool).
        return CorruptStorage(
            f"{what}: the batch collides with a stored row that was written without "
            f"semreport's locks ({exc.diag.message_primary}); nothing was recorded"
        )

    # -- DecisionMemory --------------------------------------------------------

    def decisions(
        self, project_id: str, *, after: int = 0, as_of: int | None = None
    ) -> Iterator[Decision]:
        """Yield the project's decisions with ``after < sequence <= as_of``, in order.

        The upper bound is fixed when this is called (``as_of``, at most the
        latest sequence then); records appended later never appear.
        """
        latest = self.latest_sequence(project_id)
        end = latest if as_of is None else max(0, min(as_of, latest))
        return self._pages(project_id, max(after, 0), end)

    def _pages(self, project_id: str, start: int, end: int) -> Iterator[Decision]:
        while start < end:
            rows: list[tuple[int, str]] = self._read(
                "reading decisions",
                lambda conn, start=start: conn.execute(  # type: ignore[misc]
                    self._sql.page, (project_id, start, end, self._page_size)
                ).fetchall(),
            )
            if not rows:
                return
            for sequence, record in rows:
                yield _decode_decision(record)
                start = sequence

    def get(self, project_id: str, decision_id: str) -> Decision:
        """Return one decision, or raise :class:`~semreport.DecisionNotFound`."""
        row = self._read(
            "reading a decision",
            lambda conn: conn.execute(self._sql.get, (project_id, decision_id)).fetchone(),
        )
        if row is None:
            raise DecisionNotFound(f"project {project_id!r} has no decision {decision_id!r}")
        return _decode_decision(row[0])

    def latest_sequence(self, project_id: str) -> int:
        """Return the project's highest sequence number (0 when empty)."""
        row = self._read(
            "reading the latest sequence",
            lambda conn: conn.execute(self._sql.latest, (project_id,)).fetchone(),
        )
        return 0 if row is None else int(row[0])

    def has_project(self, project_id: str) -> bool:
        """Whether the project holds any decision or legacy session."""
        row = self._read(
            "looking up a project",
            lambda conn: conn.execute(self._sql.has_project, (project_id, project_id)).fetchone(),
        )
        return bool(row and row[0])

    # -- DecisionLog -----------------------------------------------------------

    def record(self, decisions: Sequence[Decision]) -> list[Decision]:
        """Append a batch in one transaction; see :class:`~semreport.domain.DecisionLog`."""
        batch = check_decision_batch(decisions)
        self._check_open()
        if not batch:
            return []
        return self._write("recording decisions", lambda conn: self._record(conn, batch))

    def _record(self, conn: psycopg.Connection[Any], batch: list[Decision]) -> list[Decision]:
        by_project: dict[str, list[Decision]] = {}
        for decision in batch:
            by_project.setdefault(decision.project_id, []).append(decision)
        state: dict[str, tuple[int, datetime | None]] = {}
        for project_id in sorted(by_project):  # one lock order: no deadlock between batches
            row = conn.execute(self._sql.lock_project, (project_id,)).fetchone()
            assert row is not None
            state[project_id] = (int(row[0]), row[1])
        for project_id, members in by_project.items():
            ids = [d.id for d in members]
            found = conn.execute(self._sql.existing_ids, (project_id, ids)).fetchone()
            if found is not None:
                raise already_recorded(next(d for d in members if d.id == found[0]))
        now = self._clock()
        stamps: dict[str, datetime] = {}
        sequences: dict[str, int] = {}
        for project_id, (last_sequence, last_at) in state.items():
            stamps[project_id] = next_recorded_at(now, last_at)
            sequences[project_id] = last_sequence
        stored: list[Decision] = []
        for decision in batch:
            project_id = decision.project_id
            sequences[project_id] += 1
            stored.append(_stamped(decision, sequences[project_id], stamps[project_id]))
        # Encoded while earlier rows stream to the server; text the codec refuses
        # raises here, inside the transaction, which then writes nothing.
        rows = (
            (d.project_id, d.sequence, d.id, d.recorded_at, _encode_decision(d)) for d in stored
        )
        if len(stored) >= self._copy_threshold:
            cursor = conn.cursor()
            with cursor.copy(self._sql.copy_decisions, writer=QueuedLibpqWriter(cursor)) as copy:
                # The record goes as raw UTF-8 bytes; the server parses them as json.
                copy.set_types(["text", "int8", "text", "timestamptz", "bytea"])
                for row in rows:
                    copy.write_row(row)
        else:
            conn.cursor().executemany(
                self._sql.insert_decision, [(*row[:4], row[4].decode()) for row in rows]
            )
        conn.cursor().executemany(
            self._sql.advance_project,
            [(sequences[p], stamps[p], p) for p in sorted(by_project)],
        )
        return stored

    # -- SessionStore / SessionLog ---------------------------------------------

    def get_session(self, session_id: str) -> LegacySession:
        """Return one session, or raise :class:`~semreport.SessionNotFound`."""
        row = self._read(
            "reading a session",
            lambda conn: conn.execute(self._sql.get_session, (session_id,)).fetchone(),
        )
        if row is None:
            raise SessionNotFound(f"no legacy session {session_id!r}")
        return decode_session(row[0])

    def sessions(self, project_id: str) -> Iterator[LegacySession]:
        """Yield the project's sessions ordered by start time, then id."""
        rows = self._read(
            "reading sessions",
            lambda conn: conn.execute(self._sql.sessions, (project_id,)).fetchall(),
        )
        return iter([decode_session(row[0]) for row in rows])

    def record_sessions(self, sessions: Sequence[LegacySession]) -> list[LegacySession]:
        """Store a batch of sessions in one transaction."""
        batch = check_session_batch(sessions)
        self._check_open()
        if not batch:
            return []
        return self._write("recording sessions", lambda conn: self._record_sessions(conn, batch))

    def _record_sessions(
        self, conn: psycopg.Connection[Any], batch: list[LegacySession]
    ) -> list[LegacySession]:
        conn.execute(self._sql.lock_sessions, (self.schema,))
        found = conn.execute(self._sql.existing_sessions, ([s.id for s in batch],)).fetchone()
        if found is not None:
            raise session_already_recorded(next(s for s in batch if s.id == found[0]))
        conn.cursor().executemany(
            self._sql.insert_session,
            [(s.id, s.project_id, s.started_at, encode_session(s)) for s in batch],
        )
        return batch

    def close(self) -> None:
        """Close the pool's connections; the storage is unusable afterwards."""
        with self._close_lock:
            if not self._closed:
                self._closed = True
                self._pool.close()


def _split_url(url: str) -> tuple[str, dict[str, str]]:
    """Split semreport's own query parameters off a libpq URL, leaving the rest byte for byte."""
    parts = urlsplit(url)
    ours: dict[str, str] = {}
    kept: list[str] = []
    for pair in parts.query.split("&") if parts.query else ():
        key, _, value = pair.partition("=")
        if unquote(key) in _OPTIONS:
            ours[unquote(key)] = unquote(value)
        else:
            kept.append(pair)  # libpq decodes its own parameters (and takes '+' literally)
    if parts.scheme.lower() == "postgres":
        parts = parts._replace(scheme="postgresql")
    return urlunsplit(parts._replace(query="&".join(kept))), ours


def _number(name: str, value: object, kind: Callable[[Any], T]) -> T:
    if isinstance(value, bool):
        raise ConfigurationError(f"option {name} must be a number, got {value!r}")
    try:
        return kind(value)
    except (TypeError, ValueError):
        raise ConfigurationError(f"option {name} must be a number, got {value!r}") from None


def open_postgres(url: str, **options: Any) -> PostgresStorage:
    """Open (creating or migrating its schema) the PostgreSQL store a URL names.

    Args:
        url: A libpq URL, ``postgresql://user:password@host:5432/dbname?sslmode=verify-full``.
            Every libpq parameter may appear in the query string (``sslmode``,
            ``sslrootcert``, ``connect_timeout``, ``application_name``,
            ``target_session_attrs``...), as may the options below.
        **options: ``schema`` (default ``"semreport"``), ``pool_min_size`` (1),
            ``pool_max_size`` (4), ``pool_timeout`` (seconds to wait for a
            connection, 30), ``copy_threshold`` (batches this large use COPY, 64),
            ``page_size`` (rows per read page, 5000) and ``clock``. Keywords win
            over the same names in the URL.

    Raises:
        ConfigurationError: an unknown or malformed option.
        StorageError: the server cannot be reached.
        IncompatibleSchema: the schema is newer than this library, or not semreport's.
    """
    conninfo, from_url = _split_url(url)
    unknown = sorted(set(options) - {*_OPTIONS, "page_size", "clock"})
    if unknown:
        raise ConfigurationError(f"postgresql:// does not take the option(s) {unknown}")
    merged: dict[str, Any] = {**from_url, **options}
    kwargs: dict[str, Any] = {"display_url": _redact(url)}
    if "schema" in merged:
        kwargs["schema"] = str(merged["schema"])
    for name in ("pool_min_size", "pool_max_size", "copy_threshold", "page_size"):
        if name in merged:
            kwargs[name] = _number(name, merged[name], int)
    if "pool_timeout" in merged:
        kwargs["pool_timeout"] = _number("pool_timeout", merged["pool_timeout"], float)
    if "clock" in merged:
        kwargs["clock"] = merged["clock"]
    return PostgresStorage(conninfo, **kwargs)
