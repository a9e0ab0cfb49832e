"""The ASGI application: one Starlette route per contract row, plus health, readiness, metrics.

Each route is driven by its row of :data:`semreport.CONTRACT`: the parameters
and body it reads, the executor lane its work runs on, the time limit, how
the result becomes a response, and whether it answers conditional requests.
Nothing here switches on an operation's name.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import re
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from typing import Any, Final, cast
from urllib.parse import quote

import anyio
import attrs
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from semreport.contract import CONTRACT, Endpoint, Lane, Parameter, ParameterKind, ResponseKind
from semreport.domain import (
    Authenticator,
    InvalidRequest,
    PayloadTooLarge,
    Principal,
    SemReportError,
    Unauthenticated,
)
from semreport.domain._limits import MAX_BODY_BYTES
from semreport.domain._values import MAX_SAFE_INTEGER
from semreport.http._errors import (
    PROBLEM_MEDIA_TYPE,
    HttpError,
    MethodNotAllowed,
    NotFound,
    ServiceUnavailable,
    UnsupportedMediaType,
    internal_error,
    problem_response,
)
from semreport.http._lanes import Busy, ClientGone, Executor, ExecutorLimits, TimedOut
from semreport.http._metrics import METRICS_MEDIA_TYPE, Metrics
from semreport.http._openapi import load_openapi
from semreport.http._routing import (
    DIGEST_HEADER_PREFIX,
    MAX_JSON_DEPTH,
    accepted_query_parameters,
    digest_header,
    etag_matches,
    version_of,
)
from semreport.wire import to_wire

__all__ = [
    "DEFAULT_HEAVY",
    "DEFAULT_LIGHT",
    "DIGEST_HEADER_PREFIX",
    "MAX_BODY_BYTES",
    "MAX_JSON_DEPTH",
    "PROBLEM_MEDIA_TYPE",
    "UnsupportedMediaType",
    "content_disposition",
    "create_app",
    "digest_header",
    "parse_json",
    "problem_response",
    "read_body",
]

DEFAULT_LIGHT: Final = ExecutorLimits(threads=4, queue=256)
"""The cheap calls' executor: status, search, signals, the reserved rows."""
DEFAULT_HEAVY: Final = ExecutorLimits(threads=1, queue=64)
"""The heavy calls' executor: reports and exports."""

_RENDERED_BUDGET: Final = 64 * 1024 * 1024
"""Bytes of rendered, versioned JSON bodies kept for reuse (GET report of an unchanged project)."""
_READY_TIMEOUT: Final = 5.0
_STREAM_QUEUE: Final = 8
_CLIENT_GONE: Final = 499  # never sent: the status logged for a request whose client left

_TOKEN: Final = re.compile(r"[A-Za-z0-9\-._~+/]+=*")
_SEQUENCE: Final = re.compile(r"[0-9]{1,16}")

logger = logging.getLogger("semreport.http")
access_logger = logging.getLogger("semreport.http.access")


