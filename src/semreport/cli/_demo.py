"""``semreport demo``: the sample project through every use case, in a few seconds."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Final

import click
from rich.console import Console
from rich.rule import Rule
from rich.table import Table

import semreport
from semreport import sample
from semreport.cli._app import EXIT_FAILED, cli, opened, stdout
from semreport.cli._render import (
    digest_table,
    explanation_table,
    hits_table,
    signals_tables,
    verification_lines,
)
from semreport.service import SemReport
from semreport.wire import to_wire

__all__ = ["FINDS", "SIMILAR_TO", "demo"]

FINDS: Final[tuple[tuple[str, dict[str, Any]], ...]] = (
    (
        "Which decisions set the fire resistance of the timber floors?",
        {"text": "fire resistance of CLT timber floors", "limit": 5},
    ),
    (
        "Embodied carbon decisions of the lifecycle agent",
        {"text": "embodied carbon", "filters": {"domain": ["lifecycle"]}, "limit": 5},
    ),
    (
        "Façade costs up to €400,000",
        {
            "text": "façade cladding",
            "filters": {"domain": ["cost"], "attributes": {"cost_eur": {"max": 400_000}}},
            "limit": 5,
        },
    ),
)
"""The demo's searches: a question, and the criteria that answer it."""

SIMILAR_TO: Final = "LH-MAT-006"
"""The decision the demo finds resemblances of (the REI 90 CLT floor build-up)."""


@cli.command()
@click.option(
    "--out",
    "-o",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("semreport-demo"),
    show_default=True,
    help="The directory for the SQLite file, the report and the session exports.",
)
def demo(*, out: Path) -> None:
    """Load the sample project into SQLite and run every command on it.

    The sample is Lindenhof, a six-storey timber-hybrid block of flats: 97
    decisions by six agents and two legacy sessions. The demo shows the search
    signals, a few searches and a similarity search with their explanations,
    writes the report as JSON and as verifiable HTML, verifies the HTML,
    exports a session as json, pdf and graph, and prints where everything is.
    It needs no network.
    """
    started = time.perf_counter()
    console = stdout()
    out.mkdir(parents=True, exist_ok=True)
    out = out.resolve()
    database = out / "lindenhof.db"
    for stale in (database, Path(f"{database}-wal"), Path(f"{database}-shm")):
        stale.unlink(missing_ok=True)
    url = f"sqlite:///{database}"
    written: list[tuple[str, Path]] = [("Decision Memory (SQLite)", database)]
    with opened(url, create=True) as sr:
        _load(console, sr, database)
        _search(console, sr)
        report_html = _reports(console, sr, out, written)
        ok = _verify(console, sr, report_html)
        _sessions(console, sr, out, written)
    console.print(Rule("Where everything is"))
    table = Table(show_header=False, expand=False)
    for what, path in written:
        table.add_row(what, str(path))
    console.print(table)
    project = sample.PROJECT_ID
    console.print(
        f"Done in {time.perf_counter() - started:.1f} s. Try the commands on the same data:\n"
        f"  semreport projects --url {url}\n"
        f"  semreport show --url {url} -p {project} LH-MAT-006\n"
        f'  semreport find --url {url} -p {project} "acoustic floor build-up"\n'
        f"  semreport similar --url {url} -p {project} LH-MAT-011\n"
        f"  semreport verify {report_html}\n"
        f"Open {report_html} in a browser to read the report."
    )
    if not ok:
        raise click.exceptions.Exit(EXIT_FAILED)


def _load(console: Console, sr: SemReport, database: Path) -> None:
    loaded = sample.load_into(sr)
    console.print(Rule("1. Load the sample project"))
    console.print(
        f"Recorded {loaded.decisions} decisions and {loaded.sessions} legacy sessions "
        f"of project [bold]{loaded.project_id}[/bold] into {database}"
    )


def _search(console: Console, sr: SemReport) -> None:
    project = sample.PROJECT_ID
    console.print(Rule("2. Signals: what the search can use"))
    for table in signals_tables(sr.signals(project), max_attributes=12):
        console.print(table)
    console.print(Rule("3. Find decisions by criteria"))
    for question, criteria in FINDS:
        shown = json.dumps(criteria, ensure_ascii=False)
        console.print(f"[bold]{question}[/bold]  criteria: {shown}", markup=True)
        result = sr.find(project, criteria)
        console.print(hits_table(sr, project, result, title=question))
        hits = to_wire(result).get("hits", [])
        if hits:
            console.print(explanation_table(hits[0]))
    console.print(Rule(f"4. Decisions similar to {SIMILAR_TO}"))
    exemplar = sr.decision(project, SIMILAR_TO)
    console.print(f"Exemplar: {exemplar.id}: {exemplar.title}")
    result = sr.similar(project, {"decision_id": SIMILAR_TO, "limit": 5})
    console.print(hits_table(sr, project, result, title=f"similar to {SIMILAR_TO}"))
    for hit in to_wire(result).get("hits", [])[:2]:
        console.print(explanation_table(hit))


def _reports(console: Console, sr: SemReport, out: Path, written: list[tuple[str, Path]]) -> Path:
    project = sample.PROJECT_ID
    console.print(Rule("5. The report, as JSON and as verifiable HTML"))
    report_json = out / f"{project}-report.json"
    report_json.write_text(
        json.dumps(to_wire(sr.report(project)), ensure_ascii=False, indent=2) + "\n",
        encoding="utf-8",
    )
    export = sr.export_report(project)
    report_html = out / f"{project}-report.html"
    report_html.write_text(export.html, encoding="utf-8")
    written += [("Report (JSON)", report_json), ("Report (HTML)", report_html)]
    console.print(digest_table(export.digest), soft_wrap=True)
    return report_html


def _verify(console: Console, sr: SemReport, report_html: Path) -> bool:
    console.print(Rule("6. Verify the HTML report against its digest and the records"))
    document = report_html.read_text(encoding="utf-8")
    ok, account = verification_lines(semreport.verify(document, memory=sr.storage))
    console.print(account)
    return ok


def _sessions(console: Console, sr: SemReport, out: Path, written: list[tuple[str, Path]]) -> None:
    session_id = sample.SESSION_IDS[0]
    console.print(Rule(f"7. Export the legacy session {session_id}"))
    folder = out / "sessions"
    folder.mkdir(exist_ok=True)
    for fmt in ("json", "pdf", "graph"):
        export = sr.export_session(session_id, fmt)
        target = folder / export.filename
        target.write_bytes(export.content)
        written.append((f"Session export ({fmt})", target))
        console.print(f"{fmt:>5}: {target} ({len(export.content):,} bytes)")
