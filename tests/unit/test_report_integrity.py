"""``verify``: forged pages, structured findings, memory that moved on (issue 11.2, 11.4, 11.9)."""

from __future__ import annotations

import ast
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

import semreport
from _report_support import FakeMemory, decision, sample_project
from semreport import verify
from semreport.reports import FindingKind, assemble_report, build_report, render_html
from semreport.reports._html import library_version

WHEN = datetime(2026, 2, 3, tzinfo=UTC)
GENERATOR = f'<meta name="generator" content="semreport {library_version()}">'
# What a forger changes: a visible figure of record mat-1 (its CO2e attribute).
FIGURE = '<th scope="row">co2e_kg</th><td>125000.5</td>'
FORGED = '<th scope="row">co2e_kg</th><td>12500.5</td>'
REPORTS = Path(semreport.__file__).parent / "reports"


def exported_page() -> str:
    """A page of the sample project, as this library version exports it."""
    return render_html(
        assemble_report(FakeMemory(sample_project()), "p-1"),
        exported_at=WHEN,
        version=library_version(),
    )


def line_of(page: str, text: str) -> int:
    """The 1-based line of ``page`` holding ``text``."""
    (line,) = [n for n, shown in enumerate(page.splitlines(), 1) if text in shown]
    return line


def kinds(result: semreport.Verification) -> set[FindingKind]:
    return {p.kind for p in result.problems}


class TestForgedPages:
    """Whatever a page says about itself, its visible records are checked, or it is not ok."""

    def test_intact_page_verifies(self) -> None:
        page = exported_page()
        assert GENERATOR in page
        assert FIGURE in page
        result = verify(page)
        assert result.ok, result.problems
        assert result.page is True

    def test_forged_figure_with_intact_generator_tag(self) -> None:
        forged = exported_page().replace(FIGURE, FORGED, 1)
        result = verify(forged)
        assert not result.ok
        assert result.page is False
        (finding,) = result.problems
        assert finding.kind is FindingKind.PAGE_MISMATCH
        assert finding.line == line_of(forged, FORGED)
        assert finding.location == f"page line {finding.line}"
        assert "12500.5" in finding.reason

    def test_generator_tag_removed_and_figure_forged(self) -> None:
        forged = exported_page().replace(GENERATOR + "\n", "", 1).replace(FIGURE, FORGED, 1)
        result = verify(forged)
        assert result.records_root
        assert result.report_sha256
        assert not result.ok
        assert result.page is False
        assert result.problems[0].kind is FindingKind.PAGE_NOT_CHECKED
        assert "names no generator" in result.problems[0].reason
        lines = [p.line for p in result.problems if p.kind is FindingKind.PAGE_MISMATCH]
        assert line_of(forged, FORGED) in lines

    @pytest.mark.parametrize(
        "claim",
        [
            "semreport 0.0.1",
            "semreport 99.0",
            "semreport",
            "",
            "another-generator 1.0",
            f"semreport {library_version()} ",
        ],
    )
    def test_generator_tag_edited(self, claim: str) -> None:
        edited = exported_page().replace(GENERATOR, f'<meta name="generator" content="{claim}">')
        result = verify(edited)
        assert not result.ok
        assert result.page is False
        assert FindingKind.PAGE_NOT_CHECKED in kinds(result)
        assert line_of(edited, f'content="{claim}"') in [p.line for p in result.problems]

    def test_generator_tag_edited_and_figure_forged(self) -> None:
        forged = (
            exported_page()
            .replace(GENERATOR, '<meta name="generator" content="semreport 0.0.1">')
            .replace(FIGURE, FORGED, 1)
        )
        result = verify(forged)
        assert not result.ok
        assert line_of(forged, FORGED) in [p.line for p in result.problems]

    def test_generator_tag_moved_out_of_the_head(self) -> None:
        page = exported_page()
        moved = page.replace(GENERATOR + "\n", "", 1).replace("</footer>", GENERATOR + "</footer>")
        forged = moved.replace(FIGURE, FORGED, 1)
        result = verify(forged)
        assert not result.ok
        assert line_of(forged, FORGED) in [p.line for p in result.problems]

    def test_unreadable_export_time_still_locates_a_forgery(self) -> None:
        page = exported_page().replace(FIGURE, FORGED, 1)
        broken = page.replace('name="semreport-exported-at" content="', 'x="', 1)
        result = verify(broken)
        assert not result.ok
        assert any(p.location == "page" and "export time" in p.reason for p in result.problems)
        assert line_of(broken, FORGED) in [p.line for p in result.problems]

    def test_another_layout_says_the_page_was_not_checked(self) -> None:
        # A page laid out differently (here: reflowed), whatever its tag says.
        reflowed = exported_page().replace("</tr>\n<tr>", "</tr><tr>")
        result = verify(reflowed.replace(GENERATOR, GENERATOR.replace("semreport", "semreport x")))
        assert not result.ok
        assert result.page is False
        assert result.problems[0].kind is FindingKind.PAGE_NOT_CHECKED
        assert "unverified" in result.problems[0].reason

    def test_page_whose_report_does_not_verify_is_not_checked(self) -> None:
        page = exported_page()
        tampered = page.replace('"title":"Concrete frame"', '"title":"Steel frame"', 1)
        assert tampered != page
        result = verify(tampered)
        assert not result.ok
        assert result.page is None
        assert FindingKind.PAGE_NOT_CHECKED in kinds(result)

    def test_content_after_the_page_is_found(self) -> None:
        page = exported_page()
        result = verify(page + "<p>Approved by the client.</p>\n")
        assert not result.ok
        (finding,) = result.problems
        assert finding.line == len(page.splitlines()) + 1
        assert "Approved by the client" in finding.reason
        assert "does not render" in finding.reason

    def test_a_removed_line_is_found(self) -> None:
        page = exported_page()
        removed = page.replace(FIGURE, "", 1)
        assert not verify(removed).ok
        lines = page.splitlines()
        at = line_of(page, FIGURE)
        without = "\n".join(lines[: at - 1] + lines[at:]) + "\n"
        result = verify(without)
        (finding,) = result.problems
        assert finding.line == at
        assert "lacks" in finding.reason

    def test_many_differences_are_capped(self) -> None:
        many = [decision(sequence) for sequence in range(1, 61)]
        page = render_html(build_report("p-1", many), exported_at=WHEN, version=library_version())
        result = verify(page.replace("</h3>", "!</h3>"))  # one line per decision, apart
        assert not result.ok
        assert len(result.problems) == 51
        assert result.problems[-1].location == "page"
        assert "more differences follow" in result.problems[-1].reason

    def test_a_page_unlike_the_rendering_everywhere(self) -> None:
        # No line agrees, so there is nothing to re-align on: runs of lines are reported.
        page = exported_page()
        shifted = "".join(line + " \n" for line in page.splitlines())
        result = verify(shifted)
        assert result.records_root
        assert not result.ok
        assert result.page is False
        assert {p.kind for p in result.problems} == {FindingKind.PAGE_MISMATCH}
        assert result.problems[0].line == 1


