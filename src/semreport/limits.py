"""What one request may hold: every limit the library enforces, as a named constant.

The facade, the search criteria, the HTTP adapter and its OpenAPI document
(which lists them under ``x-limits`` and in its schemas) all read these
names, so a limit is written down once. Going over one is an
``INVALID_REQUEST`` naming the field path; an HTTP body over
:data:`MAX_BODY_BYTES` is ``PAYLOAD_TOO_LARGE`` (413).

Example:
    >>> from semreport import limits
    >>> limits.MAX_PAGE_SIZE
    100
"""

from __future__ import annotations

from semreport.domain._limits import (
    MAX_ATTRIBUTES,
    MAX_BATCH_DECISIONS,
    MAX_BATCH_SESSIONS,
    MAX_BODY_BYTES,
    MAX_DECISION_BYTES,
    MAX_ELEMENTS,
    MAX_EVIDENCE,
    MAX_EXEMPLAR_ATTRIBUTES,
    MAX_EXEMPLAR_TAGS,
    MAX_EXEMPLAR_TEXT,
    MAX_FILTER_VALUES,
    MAX_LINKS,
    MAX_PAGE_SIZE,
    MAX_QUERY_TEXT,
    MAX_TAGS,
)

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
]
