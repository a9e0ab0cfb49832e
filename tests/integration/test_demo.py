"""``semreport demo`` end to end on a real SQLite file, then ``verify`` of its HTML."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

import semreport
from semreport import sample
from semreport.cli import cli


class TestDemo:
    """The demo writes everything it promises, and its report verifies."""

    def test_demo_end_to_end(self, tmp_path: Path) -> None:
        out = tmp_path / "demo-out"
        runner = CliRunner()
        result = runner.invoke(cli, ["demo", "--out", str(out)], catch_exceptions=False)
        assert result.exit_code == 0, result.stdout + result.stderr

        database = out / "lindenhof.db"
        html = out / "lindenhof-report.html"
        report = out / "lindenhof-report.json"
        sessions = sorted((out / "sessions").iterdir())
        for path in (database, html, report, *sessions):
            assert path.exists(), path
            assert str(path.resolve()) in result.stdout or str(path) in result.stdout
        assert len(sessions) == 3
        assert {p.suffix for p in sessions} >= {".json", ".pdf"}
        assert json.loads(report.read_text(encoding="utf-8"))["project_id"] == sample.PROJECT_ID

        for step in ("Signals", "Find", "similar to LH-MAT-006", "VERIFIED", "Where everything is"):
            assert step in result.stdout, step
        assert "contribution" in result.stdout

        verified = runner.invoke(cli, ["verify", str(html)], catch_exceptions=False)
        assert verified.exit_code == 0, verified.stdout
        live = runner.invoke(
            cli,
            ["verify", str(html), "--live", "--url", f"sqlite:///{database}"],
            catch_exceptions=False,
        )
        assert live.exit_code == 0, live.stdout

        with semreport.open(f"sqlite:///{database}") as sr:
            assert sr.latest_sequence(sample.PROJECT_ID) == len(sample.decisions())

    def test_demo_runs_twice_on_the_same_directory(self, tmp_path: Path) -> None:
        runner = CliRunner()
        for _ in range(2):
            result = runner.invoke(cli, ["demo", "--out", str(tmp_path)], catch_exceptions=False)
            assert result.exit_code == 0, result.stderr
