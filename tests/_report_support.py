"""Shared helpers for the report tests: a fake read-only Decision Memory and sample records."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from semreport import Decision, DecisionNotFound, ProjectSummary, StoredRecord, from_wire
from semreport.canonical import record_bytes, record_sha256
from semreport.wire import to_wire

T0 = datetime(2026, 1, 5, 9, 30, tzinfo=UTC)


def stored_record(decision: Decision) -> StoredRecord:
    """The record an adapter would yield for a recorded decision."""
    assert decision.sequence is not None
    return StoredRecord(
        decision.sequence, record_sha256(decision), record_bytes(decision), to_wire(decision)
    )


class FakeMemory:
    """A read-only DecisionMemory holding exactly the records it is given (any order)."""

    def __init__(self, records: Iterable[Decision] = ()) -> None:
        self.held = list(records)
        self.calls: list[str] = []

    def decisions(
        self, project_id: str, *, after: int = 0, as_of: int | None = None
    ) -> Iterator[Decision]:
        self.calls.append("decisions")
        return iter(self._chosen(project_id, after, as_of))

    def records(
        self, project_id: str, *, after: int = 0, as_of: int | None = None
    ) -> Iterator[StoredRecord]:
        self.calls.append("records")
        return (stored_record(d) for d in self._chosen(project_id, after, as_of))

    def get_record(self, project_id: str, decision_id: str) -> StoredRecord:
        self.calls.append("get_record")
        return stored_record(self._find(project_id, decision_id))

    def get_records(self, project_id: str, decision_ids: Sequence[str]) -> list[StoredRecord]:
        self.calls.append("get_records")
        return [stored_record(self._find(project_id, i)) for i in decision_ids]

    def _chosen(self, project_id: str, after: int, as_of: int | None) -> list[Decision]:
        chosen = [
            d
            for d in self.held
            if d.project_id == project_id
            and d.sequence is not None
            and after < d.sequence <= (as_of if as_of is not None else d.sequence)
        ]
        return sorted(chosen, key=lambda d: d.sequence or 0)

    def _find(self, project_id: str, decision_id: str) -> Decision:
        for d in self.held:
            if d.project_id == project_id and d.id == decision_id:
                return d
        raise DecisionNotFound(decision_id)

    def get(self, project_id: str, decision_id: str) -> Decision:
        self.calls.append("get")
        return self._find(project_id, decision_id)

    def latest_sequence(self, project_id: str) -> int:
        self.calls.append("latest_sequence")
        return max((d.sequence or 0 for d in self.held if d.project_id == project_id), default=0)

    def has_project(self, project_id: str) -> bool:
        self.calls.append("has_project")
        return any(d.project_id == project_id for d in self.held)

    def projects(self) -> list[ProjectSummary]:
        self.calls.append("projects")
        names = sorted({d.project_id for d in self.held})
        return [
            ProjectSummary(
                project_id=name,
                decisions=sum(1 for d in self.held if d.project_id == name),
                latest_sequence=self.latest_sequence(name),
            )
            for name in names
        ]


def decision(sequence: int, decision_id: str | None = None, **fields: Any) -> Decision:
    """A recorded decision of project ``p-1`` with sensible defaults."""
    values: dict[str, Any] = {
        "id": decision_id or f"d-{sequence}",
        "project_id": "p-1",
        "title": f"Decision {sequence}",
        "statement": f"Statement {sequence}",
        "agent": "agent-a",
    }
    values.update(
        {k: sorted(v) if isinstance(v, set | frozenset) else v for k, v in fields.items()}
    )
    return from_wire(values, Decision).recorded(sequence, T0 + timedelta(minutes=sequence))


def sample_project() -> list[Decision]:
    """A small project touching every section of a report."""
    return [
        decision(
            1,
            "reg-1",
            title="Escape stairs protected for 60 min",
            domain="regulation",
            status="accepted",
            agent="agent-reg",
            evidence=[
                {"kind": "regulation", "ref": "ADB B1 2.16", "title": "Approved Document B"},
                {"kind": "document", "ref": "fire-strategy.pdf", "title": "Fire strategy"},
            ],
        ),
        decision(
            2,
            "mat-1",
            title="Concrete frame",
            domain="material",
            status="accepted",
            agent="agent-mat",
            attributes={"co2e_kg": 125000.5, "fire_resistance_min": 120},
            evidence=[{"kind": "catalogue_item", "ref": "CAT-123", "title": "C32/40"}],
        ),
        decision(
            3,
            "mat-2",
            title="CLT frame instead of concrete",
            domain="material",
            status="accepted",
            agent="agent-mat",
            attributes={"co2e_kg": 48000.25, "fire_resistance_min": 90},
            links=[{"kind": "supersedes", "target": "mat-1"}],
            evidence=[{"kind": "catalogue_item", "ref": "CAT-777", "title": "CLT 5s"}],
        ),
        decision(
            4,
            "cost-1",
            title="Budget for frame",
            domain="cost",
            status="proposed",
            agent="agent-cost",
            attributes={"cost_eur": 1250000},
            links=[{"kind": "depends_on", "target": "mat-2"}],
            evidence=[
                {"kind": "cost_line", "ref": "BQ 2.1", "title": "Frame"},
                {"kind": "regulation", "ref": "ADB B1 2.16", "title": "ADB"},
            ],
        ),
        decision(
            5,
            "mat-3",
            title="Hybrid CLT and steel frame",
            domain="material",
            status="proposed",
            agent="agent-mat",
            links=[{"kind": "supersedes", "target": "mat-2"}],
            tags={"timber", "steel"},
            elements={"el-frame"},
        ),
        decision(
            6, "life-1", title="Design for disassembly", domain="lifecycle", status="rejected"
        ),
    ]
