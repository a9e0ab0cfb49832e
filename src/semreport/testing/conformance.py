"""The storage conformance suite: every adapter, one set of rules.

Written in the fsspec ``tests/abstract`` style. The rules live in mixin
classes (one per port, each with a docstring); :class:`StorageConformance`
gathers them, and :class:`PersistentStorageConformance` adds the rules for
adapters whose data outlives the storage object. An adapter's test module
needs one short subclass that says how to open a storage:

.. code-block:: python

    from semreport.testing import PersistentStorageConformance

    class TestMyStorage(PersistentStorageConformance):
        def open_storage(self, name, clock):
            return MyStorage(self.tmp_path / f"{name}.db", clock=clock)

``open_storage(name, clock)`` opens a storage. The first call with a given
``name`` in a test must give an empty storage; for a persistent adapter a
later call with the same name must reopen the same data (a new connection, as
another process would). Names are unique within a test; ``self.tmp_path`` is
the test's temporary directory. Storages opened this way are closed after the
test. Adapters that cannot be reopened (like ``memory://``) subclass
:class:`StorageConformance` and ignore the name.

The tamper rules (:class:`TamperRules`) need two more methods, which damage
what the adapter stored the way a disk fault or a person with access to the
database would, behind the adapter's back:
``alter_stored_decision(storage, project_id, sequence, change)`` and
``alter_stored_session(storage, session_id, change)``. Each passes the stored
record to ``change`` as the JSON text of its wire form and stores what it
returns instead, keeping everything else of the row (its hash included).

Bad input at the door is one rule set too: :class:`MalformedInputRules`
throws :data:`MALFORMED_EXAMPLES` (5,000 by default, the environment
variable ``SEMREPORT_MALFORMED_EXAMPLES`` changes it) malformed batches at
:meth:`semreport.SemReport.record` over the adapter and checks that each is
refused with a typed error naming the field path, in words free of Python's
own (:data:`PYTHON_INTERNALS`), and that nothing stored changes.

Nothing here is specific to an adapter: the rules only use the
:class:`~semreport.domain.Storage` protocol (and the facade over it).
"""

# Test methods are named for the rule they check; docstrings would repeat the names.
# ruff: noqa: D102

from __future__ import annotations

import contextlib
import itertools
import math
import os
import re
import threading
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, ClassVar, Final

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from semreport.canonical import canonical_record, record_sha256
from semreport.domain import (
    Artefact,
    CorruptStorage,
    Decision,
    DecisionAlreadyRecorded,
    DecisionNotFound,
    Evidence,
    FrozenDict,
    InvalidRequest,
    LegacySession,
    Link,
    Participant,
    Principal,
    ProjectSummary,
    SemReportError,
    SessionAlreadyRecorded,
    SessionNotFound,
    Storage,
    StorageError,
    ToolCall,
    Turn,
)
from semreport.service import SemReport
from semreport.testing import strategies as sst
from semreport.wire import to_wire

__all__ = [
    "ALTERED_DECISIONS",
    "ALTERED_SESSIONS",
    "MALFORMED_EXAMPLES",
    "PYTHON_INTERNALS",
    "DecisionLogRules",
    "DecisionMemoryRules",
    "InputRefusalRules",
    "MalformedInputRules",
    "ManualClock",
    "PersistenceRules",
    "PersistentStorageConformance",
    "RoundTripRules",
    "SessionRules",
    "StatefulRules",
    "StorageConformance",
    "StorageFixtures",
    "TamperRules",
    "poked",
]

_EPOCH = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)


class ManualClock:
    """A clock that moves only when told to: ``recorded_at`` becomes predictable.

    Example:
        >>> clock = ManualClock()
        >>> first = clock()
        >>> clock.advance(seconds=5)
        >>> (clock() - first).total_seconds()
        5.0
    """

    def __init__(self, start: datetime = _EPOCH) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, *, seconds: float = 1.0) -> None:
        """Move the clock by ``seconds`` (backwards when negative)."""
        self.now += timedelta(seconds=seconds)


def decision(decision_id: str, project_id: str = "p-1", **fields: Any) -> Decision:
    """A small valid decision for rule tests."""
    fields.setdefault("title", f"Title of {decision_id}")
    fields.setdefault("statement", f"Statement of {decision_id}")
    fields.setdefault("agent", "agent-1")
    return Decision(id=decision_id, project_id=project_id, **fields)


def session(
    session_id: str, project_id: str = "p-1", started_at: datetime = _EPOCH
) -> LegacySession:
    """A small valid legacy session for rule tests."""
    return LegacySession(
        id=session_id, project_id=project_id, title=f"Session {session_id}", started_at=started_at
    )


def _ids(decisions: Iterator[Decision] | list[Decision]) -> list[str]:
    return [d.id for d in decisions]


class StorageFixtures:
    """What every rule class uses: :meth:`open_storage` (the subclass's) and fixtures.

    Fixtures: ``clock`` (a :class:`ManualClock`) and ``storage`` (an empty
    storage using it). :meth:`fresh` opens more empty storages; :meth:`reopen`
    opens a storage again by name (persistent adapters only).
    """

    tmp_path: Path
    _opened: list[Storage]
    _names: dict[int, str]

    def open_storage(self, name: str, clock: Any) -> Storage:
        """Open the storage called ``name`` with ``clock``: empty at first, the same later.

        Subclasses must implement this (and only this).
        """
        raise NotImplementedError

    @pytest.fixture(autouse=True)
    def _conformance_scope(self, tmp_path: Path) -> Iterator[None]:
        self.tmp_path = tmp_path
        self._opened = []
        self._names = {}
        yield
        for store in reversed(self._opened):
            with contextlib.suppress(Exception):
                store.close()

    @pytest.fixture
    def clock(self) -> ManualClock:
        """A manual clock starting at 2026-01-01 09:00 UTC."""
        return ManualClock()

    @pytest.fixture
    def storage(self, clock: ManualClock) -> Storage:
        """An empty storage using ``clock``."""
        return self.fresh(clock)

    def fresh(self, clock: Any = None) -> Storage:
        """Open a new, empty storage (closed after the test)."""
        name = f"s{uuid.uuid4().hex[:12]}"
        store = self.open_storage(name, clock if clock is not None else ManualClock())
        self._opened.append(store)
        self._names[id(store)] = name
        return store

    def release(self, *stores: Storage) -> None:
        """Close storages now rather than after the test.

        Property tests open a storage per example; releasing each one keeps a
        pooled adapter (PostgreSQL) from holding hundreds of connections at once.
        """
        for store in stores:
            with contextlib.suppress(Exception):
                store.close()
            if store in self._opened:
                self._opened.remove(store)

    def reopen(self, store: Storage, clock: Any = None) -> Storage:
        """Open the storage ``store`` was opened as, again, with a new connection."""
        again = self.open_storage(
            self._names[id(store)], clock if clock is not None else ManualClock()
        )
        self._opened.append(again)
        self._names[id(again)] = self._names[id(store)]
        return again


