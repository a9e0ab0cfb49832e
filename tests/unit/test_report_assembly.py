"""Report assembly: a pure function of Decision Memory as of a sequence number."""

from __future__ import annotations

import hashlib
import json

import pytest
import rfc8785

import semreport
from _report_support import FakeMemory, decision, sample_project
from semreport import DecisionStatus, InvalidRequest
from semreport.reports import REPORT_SCHEMA, assemble_report, build_report, canonical_report
from semreport.reports._model import join_object


class TestSummaryAndSections:
    """The summary counts and the per-domain sections."""

    def setup_method(self) -> None:
        self.report = assemble_report(FakeMemory(sample_project()), "p-1")

    def test_header(self) -> None:
        assert self.report.schema == REPORT_SCHEMA
        assert self.report.project_id == "p-1"
        assert self.report.as_of_sequence == 6

    def test_summary_counts_by_domain_status_and_agent(self) -> None:
        summary = self.report.summary
        assert summary.decisions == 6
        assert summary.superseded == 2
        assert dict(summary.by_domain) == {
            "regulation": 1,
            "material": 3,
            "cost": 1,
            "lifecycle": 1,
            "general": 0,
        }
        assert dict(summary.by_status) == {
            "proposed": 2,
            "accepted": 3,
            "rejected": 1,
            "deprecated": 0,
        }
        assert dict(summary.by_agent) == {
            "agent-a": 1,
            "agent-cost": 1,
            "agent-mat": 3,
            "agent-reg": 1,
        }

    def test_sections_follow_domain_order_and_skip_empty_domains(self) -> None:
        assert [s.domain.value for s in self.report.sections] == [
            "regulation",
            "material",
            "cost",
            "lifecycle",
        ]

    def test_current_decisions_exclude_superseded_and_proposals(self) -> None:
        material = self.report.sections[1]
        assert material.current == ()
        assert [e.id for e in material.open_proposals] == ["mat-3"]
        assert [e.id for e in self.report.sections[0].current] == ["reg-1"]
        assert [e.id for e in self.report.sections[2].open_proposals] == ["cost-1"]
        lifecycle = self.report.sections[3]
        assert lifecycle.current == ()
        assert lifecycle.open_proposals == ()

    def test_entries_carry_citation_ids(self) -> None:
        entry = self.report.sections[0].current[0]
        assert entry.sha256 == self.report.record("reg-1").sha256
        assert entry.status is DecisionStatus.ACCEPTED

    def test_supersession_chain_resolved_oldest_first(self) -> None:
        chains = self.report.sections[1].supersession_chains
        assert [c.decisions for c in chains] == [("mat-1", "mat-2", "mat-3")]
        assert chains[0].unresolved == ()

    def test_evidence_index_groups_sources_and_citing_decisions(self) -> None:
        regulation = self.report.sections[0].evidence
        assert [(e.kind.value, e.ref, e.cited_by) for e in regulation] == [
            ("regulation", "ADB B1 2.16", ("reg-1",)),
            ("document", "fire-strategy.pdf", ("reg-1",)),
        ]
        cost = self.report.sections[2].evidence
        assert [(e.kind.value, e.ref) for e in cost] == [
            ("regulation", "ADB B1 2.16"),
            ("cost_line", "BQ 2.1"),
        ]
        material = self.report.sections[1].evidence
        assert [e.ref for e in material] == ["CAT-123", "CAT-777"]

    def test_evidence_title_comes_from_first_citation_with_one(self) -> None:
        records = [
            decision(1, evidence=[{"kind": "document", "ref": "doc"}]),
            decision(2, evidence=[{"kind": "document", "ref": "doc", "title": "Second"}]),
            decision(3, evidence=[{"kind": "document", "ref": "doc", "title": "Third"}]),
        ]
        (entry,) = build_report("p-1", records).sections[0].evidence
        assert entry.title == "Second"
        assert entry.cited_by == ("d-1", "d-2", "d-3")

    def test_records_in_sequence_order_with_citation_ids(self) -> None:
        for record in self.report.records:
            data = rfc8785.dumps(semreport.to_wire(record.decision))
            assert record.sha256 == "sha256:" + hashlib.sha256(data).hexdigest()
        assert [r.decision.sequence for r in self.report.records] == [1, 2, 3, 4, 5, 6]

    def test_record_lookup(self) -> None:
        assert self.report.record("cost-1").decision.id == "cost-1"
        with pytest.raises(KeyError):
            self.report.record("nope")


class TestChains:
    """Supersession chains for branching, cycles and links to unknown decisions."""

    def test_branching_gives_one_chain_per_path(self) -> None:
        records = [
            decision(1, "a"),
            decision(2, "b"),
            decision(
                3,
                "c",
                links=[
                    {"kind": "supersedes", "target": "a"},
                    {"kind": "supersedes", "target": "b"},
                ],
            ),
        ]
        (section,) = build_report("p-1", records).sections
        assert [c.decisions for c in section.supersession_chains] == [("a", "c"), ("b", "c")]

    def test_unresolved_target_is_named(self) -> None:
        records = [decision(1, "a", links=[{"kind": "supersedes", "target": "ghost"}])]
        (chain,) = build_report("p-1", records).sections[0].supersession_chains
        assert chain.decisions == ("ghost", "a")
        assert chain.unresolved == ("ghost",)

    def test_cycle_terminates(self) -> None:
        records = [
            decision(1, "a", links=[{"kind": "supersedes", "target": "b"}]),
            decision(2, "b", links=[{"kind": "supersedes", "target": "a"}]),
        ]
        report = build_report("p-1", records)
        chains = report.sections[0].supersession_chains
        assert [c.decisions for c in chains] == [("b", "a")]
        assert report.summary.superseded == 2

    def test_chain_belongs_to_its_newest_decisions_domain(self) -> None:
        records = [
            decision(1, "a", domain="cost"),
            decision(2, "b", domain="material", links=[{"kind": "supersedes", "target": "a"}]),
        ]
        material, cost = build_report("p-1", records).sections
        assert cost.supersession_chains == ()
        assert [c.decisions for c in material.supersession_chains] == [("a", "b")]


