"""What the HTTP app and its OpenAPI document share: query parameters, digest headers, versions.

Both :mod:`semreport.http._app` and :mod:`semreport.http._openapi` read these,
so the routes and the document describing them cannot drift apart. Everything
about one endpoint comes from its row of :data:`semreport.CONTRACT`.
"""

from __future__ import annotations

import inspect
from typing import Any, Final

from semreport.contract import Endpoint, Parameter

__all__ = [
    "DIGEST_HEADER_PREFIX",
    "MAX_JSON_DEPTH",
    "accepted_query_parameters",
    "digest_header",
    "etag_matches",
    "version_of",
]

MAX_JSON_DEPTH: Final = 64
"""The deepest nesting of arrays and objects accepted in a JSON body."""

DIGEST_HEADER_PREFIX: Final = "SemReport-Digest-"
"""Prefix of the response headers carrying the record digest of a report export."""


def accepted_query_parameters(row: Endpoint, method: Any) -> tuple[Parameter, ...]:
    """The query parameters of ``row`` that the facade ``method`` accepts as keywords.

    A facade without a keyword (an older or a fake one) is never sent it, and
    the document does not list it.
    """
    declared = row.query_params
    if method is None or not declared:
        return ()
    try:
        parameters = inspect.signature(method).parameters
    except (TypeError, ValueError):
        return ()
    accepts_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    return tuple(p for p in declared if accepts_any or p.name in parameters)


def digest_header(member: str) -> str:
    """Return the response header that carries one member of the record digest.

    Example:
        >>> digest_header("records_root")
        'SemReport-Digest-Records-Root'
    """
    return DIGEST_HEADER_PREFIX + "-".join(part.capitalize() for part in member.split("_"))


def version_of(result: object, path: str) -> str | None:
    """Follow a dotted attribute path (``digest.report_sha256``); ``None`` if it breaks off."""
    value: object = result
    for name in path.split("."):
        value = getattr(value, name, None)
        if value is None:
            return None
    return value if isinstance(value, str) and value.isascii() and value.isprintable() else None


def etag_matches(if_none_match: str, etag: str) -> bool:
    """Whether an ``If-None-Match`` header matches ``etag``, by weak comparison (RFC 9110)."""
    if if_none_match.strip() == "*":
        return True
    wanted = etag.removeprefix("W/")
    return any(tag.strip().removeprefix("W/") == wanted for tag in if_none_match.split(","))
