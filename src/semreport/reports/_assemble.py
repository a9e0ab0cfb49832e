"""Report assembly: a pure function of Decision Memory as of a sequence number.

Nothing here writes to memory or runs an agent: the only input is the
read-only :class:`~semreport.DecisionMemory` port (``records`` is all it
calls: each stored record comes with its canonical bytes, so none is encoded
again). No clock is read; the same records give byte-identical output.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence

import attrs

from semreport.canonical import record_bytes
from semreport.domain import (
    CorruptStorage,
    Decision,
    DecisionDomain,
    DecisionMemory,
    DecisionStatus,
    EvidenceKind,
    FrozenDict,
    InvalidRequest,
    StoredRecord,
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
    json_head,
    json_tail,
    record_item,
)
from semreport.wire import from_wire

__all__ = [
    "BuiltReport",
    "ReportBuilder",
    "ReportParts",
    "assemble_built",
    "assemble_report",
    "build_report",
    "decision_of",
    "leaf_hashes",
    "report_parts",
]

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


def _chains(supersedes: dict[str, tuple[str, ...]], known: set[str]) -> list[SupersessionChain]:
    """Resolve ``supersedes`` links into chains, oldest first, newest last.

    Args:
        supersedes: For each decision with ``supersedes`` links, in sequence
            order, the ids it supersedes.
        known: The ids of every decision of the report.
    """
    superseded = {target for targets in supersedes.values() for target in targets}
    heads = [node for node in supersedes if node not in superseded]
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
    for node in supersedes:
        if node not in covered:
            walk(node, [node])
    return chains


class _Evidence:
    """One domain's evidence index, built a decision at a time."""

    def __init__(self) -> None:
        self.titles: dict[tuple[EvidenceKind, str], str] = {}
        self.cited: dict[tuple[EvidenceKind, str], list[str]] = {}

    def add(self, decision: Decision) -> None:
        for item in decision.evidence:
            key = (item.kind, item.ref)
            if not self.titles.get(key):
                self.titles[key] = item.title
            ids = self.cited.setdefault(key, [])
            if not ids or ids[-1] != decision.id:
                ids.append(decision.id)

    def entries(self) -> tuple[EvidenceEntry, ...]:
        keys = sorted(self.cited, key=lambda key: (_EVIDENCE_ORDER[key[0]], key[1]))
        return tuple(
            EvidenceEntry(
                kind=key[0], ref=key[1], title=self.titles[key], cited_by=tuple(self.cited[key])
            )
            for key in keys
        )


class _Domain:
    """What a section needs of one domain's decisions, gathered in sequence order."""

    def __init__(self) -> None:
        self.decisions = 0
        self.accepted: list[ReportEntry] = []
        self.proposed: list[ReportEntry] = []
        self.evidence = _Evidence()


@attrs.frozen
class ReportParts:
    """Everything a report holds but its records, from one pass over them.

    Attributes:
        project_id: The project.
        as_of_sequence: The last sequence number the report includes.
        summary: Counts by domain, status and agent.
        sections: One per domain holding decisions.
        digest: The record digest.
        superseded: Ids that a decision of the report supersedes.
        supersedes: For each decision with ``supersedes`` links, in sequence
            order, the ids it supersedes.
        json_tail: The canonical report JSON after its records.
        leaves: The RFC 6962 leaf hashes of the records, in order.
        record_bytes: The total length of the records' canonical bytes.
    """

    project_id: str
    as_of_sequence: int
    summary: ReportSummary
    sections: tuple[ReportSection, ...]
    digest: Digest
    superseded: frozenset[str]
    supersedes: Mapping[str, tuple[str, ...]]
    json_tail: bytes
    leaves: tuple[bytes, ...]
    record_bytes: int


