"""The heuristic scorer: explainable signals over the per-project index.

Scoring, in order: hard filters build a mask (never part of the score); each
active signal gives every decision a value in [0, 1] by a transform that does
not depend on the other hits; the score is the weighted sum with the active
weights scaled to add up to 1, times 0.5 for a superseded decision under the
``demote`` policy. Order: score descending, then decision id. Explanations are
computed for the returned page only.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import math
import os
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Mapping
from datetime import UTC
from typing import Any, Final

import attrs
import numpy as np
import numpy.typing as npt

from semreport.domain import (
    Decision,
    DecisionMemory,
    DecisionNotFound,
    FrozenDict,
    InvalidRequest,
    JsonValue,
    ScorerInfo,
)
from semreport.search._analysis import Analyzer
from semreport.search._cursor import (
    CursorState,
    canonical_json,
    decode_cursor,
    encode_cursor,
    fingerprint,
)
from semreport.search._index import (
    DEMOTION,
    DOMAINS,
    F64,
    I64,
    STATUSES,
    TITLE_WEIGHT,
    Bool,
    IndexSnapshot,
    KeyedSets,
    Vocabulary,
)
from semreport.search._models import (
    NO_FILTERS,
    SIGNAL_NAMES,
    AttributeSummary,
    Criteria,
    Exemplar,
    Filters,
    Hit,
    PartialDecision,
    SearchResult,
    SignalCatalogue,
    SignalContribution,
    SignalInfo,
    StatusFilter,
    SupersededPolicy,
    is_plain,
)
from semreport.wire import to_wire

__all__ = ["FIND_WEIGHTS", "HEURISTIC_VERSION", "SIMILAR_WEIGHTS", "HeuristicScorer"]

HEURISTIC_VERSION: Final = "1.0"
"""The heuristic's version; it changes whenever the same records could rank differently."""

GRAPH_HALF: Final = 3.0
"""In ``find``, a decision with this many links, elements and evidence items scores 0.5 on graph."""
MLT_MAX_TERMS: Final = 25
"""The most distinctive exemplar terms ``terms`` queries with (MoreLikeThis)."""

FIND_WEIGHTS: Final = FrozenDict(
    {"text": 1.0, "terms": 0.0, "facets": 0.5, "attributes": 0.5, "graph": 0.0, "recency": 0.0}
)
"""Default weights of ``find``; a signal only counts when the criteria activate it."""
SIMILAR_WEIGHTS: Final = FrozenDict(
    {"text": 0.0, "terms": 1.0, "facets": 0.2, "attributes": 0.2, "graph": 0.5, "recency": 0.0}
)
"""Default weights of ``similar``."""

_DESCRIPTIONS: Final = {
    "text": (
        "text",
        "BM25 (k1 1.5, b 0.75) of the query text over title, statement and rationale; title "
        f"words count {TITLE_WEIGHT}x; Snowball stems, English stop words. Normalised by the "
        "query's upper bound (the score a decision could reach on every query term).",
        "criteria.text",
    ),
    "terms": (
        "text",
        f"MoreLikeThis: the exemplar's {MLT_MAX_TERMS} most distinctive terms (tf x idf, held by "
        "at least one other decision), boosted by distinctiveness, ranked with BM25 and "
        "normalised by their upper bound.",
        "an exemplar with text",
    ),
    "facets": (
        "facet",
        "Domain, agent, status and tags: IDF-weighted Jaccard overlap with the exemplar, or the "
        "IDF-weighted share of the preferred values a decision holds (find).",
        "exemplar facets, or criteria.prefer",
    ),
    "attributes": (
        "numeric",
        "Numeric closeness exp(-|value - target| / scale), scale = IQR / 1.349 of the attribute "
        "(else its standard deviation), averaged over the targets; missing counts 0.",
        "exemplar numeric attributes, or criteria.near",
    ),
    "graph": (
        "graph",
        "similar: IDF-weighted Jaccard overlap of linked decisions (either direction, the "
        "exemplar itself included), building elements and evidence. find: connectedness "
        f"d / (d + {GRAPH_HALF:g}) with d = links + elements + evidence.",
        "an exemplar (similar), or a weight > 0 (find)",
    ),
    "recency": (
        "time",
        "Position of recorded_at between the project's first and latest record (1 = latest).",
        "a weight > 0",
    ),
}


_INFO: Final = ScorerInfo(name="heuristic", version=HEURISTIC_VERSION, model_inference=False)


class _Signal:
    """One signal's values: dense arrays over the project, or a function of rows (lazy).

    A lazy signal computes its values for the rows asked (``None``: every row)
    with the same element-wise arithmetic either way, so a row's value never
    depends on which other rows were computed with it.
    """

    __slots__ = ("_normalised", "_raw", "lazy", "lead", "name", "weight")

    def __init__(
        self,
        name: str,
        normalised: F64 | None,
        raw: F64 | None,
        weight: float = 0.0,
        lazy: Callable[[I64 | None], tuple[F64, F64]] | None = None,
        *,
        lead: bool = False,
    ) -> None:
        self.name = name
        self._normalised = normalised
        self._raw = raw
        self.weight = weight
        self.lazy = lazy
        self.lead = lead  # computed densely first; bounds the others when pruning

    def _materialise(self) -> tuple[F64, F64]:
        if self._normalised is None or self._raw is None:
            assert self.lazy is not None
            self._normalised, self._raw = self.lazy(None)
        return self._normalised, self._raw

    @property
    def normalised(self) -> F64:
        return self._materialise()[0]

    @property
    def raw(self) -> F64:
        return self._raw if self._raw is not None else self._materialise()[1]

    def at(self, rows: I64) -> tuple[F64, F64]:
        """The normalised and raw values of ``rows``."""
        if self._normalised is not None:
            return self._normalised[rows], self.raw[rows]
        assert self.lazy is not None
        return self.lazy(rows)

    def weighted(self, weight: float) -> _Signal:
        return _Signal(
            self.name,
            self._normalised,
            self._raw,
            weight,
            self.lazy,
            lead=self.lead,
        )


