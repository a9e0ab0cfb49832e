"""The heuristic scorer: the registered signals over the per-project index.

Scoring, in order: hard filters build a mask (never part of the score); each
active signal gives every decision a value in [0, 1] by a transform that does
not depend on the other hits; the score is the weighted sum with the active
weights scaled to add up to 1, times 0.5 for a superseded decision under the
``demote`` policy. The matches are the decisions the filters keep that a
selecting signal scores above zero (with text: that hold a query term), at
``min_score`` or above; a find with no text and nothing preferred lists every
decision the filters keep. Order: score descending, then decision id.
"""

from __future__ import annotations

import functools
import math
import os
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Final, TypeAlias

import attrs
import numpy as np

from semreport.domain import (
    DecisionMemory,
    DecisionNotFound,
    FrozenDict,
    InvalidRequest,
    Scorer,
    ScorerInfo,
)
from semreport.search._analysis import Analyzer
from semreport.search._cursor import CursorState, decode_cursor, encode_cursor, fingerprint
from semreport.search._explain import page_hits
from semreport.search._filters import filter_mask
from semreport.search._highlight import Highlight, highlights_many
from semreport.search._index import I64, Bool, IndexSnapshot, Vocabulary
from semreport.search._models import (
    AttributeSummary,
    Criteria,
    Exemplar,
    FacetCounts,
    FacetSelection,
    Filters,
    SearchResult,
    SignalCatalogue,
    SignalInfo,
    SupersededPolicy,
)
from semreport.search._ranking import (
    PRUNE_FROM,
    Best,
    Weighted,
    dense_scores,
    exact,
    pruned,
    text_only,
    top,
)
from semreport.search._warnings import SearchWarning, unknown_names
from semreport.search.signals import SIGNALS, Prepared, Query, prepare_active
from semreport.wire import to_wire

__all__ = [
    "FIND_WEIGHTS",
    "HEURISTIC_VERSION",
    "SIMILAR_WEIGHTS",
    "HeuristicScorer",
    "SearchScorer",
]

SearchScorer: TypeAlias = Scorer[Criteria | Exemplar, SearchResult, SignalCatalogue]
"""The scorer port as the facade uses it: the search's requests and results."""

HEURISTIC_VERSION: Final = "3.2"
"""The heuristic's version; it changes whenever the same records could rank differently."""

FIND_WEIGHTS: Final = FrozenDict({s.name: s.find_weight for s in SIGNALS})
"""Default weights of ``find``; a signal only counts when the criteria activate it."""
SIMILAR_WEIGHTS: Final = FrozenDict({s.name: s.similar_weight for s in SIGNALS})
"""Default weights of ``similar``."""

_INFO: Final = ScorerInfo(name="heuristic", version=HEURISTIC_VERSION, model_inference=False)


@attrs.define
class _Project:
    memory: DecisionMemory
    snapshots: OrderedDict[int, IndexSnapshot]  # the recent ones, the latest last
    rebuilt: OrderedDict[int, IndexSnapshot] = attrs.field(factory=OrderedDict)  # for cursors
    lock: threading.Lock = attrs.field(factory=threading.Lock)  # its builds, one at a time

    @property
    def latest(self) -> IndexSnapshot:
        return next(reversed(self.snapshots.values()))


@attrs.frozen
class _Ranked:
    """One request's matches, ready to page."""

    active: tuple[Weighted, ...]
    match: Bool | None  # None: every row
    total: int
    demote: bool


