"""The SQLite storage adapter (``sqlite:///path.db``): the embedded default.

Standard-library :mod:`sqlite3` only. The database runs in WAL mode, so
readers never block the writer; writers wait for each other up to a busy
timeout. Every append is one ``BEGIN IMMEDIATE`` transaction, which takes the
database's write lock *before* reading the project's last sequence, so two
processes appending at once cannot hand out the same sequence number.

The file is marked with :data:`APPLICATION_ID` and its schema version is kept
in ``PRAGMA user_version``; opening checks both and applies any pending
:data:`MIGRATIONS` in one transaction. A file from a newer library, a SQLite
file of another application, or a file that is not SQLite at all is refused
without a byte of it changed.

Each row holds the record's wire form (JSON text, see
:func:`semreport.storage._common.encode_decision`) beside the indexed columns
the queries need.

Example:
    >>> import semreport
    >>> sr = semreport.open("sqlite:///:memory:")
    >>> sr.latest_sequence("p-1")
    0
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, Final
from urllib.parse import unquote, urlsplit

import attrs

from semreport.domain import (
    ConfigurationError,
    CorruptStorage,
    Decision,
    DecisionNotFound,
    IncompatibleSchema,
    InvalidRequest,
    LegacySession,
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
    sortable_time,
    utc_now,
)
from semreport.wire import parse_datetime

__all__ = [
    "APPLICATION_ID",
    "DEFAULT_BUSY_TIMEOUT",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "Migration",
    "SQLiteStorage",
    "apply_migrations",
    "open_sqlite",
]

APPLICATION_ID: Final = 0x53525054
"""``PRAGMA application_id`` of a semreport database (``"SRPT"``)."""

DEFAULT_BUSY_TIMEOUT: Final = 30.0
"""Seconds a writer waits for another writer's lock before giving up."""

_SQLITE_HEADER: Final = b"SQLite format 3\x00"
_READ_CHUNK: Final = 2000
_IN_CHUNK: Final = 500


@attrs.frozen
class Migration:
    """One step of the schema's history.

    Attributes:
        version: The ``user_version`` the database has once the step is applied.
        summary: What the step changes.
        statements: The SQL the step runs, in order, inside the open transaction.
    """

    version: int
    summary: str
    statements: tuple[str, ...]


MIGRATIONS: Final[tuple[Migration, ...]] = (
    Migration(
        1,
        "Decision Memory: one row per decision, unique per (project, sequence) and (project, id)",
        (
            """
            CREATE TABLE decisions (
                project_id  TEXT    NOT NULL,
                sequence    INTEGER NOT NULL CHECK (sequence >= 1),
                id          TEXT    NOT NULL,
                recorded_at TEXT    NOT NULL,
                body        TEXT    NOT NULL,
                PRIMARY KEY (project_id, sequence),
                UNIQUE (project_id, id)
            ) WITHOUT ROWID
            """,
        ),
    ),
    Migration(
        2,
        "Legacy sessions: one row per session, indexed by project and start time",
        (
            """
            CREATE TABLE sessions (
                id         TEXT NOT NULL PRIMARY KEY,
                project_id TEXT NOT NULL,
                started_at TEXT NOT NULL,
                body       TEXT NOT NULL
            ) WITHOUT ROWID
            """,
            "CREATE INDEX sessions_by_project ON sessions (project_id, started_at, id)",
        ),
    ),
)
"""The schema's history, oldest first; a database at version *n* runs the steps after *n*."""

SCHEMA_VERSION: Final = MIGRATIONS[-1].version
"""The schema version this library writes."""


