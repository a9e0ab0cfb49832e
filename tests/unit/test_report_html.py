"""The HTML export: self-contained, escaped, with the report JSON embedded."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import semreport
from _report_support import FakeMemory, decision, sample_project
from semreport.reports import assemble_report, build_report, embed_json, render_html

WHEN = datetime(2026, 2, 3, 4, 5, 6, tzinfo=UTC)
BLOCK = re.compile(r'<script type="application/json" id="semreport-report">(.*?)</script>', re.S)


def page_for(records: list[semreport.Decision]) -> tuple[semreport.Report, str]:
    report = build_report("p-1", records)
    return report, render_html(report, exported_at=WHEN)


class TestPage:
    """What the page shows."""

    def setup_method(self) -> None:
        self.report = assemble_report(FakeMemory(sample_project()), "p-1")
        self.page = render_html(self.report, exported_at=WHEN)

    def test_every_decision_is_anchored_with_its_citation_id(self) -> None:
        for record in self.report.records:
            anchor = f'<article class="decision" id="decision-{record.decision.id}">'
            assert anchor in self.page
            section = self.page.split(anchor, 1)[1].split("</article>", 1)[0]
            assert record.sha256 in section

    def test_digest_summary_sections_chains_and_evidence_are_visible(self) -> None:
        digest = self.report.digest
        for text in (digest.records_root, digest.report_sha256, "semreport-digest/1"):
            assert text in self.page
        for heading in (
            "Summary",
            "Current decisions",
            "Open proposals",
            "Supersession chains",
            "Evidence index",
        ):
            assert heading in self.page
        assert 'id="domain-material"' in self.page
        chain = self.page.split('<ol class="chain">', 1)[1].split("</ol>", 1)[0]
        assert chain.index("mat-1") < chain.index("mat-2") < chain.index("mat-3")
        assert "ADB B1 2.16" in self.page
        assert "Catalogue items" in self.page
        assert "superseded by" in self.page

    def test_evidence_index_keeps_kind_order(self) -> None:
        regulation = self.page.split('id="domain-regulation"', 1)[1].split("</section>", 1)[0]
        assert regulation.index("<h4>Regulations</h4>") < regulation.index("<h4>Documents</h4>")
        cost = self.page.split('id="domain-cost"', 1)[1].split("</section>", 1)[0]
        assert cost.index("<h4>Regulations</h4>") < cost.index("<h4>Cost lines</h4>")

    def test_export_time_is_in_the_page_not_in_the_report(self) -> None:
        assert "2026-02-03T04:05:06Z" in self.page
        (block,) = BLOCK.findall(self.page)
        assert "2026-02-03T04:05:06Z" not in block
        later = render_html(self.report, exported_at=datetime(2027, 1, 1, tzinfo=UTC))
        assert BLOCK.findall(later) == [block]

    def test_embedded_json_is_the_report(self) -> None:
        (block,) = BLOCK.findall(self.page)
        assert json.loads(block) == semreport.to_wire(self.report)


class TestSelfContained:
    """No scripts, no external requests, a restrictive CSP."""

    def setup_method(self) -> None:
        _, self.page = page_for(sample_project())

    def test_csp_meta_tag(self) -> None:
        csp = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', self.page)
        assert csp is not None
        policy = csp.group(1)
        assert "default-src 'none'" in policy
        assert "script-src 'none'" in policy
        assert re.search(r"style-src 'sha256-[A-Za-z0-9+/=]+'", policy)
        assert "unsafe-inline" not in policy

    def test_style_hash_matches_the_inline_css(self) -> None:
        import base64
        import hashlib

        css = re.search(r"<style>(.*?)</style>", self.page, re.S)
        assert css is not None
        digest = base64.b64encode(hashlib.sha256(css.group(1).encode()).digest()).decode()
        assert f"'sha256-{digest}'" in self.page

    def test_only_the_json_data_block_is_a_script(self) -> None:
        scripts = re.findall(r"<script\b[^>]*>", self.page)
        assert scripts == ['<script type="application/json" id="semreport-report">']
        assert " on" not in "".join(re.findall(r"<[a-z]+\b[^>]*>", self.page)).replace(" only", "")

    def test_no_external_references(self) -> None:
        assert not re.search(r'(src|href|action)\s*=\s*"(?!#)', self.page)
        assert "url(" not in self.page
        assert "@import" not in self.page
        assert "<link" not in self.page


class TestEscaping:
    """Record text renders as text and cannot end the JSON block."""

    NASTY = "</script><script>alert(\"x\")</script><!-- <b>&amp; 'q' \u2028\u2029 é 😀"

    def test_markup_in_record_text_is_escaped(self) -> None:
        record = decision(
            1,
            title=self.NASTY,
            statement=self.NASTY,
            rationale=self.NASTY,
            tags={"<i>tag</i>"},
            evidence=[{"kind": "document", "ref": self.NASTY, "quote": self.NASTY}],
        )
        _, page = page_for([record])
        assert "<script>alert" not in page
        assert "&lt;/script&gt;&lt;script&gt;alert(&#34;x&#34;)" in page
        assert "&lt;i&gt;tag&lt;/i&gt;" in page
        assert page.count("</script>") == 1
        assert page.count("<script") == 1
        (block,) = BLOCK.findall(page)
        assert "<" not in block
        assert ">" not in block
        assert "&" not in block
        assert "\u2028" not in block
        assert "\u2029" not in block
        assert json.loads(block)["records"][0]["decision"]["title"] == self.NASTY
        assert semreport.verify(page).ok

    def test_embed_json_round_trips(self) -> None:
        text = json.dumps({"a": self.NASTY}, ensure_ascii=False)
        escaped = embed_json(text)
        assert json.loads(escaped) == {"a": self.NASTY}
        assert "</" not in escaped
        assert "<!--" not in escaped
