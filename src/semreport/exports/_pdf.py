"""The ``pdf`` writer: a readable transcript of a session, made in-process with fpdf2.

fpdf2 is the optional extra ``pdf``; this module imports it only when a PDF
is asked for. Fonts come from the package itself (see ``fonts/README.md``):
DejaVu Sans and DejaVu Sans Mono, with Droid Sans Fallback (Chinese,
Japanese) and Eunjin (Korean) as fallbacks, so nothing depends on the fonts
of the machine. Characters that no shipped font has, control characters and
lone surrogates are replaced by a visible ``⟨U+XXXX⟩``.

The document has an outline (bookmarks): the summary, the participants
table, the artefacts, the transcript in parts (a new part after a pause of
:data:`PHASE_PAUSE` or every :data:`OUTLINE_TURNS` turns) and the decisions
the session references, listed at the end with their titles.

The output is a pure function of the session and the decision titles: the
creation date is the session's own end time and the file identifier derives
from the session's JSON export, so the same input gives the same bytes.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import io
import json
import os
import re
import shutil
import tempfile
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from semreport.domain import LegacySession, MissingExtra, ToolCall, Turn
from semreport.domain._values import thaw_json
from semreport.exports._json import session_json

if TYPE_CHECKING:
    from fpdf import FPDF

__all__ = [
    "FONT_FILES",
    "OUTLINE_TURNS",
    "PHASE_PAUSE",
    "render_pdf",
    "transcript_parts",
    "visible_text",
]

FONT_FILES: Final[Mapping[str, str]] = {
    "body": "DejaVuSans.ttf",
    "bodyB": "DejaVuSans-Bold.ttf",
    "mono": "DejaVuSansMono.ttf",
    "cjk": "DroidSansFallbackFull.ttf",
    "hangul": "Eunjin.ttf",
}
"""Font key to file name in ``semreport/exports/fonts``."""

OUTLINE_TURNS: Final = 50
"""The most turns one part of the transcript's outline holds."""

PHASE_PAUSE: Final = timedelta(minutes=30)
"""A pause between two turns at least this long starts a new part of the outline."""

_FALLBACKS: Final = ("cjk", "hangul")
# A private-use character never survives visible_text(), so user text cannot contain the alias.
_PAGES_ALIAS: Final = "\ue000nb\ue000"
_BODY_PT: Final = 10.0
_MONO_PT: Final = 8.0
_LINE: Final = 5.0
_MONO_LINE: Final = 4.0
_GREY: Final = (90, 90, 90)
_BLOCK_FILL: Final = (242, 242, 242)
_HEADING_FILL: Final = (228, 234, 242)


def _font_dir() -> Path:
    return Path(str(resources.files("semreport.exports") / "fonts"))


@functools.cache
def _coverage(key: str) -> frozenset[int]:
    """Code points the font has a glyph for (read once per process)."""
    from fontTools.ttLib import TTFont  # type: ignore[import-untyped,unused-ignore]  # noqa: PLC0415

    with TTFont(str(_font_dir() / FONT_FILES[key]), lazy=True) as font:
        cmap = font.getBestCmap() or {}
    return frozenset(cmap)


@functools.cache
def _renderable() -> frozenset[int]:
    covered: set[int] = set()
    for key in ("body", "mono", *_FALLBACKS):
        covered |= _coverage(key)
    return frozenset(covered)


def _replacement(char: str) -> str:
    return f"\u27e8U+{ord(char):04X}\u27e9"


def visible_text(text: str) -> str:
    r"""Return ``text`` as the PDF shows it.

    Line breaks become ``\n``, a tab four spaces; control characters,
    lone surrogates and characters no shipped font has become ``⟨U+XXXX⟩``.
    """
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace("\t", "    ")
    covered = _renderable()
    bad = {
        char
        for char in set(text)
        if char != "\n"
        and (ord(char) not in covered or unicodedata.category(char) in ("Cc", "Cs", "Co"))
    }
    if not bad:
        return text
    return text.translate({ord(char): _replacement(char) for char in bad})