class _TextSignal(_Signal):
    """BM25 scores and their bound; ``raw / bound`` is computed only for the rows that need it."""

    __slots__ = ("bound", "values")

    def __init__(self, name: str, raw: F64, bound: float, weight: float = 0.0) -> None:
        super().__init__(name, None, raw, weight, lead=True)
        self.bound = bound
        self.values = raw

    def _normalise(self, raw: F64) -> F64:
        normalised: F64 = raw / self.bound if self.bound > 0 else raw
        return normalised

    def _materialise(self) -> tuple[F64, F64]:
        if self._normalised is None:
            self._normalised = self._normalise(self.values)
        return self._normalised, self.values

    def at(self, rows: I64) -> tuple[F64, F64]:
        part = self.values[rows]
        return self._normalise(part), part

    def weighted(self, weight: float) -> _Signal:
        return _TextSignal(self.name, self.values, self.bound, weight)


def _text_signal(snap: IndexSnapshot, name: str, terms: dict[int, float]) -> _Signal:
    raw, bound = snap.text_scores(terms)
    return _TextSignal(name, raw, bound)


@attrs.define
class _Project:
    memory: DecisionMemory
    snapshots: OrderedDict[int, IndexSnapshot]

    @property
    def latest(self) -> IndexSnapshot:
        return next(reversed(self.snapshots.values()))


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
        with self._lock:
            project = self._projects.get(project_id)
            if project is not None and project.memory is not memory:
                project = None
            if project is None:
                snapshot = IndexSnapshot(project_id, Vocabulary(self._analyzer))
                project = _Project(memory, OrderedDict({0: snapshot}))
                self._projects[project_id] = project
            current = project.latest
            if current.sequence == latest:
                return current
            if current.sequence > latest:  # the memory was replaced under us: start again
                current = IndexSnapshot(project_id, Vocabulary(self._analyzer))
                project.snapshots.clear()
            fresh = current.extend(
                memory.decisions(project_id, after=current.sequence, as_of=latest)
            )
            fresh.build_columns()
            _connectedness(fresh)
            _recency_signal(fresh)
            project.snapshots[fresh.sequence] = fresh
            while len(project.snapshots) > self._keep:
                project.snapshots.popitem(last=False)
            return fresh

    def _snapshot_at(self, project_id: str, sequence: int) -> IndexSnapshot:
        with self._lock:
            project = self._projects.get(project_id)
            found = project.snapshots.get(sequence) if project is not None else None
        if found is None:
            raise InvalidRequest.at(
                "$.cursor",
                f"the cursor was issued at sequence {sequence}, which is no longer held "
                "(the project changed since); run the search again",
            )
        return found

    # -- the port -------------------------------------------------------------------------

    def score(
        self, memory: DecisionMemory, project_id: str, query: Criteria | Exemplar
    ) -> SearchResult:
        """Rank the project's decisions for a checked query and explain the page."""
        if isinstance(query, Criteria):
            return self._find(memory, project_id, query)
        return self._similar(memory, project_id, query)

    def signals(self, memory: DecisionMemory, project_id: str) -> SignalCatalogue:
        """Describe every signal, with this project's coverage, facet values and ranges."""
        snap = self.index(memory, project_id)
        n = max(snap.n, 1)
        text_cov = float(np.count_nonzero(snap.doc_len)) / n
        facet_cov = 1.0 if snap.n else 0.0
        attr_cov = 0.0
        if snap.attributes:
            present = np.zeros(snap.n, dtype=np.bool_)
            for column in snap.attributes.values():
                present |= ~np.isnan(column)
            attr_cov = float(present.sum()) / n
        graph_cov = float(np.count_nonzero(snap.degree)) / n
        coverage = {
            "text": text_cov,
            "terms": text_cov,
            "facets": facet_cov,
            "attributes": attr_cov,
            "graph": graph_cov,
            "recency": facet_cov,
        }
        infos = tuple(
            SignalInfo(
                name=name,
                kind=_DESCRIPTIONS[name][0],
                description=_DESCRIPTIONS[name][1],
                find_weight=FIND_WEIGHTS[name],
                similar_weight=SIMILAR_WEIGHTS[name],
                coverage=coverage[name],
                needs=_DESCRIPTIONS[name][2],
            )
            for name in SIGNAL_NAMES
        )
        facets: dict[str, dict[str, int]] = {"domain": {}, "agent": {}, "status": {}, "tags": {}}
        for code, count in enumerate(np.bincount(snap.domain, minlength=len(DOMAINS))):
            if count:
                facets["domain"][DOMAINS[code].value] = int(count)
        for code, count in enumerate(np.bincount(snap.status, minlength=len(STATUSES))):
            if count:
                facets["status"][STATUSES[code].value] = int(count)
        superseded = int(snap.superseded.sum())
        if superseded:
            facets["status"]["superseded"] = superseded
        names = snap.vocab.agent_names
        for code, count in enumerate(np.bincount(snap.agent, minlength=len(names))):
            if count:
                facets["agent"][names[code]] = int(count)
        keys = snap.vocab.key_names
        for code, count in enumerate(np.bincount(snap.tags.keys, minlength=len(keys))):
            if count:
                facets["tags"][keys[code].removeprefix("tag:")] = int(count)
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
        return SignalCatalogue(
            project_id=project_id,
            as_of_sequence=snap.sequence,
            decisions=snap.n,
            signals=infos,
            facets=FrozenDict({k: FrozenDict(v) for k, v in facets.items()}),
            attributes=tuple(attributes),
            superseded=superseded,
            superseded_policies=tuple(p.value for p in SupersededPolicy),
            scorer=_INFO,
            analyzer=self._analyzer.describe(),
        )

    # -- find -----------------------------------------------------------------------------

    def _find(self, memory: DecisionMemory, project_id: str, criteria: Criteria) -> SearchResult:
        print_ = functools.partial(_fingerprint, project_id, "find", criteria)
        state, snap = self._open(memory, project_id, criteria.cursor, print_)
        weights = _weights(FIND_WEIGHTS, criteria.weights)
        signals: list[_Signal] = []
        surface: dict[int, str] = {}
        if criteria.text.strip() and weights["text"] > 0:
            tids, surface = snap.vocab.query_terms(criteria.text)
            query: dict[int, float] = {}
            for tid in tids:
                query[tid] = query.get(tid, 0.0) + 1.0
            signals.append(_text_signal(snap, "text", query))
        if len(criteria.prefer) and weights["facets"] > 0:
            keys = [snap.vocab.keys.get(k, -1) for k in criteria.prefer.key_names()]
            signals.append(_coverage_signal(snap, [k for k in keys if k >= 0]))
        if criteria.near and weights["attributes"] > 0:
            signals.append(_attribute_signal(snap, dict(criteria.near)))
        if weights["graph"] > 0:
            signals.append(_connectedness(snap))
        if weights["recency"] > 0:
            signals.append(_recency_signal(snap))
        mask = _filter_mask(snap, criteria.filters, criteria.superseded)
        context = _Context(snap, surface)
        return self._rank(
            snap,
            signals,
            weights,
            mask,
            criteria.superseded,
            criteria.limit,
            state,
            print_,
            context,
        )

    # -- similar --------------------------------------------------------------------------

    def _similar(self, memory: DecisionMemory, project_id: str, exemplar: Exemplar) -> SearchResult:
        print_ = functools.partial(_fingerprint, project_id, "similar", exemplar)
        state, snap = self._open(memory, project_id, exemplar.cursor, print_)
        weights = _weights(SIMILAR_WEIGHTS, exemplar.weights)
        row = -1
        if exemplar.decision_id is not None:
            row = snap.row_of.get(exemplar.decision_id, -1)
            if not 0 <= row < snap.n:
                raise DecisionNotFound(
                    f"project {project_id!r} has no decision {exemplar.decision_id!r}"
                )
            decision: Decision | PartialDecision = snap.decisions[row]
            counts = snap.term_counts(row)
        else:
            assert exemplar.decision is not None
            decision = exemplar.decision
            counts = _partial_counts(snap, decision)
        signals: list[_Signal] = []
        selected: dict[int, float] = {}
        if weights["terms"] > 0 and counts:
            selected = _mlt_terms(snap, counts, own=row >= 0)
            if selected:
                signals.append(_text_signal(snap, "terms", selected))
        facet_keys = _facet_keys(snap, decision)
        if weights["facets"] > 0 and facet_keys:
            signals.append(_jaccard_signal(snap, "facets", snap.facets, facet_keys, None))
        targets = {
            name: float(value)
            for name, value in decision.attributes.items()
            if isinstance(value, int | float) and not isinstance(value, bool)
        }
        if weights["attributes"] > 0 and targets:
            signals.append(_attribute_signal(snap, targets))
        thing_keys = _thing_keys(snap, decision)
        nodes = _node_set(snap, decision, row)
        if weights["graph"] > 0 and (thing_keys or len(nodes)):
            signals.append(_jaccard_signal(snap, "graph", snap.things, thing_keys, nodes))
        if weights["recency"] > 0:
            signals.append(_recency_signal(snap))
        mask = _filter_mask(snap, exemplar.filters, exemplar.superseded)
        if row >= 0 and mask is not None:
            mask[row] = False
        surface = dict(_term_names(snap, selected).items())
        context = _Context(
            snap,
            surface,
            facet_keys=set(facet_keys),
            thing_keys=set(thing_keys),
            nodes=set(nodes.tolist()),
            targets=targets,
        )
        return self._rank(
            snap,
            signals,
            weights,
            mask,
            exemplar.superseded,
            exemplar.limit,
            state,
            print_,
            context,
            exclude=row if row >= 0 and mask is None else -1,
        )

    # -- shared ranking -------------------------------------------------------------------

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
        return state, self._snapshot_at(project_id, state.sequence)

    def _rank(  # noqa: PLR0917 - internal
        self,
        snap: IndexSnapshot,
        signals: list[_Signal],
        weights: Mapping[str, float],
        mask: Bool | None,
        policy: SupersededPolicy,
        limit: int,
        state: CursorState | None,
        print_: Callable[[], str],
        context: _Context,
        exclude: int = -1,
    ) -> SearchResult:
        """Rank and explain a page; ``exclude`` is a row left out (the exemplar, unmasked)."""
        n = snap.n
        total_weight = math.fsum(weights[s.name] for s in signals)
        active = [
            s.weighted(weights[s.name] / total_weight) for s in signals if weights[s.name] > 0
        ]
        demote = policy is SupersededPolicy.DEMOTE and bool(len(snap.superseded_rows))
        if state is None and n >= _PRUNE_FROM:
            found = (
                _text_only(snap, active[0], mask, demote, limit + 1)
                if len(active) == 1 and isinstance(active[0], _TextSignal) and exclude < 0
                else _pruned(snap, active, mask, demote, limit + 1, exclude)
            )
            if found is not None:
                rows, page_scores, total = found
                more = len(rows) > limit
                return self._page(
                    snap,
                    rows[:limit],
                    page_scores[:limit],
                    more,
                    total,
                    active,
                    demote,
                    print_,
                    context,
                )
        # Scores are computed only for the rows the filters keep (the same arithmetic per
        # row either way, so a row's score never depends on the filters).
        keep = None if mask is None else np.flatnonzero(mask)
        scored = n if keep is None else len(keep)
        total = scored - (exclude >= 0)

        def part(values: npt.NDArray[Any]) -> npt.NDArray[Any]:
            return values if keep is None else values[keep]

        if len(active) == 1 and active[0].weight == 1.0:
            score = part(active[0].normalised)
            if demote:
                score = score * part(snap.demotion)
        else:
            score = np.zeros(scored)
            for signal in active:
                score += signal.weight * part(signal.normalised)
            if demote:
                score *= part(snap.demotion)
        rank = part(snap.id_rank)
        after: Bool | None = None
        if state is not None:
            last = snap.row_of.get(state.decision_id, -1)
            last_rank = snap.id_rank[last] if 0 <= last < n else -1
            after = (score < state.score) | ((score == state.score) & (rank > last_rank))
        # The excluded row (only ever without a mask) is dropped after selection: cheaper
        # than a mask over the whole project for one row.
        wanted = limit + 1 + (exclude >= 0)
        positions = _top(score, after, rank, wanted)
        if exclude >= 0:
            positions = positions[positions != exclude][: limit + 1]
        more = len(positions) > limit
        positions = positions[:limit]
        rows = positions if keep is None else keep[positions]
        return self._page(
            snap, rows, score[positions].tolist(), more, total, active, demote, print_, context
        )

    def _page(  # noqa: PLR0917 - internal
        self,
        snap: IndexSnapshot,
        rows: I64,
        scores: list[float],
        more: bool,
        total: int,
        active: list[_Signal],
        demote: bool,
        print_: Callable[[], str],
        context: _Context,
    ) -> SearchResult:
        hits = self._hits(snap, rows, scores, active, demote, context)
        if not (more and hits):
            return SearchResult(snap.project_id, snap.sequence, hits, total, None, _INFO)
        last = hits[-1]
        state = CursorState(snap.sequence, last.score, last.decision_id)
        return SearchResult._deferred(
            snap.project_id,
            snap.sequence,
            hits,
            total,
            functools.partial(_sign_cursor, self._key, print_, state),
            _INFO,
        )

    @staticmethod
    def _hits(  # noqa: PLR0917 - internal
        snap: IndexSnapshot,
        rows: I64,
        scores: list[float],
        active: list[_Signal],
        demote: bool,
        context: _Context,
    ) -> tuple[Hit, ...]:
        """The page's hits; their other fields are built when first read."""
        row_list: list[int] = rows.tolist()
        ids = snap.ids
        return Hit._deferred(
            [ids[row] for row in row_list],
            scores,
            _Page(row_list, rows, active, demote, context).build,
        )


