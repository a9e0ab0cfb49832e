"""The door: one number domain, typed errors for any input, and limits on one request."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import semreport
from semreport import Decision, InvalidRequest, LegacySession, SemReport, limits, sample
from semreport.testing.conformance import (
    ALTERED_DECISIONS,
    ALTERED_SESSIONS,
    PYTHON_INTERNALS,
    poked,
)


@pytest.fixture
def sr() -> Iterator[SemReport]:
    with semreport.open("memory://") as facade:
        facade.record([decision("kept")])
        yield facade


def decision(decision_id: str, **fields: Any) -> dict[str, Any]:
    return {
        "id": decision_id,
        "project_id": "p-1",
        "title": "Fire rated door",
        "statement": "Use EI30 doors on the stair core.",
        "agent": "regulation-agent",
        **fields,
    }


def refused(sr: SemReport, batch: object) -> InvalidRequest:
    before = sr.latest_sequence("p-1")
    with pytest.raises(InvalidRequest) as caught:
        sr.record(batch)  # type: ignore[arg-type]
    assert sr.latest_sequence("p-1") == before
    assert not PYTHON_INTERNALS.search(str(caught.value)), caught.value
    return caught.value


class TestNumberDomain:
    """Integers within ±(2**53 - 1) and finite floats; nothing else gets in."""

    @pytest.mark.parametrize("number", [2**53, -(2**53), 10**30])
    def test_an_integer_beyond_the_safe_range_is_refused_with_its_path(
        self, sr: SemReport, number: int
    ) -> None:
        error = refused(sr, [decision("d-1", attributes={"cost_eur": number})])
        assert [e.path for e in error.errors] == ["$[0].attributes.cost_eur"]
        assert "2**53 - 1" in error.errors[0].message
        # The project stays reportable: nothing that would break its report got in.
        assert sr.report("p-1").digest.records == 1

    @pytest.mark.parametrize("number", [2**53 - 1, -(2**53 - 1), 1.0e17, 2.0**53, 1e21, -0.0])
    def test_the_edges_of_the_domain_are_accepted_and_reportable(
        self, sr: SemReport, number: float
    ) -> None:
        sr.record([decision("d-1", attributes={"x": number})])
        page = sr.export_report("p-1").html
        assert semreport.verify(page, sr.storage).ok

    def test_tool_call_json_keeps_to_the_domain(self, sr: SemReport) -> None:
        at = "2026-01-05T09:00:00Z"
        session = {
            "id": "s-1",
            "project_id": "p-1",
            "title": "t",
            "started_at": at,
            "participants": [{"id": "ana", "name": "Ana", "role": "user"}],
            "turns": [
                {
                    "index": 0,
                    "at": at,
                    "role": "tool",
                    "author": "ana",
                    "tool_calls": [{"name": "calc", "arguments": {"n": [1, 2**53]}}],
                }
            ],
        }
        with pytest.raises(InvalidRequest) as caught:
            sr.record_sessions([session])
        assert [e.path for e in caught.value.errors] == [
            "$[0].turns[0].tool_calls[0].arguments.n[1]"
        ]


class TestTypedErrors:
    """Whatever ``record`` is given, a refusal is an ``INVALID_REQUEST`` in plain words."""

    @pytest.mark.parametrize("batch", [None, 5, 2.5, True, "d-1", b"d-1", {"id": "d-1"}])
    def test_not_a_batch(self, sr: SemReport, batch: object) -> None:
        error = refused(sr, batch)
        assert [e.path for e in error.errors] == ["$"]
        assert "expected an array" in error.errors[0].message

    @pytest.mark.parametrize("item", [None, 5, "d-1", [], [1], b"x", {1, 2}])
    def test_not_a_decision(self, sr: SemReport, item: object) -> None:
        error = refused(sr, [decision("d-1"), item])
        assert [e.path for e in error.errors] == ["$[1]"]
        assert "expected an object" in error.errors[0].message

    def test_sessions_too(self, sr: SemReport) -> None:
        for batch in (None, 5, [None]):
            with pytest.raises(InvalidRequest):
                sr.record_sessions(batch)  # type: ignore[arg-type]

    def test_odd_attribute_names_are_quoted_in_paths(self, sr: SemReport) -> None:
        error = refused(sr, [decision("d-1", attributes={"u.value": None, "it's": []})])
        assert sorted(e.path for e in error.errors) == [
            "$[0].attributes['it\\'s']",
            "$[0].attributes['u.value']",
        ]


class TestAlteredModels:
    """A model altered after construction gets the storage's refusal, not a Python error.

    The facade measures a decision against its limits before the storage
    checks every field; what the measuring cannot take (text with a lone
    surrogate, a number where a set belongs) is named the way the storage
    names it.
    """

    @pytest.mark.parametrize(
        ("field", "value"),
        [case[1:] for case in ALTERED_DECISIONS],
        ids=[case[0] for case in ALTERED_DECISIONS],
    )
    def test_an_altered_decision(self, sr: SemReport, field: str, value: object) -> None:
        fine = Decision(**decision("fine"))
        bad = poked(Decision(**decision("bad")), **{field: value})
        error = refused(sr, [fine, bad])
        assert error.errors, error
        assert all(e.path.startswith("$[1]") for e in error.errors), error.errors
        # Nothing was used up, and the same decision unaltered is fine.
        assert [d.id for d in sr.record([fine, Decision(**decision("bad"))])] == ["fine", "bad"]

    @pytest.mark.parametrize(
        ("field", "value"),
        [case[1:] for case in ALTERED_SESSIONS],
        ids=[case[0] for case in ALTERED_SESSIONS],
    )
    def test_an_altered_session(self, sr: SemReport, field: str, value: object) -> None:
        started = sr.decision("p-1", "kept").recorded_at
        bad = poked(LegacySession("s-bad", "p-1", "Session", started), **{field: value})
        with pytest.raises(InvalidRequest) as caught:
            sr.record_sessions([bad])
        assert not PYTHON_INTERNALS.search(str(caught.value)), caught.value
        assert all(e.path.startswith("$[0]") for e in caught.value.errors)
        assert list(sr.sessions("p-1")) == []

    def test_a_decision_its_wire_form_rebuilds_is_measured_and_recorded(
        self, sr: SemReport
    ) -> None:
        # Tags that cannot be counted as they are, but whose wire form is valid: the
        # storage's rule rebuilds the decision, and the rebuilt one is measured and kept.
        odd = poked(Decision(**decision("d-1")), tags=_Uncountable({"fire"}))
        [stored] = sr.record([odd])
        assert stored.tags == frozenset({"fire"})
        assert type(stored.tags) is frozenset


class _Uncountable(frozenset[str]):
    def __len__(self) -> int:
        raise TypeError("not countable")


class TestRecordLimits:
    """A batch, a decision and its collections each have a documented limit."""

    def test_a_batch_over_the_limit_is_refused_before_its_items_are_read(
        self, sr: SemReport
    ) -> None:
        taken = 0

        def generated() -> Iterator[dict[str, Any]]:
            nonlocal taken
            while taken < limits.MAX_BATCH_DECISIONS + 10:
                taken += 1
                yield decision(f"d-{taken}")

        error = refused(sr, generated())
        assert f"at most {limits.MAX_BATCH_DECISIONS}" in error.errors[0].message
        assert taken == limits.MAX_BATCH_DECISIONS + 1

    @pytest.mark.parametrize(
        ("field", "value", "limit"),
        [
            ("tags", [f"t{n}" for n in range(limits.MAX_TAGS + 1)], limits.MAX_TAGS),
            (
                "attributes",
                {f"a{n}": n for n in range(limits.MAX_ATTRIBUTES + 1)},
                limits.MAX_ATTRIBUTES,
            ),
            (
                "evidence",
                [{"kind": "document", "ref": f"r{n}"} for n in range(limits.MAX_EVIDENCE + 1)],
                limits.MAX_EVIDENCE,
            ),
            (
                "links",
                [{"kind": "relates_to", "target": f"t{n}"} for n in range(limits.MAX_LINKS + 1)],
                limits.MAX_LINKS,
            ),
            ("elements", [f"e{n}" for n in range(limits.MAX_ELEMENTS + 1)], limits.MAX_ELEMENTS),
        ],
    )
    def test_collections(self, sr: SemReport, field: str, value: object, limit: int) -> None:
        at_limit = value[:limit] if isinstance(value, list) else dict(list(value.items())[:limit])  # type: ignore[attr-defined]
        sr.record([decision("fits", **{field: at_limit})])
        error = refused(sr, [decision("d-1", **{field: value})])
        assert [e.path for e in error.errors] == [f"$[0].{field}"]
        assert f"at most {limit}" in error.errors[0].message

    def test_a_decision_over_the_byte_limit(self, sr: SemReport) -> None:
        error = refused(sr, [decision("d-1", rationale="x" * limits.MAX_DECISION_BYTES)])
        assert [e.path for e in error.errors] == ["$[0]"]
        assert f"at most {limits.MAX_DECISION_BYTES} bytes" in error.errors[0].message


class TestExemplarLimits:
    """An inline exemplar is bounded, so one request cannot make ``similar`` answer megabytes."""

    @pytest.fixture
    def lindenhof(self) -> Iterator[SemReport]:
        with semreport.open("memory://") as facade:
            sample.load_into(facade)
            yield facade

    @pytest.mark.parametrize(
        ("partial", "path"),
        [
            (
                {"attributes": {f"a{n}": n for n in range(limits.MAX_EXEMPLAR_ATTRIBUTES + 1)}},
                "$.decision.attributes",
            ),
            ({"tags": [f"t{n}" for n in range(limits.MAX_EXEMPLAR_TAGS + 1)]}, "$.decision.tags"),
            ({"statement": "x" * (limits.MAX_EXEMPLAR_TEXT + 1)}, "$.decision"),
            (
                {"title": "x" * 6000, "statement": "y" * 6000, "rationale": "z" * 6000},
                "$.decision",
            ),
            (
                {"links": [{"kind": "relates_to", "target": f"t{n}"} for n in range(300)]},
                "$.decision.links",
            ),
        ],
    )
    def test_over_a_limit(self, lindenhof: SemReport, partial: dict[str, Any], path: str) -> None:
        with pytest.raises(InvalidRequest) as caught:
            lindenhof.similar("lindenhof", {"decision": {"title": "timber", **partial}})
        assert [e.path for e in caught.value.errors] == [path]

    def test_at_the_limits_it_answers(self, lindenhof: SemReport) -> None:
        exemplar = {
            "decision": {
                "title": "timber floor",
                "attributes": {f"a{n}": n for n in range(limits.MAX_EXEMPLAR_ATTRIBUTES)},
                "tags": [f"t{n}" for n in range(limits.MAX_EXEMPLAR_TAGS)],
            }
        }
        assert lindenhof.similar("lindenhof", exemplar).hits