class HeuristicScorer:
    """The explainable heuristic behind ``signals``, ``find`` and ``similar``.

    Keeps, per project, an in-memory index that follows Decision Memory's
    sequence number: a query after an append indexes only the new records.

    Args:
        cursor_key: The secret that signs cursors. Give every process of one
            service the same key so that cursors survive a restart or a
            load balancer; by default each scorer draws a random one.
        keep_snapshots: How many recent index snapshots per project to keep,
            so that a cursor stays valid across that many appends.
        analyzer: How text becomes terms (language, stop words, folding,
            synonyms); English with folding by default.
    """

    name: Final = "heuristic"

    def __init__(
        self,
        *,
        cursor_key: bytes | None = None,
        keep_snapshots: int = 4,
        analyzer: Analyzer | None = None,
    ) -> None:
        self._analyzer = analyzer if analyzer is not None else Analyzer()
        self._key = cursor_key if cursor_key is not None else os.urandom(32)
        self._keep = max(1, keep_snapshots)
        self._projects: dict[str, _Project] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"HeuristicScorer(version={HEURISTIC_VERSION!r}, projects={len(self._projects)})"

    def describe(self) -> ScorerInfo:
        """Name the scorer: ``heuristic``, its version, and no model inference."""
        return _INFO

    # -- the index ----------------------------------------------------------------------

    def index(self, memory: DecisionMemory, project_id: str) -> IndexSnapshot:
        """Return the project's index at the memory's latest sequence, updating it if needed."""
        latest = memory.latest_sequence(project_id)
        with self._lock:  # held only to find the project: builds lock the project alone
            project = self._projects.get(project_id)
            if project is None or project.memory is not memory:
                snapshot = IndexSnapshot(project_id, Vocabulary(self._analyzer))
                project = _Project(memory, OrderedDict({0: snapshot}))
                self._projects[project_id] = project
        with project.lock:
            current = project.latest
            if current.sequence == latest:
                return current
            if current.sequence > latest:
                # Another thread brought the index further since ``latest`` was read;
                # only a memory that really went back was replaced under us.
                if memory.latest_sequence(project_id) >= current.sequence:
                    return current
                current = IndexSnapshot(project_id, Vocabulary(self._analyzer))  # start again
                project.snapshots.clear()
                project.rebuilt.clear()
            fresh = current.extend(memory.records(project_id, after=current.sequence, as_of=latest))
            fresh.build_columns()
            project.snapshots[fresh.sequence] = fresh
            while len(project.snapshots) > self._keep:
                project.snapshots.popitem(last=False)
            return fresh

    def _snapshot_at(self, memory: DecisionMemory, project_id: str, sequence: int) -> IndexSnapshot:
        """The index as of a cursor's sequence: held, or built again from the records.

        Records never change, so the index as of any sequence the project
        reached can be built again; that is what a cursor issued by another
        process, or before more appends than this scorer keeps, needs.
        """
        with self._lock:
            project = self._projects.get(project_id)
        if project is None:  # pragma: no cover - index() ran first
            raise InvalidRequest.at("$.cursor", "the cursor is not for this project")
        with project.lock:
            found = project.snapshots.get(sequence)
            if found is not None:
                return found
            found = project.rebuilt.get(sequence)
            if found is not None:
                project.rebuilt.move_to_end(sequence)
                return found
            latest = project.latest
            if not 0 < sequence <= latest.sequence:
                raise InvalidRequest.at(
                    "$.cursor",
                    f"the cursor was issued at sequence {sequence}, which this project's "
                    f"Decision Memory has not reached (it is at {latest.sequence}); "
                    "run the search again",
                )
            rebuilt = IndexSnapshot(project_id, latest.vocab).extend(
                memory.records(project_id, as_of=sequence)
            )
            rebuilt.build_columns()
            project.rebuilt[sequence] = rebuilt
            while len(project.rebuilt) > self._keep:
                project.rebuilt.popitem(last=False)
            return rebuilt

    # -- the port -------------------------------------------------------------------------

    def find(self, memory: DecisionMemory, project_id: str, criteria: Criteria) -> SearchResult:
        """Rank the project's decisions for checked criteria."""
        print_ = functools.partial(_fingerprint, project_id, "find", criteria)
        state, snap = self._open(memory, project_id, criteria.cursor, print_)
        query = Query(
            "find",
            snap,
            text=criteria.text,
            prefer=tuple(criteria.prefer.key_names()),
            near=dict(criteria.near),
        )
        mask = filter_mask(snap, criteria.filters, criteria.superseded)
        warnings = _warnings(snap, criteria.filters, criteria.prefer, criteria.near)
        ranked = _match(
            query,
            _weights(FIND_WEIGHTS, criteria.weights),
            mask,
            criteria.superseded,
            criteria.min_score,
        )
        return self._page(
            memory,
            snap,
            ranked,
            criteria.limit,
            state,
            print_,
            explain=criteria.explain,
            warnings=warnings,
        )

    def similar(self, memory: DecisionMemory, project_id: str, exemplar: Exemplar) -> SearchResult:
        """Rank the project's decisions by resemblance to a checked exemplar."""
        print_ = functools.partial(_fingerprint, project_id, "similar", exemplar)
        state, snap = self._open(memory, project_id, exemplar.cursor, print_)
        row = -1
        if exemplar.decision_id is not None:
            row = snap.row_of.get(exemplar.decision_id, -1)
            if not 0 <= row < snap.n:
                raise DecisionNotFound(
                    f"project {project_id!r} has no decision {exemplar.decision_id!r}"
                )
        # A stored exemplar is read from the index (its row); an inline one is analysed.
        query = Query("similar", snap, exemplar=exemplar.decision, exemplar_row=row)
        mask = filter_mask(snap, exemplar.filters, exemplar.superseded, exclude=row)
        warnings = _warnings(snap, exemplar.filters, None, {})
        ranked = _match(
            query,
            _weights(SIMILAR_WEIGHTS, exemplar.weights),
            mask,
            exemplar.superseded,
            exemplar.min_score,
        )
        return self._page(
            memory,
            snap,
            ranked,
            exemplar.limit,
            state,
            print_,
            explain=exemplar.explain,
            warnings=warnings,
        )

    def score(
        self, memory: DecisionMemory, project_id: str, query: Criteria | Exemplar
    ) -> SearchResult:
        """Rank for criteria (find) or an exemplar (similar)."""
        if isinstance(query, Criteria):
            return self.find(memory, project_id, query)
        return self.similar(memory, project_id, query)

    def signals(self, memory: DecisionMemory, project_id: str) -> SignalCatalogue:
        """Describe every signal, with this project's coverage, facet values and ranges."""
        snap = self.index(memory, project_id)
        infos = tuple(
            SignalInfo(
                name=signal.name,
                kind=signal.kind,
                description=signal.description,
                find_weight=signal.find_weight,
                similar_weight=signal.similar_weight,
                coverage=signal.coverage(snap),
                needs=signal.needs,
            )
            for signal in SIGNALS
        )
        counts = _facet_counts(snap, None)
        attributes = []
        for name, column in snap.attributes.items():
            values = column[~np.isnan(column)]
            attributes.append(
                AttributeSummary(
                    name=name,
                    count=len(values),
                    min=float(values.min()),
                    max=float(values.max()),
                    median=float(np.median(values)),
                    scale=snap.scale(name),
                )
            )
        facets = {
            "domain": counts.domain,
            "agent": counts.agent,
            "status": counts.status,
            "tags": counts.tags,
        }
        return SignalCatalogue(
            project_id=project_id,
            as_of_sequence=snap.sequence,
            decisions=snap.n,
            signals=infos,
            facets=FrozenDict({k: FrozenDict(v) for k, v in facets.items()}),
            attributes=tuple(attributes),
            superseded=int(snap.superseded.sum()),
            superseded_policies=tuple(p.value for p in SupersededPolicy),
            scorer=_INFO,
            analyzer=self._analyzer.describe(),
        )

    # -- paging ---------------------------------------------------------------------------

    def _open(
        self,
        memory: DecisionMemory,
        project_id: str,
        cursor: str | None,
        print_: Callable[[], str],
    ) -> tuple[CursorState | None, IndexSnapshot]:
        if cursor is None:
            return None, self.index(memory, project_id)
        state = decode_cursor(self._key, cursor, print_())
        self.index(memory, project_id)
        return state, self._snapshot_at(memory, project_id, state.sequence)

    def _page(  # noqa: PLR0917 - internal
        self,
        memory: DecisionMemory,
        snap: IndexSnapshot,
        ranked: _Ranked,
        limit: int,
        state: CursorState | None,
        print_: Callable[[], str],
        *,
        explain: bool,
        warnings: tuple[SearchWarning, ...],
    ) -> SearchResult:
        best = _rank(snap, ranked, limit + 1, state)
        more = len(best.rows) > limit
        rows, scores = best.rows[:limit], best.scores[:limit]
        values = None
        if best.values is not None:
            values = [(normalised[:limit], raw[:limit]) for normalised, raw in best.values]
        hits = page_hits(
            snap,
            rows,
            scores,
            ranked.active,
            demote=ranked.demote,
            explain=explain,
            highlights=self._highlights(memory, snap, ranked.active, rows),
            values=values,
        )
        cursor = None
        if more and hits:
            last = hits[-1]
            cursor = encode_cursor(
                self._key, print_(), CursorState(snap.sequence, last.score, last.decision_id)
            )
        return SearchResult(
            project_id=snap.project_id,
            as_of_sequence=snap.sequence,
            hits=hits,
            total=ranked.total,
            next_cursor=cursor,
            scorer=_INFO,
            facets=_facet_counts(snap, ranked.match, ranked.total),
            explained=explain,
            warnings=warnings,
        )

    @staticmethod
    def _highlights(
        memory: DecisionMemory,
        snap: IndexSnapshot,
        active: tuple[Weighted, ...],
        rows: I64,
    ) -> list[tuple[Highlight, ...]] | None:
        """The page's highlights (the matched text terms), its records read in one call."""
        terms = sorted({term for signal in active for term in signal.prepared.highlight_terms()})
        if not terms or not len(rows):
            return None
        ids = [snap.ids[row] for row in rows.tolist()]
        documents = [
            {"title": w["title"], "statement": w["statement"], "rationale": w["rationale"]}
            for w in (record.wire for record in memory.get_records(snap.project_id, ids))
        ]
        return highlights_many(snap.vocab.analyzer, documents, terms)


