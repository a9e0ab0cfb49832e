"""The OpenAPI 3.1 document: generated from the contract, kept in the package.

:func:`build_openapi` writes the document from :data:`semreport.CONTRACT`
(paths, methods, purposes, auth), the facade's type annotations (bodies and
results, turned into JSON Schema from their attrs classes) and the
hand-written schemas below (problems, limits). The result is checked in as
``openapi.json`` beside this module and served as is; a test fails when the
two differ. Regenerate with ``python -m semreport.http.openapi``.
"""

from __future__ import annotations

import copy
import datetime as dt
import enum
import functools
import inspect
import json
import types
import typing
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any, Final, Literal, Union, get_args, get_origin

import attrs

from semreport import limits
from semreport.contract import (
    CONTRACT,
    Endpoint,
    Lane,
    Parameter,
    ParameterKind,
    ParameterLocation,
    ResponseKind,
)
from semreport.domain import IDENTIFIER_PATTERN, FrozenDict, JsonValue, Role
from semreport.domain._values import MAX_SAFE_INTEGER
from semreport.http._routing import MAX_JSON_DEPTH, accepted_query_parameters, digest_header
from semreport.search.signals import SIGNALS

__all__ = ["OPENAPI_PATH", "build_openapi", "load_openapi", "render_openapi"]

OPENAPI_PATH: Final = Path(__file__).with_name("openapi.json")
"""Where the checked-in document lives (package data)."""

_JSON = "application/json"
_PROBLEM = "application/problem+json"

_IDENTIFIER: Final = {"type": "string", "pattern": f"^{IDENTIFIER_PATTERN}$"}