class ReportBuilder:
    """Builds a report's parts from its records, one record at a time, in sequence order.

    Only what the report needs beyond the records is kept (ids, section
    entries, evidence, leaf hashes), so a report can be assembled, and its
    digest computed, without holding every decision at once. The report
    hash is computed as the records arrive, which is why the sequence number
    the report is as of is known beforehand.

    Args:
        project_id: The project.
        as_of: The sequence number of the last record that will be added
            (0 for no record).
    """

    def __init__(self, project_id: str, as_of: int) -> None:
        self._project_id = project_id
        self._as_of = as_of
        self._seen: set[str] = set()
        self._previous = 0
        self._domains: dict[DecisionDomain, _Domain] = {}
        self._by_domain: Counter[str] = Counter()
        self._by_status: Counter[str] = Counter()
        self._by_agent: Counter[str] = Counter()
        self._supersedes: dict[str, tuple[str, ...]] = {}
        self._head_domain: dict[str, DecisionDomain] = {}
        self._leaves: list[bytes] = []
        self._size = 0
        self._hash = hashlib.sha256(json_head(project_id, as_of, None))

    @property
    def count(self) -> int:
        """How many records were added."""
        return len(self._leaves)

    def add(self, decision: Decision, data: bytes | None = None) -> str:
        """Add the next record and return its citation id.

        Args:
            decision: The recorded decision.
            data: Its record bytes when already known (else computed).

        Raises:
            InvalidRequest: the decision is unrecorded, belongs to another
                project, repeats an id, or does not follow the previous one.
        """
        self._check(decision)
        data = data if data is not None else record_bytes(decision)
        cid = citation_id(data)
        self._leaves.append(leaf_hash(data))
        self._size += len(data)
        if len(self._leaves) > 1:
            self._hash.update(b",")
        self._hash.update(record_item(data, cid))
        self._by_domain[decision.domain.value] += 1
        self._by_status[decision.status.value] += 1
        self._by_agent[decision.agent] += 1
        if decision.supersedes:
            self._supersedes[decision.id] = decision.supersedes
            self._head_domain[decision.id] = decision.domain
        part = self._domains.get(decision.domain)
        if part is None:
            part = self._domains[decision.domain] = _Domain()
        part.decisions += 1
        if decision.status is DecisionStatus.ACCEPTED:
            part.accepted.append(_entry(decision, cid))
        elif decision.status is DecisionStatus.PROPOSED:
            part.proposed.append(_entry(decision, cid))
        part.evidence.add(decision)
        return cid

    def _check(self, decision: Decision) -> None:
        where = f"$.records[{len(self._leaves)}]"
        if decision.sequence is None:
            raise InvalidRequest.at(where, f"decision {decision.id!r} has not been recorded")
        if decision.project_id != self._project_id:
            raise InvalidRequest.at(
                where, f"decision {decision.id!r} belongs to project {decision.project_id!r}"
            )
        if decision.sequence <= self._previous or decision.id in self._seen:
            raise InvalidRequest.at(
                where, f"decision {decision.id!r} repeats a sequence number or an id"
            )
        if decision.sequence > self._as_of:
            raise InvalidRequest.at(
                where, f"decision {decision.id!r} comes after sequence {self._as_of}"
            )
        self._previous = decision.sequence
        self._seen.add(decision.id)

    def finish(self) -> ReportParts:
        """Return the report's parts, once every record is added.

        Raises:
            InvalidRequest: the last record added is not the one at the
                sequence number the report is as of.
        """
        if self._previous != self._as_of:
            raise InvalidRequest.at(
                "$.as_of_sequence",
                f"the records end at sequence {self._previous}, not {self._as_of}",
            )
        superseded = {target for targets in self._supersedes.values() for target in targets}
        summary = ReportSummary(
            decisions=len(self._leaves),
            superseded=len(self._seen & superseded),
            by_domain=_counts(self._by_domain, [m.value for m in DecisionDomain]),
            by_status=_counts(self._by_status, [m.value for m in DecisionStatus]),
            by_agent=_counts(self._by_agent, []),
        )
        chains = _chains(self._supersedes, self._seen)
        sections: list[ReportSection] = []
        for domain in DecisionDomain:
            part = self._domains.get(domain)
            if part is None:
                continue
            sections.append(
                ReportSection(
                    domain=domain,
                    decisions=part.decisions,
                    current=tuple(e for e in part.accepted if e.id not in superseded),
                    open_proposals=tuple(e for e in part.proposed if e.id not in superseded),
                    supersession_chains=tuple(
                        c for c in chains if self._head_domain.get(c.decisions[-1]) is domain
                    ),
                    evidence=part.evidence.entries(),
                )
            )
        tail = json_tail(summary, sections)
        body_hash = self._hash.copy()
        body_hash.update(tail)
        digest = Digest(
            scheme=DIGEST_SCHEME,
            records=len(self._leaves),
            as_of_sequence=self._as_of,
            records_root=root_of_leaves(self._leaves).hex(),
            report_sha256=body_hash.hexdigest(),
        )
        return ReportParts(
            project_id=self._project_id,
            as_of_sequence=self._as_of,
            summary=summary,
            sections=tuple(sections),
            digest=digest,
            superseded=frozenset(superseded),
            supersedes=self._supersedes,
            json_tail=tail,
            leaves=tuple(self._leaves),
            record_bytes=self._size,
        )


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
    as_of = max((d.sequence or 0 for d in ordered), default=0)
    builder = ReportBuilder(project_id, as_of)
    records: list[ReportRecord] = []
    for position, decision in enumerate(ordered):
        given = record_data[position] if record_data is not None else None
        records.append(ReportRecord(sha256=builder.add(decision, given), decision=decision))
    parts = builder.finish()
    report = Report(
        schema=REPORT_SCHEMA,
        project_id=project_id,
        as_of_sequence=as_of,
        summary=parts.summary,
        sections=parts.sections,
        records=tuple(records),
        digest=parts.digest,
    )
    return BuiltReport(report=report, leaves=parts.leaves, record_bytes=parts.record_bytes)


