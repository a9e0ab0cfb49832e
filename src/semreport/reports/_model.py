"""The report's types: frozen attrs classes whose wire form is the report JSON."""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from typing import Final

import attrs

from semreport.canonical import canonical_json_fast, record_bytes
from semreport.domain import Decision, DecisionDomain, DecisionStatus, EvidenceKind, FrozenDict
from semreport.reports._digest import Digest
from semreport.wire import to_wire

__all__ = [
    "REPORT_SCHEMA",
    "EvidenceEntry",
    "Report",
    "ReportEntry",
    "ReportRecord",
    "ReportSection",
    "ReportSummary",
    "SupersessionChain",
    "body_members",
    "canonical_report",
    "join_object",
    "json_head",
    "json_tail",
    "record_item",
    "records_array",
    "report_html",
]

REPORT_SCHEMA: Final = "semreport.report/1"
"""The schema name every report carries."""


@attrs.frozen
class ReportEntry:
    """A decision as a section lists it (the full record is in ``records``).

    Attributes:
        id: The decision's id (the page anchors it as ``decision-<id>``).
        sequence: Its sequence number.
        title: Its title.
        agent: The agent that made it.
        status: Its stored status.
        sha256: Its citation id.
    """

    id: str
    sequence: int
    title: str
    agent: str
    status: DecisionStatus
    sha256: str


@attrs.frozen
class SupersessionChain:
    """A line of decisions each superseding the one before, resolved from ``supersedes`` links.

    Attributes:
        decisions: Ids from the oldest to the newest; the last one supersedes
            the others and is not itself superseded.
        unresolved: Ids in ``decisions`` that no record of the report holds
            (links to decisions recorded after the report, or never recorded).
    """

    decisions: tuple[str, ...]
    unresolved: tuple[str, ...] = ()


@attrs.frozen
class EvidenceEntry:
    """One cited source and the decisions citing it.

    Attributes:
        kind: Regulation, catalogue item, cost line or document.
        ref: The citation.
        title: The source's title as the first citing decision gives it.
        cited_by: Ids of the citing decisions, in sequence order.
    """

    kind: EvidenceKind
    ref: str
    title: str
    cited_by: tuple[str, ...]


@attrs.frozen
class ReportSection:
    """Everything the report says about one domain.

    Attributes:
        domain: The domain.
        decisions: How many decisions of the domain the report cites.
        current: Accepted decisions that nothing supersedes, in sequence order.
        open_proposals: Proposed decisions that nothing supersedes, in sequence order.
        supersession_chains: Chains whose newest decision is in this domain.
        evidence: The evidence index: each source the domain's decisions
            cite, ordered by kind, then reference.
    """

    domain: DecisionDomain
    decisions: int
    current: tuple[ReportEntry, ...]
    open_proposals: tuple[ReportEntry, ...]
    supersession_chains: tuple[SupersessionChain, ...]
    evidence: tuple[EvidenceEntry, ...]


@attrs.frozen
class ReportSummary:
    """Counts over the report's decisions.

    Attributes:
        decisions: How many decisions the report cites.
        superseded: How many of them a later decision supersedes.
        by_domain: Decisions per domain (every domain, zeros included).
        by_status: Decisions per stored status (every status, zeros included).
        by_agent: Decisions per agent (agents that made at least one).
    """

    decisions: int
    superseded: int
    by_domain: FrozenDict[str, int]
    by_status: FrozenDict[str, int]
    by_agent: FrozenDict[str, int]


@attrs.frozen
class ReportRecord:
    """One cited record: a decision's full wire form and its citation id.

    Attributes:
        sha256: The citation id, ``sha256:`` and the hex SHA-256 of the
            RFC 8785 canonical bytes of ``decision``'s wire form.
        decision: The decision as Decision Memory holds it.
    """

    sha256: str
    decision: Decision


