"""Output for people and for machines: ``--format table|json|csv|tsv`` on every listing command.

The default is a table when standard output is a terminal and TSV when it is
piped or redirected: one record a line, tab-separated, never wrapped. Tables
never break an id, a cursor or a hash across lines: such columns are as wide
as their longest value.
"""

from __future__ import annotations

import csv
import io
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, ParamSpec, TypeVar

import click
from rich.table import Table

from semreport.domain import Decision, DecisionNotFound
from semreport.service import SemReport
from semreport.wire import to_wire

__all__ = [
    "FORMATS",
    "format_option",
    "hit_rows",
    "id_column",
    "marked_highlight",
    "print_rows",
    "resolve_format",
    "wire_rows",
]

P = ParamSpec("P")
R = TypeVar("R")

FORMATS: Final = ("table", "json", "csv", "tsv")
"""The output formats of the listing commands."""


def format_option(command: Callable[P, R]) -> Callable[P, R]:
    """Add ``--format`` and its synonym ``--json`` to a listing command."""
    command = click.option(
        "--json",
        "as_json",
        is_flag=True,
        help="The same as --format json.",
    )(command)
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(FORMATS),
        default=None,
        help="table (for people), json (the wire form), csv or tsv (one record a line). "
        "Default: table on a terminal, tsv when piped.",
    )(command)


def resolve_format(fmt: str | None, as_json: bool) -> str:
    """The format to print in: ``--json`` wins, then ``--format``, then the terminal decides."""
    if as_json:
        return "json"
    if fmt is not None:
        return fmt
    return "table" if sys.stdout.isatty() else "tsv"


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def _tsv_cell(value: object) -> str:
    # One record a line, one field a column: tabs and line breaks inside a value become spaces.
    return " ".join(_cell(value).replace("\t", " ").splitlines())


def print_rows(
    columns: Sequence[str], rows: Iterable[Sequence[object]], fmt: str, *, header: bool = True
) -> None:
    """Print rows as CSV or TSV (a header line, then one line per row) on standard output."""
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        if header:
            writer.writerow(columns)
        writer.writerows([_cell(v) for v in row] for row in rows)
        click.echo(buffer.getvalue(), nl=False)
        return
    lines = ["\t".join(columns)] if header else []
    lines.extend("\t".join(_tsv_cell(v) for v in row) for row in rows)
    if lines:
        click.echo("\n".join(lines))


def id_column(table: Table, name: str, values: Iterable[object], **options: Any) -> None:
    """Add a column of ids (or cursors, hashes) that is never wrapped nor cut."""
    width = max([len(_cell(v)) for v in values] + [len(name)])
    table.add_column(name, no_wrap=True, min_width=width, overflow="ignore", **options)


def wire_rows(items: Iterable[Mapping[str, Any]], columns: Sequence[str]) -> list[list[object]]:
    """Pick ``columns`` out of wire-form mappings, in order."""
    return [[item.get(column) for column in columns] for item in items]


def marked_highlight(hit: Mapping[str, Any], before: str = "[", after: str = "]") -> str:
    """A wire hit's best highlight, the matched words between ``before`` and ``after``."""
    shown = hit.get("highlights") or []
    if not shown:
        return ""
    fragment = str(shown[0].get("fragment", ""))
    out = []
    last = 0
    for start, end in shown[0].get("spans", []):
        out.append(fragment[last:start])
        out.append(f"{before}{fragment[start:end]}{after}")
        last = end
    out.append(fragment[last:])
    return "".join(out)


def hit_rows(sr: SemReport, project_id: str, result: object) -> list[list[object]]:
    """One row per hit: rank, decision id, score, title, domain, status, superseded."""
    rows: list[list[object]] = []
    for rank, hit in enumerate(to_wire(result).get("hits", []), start=1):
        try:
            decision: Decision | None = sr.decision(project_id, hit["decision_id"])
        except DecisionNotFound:  # pragma: no cover - a hit always names a stored decision
            decision = None
        rows.append(
            [
                rank,
                hit["decision_id"],
                hit.get("score"),
                hit.get("title", ""),
                decision.domain.value if decision else "",
                decision.status.value if decision else "",
                bool(hit.get("superseded")),
                marked_highlight(hit),
            ]
        )
    return rows
