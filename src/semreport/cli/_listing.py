"""``semreport projects``, ``sessions`` and ``show``: what a storage holds, listed and shown."""

from __future__ import annotations

from typing import Any

import click
from rich.console import Group
from rich.table import Table
from rich.text import Text

from semreport.cli._app import (
    cli,
    names_options,
    opened,
    print_json,
    project_option,
    stdout,
    url_option,
)
from semreport.cli._output import format_option, id_column, print_rows, resolve_format
from semreport.domain import DecisionDetail, ProjectSummary, SessionSummary
from semreport.wire import to_wire

__all__ = ["projects", "sessions", "show"]

PROJECT_COLUMNS = ("project_id", "decisions", "latest_sequence", "sessions")
SESSION_COLUMNS = ("id", "title", "started_at", "ended_at", "turns", "participants")


@cli.command()
@format_option
@url_option
def projects(*, fmt: str | None, as_json: bool, url: str) -> None:
    """List the projects in the storage, with their decision and session counts.

    For example: semreport projects --format csv > projects.csv
    """
    with opened(url) as sr:
        listed = sr.projects()
    _emit(listed, PROJECT_COLUMNS, resolve_format(fmt, as_json), "Projects", id_name="project_id")


@cli.command()
@names_options
@project_option
@format_option
@url_option
def sessions(*, project_id: str, fmt: str | None, as_json: bool, url: str) -> None:
    """List a project's legacy sessions: id, title, start and end, turns, participants.

    Export one with `semreport export-session ID`. For example:
    semreport sessions -p lindenhof
    """
    with opened(url) as sr:
        listed = sr.sessions(project_id)
    _emit(
        listed,
        SESSION_COLUMNS,
        resolve_format(fmt, as_json),
        f"Sessions of {project_id}",
        id_name="id",
    )


def _emit(
    items: list[ProjectSummary] | list[SessionSummary],
    columns: tuple[str, ...],
    fmt: str,
    title: str,
    *,
    id_name: str,
) -> None:
    wires: list[dict[str, Any]] = [to_wire(item) for item in items]
    if fmt == "json":
        print_json(wires)
        return
    rows = [[wire.get(column) for column in columns] for wire in wires]
    if fmt != "table":
        print_rows(columns, rows, fmt)
        return
    table = Table(title=title, expand=False)
    for column in columns:
        if column == id_name:
            id_column(table, column, [wire.get(column) for wire in wires])
        elif column in ("title",):
            table.add_column(column, max_width=60)
        else:
            numeric = column in ("decisions", "latest_sequence", "sessions", "turns")
            table.add_column(
                column, justify="right" if numeric or column == "participants" else "left"
            )
    for row in rows:
        table.add_row(*("" if value is None else str(value) for value in row))
    table.caption = f"{len(rows)} listed"
    stdout().print(table)


@cli.command()
@names_options
@project_option
@click.argument("decision_id")
@format_option
@url_option
def show(*, project_id: str, decision_id: str, fmt: str | None, as_json: bool, url: str) -> None:
    """Show one decision whole: statement, rationale, attributes, evidence and links.

    Links are shown both ways (the decisions it links to and those linking to
    it), and so is whether, and by which decisions, it is superseded. For
    example: semreport show -p lindenhof LH-MAT-006
    """
    with opened(url) as sr:
        detail = sr.decision_detail(project_id, decision_id)
    chosen = resolve_format(fmt, as_json)
    if chosen == "json":
        print_json({**to_wire(detail), "superseded_by": list(detail.superseded_by)})
    elif chosen == "table":
        stdout().print(_detail_view(detail))
    else:
        print_rows(("field", "value"), _detail_rows(detail), chosen)


def _detail_rows(detail: DecisionDetail) -> list[tuple[str, object]]:
    """The decision as field/value pairs: one line each, for CSV and TSV."""
    decision = detail.decision
    rows: list[tuple[str, object]] = [
        ("id", decision.id),
        ("project_id", decision.project_id),
        ("sequence", decision.sequence),
        ("recorded_at", to_wire(decision).get("recorded_at")),
        ("title", decision.title),
        ("domain", decision.domain.value),
        ("status", decision.status.value),
        ("agent", decision.agent),
        ("session_id", decision.session_id),
        ("statement", decision.statement),
        ("rationale", decision.rationale),
        ("tags", ", ".join(sorted(decision.tags))),
        ("elements", ", ".join(sorted(decision.elements))),
    ]
    rows.extend((f"attributes.{name}", value) for name, value in decision.attributes.items())
    for position, evidence in enumerate(decision.evidence):
        parts = [evidence.kind.value, evidence.ref, evidence.title]
        parts.extend(part for part in (evidence.locator, evidence.quote) if part)
        rows.append((f"evidence[{position}]", " | ".join(p for p in parts if p)))
    rows.extend((f"links.{link.kind.value}", link.target) for link in decision.links)
    rows.extend((f"linked_from.{link.kind.value}", link.source) for link in detail.incoming)
    rows.append(("superseded_by", ", ".join(detail.superseded_by)))
    return rows


def _detail_view(detail: DecisionDetail) -> Group:
    decision = detail.decision
    parts: list[Any] = []
    head = Table(title=f"{decision.id}  {decision.title}", show_header=False, expand=False)
    head.add_column("field", style="bold")
    head.add_column("value", max_width=100)
    for field, value in _detail_rows(detail)[:13]:
        if value not in (None, ""):
            head.add_row(field, str(value))
    parts.append(head)
    if detail.superseded:
        parts.append(Text(f"SUPERSEDED by {', '.join(detail.superseded_by)}", style="bold yellow"))
    else:
        parts.append(Text("not superseded", style="green"))
    if decision.attributes:
        attributes = Table(title="Attributes", expand=False)
        attributes.add_column("attribute")
        attributes.add_column("value", justify="right")
        for name, value in decision.attributes.items():
            attributes.add_row(name, str(value))
        parts.append(attributes)
    if decision.evidence:
        evidence = Table(title="Evidence", expand=False)
        for column in ("kind", "ref", "title", "locator", "quote"):
            evidence.add_column(column, max_width=60 if column == "quote" else None)
        for item in decision.evidence:
            evidence.add_row(
                item.kind.value, item.ref, item.title, item.locator or "", item.quote or ""
            )
        parts.append(evidence)
    links = Table(title="Links", expand=False)
    links.add_column("direction")
    links.add_column("kind")
    id_column(
        links,
        "decision",
        [link.target for link in decision.links] + [link.source for link in detail.incoming],
    )
    links.add_column("title", max_width=60)
    for link in decision.links:
        title = detail.titles.get(link.target, "(not in the project)")
        links.add_row("to", link.kind.value, link.target, title)
    for incoming in detail.incoming:
        links.add_row("from", incoming.kind.value, incoming.source, detail.titles[incoming.source])
    if not decision.links and not detail.incoming:
        links.caption = "no links either way"
    parts.append(links)
    return Group(*parts)
