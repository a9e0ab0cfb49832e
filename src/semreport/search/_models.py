"""What a search asks for (criteria, exemplars) and what it answers (results, catalogue)."""

from __future__ import annotations

import collections
import enum
import html
import itertools
import math
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final, TypeVar

import attrs

from semreport.domain import (
    DecisionDomain,
    DecisionStatus,
    Evidence,
    FieldError,
    FrozenDict,
    InvalidRequest,
    JsonValue,
    Link,
    ScorerInfo,
)
from semreport.domain._limits import (
    MAX_EXEMPLAR_TEXT,
    MAX_FILTER_VALUES,
    MAX_PAGE_SIZE,
    MAX_QUERY_TEXT,
    count_problems,
)
from semreport.domain._values import (
    AttributeName,
    AttributeValue,
    Identifier,
    Tag,
    format_path,
)
from semreport.search._analysis import AnalyzerInfo
from semreport.wire import converter, from_wire

__all__ = [
    "DEFAULT_LIMIT",
    "MAX_FILTER_VALUES",
    "MAX_LIMIT",
    "MAX_TEXT",
    "SIGNAL_NAMES",
    "AttributeSummary",
    "Criteria",
    "Exemplar",
    "FacetSelection",
    "Filters",
    "Hit",
    "NumericRange",
    "PartialDecision",
    "SearchResult",
    "SignalCatalogue",
    "SignalContribution",
    "SignalInfo",
    "StatusFilter",
    "SupersededPolicy",
    "TimeRange",
    "parse_criteria",
    "parse_exemplar",
]

T = TypeVar("T")

MAX_TEXT: Final = MAX_QUERY_TEXT
"""The longest query text, in characters (:data:`semreport.limits.MAX_QUERY_TEXT`)."""
MAX_LIMIT: Final = MAX_PAGE_SIZE
"""The largest page size (:data:`semreport.limits.MAX_PAGE_SIZE`)."""
DEFAULT_LIMIT: Final = 10
"""The page size when none is given."""
SIGNAL_NAMES: Final = ("text", "terms", "facets", "attributes", "graph", "recency")
"""Every signal the heuristic scorer offers, in explanation order."""


class StatusFilter(enum.StrEnum):
    """A status to filter on: a stored status, or ``superseded`` (derived from links)."""

    PROPOSED = "proposed"
    ACCEPTED = "accepted"
    REJECTED = "rejected"
    DEPRECATED = "deprecated"
    SUPERSEDED = "superseded"


class SupersededPolicy(enum.StrEnum):
    """What happens to decisions another decision supersedes.

    ``demote`` halves their score (the default), ``exclude`` filters them
    out, ``include`` treats them like any other decision.
    """

    DEMOTE = "demote"
    EXCLUDE = "exclude"
    INCLUDE = "include"


@attrs.frozen
class NumericRange:
    """An inclusive range of a numeric attribute; either bound may be open."""

    min: float | None = None
    max: float | None = None


@attrs.frozen
class TimeRange:
    """An inclusive range of ``recorded_at``; either bound may be open."""

    after: datetime | None = None
    before: datetime | None = None


def _frozen_mapping(value: Mapping[str, Any]) -> FrozenDict[str, Any]:
    return value if isinstance(value, FrozenDict) else FrozenDict(value)


def _frozenset(value: Any) -> frozenset[Any]:
    if isinstance(value, str):
        raise TypeError("expected a list of values, not a single string")
    return frozenset(value)


def _domains(value: Any) -> frozenset[DecisionDomain]:
    return frozenset(DecisionDomain(v) for v in _frozenset(value))


def _statuses(value: Any) -> frozenset[StatusFilter]:
    return frozenset(StatusFilter(v) for v in _frozenset(value))


@attrs.frozen
class FacetSelection:
    """Facet values: decisions match when they hold any listed value of each facet named.

    Attributes:
        domain: Decision domains.
        agent: Agent ids.
        tags: Tags.
    """

    domain: frozenset[DecisionDomain] = attrs.field(factory=frozenset, converter=_domains)
    agent: frozenset[Identifier] = attrs.field(factory=frozenset, converter=_frozenset)
    tags: frozenset[Tag] = attrs.field(factory=frozenset, converter=_frozenset)

    def key_names(self) -> list[str]:
        """The facet keys the selection names (``domain:cost``, ``tag:fire``...)."""
        return sorted(
            [f"domain:{DecisionDomain(d).value}" for d in self.domain]
            + [f"agent:{a}" for a in self.agent]
            + [f"tag:{t}" for t in self.tags]
        )

    def __len__(self) -> int:
        return len(self.domain) + len(self.agent) + len(self.tags)


