"""The session PDF's outline, participants table and closing list of decisions."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta

import pypdf

from semreport import LegacySession, Participant, Turn, sample
from semreport.exports import render_pdf
from semreport.exports._pdf import OUTLINE_TURNS, PHASE_PAUSE, transcript_parts
from semreport.testing.samples import sample_session

T0 = datetime(2026, 3, 1, 9, tzinfo=UTC)
DASH = "\u2013"  # an en dash, as the outline writes ranges


def outline(content: bytes) -> list[tuple[int, str, int]]:
    """(level, title, page number from 1) for every bookmark, in order."""
    document = pypdf.PdfReader(io.BytesIO(content))
    found: list[tuple[int, str, int]] = []

    def walk(items: list[object], level: int) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item, level + 1)
            else:
                found.append((level, item.title, document.get_destination_page_number(item) + 1))  # type: ignore[attr-defined,arg-type]

    walk(document.outline, 0)
    return found


def text_of(content: bytes) -> str:
    return "\n".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(content)).pages)


def timed_session(minutes: list[int]) -> LegacySession:
    return LegacySession(
        "s-1",
        "p-1",
        "Workshop",
        T0,
        participants=[Participant("u-1", "Ana"), Participant("a-1", "Agent", "agent")],
        turns=[
            Turn(
                i,
                T0 + timedelta(minutes=m),
                "user" if i % 2 else "agent",
                "u-1" if i % 2 else "a-1",
                f"turn {i}",
            )
            for i, m in enumerate(minutes)
        ],
    )


class TestParts:
    """The transcript splits at long pauses and every fifty turns."""

    def test_every_fifty_turns(self) -> None:
        session = sample_session(120)
        parts = transcript_parts(session.turns)
        assert [len(part) for part in parts] == [OUTLINE_TURNS, OUTLINE_TURNS, 20]
        assert [turn for part in parts for turn in part] == list(session.turns)

    def test_a_pause_starts_a_phase(self) -> None:
        pause = int(PHASE_PAUSE.total_seconds() // 60)
        session = timed_session([0, 1, 2, 2 + pause, 3 + pause, 2 + 2 * pause])
        assert [[t.index for t in part] for part in transcript_parts(session.turns)] == [
            [0, 1, 2],
            [3, 4, 5],
        ]

    def test_no_turns_no_parts(self) -> None:
        assert transcript_parts(()) == []


class TestOutline:
    """Bookmarks read back with pypdf: the sections, and the transcript's parts."""

    def test_sections_and_parts(self) -> None:
        content = render_pdf(sample_session(120), {"d-clt-slab": "CLT slab"})
        entries = outline(content)
        assert entries[:4] == [
            (0, "Slab options — timber vs concrete (東京 office)", 1),
            (1, "Participants", 1),
            (1, "Artefacts", 1),
            (1, "Transcript", 1),
        ]
        parts = [(level, title) for level, title, _ in entries[4:-1]]
        assert parts == [
            (2, f"Turns #0{DASH}#49, 09:00{DASH}09:30"),
            (2, f"Turns #50{DASH}#99, 09:30{DASH}10:01"),
            (2, f"Turns #100{DASH}#119, 10:01{DASH}10:13"),
        ]
        assert entries[-1][:2] == (1, "Decisions referenced")
        pages = [page for _, _, page in entries]
        assert pages == sorted(pages)
        closing = pypdf.PdfReader(io.BytesIO(content)).pages[entries[-1][2] - 1]
        assert "Decisions referenced" in closing.extract_text()

    def test_each_part_points_at_its_first_turn(self) -> None:
        content = render_pdf(sample_session(120))
        document = pypdf.PdfReader(io.BytesIO(content))
        for _, title, page in outline(content):
            if title.startswith("Turns #"):
                first = title.split(DASH, 1)[0].removeprefix("Turns ")
                assert f"{first} " in document.pages[page - 1].extract_text()

    def test_phases_of_the_sample_workshop(self) -> None:
        session = sample.sessions()[1]
        content = render_pdf(session)
        parts = [title for level, title, _ in outline(content) if level == 2]
        assert parts == [
            f"Turns #{p[0].index}{DASH}#{p[-1].index}, {p[0].at:%H:%M}{DASH}{p[-1].at:%H:%M}"
            for p in transcript_parts(session.turns)
        ]

    def test_titles_are_cleaned_and_cut(self) -> None:
        session = LegacySession("s-1", "p-1", "A\ttitle\x07 " + "x" * 200, T0)
        (level, title, _), *_ = outline(render_pdf(session))
        assert level == 0
        assert title.startswith("A title⟨U+0007⟩ xxx")
        assert len(title) == 80
        assert title.endswith("…")

    def test_a_single_turn_part(self) -> None:
        content = render_pdf(timed_session([0]))
        assert (2, "Turn #0, 09:00") in [(lv, t) for lv, t, _ in outline(content)]

    def test_still_deterministic(self) -> None:
        session = sample_session(120)
        assert render_pdf(session, {"d-clt-slab": "x"}) == render_pdf(session, {"d-clt-slab": "x"})


class TestTables:
    """Participants in a table with their turn counts; decisions listed at the end."""

    def test_participants_table(self) -> None:
        text = text_of(render_pdf(sample_session(12)))
        assert "Name Id Role Turns" in text
        assert "Ana Łukasiewicz u-ana user 4" in text
        assert "carbon calculator t-calc tool 4" in text

    def test_decisions_listed_at_the_end_with_titles_and_turns(self) -> None:
        session = sample_session(12)
        text = text_of(render_pdf(session, {"d-clt-slab": "Use 160 mm CLT"}))
        closing = text.rsplit("Decisions referenced", 1)[1]
        assert "Decision Title Turns" in closing
        assert "d-clt-slab Use 160 mm CLT #0, #5, #10" in closing

    def test_unknown_decisions_are_said_to_be_missing(self) -> None:
        text = text_of(render_pdf(sample_session(6)))
        closing = text.rsplit("Decisions referenced", 1)[1]
        assert "(not in Decision Memory)" in closing

    def test_no_references_no_list(self) -> None:
        content = render_pdf(timed_session([0, 1]))
        assert "Decisions referenced" not in text_of(content)
        assert all(title != "Decisions referenced" for _, title, _ in outline(content))

    def test_a_long_table_repeats_its_header(self) -> None:
        people = [Participant(f"p-{n}", f"Person {n} " + "name " * 30) for n in range(60)]
        session = LegacySession("s-1", "p-1", "Many", T0, participants=people)
        document = pypdf.PdfReader(io.BytesIO(render_pdf(session)))
        assert len(document.pages) > 1
        assert all("Name Id Role Turns" in page.extract_text() for page in document.pages[:2])
