"""The ASGI application: one Starlette route per contract row, nothing else."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import re
import uuid
from collections.abc import AsyncIterator, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final, cast
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from semreport.contract import CONTRACT, Endpoint
from semreport.domain import (
    Authenticator,
    InvalidRequest,
    PayloadTooLarge,
    Principal,
    SemReportError,
    Unauthenticated,
)
from semreport.domain._limits import MAX_BODY_BYTES
from semreport.http._errors import (
    PROBLEM_MEDIA_TYPE,
    HttpError,
    MethodNotAllowed,
    NotFound,
    UnsupportedMediaType,
    internal_error,
    problem_response,
    status_of,
)
from semreport.http._openapi import load_openapi
from semreport.http._routing import (
    BODY_PARAMETERS,
    DIGEST_HEADER_PREFIX,
    QUERY_PARAMETERS,
    accepted_query_parameters,
    digest_header,
)
from semreport.wire import to_wire

__all__ = [
    "BODY_PARAMETERS",
    "DIGEST_HEADER_PREFIX",
    "MAX_BODY_BYTES",
    "MAX_JSON_DEPTH",
    "PROBLEM_MEDIA_TYPE",
    "QUERY_PARAMETERS",
    "UnsupportedMediaType",
    "content_disposition",
    "create_app",
    "digest_header",
    "parse_json",
    "problem_response",
    "read_body",
]

MAX_JSON_DEPTH: Final = 64
"""The deepest nesting of arrays and objects accepted in a JSON body."""

_TOKEN: Final = re.compile(r"[A-Za-z0-9\-._~+/]+=*")

logger = logging.getLogger("semreport.http")


def create_app(
    service: Any,
    authenticator: Authenticator,
    *,
    max_body_bytes: int = MAX_BODY_BYTES,
    workers: int = 1,
    openapi_url: str | None = "/openapi.json",
) -> Starlette:
    """Build the ASGI application serving the whole contract over ``service``.

    Each row of :data:`semreport.CONTRACT` becomes one route with its exact
    method and path; each route calls the facade method the row names, with
    the path parameters, the JSON body (for ``find``, ``similar`` and the
    reserved rows) and ``caller=`` the authenticated :class:`~semreport.Principal`.
    Open the facade with ``semreport.open(url, require_caller=True)``: the app
    always names the caller, and a facade without a default caller cannot
    serve a request anonymously by mistake.

    Args:
        service: The facade (a :class:`~semreport.SemReport`, or anything with
            the same methods).
        authenticator: Turns a bearer token into the caller.
        max_body_bytes: The largest request body accepted.
        workers: Threads running facade calls. The default, one, runs every
            call on the same thread, which suits any storage adapter; raise it
            only for a thread-safe facade and storage.
        openapi_url: Where the OpenAPI document is served; ``None`` hides it.

    Returns:
        A Starlette application; run it with any ASGI server or mount it into
        a FastAPI, Starlette or Litestar application.
    """
    if workers < 1:
        raise ValueError("workers must be at least 1")
    executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="semreport-http")

    async def call(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(executor, functools.partial(function, *args, **kwargs))

    routes: list[Route] = []
    for row in CONTRACT:
        route = Route(
            row.path,
            _handler(row, service, authenticator, call, max_body_bytes),
            methods=[row.method],
            name=row.operation,
        )
        routes.append(route)
    if openapi_url is not None:
        routes.append(Route(openapi_url, _serve_openapi, methods=["GET"], name="openapi"))
    for route in routes:
        # Starlette answers HEAD for every GET route; the contract lists GET only.
        if route.methods is not None:
            route.methods.discard("HEAD")

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            executor.shutdown(wait=False, cancel_futures=True)

    return Starlette(
        routes=routes,
        exception_handlers={HTTPException: _http_exception, Exception: _unexpected},
        lifespan=lifespan,
    )


def _handler(
    row: Endpoint,
    service: Any,
    authenticator: Authenticator,
    call: Callable[..., Any],
    max_body_bytes: int,
) -> Callable[[Request], Any]:
    body_spec = BODY_PARAMETERS.get(row.operation)
    query = accepted_query_parameters(row.operation, getattr(service, row.operation, None))

    async def handle(request: Request) -> Response:
        request_id = str(uuid.uuid4())
        try:
            method = getattr(service, row.operation)
            if row.always_refused:
                # Refused before anything else: no credentials, body or content type is looked at.
                return _refused(row, await _outcome(call, method), request_id)
            caller = await _authenticate(request, authenticator)
            args: list[Any] = [request.path_params[name] for name in row.path_params]
            kwargs: dict[str, Any] = {"caller": caller}
            for name, kind in query.items():
                values = request.query_params.getlist(name)
                if len(values) > 1:
                    raise InvalidRequest.at(f"$.{name}", "give this query parameter once")
                if values:
                    kwargs[name] = _query_value(name, values[0], kind)
            if body_spec is not None:
                args.append(await _json_body(request, max_body_bytes, required=body_spec[1]))
            else:
                _check_declared_length(request, max_body_bytes)
            # Serialising a large result is work too: keep it off the event loop.
            response = cast(Response, await call(_invoke, row, request, method, args, kwargs))
        except SemReportError as exc:
            response = problem_response(exc, request_id)
        except Exception:
            logger.exception(
                "unexpected error serving %s %s (request_id=%s)",
                row.method,
                row.path,
                request_id,
            )
            response = internal_error(request_id)
        response.headers["X-Request-ID"] = request_id
        response.headers.setdefault("Cache-Control", "no-store")
        return response

    handle.__name__ = f"handle_{row.operation}"
    return handle


def _invoke(
    row: Endpoint,
    request: Request,
    method: Callable[..., Any],
    args: list[Any],
    kwargs: dict[str, Any],
) -> Response:
    return _render(row, method(*args, **kwargs), request)


def _query_value(name: str, value: str, kind: type) -> Any:
    if kind is int:
        if not re.fullmatch(r"[0-9]{1,18}", value):
            raise InvalidRequest.at(
                f"$.{name}", f"expected a non-negative integer, got {value[:40]!r}"
            )
        return int(value)
    return value


async def _outcome(call: Callable[..., Any], method: Callable[..., Any]) -> SemReportError | None:
    try:
        await call(method, None, caller=None)
    except SemReportError as exc:
        return exc
    return None


def _refused(row: Endpoint, exc: SemReportError | None, request_id: str) -> Response:
    if exc is None or status_of(exc) != 404:
        # The contract refuses this row whatever the facade says: answer 404 regardless.
        exc = NotFound(f"{row.method} {row.path} is refused for every request")
    response = problem_response(exc, request_id)
    response.headers["X-Request-ID"] = request_id
    response.headers["Cache-Control"] = "no-store"
    return response


async def _authenticate(request: Request, authenticator: Authenticator) -> Principal:
    values = request.headers.getlist("authorization")
    if not values:
        raise Unauthenticated("this endpoint needs a bearer token (Authorization: Bearer ...)")
    if len(values) > 1:
        raise Unauthenticated("give one Authorization header")
    scheme, _, token = values[0].strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not _TOKEN.fullmatch(token):
        raise Unauthenticated("the Authorization header must be 'Bearer <token>'")
    principal = await run_in_threadpool(authenticator.authenticate, token)
    if not isinstance(principal, Principal):
        raise TypeError(f"the authenticator returned {type(principal).__name__}, not a Principal")
    return principal


def _check_declared_length(request: Request, limit: int) -> int | None:
    declared = request.headers.get("content-length")
    if declared is None:
        return None
    if not declared.isdigit():
        raise InvalidRequest.at("$", "the Content-Length header must be a number")
    length = int(declared)
    if length > limit:
        raise PayloadTooLarge(f"the request body exceeds the limit of {limit} bytes")
    return length


async def read_body(request: Request, limit: int = MAX_BODY_BYTES) -> bytes:
    """Read a request body, refusing it with 413 as soon as it passes ``limit`` bytes.

    The declared ``Content-Length`` is checked first; streamed bytes are
    counted as they arrive, so an oversized body is never held whole.

    Raises:
        PayloadTooLarge: the body is, or claims to be, larger than ``limit``.
    """
    _check_declared_length(request, limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise PayloadTooLarge(f"the request body exceeds the limit of {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


async def _json_body(request: Request, limit: int, *, required: bool) -> Any:
    content_type = request.headers.get("content-type")
    declared = _check_declared_length(request, limit)
    if content_type is None:
        if not required and declared in (None, 0):
            return None
        raise UnsupportedMediaType("send the body as JSON (Content-Type: application/json)")
    if not _is_json(content_type):
        raise UnsupportedMediaType(
            f"the body must be application/json (UTF-8), not {content_type[:80]!r}"
        )
    raw = await read_body(request, limit)
    if not raw.strip():
        if required:
            raise InvalidRequest.at("$", "a JSON object is required in the body")
        return None
    value = parse_json(raw)
    if required and not isinstance(value, dict):
        raise InvalidRequest.at("$", f"expected a JSON object, got {_json_kind(value)}")
    return value


def _is_json(content_type: str) -> bool:
    media, *params = (part.strip() for part in content_type.split(";"))
    media = media.lower()
    if media != "application/json" and not (
        media.startswith("application/") and media.endswith("+json")
    ):
        return False
    for param in params:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"').lower() not in (
            "utf-8",
            "utf8",
        ):
            return False
    return True


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"the number {text[:40]} is out of range")
    return value


def parse_json(raw: bytes) -> Any:
    """Parse a JSON body strictly: UTF-8, no NaN or infinities, bounded nesting.

    Raises:
        InvalidRequest: the body is not such JSON (the message says where).
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidRequest.at("$", f"the body is not UTF-8 (byte {exc.start})") from None
    try:
        value = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite)
    except json.JSONDecodeError as exc:
        raise InvalidRequest.at(
            "$", f"malformed JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None
    except RecursionError:
        raise InvalidRequest.at("$", f"JSON nested deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError as exc:
        raise InvalidRequest.at("$", f"malformed JSON: {exc}") from None
    _check_json(value)
    return value


def _check_json(value: Any) -> None:
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            _check_text(item)
        elif isinstance(item, dict | list):
            if depth >= MAX_JSON_DEPTH:
                raise InvalidRequest.at("$", f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
            if isinstance(item, dict):
                for key, inner in item.items():
                    _check_text(key)
                    stack.append((inner, depth + 1))
            else:
                stack.extend((inner, depth + 1) for inner in item)


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidRequest.at("$", "the JSON holds an unpaired surrogate escape") from None


def _json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    return "a number"


# -- responses ---------------------------------------------------------------------------


def _render(row: Endpoint, result: Any, request: Request) -> Response:
    if row.operation == "export_report":
        return _report_export(result, request)
    if row.operation == "export_session":
        return _session_export(result)
    return JSONResponse(to_wire(result))


def _report_export(result: Any, request: Request) -> Response:
    digest = to_wire(result.digest)
    accept = request.headers.get("accept", "").lower()
    if "application/json" in accept and "text/html" not in accept:
        return JSONResponse({"digest": digest, "html": result.html})
    headers = {}
    if isinstance(digest, Mapping):
        for name, value in digest.items():
            if isinstance(value, str | int) and not isinstance(value, bool):
                headers[digest_header(name)] = str(value)
    return Response(result.html, media_type="text/html; charset=utf-8", headers=headers)


def content_disposition(filename: str) -> str:
    """Return an ``attachment`` Content-Disposition header value for ``filename`` (RFC 6266)."""
    ascii_name = "".join(
        c if c.isascii() and c.isprintable() and c not in '"\\' else "_" for c in filename
    )
    value = f'attachment; filename="{ascii_name}"'
    if ascii_name != filename:
        value += f"; filename*=UTF-8''{quote(filename, safe='')}"
    return value


def _session_export(result: Any) -> Response:
    return Response(
        bytes(result.content),
        media_type=result.media_type,
        headers={"Content-Disposition": content_disposition(result.filename)},
    )


async def _http_exception(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    request_id = str(uuid.uuid4())
    error: SemReportError
    if exc.status_code == 405:
        error = MethodNotAllowed(f"{request.method} is not allowed on {request.url.path}")
    elif exc.status_code == 404:
        error = NotFound(f"no endpoint at {request.url.path}")
    else:
        error = HttpError(exc.status_code, str(exc.detail))
    response = problem_response(error, request_id, exc.headers)
    response.headers["X-Request-ID"] = request_id
    return response


async def _unexpected(request: Request, _exc: Exception) -> Response:
    request_id = str(uuid.uuid4())
    logger.exception(
        "unexpected error serving %s %s (request_id=%s)",
        request.method,
        request.url.path,
        request_id,
    )
    response = internal_error(request_id)
    response.headers["X-Request-ID"] = request_id
    return response


async def _serve_openapi(request: Request) -> Response:
    document = load_openapi()
    root_path = request.scope.get("root_path") or ""
    if root_path:
        document = {**document, "servers": [{"url": root_path}]}
    return JSONResponse(document, headers={"Cache-Control": "public, max-age=300"})
