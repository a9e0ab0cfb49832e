"""Sphinx configuration: MyST Markdown pages, the API reference from docstrings.

Build with ``nox -s docs`` (warnings are errors).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

import semreport  # noqa: E402 - after the path set-up

project = "semreport"
author = "semreport developers"
copyright = "semreport developers"  # noqa: A001 - Sphinx's name
release = semreport.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "sphinx_click",
    "contract_table",
    "public_names",
    "readable_defaults",
    "reachable_pages",
]

source_suffix = {".md": "markdown"}
root_doc = "index"
# search.md points repository readers to searching.md; on the site it would be
# shadowed by the builder's own search.html, so it is left out.
exclude_patterns = ["_build", "notebooks", "**/.ipynb_checkpoints", "search.md"]

# A code block that shows an elided example ("{ ... }") cannot be lexed as its
# language; Pygments then shows it plainly, which is what such a block needs.
suppress_warnings = ["misc.highlighting_failure"]

myst_enable_extensions = ["colon_fence", "deflist", "fieldlist", "substitution"]
myst_heading_anchors = 3

autodoc_typehints = "description"
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_class_signature = "separated"
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_ivar = True
napoleon_attr_annotations = True

html_theme = "furo"
html_title = f"semreport {release}"
html_static_path: list[str] = []