def report_data() -> dict:
    return semreport.to_wire(assemble_report(FakeMemory(sample_project()), "p-1"))


class TestStructuredFindings:
    """Each finding carries its kind and location as data; the verifier decides on data alone."""

    @pytest.mark.parametrize(
        ("damage", "kind", "location"),
        [
            (
                lambda d: d["records"][2]["decision"].update(statement="changed"),
                FindingKind.CITATION_MISMATCH,
                "$.records[2]",
            ),
            (
                lambda d: d["records"][4]["decision"].update(status="acceptex"),
                FindingKind.INVALID_RECORD,
                "$.records[4].decision.status",
            ),
            (
                lambda d: d["records"][1]["decision"].update(id="reg-1"),
                FindingKind.MISPLACED_RECORD,
                "$.records[1].decision.id",
            ),
            (
                lambda d: d["records"][0]["decision"].update(big=float("inf")),
                FindingKind.UNREPRESENTABLE,
                "$.records[0].decision",
            ),
            (
                lambda d: d["digest"].update(records_root="0" * 64),
                FindingKind.DIGEST_MISMATCH,
                "$.digest.records_root",
            ),
            (
                lambda d: d["summary"]["by_agent"].update({"agent-mat": 4}),
                FindingKind.BODY_MISMATCH,
                "$.summary.by_agent.agent-mat",
            ),
            (lambda d: d.update(extra=1), FindingKind.MALFORMED, "$.extra"),
        ],
    )
    def test_kind_and_location(self, damage, kind: FindingKind, location: str) -> None:
        data = report_data()
        damage(data)
        result = verify(data)
        assert not result.ok
        assert any(p.kind is kind and p.location == location for p in result.problems), (
            result.problems
        )

    def test_parsed_mappings_read_numbers_as_doubles(self) -> None:
        data = report_data()
        data["records"][0]["decision"]["attributes"] = {"big": 10**17}  # json.loads keeps it exact
        result = verify(data)
        assert FindingKind.CITATION_MISMATCH in kinds(result)  # read as 1e17: hashable, but altered
        assert FindingKind.UNREPRESENTABLE not in kinds(result)
        data["records"][0]["decision"]["attributes"] = {"huge": 2**1100}  # beyond every double
        result = verify(data)
        assert any(
            p.kind is FindingKind.UNREPRESENTABLE and p.location == "$.records[0].decision"
            for p in result.problems
        )

    def test_findings_serialise_with_their_kind(self) -> None:
        data = report_data()
        data["records"][2]["decision"]["statement"] = "changed"
        wire = semreport.to_wire(verify(data))
        finding = next(p for p in wire["problems"] if p["location"] == "$.records[2]")
        assert finding["kind"] == "citation_mismatch"
        assert finding["sequence"] == 3
        assert finding["decision_id"] == "mat-2"
        assert finding["line"] is None
        json.dumps(wire)

    def test_reordered_records_keep_their_citation_ids(self) -> None:
        data = report_data()
        data["records"][0], data["records"][1] = data["records"][1], data["records"][0]
        result = verify(data)
        assert result.citations
        assert not result.records_root
        assert result.body is None
        assert FindingKind.MISPLACED_RECORD in kinds(result)

    def test_a_citation_id_alone_does_not_stop_reassembly(self) -> None:
        data = report_data()
        data["records"][3]["sha256"] = "sha256:" + "0" * 64
        result = verify(data)
        assert not result.citations
        assert result.body is True
        assert kinds(result) == {FindingKind.CITATION_MISMATCH, FindingKind.DIGEST_MISMATCH}

    def test_the_verifier_never_reads_finding_text(self) -> None:
        # Control flow must not depend on what a finding says in words.
        for module in sorted(REPORTS.glob("*.py")):
            tree = ast.parse(module.read_text(encoding="utf-8"))
            read = [
                node.attr
                for node in ast.walk(tree)
                if isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Load)
                and node.attr in {"reason", "location"}
            ]
            assert read == [], module.name