def _counts(counted: Counter[str], every: Sequence[str]) -> FrozenDict[str, int]:
    names = list(every) + sorted(set(counted) - set(every))
    return FrozenDict({name: counted.get(name, 0) for name in names})


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
    stored = list(memory.records(project_id, as_of=as_of))
    decisions = [decision_of(record, project_id) for record in stored]
    return _build(project_id, decisions, [record.canonical for record in stored])


def decision_of(record: StoredRecord, project_id: str) -> Decision:
    """The decision a stored record holds (the wire converter, every validator).

    Raises:
        CorruptStorage: the record is not a valid decision (written by a
            version of semreport that accepted what this one refuses).
    """
    try:
        return from_wire(record.wire, Decision)
    except InvalidRequest as exc:
        raise CorruptStorage(
            f"the stored record of project {project_id!r} at sequence {record.sequence} is not "
            "a valid decision: " + "; ".join(str(error) for error in exc.errors)
        ) from None


def report_parts(
    memory: DecisionMemory,
    project_id: str,
    as_of: int,
    *,
    also: Callable[[Decision], None] | None = None,
) -> ReportParts:
    """Build a report's parts in one pass over Decision Memory, holding no decision after use.

    Args:
        memory: The read-only Decision Memory port.
        project_id: The project.
        as_of: The sequence number the report is as of: at most the latest,
            so that the log holds every record up to it.
        also: Called with each decision after it is added (to gather more
            in the same pass).

    Raises:
        CorruptStorage: the log does not hold exactly the records up to ``as_of``.
    """
    builder = ReportBuilder(project_id, as_of)
    try:
        for record in memory.records(project_id, as_of=as_of):
            decision = decision_of(record, project_id)
            builder.add(decision, record.canonical)
            if also is not None:
                also(decision)
        return builder.finish()
    except InvalidRequest as exc:
        raise CorruptStorage(
            f"the stored log of project {project_id!r} is not a valid report source: "
            + "; ".join(str(error) for error in exc.errors)
        ) from None


def leaf_hashes(report: Report) -> list[bytes]:
    """Return the RFC 6962 leaf hashes of a report's records, in order."""
    return [leaf_hash(record_bytes(record.decision)) for record in report.records]
