"""Exports of legacy sessions: ``json``, ``pdf`` and ``graph``; and session import.

The facade's :meth:`~semreport.SemReport.export_session` and
:meth:`~semreport.SemReport.import_sessions` are the usual way in; the
functions here do the work without storage or authorisation, for callers
that hold a :class:`~semreport.LegacySession` already.
"""

from __future__ import annotations

from collections.abc import Mapping

from semreport.domain import DecisionMemory, DecisionNotFound, LegacySession
from semreport.domain import UnsupportedExportFormat as UnsupportedExportFormat
from semreport.exports._graph import GRAPH_SCHEMA, SessionGraph, build_graph, graphml, node_link
from semreport.exports._import import LoadedSessions, load_session_files
from semreport.exports._json import session_document, session_from_document, session_json
from semreport.exports._pdf import (
    OUTLINE_TURNS,
    PHASE_PAUSE,
    render_pdf,
    transcript_parts,
    visible_text,
)
from semreport.exports._types import (
    GRAPH_FORMATS,
    SESSION_FORMATS,
    SESSION_SCHEMA,
    GraphFormat,
    SessionExport,
    SessionFormat,
    SessionImport,
    SessionImportProblem,
)

__all__ = [
    "GRAPH_FORMATS",
    "GRAPH_SCHEMA",
    "OUTLINE_TURNS",
    "PHASE_PAUSE",
    "SESSION_FORMATS",
    "SESSION_SCHEMA",
    "GraphFormat",
    "LoadedSessions",
    "SessionExport",
    "SessionFormat",
    "SessionGraph",
    "SessionImport",
    "SessionImportProblem",
    "build_graph",
    "check_export_format",
    "decision_titles",
    "export_legacy_session",
    "graphml",
    "load_session_files",
    "node_link",
    "render_pdf",
    "session_document",
    "session_from_document",
    "session_json",
    "transcript_parts",
    "visible_text",
]

_MEDIA: Mapping[tuple[str, str], tuple[str, str]] = {
    ("json", "node-link"): ("application/json", "session.json"),
    ("pdf", "node-link"): ("application/pdf", "pdf"),
    ("graph", "node-link"): ("application/json", "graph.json"),
    ("graph", "graphml"): ("application/graphml+xml", "graphml"),
}


def check_export_format(fmt: object, graph_format: object = "node-link") -> None:
    """Refuse a format that is not exactly one of the allowed ones.

    Raises:
        UnsupportedExportFormat: ``fmt`` is not ``json``, ``pdf`` or ``graph``,
            or ``graph_format`` is not ``node-link`` or ``graphml``; the
            message names the allowed values.
    """
    if not isinstance(fmt, str) or fmt not in SESSION_FORMATS:
        raise UnsupportedExportFormat(
            f"unsupported session export format {_shown(fmt)}; "
            f"the allowed formats are {', '.join(SESSION_FORMATS)}"
        )
    if not isinstance(graph_format, str) or graph_format not in GRAPH_FORMATS:
        raise UnsupportedExportFormat(
            f"unsupported graph serialisation {_shown(graph_format)}; "
            f"the allowed graph formats are {', '.join(GRAPH_FORMATS)}"
        )


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def decision_titles(session: LegacySession, memory: DecisionMemory | None) -> dict[str, str]:
    """Look up the titles of the decisions the session's turns reference.

    Decisions missing from ``memory`` (or every decision, without a memory)
    are left out; the writers then show the id alone.
    """
    if memory is None:
        return {}
    titles: dict[str, str] = {}
    for turn in session.turns:
        for ref in turn.decision_refs:
            if ref in titles:
                continue
            try:
                titles[ref] = memory.get(session.project_id, ref).title
            except DecisionNotFound:
                continue
    return titles


def _filename(session_id: str, suffix: str) -> str:
    # Identifiers may hold ':', which some file systems refuse.
    return f"{session_id.replace(':', '_')}.{suffix}"


def export_legacy_session(
    session: LegacySession,
    fmt: SessionFormat | str,
    *,
    memory: DecisionMemory | None = None,
    graph_format: GraphFormat | str = "node-link",
) -> SessionExport:
    """Export one session as ``json``, ``pdf`` or ``graph``.

    Args:
        session: The session.
        fmt: ``json`` (the ``semreport.session/1`` document), ``pdf`` (a
            transcript) or ``graph`` (who did what).
        memory: Decision Memory, read to show the titles of referenced
            decisions in the PDF and the graph; optional.
        graph_format: ``node-link`` (networkx node-link JSON) or ``graphml``.

    Returns:
        The bytes, their media type and a suggested file name; the same
        session (and decision titles) always gives the same bytes.

    Raises:
        UnsupportedExportFormat: an unknown ``fmt`` or ``graph_format``.
        MissingExtra: ``pdf`` without fpdf2 installed.
    """
    check_export_format(fmt, graph_format)
    if fmt == "json":
        content = session_json(session)
    elif fmt == "pdf":
        content = render_pdf(session, decision_titles(session, memory))
    else:
        graph = build_graph(session, decision_titles(session, memory))
        content = node_link(graph) if graph_format == "node-link" else graphml(graph)
    media_type, suffix = _MEDIA[(fmt, graph_format if fmt == "graph" else "node-link")]
    return SessionExport(
        session_id=session.id,
        format=fmt,
        content=content,
        media_type=media_type,
        filename=_filename(session.id, suffix),
    )
