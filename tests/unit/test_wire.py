"""Unit tests for the wire form: the one converter, its strictness and its error paths."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from semreport import (
    Decision,
    Evidence,
    FieldError,
    InvalidRequest,
    LegacySession,
    Link,
    Participant,
    Principal,
    ToolCall,
    Turn,
    from_wire,
    to_wire,
)
from semreport.wire import format_datetime, parse_datetime


def wire_decision(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": "d-1",
        "project_id": "tower-a",
        "title": "CLT floors",
        "statement": "Use CLT.",
        "agent": "material-agent",
    }
    data.update(changes)
    return data


def paths(exc: InvalidRequest) -> list[str]:
    return [e.path for e in exc.errors]


class TestDatetimes:
    """Datetimes travel as RFC 3339 UTC strings ending in Z."""

    def test_format(self) -> None:
        assert format_datetime(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)) == "2026-01-02T03:04:05Z"
        plus2 = timezone(timedelta(hours=2))
        assert (
            format_datetime(datetime(2026, 1, 2, 3, 4, 5, 120, tzinfo=plus2))
            == "2026-01-02T01:04:05.000120Z"
        )

    def test_parse(self) -> None:
        assert parse_datetime("2026-01-02T03:04:05Z") == datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
        assert parse_datetime("2026-01-02T05:04:05+02:00").tzinfo is UTC
        with pytest.raises(ValueError, match="naive"):
            parse_datetime("2026-01-02T03:04:05")
        with pytest.raises(ValueError, match="RFC 3339"):
            parse_datetime("yesterday")
        with pytest.raises(TypeError):
            parse_datetime(12)


class TestRoundTrip:
    """Every model survives to_wire -> JSON -> from_wire unchanged."""

    def test_decision(self) -> None:
        d = Decision(
            id="d-2",
            project_id="tower-a",
            title="Façade U-value ≤ 0.18 W/m²K",
            statement="Triple glazing.",
            agent="energy-agent",
            domain="lifecycle",
            status="accepted",
            tags=["envelope", "energy"],
            attributes={"u_value": 0.18, "count": 3, "certified": True, "grade": "A"},
            evidence=[Evidence("catalogue_item", "CAT-77", quote="«quoted»")],
            links=[Link("supersedes", "d-1")],
            elements=["win-3", "win-1"],
        ).recorded(4, datetime(2026, 5, 1, tzinfo=UTC))
        data = json.loads(json.dumps(to_wire(d)))
        assert data["tags"] == ["energy", "envelope"]
        assert data["elements"] == ["win-1", "win-3"]
        assert data["recorded_at"] == "2026-05-01T00:00:00Z"
        assert data["domain"] == "lifecycle"
        assert from_wire(data, Decision) == d

    def test_session(self) -> None:
        at = datetime(2026, 5, 1, tzinfo=UTC)
        s = LegacySession(
            id="s-1",
            project_id="tower-a",
            title="Workshop",
            started_at=at,
            participants=[Participant("li", "李雷")],
            turns=[
                Turn(
                    0,
                    at,
                    "user",
                    "li",
                    "CO₂ ≤ 300 kg",
                    tool_calls=[ToolCall("calc", {"x": [1.5, None]})],
                )
            ],
        )
        data = json.loads(json.dumps(to_wire(s)))
        assert from_wire(data, LegacySession) == s

    def test_principal(self) -> None:
        p = Principal("svc", roles=["user"], projects=["b", "a"])
        assert to_wire(p) == {
            "subject": "svc",
            "roles": ["user"],
            "projects": ["a", "b"],
            "all_projects": False,
        }
        assert from_wire(to_wire(p), Principal) == p

    def test_model_instances_pass_through(self) -> None:
        link = Link("relates_to", "d-3")
        assert from_wire(link, Link) is link


class TestStrictness:
    """The converter never coerces: bad input is refused with every path."""

    def test_lists_every_bad_field(self) -> None:
        bad = wire_decision(
            id="-bad",
            title=" ",
            domain="nope",
            tags=["ok", " x"],
            attributes={"a b": 1, "c": float("nan")},
            links=[{"kind": "x", "target": "d"}],
            recorded_at="2026-01-01T00:00:00",
            sequence="3",
            extra=1,
        )
        with pytest.raises(InvalidRequest) as info:
            from_wire(bad, Decision)
        assert paths(info.value) == [
            "$.id",
            "$.title",
            "$.domain",
            "$.tags[1]",
            "$.attributes['a b']",
            "$.attributes.c",
            "$.links[0].kind",
            "$.sequence",
            "$.recorded_at",
            "$",
        ]
        message = str(info.value)
        assert "'nope' is not one of 'regulation'" in message
        assert "unknown field(s): 'extra'" in message
        assert info.value.code == "INVALID_REQUEST"

    @pytest.mark.parametrize(
        ("field", "value"),
        [
            ("sequence", 2.0),
            ("sequence", True),
            ("title", 5),
            ("attributes", {"x": {"nested": 1}}),
            ("tags", "single"),
            ("elements", [1]),
        ],
    )
    def test_no_coercion(self, field: str, value: object) -> None:
        with pytest.raises(InvalidRequest) as info:
            from_wire(wire_decision(**{field: value}), Decision)
        assert paths(info.value)[0].startswith(f"$.{field}")

    def test_lone_surrogates_are_refused(self) -> None:
        with pytest.raises(InvalidRequest) as info:
            from_wire(wire_decision(title="bad \ud800", rationale="also \udfff"), Decision)
        assert paths(info.value) == ["$.title", "$.rationale"]
        assert "surrogate" in str(info.value)

    def test_missing_fields(self) -> None:
        with pytest.raises(InvalidRequest) as info:
            from_wire({"id": "d-1"}, Decision)
        assert paths(info.value) == ["$.project_id", "$.title", "$.statement", "$.agent"]

    def test_cross_field_rule_is_located(self) -> None:
        with pytest.raises(InvalidRequest) as info:
            from_wire(wire_decision(links=[{"kind": "supersedes", "target": "d-1"}]), Decision)
        assert info.value.errors == (
            FieldError("$.links[0].target", "decision 'd-1' cannot link to itself"),
        )

    def test_not_a_mapping(self) -> None:
        with pytest.raises(InvalidRequest) as info:
            from_wire(["not", "a", "decision"], Decision)
        assert paths(info.value) == ["$"]

    def test_custom_root_path(self) -> None:
        with pytest.raises(InvalidRequest) as info:
            from_wire(wire_decision(id="?"), Decision, path="$[3]")
        assert paths(info.value) == ["$[3].id"]

    def test_session_rules_are_located(self) -> None:
        data = {
            "id": "s-1",
            "project_id": "p",
            "title": "t",
            "started_at": "2026-01-01T00:00:00Z",
            "participants": [{"id": "a", "name": "A"}],
            "turns": [{"index": 0, "at": "2026-01-01T00:00:00Z", "role": "user", "author": "b"}],
        }
        with pytest.raises(InvalidRequest) as info:
            from_wire(data, LegacySession)
        assert paths(info.value) == ["$.turns[0].author"]

    def test_deep_json_is_refused(self) -> None:
        nested: Any = None
        for _ in range(70):
            nested = [nested]
        data = {"name": "x", "arguments": {"deep": nested}}
        with pytest.raises(InvalidRequest, match="deeper than 64"):
            from_wire(data, ToolCall)
