"""Notebook views: decisions, reports, report exports and session exports."""

from __future__ import annotations

import re

import semreport
from _report_support import FakeMemory, sample_project
from semreport import sample
from semreport.exports import SessionExport, export_legacy_session
from semreport.reports import assemble_report
from semreport.testing import sample_session


class TestDecision:
    """A decision's card shows every field."""

    def test_recorded_decision(self) -> None:
        decision = next(d for d in sample_project() if d.id == "cost-1")
        page = decision._repr_html_()
        for text in ("Budget for frame", "cost-1", "cost, proposed", "agent-cost", "sequence 4"):
            assert text in page
        assert "<th>cost_eur</th><td>1250000</td>" in page
        assert "cost_line: BQ 2.1, Frame" in page
        assert "depends_on <code>mat-2</code>" in page

    def test_unrecorded_decision_with_everything(self) -> None:
        decision = next(d for d in sample.decisions() if d.session_id and d.elements and d.tags)
        page = decision._repr_html_()
        assert "not recorded" in page
        assert f"<code>{decision.session_id}</code>" in page
        assert "<em>Tags:</em>" in page
        assert "<em>Elements:</em>" in page

    def test_escaped(self) -> None:
        decision = semreport.Decision(
            id="d-1",
            project_id="p-1",
            title="<script>x</script>",
            statement="a & b",
            agent="a",
            attributes={"note": "<b>", "flag": True, "n": 2.5},
        )
        page = decision._repr_html_()
        assert "<script>" not in page
        assert "&lt;script&gt;" in page
        assert "a &amp; b" in page
        assert "<td>&lt;b&gt;</td>" in page
        assert "<th>flag</th><td>true</td>" in page
        assert "<th>n</th><td>2.5</td>" in page


class TestReport:
    """A report's repr is short; its view has the summary, digest and section links."""

    def setup_method(self) -> None:
        with semreport.open("memory://") as sr:
            sample.load_into(sr)
            self.exported = sr.export_report(sample.PROJECT_ID)
        self.report = self.exported.report

    def test_repr_is_short(self) -> None:
        text = repr(self.report)
        assert len(text) < 200
        assert "'lindenhof'" in text
        assert "97 decisions in 4 sections" in text
        assert self.report.digest.report_sha256[:16] in text

    def test_long_project_ids_are_cut(self) -> None:
        report = assemble_report(FakeMemory([]), "p-" + "x" * 200)
        assert len(repr(report)) < 200

    def test_view_links_each_section_to_its_anchor(self) -> None:
        page = self.report._repr_html_()
        links = re.findall(r'href="#([^"]+)"', page)
        anchors = re.findall(r'id="([^"]+)"', page)
        assert len(anchors) == len(self.report.sections)
        assert set(links) == set(anchors)
        assert all(
            a.startswith(f"semreport-{self.report.digest.report_sha256[:12]}-") for a in anchors
        )
        assert self.report.digest.records_root in page
        assert "and 11 more" in page  # material holds 21 current decisions; ten are listed

    def test_export_repr_and_view(self) -> None:
        text = repr(self.exported)
        assert len(text) < 400
        assert "characters>" in text
        page = self.exported._repr_html_()
        assert "report.html" in page
        assert self.report._repr_html_() in page


class TestSessionExport:
    """Session exports say what they hold."""

    def test_json_graph_and_pdf(self) -> None:
        session = sample_session(7)
        json_view = export_legacy_session(session, "json")._repr_html_()
        assert "7 turns" in json_view
        assert "Ana Łukasiewicz" in json_view
        graph_view = export_legacy_session(session, "graph")._repr_html_()
        assert "Graph: " in graph_view
        assert "7 turn" in graph_view
        graphml = export_legacy_session(session, "graph", graph_format="graphml")._repr_html_()
        assert "Graph:" not in graphml
        assert "graph</strong> export" in graphml

    def test_other_json_is_not_summarised(self) -> None:
        for content in (b"not json", b"[1, 2]", b'{"other": 1}'):
            export = SessionExport("s-1", "json", content, "application/json", "s-1.json")
            page = export._repr_html_()
            assert "<p><small>sha256" in page
            assert page.count("<p>") == 2  # the file line and the sha256 line