class TestDeterminism:
    """The same records give byte-identical JSON; no wall-clock time inside."""

    def test_same_records_same_bytes(self) -> None:
        first = assemble_report(FakeMemory(sample_project()), "p-1")
        second = assemble_report(FakeMemory(list(reversed(sample_project()))), "p-1")
        assert first.to_json() == second.to_json()
        assert first == second

    def test_json_is_rfc8785_of_the_wire_form(self) -> None:
        report = assemble_report(FakeMemory(sample_project()), "p-1")
        assert report.to_json().encode() == rfc8785.dumps(semreport.to_wire(report))

    def test_report_sha256_is_over_the_report_without_digest(self) -> None:
        report = assemble_report(FakeMemory(sample_project()), "p-1")
        body = semreport.to_wire(report)
        del body["digest"]
        assert report.digest.report_sha256 == hashlib.sha256(rfc8785.dumps(body)).hexdigest()
        assert canonical_report(report, with_digest=False) == rfc8785.dumps(body)

    def test_no_export_time_in_report(self) -> None:
        text = assemble_report(FakeMemory(sample_project()), "p-1").to_json()
        keys = set(json.loads(text))
        assert keys == {
            "schema",
            "project_id",
            "as_of_sequence",
            "summary",
            "sections",
            "records",
            "digest",
        }

    def test_as_of_limits_the_records(self) -> None:
        memory = FakeMemory(sample_project())
        report = assemble_report(memory, "p-1", as_of=3)
        assert report.as_of_sequence == 3
        assert [r.decision.id for r in report.records] == ["reg-1", "mat-1", "mat-2"]
        assert report == build_report("p-1", sample_project()[:3])

    def test_empty_report(self) -> None:
        report = build_report("p-1", [])
        assert report.as_of_sequence == 0
        assert report.sections == ()
        assert report.digest.records == 0
        assert report.digest.records_root == hashlib.sha256(b"").hexdigest()

    def test_join_object_sorts_by_utf16_code_units(self) -> None:
        members = {"\U0001f600": b"1", "\ufb01": b"2", "a": b"3"}
        expected = rfc8785.dumps({"\U0001f600": 1, "\ufb01": 2, "a": 3})
        assert join_object(members) == expected


class TestReadOnly:
    """Assembly reads through the port's read methods only."""

    def test_only_records_is_called(self) -> None:
        memory = FakeMemory(sample_project())
        assemble_report(memory, "p-1")
        assert memory.calls == ["records"]

    def test_port_without_write_methods_suffices(self) -> None:
        memory = FakeMemory(sample_project())
        assert not hasattr(memory, "record")
        assert assemble_report(memory, "p-1").summary.decisions == 6


class TestBadInput:
    """Records that cannot form a report are refused clearly."""

    def test_unrecorded_decision(self) -> None:
        loose = semreport.Decision(id="x", project_id="p-1", title="t", statement="s", agent="a")
        with pytest.raises(InvalidRequest, match="has not been recorded"):
            build_report("p-1", [loose])

    def test_other_project(self) -> None:
        with pytest.raises(InvalidRequest, match="belongs to project"):
            build_report("p-2", [decision(1)])

    def test_repeated_sequence_or_id(self) -> None:
        with pytest.raises(InvalidRequest, match="repeats"):
            build_report("p-1", [decision(1, "a"), decision(1, "b")])
        with pytest.raises(InvalidRequest, match="repeats"):
            build_report("p-1", [decision(1, "a"), decision(2, "a")])


class TestNotebook:
    """``_repr_html_`` shows the summary and the digest, escaped."""

    def test_repr_html(self) -> None:
        records = [decision(1, project_id="p-1", agent="a", domain="cost")]
        report = build_report("p-1", records)
        page = report._repr_html_()
        assert report.digest.records_root in page
        assert report.digest.report_sha256 in page
        assert f'<a href="#semreport-{report.digest.report_sha256[:12]}-cost">cost</a>' in page
        assert "<td>1</td><td><strong>1</strong></td>" in page  # proposed, then all
        assert "1 decisions" in page


class TestBoundaries:
    """Report code depends on the read port only: no storage, no facade, no writes."""

    def test_reports_package_imports(self) -> None:
        import ast
        from pathlib import Path

        import semreport.reports as package

        root = Path(package.__file__).parent
        for source in root.glob("*.py"):
            tree = ast.parse(source.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.module:
                    assert not node.module.startswith(
                        ("semreport.storage", "semreport.service", "semreport.gnn")
                    ), (source.name, node.module)
                if isinstance(node, ast.Name | ast.alias):
                    name = node.id if isinstance(node, ast.Name) else node.name
                    assert name not in {"DecisionLog", "SessionLog", "Storage"}, source.name
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                    assert node.func.attr not in {"record_sessions", "infer"}, source.name
                    if node.func.attr == "record":
                        assert not node.args, (source.name, "a write call")
