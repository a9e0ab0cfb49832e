"""Show public names, not private module paths, in the API reference.

Classes live in private modules (``semreport.search._models``) and are exported
from public packages (``semreport``). autodoc and napoleon write the defining
path into attribute and parameter types; this extension rewrites every such path
to the shortest public name that exports the same object, so the reference
reads ``semreport.Decision`` and its links resolve to the documented entry.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from functools import cache
from typing import Any

from sphinx.application import Sphinx

import semreport

_DOTTED = re.compile(r"~?semreport(?:\.\w+)+")


@cache
def public_names() -> dict[str, str]:
    """Map each private defining path (``module.qualname``) to its shortest public name."""
    found: dict[str, str] = {}
    modules = [semreport.__name__] + [
        info.name
        for info in pkgutil.walk_packages(semreport.__path__, prefix="semreport.")
        if not any(part.startswith("_") for part in info.name.split("."))
    ]
    for name in modules:
        try:
            module = importlib.import_module(name)
        except ImportError:  # an optional extra that is not installed
            continue
        for export in getattr(module, "__all__", ()):
            try:
                obj = getattr(module, export, None)
            except ImportError:  # a lazily imported name whose extra is not installed
                continue
            defined_in = getattr(obj, "__module__", None)
            qualname = getattr(obj, "__qualname__", None)
            if not isinstance(defined_in, str) or not isinstance(qualname, str):
                continue
            private = f"{defined_in}.{qualname}"
            public = f"{name}.{export}"
            if private == public or "._" not in private:
                continue
            if private not in found or len(public) < len(found[private]):
                found[private] = public
    return found


def publish(text: str) -> str:
    """Rewrite every private dotted path in ``text`` that a public name exports."""
    names = public_names()

    def replace(match: re.Match[str]) -> str:
        dotted = match.group(0)
        tilde = dotted.startswith("~")
        path = dotted.removeprefix("~")
        # The longest prefix that is a known class, so ``X.method`` paths keep their tail.
        parts = path.split(".")
        for end in range(len(parts), 1, -1):
            head = ".".join(parts[:end])
            if head in names:
                tail = ".".join(parts[end:])
                public = names[head] + (f".{tail}" if tail else "")
                return ("~" if tilde else "") + public
        return dotted

    return _DOTTED.sub(replace, text)


def _docstring(
    _app: Sphinx, _what: str, _name: str, _obj: Any, _options: Any, lines: list[str]
) -> None:
    lines[:] = [publish(line) for line in lines]


def _signature(
    _app: Sphinx,
    _what: str,
    _name: str,
    _obj: Any,
    _options: Any,
    signature: str | None,
    return_annotation: str | None,
) -> tuple[str | None, str | None]:
    return (
        publish(signature) if signature else signature,
        publish(return_annotation) if return_annotation else return_annotation,
    )


def setup(app: Sphinx) -> dict[str, Any]:
    """Rewrite docstrings after napoleon (priority 500) has turned them into fields."""
    app.connect("autodoc-process-docstring", _docstring, priority=900)
    app.connect("autodoc-process-signature", _signature, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
