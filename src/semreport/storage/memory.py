"""The in-memory storage adapter (``memory://``): fast, process-local, gone on close.

Each :func:`open_memory` call makes a new, empty store. It is the reference
the other adapters are tested against, and what unit tests and notebooks use
when nothing needs to persist.

It keeps the same rows the persistent adapters write (the JSON text of each
record and its SHA-256, built by :mod:`semreport.storage._common`), so it
refuses exactly the input they refuse, and every read decodes a fresh copy and
checks its hash as theirs do: no caller can alter what another one reads.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any, NamedTuple

from semreport.domain import (
    ConfigurationError,
    Decision,
    DecisionNotFound,
    LegacySession,
    ProjectSummary,
    SessionNotFound,
    StorageError,
    StoredRecord,
)
from semreport.storage._common import (
    Clock,
    DecisionRow,
    RecordReads,
    SessionRow,
    already_recorded,
    check_decision_batch,
    check_session_batch,
    decision_row,
    next_recorded_at,
    read_record,
    read_records,
    read_session,
    session_already_recorded,
    session_row,
    utc_now,
)

__all__ = ["MemoryStorage", "open_memory"]


class _Stored(NamedTuple):
    """One decision row: its text and hash (as a database row holds them) and its time."""

    body: str
    sha256: str
    recorded_at: datetime


class _StoredSession(NamedTuple):
    project_id: str
    started_at: datetime
    row: SessionRow


class MemoryStorage(RecordReads):
    """Decision Memory and legacy sessions held in process memory; thread-safe."""

    def __init__(self, *, clock: Clock = utc_now) -> None:
        self._clock = clock
        self._lock = threading.RLock()
        # Per project: the rows in sequence order (sequence n at index n - 1), and id -> index.
        self._log: dict[str, list[_Stored]] = {}
        self._by_id: dict[str, dict[str, int]] = {}
        self._sessions: dict[str, _StoredSession] = {}
        self._closed = False

    def __repr__(self) -> str:
        return f"MemoryStorage(projects={len(self._log)}, sessions={len(self._sessions)})"

    # -- DecisionMemory --------------------------------------------------------

    def records(
        self, project_id: str, *, after: int = 0, as_of: int | None = None
    ) -> Iterator[StoredRecord]:
        """Yield the records :meth:`decisions` would yield, as checked data."""
        start, rows = self._slice(project_id, after, as_of)
        return (
            read_record(row.body, row.sha256, project_id=project_id, sequence=sequence)
            for sequence, row in enumerate(rows, start + 1)
        )

    def _slice(self, project_id: str, after: int, as_of: int | None) -> tuple[int, list[_Stored]]:
        with self._lock:
            log = self._log.get(project_id, [])
            end = len(log) if as_of is None else max(0, min(as_of, len(log)))
            # The log only grows, so this slice is a consistent snapshot.
            start = max(after, 0)
            return start, log[start:end]

    def get_record(self, project_id: str, decision_id: str) -> StoredRecord:
        """Return one stored record, or raise :class:`~semreport.DecisionNotFound`."""
        with self._lock:
            index = self._by_id.get(project_id, {}).get(decision_id)
            row = None if index is None else self._log[project_id][index]
        if index is None or row is None:
            raise DecisionNotFound(f"project {project_id!r} has no decision {decision_id!r}")
        return read_record(
            row.body,
            row.sha256,
            project_id=project_id,
            sequence=index + 1,
            decision_id=decision_id,
        )

    def get_records(self, project_id: str, decision_ids: Sequence[str]) -> list[StoredRecord]:
        """Return the stored records of ``decision_ids`` in the order given (one lock held)."""
        with self._lock:
            by_id = self._by_id.get(project_id, {})
            log = self._log.get(project_id, [])
            rows = {}
            for decision_id in decision_ids:
                index = by_id.get(decision_id)
                if index is not None:
                    row = log[index]
                    rows[decision_id] = (index + 1, row.body, row.sha256)
        return read_records(project_id, decision_ids, rows)

    def latest_sequence(self, project_id: str) -> int:
        """Return the project's highest sequence number (0 when empty)."""
        with self._lock:
            return len(self._log.get(project_id, ()))

    def has_project(self, project_id: str) -> bool:
        """Whether the project holds any decision or legacy session."""
        with self._lock:
            if self._log.get(project_id):
                return True
            return any(s.project_id == project_id for s in self._sessions.values())

    def projects(self) -> list[ProjectSummary]:
        """Every project holding a decision or a session, ordered by id, with its counts."""
        with self._lock:
            sessions: dict[str, int] = {}
            for stored in self._sessions.values():
                sessions[stored.project_id] = sessions.get(stored.project_id, 0) + 1
            names = {name for name, log in self._log.items() if log} | set(sessions)
            return [
                ProjectSummary(
                    project_id=name,
                    decisions=len(self._log.get(name, ())),
                    latest_sequence=len(self._log.get(name, ())),
                    sessions=sessions.get(name, 0),
                )
                for name in sorted(names)
            ]

    # -- DecisionLog -----------------------------------------------------------

    def record(self, decisions: Sequence[Decision]) -> list[Decision]:
        """Append a batch atomically; see :class:`~semreport.domain.DecisionLog`."""
        batch = check_decision_batch(decisions)
        with self._lock:
            self._check_open()
            for decision in batch:
                if decision.id in self._by_id.get(decision.project_id, {}):
                    raise already_recorded(decision)
            now = self._clock()
            heads: dict[str, tuple[int, datetime | None]] = {}
            rows: list[DecisionRow] = []
            # Every row is built before any is kept: a refusal keeps nothing.
            for decision in batch:
                project_id = decision.project_id
                if project_id not in heads:
                    log = self._log.get(project_id, [])
                    heads[project_id] = (len(log), log[-1].recorded_at if log else None)
                sequence, previous = heads[project_id]
                at = next_recorded_at(now, previous)
                rows.append(decision_row(decision, sequence + 1, at))
                heads[project_id] = (sequence + 1, at)
            for row in rows:
                kept = row.decision
                log = self._log.setdefault(kept.project_id, [])
                self._by_id.setdefault(kept.project_id, {})[kept.id] = len(log)
                log.append(_Stored(row.body, row.sha256, kept.recorded_at or now))
        return [row.decision for row in rows]

    # -- SessionStore / SessionLog ---------------------------------------------

    def get_session(self, session_id: str) -> LegacySession:
        """Return one session, or raise :class:`~semreport.SessionNotFound`."""
        with self._lock:
            found = self._sessions.get(session_id)
        if found is None:
            raise SessionNotFound(f"no legacy session {session_id!r}")
        return read_session(found.row.body, found.row.sha256, session_id=session_id)

    def sessions(self, project_id: str) -> Iterator[LegacySession]:
        """Yield the project's sessions ordered by start time, then id."""
        with self._lock:
            chosen = sorted(
                (s.started_at, session_id, s.row)
                for session_id, s in self._sessions.items()
                if s.project_id == project_id
            )
        return iter(
            [read_session(row.body, row.sha256, session_id=sid) for _at, sid, row in chosen]
        )

    def record_sessions(self, sessions: Sequence[LegacySession]) -> list[LegacySession]:
        """Store a batch of sessions atomically."""
        batch = check_session_batch(sessions)
        rows = [session_row(session) for session in batch]
        with self._lock:
            self._check_open()
            for session in batch:
                if session.id in self._sessions:
                    raise session_already_recorded(session)
            for session, row in zip(batch, rows, strict=True):
                self._sessions[session.id] = _StoredSession(
                    session.project_id, session.started_at, row
                )
        return batch

    def close(self) -> None:
        """Refuse further writes; what was read stays valid."""
        self._closed = True

    def _check_open(self) -> None:
        if self._closed:
            raise StorageError("the storage is closed")


def open_memory(url: str, *, create: bool = True, **options: Any) -> MemoryStorage:
    """Open a new, empty in-memory store for ``memory://``.

    Args:
        url: ``memory://``.
        create: Ignored: an in-memory store is always new.
        **options: ``clock`` only.

    Raises:
        ConfigurationError: an option other than ``clock``.
    """
    del create  # every in-memory store is new; there is nothing to find or create
    clock = options.pop("clock", utc_now)
    if options:
        raise ConfigurationError(f"memory:// takes no options besides clock: {sorted(options)}")
    return MemoryStorage(clock=clock)
