"""The HTTP adapter over a fake facade: routing, bodies, errors, limits, rendering."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.testclient import TestClient

from semreport import (
    CONTRACT,
    GnnModelNotLoaded,
    InvalidRequest,
    ModelStatus,
    Principal,
    ProjectNotFound,
    Role,
    Unauthenticated,
)
from semreport.contract import endpoint
from semreport.http import (
    MAX_BODY_BYTES,
    ExecutorLimits,
    StaticTokenAuthenticator,
    build_openapi,
    create_app,
    load_openapi,
)
from semreport.http._app import (
    _http_exception,
    _unexpected,
    accepted_query_parameters,
    content_disposition,
    digest_header,
    parse_json,
    problem_response,
)

USER = Principal("alice", roles={Role.USER}, projects={"p-1"})
OPERATOR = Principal("olga", roles={Role.OPERATOR})
AUTH = {"Authorization": "Bearer user-token"}


@attrs.frozen
class Digest:
    scheme: str
    records: int
    as_of_sequence: int
    records_root: str
    report_sha256: str


@attrs.frozen
class FakeReportExport:
    html: str
    digest: Digest
    report: dict[str, Any]


@attrs.frozen
class FakeSessionExport:
    content: bytes
    media_type: str
    filename: str


@attrs.frozen
class Hit:
    id: str
    score: float


class FakeService:
    """Records every call; answers canned results."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []
        self.fail_with: BaseException | None = None

    def _record(self, name: str, *args: Any, **kwargs: Any) -> None:
        self.calls.append((name, args, kwargs))
        if self.fail_with is not None:
            raise self.fail_with

    def signals(self, project_id: str, *, caller: Principal | None = None) -> list[Hit]:
        self._record("signals", project_id, caller=caller)
        return [Hit("text", 1.0)]

    def find(self, project_id: str, criteria: Any, *, caller: Principal | None = None) -> Any:
        self._record("find", project_id, criteria, caller=caller)
        return {"hits": [attrs.asdict(Hit("d-1", 0.5))]}

    def similar(self, project_id: str, exemplar: Any, *, caller: Principal | None = None) -> Any:
        self._record("similar", project_id, exemplar, caller=caller)
        return {"hits": []}

    def gnn_status(self, *, caller: Principal | None = None) -> ModelStatus:
        self._record("gnn_status", caller=caller)
        return ModelStatus(loaded=False, reason="none")

    def gnn_infer(self, payload: object = None, *, caller: Principal | None = None) -> Any:
        self._record("gnn_infer", payload, caller=caller)
        raise GnnModelNotLoaded("no model")

    def export_session(
        self,
        session_id: str,
        fmt: str,
        *,
        caller: Principal | None = None,
        graph_format: str = "node-link",
    ) -> FakeSessionExport:
        self._record("export_session", session_id, fmt, caller=caller, graph_format=graph_format)
        return FakeSessionExport(b"%PDF-1.7 fake", "application/pdf", f"{session_id}.pdf")

    def report(self, project_id: str, *, caller: Principal | None = None) -> Any:
        self._record("report", project_id, caller=caller)
        if project_id == "ghost":
            raise ProjectNotFound("project 'ghost' holds no records")
        return {"schema": "semreport.report/1", "project_id": project_id}

    def export_report(self, project_id: str, *, caller: Principal | None = None) -> Any:
        self._record("export_report", project_id, caller=caller)
        digest = Digest("semreport-digest/1", 3, 3, "ab" * 32, "cd" * 32)
        return FakeReportExport("<!doctype html><p>report</p>", digest, {})

    def embed_reference(self, payload: object = None, *, caller: Principal | None = None) -> Any:
        self._record("embed_reference", payload, caller=caller)
        return {"embedded": payload}

    def match_catalogue(self, payload: Any, *, caller: Principal | None = None) -> Any:
        self._record("match_catalogue", payload, caller=caller)
        return {"matched": payload}


@pytest.fixture
def service() -> FakeService:
    return FakeService()


@pytest.fixture
def client(service: FakeService) -> Iterator[TestClient]:
    auth = StaticTokenAuthenticator({"user-token": USER, "operator-token": OPERATOR})
    with TestClient(create_app(service, auth), raise_server_exceptions=False) as client:
        yield client


