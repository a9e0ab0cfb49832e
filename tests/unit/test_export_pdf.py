"""Unit tests for the pdf session export: text cleaning, layout, fonts, determinism."""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pypdf
import pytest

from semreport import LegacySession, MissingExtra, Participant, ToolCall, Turn
from semreport.exports import render_pdf, session_json, visible_text
from semreport.exports._pdf import (
    FONT_FILES,
    _close_fonts,
    _document,
    _font_dir,
    _Measure,
    _SubsetFonts,
)
from semreport.testing.samples import UNICODE_SAMPLES, sample_session

T0 = datetime(2026, 3, 1, 9, tzinfo=UTC)
Make = Callable[[LegacySession], tuple[Any, list[str]]]


def session_of(*contents: str, ended: datetime | None = None, name: str = "Ana") -> LegacySession:
    return LegacySession(
        "s-1",
        "p-1",
        "Transcript",
        T0,
        ended_at=ended,
        participants=[Participant("u-1", name)],
        turns=[
            Turn(i, T0 + timedelta(minutes=i), "user", "u-1", text)
            for i, text in enumerate(contents)
        ],
    )


def reader(content: bytes) -> pypdf.PdfReader:
    return pypdf.PdfReader(io.BytesIO(content))


def all_text(content: bytes) -> str:
    return "\n".join(page.extract_text() for page in reader(content).pages)


def raw(value: object) -> bytes:
    return bytes(getattr(value, "original_bytes", value))  # type: ignore[call-overload]


def font_names(content: bytes) -> set[str]:
    names: set[str] = set()
    for page in reader(content).pages:
        fonts = page["/Resources"]["/Font"]
        names.update(str(fonts[key].get_object()["/BaseFont"]) for key in fonts)
    return names


class TestVisibleText:
    """What the PDF shows for awkward characters."""

    def test_plain_and_unicode_text_is_unchanged(self) -> None:
        for sample in UNICODE_SAMPLES:
            assert visible_text(sample) == sample

    def test_line_breaks_and_tabs_are_normalised(self) -> None:
        assert visible_text("a\r\nb\rc\td") == "a\nb\nc    d"

    @pytest.mark.parametrize(
        ("char", "shown"),
        [
            ("\x07", "⟨U+0007⟩"),
            ("\x85", "⟨U+0085⟩"),
            ("\ud800", "⟨U+D800⟩"),
            ("\ue000", "⟨U+E000⟩"),
            ("\U0010fffd", "⟨U+10FFFD⟩"),
            ("\u0378", "⟨U+0378⟩"),
        ],
    )
    def test_unrenderable_characters_are_replaced_visibly(self, char: str, shown: str) -> None:
        assert visible_text(f"a{char}b") == f"a{shown}b"


@pytest.fixture
def document() -> Iterator[Callable[[LegacySession], tuple[Any, list[str]]]]:
    opened: list[Any] = []

    def make(session: LegacySession) -> tuple[Any, list[str]]:
        pdf, fallbacks = _document(session, {})
        opened.append(pdf)
        return pdf, fallbacks

    yield make
    for pdf in opened:
        _close_fonts(pdf)


class TestLayout:
    """Wrapping measures with the real fonts and never overflows the line."""

    def test_lines_fit_and_words_are_kept_whole(self, document: Make) -> None:
        pdf, _ = document(session_of("x"))
        measure = _Measure(pdf, ["body"], 10)
        text = "word " * 200
        lines = measure.wrap(text, 100.0)
        assert len(lines) > 5
        assert all(measure.text(line) <= 100.0 for line in lines)
        assert all(set(line.split()) == {"word"} for line in lines)

    def test_a_word_longer_than_the_line_is_broken(self, document: Make) -> None:
        pdf, _ = document(session_of("x"))
        measure = _Measure(pdf, ["mono", "body"], 8)
        lines = measure.wrap("y" * 1000, 50.0)
        assert "".join(lines) == "y" * 1000
        assert all(measure.text(line) <= 50.0 for line in lines)

    def test_a_space_at_the_end_of_a_line_is_dropped(self, document: Make) -> None:
        pdf, _ = document(session_of("x"))
        measure = _Measure(pdf, ["body"], 10)
        assert measure.wrap("word word", measure.text("word")) == ["word", "word"]

    def test_indentation_and_empty_lines_survive(self, document: Make) -> None:
        pdf, _ = document(session_of("x"))
        measure = _Measure(pdf, ["mono"], 8)
        assert measure.wrap('{\n  "a": 1\n\n}', 100.0) == ["{", '  "a": 1', "", "}"]

    def test_runs_split_by_font(self, document: Make) -> None:
        pdf, fallbacks = document(session_of("東京 김"))
        assert fallbacks == ["cjk", "hangul"]
        measure = _Measure(pdf, ["body", "cjk", "hangul"], 10)
        assert [(key, text) for key, text, _ in measure.runs("ab東京c김")] == [
            ("body", "ab"),
            ("cjk", "東京"),
            ("body", "c"),
            ("hangul", "김"),
        ]


