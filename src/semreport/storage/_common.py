"""What every storage adapter shares: batch checks, the clock, and the row form.

Persistent adapters store each record as its wire form (JSON text made by
:mod:`semreport.wire`) beside a few indexed columns and a SHA-256; the memory
adapter keeps the same rows in a list. The functions here are that row form,
so that every adapter refuses the same input, stores the same text and reads it
back the same way. No adapter imports another; they all import this.

The row form of a decision:

- ``body``: the decision's wire form as JSON text, made of the record's
  canonical bytes (JCS, RFC 8785), the very bytes a report cites. JCS writes a
  whole-number float as an integer; a record holding one in its attributes
  gets one more member, last, keeping them as floats (``"float_attributes"``),
  so that the body keeps every number and still begins with the canonical
  bytes (see :func:`decision_row`). Rows written by earlier builds held
  compact JSON for such records instead; they are read as before.
- ``sha256``: :func:`semreport.canonical.record_sha256` of the decision, the
  hex digest in the record's citation id ``sha256:...``.

:func:`read_decision` checks that hash on every read: one ``hashlib`` call
(a re-canonicalisation for a row of the earlier form), and a
mismatch, an undecodable body or a row that names another record is a
:class:`~semreport.CorruptStorage` naming the record. Sessions are not cited;
their rows carry the SHA-256 of the stored body text instead, checked the same
way (:func:`session_row`, :func:`read_session`).
"""

from __future__ import annotations

import abc
import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Final, NamedTuple, TypeVar

from semreport._checked import checked_decision, naive_times, structure_decision
from semreport.canonical import CanonicalizationError, canonical_record
from semreport.domain import (
    CorruptStorage,
    Decision,
    DecisionAlreadyRecorded,
    DecisionNotFound,
    InvalidRequest,
    LegacySession,
    SessionAlreadyRecorded,
    StorageError,
    StoredRecord,
    record_shape_problem,
)
from semreport.wire import converter, from_wire, loads, to_wire

__all__ = [
    "Clock",
    "DecisionRow",
    "RecordReads",
    "SessionRow",
    "already_recorded",
    "check_decision_batch",
    "check_session_batch",
    "decision_of",
    "decision_row",
    "decode_decision",
    "decode_session",
    "encode_decision",
    "encode_session",
    "next_recorded_at",
    "read_decision",
    "read_record",
    "read_records",
    "read_session",
    "rehash_decision",
    "session_already_recorded",
    "session_row",
    "sortable_time",
    "utc_now",
]

Clock = Callable[[], datetime]
"""Returns the current time; adapters take one so that tests can fix time."""

T = TypeVar("T")


def utc_now() -> datetime:
    """The default clock: the current UTC time."""
    return datetime.now(UTC)


# -- batches -----------------------------------------------------------------------


def _batch(items: Iterable[object], cls: type[T], what: str) -> list[T]:
    if isinstance(items, cls):
        raise InvalidRequest.at("$", f"expected a sequence of {what}, got a single one")
    if isinstance(items, str | bytes) or not isinstance(items, Iterable):
        raise InvalidRequest.at("$", f"expected a sequence of {what}")
    batch = list(items)
    for position, item in enumerate(batch):
        if not isinstance(item, cls):
            raise InvalidRequest.at(
                f"$[{position}]", f"expected a {cls.__name__}, got {type(item).__name__}"
            )
    return batch  # type: ignore[return-value]


def check_decision_batch(decisions: Sequence[Decision]) -> list[Decision]:
    """Check a batch the way every adapter must, before anything is written.

    Each decision must be exactly what the model's constructor makes (every
    converter and validator of the model passes on it as it is); one altered
    after construction (``object.__setattr__``, a poked private field) is
    rebuilt from its wire form and refused exactly as that wire form would be:
    lone surrogates, integers beyond ±(2**53 - 1), non-finite numbers, naive
    times, wrong types. An id repeated within the batch is refused too.

    Returns:
        The batch as a list of valid decisions, ready for :func:`decision_row`.

    Raises:
        InvalidRequest: something is not a decision, or a field is invalid
            (each with its path, e.g. ``$[2].attributes.cost_eur``).
        DecisionAlreadyRecorded: an id appears twice in the batch.
    """
    batch = _batch(decisions, Decision, "decisions")
    checked = [checked_decision(decision, f"$[{n}]") for n, decision in enumerate(batch)]
    seen: set[tuple[str, str]] = set()
    for decision in checked:
        key = (decision.project_id, decision.id)
        if key in seen:
            raise DecisionAlreadyRecorded(
                f"decision {decision.id!r} appears twice in the batch for project "
                f"{decision.project_id!r}; nothing was recorded"
            )
        seen.add(key)
    return checked


