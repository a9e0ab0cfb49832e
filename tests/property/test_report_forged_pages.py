"""No forged page verifies, whatever it says about its own generator (issue 11.2).

A forger edits one byte of the visible page (a figure, a title, a status, a
tag...) and removes or rewrites the ``generator`` meta tag, hoping the page
will be taken for another version's layout and left unchecked. ``verify``
must say not ok and point at the forged line.
"""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from _report_support import decision
from semreport import verify
from semreport.reports import FindingKind, build_report, render_html
from semreport.reports._html import library_version

WHEN = datetime(2026, 3, 1, tzinfo=UTC)
GENERATOR = f'<meta name="generator" content="semreport {library_version()}">'
WORDS = st.text(alphabet="abcdefghij klmnop", min_size=1, max_size=12).map(
    lambda t: t.strip() or "x"
)
NUMBERS = st.integers(-(2**53) + 1, 2**53 - 1) | st.floats(allow_nan=False, allow_infinity=False)


@st.composite
def records(draw: st.DrawFn) -> list:
    count = draw(st.integers(1, 4))
    return [
        decision(
            sequence,
            title=draw(WORDS),
            statement=draw(WORDS),
            rationale=draw(WORDS),
            domain=draw(st.sampled_from(["regulation", "material", "cost", "lifecycle"])),
            status=draw(st.sampled_from(["proposed", "accepted", "rejected"])),
            attributes=draw(st.dictionaries(st.sampled_from(["cost_eur", "co2e_kg"]), NUMBERS)),
            tags=draw(st.sets(st.sampled_from(["timber", "fire", "steel"]))),
        )
        for sequence in range(1, count + 1)
    ]


# What the forger does to the page's claim about itself.
CLAIMS = st.sampled_from(
    [
        None,  # leave the tag as it is
        "",  # remove the tag
        '<meta name="generator" content="semreport 0.0.1">',
        '<meta name="generator" content="semreport 99.1">',
        '<meta name="generator" content="other-tool 1.0">',
        '<meta name="generator">',
    ]
)


class TestForgedVisiblePage:
    """One byte of the visible body changed, with the generator tag kept, removed or rewritten."""

    @given(records(), CLAIMS, st.data())
    def test_forgery_is_never_ok_and_is_located(self, found, claim, data) -> None:
        page = render_html(build_report("p-1", found), exported_at=WHEN, version=library_version())
        if claim is not None:
            page = page.replace(GENERATOR, claim, 1)
        raw = page.encode()
        start = raw.index(b"<main>")
        end = raw.index(b"</main>")
        # An ASCII byte of the body, replaced by another, keeps the page UTF-8 (the
        # page also holds characters such as the euro sign, whose bytes cannot be
        # changed one at a time and keep it UTF-8).
        ascii_offsets = [i for i in range(start, end) if raw[i] < 0x80]
        offset = data.draw(st.sampled_from(ascii_offsets), label="offset")
        byte = data.draw(st.integers(0x20, 0x7E).filter(lambda b: b != raw[offset]), label="byte")
        tampered = raw[:offset] + bytes([byte]) + raw[offset + 1 :]
        result = verify(tampered)
        line = tampered[:offset].count(b"\n") + 1
        assert not result.ok
        assert result.page is False
        located = [p.line for p in result.problems if p.kind is FindingKind.PAGE_MISMATCH]
        assert line in located, (line, result.problems)
        if claim is not None:
            assert result.problems[0].kind is FindingKind.PAGE_NOT_CHECKED

    @given(records(), CLAIMS.filter(lambda c: c is not None))
    def test_a_rewritten_claim_alone_is_not_ok(self, found, claim) -> None:
        page = render_html(
            build_report("p-1", found), exported_at=WHEN, version=library_version()
        ).replace(GENERATOR, claim, 1)
        result = verify(page)
        assert result.records_root
        assert result.report_sha256
        assert not result.ok
        assert result.problems[0].kind is FindingKind.PAGE_NOT_CHECKED