def _load_fpdf() -> type[FPDF]:
    try:
        from fpdf import FPDF  # noqa: PLC0415 - optional dependency
    except ImportError:
        raise MissingExtra(
            "the pdf session export needs fpdf2; install it with: pip install 'semreport[pdf]'"
        ) from None
    return FPDF


def _when(value: datetime) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S UTC")


def _pretty_json(value: Any) -> str:
    """JSON for reading: objects one member a line, arrays of plain values on one line."""
    return _format_json(thaw_json(value), "")


def _format_json(value: Any, indent: str) -> str:
    inner = indent + "  "
    if isinstance(value, dict) and value:
        members = ",\n".join(
            f"{inner}{json.dumps(key, ensure_ascii=False)}: {_format_json(item, inner)}"
            for key, item in sorted(value.items())
        )
        return f"{{\n{members}\n{indent}}}"
    if isinstance(value, list) and any(isinstance(item, dict | list) for item in value):
        items = ",\n".join(f"{inner}{_format_json(item, inner)}" for item in value)
        return f"[\n{items}\n{indent}]"
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(", ", ": "))


def transcript_parts(turns: Sequence[Turn]) -> list[list[Turn]]:
    """Split turns into the transcript's outline parts, in order.

    A part ends after :data:`OUTLINE_TURNS` turns, or where the next turn
    comes :data:`PHASE_PAUSE` or more after the one before it (a new phase of
    the session).
    """
    parts: list[list[Turn]] = []
    for turn in turns:
        if (
            not parts
            or len(parts[-1]) >= OUTLINE_TURNS
            or turn.at - parts[-1][-1].at >= PHASE_PAUSE
        ):
            parts.append([])
        parts[-1].append(turn)
    return parts


def _part_name(part: Sequence[Turn]) -> str:
    first, last = part[0], part[-1]
    turns = f"Turn #{first.index}" if first is last else f"Turns #{first.index}\u2013#{last.index}"
    start, end = first.at.strftime("%H:%M"), last.at.strftime("%H:%M")
    times = start if start == end else f"{start}\u2013{end}"
    return f"{turns}, {times}"


def _outline_name(text: str) -> str:
    shown = " ".join(visible_text(text).split())
    return shown if len(shown) <= 80 else shown[:79] + "\u2026"


def _created(session: LegacySession) -> datetime:
    if session.ended_at is not None:
        return session.ended_at
    return max([session.started_at, *(turn.at for turn in session.turns)])


def _used_fallbacks(session: LegacySession, titles: Mapping[str, str]) -> list[str]:
    chars: set[str] = set()
    for text in _all_text(session, titles):
        chars.update(text)
    codes = {ord(c) for c in chars}
    needed = codes - _coverage("body")
    used: list[str] = []
    for key in _FALLBACKS:
        if needed & _coverage(key):
            used.append(key)
            needed -= _coverage(key)
    return used


def _all_text(session: LegacySession, titles: Mapping[str, str]) -> Iterable[str]:
    yield session.title
    yield session.project_id
    for participant in session.participants:
        yield participant.name
    for turn in session.turns:
        yield turn.content
        for call in turn.tool_calls:
            yield call.name
            yield _pretty_json(call.arguments)
            yield _pretty_json(call.result)
    for artefact in session.artefacts:
        yield artefact.name
        yield artefact.uri
        yield artefact.media_type
    yield from titles.values()


def render_pdf(session: LegacySession, decision_titles: Mapping[str, str] | None = None) -> bytes:
    """Render ``session`` as a PDF transcript and return its bytes.

    Args:
        session: The session.
        decision_titles: Titles of referenced decisions by id, where known
            (looked up in Decision Memory by the caller).

    Raises:
        MissingExtra: fpdf2 is not installed (``pip install 'semreport[pdf]'``).
    """
    titles = dict(decision_titles or {})
    pdf, fallbacks = _document(session, titles)
    try:
        _Writer(pdf, session, titles, fallbacks).write()
        return bytes(pdf.output())
    finally:
        _close_fonts(pdf)


