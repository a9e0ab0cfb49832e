"""A Sphinx directive that renders :data:`semreport.contract.CONTRACT` as a table.

The contract is data in the library; this page reads it, so the docs cannot
drift from what the facade and the HTTP adapter enforce.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from semreport.contract import CONTRACT

COLUMNS = (
    ("Method", 8),
    ("Path", 40),
    ("Status", 16),
    ("Auth", 8),
    ("Facade method", 16),
    ("Capability", 16),
    ("Executor", 8),
    ("Time limit", 8),
    ("Purpose", 50),
)


def _cell(text: str, *, literal: bool = False) -> nodes.entry:
    entry = nodes.entry()
    paragraph = nodes.paragraph()
    paragraph += nodes.literal(text, text) if literal else nodes.Text(text)
    entry += paragraph
    return entry


class ContractTable(SphinxDirective):
    """``contract-table``: one row per endpoint of the contract, in contract order."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        table = nodes.table(classes=["contract-table"])
        group = nodes.tgroup(cols=len(COLUMNS))
        table += group
        for _title, width in COLUMNS:
            group += nodes.colspec(colwidth=width)
        head = nodes.thead()
        header = nodes.row()
        for title, _width in COLUMNS:
            header += _cell(title)
        head += header
        group += head
        body = nodes.tbody()
        for row in CONTRACT:
            line = nodes.row()
            line += _cell(row.method)
            line += _cell(row.path, literal=True)
            status = row.status.value + (" (always refused)" if row.always_refused else "")
            line += _cell(status)
            line += _cell(row.auth.value)
            line += _cell(f"{row.operation}()", literal=True)
            line += _cell(row.capability, literal=True)
            line += _cell("none" if row.always_refused else row.lane.value)
            line += _cell("none" if row.always_refused else f"{row.time_limit:g} s")
            line += _cell(row.purpose)
            body += line
        group += body
        return [table]


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the directive."""
    app.add_directive("contract-table", ContractTable)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
