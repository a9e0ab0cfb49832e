"""``semreport ingest``: record decisions and legacy sessions from files."""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

import click
from rich.progress import (
    BarColumn,
    DownloadColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from semreport.cli._app import (
    EXIT_FAILED,
    cli,
    fail,
    opened,
    stderr,
    stdout,
    url_option,
)
from semreport.cli._ingest import Ingest, plan
from semreport.domain import SemReportError

__all__ = ["ingest"]


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path, allow_dash=True))
@click.option(
    "--kind",
    type=click.Choice(["auto", "decisions", "sessions"]),
    default="auto",
    show_default=True,
    help="How to read the files; auto: .jsonl/.ndjson are decisions, .json are sessions.",
)
@click.option(
    "--batch-size",
    type=click.IntRange(1, 100_000),
    default=500,
    show_default=True,
    help="Records per transaction.",
)
@click.option(
    "--all-or-nothing",
    is_flag=True,
    help="Record nothing at all if any line or file is bad.",
)
@click.option("--dry-run", is_flag=True, help="Check everything, record nothing.")
@click.option("--no-progress", is_flag=True, help="Do not show progress bars.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@url_option
def ingest(
    *,
    paths: tuple[Path, ...],
    kind: str,
    batch_size: int,
    all_or_nothing: bool,
    dry_run: bool,
    no_progress: bool,
    as_json: bool,
    url: str,
) -> None:
    """Record decisions (JSON Lines) and legacy sessions (JSON) from PATHS.

    PATHS are files or directories: a .jsonl (or .ndjson) file holds one
    decision per line in the wire form; a .json file holds one legacy session
    (or an array of them); a directory contributes all such files; - reads
    decisions from standard input.

    Everything is checked before anything is written. Each bad line is
    reported with its number and the reason, and so are ids repeated in the
    input or already stored. The good records are then written in batches,
    each batch in one transaction, so no record is ever half-written. The exit
    status is 1 when any line or file was bad (3 if the storage refused).

    For example, `semreport ingest decisions.jsonl sessions/` records a
    project's decisions and the sessions of the sessions/ folder.
    """
    sources = plan(list(paths), kind)
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=stderr(),
        disable=no_progress or not sys.stderr.isatty(),
        transient=True,
    )
    with opened(url, create=True) as sr:
        work = Ingest(sr, batch_size=batch_size)
        stdin = iter(sys.stdin) if any(str(s.path) == "-" for s in sources) else None
        with progress:
            for source in sources:
                task = progress.add_task(
                    f"reading {source.path.name or 'stdin'}", total=source.size or None
                )
                work.read(source, functools.partial(progress.advance, task), stdin)
            checking = progress.add_task("checking stored ids", total=None)
            work.refuse_stored()
            progress.update(checking, total=1, completed=1)
            refused = bool(work.problems) and all_or_nothing
            if not dry_run and not refused:
                total = len(work.decisions) + len(work.sessions)
                writing = progress.add_task("recording", total=total)
                try:
                    work.record(lambda n: progress.advance(writing, n))
                except SemReportError as exc:
                    fail(
                        f"error: {exc.code}: {exc.message} (earlier batches stay recorded: "
                        f"{work.recorded_decisions} decision(s), "
                        f"{work.recorded_sessions} session(s))"
                    )
    for problem in work.problems:
        click.echo(f"semreport: {problem}", err=True)
    _summary(work, dry_run=dry_run or refused, as_json=as_json)
    if refused:
        click.echo(
            f"semreport: {len(work.problems)} bad input(s) and --all-or-nothing: "
            "nothing was recorded",
            err=True,
        )
    if work.problems:
        raise click.exceptions.Exit(EXIT_FAILED)


def _summary(work: Ingest, *, dry_run: bool, as_json: bool) -> None:
    summary = {
        "recorded_decisions": work.recorded_decisions,
        "recorded_sessions": work.recorded_sessions,
        "valid_decisions": len(work.decisions),
        "valid_sessions": len(work.sessions),
        "problems": [{"where": p.where, "reason": p.reason} for p in work.problems],
        "written": not dry_run,
    }
    if as_json:
        click.echo(json.dumps(summary, ensure_ascii=False, indent=2))
        return
    table = Table(title="Ingest", show_header=False)
    table.add_row("decisions recorded", str(work.recorded_decisions))
    table.add_row("sessions recorded", str(work.recorded_sessions))
    if dry_run:
        table.add_row("valid decisions (not recorded)", str(len(work.decisions)))
        table.add_row("valid sessions (not recorded)", str(len(work.sessions)))
    table.add_row("bad lines or files", str(len(work.problems)))
    projects = sorted({d.project_id for d in work.decisions})
    if projects:
        table.add_row("projects", ", ".join(projects))
    stdout().print(table)