class TestDocument:
    """The PDF itself: content, fonts, metadata and determinism."""

    def test_turns_render_in_order_with_their_heading(self) -> None:
        text = all_text(render_pdf(session_of("first turn", "second turn")))
        assert text.index("#0") < text.index("first turn") < text.index("#1")
        assert text.index("#1") < text.index("second turn")
        assert "2026-03-01 09:01:00 UTC" in text
        assert "Ana (u-1)" in text

    def test_tool_calls_and_decisions_are_shown(self) -> None:
        session = LegacySession(
            "s-1",
            "p-1",
            "T",
            T0,
            participants=[Participant("t-1", "Calc", "tool")],
            turns=[
                Turn(
                    0,
                    T0,
                    "tool",
                    "t-1",
                    "",
                    [ToolCall("area.sum", {"rooms": ["R1"]}, {"m2": 12.5})],
                    ["d-1", "d-2"],
                )
            ],
        )
        content = render_pdf(session, {"d-1": "Use CLT"})
        text = all_text(content)
        assert "tool call: area.sum" in text
        assert '"m2": 12.5' in text
        assert "d-1: Use CLT" in text
        assert "d-2: (not in Decision Memory)" in text
        assert "(no text)" in text
        assert any("DejaVuSansMono" in name for name in font_names(content))

    def test_an_empty_session_renders(self) -> None:
        session = LegacySession("s-0", "p-0", "Nothing said", T0)
        text = all_text(render_pdf(session))
        assert "none recorded" in text
        assert "Turns 0" in text

    def test_page_numbers_on_every_page(self) -> None:
        content = render_pdf(sample_session(60))
        pages = reader(content).pages
        assert len(pages) > 2
        for number, page in enumerate(pages, start=1):
            assert f"Page {number} of {len(pages)}" in page.extract_text()

    def test_metadata_comes_from_the_session(self) -> None:
        ended = T0 + timedelta(hours=2)
        info = reader(render_pdf(session_of("x", ended=ended, name="王小明"))).metadata
        assert info is not None
        assert info.title == "Transcript"
        assert info.author == "王小明"
        assert info.subject == "Legacy session s-1 of project p-1"
        assert info["/CreationDate"] == "D:20260301110000Z"

    def test_creation_date_without_an_end_is_the_last_turn(self) -> None:
        info = reader(render_pdf(session_of("a", "b", "c"))).metadata
        assert info is not None
        assert info["/CreationDate"] == "D:20260301090200Z"

    def test_file_id_derives_from_the_session(self) -> None:
        session = session_of("x")
        expected = hashlib.sha256(session_json(session)).hexdigest()[:32]
        trailer_id = reader(render_pdf(session)).trailer["/ID"]
        assert [raw(part).hex() for part in trailer_id] == [expected, expected]
        other = reader(render_pdf(session_of("y"))).trailer["/ID"]
        assert raw(other[0]).hex() != expected

    def test_same_session_same_bytes(self) -> None:
        assert render_pdf(sample_session(30)) == render_pdf(sample_session(30))

    def test_fallback_fonts_are_embedded_only_when_needed(self) -> None:
        latin = font_names(render_pdf(session_of("plain ASCII and m² CO₂ ≤ ≥ ° ± µ € →")))
        assert not any("Droid" in name or "Eunjin" in name for name in latin)
        cjk = font_names(render_pdf(session_of("田中太郎 and 김민준")))
        assert any("DroidSansFallback" in name for name in cjk)
        assert any("Eunjin" in name for name in cjk)

    def test_every_sample_renders_as_text(self) -> None:
        text = "".join(all_text(render_pdf(session_of(*UNICODE_SAMPLES))).split())
        for sample in UNICODE_SAMPLES:
            assert "".join(sample.split()) in text

    def test_missing_extra_says_how_to_install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setitem(sys.modules, "fpdf", None)
        with pytest.raises(MissingExtra, match=r"pip install 'semreport\[pdf\]'"):
            render_pdf(session_of("x"))