_PREPARE: Final = threading.Lock()
"""Guards the one-time matched-term lookup of a page (brief, and rare)."""


class _Page:
    """Builds the deferred fields of one page of hits, on demand.

    The signals' values for the page rows are gathered at once (cheap, and it
    keeps no dense array alive); the matched terms of every row are found at
    once when the first explanation is read.
    """

    __slots__ = ("_columns", "_context", "_demote", "_prepared", "_rows")

    def __init__(
        self, row_list: list[int], rows: I64, active: list[_Signal], demote: bool, context: _Context
    ) -> None:
        self._rows = row_list
        self._context = context
        self._demote = demote
        self._prepared: I64 | None = rows
        self._columns: list[tuple[str, float, F64, F64]] = []
        for signal in active:
            normalised, raw = signal.at(rows)
            self._columns.append((signal.name, signal.weight, normalised, raw))

    def build(self, hit: Hit, name: str) -> dict[str, Any]:
        """The deferred fields of one of the page's hits (all of them for ``explanation``)."""
        snap = self._context.snap
        row = snap.row_of[hit.decision_id]
        superseded = bool(snap.superseded[row])
        factor = DEMOTION if self._demote and superseded else 1.0
        fields: dict[str, Any] = {
            "title": snap.decisions[row].title,
            "superseded": superseded,
            "demotion": factor,
        }
        if name == "explanation":
            fields["explanation"] = self._explain(row, factor)
        return fields

    def _explain(self, row: int, factor: float) -> tuple[SignalContribution, ...]:
        with _PREPARE:
            if self._prepared is not None:
                self._context.prepare(self._prepared)
                self._prepared = None
        i = self._rows.index(row)
        evidence = self._context.evidence
        return tuple(
            [
                SignalContribution(
                    name,
                    float(raw[i]),
                    float(normalised[i]),
                    weight,
                    weight * float(normalised[i]) * factor,
                    evidence(name, row),
                )
                for name, weight, normalised, raw in self._columns
            ]
        )