def check_session_batch(sessions: Sequence[LegacySession]) -> list[LegacySession]:
    """Return the batch as a list of validated sessions, refusing ids repeated within it.

    Like decisions, each session is rebuilt from its wire form, so that a
    session altered after construction is refused as its wire form would be.

    Raises:
        InvalidRequest: something is not a session, or a field is invalid.
        SessionAlreadyRecorded: an id appears twice in the batch.
    """
    batch = _batch(sessions, LegacySession, "legacy sessions")
    checked = [_check_session(session, f"$[{n}]") for n, session in enumerate(batch)]
    seen: set[str] = set()
    for session in checked:
        if session.id in seen:
            raise SessionAlreadyRecorded(
                f"session {session.id!r} appears twice in the batch; nothing was recorded"
            )
        seen.add(session.id)
    return checked


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


# -- the decision codec --------------------------------------------------------------


class DecisionRow(NamedTuple):
    """What an adapter stores for one recorded decision.

    Attributes:
        decision: The recorded decision (what ``record`` returns and reads give back).
        body: Its stored JSON text.
        sha256: Its citation hash, :func:`semreport.canonical.record_sha256`.
    """

    decision: Decision
    body: str
    sha256: str


_FLOAT_ATTRIBUTES: Final = "float_attributes"
"""The member a stored body adds, last, to keep the floats JCS writes as integers."""

_FLOATS_MARK: Final = f',"{_FLOAT_ATTRIBUTES}":{{'.encode()


