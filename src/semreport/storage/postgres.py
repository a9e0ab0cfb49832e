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
- Each row keeps a SHA-256 (``record_sha256``): for a decision, the hash of
  its canonical record bytes, which is its citation id; every read checks it,
  so a record altered in the database is a :class:`~semreport.CorruptStorage`
  naming it. Rows store the canonical bytes themselves (with any
  whole-number float attributes kept as floats after them), so the check is
  one ``hashlib`` call.
- Connections are checked when taken from the pool, so a restarted server or
  a killed backend costs one reconnect: once one connection is found broken,
  every idle one is checked at once, rather than one per backed-off retry. A
  call whose connection is lost before its commit is retried once on a fresh
  connection; a commit whose answer is lost raises
  :class:`~semreport.StorageError` saying so (a repeat of that batch raises
  :class:`~semreport.DecisionAlreadyRecorded` if it did commit, so nothing is
  ever recorded twice). A server that does not answer fails the call once,
  after ``pool_timeout``: waiting for a connection is never retried.
- Nothing waits without bound: every connection runs with ``lock_timeout``
  (a writer waiting for a project's lock), ``idle_in_transaction_session_timeout``
  (the server ends a session that stalls inside a transaction, releasing its
  locks) and ``statement_timeout`` (off by default), and connects with
  ``connect_timeout``; each is an option (see :func:`open_postgres`), and
  running into one is a :class:`~semreport.StorageError` that says which.

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
    IncompatibleSchema,
    LegacySession,
    ProjectSummary,
    SemReportError,
    SessionNotFound,
    StorageError,
    StorageNotFound,
    StoredRecord,
)
from semreport.storage._common import (
    Clock,
    DecisionRow,
    RecordReads,
    already_recorded,
    check_decision_batch,
    check_session_batch,
    decision_row,
    next_recorded_at,
    read_record,
    read_records,
    read_session,
    rehash_decision,
    session_already_recorded,
    session_row,
    utc_now,
)

__all__ = [
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT",
    "DEFAULT_LOCK_TIMEOUT",
    "DEFAULT_STATEMENT_TIMEOUT",
    "SCHEMA_VERSION",
    "PostgresStorage",
    "open_postgres",
]

SCHEMA_VERSION: Final = 2
"""The schema version this library writes and reads."""

DEFAULT_LOCK_TIMEOUT: Final = 10.0
"""Seconds a writer waits for a project's (or the sessions') lock before failing."""
DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT: Final = 60.0
"""Seconds the server lets one of our sessions sit idle inside a transaction."""
DEFAULT_STATEMENT_TIMEOUT: Final = 0.0
"""Seconds one statement may run (0: no limit, so that large COPY batches finish)."""
DEFAULT_CONNECT_TIMEOUT: Final = 10.0
"""Seconds one connection attempt may take (libpq's ``connect_timeout``)."""

DEFAULT_SCHEMA: Final = "semreport"
_SCHEMA_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")
_TABLES: Final = ("semreport_meta", "projects", "decisions", "sessions")
_TIMEOUTS: Final = (
    "lock_timeout",
    "idle_in_transaction_session_timeout",
    "statement_timeout",
    "connect_timeout",
)
_OPTIONS: Final = (
    "schema",
    "pool_min_size",
    "pool_max_size",
    "pool_timeout",
    "copy_threshold",
    *_TIMEOUTS[:3],
)
_REHASH_CHUNK: Final = 1000

T = TypeVar("T")


def _q(template: str, schema: str) -> sql.Composed:
    """Compose a constant statement, with ``{s}`` as the schema identifier."""
    return sql.SQL(template).format(s=sql.Identifier(schema))


