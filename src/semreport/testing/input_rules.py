"""Conformance rules for bad input at the door: every backend refuses it the same way.

:class:`MalformedInputRules` throws thousands of malformed batches
(:func:`~semreport.testing.strategies.malformed_decision_batches`) at
:meth:`semreport.SemReport.record` over the adapter under test and checks
that each is refused with a :class:`~semreport.SemReportError` whose message
names the bad field's path and holds none of Python's own words, and that
nothing already stored changes. It is part of
:class:`~semreport.testing.conformance.StorageConformance`, so every adapter
(and a third party's) runs it.
"""

# Test methods are named for the rule they check; docstrings would repeat the names.
# ruff: noqa: D102

from __future__ import annotations

import os
import re
from typing import Any, Final

import pytest
from hypothesis import HealthCheck, given, settings

from semreport.domain import (
    Decision,
    DecisionAlreadyRecorded,
    InvalidRequest,
    Principal,
    SemReportError,
    Storage,
)
from semreport.service import SemReport
from semreport.testing import strategies as sst
from semreport.testing.conformance import StorageFixtures
from semreport.wire import to_wire

__all__ = ["MALFORMED_EXAMPLES", "PYTHON_INTERNALS", "MalformedInputRules"]

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
