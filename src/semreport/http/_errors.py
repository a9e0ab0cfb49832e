"""The HTTP adapter's error mapping: library error codes to statuses and RFC 9457 problems.

The domain errors carry only a stable ``code`` (and, for invalid requests,
their field errors as data); what an HTTP client sees is decided here, in one
table, the way an entry point maps domain exceptions to responses.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from starlette.responses import JSONResponse

from semreport.domain import InvalidRequest, SemReportError

__all__ = [
    "ERROR_STATUSES",
    "PROBLEM_MEDIA_TYPE",
    "HttpError",
    "MethodNotAllowed",
    "NotFound",
    "ServiceUnavailable",
    "UnsupportedMediaType",
    "problem",
    "problem_response",
    "status_of",
]

PROBLEM_MEDIA_TYPE: Final = "application/problem+json"
"""The media type of every error answer (RFC 9457)."""

_REALM: Final = 'Bearer realm="semreport"'


class UnsupportedMediaType(SemReportError):
    """The request body's content type is not JSON."""

    code = "UNSUPPORTED_MEDIA_TYPE"


class NotFound(SemReportError):
    """No endpoint answers at that path, or the endpoint refuses every request."""

    code = "NOT_FOUND"


class MethodNotAllowed(SemReportError):
    """The endpoint does not take that method."""

    code = "METHOD_NOT_ALLOWED"


class ServiceUnavailable(SemReportError):
    """The service cannot answer now (for example, its signing keys cannot be fetched)."""

    code = "SERVICE_UNAVAILABLE"


class HttpError(SemReportError):
    """An HTTP-level refusal with its own status (raised by the ASGI framework)."""

    code = "HTTP_ERROR"

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class _InternalError(SemReportError):
    """An unexpected error."""

    code = "INTERNAL_ERROR"


ERROR_STATUSES: Final[Mapping[str, tuple[int, str]]] = {
    "INVALID_REQUEST": (400, "Invalid request"),
    "UNAUTHENTICATED": (401, "Unauthenticated"),
    "FORBIDDEN": (403, "Forbidden"),
    "NOT_FOUND": (404, "Not found"),
    "PROJECT_NOT_FOUND": (404, "Project not found"),
    "SESSION_NOT_FOUND": (404, "Session not found"),
    "DECISION_NOT_FOUND": (404, "Decision not found"),
    "UNSUPPORTED_EXPORT_FORMAT": (404, "Unsupported export format"),
    "GNN_MODEL_NOT_LOADED": (404, "GNN model not loaded"),
    "METHOD_NOT_ALLOWED": (405, "Method not allowed"),
    "DECISION_ALREADY_RECORDED": (409, "Decision already recorded"),
    "SESSION_ALREADY_RECORDED": (409, "Session already recorded"),
    "PAYLOAD_TOO_LARGE": (413, "Payload too large"),
    "UNSUPPORTED_MEDIA_TYPE": (415, "Unsupported media type"),
    "SEMREPORT_ERROR": (500, "Internal error"),
    "INTERNAL_ERROR": (500, "Internal error"),
    "CONFIGURATION_ERROR": (500, "Configuration error"),
    "UNKNOWN_STORAGE_SCHEME": (500, "Unknown storage scheme"),
    "MISSING_EXTRA": (500, "Optional dependency missing"),
    "REFERENCE_EMBED_NOT_AVAILABLE": (501, "Reference embedding not available"),
    "CATALOGUE_PROFILE_MATCHING_NOT_CONFIGURED": (
        501,
        "Catalogue profile matching not configured",
    ),
    "STORAGE_ERROR": (503, "Storage error"),
    "STORAGE_NOT_FOUND": (503, "Storage not found"),
    "INCOMPATIBLE_SCHEMA": (503, "Incompatible storage schema"),
    "CORRUPT_STORAGE": (503, "Corrupt storage"),
    "SERVICE_UNAVAILABLE": (503, "Service unavailable"),
    "SERVICE_BUSY": (503, "Service busy"),
    "REQUEST_TIMED_OUT": (503, "Request timed out"),
}
"""Each error code's HTTP status and problem title.

A code missing here (a plug-in's own error) takes the entry of the nearest
base class that has one.
"""


def _entry(exc: SemReportError) -> tuple[int, str]:
    if isinstance(exc, HttpError):
        return exc.status, "HTTP error"
    for cls in type(exc).__mro__:
        code = getattr(cls, "code", None)
        if isinstance(code, str) and code in ERROR_STATUSES:
            return ERROR_STATUSES[code]
    return ERROR_STATUSES["SEMREPORT_ERROR"]


def status_of(exc: SemReportError) -> int:
    """Return the HTTP status an error is answered with."""
    return _entry(exc)[0]


def problem(exc: SemReportError, request_id: str | None = None) -> dict[str, object]:
    """Return ``exc`` as the members of an RFC 9457 problem document.

    Invalid requests list every bad field under ``errors``; the request id,
    when given, becomes the ``instance`` (``urn:uuid:...``).
    """
    status, title = _entry(exc)
    document: dict[str, object] = {
        "type": f"https://semreport.invalid/problems/{exc.code.lower().replace('_', '-')}",
        "title": title,
        "status": status,
        "detail": exc.message,
        "code": exc.code,
    }
    if isinstance(exc, InvalidRequest):
        document["errors"] = [{"path": e.path, "message": e.message} for e in exc.errors]
    if request_id is not None:
        document["instance"] = f"urn:uuid:{request_id}"
    return document


def problem_response(
    exc: SemReportError, request_id: str | None = None, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    """Return ``exc`` as an RFC 9457 ``application/problem+json`` response.

    Adds ``WWW-Authenticate: Bearer`` to 401 answers, and the request id as
    the problem's ``instance`` (``urn:uuid:...``) when one is given.
    """
    document = problem(exc, request_id)
    status = status_of(exc)
    all_headers = dict(headers or {})
    if status == 401:
        all_headers["WWW-Authenticate"] = _REALM + ', error="invalid_token"'
    return JSONResponse(
        document, status_code=status, headers=all_headers, media_type=PROBLEM_MEDIA_TYPE
    )


def internal_error(request_id: str) -> JSONResponse:
    """The answer to an unexpected error: a 500 problem quoting the logged request id."""
    return problem_response(
        _InternalError(f"an unexpected error occurred; quote request id {request_id}"),
        request_id,
    )
