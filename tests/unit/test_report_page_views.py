"""The page's navigation, charts, totals, cost lines and print stylesheet."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from html.parser import HTMLParser

import pytest

import semreport
from _report_support import FakeMemory, decision, sample_project
from semreport.reports import (
    COST_ATTRIBUTE,
    TOTALLED_ATTRIBUTES,
    assemble_report,
    build_report,
    render_html,
)
from semreport.reports._views import format_amount, page_view

WHEN = datetime(2026, 2, 3, 4, 5, 6, tzinfo=UTC)


class _Anchors(HTMLParser):
    """Collects ids and in-page link targets."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.append(str(values["id"]))
        href = values.get("href") or ""
        if href.startswith("#"):
            self.links.append(href[1:])


def _between(page: str, start: str, end: str) -> str:
    return page.split(start, 1)[1].split(end, 1)[0]


class TestNavigation:
    """A table of contents and a navigation bar per domain; every link lands."""

    def setup_method(self) -> None:
        self.report = assemble_report(FakeMemory(sample_project()), "p-1")
        self.page = render_html(self.report, exported_at=WHEN)

    def test_table_of_contents_lists_every_part_in_order(self) -> None:
        toc = _between(self.page, '<nav id="toc"', "</nav>")
        targets = re.findall(r'href="#([^"]+)"', toc)
        domains = [f"domain-{s.domain.value}" for s in self.report.sections]
        assert targets == ["digest", "summary", "costs", *domains, "records"]

    def test_each_domain_has_navigation_to_the_others_and_its_parts(self) -> None:
        for section in self.report.sections:
            key = f"domain-{section.domain.value}"
            body = _between(self.page, f'<section id="{key}"', "</section>")
            nav = _between(body, '<nav class="domain-nav"', "</nav>")
            assert 'href="#toc"' in nav
            assert f'aria-current="location">{section.domain.value.capitalize()}<' in nav
            others = {f"domain-{s.domain.value}" for s in self.report.sections} - {key}
            assert set(re.findall(r'href="#(domain-[a-z]+)"', nav)) == others
            for part in ("current", "proposals", "chains", "evidence"):
                assert f'href="#{key}-{part}"' in nav
                assert f'id="{key}-{part}"' in body

    def test_every_in_page_link_has_a_target_and_ids_are_unique(self) -> None:
        parser = _Anchors()
        parser.feed(self.page)
        assert len(parser.ids) == len(set(parser.ids))
        assert set(parser.links) <= set(parser.ids)

    def test_decisions_link_back_to_their_domain(self) -> None:
        article = _between(self.page, 'id="decision-mat-2">', "</article>")
        assert '<a class="badge" href="#domain-material">material</a>' in article


class TestCharts:
    """The summary draws inline SVG: no script, no style attribute, no external reference."""

    def setup_method(self) -> None:
        self.report = assemble_report(FakeMemory(sample_project()), "p-1")
        self.page = render_html(self.report, exported_at=WHEN)
        self.summary = _between(self.page, '<section id="summary"', "</section>")

    def test_status_chart_has_one_bar_per_domain_split_by_status(self) -> None:
        chart = _between(self.summary, '<figure class="chart" id="chart-status">', "</figure>")
        assert chart.count("<g transform=") == len(self.report.sections) + 4  # bars + legend
        assert "<title>material: 2 accepted</title>" in chart
        assert "<title>material: 1 proposed</title>" in chart
        assert 'role="img"' in chart

    def test_a_chart_per_totalled_attribute_present(self) -> None:
        assert 'id="chart-cost_eur"' in self.summary
        assert 'id="chart-co2e_kg"' in self.summary

    def test_no_style_attribute_or_script_anywhere(self) -> None:
        assert " style=" not in self.page
        assert self.page.count("<script") == 1

    def test_an_empty_report_draws_an_empty_chart_and_verifies(self) -> None:
        _, page = _page([])
        assert 'id="chart-status"' in page
        assert "<rect" in page  # the legend only
        assert semreport.verify(page).ok

    def test_no_totals_without_the_attributes(self) -> None:
        _, page = _page([decision(1, domain="cost", status="accepted")])
        assert 'id="chart-status"' in page
        assert "chart-cost_eur" not in page
        assert 'id="costs"' not in page
        assert 'href="#costs"' not in page
        assert "Totals over decisions in force" not in page


def _page(records: list[semreport.Decision]) -> tuple[semreport.Report, str]:
    report = build_report("p-1", records)
    return report, render_html(report, exported_at=WHEN)