# -- helpers ------------------------------------------------------------------------------


def _sign_cursor(
    key: bytes, print_: Callable[[], str], state: CursorState, _result: SearchResult, _name: str
) -> dict[str, Any]:
    """The cursor of the page after ``state`` (signed when a caller first reads it)."""
    return {"next_cursor": encode_cursor(key, print_(), state)}


def _fingerprint(project_id: str, kind: str, query: Criteria | Exemplar) -> str:
    """The query's fingerprint (its canonical wire form without page size and cursor)."""
    if kind == "find" and isinstance(query, Criteria) and is_plain(query):
        # Text-only criteria: the canonical JSON is a fixed template around two strings.
        before, middle, after = _PLAIN_FIND
        canonical = (
            f"{before}{json.dumps(project_id, ensure_ascii=False)}{middle}"
            f"{json.dumps(query.text, ensure_ascii=False)}{after}"
        )
        return hashlib.sha256(canonical.encode()).hexdigest()[:32]
    return _general_fingerprint(project_id, kind, query)


@functools.lru_cache(maxsize=1024)
def _general_fingerprint(project_id: str, kind: str, query: Criteria | Exemplar) -> str:
    wire = to_wire(query)
    del wire["limit"], wire["cursor"]
    return fingerprint(project_id, kind, wire)


def _plain_find_template() -> tuple[str, str, str]:
    wire = to_wire(Criteria(text="\ue000text"))
    del wire["limit"], wire["cursor"]
    canonical = canonical_json(["\ue000project", "find", wire])
    head, rest = canonical.split('"\ue000project"')
    middle, tail = rest.split('"\ue000text"')
    return head, middle, tail


_PLAIN_FIND: Final = _plain_find_template()


