"""What every storage adapter shares: batch checks, the clock, and the row form.

Persistent adapters store each record as its wire form (JSON text made by
:mod:`semreport.wire`) beside a few indexed columns; :func:`encode_decision`
and :func:`decode_decision` (and their session twins) are that row form, so
that SQLite, PostgreSQL and third-party adapters store the same text and read
it back the same way. No adapter imports another; they all import this.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar

from semreport.domain import (
    CorruptStorage,
    Decision,
    DecisionAlreadyRecorded,
    InvalidRequest,
    LegacySession,
    SessionAlreadyRecorded,
    StorageError,
)
from semreport.wire import converter, to_wire

__all__ = [
    "Clock",
    "already_recorded",
    "check_decision_batch",
    "check_session_batch",
    "decode_decision",
    "decode_session",
    "encode_decision",
    "encode_session",
    "next_recorded_at",
    "session_already_recorded",
    "sortable_time",
    "utc_now",
]

Clock = Callable[[], datetime]
"""Returns the current time; adapters take one so that tests can fix time."""

T = TypeVar("T")


def utc_now() -> datetime:
    """The default clock: the current UTC time."""
    return datetime.now(UTC)


def _batch(items: Iterable[object], cls: type[T], what: str) -> list[T]:
    if isinstance(items, cls):
        raise InvalidRequest.at("$", f"expected a sequence of {what}, got a single one")
    batch = list(items)
    for position, item in enumerate(batch):
        if not isinstance(item, cls):
            raise InvalidRequest.at(
                f"$[{position}]", f"expected a {cls.__name__}, got {type(item).__name__}"
            )
    return batch  # type: ignore[return-value]


def check_decision_batch(decisions: Sequence[Decision]) -> list[Decision]:
    """Return the batch as a list, refusing non-decisions and ids repeated within it."""
    batch = _batch(decisions, Decision, "decisions")
    seen: set[tuple[str, str]] = set()
    for decision in batch:
        key = (decision.project_id, decision.id)
        if key in seen:
            raise DecisionAlreadyRecorded(
                f"decision {decision.id!r} appears twice in the batch for project "
                f"{decision.project_id!r}; nothing was recorded"
            )
        seen.add(key)
    return batch


def check_session_batch(sessions: Sequence[LegacySession]) -> list[LegacySession]:
    """Return the batch as a list, refusing non-sessions and ids repeated within it."""
    batch = _batch(sessions, LegacySession, "legacy sessions")
    seen: set[str] = set()
    for session in batch:
        if session.id in seen:
            raise SessionAlreadyRecorded(
                f"session {session.id!r} appears twice in the batch; nothing was recorded"
            )
        seen.add(session.id)
    return batch


def already_recorded(decision: Decision) -> DecisionAlreadyRecorded:
    """The error for a decision id the project already holds."""
    return DecisionAlreadyRecorded(
        f"decision {decision.id!r} is already recorded in project {decision.project_id!r}; "
        "Decision Memory is append-only, nothing was recorded"
    )


def session_already_recorded(session: LegacySession) -> SessionAlreadyRecorded:
    """The error for a session id already stored."""
    return SessionAlreadyRecorded(
        f"session {session.id!r} is already recorded; nothing was recorded"
    )


def next_recorded_at(now: object, previous: datetime | None) -> datetime:
    """The ``recorded_at`` for the next record of a project: never before the previous one.

    Raises:
        StorageError: the clock returned something that is not a timezone-aware datetime.
    """
    if not isinstance(now, datetime) or now.tzinfo is None or now.utcoffset() is None:
        raise StorageError(f"the storage clock must return an aware datetime, got {now!r}")
    now = now.astimezone(UTC)
    return now if previous is None or now >= previous else previous


def sortable_time(value: datetime) -> str:
    """Return a fixed-width UTC text form of ``value`` whose text order is time order.

    Use it for indexed time columns; the wire form (``...Z`` without zero
    microseconds) does not sort as text.
    """
    v = value.astimezone(UTC)
    return (
        f"{v.year:04d}-{v.month:02d}-{v.day:02d}T{v.hour:02d}:{v.minute:02d}:{v.second:02d}"
        f".{v.microsecond:06d}Z"
    )


def _dumps(data: Any, what: str) -> str:
    # ensure_ascii=False keeps text compact; allow_nan=False is a last guard (the
    # models already refuse non-finite numbers).
    text = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidRequest.at(
            "$",
            f"the {what} holds text that is not valid Unicode ({exc.reason}); nothing was recorded",
        ) from None
    return text


def encode_decision(decision: Decision) -> str:
    """Return the stored form of a recorded decision: its wire form as compact JSON text."""
    return _dumps(to_wire(decision), "decision")


def decode_decision(text: str | bytes) -> Decision:
    """Rebuild a decision from :func:`encode_decision` text.

    One ``json.loads`` and one structuring pass of the wire converter per row;
    nothing slower. A row that does not decode is reported as corrupt storage.

    Raises:
        CorruptStorage: the stored text is not a decision.
    """
    try:
        return converter.structure(json.loads(text), Decision)
    except Exception as exc:
        raise _corrupt("decision", text, exc) from exc


def encode_session(session: LegacySession) -> str:
    """Return the stored form of a legacy session: its wire form as compact JSON text."""
    return _dumps(to_wire(session), "legacy session")


def decode_session(text: str | bytes) -> LegacySession:
    """Rebuild a legacy session from :func:`encode_session` text.

    Raises:
        CorruptStorage: the stored text is not a legacy session.
    """
    try:
        return converter.structure(json.loads(text), LegacySession)
    except Exception as exc:
        raise _corrupt("legacy session", text, exc) from exc


def _corrupt(what: str, text: str | bytes, exc: Exception) -> CorruptStorage:
    return CorruptStorage(f"a stored {what} does not decode ({exc}): {str(text)[:80]!r}")
