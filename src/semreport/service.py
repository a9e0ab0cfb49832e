"""The facade: one method per use case, each checked against its contract row.

:func:`open` is the composition root: it turns a storage URL into adapters
and wires them into a :class:`SemReport`. Every use case runs for a caller
(:class:`~semreport.Principal`); notebooks get a local caller with both roles
and every project, services pass the authenticated one.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Final, NoReturn, TypeVar

import attrs

from semreport._checked import checked_decision
from semreport._ingest import IngestProgress, IngestResult, Pipeline, plan_sources
from semreport.contract import CONTRACT, endpoint
from semreport.domain import (
    Catalogue,
    CatalogueProfileMatchingNotConfigured,
    Decision,
    DecisionDetail,
    DecisionMemory,
    DecisionNotFound,
    FieldError,
    Forbidden,
    FrozenDict,
    GnnModelNotLoaded,
    IncomingLink,
    InferenceModel,
    InvalidRequest,
    LegacySession,
    ModelStatus,
    Principal,
    ProjectNotFound,
    ProjectSummary,
    ReferenceEmbedNotAvailable,
    Role,
    SessionNotFound,
    SessionSummary,
    Storage,
    Unauthenticated,
)
from semreport.domain._limits import (
    MAX_BATCH_DECISIONS,
    MAX_BATCH_SESSIONS,
    MAX_DECISION_BYTES,
    count_problems,
)
from semreport.domain._values import InvalidValue, check_identifier, format_path, json_kind
from semreport.exports import (
    SessionExport,
    SessionImport,
    SessionImportProblem,
    check_export_format,
    export_legacy_session,
)
from semreport.gnn import NullGNN
from semreport.reports import (
    CacheInfo,
    InclusionProof,
    Report,
    ReportExport,
    ReportStream,
    render_html,
)
from semreport.reports._assemble import BuiltReport, assemble_built
from semreport.reports._cache import DEFAULT_REPORT_CACHE_BYTES, BuildCache
from semreport.reports._html import library_version
from semreport.reports._proof import inclusion_proof
from semreport.reports._stream import stream_from_memory, stream_from_report
from semreport.search import (
    Criteria,
    Exemplar,
    HeuristicScorer,
    SearchResult,
    SearchScorer,
    SignalCatalogue,
    parse_criteria,
    parse_exemplar,
)
from semreport.storage import open_storage
from semreport.wire import dumps, from_wire, to_wire

__all__ = ["Capabilities", "SemReport", "open"]

T = TypeVar("T")

PLANNED_REFERENCE_DOMAINS: Final = ("regulation", "material", "cost", "lifecycle")
"""The domains reference embedding is planned for."""

# Never names the project: a caller without a grant learns nothing about it, not
# even whether it exists (the answer is the same for every project it may not read).
_FORBIDDEN: Final = "the caller has no grant for the project or lacks the {role!r} role"


@attrs.frozen
class Capabilities:
    """What the facade offers right now.

    Attributes:
        capabilities: Each capability of the contract, and whether it is live.
        model_inference: Whether a learned model serves inference. ``False``
            while the GNN slot holds no trained checkpoint.
        model: The GNN slot's status.
    """

    capabilities: FrozenDict[str, bool]
    model_inference: bool
    model: ModelStatus

    def __contains__(self, name: object) -> bool:
        return bool(self.capabilities.get(name)) if isinstance(name, str) else False


class SemReport:
    """The library's facade; build one with :func:`semreport.open`.

    Thread safety: one facade may serve several threads at once. The read
    methods (``signals``, ``find``, ``similar``, ``report``, ``export_report``,
    ``prove``, ``export_session``, ``gnn_status``, ``decision``,
    ``decisions``, ``decision_detail``, ``latest_sequence``, ``projects``,
    ``sessions``, ``session``, ``capabilities`` and the reserved rows) hold no
    state of their own between calls; the scorer's per-project index is
    updated under its lock and read from immutable snapshots, and every
    storage adapter shipped serialises its own connection use (SQLite and
    memory behind a lock, PostgreSQL through its pool). ``record``,
    ``record_sessions`` and ``ingest`` may run beside the reads (each append
    is one transaction); ``close`` must be the last call.

    Args:
        storage: The storage adapter (every storage port).
        caller: The default caller for methods called without ``caller=``;
            ``None`` makes every call name its caller.
        model: The GNN slot (:class:`~semreport.gnn.NullGNN` by default).
        catalogue: A manufacturer catalogue; without one, catalogue matching
            answers ``CATALOGUE_PROFILE_MATCHING_NOT_CONFIGURED``.
        scorer: The search scorer; :class:`~semreport.search.HeuristicScorer` by default.
        report_cache_bytes: The memory budget of the report cache (see
            :meth:`cache_info`); ``0`` keeps no report.

    The report methods (:meth:`report`, :meth:`export_report`,
    :meth:`stream_report`, :meth:`prove`, :meth:`cache_info`) are safe to call
    from several threads at once.
    """

    def __init__(
        self,
        storage: Storage,
        *,
        caller: Principal | None,
        model: InferenceModel | None = None,
        catalogue: Catalogue | None = None,
        scorer: SearchScorer | None = None,
        report_cache_bytes: int = DEFAULT_REPORT_CACHE_BYTES,
    ) -> None:
        self._storage = storage
        self._caller = caller
        self._model: InferenceModel = model if model is not None else NullGNN()
        self._catalogue = catalogue
        # Built here, not on first use: threads serving reads at once must all share one
        # scorer (its index, and the key that signs its cursors).
        self._scorer: SearchScorer = scorer if scorer is not None else HeuristicScorer()
        self._reports = _report_cache(report_cache_bytes)

    def __repr__(self) -> str:
        return f"SemReport(storage={self._storage!r})"

    def __enter__(self) -> SemReport:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the storage."""
        self._storage.close()

    @property
    def storage(self) -> Storage:
        """The storage adapter behind the facade (every storage port)."""
        return self._storage

    # -- authorisation -----------------------------------------------------------

    def _caller_or_fail(self, caller: Principal | None) -> Principal:
        who = caller if caller is not None else self._caller
        if who is None:
            raise Unauthenticated("this call needs a caller (a Principal); none was given")
        if not isinstance(who, Principal):
            raise Unauthenticated(f"the caller must be a Principal, got {type(who).__name__}")
        return who

    def _require(
        self, caller: Principal | None, role: Role, projects: Iterable[str] = ()
    ) -> Principal:
        who = self._caller_or_fail(caller)
        for project in projects:
            if not (who.has_role(role) and who.may_read(project)):
                raise Forbidden(_FORBIDDEN.format(role=role.value))
        if not who.has_role(role):
            raise Forbidden(f"the caller lacks the {role.value!r} role")
        return who

    def _authorize(
        self, operation: str, caller: Principal | None, project_id: str | None = None
    ) -> Principal:
        """Check ``caller`` against the contract row served by ``operation``."""
        row = endpoint(operation)
        projects = [project_id] if row.project_scoped and project_id is not None else []
        return self._require(caller, row.auth.role, projects)

    # -- Decision Memory (library API; not part of the HTTP contract) ---------------

    def record(
        self,
        decisions: Iterable[Decision | Mapping[str, Any]],
        *,
        caller: Principal | None = None,
    ) -> list[Decision]:
        """Append decisions to Decision Memory in one transaction.

        Args:
            decisions: :class:`~semreport.Decision` objects or their wire-form
                mappings; ``sequence`` and ``recorded_at`` are assigned by the log.
            caller: Needs the ``user`` role and a grant for every project in the batch.

        Returns:
            The stored decisions, with their sequences, in batch order.

        Raises:
            InvalidRequest: a decision is malformed (every bad field is listed).
            DecisionAlreadyRecorded: an id is already stored or repeated; nothing is written.
        """
        batch = _structure_batch(decisions, Decision, MAX_BATCH_DECISIONS, _check_decision)
        self._require(caller, Role.USER, sorted({d.project_id for d in batch}))
        return self._storage.record(batch)

    def decision(
        self, project_id: str, decision_id: str, *, caller: Principal | None = None
    ) -> Decision:
        """Return one decision of a project.

        Raises:
            DecisionNotFound: the project has no decision with that id.
        """
        _check_ids(project_id=project_id, decision_id=decision_id)
        self._require(caller, Role.USER, [project_id])
        return self._storage.get(project_id, decision_id)

    def decisions(
        self, project_id: str, *, as_of: int | None = None, caller: Principal | None = None
    ) -> list[Decision]:
        """Return a project's decisions in sequence order, as of a sequence number."""
        _check_ids(project_id=project_id)
        if as_of is not None and (isinstance(as_of, bool) or not isinstance(as_of, int)):
            raise InvalidRequest.at("$.as_of", "expected an integer sequence number")
        self._require(caller, Role.USER, [project_id])
        return list(self._storage.decisions(project_id, as_of=as_of))

    def latest_sequence(self, project_id: str, *, caller: Principal | None = None) -> int:
        """Return the project's highest sequence number (0 when it holds nothing)."""
        _check_ids(project_id=project_id)
        self._require(caller, Role.USER, [project_id])
        return self._storage.latest_sequence(project_id)

    def record_sessions(
        self,
        sessions: Iterable[LegacySession | Mapping[str, Any]],
        *,
        caller: Principal | None = None,
    ) -> list[LegacySession]:
        """Store legacy sessions (imports and tests) in one transaction.

        Raises:
            InvalidRequest: a session is malformed (every bad field is listed).
            SessionAlreadyRecorded: an id is already stored or repeated; nothing is written.
        """
        batch = _structure_batch(sessions, LegacySession, MAX_BATCH_SESSIONS, _check_session)
        self._require(caller, Role.USER, sorted({s.project_id for s in batch}))
        return self._storage.record_sessions(batch)

    def session(self, session_id: str, *, caller: Principal | None = None) -> LegacySession:
        """Return one legacy session; the caller needs a grant for its project.

        Raises:
            SessionNotFound: no session has that id, or it belongs to a project
                the caller may not read (the two are answered alike).
        """
        _check_ids(session_id=session_id)
        self._require(caller, Role.USER)
        return self._readable_session(session_id, caller)

    def _readable_session(self, session_id: str, caller: Principal | None) -> LegacySession:
        """Return a session the caller may read; any other is answered as missing.

        A session of a project the caller has no grant for gets the same
        ``SESSION_NOT_FOUND`` as a session that does not exist, so the answer
        says nothing about other projects, not even that the session exists.
        """
        who = self._caller_or_fail(caller)
        try:
            found = self._storage.get_session(session_id)
        except SessionNotFound:
            found = None
        if found is None or not who.may_read(found.project_id):
            raise SessionNotFound(f"no session {session_id!r} that the caller may read")
        return found

    # -- listing and showing (library and command line; not part of the HTTP contract) --

    def projects(self, *, caller: Principal | None = None) -> list[ProjectSummary]:
        """List the projects the caller may read, ordered by id, with their counts.

        A project is listed once it holds a decision or a legacy session; each
        summary gives its decision count, latest sequence and session count.

        Args:
            caller: Needs the ``user`` role; only the projects it holds a
                grant for are listed (the others are not even counted).
        """
        who = self._require(caller, Role.USER)
        return [p for p in self._storage.projects() if who.may_read(p.project_id)]

    def sessions(self, project_id: str, *, caller: Principal | None = None) -> list[SessionSummary]:
        """List a project's legacy sessions (ordered by start time, then id) without transcripts.

        Args:
            project_id: The project.
            caller: Needs the ``user`` role and a grant for the project.

        Raises:
            ProjectNotFound: the project holds neither decisions nor sessions.
        """
        _check_ids(project_id=project_id)
        self._require(caller, Role.USER, [project_id])
        if not self._storage.has_project(project_id):
            raise ProjectNotFound(f"project {project_id!r} holds no decisions and no sessions")
        return [SessionSummary.of(found) for found in self._storage.sessions(project_id)]

    def decision_detail(
        self, project_id: str, decision_id: str, *, caller: Principal | None = None
    ) -> DecisionDetail:
        """Return one decision with the links other decisions hold to it.

        The answer says whether the decision is superseded and by which
        decisions (:attr:`~semreport.DecisionDetail.superseded_by`), and gives
        the title of every decision linked either way.

        Raises:
            DecisionNotFound: the project has no decision with that id.
        """
        _check_ids(project_id=project_id, decision_id=decision_id)
        self._require(caller, Role.USER, [project_id])
        found = self._storage.get(project_id, decision_id)
        outgoing = {link.target for link in found.links}
        incoming: list[IncomingLink] = []
        titles: dict[str, str] = {}
        for other in self._storage.decisions(project_id):
            if other.id == found.id:
                continue
            if other.id in outgoing:
                titles[other.id] = other.title
            for link in other.links:
                if link.target == found.id:
                    incoming.append(IncomingLink(kind=link.kind, source=other.id))
                    titles[other.id] = other.title
        return DecisionDetail(decision=found, incoming=tuple(incoming), titles=FrozenDict(titles))

    # -- semantic search ---------------------------------------------------------------

    @property
    def scorer(self) -> SearchScorer:
        """The search scorer (it reads only Decision Memory)."""
        return self._scorer

    def _search_project(self, operation: str, project_id: str, caller: Principal | None) -> None:
        _check_ids(project_id=project_id)
        self._authorize(operation, caller, project_id)
        if self._storage.latest_sequence(project_id) == 0:
            raise ProjectNotFound(f"project {project_id!r} holds no decisions")

    def signals(self, project_id: str, *, caller: Principal | None = None) -> SignalCatalogue:
        """List the project's search signals with coverage, facet values and numeric ranges.

        Raises:
            ProjectNotFound: the project holds no decisions.
        """
        self._search_project("signals", project_id, caller)
        return self.scorer.signals(self._storage, project_id)

    def find(
        self,
        project_id: str,
        criteria: Criteria | Mapping[str, Any],
        *,
        caller: Principal | None = None,
    ) -> SearchResult:
        """Rank the project's decisions for criteria, with an explanation per hit.

        Args:
            project_id: The project to search.
            criteria: A :class:`~semreport.search.Criteria` or its wire form, e.g.
                ``{"text": "fire rated timber floor", "filters": {"domain": ["material"]},
                "limit": 10}``.
            caller: Needs the ``user`` role and a grant for the project.

        Raises:
            InvalidRequest: bad criteria (every bad field with its path), a tampered,
                foreign or expired cursor (``$.cursor``).
            ProjectNotFound: the project holds no decisions.
        """
        self._search_project("find", project_id, caller)
        checked = parse_criteria(criteria)
        return self.scorer.score(self._storage, project_id, checked)

    def similar(
        self,
        project_id: str,
        exemplar: Exemplar | Mapping[str, Any],
        *,
        caller: Principal | None = None,
    ) -> SearchResult:
        """Rank the project's decisions by resemblance to an exemplar (never among the hits).

        Args:
            project_id: The project to search.
            exemplar: An :class:`~semreport.search.Exemplar` or its wire form:
                ``{"decision_id": "d-42", "limit": 10}`` or ``{"decision": {...}}``.
            caller: Needs the ``user`` role and a grant for the project.

        Raises:
            InvalidRequest: a bad exemplar or cursor (with field paths).
            DecisionNotFound: ``decision_id`` is not a decision of the project.
            ProjectNotFound: the project holds no decisions.
        """
        self._search_project("similar", project_id, caller)
        checked = parse_exemplar(exemplar)
        return self.scorer.score(self._storage, project_id, checked)

    # -- reports: read Decision Memory only, through the read-only port -------------------

    def _as_of(self, project_id: str, as_of: int | None) -> int:
        """The sequence number a report as of ``as_of`` is built as of (never past the latest)."""
        memory: DecisionMemory = self._storage
        latest = memory.latest_sequence(project_id)
        if latest == 0:
            raise ProjectNotFound(f"project {project_id!r} has no decisions")
        return latest if as_of is None else min(as_of, latest)

    def _built(self, project_id: str, as_of: int | None) -> BuiltReport:
        """The report as of a sequence number, from the cache or built (once) and cached.

        The key is the sequence number the report is as of, never ``None``:
        Decision Memory is append-only, so that report never changes, and an
        append makes the next call without ``as_of`` ask for a new key.
        """
        at = self._as_of(project_id, as_of)
        memory: DecisionMemory = self._storage

        def build() -> tuple[BuiltReport, int]:
            built = assemble_built(memory, project_id, as_of=at)
            return built, built.estimated_size

        return self._reports.get_or_build((project_id, at), build)

    def cache_info(self) -> CacheInfo:
        """Return the report cache's statistics: hits, misses, evictions, entries, bytes.

        The cache holds reports by ``(project_id, as_of_sequence)`` within the
        budget given to :func:`semreport.open` (``report_cache_bytes``);
        :meth:`report`, :meth:`export_report`, :meth:`prove` and
        :meth:`stream_report` use it.
        """
        return self._reports.info()

    def report(
        self, project_id: str, *, as_of: int | None = None, caller: Principal | None = None
    ) -> Report:
        """Assemble a project's report from Decision Memory (``GET /projects/{id}/report``).

        The report is a pure function of the records as of ``as_of`` (the
        latest sequence by default): the same records give byte-identical
        JSON (:meth:`~semreport.reports.Report.to_json`) and the same digest.
        It is cached by ``(project_id, as_of_sequence)``: a second call on
        an unchanged project reuses it, and an append makes the next call
        build the new one. The caller is checked on every call, before the
        cache is consulted.

        Raises:
            ProjectNotFound: the project has no decisions.
        """
        _check_ids(project_id=project_id)
        _check_as_of(as_of)
        self._authorize("report", caller, project_id)
        return self._built(project_id, as_of).report

    def export_report(
        self, project_id: str, *, as_of: int | None = None, caller: Principal | None = None
    ) -> ReportExport:
        """Export the report as one self-contained HTML page plus its record digest.

        The page embeds the report JSON, so it is enough to verify the report
        with :func:`semreport.verify`; the export time is shown in the page
        but is not part of the hashed report. The report comes from the
        report cache (see :meth:`report`); the page is rendered again on
        every call, since it shows the export time. For large reports,
        :meth:`stream_report` writes the same page without holding it, or
        the report, in memory.

        Raises:
            ProjectNotFound: the project has no decisions.
        """
        _check_ids(project_id=project_id)
        _check_as_of(as_of)
        self._authorize("export_report", caller, project_id)
        built = self._built(project_id, as_of).report
        exported_at = datetime.now(UTC)
        page = render_html(built, exported_at=exported_at, version=library_version())
        return ReportExport(html=page, digest=built.digest, report=built, exported_at=exported_at)

    def stream_report(
        self, project_id: str, *, as_of: int | None = None, caller: Principal | None = None
    ) -> ReportStream:
        """Export the report's HTML page as a stream of chunks, in bounded memory.

        The page is the one :meth:`export_report` renders (the same bytes for
        the same export time). When the report is in the report cache, the
        page is rendered from it; otherwise Decision Memory is read in passes
        as of one sequence number, holding one record at a time, and the
        report is not cached. The caller, the project and the first pass
        (which gives the digest) are checked here, before any chunk.

        Args:
            project_id: The project.
            as_of: The last sequence number to include; the latest by default.
            caller: Needs the ``user`` role and a grant for the project.

        Returns:
            A :class:`~semreport.reports.ReportStream`: iterate it for
            ``bytes`` chunks, or call its ``write_to(fp)``.

        Raises:
            ProjectNotFound: the project has no decisions.
            CorruptStorage: a stored record is damaged (found in the first pass
                here, or while streaming if it changes between passes).
        """
        _check_ids(project_id=project_id)
        _check_as_of(as_of)
        self._authorize("export_report", caller, project_id)
        at = self._as_of(project_id, as_of)
        exported_at = datetime.now(UTC)
        version = library_version()
        cached = self._reports.get((project_id, at))
        if cached is not None:
            return stream_from_report(cached.report, exported_at=exported_at, version=version)
        return stream_from_memory(
            self._storage, project_id, at, exported_at=exported_at, version=version
        )

    def prove(
        self,
        project_id: str,
        decision_id: str,
        *,
        as_of: int | None = None,
        caller: Principal | None = None,
    ) -> InclusionProof:
        """Return the inclusion proof (audit path) of one decision cited by the report.

        Check it with :func:`semreport.reports.check_inclusion` against the
        ``records_root`` of the report you hold. The report and its leaf
        hashes come from the report cache (see :meth:`report`).

        Raises:
            ProjectNotFound: the project has no decisions.
            DecisionNotFound: the report cites no decision with that id.
        """
        _check_ids(project_id=project_id, decision_id=decision_id)
        _check_as_of(as_of)
        self._authorize("report", caller, project_id)
        built = self._built(project_id, as_of)
        return inclusion_proof(built.report, decision_id, built.leaves)

    # -- legacy session export and import ----------------------------------------------

    def export_session(
        self,
        session_id: str,
        fmt: str,
        *,
        caller: Principal | None = None,
        graph_format: str = "node-link",
    ) -> SessionExport:
        """Export a legacy session (``POST /sessions/{session_id}/export/{fmt}``).

        The checks run in this order: the session id's syntax
        (``INVALID_REQUEST``), the caller and its ``user`` role
        (``UNAUTHENTICATED``, ``FORBIDDEN``), the format
        (``UNSUPPORTED_EXPORT_FORMAT``), then the session is looked up. A
        session that does not exist and a session of a project the caller
        has no grant for get the same ``SESSION_NOT_FOUND``, so the answer
        reveals neither the session nor its project. The format is checked
        before the look-up so that a request that cannot succeed touches no
        storage.

        Args:
            session_id: The session.
            fmt: Exactly ``json``, ``pdf`` or ``graph``.
            caller: Needs the ``user`` role and a grant for the session's project.
            graph_format: For ``graph``: ``node-link`` (networkx node-link
                JSON, the default) or ``graphml``.

        Returns:
            The document's bytes, media type and a suggested file name.

        Raises:
            UnsupportedExportFormat: ``fmt`` or ``graph_format`` is not allowed.
            SessionNotFound: no session has that id, or the caller may not read it.
            MissingExtra: ``pdf`` without the ``pdf`` extra installed.
        """
        _check_ids(session_id=session_id)
        self._authorize("export_session", caller)
        check_export_format(fmt, graph_format)
        found = self._readable_session(session_id, caller)
        return export_legacy_session(found, fmt, memory=self._storage, graph_format=graph_format)

    def ingest(
        self,
        paths: Sequence[str | os.PathLike[str]],
        *,
        kind: str = "auto",
        recursive: bool = True,
        batch_size: int = 500,
        skip_existing: bool = False,
        all_or_nothing: bool = False,
        dry_run: bool = False,
        stdin: Iterable[str] | None = None,
        progress: Callable[[IngestProgress], None] | None = None,
        caller: Principal | None = None,
    ) -> IngestResult:
        """Record decisions (JSON Lines) and legacy sessions (JSON) from files.

        A ``.jsonl`` (or ``.ndjson``) file holds one decision per line in the
        wire form; a ``.json`` file holds one legacy session (plain or in its
        ``semreport.session/1`` export envelope) or an array of them; a
        directory contributes all such files; ``-`` reads decisions (or, with
        ``kind="sessions"``, sessions) from ``stdin``.

        Everything is checked before anything is written. Each bad line, file
        or array item is an :class:`~semreport.IngestProblem` with its place
        and reason, and so are ids repeated in the input, ids already stored,
        and records of projects the caller has no grant for. The good records
        are then written in batches of ``batch_size``, each batch in one
        transaction, decisions first.

        Args:
            paths: Files, directories or ``-``.
            kind: ``auto`` (by file name ending), ``decisions`` or ``sessions``.
            recursive: Whether directories contribute their subdirectories' files.
            batch_size: Records per transaction (1 to 10,000; sessions go in
                batches of at most 1,000).
            skip_existing: Count a record already stored with the same content
                (same id, same fields) instead of reporting it; the same id with
                other content is still a problem.
            all_or_nothing: Write nothing at all if any input is bad.
            dry_run: Check everything, write nothing.
            stdin: The lines ``-`` reads.
            progress: Called as the work advances, counting records.
            caller: Needs the ``user`` role, and a grant for each record's project.

        Returns:
            The counts, the problems, and whether anything was written.

        Raises:
            InvalidRequest: a path does not exist or its kind cannot be told, a
                bad option, or ``-`` without ``stdin``.
            SemReportError: the storage refused a batch; the batches before it
                stay recorded (``progress`` has counted them).
        """
        who = self._require(caller, Role.USER)
        if isinstance(batch_size, bool) or not isinstance(batch_size, int):
            raise InvalidRequest.at("$.batch_size", "expected an integer")
        if not 1 <= batch_size <= MAX_BATCH_DECISIONS:
            raise InvalidRequest.at(
                "$.batch_size", f"expected 1 to {MAX_BATCH_DECISIONS}, got {batch_size}"
            )
        sources = plan_sources(paths, kind, recursive=recursive)
        if stdin is None and any(source.path == "-" for source in sources):
            raise InvalidRequest.at("$.stdin", "'-' reads standard input; none was given")
        work = Pipeline(
            may_write=who.may_read,
            check_decision=_limit_problem,
            stored_decision=self._stored_decision,
            stored_session=self._stored_session,
            record_decisions=lambda batch: len(self.record(batch, caller=who)),
            record_sessions=lambda batch: len(self.record_sessions(batch, caller=who)),
            forbidden=_FORBIDDEN.format(role=Role.USER.value),
            skip_existing=skip_existing,
            progress=progress,
        )
        for source in sources:
            work.read(source, stdin)
        work.check_stored()
        order = {source.path: position for position, source in enumerate(sources)}
        problems = sorted(
            work.problems,
            key=lambda p: (order.get(p.source, len(order)), p.line or 0, p.item or 0),
        )
        projects = sorted(
            {d.project_id for d, _ in work.decisions} | {s.project_id for s, _ in work.sessions}
        )
        written = not dry_run and not (all_or_nothing and problems)
        recorded, ids = work.record(batch_size) if written else (0, [])
        return IngestResult(
            files=tuple(source.path for source in sources),
            recorded_decisions=recorded,
            recorded_sessions=tuple(ids),
            valid_decisions=len(work.decisions),
            valid_sessions=len(work.sessions),
            existing_decisions=work.existing_decisions,
            existing_sessions=work.existing_sessions,
            problems=tuple(problems),
            written=written,
            projects=tuple(projects),
        )

    def import_sessions(
        self, path: str | os.PathLike[str], *, caller: Principal | None = None
    ) -> SessionImport:
        """Import legacy sessions from a JSON file or a directory of them.

        The sessions-only form of :meth:`ingest` (same checks, same
        pipeline). Each file holds one session in the wire form, plain or
        inside the ``semreport.session/1`` export envelope, or an array of
        them. A file that cannot be read, is malformed, belongs to a project
        the caller has no grant for, repeats the id of an earlier file or of a
        stored session is reported with its reason and skipped; the others
        are recorded.

        Args:
            path: A file, or a directory whose ``*.json`` files (not those of
                its subdirectories) are read in name order.
            caller: Needs the ``user`` role, and a grant for each session's project.

        Returns:
            The ids recorded, the files read and a problem per file (or array
            item) skipped.

        Raises:
            InvalidRequest: ``path`` is neither a file nor a directory.
        """
        self._require(caller, Role.USER)
        if not isinstance(path, str | os.PathLike):
            raise InvalidRequest.at("$.path", f"expected a path, got {type(path).__name__}")
        if not (Path(path).is_file() or Path(path).is_dir()):
            raise InvalidRequest.at("$.path", f"{str(path)[:200]!r} is not a file or a directory")
        if Path(path).is_dir() and not any(
            p.suffix.lower() == ".json" and p.is_file() for p in Path(path).iterdir()
        ):
            return SessionImport(imported=(), files=())
        done = self.ingest(
            [path], kind="sessions", recursive=False, batch_size=MAX_BATCH_SESSIONS, caller=caller
        )
        return SessionImport(
            imported=done.recorded_sessions,
            files=done.files,
            problems=tuple(SessionImportProblem(p.source, p.code, p.reason) for p in done.problems),
        )

    def _stored_decision(self, project_id: str, decision_id: str) -> Decision | None:
        try:
            return self._storage.get(project_id, decision_id)
        except DecisionNotFound:
            return None

    def _stored_session(self, session_id: str) -> LegacySession | None:
        return self._storage.get_session(session_id) if self._session_exists(session_id) else None

    def _session_exists(self, session_id: str) -> bool:
        try:
            self._storage.get_session(session_id)
        except SessionNotFound:
            return False
        return True

    # -- model status and inference --------------------------------------------------

    def gnn_status(self, *, caller: Principal | None = None) -> ModelStatus:
        """Report what the GNN slot holds (``GET /gnn/status``; operators)."""
        self._authorize("gnn_status", caller)
        return self._model.status()

    def gnn_infer(
        self, payload: object = None, *, caller: Principal | None = None
    ) -> Mapping[str, Any]:
        """Run GNN inference (``POST /gnn/infer``); while no model is loaded, refuse.

        With the default :class:`~semreport.gnn.NullGNN` this always raises
        ``GNN_MODEL_NOT_LOADED`` (404), before anything else: whatever the
        payload (valid, empty or malformed) and whoever calls, or nobody.
        """
        status = self._model.status()
        if not status.loaded:
            raise GnnModelNotLoaded(f"GNN inference is refused: {status.reason}")
        self._authorize("gnn_infer", caller)
        return self._model.infer(payload)

    def capabilities(self, *, caller: Principal | None = None) -> Capabilities:
        """Say which capabilities of the contract are live now."""
        self._caller_or_fail(caller)
        status = self._model.status()
        live: dict[str, bool] = {}
        for row in CONTRACT:
            offered = hasattr(type(self), row.operation)
            if row.capability == "model_inference":
                offered = offered and status.loaded
            elif row.capability == "reference_embedding":
                offered = False
            elif row.capability == "catalogue_matching":
                offered = offered and self._catalogue is not None
            live[row.capability] = live.get(row.capability, True) and offered
        return Capabilities(
            capabilities=FrozenDict(live), model_inference=live["model_inference"], model=status
        )

    # -- reserved capabilities --------------------------------------------------------

    def embed_reference(
        self, payload: object = None, *, caller: Principal | None = None
    ) -> NoReturn:
        """Refuse reference embedding (``POST /reference/embed``): planned, not available."""
        self._authorize("embed_reference", caller)
        raise ReferenceEmbedNotAvailable(
            "reference embedding is planned and not available yet; it is planned for the "
            f"domains {', '.join(PLANNED_REFERENCE_DOMAINS)}"
        )

    def match_catalogue(
        self, payload: Mapping[str, Any], *, caller: Principal | None = None
    ) -> Mapping[str, Any]:
        """Match a profile against the configured catalogue (``POST /catalogue/match``).

        Raises:
            CatalogueProfileMatchingNotConfigured: no catalogue is configured.
            InvalidRequest: ``payload`` is not a JSON object.
        """
        self._authorize("match_catalogue", caller)
        if self._catalogue is None:
            raise CatalogueProfileMatchingNotConfigured(
                "catalogue profile matching needs a manufacturer catalogue; none is configured "
                "(pass catalogue=... to semreport.open)"
            )
        if not isinstance(payload, Mapping):
            raise InvalidRequest.at("$", "expected a JSON object")
        return self._catalogue.match(payload)