def _weights(defaults: Mapping[str, float], given: Mapping[str, float]) -> dict[str, float]:
    """The request's weights (the shared defaults, read only, when it gives none)."""
    plain = _PLAIN_DEFAULTS[id(defaults)]
    if not given:
        return plain
    merged = dict(plain)
    merged.update({k: float(v) for k, v in given.items()})
    return merged


_PLAIN_DEFAULTS: Final = {id(w): dict(w.items()) for w in (FIND_WEIGHTS, SIMILAR_WEIGHTS)}


def _top(score: F64, mask: Bool | None, rank: I64, k: int, floor: float = 0.0) -> I64:
    """The ``k`` best rows by (score descending, id ascending) among ``mask``, in order.

    ``floor`` (at most the ``k``-th best score) lets only the rows at or above it
    be partitioned. Without one, a large project takes the ``k``-th best score of
    an evenly spaced sample of its rows: the sampled rows are real scores among
    ``mask``, so ``k`` rows reach that value and it bounds the ``k``-th best from
    below. Zero-score rows fill up a short page in id order.
    """
    if floor <= 0 and len(score) >= 4 * _SAMPLE:
        floor = _sampled_floor(score, mask, k)
    if floor > 0:
        candidates = np.flatnonzero(score >= floor)
        if mask is not None:
            candidates = candidates[mask[candidates]]
        if len(candidates) >= k:
            result_: I64 = _best(score, candidates, rank, k).astype(np.int64)
            return result_
    positive = score > 0
    if mask is not None:
        positive &= mask
    rows = _best(score, np.flatnonzero(positive), rank, k)
    if len(rows) < k:
        rest = ~positive if mask is None else mask & ~positive
        zero = np.flatnonzero(rest)
        need = k - len(rows)
        if len(zero) > need:
            zero = zero[np.argpartition(rank[zero], need - 1)[:need]]
        zero = zero[np.argsort(rank[zero])]
        rows = np.concatenate([rows, zero])
    result: I64 = rows.astype(np.int64)
    return result


_PRUNE_FROM: Final = 4096
"""Projects at least this large rank a first page by bounds instead of scoring every row."""


def _pruned(  # noqa: PLR0917 - internal
    snap: IndexSnapshot,
    active: list[_Signal],
    mask: Bool | None,
    demote: bool,
    k: int,
    exclude: int,
) -> tuple[I64, list[float], int] | None:
    """The ``k`` best rows and their scores, scoring only the rows that can make the page.

    The lead signals (text, terms, the exemplar's facets and graph) are dense; every
    other signal's normalised value is at most 1, so a row's score is at most
    ``lead(row) + slack`` with ``slack`` the other signals' weights (demotion only
    lowers it). The best rows by lead alone are scored exactly; the ``k``-th of
    those exact scores bounds the ``k``-th best score from below, and only rows
    whose upper bound reaches it are scored. When the slack is too wide for that
    to prune, the other signals join the leads one at a time (computed densely,
    which the fallback would do anyway), shrinking the slack. Returns ``None``
    (score every row) when no bound prunes enough.
    """
    leads = [s for s in active if s.lead]
    rest = [s for s in active if not s.lead]
    if not leads or not rest:
        return None
    rank = snap.id_rank
    floor = 0.0
    partial: F64 | None = None
    while True:
        slack = math.fsum(s.weight for s in rest)
        if partial is None:
            partial = np.zeros(snap.n)
            for signal in leads:
                partial += signal.weight * signal.normalised
        # More seeds than k: the k-th best exact score among them is a tighter floor.
        seeds = _top(partial, mask, rank, 4 * k + 16)
        if exclude >= 0:
            seeds = seeds[seeds != exclude]
        if len(seeds) < k:
            return None
        seed_scores = _exact(snap, active, demote, seeds)
        # Any earlier floor stays a valid lower bound of the k-th best score.
        floor = max(floor, float(np.partition(seed_scores, len(seeds) - k)[len(seeds) - k]))
        if floor - slack > 0:
            # A margin keeps every row whose bound reaches the floor despite rounding.
            reach = partial >= (floor - slack) * (1.0 - 1e-9)
            if np.count_nonzero(reach) <= snap.n // 4:  # counting is cheaper than listing
                candidates = np.flatnonzero(reach)
                break
        if not rest:
            return None  # the bound prunes too little: scoring every row is cheaper
        promoted = rest.pop(0)
        leads.append(promoted)
        partial += promoted.weight * promoted.normalised
    if mask is not None:
        candidates = candidates[mask[candidates]]
    if exclude >= 0:
        candidates = candidates[candidates != exclude]
    rows, page_scores = _best_of(snap, candidates, _exact(snap, active, demote, candidates), k)
    total = (snap.n if mask is None else int(np.count_nonzero(mask))) - (exclude >= 0)
    return rows, page_scores, total


def _text_only(
    snap: IndexSnapshot, signal: _TextSignal, mask: Bool | None, demote: bool, k: int
) -> tuple[I64, list[float], int] | None:
    """The ``k`` best rows for text alone, dividing by the bound only for the candidates.

    ``raw * demotion`` orders rows as the score does (the bound is one positive
    constant), up to rounding, which a margin on the floor covers. The floor
    comes from a sample of ``raw * demotion``; since demotion never raises a
    score, every row that can reach it has ``raw`` at least the floor, so the
    candidates are taken from ``raw`` without demoting the whole project.
    """
    if signal.weight != 1.0 or signal.bound <= 0:
        return None
    raw = signal.raw
    floor = _sampled_floor(raw, mask, k, snap.demotion if demote else None) * (1.0 - 1e-9)
    if floor <= 0:
        return None
    candidates = np.flatnonzero(raw >= floor)
    if mask is not None:
        candidates = candidates[mask[candidates]]
    if len(candidates) < k:
        return None
    # The arithmetic of _exact for one signal of weight 1: (raw / bound) * demotion.
    scores = raw[candidates] / signal.bound
    if demote:
        scores *= snap.demotion[candidates]
    rows, page_scores = _best_of(snap, candidates, scores, k)
    total = snap.n if mask is None else int(np.count_nonzero(mask))
    return rows, page_scores, total