def create_app(
    service: Any,
    authenticator: Authenticator,
    *,
    max_body_bytes: int = MAX_BODY_BYTES,
    light: ExecutorLimits = DEFAULT_LIGHT,
    heavy: ExecutorLimits = DEFAULT_HEAVY,
    time_limits: Mapping[str, float] | None = None,
    metrics: bool = False,
    access_log: bool = True,
    readiness: Callable[[], object] | None = None,
    openapi_url: str | None = "/openapi.json",
    on_shutdown: Callable[[], None] | None = None,
) -> Starlette:
    """Build the ASGI application serving the whole contract over ``service``.

    Each row of :data:`semreport.CONTRACT` becomes one route with its exact
    method and path; each route calls the facade method the row names, with
    the path parameters, the query parameters and JSON body the row declares,
    and ``caller=`` the authenticated :class:`~semreport.Principal`. Open the
    facade with ``semreport.open(url, require_caller=True)``: the app always
    names the caller, and a facade without a default caller cannot serve a
    request anonymously by mistake.

    Facade calls run on two bounded executors, one per
    :class:`~semreport.contract.Lane`: cheap calls (status, search, signals)
    never wait behind heavy ones (reports, exports). A request finding its
    executor's threads busy and its queue full is answered 503 with
    ``Retry-After`` at once; a request waiting longer than its row's time limit
    is answered 503 and its work abandoned; a request whose client has gone
    is dropped before it starts, and heavy work stops at its next stage.
    ``POST /gnn/infer`` is answered 404 on the event loop, touching no executor.

    Besides the contract: ``GET /healthz`` (the process answers) and ``GET
    /readyz`` (the storage answers), both without credentials, and, when
    ``metrics`` is true, ``GET /metrics`` in the Prometheus text format.

    Args:
        service: The facade (a :class:`~semreport.SemReport`, or anything with
            the same methods); every method the app calls must be safe to call
            from several threads at once, as the facade's read methods are.
        authenticator: Turns a bearer token into the caller.
        max_body_bytes: The largest request body accepted.
        light: Threads and queue of the cheap calls' executor.
        heavy: Threads and queue of the reports' and exports' executor.
        time_limits: Seconds per operation, overriding the contract's time limits.
        metrics: Serve Prometheus metrics at ``/metrics`` (extra ``metrics``).
        access_log: Log one line per request on ``semreport.http.access``.
        readiness: Called (on a thread) by ``/readyz``; raising means not
            ready. By default the facade's storage is asked whether a project exists.
        openapi_url: Where the OpenAPI document is served; ``None`` hides it.
        on_shutdown: Called once when the application shuts down (after its
            executors stop), e.g. to close a facade the server opened.

    Returns:
        A Starlette application; run it with any ASGI server or mount it into
        a FastAPI, Starlette or Litestar application.
    """
    limits = dict(time_limits or {})
    unknown = sorted(set(limits) - {row.operation for row in CONTRACT})
    if unknown:
        raise ValueError(f"time_limits names no operation of the contract: {unknown}")
    meter = Metrics(_cache_info(service)) if metrics else None
    executors = {
        lane: Executor(
            lane.value,
            size,
            meter.lane_observer(lane.value) if meter is not None else None,
        )
        for lane, size in ((Lane.LIGHT, light), (Lane.HEAVY, heavy))
    }
    shared = _Shared(
        service=service,
        authenticator=authenticator,
        executors=executors,
        max_body_bytes=max_body_bytes,
        metrics=meter,
        rendered=_Rendered(_RENDERED_BUDGET),
    )
    routes: list[Route] = [
        Route(
            row.path,
            _handler(row, shared, limits.get(row.operation, row.time_limit)),
            methods=[row.method],
            name=row.operation,
        )
        for row in CONTRACT
    ]
    routes.append(Route("/healthz", _healthz, methods=["GET"], name="healthz"))
    check = readiness if readiness is not None else _default_readiness(service)
    routes.append(Route("/readyz", _readyz(check), methods=["GET"], name="readyz"))
    if meter is not None:
        routes.append(Route("/metrics", _serve_metrics(meter), methods=["GET"], name="metrics"))
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
            for executor in executors.values():
                executor.shutdown()
            if on_shutdown is not None:
                on_shutdown()

    app = Starlette(
        routes=routes,
        middleware=[Middleware(_Observe, metrics=meter, access_log=access_log)],
        exception_handlers={HTTPException: _http_exception, Exception: _unexpected},
        lifespan=lifespan,
    )
    # A trailing slash is a 404, never a redirect built from the request's Host header.
    app.router.redirect_slashes = False
    # For operators and tests: the executors' counters (running, queued).
    app.state.semreport_executors = executors
    return app


def _cache_info(service: Any) -> Callable[[], object] | None:
    found = getattr(service, "cache_info", None)
    return cast(Callable[[], object], found) if callable(found) else None


def _default_readiness(service: Any) -> Callable[[], object]:
    storage = getattr(service, "storage", None)
    probe = getattr(storage, "has_project", None)
    if not callable(probe):
        return lambda: None
    # Any read proves the storage answers; the project need not exist.
    return functools.partial(probe, "semreport-readiness-probe")


@attrs.define
class _Shared:
    """What every route of one application shares."""

    service: Any
    authenticator: Authenticator
    executors: Mapping[Lane, Executor]
    max_body_bytes: int
    metrics: Metrics | None
    rendered: _Rendered


class _Rendered:
    """Rendered JSON bodies by version (an ETag), least recently used first out, within a budget.

    A versioned result (a report, by its digest) is the same bytes every time:
    reusing them saves serialising it again while the project is unchanged.
    """

    def __init__(self, budget: int) -> None:
        self._budget = budget
        self._size = 0
        self._items: OrderedDict[tuple[str, str], bytes] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str]) -> bytes | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: tuple[str, str], body: bytes) -> None:
        if len(body) > self._budget // 4:
            return
        with self._lock:
            if key in self._items:
                return
            self._items[key] = body
            self._size += len(body)
            while self._size > self._budget:
                _, dropped = self._items.popitem(last=False)
                self._size -= len(dropped)