@attrs.frozen
class Report:
    """A report assembled from Decision Memory as of one sequence number (``semreport.report/1``).

    ``semreport.to_wire(report)`` is the report JSON; :meth:`to_json` gives
    its canonical (RFC 8785) text, byte-identical for the same records.

    Attributes:
        schema: ``semreport.report/1``.
        project_id: The project.
        as_of_sequence: The last sequence number the report includes.
        summary: Counts by domain, status and agent.
        sections: One per domain holding decisions, in domain order.
        records: Every decision, in sequence order, with its citation id.
        digest: The record digest (``semreport-digest/1``).
    """

    schema: str
    project_id: str
    as_of_sequence: int
    summary: ReportSummary
    sections: tuple[ReportSection, ...]
    records: tuple[ReportRecord, ...]
    digest: Digest

    def to_json(self) -> str:
        """Return the report as RFC 8785 canonical JSON text (``digest`` included)."""
        return canonical_report(self).decode("utf-8")

    def record(self, decision_id: str) -> ReportRecord:
        """Return the cited record of one decision (``KeyError`` if the report has none)."""
        for record in self.records:
            if record.decision.id == decision_id:
                return record
        raise KeyError(decision_id)

    def __repr__(self) -> str:
        """A one-line summary (the records are too many to print)."""
        project = self.project_id if len(self.project_id) <= 40 else self.project_id[:39] + "…"
        return (
            f"<Report {project!r} as of sequence {self.as_of_sequence}: "
            f"{self.summary.decisions} decisions in {len(self.sections)} sections, "
            f"report_sha256 {self.digest.report_sha256[:16]}…>"
        )

    def _repr_html_(self) -> str:
        """The summary, the digest and a link to each section's part, for notebooks."""
        return report_html(self)


_SHOWN_PER_SECTION: Final = 10


def _entries_html(entries: Sequence[ReportEntry]) -> str:
    e = html.escape
    shown = "".join(
        f"<li>{entry.sequence}. {e(entry.title)} <code>{e(entry.id)}</code></li>"
        for entry in entries[:_SHOWN_PER_SECTION]
    )
    more = len(entries) - _SHOWN_PER_SECTION
    return f"<ul>{shown}</ul>" + (f"<p><small>and {more} more</small></p>" if more > 0 else "")


def report_html(report: Report) -> str:
    """Render a report's summary, digest and sections as an HTML fragment for notebooks.

    Every text is escaped. The sections are anchored inside the fragment
    (``semreport-<report_sha256 prefix>-<domain>``) so that two reports shown
    in one notebook never share an anchor.
    """
    e = html.escape
    summary = report.summary
    key = f"semreport-{report.digest.report_sha256[:12]}"
    statuses = [status for status, count in summary.by_status.items() if count]
    grid: dict[str, dict[str, int]] = {}
    for record in report.records:
        row = grid.setdefault(record.decision.domain.value, {})
        row[record.decision.status.value] = row.get(record.decision.status.value, 0) + 1
    head = "".join(f"<th>{e(status)}</th>" for status in statuses)
    rows = "".join(
        f'<tr><th><a href="#{key}-{e(section.domain.value)}">{e(section.domain.value)}</a></th>'
        + "".join(
            f"<td>{grid.get(section.domain.value, {}).get(status, 0)}</td>" for status in statuses
        )
        + f"<td><strong>{section.decisions}</strong></td></tr>"
        for section in report.sections
    )
    links = " · ".join(
        f'<a href="#{key}-{e(section.domain.value)}">{e(section.domain.value)} '
        f"({section.decisions})</a>"
        for section in report.sections
    )
    sections = "".join(
        f'<div id="{key}-{e(section.domain.value)}"><h4>{e(section.domain.value)} '
        f"({section.decisions})</h4>"
        f"<p>{len(section.current)} current, {len(section.open_proposals)} open proposals, "
        f"{len(section.supersession_chains)} supersession chains, "
        f"{len(section.evidence)} sources cited.</p>"
        f"{_entries_html(section.current + section.open_proposals)}</div>"
        for section in report.sections
    )
    agents = ", ".join(f"{e(agent)} {count}" for agent, count in summary.by_agent.items())
    digest = report.digest
    return (
        f"<div><p><strong>Report for <code>{e(report.project_id)}</code></strong> as of "
        f"sequence {report.as_of_sequence}: {summary.decisions} decisions "
        f"({summary.superseded} superseded).</p>"
        f"<p>Sections: {links}</p>"
        f"<table><thead><tr><th>domain</th>{head}<th>all</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
        f"<p><small>By agent: {agents}</small></p>"
        f"<p><small>Digest <code>{e(digest.scheme)}</code>: {digest.records} records, "
        f"records_root <code>{e(digest.records_root)}</code>, "
        f"report_sha256 <code>{e(digest.report_sha256)}</code></small></p>"
        f"{sections}</div>"
    )