def _warnings(
    snap: IndexSnapshot,
    filters: Filters,
    prefer: FacetSelection | None,
    near: Mapping[str, float],
) -> tuple[SearchWarning, ...]:
    """A warning for each tag, agent or numeric attribute named that the project does not hold."""
    held = snap.held_names
    out = [
        *unknown_names("filters.agent", "agent", filters.agent, held["agent"]),
        *unknown_names("filters.tags", "tag", filters.tags, held["tag"]),
        *unknown_names("filters.attributes", "attribute", filters.attributes, held["attribute"]),
    ]
    if prefer is not None:
        out += unknown_names("prefer.agent", "agent", prefer.agent, held["agent"])
        out += unknown_names("prefer.tags", "tag", prefer.tags, held["tag"])
    out += unknown_names("near", "attribute", near, held["attribute"])
    return tuple(out)


def _match(
    query: Query,
    weights: Mapping[str, float],
    mask: Bool | None,
    policy: SupersededPolicy,
    min_score: float,
) -> _Ranked:
    """The active signals with their effective weights, and the matches."""
    snap = query.snap
    chosen = prepare_active(query, weights)
    given = [weights[signal.name] for signal, _ in chosen]
    if max(given, default=0.0) * len(given) > sys.float_info.max:
        # Huge weights (finite, but their sum is not): only their ratios count.
        largest = max(given)
        given = [weight / largest for weight in given]
    total_weight = math.fsum(given)
    active = tuple(
        Weighted(signal.name, prepared, weight / total_weight)
        for (signal, prepared), weight in zip(chosen, given, strict=True)
    )
    demote = policy == SupersededPolicy.DEMOTE and bool(len(snap.superseded_rows))
    selecting = [prepared for signal, prepared in chosen if signal.selects(query)]
    match = mask
    if query.mode == "find" and query.text.strip():
        # With text, a match holds a query term, whatever else scores it.
        text = next((p for s, p in chosen if s.name == "text"), None)
        required = text.positive() if text is not None else _text_matches(query)
        if text is None and selecting:  # text weighted out: another signal must score it
            required &= _any_positive(snap.n, selecting, mask)
        match = required if match is None else match & required
    elif selecting or query.mode == "similar":
        found = _any_positive(snap.n, selecting, mask)
        match = found if match is None else match & found
    # Otherwise a listing: every decision the filters keep (ordering signals never select).
    if min_score > 0:
        rows = np.arange(snap.n, dtype=np.int64) if match is None else np.flatnonzero(match)
        match = np.zeros(snap.n, dtype=np.bool_)
        if active:
            scores = exact(active, snap.demotion if demote else None, rows)
            match[rows[scores >= min_score]] = True
    total = snap.n if match is None else int(np.count_nonzero(match))
    return _Ranked(active, match, total, demote)