# -- one request, from its row ---------------------------------------------------------


@attrs.frozen
class _Call:
    """What the work of one request needs, gathered on the event loop."""

    row: Endpoint
    method: Callable[..., Any]
    streamed: bool
    probe: Callable[..., Any] | None
    args: tuple[Any, ...]
    kwargs: Mapping[str, Any]
    if_none_match: str | None
    wants_json: bool
    rendered: _Rendered


def _request_id(request: Request) -> str:
    found = request.scope.get(_Observe.REQUEST_ID)
    return found if isinstance(found, str) else str(uuid.uuid4())


def _handler(row: Endpoint, shared: _Shared, limit: float) -> Callable[[Request], Any]:
    service = shared.service
    method = getattr(service, row.operation, None)
    query = accepted_query_parameters(row, method)
    stream = getattr(service, row.stream, None) if row.stream is not None else None
    found = getattr(service, row.etag_probe, None) if row.etag_probe is not None else None
    probe = found if callable(found) else None

    async def handle(request: Request) -> Response:
        request_id = _request_id(request)
        try:
            if row.always_refused or method is None:
                # Refused before anything else: no credentials, body or executor is involved.
                return _finish(_refusal(row, request_id), request_id)
            call = await _prepare(
                request, row, shared=shared, method=method, query=query, stream=stream, probe=probe
            )
            response = await _supervise(call, request, shared.executors[row.lane], limit)
        except (ClientGone, ClientDisconnect):
            # The client left (mid-upload, or while its work waited): nothing to answer.
            logger.info(
                "client went away before %s %s was answered (request_id=%s)",
                row.method,
                row.path,
                request_id,
            )
            response = Response(status_code=_CLIENT_GONE)
        except (Busy, TimedOut) as exc:
            response = problem_response(exc, request_id, {"Retry-After": str(exc.retry_after)})
            if shared.metrics is not None:
                if isinstance(exc, Busy):
                    shared.metrics.refused.labels(row.lane.value).inc()
                else:
                    shared.metrics.timed_out.labels(row.path).inc()
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
        return _finish(response, request_id)

    handle.__name__ = f"handle_{row.operation}"
    return handle


async def _prepare(
    request: Request,
    row: Endpoint,
    *,
    shared: _Shared,
    method: Callable[..., Any],
    query: tuple[Parameter, ...],
    stream: Callable[..., Any] | None,
    probe: Callable[..., Any] | None,
) -> _Call:
    """Authenticate, then read the row's parameters and body: everything the work needs."""
    caller = await _authenticate(request, shared.authenticator)
    args: list[Any] = [request.path_params[name] for name in row.path_params]
    kwargs: dict[str, Any] = {"caller": caller}
    for parameter in query:
        values = request.query_params.getlist(parameter.name)
        if len(values) > 1:
            raise InvalidRequest.at(f"$.{parameter.name}", "give this query parameter once")
        if values:
            kwargs[parameter.name] = _query_value(parameter.name, values[0], parameter.kind)
    if row.body is not None:
        args.append(await _json_body(request, shared.max_body_bytes, required=row.body.required))
    else:
        _check_declared_length(request, shared.max_body_bytes)
    wants_json = _wants_json(request) if row.response is ResponseKind.DOCUMENT else False
    use_stream = stream is not None and not wants_json
    return _Call(
        row=row,
        method=stream if use_stream and stream is not None else method,
        streamed=use_stream or row.response is ResponseKind.STREAM,
        probe=probe,
        args=tuple(args),
        kwargs=kwargs,
        if_none_match=request.headers.get("if-none-match") if row.etag else None,
        wants_json=wants_json,
        rendered=shared.rendered,
    )


def _finish(response: Response, request_id: str) -> Response:
    response.headers["X-Request-ID"] = request_id
    response.headers.setdefault("Cache-Control", "no-store")
    return response


def _wants_json(request: Request) -> bool:
    accept = request.headers.get("accept", "").lower()
    return "application/json" in accept and "text/html" not in accept


def _query_value(name: str, value: str, kind: ParameterKind) -> Any:
    if kind is ParameterKind.SEQUENCE:
        if not _SEQUENCE.fullmatch(value) or int(value) > MAX_SAFE_INTEGER:
            raise InvalidRequest.at(
                f"$.{name}",
                f"expected a sequence number from 0 to {MAX_SAFE_INTEGER}, got {value[:40]!r}",
            )
        return int(value)
    return value