class DecisionLogRules(StorageFixtures):
    """DecisionLog: append-only, per-project gap-free sequences, all-or-nothing batches."""

    def test_record_assigns_sequences_in_batch_order(self, storage: Storage) -> None:
        stored = storage.record([decision("a"), decision("b"), decision("c")])
        assert [(d.id, d.sequence) for d in stored] == [("a", 1), ("b", 2), ("c", 3)]
        assert all(d.is_recorded for d in stored)

    def test_record_returns_the_decision_with_only_sequence_and_time_added(
        self, storage: Storage, clock: ManualClock
    ) -> None:
        original = decision("a", tags={"x"}, attributes={"cost_eur": 12.5})
        (stored,) = storage.record([original])
        assert stored == original.recorded(1, clock.now)

    def test_sequences_continue_across_batches_without_gaps(self, storage: Storage) -> None:
        storage.record([decision("a"), decision("b")])
        stored = storage.record([decision("c")])
        assert stored[0].sequence == 3
        assert [d.sequence for d in storage.decisions("p-1")] == [1, 2, 3]

    def test_sequences_are_independent_per_project(self, storage: Storage) -> None:
        stored = storage.record(
            [decision("a", "p-1"), decision("a", "p-2"), decision("b", "p-1"), decision("c", "p-2")]
        )
        assert [(d.project_id, d.sequence) for d in stored] == [
            ("p-1", 1),
            ("p-2", 1),
            ("p-1", 2),
            ("p-2", 2),
        ]
        storage.record([decision("z", "p-2")])
        assert storage.latest_sequence("p-1") == 2
        assert storage.latest_sequence("p-2") == 3

    def test_same_id_in_two_projects_is_two_decisions(self, storage: Storage) -> None:
        storage.record([decision("same", "p-1"), decision("same", "p-2")])
        assert storage.get("p-1", "same").project_id == "p-1"
        assert storage.get("p-2", "same").project_id == "p-2"

    def test_recorded_at_comes_from_the_clock(self, storage: Storage, clock: ManualClock) -> None:
        (first,) = storage.record([decision("a")])
        clock.advance(seconds=90)
        (second,) = storage.record([decision("b")])
        assert first.recorded_at == _EPOCH
        assert second.recorded_at == _EPOCH + timedelta(seconds=90)

    def test_recorded_at_never_decreases_when_the_clock_goes_back(
        self, storage: Storage, clock: ManualClock
    ) -> None:
        storage.record([decision("a")])
        clock.advance(seconds=-3600)
        (later,) = storage.record([decision("b")])
        assert later.recorded_at == _EPOCH
        other = storage.record([decision("c", "p-2")])
        assert other[0].recorded_at == _EPOCH - timedelta(seconds=3600)

    def test_a_recorded_decision_gets_a_new_sequence(self, storage: Storage) -> None:
        storage.record([decision("a")])
        carried = decision("b").recorded(99, _EPOCH - timedelta(days=9))
        (stored,) = storage.record([carried])
        assert stored.sequence == 2
        assert stored.recorded_at == _EPOCH

    def test_an_empty_batch_records_nothing(self, storage: Storage) -> None:
        assert storage.record([]) == []
        assert storage.latest_sequence("p-1") == 0

    def test_an_id_repeated_in_the_batch_writes_nothing(self, storage: Storage) -> None:
        with pytest.raises(DecisionAlreadyRecorded):
            storage.record([decision("a"), decision("b"), decision("a", title="Again")])
        assert storage.latest_sequence("p-1") == 0
        assert not storage.has_project("p-1")

    def test_an_id_already_stored_writes_nothing(self, storage: Storage) -> None:
        storage.record([decision("a")])
        with pytest.raises(DecisionAlreadyRecorded, match="'a'"):
            storage.record([decision("new"), decision("other", "p-2"), decision("a")])
        assert _ids(storage.decisions("p-1")) == ["a"]
        assert storage.latest_sequence("p-2") == 0
        with pytest.raises(DecisionNotFound):
            storage.get("p-1", "new")
        # The failed batch used no sequence numbers.
        assert storage.record([decision("next")])[0].sequence == 2

    def test_the_stored_decision_is_unchanged_by_a_refused_rerecord(self, storage: Storage) -> None:
        (kept,) = storage.record([decision("a", title="First")])
        with pytest.raises(DecisionAlreadyRecorded):
            storage.record([decision("a", title="Second")])
        assert storage.get("p-1", "a") == kept

    def test_a_non_decision_in_the_batch_writes_nothing(self, storage: Storage) -> None:
        with pytest.raises(InvalidRequest):
            storage.record([decision("a"), {"id": "b"}])  # type: ignore[list-item]
        assert storage.latest_sequence("p-1") == 0

    def test_a_single_decision_is_not_a_batch(self, storage: Storage) -> None:
        with pytest.raises(InvalidRequest):
            storage.record(decision("a"))  # type: ignore[arg-type]
        assert storage.latest_sequence("p-1") == 0

    def test_a_broken_clock_is_a_storage_error_and_writes_nothing(self) -> None:
        store = self.fresh(lambda: datetime(2026, 1, 1))  # naive: refused  # noqa: DTZ001
        with pytest.raises(StorageError):
            store.record([decision("a")])
        assert store.latest_sequence("p-1") == 0

    def test_threads_appending_at_once_get_gap_free_sequences(self, storage: Storage) -> None:
        def work(worker: int) -> None:
            for batch in range(5):
                storage.record([decision(f"w{worker}-{batch}-{i}") for i in range(3)])

        threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        stored = list(storage.decisions("p-1"))
        assert [d.sequence for d in stored] == list(range(1, 61))
        assert len({d.id for d in stored}) == 60

    def test_closed_storage_refuses_writes(self, storage: Storage) -> None:
        storage.close()
        with pytest.raises(StorageError):
            storage.record([decision("a")])
        with pytest.raises(StorageError):
            storage.record_sessions([session("s-1")])


