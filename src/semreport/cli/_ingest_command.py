"""``semreport ingest``: record decisions and legacy sessions from files (``SemReport.ingest``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from semreport import IngestProgress, IngestResult
from semreport.cli._app import (
    EXIT_FAILED,
    cli,
    fail,
    opened,
    stderr,
    stdout,
    url_option,
)
from semreport.domain import InvalidRequest, SemReportError
from semreport.domain._limits import MAX_BATCH_DECISIONS

__all__ = ["ingest"]


class _Bars:
    """One rich progress bar per stage and source, each counting records."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.tasks: dict[tuple[str, str], TaskID] = {}
        self.recorded = {"decisions": 0, "sessions": 0}

    def __call__(self, event: IngestProgress) -> None:
        key = (event.stage, event.what)
        if key not in self.tasks:
            label = f"{event.stage} {event.what}"
            self.tasks[key] = self.progress.add_task(label, total=event.total)
        self.progress.update(self.tasks[key], completed=event.done, total=event.total)
        if event.stage == "recording":
            self.recorded[event.what] = event.done


@cli.command()
@click.argument(
    "paths",
    nargs=-1,
    required=True,
    type=click.Path(exists=True, path_type=Path, allow_dash=True),
)
@click.option(
    "--kind",
    type=click.Choice(["auto", "decisions", "sessions"]),
    default="auto",
    show_default=True,
    help="How to read the files; auto: .jsonl/.ndjson are decisions, .json are sessions.",
)
@click.option(
    "--batch-size",
    type=click.IntRange(1, MAX_BATCH_DECISIONS),
    default=500,
    show_default=True,
    help="Records per transaction.",
)
@click.option(
    "--skip-existing",
    is_flag=True,
    help="Count records already stored with the same content instead of reporting them "
    "(the same id with other content is still reported).",
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
    skip_existing: bool,
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
    input or already stored. With --skip-existing, a record already stored
    with the same content is counted, not reported, so running an ingest
    twice is safe. The good records are then written in batches, each batch
    in one transaction, so no record is ever half-written. The exit status is
    1 when any line or file was bad (3 if the storage refused).

    For example, `semreport ingest decisions.jsonl sessions/` records a
    project's decisions and the sessions of the sessions/ folder.
    """
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("records"),
        TimeElapsedColumn(),
        console=stderr(),
        disable=no_progress or not sys.stderr.isatty(),
        transient=True,
    )
    bars = _Bars(progress)
    stdin = sys.stdin if any(str(p) == "-" for p in paths) else None
    with opened(url, create=True) as sr, progress:
        try:
            result = sr.ingest(
                [str(p) for p in paths],
                kind=kind,
                batch_size=batch_size,
                skip_existing=skip_existing,
                all_or_nothing=all_or_nothing,
                dry_run=dry_run,
                stdin=stdin,
                progress=bars,
            )
        except InvalidRequest as exc:
            if all(e.path.startswith("$.paths") for e in exc.errors):
                raise click.BadParameter(
                    "; ".join(e.message for e in exc.errors), param_hint="PATHS"
                ) from None
            raise
        except SemReportError as exc:
            fail(
                f"error: {exc.code}: {exc.message} (earlier batches stay recorded: "
                f"{bars.recorded['decisions']} decision(s), "
                f"{bars.recorded['sessions']} session(s))"
            )
    for problem in result.problems:
        click.echo(f"semreport: {problem}", err=True)
    _summary(result, as_json=as_json)
    if result.problems and all_or_nothing:
        click.echo(
            f"semreport: {len(result.problems)} bad input(s) and --all-or-nothing: "
            "nothing was recorded",
            err=True,
        )
    if result.problems:
        raise click.exceptions.Exit(EXIT_FAILED)


def _summary(result: IngestResult, *, as_json: bool) -> None:
    summary = {
        "recorded_decisions": result.recorded_decisions,
        "recorded_sessions": len(result.recorded_sessions),
        "valid_decisions": result.valid_decisions,
        "valid_sessions": result.valid_sessions,
        "existing_decisions": result.existing_decisions,
        "existing_sessions": result.existing_sessions,
        "problems": [{"where": p.where, "reason": p.reason} for p in result.problems],
        "written": result.written,
    }
    if as_json:
        click.echo(json.dumps(summary, ensure_ascii=False, indent=2))
        return
    table = Table(title="Ingest", show_header=False)
    table.add_row("decisions recorded", str(result.recorded_decisions))
    table.add_row("sessions recorded", str(len(result.recorded_sessions)))
    if not result.written:
        table.add_row("valid decisions (not recorded)", str(result.valid_decisions))
        table.add_row("valid sessions (not recorded)", str(result.valid_sessions))
    if result.existing_decisions or result.existing_sessions:
        table.add_row("decisions already stored", str(result.existing_decisions))
        table.add_row("sessions already stored", str(result.existing_sessions))
    table.add_row("bad lines or files", str(len(result.problems)))
    if result.projects:
        table.add_row("projects", ", ".join(result.projects))
    stdout().print(table)
