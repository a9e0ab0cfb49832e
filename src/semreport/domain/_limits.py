"""What one request may hold: every limit the library enforces, as named constants.

The facade, the wire converter, the search criteria, the HTTP adapter and its
OpenAPI document all read these names, so that a limit is written down once and
the document states exactly what the code enforces. Going over a limit is an
``INVALID_REQUEST`` naming the field (or ``PAYLOAD_TOO_LARGE`` for a body).
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "MAX_ATTRIBUTES",
    "MAX_BATCH_DECISIONS",
    "MAX_BATCH_SESSIONS",
    "MAX_BODY_BYTES",
    "MAX_DECISION_BYTES",
    "MAX_ELEMENTS",
    "MAX_EVIDENCE",
    "MAX_EXEMPLAR_ATTRIBUTES",
    "MAX_EXEMPLAR_TAGS",
    "MAX_EXEMPLAR_TEXT",
    "MAX_FILTER_VALUES",
    "MAX_LINKS",
    "MAX_PAGE_SIZE",
    "MAX_QUERY_TEXT",
    "MAX_TAGS",
    "count_problems",
]

MAX_BATCH_DECISIONS: Final = 10_000
"""The most decisions one ``record`` call may append."""
MAX_BATCH_SESSIONS: Final = 1_000
"""The most legacy sessions one ``record_sessions`` call may store."""
MAX_DECISION_BYTES: Final = 256 * 1024
"""The largest decision: the UTF-8 size of its canonical wire form, in bytes."""
MAX_TAGS: Final = 64
"""The most tags one decision may carry."""
MAX_ATTRIBUTES: Final = 128
"""The most attributes one decision may carry."""
MAX_EVIDENCE: Final = 128
"""The most evidence items one decision may cite."""
MAX_LINKS: Final = 256
"""The most links one decision may hold."""
MAX_ELEMENTS: Final = 256
"""The most building elements one decision may concern."""
MAX_QUERY_TEXT: Final = 4_096
"""The longest free-text query of ``find``, in characters."""
MAX_PAGE_SIZE: Final = 100
"""The largest page of search hits."""
MAX_FILTER_VALUES: Final = 256
"""The most values one search request's filters and preferences may list, all together."""
MAX_EXEMPLAR_TEXT: Final = 16_384
"""The longest text of an inline exemplar (title, statement and rationale together)."""
MAX_EXEMPLAR_TAGS: Final = 64
"""The most tags an inline exemplar may carry."""
MAX_EXEMPLAR_ATTRIBUTES: Final = 64
"""The most attributes an inline exemplar may carry."""
MAX_BODY_BYTES: Final = 1024 * 1024
"""The largest HTTP request body (1 MiB); a larger one is ``PAYLOAD_TOO_LARGE``."""


_COUNTED: Final = (
    ("tags", MAX_TAGS, "tags"),
    ("attributes", MAX_ATTRIBUTES, "attributes"),
    ("evidence", MAX_EVIDENCE, "evidence items"),
    ("links", MAX_LINKS, "links"),
    ("elements", MAX_ELEMENTS, "elements"),
)
_EXEMPLAR_COUNTED: Final = (
    ("tags", MAX_EXEMPLAR_TAGS, "tags"),
    ("attributes", MAX_EXEMPLAR_ATTRIBUTES, "attributes"),
    ("evidence", MAX_EVIDENCE, "evidence items"),
    ("links", MAX_LINKS, "links"),
    ("elements", MAX_ELEMENTS, "elements"),
)


def count_problems(
    item: object, *, exemplar: bool = False
) -> list[tuple[tuple[str | int, ...], str]]:
    """Return a problem for each collection of a decision (or exemplar) over its limit.

    Args:
        item: A decision, or an inline exemplar (anything with the collections
            ``tags``, ``attributes``, ``evidence``, ``links`` and ``elements``).
        exemplar: Apply the inline exemplar's limits.

    Returns:
        ``(path, reason)`` pairs, the path relative to ``item``; empty when it fits.
    """
    problems: list[tuple[tuple[str | int, ...], str]] = []
    for name, limit, noun in _EXEMPLAR_COUNTED if exemplar else _COUNTED:
        count = len(getattr(item, name))
        if count > limit:
            problems.append(((name,), f"at most {limit} {noun}, got {count}"))
    return problems