def _best_of(snap: IndexSnapshot, candidates: I64, scores: F64, k: int) -> tuple[I64, list[float]]:
    """The ``k`` best of scored candidate rows, in order, with their scores."""
    ranks = snap.id_rank[candidates]
    if len(scores) <= _SORT_UP_TO:  # as in _best, without indexing through an identity
        local: I64 = np.lexsort((ranks, -scores))[:k]
    else:
        local = _best(scores, np.arange(len(candidates)), ranks, k)
    chosen: list[float] = scores[local].tolist()
    return candidates[local].astype(np.int64), chosen


def _exact(snap: IndexSnapshot, active: list[_Signal], demote: bool, rows: I64) -> F64:
    """Scores of ``rows``, by the same element-wise arithmetic as the dense path."""
    score = np.zeros(len(rows))
    for signal in active:
        score += signal.weight * signal.at(rows)[0]
    if demote:
        score *= snap.demotion[rows]
    return score


_SAMPLE: Final = 1024
_SORT_UP_TO: Final = 512
"""About how many rows :func:`_sampled_floor` looks at."""


def _sampled_floor(score: F64, mask: Bool | None, k: int, factor: F64 | None = None) -> float:
    """The ``k``-th largest ``score * factor`` among evenly spaced rows kept by ``mask``, or 0."""
    stride = len(score) // _SAMPLE
    sample = score[::stride]
    if factor is not None:
        sample = sample * factor[::stride]
    if mask is not None:
        sample = sample[mask[::stride]]
    m = len(sample)
    if m < k:
        return 0.0
    return float(np.partition(sample, m - k)[m - k])


def _best(score: F64, idx: I64, rank: I64, k: int) -> I64:
    values = score[idx]
    m = len(values)
    if m <= _SORT_UP_TO:  # few candidates: one sort beats partitioning and tie handling
        first: I64 = idx[np.lexsort((rank[idx], -values))[:k]]
        return first
    if k < m:
        part = np.argpartition(values, m - k)[m - k :]
        threshold = values[part].min()
        above = part[values[part] > threshold]
        tied = np.flatnonzero(values == threshold)
        need = k - len(above)
        if len(tied) > need:
            tied = tied[np.argpartition(rank[idx[tied]], need - 1)[:need]]
        chosen = idx[np.concatenate([above, tied])]
    else:
        chosen = idx
    order = np.lexsort((rank[chosen], -score[chosen]))
    result: I64 = chosen[order]
    return result


def _filter_mask(  # noqa: PLR0912 - one branch per filter
    snap: IndexSnapshot, filters: Filters, policy: SupersededPolicy
) -> Bool | None:
    if filters is NO_FILTERS and policy is not SupersededPolicy.EXCLUDE:
        return None  # the shared empty filters: nothing to mask
    n = snap.n
    mask: Bool | None = None

    def both(extra: Bool) -> None:
        nonlocal mask
        mask = extra if mask is None else mask & extra

    # Facet filters look codes up in a small boolean table: one gather per filter.
    if filters.domain:
        both(_lookup(len(DOMAINS), [DOMAINS.index(d) for d in filters.domain])[snap.domain])
    if filters.status:
        stored = [
            STATUSES.index(s.value) for s in filters.status if s is not StatusFilter.SUPERSEDED
        ]
        status_mask = _lookup(len(STATUSES), stored)[snap.status]
        if StatusFilter.SUPERSEDED in filters.status:
            status_mask |= snap.superseded
        both(status_mask)
    if filters.agent:
        agents = snap.vocab.agents
        codes = [agents[a] for a in filters.agent if a in agents]
        both(_lookup(len(snap.vocab.agent_names), codes)[snap.agent])
    if filters.tags:
        known = snap.vocab.keys
        keys = [known[f"tag:{t}"] for t in filters.tags if f"tag:{t}" in known]
        both(_tag_mask(snap, frozenset(keys)))
    for name, bounds in filters.attributes.items():
        column = snap.attributes.get(name)
        if column is None:
            both(np.zeros(n, dtype=np.bool_))
            continue
        # Comparisons with NaN (a missing attribute) are False, so no separate presence test.
        if bounds.min is not None and bounds.max is not None:
            attr_mask = (column >= bounds.min) & (column <= bounds.max)
        elif bounds.min is not None:
            attr_mask = column >= bounds.min
        elif bounds.max is not None:
            attr_mask = column <= bounds.max
        else:
            attr_mask = ~np.isnan(column)
        both(attr_mask)
    span = filters.recorded
    if span is not None:
        time_mask = np.ones(n, dtype=np.bool_)
        if span.after is not None:
            time_mask &= snap.recorded >= span.after.timestamp()
        if span.before is not None:
            time_mask &= snap.recorded <= span.before.timestamp()
        both(time_mask)
    if policy is SupersededPolicy.EXCLUDE:
        both(~snap.superseded)
    return mask


def _tag_mask(snap: IndexSnapshot, keys: frozenset[int]) -> Bool:
    """Which decisions hold any of the tag keys (from the tag-major index, nothing cached)."""
    indptr, rows = snap.tags.transpose(len(snap.vocab.key_names))
    found = np.zeros(snap.n, dtype=np.bool_)
    for key in sorted(keys):
        if key + 1 < len(indptr):
            found[rows[indptr[key] : indptr[key + 1]]] = True
    return found


def _lookup(size: int, codes: list[int]) -> Bool:
    table = np.zeros(max(size, 1), dtype=np.bool_)
    table[codes] = True
    return table


def _connectedness(snap: IndexSnapshot) -> _Signal:
    cached: _Signal | None = snap.__dict__.get("_connectedness")
    if cached is None:
        deg = snap.degree
        cached = snap.__dict__["_connectedness"] = _Signal("graph", deg / (deg + GRAPH_HALF), deg)
    return cached