def _row_body(wire: dict[str, Any], canonical: bytes) -> str:
    """The body stored for a record: its canonical bytes, and the floats JCS writes as integers.

    JCS writes a whole-number float (``60.0``, ``-0.0``) as an integer (``60``,
    ``0``): the only change of type, and in a decision only ``attributes`` hold
    floats. A record with such an attribute is stored as its canonical bytes
    with one more member, last, holding those attributes as floats
    (``...,"float_attributes":{"cost_eur":60.0}}``). The canonical bytes are
    then the body up to that member, so every read checks a record with one
    ``hashlib`` call, and the body still parses as the record's fields.
    """
    text = canonical.decode()
    floats = {
        k: v for k, v in sorted(wire["attributes"].items()) if type(v) is float and v.is_integer()
    }
    if not floats:
        return text
    kept = json.dumps(floats, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return f'{text[:-1]},"{_FLOAT_ATTRIBUTES}":{kept}}}'


def _restore_floats(wire: dict[str, Any], floats: object) -> str | None:
    """Give back the floats a body keeps (each equal to its canonical value); or what is wrong."""
    attributes = wire["attributes"]
    if type(floats) is not dict:
        return f"{_FLOAT_ATTRIBUTES} is not an object"
    for name, value in floats.items():
        canonical = attributes.get(name)
        # JCS prints such a float's shortest digits, as an integer: equal once read as a float.
        if (
            type(value) is not float
            or type(canonical) not in (int, float)
            or float(canonical) != value
        ):
            return f"{_FLOAT_ATTRIBUTES} holds {name!r}, which is not that attribute as a float"
        attributes[name] = value
    return None


def decision_row(decision: Decision, sequence: int, recorded_at: datetime) -> DecisionRow:
    """Stamp a decision with its ``sequence`` and ``recorded_at`` and build its row.

    Args:
        decision: A decision from :func:`check_decision_batch` (nothing else).
        sequence: The sequence the log assigns it.
        recorded_at: Its time, from :func:`next_recorded_at` (aware, UTC).

    Raises:
        InvalidRequest: the decision cannot be canonicalised (a checked one always can).
    """
    decision = decision.recorded(sequence, recorded_at)
    wire: dict[str, Any] = to_wire(decision)
    try:
        canonical = canonical_record(wire)
    except CanonicalizationError as exc:  # pragma: no cover - the checks refuse it first
        raise InvalidRequest.at("$", f"the decision cannot be canonicalised: {exc}") from None
    return DecisionRow(decision, _row_body(wire, canonical), hashlib.sha256(canonical).hexdigest())


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


def _record_name(project_id: str, sequence: int | None, decision_id: str | None) -> str:
    parts = []
    if decision_id is not None:
        parts.append(f"decision {decision_id!r}")
    if sequence is not None:
        parts.append(f"sequence {sequence}")
    return f"the stored record of project {project_id!r} ({', '.join(parts)})"


def read_record(
    body: str | bytes,
    sha256: object,
    *,
    project_id: str,
    sequence: int | None = None,
    decision_id: str | None = None,
) -> StoredRecord:
    """Read a stored decision row as data, checking it against its citation hash.

    Args:
        body: The stored JSON text (:attr:`DecisionRow.body`).
        sha256: The stored hash (:attr:`DecisionRow.sha256`).
        project_id: The project the row was read for.
        sequence: The sequence the row was read at, when known.
        decision_id: The id the row was looked up by, when known.

    Returns:
        The record: its wire form, hash and canonical bytes, exactly as recorded.

    Raises:
        CorruptStorage: the body does not decode, does not hash to ``sha256``,
            is not shaped like a recorded decision, or is another record than
            the one asked for; the message names the project and the sequence or id.
    """
    data = _bytes(body)
    if isinstance(sha256, bytes | bytearray | memoryview):
        sha256 = bytes(sha256).decode("ascii", "replace")
    try:
        wire = loads(data)
    except Exception as exc:  # noqa: BLE001 - any failure to decode is damage at rest
        raise _damaged(
            project_id, sequence, decision_id, f"does not decode ({_reason(exc)}): {_AT_REST}"
        ) from None
    # A body is the canonical bytes, perhaps followed by its whole-number floats as
    # floats (see _row_body): one hashlib call proves it is the recorded record. A body
    # of an earlier form (compact JSON keeping every float) is canonicalised again.
    canonical = data
    floats: object = None
    if type(wire) is dict and _FLOAT_ATTRIBUTES in wire:
        floats = wire.pop(_FLOAT_ATTRIBUTES)
        canonical = data[: data.rfind(_FLOATS_MARK)] + b"}"
    if type(sha256) is not str or hashlib.sha256(canonical).hexdigest() != sha256:
        try:
            canonical = canonical_record(wire)
        except Exception:  # noqa: BLE001 - not even a record: it cannot match its hash
            canonical = b""
        if type(sha256) is not str or hashlib.sha256(canonical).hexdigest() != sha256:
            raise _damaged(
                project_id, sequence, decision_id, f"does not match its stored SHA-256: {_AT_REST}"
            )
    problem = record_shape_problem(wire)
    if problem is None and floats is not None:
        problem = _restore_floats(wire, floats)
    if problem is not None:
        raise _damaged(
            project_id,
            sequence,
            decision_id,
            f"is not a recorded decision ({problem}): {_AT_REST}, or written by a version "
            "of semreport that accepted what this one refuses",
        )
    if (
        wire["project_id"] != project_id
        or (sequence is not None and wire["sequence"] != sequence)
        or (decision_id is not None and wire["id"] != decision_id)
    ):
        name = _record_name(project_id, sequence, decision_id)
        raise CorruptStorage(
            f"{name} holds decision {wire['id']!r} of project {wire['project_id']!r} at "
            f"sequence {wire['sequence']}: the row was altered or damaged at rest"
        )
    return StoredRecord(wire["sequence"], sha256, canonical, wire)


def read_records(
    project_id: str,
    decision_ids: Sequence[str],
    rows: Mapping[str, tuple[int | None, str | bytes, object]],
) -> list[StoredRecord]:
    """Read the rows of ``decision_ids``, in the order asked, from rows found by id.

    Args:
        project_id: The project the rows were read for.
        decision_ids: The ids asked for, in the order wanted (an id may repeat).
        rows: Each id found, with its row's sequence, stored text and hash.

    Returns:
        One checked record per id asked (:func:`read_record`; a repeated id is
        read again, so every record holds a fresh wire form).

    Raises:
        DecisionNotFound: an id is not among ``rows``; the first such id is
            named, before any row is read.
        CorruptStorage: as :func:`read_record`.
    """
    missing = next((i for i in decision_ids if i not in rows), None)
    if missing is not None:
        raise DecisionNotFound(f"project {project_id!r} has no decision {missing!r}")
    out = []
    for decision_id in decision_ids:
        sequence, body, sha256 = rows[decision_id]
        out.append(
            read_record(
                body, sha256, project_id=project_id, sequence=sequence, decision_id=decision_id
            )
        )
    return out


def read_decision(
    body: str | bytes,
    sha256: object,
    *,
    project_id: str,
    sequence: int | None = None,
    decision_id: str | None = None,
) -> Decision:
    """Rebuild a stored decision: :func:`read_record`, then the model with every validator.

    Raises:
        CorruptStorage: as :func:`read_record`, or the record is not a valid decision.
    """
    record = read_record(
        body, sha256, project_id=project_id, sequence=sequence, decision_id=decision_id
    )
    return decision_of(record, project_id=project_id)


class RecordReads(abc.ABC):
    """``decisions`` and ``get`` of an adapter, in terms of its ``records`` and ``get_record``.

    An adapter reads rows into checked :class:`~semreport.StoredRecord` s once;
    the decisions are those records built into models with every validator.
    """

    @abc.abstractmethod
    def records(
        self, project_id: str, *, after: int = 0, as_of: int | None = None
    ) -> Iterator[StoredRecord]:
        """Yield the project's checked records with ``after < sequence <= as_of``, in order."""

    @abc.abstractmethod
    def get_record(self, project_id: str, decision_id: str) -> StoredRecord:
        """Return one checked record, or raise :class:`~semreport.DecisionNotFound`."""

    def get_records(self, project_id: str, decision_ids: Sequence[str]) -> list[StoredRecord]:
        """Return the checked records of ``decision_ids`` in the order given.

        This reads them one by one with :meth:`get_record`; an adapter that can
        read them in one query overrides it.
        """
        return [self.get_record(project_id, decision_id) for decision_id in decision_ids]

    def decisions(
        self, project_id: str, *, after: int = 0, as_of: int | None = None
    ) -> Iterator[Decision]:
        """Yield the project's decisions with ``after < sequence <= as_of``, in order.

        The upper bound is fixed when this is called (``as_of``, at most the
        latest sequence then); records appended later never appear. A missing
        or altered record raises :class:`~semreport.CorruptStorage` naming it.
        """
        return (
            decision_of(record, project_id=project_id)
            for record in self.records(project_id, after=after, as_of=as_of)
        )

    def get(self, project_id: str, decision_id: str) -> Decision:
        """Return one decision, or raise :class:`~semreport.DecisionNotFound`."""
        return decision_of(self.get_record(project_id, decision_id), project_id=project_id)


def decision_of(record: StoredRecord, *, project_id: str) -> Decision:
    """The decision a checked record holds, built with every validator of the model.

    Raises:
        CorruptStorage: the record's fields are not a valid decision (written by
            a version of semreport that accepted what this one refuses).
    """
    try:
        return structure_decision(record.wire)
    except Exception as exc:  # noqa: BLE001 - any failure to decode is damage at rest
        raise _damaged(
            project_id,
            record.sequence,
            None,
            f"does not decode ({_reason(exc)}): {_AT_REST}, or written by a version of "
            "semreport that accepted what this one refuses",
        ) from None


def _damaged(
    project_id: str, sequence: int | None, decision_id: str | None, what: str
) -> CorruptStorage:
    return CorruptStorage(f"{_record_name(project_id, sequence, decision_id)} {what}")


_AT_REST: Final = "it was altered or damaged at rest"


def rehash_decision(body: str | bytes) -> tuple[str, str]:
    """Return the ``(body, sha256)`` a row stored without a hash gets when its store migrates.

    The row is decoded and stored again as :func:`decision_row` would store it,
    with its citation hash: the same hash the reports of that store already
    cite for it. A row that does not decode keeps its text and gets an empty
    hash, so that every read of it raises :class:`~semreport.CorruptStorage`
    (as it did before the migration) rather than the migration failing.
    """
    try:
        decision = structure_decision(loads(body))
        wire = to_wire(decision)
        canonical = canonical_record(wire)
    except Exception:  # noqa: BLE001 - kept as it is, and refused on every read
        text = body if isinstance(body, str) else bytes(body).decode("utf-8", "replace")
        return text, ""
    return _row_body(wire, canonical), hashlib.sha256(canonical).hexdigest()


def _bytes(body: object) -> bytes:
    """The stored text as bytes; a damaged row may hold another type (which then fails)."""
    if isinstance(body, str):
        return body.encode("utf-8", "surrogateescape")
    if isinstance(body, bytes | bytearray | memoryview):
        return bytes(body)
    return b""


def _reason(exc: Exception) -> str:
    if isinstance(exc, ValueError) and type(exc).__name__ == "JSONDecodeError":
        return "not JSON"
    if isinstance(exc, UnicodeDecodeError):
        return "not UTF-8"
    return "not a valid record"


def encode_decision(decision: Decision) -> str:
    """Return a decision's wire form as compact JSON text (the row form of schema 1)."""
    return _dumps(to_wire(decision), "decision")


def decode_decision(text: str | bytes) -> Decision:
    """Rebuild a decision from JSON text of its wire form, without a hash to check.

    Raises:
        CorruptStorage: the text is not a decision.
    """
    try:
        return structure_decision(loads(text))
    except Exception as exc:  # noqa: BLE001 - any failure to decode is damage at rest
        raise _corrupt("decision", text, exc) from None


# -- sessions ------------------------------------------------------------------------


def _check_session(session: LegacySession, path: str) -> LegacySession:
    naive = naive_times(session, path)
    if naive:
        raise InvalidRequest(naive)
    try:
        wire = to_wire(session)
    except Exception:  # noqa: BLE001 - a session altered into something unwritable
        raise InvalidRequest.at(path, "the session's fields do not form a wire form") from None
    return from_wire(wire, LegacySession, path=path)


class SessionRow(NamedTuple):
    """What an adapter stores for one legacy session.

    Attributes:
        body: The session's wire form as compact JSON text.
        sha256: The hex SHA-256 of ``body``'s UTF-8 bytes (a checksum; sessions are not cited).
    """

    body: str
    sha256: str


def session_row(session: LegacySession) -> SessionRow:
    """Build the row of a session checked by :func:`check_session_batch`."""
    body = encode_session(session)
    return SessionRow(body, hashlib.sha256(body.encode("utf-8")).hexdigest())


def read_session(
    body: str | bytes, sha256: object, *, session_id: str | None = None
) -> LegacySession:
    """Rebuild a stored session, checking it against its stored hash.

    Raises:
        CorruptStorage: the body does not hash to ``sha256``, does not decode,
            or is another session than the one asked for.
    """
    data = _bytes(body)
    if isinstance(sha256, bytes | bytearray | memoryview):
        sha256 = bytes(sha256).decode("ascii", "replace")
    name = "a stored legacy session" if session_id is None else f"stored session {session_id!r}"
    if type(sha256) is not str or hashlib.sha256(data).hexdigest() != sha256:
        raise CorruptStorage(
            f"{name} does not match its stored SHA-256: it was altered or damaged at rest"
        )
    try:
        session: LegacySession = converter.structure(loads(data), LegacySession)
    except Exception as exc:  # noqa: BLE001 - any failure to decode is damage at rest
        raise CorruptStorage(f"{name} does not decode ({_reason(exc)})") from None
    if session_id is not None and session.id != session_id:
        raise CorruptStorage(f"{name} holds session {session.id!r}: the row was altered")
    return session


def encode_session(session: LegacySession) -> str:
    """Return the stored form of a legacy session: its wire form as compact JSON text."""
    return _dumps(to_wire(session), "legacy session")


def decode_session(text: str | bytes) -> LegacySession:
    """Rebuild a legacy session from :func:`encode_session` text, without a hash to check.

    Raises:
        CorruptStorage: the stored text is not a legacy session.
    """
    try:
        session: LegacySession = converter.structure(loads(text), LegacySession)
    except Exception as exc:  # noqa: BLE001 - any failure to decode is damage at rest
        raise _corrupt("legacy session", text, exc) from None
    return session


def _corrupt(what: str, text: str | bytes, exc: Exception) -> CorruptStorage:
    return CorruptStorage(f"a stored {what} does not decode ({_reason(exc)}): {str(text)[:80]!r}")