@attrs.frozen
class Filters:
    """Hard filters: a mask applied before ranking, never part of the score.

    Within a facet any listed value matches; across facets all must match.

    Attributes:
        domain: Keep decisions of these domains.
        status: Keep decisions with these statuses; ``superseded`` selects
            decisions another decision supersedes.
        agent: Keep decisions made by these agents.
        tags: Keep decisions carrying at least one of these tags.
        attributes: Keep decisions whose numeric attribute lies in the range
            (a decision without the attribute is dropped).
        recorded: Keep decisions recorded in this time range.
    """

    domain: frozenset[DecisionDomain] = attrs.field(factory=frozenset, converter=_domains)
    status: frozenset[StatusFilter] = attrs.field(factory=frozenset, converter=_statuses)
    agent: frozenset[Identifier] = attrs.field(factory=frozenset, converter=_frozenset)
    tags: frozenset[Tag] = attrs.field(factory=frozenset, converter=_frozenset)
    attributes: Mapping[AttributeName, NumericRange] = attrs.field(
        factory=FrozenDict, converter=_frozen_mapping
    )
    recorded: TimeRange | None = None

    def __len__(self) -> int:
        return (
            len(self.domain)
            + len(self.status)
            + len(self.agent)
            + len(self.tags)
            + len(self.attributes)
        )


NO_FILTERS: Final = Filters()
"""Filters that keep every decision."""
NO_PREFERENCE: Final = FacetSelection()
"""No preferred facet values."""
_EMPTY: Final[FrozenDict[str, float]] = FrozenDict()


@attrs.frozen
class Criteria:
    """What :meth:`~semreport.SemReport.find` looks for.

    Attributes:
        text: Free text (at most 4,096 characters), ranked with BM25.
        filters: Hard filters.
        weights: Per-signal weights replacing the defaults (see ``signals``).
        near: Numeric targets for the ``attributes`` signal, e.g. ``{"u_value": 0.18}``.
        prefer: Facet values for the ``facets`` signal (soft, unlike filters).
        superseded: How superseded decisions are treated.
        limit: Page size, 1 to 100.
        cursor: The ``next_cursor`` of the previous page.
    """

    text: str = ""
    filters: Filters = attrs.field(factory=Filters)
    weights: Mapping[str, float] = attrs.field(factory=FrozenDict, converter=_frozen_mapping)
    near: Mapping[AttributeName, float] = attrs.field(factory=FrozenDict, converter=_frozen_mapping)
    prefer: FacetSelection = attrs.field(factory=FacetSelection)
    superseded: SupersededPolicy = attrs.field(
        default=SupersededPolicy.DEMOTE, converter=SupersededPolicy
    )
    limit: int = DEFAULT_LIMIT
    cursor: str | None = None


@attrs.frozen
class PartialDecision:
    """An inline exemplar: any subset of a decision's fields."""

    title: str = ""
    statement: str = ""
    rationale: str = ""
    domain: DecisionDomain | None = attrs.field(
        default=None, converter=attrs.converters.optional(DecisionDomain)
    )
    status: DecisionStatus | None = attrs.field(
        default=None, converter=attrs.converters.optional(DecisionStatus)
    )
    agent: Identifier | None = None
    tags: frozenset[Tag] = attrs.field(factory=frozenset, converter=_frozenset)
    attributes: FrozenDict[AttributeName, AttributeValue] = attrs.field(
        factory=FrozenDict, converter=_frozen_mapping
    )
    elements: frozenset[Identifier] = attrs.field(factory=frozenset, converter=_frozenset)
    evidence: tuple[Evidence, ...] = attrs.field(default=(), converter=tuple)
    links: tuple[Link, ...] = attrs.field(default=(), converter=tuple)


@attrs.frozen
class Exemplar:
    """What :meth:`~semreport.SemReport.similar` resembles: a stored decision or an inline one.

    Attributes:
        decision_id: A decision of the project (never returned among the hits).
        decision: An inline partial decision, instead of ``decision_id``.
        filters: Hard filters.
        weights: Per-signal weights replacing the defaults.
        superseded: How superseded decisions are treated.
        limit: Page size, 1 to 100.
        cursor: The ``next_cursor`` of the previous page.
    """

    decision_id: Identifier | None = None
    decision: PartialDecision | None = None
    filters: Filters = attrs.field(default=NO_FILTERS)
    weights: Mapping[str, float] = attrs.field(default=_EMPTY, converter=_frozen_mapping)
    superseded: SupersededPolicy = attrs.field(
        default=SupersededPolicy.DEMOTE, converter=SupersededPolicy
    )
    limit: int = DEFAULT_LIMIT
    cursor: str | None = None