class DecisionMemoryRules(StorageFixtures):
    """DecisionMemory: ordered reads, as-of and after slices, get, latest, has_project, projects."""

    @pytest.fixture
    def five(self, storage: Storage) -> Storage:
        storage.record([decision(f"d{n}") for n in range(1, 4)])
        storage.record([decision("d4"), decision("d5")])
        return storage

    def test_decisions_come_in_sequence_order(self, five: Storage) -> None:
        assert _ids(five.decisions("p-1")) == ["d1", "d2", "d3", "d4", "d5"]

    @pytest.mark.parametrize(
        ("after", "as_of", "expected"),
        [
            (0, None, [1, 2, 3, 4, 5]),
            (0, 3, [1, 2, 3]),
            (0, 0, []),
            (0, 99, [1, 2, 3, 4, 5]),
            (2, None, [3, 4, 5]),
            (2, 4, [3, 4]),
            (4, 2, []),
            (5, None, []),
            (-3, 1, [1]),
            (0, -1, []),
        ],
    )
    def test_after_and_as_of_slice_by_sequence(
        self, five: Storage, after: int, as_of: int | None, expected: list[int]
    ) -> None:
        got = [d.sequence for d in five.decisions("p-1", after=after, as_of=as_of)]
        assert got == expected

    def test_as_of_reads_stay_the_same_after_more_appends(self, five: Storage) -> None:
        before = list(five.decisions("p-1", as_of=3))
        five.record([decision("d6"), decision("d7")])
        assert list(five.decisions("p-1", as_of=3)) == before

    def test_the_latest_is_fixed_when_decisions_is_called(self, five: Storage) -> None:
        pending = five.decisions("p-1")
        five.record([decision("d6")])
        assert _ids(pending) == ["d1", "d2", "d3", "d4", "d5"]

    def test_an_unknown_project_has_no_decisions(self, five: Storage) -> None:
        assert list(five.decisions("p-2")) == []
        assert five.latest_sequence("p-2") == 0

    def test_get_returns_the_stored_decision(self, five: Storage) -> None:
        assert five.get("p-1", "d3") == next(iter(five.decisions("p-1", after=2)))
        assert five.get("p-1", "d3").sequence == 3

    def test_get_of_an_unknown_id_is_decision_not_found(self, five: Storage) -> None:
        with pytest.raises(DecisionNotFound):
            five.get("p-1", "nope")

    def test_get_does_not_cross_projects(self, five: Storage) -> None:
        with pytest.raises(DecisionNotFound):
            five.get("p-2", "d1")

    def test_latest_sequence(self, five: Storage) -> None:
        assert five.latest_sequence("p-1") == 5

    def test_records_are_the_decisions_wire_forms(self, five: Storage) -> None:
        records = list(five.records("p-1"))
        decisions = list(five.decisions("p-1"))
        assert [r.wire for r in records] == [to_wire(d) for d in decisions]
        assert [r.sequence for r in records] == [1, 2, 3, 4, 5]
        for record, kept in zip(records, decisions, strict=True):
            assert record.canonical == canonical_record(to_wire(kept))
            assert record.sha256 == record_sha256(kept)
            assert record.decision_id == kept.id

    @pytest.mark.parametrize(("after", "as_of"), [(0, None), (0, 3), (2, 4), (4, 2), (-3, 99)])
    def test_records_slice_like_decisions(
        self, five: Storage, after: int, as_of: int | None
    ) -> None:
        got = [r.sequence for r in five.records("p-1", after=after, as_of=as_of)]
        assert got == [d.sequence for d in five.decisions("p-1", after=after, as_of=as_of)]

    def test_records_of_an_unknown_project_are_none(self, five: Storage) -> None:
        assert list(five.records("p-2")) == []

    def test_each_read_gives_a_fresh_wire_form(self, five: Storage) -> None:
        first = five.get_record("p-1", "d2")
        first.wire["title"] = "changed by a reader"
        assert five.get_record("p-1", "d2").wire["title"] == "Title of d2"
        assert next(iter(five.records("p-1", after=1))).wire["title"] == "Title of d2"

    def test_every_number_keeps_its_type(self, storage: Storage) -> None:
        # JCS writes a whole-number float as an integer (-0.0 as 0): the record reads it back.
        attributes = {
            "big": 1e20,
            "cost_eur": 60.0,
            "count": 60,
            "ok": True,
            "share": 0.5,
            "zero": -0.0,
        }
        (kept,) = storage.record([decision("d1", attributes=attributes)])
        record = storage.get_record("p-1", "d1")
        shown = {name: repr(value) for name, value in attributes.items()}
        assert {name: repr(value) for name, value in record.wire["attributes"].items()} == shown
        assert record.canonical == canonical_record(to_wire(kept))
        assert next(iter(storage.records("p-1"))).wire == record.wire
        got = storage.get("p-1", "d1").attributes
        assert {name: repr(value) for name, value in got.items()} == shown

    def test_get_record_is_the_record_of_get(self, five: Storage) -> None:
        record = five.get_record("p-1", "d3")
        assert record.wire == to_wire(five.get("p-1", "d3"))
        assert record.sequence == 3
        with pytest.raises(DecisionNotFound):
            five.get_record("p-1", "nope")
        with pytest.raises(DecisionNotFound):
            five.get_record("p-2", "d1")

    def test_get_records_are_the_records_of_get_record_in_the_order_asked(
        self, five: Storage
    ) -> None:
        asked = ["d4", "d1", "d5"]
        got = five.get_records("p-1", asked)
        assert [r.decision_id for r in got] == asked
        assert got == [five.get_record("p-1", i) for i in asked]
        assert five.get_records("p-1", []) == []

    def test_get_records_read_a_repeated_id_again_with_a_fresh_wire_form(
        self, five: Storage
    ) -> None:
        first, again = five.get_records("p-1", ["d2", "d2"])
        assert first == again
        first.wire["title"] = "changed by a reader"
        assert again.wire["title"] == "Title of d2"
        assert five.get_records("p-1", ["d2"])[0].wire["title"] == "Title of d2"

    def test_get_records_name_the_first_id_the_project_does_not_hold(self, five: Storage) -> None:
        with pytest.raises(DecisionNotFound, match="'nope'"):
            five.get_records("p-1", ["d1", "nope", "gone"])
        with pytest.raises(DecisionNotFound, match="'d1'"):
            five.get_records("p-2", ["d1"])

    def test_get_records_read_more_ids_than_one_query_takes(self, storage: Storage) -> None:
        # 1,201 ids: more than any chunk of an IN list a built-in adapter sends at once.
        kept = storage.record([decision(f"m{n:04d}") for n in range(1_201)])
        asked = [d.id for d in reversed(kept)]
        got = storage.get_records("p-1", asked)
        assert [r.decision_id for r in got] == asked
        assert [r.sequence for r in got] == list(range(1_201, 0, -1))

    def test_has_project_sees_decisions_and_sessions(self, storage: Storage) -> None:
        assert not storage.has_project("p-1")
        storage.record([decision("a", "p-1")])
        storage.record_sessions([session("s-1", "p-2")])
        assert storage.has_project("p-1")
        assert storage.has_project("p-2")
        assert not storage.has_project("p-3")

    def test_an_empty_storage_lists_no_projects(self, storage: Storage) -> None:
        assert storage.projects() == []

    def test_projects_are_listed_by_id_with_their_counts(self, storage: Storage) -> None:
        storage.record([decision("a", "p-b"), decision("b", "p-b"), decision("a", "P-z")])
        storage.record([decision("c", "p-b")])
        storage.record_sessions([session("s-1", "p-b"), session("s-2", "p-only-sessions")])
        storage.record_sessions([session("s-3", "p-only-sessions")])
        assert storage.projects() == [
            ProjectSummary("P-z", decisions=1, latest_sequence=1, sessions=0),
            ProjectSummary("p-b", decisions=3, latest_sequence=3, sessions=1),
            ProjectSummary("p-only-sessions", decisions=0, latest_sequence=0, sessions=2),
        ]

    def test_projects_agree_with_latest_sequence_and_has_project(self, five: Storage) -> None:
        five.record_sessions([session("s-9", "p-9")])
        listed = five.projects()
        assert [p.project_id for p in listed] == ["p-1", "p-9"]
        for summary in listed:
            assert five.has_project(summary.project_id)
            assert summary.latest_sequence == five.latest_sequence(summary.project_id)
            assert summary.decisions == len(list(five.decisions(summary.project_id)))
            assert summary.sessions == len(list(five.sessions(summary.project_id)))

    def test_many_decisions_read_back_in_order(self, storage: Storage) -> None:
        storage.record([decision(f"d{n:05d}") for n in range(1, 5001)])
        got = list(storage.decisions("p-1", after=10, as_of=4990))
        assert [d.sequence for d in got] == list(range(11, 4991))