def _url(path: str) -> str:
    return path.format(project_id="p-1", session_id="s-1", fmt="pdf")


def _assert_problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    body: dict[str, Any] = response.json()
    assert {"type", "title", "status", "detail", "code"} <= body.keys()
    assert body["status"] == status
    assert body["code"] == code
    assert body["instance"] == f"urn:uuid:{response.headers['x-request-id']}"
    return body


class TestRoutes:
    """Routes come from the contract: every row, nothing else."""

    def test_every_row_is_one_route_with_its_method(self) -> None:
        app = create_app(FakeService(), StaticTokenAuthenticator({"t": USER}))
        served = {
            (method, route.path)  # type: ignore[attr-defined]
            for route in app.routes
            for method in route.methods or ()  # type: ignore[attr-defined]
        }
        outside = {("GET", "/openapi.json"), ("GET", "/healthz"), ("GET", "/readyz")}
        assert served == {(row.method, row.path) for row in CONTRACT} | outside

    def test_openapi_can_be_hidden(self) -> None:
        app = create_app(FakeService(), StaticTokenAuthenticator({"t": USER}), openapi_url=None)
        assert TestClient(app).get("/openapi.json").status_code == 404

    def test_executors_need_a_thread(self) -> None:
        with pytest.raises(ValueError, match="threads"):
            ExecutorLimits(threads=0, queue=1)
        with pytest.raises(ValueError, match="queue"):
            ExecutorLimits(threads=1, queue=-1)

    def test_time_limits_name_operations(self) -> None:
        with pytest.raises(ValueError, match="nope"):
            create_app(
                FakeService(), StaticTokenAuthenticator({"t": USER}), time_limits={"nope": 1}
            )

    @pytest.mark.parametrize("row", [r for r in CONTRACT if not r.always_refused], ids=str)
    def test_each_route_calls_its_operation_with_the_caller(
        self, row: Any, client: TestClient, service: FakeService
    ) -> None:
        response = client.request(row.method, _url(row.path), headers=AUTH, json={"q": 1})
        assert response.status_code == 200, response.text
        name, args, kwargs = service.calls[-1]
        assert name == row.operation
        assert kwargs["caller"] == USER
        path_values = {"project_id": "p-1", "session_id": "s-1", "fmt": "pdf"}
        assert args[: len(row.path_params)] == tuple(path_values[p] for p in row.path_params)

    def test_bodies_are_passed_as_parsed_json(
        self, client: TestClient, service: FakeService
    ) -> None:
        criteria = {"text": "fire rated door", "page_size": 10}
        response = client.post("/projects/p-1/semantic/find", headers=AUTH, json=criteria)
        assert response.json() == {"hits": [{"id": "d-1", "score": 0.5}]}
        assert service.calls[-1][1] == ("p-1", criteria)
        client.post("/projects/p-1/semantic/similar", headers=AUTH, json={"decision_id": "d-1"})
        assert service.calls[-1][1] == ("p-1", {"decision_id": "d-1"})

    def test_responses_use_the_wire_form(self, client: TestClient) -> None:
        response = client.get("/gnn/status", headers={"Authorization": "Bearer operator-token"})
        assert response.headers["content-type"] == "application/json"
        assert response.json() == {"loaded": False, "reason": "none", "model": None}
        assert response.headers["cache-control"] == "no-store"

    def test_head_and_other_methods_are_405_problems(self, client: TestClient) -> None:
        response = client.head("/gnn/status")
        assert response.status_code == 405
        body = _assert_problem(client.delete("/gnn/status"), 405, "METHOD_NOT_ALLOWED")
        assert "DELETE" in body["detail"]
        assert client.delete("/gnn/status").headers["allow"] == "GET"

    def test_unknown_paths_are_404_problems(self, client: TestClient) -> None:
        _assert_problem(client.get("/projects/p-1"), 404, "NOT_FOUND")
        _assert_problem(client.get("/projects//report", headers=AUTH), 404, "NOT_FOUND")
        _assert_problem(client.get("/v1/gnn/status"), 404, "NOT_FOUND")

    def test_query_parameters_reach_the_facade(
        self, client: TestClient, service: FakeService
    ) -> None:
        client.post("/sessions/s-1/export/graph?graph_format=graphml", headers=AUTH)
        assert service.calls[-1][2]["graph_format"] == "graphml"
        client.post("/sessions/s-1/export/graph", headers=AUTH)
        assert service.calls[-1][2]["graph_format"] == "node-link"  # the facade's default
        response = client.post(
            "/sessions/s-1/export/graph?graph_format=a&graph_format=b", headers=AUTH
        )
        body = _assert_problem(response, 400, "INVALID_REQUEST")
        assert body["errors"][0]["path"] == "$.graph_format"