def _path_of(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme.lower() != "sqlite":
        raise ConfigurationError(f"not a sqlite:// URL: {url!r}")
    if parts.netloc:
        raise ConfigurationError(
            f"a SQLite URL has no host: use 'sqlite:///relative.db' or "
            f"'sqlite:////absolute/path.db', got {url!r}"
        )
    # urlsplit keeps the leading "/" of the path: "sqlite:///x.db" -> "/x.db" (relative),
    # "sqlite:////abs/x.db" -> "//abs/x.db" (absolute).
    path = unquote(parts.path[1:])
    if not path:
        raise ConfigurationError(f"the SQLite URL {url!r} names no file")
    return path


def _check_header(path: str) -> None:
    """Refuse a non-empty file that is not a SQLite database, before SQLite touches it."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(_SQLITE_HEADER))
    except FileNotFoundError:
        return
    except IsADirectoryError:
        raise ConfigurationError(f"{path!r} is a directory, not a database file") from None
    except OSError as exc:
        raise StorageError(f"cannot read the database file {path!r}: {exc}") from exc
    if head and head != _SQLITE_HEADER:
        raise CorruptStorage(f"{path!r} is not a SQLite database (wrong file header)")


def _translate(exc: sqlite3.Error, what: str) -> StorageError:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return StorageError(
            f"{what}: {text} (another writer held the lock longer than the busy timeout)"
        )
    if isinstance(exc, sqlite3.DatabaseError) and (
        "malformed" in text or "not a database" in text or "corrupt" in text
    ):
        return CorruptStorage(f"{what}: the database is damaged ({text})")
    return StorageError(f"{what}: {text}")


class SQLiteStorage:
    """Decision Memory and legacy sessions in one SQLite file; thread-safe.

    Build it with :func:`open_sqlite` (or ``semreport.open("sqlite:///...")``).
    One connection serves every thread, guarded by a lock; separate instances,
    in this process or others, may share the file.
    """

    def __init__(
        self,
        path: str,
        *,
        clock: Clock = utc_now,
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
    ) -> None:
        """Open (creating if need be) and check the database at ``path``.

        Args:
            path: A file path, or ``":memory:"`` for a private in-memory database.
            clock: Supplies ``recorded_at`` times.
            busy_timeout: Seconds to wait for another writer's lock.

        Raises:
            CorruptStorage: the file is not a SQLite database or is damaged.
            IncompatibleSchema: the file belongs to another application or to a
                newer version of semreport.
        """
        if isinstance(busy_timeout, bool) or not isinstance(busy_timeout, int | float):
            raise InvalidRequest.at("$.busy_timeout", "expected a number of seconds")
        if not busy_timeout >= 0:
            raise InvalidRequest.at("$.busy_timeout", "must be 0 or more seconds")
        self._path = path
        self._clock = clock
        self._busy_timeout = float(busy_timeout)
        self._lock = threading.RLock()
        self._closed = False
        in_memory = path == ":memory:" or path.startswith("file::memory:")
        if not in_memory:
            _check_header(path)
        try:
            self._conn = sqlite3.connect(
                path,
                timeout=self._busy_timeout,
                isolation_level=None,  # we issue BEGIN/COMMIT ourselves
                check_same_thread=False,
            )
        except sqlite3.Error as exc:
            raise _translate(exc, f"cannot open {path!r}") from exc
        try:
            self._conn.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout * 1000)}")
            version = self._inspect()  # read-only: refuses before anything is written
            if not in_memory:
                self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA synchronous = NORMAL")
            if version < SCHEMA_VERSION:
                self._migrate()
        except BaseException as exc:
            self._conn.close()
            if isinstance(exc, sqlite3.Error):
                raise _translate(exc, f"cannot open {path!r}") from exc
            raise

    def __repr__(self) -> str:
        return f"SQLiteStorage({self._path!r})"

    @property
    def path(self) -> str:
        """The database file's path (``":memory:"`` for an in-memory database)."""
        return self._path

    # -- schema ----------------------------------------------------------------

    def _inspect(self) -> int:
        """Return the schema version; refuse foreign or newer databases. Reads only."""
        conn = self._conn
        application_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if application_id == 0 and version == 0:
            has_tables = conn.execute(
                "SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
            ).fetchone()[0]
            if has_tables:
                raise IncompatibleSchema(
                    f"{self._path!r} is a SQLite database of another application "
                    "(it has tables but no semreport application id); it was not changed"
                )
            return 0
        if application_id != APPLICATION_ID:
            raise IncompatibleSchema(
                f"{self._path!r} belongs to another application "
                f"(application_id {application_id:#x}, semreport is {APPLICATION_ID:#x}); "
                "it was not changed"
            )
        if version > SCHEMA_VERSION:
            raise IncompatibleSchema(
                f"{self._path!r} has schema version {version}, newer than this library's "
                f"{SCHEMA_VERSION}: upgrade semreport to read it; it was not changed"
            )
        return int(version)

    def _migrate(self) -> None:
        with self._write():
            # Re-read inside the write lock: another process may have migrated meanwhile.
            version = self._inspect()
            if version == SCHEMA_VERSION:
                return
            apply_migrations(self._conn, version, SCHEMA_VERSION)

    @property
    def schema_version(self) -> int:
        """The database's schema version (``PRAGMA user_version``)."""
        with self._lock:
            return int(self._conn.execute("PRAGMA user_version").fetchone()[0])

    # -- transactions ------------------------------------------------------------

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """Run the body in one ``BEGIN IMMEDIATE`` transaction: all of it or none."""
        with self._lock:
            self._check_open()
            conn = self._conn
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise _translate(exc, "cannot start a write") from exc
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            try:
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise _translate(exc, "cannot commit") from exc

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            self._check_open()
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise _translate(exc, "cannot read") from exc

    def _check_open(self) -> None:
        if self._closed:
            raise StorageError("the storage is closed")

    # -- DecisionMemory --------------------------------------------------------

    def decisions(
        self, project_id: str, *, after: int = 0, as_of: int | None = None
    ) -> Iterator[Decision]:
        """Yield the project's decisions with ``after < sequence <= as_of``, in order.

        The upper bound is fixed when this method is called, so the iterator
        gives exactly those records however many appends follow. Rows are read
        in chunks and decoded as they are consumed.
        """
        end = self.latest_sequence(project_id) if as_of is None else as_of
        return self._iter_decisions(project_id, max(after, 0), end)

    def _iter_decisions(self, project_id: str, start: int, end: int) -> Iterator[Decision]:
        while start < end:
            rows = self._read(
                "SELECT sequence, body FROM decisions WHERE project_id = ? "
                "AND sequence > ? AND sequence <= ? ORDER BY sequence LIMIT ?",
                (project_id, start, end, _READ_CHUNK),
            )
            if not rows:
                return
            for _sequence, body in rows:
                yield decode_decision(body)
            start = rows[-1][0]

    def get(self, project_id: str, decision_id: str) -> Decision:
        """Return one decision, or raise :class:`~semreport.DecisionNotFound`."""
        rows = self._read(
            "SELECT body FROM decisions WHERE project_id = ? AND id = ?",
            (project_id, decision_id),
        )
        if not rows:
            raise DecisionNotFound(f"project {project_id!r} has no decision {decision_id!r}")
        return decode_decision(rows[0][0])

    def latest_sequence(self, project_id: str) -> int:
        """Return the project's highest sequence number (0 when empty)."""
        rows = self._read(
            "SELECT coalesce(max(sequence), 0) FROM decisions WHERE project_id = ?",
            (project_id,),
        )
        return int(rows[0][0])

    def has_project(self, project_id: str) -> bool:
        """Whether the project holds any decision or legacy session."""
        rows = self._read(
            "SELECT EXISTS (SELECT 1 FROM decisions WHERE project_id = ?) "
            "OR EXISTS (SELECT 1 FROM sessions WHERE project_id = ?)",
            (project_id, project_id),
        )
        return bool(rows[0][0])

    # -- DecisionLog -----------------------------------------------------------

    def record(self, decisions: Sequence[Decision]) -> list[Decision]:
        """Append a batch atomically; see :class:`~semreport.domain.DecisionLog`."""
        batch = check_decision_batch(decisions)
        if not batch:
            return []
        by_project: dict[str, list[Decision]] = {}
        for decision in batch:
            by_project.setdefault(decision.project_id, []).append(decision)
        stored: list[Decision] = []
        with self._write() as conn:
            heads: dict[str, tuple[int, datetime | None]] = {}
            for project_id, members in by_project.items():
                ids = [d.id for d in members]
                for start in range(0, len(ids), _IN_CHUNK):
                    chunk = ids[start : start + _IN_CHUNK]
                    marks = ",".join("?" * len(chunk))
                    found = conn.execute(
                        f"SELECT id FROM decisions WHERE project_id = ? AND id IN ({marks})",  # noqa: S608 - only placeholders are formatted in
                        (project_id, *chunk),
                    ).fetchone()
                    if found is not None:
                        raise already_recorded(next(d for d in members if d.id == found[0]))
                row = conn.execute(
                    "SELECT sequence, recorded_at FROM decisions WHERE project_id = ? "
                    "ORDER BY sequence DESC LIMIT 1",
                    (project_id,),
                ).fetchone()
                heads[project_id] = (0, None) if row is None else (row[0], parse_datetime(row[1]))
            now = self._clock()
            rows: list[tuple[str, int, str, str, str]] = []
            for decision in batch:
                sequence, previous = heads[decision.project_id]
                at = next_recorded_at(now, previous)
                kept = decision.recorded(sequence + 1, at)
                heads[decision.project_id] = (sequence + 1, at)
                rows.append(
                    (
                        kept.project_id,
                        sequence + 1,
                        kept.id,
                        sortable_time(at),
                        encode_decision(kept),
                    )
                )
                stored.append(kept)
            try:
                conn.executemany(
                    "INSERT INTO decisions (project_id, sequence, id, recorded_at, body) "
                    "VALUES (?, ?, ?, ?, ?)",
                    rows,
                )
            except sqlite3.Error as exc:
                raise _translate(exc, "cannot record the decisions") from exc
        return stored

    # -- SessionStore / SessionLog ---------------------------------------------

    def get_session(self, session_id: str) -> LegacySession:
        """Return one session, or raise :class:`~semreport.SessionNotFound`."""
        rows = self._read("SELECT body FROM sessions WHERE id = ?", (session_id,))
        if not rows:
            raise SessionNotFound(f"no legacy session {session_id!r}")
        return decode_session(rows[0][0])

    def sessions(self, project_id: str) -> Iterator[LegacySession]:
        """Yield the project's sessions ordered by start time, then id."""
        rows = self._read(
            "SELECT body FROM sessions WHERE project_id = ? ORDER BY started_at, id",
            (project_id,),
        )
        return (decode_session(body) for (body,) in rows)

    def record_sessions(self, sessions: Sequence[LegacySession]) -> list[LegacySession]:
        """Store a batch of sessions atomically."""
        batch = check_session_batch(sessions)
        if not batch:
            return []
        with self._write() as conn:
            ids = [s.id for s in batch]
            for start in range(0, len(ids), _IN_CHUNK):
                chunk = ids[start : start + _IN_CHUNK]
                marks = ",".join("?" * len(chunk))
                found = conn.execute(
                    f"SELECT id FROM sessions WHERE id IN ({marks})",  # noqa: S608 - only placeholders are formatted in
                    chunk,
                ).fetchone()
                if found is not None:
                    raise session_already_recorded(next(s for s in batch if s.id == found[0]))
            try:
                conn.executemany(
                    "INSERT INTO sessions (id, project_id, started_at, body) VALUES (?, ?, ?, ?)",
                    [
                        (s.id, s.project_id, sortable_time(s.started_at), encode_session(s))
                        for s in batch
                    ],
                )
            except sqlite3.Error as exc:
                raise _translate(exc, "cannot record the sessions") from exc
        return batch

    def close(self) -> None:
        """Close the connection; the storage refuses every call afterwards."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._conn.close()


def apply_migrations(conn: sqlite3.Connection, current: int, target: int) -> None:
    """Apply the :data:`MIGRATIONS` after ``current`` up to ``target`` on an open transaction.

    Sets ``application_id`` and ``user_version``; the caller commits or rolls back.
    """
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    for migration in MIGRATIONS:
        if current < migration.version <= target:
            for statement in migration.statements:
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {int(migration.version)}")


def open_sqlite(url: str, **options: Any) -> SQLiteStorage:
    """Open the SQLite database a ``sqlite://`` URL names.

    ``sqlite:///relative.db`` is relative to the working directory,
    ``sqlite:////absolute/path.db`` absolute, ``sqlite:///:memory:`` a private
    in-memory database. The file (not its directory) is created if missing.

    Args:
        url: The URL.
        **options: ``clock`` (a callable returning an aware datetime) and
            ``busy_timeout`` (seconds, default :data:`DEFAULT_BUSY_TIMEOUT`).

    Raises:
        ConfigurationError: the URL is malformed or an option is unknown.
        CorruptStorage: the file is not a SQLite database or is damaged.
        IncompatibleSchema: the file belongs to another application or a newer semreport.
    """
    path = _path_of(url)
    clock: Callable[[], datetime] = options.pop("clock", utc_now)
    busy_timeout = options.pop("busy_timeout", DEFAULT_BUSY_TIMEOUT)
    if options:
        raise ConfigurationError(
            f"sqlite:// takes the options clock and busy_timeout, not {sorted(options)}"
        )
    if path != ":memory:":
        directory = Path(path).parent
        if not directory.is_dir():
            raise ConfigurationError(f"the directory of {path!r} does not exist")
        path = os.fspath(path)
    return SQLiteStorage(path, clock=clock, busy_timeout=busy_timeout)