def _refusal(row: Endpoint, request_id: str) -> Response:
    message = f"{row.method} {row.path} is refused for every request"
    error = row.refusal(message) if row.refusal is not None else NotFound(message)
    return problem_response(error, request_id)


async def _client_gone(request: Request) -> None:
    """Return once the client has disconnected (any body still unread is discarded)."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            return


async def _supervise(call: _Call, request: Request, executor: Executor, limit: float) -> Response:
    """Run the call's work on its executor, watching the client and the time limit."""
    cancelled = threading.Event()
    head: asyncio.Future[Response] = asyncio.get_running_loop().create_future()
    job = functools.partial(_work, call, cancelled, _Channel(head, cancelled, limit))
    # Admission (or a 503 at once) happens here, before anything is awaited.
    work = asyncio.ensure_future(asyncio.wrap_future(executor.submit(job, cancelled)))
    watcher = asyncio.ensure_future(_client_gone(request))
    waiting: set[asyncio.Future[Any]] = {work, watcher, head}
    try:
        done, _ = await asyncio.wait(waiting, timeout=limit, return_when=asyncio.FIRST_COMPLETED)
    finally:
        watcher.cancel()
    if watcher in done:
        cancelled.set()
        work.cancel()
        raise ClientGone
    if head in done:  # a stream: its work goes on, feeding the body
        work.add_done_callback(functools.partial(_stream_ended, call.row))
        return head.result()
    if work in done:
        head.cancel()
        return cast(Response, work.result())
    cancelled.set()
    work.cancel()
    head.cancel()
    raise TimedOut(
        f"{call.row.method} {call.row.path} took longer than its limit of {limit:g} s",
        executor.retry_after(),
    )


def _stream_ended(row: Endpoint, work: asyncio.Future[Any]) -> None:
    """Log a streamed body's work that failed after the response had started."""
    if work.cancelled():
        return
    exc = work.exception()
    if isinstance(exc, ClientGone):
        logger.info("client went away during %s %s", row.method, row.path)
    elif exc is not None:
        logger.error("%s %s failed while streaming its body", row.method, row.path, exc_info=exc)


def _check(cancelled: threading.Event) -> None:
    """A stage boundary of heavy work: stop here if the client went away (or time ran out)."""
    if cancelled.is_set():
        raise ClientGone


def _work(call: _Call, cancelled: threading.Event, channel: _Channel) -> Response | None:
    """The request's work, on an executor thread: the facade call and the rendering."""
    row = call.row
    _check(cancelled)
    if call.if_none_match is not None and row.etag is not None and call.probe is not None:
        version = version_of(call.probe(*call.args, **call.kwargs), row.etag)
        if version is not None:
            probed = _etag(row, version, wants_json=call.wants_json)
            if etag_matches(call.if_none_match, probed):
                return _not_modified(probed)
        _check(cancelled)
    result = call.method(*call.args, **call.kwargs)
    _check(cancelled)
    etag: str | None = None
    if row.etag is not None:
        version = version_of(result, row.etag)
        if version is not None:
            etag = _etag(row, version, wants_json=call.wants_json)
            if call.if_none_match is not None and etag_matches(call.if_none_match, etag):
                return _not_modified(etag)
    if call.streamed:
        channel.stream(_stream_head(result, etag), cast(Iterable[bytes], result))
        return None
    response = _RENDERERS[row.response](row, result, call)
    if etag is not None:
        response.headers["ETag"] = etag
        response.headers["Cache-Control"] = "private, no-cache"
    return response


def _etag(row: Endpoint, version: str, *, wants_json: bool) -> str:
    if row.response is ResponseKind.JSON:
        return f'"{version}"'  # the same bytes every time: a strong validator
    # A document shows its export time: equivalent, not byte-identical, representations.
    return f'W/"{version}-json"' if wants_json else f'W/"{version}"'


def _not_modified(etag: str) -> Response:
    return Response(status_code=304, headers={"ETag": etag, "Cache-Control": "private, no-cache"})


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


def _finite(text: str) -> float | int:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"the number {text[:40]} is out of range")
    # JSON has one number type: 1.0 is the integer 1 (as JSON Schema's "integer" says), so
    # an integral literal reaches an integer field as one. Beyond 2**53 floats are inexact.
    if value.is_integer() and abs(value) <= MAX_SAFE_INTEGER:
        return int(value)
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


