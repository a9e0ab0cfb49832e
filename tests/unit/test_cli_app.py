"""The command group: help everywhere, --url everywhere, errors as one line and an exit status."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import URL, run, shared_store

import semreport
from semreport import sample
from semreport.cli import DEFAULT_URL, EXIT_INTERNAL, EXIT_REFUSED, EXIT_USAGE, cli, main
from semreport.storage.memory import MemoryStorage

COMMANDS = sorted(cli.commands)


class TestHelp:
    """Every command documents itself and takes the storage URL."""

    def test_group_help_lists_every_command(self) -> None:
        result = run("--help")
        assert result.exit_code == 0
        for name in COMMANDS:
            assert name in result.stdout
        assert "Exit status" in result.stdout

    def test_the_issue_commands_exist(self) -> None:
        expected = {
            "demo",
            "ingest",
            "signals",
            "find",
            "similar",
            "report",
            "export-report",
            "verify",
            "export-session",
        }
        assert expected <= set(COMMANDS)

    @pytest.mark.parametrize("name", COMMANDS)
    def test_each_command_has_help_and_url(self, name: str) -> None:
        result = run(name, "--help")
        assert result.exit_code == 0
        assert cli.commands[name].help
        if name != "demo":  # the demo makes its own SQLite file under --out
            assert "--url" in result.stdout
            assert DEFAULT_URL in result.stdout

    def test_version(self) -> None:
        result = run("--version")
        assert result.exit_code == 0
        assert semreport.__version__ in result.stdout


class TestErrors:
    """One clear line on standard error, a non-zero status, never a traceback."""

    def test_unknown_storage_scheme(self, tmp_path: object) -> None:
        result = run("ingest", "--url", "nosuch://x", "-", input="")
        assert result.exit_code == EXIT_REFUSED
        assert result.stderr.startswith("semreport: error: UNKNOWN_STORAGE_SCHEME: ")
        assert result.stderr.count("\n") == 1
        assert "Traceback" not in result.stderr + result.stdout

    def test_storage_url_from_the_environment(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("SEMREPORT_URL", "nosuch://x")
        result = run("ingest", "-", input="")
        assert "UNKNOWN_STORAGE_SCHEME" in result.stderr

    def test_unexpected_error_is_one_line(self, monkeypatch: pytest.MonkeyPatch) -> None:
        def broken(*_args: object, **_kwargs: object) -> None:
            raise RuntimeError("disk on fire\nsecond line")

        monkeypatch.setattr(semreport, "open", broken)
        result = run("ingest", "--url", "memory://", "-", input="")
        assert result.exit_code == EXIT_INTERNAL
        assert (
            result.stderr == "semreport: unexpected error: RuntimeError: disk on fire second line\n"
        )

    def test_os_error_names_the_file(self, monkeypatch: pytest.MonkeyPatch) -> None:
        def denied(*_args: object, **_kwargs: object) -> None:
            raise PermissionError(13, "Permission denied", "/srv/semreport.db")

        monkeypatch.setattr(semreport, "open", denied)
        result = run("ingest", "-", input="")
        assert result.exit_code == EXIT_REFUSED
        assert result.stderr == "semreport: error: /srv/semreport.db: Permission denied\n"

    def test_interrupt(self, monkeypatch: pytest.MonkeyPatch) -> None:
        def interrupted(*_args: object, **_kwargs: object) -> None:
            raise KeyboardInterrupt

        monkeypatch.setattr(semreport, "open", interrupted)
        result = run("ingest", "-", input="")
        assert result.exit_code == 130
        assert result.stderr == "semreport: interrupted\n"

    def test_usage_error(self) -> None:
        result = run("ingest")
        assert result.exit_code == EXIT_USAGE
        assert "Traceback" not in result.stderr


class TestMain:
    """The console script's entry point runs the group in standalone mode."""

    def test_main_exits_with_the_status(
        self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        monkeypatch.setattr("sys.argv", ["semreport", "ingest", "--url", "nosuch://", "-"])
        with pytest.raises(SystemExit) as exit_info:
            main()
        assert exit_info.value.code == EXIT_REFUSED
        assert "UNKNOWN_STORAGE_SCHEME" in capsys.readouterr().err


class TestUsageErrorsNameTheOption:
    """A refused value the user typed is a usage error (2) naming the option, not a JSON path."""

    @pytest.fixture
    def store(self, monkeypatch: pytest.MonkeyPatch) -> MemoryStorage:
        store = shared_store(monkeypatch)
        store.record(sample.decisions())
        return store

    @pytest.mark.parametrize(
        ("args", "option"),
        [
            (["find", "-p", sample.PROJECT_ID, "x", "--domain", "materials"], "--domain"),
            (["find", "-p", sample.PROJECT_ID, "x", "--status", "done"], "--status"),
            (["find", "-p", sample.PROJECT_ID, "x", "--near", "cost_eur=-1e999"], "--near"),
            (["find", "-p", sample.PROJECT_ID, "x", "--cursor", "tampered"], "--cursor"),
            (["show", "-p", "bad id", "d-1"], "--project"),
            (["show", "-p", sample.PROJECT_ID, "bad id"], "DECISION_ID"),
            (["similar", "-p", sample.PROJECT_ID, "--exemplar", '{"title": 5}'], "--exemplar"),
        ],
    )
    def test_the_option_is_named(self, store: MemoryStorage, args: list[str], option: str) -> None:
        result = run(*args, "--url", URL)
        assert result.exit_code == EXIT_USAGE, result.stderr
        assert f"Error: invalid value for {option}: " in result.stderr
        assert "$." not in result.stderr

    def test_values_from_criteria_name_criteria_and_the_path(self, store: MemoryStorage) -> None:
        criteria = '{"filters": {"domain": ["nope"]}}'
        result = run("find", "-p", sample.PROJECT_ID, "--criteria", criteria, "--url", URL)
        assert result.exit_code == EXIT_USAGE
        assert "invalid value for --criteria: $.filters.domain[0]: " in result.stderr

    def test_a_missing_criteria_file_is_a_usage_error(
        self, store: MemoryStorage, tmp_path: Path
    ) -> None:
        missing = tmp_path / "criteria.json"
        result = run("find", "-p", sample.PROJECT_ID, "--criteria", f"@{missing}", "--url", URL)
        assert result.exit_code == EXIT_USAGE
        assert "--criteria" in result.stderr
        assert str(missing) in result.stderr

    def test_refusals_no_option_explains_stay_refusals(self, store: MemoryStorage) -> None:
        result = run("show", "-p", sample.PROJECT_ID, "LH-NOPE", "--url", URL)
        assert result.exit_code == EXIT_REFUSED
