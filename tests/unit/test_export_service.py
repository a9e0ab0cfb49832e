"""Unit tests for SemReport.export_session: auth, formats, errors, results."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterator

import pytest

import semreport
from semreport import (
    Forbidden,
    InvalidRequest,
    Principal,
    SemReport,
    SessionExport,
    SessionNotFound,
    Unauthenticated,
    UnsupportedExportFormat,
    to_wire,
)
from semreport.contract import endpoint
from semreport.exports import SESSION_FORMATS, export_legacy_session
from semreport.testing.samples import sample_session

ALICE = Principal("alice", roles=["user"], projects=["p-sample"])
BOB = Principal("bob", roles=["user"], projects=["elsewhere"])
OPERATOR = Principal("ops", roles=["operator"], all_projects=True)


@pytest.fixture
def sr() -> Iterator[SemReport]:
    with semreport.open("memory://", require_caller=True) as facade:
        facade.record_sessions(
            [sample_session(6), sample_session(3, session_id="s:colon")], caller=ALICE
        )
        facade.record(
            [
                {
                    "id": "d-clt-slab",
                    "project_id": "p-sample",
                    "title": "Use 160 mm CLT for the slab",
                    "statement": "CLT it is.",
                    "agent": "a-wang",
                }
            ],
            caller=ALICE,
        )
        yield facade


class TestAuthorisation:
    """The export_session contract row: a user with a grant for the session's project."""

    def test_row_is_project_scoped_for_users(self) -> None:
        row = endpoint("export_session")
        assert row.project_scoped
        assert row.auth.role.value == "user"

    def test_no_caller_is_unauthenticated(self, sr: SemReport) -> None:
        with pytest.raises(Unauthenticated):
            sr.export_session("s-sample", "json")

    def test_missing_role_is_forbidden_before_anything_else(self, sr: SemReport) -> None:
        with pytest.raises(Forbidden):
            sr.export_session("no-such-session", "nope", caller=OPERATOR)

    def test_a_session_of_another_project_is_answered_as_missing(self, sr: SemReport) -> None:
        # The same answer as for a session that does not exist: nothing about either
        # the session or its project leaks to a caller without a grant.
        with pytest.raises(SessionNotFound) as hidden:
            sr.export_session("s-sample", "json", caller=BOB)
        with pytest.raises(SessionNotFound) as missing:
            sr.export_session("s-ghost", "json", caller=BOB)
        assert hidden.value.message.replace("s-sample", "X") == missing.value.message.replace(
            "s-ghost", "X"
        )
        assert "p-sample" not in hidden.value.message

    def test_granted_user_exports(self, sr: SemReport) -> None:
        assert sr.export_session("s-sample", "json", caller=ALICE).session_id == "s-sample"

    def test_local_caller_exports(self) -> None:
        with semreport.open("memory://") as facade:
            facade.record_sessions([sample_session(2)])
            assert facade.export_session("s-sample", "graph").format == "graph"


class TestFormats:
    """fmt is exactly json, pdf or graph; the check comes before the look-up."""

    @pytest.mark.parametrize("fmt", ["JSON", "xml", "", " pdf", None, 3, "graphml"])
    def test_other_formats_name_the_allowed_ones(self, sr: SemReport, fmt: object) -> None:
        with pytest.raises(UnsupportedExportFormat) as caught:
            sr.export_session("s-sample", fmt, caller=ALICE)  # type: ignore[arg-type]
        assert "json, pdf, graph" in caught.value.message
        assert caught.value.code == "UNSUPPORTED_EXPORT_FORMAT"

    def test_format_is_checked_before_the_session_is_looked_up(self, sr: SemReport) -> None:
        with pytest.raises(UnsupportedExportFormat):
            sr.export_session("no-such-session", "docx", caller=ALICE)

    def test_unknown_graph_format_is_refused(self, sr: SemReport) -> None:
        with pytest.raises(UnsupportedExportFormat, match="node-link, graphml"):
            sr.export_session("s-sample", "graph", caller=ALICE, graph_format="gexf")

    def test_unknown_session(self, sr: SemReport) -> None:
        with pytest.raises(SessionNotFound) as caught:
            sr.export_session("no-such-session", "json", caller=ALICE)
        assert caught.value.code == "SESSION_NOT_FOUND"

    def test_bad_session_id_is_invalid(self, sr: SemReport) -> None:
        with pytest.raises(InvalidRequest) as caught:
            sr.export_session("../etc/passwd", "json", caller=ALICE)
        assert caught.value.errors[0].path == "$.session_id"


class TestResults:
    """Bytes, media type and file name for every format."""

    @pytest.mark.parametrize(
        ("fmt", "graph_format", "media_type", "filename"),
        [
            ("json", "node-link", "application/json", "s-sample.session.json"),
            ("pdf", "node-link", "application/pdf", "s-sample.pdf"),
            ("graph", "node-link", "application/json", "s-sample.graph.json"),
            ("graph", "graphml", "application/graphml+xml", "s-sample.graphml"),
        ],
    )
    def test_each_format(
        self, sr: SemReport, fmt: str, graph_format: str, media_type: str, filename: str
    ) -> None:
        result = sr.export_session("s-sample", fmt, caller=ALICE, graph_format=graph_format)
        assert isinstance(result, SessionExport)
        assert (result.media_type, result.filename, result.format) == (media_type, filename, fmt)
        assert result.content
        again = sr.export_session("s-sample", fmt, caller=ALICE, graph_format=graph_format)
        assert again.content == result.content

    def test_filenames_avoid_colons(self, sr: SemReport) -> None:
        assert sr.export_session("s:colon", "json", caller=ALICE).filename == "s_colon.session.json"

    def test_decision_titles_come_from_decision_memory(self, sr: SemReport) -> None:
        graph = json.loads(sr.export_session("s-sample", "graph", caller=ALICE).content)
        decision = next(n for n in graph["nodes"] if n["kind"] == "decision")
        assert decision["title"] == "Use 160 mm CLT for the slab"

    def test_wire_form_carries_base64_content(self, sr: SemReport) -> None:
        result = sr.export_session("s-sample", "json", caller=ALICE)
        wire = to_wire(result)
        assert base64.b64decode(wire["content_base64"]) == result.content
        assert wire["sha256"] == hashlib.sha256(result.content).hexdigest() == result.sha256
        assert wire["size"] == len(result.content)
        assert json.loads(json.dumps(wire)) == wire
        assert "bytes>" in repr(result)

    def test_library_function_without_storage(self) -> None:
        session = sample_session(2)
        for fmt in SESSION_FORMATS:
            assert export_legacy_session(session, fmt).session_id == "s-sample"