# -- canonical bytes: what the digest hashes ------------------------------------------


def join_object(members: Mapping[str, bytes]) -> bytes:
    """Join already-canonical member values into a canonical JSON object.

    Keys are ordered by their UTF-16 code units, as RFC 8785 requires.
    """
    keys = sorted(members, key=lambda key: key.encode("utf-16-be"))
    return b"{" + b",".join(canonical_json_fast(key) + b":" + members[key] for key in keys) + b"}"


def records_array(items: Iterable[tuple[bytes, str]]) -> bytes:
    """Return the canonical ``records`` array from (record bytes, citation id) pairs."""
    return (
        b"["
        + b",".join(
            join_object({"decision": data, "sha256": canonical_json_fast(cid)})
            for data, cid in items
        )
        + b"]"
    )


def body_members(
    project_id: str,
    as_of: int,
    summary: ReportSummary,
    sections: Sequence[ReportSection],
    records: bytes,
) -> dict[str, bytes]:
    """Return the report body's members (everything but ``digest``) as canonical bytes."""
    return {
        "schema": canonical_json_fast(REPORT_SCHEMA),
        "project_id": canonical_json_fast(project_id),
        "as_of_sequence": canonical_json_fast(as_of),
        "summary": canonical_json_fast(to_wire(summary)),
        "sections": canonical_json_fast(to_wire(list(sections))),
        "records": records,
    }


def record_item(data: bytes, cid: str) -> bytes:
    """Return one member of the canonical ``records`` array: ``{"decision":...,"sha256":...}``."""
    return b'{"decision":' + data + b',"sha256":' + canonical_json_fast(cid) + b"}"


def json_head(project_id: str, as_of: int, digest: Digest | None) -> bytes:
    """Return the canonical report JSON up to the first record (``digest`` included if given).

    The members sort as ``as_of_sequence``, ``digest``, ``project_id``,
    ``records``, ``schema``, ``sections``, ``summary``: the records come
    before the members built from them, so a report's JSON can be written, or
    hashed, a record at a time.
    """
    digest_member = (
        b'"digest":' + canonical_json_fast(to_wire(digest)) + b"," if digest is not None else b""
    )
    return (
        b'{"as_of_sequence":'
        + canonical_json_fast(as_of)
        + b","
        + digest_member
        + b'"project_id":'
        + canonical_json_fast(project_id)
        + b',"records":['
    )


def json_tail(summary: ReportSummary, sections: Sequence[ReportSection]) -> bytes:
    """Return the canonical report JSON after its records: ``schema``, ``sections``, ``summary``."""
    return (
        b'],"schema":'
        + canonical_json_fast(REPORT_SCHEMA)
        + b',"sections":'
        + canonical_json_fast(to_wire(list(sections)))
        + b',"summary":'
        + canonical_json_fast(to_wire(summary))
        + b"}"
    )


def canonical_report(report: Report, *, with_digest: bool = True) -> bytes:
    """Return the RFC 8785 bytes of a report (without ``digest`` when asked)."""
    records = records_array(
        (record_bytes(record.decision), record.sha256) for record in report.records
    )
    members = body_members(
        report.project_id, report.as_of_sequence, report.summary, report.sections, records
    )
    if with_digest:
        members["digest"] = canonical_json_fast(to_wire(report.digest))
    return join_object(members)