def _close_fonts(pdf: Any) -> None:
    # fpdf2 reads fonts lazily and leaves the files open; close them now, not at collection.
    for font in pdf.fonts.values():
        font.ttfont.close()


def _document(session: LegacySession, titles: Mapping[str, str]) -> tuple[Any, list[str]]:
    """An empty transcript document with its fonts, and the fallback fonts it needed."""
    fpdf_class = _load_fpdf()
    digest = hashlib.sha256(session_json(session)).hexdigest()[:32].upper()
    pdf = _transcript_class(fpdf_class)(session, digest)
    fonts = _font_dir()
    for key in ("body", "bodyB", "mono"):
        family, style = _FAMILY_STYLE[key]
        pdf.add_font(family, style, str(fonts / FONT_FILES[key]))
    fallbacks = _used_fallbacks(session, titles)
    if fallbacks:
        shown = _shown_codes(session, titles)
        for key in fallbacks:
            _SUBSETS.add_to(pdf, key, shown & _coverage(key))
    pdf.set_fallback_fonts(["body", *fallbacks], exact_match=False)
    return pdf, fallbacks


def _shown_codes(session: LegacySession, titles: Mapping[str, str]) -> frozenset[int]:
    """Every code point the document can show: its texts, and the replacement brackets."""
    codes = {ord(char) for text in _all_text(session, titles) for char in text}
    codes.update(map(ord, _replacement("\x00")))
    return frozenset(codes)


class _SubsetFonts:
    """The fallback fonts cut down to the characters of a document, made once per character set.

    The fallback fonts are large (Droid Sans Fallback holds some 49,000 glyphs)
    and fpdf2 parses a font whole for every document, then subsets it again
    when it writes the file. Here each fallback font is read once per process
    (its bytes and glyph order); a document gets a subset holding only the
    characters it shows, made with fontTools and written to a private
    temporary directory (fpdf2 reads fonts from files), and later documents
    with the same characters reuse it. fpdf2 then parses and embeds a font of a
    few hundred glyphs: the pages show the same glyphs, and the output stays
    a pure function of the session. A directory that cannot be written falls
    back to the whole font.
    """

    def __init__(self, capacity: int = 64) -> None:
        self._capacity = capacity
        self._lock = threading.Lock()
        self._made: OrderedDict[tuple[str, frozenset[int]], Path] = OrderedDict()
        self._directory: Path | None = None
        self._owner = 0  # the process that made the directory
        self._written = 0

    def add_to(self, pdf: Any, key: str, codes: frozenset[int]) -> None:
        """Add font ``key`` to ``pdf``, cut down to ``codes`` (held while fpdf2 reads it)."""
        with self._lock:
            try:
                path = self._subset(key, codes)
            except OSError:  # no writable temporary directory: the whole font
                path = _font_dir() / FONT_FILES[key]
            pdf.add_font(key, "", str(path))

    def _subset(self, key: str, codes: frozenset[int]) -> Path:
        directory = self._where()
        made = self._made.get((key, codes))
        if made is not None and made.exists():
            self._made.move_to_end((key, codes))
            return made
        from fontTools import subset  # type: ignore[import-untyped,unused-ignore]  # noqa: PLC0415

        font = _font_source(key)
        options = subset.Options(notdef_outline=True, recommended_glyphs=True)
        options.drop_tables += ["FFTM", "GDEF", "GPOS", "GSUB"]  # fpdf2 drops them as well
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=sorted(codes))
        subsetter.subset(font)
        self._written += 1
        path = directory / f"{key}-{self._written}.ttf"
        font.save(str(path))
        font.close()
        self._made[key, codes] = path
        while len(self._made) > self._capacity:
            _, old = self._made.popitem(last=False)
            old.unlink(missing_ok=True)  # a document still reading it keeps it open
        return path

    def _where(self) -> Path:
        if self._directory is None or self._owner != os.getpid():  # a forked child makes its own
            self._directory = Path(tempfile.mkdtemp(prefix="semreport-fonts-"))
            self._owner = os.getpid()
            self._made.clear()
            atexit.register(_remove_directory, self._directory, self._owner)
        return self._directory


