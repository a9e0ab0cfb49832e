"""Read-only commands never create a storage: a --url naming no file is one line and status 2.

Only ``ingest`` and ``demo`` write, so only they create the SQLite file a
``--url`` names. Every other command opens it with ``create=False``: a
mistyped path is reported, naming the file, and leaves no file (nor a
``-wal`` or ``-shm``) behind.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import URL, run, shared_store

from semreport import sample
from semreport.cli import EXIT_OK, EXIT_USAGE
from semreport.http import _serve as http_serve

# Every command that only reads, with the arguments it needs besides --url.
READERS: dict[str, list[str]] = {
    "signals": ["-p", "lindenhof"],
    "find": ["-p", "lindenhof", "timber"],
    "similar": ["-p", "lindenhof", "LH-MAT-006"],
    "report": ["-p", "lindenhof"],
    "export-report": ["-p", "lindenhof"],
    "export-session": ["lh-fire-workshop-2025-03"],
    "serve": ["--dev-token", "s3cret"],
    "projects": [],
    "sessions": ["-p", "lindenhof"],
    "show": ["-p", "lindenhof", "LH-MAT-006"],
}


@pytest.fixture
def missing(tmp_path: Path) -> Path:
    """A path in an existing directory where no database exists."""
    return tmp_path / "typo.db"


class TestReadersRefuseAMissingFile:
    """Exit status 2, one line naming the file, and nothing created."""

    @pytest.mark.parametrize("command", sorted(READERS))
    def test_a_reading_command(
        self, command: str, missing: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # Should serve ever get as far as running a server, it must return, not block.
        monkeypatch.setattr(http_serve.uvicorn, "run", lambda *_a, **_k: None)
        out = tmp_path / "out"
        out.mkdir()
        extra = ["-o", str(out / "x")] if command in {"export-report", "export-session"} else []
        result = run(command, *READERS[command], *extra, "--url", f"sqlite:///{missing}")
        assert result.exit_code == EXIT_USAGE, result.stderr
        assert result.stderr.count("\n") == 1
        assert result.stderr.startswith("semreport: error: STORAGE_NOT_FOUND: ")
        assert str(missing) in result.stderr
        assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
        assert list(out.iterdir()) == []

    def test_verify_live(
        self, missing: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # A page exported from another store, checked live against a storage that is not there.
        store = shared_store(monkeypatch)
        store.record(sample.decisions())
        page = tmp_path / "report.html"
        exported = run("export-report", "-p", sample.PROJECT_ID, "-o", str(page), "--url", URL)
        assert exported.exit_code == EXIT_OK, exported.stderr
        result = run("verify", str(page), "--live", "--url", f"sqlite:///{missing}")
        assert result.exit_code == EXIT_USAGE, result.stderr
        assert result.stderr.count("\n") == 1
        assert str(missing) in result.stderr
        assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]
        # Without --live the page alone is checked, and no storage is opened.
        assert run("verify", str(page), "--url", f"sqlite:///{missing}").exit_code == EXIT_OK
        assert not missing.exists()

    def test_a_missing_directory_too(self, tmp_path: Path) -> None:
        nowhere = tmp_path / "no" / "such" / "dir.db"
        result = run("signals", "-p", "p", "--url", f"sqlite:///{nowhere}")
        assert result.exit_code == EXIT_USAGE
        assert str(nowhere) in result.stderr
        assert list(tmp_path.iterdir()) == []


class TestWritersCreate:
    """``ingest`` creates the file it is given; then the readers find it."""

    def test_ingest_creates_then_readers_read(self, missing: Path) -> None:
        line = (
            '{"id": "d-1", "project_id": "p-1", "title": "CLT floors", '
            '"statement": "Use CLT", "agent": "a-1"}\n'
        )
        url = f"sqlite:///{missing}"
        assert run("ingest", "-", "--url", url, input=line).exit_code == EXIT_OK
        assert missing.exists()
        result = run("signals", "-p", "p-1", "--url", url)
        assert result.exit_code == EXIT_OK, result.stderr