class SessionRules(StorageFixtures):
    """SessionStore and SessionLog: get, per-project ordering, all-or-nothing batches."""

    def test_record_sessions_returns_the_batch(self, storage: Storage) -> None:
        batch = [session("s-1"), session("s-2", "p-2")]
        assert storage.record_sessions(batch) == batch

    def test_get_session(self, storage: Storage) -> None:
        storage.record_sessions([session("s-1")])
        assert storage.get_session("s-1") == session("s-1")

    def test_an_unknown_session_is_session_not_found(self, storage: Storage) -> None:
        with pytest.raises(SessionNotFound):
            storage.get_session("nope")

    def test_sessions_are_ordered_by_start_then_id(self, storage: Storage) -> None:
        late = _EPOCH + timedelta(hours=1)
        early = _EPOCH - timedelta(microseconds=1)
        storage.record_sessions([session("b", started_at=late), session("c", started_at=_EPOCH)])
        storage.record_sessions(
            [session("a", started_at=late), session("z", started_at=early), session("o", "p-2")]
        )
        assert [s.id for s in storage.sessions("p-1")] == ["z", "c", "a", "b"]
        assert [s.id for s in storage.sessions("p-2")] == ["o"]
        assert list(storage.sessions("p-3")) == []

    def test_a_session_id_repeated_in_the_batch_writes_nothing(self, storage: Storage) -> None:
        with pytest.raises(SessionAlreadyRecorded):
            storage.record_sessions([session("s-1"), session("s-2"), session("s-1")])
        assert list(storage.sessions("p-1")) == []

    def test_a_session_id_already_stored_writes_nothing(self, storage: Storage) -> None:
        storage.record_sessions([session("s-1")])
        with pytest.raises(SessionAlreadyRecorded, match="'s-1'"):
            storage.record_sessions([session("s-2"), session("s-1", "p-2")])
        assert [s.id for s in storage.sessions("p-1")] == ["s-1"]
        assert not storage.has_project("p-2")
        with pytest.raises(SessionNotFound):
            storage.get_session("s-2")

    def test_a_non_session_in_the_batch_writes_nothing(self, storage: Storage) -> None:
        with pytest.raises(InvalidRequest):
            storage.record_sessions([session("s-1"), "s-2"])  # type: ignore[list-item]
        assert list(storage.sessions("p-1")) == []

    def test_an_empty_session_batch_records_nothing(self, storage: Storage) -> None:
        assert storage.record_sessions([]) == []


# The same property runs once per adapter subclass ("differing executors"); every
# example opens its own storage, so nothing leaks between executors.
_ROUND_TRIP = settings(
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.differing_executors,
    ],
)


