"""The ``semreport`` command line (install the ``cli`` extra).

``semreport demo`` loads the sample project into a SQLite file and walks
through every command; ``semreport --help`` lists them. The commands are thin:
each opens the facade (:func:`semreport.open`) on ``--url`` and calls one of
its methods.
"""

from __future__ import annotations

try:
    import click as _click  # noqa: F401
    import rich as _rich  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    from semreport.domain import MissingExtra

    raise MissingExtra(
        f"the command line needs the 'cli' extra ({exc.name} is not installed): "
        "pip install 'semreport[cli]'"
    ) from exc

from semreport.cli import (  # noqa: F401 - register the commands
    _commands,
    _demo,
    _ingest_command,
    _listing,
    _serve_command,
)
from semreport.cli._app import (
    DEFAULT_URL,
    EXIT_FAILED,
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_REFUSED,
    EXIT_USAGE,
    cli,
    main,
)

__all__ = [
    "DEFAULT_URL",
    "EXIT_FAILED",
    "EXIT_INTERNAL",
    "EXIT_OK",
    "EXIT_REFUSED",
    "EXIT_USAGE",
    "cli",
    "main",
]