def _remove_directory(directory: Path, owner: int) -> None:
    if os.getpid() == owner:
        shutil.rmtree(directory, ignore_errors=True)


@functools.cache
def _font_bytes_and_order(key: str) -> tuple[bytes, tuple[str, ...]]:
    """A font's bytes and glyph order, read once per process."""
    from fontTools.ttLib import TTFont  # type: ignore[import-untyped,unused-ignore]  # noqa: PLC0415

    data = (_font_dir() / FONT_FILES[key]).read_bytes()
    with TTFont(io.BytesIO(data), lazy=True) as font:
        order = tuple(font.getGlyphOrder())
    return data, order


def _font_source(key: str) -> Any:
    """A fresh, lazily read copy of a font whose glyph order needs no second reading."""
    from fontTools.ttLib import TTFont  # type: ignore[import-untyped,unused-ignore]  # noqa: PLC0415

    data, order = _font_bytes_and_order(key)
    # The source's timestamp stays: a saved subset is the same bytes in every process.
    font = TTFont(io.BytesIO(data), lazy=True, recalcTimestamp=False)
    font.setGlyphOrder(list(order))
    return font


_SUBSETS: Final = _SubsetFonts()


@functools.cache
def _transcript_class(base: type[FPDF]) -> type[Any]:
    class Transcript(base):  # type: ignore[valid-type,misc]
        def __init__(self, session: LegacySession, file_id_hex: str) -> None:
            super().__init__(orientation="P", unit="mm", format="A4")
            self._footer_text = visible_text(session.title)
            self._file_id = f"<{file_id_hex}><{file_id_hex}>"
            self.set_margins(18, 16, 18)
            self.set_auto_page_break(auto=True, margin=18)
            self.alias_nb_pages(_PAGES_ALIAS)
            self.set_creation_date(_created(session))
            self.set_title(visible_text(session.title))
            self.set_subject(
                visible_text(f"Legacy session {session.id} of project {session.project_id}")
            )
            self.set_author(visible_text(", ".join(p.name for p in session.participants)))
            self.set_keywords(f"semreport legacy session {session.project_id} {session.id}")
            self.set_creator("semreport session export (semreport.session/1)")
            self.set_lang("en")

        def file_id(self) -> str:
            return self._file_id

        def footer(self) -> None:
            self.set_y(-12)
            self.set_font("body", "", 8)
            self.set_text_color(*_GREY)
            width = self.w - self.l_margin - self.r_margin
            self.cell(width * 0.7, 5, self._footer_text[:90], align="L")
            self.cell(width * 0.3, 5, f"Page {self.page_no()} of {_PAGES_ALIAS}", align="R")
            self.set_text_color(0, 0, 0)

    return Transcript


_TOKENS: Final = re.compile(r" +|[^ ]+")


_FAMILY_STYLE: Final = {
    "body": ("body", ""),
    "bodyB": ("body", "B"),
    "mono": ("mono", ""),
    "cjk": ("cjk", ""),
    "hangul": ("hangul", ""),
}


class _FontOf(dict[str, int]):
    """Character to the index of the first font (main, then fallbacks) that has it."""

    def __init__(self, fonts: list[Any]) -> None:
        super().__init__()
        self._fonts = fonts

    def __missing__(self, char: str) -> int:
        code = ord(char)
        index = next((i for i, font in enumerate(self._fonts) if code in font.cmap), 0)
        self[char] = index
        return index


class _Width(dict[str, float]):
    """Character to its width (mm) in the font that draws it."""

    def __init__(self, fonts: list[Any], font_of: _FontOf, scale: float) -> None:
        super().__init__()
        self._fonts = fonts
        self._font_of = font_of
        self._scale = scale

    def __missing__(self, char: str) -> float:
        width: float = self._fonts[self._font_of[char]].cw[ord(char)] * self._scale
        self[char] = width
        return width


