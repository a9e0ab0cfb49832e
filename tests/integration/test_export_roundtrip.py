"""Integration tests: session exports through real files and back, and session import."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pypdf
import pytest

import semreport
import semreport.exports
from semreport import (
    Forbidden,
    InvalidRequest,
    Principal,
    SemReport,
    SessionAlreadyRecorded,
    SessionImport,
    Unauthenticated,
    to_wire,
)
from semreport.exports import build_graph, decision_titles
from semreport.testing.samples import UNICODE_SAMPLES, sample_session, write_preview

ALICE = Principal("alice", roles=["user"], projects=["p-sample", "p-other"])


def squash(text: str) -> str:
    return "".join(text.split())


@pytest.fixture
def sr() -> SemReport:
    facade = semreport.open("memory://")
    facade.record_sessions([sample_session(45)])
    facade.record(
        [
            {
                "id": "d-clt-slab",
                "project_id": "p-sample",
                "title": "Use 160 mm CLT (≤ 18 kg CO₂e/m²)",
                "statement": "CLT slab.",
                "agent": "a-wang",
            }
        ]
    )
    return facade


class TestRoundTrips:
    """Each format read back by an independent reader gives the session back."""

    def test_json_file_imports_into_an_equal_session(self, sr: SemReport, tmp_path: Path) -> None:
        exported = sr.export_session("s-sample", "json")
        (tmp_path / exported.filename).write_bytes(exported.content)
        with semreport.open("memory://") as fresh:
            result = fresh.import_sessions(tmp_path / exported.filename)
            assert result.imported == ("s-sample",)
            assert fresh.session("s-sample") == sr.session("s-sample")

    @pytest.mark.parametrize("graph_format", ["node-link", "graphml"])
    def test_graph_reads_back_through_networkx(
        self, sr: SemReport, tmp_path: Path, graph_format: str
    ) -> None:
        exported = sr.export_session("s-sample", "graph", graph_format=graph_format)
        path = tmp_path / exported.filename
        path.write_bytes(exported.content)
        if graph_format == "graphml":
            loaded = nx.read_graphml(path)
        else:
            loaded = nx.node_link_graph(json.loads(path.read_text("utf-8")), edges="edges")
        session = sr.session("s-sample")
        expected = build_graph(session, decision_titles(session, sr.storage))
        assert loaded.number_of_nodes() == len(expected.nodes)
        assert loaded.number_of_edges() == len(expected.edges)
        assert dict(loaded.nodes(data=True)) == dict(expected.nodes)
        key = lambda e: (e[0], e[1])  # noqa: E731
        assert sorted(loaded.edges(data=True), key=key) == sorted(expected.edges, key=key)
        turns = [n for n, d in loaded.nodes(data=True) if d["kind"] == "turn"]
        assert len(turns) == 45
        assert loaded.nodes["decision:d-clt-slab"]["title"] == "Use 160 mm CLT (≤ 18 kg CO₂e/m²)"

    def test_pdf_holds_every_turn_in_order(self, sr: SemReport, tmp_path: Path) -> None:
        exported = sr.export_session("s-sample", "pdf")
        path = tmp_path / exported.filename
        path.write_bytes(exported.content)
        reader = pypdf.PdfReader(path)
        session = sr.session("s-sample")
        pages = len(reader.pages)
        # Each page's footer (title, page number) sits between a page's text and the next's.
        text = "".join(
            squash(page.extract_text()).replace(
                squash(f"{session.title} Page {number} of {pages}"), ""
            )
            for number, page in enumerate(reader.pages, start=1)
        )
        position = 0
        for turn in session.turns:
            name = session.participant(turn.author).name
            when = turn.at.strftime("%Y-%m-%d %H:%M:%S UTC")
            heading = f"#{turn.index} {when} {turn.role.value} {name} ({turn.author})"
            found = text.find(squash(heading) + squash(turn.content), position)
            assert found >= 0, f"turn {turn.index} missing or out of order"
            position = found
        for sample in UNICODE_SAMPLES:
            assert squash(sample) in text
        assert squash("Use 160 mm CLT (≤ 18 kg CO₂e/m²)") in text

    def test_bytes_are_identical_across_processes(self, sr: SemReport, tmp_path: Path) -> None:
        script = (
            "import hashlib, semreport\n"
            "from semreport.testing.samples import sample_session\n"
            "from semreport.exports import export_legacy_session as x\n"
            "s = sample_session(45)\n"
            "for f, g in [('json', 'node-link'), ('pdf', 'node-link'), ('graph', 'node-link'),"
            " ('graph', 'graphml')]:\n"
            "    print(hashlib.sha256(x(s, f, graph_format=g).content).hexdigest())\n"
        )
        digests = []
        for seed in ("1", "2"):
            run = subprocess.run(
                [sys.executable, "-c", script],
                capture_output=True,
                text=True,
                check=True,
                env={**os.environ, "PYTHONHASHSEED": seed},
            )
            digests.append(run.stdout.split())
        assert digests[0] == digests[1]
        assert len(digests[0]) == 4


def write_json(path: Path, data: object) -> None:
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


class TestImport:
    """Import reads a file or a directory, reports bad files, records the good ones at once."""

    def test_directory_with_good_and_bad_files(self, tmp_path: Path) -> None:
        good = sample_session(4, session_id="s-good")
        write_json(
            tmp_path / "01-envelope.json",
            {"schema": "semreport.session/1", "session": to_wire(good)},
        )
        write_json(tmp_path / "02-plain.json", to_wire(sample_session(2, session_id="s-plain")))
        (tmp_path / "03-not-json.json").write_text("{not json", encoding="utf-8")
        (tmp_path / "04-latin1.json").write_bytes(b'{"id": "caf\xe9"}')
        write_json(tmp_path / "05-schema.json", {"schema": "other/9", "session": {}})
        broken = to_wire(sample_session(2, session_id="s-broken"))
        broken["turns"][1]["role"] = "robot"
        write_json(tmp_path / "06-invalid.json", broken)
        write_json(tmp_path / "07-repeat.json", to_wire(sample_session(1, session_id="s-good")))
        write_json(
            tmp_path / "08-forbidden.json",
            to_wire(sample_session(1, session_id="s-x", project_id="p-secret")),
        )
        write_json(tmp_path / "09-array.json", [1, 2])
        (tmp_path / "notes.txt").write_text("ignored", encoding="utf-8")
        (tmp_path / "sub").mkdir()
        write_json(
            tmp_path / "sub" / "ignored.json", to_wire(sample_session(1, session_id="s-sub"))
        )

        with semreport.open("memory://", require_caller=True) as sr:
            result = sr.import_sessions(tmp_path, caller=ALICE)
            assert isinstance(result, SessionImport)
            assert result.imported == ("s-good", "s-plain")
            assert [Path(f).name for f in result.files] == [
                f"0{i}" + n
                for i, n in [
                    (1, "-envelope.json"),
                    (2, "-plain.json"),
                    (3, "-not-json.json"),
                    (4, "-latin1.json"),
                    (5, "-schema.json"),
                    (6, "-invalid.json"),
                    (7, "-repeat.json"),
                    (8, "-forbidden.json"),
                    (9, "-array.json"),
                ]
            ]
            problems = {Path(p.file).name: (p.code, p.reason) for p in result.problems}
            assert list(problems) == [Path(f).name for f in result.files[2:]]
            assert "not JSON" in problems["03-not-json.json"][1]
            assert "not UTF-8" in problems["04-latin1.json"][1]
            assert "$.schema" in problems["05-schema.json"][1]
            assert "$.turns[1].role" in problems["06-invalid.json"][1]
            assert problems["06-invalid.json"][0] == "INVALID_REQUEST"
            assert problems["07-repeat.json"][0] == "SESSION_ALREADY_RECORDED"
            assert problems["08-forbidden.json"][0] == "FORBIDDEN"
            assert "an array" in problems["09-array.json"][1]
            assert not result.ok
            assert sr.session("s-good", caller=ALICE) == good
            assert [s.id for s in sr.storage.sessions("p-sample")] == ["s-good", "s-plain"]
            assert json.loads(json.dumps(to_wire(result)))["imported"] == ["s-good", "s-plain"]

    def test_stored_sessions_are_reported_not_rewritten(self, tmp_path: Path) -> None:
        write_json(tmp_path / "a.json", to_wire(sample_session(3)))
        with semreport.open("memory://") as sr:
            assert sr.import_sessions(tmp_path).imported == ("s-sample",)
            again = sr.import_sessions(tmp_path / "a.json")
            assert again.imported == ()
            assert again.problems[0].code == "SESSION_ALREADY_RECORDED"
            assert "the store" in again.problems[0].reason

    def test_a_failing_batch_writes_nothing(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        write_json(tmp_path / "a.json", to_wire(sample_session(2, session_id="s-new")))
        write_json(tmp_path / "b.json", to_wire(sample_session(2, session_id="s-taken")))
        with semreport.open("memory://") as sr:
            sr.record_sessions([sample_session(1, session_id="s-taken")])
            # Another writer stores s-taken between the check and the write.
            monkeypatch.setattr(SemReport, "_session_exists", lambda self, session_id: False)
            with pytest.raises(SessionAlreadyRecorded):
                sr.import_sessions(tmp_path)
            assert [s.id for s in sr.storage.sessions("p-sample")] == ["s-taken"]

    def test_json_nested_too_deeply_is_reported(self, tmp_path: Path) -> None:
        (tmp_path / "deep.json").write_text("[" * 200_000 + "]" * 200_000, encoding="utf-8")
        with semreport.open("memory://") as sr:
            result = sr.import_sessions(tmp_path)
        assert "nested too deeply" in result.problems[0].reason

    def test_empty_directory_imports_nothing(self, tmp_path: Path) -> None:
        with semreport.open("memory://") as sr:
            result = sr.import_sessions(str(tmp_path))
            assert (result.imported, result.files, result.problems) == ((), (), ())
            assert result.ok

    def test_missing_path_is_invalid(self, tmp_path: Path) -> None:
        with semreport.open("memory://") as sr, pytest.raises(InvalidRequest) as caught:
            sr.import_sessions(tmp_path / "nope")
        assert caught.value.errors[0].path == "$.path"

    def test_non_path_is_invalid(self) -> None:
        with semreport.open("memory://") as sr, pytest.raises(InvalidRequest):
            sr.import_sessions(42)  # type: ignore[arg-type]

    def test_caller_is_checked_before_any_file_is_read(self, tmp_path: Path) -> None:
        with semreport.open("memory://", require_caller=True) as sr:
            with pytest.raises(Unauthenticated):
                sr.import_sessions(tmp_path / "nope")
            with pytest.raises(Forbidden):
                sr.import_sessions(tmp_path, caller=Principal("ops", roles=["operator"]))

    def test_unreadable_file_is_reported(self, tmp_path: Path) -> None:
        target = tmp_path / "dangling.json"
        target.symlink_to(tmp_path / "missing-target")
        (tmp_path / "dir.json").mkdir()
        with semreport.open("memory://") as sr:
            result = sr.import_sessions(tmp_path)
        # A dangling link is not a file; a directory named *.json is skipped as well.
        assert result.files == ()

    def test_file_that_cannot_be_read(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        target = tmp_path / "locked.json"
        write_json(target, to_wire(sample_session(1)))

        def refuse(self: Path) -> bytes:
            raise PermissionError(13, "Permission denied", str(self))

        # Permissions cannot stop root, who runs CI; refuse the read the way the OS would.
        monkeypatch.setattr(Path, "read_bytes", refuse)
        with semreport.open("memory://") as sr:
            result = sr.import_sessions(target)
        assert result.problems[0].reason == "$: cannot read the file: Permission denied"


class TestPreview:
    """The sample the nox pdfpreview session renders."""

    def test_preview_writes_a_pdf_with_every_sample(self, tmp_path: Path) -> None:
        out = tmp_path / "preview" / "sample.pdf"
        run = subprocess.run(
            [sys.executable, "-m", "semreport.testing.samples", str(out)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert run.returncode == 0, run.stderr
        text = squash("".join(p.extract_text() for p in pypdf.PdfReader(out).pages))
        for sample in UNICODE_SAMPLES:
            assert squash(sample) in text
        assert "⟨U+0007⟩" in text

    def test_preview_in_process(self, tmp_path: Path) -> None:
        out = tmp_path / "nested" / "sample.pdf"
        write_preview(out)
        assert pypdf.PdfReader(out).metadata is not None


class TestSqlite:
    """Import into a SQLite file, reopen it, and export the same bytes."""

    def test_import_then_export_survives_a_reopen(self, tmp_path: Path) -> None:
        session = sample_session(20)
        exported = semreport.exports.export_legacy_session(session, "json")
        (tmp_path / "in").mkdir()
        (tmp_path / "in" / exported.filename).write_bytes(exported.content)
        url = f"sqlite:///{tmp_path / 'sessions.db'}"
        with semreport.open(url) as sr:
            assert sr.import_sessions(tmp_path / "in").imported == ("s-sample",)
        with semreport.open(url) as sr:
            assert sr.session("s-sample") == session
            for fmt in ("json", "pdf", "graph"):
                again = sr.export_session("s-sample", fmt)
                assert (
                    again.content == semreport.exports.export_legacy_session(session, fmt).content
                )