class TestRendering:
    """Exports: HTML with the digest in headers, sessions as attachments."""

    def test_report_export_is_html_with_digest_headers(self, client: TestClient) -> None:
        response = client.post("/projects/p-1/report/export", headers=AUTH)
        assert response.status_code == 200
        assert response.headers["content-type"] == "text/html; charset=utf-8"
        assert response.text == "<!doctype html><p>report</p>"
        assert response.headers["semreport-digest-scheme"] == "semreport-digest/1"
        assert response.headers["semreport-digest-records-root"] == "ab" * 32
        assert response.headers["semreport-digest-report-sha256"] == "cd" * 32
        assert response.headers["semreport-digest-as-of-sequence"] == "3"

    def test_report_export_json_envelope_on_request(self, client: TestClient) -> None:
        headers = {**AUTH, "Accept": "application/json"}
        response = client.post("/projects/p-1/report/export", headers=headers)
        assert response.headers["content-type"] == "application/json"
        body = response.json()
        assert body["html"] == "<!doctype html><p>report</p>"
        assert body["digest"]["records_root"] == "ab" * 32

    def test_session_export_has_media_type_and_file_name(self, client: TestClient) -> None:
        response = client.post("/sessions/s-1/export/pdf", headers=AUTH)
        assert response.content == b"%PDF-1.7 fake"
        assert response.headers["content-type"] == "application/pdf"
        assert response.headers["content-disposition"] == 'attachment; filename="s-1.pdf"'

    def test_content_disposition_quotes_unusual_names(self) -> None:
        assert content_disposition('a"b.pdf') == 'attachment; filename="a_b.pdf"; ' + (
            "filename*=UTF-8''a%22b.pdf"
        )
        assert content_disposition("CO₂.json").endswith("filename*=UTF-8''CO%E2%82%82.json")

    def test_digest_header_names(self) -> None:
        assert digest_header("scheme") == "SemReport-Digest-Scheme"
        assert digest_header("as_of_sequence") == "SemReport-Digest-As-Of-Sequence"


