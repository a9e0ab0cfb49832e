"""``signals``, ``find`` and ``similar``: readable tables by default, the wire form with --json."""

from __future__ import annotations

import json
import re

import pytest
from cli_support import URL, run, shared_store

import semreport
from semreport import sample
from semreport.cli import EXIT_REFUSED, EXIT_USAGE
from semreport.storage.memory import MemoryStorage

P = sample.PROJECT_ID


@pytest.fixture
def store(monkeypatch: pytest.MonkeyPatch) -> MemoryStorage:
    store = shared_store(monkeypatch)
    store.record(sample.decisions())
    store.record_sessions(sample.sessions())
    return store


def _facade(store: MemoryStorage) -> semreport.SemReport:
    """A facade over the same store, as a library user would open it."""
    return semreport.SemReport(store, caller=semreport.Principal.local())


def _same(got: dict[str, object], expected: object) -> None:
    """The printed JSON is the wire form (cursors are signed with the CLI's own key)."""
    wire = semreport.to_wire(expected)
    assert (got["next_cursor"] is None) == (wire["next_cursor"] is None)
    assert {**got, "next_cursor": None} == {**wire, "next_cursor": None}


def _json(*args: str) -> dict[str, object]:
    result = run(*args, "--json", "--url", URL)
    assert result.exit_code == 0, result.stderr
    loaded: dict[str, object] = json.loads(result.stdout)
    return loaded


class TestSignals:
    """The signal catalogue as tables and as JSON."""

    def test_table(self, store: MemoryStorage) -> None:
        result = run("signals", "-p", P, "--format", "table", "--url", URL)
        assert result.exit_code == 0, result.stderr
        for name in ("text", "facets", "attributes", "graph", "recency"):
            assert name in result.stdout
        assert "cost_eur" in result.stdout

    def test_json_is_the_wire_form(self, store: MemoryStorage) -> None:
        assert _json("signals", "-p", P) == semreport.to_wire(_facade(store).signals(P))

    def test_unknown_project_is_one_line(self, store: MemoryStorage) -> None:
        result = run("signals", "-p", "nowhere", "--url", URL)
        assert result.exit_code == EXIT_REFUSED
        assert result.stderr.startswith("semreport: error: PROJECT_NOT_FOUND: ")
        assert result.stderr.count("\n") == 1

    def test_bad_project_id(self, store: MemoryStorage) -> None:
        result = run("signals", "-p", "no such id", "--url", URL)
        assert result.exit_code == EXIT_USAGE
        assert "invalid value for --project: 'no such id' is not an identifier" in result.stderr


