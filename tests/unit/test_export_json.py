"""Unit tests for the json session export and the envelope reader."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from semreport import InvalidRequest, LegacySession, Participant, ToolCall, Turn, to_wire
from semreport.exports import (
    SESSION_SCHEMA,
    session_document,
    session_from_document,
    session_json,
)
from semreport.testing.samples import UNICODE_SAMPLES, sample_session

T0 = datetime(2026, 3, 1, 9, tzinfo=UTC)


def tiny(content: str = "hello") -> LegacySession:
    return LegacySession(
        "s-1",
        "p-1",
        "Tiny",
        T0,
        participants=[Participant("u-1", "Ana")],
        turns=[Turn(0, T0, "user", "u-1", content, [ToolCall("t", {"a": [1, 2]}, {"ok": True})])],
    )


class TestSessionJson:
    """The json writer: the full wire form under a versioned schema."""

    def test_envelope_names_the_schema_and_holds_the_wire_form(self) -> None:
        session = sample_session(7)
        document = json.loads(session_json(session))
        assert document == {"schema": SESSION_SCHEMA, "session": to_wire(session)}
        assert session_document(session)["schema"] == "semreport.session/1"

    def test_loads_back_into_an_equal_session(self) -> None:
        session = sample_session(31)
        assert session_from_document(json.loads(session_json(session))) == session

    def test_nothing_is_dropped(self) -> None:
        session = sample_session(9)
        wire = json.loads(session_json(session))["session"]
        assert len(wire["turns"]) == 9
        call = wire["turns"][2]["tool_calls"][0]
        assert call["arguments"]["material"] == "CLT"
        assert call["result"]["breakdown"] == {"board": 346.5, "panel": 1210.5}
        assert wire["turns"][0]["decision_refs"] == ["d-clt-slab"]
        assert wire["artefacts"][0]["turn_index"] == 1

    def test_unicode_is_written_as_utf8_text(self) -> None:
        content = session_json(tiny(" ".join(UNICODE_SAMPLES)))
        for sample in UNICODE_SAMPLES:
            assert sample.encode("utf-8") in content

    def test_a_session_cannot_hold_lone_surrogates(self) -> None:
        # Text UTF-8 cannot carry is refused when the session is built, so every
        # export is plain UTF-8, and reading a document holding one names the field.
        with pytest.raises(ValueError, match="lone surrogate"):
            tiny("broken \ud800 text")
        document = json.loads(session_json(tiny()))
        document["session"]["turns"][0]["content"] = "broken \ud800 text"
        with pytest.raises(InvalidRequest) as caught:
            session_from_document(document)
        assert caught.value.errors[0].path == "$.session.turns[0].content"

    def test_same_session_same_bytes(self) -> None:
        assert session_json(sample_session(20)) == session_json(sample_session(20))


class TestSessionFromDocument:
    """Reading the envelope or the plain wire form, refusing everything else clearly."""

    def test_plain_wire_form_is_accepted(self) -> None:
        session = tiny()
        assert session_from_document(to_wire(session)) == session

    def test_other_schema_is_refused(self) -> None:
        with pytest.raises(InvalidRequest) as caught:
            session_from_document({"schema": "semreport.session/2", "session": {}})
        assert caught.value.errors[0].path == "$.schema"
        assert "semreport.session/1" in caught.value.errors[0].message

    def test_unknown_envelope_members_are_refused(self) -> None:
        with pytest.raises(InvalidRequest, match="unknown field"):
            session_from_document({"schema": SESSION_SCHEMA, "session": {}, "extra": 1})

    def test_missing_session_is_refused(self) -> None:
        with pytest.raises(InvalidRequest) as caught:
            session_from_document({"schema": SESSION_SCHEMA})
        assert caught.value.errors[0].path == "$.session"

    @pytest.mark.parametrize(
        ("data", "shown"), [([], "an array"), ("x", "a string"), (None, "null"), (3, "int")]
    )
    def test_non_objects_are_refused(self, data: object, shown: str) -> None:
        with pytest.raises(InvalidRequest, match=shown):
            session_from_document(data)

    def test_bad_fields_are_listed_with_their_paths(self) -> None:
        wire = to_wire(tiny())
        wire["turns"][0]["role"] = "robot"
        wire["started_at"] = "yesterday"
        with pytest.raises(InvalidRequest) as caught:
            session_from_document({"schema": SESSION_SCHEMA, "session": wire})
        paths = {error.path for error in caught.value.errors}
        assert "$.session.started_at" in paths
        assert "$.session.turns[0].role" in paths