def _hash_stored_rows(conn: psycopg.Connection[Any], schema: str) -> None:
    """Migration 2's data step: give every stored row its hash.

    Each decision is decoded and stored again as a new row would be, with its
    citation hash (the hash its reports already cite); a row that does not
    decode keeps its text and an empty hash, so that reading it raises
    :class:`~semreport.CorruptStorage`. Session rows get the SHA-256 of their
    text. The append-only triggers step aside inside this one transaction.
    """
    for table in ("decisions", "sessions"):
        conn.execute(_q(f"ALTER TABLE {{s}}.{table} DISABLE TRIGGER {table}_append_only", schema))
    last: tuple[str, int] = ("", 0)
    while True:
        rows = conn.execute(
            _q(
                "SELECT project_id, sequence, record::text FROM {s}.decisions"
                " WHERE (project_id, sequence) > (%s, %s) ORDER BY project_id, sequence LIMIT %s",
                schema,
            ),
            (*last, _REHASH_CHUNK),
        ).fetchall()
        if not rows:
            break
        conn.cursor().executemany(
            _q(
                "UPDATE {s}.decisions SET record = %s::json, record_sha256 = %s"
                " WHERE project_id = %s AND sequence = %s",
                schema,
            ),
            [(*rehash_decision(text), project_id, seq) for project_id, seq, text in rows],
        )
        last = (rows[-1][0], rows[-1][1])
    conn.execute(
        _q(
            "UPDATE {s}.sessions SET record_sha256 = encode(sha256(convert_to(record::text,"
            " 'UTF8')), 'hex')",
            schema,
        )
    )
    for table in ("decisions", "sessions"):
        conn.execute(_q(f"ALTER TABLE {{s}}.{table} ENABLE TRIGGER {table}_append_only", schema))
        conn.execute(
            _q(f"ALTER TABLE {{s}}.{table} ALTER COLUMN record_sha256 SET NOT NULL", schema)
        )


_Step = Callable[[psycopg.Connection[Any], str], None]

# Each version: (version, description, statements, data step or None), applied in order.
_MIGRATIONS: Final[tuple[tuple[int, str, tuple[str, ...], _Step | None], ...]] = (
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
        None,
    ),
    (
        2,
        "tamper evidence: each row keeps a SHA-256 (a decision's is its citation hash)",
        (
            "ALTER TABLE {s}.decisions ADD COLUMN record_sha256 text",
            "ALTER TABLE {s}.sessions ADD COLUMN record_sha256 text",
        ),
        _hash_stored_rows,
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
    get_many: sql.Composed
    has_project: sql.Composed
    projects: sql.Composed
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
                "INSERT INTO {s}.decisions"
                " (project_id, sequence, id, recorded_at, record, record_sha256)"
                " VALUES (%s, %s, %s, %s, %s::json, %s)",
                schema,
            ),
            copy_decisions=_q(
                "COPY {s}.decisions"
                " (project_id, sequence, id, recorded_at, record, record_sha256)"
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
                "SELECT sequence, record::text, record_sha256 FROM {s}.decisions"
                " WHERE project_id = %s AND sequence > %s AND sequence <= %s"
                " ORDER BY sequence LIMIT %s",
                schema,
            ),
            get=_q(
                "SELECT sequence, record::text, record_sha256 FROM {s}.decisions"
                " WHERE project_id = %s AND id = %s",
                schema,
            ),
            get_many=_q(
                "SELECT id, sequence, record::text, record_sha256 FROM {s}.decisions"
                " WHERE project_id = %s AND id = ANY(%s)",
                schema,
            ),
            has_project=_q(
                "SELECT EXISTS (SELECT 1 FROM {s}.projects"
                " WHERE project_id = %s AND last_sequence > 0)"
                " OR EXISTS (SELECT 1 FROM {s}.sessions WHERE project_id = %s)",
                schema,
            ),
            projects=_q(
                "SELECT project_id, coalesce(sum(decisions), 0), coalesce(max(latest), 0),"
                " coalesce(sum(sessions), 0) FROM ("
                " SELECT project_id, count(*) AS decisions, max(sequence) AS latest,"
                " 0 AS sessions FROM {s}.decisions GROUP BY project_id"
                " UNION ALL"
                " SELECT project_id, 0, 0, count(*) FROM {s}.sessions GROUP BY project_id"
                ') AS counted GROUP BY project_id ORDER BY project_id COLLATE "C"',
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
                "INSERT INTO {s}.sessions (id, project_id, started_at, record, record_sha256)"
                " VALUES (%s, %s, %s, %s::json, %s)",
                schema,
            ),
            get_session=_q(
                "SELECT record::text, record_sha256 FROM {s}.sessions WHERE id = %s", schema
            ),
            sessions=_q(
                "SELECT id, record::text, record_sha256 FROM {s}.sessions WHERE project_id = %s"
                " ORDER BY started_at, id",
                schema,
            ),
        )


