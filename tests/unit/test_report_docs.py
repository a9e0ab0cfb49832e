"""docs/digest.md: the worked example's numbers and the verifier on the page are right."""

from __future__ import annotations

import hashlib
import json
import re
from datetime import UTC, datetime
from pathlib import Path

import rfc8785

import semreport
from semreport.reports import build_report, prove, render_html

DOC = Path(__file__).resolve().parents[2] / "docs" / "digest.md"


def example() -> semreport.Report:
    d1 = semreport.from_wire(
        {
            "id": "d-1",
            "project_id": "p-demo",
            "title": "Timber frame",
            "statement": "Use a CLT frame.",
            "agent": "agent-mat",
            "domain": "material",
            "status": "accepted",
            "attributes": {"co2e_kg": 48000.5},
        },
        semreport.Decision,
    ).recorded(1, datetime(2026, 1, 5, 9, 0, tzinfo=UTC))
    d2 = semreport.from_wire(
        {
            "id": "d-2",
            "project_id": "p-demo",
            "title": "Fire rating",
            "statement": "Encapsulate to 90 min.",
            "agent": "agent-reg",
            "domain": "regulation",
            "status": "proposed",
            "links": [{"kind": "depends_on", "target": "d-1"}],
        },
        semreport.Decision,
    ).recorded(2, datetime(2026, 1, 5, 9, 5, tzinfo=UTC))
    return build_report("p-demo", [d1, d2])


class TestWorkedExample:
    """Every number of section 5 is recomputed."""

    def test_numbers(self) -> None:
        text = DOC.read_text(encoding="utf-8")
        report = example()
        for record in report.records:
            data = rfc8785.dumps(semreport.to_wire(record.decision))
            assert data.decode() in text
            assert hashlib.sha256(data).hexdigest() in text
            assert hashlib.sha256(b"\x00" + data).hexdigest() in text
        first = rfc8785.dumps(semreport.to_wire(report.records[0].decision))
        assert f"{len(first)} bytes" in text
        assert report.digest.records_root in text
        assert report.digest.report_sha256 in text
        assert json.dumps(semreport.to_wire(report.digest), indent=2) in text
        assert list(prove(report, "d-2").audit_path) == [
            hashlib.sha256(b"\x00" + first).hexdigest()
        ]

    def test_verifier_on_the_page_works(self) -> None:
        code = DOC.read_text(encoding="utf-8").split("```python\n", 1)[1].split("```", 1)[0]
        namespace: dict = {}
        exec(compile(code, str(DOC), "exec"), namespace)  # the page's own code
        page = render_html(example(), exported_at=datetime(2026, 1, 6, tzinfo=UTC))
        assert namespace["check"](page)
        assert namespace["check"](example().to_json())
        assert not namespace["check"](page.replace("Timber frame", "Steel frame"))
        assert re.search("Steel", page) is None

    def test_verifier_on_the_page_reads_every_accepted_number(self) -> None:
        code = DOC.read_text(encoding="utf-8").split("```python\n", 1)[1].split("```", 1)[0]
        namespace: dict = {}
        exec(compile(code, str(DOC), "exec"), namespace)  # the page's own code
        edges = [1.0e17, 2.0**53, 9007199254740993.0, 1e21, -0.0, 5e-324, 2**53 - 1]
        record = semreport.from_wire(
            {
                "id": "d-1",
                "project_id": "p-demo",
                "title": "Edges of the double range",
                "statement": "Whole-number floats between 2**53 and 1e21.",
                "agent": "agent-cost",
                "attributes": {f"n{i}": value for i, value in enumerate(edges)},
            },
            semreport.Decision,
        ).recorded(1, datetime(2026, 1, 5, 9, 0, tzinfo=UTC))
        report = build_report("p-demo", [record])
        assert '"n0":100000000000000000' in report.to_json()
        assert namespace["check"](render_html(report, exported_at=datetime(2026, 1, 6, tzinfo=UTC)))
        assert namespace["check"](report.to_json())


class TestCanonicalModule:
    """The page names the public module that implements its definitions."""

    def test_names(self) -> None:
        text = DOC.read_text(encoding="utf-8")
        import semreport.canonical as canonical

        for name in ("canonical_json", "canonical_json_fast", "record_bytes", "record_sha256"):
            assert f"`{name}(" in text
            assert name in canonical.__all__
        assert "`semreport.canonical`" in text
