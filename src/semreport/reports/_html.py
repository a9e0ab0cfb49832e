r"""The HTML export: one self-contained page rendered with jinja2 (autoescaping on).

The page has inline CSS only (allowed by its hash in a Content-Security-Policy
meta tag that forbids everything else), no executable script and no external
reference. The report JSON is embedded in a non-executed
``<script type="application/json" id="semreport-report">`` block, with ``<``,
``>``, ``&``, U+2028 and U+2029 written as ``\u`` escapes so that no record
text can end the block or open a comment. The export time appears in the page
only, outside the hashed report.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import itertools
from collections.abc import Iterable
from datetime import datetime
from html import escape
from importlib.metadata import PackageNotFoundError, version
from importlib.resources import files
from typing import Any, Final

import attrs
import jinja2
from markupsafe import Markup

from semreport.canonical import canonical_json_fast
from semreport.domain import EvidenceKind
from semreport.reports._digest import Digest
from semreport.reports._model import EvidenceEntry, Report, report_html
from semreport.reports._views import page_view
from semreport.wire import format_datetime

__all__ = ["REPORT_BLOCK_ID", "ReportExport", "embed_json", "library_version", "render_html"]

REPORT_BLOCK_ID: Final = "semreport-report"
"""The ``id`` of the script element holding the report JSON."""

_EVIDENCE_TITLES: Final = {
    EvidenceKind.REGULATION: "Regulations",
    EvidenceKind.CATALOGUE_ITEM: "Catalogue items",
    EvidenceKind.COST_LINE: "Cost lines",
    EvidenceKind.DOCUMENT: "Documents",
}
_JSON_ESCAPES: Final = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)


@attrs.frozen
class ReportExport:
    """An exported report: the HTML page, its digest and the report it shows.

    Attributes:
        html: The self-contained page (UTF-8 text).
        digest: The report's record digest.
        report: The report the page embeds.
        exported_at: When the page was rendered (shown in the page, not hashed).
        media_type: ``text/html; charset=utf-8``.
        filename: A suggested file name.
    """

    html: str = attrs.field(repr=lambda page: f"<{len(page)} characters>")
    digest: Digest = attrs.field(repr=False)
    report: Report
    exported_at: datetime
    media_type: str = "text/html; charset=utf-8"
    filename: str = "report.html"

    def _repr_html_(self) -> str:
        """The report's notebook view, with the export time and file name."""
        return (
            f"<div><p><small>Exported {escape(format_datetime(self.exported_at))} as "
            f"<code>{escape(self.filename)}</code> ({len(self.html)} characters).</small></p>"
            f"{report_html(self.report)}</div>"
        )


def library_version() -> str:
    """The installed semreport version (named in the page's ``generator`` meta tag)."""
    try:
        return version("semreport")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0.0.0"


def embed_json(text: str) -> str:
    """Escape JSON text for a ``<script type="application/json">`` block.

    The result parses to the same value, and cannot contain ``</script``,
    ``<!--`` or a line terminator JavaScript would reject.
    """
    return text.translate(_JSON_ESCAPES)


@functools.cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("semreport.reports", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["timestamp"] = lambda value: "" if value is None else format_datetime(value)
    env.filters["attribute_value"] = _attribute_value
    env.filters["by_kind"] = _by_kind
    return env


def _by_kind(entries: Iterable[EvidenceEntry]) -> list[tuple[EvidenceKind, list[EvidenceEntry]]]:
    """Group an evidence index by kind, keeping its order (jinja's groupby would sort)."""
    return [(kind, list(group)) for kind, group in itertools.groupby(entries, key=lambda e: e.kind)]


def _attribute_value(value: Any) -> str:
    if isinstance(value, str):
        return value
    return canonical_json_fast(value).decode("utf-8")  # numbers and booleans as in the JSON


@functools.cache
def _css() -> str:
    return files("semreport.reports").joinpath("templates/report.css").read_text("utf-8")


def _csp(css: str) -> str:
    digest = base64.b64encode(hashlib.sha256(css.encode("utf-8")).digest()).decode("ascii")
    return (
        "default-src 'none'; "
        f"style-src 'sha256-{digest}'; "
        "img-src 'none'; font-src 'none'; connect-src 'none'; script-src 'none'; "
        "object-src 'none'; base-uri 'none'; form-action 'none'"
    )


def render_html(report: Report, *, exported_at: datetime, version: str | None = None) -> str:
    """Render a report as a self-contained HTML page.

    Args:
        report: The report.
        exported_at: The export time shown in the page (not part of the report).
        version: The library version named in the ``generator`` meta tag
            (this library's version by default; :func:`~semreport.verify`
            checks a page only against what this version renders).
    """
    css = _css()
    superseded_by: dict[str, list[str]] = {}
    for record in report.records:
        for target in record.decision.supersedes:
            superseded_by.setdefault(target, []).append(record.decision.id)
    template = _environment().get_template("report.html.j2")
    return template.render(
        report=report,
        summary=report.summary,
        digest=report.digest,
        superseded_by=superseded_by,
        view=page_view(report),
        evidence_titles=_EVIDENCE_TITLES,
        exported_at=format_datetime(exported_at),
        version=library_version() if version is None else version,
        css=Markup(css),  # noqa: S704 - the package's own stylesheet, not input
        csp=Markup(_csp(css)),  # noqa: S704 - our own policy; it holds no double quote
        report_json=Markup(embed_json(report.to_json())),  # noqa: S704 - escaped by embed_json
    )
