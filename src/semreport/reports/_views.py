"""What the HTML page draws beside the report's own members: charts, totals and cost lines.

Everything here is a pure function of a :class:`~semreport.reports.Report`, so
:func:`~semreport.verify` renders the same page again from the embedded JSON.
Numbers are summed with :func:`math.fsum` in sequence order and formatted
without locale, so the same report always gives the same text.
"""

from __future__ import annotations

import fractions
import math
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Final

import attrs

from semreport.domain import Decision, DecisionDomain, DecisionStatus, EvidenceKind
from semreport.reports._model import Report

__all__ = [
    "COST_ATTRIBUTE",
    "TOTALLED_ATTRIBUTES",
    "Bar",
    "Chart",
    "CostLine",
    "Costs",
    "PageView",
    "Segment",
    "Total",
    "ViewBuilder",
    "format_amount",
    "page_view",
]

TOTALLED_ATTRIBUTES: Final = ("cost_eur", "co2e_kg")
"""The numeric attributes the page totals per domain (over decisions in force)."""

COST_ATTRIBUTE: Final = "cost_eur"
"""The attribute whose values the page lists as cost lines."""

_UNITS: Final = {"cost_eur": "€", "co2e_kg": "kg CO₂e"}
_CHART_WIDTH: Final = 560
_LABEL_WIDTH: Final = 88
_VALUE_WIDTH: Final = 150
_ROW: Final = 26
_NONE: Final = "\u2014"  # no decision in force carries the attribute
_BAR: Final = 18


@attrs.frozen
class Segment:
    """One coloured part of a bar, in chart units."""

    x: str
    width: str
    css: str
    title: str


@attrs.frozen
class Bar:
    """One labelled row of a horizontal bar chart."""

    label: str
    href: str
    y: int
    segments: tuple[Segment, ...]
    value: str


@attrs.frozen
class Chart:
    """A horizontal bar chart drawn as inline SVG (no script, no style attribute)."""

    id: str
    title: str
    description: str
    height: int
    bars: tuple[Bar, ...]
    legend: tuple[tuple[str, str], ...] = ()

    @property
    def width(self) -> int:
        """The chart's width in its own units."""
        return _CHART_WIDTH

    @property
    def value_x(self) -> int:
        """Where the value column ends (values are right-aligned)."""
        return _CHART_WIDTH - 2


@attrs.frozen
class Total:
    """One attribute's total in one domain, over the decisions in force."""

    domain: DecisionDomain
    value: str
    decisions: int


@attrs.frozen
class CostLine:
    """A decision carrying a cost, as the cost table lists it (not the whole decision)."""

    sequence: int
    id: str
    title: str
    domain: DecisionDomain
    status: DecisionStatus
    amount: str
    in_force: bool
    superseded: bool
    cost_lines: tuple[str, ...]


@attrs.frozen
class Costs:
    """The cost table: every decision with a cost and the totals."""

    lines: tuple[CostLine, ...]
    total_in_force: str
    total_listed: str
    unit: str


@attrs.frozen
class PageView:
    """Everything the page shows that the report does not hold as such."""

    in_force: frozenset[str]
    status_chart: Chart
    totals: tuple[tuple[str, str, tuple[Total, ...], str], ...]
    total_charts: tuple[Chart, ...]
    costs: Costs | None


def format_amount(value: float) -> str:
    """Format a number with thousands separators: integers as such, others with two decimals.

    A total beyond the largest float (the sum of recorded amounts near it) is ``∞``.
    """
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    if isinstance(value, int) or (value.is_integer() and abs(value) < 2**53):
        return f"{int(value):,}"
    return f"{value:,.2f}"


def _number(value: object) -> float | int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value