def _recency_signal(snap: IndexSnapshot) -> _Signal:
    cached: _Signal | None = snap.__dict__.get("_recency")
    if cached is None:
        first, last = snap.time_span
        normalised = (snap.recorded - first) / (last - first) if last > first else np.ones(snap.n)
        cached = snap.__dict__["_recency"] = _Signal("recency", normalised, last - snap.recorded)
    return cached


def _attribute_signal(snap: IndexSnapshot, targets: dict[str, float]) -> _Signal:
    names = sorted(targets)

    def compute(rows: I64 | None) -> tuple[F64, F64]:
        size = snap.n if rows is None else len(rows)
        # float32 is plenty for a closeness in [0, 1] and halves the work of exp.
        total = np.zeros(size, dtype=np.float32)
        out = np.empty(size, dtype=np.float32)
        for name in names:
            values = snap.attribute_values(name)
            if values is None:
                continue
            if rows is not None:
                values = values[rows]
            # exp(-|value - target| / scale), in place: no temporaries over the project.
            np.subtract(values, np.float32(targets[name]), out=out)
            np.abs(out, out=out)
            out *= np.float32(-1.0 / snap.scale(name))
            np.exp(out, out=out)
            total += out
        raw = total.astype(np.float64)
        return raw / len(targets), raw

    return _Signal("attributes", None, None, lazy=compute)


def _shared_weight(snap: IndexSnapshot, sets: KeyedSets, keys: list[int]) -> tuple[F64, F64]:
    """Per decision, the summed weight of ``keys`` it holds; and the key weights."""
    size = len(snap.vocab.key_names)
    weights = snap.key_weights(sets)
    indptr, rows = sets.transpose(size)
    known = [k for k in keys if k < size]
    parts = [rows[indptr[k] : indptr[k + 1]] for k in known]
    if not parts:
        return np.zeros(snap.n), weights
    lengths = np.array([len(p) for p in parts])
    # Weights are multiples of 2**-20, so the sums are exact in any order.
    shared = np.bincount(
        np.concatenate(parts), weights=np.repeat(weights[known], lengths), minlength=snap.n
    )
    return shared.astype(np.float64, copy=False), weights


def _coverage_signal(snap: IndexSnapshot, keys: list[int]) -> _Signal:
    shared, weights = _shared_weight(snap, snap.facets, keys)
    want = float(weights[keys].sum()) if keys else 0.0
    normalised = shared / want if want > 0 else np.zeros(snap.n)
    return _Signal("facets", np.minimum(normalised, 1.0), shared)


def _jaccard_signal(
    snap: IndexSnapshot, name: str, sets: KeyedSets, keys: list[int], nodes: I64 | None
) -> _Signal:
    weights = snap.key_weights(sets)
    unknown = sum(1 for k in keys if k >= len(weights) or weights[k] == 0)
    own = float(weights[[k for k in keys if k < len(weights)]].sum()) + unknown * float(
        np.round(math.log1p(snap.n) * 2**20) / 2**20
    )
    totals = snap.key_totals(sets)
    if name == "facets":
        # Dense (most decisions share a domain, an agent or a status), so computed for
        # every row and a lead: it leaves only the attributes' weight as slack when
        # pruning. Weights are multiples of 2**-20, so these sums are exact in any order.
        held = _shared_weight(snap, sets, keys)[0]
        union = totals - held
        union += own
        np.maximum(union, held, out=union)
        np.maximum(union, 1e-300, out=union)
        np.divide(held, union, out=union)
        return _Signal(name, np.minimum(union, 1.0, out=union), held, lead=True)
    shared = _shared_weight(snap, sets, keys)[0]
    if nodes is not None:
        node_weights, node_totals = snap.node_stats
        if len(nodes):
            nb = snap.neighbours
            parts = [nb.of(int(y)) for y in nodes]
            members = np.concatenate([*parts, nodes.astype(np.int32)])
            member_weights = np.concatenate(
                [np.repeat(node_weights[nodes], [len(p) for p in parts]), node_weights[nodes]]
            )
            np.add.at(shared, members, member_weights)  # exact: quantised weights
            own += float(node_weights[nodes].sum())
        cached: F64 | None = snap.__dict__.get("_graph_totals")
        if cached is None:
            cached = snap.__dict__["_graph_totals"] = snap.key_totals(sets) + node_totals
        totals = cached
    holders = np.flatnonzero(shared)
    normalised = np.zeros(snap.n)
    if len(holders):
        part = shared[holders]
        union = own + totals[holders] - part
        normalised[holders] = np.minimum(part / np.maximum(union, part), 1.0)
    return _Signal(name, normalised, shared, lead=True)


def _facet_keys(snap: IndexSnapshot, decision: Decision | PartialDecision) -> list[int]:
    names = [f"tag:{t}" for t in sorted(decision.tags)]
    if decision.domain is not None:
        names.append(f"domain:{decision.domain.value}")
    if decision.agent is not None:
        names.append(f"agent:{decision.agent}")
    if decision.status is not None:
        names.append(f"status:{decision.status.value}")
    return _key_codes(snap, names)


def _thing_keys(snap: IndexSnapshot, decision: Decision | PartialDecision) -> list[int]:
    names = [f"element:{e}" for e in sorted(decision.elements)]
    names += sorted({f"evidence:{ev.kind.value}:{ev.ref}" for ev in decision.evidence})
    return _key_codes(snap, names)


def _key_codes(snap: IndexSnapshot, names: list[str]) -> list[int]:
    # Values no decision holds still count in the exemplar's own weight (they cannot be
    # shared); they get ids past the known ones instead of being added to the vocabulary.
    keys = snap.vocab.keys
    size = len(snap.vocab.key_names)
    out = []
    for offset, name in enumerate(dict.fromkeys(names)):
        code = keys.get(name)
        out.append(code if code is not None else size + offset)
    return out