# -- results ---------------------------------------------------------------------------


@attrs.frozen
class SignalContribution:
    """How one signal contributed to one hit's score.

    Attributes:
        signal: The signal's name.
        raw: The signal's raw value (BM25 score, shared key weight, closeness...).
        normalised: The raw value mapped to [0, 1], independently of the other hits.
        weight: The signal's effective weight (the active weights sum to 1).
        contribution: ``weight * normalised * demotion``; a hit's contributions
            add up to its score.
        evidence: Why: matched terms, shared tags or neighbours, numeric deltas.
    """

    signal: str
    raw: float
    normalised: float
    weight: float
    contribution: float
    evidence: FrozenDict[str, JsonValue] = attrs.field(factory=FrozenDict)


class _Deferred:
    """Lets a result build some of its fields when they are first read.

    A search ranks a page, but many callers read only the ids and scores, and
    few ask for the next page. A result made by a ``_deferred`` constructor
    leaves the slots named in ``_DEFERRED`` empty and holds a function that,
    given the result and the name read, returns values for that field (and
    possibly others). The first read of an empty slot (directly, or through
    ``==``, ``hash``, ``repr``, pickling or the wire form) fills them. The
    values are the same whenever they are built: the function reads only
    immutable state (the index snapshot the search used, the query and the
    scorer's key). Once every deferred field is filled, the function is let go.
    """

    __slots__ = ("_build",)
    _DEFERRED: tuple[str, ...] = ()

    if not TYPE_CHECKING:  # keep attribute typos visible to type checkers

        def __getattr__(self, name: str) -> Any:
            # Reached only when normal lookup fails: here, an empty slot.
            if name not in self._DEFERRED:
                raise AttributeError(name)
            build: Callable[[Any, str], dict[str, Any]] = object.__getattribute__(self, "_build")
            values = build(self, name)
            for field, value in values.items():
                object.__setattr__(self, field, value)
            if len(values) == len(self._DEFERRED):
                object.__setattr__(self, "_build", None)  # let go of what it read
            return values[name]


@attrs.frozen
class Hit(_Deferred):
    """One ranked decision with its explanation.

    Attributes:
        decision_id: The decision.
        score: The score in [0, 1]: the sum of the contributions.
        title: The decision's title, for display.
        superseded: Whether another decision supersedes it.
        demotion: The factor applied for being superseded (1.0 when not demoted).
        explanation: One entry per active signal.

    A search fills ``title``, ``superseded``, ``demotion`` and ``explanation``
    when one of them is first read, from the index snapshot it ranked with, so
    callers that only need ids and scores do not pay for them; until the
    explanation is read, the hit keeps that snapshot alive.
    """

    _DEFERRED = ("title", "superseded", "demotion", "explanation")

    decision_id: str
    score: float
    title: str
    superseded: bool
    demotion: float
    explanation: tuple[SignalContribution, ...]

    @classmethod
    def _deferred(
        cls,
        decision_ids: list[str],
        scores: list[float],
        build: Callable[[Hit, str], dict[str, Any]],
    ) -> tuple[Hit, ...]:
        """A page of hits whose other fields ``build(hit, name)`` fills on first read.

        ``build`` returns the value of the field read and may return others; when
        it returns every deferred field, the hit lets go of it. The slots are
        filled column by column with ``map``, so building a page runs no Python
        frame per hit.
        """
        hits = list(map(object.__new__, itertools.repeat(cls, len(decision_ids))))
        for name, values in (
            ("decision_id", decision_ids),
            ("score", scores),
            ("_build", itertools.repeat(build)),
        ):
            collections.deque(map(_SLOTS[name].__set__, hits, values), maxlen=0)
        return tuple(hits)

    def contribution(self, signal: str) -> SignalContribution | None:
        """The explanation entry of ``signal``, if it was active."""
        for entry in self.explanation:
            if entry.signal == signal:
                return entry
        return None


