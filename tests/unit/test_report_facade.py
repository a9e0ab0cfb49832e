"""The facade's report use cases: authorisation first, then not-found errors."""

from __future__ import annotations

import pytest

import semreport
from semreport import (
    DecisionNotFound,
    Forbidden,
    InvalidRequest,
    Principal,
    ProjectNotFound,
    Role,
    Unauthenticated,
    check_inclusion,
    verify,
)
from semreport.reports import FindingKind

ROWS = [
    {"id": f"d-{i}", "project_id": "p-1", "title": f"T{i}", "statement": "s", "agent": "a"}
    for i in range(1, 6)
]


@pytest.fixture
def sr():
    with semreport.open("memory://") as facade:
        facade.record(ROWS)
        yield facade


class TestUseCases:
    """report, export_report and prove over memory://."""

    def test_report(self, sr) -> None:
        report = sr.report("p-1")
        assert report.summary.decisions == 5
        assert sr.report("p-1").to_json() == report.to_json()

    def test_report_as_of(self, sr) -> None:
        assert sr.report("p-1", as_of=2).digest.records == 2

    def test_report_unchanged_by_later_appends(self, sr) -> None:
        before = sr.report("p-1")
        sr.record([{**ROWS[0], "id": "d-9"}])
        assert sr.report("p-1", as_of=5).to_json() == before.to_json()
        assert sr.report("p-1").digest != before.digest

    def test_export(self, sr) -> None:
        exported = sr.export_report("p-1")
        assert exported.digest == exported.report.digest
        assert exported.media_type.startswith("text/html")
        assert f'content="semreport {semreport.__version__}"' in exported.html
        result = verify(exported.html, sr.storage)
        assert result.ok
        assert result.memory
        assert result.page is True

    def test_visible_page_tampering_is_located(self, sr) -> None:
        page = sr.export_report("p-1").html
        body, block = page.split('<script type="application/json"', 1)
        forged = body.replace("<h3>3. T3</h3>", "<h3>3. T3 (approved by the client)</h3>")
        result = verify(forged + '<script type="application/json"' + block)
        assert not result.ok
        assert result.records_root
        assert result.report_sha256
        assert result.page is False
        (finding,) = result.problems
        assert finding.location.startswith("page line ")
        assert "approved by the client" in finding.reason

    def test_page_without_export_time(self, sr) -> None:
        page = sr.export_report("p-1").html
        broken = page.replace(
            'name="semreport-exported-at" content="', 'name="semreport-exported-at" content="x', 1
        )
        result = verify(broken)
        assert not result.ok
        assert result.page is False
        assert result.problems[0].kind is FindingKind.PAGE_MISMATCH
        assert result.problems[0].location == "page"

    def test_pages_naming_another_generator_never_verify(self, sr) -> None:
        page = sr.export_report("p-1").html
        older = page.replace(
            f'content="semreport {semreport.__version__}"', 'content="semreport 0.0.1"'
        )
        result = verify(older)
        assert result.records_root
        assert result.report_sha256
        assert not result.ok
        assert result.page is False
        assert [p.kind for p in result.problems] == [
            FindingKind.PAGE_NOT_CHECKED,
            FindingKind.PAGE_MISMATCH,
        ]
        assert "not checked" in result.problems[0].reason
        assert verify(sr.report("p-1").to_json()).page is None

    def test_memory_moved_on(self, sr) -> None:
        page = sr.export_report("p-1").html
        sr.record([{**ROWS[0], "id": "d-8"}, {**ROWS[0], "id": "d-9"}])
        result = verify(page, sr.storage)
        assert result.ok
        assert result.memory is True
        assert result.memory_moved_on == 2
        assert result.memory_sequence == 7

    def test_prove(self, sr) -> None:
        proof = sr.prove("p-1", "d-3")
        assert check_inclusion(proof, sr.report("p-1").digest.records_root)

    def test_not_found(self, sr) -> None:
        with pytest.raises(ProjectNotFound):
            sr.report("p-404")
        with pytest.raises(ProjectNotFound):
            sr.export_report("p-404")
        with pytest.raises(ProjectNotFound):
            sr.prove("p-404", "d-1")
        with pytest.raises(DecisionNotFound):
            sr.prove("p-1", "d-404")

    def test_bad_input(self, sr) -> None:
        with pytest.raises(InvalidRequest):
            sr.report("bad id!")
        with pytest.raises(InvalidRequest):
            sr.prove("p-1", "bad id!")
        for as_of in (-1, True, "3"):
            with pytest.raises(InvalidRequest):
                sr.report("p-1", as_of=as_of)


class TestAuthorisation:
    """The contract row is enforced first, the same whether or not the project exists."""

    @pytest.mark.parametrize("operation", ["report", "export_report", "prove"])
    @pytest.mark.parametrize("project", ["p-1", "p-404"])
    def test_unauthenticated_and_forbidden(self, operation: str, project: str) -> None:
        with semreport.open("memory://", require_caller=True) as sr:
            sr.record(ROWS, caller=Principal.local())
            args = (project, "d-1") if operation == "prove" else (project,)
            call = getattr(sr, operation)
            with pytest.raises(Unauthenticated):
                call(*args)
            stranger = Principal("s", roles={Role.USER}, projects={"p-other"})
            with pytest.raises(Forbidden):
                call(*args, caller=stranger)
            operator = Principal("o", roles={Role.OPERATOR}, all_projects=True)
            with pytest.raises(Forbidden):
                call(*args, caller=operator)
            granted = Principal("u", roles={Role.USER}, projects={project})
            if project == "p-1":
                assert call(*args, caller=granted) is not None
            else:
                with pytest.raises(ProjectNotFound):
                    call(*args, caller=granted)

    def test_capabilities_list_reports_live(self) -> None:
        with semreport.open("memory://") as sr:
            assert "reports" in sr.capabilities()
