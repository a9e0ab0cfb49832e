"""The results of session export and import, and the choices they accept."""

from __future__ import annotations

import base64
import hashlib
import html
import json
from typing import Any, Final, Literal

import attrs

from semreport.wire import converter

__all__ = [
    "GRAPH_FORMATS",
    "SESSION_FORMATS",
    "SESSION_SCHEMA",
    "GraphFormat",
    "SessionExport",
    "SessionFormat",
    "SessionImport",
    "SessionImportProblem",
]

SESSION_SCHEMA: Final = "semreport.session/1"
"""The schema name of the JSON session export (and of the import envelope)."""

SessionFormat = Literal["json", "pdf", "graph"]
"""A session export format."""
GraphFormat = Literal["node-link", "graphml"]
"""A serialisation of the session graph."""

SESSION_FORMATS: Final[tuple[str, ...]] = ("json", "pdf", "graph")
"""The allowed values of ``fmt`` for a session export."""
GRAPH_FORMATS: Final[tuple[str, ...]] = ("node-link", "graphml")
"""The allowed values of ``graph_format`` for the ``graph`` export."""


@attrs.frozen
class SessionExport:
    """One exported legacy session.

    Its wire form (:func:`semreport.wire.to_wire`) carries the content as
    base64 (``content_base64``) with its size and SHA-256, for JSON channels;
    an HTTP adapter would rather send :attr:`content` as the body with
    :attr:`media_type`.

    Attributes:
        session_id: The exported session.
        format: ``json``, ``pdf`` or ``graph``.
        content: The document's bytes.
        media_type: Its media type, e.g. ``application/pdf``.
        filename: A suggested file name (safe on every common file system).
    """

    session_id: str
    format: str
    content: bytes = attrs.field(repr=lambda content: f"<{len(content)} bytes>")
    media_type: str
    filename: str

    @property
    def sha256(self) -> str:
        """The SHA-256 of :attr:`content`, as 64 lowercase hex digits."""
        return hashlib.sha256(self.content).hexdigest()

    def _repr_html_(self) -> str:
        """What the export holds, for notebooks: its file and, for JSON documents, a summary."""
        e = html.escape
        return (
            f"<div><p><strong>{e(self.format)}</strong> export of session "
            f"<code>{e(self.session_id)}</code>: <code>{e(self.filename)}</code>, "
            f"{e(self.media_type)}, {len(self.content):,} bytes.</p>"
            f"{_content_html(self)}"
            f"<p><small>sha256 <code>{self.sha256}</code></small></p></div>"
        )


def _content_html(export: SessionExport) -> str:
    """A summary of a JSON export (a session or a node-link graph); nothing for other bytes."""
    e = html.escape
    if not export.media_type.startswith("application/json"):
        return ""
    try:
        data = json.loads(export.content)
    except ValueError:
        return ""
    if not isinstance(data, dict):
        return ""
    session = data.get("session")
    if isinstance(session, dict):
        turns = session.get("turns") or []
        names = ", ".join(
            e(str(p.get("name", p.get("id", "")))) for p in session.get("participants") or []
        )
        return (
            f"<p>{e(str(session.get('title', '')))}: {len(turns)} turns, participants {names}.</p>"
        )
    nodes = data.get("nodes")
    if isinstance(nodes, list):
        kinds: dict[str, int] = {}
        for node in nodes:
            kind = str(node.get("kind", "node")) if isinstance(node, dict) else "node"
            kinds[kind] = kinds.get(kind, 0) + 1
        edges = data.get("edges", data.get("links")) or []
        counts = ", ".join(f"{count} {e(kind)}" for kind, count in sorted(kinds.items()))
        return f"<p>Graph: {len(nodes)} nodes ({counts}), {len(edges)} edges.</p>"
    return ""


@attrs.frozen
class SessionImportProblem:
    """Why one file of an import was not recorded.

    Attributes:
        file: The file's path, as given or found in the directory.
        code: The error code, e.g. ``INVALID_REQUEST`` or ``SESSION_ALREADY_RECORDED``.
        reason: What is wrong, readable; for malformed sessions every bad field
            is listed with its path.
    """

    file: str
    code: str
    reason: str


@attrs.frozen
class SessionImport:
    """What an import did.

    Attributes:
        imported: Ids of the sessions recorded, in file order (one batch: all
            of them were written together).
        files: The files read, in the order they were read.
        problems: One entry per file that was not recorded, with the reason.
    """

    imported: tuple[str, ...]
    files: tuple[str, ...]
    problems: tuple[SessionImportProblem, ...] = ()

    @property
    def ok(self) -> bool:
        """Whether every file was recorded."""
        return not self.problems


def _export_wire(export: SessionExport) -> dict[str, Any]:
    return {
        "session_id": export.session_id,
        "format": export.format,
        "media_type": export.media_type,
        "filename": export.filename,
        "size": len(export.content),
        "sha256": export.sha256,
        "content_base64": base64.b64encode(export.content).decode("ascii"),
    }


converter.register_unstructure_hook(SessionExport, _export_wire)
