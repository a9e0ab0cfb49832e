"""The exception hierarchy: one base, and a stable ``code`` for each error.

The domain knows no HTTP: adapters map codes to what their protocol answers
(the HTTP adapter to statuses and RFC 9457 problem documents, the command line
to exit codes).
"""

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
    "StorageNotFound",
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

    Each subclass has a stable machine-readable :attr:`code`; the message is
    for people. Without a message, the first line of the class's docstring is
    used.
    """

    code: ClassVar[str] = "SEMREPORT_ERROR"

    def __init__(self, message: str | None = None) -> None:
        self.message = message or _summary(type(self))
        super().__init__(self.message)


def _summary(cls: type) -> str:
    doc = (cls.__doc__ or "").strip()
    return doc.splitlines()[0].rstrip(".") if doc else cls.__name__


class InvalidRequest(SemReportError):
    """The input is malformed; :attr:`errors` lists every bad field with its path."""

    code = "INVALID_REQUEST"

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


class Unauthenticated(SemReportError):
    """No caller, or credentials that could not be verified."""

    code = "UNAUTHENTICATED"


class Forbidden(SemReportError):
    """The caller lacks the role or the project grant the use case requires.

    The same answer is given whether or not the project exists.
    """

    code = "FORBIDDEN"


class ProjectNotFound(SemReportError):
    """The project holds no records."""

    code = "PROJECT_NOT_FOUND"


class SessionNotFound(SemReportError):
    """No legacy session has that id."""

    code = "SESSION_NOT_FOUND"


class DecisionNotFound(SemReportError):
    """No decision of the project has that id."""

    code = "DECISION_NOT_FOUND"


class UnsupportedExportFormat(SemReportError):
    """The export format is not one of the allowed ones (the message names them)."""

    code = "UNSUPPORTED_EXPORT_FORMAT"


class GnnModelNotLoaded(SemReportError):
    """No graph neural network is loaded, so inference is refused."""

    code = "GNN_MODEL_NOT_LOADED"


class PayloadTooLarge(SemReportError):
    """The request exceeds a documented size limit."""

    code = "PAYLOAD_TOO_LARGE"


class ReferenceEmbedNotAvailable(SemReportError):
    """Reference embedding is planned and not available."""

    code = "REFERENCE_EMBED_NOT_AVAILABLE"


class CatalogueProfileMatchingNotConfigured(SemReportError):
    """No manufacturer catalogue is configured, so profiles cannot be matched."""

    code = "CATALOGUE_PROFILE_MATCHING_NOT_CONFIGURED"


class DecisionAlreadyRecorded(SemReportError):
    """A decision id was recorded before (or twice in one batch); nothing was written."""

    code = "DECISION_ALREADY_RECORDED"


class SessionAlreadyRecorded(SemReportError):
    """A session id was recorded before (or twice in one batch); nothing was written."""

    code = "SESSION_ALREADY_RECORDED"


class ConfigurationError(SemReportError):
    """The library was set up wrongly (a bad storage URL, a missing extra)."""

    code = "CONFIGURATION_ERROR"


class UnknownStorageScheme(ConfigurationError):
    """No storage adapter is registered for the URL's scheme."""

    code = "UNKNOWN_STORAGE_SCHEME"


class MissingExtra(ConfigurationError):
    """An optional dependency is not installed; the message says how to install it."""

    code = "MISSING_EXTRA"


class StorageError(SemReportError):
    """The storage backend failed or cannot be used."""

    code = "STORAGE_ERROR"


class StorageNotFound(StorageError):
    """The storage does not exist, and opening it was not allowed to create it."""

    code = "STORAGE_NOT_FOUND"


class IncompatibleSchema(StorageError):
    """The stored schema is newer than this library, or not a semreport schema."""

    code = "INCOMPATIBLE_SCHEMA"


class CorruptStorage(StorageError):
    """The storage is damaged or is not a semreport store at all."""

    code = "CORRUPT_STORAGE"