class RoundTripRules(StorageFixtures):
    """Whatever the models accept comes back unchanged: hostile text, numbers, times."""

    @_ROUND_TRIP
    @given(batch=sst.decision_batches(project_ids=("p-1", "p-2"), min_size=1, max_size=4))
    def test_decisions_round_trip_unchanged(self, batch: list[Decision]) -> None:
        clock = ManualClock()
        store = self.fresh(clock)
        try:
            stored = store.record(batch)
            assert stored == [
                d.recorded(n, clock.now)
                for d, n in zip(batch, _expected_sequences(batch), strict=True)
            ]
            for kept in stored:
                assert store.get(kept.project_id, kept.id) == kept
            for project_id in {d.project_id for d in batch}:
                assert list(store.decisions(project_id)) == [
                    d for d in stored if d.project_id == project_id
                ]
        finally:
            self.release(store)

    @_ROUND_TRIP
    @given(
        sessions=st.lists(
            sst.legacy_sessions(project_id="p-1"), min_size=1, max_size=3, unique_by=lambda s: s.id
        )
    )
    def test_sessions_round_trip_unchanged(self, sessions: list[LegacySession]) -> None:
        store = self.fresh()
        try:
            store.record_sessions(sessions)
            for kept in sessions:
                assert store.get_session(kept.id) == kept
            assert list(store.sessions("p-1")) == sorted(
                sessions, key=lambda s: (s.started_at, s.id)
            )
        finally:
            self.release(store)

    def test_hostile_specimens_round_trip(self, storage: Storage) -> None:
        batch = [
            decision(
                f"h{n}",
                title=f"t{text}",
                statement=f"s{text}",
                rationale=text,
                tags={f"t{n}"},
                attributes={"note": text},
            )
            for n, text in enumerate((*sst.HOSTILE_SPECIMENS, "nul\x00inside"))
        ]
        stored = storage.record(batch)
        assert list(storage.decisions("p-1")) == stored
        assert [d.rationale for d in stored] == [d.rationale for d in batch]


def _expected_sequences(batch: list[Decision]) -> list[int]:
    counters: dict[str, itertools.count[int]] = {}
    return [next(counters.setdefault(d.project_id, itertools.count(1))) for d in batch]


