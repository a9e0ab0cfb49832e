"""Notebook views render every text as text: nothing a record holds becomes markup."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser

from hypothesis import given
from hypothesis import strategies as st

from semreport import Decision, FrozenDict, ScorerInfo
from semreport.exports import export_legacy_session
from semreport.reports import build_report
from semreport.search import AnalyzerInfo, AttributeSummary, SignalCatalogue, SignalInfo
from semreport.testing import strategies

T0 = datetime(2026, 1, 5, 9, 30, tzinfo=UTC)
DECISION_TAGS = {"div", "p", "strong", "code", "small", "em", "table", "tbody", "tr", "th", "td"}
DECISION_TAGS |= {"ul", "li", "q"}
REPORT_TAGS = {"div", "p", "strong", "code", "small", "table", "thead", "tbody", "tr", "th"}
REPORT_TAGS |= {"td", "a", "h4", "ul", "li"}


class _Reader(HTMLParser):
    """The tags and the text a browser would see."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: set[str] = set()
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def read(fragment: str) -> tuple[set[str], str]:
    reader = _Reader()
    reader.feed(fragment)
    reader.close()
    return reader.tags, "".join(reader.text)


@st.composite
def recorded_projects(draw: st.DrawFn) -> list[Decision]:
    ids = draw(st.lists(strategies.identifiers(), min_size=1, max_size=4, unique=True))
    return [
        draw(strategies.decisions(project_id="p-1", decision_id=own)).recorded(
            n, T0 + timedelta(minutes=n)
        )
        for n, own in enumerate(ids, start=1)
    ]


class TestDecisionView:
    """A decision's card shows each text exactly as text."""

    @given(strategies.decisions())
    def test_text_never_becomes_markup(self, decision: Decision) -> None:
        tags, text = read(decision._repr_html_())
        assert tags <= DECISION_TAGS
        for value in (decision.title, decision.statement, decision.rationale, decision.agent):
            assert value in text
        for item in decision.evidence:
            assert item.ref in text
            assert item.title in text
            if item.quote:
                assert item.quote in text
        for name in decision.attributes:
            assert name in text
        for tag in decision.tags:
            assert tag in text


class TestReportView:
    """A report's notebook view shows titles as text and stays short as a repr."""

    @given(recorded_projects())
    def test_text_never_becomes_markup(self, records: list[Decision]) -> None:
        report = build_report("p-1", records)
        tags, text = read(report._repr_html_())
        assert tags <= REPORT_TAGS
        for section in report.sections:
            for entry in (section.current + section.open_proposals)[:10]:
                assert entry.title in text
        for record in records:
            assert record.agent in text
        assert len(repr(report)) < 300


class TestSessionExportView:
    """A JSON session export's view shows the title and participants as text."""

    @given(strategies.legacy_sessions())
    def test_text_never_becomes_markup(self, session) -> None:  # type: ignore[no-untyped-def]
        exported = export_legacy_session(session, "json")
        tags, text = read(exported._repr_html_())
        assert tags <= {"div", "p", "strong", "code", "small"}
        assert session.title in text
        for person in session.participants:
            assert person.name in text
        assert len(repr(exported)) < 300


CATALOGUE_TAGS = {"div", "p", "strong", "code", "small", "table", "thead", "tbody", "tr", "th"}
CATALOGUE_TAGS |= {"td"}
_texts = st.text(min_size=1, max_size=30).filter(lambda t: t.strip() == t and "\r" not in t)


@st.composite
def catalogues(draw: st.DrawFn) -> SignalCatalogue:
    signals = tuple(
        SignalInfo(
            name=draw(_texts),
            kind=draw(_texts),
            description=draw(_texts),
            find_weight=1.0,
            similar_weight=0.5,
            coverage=0.25,
            needs=draw(_texts),
        )
        for _ in range(draw(st.integers(1, 3)))
    )
    facets = draw(
        st.dictionaries(_texts, st.dictionaries(_texts, st.integers(0, 9), max_size=3), max_size=3)
    )
    attributes = tuple(
        AttributeSummary(draw(_texts), 2, 0.0, 2.0, 1.0, 1.0)
        for _ in range(draw(st.integers(0, 2)))
    )
    return SignalCatalogue(
        project_id=draw(_texts),
        as_of_sequence=3,
        decisions=4,
        signals=signals,
        facets=FrozenDict({k: FrozenDict(v) for k, v in facets.items()}),
        attributes=attributes,
        superseded=1,
        superseded_policies=("demote",),
        scorer=ScorerInfo(name=draw(_texts), version=draw(_texts), model_inference=False),
        analyzer=AnalyzerInfo(draw(_texts), 3, True, 0),
    )


class TestCatalogueView:
    """The signal catalogue shows every name and description as text; its repr stays short."""

    @given(catalogues())
    def test_text_never_becomes_markup(self, catalogue: SignalCatalogue) -> None:
        tags, text = read(catalogue._repr_html_())
        assert tags <= CATALOGUE_TAGS
        assert catalogue.project_id in text
        assert catalogue.scorer.name in text
        for info in catalogue.signals:
            for value in (info.name, info.kind, info.description, info.needs):
                assert value in text
        for name, values in catalogue.facets.items():
            assert name in text
            for value in values:
                assert value in text
        for attribute in catalogue.attributes:
            assert attribute.name in text
        assert len(repr(catalogue)) < 400
