"""The shipped strategies yield valid models that survive the wire form unchanged."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
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
