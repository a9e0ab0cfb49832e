"""Report API examples that must type-check under mypy --strict (never run by pytest)."""

from __future__ import annotations

import semreport
from semreport import (
    Digest,
    Finding,
    InclusionProof,
    Report,
    ReportExport,
    SemReport,
    Verification,
    check_inclusion,
    verify,
)
from semreport.domain import DecisionMemory


def report_round_trip(sr: SemReport, memory: DecisionMemory) -> bool:
    report: Report = sr.report("p-1", as_of=3)
    text: str = report.to_json()
    exported: ReportExport = sr.export_report("p-1")
    digest: Digest = exported.digest
    proof: InclusionProof = sr.prove("p-1", "d-1")
    included: bool = check_inclusion(proof, digest.records_root)
    result: Verification = verify(exported.html, memory)
    problems: tuple[Finding, ...] = result.problems
    again: Verification = semreport.verify(text.encode())
    return included and result.ok and again.ok and not problems
