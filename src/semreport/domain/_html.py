"""Notebook views of domain objects: small HTML fragments, every text escaped (stdlib only)."""

from __future__ import annotations

import json
from html import escape
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from semreport.domain._models import Decision

__all__ = ["decision_html", "value_text"]


def value_text(value: object) -> str:
    """An attribute value as text: strings as they are, numbers and booleans as in JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _code(text: str) -> str:
    return f"<code>{escape(text)}</code>"


def decision_html(decision: Decision) -> str:
    """Render one decision as an HTML card for a notebook."""
    d = decision
    recorded = (
        f"sequence {d.sequence}, recorded {escape(d.recorded_at.isoformat())}"
        if d.sequence is not None and d.recorded_at is not None
        else "not recorded"
    )
    parts = [
        f"<div><p><strong>{escape(d.title)}</strong> {_code(d.id)} "
        f"<small>[{escape(d.domain.value)}, {escape(d.status.value)}] "
        f"project {_code(d.project_id)}, by {escape(d.agent)}, {recorded}</small></p>",
        f'<p style="white-space:pre-wrap">{escape(d.statement)}</p>',
    ]
    if d.rationale:
        parts.append(
            f'<p style="white-space:pre-wrap"><em>Rationale:</em> {escape(d.rationale)}</p>'
        )
    if d.attributes:
        rows = "".join(
            f"<tr><th>{escape(name)}</th><td>{escape(value_text(value))}</td></tr>"
            for name, value in sorted(d.attributes.items())
        )
        parts.append(f"<table><tbody>{rows}</tbody></table>")
    if d.evidence:
        items = "".join(
            f"<li>{escape(e.kind.value)}: {escape(e.ref)}"
            + (f", {escape(e.title)}" if e.title else "")
            + (f" ({escape(e.locator)})" if e.locator else "")
            + (f": <q>{escape(e.quote)}</q>" if e.quote else "")
            + "</li>"
            for e in d.evidence
        )
        parts.append(f"<p><em>Evidence</em></p><ul>{items}</ul>")
    if d.links:
        links = ", ".join(f"{escape(link.kind.value)} {_code(link.target)}" for link in d.links)
        parts.append(f"<p><em>Links:</em> {links}</p>")
    if d.tags:
        parts.append(f"<p><em>Tags:</em> {escape(', '.join(sorted(d.tags)))}</p>")
    if d.elements:
        parts.append(f"<p><em>Elements:</em> {', '.join(_code(e) for e in sorted(d.elements))}</p>")
    if d.session_id:
        parts.append(f"<p><em>Session:</em> {_code(d.session_id)}</p>")
    parts.append("</div>")
    return "".join(parts)