def _any_positive(n: int, prepared: list[Prepared], mask: Bool | None) -> Bool:
    """Rows (among ``mask``) some signal scores above zero.

    The first lead signal's positive rows are taken whole; every other signal
    is asked only about the kept rows no signal has found yet (a lead's whole
    column while they are many, else just their values).
    """
    found: Bool | None = None
    rest: I64 | None = None  # the kept rows not found yet, once listed
    for state in sorted(prepared, key=lambda p: not p.lead):
        if found is None:
            found = state.positive() if state.lead else np.zeros(n, dtype=np.bool_)
            if state.lead:
                continue
        if rest is None:
            rest = np.flatnonzero(~found if mask is None else mask & ~found)
        else:  # only rows still missing: the list shrinks as signals find them
            rest = rest[~found[rest]]
        if state.lead and 4 * len(rest) > n:
            found |= state.positive()
            rest = None  # listed again if another signal asks
        elif len(rest):
            found[rest] = state.values(rest)[0] > 0
    return np.zeros(n, dtype=np.bool_) if found is None else found


def _text_matches(query: Query) -> Bool:
    """Rows holding a query term, when the text signal is weighted out of the score."""
    snap = query.snap
    tids, _ = snap.vocab.query_terms(query.text)
    found: Bool = snap.text_scores(dict.fromkeys(tids, 1.0))[0] > 0
    return found