def _sum(values: Sequence[float | int]) -> float | int:
    if all(isinstance(v, int) for v in values):
        return sum(values)
    try:
        return math.fsum(values)
    except OverflowError:  # finite amounts whose sum a float cannot hold on the way
        exact = sum(map(fractions.Fraction, values))
        try:
            return float(exact)
        except OverflowError:
            return math.inf if exact > 0 else -math.inf


class ViewBuilder:
    """Gathers what the page draws from the records, one record at a time, in sequence order.

    Only counts, the numbers to total and the cost lines are kept, never the
    decisions themselves, so a page can be rendered from records streamed
    out of Decision Memory.
    """

    def __init__(self) -> None:
        self._counts: dict[DecisionDomain, dict[DecisionStatus, int]] = {}
        self._accepted: list[str] = []
        self._present: dict[str, bool] = dict.fromkeys(TOTALLED_ATTRIBUTES, False)
        # Per totalled attribute: (domain, id, value) of accepted decisions, in sequence order.
        self._values: dict[str, list[tuple[DecisionDomain, str, float | int]]] = {
            name: [] for name in TOTALLED_ATTRIBUTES
        }
        self._cost_lines: list[
            tuple[int, str, str, DecisionDomain, DecisionStatus, float | int, tuple[str, ...]]
        ] = []

    def add(self, decision: Decision) -> None:
        """Add the next record."""
        counts = self._counts.get(decision.domain)
        if counts is None:
            counts = self._counts[decision.domain] = dict.fromkeys(DecisionStatus, 0)
        counts[decision.status] += 1
        accepted = decision.status is DecisionStatus.ACCEPTED
        if accepted:
            self._accepted.append(decision.id)
        for name in TOTALLED_ATTRIBUTES:
            number = _number(decision.attributes.get(name))
            if number is None:
                continue
            self._present[name] = True
            if accepted:
                self._values[name].append((decision.domain, decision.id, number))
        amount = _number(decision.attributes.get(COST_ATTRIBUTE))
        if amount is not None:
            assert decision.sequence is not None
            refs = tuple(e.ref for e in decision.evidence if e.kind is EvidenceKind.COST_LINE)
            self._cost_lines.append(
                (
                    decision.sequence,
                    decision.id,
                    decision.title,
                    decision.domain,
                    decision.status,
                    amount,
                    refs,
                )
            )

    def finish(self, domains: Sequence[DecisionDomain], superseded: AbstractSet[str]) -> PageView:
        """Return the page's view, once every record is added.

        Args:
            domains: The domains of the report's sections, in order.
            superseded: The ids a decision of the report supersedes.
        """
        in_force = frozenset(i for i in self._accepted if i not in superseded)
        totals, charts = self._totals(domains, in_force)
        return PageView(
            in_force=in_force,
            status_chart=_status_chart(domains, self._counts),
            totals=totals,
            total_charts=charts,
            costs=self._costs_of(in_force, superseded),
        )

    def _totals(
        self, domains: Sequence[DecisionDomain], in_force: frozenset[str]
    ) -> tuple[tuple[tuple[str, str, tuple[Total, ...], str], ...], tuple[Chart, ...]]:
        table = []
        charts = []
        for name in TOTALLED_ATTRIBUTES:
            if not self._present[name]:
                continue
            values: dict[DecisionDomain, list[float | int]] = {domain: [] for domain in domains}
            for domain, decision_id, number in self._values[name]:
                if decision_id in in_force:
                    values[domain].append(number)
            unit = _UNITS.get(name, "")
            sums = {domain: _sum(v) for domain, v in values.items()}
            totals = tuple(
                Total(
                    domain,
                    format_amount(sums[domain]) if values[domain] else _NONE,
                    len(values[domain]),
                )
                for domain in domains
            )
            grand = format_amount(_sum(list(sums.values())))
            table.append((name, unit, totals, grand))
            counted = {domain for domain, v in values.items() if v}
            charts.append(_total_chart(name, unit, domains, sums, counted))
        return tuple(table), tuple(charts)

    def _costs_of(self, in_force: frozenset[str], superseded: AbstractSet[str]) -> Costs | None:
        if not self._cost_lines:
            return None
        lines = []
        counted: list[float | int] = []
        listed: list[float | int] = []
        for sequence, decision_id, title, domain, status, amount, refs in self._cost_lines:
            listed.append(amount)
            if decision_id in in_force:
                counted.append(amount)
            lines.append(
                CostLine(
                    sequence=sequence,
                    id=decision_id,
                    title=title,
                    domain=domain,
                    status=status,
                    amount=format_amount(amount),
                    in_force=decision_id in in_force,
                    superseded=decision_id in superseded,
                    cost_lines=refs,
                )
            )
        return Costs(
            tuple(lines),
            format_amount(_sum(counted)),
            format_amount(_sum(listed)),
            _UNITS[COST_ATTRIBUTE],
        )