class StatefulRules(StorageFixtures):
    """A hypothesis state machine drives the adapter and a plain model side by side."""

    stateful_settings: ClassVar[settings] = settings(
        max_examples=10,
        stateful_step_count=10,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    """Settings of the state-machine run; a subclass may lower them for a slow adapter.

    A profile whose ``max_examples`` is above four times this runs a quarter of it.
    """

    def test_adapter_matches_a_plain_model(self) -> None:
        # A thorough hypothesis profile runs more machines, a quarter of its max_examples.
        profile = settings.default.max_examples if settings.default is not None else 0
        chosen = settings(
            self.stateful_settings,
            max_examples=max(self.stateful_settings.max_examples, profile // 4),
        )
        run_state_machine_as_test(
            _machine(self, reopen=isinstance(self, PersistenceRules)), settings=chosen
        )


def _machine(suite: StorageFixtures, *, reopen: bool) -> type[RuleBasedStateMachine]:
    projects = ("p-1", "p-2", "p-3")

    class StorageMachine(RuleBasedStateMachine):
        """Log, reads and sessions of the adapter must match lists and dicts."""

        @initialize()
        def open(self) -> None:
            self.clock = ManualClock()
            self.store = suite.fresh(self.clock)
            self.opened = [self.store]
            self.log: dict[str, list[Decision]] = {p: [] for p in projects}
            self.sessions: dict[str, LegacySession] = {}

        def _known(self) -> frozenset[tuple[str, str]]:
            return frozenset((p, d.id) for p, log in self.log.items() for d in log)

        @rule(data=st.data(), step=st.integers(min_value=-5, max_value=60))
        def record(self, data: st.DataObject, step: int) -> None:
            batch = data.draw(
                sst.decision_batches(project_ids=projects, max_size=4, exclude_ids=self._known())
            )
            self.clock.advance(seconds=step)
            now = self.clock.now
            expected = []
            for item in batch:
                log = self.log[item.project_id]
                previous = log[-1].recorded_at if log else None
                at = now if previous is None or now >= previous else previous
                expected.append(item.recorded(len(log) + 1, at))
                log.append(expected[-1])
            assert self.store.record(batch) == expected

        @precondition(lambda self: any(self.log.values()))
        @rule(data=st.data())
        def rerecord_is_refused(self, data: st.DataObject) -> None:
            known = sorted(self._known())
            project_id, old = data.draw(st.sampled_from(known))
            fresh = data.draw(
                sst.decision_batches(project_ids=projects, max_size=3, exclude_ids=self._known())
            )
            position = data.draw(st.integers(min_value=0, max_value=len(fresh)))
            fresh.insert(position, decision(old, project_id))
            with pytest.raises(DecisionAlreadyRecorded):
                self.store.record(fresh)

        @rule(data=st.data(), reuse=st.booleans())
        def record_sessions(self, data: st.DataObject, reuse: bool) -> None:
            project_id = data.draw(st.sampled_from(projects))
            batch = data.draw(
                st.lists(
                    sst.legacy_sessions(project_id=project_id), max_size=2, unique_by=lambda s: s.id
                )
            )
            if reuse and self.sessions:
                # Repeat a stored id (with other content): the whole batch is refused.
                taken = data.draw(st.sampled_from(sorted(self.sessions)))
                batch = [s for s in batch if s.id != taken]
                batch.append(data.draw(sst.legacy_sessions(session_id=taken)))
            if any(s.id in self.sessions for s in batch):
                with pytest.raises(SessionAlreadyRecorded):
                    self.store.record_sessions(batch)
                return
            assert self.store.record_sessions(batch) == batch
            self.sessions.update((s.id, s) for s in batch)

        @rule(project_id=st.sampled_from(projects), data=st.data())
        def read_a_slice(self, project_id: str, data: st.DataObject) -> None:
            log = self.log[project_id]
            after = data.draw(st.integers(min_value=0, max_value=len(log) + 1))
            as_of = data.draw(st.none() | st.integers(min_value=0, max_value=len(log) + 1))
            end = len(log) if as_of is None else min(as_of, len(log))
            assert (
                list(self.store.decisions(project_id, after=after, as_of=as_of)) == log[after:end]
            )

        @precondition(lambda self: any(self.log.values()))
        @rule(data=st.data())
        def get_one(self, data: st.DataObject) -> None:
            project_id = data.draw(st.sampled_from([p for p in projects if self.log[p]]))
            expected = data.draw(st.sampled_from(self.log[project_id]))
            assert self.store.get(project_id, expected.id) == expected

        @precondition(lambda self: reopen)
        @rule()
        def reopen_storage(self) -> None:
            self.store = suite.reopen(self.store, self.clock)
            self.opened.append(self.store)

        @invariant()
        def heads_match(self) -> None:
            for project_id in projects:
                assert self.store.latest_sequence(project_id) == len(self.log[project_id])
                has = bool(self.log[project_id]) or any(
                    s.project_id == project_id for s in self.sessions.values()
                )
                assert self.store.has_project(project_id) is has
                assert list(self.store.sessions(project_id)) == sorted(
                    (s for s in self.sessions.values() if s.project_id == project_id),
                    key=lambda s: (s.started_at, s.id),
                )

        def teardown(self) -> None:
            # One machine run per example: close its storages before the next run.
            suite.release(*getattr(self, "opened", ()))

    return StorageMachine


class PersistenceRules(StorageFixtures):
    """Persistent adapters: what one storage object wrote, another one reads."""

    def test_decisions_survive_reopening(self, storage: Storage) -> None:
        stored = storage.record([decision("a"), decision("b", "p-2")])
        storage.close()
        again = self.reopen(storage)
        assert list(again.decisions("p-1")) == stored[:1]
        assert again.get("p-2", "b") == stored[1]

    def test_sequences_continue_after_reopening(self, storage: Storage) -> None:
        storage.record([decision("a"), decision("b")])
        storage.close()
        again = self.reopen(storage)
        assert again.record([decision("c")])[0].sequence == 3
        with pytest.raises(DecisionAlreadyRecorded):
            again.record([decision("a")])

    def test_recorded_at_stays_monotonic_across_reopening(
        self, storage: Storage, clock: ManualClock
    ) -> None:
        storage.record([decision("a")])
        storage.close()
        again = self.reopen(storage, ManualClock(_EPOCH - timedelta(days=1)))
        assert again.record([decision("b")])[0].recorded_at == _EPOCH

    def test_sessions_survive_reopening(self, storage: Storage) -> None:
        storage.record_sessions([session("s-1")])
        storage.close()
        again = self.reopen(storage)
        assert again.get_session("s-1") == session("s-1")
        assert again.has_project("p-1")

    def test_two_open_storages_share_one_log(self, storage: Storage) -> None:
        other = self.reopen(storage)
        storage.record([decision("a")])
        other.record([decision("b")])
        storage.record([decision("c")])
        assert [d.sequence for d in other.decisions("p-1")] == [1, 2, 3]
        with pytest.raises(DecisionAlreadyRecorded):
            other.record([decision("a")])
        other.record_sessions([session("s-1")])
        with pytest.raises(SessionAlreadyRecorded):
            storage.record_sessions([session("s-1")])

    def test_as_of_reads_stay_fixed_while_another_storage_appends(self, storage: Storage) -> None:
        storage.record([decision(f"d{n}") for n in range(1, 4)])
        other = self.reopen(storage)
        pending = storage.decisions("p-1")
        other.record([decision("d4")])
        assert _ids(pending) == ["d1", "d2", "d3"]
        assert _ids(storage.decisions("p-1", as_of=3)) == ["d1", "d2", "d3"]
        assert storage.latest_sequence("p-1") == 4


def poked(model: Any, **fields: Any) -> Any:
    """Return a copy of an attrs model with ``fields`` set *without* validation.

    It stands for an object altered after construction (``object.__setattr__``
    on a frozen instance): what an adapter must not accept just because the
    model's validators ran once.
    """
    copy = attrs.evolve(model)
    for name, value in fields.items():
        object.__setattr__(copy, name, value)
    return copy


_SURROGATE = "lone \ud800 surrogate"
_FINE = decision("fine")
_EVIDENCE = Evidence("document", "ref")

ALTERED_DECISIONS: Final[list[tuple[str, str, Any]]] = [
    *[(f"surrogate-in-{f}", f, _SURROGATE) for f in ("title", "statement", "rationale", "agent")],
    ("surrogate-in-session-id", "session_id", _SURROGATE),
    ("surrogate-in-a-tag", "tags", frozenset({"ok", _SURROGATE})),
    ("surrogate-in-an-element", "elements", frozenset({_SURROGATE})),
    ("surrogate-in-an-attribute", "attributes", FrozenDict({"note": _SURROGATE})),
    ("surrogate-in-an-attribute-name", "attributes", FrozenDict({_SURROGATE: 1})),
    *[
        (f"surrogate-in-evidence-{f}", "evidence", (poked(_EVIDENCE, **{f: _SURROGATE}),))
        for f in ("ref", "title", "locator", "quote")
    ],
    ("surrogate-in-a-link", "links", (poked(Link("relates_to", "x"), target=_SURROGATE),)),
    ("integer-2**53", "attributes", FrozenDict({"n": 2**53})),
    ("integer-minus-2**53", "attributes", FrozenDict({"n": -(2**53)})),
    ("integer-2**64", "attributes", FrozenDict({"n": 2**64})),
    ("nan", "attributes", FrozenDict({"x": math.nan})),
    ("infinity", "attributes", FrozenDict({"x": math.inf})),
    ("minus-infinity", "attributes", FrozenDict({"x": -math.inf})),
    ("a-list-attribute", "attributes", FrozenDict({"x": [1]})),
    ("a-plain-dict-of-attributes", "attributes", {"x": 1}),
    ("a-bad-attribute-name", "attributes", FrozenDict({"bad name!": 1})),
    ("a-bad-identifier", "id", "bad id!"),
    ("a-missing-project", "project_id", None),
    ("an-empty-title", "title", "   "),
    ("an-unknown-domain", "domain", "astrology"),
    ("a-number-status", "status", 5),
    ("a-string-of-tags", "tags", "abc"),
    ("evidence-that-is-text", "evidence", ("x",)),
    ("a-naive-recorded-at", "recorded_at", datetime(2026, 1, 1)),  # noqa: DTZ001
    ("a-list-for-the-project", "project_id", []),
    ("bytes-for-a-title", "title", b"title"),
    ("no-domain", "domain", None),
    ("a-number-of-tags", "tags", 5),
    ("no-elements", "elements", None),
    ("text-for-the-attributes", "attributes", "x"),
    ("text-for-the-evidence", "evidence", "x"),
    ("a-number-of-links", "links", 5),
    ("a-number-recorded-at", "recorded_at", 5),
]
"""``(case id, field, value)``: one field of a valid decision altered per case (see :func:`poked`).

Each is something every way into Decision Memory refuses with
:class:`~semreport.InvalidRequest` naming the field: every storage adapter
(:class:`InputRefusalRules`) and the facade's ``record``.
"""

_SESSION = session("s-fine")
_TURN = Turn(0, _EPOCH, "user", "u-1", "hello")
# The session every bad case alters one field of: valid as it is.
_RICH = LegacySession(
    "s-bad", "p-1", "Session", _EPOCH, participants=[Participant("u-1", "U")], turns=[_TURN]
)
ALTERED_SESSIONS: Final[list[tuple[str, str, Any]]] = [
    ("surrogate-in-the-title", "title", _SURROGATE),
    ("a-naive-start", "started_at", datetime(2026, 1, 1)),  # noqa: DTZ001
    ("a-naive-end", "ended_at", datetime(2026, 1, 2)),  # noqa: DTZ001
    ("a-naive-turn-time", "turns", (poked(_TURN, at=datetime(2026, 1, 1)),)),  # noqa: DTZ001
    ("surrogate-in-a-turn", "turns", (poked(_TURN, content=_SURROGATE),)),
    (
        "nan-in-tool-arguments",
        "turns",
        (poked(_TURN, tool_calls=(poked(ToolCall("t"), arguments=FrozenDict({"x": math.nan})),)),),
    ),
    (
        "integer-2**53-in-a-tool-result",
        "turns",
        (poked(_TURN, tool_calls=(poked(ToolCall("t"), result=2**53),)),),
    ),
    (
        "surrogate-key-in-tool-arguments",
        "turns",
        (poked(_TURN, tool_calls=(poked(ToolCall("t"), arguments=FrozenDict({_SURROGATE: 1})),)),),
    ),
    (
        "surrogate-in-a-participant",
        "participants",
        (poked(Participant("u-1", "U"), name=_SURROGATE),),
    ),
    (
        "a-bad-artefact-hash",
        "artefacts",
        (poked(Artefact("a", "text/plain", "0" * 64), sha256="not hex"),),
    ),
    ("a-bad-identifier", "id", "bad id!"),
]
"""``(case id, field, value)``: one field of a valid legacy session altered per case.

Each is refused with :class:`~semreport.InvalidRequest` by every storage
adapter and by the facade's ``record_sessions``.
"""


class InputRefusalRules(StorageFixtures):
    """Every adapter refuses the same input with ``InvalidRequest``, and stores nothing.

    The models refuse bad values when they are built; these rules hand the
    adapter objects altered afterwards, so that no adapter (the in-memory one
    included) is a way around the checks that the others' row form enforces.
    """

    @pytest.mark.parametrize(
        ("field", "value"),
        [case[1:] for case in ALTERED_DECISIONS],
        ids=[c[0] for c in ALTERED_DECISIONS],
    )
    def test_an_altered_decision_is_refused_and_nothing_is_stored(
        self, storage: Storage, field: str, value: Any
    ) -> None:
        bad = poked(decision("bad"), **{field: value})
        with pytest.raises(InvalidRequest) as caught:
            storage.record([_FINE, bad])
        assert any(e.path.startswith("$[1]") for e in caught.value.errors), caught.value.errors
        assert storage.latest_sequence("p-1") == 0
        assert not storage.has_project("p-1")
        # Nothing was used up, and the same decision unaltered is fine.
        assert [d.sequence for d in storage.record([_FINE, decision("bad")])] == [1, 2]

    def test_an_altered_decision_is_refused_before_a_conflict(self, storage: Storage) -> None:
        # The whole batch is checked before the storage looks for its ids.
        storage.record([_FINE])
        bad = poked(decision("bad"), title=_SURROGATE)
        with pytest.raises(InvalidRequest) as caught:
            storage.record([_FINE, bad])
        assert [e.path for e in caught.value.errors] == ["$[1].title"]
        assert storage.latest_sequence("p-1") == 1

    @pytest.mark.parametrize(
        ("field", "value"),
        [case[1:] for case in ALTERED_SESSIONS],
        ids=[c[0] for c in ALTERED_SESSIONS],
    )
    def test_an_altered_session_is_refused_and_nothing_is_stored(
        self, storage: Storage, field: str, value: Any
    ) -> None:
        bad = poked(_RICH, **{field: value})
        with pytest.raises(InvalidRequest) as caught:
            storage.record_sessions([_SESSION, bad])
        assert any(e.path.startswith("$[1]") for e in caught.value.errors), caught.value.errors
        assert list(storage.sessions("p-1")) == []
        with pytest.raises(SessionNotFound):
            storage.get_session("s-fine")
        # The same session unaltered is fine.
        assert storage.record_sessions([_SESSION, _RICH]) == [_SESSION, _RICH]

    @pytest.mark.parametrize("batch", [None, 5, "abc", b"abc"], ids=repr)
    def test_what_is_not_a_batch_is_refused(self, storage: Storage, batch: Any) -> None:
        with pytest.raises(InvalidRequest):
            storage.record(batch)
        with pytest.raises(InvalidRequest):
            storage.record_sessions(batch)
        assert not storage.has_project("p-1")


class TamperRules(StorageFixtures):
    """Stored records are tamper-evident: an altered row is ``CorruptStorage`` naming it.

    Each rule alters one stored row behind the adapter's back (through the
    subclass's :meth:`alter_stored_decision` or :meth:`alter_stored_session`)
    and reads it back: the read must raise :class:`~semreport.CorruptStorage`
    naming the record, never return a changed record, while the records
    around it still read back unchanged.
    """

    def alter_stored_decision(
        self, storage: Storage, project_id: str, sequence: int, change: Callable[[str], str]
    ) -> None:
        """Replace the stored text of one decision by ``change(text)``, behind the adapter.

        Subclasses must implement this (the tamper rules need it). ``text`` is
        the stored JSON text of the record's wire form; the row's other
        columns, its hash among them, stay as they are.
        """
        raise NotImplementedError(
            f"{type(self).__name__} must implement alter_stored_decision for the tamper rules"
        )

    def alter_stored_session(
        self, storage: Storage, session_id: str, change: Callable[[str], str]
    ) -> None:
        """Replace the stored text of one session by ``change(text)``, behind the adapter."""
        raise NotImplementedError(
            f"{type(self).__name__} must implement alter_stored_session for the tamper rules"
        )

    @pytest.fixture
    def three(self, storage: Storage) -> list[Decision]:
        return storage.record([decision("a"), decision("b"), decision("c")])

    def _alter(self, storage: Storage, sequence: int, change: Callable[[str], str]) -> None:
        changed: list[bool] = []

        def tracked(text: str) -> str:
            new = change(text)
            changed.append(new != text)
            return new

        self.alter_stored_decision(storage, "p-1", sequence, tracked)
        assert changed == [True], "the hook must pass the stored text to change() once"

    def _assert_only_b_is_refused(self, storage: Storage, three: list[Decision]) -> None:
        named = r"'p-1'.*(sequence 2|'b')"
        with pytest.raises(CorruptStorage, match=named):
            storage.get("p-1", "b")
        with pytest.raises(CorruptStorage, match=named):
            list(storage.decisions("p-1"))
        with pytest.raises(CorruptStorage, match=named):
            storage.get_record("p-1", "b")
        with pytest.raises(CorruptStorage, match=named):
            storage.get_records("p-1", ["a", "b", "c"])
        with pytest.raises(CorruptStorage, match=named):
            list(storage.records("p-1"))
        assert [r.wire for r in storage.records("p-1", after=2)] == [to_wire(three[2])]
        assert storage.get("p-1", "a") == three[0]
        assert storage.get("p-1", "c") == three[2]
        assert [r.wire for r in storage.get_records("p-1", ["c", "a"])] == [
            to_wire(three[2]),
            to_wire(three[0]),
        ]
        assert list(storage.decisions("p-1", as_of=1)) == three[:1]
        assert list(storage.decisions("p-1", after=2)) == three[2:]

    def test_an_edited_field_is_corrupt_storage_naming_the_record(
        self, storage: Storage, three: list[Decision]
    ) -> None:
        self._alter(storage, 2, lambda text: text.replace("Statement of b", "Statement of B"))
        self._assert_only_b_is_refused(storage, three)

    def test_a_record_passed_off_as_another_is_corrupt_storage(
        self, storage: Storage, three: list[Decision]
    ) -> None:
        # The text of the record stored at sequence 1, with the sequence it would need.
        self._alter(
            storage,
            2,
            lambda text: text.replace('"id":"b"', '"id":"a"').replace("of b", "of a"),
        )
        self._assert_only_b_is_refused(storage, three)

    def test_a_row_that_is_not_a_decision_is_corrupt_storage(
        self, storage: Storage, three: list[Decision]
    ) -> None:
        self._alter(storage, 2, lambda _text: '{"id": "b"}')
        self._assert_only_b_is_refused(storage, three)

    def test_an_edited_session_is_corrupt_storage_naming_it(self, storage: Storage) -> None:
        storage.record_sessions([session("s-1"), session("s-2")])
        self.alter_stored_session(
            storage, "s-1", lambda text: text.replace("Session s-1", "Session S-1")
        )
        with pytest.raises(CorruptStorage, match="'s-1'"):
            storage.get_session("s-1")
        with pytest.raises(CorruptStorage, match="'s-1'"):
            list(storage.sessions("p-1"))
        assert storage.get_session("s-2") == session("s-2")


MALFORMED_EXAMPLES: Final = int(os.environ.get("SEMREPORT_MALFORMED_EXAMPLES", "5000"))
"""How many malformed batches each backend is given (``SEMREPORT_MALFORMED_EXAMPLES``)."""

PYTHON_INTERNALS: Final = re.compile(
    r"object has no attribute|object is not|not subscriptable|not iterable|unhashable"
    r"|positional argument|keyword argument|Traceback|__\w+__|<class |<built-in"
    r"|'(?:dict|list|tuple|int|float|str|bytes|bool|set|frozenset|NoneType)'"
)
"""Words of Python's own that must never reach a caller in an error message."""

_PROJECT: Final = "p-malformed"


def _stored(storage: Storage) -> list[Any]:
    return [to_wire(d) for d in storage.decisions(_PROJECT)]


class MalformedInputRules(StorageFixtures):
    """``record`` refuses every malformed batch with a typed error and changes nothing."""

    def _facade(self) -> tuple[SemReport, Storage]:
        storage = self.fresh()
        facade = SemReport(storage, caller=Principal.local())
        facade.record(
            [
                Decision(id=f"kept-{n}", project_id=_PROJECT, title="t", statement="s", agent="a")
                for n in range(3)
            ]
        )
        return facade, storage

    def test_malformed_batches_are_refused_and_change_nothing(self) -> None:
        facade, storage = self._facade()
        before = _stored(storage)

        @settings(
            max_examples=MALFORMED_EXAMPLES,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
            database=None,
        )
        @given(sst.malformed_decision_batches(project_id=_PROJECT))
        def refused(batch: object) -> None:
            try:
                facade.record(batch)  # type: ignore[arg-type]
            except SemReportError as exc:
                check_refusal(exc)
            else:
                raise AssertionError(f"accepted a malformed batch: {batch!r:.300}")
            assert storage.latest_sequence(_PROJECT) == len(before)

        refused()
        assert _stored(storage) == before

    def test_a_refusal_names_every_bad_field(self) -> None:
        facade, _storage = self._facade()
        good = {"id": "x-1", "project_id": _PROJECT, "title": "t", "statement": "s", "agent": "a"}
        bad = [good, {**good, "id": "x-2", "attributes": {"big": 2**53}}, None]
        with pytest.raises(InvalidRequest) as refused:
            facade.record(bad)  # type: ignore[arg-type]
        assert [e.path for e in refused.value.errors] == ["$[1].attributes.big", "$[2]"]


def check_refusal(exc: SemReportError) -> None:
    """Assert that a refusal is typed, names where the input is bad, and leaks no internals."""
    message = str(exc)
    assert not PYTHON_INTERNALS.search(message), message
    if isinstance(exc, InvalidRequest):
        assert exc.errors, message
        for error in exc.errors:
            assert error.path.startswith("$"), error
            assert error.path in message, (error.path, message)
            assert not PYTHON_INTERNALS.search(error.message), error
    else:
        assert isinstance(exc, DecisionAlreadyRecorded), exc


class StorageConformance(
    DecisionLogRules,
    DecisionMemoryRules,
    SessionRules,
    RoundTripRules,
    StatefulRules,
    InputRefusalRules,
    MalformedInputRules,
    TamperRules,
):
    """Every rule a storage adapter must keep.

    Subclass and implement :meth:`open_storage`, and the two tamper hooks
    :meth:`~TamperRules.alter_stored_decision` and
    :meth:`~TamperRules.alter_stored_session`.
    """


class PersistentStorageConformance(StorageConformance, PersistenceRules):
    """:class:`StorageConformance` plus the rules of adapters whose data outlives the object."""