_SLOTS: Final = {
    name: getattr(cls, name)
    for cls, names in (
        (Hit, ("decision_id", "score")),
        (_Deferred, ("_build",)),
    )
    for name in names
}
"""The slot descriptors :meth:`Hit._deferred` fills (they bypass the frozen ``__setattr__``)."""


@attrs.frozen
class SearchResult(_Deferred):
    """A page of ranked, explained hits.

    Attributes:
        project_id: The project searched.
        as_of_sequence: The Decision Memory sequence the search saw.
        hits: The page, best first (score descending, then decision id).
        total: How many decisions passed the filters.
        next_cursor: Pass as ``cursor`` for the next page; ``None`` on the last page.
            A search signs it when it is first read.
        scorer: Who scored: ``heuristic``, its version, ``model_inference: false``.
    """

    _DEFERRED = ("next_cursor",)

    project_id: str
    as_of_sequence: int
    hits: tuple[Hit, ...]
    total: int
    next_cursor: str | None
    scorer: ScorerInfo

    @classmethod
    def _deferred(  # noqa: PLR0917 - internal, positional for speed
        cls,
        project_id: str,
        as_of_sequence: int,
        hits: tuple[Hit, ...],
        total: int,
        cursor: Callable[[SearchResult, str], dict[str, Any]],
        scorer: ScorerInfo,
    ) -> SearchResult:
        """A page with a next page, whose cursor ``cursor(result, name)`` signs on first read."""
        result = object.__new__(cls)
        set_ = object.__setattr__
        set_(result, "project_id", project_id)
        set_(result, "as_of_sequence", as_of_sequence)
        set_(result, "hits", hits)
        set_(result, "total", total)
        set_(result, "scorer", scorer)
        set_(result, "_build", cursor)
        return result

    def __len__(self) -> int:
        return len(self.hits)

    def _repr_html_(self) -> str:
        """Render the page as an HTML table with a bar per signal contribution."""
        colours = dict(
            zip(
                SIGNAL_NAMES,
                ("#4c78a8", "#72b7b2", "#f58518", "#54a24b", "#b279a2", "#9d755d"),
                strict=True,
            )
        )
        esc = html.escape
        rows: list[str] = []
        for rank, hit in enumerate(self.hits, 1):
            bars = "".join(
                f'<span title="{esc(c.signal)}: {c.contribution:.3f}" style="display:inline-block;'
                f"height:0.8em;width:{max(c.contribution, 0.0) * 200:.1f}px;"
                f'background:{colours.get(c.signal, "#888")}"></span>'
                for c in hit.explanation
            )
            signals = ", ".join(f"{esc(c.signal)} {c.contribution:.3f}" for c in hit.explanation)
            flag = " <em>(superseded)</em>" if hit.superseded else ""
            rows.append(
                f"<tr><td>{rank}</td><td><code>{esc(hit.decision_id)}</code></td>"
                f"<td>{esc(hit.title)}{flag}</td><td>{hit.score:.3f}</td>"
                f"<td>{bars}<br><small>{signals}</small></td></tr>"
            )
        legend = " ".join(
            f'<span style="color:{colour}">&#9632;</span> {name}'
            for name, colour in colours.items()
        )
        return (
            f"<div><p><strong>{len(self.hits)}</strong> of <strong>{self.total}</strong> "
            f"decisions of <code>{esc(self.project_id)}</code> as of sequence "
            f"{self.as_of_sequence}; scorer <code>{esc(self.scorer.name)}</code> "
            f"{esc(self.scorer.version)}, model inference: "
            f"{'yes' if self.scorer.model_inference else 'no'}.</p>"
            "<table><thead><tr><th>#</th><th>decision</th><th>title</th><th>score</th>"
            f"<th>contributions</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
            f"<p><small>{legend}</small></p></div>"
        )


@attrs.frozen
class AttributeSummary:
    """A numeric attribute of the project: how many decisions carry it, and its range."""

    name: str
    count: int
    min: float
    max: float
    median: float
    scale: float


@attrs.frozen
class SignalInfo:
    """One signal the scorer offers.

    Attributes:
        name: The signal's name, as used in ``weights``.
        kind: ``text``, ``facet``, ``numeric``, ``graph`` or ``time``.
        description: What it measures and how it maps to [0, 1].
        find_weight: Its default weight in ``find``.
        similar_weight: Its default weight in ``similar``.
        coverage: The share of the project's decisions that carry it.
        needs: What activates it in a request.
    """

    name: str
    kind: str
    description: str
    find_weight: float
    similar_weight: float
    coverage: float
    needs: str


