"""The SQLite storage adapter (``sqlite:///path.db``): the embedded default.

Standard-library :mod:`sqlite3` only. The database runs in WAL mode, so
readers never block the writer; writers wait for each other up to a busy
timeout. Every append is one ``BEGIN IMMEDIATE`` transaction, which takes the
database's write lock *before* reading the project's last sequence, so two
processes appending at once cannot hand out the same sequence number.

The file is marked with :data:`APPLICATION_ID` and its schema version is kept
in ``PRAGMA user_version``. Opening a file:

- **creates** a missing file (unless ``create=False``, which raises
  :class:`~semreport.StorageNotFound` and leaves no file behind). The new
  database is built and migrated under a temporary name in the same directory
  and then linked into place whole, so that processes opening one new file at
  once all find either nothing or a complete semreport database;
- **checks** it without writing a byte: a read-only look at the header (or,
  while a write-ahead log holds records, a read-only connection), so that a
  file from a newer library, a SQLite file of another application, a file
  that is not SQLite at all, or an empty (0-byte) file is refused with its
  main file and its WAL untouched;
- **migrates** an older schema: the pending :data:`MIGRATIONS` run in one
  ``BEGIN IMMEDIATE`` transaction, which checks the version again first;
- opens a file it cannot write (a read-only directory or file) **read-only**:
  reads work, and writes raise :class:`~semreport.StorageError` saying so.

Each row holds the record's JSON text, its SHA-256 (for a decision, the hash
of its canonical record bytes: its citation id) and the indexed columns the
queries need; every read checks the hash (see :mod:`semreport.storage._common`).

Example:
    >>> import semreport
    >>> sr = semreport.open("sqlite:///:memory:")
    >>> sr.latest_sequence("p-1")
    0
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import sqlite3
import stat
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, Final, Literal
from urllib.parse import quote, unquote, urlsplit

import attrs

from semreport.domain import (
    ConfigurationError,
    CorruptStorage,
    Decision,
    DecisionNotFound,
    IncompatibleSchema,
    InvalidRequest,
    LegacySession,
    ProjectSummary,
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
# A decision row as the reads take it. The text columns come as bytes: no UTF-8
# decoding on the hot path (the hash covers the bytes), and a damaged byte becomes a
# CorruptStorage rather than the driver's decoding error. A sequence that is not an
# integer any more reads as NULL, which no sequence check accepts.
_ROW: Final = (
    "CASE WHEN typeof(sequence) = 'integer' THEN sequence END,"
    " CAST(body AS BLOB), CAST(sha256 AS BLOB)"
)
_IN_CHUNK: Final = 500  # ids per query: SQLite before 3.32 takes at most 999 parameters
_REHASH_CHUNK: Final = 1000


def _by_ids(columns: str, count: int) -> str:
    """A query of ``columns`` of the rows of ``count`` ids (parameters: the ids, the project).

    The ids come first in a ``CROSS JOIN``, which SQLite keeps as the outer
    loop, so each is one lookup in the ``(project_id, id)`` index. Written as
    ``project_id = ? AND id IN (...)``, a query of columns that index does not
    cover (the body) is planned, with no statistics, as a scan of the
    project's rows by the primary key: every row it holds.
    """
    marks = ",".join(["(?)"] * count)
    return (
        f"WITH wanted(key) AS (VALUES {marks}) SELECT {columns} "  # noqa: S608 - placeholders and constant columns only
        "FROM wanted CROSS JOIN decisions AS d WHERE d.project_id = ? AND d.id = wanted.key"
    )


def _hash_stored_rows(conn: sqlite3.Connection) -> None:
    """Migration 3's data step: give every stored row its hash (see :func:`rehash_decision`)."""
    last: tuple[str, int] = ("", 0)
    while True:
        rows = conn.execute(
            "SELECT project_id, sequence, body FROM decisions WHERE (project_id, sequence) > (?, ?)"
            " ORDER BY project_id, sequence LIMIT ?",
            (*last, _REHASH_CHUNK),
        ).fetchall()
        if not rows:
            break
        conn.executemany(
            "UPDATE decisions SET body = ?, sha256 = ? WHERE project_id = ? AND sequence = ?",
            [(*rehash_decision(body), project_id, sequence) for project_id, sequence, body in rows],
        )
        last = (rows[-1][0], rows[-1][1])
    # A session row's hash is the SHA-256 of its text: SQLite computes nothing, so Python does.
    sessions = conn.execute("SELECT id, body FROM sessions").fetchall()
    conn.executemany(
        "UPDATE sessions SET sha256 = ? WHERE id = ?",
        [(_text_sha256(body), session_id) for session_id, body in sessions],
    )


