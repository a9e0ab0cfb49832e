"""Unit tests for the session graph and its two serialisations."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime

import networkx as nx
import pytest

from semreport import Artefact, LegacySession, Participant, ToolCall, Turn
from semreport.exports import GRAPH_SCHEMA, build_graph, graphml, node_link
from semreport.exports._graph import _xml
from semreport.testing.samples import sample_session

T0 = datetime(2026, 3, 1, 9, tzinfo=UTC)


def session_with(content: str = "hi", **extra: object) -> LegacySession:
    fields: dict[str, object] = {
        "participants": [Participant("u-1", "Ana"), Participant("a-1", "Bot", "agent")],
        "turns": [
            Turn(0, T0, "user", "u-1", content, decision_refs=["d-1", "d-1", "d-2"]),
            Turn(1, T0, "agent", "a-1", "", [ToolCall("calc", {"x": 1}, [1, 2])], ["d-1"]),
        ],
        "artefacts": [
            Artefact("a.txt", "text/plain", "0" * 64, turn_index=1),
            Artefact("b.txt", "text/plain", "1" * 64, uri="file:///b.txt"),
        ],
    }
    fields.update(extra)
    return LegacySession("s:1", "p-1", "Graph me", T0, **fields)  # type: ignore[arg-type]


def kinds(graph: nx.DiGraph, what: str) -> list[str]:
    return [n for n, d in graph.nodes(data=True) if d["kind"] == what]


class TestBuildGraph:
    """Nodes and edges of the session graph."""

    def test_every_kind_of_node_is_present(self) -> None:
        graph = build_graph(session_with())
        ids = [node for node, _ in graph.nodes]
        assert ids == [
            "session:s:1",
            "participant:u-1",
            "participant:a-1",
            "turn:0",
            "turn:1",
            "tool_call:1.0",
            "decision:d-1",
            "decision:d-2",
            "artefact:0",
            "artefact:1",
        ]

    def test_edges_follow_the_session(self) -> None:
        graph = build_graph(session_with())
        edges = [(s, t, a["kind"]) for s, t, a in graph.edges]
        assert ("turn:0", "turn:1", "next") in edges
        assert ("turn:0", "participant:u-1", "authored_by") in edges
        assert ("turn:1", "tool_call:1.0", "calls") in edges
        assert ("turn:1", "artefact:0", "produced") in edges
        assert ("session:s:1", "artefact:1", "produced") in edges
        assert ("session:s:1", "turn:0", "contains") in edges
        # A decision referenced twice in one turn gives one edge.
        assert edges.count(("turn:0", "decision:d-1", "references")) == 1
        assert ("turn:1", "decision:d-1", "references") in edges

    def test_attributes_are_strings_and_integers_without_empty_values(self) -> None:
        graph = build_graph(session_with())
        for _node, values in graph.nodes:
            assert all(isinstance(v, str | int) and v != "" for v in values.values())
        turn1 = dict(graph.nodes)["turn:1"]
        assert "content" not in turn1
        assert turn1["index"] == 1
        call = dict(graph.nodes)["tool_call:1.0"]
        assert json.loads(str(call["arguments"])) == {"x": 1}
        assert json.loads(str(call["result"])) == [1, 2]

    def test_decision_titles_label_decision_nodes(self) -> None:
        graph = build_graph(session_with(), {"d-1": "Use CLT"})
        nodes = dict(graph.nodes)
        assert nodes["decision:d-1"]["title"] == "Use CLT"
        assert nodes["decision:d-1"]["label"] == "Use CLT"
        assert "title" not in nodes["decision:d-2"]
        assert nodes["decision:d-2"]["label"] == "d-2"
        assert graph.graph["schema"] == GRAPH_SCHEMA


class TestSerialisations:
    """Node-link JSON and GraphML both load into networkx with the same content."""

    def test_node_link_loads_with_networkx(self) -> None:
        graph = build_graph(sample_session(13))
        loaded = nx.node_link_graph(json.loads(node_link(graph)), edges="edges")
        assert loaded.is_directed()
        assert loaded.number_of_nodes() == len(graph.nodes)
        assert loaded.number_of_edges() == len(graph.edges)
        assert dict(loaded.nodes(data=True)) == dict(graph.nodes)
        assert loaded.graph == graph.graph

    def test_graphml_loads_with_networkx(self) -> None:
        graph = build_graph(sample_session(13), {"d-clt-slab": "CLT slab"})
        loaded = nx.read_graphml(io.BytesIO(graphml(graph)))
        assert dict(loaded.nodes(data=True)) == dict(graph.nodes)
        assert {(s, t): a for s, t, a in loaded.edges(data=True)} == {
            (s, t): a for s, t, a in graph.edges
        }
        # networkx adds empty node_default and edge_default of its own.
        assert {k: v for k, v in loaded.graph.items() if not k.endswith("_default")} == graph.graph

    def test_graphml_keeps_markup_and_carriage_returns(self) -> None:
        content = 'a <b> & "c"\r\nnext line\r'
        loaded = nx.read_graphml(io.BytesIO(graphml(build_graph(session_with(content)))))
        assert loaded.nodes["turn:0"]["content"] == content

    def test_graphml_replaces_what_xml_cannot_hold(self) -> None:
        loaded = nx.read_graphml(io.BytesIO(graphml(build_graph(session_with("a\x00b\x1fc")))))
        assert loaded.nodes["turn:0"]["content"] == "a\ufffdb\ufffdc"

    def test_attribute_values_escape_quotes(self) -> None:
        assert _xml('a"b<c>&\r', attribute=True) == "a&quot;b&lt;c&gt;&amp;&#13;"
        assert _xml('a"b') == 'a"b'

    def test_node_link_keeps_control_characters(self) -> None:
        data = json.loads(node_link(build_graph(session_with("a\x00b"))))
        assert data["nodes"][3]["content"] == "a\x00b"

    @pytest.mark.parametrize("write", [node_link, graphml])
    def test_same_session_same_bytes(self, write: object) -> None:
        assert callable(write)
        first = write(build_graph(sample_session(40)))
        assert first == write(build_graph(sample_session(40)))
