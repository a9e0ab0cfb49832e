"""Unit tests for the domain model's validation and behaviour."""

from __future__ import annotations

import pickle
from datetime import UTC, datetime, timedelta, timezone
from types import MappingProxyType

import attrs
import pytest

from semreport import (
    Artefact,
    Decision,
    DecisionDomain,
    DecisionStatus,
    Evidence,
    FrozenDict,
    LegacySession,
    Link,
    LinkKind,
    Participant,
    Principal,
    Role,
    ToolCall,
    Turn,
    TurnRole,
)

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def decision(**changes: object) -> Decision:
    fields: dict[str, object] = {
        "id": "d-1",
        "project_id": "tower-a",
        "title": "CLT floors",
        "statement": "Use 200 mm CLT floor panels.",
        "agent": "material-agent",
    }
    fields.update(changes)
    return Decision(**fields)  # type: ignore[arg-type]


def session(**changes: object) -> LegacySession:
    fields: dict[str, object] = {
        "id": "s-1",
        "project_id": "tower-a",
        "title": "Façade workshop",
        "started_at": T0,
        "participants": (Participant("ann", "Ann"), Participant("bot", "Agent", TurnRole.AGENT)),
        "turns": (
            Turn(0, T0, TurnRole.USER, "ann", "What U-value?"),
            Turn(1, T0 + timedelta(minutes=1), TurnRole.AGENT, "bot", "≤ 0.18 W/m²K"),
        ),
    }
    fields.update(changes)
    return LegacySession(**fields)  # type: ignore[arg-type]


class TestDecision:
    """Decisions validate every field when built in code."""

    def test_defaults(self) -> None:
        d = decision()
        assert d.domain is DecisionDomain.GENERAL
        assert d.status is DecisionStatus.PROPOSED
        assert d.tags == frozenset()
        assert d.attributes == {}
        assert d.sequence is None
        assert not d.is_recorded

    def test_collections_are_immutable_and_normalised(self) -> None:
        d = decision(tags=["b", "a", "a"], attributes={"z": 1, "a": 2.5}, elements=["w-2"])
        assert d.tags == frozenset({"a", "b"})
        assert isinstance(d.attributes, FrozenDict)
        assert list(d.attributes) == ["a", "z"]
        assert d.elements == frozenset({"w-2"})

    def test_enums_accept_their_values(self) -> None:
        d = decision(domain="cost", status="accepted")
        assert d.domain is DecisionDomain.COST
        assert d.status is DecisionStatus.ACCEPTED

    @pytest.mark.parametrize(
        ("field", "value"),
        [
            ("id", "-starts-with-dash"),
            ("id", "has space"),
            ("id", "x" * 129),
            ("id", "trailing-newline\n"),
            ("project_id", ""),
            ("agent", "ag/ent"),
            ("title", "   "),
            ("statement", ""),
            ("domain", "structure"),
            ("status", "superseded"),
            ("session_id", "no way"),
            ("tags", [" padded"]),
            ("tags", "not-a-collection"),
            ("attributes", {"bad name": 1}),
            ("attributes", {"cost": float("nan")}),
            ("attributes", {"cost": float("inf")}),
            ("attributes", {"cost": [1, 2]}),
            ("elements", ["bad element"]),
            ("sequence", 0),
            ("sequence", True),
            ("recorded_at", datetime(2026, 1, 1)),  # noqa: DTZ001 - the naive time is the point
        ],
    )
    def test_bad_values_are_refused(self, field: str, value: object) -> None:
        with pytest.raises((ValueError, TypeError)) as info:
            decision(**{field: value})
        assert str(info.value)  # every refusal says why

    @pytest.mark.parametrize(
        ("field", "fine", "value", "reason"),
        [
            ("evidence", Evidence("document", "r"), "x", "expected an Evidence, got a string"),
            (
                "evidence",
                Evidence("document", "r"),
                {"kind": "document", "ref": "r"},
                "expected an Evidence, got an object",
            ),
            ("links", Link("relates_to", "d-2"), "d-3", "expected a Link, got a string"),
            (
                "links",
                Link("relates_to", "d-2"),
                Evidence("document", "r"),
                "expected a Link, got an Evidence",
            ),
        ],
    )
    def test_items_that_are_not_the_model_are_refused(
        self, field: str, fine: object, value: object, reason: str
    ) -> None:
        # The converter makes any iterable a tuple; what is in it must be the model.
        with pytest.raises(TypeError) as info:
            decision(**{field: [fine, value]})
        assert str(info.value) == f"{field}[1]: {reason}"

    def test_cannot_link_to_itself(self) -> None:
        with pytest.raises(ValueError, match="cannot link to itself"):
            decision(links=[Link(LinkKind.SUPERSEDES, "d-1")])

    def test_recorded_copy_and_supersedes(self) -> None:
        d = decision(links=[Link("supersedes", "d-0"), Link("relates_to", "d-9")])
        at = datetime(2026, 1, 1, 12, tzinfo=timezone(timedelta(hours=2)))
        stored = d.recorded(7, at)
        assert stored.sequence == 7
        assert stored.recorded_at == at
        assert stored.recorded_at is not None
        assert stored.recorded_at.tzinfo is UTC
        assert stored.is_recorded
        assert stored.supersedes == ("d-0",)
        assert d.sequence is None

    def test_hashable_picklable_and_frozen(self) -> None:
        d = decision(attributes={"cost_eur": 10}, tags=["x"])
        assert pickle.loads(pickle.dumps(d)) == d
        assert hash(d) == hash(decision(attributes={"cost_eur": 10}, tags=["x"]))
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            d.title = "changed"  # type: ignore[misc]