def _status_chart(
    domains: Sequence[DecisionDomain], counted: Mapping[DecisionDomain, dict[DecisionStatus, int]]
) -> Chart:
    counts = {domain: counted.get(domain, dict.fromkeys(DecisionStatus, 0)) for domain in domains}
    largest = max((sum(c.values()) for c in counts.values()), default=0) or 1
    span = _CHART_WIDTH - _LABEL_WIDTH - _VALUE_WIDTH
    bars = []
    for row, domain in enumerate(domains):
        x = float(_LABEL_WIDTH)
        segments = []
        for status, count in counts[domain].items():
            if not count:
                continue
            width = span * count / largest
            segments.append(
                Segment(
                    f"{x:.1f}",
                    f"{width:.1f}",
                    f"s-{status.value}",
                    f"{domain.value}: {count} {status.value}",
                )
            )
            x += width
        total = sum(counts[domain].values())
        bars.append(
            Bar(
                domain.value,
                f"#domain-{domain.value}",
                row * _ROW,
                tuple(segments),
                f"{total} decision{'' if total == 1 else 's'}",
            )
        )
    return Chart(
        "chart-status",
        "Decisions by domain and status",
        "One bar per domain, split by stored status.",
        max(len(bars), 1) * _ROW,
        tuple(bars),
        tuple((f"s-{status.value}", status.value) for status in DecisionStatus),
    )


def _total_chart(
    name: str,
    unit: str,
    domains: Sequence[DecisionDomain],
    sums: Mapping[DecisionDomain, float],
    counted: set[DecisionDomain],
) -> Chart:
    largest = max((abs(v) for v in sums.values()), default=0) or 1
    span = _CHART_WIDTH - _LABEL_WIDTH - _VALUE_WIDTH
    bars = []
    for row, domain in enumerate(domains):
        value = sums[domain]
        if math.isinf(largest):  # only the infinite totals fill the width
            width = span if math.isinf(value) else 0.0
        else:
            width = span * abs(value) / largest
        shown = f"{format_amount(value)} {unit}".strip() if domain in counted else _NONE
        segments = (
            (
                Segment(
                    f"{_LABEL_WIDTH:.1f}",
                    f"{width:.1f}",
                    "total" if value >= 0 else "credit",
                    f"{domain.value}: {shown}",
                ),
            )
            if value
            else ()
        )
        bars.append(Bar(domain.value, f"#domain-{domain.value}", row * _ROW, segments, shown))
    return Chart(
        f"chart-{name}",
        f"{name} in force by domain",
        f"Sum of {name} over accepted decisions that nothing supersedes, per domain.",
        max(len(bars), 1) * _ROW,
        tuple(bars),
    )


def page_view(report: Report) -> PageView:
    """Compute the charts, totals and cost lines the page shows for ``report``."""
    builder = ViewBuilder()
    superseded: set[str] = set()
    for record in report.records:
        builder.add(record.decision)
        superseded.update(record.decision.supersedes)
    return builder.finish([section.domain for section in report.sections], superseded)