@attrs.frozen
class SignalCatalogue:
    """Every signal of the project's search, with coverage, facet values and numeric ranges.

    Attributes:
        project_id: The project described.
        as_of_sequence: The Decision Memory sequence described.
        decisions: How many decisions the project holds.
        signals: The signals, in explanation order.
        facets: Facet name -> value -> how many decisions hold it.
        attributes: The numeric attributes, with their ranges and scales.
        superseded: How many decisions are superseded.
        superseded_policies: The allowed ``superseded`` treatments; the first is the default.
        scorer: Who scores.
        analyzer: How the scorer analyses text (``None`` if it does not say).
    """

    project_id: str
    as_of_sequence: int
    decisions: int
    signals: tuple[SignalInfo, ...]
    facets: FrozenDict[str, FrozenDict[str, int]]
    attributes: tuple[AttributeSummary, ...]
    superseded: int
    superseded_policies: tuple[str, ...]
    scorer: ScorerInfo
    analyzer: AnalyzerInfo | None = None

    def signal(self, name: str) -> SignalInfo:
        """The signal called ``name`` (``KeyError`` if none)."""
        for info in self.signals:
            if info.name == name:
                return info
        raise KeyError(name)


# -- validation -------------------------------------------------------------------------


def _non_negative(value: object) -> bool:
    return (
        not isinstance(value, bool)
        and isinstance(value, int | float)
        and math.isfinite(value)
        and value >= 0
    )


def _check_common(
    errors: list[FieldError],
    weights: Mapping[str, float],
    filters: Filters,
    limit: object,
    cursor: object,
) -> None:
    for name, weight in weights.items():
        if name not in SIGNAL_NAMES:
            errors.append(
                FieldError(
                    f"$.weights.{name}",
                    f"unknown signal {name!r}; the signals are {', '.join(SIGNAL_NAMES)}",
                )
            )
        elif not _non_negative(weight):
            errors.append(FieldError(f"$.weights.{name}", "must be a finite number >= 0"))
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        errors.append(FieldError("$.limit", f"must be an integer from 1 to {MAX_LIMIT}"))
    if cursor is not None and not isinstance(cursor, str):
        errors.append(FieldError("$.cursor", "must be a string"))
    if len(filters) > MAX_FILTER_VALUES:
        errors.append(
            FieldError(
                "$.filters", f"at most {MAX_FILTER_VALUES} filter values, got {len(filters)}"
            )
        )
    for name, bounds in filters.attributes.items():
        if bounds.min is not None and bounds.max is not None and bounds.min > bounds.max:
            errors.append(FieldError(f"$.filters.attributes.{name}", "min is greater than max"))
    span = filters.recorded
    if span is not None and span.after and span.before and span.after > span.before:
        errors.append(FieldError("$.filters.recorded", "after is later than before"))


_SIMPLE: Final = frozenset({"text", "limit", "cursor"})


def _simple_criteria(data: Mapping[str, Any]) -> Criteria | None:
    """Build criteria holding only text, limit and cursor directly (the common case).

    The general path through the converter gives an equal object; this one
    skips its machinery for the request a search box sends, and shares the
    default filters, weights and preferences instead of building new ones.
    """
    if not _SIMPLE.issuperset(data):
        return None
    text = data.get("text", "")
    limit = data.get("limit", DEFAULT_LIMIT)
    cursor = data.get("cursor")
    if (
        type(text) is not str
        or type(limit) is not int
        or not (cursor is None or type(cursor) is str)
    ):
        return None
    return Criteria(
        text, NO_FILTERS, _EMPTY, _EMPTY, NO_PREFERENCE, SupersededPolicy.DEMOTE, limit, cursor
    )


def is_plain(criteria: Criteria) -> bool:
    """Whether the criteria share the default filters, weights and preferences (by identity)."""
    return (
        criteria.filters is NO_FILTERS
        and criteria.weights is _EMPTY
        and criteria.near is _EMPTY
        and criteria.prefer is NO_PREFERENCE
        and criteria.superseded is SupersededPolicy.DEMOTE
    )