def _node_set(snap: IndexSnapshot, decision: Decision | PartialDecision, row: int) -> I64:
    if row >= 0:
        own = snap.neighbours.of(row).astype(np.int64)
        return np.union1d(own, [row]).astype(np.int64)
    targets = [snap.row_of.get(link.target, -1) for link in decision.links]
    return np.unique(np.array([t for t in targets if 0 <= t < snap.n], dtype=np.int64))


def _partial_counts(snap: IndexSnapshot, decision: PartialDecision) -> dict[int, float]:
    vocab = snap.vocab
    counts: Counter[int] = Counter(
        vocab.lookup_terms(f"{decision.statement}\n{decision.rationale}")
    )
    title = vocab.lookup_terms(decision.title)
    for _ in range(TITLE_WEIGHT):
        counts.update(title)
    return {k: float(v) for k, v in counts.items()}


def _mlt_terms(snap: IndexSnapshot, counts: Mapping[int, float], *, own: bool) -> dict[int, float]:
    """MoreLikeThis term selection, with defaults that work on short texts.

    Every term counts once it appears (no minimum term frequency), but it must
    occur in another decision (``df >= 2`` for a stored exemplar), since a term
    only the exemplar holds matches nothing. The top terms by tf x idf are kept
    and boosted by their score relative to the best one.
    """
    least = 2 if own else 1
    scored: list[tuple[float, int]] = []
    for term, tf in counts.items():
        if term < len(snap.df) and snap.df[term] >= least:
            scored.append((tf * snap.idf(term), term))
    names = snap.vocab.term_names
    scored.sort(key=lambda item: (-item[0], names[item[1]]))
    chosen = scored[:MLT_MAX_TERMS]
    if not chosen:
        return {}
    best = chosen[0][0]
    return {term: value / best for value, term in chosen}


def _term_names(snap: IndexSnapshot, terms: Mapping[int, float]) -> dict[int, str]:
    if not terms:
        return {}
    names = snap.vocab.term_names
    return {tid: names[tid] for tid in terms}


class _Context:
    """What the explanations of one request need."""

    __slots__ = (
        "facet_keys",
        "matched",
        "nodes",
        "snap",
        "surface",
        "targets",
        "thing_keys",
    )

    def __init__(
        self,
        snap: IndexSnapshot,
        surface: dict[int, str],
        *,
        facet_keys: set[int] | None = None,
        thing_keys: set[int] | None = None,
        nodes: set[int] | None = None,
        targets: dict[str, float] | None = None,
    ) -> None:
        self.snap = snap
        self.surface = surface  # term -> the word shown as matched
        self.facet_keys = facet_keys or set()
        self.thing_keys = thing_keys or set()
        self.nodes = nodes or set()
        self.targets = targets or {}
        self.matched: dict[int, list[str]] = {}

    def prepare(self, rows: I64) -> None:
        """Find the matched terms of every page row at once (one binary search in all)."""
        if not self.surface or not len(rows):
            return
        # Terms in order of the word shown, so each row's matched words come out sorted.
        terms = sorted(self.surface, key=self.surface.__getitem__)
        names = [self.surface[t] for t in terms]
        flags: list[list[bool]] = self.snap.holds(terms, rows).T.tolist()
        self.matched = {
            row: list(itertools.compress(names, held_by))
            for row, held_by in zip(rows.tolist(), flags, strict=True)
        }

    def evidence(self, signal: str, row: int) -> FrozenDict[str, JsonValue]:
        snap = self.snap
        data: dict[str, Any] = {}
        if signal in ("text", "terms"):
            return _frozen({"matched_terms": tuple(self.matched.get(row, ()))})
        elif signal == "facets":
            names = snap.vocab.key_names
            held = set(snap.facets.of(row).tolist())
            data["shared"] = sorted(names[k] for k in self.facet_keys & held)
        elif signal == "attributes":
            deltas = {}
            for name in sorted(self.targets):
                column = snap.attributes.get(name)
                value = None if column is None or np.isnan(column[row]) else float(column[row])
                deltas[name] = {
                    "target": self.targets[name],
                    "value": value,
                    "delta": None if value is None else value - self.targets[name],
                    "scale": snap.scale(name),
                }
            data["attributes"] = deltas
        elif signal == "graph":
            names = snap.vocab.key_names
            neighbours = set(snap.neighbours.of(row).tolist())
            if self.nodes or self.thing_keys:
                held = set(snap.things.of(row).tolist())
                shared = sorted(names[k] for k in self.thing_keys & held)
                data["shared_elements"] = [
                    s.removeprefix("element:") for s in shared if s.startswith("element:")
                ]
                data["shared_evidence"] = [
                    s.removeprefix("evidence:") for s in shared if s.startswith("evidence:")
                ]
                data["shared_neighbours"] = sorted(snap.ids[y] for y in self.nodes & neighbours)
                data["linked"] = bool(self.nodes & {row})
            else:
                data["links"] = len(neighbours)
                data["elements_and_evidence"] = len(snap.things.of(row))
        elif signal == "recency":
            at = snap.decisions[row].recorded_at
            data["recorded_at"] = (
                at.astimezone(UTC).isoformat().replace("+00:00", "Z") if at else None
            )
        return _freeze(data)


def _frozen(data: dict[str, JsonValue]) -> FrozenDict[str, JsonValue]:
    """Wrap a dict whose keys are already in sorted order, without copying or sorting it."""
    out: FrozenDict[str, JsonValue] = FrozenDict.__new__(FrozenDict)
    out._data = data
    out._hash = None
    return out


def _freeze(data: Mapping[str, Any]) -> FrozenDict[str, JsonValue]:
    """Freeze evidence built here (dicts, lists, scalars) without the general checks."""
    out: dict[str, JsonValue] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            out[key] = _freeze(value)
        elif isinstance(value, list):
            out[key] = tuple(value)
        else:
            out[key] = value
    return FrozenDict(out)  # sorts the keys
