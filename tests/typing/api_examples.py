"""Public API examples that must type-check under mypy --strict (never run by pytest)."""

from __future__ import annotations

from datetime import UTC, datetime

import semreport
from semreport import (
    Capabilities,
    Decision,
    DecisionDomain,
    LegacySession,
    ModelStatus,
    Principal,
    SemReport,
    from_wire,
    to_wire,
)
from semreport.contract import CONTRACT, Endpoint
from semreport.domain import DecisionMemory, Storage


def record_and_read(sr: SemReport) -> list[Decision]:
    stored: list[Decision] = sr.record(
        [
            Decision(
                id="d-1",
                project_id="p-1",
                title="Title",
                statement="Statement",
                agent="agent-1",
                domain=DecisionDomain.COST,
                attributes={"cost_eur": 10.5},
            ),
            {"id": "d-2", "project_id": "p-1", "title": "T", "statement": "S", "agent": "a"},
        ]
    )
    one: Decision = sr.decision("p-1", "d-1")
    assert one in stored
    return sr.decisions("p-1", as_of=1)


def status(sr: SemReport, caller: Principal) -> bool:
    model: ModelStatus = sr.gnn_status(caller=caller)
    caps: Capabilities = sr.capabilities()
    return model.loaded or caps.model_inference


def wire_round_trip(decision: Decision) -> Decision:
    data: object = to_wire(decision)
    return from_wire(data, Decision)


def sessions(sr: SemReport) -> LegacySession:
    sr.record_sessions(
        [LegacySession(id="s-1", project_id="p-1", title="S", started_at=datetime.now(UTC))]
    )
    return sr.session("s-1")


def ports(storage: Storage) -> DecisionMemory:
    return storage


def contract_rows() -> list[Endpoint]:
    return [row for row in CONTRACT if row.project_scoped]


def open_default() -> SemReport:
    return semreport.open("memory://", caller=Principal.local())


def session_exports(sr: semreport.SemReport) -> semreport.SessionImport:
    exported: semreport.SessionExport = sr.export_session("s-1", "pdf")
    content: bytes = exported.content
    media_type: str = exported.media_type
    filename: str = exported.filename
    digest: str = exported.sha256
    assert content
    assert media_type
    assert filename
    assert digest
    graphml = sr.export_session("s-1", "graph", graph_format="graphml", caller=None)
    assert graphml.format == "graph"
    imported = sr.import_sessions("exports/")
    problems: tuple[semreport.SessionImportProblem, ...] = imported.problems
    assert all(p.code and p.reason and p.file for p in problems) or imported.ok
    return imported


def listing(sr: semreport.SemReport) -> list[str]:
    projects: list[semreport.ProjectSummary] = sr.projects()
    counts = [p.decisions + p.sessions + p.latest_sequence for p in projects]
    sessions: list[semreport.SessionSummary] = sr.sessions("p-1")
    detail: semreport.DecisionDetail = sr.decision_detail("p-1", "d-1")
    incoming: tuple[semreport.IncomingLink, ...] = detail.incoming
    superseded: bool = detail.superseded
    flags = [str(superseded), *(link.source for link in incoming), *map(str, counts)]
    return [s.id for s in sessions] + list(detail.superseded_by) + flags


def ingesting(sr: semreport.SemReport) -> semreport.IngestResult:
    seen: list[semreport.IngestProgress] = []
    result = sr.ingest(["decisions.jsonl", "sessions/"], skip_existing=True, progress=seen.append)
    problems: tuple[semreport.IngestProblem, ...] = result.problems
    assert all(p.where and p.code for p in problems) or result.ok
    return result


def reports_cached_and_streamed(sr: SemReport, path: str) -> semreport.CacheInfo:
    report: semreport.Report = sr.report("p-1", as_of=3)
    stream: semreport.ReportStream = sr.stream_report("p-1")
    digest: semreport.Digest = stream.digest
    assert digest.as_of_sequence == stream.as_of_sequence
    with open(path, "wb") as fp:
        written: int = stream.write_to(fp)
    chunks: list[bytes] = list(stream)
    assert written == sum(len(chunk) for chunk in chunks)
    assert report.digest.records >= 0
    with semreport.open("memory://", report_cache_bytes=0) as uncached:
        uncached.cache_info()
    return sr.cache_info()