class _Measure:
    """Widths (mm) of characters in one font at one size, and which font draws each.

    A character the font lacks is drawn with the first fallback that has it,
    as fpdf2 would. fpdf2's ``multi_cell`` re-measures the line for every
    character it adds, and ``cell`` parses every character again; measuring
    and splitting into font runs here, with cached widths, keeps the layout
    linear in the text and fast.
    """

    def __init__(self, pdf: Any, keys: list[str], size: float) -> None:
        self._keys = keys
        fonts = [pdf.fonts[key] for key in keys]
        scale = size * 0.001 / pdf.k
        self._font_of = _FontOf(fonts)
        self._width = _Width(fonts, self._font_of, scale)

    def text(self, text: str) -> float:
        """The width of ``text``."""
        return sum(map(self._width.__getitem__, text))

    def runs(self, line: str) -> list[tuple[str, str, float]]:
        """Split ``line`` into ``(font key, text, width)`` runs of one font each."""
        font_of = self._font_of.__getitem__
        indices = list(map(font_of, line))
        if not any(indices):
            return [(self._keys[0], line, self.text(line))]
        runs: list[tuple[str, str, float]] = []
        start = 0
        for position in range(1, len(line) + 1):
            if position == len(line) or indices[position] != indices[start]:
                piece = line[start:position]
                runs.append((self._keys[indices[start]], piece, self.text(piece)))
                start = position
        return runs

    def wrap(self, text: str, width: float) -> list[str]:
        """Break ``text`` into lines no wider than ``width``: at spaces, else inside words."""
        lines: list[str] = []
        for paragraph in text.split("\n"):
            line: list[str] = []
            used = 0.0
            for token in _TOKENS.findall(paragraph):
                size = self.text(token)
                if used + size <= width:
                    line.append(token)
                    used += size
                    continue
                if line:
                    lines.append("".join(line).rstrip(" "))
                    line, used = [], 0.0
                if token[0] == " ":
                    continue
                if size <= width:
                    line, used = [token], size
                    continue
                for char in token:
                    step = self._width[char]
                    if used + step > width and line:
                        lines.append("".join(line))
                        line, used = [], 0.0
                    line.append(char)
                    used += step
            lines.append("".join(line).rstrip(" "))
        return lines