class TestErrors:
    """Every failure is an RFC 9457 problem; nothing leaks a stack trace."""

    def test_library_errors_keep_their_code_and_field_paths(
        self, client: TestClient, service: FakeService
    ) -> None:
        service.fail_with = InvalidRequest.at("$.page_size", "at most 100")
        response = client.post("/projects/p-1/semantic/find", headers=AUTH, json={})
        body = _assert_problem(response, 400, "INVALID_REQUEST")
        assert body["errors"] == [{"path": "$.page_size", "message": "at most 100"}]
        assert body["type"] == "https://semreport.invalid/problems/invalid-request"
        assert body["title"] == "Invalid request"

    def test_not_found_from_the_facade(self, client: TestClient) -> None:
        _assert_problem(
            client.get("/projects/ghost/report", headers=AUTH), 404, "PROJECT_NOT_FOUND"
        )

    def test_unexpected_errors_are_logged_with_the_request_id(
        self, client: TestClient, service: FakeService, caplog: pytest.LogCaptureFixture
    ) -> None:
        service.fail_with = RuntimeError("secret internals /etc/passwd")
        with caplog.at_level(logging.ERROR, logger="semreport.http"):
            response = client.get("/projects/p-1/report", headers=AUTH)
        body = _assert_problem(response, 500, "INTERNAL_ERROR")
        request_id = response.headers["x-request-id"]
        assert "secret" not in response.text
        assert "Traceback" not in response.text
        assert request_id in body["detail"]
        assert any(request_id in record.getMessage() for record in caplog.records)
        assert caplog.records[-1].exc_info is not None

    def test_a_broken_authenticator_is_a_500_not_a_crash(self, service: FakeService) -> None:
        class Broken:
            def authenticate(self, token: str) -> Principal:
                return "nobody"  # type: ignore[return-value]

        client = TestClient(create_app(service, Broken()), raise_server_exceptions=False)
        _assert_problem(client.get("/projects/p-1/report", headers=AUTH), 500, "INTERNAL_ERROR")
        assert service.calls == []

    def test_unauthenticated_answers_carry_www_authenticate(self, client: TestClient) -> None:
        for headers in ({}, {"Authorization": "Basic dXNlcjpwYXNz"}, {"Authorization": "Bearer"}):
            response = client.get("/projects/p-1/report", headers=headers)
            _assert_problem(response, 401, "UNAUTHENTICATED")
            assert response.headers["www-authenticate"].startswith("Bearer ")
        response = client.get("/projects/p-1/report", headers={"Authorization": "Bearer nope"})
        _assert_problem(response, 401, "UNAUTHENTICATED")

    def test_two_authorization_headers_are_refused(self, client: TestClient) -> None:
        headers = [("authorization", "Bearer user-token"), ("authorization", "Bearer x")]
        response = client.get("/projects/p-1/report", headers=headers)
        _assert_problem(response, 401, "UNAUTHENTICATED")

    def test_credentials_are_checked_before_the_body_is_read(
        self, client: TestClient, service: FakeService
    ) -> None:
        response = client.post("/projects/p-1/semantic/find", content=b"{not json")
        _assert_problem(response, 401, "UNAUTHENTICATED")
        assert service.calls == []


class TestBodies:
    """JSON bodies: content type, syntax, shape, size."""

    FIND = "/projects/p-1/semantic/find"

    @pytest.mark.parametrize(
        ("content", "fragment"),
        [
            (b"{not json", "malformed JSON"),
            (b'{"a": NaN}', "NaN"),
            (b'{"a": Infinity}', "Infinity"),
            (b'{"a": 1e999}', "out of range"),
            (b"\xff\xfe{}", "not UTF-8"),
            (b'{"a": "\\ud800"}', "surrogate"),
            (b'{"\\udfff": 1}', "surrogate"),
            (b"[" * 70 + b"]" * 70, "nested deeper"),
            (b"[" * 100_000 + b"]" * 100_000, "nested deeper"),
            (b'{"a": ' + b"1" * 5000 + b"}", "malformed JSON"),
            (b"[1, 2]", "expected a JSON object, got an array"),
            (b'"text"', "got a string"),
            (b"null", "got null"),
            (b"true", "got a boolean"),
            (b"3.5", "got a number"),
            (b"", "a JSON object is required"),
            (b"   ", "a JSON object is required"),
        ],
    )
    def test_bad_json_is_a_400_problem(
        self, client: TestClient, service: FakeService, content: bytes, fragment: str
    ) -> None:
        headers = {**AUTH, "Content-Type": "application/json"}
        response = client.post(self.FIND, headers=headers, content=content)
        body = _assert_problem(response, 400, "INVALID_REQUEST")
        assert fragment in body["detail"]
        assert service.calls == []

    @pytest.mark.parametrize(
        "content_type",
        ["text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin-1"],
    )
    def test_non_json_content_types_are_415(
        self, client: TestClient, service: FakeService, content_type: str
    ) -> None:
        headers = {**AUTH, "Content-Type": content_type}
        response = client.post(self.FIND, headers=headers, content=b"{}")
        _assert_problem(response, 415, "UNSUPPORTED_MEDIA_TYPE")
        assert service.calls == []

    def test_a_missing_content_type_is_415(self, client: TestClient) -> None:
        response = client.post(self.FIND, headers=AUTH, content=b"{}")
        _assert_problem(response, 415, "UNSUPPORTED_MEDIA_TYPE")

    @pytest.mark.parametrize(
        "content_type",
        ["application/json", "application/json; charset=UTF-8", "application/merge-patch+json"],
    )
    def test_json_content_types_are_accepted(self, client: TestClient, content_type: str) -> None:
        headers = {**AUTH, "Content-Type": content_type}
        assert client.post(self.FIND, headers=headers, content=b"{}").status_code == 200

    def test_optional_bodies_may_be_absent_or_any_json(
        self, client: TestClient, service: FakeService
    ) -> None:
        assert client.post("/reference/embed", headers=AUTH).json() == {"embedded": None}
        response = client.post("/reference/embed", headers=AUTH, json=[1, "two"])
        assert response.json() == {"embedded": [1, "two"]}
        response = client.post(
            "/reference/embed", headers={**AUTH, "Content-Type": "text/plain"}, content=b"x"
        )
        _assert_problem(response, 415, "UNSUPPORTED_MEDIA_TYPE")

    def test_bodies_of_exactly_the_limit_are_read(self, client: TestClient) -> None:
        padding = MAX_BODY_BYTES - len(b'{"a":""}')
        content = b'{"a":"' + b"x" * padding + b'"}'
        assert len(content) == MAX_BODY_BYTES
        headers = {**AUTH, "Content-Type": "application/json"}
        assert client.post(self.FIND, headers=headers, content=content).status_code == 200

    def test_bodies_over_the_limit_are_413(self, client: TestClient, service: FakeService) -> None:
        content = b'{"a":"' + b"x" * MAX_BODY_BYTES + b'"}'
        headers = {**AUTH, "Content-Type": "application/json"}
        response = client.post(self.FIND, headers=headers, content=content)
        _assert_problem(response, 413, "PAYLOAD_TOO_LARGE")
        response = client.post("/projects/p-1/report/export", headers=headers, content=content)
        _assert_problem(response, 413, "PAYLOAD_TOO_LARGE")
        assert service.calls == []

    def test_parse_json_accepts_ordinary_documents(self) -> None:
        assert parse_json('{"a": [1, 2.5, "é", null, true]}'.encode()) == {
            "a": [1, 2.5, "é", None, True]
        }