def parse_criteria(data: Criteria | Mapping[str, Any]) -> Criteria:
    """Structure and check find criteria.

    Raises:
        InvalidRequest: listing every bad field with its path.
    """
    if not isinstance(data, Criteria | Mapping):
        raise InvalidRequest.at("$", "criteria must be a Criteria or a JSON object")
    simple = _simple_criteria(data) if isinstance(data, Mapping) else None
    if simple is not None and len(simple.text) <= MAX_TEXT and 1 <= simple.limit <= MAX_LIMIT:
        return simple  # nothing else to check: no weights, filters, targets or preferences
    criteria = simple if simple is not None else from_wire(data, Criteria)
    errors: list[FieldError] = _repeated(data, _CRITERIA_SETS)
    if len(criteria.text) > MAX_TEXT:
        errors.append(FieldError("$.text", f"at most {MAX_TEXT} characters"))
    _check_common(errors, criteria.weights, criteria.filters, criteria.limit, criteria.cursor)
    if len(criteria.prefer) > MAX_FILTER_VALUES:
        errors.append(FieldError("$.prefer", f"at most {MAX_FILTER_VALUES} values"))
    if len(criteria.near) > MAX_FILTER_VALUES:
        errors.append(FieldError("$.near", f"at most {MAX_FILTER_VALUES} targets"))
    for name, target in criteria.near.items():
        if isinstance(target, bool) or not isinstance(target, int | float):
            errors.append(FieldError(f"$.near.{name}", "must be a number"))
        elif not math.isfinite(target):
            errors.append(FieldError(f"$.near.{name}", "must be a finite number"))
    if errors:
        raise InvalidRequest(errors)
    return criteria


def _exemplar_problems(decision: PartialDecision) -> list[FieldError]:
    """The inline exemplar's limits: its text all together, then each collection."""
    errors = [
        FieldError(format_path(("decision", *path), "$"), reason)
        for path, reason in count_problems(decision, exemplar=True)
    ]
    size = len(decision.title) + len(decision.statement) + len(decision.rationale)
    if size > MAX_EXEMPLAR_TEXT:
        errors.append(
            FieldError(
                "$.decision",
                f"title, statement and rationale hold at most {MAX_EXEMPLAR_TEXT} characters "
                f"together, got {size}",
            )
        )
    return errors


def parse_exemplar(data: Exemplar | Mapping[str, Any]) -> Exemplar:
    """Structure and check an exemplar.

    Raises:
        InvalidRequest: listing every bad field with its path.
    """
    if not isinstance(data, Exemplar | Mapping):
        raise InvalidRequest.at("$", "the exemplar must be an Exemplar or a JSON object")
    exemplar = from_wire(data, Exemplar)
    errors: list[FieldError] = _repeated(data, _EXEMPLAR_SETS)
    if (exemplar.decision_id is None) == (exemplar.decision is None):
        errors.append(FieldError("$.decision_id", "give exactly one of decision_id and decision"))
    if exemplar.decision is not None:
        errors.extend(_exemplar_problems(exemplar.decision))
    _check_common(errors, exemplar.weights, exemplar.filters, exemplar.limit, exemplar.cursor)
    if errors:
        raise InvalidRequest(errors)
    return exemplar


_FILTER_SETS: Final = (
    ("filters", "domain"),
    ("filters", "status"),
    ("filters", "agent"),
    ("filters", "tags"),
)
_CRITERIA_SETS: Final = (
    *_FILTER_SETS,
    ("prefer", "domain"),
    ("prefer", "agent"),
    ("prefer", "tags"),
)
_EXEMPLAR_SETS: Final = (*_FILTER_SETS, ("decision", "tags"), ("decision", "elements"))


def _repeated(data: object, paths: tuple[tuple[str, ...], ...]) -> list[FieldError]:
    """A set given as a JSON array must not repeat a value (the document says uniqueItems)."""
    if not isinstance(data, Mapping):
        return []  # an attrs object: its sets hold each value once
    errors = []
    for path in paths:
        value: object = data
        for step in path:
            value = value.get(step) if isinstance(value, Mapping) else None
        if isinstance(value, list | tuple) and len(set(value)) < len(value):
            errors.append(FieldError(format_path(path, "$"), "values must not repeat"))
    return errors


def _unstructure_filters(filters: Filters) -> dict[str, Any]:
    out: dict[str, Any] = {
        "domain": sorted(d.value for d in filters.domain),
        "status": sorted(s.value for s in filters.status),
        "agent": sorted(filters.agent),
        "tags": sorted(filters.tags),
        "attributes": {
            name: converter.unstructure(bounds) for name, bounds in filters.attributes.items()
        },
        "recorded": converter.unstructure(filters.recorded),
    }
    return out


converter.register_unstructure_hook(Filters, _unstructure_filters)
