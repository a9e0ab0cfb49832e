"""Fail the build when a page in the toctree cannot be reached.

A page named like one of the builder's own pages (``search``, ``genindex``,
``py-modindex``) is overwritten by it: its link opens the builder's page, not
the guide. A page outside every toctree cannot be reached from the navigation.
After an HTML build, every document must have its own output file, carrying its
own title.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

#: Pages the HTML builder writes itself; a document of the same name is shadowed.
BUILDER_PAGES = frozenset({"search", "genindex", "py-modindex", "modindex"})


def unreachable(app: Sphinx) -> list[str]:
    """The problems with the built pages, one line each (empty when all is well)."""
    env = app.env
    problems: list[str] = []
    included = {env.config.root_doc}
    for children in env.toctree_includes.values():
        included.update(children)
    for docname in sorted(env.found_docs):
        if docname in BUILDER_PAGES:
            problems.append(f"{docname}: shadowed by the builder's own {docname}.html")
            continue
        if docname not in included:
            problems.append(f"{docname}: in no toctree")
        target = Path(app.outdir) / f"{docname}.html"
        title = env.titles.get(docname)
        if not target.is_file():
            problems.append(f"{docname}: {target.name} was not written")
        elif title is not None and html.escape(title.astext(), quote=False) not in target.read_text(
            encoding="utf-8"
        ):
            problems.append(f"{docname}: {target.name} does not carry its title")
    return problems


def _check(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    problems = unreachable(app)
    if problems:
        raise ExtensionError("unreachable pages:\n" + "\n".join(problems))


def setup(app: Sphinx) -> dict[str, Any]:
    """Check the pages after the build."""
    app.connect("build-finished", _check)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
