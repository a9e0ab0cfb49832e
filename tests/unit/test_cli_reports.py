"""``report``, ``export-report``, ``verify`` and ``export-session``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import URL, run, shared_store

import semreport
from semreport import sample
from semreport.cli import EXIT_FAILED, EXIT_REFUSED, EXIT_USAGE
from semreport.storage.memory import MemoryStorage

P = sample.PROJECT_ID
SESSION = sample.SESSION_IDS[0]


@pytest.fixture
def store(monkeypatch: pytest.MonkeyPatch) -> MemoryStorage:
    store = shared_store(monkeypatch)
    store.record(sample.decisions())
    store.record_sessions(sample.sessions())
    return store


@pytest.fixture
def html(store: MemoryStorage, tmp_path: Path) -> Path:
    target = tmp_path / "r.html"
    result = run("export-report", "-p", P, "-o", str(target), "--url", URL)
    assert result.exit_code == 0, result.stderr
    return target


class TestReport:
    """The report JSON, to standard output or a file."""

    def test_stdout(self, store: MemoryStorage) -> None:
        result = run("report", "-p", P, "--url", URL)
        assert result.exit_code == 0, result.stderr
        report = json.loads(result.stdout)
        assert report["schema"] == "semreport.report/1"
        assert report["project_id"] == P
        assert len(report["records"]) == len(sample.decisions())

    def test_file(self, store: MemoryStorage, tmp_path: Path) -> None:
        target = tmp_path / "report.json"
        result = run("report", "-p", P, "-o", str(target), "--url", URL)
        assert result.exit_code == 0
        assert json.loads(target.read_text())["digest"]["scheme"] == "semreport-digest/1"
        assert f"wrote {target}" in result.stderr

    def test_unknown_project(self, store: MemoryStorage) -> None:
        result = run("report", "-p", "nowhere", "--url", URL)
        assert result.exit_code == EXIT_REFUSED
        assert result.stderr.startswith("semreport: error: PROJECT_NOT_FOUND")


class TestExportReport:
    """The HTML file is written and the digest printed."""

    def test_digest_printed(
        self, store: MemoryStorage, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.chdir(tmp_path)
        result = run("export-report", "-p", P, "--url", URL)
        assert result.exit_code == 0, result.stderr
        page = tmp_path / f"{P}-report.html"
        assert page.read_text(encoding="utf-8").lstrip().lower().startswith("<!doctype html")
        digest = semreport.verify(page.read_text(encoding="utf-8"))
        assert digest.ok
        for member in ("records_root", "report_sha256", "semreport-digest/1"):
            assert member in result.stdout

    def test_json(self, store: MemoryStorage, tmp_path: Path) -> None:
        target = tmp_path / "x.html"
        result = run("export-report", "-p", P, "-o", str(target), "--json", "--url", URL)
        printed = json.loads(result.stdout)
        assert printed["html"] == str(target)
        assert printed["digest"]["records"] == len(sample.decisions())


class TestVerify:
    """Exit status 0 only when everything matches, with an account of what does not."""

    def test_intact_html(self, html: Path) -> None:
        result = run("verify", str(html))
        assert result.exit_code == 0, result.stdout
        assert "VERIFIED" in result.stdout

    def test_live_against_the_storage(self, html: Path) -> None:
        result = run("verify", str(html), "--live", "--url", URL)
        assert result.exit_code == 0, result.stdout
        assert "memory: ok" in result.stdout

    def test_live_says_when_memory_has_moved_on(self, html: Path, store: MemoryStorage) -> None:
        store.record(
            [semreport.Decision(id="LH-NEW-001", project_id=P, title="t", statement="s", agent="a")]
        )
        result = run("verify", str(html), "--live", "--url", URL)
        assert result.exit_code == 0, result.stdout
        assert "memory has moved on: 1 record(s)" in result.stdout

    def test_a_forged_visible_figure_is_located(self, html: Path) -> None:
        text = html.read_text(encoding="utf-8")
        block = text.index('id="semreport-report"')
        forged = text[:block].replace("REI 90", "REI 30", 1) + text[block:]
        assert forged != text
        html.write_text(forged, encoding="utf-8")
        result = run("verify", str(html))
        assert result.exit_code == EXIT_FAILED
        assert "page: MISMATCH" in result.stdout
        assert "[page_mismatch]" in result.stdout

    def test_tampered_html(self, html: Path) -> None:
        text = html.read_text(encoding="utf-8")
        block = text.index('id="semreport-report"')
        html.write_text(
            text[:block]
            + text[block:].replace("REI 90 for load-bearing", "REI 60 for load-bearing", 1),
            encoding="utf-8",
        )
        result = run("verify", str(html))
        assert result.exit_code == EXIT_FAILED
        assert "NOT VERIFIED" in result.stdout
        assert "LH-REG-003" in result.stdout
        got = json.loads(run("verify", str(html), "--json").stdout)
        assert got["ok"] is False
        assert got["problems"]

    def test_report_json_verifies(self, store: MemoryStorage, tmp_path: Path) -> None:
        target = tmp_path / "r.json"
        run("report", "-p", P, "-o", str(target), "--url", URL)
        assert run("verify", str(target)).exit_code == 0

    def test_not_a_report(self, tmp_path: Path) -> None:
        target = tmp_path / "x.html"
        target.write_text("<html>hello</html>")
        result = run("verify", str(target))
        assert result.exit_code == EXIT_REFUSED
        assert result.stderr.startswith("semreport: error: INVALID_REQUEST")
        assert result.stderr.count("\n") == 1


class TestExportSession:
    """Each format written with its suggested name; errors name the allowed formats."""

    @pytest.mark.parametrize("fmt", ["json", "pdf", "graph"])
    def test_one_format_into_a_directory(
        self, store: MemoryStorage, tmp_path: Path, fmt: str
    ) -> None:
        result = run("export-session", SESSION, "-f", fmt, "-o", str(tmp_path), "--url", URL)
        assert result.exit_code == 0, result.stderr
        written = list(tmp_path.iterdir())
        assert len(written) == 1
        assert written[0].stat().st_size > 0
        assert str(written[0]) in result.stdout

    def test_all_formats(self, store: MemoryStorage, tmp_path: Path) -> None:
        out = tmp_path / "new"
        result = run("export-session", SESSION, "-f", "all", "-o", str(out), "--url", URL)
        assert result.exit_code == 0, result.stderr
        assert len(list(out.iterdir())) == 3
        pdf = next(p for p in out.iterdir() if p.read_bytes().startswith(b"%PDF"))
        assert pdf.suffix == ".pdf"

    def test_explicit_file_and_graphml(self, store: MemoryStorage, tmp_path: Path) -> None:
        target = tmp_path / "session.graphml"
        result = run(
            "export-session",
            SESSION,
            "-f",
            "graph",
            "--graph-format",
            "graphml",
            "-o",
            str(target),
            "--url",
            URL,
        )
        assert result.exit_code == 0, result.stderr
        assert b"graphml" in target.read_bytes()[:400]

    def test_json_export_loads_back(self, store: MemoryStorage, tmp_path: Path) -> None:
        target = tmp_path / "s.json"
        run("export-session", SESSION, "-o", str(target), "--url", URL)
        assert json.loads(target.read_text(encoding="utf-8"))["schema"] == "semreport.session/1"

    def test_unknown_format(self, store: MemoryStorage, tmp_path: Path) -> None:
        result = run("export-session", SESSION, "-f", "docx", "-o", str(tmp_path), "--url", URL)
        assert result.exit_code == EXIT_USAGE
        assert "Invalid value for '--format' / '-f': 'docx' is not one of" in result.stderr
        assert "pdf" in result.stderr

    def test_unknown_session(self, store: MemoryStorage, tmp_path: Path) -> None:
        result = run("export-session", "nope", "-o", str(tmp_path), "--url", URL)
        assert result.exit_code == EXIT_REFUSED
        assert "SESSION_NOT_FOUND" in result.stderr
