"""The service contract as data: one row per endpoint.

The facade's authorisation, the HTTP routes, the OpenAPI document and the
docs all read this table, so the contract is written down exactly once.
"""

from __future__ import annotations

import enum
import re
from typing import Final

import attrs

from semreport.domain import Role

__all__ = [
    "CONTRACT",
    "AuthKind",
    "Endpoint",
    "EndpointStatus",
    "endpoint",
]


class EndpointStatus(enum.StrEnum):
    """How far an endpoint is built, as the contract states it."""

    IMPLEMENTED = "Implemented"
    PARTIAL = "Partial"
    PLANNED = "Planned"
    PLANNED_RESERVED = "Planned (reserved)"
    DESIGNED_RESERVED = "Designed (reserved)"


class AuthKind(enum.StrEnum):
    """The role an endpoint requires."""

    USER = "user"
    OPERATOR = "operator"

    @property
    def role(self) -> Role:
        """The caller role that satisfies this auth kind."""
        return Role(self.value)


_PARAM = re.compile(r"\{([a-z_]+)\}")


@attrs.frozen
class Endpoint:
    """One row of the contract.

    Attributes:
        method: The HTTP method.
        path: The path template, without a version prefix.
        status: How far the endpoint is built.
        auth: The role a caller needs.
        purpose: What the endpoint does, in one line.
        operation: The name of the facade method that serves it.
        capability: The capability the endpoint belongs to.
        project_scoped: Whether the caller needs a grant for a project (taken
            from the path, or for sessions from the session's project).
        always_refused: Whether every request is refused before anything else,
            authentication included (``POST /gnn/infer``).
    """

    method: str
    path: str
    status: EndpointStatus
    auth: AuthKind
    purpose: str
    operation: str
    capability: str
    project_scoped: bool = False
    always_refused: bool = False

    @property
    def path_params(self) -> tuple[str, ...]:
        """The names of the path's parameters, in order."""
        return tuple(_PARAM.findall(self.path))

    @property
    def reserved(self) -> bool:
        """Whether the endpoint is reserved for a capability not yet offered."""
        return self.status in (EndpointStatus.PLANNED_RESERVED, EndpointStatus.DESIGNED_RESERVED)


CONTRACT: Final[tuple[Endpoint, ...]] = (
    Endpoint(
        "GET",
        "/projects/{project_id}/semantic/signals",
        EndpointStatus.IMPLEMENTED,
        AuthKind.USER,
        "List the signals available for the project, with coverage and value ranges.",
        operation="signals",
        capability="semantic_search",
        project_scoped=True,
    ),
    Endpoint(
        "POST",
        "/projects/{project_id}/semantic/find",
        EndpointStatus.PARTIAL,
        AuthKind.USER,
        "Criteria-based heuristic search; criteria in the body.",
        operation="find",
        capability="semantic_search",
        project_scoped=True,
    ),
    Endpoint(
        "POST",
        "/projects/{project_id}/semantic/similar",
        EndpointStatus.PARTIAL,
        AuthKind.USER,
        "Heuristic similarity from an exemplar in the body.",
        operation="similar",
        capability="semantic_search",
        project_scoped=True,
    ),
    Endpoint(
        "GET",
        "/gnn/status",
        EndpointStatus.PLANNED,
        AuthKind.OPERATOR,
        "Report that no GNN model is loaded.",
        operation="gnn_status",
        capability="model_status",
    ),
    Endpoint(
        "POST",
        "/gnn/infer",
        EndpointStatus.PLANNED,
        AuthKind.OPERATOR,
        "Always refuse: HTTP 404, whatever the input.",
        operation="gnn_infer",
        capability="model_inference",
        always_refused=True,
    ),
    Endpoint(
        "POST",
        "/sessions/{session_id}/export/{fmt}",
        EndpointStatus.PARTIAL,
        AuthKind.USER,
        "Export a legacy session; fmt is json, pdf or graph.",
        operation="export_session",
        capability="session_export",
        project_scoped=True,
    ),
    Endpoint(
        "GET",
        "/projects/{project_id}/report",
        EndpointStatus.IMPLEMENTED,
        AuthKind.USER,
        "The assembled report as JSON, from Decision Memory.",
        operation="report",
        capability="reports",
        project_scoped=True,
    ),
    Endpoint(
        "POST",
        "/projects/{project_id}/report/export",
        EndpointStatus.IMPLEMENTED,
        AuthKind.USER,
        "The report as HTML plus its record digest.",
        operation="export_report",
        capability="reports",
        project_scoped=True,
    ),
    Endpoint(
        "POST",
        "/reference/embed",
        EndpointStatus.PLANNED_RESERVED,
        AuthKind.USER,
        "Refuse clearly: reference embedding is not available.",
        operation="embed_reference",
        capability="reference_embedding",
    ),
    Endpoint(
        "POST",
        "/catalogue/match",
        EndpointStatus.DESIGNED_RESERVED,
        AuthKind.USER,
        "CATALOGUE_PROFILE_MATCHING_NOT_CONFIGURED unless a catalogue is configured.",
        operation="match_catalogue",
        capability="catalogue_matching",
    ),
)
"""Every endpoint of the service, in the order of the design's table."""

_BY_OPERATION: Final = {row.operation: row for row in CONTRACT}


def endpoint(operation: str) -> Endpoint:
    """Return the contract row served by the facade method ``operation``.

    Raises:
        KeyError: if no row names that operation.
    """
    return _BY_OPERATION[operation]
