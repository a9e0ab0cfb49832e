"""``semreport ingest``: bad lines reported one by one, good lines recorded in batches."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import URL, run, shared_store

from semreport import sample
from semreport.cli import EXIT_FAILED, EXIT_OK, EXIT_REFUSED, EXIT_USAGE
from semreport.storage.memory import MemoryStorage

DATA = Path(sample.__file__).with_name("data")


def _decision(id_: str, **fields: object) -> str:
    record = {"id": id_, "project_id": "p-1", "title": "T", "statement": "S", "agent": "a"}
    record.update(fields)
    return json.dumps(record)


@pytest.fixture
def store(monkeypatch: pytest.MonkeyPatch) -> MemoryStorage:
    return shared_store(monkeypatch)


class TestGoodInput:
    """Files, directories and standard input are recorded."""

    def test_sample_directory(self, store: MemoryStorage) -> None:
        result = run("ingest", "--url", URL, str(DATA))
        assert result.exit_code == EXIT_OK, result.stderr
        assert store.latest_sequence(sample.PROJECT_ID) == len(sample.decisions())
        for session_id in sample.SESSION_IDS:
            assert store.get_session(session_id).id == session_id
        assert "decisions recorded" in result.stdout
        assert result.stderr == ""

    def test_batches_of_one_keep_the_order(self, store: MemoryStorage, tmp_path: Path) -> None:
        path = tmp_path / "d.jsonl"
        path.write_text("\n".join(_decision(f"d-{i}") for i in range(5)) + "\n\n")
        result = run("ingest", "--url", URL, "--batch-size", "1", str(path))
        assert result.exit_code == EXIT_OK
        assert [d.id for d in store.decisions("p-1")] == [f"d-{i}" for i in range(5)]

    def test_standard_input(self, store: MemoryStorage) -> None:
        result = run("ingest", "--url", URL, "-", input=_decision("d-1") + "\n")
        assert result.exit_code == EXIT_OK
        assert store.latest_sequence("p-1") == 1

    def test_json_summary(self, store: MemoryStorage, tmp_path: Path) -> None:
        path = tmp_path / "d.jsonl"
        path.write_text(_decision("d-1") + "\n")
        result = run("ingest", "--url", URL, "--json", str(path))
        assert json.loads(result.stdout) == {
            "recorded_decisions": 1,
            "recorded_sessions": 0,
            "valid_decisions": 1,
            "valid_sessions": 0,
            "existing_decisions": 0,
            "existing_sessions": 0,
            "problems": [],
            "written": True,
        }

    def test_session_array_and_forced_kind(self, store: MemoryStorage, tmp_path: Path) -> None:
        sessions = [json.loads(p.read_text()) for p in sorted((DATA / "sessions").iterdir())]
        path = tmp_path / "sessions.txt"
        path.write_text(json.dumps(sessions))
        result = run("ingest", "--url", URL, "--kind", "sessions", str(path))
        assert result.exit_code == EXIT_OK, result.stderr
        assert "sessions recorded  │ 2" in result.stdout

    def test_exported_sessions_ingest_back(
        self, store: MemoryStorage, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        run("ingest", "--url", URL, str(DATA / "sessions"))
        out = tmp_path / "exports"
        assert (
            run("export-session", sample.SESSION_IDS[1], "-o", str(out), "--url", URL).exit_code
            == 0
        )
        fresh = shared_store(monkeypatch)
        result = run("ingest", "--url", URL, str(out))
        assert result.exit_code == EXIT_OK, result.stderr
        assert fresh.get_session(sample.SESSION_IDS[1]) == store.get_session(sample.SESSION_IDS[1])

    def test_dry_run_records_nothing(self, store: MemoryStorage, tmp_path: Path) -> None:
        path = tmp_path / "d.jsonl"
        path.write_text(_decision("d-1") + "\n")
        result = run("ingest", "--url", URL, "--dry-run", str(path))
        assert result.exit_code == EXIT_OK
        assert store.latest_sequence("p-1") == 0
        assert "valid decisions (not recorded)" in result.stdout


class TestBadInput:
    """Each bad line is reported with its number and reason; the good ones are recorded."""

    def test_each_bad_line_has_its_number_and_reason(
        self, store: MemoryStorage, tmp_path: Path
    ) -> None:
        path = tmp_path / "mixed.jsonl"
        path.write_bytes(
            "\n".join(
                [
                    _decision("d-1"),
                    "{not json",
                    _decision("d-2", domain="materials", title=""),
                    _decision("d-1"),
                    "[1, 2]",
                    _decision("d-3"),
                ]
            ).encode()
            + b"\n\xff\xfe\n"
        )
        result = run("ingest", "--url", URL, str(path))
        assert result.exit_code == EXIT_FAILED
        lines = result.stderr.splitlines()
        assert lines[0].startswith("semreport: mixed.jsonl line 2: not JSON")
        assert lines[1].startswith("semreport: mixed.jsonl line 3: $.title: must not be empty")
        assert "$.domain: 'materials' is not one of" in lines[1]
        assert (
            lines[2] == "semreport: mixed.jsonl line 4: decision 'd-1' repeats mixed.jsonl line 1"
        )
        assert lines[3] == "semreport: mixed.jsonl line 5: expected a JSON object, got an array"
        assert lines[4].startswith("semreport: mixed.jsonl line 7: not UTF-8 text")
        assert len(lines) == 5
        assert [d.id for d in store.decisions("p-1")] == ["d-1", "d-3"]

    def test_ids_already_stored_are_refused(self, store: MemoryStorage, tmp_path: Path) -> None:
        path = tmp_path / "d.jsonl"
        path.write_text(_decision("d-1") + "\n")
        assert run("ingest", "--url", URL, str(path)).exit_code == EXIT_OK
        path.write_text(_decision("d-1") + "\n" + _decision("d-2") + "\n")
        result = run("ingest", "--url", URL, str(path))
        assert result.exit_code == EXIT_FAILED
        assert "d.jsonl line 1: decision 'd-1' is already recorded in project 'p-1'" in (
            result.stderr
        )
        assert [d.id for d in store.decisions("p-1")] == ["d-1", "d-2"]

    def test_all_or_nothing(self, store: MemoryStorage, tmp_path: Path) -> None:
        path = tmp_path / "d.jsonl"
        path.write_text(_decision("d-1") + "\n" + "oops\n")
        result = run("ingest", "--url", URL, "--all-or-nothing", "--json", str(path))
        assert result.exit_code == EXIT_FAILED
        assert store.latest_sequence("p-1") == 0
        summary = json.loads(result.stdout)
        assert summary["written"] is False
        assert summary["problems"] == [
            {"where": "d.jsonl line 2", "reason": summary["problems"][0]["reason"]}
        ]
        assert "nothing was recorded" in result.stderr

    def test_bad_session_files(self, store: MemoryStorage, tmp_path: Path) -> None:
        (tmp_path / "a.json").write_text("{")
        (tmp_path / "b.json").write_text(json.dumps({"id": "s-1"}))
        (tmp_path / "c.json").write_bytes(b"\xff")
        good = json.loads((DATA / "sessions" / f"{sample.SESSION_IDS[0]}.json").read_text())
        (tmp_path / "d.json").write_text(json.dumps([good, good]))
        result = run("ingest", "--url", URL, str(tmp_path))
        assert result.exit_code == EXIT_FAILED
        lines = result.stderr.splitlines()
        assert lines[0].startswith("semreport: a.json: not JSON")
        assert lines[1].startswith("semreport: b.json: $.project_id: required field")
        (tmp_path / "e.json").write_text(json.dumps({"schema": "other/1", "session": {}}))
        again = run("ingest", "--url", URL, "--dry-run", str(tmp_path / "e.json"))
        assert "e.json: $.schema: unsupported schema 'other/1'" in again.stderr
        assert lines[2].startswith("semreport: c.json: not UTF-8 text")
        assert (
            lines[3] == f"semreport: d.json[1]: session {sample.SESSION_IDS[0]!r} repeats d.json[0]"
        )
        assert store.get_session(sample.SESSION_IDS[0]).id == sample.SESSION_IDS[0]

    def test_stored_session_is_refused(self, store: MemoryStorage) -> None:
        folder = str(DATA / "sessions")
        assert run("ingest", "--url", URL, folder).exit_code == EXIT_OK
        result = run("ingest", "--url", URL, folder)
        assert result.exit_code == EXIT_FAILED
        assert "is already recorded" in result.stderr


class TestSkipExisting:
    """--skip-existing makes an ingest safe to repeat: stored records are counted, not refused."""

    def test_a_second_run_records_only_what_is_new(
        self, store: MemoryStorage, tmp_path: Path
    ) -> None:
        path = tmp_path / "d.jsonl"
        path.write_text(_decision("d-1") + "\n" + _decision("d-2") + "\n")
        assert run("ingest", "--url", URL, str(path), str(DATA / "sessions")).exit_code == 0
        path.write_text("\n".join(_decision(f"d-{i}") for i in (1, 2, 3)) + "\n")
        result = run(
            "ingest", "--url", URL, "--skip-existing", "--json", str(path), str(DATA / "sessions")
        )
        assert result.exit_code == EXIT_OK, result.stderr
        summary = json.loads(result.stdout)
        assert summary["recorded_decisions"] == 1
        assert summary["existing_decisions"] == 2
        assert summary["existing_sessions"] == len(sample.SESSION_IDS)
        assert summary["recorded_sessions"] == 0
        assert [d.id for d in store.decisions("p-1")] == ["d-1", "d-2", "d-3"]

    def test_the_table_counts_what_was_already_stored(
        self, store: MemoryStorage, tmp_path: Path
    ) -> None:
        path = tmp_path / "d.jsonl"
        path.write_text(_decision("d-1") + "\n")
        assert run("ingest", "--url", URL, str(path)).exit_code == EXIT_OK
        result = run("ingest", "--url", URL, "--skip-existing", str(path))
        assert result.exit_code == EXIT_OK
        assert "decisions already stored │ 1" in result.stdout

    def test_the_same_id_with_other_content_is_reported_with_its_line(
        self, store: MemoryStorage, tmp_path: Path
    ) -> None:
        path = tmp_path / "d.jsonl"
        path.write_text(_decision("d-1") + "\n")
        assert run("ingest", "--url", URL, str(path)).exit_code == EXIT_OK
        path.write_text(_decision("d-2") + "\n" + _decision("d-1", title="Changed") + "\n")
        result = run("ingest", "--url", URL, "--skip-existing", str(path))
        assert result.exit_code == EXIT_FAILED
        assert result.stderr.splitlines() == [
            "semreport: d.jsonl line 2: decision 'd-1' is already recorded in project 'p-1' "
            "with other content"
        ]
        assert store.get("p-1", "d-1").title == "T"
        assert [d.id for d in store.decisions("p-1")] == ["d-1", "d-2"]

    def test_a_changed_session_is_reported(self, store: MemoryStorage, tmp_path: Path) -> None:
        good = json.loads((DATA / "sessions" / f"{sample.SESSION_IDS[0]}.json").read_text())
        (tmp_path / "s.json").write_text(json.dumps(good))
        assert run("ingest", "--url", URL, str(tmp_path / "s.json")).exit_code == EXIT_OK
        good["title"] = "Another title"
        (tmp_path / "s.json").write_text(json.dumps(good))
        result = run("ingest", "--url", URL, "--skip-existing", str(tmp_path / "s.json"))
        assert result.exit_code == EXIT_FAILED
        assert "with other content" in result.stderr


class TestRefusals:
    """Unusable paths and storage failures are one line and a non-zero status."""

    def test_missing_path_is_a_usage_error(self, store: MemoryStorage, tmp_path: Path) -> None:
        result = run("ingest", "--url", URL, str(tmp_path / "nope.jsonl"))
        assert result.exit_code == EXIT_USAGE
        assert "PATHS" in result.stderr
        assert "nope.jsonl" in result.stderr
        assert "does not exist" in result.stderr
        assert "Traceback" not in result.stderr

    def test_unknown_suffix_and_empty_directory(self, store: MemoryStorage, tmp_path: Path) -> None:
        (tmp_path / "notes.txt").write_text("x")
        (tmp_path / "empty").mkdir()
        result = run("ingest", "--url", URL, str(tmp_path / "notes.txt"), str(tmp_path / "empty"))
        assert result.exit_code == EXIT_USAGE
        assert "Invalid value for PATHS" in result.stderr
        assert "cannot tell decisions from sessions" in result.stderr
        assert "holds no .jsonl or .json file" in result.stderr

    def test_storage_failure_mid_way_names_what_was_kept(
        self, store: MemoryStorage, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        path = tmp_path / "d.jsonl"
        path.write_text("\n".join(_decision(f"d-{i}") for i in range(4)) + "\n")
        calls = {"n": 0}
        original = MemoryStorage.record

        def flaky(self: MemoryStorage, batch: list[object]) -> object:
            calls["n"] += 1
            if calls["n"] == 2:
                store.close()
            return original(self, batch)  # type: ignore[arg-type]

        monkeypatch.setattr(MemoryStorage, "record", flaky)
        result = run("ingest", "--url", URL, "--batch-size", "2", str(path))
        assert result.exit_code == EXIT_REFUSED
        assert result.stderr.splitlines() == [
            "semreport: error: STORAGE_ERROR: the storage is closed (earlier batches stay "
            "recorded: 2 decision(s), 0 session(s))"
        ]
