"""Unit tests for the listing and showing use cases: projects, sessions, decision detail."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import semreport
from semreport import (
    DecisionNotFound,
    Forbidden,
    IncomingLink,
    InvalidRequest,
    LinkKind,
    Principal,
    ProjectNotFound,
    ProjectSummary,
    SemReport,
    SessionSummary,
    Unauthenticated,
)

ALICE = Principal("alice", roles=["user"], projects=["tower-a"])
OPERATOR = Principal("ops", roles=["operator"], all_projects=True)


def wire(decision_id: str, project: str = "tower-a", **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": decision_id,
        "project_id": project,
        "title": f"Decision {decision_id}",
        "statement": "Something was decided.",
        "agent": "cost-agent",
    }
    data.update(extra)
    return data


def wire_session(session_id: str, project: str = "tower-a", **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": session_id,
        "project_id": project,
        "title": f"Workshop {session_id}",
        "started_at": "2026-03-01T09:00:00Z",
        "participants": [{"id": "ann", "name": "Ann"}, {"id": "bob", "name": "Bob"}],
        "turns": [
            {"index": 0, "at": "2026-03-01T09:00:00Z", "role": "user", "author": "ann"},
            {"index": 1, "at": "2026-03-01T09:01:00Z", "role": "user", "author": "bob"},
        ],
    }
    data.update(extra)
    return data


@pytest.fixture
def sr() -> Iterator[SemReport]:
    with semreport.open("memory://") as facade:
        facade.record([wire("d-1"), wire("d-2"), wire("x-1", project="tower-b")])
        facade.record_sessions(
            [
                wire_session("s-2", started_at="2026-03-02T09:00:00Z"),
                wire_session("s-1", ended_at="2026-03-01T10:00:00Z"),
                wire_session("s-9", project="tower-c"),
            ]
        )
        yield facade


class TestProjects:
    """projects() lists what the caller may read, with counts, ordered by id."""

    def test_the_local_caller_sees_every_project(self, sr: SemReport) -> None:
        assert sr.projects() == [
            ProjectSummary("tower-a", decisions=2, latest_sequence=2, sessions=2),
            ProjectSummary("tower-b", decisions=1, latest_sequence=1, sessions=0),
            ProjectSummary("tower-c", decisions=0, latest_sequence=0, sessions=1),
        ]

    def test_a_caller_sees_only_its_projects(self, sr: SemReport) -> None:
        assert [p.project_id for p in sr.projects(caller=ALICE)] == ["tower-a"]

    def test_the_user_role_is_needed(self, sr: SemReport) -> None:
        with pytest.raises(Forbidden, match="user"):
            sr.projects(caller=OPERATOR)

    def test_a_caller_is_needed(self) -> None:
        with semreport.open("memory://", require_caller=True) as strict:
            with pytest.raises(Unauthenticated):
                strict.projects()
            assert strict.projects(caller=ALICE) == []


class TestSessions:
    """sessions() summarises a project's sessions by start time, without transcripts."""

    def test_summaries_in_start_order(self, sr: SemReport) -> None:
        listed = sr.sessions("tower-a")
        assert [s.id for s in listed] == ["s-1", "s-2"]
        first = listed[0]
        assert isinstance(first, SessionSummary)
        assert (first.title, first.turns, first.participants) == ("Workshop s-1", 2, 2)
        assert first.ended_at is not None
        assert first.ended_at.hour == 10
        assert listed[1].ended_at is None

    def test_a_project_with_decisions_only_has_no_sessions(self, sr: SemReport) -> None:
        assert sr.sessions("tower-b") == []

    def test_an_unknown_project_is_project_not_found(self, sr: SemReport) -> None:
        with pytest.raises(ProjectNotFound, match="tower-z"):
            sr.sessions("tower-z")

    def test_a_project_without_a_grant_is_forbidden(self, sr: SemReport) -> None:
        with pytest.raises(Forbidden):
            sr.sessions("tower-c", caller=ALICE)
        assert [s.id for s in sr.sessions("tower-a", caller=ALICE)] == ["s-1", "s-2"]

    def test_a_bad_project_id_is_invalid(self, sr: SemReport) -> None:
        with pytest.raises(InvalidRequest, match="project_id"):
            sr.sessions("")


class TestDecisionDetail:
    """decision_detail() adds the links other decisions hold, and supersession."""

    @pytest.fixture
    def linked(self, sr: SemReport) -> SemReport:
        sr.record(
            [
                wire("d-3", links=[{"kind": "supersedes", "target": "d-1"}]),
                wire("d-4", links=[{"kind": "depends_on", "target": "d-1"}]),
                wire(
                    "d-5",
                    links=[
                        {"kind": "supersedes", "target": "d-1"},
                        {"kind": "relates_to", "target": "d-3"},
                    ],
                ),
            ]
        )
        return sr

    def test_incoming_links_and_supersession(self, linked: SemReport) -> None:
        detail = linked.decision_detail("tower-a", "d-1")
        assert detail.decision.id == "d-1"
        assert detail.incoming == (
            IncomingLink(LinkKind.SUPERSEDES, "d-3"),
            IncomingLink(LinkKind.DEPENDS_ON, "d-4"),
            IncomingLink(LinkKind.SUPERSEDES, "d-5"),
        )
        assert detail.superseded
        assert detail.superseded_by == ("d-3", "d-5")
        assert dict(detail.titles) == {
            "d-3": "Decision d-3",
            "d-4": "Decision d-4",
            "d-5": "Decision d-5",
        }

    def test_outgoing_links_get_titles(self, linked: SemReport) -> None:
        detail = linked.decision_detail("tower-a", "d-5")
        assert not detail.superseded
        assert detail.incoming == ()
        assert dict(detail.titles) == {"d-1": "Decision d-1", "d-3": "Decision d-3"}

    def test_an_unknown_decision_is_not_found(self, sr: SemReport) -> None:
        with pytest.raises(DecisionNotFound):
            sr.decision_detail("tower-a", "nope")

    def test_another_project_is_forbidden(self, sr: SemReport) -> None:
        with pytest.raises(Forbidden):
            sr.decision_detail("tower-b", "x-1", caller=ALICE)