def _text_sha256(body: str | bytes) -> str:
    data = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else bytes(body)
    return hashlib.sha256(data).hexdigest()


@attrs.frozen
class Migration:
    """One step of the schema's history.

    Attributes:
        version: The ``user_version`` the database has once the step is applied.
        summary: What the step changes.
        statements: The SQL the step runs, in order, inside the open transaction.
        step: Python run after the statements, in the same transaction, for a
            step that rewrites data (``None`` for most).
    """

    version: int
    summary: str
    statements: tuple[str, ...]
    step: Callable[[sqlite3.Connection], None] | None = attrs.field(default=None, eq=False)


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
    Migration(
        3,
        "Tamper evidence: each decision row keeps its citation hash (the SHA-256 of its "
        "canonical record bytes), each session row the SHA-256 of its text; stored rows "
        "get theirs",
        (
            "ALTER TABLE decisions ADD COLUMN sha256 TEXT",
            "ALTER TABLE sessions ADD COLUMN sha256 TEXT",
        ),
        _hash_stored_rows,
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


_FileState = Literal["missing", "empty", "database"]


def _file_state(path: str) -> _FileState:
    """Say what is at ``path``, refusing a directory or a file that is not SQLite, unopened."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return "missing"
    except OSError as exc:
        raise StorageError(f"cannot use the database file {path!r}: {exc.strerror}") from None
    if stat.S_ISDIR(info.st_mode):
        raise ConfigurationError(f"{path!r} is a directory, not a database file")
    if info.st_size == 0:
        # A new database in WAL mode may live wholly in its log until a checkpoint.
        return "database" if _live_wal(path) else "empty"
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(_SQLITE_HEADER))
    except OSError as exc:
        raise StorageError(f"cannot read the database file {path!r}: {exc.strerror}") from None
    if head != _SQLITE_HEADER:
        raise CorruptStorage(f"{path!r} is not a SQLite database (wrong file header)")
    return "database"


def _live_wal(path: str) -> bool:
    """Whether a write-ahead log beside ``path`` may hold records not in the main file."""
    try:
        return os.stat(f"{path}-wal").st_size > 0
    except OSError:
        return False


def _uri(path: str, **params: str) -> str:
    query = "&".join(f"{key}={value}" for key, value in params.items())
    return f"file:{quote(os.path.abspath(path))}?{query}"


_READ_ONLY_ERRORS: Final = ("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_AUTH")


def _cannot_write(exc: sqlite3.Error) -> bool:
    """Whether ``exc`` says the file or its directory cannot be written (read-only)."""
    return getattr(exc, "sqlite_errorname", "").startswith(_READ_ONLY_ERRORS)


# SQLite result-code prefixes and what each means, for the messages; the first match wins.
_MEANINGS: Final = (
    (
        ("SQLITE_BUSY", "SQLITE_LOCKED"),
        "the database is locked: another connection held its lock longer than the busy timeout",
    ),
    (
        ("SQLITE_FULL",),
        "the disk is full (or the database reached its size limit), so nothing of it was written",
    ),
    (("SQLITE_READONLY",), "the database cannot be written"),
    (("SQLITE_CANTOPEN",), "the database file cannot be opened"),
    (("SQLITE_IOERR",), "an input/output error"),
)


def _translate(exc: sqlite3.Error, what: str) -> StorageError:
    """Turn a driver error into the library's, by SQLite's result code (never by its words)."""
    name: str = getattr(exc, "sqlite_errorname", "") or ""
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")):
        return CorruptStorage(f"{what}: the database is damaged ({exc})")
    for prefixes, meaning in _MEANINGS:
        if name.startswith(prefixes):
            return StorageError(f"{what}: {meaning} ({exc})")
    return StorageError(f"{what}: {exc}")


def _create_database(path: str) -> None:
    """Create a semreport database at ``path`` if nothing is there, atomically.

    The database is initialised (WAL mode, every migration) under a temporary
    name in the same directory and hard-linked into place: the link fails if
    another process won the race, and then its (complete) database is used.
    Nobody ever sees a half-initialised or empty file at ``path``.
    """
    directory = os.path.dirname(os.path.abspath(path))
    temporary = os.path.join(
        directory, f".{os.path.basename(path)}.{secrets.token_hex(6)}.creating"
    )
    try:
        # 0o666 and the process's umask: the permissions SQLite itself would give.
        os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    except OSError as exc:
        raise StorageError(f"cannot create the database {path!r}: {exc.strerror}") from None
    try:
        conn = sqlite3.connect(temporary, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("BEGIN IMMEDIATE")
            apply_migrations(conn, 0, SCHEMA_VERSION)
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            raise _translate(exc, f"cannot create the database {path!r}") from exc
        finally:
            conn.close()  # the last connection: the log is checkpointed into the file
        try:
            os.link(temporary, path)
        except FileExistsError:
            return  # another process created it first; its database is complete too
        except OSError:
            # No hard links on this file system: create in place instead. Another
            # process opening the file in the moment before it is initialised sees
            # an empty file and is refused (it may retry); nothing is lost.
            _create_in_place(path)
            return
        _sync_directory(directory)
    finally:
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(OSError):
                os.unlink(temporary + suffix)


def _create_in_place(path: str) -> None:
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    except FileExistsError:
        return
    except OSError as exc:
        raise StorageError(f"cannot create the database {path!r}: {exc.strerror}") from None
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("BEGIN IMMEDIATE")
        if conn.execute("PRAGMA user_version").fetchone()[0] == 0:
            apply_migrations(conn, 0, SCHEMA_VERSION)
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        raise _translate(exc, f"cannot create the database {path!r}") from exc
    finally:
        conn.close()


def _sync_directory(directory: str) -> None:
    """Make the new directory entry durable (the file's content is already synced)."""
    with contextlib.suppress(OSError):
        handle = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)


def _missing(project_id: str, sequence: int) -> CorruptStorage:
    return CorruptStorage(
        f"the stored log of project {project_id!r} has no readable record at sequence "
        f"{sequence}: a row was removed or damaged at rest"
    )


class SQLiteStorage(RecordReads):
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
        create: bool = True,
    ) -> None:
        """Open (creating if need be and allowed) and check the database at ``path``.

        Args:
            path: A file path, or ``":memory:"`` for a private in-memory database.
            clock: Supplies ``recorded_at`` times.
            busy_timeout: Seconds to wait for another writer's lock.
            create: Create the file if it is missing (the default).

        Raises:
            StorageNotFound: the file is missing and ``create`` is false.
            CorruptStorage: the file is empty, not a SQLite database, or damaged.
            IncompatibleSchema: the file belongs to another application or to a
                newer version of semreport.
            StorageError: the file cannot be created, or must be migrated but
                cannot be written.
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
        self._read_only: str | None = None  # why writes are refused, when they are
        if path == ":memory:" or path.startswith("file::memory:"):
            self._conn = self._connect(path)
            self._setup(self._conn, version=0)
            return
        state = _file_state(path)
        if state == "missing":
            if not create:
                raise StorageNotFound(
                    f"no semreport database at {path!r} (opening it for reading does not "
                    "create it; record something first, e.g. with 'semreport ingest')"
                )
            _create_database(path)
        elif state == "empty":
            raise CorruptStorage(
                f"{path!r} is an empty file (0 bytes), not a semreport database: semreport "
                "never leaves an empty file, so it was truncated or made by something else. "
                "It was not changed; remove it to start a new database there"
            )
        self._conn = self._open_file(path)

    def __repr__(self) -> str:
        return f"SQLiteStorage({self._path!r})"

    @property
    def path(self) -> str:
        """The database file's path (``":memory:"`` for an in-memory database)."""
        return self._path

    @property
    def read_only(self) -> bool:
        """Whether the file was opened read-only (its directory or the file cannot be written)."""
        return self._read_only is not None

    # -- opening -----------------------------------------------------------------

    def _connect(self, target: str, *, uri: bool = False) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(
                target,
                timeout=self._busy_timeout,
                isolation_level=None,  # we issue BEGIN/COMMIT ourselves
                check_same_thread=False,
                uri=uri,
            )
            conn.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout * 1000)}")
        except sqlite3.Error as exc:
            raise _translate(exc, f"cannot open {self._path!r}") from exc
        return conn

    def _open_read_only(self, path: str) -> sqlite3.Connection:
        """A connection that cannot write, change or checkpoint the file.

        Without a live write-ahead log the main file is the whole database, and
        an immutable connection reads it without creating a single file. With
        one, a read-only connection reads the log too (creating the shared-memory
        index if need be) and leaves the log as it is.
        """
        if not _live_wal(path):
            return self._connect(_uri(path, mode="ro", immutable="1"), uri=True)
        conn = self._connect(_uri(path, mode="ro"), uri=True)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.Error as exc:
            conn.close()
            raise _translate(
                exc,
                f"cannot read {path!r}: its write-ahead log holds records that cannot be read "
                "without writing beside it",
            ) from exc
        return conn

    def _open_file(self, path: str) -> sqlite3.Connection:
        # 1. Check, without writing: refuse before anything could be changed.
        probe = self._open_read_only(path)
        try:
            version = self._inspect(probe)
        except BaseException:
            probe.close()
            raise
        # 2. The store's connection, read-write when the file and its directory allow it.
        conn = self._connect(_uri(path, mode="rw"), uri=True)
        try:
            self._setup(conn, version)
        except sqlite3.Error as exc:
            conn.close()
            if not _cannot_write(exc):
                probe.close()
                raise _translate(exc, f"cannot open {path!r}") from exc
            if version < SCHEMA_VERSION:
                probe.close()
                raise StorageError(
                    f"{path!r} has schema version {version} and must be migrated to "
                    f"{SCHEMA_VERSION}, which needs write access ({exc}); it was not changed"
                ) from exc
            self._read_only = f"{exc}"
            return probe
        except BaseException:
            conn.close()
            probe.close()
            raise
        probe.close()
        return conn

    def _setup(self, conn: sqlite3.Connection, version: int) -> None:
        """Probe, set the pragmas and migrate on a read-write connection."""
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
        if mode != "wal" and self._path != ":memory:" and not self._path.startswith("file::"):
            try:
                conn.execute("PRAGMA journal_mode = WAL")
            except sqlite3.Error as exc:
                # Switching needs the file to itself; another process will switch it.
                if not getattr(exc, "sqlite_errorname", "").startswith(
                    ("SQLITE_BUSY", "SQLITE_LOCKED")
                ):
                    raise
        conn.execute("PRAGMA synchronous = NORMAL")
        if version < SCHEMA_VERSION:
            self._migrate(conn)

    def _inspect(self, conn: sqlite3.Connection) -> int:
        """Return the schema version; refuse foreign or newer databases. Reads only.

        The three reads share one transaction, so they see one state of the file.
        """
        try:
            conn.execute("BEGIN")
            application_id = conn.execute("PRAGMA application_id").fetchone()[0]
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            has_tables = conn.execute(
                "SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
            ).fetchone()[0]
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            raise _translate(exc, f"cannot open {self._path!r}") from exc
        if application_id == 0 and version == 0:
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

    def _migrate(self, conn: sqlite3.Connection) -> None:
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Checked again inside the write lock: another process may have migrated.
            version = self._inspect_in_transaction(conn)
            if version < SCHEMA_VERSION:
                apply_migrations(conn, version, SCHEMA_VERSION)
        except BaseException:
            if conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def _inspect_in_transaction(self, conn: sqlite3.Connection) -> int:
        application_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION or application_id not in (0, APPLICATION_ID):
            raise IncompatibleSchema(
                f"{self._path!r} changed while it was being opened (application_id "
                f"{application_id:#x}, schema version {version}); it was not changed"
            )
        return version

    @property
    def schema_version(self) -> int:
        """The database's schema version (``PRAGMA user_version``)."""
        with self._lock:
            return int(self._conn.execute("PRAGMA user_version").fetchone()[0])

    # -- transactions ------------------------------------------------------------

    @contextmanager
    def _write(self, what: str) -> Iterator[sqlite3.Connection]:
        """Run the body in one ``BEGIN IMMEDIATE`` transaction: all of it or none.

        A driver error anywhere (a full disk, a lock held too long) rolls back
        whatever the transaction wrote and becomes a :class:`StorageError`.
        """
        with self._lock:
            self._check_open()
            if self._read_only is not None:
                raise StorageError(
                    f"{what}: {self._path!r} was opened read-only because it cannot be "
                    f"written ({self._read_only}); nothing was recorded"
                )
            conn = self._conn
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise _translate(exc, what) from exc
            try:
                yield conn
            except sqlite3.Error as exc:
                self._rollback()
                raise _translate(exc, what) from exc
            except BaseException:
                self._rollback()
                raise
            try:
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                self._rollback()
                raise _translate(exc, what) from exc

    def _rollback(self) -> None:
        # SQLite rolls a transaction back by itself on some errors (a full disk):
        # only roll back what is still open, and never let the rollback hide the cause.
        if self._conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                self._conn.execute("ROLLBACK")

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

    def records(
        self, project_id: str, *, after: int = 0, as_of: int | None = None
    ) -> Iterator[StoredRecord]:
        """Yield the records :meth:`decisions` would yield, as checked data."""
        latest = self.latest_sequence(project_id)
        end = latest if as_of is None else max(0, min(as_of, latest))
        return self._iter_records(project_id, max(after, 0), end)

    def _iter_records(self, project_id: str, start: int, end: int) -> Iterator[StoredRecord]:
        # The log holds every sequence up to ``end`` (the latest when the read began), so
        # a sequence that is skipped, or rows that run out early, mean a damaged store.
        while start < end:
            rows = self._read(
                f"SELECT {_ROW} FROM decisions WHERE project_id = ? "  # noqa: S608 - a constant
                "AND sequence > ? AND sequence <= ? ORDER BY sequence LIMIT ?",
                (project_id, start, end, _READ_CHUNK),
            )
            if not rows or rows[0][0] != start + 1:
                raise _missing(project_id, start + 1)
            for sequence, body, sha256 in rows:
                if sequence != start + 1:
                    raise _missing(project_id, start + 1)
                yield read_record(body, sha256, project_id=project_id, sequence=sequence)
                start = sequence

    def get_record(self, project_id: str, decision_id: str) -> StoredRecord:
        """Return one stored record, or raise :class:`~semreport.DecisionNotFound`."""
        rows = self._read(
            f"SELECT {_ROW} FROM decisions WHERE project_id = ? AND id = ?",  # noqa: S608 - a constant
            (project_id, decision_id),
        )
        if not rows:
            raise DecisionNotFound(f"project {project_id!r} has no decision {decision_id!r}")
        sequence, body, sha256 = rows[0]
        return read_record(
            body, sha256, project_id=project_id, sequence=sequence, decision_id=decision_id
        )

    def get_records(self, project_id: str, decision_ids: Sequence[str]) -> list[StoredRecord]:
        """Return the stored records of ``decision_ids`` in the order given (one query per 500)."""
        wanted = list(dict.fromkeys(decision_ids))
        rows: dict[str, tuple[int | None, bytes, bytes]] = {}
        for start in range(0, len(wanted), _IN_CHUNK):
            chunk = wanted[start : start + _IN_CHUNK]
            found = self._read(_by_ids(f"d.id, {_ROW}", len(chunk)), (*chunk, project_id))
            rows.update(
                (decision_id, (sequence, body, sha256))
                for decision_id, sequence, body, sha256 in found
            )
        return read_records(project_id, decision_ids, rows)

    def latest_sequence(self, project_id: str) -> int:
        """Return the project's highest sequence number (0 when empty)."""
        rows = self._read(
            "SELECT coalesce(max(sequence), 0) FROM decisions WHERE project_id = ?",
            (project_id,),
        )
        latest = rows[0][0]
        if type(latest) is not int:
            raise CorruptStorage(
                f"the stored log of project {project_id!r} holds a damaged sequence number"
            )
        return latest

    def has_project(self, project_id: str) -> bool:
        """Whether the project holds any decision or legacy session."""
        rows = self._read(
            "SELECT EXISTS (SELECT 1 FROM decisions WHERE project_id = ?) "
            "OR EXISTS (SELECT 1 FROM sessions WHERE project_id = ?)",
            (project_id, project_id),
        )
        return bool(rows[0][0])

    def projects(self) -> list[ProjectSummary]:
        """Every project holding a decision or a session, ordered by id, with its counts."""
        rows = self._read(
            "SELECT CAST(project_id AS BLOB), sum(decisions), max(latest), sum(sessions) FROM ("
            " SELECT project_id, count(*) AS decisions, max(sequence) AS latest, 0 AS sessions"
            " FROM decisions GROUP BY project_id"
            " UNION ALL"
            " SELECT project_id, 0, 0, count(*) FROM sessions GROUP BY project_id"
            ") GROUP BY project_id ORDER BY CAST(project_id AS BLOB)"
        )
        return [
            ProjectSummary(
                project_id=bytes(name).decode("utf-8", "replace"),
                decisions=int(decisions),
                latest_sequence=int(latest),
                sessions=int(sessions),
            )
            for name, decisions, latest, sessions in rows
        ]

    # -- DecisionLog -----------------------------------------------------------

    def record(self, decisions: Sequence[Decision]) -> list[Decision]:
        """Append a batch atomically; see :class:`~semreport.domain.DecisionLog`."""
        batch = check_decision_batch(decisions)
        if not batch:
            return []
        rows: list[DecisionRow] = []
        with self._write("cannot record the decisions") as conn:
            heads: dict[str, tuple[int, datetime | None]] = {}
            by_project: dict[str, list[Decision]] = {}
            for decision in batch:
                by_project.setdefault(decision.project_id, []).append(decision)
            for project_id, members in by_project.items():
                self._refuse_known(conn, project_id, members)
                heads[project_id] = self._head(conn, project_id)
            now = self._clock()
            for decision in batch:
                sequence, previous = heads[decision.project_id]
                at = next_recorded_at(now, previous)
                rows.append(decision_row(decision, sequence + 1, at))
                heads[decision.project_id] = (sequence + 1, at)
            conn.executemany(
                "INSERT INTO decisions (project_id, sequence, id, recorded_at, body, sha256) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (
                        row.decision.project_id,
                        row.decision.sequence,
                        row.decision.id,
                        sortable_time(row.decision.recorded_at or now),
                        row.body,
                        row.sha256,
                    )
                    for row in rows
                ],
            )
        return [row.decision for row in rows]

    @staticmethod
    def _refuse_known(conn: sqlite3.Connection, project_id: str, members: list[Decision]) -> None:
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

    @staticmethod
    def _head(conn: sqlite3.Connection, project_id: str) -> tuple[int, datetime | None]:
        row = conn.execute(
            "SELECT sequence, CAST(recorded_at AS BLOB) FROM decisions WHERE project_id = ? "
            "ORDER BY sequence DESC LIMIT 1",
            (project_id,),
        ).fetchone()
        if row is None:
            return 0, None
        try:
            if type(row[0]) is not int:
                raise TypeError
            return row[0], parse_datetime(bytes(row[1]).decode("ascii"))
        except (TypeError, ValueError):
            raise CorruptStorage(
                f"the last stored record of project {project_id!r} (sequence {row[0]!r}) has a "
                "damaged recorded_at column; nothing was recorded"
            ) from None

    # -- SessionStore / SessionLog ---------------------------------------------

    def get_session(self, session_id: str) -> LegacySession:
        """Return one session, or raise :class:`~semreport.SessionNotFound`."""
        rows = self._read(
            "SELECT CAST(body AS BLOB), CAST(sha256 AS BLOB) FROM sessions WHERE id = ?",
            (session_id,),
        )
        if not rows:
            raise SessionNotFound(f"no legacy session {session_id!r}")
        return read_session(rows[0][0], rows[0][1], session_id=session_id)

    def sessions(self, project_id: str) -> Iterator[LegacySession]:
        """Yield the project's sessions ordered by start time, then id."""
        rows = self._read(
            "SELECT CAST(id AS BLOB), CAST(body AS BLOB), CAST(sha256 AS BLOB) FROM sessions"
            " WHERE project_id = ? ORDER BY started_at, id",
            (project_id,),
        )
        return iter(
            [
                read_session(body, sha, session_id=sid.decode("utf-8", "replace"))
                for sid, body, sha in rows
            ]
        )

    def record_sessions(self, sessions: Sequence[LegacySession]) -> list[LegacySession]:
        """Store a batch of sessions atomically."""
        batch = check_session_batch(sessions)
        if not batch:
            return []
        rows = [session_row(session) for session in batch]
        with self._write("cannot record the sessions") as conn:
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
            conn.executemany(
                "INSERT INTO sessions (id, project_id, started_at, body, sha256) "
                "VALUES (?, ?, ?, ?, ?)",
                [
                    (s.id, s.project_id, sortable_time(s.started_at), row.body, row.sha256)
                    for s, row in zip(batch, rows, strict=True)
                ],
            )
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
            if migration.step is not None:
                migration.step(conn)
            conn.execute(f"PRAGMA user_version = {int(migration.version)}")


