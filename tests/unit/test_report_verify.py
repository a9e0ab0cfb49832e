"""``verify``: what matches, and where and why anything does not."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime

import pytest

import semreport
from _report_support import FakeMemory, decision, sample_project
from semreport import InvalidRequest, verify
from semreport.reports import assemble_report, build_report, render_html

WHEN = datetime(2026, 2, 3, tzinfo=UTC)


def report_data() -> dict:
    return semreport.to_wire(assemble_report(FakeMemory(sample_project()), "p-1"))


def locations(result: semreport.Verification) -> list[str]:
    return [p.location for p in result.problems]


class TestIntact:
    """An untouched report verifies from every accepted form."""

    def setup_method(self) -> None:
        self.memory = FakeMemory(sample_project())
        self.report = assemble_report(self.memory, "p-1")
        self.page = render_html(self.report, exported_at=WHEN)

    def test_every_form(self) -> None:
        forms = [
            self.page,
            self.page.encode(),
            self.report.to_json(),
            self.report.to_json().encode(),
            json.loads(self.report.to_json()),
            self.report,
            semreport.ReportExport(
                html=self.page, digest=self.report.digest, report=self.report, exported_at=WHEN
            ),
        ]
        for form in forms:
            result = verify(form)
            assert result.ok, result.problems
            assert result.citations
            assert result.records_root
            assert result.report_sha256
            assert result.body is True
            assert result.memory is None
            assert result.records == 6
            assert result.project_id == "p-1"
            assert result.as_of_sequence == 6

    def test_frozen_mapping(self) -> None:
        from semreport import FrozenDict
        from semreport.domain._values import freeze_json

        frozen = freeze_json(json.loads(self.report.to_json()))
        assert isinstance(frozen, FrozenDict)
        assert verify(frozen).ok

    def test_with_memory(self) -> None:
        result = verify(self.page, self.memory)
        assert result.ok
        assert result.memory is True
        assert any("memory" in m for m in result.matched)

    def test_later_appends_do_not_break_an_old_report(self) -> None:
        self.memory.held.append(decision(7, "late"))
        assert verify(self.page, self.memory).ok

    def test_result_is_wire_serialisable(self) -> None:
        data = semreport.to_wire(verify(self.page))
        assert data["ok"] is True
        assert data["problems"] == []

    def test_empty_report(self) -> None:
        assert verify(build_report("p-1", []).to_json()).ok


class TestTampered:
    """A tampered report gives ok=False and names the place."""

    def test_record_content(self) -> None:
        data = report_data()
        data["records"][2]["decision"]["statement"] = "changed"
        result = verify(data)
        assert not result.ok
        assert not result.citations
        assert not result.records_root
        (finding,) = [p for p in result.problems if p.location == "$.records[2]"]
        assert finding.sequence == 3
        assert finding.decision_id == "mat-2"
        assert "citation id" in finding.reason
        assert "$.digest.records_root" in locations(result)

    def test_record_and_citation_changed_together(self) -> None:
        data = report_data()
        original = report_data()
        data["records"][0]["decision"]["title"] = "Forged"
        from semreport.canonical import canonical_json
        from semreport.reports import citation_id

        data["records"][0]["sha256"] = citation_id(canonical_json(data["records"][0]["decision"]))
        result = verify(data)
        assert result.citations
        assert not result.records_root
        assert "$.sections[0].current[0].title" in locations(result)
        assert verify(original).ok

    def test_summary_field(self) -> None:
        data = report_data()
        data["summary"]["by_agent"]["agent-mat"] = 4
        result = verify(data)
        assert result.records_root
        assert not result.report_sha256
        assert result.body is False
        assert "$.summary.by_agent.agent-mat" in locations(result)

    def test_sections_added_and_removed_members(self) -> None:
        data = report_data()
        del data["sections"][0]["evidence"]
        data["sections"][1]["extra"] = 1
        data["sections"][2]["current"].append({"id": "x"})
        result = verify(data)
        found = locations(result)
        assert "$.sections[0].evidence" in found
        assert "$.sections[1].extra" in found
        assert "$.sections[2].current" in found

    def test_digest_fields(self) -> None:
        data = report_data()
        data["digest"]["records_root"] = "0" * 64
        data["digest"]["report_sha256"] = "1" * 64
        data["digest"]["records"] = 5
        data["digest"]["as_of_sequence"] = 9
        data["digest"]["scheme"] = "other"
        data["digest"]["extra"] = True
        result = verify(data)
        assert set(locations(result)) == {
            "$.digest.records_root",
            "$.digest.report_sha256",
            "$.digest.records",
            "$.digest.as_of_sequence",
            "$.digest.scheme",
            "$.digest.extra",
        }

    def test_header_fields(self) -> None:
        data = report_data()
        data["schema"] = "semreport.report/2"
        data["as_of_sequence"] = 7
        data["unknown"] = 1
        result = verify(data)
        found = locations(result)
        assert "$.schema" in found
        assert "$.as_of_sequence" in found
        assert "$.unknown" in found

    def test_project_id(self) -> None:
        data = report_data()
        data["project_id"] = "p-2"
        result = verify(data)
        assert "$.records[0].decision.project_id" in locations(result)
        assert result.body is None

    def test_records_reordered(self) -> None:
        data = report_data()
        data["records"][0], data["records"][1] = data["records"][1], data["records"][0]
        result = verify(data)
        assert "$.records[1].decision.sequence" in locations(result)
        assert not result.records_root

    def test_record_removed(self) -> None:
        data = report_data()
        del data["records"][3]
        result = verify(data)
        assert "$.digest.records" in locations(result)
        assert not result.ok

    def test_duplicated_id(self) -> None:
        data = report_data()
        data["records"][1]["decision"]["id"] = "reg-1"
        assert "$.records[1].decision.id" in locations(verify(data))

    def test_invalid_decision_is_located(self) -> None:
        data = report_data()
        data["records"][4]["decision"]["status"] = "acceptex"
        result = verify(data)
        assert "$.records[4].decision.status" in locations(result)
        assert result.body is None

    def test_unrecorded_decision(self) -> None:
        data = report_data()
        data["records"][4]["decision"]["sequence"] = None
        assert "$.records[4].decision.sequence" in locations(verify(data))

    @pytest.mark.parametrize(
        "damage",
        [
            lambda d: d.update(records="x"),
            lambda d: d.update(records=[1, {"decision": 2}]),
            lambda d: d.update(digest=[]),
            lambda d: d.pop("digest"),
            lambda d: d.update(project_id=3, as_of_sequence="6"),
            lambda d: d["records"][0].update(extra=1),
            lambda d: d["records"][0]["decision"].update(big=2**60),
            lambda d: d["records"][0]["decision"].update(nested={"x": [1.5, None, True]}),
            lambda d: d.update(summary=2**70),
        ],
    )
    def test_damaged_structure_never_raises(self, damage) -> None:
        data = report_data()
        damage(data)
        result = verify(copy.deepcopy(data))
        assert not result.ok
        assert result.problems

    def test_findings_are_capped(self) -> None:
        data = report_data()
        data["summary"]["by_agent"] = {f"ghost-{i}": 1 for i in range(500)}
        result = verify(data)
        assert len(result.problems) == 201
        assert result.problems[-1].reason.startswith("more differences")

    def test_memory_disagrees(self) -> None:
        memory = FakeMemory(sample_project())
        data = report_data()
        data["records"][1]["decision"]["rationale"] = "edited"
        result = verify(data, memory)
        assert result.memory is False
        (finding,) = [p for p in result.problems if p.location == "$.records[1].decision"]
        assert "rationale" in finding.reason
        assert finding.decision_id == "mat-1"

    def test_memory_missing_and_extra(self) -> None:
        data = report_data()
        memory = FakeMemory([d for d in sample_project() if d.sequence != 2])
        memory.held.append(decision(2, "other-2"))
        result = verify(data, memory)
        assert not result.memory
        data["records"].pop(2)
        result = verify(data, FakeMemory(sample_project()))
        assert any("does not cite" in p.reason for p in result.problems)
        result = verify(data, FakeMemory([]))
        assert any("holds no decision" in p.reason for p in result.problems)

    def test_memory_without_project(self) -> None:
        data = report_data()
        data["project_id"] = None
        result = verify(data, FakeMemory(sample_project()))
        assert result.memory is False
        assert "$" in locations(result)

    def test_memory_record_without_sequence(self) -> None:
        data = report_data()
        data["records"][0]["decision"]["sequence"] = "one"
        result = verify(data, FakeMemory(sample_project()))
        assert any("no sequence" in p.reason for p in result.problems)


class TestNotAReport:
    """Something that is not a report at all raises INVALID_REQUEST."""

    @pytest.mark.parametrize(
        "document",
        [
            "",
            "hello",
            "<html><body>no report here</body></html>",
            "{not json",
            '{"a": NaN}',
            "[1, 2]",
            '{"title": "x"}',
            b"\xff\xfe",
            42,
            None,
            ["records"],
        ],
    )
    def test_invalid_request(self, document: object) -> None:
        with pytest.raises(InvalidRequest) as caught:
            verify(document)
        assert caught.value.code == "INVALID_REQUEST"

    def test_two_report_blocks(self) -> None:
        page = render_html(build_report("p-1", [decision(1)]), exported_at=WHEN)
        block = page[page.index("<script") :]
        with pytest.raises(InvalidRequest, match="more than one"):
            verify(page + block)

    def test_block_that_does_not_parse(self) -> None:
        page = render_html(build_report("p-1", [decision(1)]), exported_at=WHEN)
        broken = page.replace('"records":[', '"records":[[', 1)
        with pytest.raises(InvalidRequest, match="does not parse"):
            verify(broken)
