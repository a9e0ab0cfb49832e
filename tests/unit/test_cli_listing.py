"""``semreport projects``, ``sessions`` and ``show``, and ``--format`` on every listing command."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from cli_support import URL, run, shared_store

import semreport
from semreport import sample
from semreport.cli import EXIT_OK, EXIT_REFUSED, EXIT_USAGE
from semreport.storage.memory import MemoryStorage

P = sample.PROJECT_ID
LISTINGS: dict[str, list[str]] = {
    "projects": [],
    "sessions": ["-p", P],
    "show": ["-p", P, "LH-MAT-006"],
    "signals": ["-p", P],
    "find": ["-p", P, "fire floors", "--limit", "3"],
    "similar": ["-p", P, "LH-MAT-006", "--limit", "3"],
}


@pytest.fixture
def store(monkeypatch: pytest.MonkeyPatch) -> MemoryStorage:
    store = shared_store(monkeypatch)
    store.record(sample.decisions())
    store.record_sessions(sample.sessions())
    return store


def _facade(store: MemoryStorage) -> semreport.SemReport:
    return semreport.SemReport(store, caller=semreport.Principal.local())


class TestProjects:
    """Every project with its counts."""

    def test_tsv_when_piped(self, store: MemoryStorage) -> None:
        result = run("projects", "--url", URL)
        assert result.exit_code == EXIT_OK, result.stderr
        decisions = len(sample.decisions())
        sessions = len(sample.SESSION_IDS)
        assert result.stdout.splitlines() == [
            "project_id\tdecisions\tlatest_sequence\tsessions",
            f"{P}\t{decisions}\t{decisions}\t{sessions}",
        ]

    def test_json(self, store: MemoryStorage) -> None:
        listed = json.loads(run("projects", "--json", "--url", URL).stdout)
        assert listed == [semreport.to_wire(p) for p in _facade(store).projects()]

    def test_table(self, store: MemoryStorage) -> None:
        result = run("projects", "--format", "table", "--url", URL)
        assert "┃ project_id" in result.stdout
        assert "1 listed" in result.stdout

    def test_an_empty_storage(self, monkeypatch: pytest.MonkeyPatch) -> None:
        shared_store(monkeypatch)
        assert (
            run("projects", "--url", URL).stdout
            == "project_id\tdecisions\tlatest_sequence\tsessions\n"
        )


class TestSessions:
    """A project's sessions without their transcripts."""

    def test_csv(self, store: MemoryStorage) -> None:
        result = run("sessions", "-p", P, "--format", "csv", "--url", URL)
        rows = list(csv.DictReader(io.StringIO(result.stdout)))
        assert [row["id"] for row in rows] == [s.id for s in _facade(store).sessions(P)]
        assert all(int(row["turns"]) > 0 for row in rows)

    def test_table_keeps_ids_whole(
        self, store: MemoryStorage, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("COLUMNS", "60")
        result = run("sessions", "-p", P, "--format", "table", "--url", URL)
        for session_id in sample.SESSION_IDS:
            assert session_id in result.stdout

    def test_an_unknown_project(self, store: MemoryStorage) -> None:
        result = run("sessions", "-p", "nowhere", "--url", URL)
        assert result.exit_code == EXIT_REFUSED
        assert result.stderr.startswith("semreport: error: PROJECT_NOT_FOUND: ")


class TestShow:
    """The whole decision, with links both ways and supersession."""

    def test_tsv_fields(self, store: MemoryStorage) -> None:
        result = run("show", "-p", P, "LH-MAT-006", "--url", URL)
        assert result.exit_code == EXIT_OK, result.stderr
        fields = [line.split("\t", 1) for line in result.stdout.splitlines()]
        assert fields[0] == ["field", "value"]
        values = {k: v for k, v in fields if not k.startswith(("links", "linked", "evid"))}
        decision = _facade(store).decision(P, "LH-MAT-006")
        assert values["statement"] == decision.statement
        assert values["rationale"] == decision.rationale
        assert values["attributes.fire_resistance_min"] == "90"
        assert ["links.supersedes", "LH-MAT-005"] in fields
        assert any(k == "linked_from.depends_on" for k, _ in fields)
        assert any(k == "evidence[0]" for k, _ in fields)
        assert values["superseded_by"] == ""

    def test_a_superseded_decision_says_by_what(self, store: MemoryStorage) -> None:
        table = run("show", "-p", P, "LH-MAT-005", "--format", "table", "--url", URL)
        assert "SUPERSEDED by LH-MAT-006" in table.stdout
        assert "from" in table.stdout
        wire = json.loads(run("show", "-p", P, "LH-MAT-005", "--json", "--url", URL).stdout)
        assert wire["superseded_by"] == ["LH-MAT-006"]
        assert wire["decision"]["id"] == "LH-MAT-005"
        assert {"kind": "supersedes", "source": "LH-MAT-006"} in wire["incoming"]

    def test_table_shows_everything(self, store: MemoryStorage) -> None:
        result = run("show", "-p", P, "LH-MAT-006", "--format", "table", "--url", URL)
        for heading in ("Attributes", "Evidence", "Links", "not superseded", "LH-REG-003"):
            assert heading in result.stdout

    def test_an_unknown_decision(self, store: MemoryStorage) -> None:
        result = run("show", "-p", P, "LH-NOPE", "--url", URL)
        assert result.exit_code == EXIT_REFUSED
        assert result.stderr.startswith("semreport: error: DECISION_NOT_FOUND: ")
        assert result.stderr.count("\n") == 1


class TestFormats:
    """--format table|json|csv|tsv on every listing command; --json is its synonym."""

    @pytest.mark.parametrize("command", sorted(LISTINGS))
    def test_json_is_a_synonym(self, store: MemoryStorage, command: str) -> None:
        flag = run(command, *LISTINGS[command], "--json", "--url", URL)
        option = run(command, *LISTINGS[command], "--format", "json", "--url", URL)
        assert flag.exit_code == EXIT_OK, flag.stderr
        assert json.loads(flag.stdout) == json.loads(option.stdout)

    @pytest.mark.parametrize("command", sorted(LISTINGS))
    def test_csv_and_tsv_have_one_record_a_line(self, store: MemoryStorage, command: str) -> None:
        tsv = run(command, *LISTINGS[command], "--format", "tsv", "--url", URL)
        as_csv = run(command, *LISTINGS[command], "--format", "csv", "--url", URL)
        assert tsv.exit_code == as_csv.exit_code == EXIT_OK, tsv.stderr
        lines = tsv.stdout.splitlines()
        widths = {len(line.split("\t")) for line in lines}
        assert len(widths) == 1, lines
        rows = list(csv.reader(io.StringIO(as_csv.stdout)))
        assert len(rows) == len(lines)
        assert rows[0] == lines[0].split("\t")
        assert "┃" not in tsv.stdout

    @pytest.mark.parametrize("command", sorted(LISTINGS))
    def test_the_default_when_piped_is_tsv(self, store: MemoryStorage, command: str) -> None:
        default = run(command, *LISTINGS[command], "--url", URL)
        tsv = run(command, *LISTINGS[command], "--format", "tsv", "--url", URL)
        assert default.stdout == tsv.stdout

    def test_a_bad_format_is_a_usage_error_naming_the_option(self, store: MemoryStorage) -> None:
        result = run("projects", "--format", "xml", "--url", URL)
        assert result.exit_code == EXIT_USAGE
        assert "--format" in result.stderr

    def test_the_next_cursor_goes_to_standard_error_when_piped(self, store: MemoryStorage) -> None:
        result = run("find", "-p", P, "floor", "--limit", "2", "--url", URL)
        assert result.stderr.startswith("next page: --cursor ")
        assert result.stderr.count("\n") == 1
        assert "--cursor" not in result.stdout

    def test_tabs_and_newlines_in_values_stay_on_their_line(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        store = shared_store(monkeypatch)
        store.record(
            [
                semreport.Decision(
                    id="d-1",
                    project_id="p-1",
                    title="Two\tcolumns",
                    statement="one\nline",
                    agent="a",
                )
            ]
        )
        result = run("show", "-p", "p-1", "d-1", "--url", URL)
        assert "title\tTwo columns" in result.stdout.splitlines()
        assert "statement\tone line" in result.stdout.splitlines()


class TestNeverWrapped:
    """On a narrow terminal, ids, hashes and cursors stay whole."""

    def test_ids_hashes_and_cursors(
        self, store: MemoryStorage, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
    ) -> None:
        monkeypatch.setenv("COLUMNS", "60")
        found = run("find", "-p", P, "floor", "--limit", "5", "--format", "table", "--url", URL)
        for hit in _facade(store).find(P, {"text": "floor", "limit": 5}).hits:
            assert hit.decision_id in found.stdout
        cursor = re.search(r"^next page: --cursor (\S+)$", found.stdout, re.M)
        assert cursor
        assert run("find", "-p", P, "floor", "--cursor", cursor[1], "--url", URL).exit_code == 0
        exported = run("export-report", "-p", P, "-o", str(tmp_path / "r.html"), "--url", URL)
        digest = semreport.to_wire(_facade(store).report(P).digest)
        for value in digest.values():
            assert str(value) in exported.stdout


class TestProgress:
    """The ingest progress bars count records."""

    def test_bars_count_records(self) -> None:
        from rich.console import Console
        from rich.progress import Progress

        from semreport.cli._ingest_command import _Bars

        progress = Progress(console=Console(file=io.StringIO(), force_terminal=True))
        bars = _Bars(progress)
        bars(semreport.IngestProgress("reading", "d.jsonl", 3, 7))
        bars(semreport.IngestProgress("recording", "decisions", 5, 5))
        tasks = {task.description: (task.completed, task.total) for task in progress.tasks}
        assert tasks == {"reading d.jsonl": (3, 7), "recording decisions": (5, 5)}
        assert bars.recorded["decisions"] == 5