class TestEvidenceAndLink:
    """Evidence and links check their kinds and references."""

    def test_evidence(self) -> None:
        e = Evidence("regulation", "BR B3(4)", title="Approved Document B")
        assert e.kind.value == "regulation"
        with pytest.raises(ValueError, match="not a valid"):
            Evidence("rumour", "x")
        with pytest.raises(ValueError, match="ref"):
            Evidence("document", " ")

    def test_link(self) -> None:
        assert Link("depends_on", "d-2").kind is LinkKind.DEPENDS_ON
        with pytest.raises(ValueError, match="target"):
            Link("depends_on", "not an id")


class TestLegacySession:
    """Sessions check their own cross-field rules."""

    def test_valid_session(self) -> None:
        s = session(
            turns=(
                Turn(
                    0,
                    T0,
                    "user",
                    "ann",
                    "calc",
                    tool_calls=[ToolCall("calc", {"a": [1, {"b": None}]}, {"r": 2.5})],
                    decision_refs=["d-1"],
                ),
            ),
            artefacts=[Artefact("plan.pdf", "application/pdf", "a" * 64, turn_index=0)],
        )
        call = s.turns[0].tool_calls[0]
        assert call.arguments == {"a": (1, {"b": None})}
        assert isinstance(call.arguments["a"], tuple)
        assert hash(s)
        assert pickle.loads(pickle.dumps(s)) == s
        assert s.participant("ann").name == "Ann"
        with pytest.raises(KeyError):
            s.participant("nobody")

    def test_turn_authors_must_be_participants(self) -> None:
        with pytest.raises(ValueError, match="not a participant"):
            session(turns=(Turn(0, T0, "user", "zed", "hi"),))

    def test_turn_indices_strictly_increase(self) -> None:
        with pytest.raises(ValueError, match="strictly increase"):
            session(turns=(Turn(1, T0, "user", "ann"), Turn(1, T0, "user", "ann")))

    def test_ended_before_started(self) -> None:
        with pytest.raises(ValueError, match="ended_at"):
            session(ended_at=T0 - timedelta(seconds=1))

    def test_participants_unique(self) -> None:
        with pytest.raises(ValueError, match="unique"):
            session(participants=(Participant("ann", "A"), Participant("ann", "B")), turns=())

    @pytest.mark.parametrize(
        ("field", "value", "reason"),
        [
            ("participants", ["ann"], "expected a Participant, got a string"),
            ("turns", [{"index": 0}], "expected a Turn, got an object"),
            ("artefacts", [5], "expected an Artefact, got a number"),
        ],
    )
    def test_items_that_are_not_the_model_are_refused(
        self, field: str, value: object, reason: str
    ) -> None:
        with pytest.raises(TypeError) as info:
            session(**{field: value})
        assert str(info.value) == f"{field}[0]: {reason}"

    def test_tool_calls_that_are_not_tool_calls_are_refused(self) -> None:
        with pytest.raises(TypeError) as info:
            Turn(0, T0, "user", "ann", tool_calls=[("calc", {})])  # type: ignore[list-item]
        assert str(info.value) == "tool_calls[0]: expected a ToolCall, got an array"

    def test_artefact_turn_must_exist(self) -> None:
        with pytest.raises(ValueError, match="no turn has index 5"):
            session(artefacts=[Artefact("a", "text/plain", "0" * 64, turn_index=5)])

    @pytest.mark.parametrize(
        "bad",
        [
            {"index": -1},
            {"index": True},
            {"at": datetime(2026, 1, 1)},  # noqa: DTZ001 - the naive time is the point
            {"role": "robot"},
        ],
    )
    def test_bad_turn(self, bad: dict[str, object]) -> None:
        fields: dict[str, object] = {"index": 0, "at": T0, "role": "user", "author": "ann"}
        fields.update(bad)
        with pytest.raises((ValueError, TypeError)):
            Turn(**fields)  # type: ignore[arg-type]

    def test_tool_call_refuses_non_json(self) -> None:
        with pytest.raises(TypeError):
            ToolCall("x", {"a": object()})
        with pytest.raises(ValueError, match="finite"):
            ToolCall("x", {}, float("nan"))
        with pytest.raises(TypeError, match="JSON object"):
            ToolCall("x", [1, 2])  # type: ignore[arg-type]

    def test_artefact_digest(self) -> None:
        with pytest.raises(ValueError, match="hexadecimal"):
            Artefact("a", "text/plain", "ABC")