class TestFind:
    """Criteria from arguments and options; explanations for the first hits."""

    def test_table_shows_the_hits_and_their_titles(self, store: MemoryStorage) -> None:
        query = "fire resistance of CLT timber floors"
        expected = _facade(store).find(P, {"text": query, "limit": 5})
        result = run("find", "-p", P, query, "--limit", "5", "--format", "table", "--url", URL)
        assert result.exit_code == 0, result.stderr
        top = expected.hits[0]
        assert top.decision_id in result.stdout
        assert _facade(store).decision(P, top.decision_id).title[:30] in result.stdout
        assert "heuristic" in result.stdout
        assert "model_inference=false" in result.stdout
        assert "contribution" in result.stdout

    def test_table_shows_the_highlight(self, store: MemoryStorage) -> None:
        expected = _facade(store).find(P, {"text": "timber", "limit": 3})
        shown = expected.hits[0].highlights[0]
        result = run("find", "-p", P, "timber", "--limit", "3", "--format", "table", "--url", URL)
        assert result.exit_code == 0, result.stderr
        words = shown.fragment.split()
        assert " ".join(words[:3]) in " ".join(result.stdout.split())

    def test_plain_rows_mark_the_matched_words(self, store: MemoryStorage) -> None:
        expected = _facade(store).find(P, {"text": "timber", "limit": 3})
        result = run("find", "-p", P, "timber", "--limit", "3", "--format", "tsv", "--url", URL)
        assert result.exit_code == 0, result.stderr
        header, first = result.stdout.splitlines()[:2]
        assert header.split("\t")[-1] == "highlight"
        assert first.split("\t")[-1] == expected.hits[0].highlights[0].marked()
        assert "[" in first.split("\t")[-1]

    @pytest.mark.parametrize("fmt", ["table", "json", "tsv"])
    def test_warnings_go_to_standard_error(self, store: MemoryStorage, fmt: str) -> None:
        tag = sorted(_facade(store).signals(P).facets["tags"])[0]
        result = run("find", "-p", P, "--tag", tag.upper(), "--format", fmt, "--url", URL)
        assert result.exit_code == 0, result.stderr
        assert f"semreport: warning: filters.tags: the project holds no tag {tag.upper()!r}" in (
            result.stderr
        )
        assert f"only {tag!r}" in result.stderr
        assert "warning" not in result.stdout or fmt == "json"

    def test_json_is_the_wire_form(self, store: MemoryStorage) -> None:
        got = _json("find", "-p", P, "embodied carbon", "--limit", "4")
        _same(got, _facade(store).find(P, {"text": "embodied carbon", "limit": 4}))

    def test_filters_from_options(self, store: MemoryStorage) -> None:
        got = _json("find", "-p", P, "cladding", "--domain", "cost", "--attr", "cost_eur=..400000")
        hits = got["hits"]
        assert isinstance(hits, list)
        assert hits
        sr = _facade(store)
        for hit in hits:
            decision = sr.decision(P, hit["decision_id"])
            assert decision.domain == "cost"
            assert float(decision.attributes["cost_eur"]) <= 400_000

    def test_criteria_json_merged_with_options(self, store: MemoryStorage) -> None:
        criteria = json.dumps({"text": "insulation", "filters": {"domain": ["material"]}})
        got = _json("find", "-p", P, "--criteria", criteria, "--tag", "u-value", "--limit", "3")
        sr = _facade(store)
        for hit in got["hits"]:  # type: ignore[union-attr]
            decision = sr.decision(P, hit["decision_id"])
            assert decision.domain == "material"
            assert "u-value" in decision.tags

    def test_cursor_walks_the_pages(self, store: MemoryStorage) -> None:
        first = _json("find", "-p", P, "concrete", "--limit", "2")
        assert first["next_cursor"]
        second = _json(
            "find", "-p", P, "concrete", "--limit", "2", "--cursor", str(first["next_cursor"])
        )
        ids = [h["decision_id"] for h in first["hits"] + second["hits"]]  # type: ignore[operator]
        assert len(set(ids)) == 4

    def test_table_prints_a_cursor_that_works(self, store: MemoryStorage) -> None:
        result = run("find", "-p", P, "floor", "--limit", "3", "--format", "table", "--url", URL)
        match = re.search(r"^next page: --cursor (\S+)$", result.stdout, re.M)
        assert match, result.stdout
        again = run("find", "-p", P, "floor", "--limit", "3", "--cursor", match[1], "--url", URL)
        assert again.exit_code == 0, again.stderr

    def test_near_and_superseded(self, store: MemoryStorage) -> None:
        got = _json(
            "find",
            "-p",
            P,
            "--near",
            "u_value_w_m2k=0.15",
            "--superseded",
            "exclude",
            "--domain",
            "material",
            "--limit",
            "3",
        )
        hits = got["hits"]
        assert isinstance(hits, list)
        assert not any(hit["superseded"] for hit in hits)
        sr = _facade(store)
        assert sr.decision(P, hits[0]["decision_id"]).attributes["u_value_w_m2k"] == 0.15

    def test_cursor_key_from_the_environment(
        self, store: MemoryStorage, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("SEMREPORT_CURSOR_KEY", "shared secret")
        first = _json("find", "-p", P, "concrete", "--limit", "2")
        monkeypatch.setenv("SEMREPORT_CURSOR_KEY", "another secret")
        result = run(
            "find", "-p", P, "concrete", "--cursor", str(first["next_cursor"]), "--url", URL
        )
        assert result.exit_code == EXIT_USAGE
        assert "invalid value for --cursor" in result.stderr

    def test_narrow_terminal_setting_is_tolerated(
        self, store: MemoryStorage, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("COLUMNS", "wide")
        assert run("find", "-p", P, "roof", "--url", URL).exit_code == 0

    @pytest.mark.parametrize(
        ("option", "value", "message"),
        [
            ("--attr", "cost_eur", "expected NAME=VALUE"),
            ("--attr", "cost_eur=100", "expected MIN..MAX"),
            ("--attr", "cost_eur=a..b", "is not a number"),
            ("--weight", "text=heavy", "is not a number"),
            ("--criteria", "{oops", "not JSON"),
        ],
    )
    def test_bad_options_are_usage_errors(
        self, store: MemoryStorage, option: str, value: str, message: str
    ) -> None:
        result = run("find", "-p", P, "x", option, value, "--url", URL)
        assert result.exit_code == EXIT_USAGE
        assert message in result.stderr

    def test_refused_option_values_name_the_option(self, store: MemoryStorage) -> None:
        result = run("find", "-p", P, "x", "--weight", "nosuchsignal=1", "--url", URL)
        assert result.exit_code == EXIT_USAGE
        assert "Error: invalid value for --weight: unknown signal 'nosuchsignal'" in result.stderr
        assert "$." not in result.stderr

    def test_criteria_from_a_file(self, store: MemoryStorage, tmp_path: object) -> None:
        from pathlib import Path

        path = Path(str(tmp_path)) / "criteria.json"
        path.write_text(json.dumps({"text": "acoustic", "limit": 2}))
        got = _json("find", "-p", P, "--criteria", f"@{path}")
        assert len(got["hits"]) == 2  # type: ignore[arg-type]


class TestSimilar:
    """Similarity from a decision id or an inline exemplar."""

    def test_by_decision_id(self, store: MemoryStorage) -> None:
        result = run("similar", "-p", P, "LH-MAT-006", "--url", URL)
        assert result.exit_code == 0, result.stderr
        expected = _facade(store).similar(P, {"decision_id": "LH-MAT-006"})
        assert expected.hits[0].decision_id in result.stdout
        got = _json("similar", "-p", P, "LH-MAT-006")
        _same(got, expected)
        assert "LH-MAT-006" not in [h["decision_id"] for h in got["hits"]]  # type: ignore[union-attr]

    def test_inline_exemplar(self, store: MemoryStorage) -> None:
        exemplar = json.dumps({"title": "Green roof", "statement": "Extensive green roof"})
        got = _json("similar", "-p", P, "--exemplar", exemplar, "--limit", "3")
        assert len(got["hits"]) == 3  # type: ignore[arg-type]

    def test_second_page(self, store: MemoryStorage) -> None:
        first = _json("similar", "-p", P, "LH-MAT-006", "--limit", "2")
        second = _json(
            "similar", "-p", P, "LH-MAT-006", "--limit", "2", "--cursor", str(first["next_cursor"])
        )
        ids = [h["decision_id"] for h in first["hits"] + second["hits"]]  # type: ignore[operator]
        assert len(set(ids)) == 4

    def test_unknown_exemplar_id(self, store: MemoryStorage) -> None:
        result = run("similar", "-p", P, "LH-NOPE", "--url", URL)
        assert result.exit_code == EXIT_REFUSED
        assert "DECISION_NOT_FOUND" in result.stderr

    @pytest.mark.parametrize("args", [(), ("LH-MAT-006", "--exemplar", "{}")])
    def test_exactly_one_exemplar(self, store: MemoryStorage, args: tuple[str, ...]) -> None:
        result = run("similar", "-p", P, *args, "--url", URL)
        assert result.exit_code == EXIT_USAGE
        assert "either DECISION_ID or --exemplar" in result.stderr