_CONSTRAINTS: Final[Mapping[str, Mapping[str, Any]]] = {
    "identifier": _IDENTIFIER,
    "non-empty text": {"type": "string", "pattern": r"\S"},
    "tag": {
        "type": "string",
        "minLength": 1,
        "maxLength": 128,
        "format": "semreport-tag",
        "description": "A tag: printable characters only (no control or format characters), "
        "without surrounding whitespace.",
    },
    "attribute name": {"type": "string", "pattern": r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$"},
    "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
    "json object": {"type": "object"},
    "json": {},
}
"""JSON Schema for each named value constraint of the domain."""

_PAGE: Final = {
    "minimum": 1,
    "maximum": limits.MAX_PAGE_SIZE,
    "description": f"Page size, 1 to {limits.MAX_PAGE_SIZE}.",
}
_MIN_SCORE: Final = {
    "minimum": 0,
    "maximum": 1,
    "description": "Drop hits scoring below this, 0 to 1 (0 by default).",
}
_EXPLAIN: Final = {
    "description": "Explain every hit (true by default); false leaves explanations empty.",
}
_CURSOR: Final = {
    "format": "semreport-cursor",
    "maxLength": 1024,
    "description": "Null for the first page; for the next one, the `next_cursor` of the page "
    "before (an opaque token signed by the service, valid for the same query).",
}
_WEIGHTS: Final = {
    "propertyNames": {"enum": [signal.name for signal in SIGNALS]},
    "additionalProperties": {"type": "number", "minimum": 0},
    "description": "Weight per signal (a signal's name, a finite number of 0 or more).",
}
_FILTER_VALUES: Final = (
    f"All filters and preferences of one request list at most {limits.MAX_FILTER_VALUES} "
    "values together."
)

# Hand-written refinements of generated schemas, by class then property: the
# limits the facade enforces, each from its named constant in semreport.limits.
_REFINEMENTS: Final[Mapping[str, Mapping[str, Mapping[str, Any]]]] = {
    "Criteria": {
        "text": {"maxLength": limits.MAX_QUERY_TEXT},
        "limit": _PAGE,
        "near": {"maxProperties": limits.MAX_FILTER_VALUES, "description": _FILTER_VALUES},
        "min_score": _MIN_SCORE,
        "explain": _EXPLAIN,
        "cursor": _CURSOR,
        "weights": _WEIGHTS,
    },
    "Exemplar": {
        "limit": _PAGE,
        "min_score": _MIN_SCORE,
        "explain": _EXPLAIN,
        "cursor": _CURSOR,
        "weights": _WEIGHTS,
    },
    "Highlight": {
        "spans": {
            "type": "array",
            "items": {
                "type": "array",
                "items": {"type": "integer", "minimum": 0},
                "minItems": 2,
                "maxItems": 2,
            },
            "description": "(start, end) offsets into the fragment of each matched word.",
        }
    },
    "FacetCounts": {
        name: {
            "additionalProperties": {"type": "integer", "minimum": 0},
            "description": "Value -> matching decisions, most frequent first, ties by value.",
        }
        for name in ("domain", "status", "agent", "tags")
    },
    "Filters": {
        "domain": {"maxItems": limits.MAX_FILTER_VALUES},
        "status": {"maxItems": limits.MAX_FILTER_VALUES},
        "agent": {"maxItems": limits.MAX_FILTER_VALUES},
        "tags": {"maxItems": limits.MAX_FILTER_VALUES},
        "attributes": {"maxProperties": limits.MAX_FILTER_VALUES, "description": _FILTER_VALUES},
    },
    "FacetSelection": {
        "domain": {"maxItems": limits.MAX_FILTER_VALUES},
        "agent": {"maxItems": limits.MAX_FILTER_VALUES},
        "tags": {"maxItems": limits.MAX_FILTER_VALUES},
    },
    "PartialDecision": {
        "title": {"maxLength": limits.MAX_EXEMPLAR_TEXT},
        "statement": {"maxLength": limits.MAX_EXEMPLAR_TEXT},
        "rationale": {
            "maxLength": limits.MAX_EXEMPLAR_TEXT,
            "description": "Title, statement and rationale hold at most "
            f"{limits.MAX_EXEMPLAR_TEXT} characters together.",
        },
        "tags": {"maxItems": limits.MAX_EXEMPLAR_TAGS},
        "attributes": {"maxProperties": limits.MAX_EXEMPLAR_ATTRIBUTES},
        "evidence": {"maxItems": limits.MAX_EVIDENCE},
        "links": {"maxItems": limits.MAX_LINKS},
        "elements": {"maxItems": limits.MAX_ELEMENTS},
    },
}

_CLASS_REFINEMENTS: Final[Mapping[str, Mapping[str, Any]]] = {
    "Exemplar": {
        "oneOf": [
            {
                "required": ["decision_id"],
                "properties": {"decision_id": {"type": "string"}, "decision": {"type": "null"}},
            },
            {
                "required": ["decision"],
                "properties": {"decision": {"type": "object"}, "decision_id": {"type": "null"}},
            },
        ],
        "description": "What `similar` resembles: a stored decision (`decision_id`) or an "
        "inline one (`decision`); exactly one of the two.",
    },
    "NumericRange": {
        "description": "A numeric range; `min` is not greater than `max` when both are given.",
        "x-rule": "min <= max",
    },
    "TimeRange": {
        "description": "A time range; `after` is not later than `before` when both are given.",
        "x-rule": "after <= before",
    },
    "Filters": {
        "description": "Hard filters: within a facet any listed value matches, across facets "
        f"all must. Together `domain`, `status`, `agent`, `tags` and `attributes` list at "
        f"most {limits.MAX_FILTER_VALUES} values (`MAX_FILTER_VALUES`).",
        "x-rule": f"values together <= {limits.MAX_FILTER_VALUES}",
    },
    "FacetSelection": {
        "description": "Preferred facet values; together at most "
        f"{limits.MAX_FILTER_VALUES} values (`MAX_FILTER_VALUES`).",
        "x-rule": f"values together <= {limits.MAX_FILTER_VALUES}",
    },
    "PartialDecision": {
        "description": "An inline exemplar: any fields of a decision. Title, statement and "
        f"rationale hold at most {limits.MAX_EXEMPLAR_TEXT} characters together "
        "(`MAX_EXEMPLAR_TEXT`).",
        "x-rule": f"len(title + statement + rationale) <= {limits.MAX_EXEMPLAR_TEXT}",
    },
}
"""Hand-written constraints on whole classes (those spanning several properties)."""

_INTEGER: Final = {
    "type": "integer",
    "minimum": -MAX_SAFE_INTEGER,
    "maximum": MAX_SAFE_INTEGER,
}
"""Integers the wire form accepts: within ±(2**53 - 1) (I-JSON, RFC 7493)."""

_DESCRIPTIONS: Final[Mapping[int, str]] = {
    400: "Invalid request: a malformed path id, query, JSON body or field; `errors` lists the "
    "field paths.",
    401: "Missing or invalid credentials (the answer carries `WWW-Authenticate: Bearer`).",
    403: "The caller lacks the role or the project grant; the same answer whether or not the "
    "project exists.",
    404: "Not found: the project, session or export format does not exist.",
    413: f"The request body exceeds {limits.MAX_BODY_BYTES // 1024} KiB (refused before it is "
    "read whole).",
    415: "The request body is not `application/json` (UTF-8).",
    500: "An unexpected error; the problem's `instance` carries the request id that is logged.",
    501: "The capability is reserved and not available.",
    503: "The service cannot answer now: the storage is unavailable, the request's executor is "
    "busy (`SERVICE_BUSY`) or the request passed its time limit (`REQUEST_TIMED_OUT`); the "
    "latter two carry `Retry-After`.",
}


def _problem_schemas() -> dict[str, Any]:
    return {
        "Problem": {
            "type": "object",
            "description": "An RFC 9457 problem document.",
            "required": ["type", "title", "status", "detail", "code"],
            "properties": {
                "type": {"type": "string", "format": "uri"},
                "title": {"type": "string"},
                "status": {"type": "integer", "minimum": 400, "maximum": 599},
                "detail": {"type": "string"},
                "code": {
                    "type": "string",
                    "pattern": "^[A-Z][A-Z0-9_]*$",
                    "description": "The library's stable error code, e.g. `PROJECT_NOT_FOUND`.",
                },
                "instance": {
                    "type": "string",
                    "description": "`urn:uuid:` and the request id, as logged by the server.",
                },
                "errors": {
                    "type": "array",
                    "description": "For `INVALID_REQUEST`: every bad field and why.",
                    "items": {"$ref": "#/components/schemas/FieldError"},
                },
            },
        },
        "FieldError": {
            "type": "object",
            "required": ["path", "message"],
            "additionalProperties": False,
            "properties": {
                "path": {"type": "string", "description": "JSONPath-like, e.g. `$.page_size`."},
                "message": {"type": "string"},
            },
        },
    }


class _Schemas:
    """Collects component schemas of attrs classes while converting types."""

    def __init__(self) -> None:
        self.components: dict[str, Any] = {}

    def of(self, tp: Any) -> dict[str, Any]:  # noqa: PLR0911, PLR0912 - one branch per kind
        """Return the JSON Schema of a type as the wire converter writes and reads it."""
        origin = get_origin(tp)
        if origin is typing.Annotated:
            for meta in tp.__metadata__:
                name = getattr(meta, "name", None)
                if isinstance(name, str) and name in _CONSTRAINTS:
                    return dict(_CONSTRAINTS[name])
            return self.of(get_args(tp)[0])
        if tp is Any or tp is object or tp is JsonValue or isinstance(tp, typing.ForwardRef):
            return {}
        if tp is type(None) or tp is None:
            return {"type": "null"}
        if tp is bool:
            return {"type": "boolean"}
        if tp is int:
            return dict(_INTEGER)
        if tp is float:
            return {"type": "number"}
        if tp is str:
            return {"type": "string"}
        if tp is dt.datetime:
            return {"type": "string", "format": "date-time"}
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return {"type": "string", "enum": [m.value for m in tp]}
        if isinstance(tp, type) and attrs.has(tp):
            return self._class(tp)
        if origin is Literal:
            return {"enum": list(get_args(tp))}
        if origin in (Union, types.UnionType):
            members = [self.of(arg) for arg in get_args(tp)]
            return {"anyOf": members}
        if origin in (tuple, list) or tp in (tuple, list):
            args = get_args(tp)
            return {"type": "array", "items": self.of(args[0]) if args else {}}
        if origin in (set, frozenset) or tp in (set, frozenset):
            args = get_args(tp)
            return {"type": "array", "uniqueItems": True, "items": self.of(args[0]) if args else {}}
        if origin in (dict, Mapping, FrozenDict) or tp in (dict, FrozenDict):
            args = get_args(tp)
            schema: dict[str, Any] = {"type": "object"}
            if args:
                keys = self.of(args[0])
                if keys.get("pattern"):
                    schema["propertyNames"] = {"pattern": keys["pattern"]}
                schema["additionalProperties"] = self.of(args[1])
            return schema
        if isinstance(origin, type) and issubclass(origin, Mapping):
            return {"type": "object"}
        if isinstance(tp, type) and issubclass(tp, Mapping):
            return {"type": "object"}
        raise TypeError(f"no JSON Schema for {tp!r}")

    def _class(self, cls: type) -> dict[str, Any]:
        name = cls.__name__
        ref = {"$ref": f"#/components/schemas/{name}"}
        if name in self.components:
            return ref
        self.components[name] = {}  # placeholder: recursive references resolve to the ref
        hints = typing.get_type_hints(cls, include_extras=True)
        properties: dict[str, Any] = {}
        required: list[str] = []
        refinements = _REFINEMENTS.get(name, {})
        for field in attrs.fields(cls):
            prop = self.of(hints[field.name])
            prop.update(refinements.get(field.name, {}))
            properties[field.name] = prop
            if field.default is attrs.NOTHING:
                required.append(field.name)
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        if required:
            schema["required"] = required
        schema["additionalProperties"] = False
        doc = inspect.getdoc(cls)
        if doc:
            schema["description"] = doc.split("\n\n", 1)[0].replace("\n", " ")
        schema.update(_CLASS_REFINEMENTS.get(name, {}))
        self.components[name] = schema
        return ref


def _unannotated(*_args: Any, **_kwargs: Any) -> Any:
    return None


def _hints(function: Callable[..., Any]) -> dict[str, Any]:
    return typing.get_type_hints(function, include_extras=True)


def _error(status: int) -> dict[str, Any]:
    response: dict[str, Any] = {
        "description": _DESCRIPTIONS[status],
        "content": {_PROBLEM: {"schema": {"$ref": "#/components/schemas/Problem"}}},
    }
    if status == 401:
        response["headers"] = {
            "WWW-Authenticate": {
                "description": '`Bearer realm="semreport"`, with `error="invalid_token"`.',
                "schema": {"type": "string", "pattern": "^Bearer"},
            }
        }
    if status == 503:
        response["headers"] = {
            "Retry-After": {
                "description": "Seconds to wait before retrying (when busy or over time).",
                "schema": {"type": "string", "pattern": "^[0-9]+$"},
            }
        }
    return response


_KIND_SCHEMAS: Final[Mapping[ParameterKind, Mapping[str, Any]]] = {
    ParameterKind.IDENTIFIER: _IDENTIFIER,
    ParameterKind.TEXT: {"type": "string"},
    ParameterKind.SEQUENCE: {"type": "integer", "minimum": 0, "maximum": MAX_SAFE_INTEGER},
    ParameterKind.CHOICE: {"type": "string"},
}
"""The JSON Schema of each kind of parameter, as the adapter checks it."""


def _parameter(parameter: Parameter) -> dict[str, Any]:
    schema = dict(_KIND_SCHEMAS[parameter.kind])
    if parameter.choices:
        schema["enum"] = list(parameter.choices)
    document: dict[str, Any] = {
        "name": parameter.name,
        "in": parameter.location.value,
        "required": parameter.location is ParameterLocation.PATH,
        "description": parameter.description,
        "schema": schema,
    }
    if parameter.example is not None:
        document["example"] = parameter.example
    return document


def _parameters(row: Endpoint, method: Callable[..., Any]) -> list[dict[str, Any]]:
    path = [_parameter(p) for p in row.parameters if p.location is ParameterLocation.PATH]
    query = [_parameter(p) for p in accepted_query_parameters(row, method)]
    return [*path, *query]


_ETAG_HEADER: Final = {
    "ETag": {
        "description": "The report's version (its digest's `report_sha256`); send it back in "
        "`If-None-Match` to be answered 304 while the report is unchanged.",
        "schema": {"type": "string"},
    }
}


def _digest_schema(returns: Any, schemas: _Schemas) -> tuple[list[str], dict[str, Any]]:
    """The digest members and schema of a result type with a ``digest`` attribute."""
    if isinstance(returns, type) and attrs.has(returns):
        digest_tp = typing.get_type_hints(returns, include_extras=True).get("digest")
        if isinstance(digest_tp, type) and attrs.has(digest_tp):
            return [f.name for f in attrs.fields(digest_tp)], schemas.of(digest_tp)
    return [], {"type": "object"}


def _document_success(row: Endpoint, returns: Any, schemas: _Schemas) -> dict[str, Any]:
    digest_fields, digest_schema = _digest_schema(returns, schemas)
    html, json_type = row.media_types[0], row.media_types[1]
    headers: dict[str, Any] = {
        digest_header(name): {
            "description": f"The digest's `{name}` member.",
            "schema": {"type": "string"},
        }
        for name in digest_fields
    }
    return {
        "description": "The self-contained HTML report. The record digest comes in the "
        "`SemReport-Digest-*` headers; ask `Accept: application/json` for a JSON envelope "
        "holding both.",
        "headers": headers,
        "content": {
            html: {"schema": {"type": "string"}},
            json_type: {
                "schema": {
                    "type": "object",
                    "required": ["digest", "html"],
                    "additionalProperties": False,
                    "properties": {"digest": digest_schema, "html": {"type": "string"}},
                }
            },
        },
    }


def _success(row: Endpoint, method: Callable[..., Any], schemas: _Schemas) -> dict[str, Any]:
    returns = _hints(method).get("return", Any)
    response: dict[str, Any]
    if row.response is ResponseKind.DOCUMENT:
        response = _document_success(row, returns, schemas)
    elif row.response in (ResponseKind.FILE, ResponseKind.STREAM):
        response = {
            "description": "The export, with its media type and a `Content-Disposition` file name.",
            "headers": {
                "Content-Disposition": {
                    "description": '`attachment; filename="..."`',
                    "schema": {"type": "string", "pattern": "^(attachment|inline); filename="},
                }
            },
            "content": {media: {"schema": {}} for media in row.media_types},
        }
    else:
        response = {
            "description": "The result, in the library's wire form.",
            "content": {media: {"schema": schemas.of(returns)} for media in row.media_types},
        }
    if row.etag is not None:
        response["headers"] = {**response.get("headers", {}), **_ETAG_HEADER}
    if row.links:
        response["links"] = {link.name: _link(row, link) for link in row.links}
    return response


def _link(row: Endpoint, link: Any) -> dict[str, Any]:
    """An OpenAPI link: the same request, with some body members from this response.

    The follow-up's body is this request's body member by member (a cursor is
    valid only for the query it was issued for), with the link's members set
    from the response; ``x-schemathesis.merge_body: false`` tells schemathesis
    to send that body as it is rather than mixing it with generated members.
    """
    document: dict[str, Any] = {
        "operationId": link.operation,
        "description": link.description,
    }
    if row.path_params:
        document["parameters"] = {name: f"$request.path.{name}" for name in row.path_params}
    if link.body:
        members = (
            [field.name for field in attrs.fields(row.body.type)]
            if row.body is not None and row.body.type is not None and attrs.has(row.body.type)
            else []
        )
        body = {name: f"$request.body#/{name}" for name in members}
        body.update({name: f"$response.body#/{member}" for name, member in link.body.items()})
        document["requestBody"] = body
        document["x-schemathesis"] = {"merge_body": False}
    return document


def _refused_operation(row: Endpoint, operation: dict[str, Any]) -> dict[str, Any]:
    operation["description"] = (
        f"{row.purpose}\n\nContract status: **{row.status.value}**. Every request is "
        "answered 404 before credentials, content type or body are looked at."
    )
    operation["security"] = []
    operation["requestBody"] = {
        "required": False,
        "description": "Ignored: never read.",
        "content": {"*/*": {"schema": {}}},
    }
    code = row.refusal.code if row.refusal is not None else "NOT_FOUND"
    operation["responses"] = {
        "404": {
            "description": f"Always (`{code}`).",
            "content": {_PROBLEM: {"schema": {"$ref": "#/components/schemas/Problem"}}},
        }
    }
    return operation


def _request_body(row: Endpoint, schemas: _Schemas) -> dict[str, Any]:
    assert row.body is not None
    body_schema: dict[str, Any] = {}
    if row.body.required:
        body_schema = schemas.of(row.body.type) if row.body.type is not None else {}
        if body_schema == {}:
            body_schema = {"type": "object"}
    return {
        "required": row.body.required,
        "description": f"JSON (UTF-8), at most {limits.MAX_BODY_BYTES} bytes "
        f"(`MAX_BODY_BYTES`), nested at most {MAX_JSON_DEPTH} levels deep.",
        "x-max-bytes": limits.MAX_BODY_BYTES,
        "content": {_JSON: {"schema": body_schema}},
    }


def _operation(row: Endpoint, service_cls: type, schemas: _Schemas) -> dict[str, Any]:
    # A facade without the method yet is documented with open schemas.
    method = getattr(service_cls, row.operation, _unannotated)
    lane = "cheap calls" if row.lane is Lane.LIGHT else "reports and exports"
    operation: dict[str, Any] = {
        "operationId": row.operation,
        "summary": row.purpose,
        "description": (
            f"{row.purpose}\n\nContract status: **{row.status.value}**. Requires the "
            f"`{row.auth.value}` role"
            + (" and a grant for the project." if row.project_scoped else ".")
            + f" Runs on the executor of {lane}; time limit {row.time_limit:g} s."
        ),
        "tags": [row.capability],
        "x-contract-status": row.status.value,
        "x-required-role": row.auth.value,
        "x-lane": row.lane.value,
        "x-time-limit-seconds": row.time_limit,
    }
    params = _parameters(row, method)
    if params:
        operation["parameters"] = params
    if row.always_refused:
        return _refused_operation(row, operation)
    if row.body is not None:
        operation["requestBody"] = _request_body(row, schemas)
    responses: dict[str, Any] = {}
    if _hints(method).get("return") is not typing.NoReturn:
        responses["200"] = _success(row, method, schemas)
    if row.etag is not None:
        responses["304"] = {
            "description": "Not modified: `If-None-Match` names the current `ETag`.",
            "headers": _ETAG_HEADER,
        }
    for status in sorted(row.errors):
        responses[str(status)] = _error(status)
    operation["responses"] = responses
    return operation


def build_openapi(service_cls: type | None = None) -> dict[str, Any]:
    """Build the OpenAPI 3.1 document of the contract.

    Args:
        service_cls: The facade class whose annotations give bodies and
            results (:class:`semreport.SemReport` by default).
    """
    if service_cls is None:
        from semreport.service import SemReport  # noqa: PLC0415 - keep the import lazy

        service_cls = SemReport
    schemas = _Schemas()
    paths: dict[str, Any] = {}
    for row in CONTRACT:
        paths.setdefault(row.path, {})[row.method.lower()] = _operation(row, service_cls, schemas)
    components = {**_problem_schemas(), **dict(sorted(schemas.components.items()))}
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "semreport",
            "version": "1",
            "summary": "Explainable semantic search, verifiable reports and session exports over "
            "Decision Memory.",
            "description": "Every route is a row of the library's contract "
            "(`semreport.CONTRACT`). Errors are RFC 9457 problem documents with a stable "
            "`code`. Credentials are OpenID Connect bearer tokens; roles are "
            + ", ".join(f"`{r.value}`" for r in Role)
            + ".",
        },
        "jsonSchemaDialect": "https://spec.openapis.org/oas/3.1/dialect/base",
        "x-limits": {name: getattr(limits, name) for name in limits.__all__},
        "security": [{"bearerAuth": []}],
        "paths": paths,
        "components": {
            "securitySchemes": {
                "bearerAuth": {
                    "type": "http",
                    "scheme": "bearer",
                    "bearerFormat": "JWT",
                    "description": "An OpenID Connect access token (a JWT signed by a key of the "
                    "identity provider's JWKS).",
                }
            },
            "schemas": components,
        },
    }