def _asgi_post(
    app: Any, path: str, headers: list[tuple[bytes, bytes]], chunks: Iterator[bytes]
) -> tuple[int, int]:
    """POST a streamed body straight through ASGI; return the status and chunks consumed."""
    consumed = 0
    status = 0

    async def receive() -> dict[str, Any]:
        nonlocal consumed
        try:
            chunk = next(chunks)
        except StopIteration:
            return {"type": "http.request", "body": b"", "more_body": False}
        consumed += 1
        return {"type": "http.request", "body": chunk, "more_body": True}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": headers,
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
        "state": {},
    }
    asyncio.run(app(scope, receive, send))
    return status, consumed


class TestStreamingLimit:
    """Oversized bodies are refused before they are read whole."""

    def _app(self) -> Any:
        return create_app(FakeService(), StaticTokenAuthenticator({"user-token": USER}))

    def test_an_endless_chunked_body_is_cut_off_after_the_limit(self) -> None:
        def endless() -> Iterator[bytes]:
            yield b'{"a":"'
            while True:
                yield b"x" * 65536

        headers = [(b"authorization", b"Bearer user-token"), (b"content-type", b"application/json")]
        status, consumed = _asgi_post(
            self._app(), "/projects/p-1/semantic/find", headers, endless()
        )
        assert status == 413
        assert consumed <= MAX_BODY_BYTES // 65536 + 2

    def test_a_declared_length_over_the_limit_is_refused_unread(self) -> None:
        headers = [
            (b"authorization", b"Bearer user-token"),
            (b"content-type", b"application/json"),
            (b"content-length", str(MAX_BODY_BYTES + 1).encode()),
        ]
        status, consumed = _asgi_post(
            self._app(), "/projects/p-1/semantic/find", headers, iter([b"{}"])
        )
        assert (status, consumed) == (413, 0)

    def test_a_malformed_content_length_is_a_400(self) -> None:
        headers = [
            (b"authorization", b"Bearer user-token"),
            (b"content-type", b"application/json"),
            (b"content-length", b"12abc"),
        ]
        status, _ = _asgi_post(self._app(), "/projects/p-1/semantic/find", headers, iter([b"{}"]))
        assert status == 400


