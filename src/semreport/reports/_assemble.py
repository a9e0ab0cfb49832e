"""Report assembly: a pure function of Decision Memory as of a sequence number.

Nothing here writes to memory or runs an agent: the only input is the
read-only :class:`~semreport.DecisionMemory` port (``decisions`` is all it
calls). No clock is read; the same records give byte-identical output.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Sequence

import attrs

from semreport.canonical import record_bytes
from semreport.domain import (
    Decision,
    DecisionDomain,
    DecisionMemory,
    DecisionStatus,
    EvidenceKind,
    FrozenDict,
    InvalidRequest,
)
from semreport.reports._digest import (
    DIGEST_SCHEME,
    Digest,
    citation_id,
    leaf_hash,
    root_of_leaves,
)
from semreport.reports._model import (
    REPORT_SCHEMA,
    EvidenceEntry,
    Report,
    ReportEntry,
    ReportRecord,
    ReportSection,
    ReportSummary,
    SupersessionChain,
    body_members,
    join_object,
    records_array,
)

__all__ = ["BuiltReport", "assemble_built", "assemble_report", "build_report", "leaf_hashes"]

_EVIDENCE_ORDER = {kind: position for position, kind in enumerate(EvidenceKind)}


def _entry(decision: Decision, cid: str) -> ReportEntry:
    assert decision.sequence is not None
    return ReportEntry(
        id=decision.id,
        sequence=decision.sequence,
        title=decision.title,
        agent=decision.agent,
        status=decision.status,
        sha256=cid,
    )


def _chains(decisions: Sequence[Decision]) -> list[SupersessionChain]:
    """Resolve ``supersedes`` links into chains, oldest first, newest last."""
    known = {d.id for d in decisions}
    supersedes = {d.id: d.supersedes for d in decisions if d.supersedes}
    superseded = {target for targets in supersedes.values() for target in targets}
    heads = [d.id for d in decisions if d.id in supersedes and d.id not in superseded]
    chains: list[SupersessionChain] = []
    covered: set[str] = set()

    def walk(node: str, path: list[str]) -> None:
        covered.add(node)
        older = [t for t in supersedes.get(node, ()) if t not in path]
        if not older:
            ids = tuple(reversed(path))
            chains.append(
                SupersessionChain(decisions=ids, unresolved=tuple(i for i in ids if i not in known))
            )
            return
        for target in older:
            walk(target, [*path, target])

    for head in heads:
        walk(head, [head])
    # Decisions caught in a supersession cycle have no head: start at the earliest.
    for decision in decisions:
        if decision.id in supersedes and decision.id not in covered:
            walk(decision.id, [decision.id])
    return chains


def _evidence(decisions: Sequence[Decision]) -> list[EvidenceEntry]:
    titles: dict[tuple[EvidenceKind, str], str] = {}
    cited: dict[tuple[EvidenceKind, str], list[str]] = {}
    for decision in decisions:
        for item in decision.evidence:
            key = (item.kind, item.ref)
            if not titles.get(key):
                titles[key] = item.title
            ids = cited.setdefault(key, [])
            if not ids or ids[-1] != decision.id:
                ids.append(decision.id)
    keys = sorted(cited, key=lambda key: (_EVIDENCE_ORDER[key[0]], key[1]))
    return [
        EvidenceEntry(kind=key[0], ref=key[1], title=titles[key], cited_by=tuple(cited[key]))
        for key in keys
    ]


@attrs.frozen
class BuiltReport:
    """A report with what building it learnt: its leaf hashes and the size of its records.

    Attributes:
        report: The report.
        leaves: The RFC 6962 leaf hashes of its records, in order (what an
            inclusion proof needs).
        record_bytes: The total length of the records' canonical bytes.
    """

    report: Report
    leaves: tuple[bytes, ...]
    record_bytes: int

    @property
    def estimated_size(self) -> int:
        """About how many bytes the report holds in memory.

        Measured at about 2.5 times its record bytes (the decisions as
        objects, the sections and the citation ids), plus the leaf hashes.
        """
        return 3 * self.record_bytes + 100 * len(self.leaves) + 4096


def build_report(
    project_id: str,
    decisions: Sequence[Decision],
    *,
    record_data: Sequence[bytes | None] | None = None,
) -> Report:
    """Assemble a report from a project's recorded decisions (any order; sorted by sequence).

    This is the pure core of :func:`assemble_report`; the decisions are taken
    as given.

    Args:
        project_id: The project.
        decisions: Its recorded decisions.
        record_data: The decisions' record bytes, in sequence order, when the
            caller already holds them (verification hashes what it was given).

    Raises:
        InvalidRequest: a decision is unrecorded, belongs to another project,
            or two decisions share a sequence number or an id.
    """
    return _build(project_id, decisions, record_data).report


def _build(
    project_id: str, decisions: Sequence[Decision], record_data: Sequence[bytes | None] | None
) -> BuiltReport:
    ordered = sorted(decisions, key=lambda d: d.sequence or 0)
    _check_records(project_id, ordered)
    datas: list[bytes] = []
    cids: list[str] = []
    for position, decision in enumerate(ordered):
        given = record_data[position] if record_data is not None else None
        data = given if given is not None else record_bytes(decision)
        datas.append(data)
        cids.append(citation_id(data))
    as_of = ordered[-1].sequence or 0 if ordered else 0

    superseded = {target for d in ordered for target in d.supersedes}
    summary = ReportSummary(
        decisions=len(ordered),
        superseded=sum(1 for d in ordered if d.id in superseded),
        by_domain=_counts((d.domain.value for d in ordered), [m.value for m in DecisionDomain]),
        by_status=_counts((d.status.value for d in ordered), [m.value for m in DecisionStatus]),
        by_agent=_counts((d.agent for d in ordered), []),
    )
    cid_of = {d.id: cid for d, cid in zip(ordered, cids, strict=True)}
    domain_of = {d.id: d.domain for d in ordered}
    chains = _chains(ordered)
    sections: list[ReportSection] = []
    for domain in DecisionDomain:
        members = [d for d in ordered if d.domain is domain]
        if not members:
            continue
        live = [d for d in members if d.id not in superseded]
        sections.append(
            ReportSection(
                domain=domain,
                decisions=len(members),
                current=tuple(
                    _entry(d, cid_of[d.id]) for d in live if d.status is DecisionStatus.ACCEPTED
                ),
                open_proposals=tuple(
                    _entry(d, cid_of[d.id]) for d in live if d.status is DecisionStatus.PROPOSED
                ),
                supersession_chains=tuple(
                    c for c in chains if domain_of.get(c.decisions[-1]) is domain
                ),
                evidence=tuple(_evidence(members)),
            )
        )
    records_json = records_array(zip(datas, cids, strict=True))
    body = join_object(body_members(project_id, as_of, summary, sections, records_json))
    leaves = tuple(leaf_hash(data) for data in datas)
    digest = Digest(
        scheme=DIGEST_SCHEME,
        records=len(ordered),
        as_of_sequence=as_of,
        records_root=root_of_leaves(leaves).hex(),
        report_sha256=hashlib.sha256(body).hexdigest(),
    )
    report = Report(
        schema=REPORT_SCHEMA,
        project_id=project_id,
        as_of_sequence=as_of,
        summary=summary,
        sections=tuple(sections),
        records=tuple(
            ReportRecord(sha256=cid, decision=d) for d, cid in zip(ordered, cids, strict=True)
        ),
        digest=digest,
    )
    return BuiltReport(report=report, leaves=leaves, record_bytes=sum(map(len, datas)))


def _counts(values: Iterable[str], every: Sequence[str]) -> FrozenDict[str, int]:
    counted = Counter(values)
    names = list(every) + sorted(set(counted) - set(every))
    return FrozenDict({name: counted.get(name, 0) for name in names})


def _check_records(project_id: str, ordered: Sequence[Decision]) -> None:
    seen: set[str] = set()
    previous = 0
    for position, decision in enumerate(ordered):
        where = f"$.records[{position}]"
        if decision.sequence is None:
            raise InvalidRequest.at(where, f"decision {decision.id!r} has not been recorded")
        if decision.project_id != project_id:
            raise InvalidRequest.at(
                where, f"decision {decision.id!r} belongs to project {decision.project_id!r}"
            )
        if decision.sequence == previous or decision.id in seen:
            raise InvalidRequest.at(
                where, f"decision {decision.id!r} repeats a sequence number or an id"
            )
        previous = decision.sequence
        seen.add(decision.id)


def assemble_report(memory: DecisionMemory, project_id: str, *, as_of: int | None = None) -> Report:
    """Assemble a project's report from Decision Memory as of a sequence number.

    Args:
        memory: The read-only Decision Memory port.
        project_id: The project.
        as_of: The last sequence number to include; the latest by default.

    Returns:
        The report; a project without decisions gives an empty report.
    """
    return assemble_built(memory, project_id, as_of=as_of).report


def assemble_built(
    memory: DecisionMemory, project_id: str, *, as_of: int | None = None
) -> BuiltReport:
    """Assemble a report as :func:`assemble_report` does, with its leaf hashes and size."""
    return _build(project_id, list(memory.decisions(project_id, as_of=as_of)), None)


def leaf_hashes(report: Report) -> list[bytes]:
    """Return the RFC 6962 leaf hashes of a report's records, in order."""
    return [leaf_hash(record_bytes(record.decision)) for record in report.records]
