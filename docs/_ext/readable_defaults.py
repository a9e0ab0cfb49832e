"""Render the CLI reference's defaults as a user types them.

sphinx-click prints each default with ``repr``: ``'json'``, ``PosixPath('.')``.
This extension rewrites those lines to the value itself (``json``, ``.``).
"""

from __future__ import annotations

import re
from typing import Any

from sphinx.application import Sphinx

_DEFAULT = re.compile(r"^(?P<lead>\s*:default: ``)(?P<value>.*)(?P<end>``\s*)$")
_WRAPPED = re.compile(r"^(?:\w*Path)\((?P<inner>.*)\)$")


def readable(value: str) -> str:
    """The value a user would type for a default that sphinx-click printed with ``repr``."""
    wrapped = _WRAPPED.match(value)
    if wrapped:
        value = wrapped.group("inner")
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        value = value[1:-1]
    return value


def _options(_app: Sphinx, _ctx: Any, lines: list[str]) -> None:
    for index, line in enumerate(lines):
        match = _DEFAULT.match(line)
        if match:
            lines[index] = match["lead"] + readable(match["value"]) + match["end"]


def setup(app: Sphinx) -> dict[str, Any]:
    """Connect to sphinx-click's option lines."""
    app.connect("sphinx-click-process-options", _options)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
