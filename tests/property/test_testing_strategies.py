"""The shipped strategies yield valid models that survive the wire form unchanged."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import find, given
from hypothesis import strategies as st

from semreport.domain import (
    Artefact,
    Decision,
    Evidence,
    LegacySession,
    Link,
    Participant,
    Principal,
    ToolCall,
    Turn,
)
from semreport.domain._values import (
    MAX_SAFE_INTEGER,
    InvalidValue,
    check_attribute_value,
    check_number,
    freeze_json,
    thaw_json,
)
from semreport.storage._common import (
    decode_decision,
    decode_session,
    encode_decision,
    encode_session,
)
from semreport.testing import strategies as sst
from semreport.wire import from_wire, to_wire


def _round_trip(value: Any) -> None:
    data = to_wire(value)
    assert from_wire(json.loads(json.dumps(data)), type(value)) == value


class TestModelStrategies:
    """Every model strategy gives objects the wire form carries unchanged."""

    @given(sst.evidence())
    def test_evidence(self, value: Evidence) -> None:
        _round_trip(value)

    @given(sst.links())
    def test_links(self, value: Link) -> None:
        _round_trip(value)

    @given(sst.decisions())
    def test_decisions(self, value: Decision) -> None:
        assert not value.is_recorded
        _round_trip(value)

    @given(sst.participants())
    def test_participants(self, value: Participant) -> None:
        _round_trip(value)

    @given(sst.tool_calls())
    def test_tool_calls(self, value: ToolCall) -> None:
        _round_trip(value)

    @given(sst.turns())
    def test_turns(self, value: Turn) -> None:
        _round_trip(value)

    @given(sst.artefacts(turn_indices=[0, 3]))
    def test_artefacts(self, value: Artefact) -> None:
        assert value.turn_index in {None, 0, 3}
        _round_trip(value)

    @given(sst.legacy_sessions(project_id="p-1"))
    def test_legacy_sessions(self, value: LegacySession) -> None:
        assert value.project_id == "p-1"
        _round_trip(value)

    @given(sst.principals())
    def test_principals(self, value: Principal) -> None:
        _round_trip(value)


class TestBatchesAndWire:
    """Batches respect their id rules; ``wire`` gives data ``from_wire`` accepts."""

    @given(
        sst.decision_batches(
            project_ids=("p-1", "p-2"), min_size=1, exclude_ids=frozenset({("p-1", "a")})
        )
    )
    def test_batches_have_unique_ids_per_project(self, batch: list[Decision]) -> None:
        keys = [(d.project_id, d.id) for d in batch]
        assert len(set(keys)) == len(keys)
        assert ("p-1", "a") not in keys
        assert {d.project_id for d in batch} <= {"p-1", "p-2"}

    @given(sst.wire(sst.decisions(project_id="p-9")))
    def test_wire_decisions(self, data: dict[str, Any]) -> None:
        assert from_wire(data, Decision).project_id == "p-9"

    @given(sst.json_objects())
    def test_json_objects_are_json(self, data: dict[str, Any]) -> None:
        assert json.loads(json.dumps(data, allow_nan=False)) == data

    @given(st.data())
    def test_text_keeps_to_its_options(self, data: st.DataObject) -> None:
        assert "\x00" not in data.draw(sst.text(allow_nul=False))
        assert data.draw(sst.non_empty_text()).strip()
        assert len(data.draw(sst.tags())) <= 128


class TestRowCodec:
    """The shared row form (used by every persistent adapter) round-trips every model."""

    @given(sst.decisions())
    def test_decisions(self, value: Decision) -> None:
        assert decode_decision(encode_decision(value)) == value

    @given(sst.legacy_sessions())
    def test_sessions(self, value: LegacySession) -> None:
        assert decode_session(encode_session(value)) == value


class TestNumberDomain:
    """``numbers()`` is exactly the accepted domain: every draw is accepted, the edges are hit."""

    @given(sst.numbers())
    def test_every_number_is_accepted(self, value: int | float) -> None:
        assert check_number(value) == value
        assert check_number(json.loads(json.dumps(value))) == value

    @given(sst.attribute_values())
    def test_every_attribute_value_is_accepted(self, value: bool | int | float | str) -> None:
        assert check_attribute_value(value) == value

    @given(sst.json_values())
    def test_every_json_value_is_accepted(self, value: Any) -> None:
        assert thaw_json(freeze_json(value)) == value

    @pytest.mark.parametrize(
        "edge",
        [MAX_SAFE_INTEGER, -MAX_SAFE_INTEGER, 1.0e17, 9007199254740993.0, -0.0, 5e-324],
    )
    def test_the_edges_are_reachable(self, edge: float) -> None:
        found = find(sst.numbers(), lambda v: v == edge and type(v) is type(edge))
        assert found == edge

    def test_a_whole_float_beyond_the_safe_integers_is_reachable(self) -> None:
        found = find(sst.numbers(), lambda v: isinstance(v, float) and 2**53 < v < 1e21)
        assert found.is_integer()

    @pytest.mark.parametrize(
        "outside", [2**53, -(2**53), 10**30, float("nan"), float("inf"), float("-inf")]
    )
    def test_what_lies_outside_is_refused(self, outside: float) -> None:
        with pytest.raises(InvalidValue):
            check_number(outside)
