"""Property tests: any session exports in every format, deterministically, and reads back."""

from __future__ import annotations

import io
import json
import unicodedata
from datetime import UTC, datetime, timedelta

import networkx as nx
import pypdf
from hypothesis import given, settings
from hypothesis import strategies as st

from semreport import Artefact, LegacySession, Participant, ToolCall, Turn
from semreport.exports import (
    build_graph,
    export_legacy_session,
    session_from_document,
    visible_text,
)
from semreport.exports._pdf import _renderable
from semreport.testing import strategies as sst

T0 = datetime(2026, 1, 1, tzinfo=UTC)

identifiers = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,20}", fullmatch=True)
rtl = st.sampled_from(["שלום עולם", "مرحبا بالعالم", "עברית 123 English", "ضريبة CO₂"])
emoji = st.sampled_from(["😀", "🏗️", "👩🏽‍💻", "🇩🇪", "✔"])
controls = st.characters(min_codepoint=0, max_codepoint=0x9F).filter(lambda c: not c.isprintable())
any_text = st.text(st.characters(codec="utf-8"), max_size=60)
fragments = st.one_of(any_text, rtl, emoji, st.text(controls, max_size=5))
contents = st.one_of(
    st.just(""),
    st.lists(fragments, max_size=6).map("".join),
    st.builds(lambda word, n: word * n, st.text(min_size=1, max_size=5), st.integers(200, 900)),
)
names = st.text(min_size=1, max_size=30).filter(lambda s: s.strip())
json_values = st.recursive(
    st.none() | st.booleans() | sst.numbers() | any_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(any_text, inner, max_size=4),
    max_leaves=12,
)


@st.composite
def sessions(draw: st.DrawFn, max_turns: int = 6) -> LegacySession:
    ids = draw(st.lists(identifiers, min_size=1, max_size=3, unique=True))
    participants = [
        Participant(pid, draw(names), draw(st.sampled_from(["user", "agent", "tool"])))
        for pid in ids
    ]
    turns = []
    for index in range(draw(st.integers(0, max_turns))):
        calls = [
            ToolCall(
                draw(names),
                draw(st.dictionaries(any_text, json_values, max_size=3)),
                draw(json_values),
            )
            for _ in range(draw(st.integers(0, 2)))
        ]
        turns.append(
            Turn(
                index * 2,
                T0 + timedelta(seconds=index),
                draw(st.sampled_from(["user", "agent", "tool", "system"])),
                draw(st.sampled_from(ids)),
                draw(contents),
                calls,
                draw(st.lists(identifiers, max_size=3)),
            )
        )
    artefacts = [
        Artefact(
            draw(names),
            "text/plain",
            "ab" * 32,
            draw(any_text),
            draw(st.sampled_from([None, *(t.index for t in turns)])),
        )
        for _ in range(draw(st.integers(0, 2)))
    ]
    return LegacySession(
        draw(identifiers),
        draw(identifiers),
        draw(names),
        T0,
        ended_at=draw(st.none() | st.just(T0 + timedelta(hours=1))),
        participants=participants,
        turns=turns,
        artefacts=artefacts,
    )


def same_twice(session: LegacySession, fmt: str, graph_format: str = "node-link") -> bytes:
    first = export_legacy_session(session, fmt, graph_format=graph_format).content
    assert export_legacy_session(session, fmt, graph_format=graph_format).content == first
    return first


class TestJsonAndGraph:
    """The json and graph exports, for any session."""

    @given(sessions())
    def test_json_round_trips(self, session: LegacySession) -> None:
        content = same_twice(session, "json")
        assert session_from_document(json.loads(content)) == session

    @given(sessions())
    def test_node_link_loads_with_networkx(self, session: LegacySession) -> None:
        content = same_twice(session, "graph")
        loaded = nx.node_link_graph(json.loads(content), edges="edges")
        graph = build_graph(session)
        assert dict(loaded.nodes(data=True)) == dict(graph.nodes)
        assert loaded.number_of_edges() == len(graph.edges)

    @given(sessions())
    def test_graphml_loads_with_networkx(self, session: LegacySession) -> None:
        content = same_twice(session, "graph", "graphml")
        loaded = nx.read_graphml(io.BytesIO(content))
        graph = build_graph(session)
        assert loaded.number_of_nodes() == len(graph.nodes)
        assert loaded.number_of_edges() == len(graph.edges)
        assert {k: v["kind"] for k, v in loaded.nodes(data=True)} == {
            k: v["kind"] for k, v in graph.nodes
        }


class TestPdf:
    """The pdf export never fails, is valid for pypdf and is deterministic."""

    @settings(max_examples=12)
    @given(sessions(max_turns=4))
    def test_pdf_is_valid_and_deterministic(self, session: LegacySession) -> None:
        content = same_twice(session, "pdf")
        reader = pypdf.PdfReader(io.BytesIO(content), strict=True)
        text = "".join(page.extract_text() for page in reader.pages)
        assert f"#{len(session.turns) * 2 - 2}" in text if session.turns else "Transcript" in text

    @given(st.text(max_size=200))
    def test_visible_text_only_keeps_what_renders(self, text: str) -> None:
        shown = visible_text(text)
        assert "\r" not in shown
        assert "\t" not in shown
        assert all(
            c == "\n" or (ord(c) in _renderable() and unicodedata.category(c) not in "CcCsCo")
            for c in shown
        )
        assert visible_text(shown) == shown