class TestGnnInfer:
    """``POST /gnn/infer`` answers 404 to every request, before anything else."""

    @given(
        body=st.binary(max_size=2048),
        content_type=st.sampled_from(
            [None, "application/json", "text/plain", "multipart/form-data", "application/xml"]
        ),
        authorization=st.sampled_from(
            [None, "Bearer user-token", "Bearer operator-token", "Bearer forged", "Basic eDp5"]
        ),
    )
    def test_any_request_is_404(
        self, body: bytes, content_type: str | None, authorization: str | None
    ) -> None:
        service = FakeService()
        auth = StaticTokenAuthenticator({"user-token": USER, "operator-token": OPERATOR})
        client = TestClient(create_app(service, auth))
        headers = {}
        if content_type:
            headers["Content-Type"] = content_type
        if authorization:
            headers["Authorization"] = authorization
        response = client.post("/gnn/infer", content=body, headers=headers)
        _assert_problem(response, 404, "GNN_MODEL_NOT_LOADED")
        assert "www-authenticate" not in response.headers
        # Answered on the event loop: no facade call, no executor.
        assert service.calls == []

    def test_even_a_huge_declared_body_is_404_and_unread(self) -> None:
        headers = [(b"content-length", b"999999999"), (b"content-type", b"application/json")]
        status, consumed = _asgi_post(
            create_app(FakeService(), StaticTokenAuthenticator({"t": USER})),
            "/gnn/infer",
            headers,
            iter([b"x" * 65536] * 100),
        )
        assert (status, consumed) == (404, 0)

    def test_a_facade_that_does_not_refuse_still_yields_404(self) -> None:
        class Permissive(FakeService):
            def gnn_infer(self, payload: object = None, *, caller: Principal | None = None) -> Any:
                return {"answer": 42}

        client = TestClient(create_app(Permissive(), StaticTokenAuthenticator({"t": USER})))
        _assert_problem(client.post("/gnn/infer"), 404, "GNN_MODEL_NOT_LOADED")

    def test_a_facade_refusing_with_another_status_still_yields_404(self) -> None:
        class Other(FakeService):
            def gnn_infer(self, payload: object = None, *, caller: Principal | None = None) -> Any:
                raise Unauthenticated("who?")

        client = TestClient(create_app(Other(), StaticTokenAuthenticator({"t": USER})))
        _assert_problem(client.post("/gnn/infer"), 404, "GNN_MODEL_NOT_LOADED")


class TestOpenAPIServing:
    """The checked-in document is served, adjusted to a mount point."""

    def test_served_document_is_the_packaged_one(self, client: TestClient) -> None:
        response = client.get("/openapi.json")
        assert response.status_code == 200
        assert response.json() == load_openapi()
        assert response.json() == json.loads(json.dumps(build_openapi()))

    def test_mounted_document_names_its_server(self, service: FakeService) -> None:
        from starlette.applications import Starlette
        from starlette.routing import Mount

        inner = create_app(service, StaticTokenAuthenticator({"user-token": USER}))
        outer = Starlette(routes=[Mount("/semreport", app=inner)])
        client = TestClient(outer)
        document = client.get("/semreport/openapi.json").json()
        assert document["servers"] == [{"url": "/semreport"}]
        response = client.get("/semreport/projects/p-1/report", headers=AUTH)
        assert response.status_code == 200
        assert service.calls[-1][1] == ("p-1",)


