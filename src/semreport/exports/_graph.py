"""The ``graph`` writer: who did what in a session, as a directed graph.

Nodes: the session, its participants, turns, tool calls, referenced decisions
and artefacts. Edges (each with a ``kind``): ``contains`` (session to each
participant and turn), ``next`` (turn to the following turn), ``authored_by``
(turn to participant), ``calls`` (turn to tool call), ``references`` (turn to
decision) and ``produced`` (turn, or the session when no turn is named, to
artefact). Attributes are strings and integers only; empty strings are left
out, so both serialisations load back into the same attributes.

Two serialisations, written here with the standard library only and checked
against networkx in the tests: networkx *node-link* JSON (the default,
``networkx.node_link_graph(data, edges="edges")``) and GraphML
(``networkx.read_graphml``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final

import attrs

from semreport.domain import FrozenDict, LegacySession
from semreport.exports._types import SESSION_SCHEMA
from semreport.wire import format_datetime

__all__ = ["GRAPH_SCHEMA", "SessionGraph", "build_graph", "graphml", "node_link"]

GRAPH_SCHEMA: Final = "semreport.session-graph/1"
"""The schema name stored in the graph's own attributes."""

Attrs = dict[str, str | int]


@attrs.frozen
class SessionGraph:
    """A session as nodes and edges, in a fixed order.

    Attributes:
        graph: The graph's own attributes.
        nodes: ``(node id, attributes)`` pairs.
        edges: ``(source id, target id, attributes)`` triples.
    """

    graph: Attrs
    nodes: list[tuple[str, Attrs]]
    edges: list[tuple[str, str, Attrs]]


def _attrs(**values: str | int | None) -> Attrs:
    return {k: v for k, v in values.items() if v is not None and v != ""}


def _plain(value: object) -> dict[str, Any]:
    if isinstance(value, FrozenDict):
        return dict(value)
    raise TypeError(f"not a JSON value: {type(value).__name__}")  # pragma: no cover


def _compact_json(value: Any) -> str:
    # FrozenDict keeps its keys sorted, so the output is canonical without sort_keys.
    return json.dumps(value, ensure_ascii=False, allow_nan=False, default=_plain)


def build_graph(
    session: LegacySession, decision_titles: Mapping[str, str] | None = None
) -> SessionGraph:
    """Build the graph of ``session``; ``decision_titles`` adds titles to decision nodes."""
    titles = decision_titles or {}
    sid = f"session:{session.id}"
    nodes: list[tuple[str, Attrs]] = []
    edges: list[tuple[str, str, Attrs]] = []
    nodes.append(
        (
            sid,
            _attrs(
                kind="session",
                label=session.title,
                session_id=session.id,
                project_id=session.project_id,
                title=session.title,
                started_at=format_datetime(session.started_at),
                ended_at=None if session.ended_at is None else format_datetime(session.ended_at),
            ),
        )
    )
    for participant in session.participants:
        pid = f"participant:{participant.id}"
        nodes.append(
            (
                pid,
                _attrs(
                    kind="participant",
                    label=participant.name,
                    participant_id=participant.id,
                    name=participant.name,
                    role=participant.role.value,
                ),
            )
        )
        edges.append((sid, pid, {"kind": "contains"}))
    decisions: dict[str, str] = {}
    previous: str | None = None
    for turn in session.turns:
        tid = f"turn:{turn.index}"
        nodes.append(
            (
                tid,
                _attrs(
                    kind="turn",
                    label=f"#{turn.index} {turn.role.value} {turn.author}",
                    index=turn.index,
                    at=format_datetime(turn.at),
                    role=turn.role.value,
                    author=turn.author,
                    content=turn.content,
                ),
            )
        )
        edges.append((sid, tid, {"kind": "contains"}))
        if previous is not None:
            edges.append((previous, tid, {"kind": "next"}))
        previous = tid
        edges.append((tid, f"participant:{turn.author}", {"kind": "authored_by"}))
        for position, call in enumerate(turn.tool_calls):
            cid = f"tool_call:{turn.index}.{position}"
            nodes.append(
                (
                    cid,
                    _attrs(
                        kind="tool_call",
                        label=call.name,
                        name=call.name,
                        turn_index=turn.index,
                        position=position,
                        arguments=_compact_json(call.arguments),
                        result=_compact_json(call.result),
                    ),
                )
            )
            edges.append((tid, cid, {"kind": "calls"}))
        for ref in dict.fromkeys(turn.decision_refs):
            did = f"decision:{ref}"
            if did not in decisions:
                decisions[did] = ref
            edges.append((tid, did, {"kind": "references"}))
    for did, ref in decisions.items():
        title = titles.get(ref)
        nodes.append(
            (did, _attrs(kind="decision", label=title or ref, decision_id=ref, title=title))
        )
    for position, artefact in enumerate(session.artefacts):
        aid = f"artefact:{position}"
        nodes.append(
            (
                aid,
                _attrs(
                    kind="artefact",
                    label=artefact.name,
                    name=artefact.name,
                    media_type=artefact.media_type,
                    sha256=artefact.sha256,
                    uri=artefact.uri,
                    turn_index=artefact.turn_index,
                ),
            )
        )
        source = sid if artefact.turn_index is None else f"turn:{artefact.turn_index}"
        edges.append((source, aid, {"kind": "produced"}))
    graph = _attrs(
        schema=GRAPH_SCHEMA,
        source_schema=SESSION_SCHEMA,
        session_id=session.id,
        project_id=session.project_id,
        title=session.title,
    )
    return SessionGraph(graph=graph, nodes=nodes, edges=edges)


