"""The exception hierarchy: one base, a stable ``code`` and an HTTP status each."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

import attrs

__all__ = [
    "CatalogueProfileMatchingNotConfigured",
    "ConfigurationError",
    "CorruptStorage",
    "DecisionAlreadyRecorded",
    "DecisionNotFound",
    "FieldError",
    "Forbidden",
    "GnnModelNotLoaded",
    "IncompatibleSchema",
    "InvalidRequest",
    "MissingExtra",
    "PayloadTooLarge",
    "ProjectNotFound",
    "ReferenceEmbedNotAvailable",
    "SemReportError",
    "SessionAlreadyRecorded",
    "SessionNotFound",
    "StorageError",
    "Unauthenticated",
    "UnknownStorageScheme",
    "UnsupportedExportFormat",
]


@attrs.frozen
class FieldError:
    """One bad field of a request.

    Attributes:
        path: Where the field sits, as a JSONPath-like string such as
            ``$.decisions[3].attributes.cost_eur``.
        message: Why the value was refused.
    """

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class SemReportError(Exception):
    """Base of every error the library raises on purpose.

    Each subclass has a stable machine-readable :attr:`code` and the
    :attr:`http_status` an HTTP adapter answers with.
    """

    code: ClassVar[str] = "SEMREPORT_ERROR"
    http_status: ClassVar[int] = 500
    title: ClassVar[str] = "Internal error"

    def __init__(self, message: str | None = None) -> None:
        self.message = message or self.title
        super().__init__(self.message)

    def to_problem(self) -> dict[str, object]:
        """Return the error as the members of an RFC 9457 problem document."""
        return {
            "type": f"https://semreport.invalid/problems/{self.code.lower().replace('_', '-')}",
            "title": self.title,
            "status": self.http_status,
            "detail": self.message,
            "code": self.code,
        }


class InvalidRequest(SemReportError):
    """The input is malformed; :attr:`errors` lists every bad field with its path."""

    code = "INVALID_REQUEST"
    http_status = 400
    title = "Invalid request"

    def __init__(self, errors: Iterable[FieldError] | str, message: str | None = None) -> None:
        if isinstance(errors, str):
            errors = [FieldError("$", errors)]
        self.errors: tuple[FieldError, ...] = tuple(errors)
        if message is None:
            listed = "; ".join(str(e) for e in self.errors)
            message = f"invalid request: {listed}" if listed else "invalid request"
        super().__init__(message)

    @classmethod
    def at(cls, path: str, message: str) -> InvalidRequest:
        """Build the error for a single bad field."""
        return cls([FieldError(path, message)])

    def to_problem(self) -> dict[str, object]:
        problem = super().to_problem()
        problem["errors"] = [{"path": e.path, "message": e.message} for e in self.errors]
        return problem


class Unauthenticated(SemReportError):
    """No caller, or credentials that could not be verified."""

    code = "UNAUTHENTICATED"
    http_status = 401
    title = "Unauthenticated"


class Forbidden(SemReportError):
    """The caller lacks the role or the project grant the use case requires.

    The same answer is given whether or not the project exists.
    """

    code = "FORBIDDEN"
    http_status = 403
    title = "Forbidden"


class ProjectNotFound(SemReportError):
    """The project holds no records."""

    code = "PROJECT_NOT_FOUND"
    http_status = 404
    title = "Project not found"


class SessionNotFound(SemReportError):
    """No legacy session has that id."""

    code = "SESSION_NOT_FOUND"
    http_status = 404
    title = "Session not found"


class DecisionNotFound(SemReportError):
    """No decision of the project has that id."""

    code = "DECISION_NOT_FOUND"
    http_status = 404
    title = "Decision not found"


class UnsupportedExportFormat(SemReportError):
    """The export format is not one of the allowed ones (the message names them)."""

    code = "UNSUPPORTED_EXPORT_FORMAT"
    http_status = 404
    title = "Unsupported export format"


class GnnModelNotLoaded(SemReportError):
    """No graph neural network is loaded, so inference is refused."""

    code = "GNN_MODEL_NOT_LOADED"
    http_status = 404
    title = "GNN model not loaded"


class PayloadTooLarge(SemReportError):
    """The request exceeds a documented size limit."""

    code = "PAYLOAD_TOO_LARGE"
    http_status = 413
    title = "Payload too large"


class ReferenceEmbedNotAvailable(SemReportError):
    """Reference embedding is planned and not available."""

    code = "REFERENCE_EMBED_NOT_AVAILABLE"
    http_status = 501
    title = "Reference embedding not available"


class CatalogueProfileMatchingNotConfigured(SemReportError):
    """No manufacturer catalogue is configured, so profiles cannot be matched."""

    code = "CATALOGUE_PROFILE_MATCHING_NOT_CONFIGURED"
    http_status = 501
    title = "Catalogue profile matching not configured"


class DecisionAlreadyRecorded(SemReportError):
    """A decision id was recorded before (or twice in one batch); nothing was written."""

    code = "DECISION_ALREADY_RECORDED"
    http_status = 409
    title = "Decision already recorded"


class SessionAlreadyRecorded(SemReportError):
    """A session id was recorded before (or twice in one batch); nothing was written."""

    code = "SESSION_ALREADY_RECORDED"
    http_status = 409
    title = "Session already recorded"


class ConfigurationError(SemReportError):
    """The library was set up wrongly (a bad storage URL, a missing extra)."""

    code = "CONFIGURATION_ERROR"
    http_status = 500
    title = "Configuration error"


class UnknownStorageScheme(ConfigurationError):
    """No storage adapter is registered for the URL's scheme."""

    code = "UNKNOWN_STORAGE_SCHEME"
    title = "Unknown storage scheme"


class MissingExtra(ConfigurationError):
    """An optional dependency is not installed; the message says how to install it."""

    code = "MISSING_EXTRA"
    title = "Optional dependency missing"


class StorageError(SemReportError):
    """The storage backend failed or cannot be used."""

    code = "STORAGE_ERROR"
    http_status = 503
    title = "Storage error"


class IncompatibleSchema(StorageError):
    """The stored schema is newer than this library, or not a semreport schema."""

    code = "INCOMPATIBLE_SCHEMA"
    title = "Incompatible storage schema"


class CorruptStorage(StorageError):
    """The storage is damaged or is not a semreport store at all."""

    code = "CORRUPT_STORAGE"
    title = "Corrupt storage"