# -- streaming ---------------------------------------------------------------------------


class _Abort:
    """The marker a failed stream puts in its queue."""


_ABORT: Final = _Abort()


class _StreamAborted(Exception):
    """Raised into the server when a streamed body cannot be finished: the connection is cut."""


class _Channel:
    """Hands a streamed response from its executor thread to the event loop.

    The work thread opens the response (status and headers) and then feeds
    its chunks through a small queue, so that producing a chunk waits for the
    client to take the previous ones; the thread stays on its executor until
    the last chunk, and stops at the next chunk once the client is gone.
    """

    def __init__(
        self, head: asyncio.Future[Response], cancelled: threading.Event, limit: float
    ) -> None:
        self._head = head
        self._loop = head.get_loop()
        self._cancelled = cancelled
        self._limit = limit
        self._queue: asyncio.Queue[bytes | _Abort | None] = asyncio.Queue(_STREAM_QUEUE)

    def stream(self, head: tuple[str, dict[str, str]], chunks: Iterable[bytes]) -> None:
        media_type, headers = head
        response = StreamingResponse(self._body(), media_type=media_type, headers=headers)
        self._loop.call_soon_threadsafe(_resolve, self._head, response)
        try:
            for chunk in chunks:
                _check(self._cancelled)
                self._put(bytes(chunk))
        except ClientGone:
            raise
        except BaseException:
            # The body cannot be finished: abort it rather than end it as if complete.
            if not self._cancelled.is_set():
                self._put(_ABORT)
            raise
        self._put(None)

    def _put(self, item: bytes | _Abort | None) -> None:
        put = asyncio.run_coroutine_threadsafe(self._queue.put(item), self._loop)
        try:
            put.result(timeout=self._limit or None)
        except TimeoutError:  # nobody reads any more: stop producing
            put.cancel()
            self._cancelled.set()
            raise ClientGone from None

    async def _body(self) -> AsyncIterator[bytes]:
        try:
            while (chunk := await self._queue.get()) is not None:
                if isinstance(chunk, _Abort):
                    raise _StreamAborted("the streamed body failed; the response is cut short")
                yield chunk
        finally:
            # The client left (or the body ended): release a producer waiting to put.
            self._cancelled.set()
            while not self._queue.empty():
                self._queue.get_nowait()


def _resolve(future: asyncio.Future[Response], response: Response) -> None:
    if not future.done():
        future.set_result(response)


def _stream_head(result: Any, etag: str | None) -> tuple[str, dict[str, str]]:
    headers = _digest_headers(getattr(result, "digest", None))
    filename = getattr(result, "filename", None)
    if isinstance(filename, str) and filename:
        headers["Content-Disposition"] = content_disposition(filename).replace(
            "attachment", "inline", 1
        )
    if etag is not None:
        headers["ETag"] = etag
        headers["Cache-Control"] = "private, no-cache"
    media_type = getattr(result, "media_type", None)
    return (media_type if isinstance(media_type, str) else "application/octet-stream"), headers


# -- responses ---------------------------------------------------------------------------


def _json(row: Endpoint, result: Any, call: _Call) -> Response:
    if row.etag is not None:
        version = version_of(result, row.etag)
        if version is not None:
            key = (row.operation, version)
            body = call.rendered.get(key)
            if body is None:
                body = bytes(JSONResponse(to_wire(result)).body)
                call.rendered.put(key, body)
            return Response(bytes(body), media_type="application/json")
    return JSONResponse(to_wire(result))


def _document(row: Endpoint, result: Any, call: _Call) -> Response:
    del row
    digest = to_wire(result.digest)
    if call.wants_json:
        response: Response = JSONResponse({"digest": digest, "html": result.html})
    else:
        response = Response(
            result.html,
            media_type="text/html; charset=utf-8",
            headers=_digest_headers(result.digest),
        )
    response.headers["Vary"] = "Accept"
    return response


def _digest_headers(digest: object) -> dict[str, str]:
    headers: dict[str, str] = {}
    if digest is None:
        return headers
    wire = to_wire(digest)
    if isinstance(wire, Mapping):
        for name, value in wire.items():
            if isinstance(value, str | int) and not isinstance(value, bool):
                headers[digest_header(name)] = str(value)
    return headers


def _file(row: Endpoint, result: Any, call: _Call) -> Response:
    del row, call
    return Response(
        bytes(result.content),
        media_type=result.media_type,
        headers={"Content-Disposition": content_disposition(result.filename)},
    )


