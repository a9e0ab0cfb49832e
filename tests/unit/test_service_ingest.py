"""Unit tests for SemReport.ingest: one pipeline for decisions and sessions, repeatable."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import semreport
from semreport import (
    Forbidden,
    IngestProblem,
    IngestProgress,
    IngestResult,
    InvalidRequest,
    Principal,
    SemReport,
    Unauthenticated,
)

ALICE = Principal("alice", roles=["user"], projects=["p-1"])


def line(decision_id: str, project: str = "p-1", **fields: Any) -> str:
    record: dict[str, Any] = {
        "id": decision_id,
        "project_id": project,
        "title": "T",
        "statement": "S",
        "agent": "a",
    }
    record.update(fields)
    return json.dumps(record)


def session(session_id: str, project: str = "p-1", **fields: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": session_id,
        "project_id": project,
        "title": "Workshop",
        "started_at": "2026-03-01T09:00:00Z",
    }
    data.update(fields)
    return data


@pytest.fixture
def sr() -> Iterator[SemReport]:
    with semreport.open("memory://") as facade:
        yield facade


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "d.jsonl").write_text(line("d-1") + "\n" + line("d-2") + "\n")
    (tmp_path / "s.json").write_text(json.dumps([session("s-1"), session("s-2")]))
    return tmp_path


class TestIngest:
    """Everything is checked, then the good records are written in batches."""

    def test_a_directory_of_decisions_and_sessions(self, sr: SemReport, files: Path) -> None:
        result = sr.ingest([files])
        assert isinstance(result, IngestResult)
        assert result.ok
        assert (result.recorded_decisions, result.recorded_sessions) == (2, ("s-1", "s-2"))
        assert [Path(f).name for f in result.files] == ["d.jsonl", "s.json"]
        assert result.projects == ("p-1",)
        assert [d.id for d in sr.decisions("p-1")] == ["d-1", "d-2"]

    def test_bad_lines_are_problems_with_their_place(self, sr: SemReport, tmp_path: Path) -> None:
        path = tmp_path / "d.jsonl"
        path.write_text(line("d-1") + "\n{\n" + line("d-1") + "\n" + line("d-2", title="") + "\n")
        result = sr.ingest([path])
        assert [(p.where, p.code) for p in result.problems] == [
            ("d.jsonl line 2", "INVALID_REQUEST"),
            ("d.jsonl line 3", "DECISION_ALREADY_RECORDED"),
            ("d.jsonl line 4", "INVALID_REQUEST"),
        ]
        assert str(result.problems[1]) == "d.jsonl line 3: decision 'd-1' repeats d.jsonl line 1"
        assert result.recorded_decisions == 1
        assert not result.ok

    def test_standard_input(self, sr: SemReport) -> None:
        result = sr.ingest(["-"], stdin=io.StringIO(line("d-1") + "\n"))
        assert result.recorded_decisions == 1
        with pytest.raises(InvalidRequest, match="standard input"):
            sr.ingest(["-"])

    def test_dry_run_and_all_or_nothing_write_nothing(self, sr: SemReport, files: Path) -> None:
        assert not sr.ingest([files], dry_run=True).written
        (files / "bad.jsonl").write_text("oops\n")
        refused = sr.ingest([files], all_or_nothing=True)
        assert not refused.written
        assert refused.valid_decisions == 2
        assert sr.projects() == []

    def test_progress_counts_records(self, sr: SemReport, files: Path) -> None:
        events: list[IngestProgress] = []
        sr.ingest([files], progress=events.append)
        final = {(e.stage, e.what): (e.done, e.total) for e in events}
        assert final[("reading", "d.jsonl")] == (2, 2)
        assert final[("reading", "s.json")] == (2, 2)
        assert final[("recording", "decisions")] == (2, 2)
        assert final[("recording", "sessions")] == (2, 2)

    def test_paths_that_cannot_be_read_are_refused_before_anything(
        self, sr: SemReport, tmp_path: Path
    ) -> None:
        (tmp_path / "notes.txt").write_text("x")
        with pytest.raises(InvalidRequest) as caught:
            sr.ingest([tmp_path / "nope.jsonl", tmp_path / "notes.txt", 42])  # type: ignore[list-item]
        assert [e.path for e in caught.value.errors] == ["$.paths[0]", "$.paths[1]", "$.paths[2]"]
        with pytest.raises(InvalidRequest, match="kind"):
            sr.ingest([tmp_path], kind="images")
        with pytest.raises(InvalidRequest, match="batch_size"):
            sr.ingest([tmp_path], batch_size=0)

    def test_records_of_projects_without_a_grant_are_problems(
        self, sr: SemReport, tmp_path: Path
    ) -> None:
        path = tmp_path / "d.jsonl"
        path.write_text(line("d-1") + "\n" + line("x-1", project="p-2") + "\n")
        result = sr.ingest([path], caller=ALICE)
        assert [(p.where, p.code) for p in result.problems] == [("d.jsonl line 2", Forbidden.code)]
        assert result.recorded_decisions == 1

    def test_the_caller_is_checked_first(self, tmp_path: Path) -> None:
        with (
            semreport.open("memory://", require_caller=True) as strict,
            pytest.raises(Unauthenticated),
        ):
            strict.ingest([tmp_path / "nope.jsonl"])


class TestSkipExisting:
    """Same id and content: counted. Same id, other content: still a problem."""

    def test_repeating_an_ingest_is_safe(self, sr: SemReport, files: Path) -> None:
        sr.ingest([files])
        (files / "d.jsonl").write_text(line("d-1") + "\n" + line("d-3") + "\n")
        again = sr.ingest([files], skip_existing=True)
        assert again.ok
        assert (again.existing_decisions, again.existing_sessions) == (1, 2)
        assert again.recorded_decisions == 1

    def test_without_it_stored_ids_are_problems(self, sr: SemReport, files: Path) -> None:
        sr.ingest([files])
        again = sr.ingest([files])
        assert {p.code for p in again.problems} == {
            "DECISION_ALREADY_RECORDED",
            "SESSION_ALREADY_RECORDED",
        }
        assert again.existing_decisions == 0

    def test_other_content_is_a_problem(self, sr: SemReport, files: Path) -> None:
        sr.ingest([files])
        (files / "d.jsonl").write_text(line("d-1", statement="changed") + "\n")
        (files / "s.json").write_text(json.dumps(session("s-2", title="Renamed")))
        again = sr.ingest([files], skip_existing=True)
        assert [str(p) for p in again.problems] == [
            "d.jsonl line 1: decision 'd-1' is already recorded in project 'p-1' "
            "with other content",
            "s.json: session 's-2' is already recorded in the store with other content",
        ]
        assert sr.decision("p-1", "d-1").statement == "S"


class TestProblem:
    """Where a problem is, in words."""

    def test_where(self) -> None:
        assert IngestProblem("/x/a.json", "INVALID_REQUEST", "r", item=2).where == "a.json[2]"
        assert IngestProblem("-", "INVALID_REQUEST", "r", line=3).where == "stdin line 3"
        assert IngestProblem("/x/a.json", "INVALID_REQUEST", "r").where == "a.json"


class TestReading:
    """Every kind of input, and every way it can be wrong."""

    def test_sessions_from_standard_input(self, sr: SemReport) -> None:
        text = json.dumps([session("s-1"), session("s-2")])
        result = sr.ingest(["-"], kind="sessions", stdin=io.StringIO(text))
        assert result.recorded_sessions == ("s-1", "s-2")

    @pytest.mark.parametrize(
        ("text", "kind"),
        [("5", "a number"), ("true", "a boolean"), ('"x"', "a string"), ("null", "null")],
    )
    def test_a_line_that_is_not_an_object(self, sr: SemReport, text: str, kind: str) -> None:
        result = sr.ingest(["-"], stdin=io.StringIO(text + "\n"))
        assert result.problems[0].reason == f"expected a JSON object, got {kind}"

    def test_a_line_nested_too_deeply(self, sr: SemReport) -> None:
        result = sr.ingest(["-"], stdin=io.StringIO("[" * 100_000 + "]" * 100_000 + "\n"))
        assert "nested too deeply" in result.problems[0].reason

    def test_a_decision_over_the_limits(self, sr: SemReport) -> None:
        tags = [f"t{i}" for i in range(10_000)]
        result = sr.ingest(["-"], stdin=io.StringIO(line("d-1", tags=tags) + "\n"))
        assert result.problems[0].reason.startswith("$.tags")

    def test_a_decisions_file_that_cannot_be_opened(
        self, sr: SemReport, files: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        def refuse(self: Path, *args: object, **kwargs: object) -> object:
            raise PermissionError(13, "Permission denied", str(self))

        monkeypatch.setattr(Path, "open", refuse)
        result = sr.ingest([files / "d.jsonl"])
        assert str(result.problems[0]) == "d.jsonl: cannot read: Permission denied"

    def test_a_forced_kind_picks_only_its_files_and_recursion_is_optional(
        self, sr: SemReport, files: Path
    ) -> None:
        (files / "sub").mkdir()
        (files / "sub" / "more.jsonl").write_text(line("d-9") + "\n")
        assert [Path(f).name for f in sr.ingest([files], kind="decisions", dry_run=True).files] == [
            "d.jsonl",
            "more.jsonl",
        ]
        flat = sr.ingest([files], kind="decisions", recursive=False, dry_run=True)
        assert [Path(f).name for f in flat.files] == ["d.jsonl"]
        with pytest.raises(InvalidRequest, match=r"no \.json file"):
            sr.ingest([files / "sub"], kind="sessions")

    def test_progress_while_reading_a_long_file(self, sr: SemReport, tmp_path: Path) -> None:
        path = tmp_path / "d.jsonl"
        path.write_text("\n".join(line(f"d-{i}") for i in range(600)))  # no final newline
        events: list[IngestProgress] = []
        sr.ingest([path], dry_run=True, progress=events.append)
        reading = [(e.done, e.total) for e in events if e.stage == "reading"]
        assert reading == [(256, 600), (512, 600), (600, 600)]