class TestEdges:
    """Rarely reached paths behave."""

    def test_an_optional_body_without_content_type_is_415(self, client: TestClient) -> None:
        response = client.post("/reference/embed", headers=AUTH, content=b'{"a": 1}')
        _assert_problem(response, 415, "UNSUPPORTED_MEDIA_TYPE")

    def test_an_empty_optional_json_body_is_none(
        self, client: TestClient, service: FakeService
    ) -> None:
        headers = {**AUTH, "Content-Type": "application/json"}
        assert client.post("/reference/embed", headers=headers, content=b"").status_code == 200
        assert service.calls[-1][1] == (None,)

    def test_a_digest_that_is_not_an_object_gives_no_headers(self, service: FakeService) -> None:
        class Flat(FakeService):
            def export_report(self, project_id: str, *, caller: Principal | None = None) -> Any:
                return FakeReportExport("<p>x</p>", "sha256:abc", {})  # type: ignore[arg-type]

        client = TestClient(create_app(Flat(), StaticTokenAuthenticator({"user-token": USER})))
        response = client.post("/projects/p-1/report/export", headers=AUTH)
        assert response.status_code == 200
        assert not [h for h in response.headers if h.startswith("semreport-digest")]

    def test_problem_response_without_a_request_id(self) -> None:
        response = problem_response(Unauthenticated("no"))
        assert json.loads(bytes(response.body))["code"] == "UNAUTHENTICATED"
        assert "instance" not in json.loads(bytes(response.body))
        assert response.headers["www-authenticate"].startswith("Bearer")

    def test_other_http_exceptions_keep_their_status(self) -> None:
        request = Request({"type": "http", "method": "GET", "path": "/x", "headers": []})
        response = asyncio.run(_http_exception(request, HTTPException(400, "bad")))
        body = json.loads(bytes(response.body))
        assert (response.status_code, body["status"], body["code"]) == (400, 400, "HTTP_ERROR")

    def test_exceptions_escaping_a_route_are_generic_500s(
        self, caplog: pytest.LogCaptureFixture
    ) -> None:
        request = Request({"type": "http", "method": "GET", "path": "/x", "headers": []})
        with caplog.at_level(logging.ERROR, logger="semreport.http"):
            try:
                raise RuntimeError("boom")
            except RuntimeError as exc:
                response = asyncio.run(_unexpected(request, exc))
        body = json.loads(bytes(response.body))
        assert (response.status_code, body["code"]) == (500, "INTERNAL_ERROR")
        assert "boom" not in bytes(response.body).decode()
        assert response.headers["x-request-id"] in caplog.text


class TestQueryParameters:
    """Typed query parameters reach the facade only when it accepts them."""

    class AsOf(FakeService):
        def report(
            self, project_id: str, *, as_of: int | None = None, caller: Principal | None = None
        ) -> Any:
            self._record("report", project_id, as_of=as_of, caller=caller)
            return {"as_of": as_of}

    def test_as_of_is_an_integer(self) -> None:
        service = self.AsOf()
        client = TestClient(create_app(service, StaticTokenAuthenticator({"user-token": USER})))
        assert client.get("/projects/p-1/report?as_of=7", headers=AUTH).json() == {"as_of": 7}
        assert client.get("/projects/p-1/report", headers=AUTH).json() == {"as_of": None}
        for bad in ("-1", "x", "1.5", "9" * 30, str(2**53)):
            response = client.get(f"/projects/p-1/report?as_of={bad}", headers=AUTH)
            body = _assert_problem(response, 400, "INVALID_REQUEST")
            assert body["errors"][0]["path"] == "$.as_of"

    def test_a_facade_without_the_keyword_never_sees_it(
        self, client: TestClient, service: FakeService
    ) -> None:
        assert client.get("/projects/p-1/report?as_of=7", headers=AUTH).status_code == 200
        assert "as_of" not in service.calls[-1][2]

    def test_accepted_query_parameters(self) -> None:
        report, signals = endpoint("report"), endpoint("signals")
        assert [p.name for p in accepted_query_parameters(report, self.AsOf().report)] == ["as_of"]
        assert accepted_query_parameters(report, FakeService().report) == ()
        assert accepted_query_parameters(report, None) == ()
        assert accepted_query_parameters(report, object()) == ()
        assert accepted_query_parameters(signals, FakeService().signals) == ()


class TestNumbers:
    """JSON has one number type: integral literals reach integer fields as integers."""

    def test_integral_literals_are_integers(self) -> None:
        assert parse_json(b'{"limit": 10.0, "big": 1e3, "x": 0.5}') == {
            "limit": 10,
            "big": 1000,
            "x": 0.5,
        }
        assert type(parse_json(b"[10.0]")[0]) is int
        assert type(parse_json(b"[1e300]")[0]) is float  # beyond 2**53: not exact
