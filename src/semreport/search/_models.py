"""What a search asks for (criteria, exemplars) and what it answers (results, catalogue)."""

from __future__ import annotations

import enum
import html
import math
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from typing import Any, Final, TypeVar

import attrs

from semreport.domain import (
    DecisionDomain,
    DecisionStatus,
    FieldError,
    FrozenDict,
    InvalidRequest,
    JsonValue,
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
    Identifier,
    Tag,
    format_path,
)
from semreport.search._analysis import AnalyzerInfo
from semreport.search._highlight import Highlight
from semreport.search._partial import PartialDecision, frozen_mapping, frozen_values
from semreport.search._warnings import SearchWarning
from semreport.search.signals import SIGNAL_NAMES
from semreport.wire import converter, from_wire, to_wire

__all__ = [
    "DEFAULT_LIMIT",
    "MAX_FILTER_VALUES",
    "MAX_LIMIT",
    "MAX_TEXT",
    "SIGNAL_NAMES",
    "AttributeSummary",
    "Counts",
    "Criteria",
    "Exemplar",
    "FacetCounts",
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


def _aware(_instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    """Refuse a bound that is not a timezone-aware datetime (a naive one reads as no zone)."""
    if value is None:
        return
    if not isinstance(value, datetime):
        raise TypeError(f"{attribute.name} must be a datetime, got {type(value).__name__}")
    if value.utcoffset() is None:
        raise ValueError(f"{attribute.name} must be timezone-aware (naive datetimes are refused)")


def _is_a(
    kind: type, *, optional: bool = False
) -> Callable[[object, attrs.Attribute[Any], object], None]:
    """A validator refusing a value that is not a ``kind`` (nor ``None``, when ``optional``)."""

    def check(_instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
        if not isinstance(value, kind) and not (optional and value is None):
            wanted = f"None or a {kind.__name__}" if optional else f"a {kind.__name__}"
            raise TypeError(f"{attribute.name} must be {wanted}, got {type(value).__name__}")

    return check


@attrs.frozen
class TimeRange:
    """An inclusive range of ``recorded_at``; either bound may be open.

    Raises:
        TypeError: a bound is not a datetime.
        ValueError: a bound is naive (it has no UTC offset).
    """

    after: datetime | None = attrs.field(default=None, validator=_aware)
    before: datetime | None = attrs.field(default=None, validator=_aware)


def _domains(value: Any) -> frozenset[DecisionDomain]:
    return frozenset(DecisionDomain(v) for v in frozen_values(value))


def _statuses(value: Any) -> frozenset[StatusFilter]:
    return frozenset(StatusFilter(v) for v in frozen_values(value))


@attrs.frozen
class FacetSelection:
    """Facet values: decisions match when they hold any listed value of each facet named.

    Attributes:
        domain: Decision domains.
        agent: Agent ids.
        tags: Tags.
    """

    domain: frozenset[DecisionDomain] = attrs.field(factory=frozenset, converter=_domains)
    agent: frozenset[Identifier] = attrs.field(factory=frozenset, converter=frozen_values)
    tags: frozenset[Tag] = attrs.field(factory=frozenset, converter=frozen_values)

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
    agent: frozenset[Identifier] = attrs.field(factory=frozenset, converter=frozen_values)
    tags: frozenset[Tag] = attrs.field(factory=frozenset, converter=frozen_values)
    attributes: Mapping[AttributeName, NumericRange] = attrs.field(
        factory=FrozenDict, converter=frozen_mapping
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
        min_score: Drop hits scoring below this (0 to 1).
        explain: Explain every hit (``False``: empty explanations, a little faster).
    """

    text: str = ""
    filters: Filters = attrs.field(factory=Filters, validator=_is_a(Filters))
    weights: Mapping[str, float] = attrs.field(factory=FrozenDict, converter=frozen_mapping)
    near: Mapping[AttributeName, float] = attrs.field(factory=FrozenDict, converter=frozen_mapping)
    prefer: FacetSelection = attrs.field(factory=FacetSelection, validator=_is_a(FacetSelection))
    superseded: SupersededPolicy = attrs.field(
        default=SupersededPolicy.DEMOTE, converter=SupersededPolicy
    )
    limit: int = DEFAULT_LIMIT
    cursor: str | None = None
    min_score: float = 0.0
    explain: bool = True


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
        min_score: Drop hits scoring below this (0 to 1).
        explain: Explain every hit (``False``: empty explanations, a little faster).
    """

    decision_id: Identifier | None = None
    decision: PartialDecision | None = attrs.field(
        default=None, validator=_is_a(PartialDecision, optional=True)
    )
    filters: Filters = attrs.field(factory=Filters, validator=_is_a(Filters))
    weights: Mapping[str, float] = attrs.field(factory=FrozenDict, converter=frozen_mapping)
    superseded: SupersededPolicy = attrs.field(
        default=SupersededPolicy.DEMOTE, converter=SupersededPolicy
    )
    limit: int = DEFAULT_LIMIT
    cursor: str | None = None
    min_score: float = 0.0
    explain: bool = True


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


@attrs.frozen
class Hit:
    """One ranked decision: what it is, its score and why.

    Attributes:
        decision_id: The decision.
        score: The score in [0, 1]: the sum of the contributions.
        title: The decision's title.
        domain: The decision's domain.
        status: The decision's stored status (see ``superseded``).
        agent: The agent that made the decision.
        recorded_at: When the decision was recorded.
        superseded: Whether another decision supersedes it.
        demotion: The factor applied for being superseded (1.0 when not demoted).
        explanation: One entry per active signal, in signal order; empty when the
            request asked for no explanations (``explain`` false).
        highlights: The best matching fields' fragments with the matched words'
            spans, from the same analysis as the score (the text of ``find``,
            the exemplar's terms in ``similar``); empty when no text matched.
    """

    decision_id: str
    score: float
    title: str
    domain: DecisionDomain
    status: DecisionStatus
    agent: str
    recorded_at: datetime | None
    superseded: bool
    demotion: float = 1.0
    explanation: tuple[SignalContribution, ...] = ()
    highlights: tuple[Highlight, ...] = ()

    def contribution(self, signal: str) -> SignalContribution | None:
        """The explanation entry of ``signal``, if it was active and explained."""
        for entry in self.explanation:
            if entry.signal == signal:
                return entry
        return None


class Counts(Mapping[str, int]):
    """Read-only counts per value, most frequent first, ties by value (hashable, picklable)."""

    __slots__ = ("_items",)

    def __init__(self, counts: Mapping[str, int] | None = None) -> None:
        pairs = (counts or {}).items()
        self._items = dict(sorted(pairs, key=lambda item: (-item[1], item[0])))

    def __getitem__(self, key: str) -> int:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(tuple(self._items.items()))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return dict(self._items) == dict(other.items())
        return NotImplemented

    def __repr__(self) -> str:
        return f"Counts({self._items!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Counts, (self._items,))


def _counts(value: Mapping[str, int]) -> Counts:
    return value if isinstance(value, Counts) else Counts(value)


@attrs.frozen
class FacetCounts:
    """How many matching decisions hold each facet value (every match, not only the page).

    Each mapping runs from the most frequent value down, ties by value. The
    ``domain`` counts add up to the result's ``total``; ``status`` counts stored
    statuses and adds ``superseded`` for the superseded matches.

    Attributes:
        domain: Domain -> matches.
        status: Status (and ``superseded``) -> matches.
        agent: Agent -> matches.
        tags: Tag -> matches holding it.
    """

    domain: Counts = attrs.field(factory=Counts, converter=_counts)
    status: Counts = attrs.field(factory=Counts, converter=_counts)
    agent: Counts = attrs.field(factory=Counts, converter=_counts)
    tags: Counts = attrs.field(factory=Counts, converter=_counts)


@attrs.frozen
class SearchResult:
    """A page of ranked hits, with how many decisions match and their facet counts.

    Attributes:
        project_id: The project searched.
        as_of_sequence: The Decision Memory sequence the search saw.
        hits: The page, best first (score descending, then decision id).
        total: How many decisions match: exactly those that can appear on some page.
        next_cursor: Pass as ``cursor`` for the next page; ``None`` on the last page.
        scorer: Who scored: ``heuristic``, its version, ``model_inference: false``.
        facets: Facet counts over every match.
        explained: Whether the hits carry explanations (the request's ``explain``).
        warnings: Names the request gives that the project does not hold (tags,
            agents, numeric attributes in filters, ``prefer`` and ``near``), each
            with the closest names it does hold: why a page may be empty.
    """

    project_id: str
    as_of_sequence: int
    hits: tuple[Hit, ...]
    total: int
    next_cursor: str | None
    scorer: ScorerInfo
    facets: FacetCounts = attrs.field(factory=FacetCounts)
    explained: bool = True
    warnings: tuple[SearchWarning, ...] = ()

    def __len__(self) -> int:
        return len(self.hits)

    def _repr_html_(self) -> str:
        """Render the page as an HTML table with a bar per signal contribution."""
        colours = dict(
            zip(
                SIGNAL_NAMES,
                ("#4c78a8", "#72b7b2", "#e45756", "#f58518", "#54a24b", "#b279a2", "#9d755d"),
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
            shown = "".join(
                f"<br><small>{esc(h.field)}: {_marked_html(h)}</small>" for h in hit.highlights
            )
            rows.append(
                f"<tr><td>{rank}</td><td><code>{esc(hit.decision_id)}</code></td>"
                f"<td>{esc(hit.title)}{flag}{shown}</td><td>{esc(hit.domain.value)}</td>"
                f"<td>{esc(hit.status.value)}</td><td>{hit.score:.3f}</td>"
                f"<td>{bars}<br><small>{signals}</small></td></tr>"
            )
        legend = " ".join(
            f'<span style="color:{colour}">&#9632;</span> {name}'
            for name, colour in colours.items()
        )
        return (
            f"<div><p><strong>{len(self.hits)}</strong> of <strong>{self.total}</strong> "
            f"matching decisions of <code>{esc(self.project_id)}</code> as of sequence "
            f"{self.as_of_sequence}; scorer <code>{esc(self.scorer.name)}</code> "
            f"{esc(self.scorer.version)}, model inference: "
            f"{'yes' if self.scorer.model_inference else 'no'}.</p>"
            "<table><thead><tr><th>#</th><th>decision</th><th>title</th><th>domain</th>"
            "<th>status</th><th>score</th>"
            f"<th>contributions</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
            f"<p><small>{legend}</small></p></div>"
        )


def _marked_html(shown: Highlight) -> str:
    """A highlight's fragment as escaped HTML, each matched word in ``<mark>``."""
    out = []
    last = 0
    for start, end in shown.spans:
        out.append(html.escape(shown.fragment[last:start]))
        out.append(f"<mark>{html.escape(shown.fragment[start:end])}</mark>")
        last = end
    out.append(html.escape(shown.fragment[last:]))
    return "".join(out)


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

    def __repr__(self) -> str:
        project = self.project_id if len(self.project_id) <= 40 else self.project_id[:39] + "…"
        return (
            f"SignalCatalogue(project_id={project!r}, as_of_sequence={self.as_of_sequence}, "
            f"decisions={self.decisions}, signals={len(self.signals)}, "
            f"attributes={len(self.attributes)}, superseded={self.superseded})"
        )

    def _repr_html_(self) -> str:
        """Render the catalogue: signals with weights, analyzer, facet values and ranges."""
        esc = html.escape
        analyzer = self.analyzer
        how = (
            f" Text: {esc(analyzer.language)}, {analyzer.stop_words} stop words, folding "
            f"{'on' if analyzer.folding else 'off'}, {analyzer.synonym_groups} synonym groups."
            if analyzer is not None
            else ""
        )
        head = (
            f"<p><strong>{self.decisions}</strong> decisions of <code>{esc(self.project_id)}"
            f"</code> as of sequence {self.as_of_sequence} ({self.superseded} superseded); "
            f"scorer <code>{esc(self.scorer.name)}</code> {esc(self.scorer.version)}, "
            f"model inference: {'yes' if self.scorer.model_inference else 'no'}.{how}</p>"
        )
        signals = "".join(
            f"<tr><td><code>{esc(info.name)}</code></td><td>{esc(info.kind)}</td>"
            f"<td>{info.find_weight:g}</td><td>{info.similar_weight:g}</td>"
            f"<td>{info.coverage:.0%}</td><td>{esc(info.needs)}</td>"
            f"<td><small>{esc(info.description)}</small></td></tr>"
            for info in self.signals
        )
        facets = "".join(
            f"<tr><th>{esc(name)}</th><td>{_html_counts(values)}</td></tr>"
            for name, values in self.facets.items()
        )
        ranges = "".join(
            f"<tr><td><code>{esc(a.name)}</code></td><td>{a.count}</td><td>{a.min:g}</td>"
            f"<td>{a.median:g}</td><td>{a.max:g}</td></tr>"
            for a in self.attributes
        )
        return (
            f"<div>{head}<table><thead><tr><th>signal</th><th>kind</th><th>find</th>"
            "<th>similar</th><th>coverage</th><th>needs</th><th>description</th></tr></thead>"
            f"<tbody>{signals}</tbody></table>"
            f"<table><tbody>{facets}</tbody></table>"
            + (
                "<table><thead><tr><th>attribute</th><th>decisions</th><th>min</th>"
                f"<th>median</th><th>max</th></tr></thead><tbody>{ranges}</tbody></table>"
                if ranges
                else ""
            )
            + "</div>"
        )


_HTML_VALUES: Final = 20
"""At most this many values per facet in a catalogue's notebook view."""


def _html_counts(values: Mapping[str, int]) -> str:
    ordered = sorted(values.items(), key=lambda item: (-item[1], item[0]))
    shown = ", ".join(f"{html.escape(name)} ({count})" for name, count in ordered[:_HTML_VALUES])
    more = len(ordered) - _HTML_VALUES
    return shown + (f", … {more} more" if more > 0 else "")


# -- validation -------------------------------------------------------------------------


def _non_negative(value: object) -> bool:
    return (
        not isinstance(value, bool)
        and isinstance(value, int | float)
        and math.isfinite(value)
        and value >= 0
    )


def _check_common(  # noqa: PLR0917 - internal
    errors: list[FieldError],
    weights: Mapping[str, float],
    filters: Filters,
    limit: object,
    cursor: object,
    min_score: object,
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
    if not _non_negative(min_score) or not min_score <= 1:  # type: ignore[operator]
        errors.append(FieldError("$.min_score", "must be a number from 0 to 1"))
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


_PLAIN_TYPES: Final = {
    "text": (str,),
    "limit": (int,),
    "cursor": (str, type(None)),
    "explain": (bool,),
}


def _plain_criteria(data: Mapping[str, Any]) -> Criteria | None:
    """Criteria from a search box's request (text, limit, cursor, explain), without the converter.

    Gives what the converter gives for these plain types (the checks follow
    either way); any other key or type takes the converter, which reports it.
    """
    for key, value in data.items():
        types = _PLAIN_TYPES.get(key)
        if types is None or type(value) not in types:
            return None
    return Criteria(**data)


_Request = TypeVar("_Request", "Criteria", "Exemplar")


def _checked_as_wire(request: _Request, cls: type[_Request]) -> _Request:
    """Check criteria or an exemplar built in code exactly as its JSON form is checked.

    Their leaf fields have no validators of their own (text, identifiers,
    tags, numbers, flags): the JSON form's converter checks them, and names
    each bad one with its path. So an object goes through its wire form and
    back, and the rebuilt, checked one is used.
    """
    try:
        wire = to_wire(request)
    except Exception:  # noqa: BLE001 - an object altered into something unwritable
        raise InvalidRequest.at(
            "$", f"the {cls.__name__}'s fields do not form a JSON object"
        ) from None
    return from_wire(wire, cls)


def parse_criteria(data: Criteria | Mapping[str, Any]) -> Criteria:
    """Structure and check find criteria.

    Raises:
        InvalidRequest: listing every bad field with its path.
    """
    if not isinstance(data, Criteria | Mapping):
        raise InvalidRequest.at("$", "criteria must be a Criteria or a JSON object")
    if isinstance(data, Criteria):
        criteria = _checked_as_wire(data, Criteria)
    else:
        criteria = _plain_criteria(data) or from_wire(data, Criteria)
    errors: list[FieldError] = _repeated(data, _CRITERIA_SETS)
    if len(criteria.text) > MAX_TEXT:
        errors.append(FieldError("$.text", f"at most {MAX_TEXT} characters"))
    _check_common(
        errors,
        criteria.weights,
        criteria.filters,
        criteria.limit,
        criteria.cursor,
        criteria.min_score,
    )
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
    if isinstance(data, Exemplar):
        exemplar = _checked_as_wire(data, Exemplar)
    else:
        exemplar = from_wire(data, Exemplar)
    errors: list[FieldError] = _repeated(data, _EXEMPLAR_SETS)
    if (exemplar.decision_id is None) == (exemplar.decision is None):
        errors.append(FieldError("$.decision_id", "give exactly one of decision_id and decision"))
    if exemplar.decision is not None:
        errors.extend(_exemplar_problems(exemplar.decision))
    _check_common(
        errors,
        exemplar.weights,
        exemplar.filters,
        exemplar.limit,
        exemplar.cursor,
        exemplar.min_score,
    )
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


converter.register_unstructure_hook(Counts, dict)