def _report_cache(budget_bytes: int) -> BuildCache[tuple[str, int], BuiltReport]:
    try:
        return BuildCache(budget_bytes)
    except ValueError as exc:
        raise InvalidRequest.at("$.report_cache_bytes", str(exc)) from None


def _check_as_of(as_of: object) -> None:
    if as_of is not None and (isinstance(as_of, bool) or not isinstance(as_of, int) or as_of < 0):
        raise InvalidRequest.at("$.as_of", "expected a sequence number (an integer of 0 or more)")


def _check_ids(**ids: object) -> None:
    errors: list[FieldError] = []
    for name, value in ids.items():
        try:
            check_identifier(value)
        except InvalidValue as exc:
            errors.extend(FieldError(format_path((name, *p), "$"), r) for p, r in exc.problems)
    if errors:
        raise InvalidRequest(errors)


def _structure_batch(
    items: Iterable[T | Mapping[str, Any]],
    cls: type[T],
    limit: int,
    check: Callable[[T, str], T],
) -> list[T]:
    """Structure a batch for ``record``/``record_sessions``, refusing it whole if anything is bad.

    Every bad field of every item is listed with its path; a batch longer
    than ``limit`` is refused before its items are structured.
    """
    if isinstance(items, Mapping | str | bytes | cls) or not isinstance(items, Iterable):
        raise InvalidRequest.at(
            "$", f"expected an array of {cls.__name__} objects or mappings, got {json_kind(items)}"
        )
    listed = list(itertools.islice(items, limit + 1))
    if len(listed) > limit:
        raise InvalidRequest.at("$", f"a batch holds at most {limit} items")
    batch: list[T] = []
    errors: list[FieldError] = []
    for position, item in enumerate(listed):
        where = f"$[{position}]"
        try:
            structured = check(from_wire(item, cls, path=where), where)
        except InvalidRequest as exc:
            errors.extend(exc.errors)
        except InvalidValue as exc:
            errors.extend(FieldError(format_path(p, where), r) for p, r in exc.problems)
        else:
            batch.append(structured)
    if errors:
        raise InvalidRequest(errors)
    return batch