class TestPrincipal:
    """Callers carry roles and project grants."""

    def test_local_principal_may_do_everything(self) -> None:
        p = Principal.local()
        assert p.has_role(Role.USER)
        assert p.has_role(Role.OPERATOR)
        assert p.may_read("any-project")

    def test_grants_are_explicit(self) -> None:
        p = Principal("alice", roles=["user"], projects=["tower-a"])
        assert p.may_read("tower-a")
        assert not p.may_read("tower-b")
        assert not p.has_role(Role.OPERATOR)
        with pytest.raises(ValueError, match="not a valid"):
            Principal("bob", roles=["admin"])


class TestFrozenDict:
    """The immutable mapping behaves like a read-only dict."""

    def test_mapping_behaviour(self) -> None:
        f = FrozenDict({"b": 1, "a": 2})
        assert list(f) == ["a", "b"]
        assert len(f) == 2
        assert f == {"a": 2, "b": 1}
        assert f != 3
        assert repr(f) == "FrozenDict({'a': 2, 'b': 1})"
        assert hash(f) == hash(FrozenDict([("a", 2), ("b", 1)]))

    def test_unsortable_keys_keep_insertion_order(self) -> None:
        f: FrozenDict[object, int] = FrozenDict({1: 1, "a": 2})
        assert list(f) == [1, "a"]

    def test_a_dict_given_is_copied(self) -> None:
        given = {"b": 1, "a": 2}
        unsortable: dict[object, int] = {1: 1, "a": 2}
        f, g = FrozenDict(given), FrozenDict(unsortable)
        given["c"] = 3
        unsortable["c"] = 3
        assert dict(f) == {"a": 2, "b": 1}
        assert dict(g) == {1: 1, "a": 2}

    def test_one_entry_or_none_is_copied_too(self) -> None:
        one = {"a": [1]}
        f = FrozenDict(one)
        one["b"] = [2]
        assert dict(f) == {"a": [1]}
        assert FrozenDict({}) == {}
        assert list(FrozenDict(iter([("z", 1)]))) == ["z"]

    def test_any_mapping_or_pairs(self) -> None:
        expected = FrozenDict({"a": 1, "b": 2})
        assert FrozenDict(MappingProxyType({"b": 2, "a": 1})) == expected
        assert FrozenDict(iter([("b", 2), ("a", 1), ("b", 2)])) == expected
        assert FrozenDict(expected) == expected