def open_sqlite(url: str, *, create: bool = True, **options: Any) -> SQLiteStorage:
    """Open the SQLite database a ``sqlite://`` URL names.

    ``sqlite:///relative.db`` is relative to the working directory,
    ``sqlite:////absolute/path.db`` absolute, ``sqlite:///:memory:`` a private
    in-memory database. A missing file (not its directory) is created, unless
    ``create`` is false.

    Args:
        url: The URL.
        create: Create the file if it is missing (the default). With ``False``
            a missing file raises :class:`~semreport.StorageNotFound` and no
            file (nor ``-wal`` nor ``-shm``) is left behind.
        **options: ``clock`` (a callable returning an aware datetime) and
            ``busy_timeout`` (seconds, default :data:`DEFAULT_BUSY_TIMEOUT`).

    Raises:
        ConfigurationError: the URL is malformed, an option is unknown, or the
            directory is missing (when creating).
        StorageNotFound: ``create`` is false and the file does not exist.
        CorruptStorage: the file is empty, not a SQLite database, or damaged.
        IncompatibleSchema: the file belongs to another application or a newer semreport.
    """
    path = _path_of(url)
    clock: Callable[[], datetime] = options.pop("clock", utc_now)
    busy_timeout = options.pop("busy_timeout", DEFAULT_BUSY_TIMEOUT)
    if options:
        raise ConfigurationError(
            f"sqlite:// takes the options clock, busy_timeout and create, not {sorted(options)}"
        )
    if path != ":memory:":
        directory = Path(path).parent
        if not directory.is_dir():
            if not create:
                raise StorageNotFound(
                    f"no semreport database at {path!r}: its directory does not exist"
                )
            raise ConfigurationError(f"the directory of {path!r} does not exist")
        path = os.fspath(path)
    return SQLiteStorage(path, clock=clock, busy_timeout=busy_timeout, create=create)