class _Writer:
    """Lays out the title block and the turns on an FPDF document."""

    def __init__(
        self, pdf: Any, session: LegacySession, titles: Mapping[str, str], fallbacks: list[str]
    ) -> None:
        self.pdf = pdf
        self.session = session
        self.titles = titles
        self.fallbacks = fallbacks
        self.names = {p.id: p.name for p in session.participants}
        self.width = pdf.w - pdf.l_margin - pdf.r_margin
        self._measures: dict[tuple[str, float], _Measure] = {}

    def _measure(self, fontkey: str, size: float) -> _Measure:
        found = self._measures.get((fontkey, size))
        if found is None:
            chain = ["body", *self.fallbacks]
            found = _Measure(self.pdf, [fontkey, *(k for k in chain if k != fontkey)], size)
            self._measures[(fontkey, size)] = found
        return found

    def write(self) -> None:
        self.pdf.add_page()
        self._section(self.session.title)
        self._title_block()
        parts = transcript_parts(self.session.turns)
        for part in parts:
            self._turn(part[0], outline=_part_name(part))
            for turn in part[1:]:
                self._turn(turn)
        self._references()

    # -- primitives ------------------------------------------------------------

    def _text(
        self,
        text: str,
        *,
        size: float = _BODY_PT,
        style: str = "",
        fill: bool = False,
        colour: tuple[int, int, int] | None = None,
        family: str = "body",
        line: float = _LINE,
        indent: float = 0.0,
    ) -> None:
        pdf = self.pdf
        if colour is not None:
            pdf.set_text_color(*colour)
        measure = self._measure(family + style, size)
        width = self.width - indent
        left = pdf.l_margin + indent
        # Keep fpdf2's cell padding (c_margin) on both sides of the text.
        for text_line in measure.wrap(visible_text(text), width - 2 * pdf.c_margin):
            y = pdf.get_y()
            if y + line > pdf.page_break_trigger:
                pdf.add_page()
                y = pdf.get_y()
            if fill:
                pdf.rect(left, y, width, line, style="F")
            self._draw(measure, text_line, left + pdf.c_margin, y, line=line, size=size)
            pdf.set_y(y + line)
        if colour is not None:
            pdf.set_text_color(0, 0, 0)

    def _section(self, name: str, level: int = 0) -> None:
        """Bookmark the current position in the document outline."""
        self.pdf.start_section(_outline_name(name), level=level)

    def _heading(self, text: str) -> None:
        """A section heading, bookmarked, kept with at least three lines after it."""
        pdf = self.pdf
        if pdf.get_y() + 6 + 3 * _LINE > pdf.page_break_trigger:
            pdf.add_page()
        self._section(text, 1)
        self._text(text, size=11, style="B", line=6)

    def _table(
        self, header: Sequence[str], rows: Sequence[Sequence[str]], widths: Sequence[float]
    ) -> None:
        """A table whose cells wrap; rows stay whole when they fit a page, the header repeats."""
        pdf = self.pdf
        scale = self.width / sum(widths)
        columns = [w * scale for w in widths]
        line = 4.6
        size = 9.0

        def wrapped(cells: Sequence[str], style: str) -> list[list[str]]:
            measure = self._measure("body" + style, size)
            return [
                measure.wrap(visible_text(cell), width - 2 * pdf.c_margin)
                for cell, width in zip(cells, columns, strict=True)
            ]

        def draw(cells: list[list[str]], style: str, fill: bool) -> None:
            height = max(len(lines) for lines in cells) * line
            room = pdf.page_break_trigger - pdf.t_margin
            if pdf.get_y() + height > pdf.page_break_trigger and height <= room:
                pdf.add_page()
                if style == "":
                    draw(head, "B", True)
            measure = self._measure("body" + style, size)
            for number in range(max(len(lines) for lines in cells)):
                y = pdf.get_y()
                if y + line > pdf.page_break_trigger:
                    pdf.add_page()
                    y = pdf.get_y()
                if fill:
                    pdf.set_fill_color(*_HEADING_FILL)
                    pdf.rect(pdf.l_margin, y, self.width, line, style="F")
                x = pdf.l_margin
                for lines, width in zip(cells, columns, strict=True):
                    if number < len(lines):
                        self._draw(
                            measure, lines[number], x + pdf.c_margin, y, line=line, size=size
                        )
                    x += width
                pdf.set_y(y + line)
            pdf.set_draw_color(200, 200, 200)
            pdf.line(pdf.l_margin, pdf.get_y(), pdf.l_margin + self.width, pdf.get_y())
            pdf.set_draw_color(0, 0, 0)

        head = wrapped(header, "B")
        draw(head, "B", True)
        for row in rows:
            draw(wrapped(row, ""), "", False)

    def _draw(
        self, measure: _Measure, text_line: str, x: float, y: float, *, line: float, size: float
    ) -> None:
        """Draw one measured line, one run per font."""
        pdf = self.pdf
        baseline = y + 0.5 * line + 0.3 * size / pdf.k
        for key, run, run_width in measure.runs(text_line):
            run_family, run_style = _FAMILY_STYLE[key]
            pdf.set_font(run_family, run_style, size)
            pdf.text(x, baseline, run)
            x += run_width

    def _pair(self, label: str, value: str) -> None:
        pdf = self.pdf
        y = pdf.get_y()
        self._text(label, size=9.5, style="B")
        pdf.set_y(y)
        self._text(value, size=9.5, indent=30)

    # -- sections --------------------------------------------------------------

    def _title_block(self) -> None:
        session = self.session
        pdf = self.pdf
        self._text(session.title, size=17, style="B", line=8)
        self._text("Legacy session transcript", size=9, colour=_GREY)
        pdf.ln(2)
        self._pair("Project", session.project_id)
        self._pair("Session", session.id)
        self._pair("Started", _when(session.started_at))
        self._pair("Ended", _when(session.ended_at) if session.ended_at else "not recorded")
        self._pair("Turns", str(len(session.turns)))
        pdf.ln(2)
        self._heading("Participants")
        if not session.participants:
            self._text("none recorded", colour=_GREY)
        else:
            spoke: dict[str, int] = {}
            for turn in session.turns:
                spoke[turn.author] = spoke.get(turn.author, 0) + 1
            self._table(
                ("Name", "Id", "Role", "Turns"),
                [
                    (p.name, p.id, p.role.value, str(spoke.get(p.id, 0)))
                    for p in session.participants
                ],
                (44, 32, 12, 12),
            )
        if session.artefacts:
            pdf.ln(2)
            self._heading("Artefacts")
            for artefact in session.artefacts:
                where = "" if artefact.turn_index is None else f", turn #{artefact.turn_index}"
                self._text(f"\u2022 {artefact.name}  ({artefact.media_type}{where})")
                details = f"sha256 {artefact.sha256}"
                if artefact.uri:
                    details += f"\n{artefact.uri}"
                self._text(
                    details,
                    family="mono",
                    size=_MONO_PT,
                    line=_MONO_LINE,
                    colour=_GREY,
                    indent=4,
                )
        pdf.ln(4)
        self._heading("Transcript")
        pdf.ln(1)

    def _turn(self, turn: Turn, *, outline: str | None = None) -> None:
        pdf = self.pdf
        pdf.ln(1.5)
        # Keep a turn's heading with the first line of its text.
        if pdf.get_y() + 2 * _LINE > pdf.page_break_trigger:
            pdf.add_page()
        if outline is not None:
            self._section(outline, 2)
        author = self.names.get(turn.author, turn.author)
        pdf.set_fill_color(*_HEADING_FILL)
        self._text(
            f"#{turn.index}   {_when(turn.at)}   {turn.role.value}   {author} ({turn.author})",
            size=9,
            style="B",
            fill=True,
        )
        if turn.content.strip():
            self._text(turn.content)
        else:
            self._text("(no text)", size=9, colour=_GREY)
        for call in turn.tool_calls:
            self._tool_call(call)
        if turn.decision_refs:
            lines = [
                f"{ref}: {self.titles.get(ref, '(not in Decision Memory)')}"
                for ref in dict.fromkeys(turn.decision_refs)
            ]
            self._text("Decisions referenced", size=9, style="B")
            self._text("\n".join(lines), size=9, indent=4)

    def _tool_call(self, call: ToolCall) -> None:
        pdf = self.pdf
        pdf.ln(1)
        pdf.set_fill_color(*_BLOCK_FILL)
        text = (
            f"tool call: {call.name}\n"
            f"arguments: {_pretty_json(call.arguments)}\n"
            f"result: {_pretty_json(call.result)}"
        )
        self._text(text, family="mono", size=_MONO_PT, line=_MONO_LINE, fill=True)
        pdf.ln(1)

    def _references(self) -> None:
        """Every decision the session references, with its title and the turns that cite it."""
        cited: dict[str, list[int]] = {}
        for turn in self.session.turns:
            for ref in dict.fromkeys(turn.decision_refs):
                cited.setdefault(ref, []).append(turn.index)
        if not cited:
            return
        self.pdf.ln(4)
        self._heading("Decisions referenced")
        self._table(
            ("Decision", "Title", "Turns"),
            [
                (
                    ref,
                    self.titles.get(ref, "(not in Decision Memory)"),
                    ", ".join(f"#{index}" for index in turns),
                )
                for ref, turns in cited.items()
            ],
            (26, 54, 20),
        )
