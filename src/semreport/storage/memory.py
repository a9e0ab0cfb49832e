"""The in-memory storage adapter (``memory://``): fast, process-local, gone on close.

Each :func:`open_memory` call makes a new, empty store. It is the reference
the other adapters are tested against, and what unit tests and notebooks use
when nothing needs to persist.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import Any

from semreport.domain import (
    Decision,
    DecisionNotFound,
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
    next_recorded_at,
    session_already_recorded,
    utc_now,
)

__all__ = ["MemoryStorage", "open_memory"]


class MemoryStorage:
    """Decision Memory and legacy sessions held in process memory; thread-safe."""

    def __init__(self, *, clock: Clock = utc_now) -> None:
        self._clock = clock
        self._lock = threading.RLock()
        self._log: dict[str, list[Decision]] = {}
        self._by_id: dict[str, dict[str, Decision]] = {}
        self._sessions: dict[str, LegacySession] = {}
        self._closed = False

    def __repr__(self) -> str:
        return f"MemoryStorage(projects={len(self._log)}, sessions={len(self._sessions)})"

    # -- DecisionMemory --------------------------------------------------------

    def decisions(
        self, project_id: str, *, after: int = 0, as_of: int | None = None
    ) -> Iterator[Decision]:
        """Yield the project's decisions with ``after < sequence <= as_of``, in order."""
        with self._lock:
            log = self._log.get(project_id, [])
            end = len(log) if as_of is None else max(0, min(as_of, len(log)))
            # The log only grows, so this slice is a consistent snapshot.
            snapshot = log[max(after, 0) : end]
        return iter(snapshot)

    def get(self, project_id: str, decision_id: str) -> Decision:
        """Return one decision, or raise :class:`~semreport.DecisionNotFound`."""
        with self._lock:
            found = self._by_id.get(project_id, {}).get(decision_id)
        if found is None:
            raise DecisionNotFound(f"project {project_id!r} has no decision {decision_id!r}")
        return found

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
            stored: list[Decision] = []
            for decision in batch:
                log = self._log.setdefault(decision.project_id, [])
                at = next_recorded_at(now, log[-1].recorded_at if log else None)
                kept = decision.recorded(len(log) + 1, at)
                log.append(kept)
                self._by_id.setdefault(decision.project_id, {})[kept.id] = kept
                stored.append(kept)
        return stored

    # -- SessionStore / SessionLog ---------------------------------------------

    def get_session(self, session_id: str) -> LegacySession:
        """Return one session, or raise :class:`~semreport.SessionNotFound`."""
        with self._lock:
            found = self._sessions.get(session_id)
        if found is None:
            raise SessionNotFound(f"no legacy session {session_id!r}")
        return found

    def sessions(self, project_id: str) -> Iterator[LegacySession]:
        """Yield the project's sessions ordered by start time, then id."""
        with self._lock:
            chosen = [s for s in self._sessions.values() if s.project_id == project_id]
        return iter(sorted(chosen, key=lambda s: (s.started_at, s.id)))

    def record_sessions(self, sessions: Sequence[LegacySession]) -> list[LegacySession]:
        """Store a batch of sessions atomically."""
        batch = check_session_batch(sessions)
        with self._lock:
            self._check_open()
            for session in batch:
                if session.id in self._sessions:
                    raise session_already_recorded(session)
            for session in batch:
                self._sessions[session.id] = session
        return batch

    def close(self) -> None:
        """Refuse further writes; what was read stays valid."""
        self._closed = True

    def _check_open(self) -> None:
        if self._closed:
            raise StorageError("the storage is closed")


def open_memory(url: str, **options: Any) -> MemoryStorage:
    """Open a new, empty in-memory store for ``memory://``."""
    clock = options.pop("clock", utc_now)
    if options:
        raise InvalidRequest.at("$", f"memory:// takes no options besides clock: {sorted(options)}")
    return MemoryStorage(clock=clock)