def _check_decision(decision: Decision, path: str) -> Decision:
    """Refuse a decision over the request limits (counts, then its size as JSON).

    The limits are measured on the decision as it is, and its project id
    checked (authorisation reads it); the storage checks every field once, when
    it records the batch. A decision altered after construction may not even
    be measurable (a set poked into a number, text with a lone surrogate); it
    is then checked here as the storage would check it, which names the bad
    field, and measured again if its wire form is valid.

    Returns:
        The decision, or the one rebuilt from its valid wire form.
    """
    try:
        problems = _limit_problems(decision)
    except Exception:  # noqa: BLE001 - anything amiss measuring it: let the check name it
        decision = checked_decision(decision, path)  # raises InvalidRequest for a bad field
        problems = _limit_problems(decision)
    if problems:
        raise InvalidValue.of(problems)
    return decision


def _limit_problems(decision: Decision) -> list[tuple[tuple[str | int, ...], str]]:
    check_identifier(decision.project_id)  # what authorisation reads, before the storage does
    problems = count_problems(decision)
    if not problems:
        size = len(dumps(to_wire(decision)))
        if size > MAX_DECISION_BYTES:
            problems.append(((), f"at most {MAX_DECISION_BYTES} bytes as JSON, got {size}"))
    return problems


def _limit_problem(decision: Decision) -> str | None:
    """Why a decision read from a file breaks the request limits, or ``None`` when it keeps them.

    A decision read from its wire form is as its constructor makes it, so only
    the limits can refuse it here.
    """
    try:
        _check_decision(decision, "$")
    except InvalidValue as exc:
        return "; ".join(f"{format_path(path, '$')}: {reason}" for path, reason in exc.problems)
    return None


