"""The command line as a real process (``python -m semreport.cli``) over a SQLite file."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from semreport import sample

DATA = Path(sample.__file__).with_name("data")
P = sample.PROJECT_ID


def semreport(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the command line in a new process, standard output piped (not a terminal)."""
    env = {**os.environ, "COLUMNS": "80"}
    env.pop("SEMREPORT_URL", None)
    return subprocess.run(
        [sys.executable, "-m", "semreport.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding semreport.db with the sample project, ingested by the process."""
    where = tmp_path_factory.mktemp("cli")
    done = semreport("ingest", "--no-progress", str(DATA), cwd=where)
    assert done.returncode == 0, done.stderr
    return where


class TestListing:
    """projects, sessions and show print plain lines when piped."""

    def test_projects(self, loaded: Path) -> None:
        done = semreport("projects", cwd=loaded)
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines()[1].split("\t")[0] == P

    def test_sessions_as_json(self, loaded: Path) -> None:
        done = semreport("sessions", "-p", P, "--format", "json", cwd=loaded)
        assert [s["id"] for s in json.loads(done.stdout)] == sorted(
            sample.SESSION_IDS, key=lambda i: i != "lh-fire-workshop-2025-03"
        )

    def test_show(self, loaded: Path) -> None:
        done = semreport("show", "-p", P, "LH-MAT-005", cwd=loaded)
        assert done.returncode == 0, done.stderr
        assert "superseded_by\tLH-MAT-006" in done.stdout.splitlines()

    def test_find_as_csv_never_wraps(self, loaded: Path) -> None:
        done = semreport(
            "find", "-p", P, "fire resistance of timber floors", "--format", "csv", cwd=loaded
        )
        rows = list(csv.DictReader(io.StringIO(done.stdout)))
        assert len(rows) == 10
        assert all(row["decision_id"].startswith("LH-") for row in rows)
        assert done.stderr.startswith("next page: --cursor ")


class TestExitCodes:
    """0 success, 1 bad input lines, 2 usage errors (naming the option), 3 refusals."""

    def test_a_missing_storage_is_a_usage_error_and_stays_missing(self, tmp_path: Path) -> None:
        for command in (["projects"], ["sessions", "-p", P], ["show", "-p", P, "LH-MAT-006"]):
            done = semreport(*command, "--url", "sqlite:///typo.db", cwd=tmp_path)
            assert done.returncode == 2, done.stderr
            assert "typo.db" in done.stderr
            assert done.stderr.count("\n") == 1
        assert list(tmp_path.iterdir()) == []

    def test_a_bad_option_value_names_the_option(self, loaded: Path) -> None:
        done = semreport("find", "-p", P, "x", "--domain", "materials", cwd=loaded)
        assert done.returncode == 2
        assert "--domain" in done.stderr
        assert "$." not in done.stderr

    def test_a_missing_input_file(self, tmp_path: Path) -> None:
        done = semreport("ingest", "nope.jsonl", cwd=tmp_path)
        assert done.returncode == 2
        assert "nope.jsonl" in done.stderr
        assert list(tmp_path.iterdir()) == []

    def test_ingest_twice_with_skip_existing(self, tmp_path: Path) -> None:
        first = semreport("ingest", "--no-progress", str(DATA), cwd=tmp_path)
        assert first.returncode == 0, first.stderr
        again = semreport("ingest", "--no-progress", str(DATA), cwd=tmp_path)
        assert again.returncode == 1
        skipped = semreport("ingest", "--skip-existing", "--json", str(DATA), cwd=tmp_path)
        assert skipped.returncode == 0, skipped.stderr
        summary = json.loads(skipped.stdout)
        assert summary["existing_decisions"] == len(sample.decisions())
        assert summary["recorded_decisions"] == 0
