"""The service contract as data: one row per endpoint.

The facade's authorisation, the HTTP routes, the OpenAPI document and the
docs all read this table, so the contract is written down exactly once. A
row says what the endpoint is (method, path, status, role, purpose, the
facade method serving it) and everything an adapter needs to serve and
describe it: its parameters and body, the kind of response and its media
types, the error statuses it may answer, which executor lane runs it and
its time limit, whether it answers conditional requests, and the links
from its result to a follow-up request.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from typing import Final

import attrs

from semreport.domain import FrozenDict, GnnModelNotLoaded, Role, SemReportError
from semreport.search import Criteria, Exemplar

__all__ = [
    "CONTRACT",
    "AuthKind",
    "Body",
    "Endpoint",
    "EndpointStatus",
    "Lane",
    "Link",
    "Parameter",
    "ParameterKind",
    "ParameterLocation",
    "ResponseKind",
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


class Lane(enum.StrEnum):
    """Which executor runs an endpoint's work: cheap calls never queue behind heavy ones."""

    LIGHT = "light"
    """Cheap calls: status, search, signals and the reserved rows."""
    HEAVY = "heavy"
    """Heavy calls: reports and exports."""


class ResponseKind(enum.StrEnum):
    """How a successful result becomes a response."""

    JSON = "json"
    """The result's wire form as JSON."""
    DOCUMENT = "document"
    """A document with a record digest (``.html``, ``.digest``): HTML with the digest in
    ``SemReport-Digest-*`` headers, or a JSON envelope ``{digest, html}`` on request."""
    FILE = "file"
    """Bytes with the result's ``media_type`` and ``filename`` (an attachment)."""
    STREAM = "stream"
    """Chunks of bytes iterated from the result (with ``media_type``, ``filename`` and
    ``digest``), sent as they are produced."""
    REFUSAL = "refusal"
    """Never a success: every request is refused."""


class ParameterLocation(enum.StrEnum):
    """Where a parameter travels."""

    PATH = "path"
    QUERY = "query"


class ParameterKind(enum.StrEnum):
    """What values a parameter takes."""

    IDENTIFIER = "identifier"
    """An identifier (``^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$``)."""
    TEXT = "text"
    """Any text; the facade checks it (e.g. an export format: anything else is 404)."""
    SEQUENCE = "sequence"
    """A sequence number: an integer from 0 to ``2**53 - 1``."""
    CHOICE = "choice"
    """One of the parameter's ``choices``."""


_PARAM = re.compile(r"\{([a-z_]+)\}")


@attrs.frozen
class Parameter:
    """A path or query parameter of an endpoint.

    Attributes:
        name: The parameter's name; a query parameter is passed to the facade
            method as the keyword of that name.
        location: Path or query.
        kind: What values it takes.
        description: One line for the OpenAPI document.
        choices: The values of a ``choice`` parameter.
        example: An example value.
    """

    name: str
    location: ParameterLocation
    kind: ParameterKind
    description: str
    choices: tuple[str, ...] = ()
    example: str | None = None


@attrs.frozen
class Body:
    """The JSON request body of an endpoint.

    Attributes:
        parameter: The facade parameter the parsed body fills.
        type: The attrs class the body is structured into (its JSON Schema is
            the document's), or ``None`` for free JSON.
        required: Whether a body must be sent; a required body is a JSON object.
    """

    parameter: str
    type: type | None = None
    required: bool = True


@attrs.frozen
class Link:
    """A follow-up request built from a successful response (an OpenAPI link).

    Attributes:
        name: The link's name in the document.
        operation: The operation the link calls (a row's ``operation``).
        description: What following the link does.
        body: Members of the follow-up's body, each set from a member of this
            response (``{"cursor": "next_cursor"}``); the path parameters and the
            other body members are those of this request.
    """

    name: str
    operation: str
    description: str
    body: FrozenDict[str, str] = attrs.field(factory=FrozenDict)


_JSON: Final = ("application/json",)
_COMMON: Final = (401, 403, 413, 500, 503)
"""Statuses any authenticated endpoint may answer: credentials, grants, a declared body
over the limit, an unexpected error, and 503 (storage unavailable, busy or over time)."""


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
        refusal: The error an always-refused endpoint answers with (its code
            and status); 404 ``NOT_FOUND`` when ``None``.
        parameters: The path parameters (every name of the template, in order)
            and the optional query parameters.
        body: The JSON body, if the endpoint takes one.
        response: How a result becomes the response.
        media_types: The media types of a successful response.
        errors: The error statuses the endpoint may answer.
        lane: Which executor runs the work (see :class:`Lane`).
        time_limit: Seconds a request may take, queueing included, before it is
            answered 503 and its work is abandoned at its next check.
        etag: For endpoints answering conditional requests: the dotted
            attribute path of the result's version (``digest.report_sha256``),
            sent as ``ETag``; a matching ``If-None-Match`` is answered 304.
        etag_probe: A cheaper facade method, called with the same arguments,
            whose result carries the same version: a conditional request is
            answered from it without the full work.
        stream: A facade method producing the same response as chunks (kind
            ``stream``), used instead of ``operation`` when the facade has it.
        links: Follow-up requests built from a successful response.
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
    refusal: type[SemReportError] | None = None
    parameters: tuple[Parameter, ...] = ()
    body: Body | None = None
    response: ResponseKind = ResponseKind.JSON
    media_types: tuple[str, ...] = _JSON
    errors: tuple[int, ...] = _COMMON
    lane: Lane = Lane.LIGHT
    time_limit: float = 10.0
    etag: str | None = None
    etag_probe: str | None = None
    stream: str | None = None
    links: tuple[Link, ...] = ()

    def __attrs_post_init__(self) -> None:
        declared = tuple(p.name for p in self.parameters if p.location is ParameterLocation.PATH)
        if declared != self.path_params:
            raise ValueError(
                f"{self.method} {self.path}: path parameters {declared} do not match the template"
            )

    @property
    def path_params(self) -> tuple[str, ...]:
        """The names of the path's parameters, in order."""
        return tuple(_PARAM.findall(self.path))

    @property
    def query_params(self) -> tuple[Parameter, ...]:
        """The optional query parameters."""
        return tuple(p for p in self.parameters if p.location is ParameterLocation.QUERY)

    @property
    def reserved(self) -> bool:
        """Whether the endpoint is reserved for a capability not yet offered."""
        return self.status in (EndpointStatus.PLANNED_RESERVED, EndpointStatus.DESIGNED_RESERVED)