def _refused(row: Endpoint, result: Any, call: _Call) -> Response:
    del result, call
    raise NotFound(f"{row.method} {row.path} is refused for every request")


_RENDERERS: Final[Mapping[ResponseKind, Callable[[Endpoint, Any, _Call], Response]]] = {
    ResponseKind.JSON: _json,
    ResponseKind.DOCUMENT: _document,
    ResponseKind.FILE: _file,
    ResponseKind.REFUSAL: _refused,
}
"""How each kind of response is written (see :class:`~semreport.contract.ResponseKind`)."""


def content_disposition(filename: str) -> str:
    """Return an ``attachment`` Content-Disposition header value for ``filename`` (RFC 6266)."""
    ascii_name = "".join(
        c if c.isascii() and c.isprintable() and c not in '"\\' else "_" for c in filename
    )
    value = f'attachment; filename="{ascii_name}"'
    if ascii_name != filename:
        value += f"; filename*=UTF-8''{quote(filename, safe='')}"
    return value


# -- outside the contract: health, readiness, metrics, the document ----------------------


async def _healthz(_request: Request) -> Response:
    return JSONResponse({"status": "ok"}, headers={"Cache-Control": "no-store"})


def _readyz(check: Callable[[], object]) -> Callable[[Request], Any]:
    async def readyz(request: Request) -> Response:
        try:
            with anyio.fail_after(_READY_TIMEOUT):
                await run_in_threadpool(check)
        except Exception as exc:  # noqa: BLE001 - any failure means not ready
            request_id = _request_id(request)
            logger.warning("not ready: %r (request_id=%s)", exc, request_id)
            response = problem_response(
                ServiceUnavailable("the storage does not answer"), request_id, {"Retry-After": "5"}
            )
            return _finish(response, request_id)
        return JSONResponse({"status": "ready"}, headers={"Cache-Control": "no-store"})

    return readyz


def _serve_metrics(meter: Metrics) -> Callable[[Request], Any]:
    async def serve_metrics(_request: Request) -> Response:
        return Response(
            meter.render(), media_type=METRICS_MEDIA_TYPE, headers={"Cache-Control": "no-store"}
        )

    return serve_metrics


async def _serve_openapi(request: Request) -> Response:
    document = load_openapi()
    root_path = request.scope.get("root_path") or ""
    if root_path:
        document = {**document, "servers": [{"url": root_path}]}
    return JSONResponse(document, headers={"Cache-Control": "public, max-age=300"})


async def _http_exception(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    request_id = _request_id(request)
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
    request_id = _request_id(request)
    logger.exception(
        "unexpected error serving %s %s (request_id=%s)",
        request.method,
        request.url.path,
        request_id,
    )
    response = internal_error(request_id)
    response.headers["X-Request-ID"] = request_id
    return response


# -- every request: its id, its access-log line, its metrics -----------------------------


class _Observe:
    """ASGI middleware: gives each request an id and logs and counts it once answered."""

    REQUEST_ID: Final = "semreport.request_id"

    def __init__(self, app: ASGIApp, *, metrics: Metrics | None, access_log: bool) -> None:
        self.app = app
        self.metrics = metrics
        self.access_log = access_log

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = str(uuid.uuid4())
        scope[self.REQUEST_ID] = request_id
        started = time.perf_counter()
        status = 500
        sent = 0

        async def observed(message: Message) -> None:
            nonlocal status, sent
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                sent += len(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, receive, observed)
        finally:
            self._record(scope, request_id, status, sent, time.perf_counter() - started)

    def _record(
        self, scope: Scope, request_id: str, status: int, sent: int, seconds: float
    ) -> None:
        route = scope.get("route")
        template = getattr(route, "path", None)
        template = template if isinstance(template, str) else "(unmatched)"
        if self.metrics is not None:
            self.metrics.observe(template, scope["method"], status, seconds)
        if self.access_log and access_logger.isEnabledFor(logging.INFO):
            client = scope.get("client")
            fields = {
                "request_id": request_id,
                "method": scope["method"],
                "path": scope.get("root_path", "") + scope["path"],
                "route": template,
                "status": status,
                "duration_ms": round(seconds * 1000, 3),
                "bytes": sent,
                "client": f"{client[0]}:{client[1]}" if client else None,
            }
            access_logger.info(
                json.dumps(fields, ensure_ascii=True, separators=(",", ":")),
                extra={"semreport": fields},
            )
