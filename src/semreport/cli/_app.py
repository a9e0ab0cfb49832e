"""The ``semreport`` command group, its shared options, and its error handling.

Errors never show a traceback: a :class:`~semreport.SemReportError` or a file
error prints one line on standard error and exits with status 3; anything
unexpected prints one line and exits with status 4. Exit status 1 means the
command ran and found something wrong (a report that does not verify, bad
lines in an ingest); 2 is a usage error, including a ``--url`` that names no
storage: the commands that only read open it with ``create=False``, so a
mistyped path is reported (naming the file) and never created.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final, NoReturn, ParamSpec, TypeVar

import click
from rich.console import Console

import semreport
from semreport.domain import InvalidRequest, SemReportError, StorageNotFound
from semreport.search import HeuristicScorer
from semreport.service import SemReport
from semreport.wire import to_wire

__all__ = [
    "DEFAULT_URL",
    "EXIT_FAILED",
    "EXIT_INTERNAL",
    "EXIT_OK",
    "EXIT_REFUSED",
    "EXIT_USAGE",
    "cli",
    "main",
    "names_options",
]

P = ParamSpec("P")
R = TypeVar("R")

DEFAULT_URL: Final = "sqlite:///semreport.db"
"""The storage the commands use unless ``--url`` or ``SEMREPORT_URL`` says otherwise."""

EXIT_OK: Final = 0
"""Everything worked (and, for ``verify``, everything matched)."""
EXIT_FAILED: Final = 1
"""The command ran and found something wrong: a mismatch, bad input lines."""
EXIT_USAGE: Final = 2
"""The command line itself was wrong (click's usage errors, or a ``--url`` naming no storage)."""
EXIT_REFUSED: Final = 3
"""The library refused the request (a ``SemReportError``) or a file could not be used."""
EXIT_INTERNAL: Final = 4
"""An unexpected error; the message says what it was."""


def stdout() -> Console:
    """A console on the current standard output (looked up at call time, for tests)."""
    return Console(file=sys.stdout, soft_wrap=False, width=_width(), highlight=False)


def stderr() -> Console:
    """A console on the current standard error."""
    return Console(file=sys.stderr, soft_wrap=True, highlight=False)


def _width() -> int | None:
    if sys.stdout.isatty():
        return None
    try:
        return max(60, int(os.environ.get("COLUMNS", "120")))
    except ValueError:
        return 120


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def fail(message: str, status: int = EXIT_REFUSED) -> NoReturn:
    """Print ``message`` as one line on standard error and exit with ``status``."""
    click.echo(f"semreport: {_one_line(message)}", err=True)
    raise click.exceptions.Exit(status)


class _Group(click.Group):
    """A command group that turns every error into one line and an exit status."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except StorageNotFound as exc:
            # A read-only command given a storage that does not exist: a usage error.
            fail(f"error: {exc.code}: {exc.message}", EXIT_USAGE)
        except SemReportError as exc:
            fail(f"error: {exc.code}: {exc.message}", EXIT_REFUSED)
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            fail(f"error: {where}{exc.strerror or exc}", EXIT_REFUSED)
        except KeyboardInterrupt:
            fail("interrupted", 130)
        except Exception as exc:  # noqa: BLE001 - the top level must never show a traceback
            fail(f"unexpected error: {type(exc).__name__}: {exc}", EXIT_INTERNAL)


# Where a refused field comes from: the field path's start, and the parameter that fills it.
_FIELD_PARAMS: Final = (
    ("$.filters.domain", "domain"),
    ("$.filters.status", "status"),
    ("$.filters.agent", "agent"),
    ("$.filters.tags", "tag"),
    ("$.filters.attributes", "attr"),
    ("$.near", "near"),
    ("$.weights", "weight"),
    ("$.superseded", "superseded"),
    ("$.limit", "limit"),
    ("$.cursor", "cursor"),
    ("$.text", "text"),
    ("$.decision_id", "decision_id"),
    ("$.decision", "exemplar"),
    ("$.project_id", "project_id"),
    ("$.session_id", "session_id"),
)


def _within(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith((f"{prefix}.", f"{prefix}["))


def _shown_name(param: click.Parameter) -> str:
    if isinstance(param, click.Option):
        return max(param.opts, key=len)
    return param.human_readable_name


def _typed_by_user(ctx: click.Context, name: str) -> click.Parameter | None:
    """The parameter called ``name`` if the user gave it (command line or environment)."""
    found = next((p for p in ctx.command.params if p.name == name), None)
    source = ctx.get_parameter_source(name)
    given = source in (
        click.core.ParameterSource.COMMANDLINE,
        click.core.ParameterSource.ENVIRONMENT,
    )
    return found if given else None


def _usage_message(ctx: click.Context, exc: InvalidRequest) -> str | None:
    """Name the options behind a refused request, or ``None`` if some field came from no option."""
    parts: list[str] = []
    for error in exc.errors:
        name = next((n for prefix, n in _FIELD_PARAMS if _within(error.path, prefix)), None)
        param = _typed_by_user(ctx, name) if name else None
        if param is not None:
            parts.append(f"invalid value for {_shown_name(param)}: {error.message}")
        elif _typed_by_user(ctx, "criteria") is not None:
            parts.append(f"invalid value for --criteria: {error.path}: {error.message}")
        else:
            return None
    return "; ".join(parts) or None


def names_options(command: Callable[P, R]) -> Callable[P, R]:
    """Turn a request refused for a value the user typed into a usage error naming the option.

    The library names fields by their path in the request (``$.filters.domain[0]``);
    the user typed ``--domain``. Such an error exits with status 2 and names
    the option; a refusal that no option explains stays a refusal (status 3).
    """

    @functools.wraps(command)
    def named(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except InvalidRequest as exc:
            message = _usage_message(click.get_current_context(), exc)
            if message is None:
                raise
            raise click.UsageError(message) from None

    return named


def url_option(command: Callable[P, R]) -> Callable[P, R]:
    """Add ``--url`` (storage URL) to a command."""
    return click.option(
        "--url",
        default=DEFAULT_URL,
        show_default=True,
        envvar="SEMREPORT_URL",
        show_envvar=True,
        metavar="URL",
        help="Storage URL: sqlite:///file.db, postgresql://..., memory://.",
    )(command)


def project_option(command: Callable[P, R]) -> Callable[P, R]:
    """Add ``--project``/``-p`` to a command."""
    return click.option(
        "--project",
        "-p",
        "project_id",
        required=True,
        envvar="SEMREPORT_PROJECT",
        show_envvar=True,
        metavar="ID",
        help="The project's id, e.g. lindenhof.",
    )(command)


def json_option(command: Callable[P, R]) -> Callable[P, R]:
    """Add ``--json`` (machine-readable output) to a command."""
    return click.option(
        "--json",
        "as_json",
        is_flag=True,
        help="Print the result's wire form as JSON instead of tables.",
    )(command)


def cursor_key(url: str) -> bytes:
    """The key that signs search cursors, the same in every invocation on one storage.

    Each command runs in a new process, so a random key (the library's default)
    would refuse the ``--cursor`` a previous command printed. The key comes from
    ``SEMREPORT_CURSOR_KEY`` when set, else from the storage URL: cursors stay
    tamper-evident and are refused on another storage.
    """
    secret = os.environ.get("SEMREPORT_CURSOR_KEY")
    if secret:
        return hashlib.sha256(secret.encode("utf-8")).digest()
    return hashlib.sha256(f"semreport-cli-cursor\0{url}".encode()).digest()


@contextmanager
def opened(url: str, *, create: bool = False) -> Iterator[SemReport]:
    """Open the facade over ``url`` for one command, closing it afterwards.

    Args:
        url: The storage URL.
        create: Create the storage if it does not exist. Only the commands
            that write (``ingest``, ``demo``) do; the others raise
            :class:`~semreport.StorageNotFound` for a missing storage and
            leave nothing behind.
    """
    sr = semreport.open(url, scorer=HeuristicScorer(cursor_key=cursor_key(url)), create=create)
    try:
        yield sr
    finally:
        sr.close()


def print_json(value: object) -> None:
    """Print a result's wire form as indented JSON on standard output."""
    click.echo(json.dumps(to_wire(value), ensure_ascii=False, indent=2))


def parse_json_option(value: str | None, name: str) -> Any:
    """Read a JSON option given inline or as ``@path``."""
    if value is None:
        return None
    text = value
    if value.startswith("@"):
        try:
            text = Path(value[1:]).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise click.BadParameter(
                f"cannot read {value[1:]}: {reason}", param_hint=name
            ) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise click.BadParameter(
            f"not JSON: {exc.msg} (column {exc.colno})", param_hint=name
        ) from None


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(semreport.__version__, "--version", prog_name="semreport")
def cli() -> None:
    """Search, report on and export a building project's Decision Memory.

    Start with `semreport demo`: it loads a sample project into a SQLite file
    and runs every command on it. Every command takes --url (default: the
    SQLite file semreport.db in the current directory) and -h for help.

    Exit status: 0 success; 1 the command found something wrong (a report that
    does not verify, bad input lines); 2 usage error, or a --url that names no
    storage (only ingest and demo create one); 3 the request was refused (the
    message names the error code); 4 unexpected error.
    """


def main() -> None:
    """Run the ``semreport`` command line (the console script's entry point)."""
    cli.main(prog_name="semreport")