class TestTotals:
    """Totals count decisions in force: accepted and not superseded."""

    def test_in_force_excludes_superseded_proposed_and_rejected(self) -> None:
        records = [
            decision(1, "a", domain="cost", status="accepted", attributes={"cost_eur": 100}),
            decision(
                2,
                "b",
                domain="cost",
                status="accepted",
                attributes={"cost_eur": 250},
                links=[{"kind": "supersedes", "target": "a"}],
            ),
            decision(3, "c", domain="cost", status="proposed", attributes={"cost_eur": 7}),
            decision(4, "d", domain="cost", status="rejected", attributes={"cost_eur": 9}),
            decision(5, "e", domain="material", status="accepted", attributes={"cost_eur": 1.5}),
            decision(6, "f", domain="material", status="accepted", attributes={"cost_eur": True}),
        ]
        view = page_view(build_report("p-1", records))
        assert view.in_force == {"b", "e", "f"}
        (name, unit, totals, grand), *_ = view.totals
        assert (name, unit) == ("cost_eur", "€")
        assert {t.domain.value: (t.value, t.decisions) for t in totals} == {
            "material": ("1.50", 1),
            "cost": ("250", 1),
        }
        assert grand == "251.50"
        assert view.costs is not None
        assert [line.id for line in view.costs.lines] == ["a", "b", "c", "d", "e"]
        assert view.costs.total_in_force == "251.50"
        assert view.costs.total_listed == "367.50"

    def test_totals_beyond_the_largest_float_show_as_infinite(self) -> None:
        huge = 1.7e308
        records = [
            decision(n, f"d-{n}", domain="cost", status="accepted", attributes={"cost_eur": huge})
            for n in range(1, 4)
        ] + [
            decision(4, "m", domain="material", status="accepted", attributes={"cost_eur": 5.0}),
            decision(5, "n", domain="lifecycle", status="accepted", attributes={"cost_eur": -huge}),
            decision(6, "o", domain="lifecycle", status="accepted", attributes={"cost_eur": huge}),
        ]
        report = build_report("p-1", records)
        view = page_view(report)
        (_name, _unit, totals, grand), *_ = view.totals
        shown = {t.domain.value: t.value for t in totals}
        assert shown == {"cost": "∞", "material": "5", "lifecycle": "0"}
        assert grand == "∞"
        page = render_html(report, exported_at=WHEN)
        assert "nan" not in page.lower()
        assert semreport.verify(page).ok

    def test_float_totals_are_exact_and_order_free(self) -> None:
        values = [0.1] * 10 + [1e16, -1e16]
        records = [
            decision(n + 1, domain="cost", status="accepted", attributes={"co2e_kg": v})
            for n, v in enumerate(values)
        ]
        (_, unit, _, grand), *_ = page_view(build_report("p-1", records)).totals
        assert unit == "kg CO₂e"
        assert grand == "1"  # math.fsum: exactly 1.0, not 0.9999999999999999 or 0

    def test_a_domain_without_values_shows_a_dash_not_zero(self) -> None:
        records = [
            decision(1, domain="cost", status="accepted", attributes={"cost_eur": 5}),
            decision(2, domain="material", status="accepted"),
        ]
        report, page = _page(records)
        (_, _, totals, grand), *_ = page_view(report).totals
        assert {t.domain.value: t.value for t in totals} == {"material": "\u2014", "cost": "5"}
        assert grand == "5"
        chart = _between(page, 'id="chart-cost_eur"', "</figure>")
        assert ">\u2014</text>" in chart
        assert ">5 €</text>" in chart

    def test_negative_totals_draw_a_credit_bar(self) -> None:
        records = [decision(1, domain="cost", status="accepted", attributes={"cost_eur": -40})]
        _, page = _page(records)
        assert 'class="credit"' in page
        assert "-40 €" in page

    @pytest.mark.parametrize(
        ("value", "shown"),
        [(0, "0"), (1250000, "1,250,000"), (125000.5, "125,000.50"), (2.0, "2"), (-3.456, "-3.46")],
    )
    def test_amounts(self, value: float, shown: str) -> None:
        assert format_amount(value) == shown

    def test_the_constants(self) -> None:
        assert TOTALLED_ATTRIBUTES == ("cost_eur", "co2e_kg")
        assert COST_ATTRIBUTE == "cost_eur"


class TestCostLines:
    """Every decision with a cost, the cost lines it cites, amounts and totals."""

    def test_rows_amounts_and_totals(self) -> None:
        report = assemble_report(FakeMemory(sample_project()), "p-1")
        page = render_html(report, exported_at=WHEN)
        costs = _between(page, '<section id="costs"', "</section>")
        assert '<a href="#decision-cost-1">Budget for frame</a>' in costs
        assert '<code class="id">BQ 2.1</code>' in costs
        assert '<td class="num">1,250,000</td>' in costs
        assert 'class="not-in-force"' in costs  # cost-1 is a proposal
        footer = _between(costs, "<tfoot>", "</tfoot>")
        assert "Total in force" in footer
        assert "<strong>0</strong>" in footer
        assert "1,250,000" in footer


class TestPrint:
    """The print stylesheet breaks pages between parts and never inside ids or hashes."""

    def setup_method(self) -> None:
        self.page = render_html(
            assemble_report(FakeMemory(sample_project()), "p-1"), exported_at=WHEN
        )
        self.print = _between(self.page, "@media print {", "\n}\n")

    def test_page_breaks(self) -> None:
        assert 'section[id^="domain-"], #records, #costs { break-before: page; }' in self.print
        assert "article.decision { break-inside: avoid; }" in self.print.replace(
            "tr, figure.chart, .digest, ol.chain, ", ""
        )
        assert "h2, h3, h4, figcaption, caption { break-after: avoid; }" in self.print
        assert ".domain-nav { display: none; }" in self.print

    def test_ids_and_hashes_never_wrap(self) -> None:
        assert "code, .hash { white-space: nowrap;" in self.print
        assert "code.id { white-space: nowrap; }" in self.page

    def test_every_hash_and_id_is_its_own_element(self) -> None:
        # A token the stylesheet keeps whole must be a whole element: check citation ids.
        for citation in re.findall(r"sha256:[0-9a-f]{64}", self.page.split("<script", 1)[0]):
            assert f'<code class="hash">{citation}</code>' in self.page