def render_openapi(document: Mapping[str, Any] | None = None) -> str:
    """Return the document as the text checked in: indented JSON, sorted keys, final newline."""
    return (
        json.dumps(
            build_openapi() if document is None else document,
            indent=2,
            sort_keys=True,
            ensure_ascii=False,
        )
        + "\n"
    )


@functools.cache
def _loaded() -> dict[str, Any]:
    text = resources.files("semreport.http").joinpath("openapi.json").read_text("utf-8")
    document: dict[str, Any] = json.loads(text)
    return document


def load_openapi() -> dict[str, Any]:
    """Return the checked-in OpenAPI document (a fresh copy each call)."""
    return copy.deepcopy(_loaded())


def main(argv: list[str] | None = None) -> int:
    """Write (or with ``--check`` compare) the checked-in document."""
    import argparse  # noqa: PLC0415

    parser = argparse.ArgumentParser(prog="python -m semreport.http.openapi")
    parser.add_argument("--check", action="store_true", help="fail if the file is out of date")
    parser.add_argument("--out", type=Path, default=OPENAPI_PATH)
    args = parser.parse_args(argv)
    text = render_openapi()
    if args.check:
        current = args.out.read_text("utf-8") if args.out.exists() else ""
        if current != text:
            print(f"{args.out} is out of date: run python -m semreport.http.openapi")
            return 1
        return 0
    args.out.write_text(text, encoding="utf-8")
    return 0