def _check_session(session: LegacySession, _path: str) -> LegacySession:
    """Sessions have no per-item limit beyond their batch size (long transcripts are real)."""
    return session


MIN_CURSOR_KEY_BYTES: Final = 16
"""The shortest cursor key :func:`open` accepts."""


def _cursor_key(key: object) -> bytes:
    raw = key.encode("utf-8") if isinstance(key, str) else key
    if not isinstance(raw, bytes):
        raise InvalidRequest.at("$.cursor_key", f"expected bytes or text, got {json_kind(key)}")
    if len(raw) < MIN_CURSOR_KEY_BYTES:
        raise InvalidRequest.at(
            "$.cursor_key", f"a cursor key holds at least {MIN_CURSOR_KEY_BYTES} bytes"
        )
    return raw


_DEFAULT_URL: Final = "sqlite:///semreport.db"


def open(  # noqa: A001 - the library's entry point is semreport.open, by design
    url: str = _DEFAULT_URL,
    *,
    caller: Principal | None = None,
    require_caller: bool = False,
    model: InferenceModel | None = None,
    catalogue: Catalogue | None = None,
    scorer: SearchScorer | None = None,
    cursor_key: bytes | str | None = None,
    create: bool = True,
    report_cache_bytes: int = DEFAULT_REPORT_CACHE_BYTES,
    **storage_options: Any,
) -> SemReport:
    """Open the facade over the storage a URL names: the composition root.

    Args:
        url: ``memory://``, ``sqlite:///path/to/file.db`` (the default is
            ``semreport.db`` in the current directory), ``postgresql://...``
            or a plug-in's scheme.
        caller: The default caller; ``None`` gives the local principal (both
            roles, every project), which suits notebooks and scripts.
        require_caller: Give the facade no default caller, so that every call
            must pass ``caller=`` (what a service does); calls without one raise
            ``UNAUTHENTICATED``.
        model: The GNN slot; :class:`~semreport.gnn.NullGNN` by default.
        catalogue: A manufacturer catalogue adapter, if one is configured.
        scorer: The search scorer; :class:`~semreport.search.HeuristicScorer` by default.
        cursor_key: The secret signing search cursors (at least 16 bytes; text is
            encoded as UTF-8). Give every process serving one storage the same key,
            so that a cursor from one is valid at the others and after a restart;
            by default each facade draws a random key. Not with ``scorer``.
        create: Create the storage if it does not exist yet (the default, what
            code that records decisions wants). ``False`` opens only what
            exists: a missing SQLite file raises ``StorageNotFound`` and no file
            is left behind, which is what read-only tools want.
        report_cache_bytes: The memory budget of the report cache, in bytes
            (estimated; 256 MiB by default); ``0`` keeps no report. See
            :meth:`SemReport.cache_info`.
        **storage_options: Passed to the storage adapter (e.g. ``clock``).

    Raises:
        StorageNotFound: ``create=False`` and the storage does not exist.
        InvalidRequest: both ``scorer`` and ``cursor_key``, or a key shorter than 16 bytes.

    Example:
        >>> import semreport
        >>> with semreport.open("memory://") as sr:
        ...     sr.gnn_status().loaded
        False
    """
    if require_caller and caller is not None:
        raise InvalidRequest.at("$.caller", "give a caller or require_caller=True, not both")
    default = None if require_caller else (caller if caller is not None else Principal.local())
    _report_cache(report_cache_bytes)  # refuse a bad budget before opening the storage
    if cursor_key is not None:
        if scorer is not None:
            raise InvalidRequest.at(
                "$.cursor_key", "give a scorer or a cursor key, not both (the scorer has its own)"
            )
        scorer = HeuristicScorer(cursor_key=_cursor_key(cursor_key))
    storage = open_storage(url, create=create, **storage_options)
    return SemReport(
        storage,
        caller=default,
        model=model,
        catalogue=catalogue,
        scorer=scorer,
        report_cache_bytes=report_cache_bytes,
    )
