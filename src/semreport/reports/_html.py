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
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from html import escape
from importlib.metadata import PackageNotFoundError, version
from importlib.resources import files
from typing import Any, Final

import attrs
import jinja2
from markupsafe import Markup

from semreport.canonical import canonical_json_fast, record_bytes
from semreport.domain import EvidenceKind
from semreport.reports._assemble import ReportParts
from semreport.reports._digest import Digest
from semreport.reports._model import (
    EvidenceEntry,
    Report,
    ReportRecord,
    ReportSection,
    ReportSummary,
    json_head,
    json_tail,
    record_item,
    report_html,
)
from semreport.reports._views import PageView, page_view
from semreport.wire import format_datetime

__all__ = [
    "REPORT_BLOCK_ID",
    "Page",
    "ReportExport",
    "embed_json",
    "library_version",
    "page_pieces",
    "render_html",
    "report_json_items",
]

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


@attrs.frozen
class Page:
    """What the page shows besides the records themselves, known before the first record.

    Attributes:
        project_id: The project.
        as_of_sequence: The last sequence number the report includes.
        summary: The report's summary.
        sections: The report's sections.
        digest: The record digest.
        record_count: How many records the page lists.
        view: The charts, totals and cost lines.
        superseded_by: For each superseded id, the ids superseding it, in order.
        json_head: The canonical report JSON up to its first record.
        json_tail: The canonical report JSON after its last record.
    """

    project_id: str
    as_of_sequence: int
    summary: ReportSummary
    sections: tuple[ReportSection, ...]
    digest: Digest
    record_count: int
    view: PageView
    superseded_by: Mapping[str, tuple[str, ...]]
    json_head: bytes
    json_tail: bytes

    @classmethod
    def of(cls, parts: ReportParts, view: PageView, *, record_count: int | None = None) -> Page:
        """The page of a report's parts and its view."""
        return cls(
            project_id=parts.project_id,
            as_of_sequence=parts.as_of_sequence,
            summary=parts.summary,
            sections=parts.sections,
            digest=parts.digest,
            record_count=len(parts.leaves) if record_count is None else record_count,
            view=view,
            superseded_by=_superseded_by(parts.supersedes.items()),
            json_head=json_head(parts.project_id, parts.as_of_sequence, parts.digest),
            json_tail=parts.json_tail,
        )

    @classmethod
    def of_report(cls, report: Report) -> Page:
        """The page of an assembled report."""
        return cls(
            project_id=report.project_id,
            as_of_sequence=report.as_of_sequence,
            summary=report.summary,
            sections=report.sections,
            digest=report.digest,
            record_count=len(report.records),
            view=page_view(report),
            superseded_by=_superseded_by(
                (record.decision.id, record.decision.supersedes) for record in report.records
            ),
            json_head=json_head(report.project_id, report.as_of_sequence, report.digest),
            json_tail=json_tail(report.summary, report.sections),
        )


def _superseded_by(
    supersedes: Iterable[tuple[str, Iterable[str]]],
) -> dict[str, tuple[str, ...]]:
    """Per superseded decision, the ids of the decisions superseding it, in the order given."""
    found: dict[str, list[str]] = {}
    for source, targets in supersedes:
        for target in targets:
            found.setdefault(target, []).append(source)
    return {target: tuple(sources) for target, sources in found.items()}


def _report_json(page: Page, items: Iterable[bytes]) -> Iterator[Markup]:
    """The embedded report JSON, a record at a time, escaped for its data block."""
    yield Markup(embed_json(page.json_head.decode("utf-8")))  # noqa: S704 - escaped
    for position, item in enumerate(items):
        text = item.decode("utf-8")
        yield Markup(embed_json("," + text if position else text))  # noqa: S704 - escaped
    yield Markup(embed_json(page.json_tail.decode("utf-8")))  # noqa: S704 - escaped


def page_pieces(
    page: Page,
    records: Iterable[ReportRecord],
    json_items: Iterable[bytes],
    *,
    exported_at: datetime,
    version: str | None = None,
) -> Iterator[str]:
    """Render the page a piece at a time; the records are read only when reached.

    Args:
        page: Everything but the records.
        records: The records, in sequence order, for the decisions part.
        json_items: The records' members of the canonical ``records`` array,
            in sequence order, for the embedded report JSON.
        exported_at: The export time shown in the page.
        version: The library version named in the page (this one by default).
    """
    css = _css()
    template = _environment().get_template("report.html.j2")
    return template.generate(
        report=page,
        summary=page.summary,
        digest=page.digest,
        superseded_by=page.superseded_by,
        view=page.view,
        record_count=page.record_count,
        records=records,
        evidence_titles=_EVIDENCE_TITLES,
        exported_at=format_datetime(exported_at),
        version=library_version() if version is None else version,
        css=Markup(css),  # noqa: S704 - the package's own stylesheet, not input
        csp=Markup(_csp(css)),  # noqa: S704 - our own policy; it holds no double quote
        report_json=_report_json(page, json_items),
    )


def report_json_items(report: Report) -> Iterator[bytes]:
    """The members of a report's canonical ``records`` array, one per record."""
    for record in report.records:
        yield record_item(record_bytes(record.decision), record.sha256)


def render_html(report: Report, *, exported_at: datetime, version: str | None = None) -> str:
    """Render a report as a self-contained HTML page.

    Args:
        report: The report.
        exported_at: The export time shown in the page (not part of the report).
        version: The library version named in the ``generator`` meta tag
            (this library's version by default; :func:`~semreport.verify`
            checks a page only against what this version renders).
    """
    pieces = page_pieces(
        Page.of_report(report),
        report.records,
        report_json_items(report),
        exported_at=exported_at,
        version=version,
    )
    return "".join(pieces)