class TestMemoryMovedOn:
    """verify(document, memory) says how far memory moved on, apart from any mismatch."""

    def setup_method(self) -> None:
        self.memory = FakeMemory(sample_project())
        self.page = render_html(assemble_report(self.memory, "p-1"), exported_at=WHEN)

    def test_not_moved_on(self) -> None:
        result = verify(self.page, self.memory)
        assert result.ok
        assert result.memory_moved_on == 0
        assert result.memory_sequence == 6

    def test_records_appended_after_the_report(self) -> None:
        self.memory.held += [decision(7, "late-1"), decision(8, "late-2")]
        result = verify(self.page, self.memory)
        assert result.ok, result.problems
        assert result.memory is True
        assert result.memory_moved_on == 2
        assert result.memory_sequence == 8
        assert result.problems == ()

    def test_an_older_report_against_a_project_that_moved_on(self) -> None:
        older = assemble_report(self.memory, "p-1", as_of=4)
        result = verify(older.to_json(), self.memory)
        assert result.ok
        assert result.as_of_sequence == 4
        assert result.memory_moved_on == 2

    def test_moved_on_and_mismatch_are_told_apart(self) -> None:
        data = json.loads(assemble_report(self.memory, "p-1").to_json())
        self.memory.held.append(decision(7, "late-1"))
        data["records"][1]["decision"]["rationale"] = "edited"
        result = verify(data, self.memory)
        assert not result.ok
        assert result.memory is False
        assert result.memory_moved_on == 1
        memory_findings = [p for p in result.problems if p.kind is FindingKind.MEMORY_MISMATCH]
        assert [p.location for p in memory_findings] == ["$.records[1].decision"]

    def test_without_memory(self) -> None:
        result = verify(self.page)
        assert result.memory is None
        assert result.memory_moved_on is None
        assert result.memory_sequence is None

    def test_report_without_project(self) -> None:
        data = report_data()
        data["project_id"] = None
        result = verify(data, self.memory)
        assert result.memory is False
        assert result.memory_moved_on is None
        assert FindingKind.MEMORY_NOT_CHECKED in kinds(result)