_PROJECT: Final = Parameter(
    "project_id", ParameterLocation.PATH, ParameterKind.IDENTIFIER, "The project.", example="p-1"
)
_SESSION: Final = Parameter(
    "session_id", ParameterLocation.PATH, ParameterKind.IDENTIFIER, "The session.", example="s-1"
)
_FORMAT: Final = Parameter(
    "fmt",
    ParameterLocation.PATH,
    ParameterKind.TEXT,
    "The export format: `json`, `pdf` or `graph` (anything else is 404).",
    example="json",
)
_GRAPH_FORMAT: Final = Parameter(
    "graph_format",
    ParameterLocation.QUERY,
    ParameterKind.CHOICE,
    "For `graph` exports: `node-link` JSON (default) or `graphml`.",
    choices=("node-link", "graphml"),
)
_AS_OF: Final = Parameter(
    "as_of",
    ParameterLocation.QUERY,
    ParameterKind.SEQUENCE,
    "Assemble the report as of this sequence number (the latest by default; a number past "
    "the latest means the latest).",
)
_NEXT_PAGE: Final = Link(
    "next_page",
    "find",
    "The next page of the same search: this request with `cursor` set to `next_cursor`.",
    body=FrozenDict({"cursor": "next_cursor"}),
)
_NEXT_SIMILAR: Final = Link(
    "next_page",
    "similar",
    "The next page of the same search: this request with `cursor` set to `next_cursor`.",
    body=FrozenDict({"cursor": "next_cursor"}),
)

_SESSION_MEDIA_TYPES: Final = ("application/json", "application/pdf", "application/graphml+xml")
_REPORT_VERSION: Final = "digest.report_sha256"

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
        parameters=(_PROJECT,),
        errors=(400, 404, *_COMMON),
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
        parameters=(_PROJECT,),
        body=Body("criteria", Criteria),
        errors=(400, 404, 415, *_COMMON),
        links=(_NEXT_PAGE,),
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
        parameters=(_PROJECT,),
        body=Body("exemplar", Exemplar),
        errors=(400, 404, 415, *_COMMON),
        links=(_NEXT_SIMILAR,),
    ),
    Endpoint(
        "GET",
        "/gnn/status",
        EndpointStatus.PLANNED,
        AuthKind.OPERATOR,
        "Report that no GNN model is loaded.",
        operation="gnn_status",
        capability="model_status",
        time_limit=5.0,
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
        refusal=GnnModelNotLoaded,
        response=ResponseKind.REFUSAL,
        media_types=(),
        errors=(404,),
        time_limit=0.0,
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
        parameters=(_SESSION, _FORMAT, _GRAPH_FORMAT),
        response=ResponseKind.FILE,
        media_types=_SESSION_MEDIA_TYPES,
        errors=(400, 404, *_COMMON),
        lane=Lane.HEAVY,
        time_limit=60.0,
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
        parameters=(_PROJECT, _AS_OF),
        errors=(400, 404, *_COMMON),
        lane=Lane.HEAVY,
        time_limit=60.0,
        etag=_REPORT_VERSION,
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
        parameters=(_PROJECT, _AS_OF),
        response=ResponseKind.DOCUMENT,
        media_types=("text/html", "application/json"),
        errors=(400, 404, *_COMMON),
        lane=Lane.HEAVY,
        time_limit=120.0,
        etag=_REPORT_VERSION,
        etag_probe="report",
        stream="stream_report",
    ),
    Endpoint(
        "POST",
        "/reference/embed",
        EndpointStatus.PLANNED_RESERVED,
        AuthKind.USER,
        "Refuse clearly: reference embedding is not available.",
        operation="embed_reference",
        capability="reference_embedding",
        body=Body("payload", required=False),
        errors=(400, 415, 501, *_COMMON),
        time_limit=5.0,
    ),
    Endpoint(
        "POST",
        "/catalogue/match",
        EndpointStatus.DESIGNED_RESERVED,
        AuthKind.USER,
        "CATALOGUE_PROFILE_MATCHING_NOT_CONFIGURED unless a catalogue is configured.",
        operation="match_catalogue",
        capability="catalogue_matching",
        body=Body("payload"),
        errors=(400, 415, 501, *_COMMON),
        time_limit=5.0,
    ),
)
"""Every endpoint of the service, in the order of the design's table."""

_BY_OPERATION: Final[Mapping[str, Endpoint]] = {row.operation: row for row in CONTRACT}


def endpoint(operation: str) -> Endpoint:
    """Return the contract row served by the facade method ``operation``.

    Raises:
        KeyError: if no row names that operation.
    """
    return _BY_OPERATION[operation]