def node_link(graph: SessionGraph) -> bytes:
    """Serialise as networkx node-link JSON (edges under ``"edges"``), UTF-8."""
    data = {
        "directed": True,
        "multigraph": False,
        "graph": graph.graph,
        "nodes": [{"id": node, **values} for node, values in graph.nodes],
        "edges": [
            {"source": source, "target": target, **values} for source, target, values in graph.edges
        ],
    }
    return (json.dumps(data, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")


# XML 1.0 cannot carry these at all, not even as character references.
_NOT_XML: Final = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_TEXT_ESCAPES: Final = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "\r": "&#13;"}
_ATTR_ESCAPES: Final = {**_TEXT_ESCAPES, '"': "&quot;"}
_TEXT_SPECIAL: Final = re.compile("[&<>\r]")
_ATTR_SPECIAL: Final = re.compile('[&<>"\r]')
_ANY_SPECIAL: Final = re.compile('[&<>"\r\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]')


def _xml(text: str, *, attribute: bool = False) -> str:
    if _ANY_SPECIAL.search(text) is None:
        return text
    text = _NOT_XML.sub("\ufffd", text)
    if attribute:
        return _ATTR_SPECIAL.sub(lambda m: _ATTR_ESCAPES[m.group()], text)
    return _TEXT_SPECIAL.sub(lambda m: _TEXT_ESCAPES[m.group()], text)


def _key_table(graph: SessionGraph) -> dict[tuple[str, str], tuple[str, str]]:
    """Map (domain, attribute) to (key id, GraphML type), in a fixed order."""
    seen: dict[tuple[str, str], str] = {}

    def note(domain: str, values: Attrs) -> None:
        # build_graph gives each attribute name one type: integers or strings, never both.
        for name, value in values.items():
            seen.setdefault((domain, name), "long" if isinstance(value, int) else "string")

    note("graph", graph.graph)
    for _node, values in graph.nodes:
        note("node", values)
    for _source, _target, values in graph.edges:
        note("edge", values)
    return {key: (f"d{i}", seen[key]) for i, key in enumerate(sorted(seen))}


def _data(domain: str, keys: Mapping[tuple[str, str], tuple[str, str]]) -> Any:
    """A writer of one element's ``<data>`` children, for one domain (graph, node, edge)."""
    ids = {name: key for (where, name), (key, _kind) in keys.items() if where == domain}

    def write(values: Attrs, indent: str) -> str:
        return "".join(
            f'{indent}<data key="{ids[name]}">'
            f"{value if isinstance(value, int) else _xml(value)}</data>\n"
            for name, value in values.items()
        )

    return write


def graphml(graph: SessionGraph) -> bytes:
    """Serialise as GraphML 1.0 (``networkx.read_graphml`` loads it), UTF-8.

    Characters XML 1.0 cannot hold (most C0 controls, lone surrogates,
    U+FFFE, U+FFFF) become U+FFFD; carriage returns are kept as ``&#13;``.
    """
    keys = _key_table(graph)
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>\n',
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns '
        'http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">\n',
    ]
    for (domain, name), (key, kind) in keys.items():
        parts.append(
            f'  <key id="{key}" for="{domain}" attr.name="{_xml(name, attribute=True)}" '
            f'attr.type="{kind}"/>\n'
        )
    graph_data, node_data, edge_data = (_data(d, keys) for d in ("graph", "node", "edge"))
    parts.append('  <graph edgedefault="directed">\n')
    parts.append(graph_data(graph.graph, "    "))
    for node, values in graph.nodes:
        parts.append(f'    <node id="{_xml(node, attribute=True)}">\n')
        parts.append(node_data(values, "      "))
        parts.append("    </node>\n")
    for source, target, values in graph.edges:
        parts.append(
            f'    <edge source="{_xml(source, attribute=True)}" '
            f'target="{_xml(target, attribute=True)}">\n'
        )
        parts.append(edge_data(values, "      "))
        parts.append("    </edge>\n")
    parts.append("  </graph>\n</graphml>\n")
    return "".join(parts).encode("utf-8")
