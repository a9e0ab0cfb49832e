"""The commands that call one facade method each: search, reports, verification, exports."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import click

import semreport
from semreport.cli._app import (
    EXIT_FAILED,
    cli,
    json_option,
    names_options,
    opened,
    parse_json_option,
    print_json,
    project_option,
    stdout,
    url_option,
)
from semreport.cli._output import (
    format_option,
    hit_rows,
    print_rows,
    resolve_format,
    wire_rows,
)
from semreport.cli._render import (
    digest_table,
    explanation_table,
    hits_table,
    next_page,
    signals_tables,
    verification_lines,
)
from semreport.wire import to_wire

__all__ = [
    "export_report",
    "export_session",
    "find",
    "report",
    "signals",
    "similar",
    "verify",
]

SESSION_FORMATS = ("json", "pdf", "graph")
SIGNAL_COLUMNS = ("name", "kind", "find_weight", "similar_weight", "coverage", "description")
HIT_COLUMNS = (
    "rank",
    "decision_id",
    "score",
    "title",
    "domain",
    "status",
    "superseded",
    "highlight",
)


@cli.command()
@names_options
@project_option
@format_option
@url_option
def signals(*, project_id: str, fmt: str | None, as_json: bool, url: str) -> None:
    """List the search signals for a project, with coverage and value ranges.

    As csv or tsv: one line per signal (name, kind, weights, coverage,
    description); the facet values and numeric ranges are in the table and
    json formats.
    """
    with opened(url) as sr:
        catalogue = sr.signals(project_id)
    chosen = resolve_format(fmt, as_json)
    if chosen == "json":
        print_json(catalogue)
        return
    if chosen != "table":
        print_rows(
            SIGNAL_COLUMNS, wire_rows(to_wire(catalogue).get("signals", []), SIGNAL_COLUMNS), chosen
        )
        return
    console = stdout()
    for table in signals_tables(catalogue):
        console.print(table)


def _pairs(values: tuple[str, ...], option: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for value in values:
        name, sep, rest = value.partition("=")
        if not sep or not name:
            raise click.BadParameter(f"expected NAME=VALUE, got {value!r}", param_hint=option)
        out[name] = rest
    return out


def _float(text: str, option: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise click.BadParameter(f"{text!r} is not a number", param_hint=option) from None


def _range(text: str, option: str) -> dict[str, float]:
    low, sep, high = text.partition("..")
    if not sep:
        raise click.BadParameter(
            f"expected MIN..MAX (either may be empty), got {text!r}", param_hint=option
        )
    bounds: dict[str, float] = {}
    if low:
        bounds["min"] = _float(low, option)
    if high:
        bounds["max"] = _float(high, option)
    return bounds


def _show_hits(
    project_id: str, result: Any, *, title: str, explain: int, fmt: str, url: str
) -> None:
    for warning in to_wire(result).get("warnings", []):
        # Why a page may be empty goes to standard error, whatever the format.
        click.echo(f"semreport: warning: {warning['message']}", err=True)
    if fmt == "json":
        print_json(result)
        return
    if fmt != "table":
        with opened(url) as sr:
            print_rows(HIT_COLUMNS, hit_rows(sr, project_id, result), fmt)
        more = next_page(result)
        if more:
            # The data stays on standard output; how to go on goes to standard error.
            click.echo(more, err=True)
        return
    console = stdout()
    with opened(url) as sr:
        console.print(hits_table(sr, project_id, result, title))
    more = next_page(result)
    if more:
        console.print(more, soft_wrap=True, style="dim")
    for hit in to_wire(result).get("hits", [])[:explain]:
        console.print(explanation_table(hit))


def _paging(command: Any) -> Any:
    command = click.option(
        "--explain",
        type=click.IntRange(0, 100),
        default=3,
        show_default=True,
        help="Show the full explanation of the first N hits.",
    )(command)
    command = click.option("--cursor", help="Continue from a previous page's next cursor.")(command)
    return click.option(
        "--limit",
        type=click.IntRange(1, 100),
        default=None,
        help="Hits per page (1-100; the library's default is 10).",
    )(command)


@cli.command()
@names_options
@project_option
@click.argument("text", required=False)
@click.option("--domain", multiple=True, help="Keep decisions of this domain (repeatable).")
@click.option("--status", multiple=True, help="Keep decisions of this status, e.g. superseded.")
@click.option("--agent", multiple=True, help="Keep decisions made by this agent (repeatable).")
@click.option("--tag", multiple=True, help="Keep decisions carrying this tag (repeatable).")
@click.option(
    "--attr",
    multiple=True,
    metavar="NAME=MIN..MAX",
    help="Keep decisions whose numeric attribute lies in a range, e.g. cost_eur=..500000.",
)
@click.option(
    "--near",
    multiple=True,
    metavar="NAME=VALUE",
    help="Prefer decisions whose numeric attribute is close to a value, e.g. u_value_w_m2k=0.15.",
)
@click.option(
    "--superseded",
    type=click.Choice(["demote", "exclude", "include"]),
    help="How to treat superseded decisions (the library's default: demote).",
)
@click.option("--weight", multiple=True, metavar="SIGNAL=W", help="Override a signal's weight.")
@click.option(
    "--criteria",
    metavar="JSON|@FILE",
    help="Criteria in the wire form; the options above are merged over them.",
)
@_paging
@format_option
@url_option
def find(
    *,
    project_id: str,
    text: str | None,
    domain: tuple[str, ...],
    status: tuple[str, ...],
    agent: tuple[str, ...],
    tag: tuple[str, ...],
    attr: tuple[str, ...],
    near: tuple[str, ...],
    superseded: str | None,
    weight: tuple[str, ...],
    criteria: str | None,
    limit: int | None,
    cursor: str | None,
    explain: int,
    fmt: str | None,
    as_json: bool,
    url: str,
) -> None:
    """Search a project's decisions by criteria, with every score explained.

    TEXT is free text ranked with BM25. --domain, --status, --agent, --tag and
    --attr are hard filters: they never add to a score. --near and --weight
    shape the ranking. For example:
    semreport find -p lindenhof "fire resistance of timber floors" --domain regulation
    """
    query: dict[str, Any] = dict(parse_json_option(criteria, "--criteria") or {})
    if text:
        query["text"] = text
    filters: dict[str, Any] = dict(query.get("filters") or {})
    for key, values in (("domain", domain), ("status", status), ("agent", agent), ("tags", tag)):
        if values:
            filters[key] = list(values)
    if attr:
        ranges = dict(filters.get("attributes") or {})
        for name, bounds in _pairs(attr, "--attr").items():
            ranges[name] = _range(bounds, "--attr")
        filters["attributes"] = ranges
    if filters:
        query["filters"] = filters
    if near:
        targets = dict(query.get("near") or {})
        targets.update({k: _float(v, "--near") for k, v in _pairs(near, "--near").items()})
        query["near"] = targets
    if superseded:
        query["superseded"] = superseded
    if weight:
        weights = dict(query.get("weights") or {})
        weights.update({k: _float(v, "--weight") for k, v in _pairs(weight, "--weight").items()})
        query["weights"] = weights
    _add_paging(query, limit, cursor)
    with opened(url) as sr:
        result = sr.find(project_id, query)
    title = f"find {text!r}" if text else "find"
    _show_hits(
        project_id,
        result,
        title=title,
        explain=explain,
        fmt=resolve_format(fmt, as_json),
        url=url,
    )


@cli.command()
@names_options
@project_option
@click.argument("decision_id", required=False)
@click.option(
    "--exemplar",
    metavar="JSON|@FILE",
    help="An inline partial decision to resemble, instead of DECISION_ID.",
)
@_paging
@format_option
@url_option
def similar(
    *,
    project_id: str,
    decision_id: str | None,
    exemplar: str | None,
    limit: int | None,
    cursor: str | None,
    explain: int,
    fmt: str | None,
    as_json: bool,
    url: str,
) -> None:
    """Find the decisions that most resemble DECISION_ID (or an inline exemplar).

    For example: semreport similar -p lindenhof LH-MAT-006
    """
    if (decision_id is None) == (exemplar is None):
        raise click.UsageError("give either DECISION_ID or --exemplar")
    query: dict[str, Any] = (
        {"decision_id": decision_id}
        if decision_id is not None
        else {"decision": parse_json_option(exemplar, "--exemplar")}
    )
    _add_paging(query, limit, cursor)
    with opened(url) as sr:
        result = sr.similar(project_id, query)
    title = f"similar to {decision_id}" if decision_id else "similar to the exemplar"
    _show_hits(
        project_id,
        result,
        title=title,
        explain=explain,
        fmt=resolve_format(fmt, as_json),
        url=url,
    )


@cli.command()
@names_options
@project_option
@click.option(
    "--out",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the JSON to this file instead of standard output.",
)
@url_option
def report(*, project_id: str, out: Path | None, url: str) -> None:
    """Print a project's report (schema semreport.report/1) as JSON.

    The report is assembled from Decision Memory only, as of its latest
    sequence number: the same records always give the same bytes.
    """
    with opened(url) as sr:
        assembled = sr.report(project_id)
    text = json.dumps(to_wire(assembled), ensure_ascii=False, indent=2) + "\n"
    if out is None:
        click.echo(text, nl=False)
    else:
        out.write_text(text, encoding="utf-8")
        click.echo(f"wrote {out}", err=True)


@cli.command("export-report")
@names_options
@project_option
@click.option(
    "--out",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The HTML file to write (default: PROJECT-report.html).",
)
@json_option
@url_option
def export_report(*, project_id: str, out: Path | None, as_json: bool, url: str) -> None:
    """Write a project's report as self-contained HTML and print its record digest.

    The HTML embeds the report JSON, so `semreport verify FILE` can check it
    without the storage. The page is written as it is rendered, reading the
    records in passes, so a large report never sits in memory whole.
    """
    target = out if out is not None else Path(f"{project_id}-report.html")
    with opened(url) as sr:
        stream = sr.stream_report(project_id)
        # Written beside the target, then renamed: a failure leaves no half page behind.
        with tempfile.NamedTemporaryFile(
            "wb", dir=target.parent, prefix=f".{target.name}.", suffix=".part", delete=False
        ) as part:
            try:
                stream.write_to(part)
            except BaseException:
                part.close()
                Path(part.name).unlink(missing_ok=True)
                raise
        Path(part.name).replace(target)
    if as_json:
        print_json({"html": str(target), "digest": to_wire(stream.digest)})
        return
    console = stdout()
    console.print(f"wrote {target}", soft_wrap=True)
    console.print(digest_table(stream.digest), soft_wrap=True)


@cli.command()
@click.argument("document", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--live",
    is_flag=True,
    help="Also compare the records with what the storage at --url holds now.",
)
@json_option
@url_option
def verify(*, document: Path, live: bool, as_json: bool, url: str) -> None:
    """Verify an exported report (HTML or JSON) against its record digest.

    Exit status 0 only when every check matches; 1 with an account of what
    does not (which record or field, and why).
    """
    text = document.read_text(encoding="utf-8")
    if live:
        with opened(url) as sr:
            verification = semreport.verify(text, memory=sr.storage)
    else:
        verification = semreport.verify(text)
    ok, account = verification_lines(verification)
    if as_json:
        print_json(verification)
    else:
        stdout().print(account)
    if not ok:
        raise click.exceptions.Exit(EXIT_FAILED)


@cli.command("export-session")
@names_options
@click.argument("session_id")
@click.option(
    "--format",
    "-f",
    "fmt",
    type=click.Choice([*SESSION_FORMATS, "all"]),
    default="json",
    show_default=True,
    help="The export format; all writes the three.",
)
@click.option(
    "--graph-format",
    type=click.Choice(["node-link", "graphml"]),
    default="node-link",
    show_default=True,
    help="How the graph export is serialised.",
)
@click.option(
    "--out",
    "-o",
    type=click.Path(path_type=Path),
    default=Path(),
    show_default=True,
    help="A directory (each export gets its suggested file name) or, for one format, a "
    "file name with a suffix.",
)
@url_option
def export_session(*, session_id: str, fmt: str, graph_format: str, out: Path, url: str) -> None:
    """Export a legacy session as json, pdf or graph (node-link JSON or GraphML)."""
    formats = SESSION_FORMATS if fmt == "all" else (fmt,)
    with opened(url) as sr:
        exports = [sr.export_session(session_id, one, graph_format=graph_format) for one in formats]
    # A path that is a file, or names one (has a suffix), takes a single export;
    # anything else is a directory that receives each export under its suggested name.
    as_file = len(exports) == 1 and (out.is_file() or (not out.is_dir() and bool(out.suffix)))
    for export in exports:
        target = out if as_file else out / export.filename
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(export.content)
        click.echo(f"wrote {target} ({export.media_type}, {len(export.content):,} bytes)")


def _add_paging(query: dict[str, Any], limit: int | None, cursor: str | None) -> None:
    """Put ``--limit`` and ``--cursor`` into a find or similar request, when given."""
    if limit is not None:
        query["limit"] = limit
    if cursor:
        query["cursor"] = cursor
