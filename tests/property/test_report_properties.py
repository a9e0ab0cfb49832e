"""Determinism, tamper detection and escaping, over generated projects."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import rfc8785
from hypothesis import assume, given
from hypothesis import strategies as st
from markupsafe import escape

import semreport
from _report_support import FakeMemory, decision
from semreport import InvalidRequest, verify
from semreport.reports import assemble_report, build_report, embed_json, render_html

WHEN = datetime(2026, 3, 1, tzinfo=UTC)
NASTY = st.sampled_from(
    ["</script>", "<b>bold</b>", '"quoted"', "'single'", "&amp;", "<!--", "\u2028", "é", "😀", "\\"]
)
TEXT = st.lists(NASTY | st.text(min_size=1, max_size=8), min_size=1, max_size=3).map("".join)
# Printable text by construction (letters, marks, digits, punctuation, symbols), so the
# filter below almost never rejects and Hypothesis does not give up on it.
PRINTABLE = st.text(
    alphabet=st.characters(categories=["L", "M", "N", "P", "S"]), min_size=1, max_size=8
)
CLEAN = (
    st.lists(NASTY.filter(str.isprintable) | PRINTABLE, min_size=1, max_size=3)
    .map("".join)
    .map(lambda t: t.strip() or "x")
    .filter(lambda t: t.isprintable() and all(not 0xD800 <= ord(c) <= 0xDFFF for c in t))
)


@st.composite
def projects(draw: st.DrawFn, min_size: int = 1, max_size: int = 8) -> list[semreport.Decision]:
    n = draw(st.integers(min_size, max_size))
    ids = [f"d-{i}" for i in range(1, n + 1)]
    records = []
    for sequence, own in enumerate(ids, start=1):
        others = [i for i in ids if i != own] + ["ghost"]
        links = draw(
            st.lists(
                st.builds(
                    dict,
                    kind=st.sampled_from(["supersedes", "depends_on", "relates_to"]),
                    target=st.sampled_from(others),
                ),
                max_size=2,
            )
        )
        evidence = draw(
            st.lists(
                st.builds(
                    dict,
                    kind=st.sampled_from(["regulation", "catalogue_item", "cost_line", "document"]),
                    ref=st.sampled_from(["R-1", "R-2", "CAT-9", "BQ 1"]),
                    title=TEXT,
                    quote=st.none() | TEXT,
                ),
                max_size=2,
            )
        )
        attributes = draw(
            st.dictionaries(
                st.sampled_from(["cost_eur", "co2e_kg", "fire_resistance_min", "note"]),
                st.integers(-(10**9), 10**9)
                | st.floats(-1e12, 1e12, allow_nan=False)
                | st.booleans()
                | TEXT,
                max_size=3,
            )
        )
        records.append(
            decision(
                sequence,
                own,
                title=draw(CLEAN),
                statement=draw(CLEAN),
                rationale=draw(TEXT),
                domain=draw(
                    st.sampled_from(["regulation", "material", "cost", "lifecycle", "general"])
                ),
                status=draw(st.sampled_from(["proposed", "accepted", "rejected", "deprecated"])),
                agent=draw(st.sampled_from(["agent-a", "agent-b", "agent-c"])),
                links=links,
                evidence=evidence,
                attributes=attributes,
                tags=draw(st.sets(st.sampled_from(["timber", "fire", "<tag>"]), max_size=2)),
            )
        )
    return records


class TestDeterminism:
    """Same records, same bytes; later appends leave an as-of report alone."""

    @given(projects(), st.randoms(use_true_random=False))
    def test_recording_order_does_not_matter(self, records, rnd) -> None:
        shuffled = list(records)
        rnd.shuffle(shuffled)
        first = assemble_report(FakeMemory(records), "p-1")
        second = assemble_report(FakeMemory(shuffled), "p-1")
        assert first.to_json() == second.to_json()
        assert build_report("p-1", shuffled).to_json() == first.to_json()
        assert render_html(first, exported_at=WHEN) == render_html(second, exported_at=WHEN)

    @given(projects(min_size=2), st.data())
    def test_as_of_unchanged_by_later_appends(self, records, data) -> None:
        cut = data.draw(st.integers(1, len(records) - 1))
        memory = FakeMemory(records[:cut])
        before = assemble_report(memory, "p-1", as_of=cut)
        memory.held.extend(records[cut:])
        after = assemble_report(memory, "p-1", as_of=cut)
        assert after.to_json() == before.to_json()
        assert verify(before.to_json(), memory).ok


def _leaves(value, path):
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, f"{path}[{index}]")
    else:
        yield path, value


def _set(root, path, new):
    steps = re.findall(r"\.([^.\[]+)|\[(\d+)\]", path[1:])
    target = root
    for key, index in steps[:-1]:
        target = target[key] if key else target[int(index)]
    key, index = steps[-1]
    if key:
        target[key] = new
    else:
        target[int(index)] = new


def _changed(value, draw):
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + draw(st.integers(1, 9))
    if isinstance(value, str):
        return value + draw(st.text(min_size=1, max_size=2))
    return draw(st.text(min_size=1, max_size=2))


def _related(found: str, path: str) -> bool:
    return found == path or path.startswith(found) or found.startswith(path)


class TestTampering:
    """Any change to a record or to the report body of an exported page is found and located."""

    @given(projects(), st.data())
    def test_changed_value_in_a_record(self, records, data) -> None:
        report = build_report("p-1", records)
        wire = semreport.to_wire(report)
        index = data.draw(st.integers(0, len(records) - 1))
        path, value = data.draw(
            st.sampled_from(list(_leaves(wire["records"][index], f"$.records[{index}]")))
        )
        _set(wire, path, _changed(value, data.draw))
        page = _page_with(report, wire)
        result = verify(page)
        assert not result.ok
        assert any(p.location.startswith(f"$.records[{index}]") for p in result.problems)

    @given(projects(), st.data())
    def test_changed_value_in_the_body(self, records, data) -> None:
        report = build_report("p-1", records)
        wire = semreport.to_wire(report)
        body = [*_leaves(wire["summary"], "$.summary"), *_leaves(wire["sections"], "$.sections")]
        path, value = data.draw(st.sampled_from(body))
        _set(wire, path, _changed(value, data.draw))
        result = verify(_page_with(report, wire))
        assert not result.ok
        assert not result.report_sha256
        assert result.records_root
        assert any(_related(p.location, path) for p in result.problems), (path, result.problems)

    @given(projects(), st.data())
    def test_any_byte_of_a_record_or_the_body(self, records, data) -> None:
        report = build_report("p-1", records)
        wire = semreport.to_wire(report)
        page = render_html(report, exported_at=WHEN).encode()
        target = data.draw(st.sampled_from(["record", "summary", "sections"]))
        if target == "record":
            index = data.draw(st.integers(0, len(records) - 1))
            member, prefix = wire["records"][index], f"$.records[{index}]"
        else:
            member, prefix = wire[target], f"$.{target}"
        span = embed_json(rfc8785.dumps(member).decode()).encode()
        start = page.index(span, page.index(b'id="semreport-report"'))
        offset = start + data.draw(st.integers(0, len(span) - 1))
        byte = data.draw(st.integers(0x20, 0x7E).filter(lambda b: b != page[offset]))
        tampered = page[:offset] + bytes([byte]) + page[offset + 1 :]
        try:
            result = verify(tampered)
        except InvalidRequest as exc:  # no longer UTF-8 or JSON: refused, with the position
            message = exc.errors[0].message
            refused = True
        else:
            refused = False
        if refused:
            assert re.search(r"position|line \d+ column \d+", message)
            return
        block = re.search(rb'id="semreport-report">(.*?)</script>', tampered, re.S)
        assume(json.loads(block.group(1)) != wire)  # e.g. \u003c -> \u003C changes nothing
        assert not result.ok
        assert any(p.location.startswith(prefix) for p in result.problems), (
            prefix,
            result.problems,
        )


def _page_with(report, wire) -> str:
    page = render_html(report, exported_at=WHEN)
    original = embed_json(report.to_json())
    return page.replace(original, embed_json(json.dumps(wire, ensure_ascii=False)), 1)


class TestSafety:
    """Record text renders as text and never ends the JSON block."""

    @given(projects(max_size=4))
    def test_text_never_becomes_markup(self, records) -> None:
        report = build_report("p-1", records)
        page = render_html(report, exported_at=WHEN)
        assert page.count("<script") == 1
        assert page.count("</script>") == 1
        block = page.split('<script type="application/json" id="semreport-report">', 1)[1]
        assert block.endswith("</script>\n</body>\n</html>\n")
        assert json.loads(block.split("</script>", 1)[0]) == semreport.to_wire(report)
        visible = page.split("<main>", 1)[1].split("</main>", 1)[0]
        for record in records:
            assert str(escape(record.title)) in visible
        tags = set(re.findall(r"</?([a-zA-Z0-9]+)", visible))
        assert tags <= {
            "section",
            "h2",
            "h3",
            "h4",
            "dl",
            "dt",
            "dd",
            "code",
            "div",
            "table",
            "caption",
            "thead",
            "tbody",
            "tr",
            "th",
            "td",
            "p",
            "a",
            "ol",
            "li",
            "article",
            "span",
            "ul",
            "q",
            "nav",
            "strong",
            "br",
            "tfoot",
            "figure",
            "figcaption",
            "svg",
            "title",
            "desc",
            "g",
            "rect",
            "text",
        }


class TestVisiblePage:
    """An edit to the visible body of a page from this library version is located by line."""

    @given(projects(max_size=4), st.data())
    def test_any_byte_of_the_visible_body(self, records, data) -> None:
        from semreport.reports._html import library_version

        report = build_report("p-1", records)
        page = render_html(report, exported_at=WHEN, version=library_version()).encode()
        start = page.index(b"<body>")
        end = page.index(b'<script type="application/json"')
        offset = data.draw(st.integers(start, end - 1))
        byte = data.draw(st.integers(0x20, 0x7E).filter(lambda b: b != page[offset]))
        tampered = page[:offset] + bytes([byte]) + page[offset + 1 :]
        try:
            result = verify(tampered)
        except InvalidRequest as exc:  # no longer UTF-8: refused with the position
            message = exc.errors[0].message
            refused = True
        else:
            refused = False
        if refused:
            assert "position" in message
            return
        assert not result.ok
        assert result.page is False
        assert any(p.location.startswith("page line ") for p in result.problems)