def _redact(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


class _AmbiguousCommit(Exception):
    """The connection failed while the commit was in flight."""


class PostgresStorage(RecordReads):
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
        create: bool = True,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
        idle_in_transaction_session_timeout: float = DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT,
        statement_timeout: float = DEFAULT_STATEMENT_TIMEOUT,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
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
        limits = {
            "lock_timeout": lock_timeout,
            "idle_in_transaction_session_timeout": idle_in_transaction_session_timeout,
            "statement_timeout": statement_timeout,
        }
        for name, seconds in (*limits.items(), ("connect_timeout", connect_timeout)):
            if not 0 <= seconds < 2_000_000:  # the server keeps milliseconds in an int
                raise ConfigurationError(f"{name} must be 0 (no limit) or more seconds")
        self._limits = {name: round(seconds * 1000) for name, seconds in limits.items()}
        self.schema = schema
        self._clock = clock
        self._copy_threshold = copy_threshold
        self._page_size = page_size
        self._timeout = pool_timeout
        self._url = display_url or "postgresql://"
        self._sql = _Statements.for_schema(schema)
        self._closed = False
        self._close_lock = threading.Lock()
        # Every connection, the pool's and the first direct one, connects within the
        # timeout (libpq waits for ever by default); a URL's own value wins.
        if "connect_timeout" not in conninfo_to_dict(conninfo) and connect_timeout > 0:
            conninfo = make_conninfo(conninfo, connect_timeout=max(1, round(connect_timeout)))
        self._pool: ConnectionPool[psycopg.Connection[Any]] = ConnectionPool(
            conninfo,
            min_size=pool_min_size,
            max_size=pool_max_size,
            timeout=pool_timeout,
            kwargs={"autocommit": True},
            configure=self._configure,
            check=self._check,
            open=False,
            name=f"semreport:{schema}",
        )
        try:
            # One direct connection first: a bad password or host fails at once, with
            # the server's own words, rather than as a pool timeout.
            with psycopg.connect(conninfo, autocommit=True) as conn:
                self._configure(conn)
                self._migrate(conn, create=create)
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

    def _configure(self, conn: psycopg.Connection[Any]) -> None:
        """Set the session's time limits (server settings, in milliseconds)."""
        conn.execute(
            "SELECT set_config('lock_timeout', %s, false),"
            " set_config('idle_in_transaction_session_timeout', %s, false),"
            " set_config('statement_timeout', %s, false)",
            [str(self._limits[name]) for name in _TIMEOUTS[:3]],
        )

    def _check(self, conn: psycopg.Connection[Any]) -> None:
        """Check a connection taken from the pool; on a broken one, check every idle one.

        One broken connection usually means a restarted server or cut network,
        which broke its idle siblings too. The pool waits longer before each
        new check (no wait, then 1, 2, 4 s...), so finding them one by one
        would make a call wait seconds, or time out, with a large pool;
        checking the idle ones at once lets the call wait for one fresh
        connection instead.
        """
        try:
            ConnectionPool.check_connection(conn)
        except Exception:
            self._pool.check()
            raise

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

    def _migrate(self, conn: psycopg.Connection[Any], *, create: bool) -> None:
        # Read first without writing, so that a read-only replica opens fine.
        version = self._read_version(conn)
        self._check_version(version)
        if version == SCHEMA_VERSION:
            return
        if version is None and not create:
            raise StorageNotFound(
                f"schema {self.schema!r} on {self._url} holds no semreport store "
                "(opening it for reading does not create it)"
            )
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
            for number, description, statements, step in _MIGRATIONS:
                if number <= version:
                    continue
                for statement in statements:
                    conn.execute(_q(statement, self.schema))
                if step is not None:
                    step(conn, self.schema)
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
        if isinstance(exc, psycopg.errors.LockNotAvailable):
            return StorageError(
                f"{what}: another transaction held the lock for longer than lock_timeout "
                f"({self._seconds('lock_timeout')}; a stalled or dead client?), so nothing "
                f"was recorded: {exc}"
            )
        if isinstance(exc, psycopg.errors.QueryCanceled):
            return StorageError(
                f"{what}: a statement ran for longer than statement_timeout "
                f"({self._seconds('statement_timeout')}) and was cancelled: {exc}"
            )
        if isinstance(exc, psycopg.errors.IdleInTransactionSessionTimeout):
            return StorageError(
                f"{what}: the transaction stalled for longer than "
                f"idle_in_transaction_session_timeout "
                f"({self._seconds('idle_in_transaction_session_timeout')}) and the server "
                f"ended it, so nothing was recorded: {exc}"
            )
        return StorageError(f"{what} failed on PostgreSQL at {self._url}: {exc}")

    def _seconds(self, name: str) -> str:
        return f"{self._limits[name] / 1000:g} s"

    @staticmethod
    def _connection_lost(exc: psycopg.Error) -> bool:
        """Whether ``exc`` means the connection broke (worth one retry on a fresh one).

        A pool timeout (no server within ``pool_timeout``) and the server's own
        refusals, a lock or statement timeout among them, are not: retrying
        would only double the wait.
        """
        if isinstance(exc, PoolTimeout) or not isinstance(exc, psycopg.OperationalError):
            return False
        state = exc.sqlstate
        return state is None or state.startswith("08") or state in {"57P01", "57P02", "57P03"}

    def _read(self, what: str, body: Callable[[psycopg.Connection[Any]], T]) -> T:
        """Run a read; a connection lost on the way is retried once on a fresh one."""
        self._check_open()
        for attempt in (1, 2):
            try:
                with self._pool.connection() as conn:
                    return body(conn)
            except psycopg.Error as exc:
                if attempt == 2 or not self._connection_lost(exc):
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
                    f"{what}: the connection to PostgreSQL at {self._url} was lost while "
                    "committing, so whether the batch was recorded is unknown; read it back "
                    "before retrying (a repeat of a recorded batch raises an already-recorded "
                    f"error and records nothing): {cause}"
                ) from cause
            except psycopg.errors.UniqueViolation as exc:
                raise self._duplicate(what, exc) from exc
            except psycopg.Error as exc:
                # Never committed (the server rolled it back): one retry if the connection broke.
                if attempt == 2 or not self._connection_lost(exc):
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

    def records(
        self, project_id: str, *, after: int = 0, as_of: int | None = None
    ) -> Iterator[StoredRecord]:
        """Yield the records :meth:`decisions` would yield, as checked data."""
        latest = self.latest_sequence(project_id)
        end = latest if as_of is None else max(0, min(as_of, latest))
        return self._pages(project_id, max(after, 0), end)

    def _pages(self, project_id: str, start: int, end: int) -> Iterator[StoredRecord]:
        while start < end:
            rows: list[tuple[int, str, str | None]] = self._read(
                "reading decisions",
                lambda conn, start=start: conn.execute(  # type: ignore[misc]
                    self._sql.page, (project_id, start, end, self._page_size)
                ).fetchall(),
            )
            for sequence, record, sha256 in rows:
                if sequence != start + 1:
                    break
                yield read_record(record, sha256, project_id=project_id, sequence=sequence)
                start = sequence
            else:
                if rows:
                    continue
            # The project's counter says the log reaches ``end``: a record is missing.
            raise CorruptStorage(
                f"the stored log of project {project_id!r} has no record at sequence "
                f"{start + 1}: a row was removed or damaged at rest"
            )

    def get_record(self, project_id: str, decision_id: str) -> StoredRecord:
        """Return one stored record, or raise :class:`~semreport.DecisionNotFound`."""
        row = self._read(
            "reading a decision",
            lambda conn: conn.execute(self._sql.get, (project_id, decision_id)).fetchone(),
        )
        if row is None:
            raise DecisionNotFound(f"project {project_id!r} has no decision {decision_id!r}")
        sequence, record, sha256 = row
        return read_record(
            record, sha256, project_id=project_id, sequence=sequence, decision_id=decision_id
        )

    def get_records(self, project_id: str, decision_ids: Sequence[str]) -> list[StoredRecord]:
        """Return the stored records of ``decision_ids`` in the order given, in one query."""
        if not decision_ids:
            return []
        wanted = list(dict.fromkeys(decision_ids))
        found = self._read(
            "reading decisions",
            lambda conn: conn.execute(self._sql.get_many, (project_id, wanted)).fetchall(),
        )
        rows = {
            decision_id: (sequence, record, sha256)
            for decision_id, sequence, record, sha256 in found
        }
        return read_records(project_id, decision_ids, rows)

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

    def projects(self) -> list[ProjectSummary]:
        """Every project holding a decision or a session, ordered by id, with its counts."""
        rows: list[tuple[str, int, int, int]] = self._read(
            "listing projects", lambda conn: conn.execute(self._sql.projects).fetchall()
        )
        return [
            ProjectSummary(
                project_id=name,
                decisions=int(decisions),
                latest_sequence=int(latest),
                sessions=int(sessions),
            )
            for name, decisions, latest, sessions in rows
        ]

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
        stored: list[DecisionRow] = []
        for decision in batch:
            project_id = decision.project_id
            sequences[project_id] += 1
            stored.append(decision_row(decision, sequences[project_id], stamps[project_id]))
        rows = (
            (
                row.decision.project_id,
                row.decision.sequence,
                row.decision.id,
                row.decision.recorded_at,
                row.body,
                row.sha256,
            )
            for row in stored
        )
        if len(stored) >= self._copy_threshold:
            cursor = conn.cursor()
            with cursor.copy(self._sql.copy_decisions, writer=QueuedLibpqWriter(cursor)) as copy:
                # The record goes as raw UTF-8 bytes; the server keeps them as json, verbatim.
                copy.set_types(["text", "int8", "text", "timestamptz", "bytea", "text"])
                for project_id, sequence, decision_id, at, body, sha256 in rows:
                    copy.write_row((project_id, sequence, decision_id, at, body.encode(), sha256))
        else:
            conn.cursor().executemany(self._sql.insert_decision, list(rows))
        conn.cursor().executemany(
            self._sql.advance_project,
            [(sequences[p], stamps[p], p) for p in sorted(by_project)],
        )
        return [row.decision for row in stored]

    # -- SessionStore / SessionLog ---------------------------------------------

    def get_session(self, session_id: str) -> LegacySession:
        """Return one session, or raise :class:`~semreport.SessionNotFound`."""
        row = self._read(
            "reading a session",
            lambda conn: conn.execute(self._sql.get_session, (session_id,)).fetchone(),
        )
        if row is None:
            raise SessionNotFound(f"no legacy session {session_id!r}")
        return read_session(row[0], row[1], session_id=session_id)

    def sessions(self, project_id: str) -> Iterator[LegacySession]:
        """Yield the project's sessions ordered by start time, then id."""
        rows = self._read(
            "reading sessions",
            lambda conn: conn.execute(self._sql.sessions, (project_id,)).fetchall(),
        )
        return iter([read_session(body, sha, session_id=sid) for sid, body, sha in rows])

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
        rows = [session_row(s) for s in batch]
        conn.cursor().executemany(
            self._sql.insert_session,
            [
                (s.id, s.project_id, s.started_at, row.body, row.sha256)
                for s, row in zip(batch, rows, strict=True)
            ],
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


def open_postgres(url: str, *, create: bool = True, **options: Any) -> PostgresStorage:
    """Open (creating or migrating its schema) the PostgreSQL store a URL names.

    Args:
        url: A libpq URL, ``postgresql://user:password@host:5432/dbname?sslmode=verify-full``.
            Every libpq parameter may appear in the query string (``sslmode``,
            ``sslrootcert``, ``connect_timeout``, ``application_name``,
            ``target_session_attrs``...), as may the options below.
        create: Create the schema and its tables if they are missing (the
            default). With ``False`` a schema without a semreport store raises
            :class:`~semreport.StorageNotFound` and nothing is created.
        **options: ``schema`` (default ``"semreport"``), ``pool_min_size`` (1),
            ``pool_max_size`` (4), ``pool_timeout`` (seconds to wait for a
            connection, 30), ``copy_threshold`` (batches this large use COPY, 64),
            ``page_size`` (rows per read page, 5000), the time limits in
            seconds, 0 for none: ``lock_timeout`` (a writer waiting for a
            project's lock, :data:`DEFAULT_LOCK_TIMEOUT`),
            ``idle_in_transaction_session_timeout`` (the server ends a session
            stalled inside a transaction, :data:`DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT`),
            ``statement_timeout`` (:data:`DEFAULT_STATEMENT_TIMEOUT`, none) and
            ``connect_timeout`` (one connection attempt,
            :data:`DEFAULT_CONNECT_TIMEOUT`; libpq's own URL parameter of that
            name wins), and ``clock``. Keywords win over the same names in the URL.

    Raises:
        ConfigurationError: an unknown or malformed option.
        StorageError: the server cannot be reached.
        StorageNotFound: ``create`` is false and the schema holds no semreport store.
        IncompatibleSchema: the schema is newer than this library, or not semreport's.
    """
    conninfo, from_url = _split_url(url)
    unknown = sorted(set(options) - {*_OPTIONS, "page_size", "clock", "connect_timeout"})
    if unknown:
        raise ConfigurationError(f"postgresql:// does not take the option(s) {unknown}")
    merged: dict[str, Any] = {**from_url, **options}
    kwargs: dict[str, Any] = {"display_url": _redact(url)}
    if "schema" in merged:
        kwargs["schema"] = str(merged["schema"])
    for name in ("pool_min_size", "pool_max_size", "copy_threshold", "page_size"):
        if name in merged:
            kwargs[name] = _number(name, merged[name], int)
    for name in ("pool_timeout", *_TIMEOUTS):
        if name in merged:
            kwargs[name] = _number(name, merged[name], float)
    if "clock" in merged:
        kwargs["clock"] = merged["clock"]
    return PostgresStorage(conninfo, create=create, **kwargs)