class TestRepeatedExports:
    """Exports in one process, one after another or from several threads, give the same bytes."""

    def test_one_after_another(self) -> None:
        session = sample_session(12)
        first = render_pdf(session)
        assert render_pdf(session) == first
        assert render_pdf(sample_session(3)) != first
        assert render_pdf(session) == first

    def test_from_several_threads_at_once(self) -> None:
        sessions = [sample_session(8), sample_session(5)]
        expected = [render_pdf(s) for s in sessions]
        workers = 4
        start = threading.Barrier(workers)
        results: list[bytes | None] = [None] * workers

        def export(i: int) -> None:
            start.wait(timeout=30)  # every thread starts rendering together
            results[i] = render_pdf(sessions[i % 2])

        threads = [threading.Thread(target=export, args=(i,)) for i in range(workers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert results == [expected[i % 2] for i in range(workers)]


class _Recorder:
    """Stands in for a document: records the fonts it is given and reads each file."""

    def __init__(self) -> None:
        self.fonts: list[tuple[str, Path]] = []

    def add_font(self, family: str, style: str, fname: str) -> None:
        path = Path(fname)
        assert path.read_bytes()[:4] in (b"\x00\x01\x00\x00", b"true", b"OTTO")
        self.fonts.append((family, path))


class TestFallbackSubsets:
    """Fallback fonts are cut down to a document's characters, once per character set."""

    CJK = frozenset(map(ord, "漢字かな"))
    MORE = frozenset(map(ord, "漢字かなカナ"))

    def test_the_same_characters_reuse_one_subset(self) -> None:
        subsets = _SubsetFonts()
        first, second = _Recorder(), _Recorder()
        subsets.add_to(first, "cjk", self.CJK)
        subsets.add_to(second, "cjk", self.CJK)
        assert first.fonts == second.fonts
        (_, path) = first.fonts[0]
        assert path.stat().st_size < (_font_dir() / FONT_FILES["cjk"]).stat().st_size / 50

    def test_other_characters_make_another_subset_and_the_oldest_goes(self) -> None:
        subsets = _SubsetFonts(capacity=1)
        pdf = _Recorder()
        subsets.add_to(pdf, "cjk", self.CJK)
        subsets.add_to(pdf, "cjk", self.MORE)
        (_, old), (_, new) = pdf.fonts
        assert old != new
        assert new.exists()
        assert not old.exists()  # evicted beyond the capacity

    def test_a_subset_shows_every_character_asked_for(self) -> None:
        from fontTools.ttLib import TTFont

        pdf = _Recorder()
        _SubsetFonts().add_to(pdf, "cjk", self.MORE)
        with TTFont(str(pdf.fonts[0][1])) as font:
            assert set(self.MORE) <= set(font.getBestCmap())

    def test_without_a_writable_directory_the_whole_font(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        def refuse(**_options: Any) -> str:
            raise OSError("read-only file system")

        monkeypatch.setattr(tempfile, "mkdtemp", refuse)
        pdf = _Recorder()
        _SubsetFonts().add_to(pdf, "hangul", frozenset(map(ord, "한글")))
        assert pdf.fonts == [("hangul", _font_dir() / FONT_FILES["hangul"])]

    def test_a_forked_child_makes_its_own_directory(self, monkeypatch: pytest.MonkeyPatch) -> None:
        subsets = _SubsetFonts()
        parent = _Recorder()
        subsets.add_to(parent, "cjk", self.CJK)
        monkeypatch.setattr(os, "getpid", lambda: -1)  # as a forked child sees itself
        child = _Recorder()
        subsets.add_to(child, "cjk", self.CJK)
        made = child.fonts[0][1].parent
        shutil.rmtree(made)  # its exit hook belongs to the pretended child, which never exits
        assert made != parent.fonts[0][1].parent

    def test_a_document_with_cjk_renders_its_text(self) -> None:
        content = render_pdf(session_of("平面図 漢字かな", "한글 텍스트"))
        text = all_text(content)
        assert "平面図 漢字かな" in text
        assert "한글 텍스트" in text
