"""What the HTTP app and its OpenAPI document share: bodies, query parameters, digest headers.

Both :mod:`semreport.http._app` and :mod:`semreport.http._openapi` read these,
so the routes and the document describing them cannot drift apart.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any, Final

__all__ = [
    "BODY_PARAMETERS",
    "DIGEST_HEADER_PREFIX",
    "QUERY_PARAMETERS",
    "accepted_query_parameters",
    "digest_header",
]

BODY_PARAMETERS: Final[Mapping[str, tuple[str, bool]]] = {
    "find": ("criteria", True),
    "similar": ("exemplar", True),
    "match_catalogue": ("payload", True),
    "embed_reference": ("payload", False),
}
"""Operations that take a JSON body: the facade parameter it fills, and whether it is required."""

QUERY_PARAMETERS: Final[Mapping[str, Mapping[str, type]]] = {
    "export_session": {"graph_format": str},
    "report": {"as_of": int},
    "export_report": {"as_of": int},
}
"""Optional query parameters (name and type) passed on to the facade as keywords.

A parameter is served only when the facade method accepts that keyword.
"""

DIGEST_HEADER_PREFIX: Final = "SemReport-Digest-"
"""Prefix of the response headers carrying the record digest of a report export."""


def accepted_query_parameters(operation: str, method: Any) -> dict[str, type]:
    """The query parameters of :data:`QUERY_PARAMETERS` that ``method`` accepts."""
    declared = QUERY_PARAMETERS.get(operation, {})
    if method is None or not declared:
        return {}
    try:
        parameters = inspect.signature(method).parameters
    except (TypeError, ValueError):
        return {}
    accepts_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    return {name: kind for name, kind in declared.items() if accepts_any or name in parameters}


def digest_header(member: str) -> str:
    """Return the response header that carries one member of the record digest.

    Example:
        >>> digest_header("records_root")
        'SemReport-Digest-Records-Root'
    """
    return DIGEST_HEADER_PREFIX + "-".join(part.capitalize() for part in member.split("_"))
