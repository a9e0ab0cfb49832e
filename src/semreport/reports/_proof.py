"""Inclusion proofs for one cited decision of a report."""

from __future__ import annotations

from collections.abc import Sequence

from semreport.domain import DecisionNotFound
from semreport.domain._values import freeze_json
from semreport.reports._assemble import leaf_hashes
from semreport.reports._digest import DIGEST_SCHEME, InclusionProof, audit_path
from semreport.reports._model import Report
from semreport.wire import to_wire

__all__ = ["inclusion_proof", "prove"]


def prove(report: Report, decision_id: str) -> InclusionProof:
    """Return the audit path proving that a decision is cited by a report.

    Args:
        report: The report (its ``digest.records_root`` is what the proof proves against).
        decision_id: The cited decision.

    Raises:
        DecisionNotFound: the report cites no decision with that id.
    """
    return inclusion_proof(report, decision_id, leaf_hashes(report))


def inclusion_proof(report: Report, decision_id: str, leaves: Sequence[bytes]) -> InclusionProof:
    """Return the audit path of a cited decision from the report's leaf hashes (already known).

    Raises:
        DecisionNotFound: the report cites no decision with that id.
    """
    index = next(
        (i for i, record in enumerate(report.records) if record.decision.id == decision_id), -1
    )
    if index < 0:
        raise DecisionNotFound(
            f"report for project {report.project_id!r} as of sequence "
            f"{report.as_of_sequence} cites no decision {decision_id!r}"
        )
    record = report.records[index]
    decision = record.decision
    assert decision.sequence is not None
    path = audit_path(leaves, index)
    wire = freeze_json(to_wire(decision))
    return InclusionProof(
        scheme=DIGEST_SCHEME,
        project_id=report.project_id,
        decision_id=decision.id,
        sequence=decision.sequence,
        index=index,
        tree_size=len(report.records),
        as_of_sequence=report.as_of_sequence,
        citation_id=record.sha256,
        record=wire,  # type: ignore[arg-type]
        audit_path=tuple(item.hex() for item in path),
        records_root=report.digest.records_root,
    )