def _rank(snap: IndexSnapshot, ranked: _Ranked, k: int, state: CursorState | None) -> Best:
    """The ``k`` best matches after the cursor's position, their scores (and signal values)."""
    active, match = ranked.active, ranked.match
    demotion = snap.demotion if ranked.demote else None
    if ranked.total == 0:
        return Best(np.zeros(0, dtype=np.int64), np.zeros(0))
    if not active:  # a listing: every match scores 0, in id order
        rank = snap.id_rank
        rows = np.arange(snap.n, dtype=np.int64) if match is None else np.flatnonzero(match)
        if state is not None:
            last = snap.row_of.get(state.decision_id, -1)
            rows = rows[rank[rows] > (rank[last] if last >= 0 else -1)]
        order = np.argsort(rank[rows], kind="stable")[:k]
        return Best(rows[order], np.zeros(len(order)))
    if state is None and snap.n >= PRUNE_FROM:
        found = text_only(snap, active, match, ranked.demote, k)
        if found is None:
            found = pruned(snap, active, match, ranked.demote, k)
        if found is not None:
            return found
    # Scores are computed only for the matches (the same arithmetic per row either way).
    keep = None if match is None else np.flatnonzero(match)
    score = dense_scores(active, demotion, keep)
    rank = snap.id_rank if keep is None else snap.id_rank[keep]
    after: Bool | None = None
    if state is not None:
        last = snap.row_of.get(state.decision_id, -1)
        last_rank = snap.id_rank[last] if 0 <= last < snap.n else -1
        after = (score < state.score) | ((score == state.score) & (rank > last_rank))
    positions = top(score, after, rank, k)
    rows = positions if keep is None else keep[positions]
    return Best(rows, score[positions])


def _facet_counts(snap: IndexSnapshot, match: Bool | None, total: int | None = None) -> FacetCounts:
    """Counts of every facet value over the matches (``None``: every decision).

    The snapshot counts every value at once (popcounts of packed bit rows, or
    ``bincount`` over code columns when a project has many values; when few
    decisions are left out, its totals less theirs); only values that occur
    are named.
    """
    counts = snap.value_counts(match, total)
    facets: dict[str, dict[str, int]] = {"domain": {}, "status": {}, "agent": {}, "tags": {}}
    labels = snap.facet_labels
    present = np.flatnonzero(counts)
    for index, count in zip(present.tolist(), counts[present].tolist(), strict=True):
        facet, value = labels[index]
        facets[facet][value] = count
    return FacetCounts(**facets)


@functools.lru_cache(maxsize=1024)
def _fingerprint(project_id: str, kind: str, query: Criteria | Exemplar) -> str:
    """The query's fingerprint: its canonical wire form without page size, cursor, explain."""
    wire = to_wire(query)
    for name in ("limit", "cursor", "explain"):
        del wire[name]
    return fingerprint(project_id, kind, wire)


def _weights(defaults: Mapping[str, float], given: Mapping[str, float]) -> dict[str, float]:
    merged = dict(defaults.items())
    merged.update({k: float(v) for k, v in given.items()})
    return merged
