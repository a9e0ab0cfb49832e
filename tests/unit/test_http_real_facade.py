"""The HTTP adapter over the real facade (memory storage): search, reports, exports, limits."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
from starlette.testclient import TestClient

import semreport
from semreport import Principal
from semreport.http import StaticTokenAuthenticator, create_app, load_openapi
from semreport.testing.samples import sample_decisions, sample_session

AUTH = {"Authorization": "Bearer user"}
DOCUMENT = load_openapi()


@pytest.fixture(scope="module")
def service() -> Iterator[semreport.SemReport]:
    with semreport.open("memory://", require_caller=True) as service:
        seeder = Principal.local("seeder")
        service.record(sample_decisions("p-1", 30), caller=seeder)
        service.record_sessions(
            [sample_session(2, session_id="s-1", project_id="p-1")], caller=seeder
        )
        yield service


@pytest.fixture(scope="module")
def client(service: semreport.SemReport) -> Iterator[TestClient]:
    auth = StaticTokenAuthenticator({"user": Principal("ulla", roles={"user"}, projects={"p-1"})})
    with TestClient(create_app(service, auth)) as client:
        yield client


def validator(schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator({**schema, "components": DOCUMENT["components"]})


def _conforms(path: str, method: str, response: Any, media: str = "application/json") -> None:
    documented = DOCUMENT["paths"][path][method]["responses"][str(response.status_code)]
    schema = documented["content"][media]["schema"]
    validator(schema).validate(response.json())


class TestSearch:
    """find, similar and signals over HTTP equal the facade's answers."""

    def test_signals(self, client: TestClient, service: semreport.SemReport) -> None:
        response = client.get("/projects/p-1/semantic/signals", headers=AUTH)
        assert response.status_code == 200
        caller = Principal.local()
        assert response.json() == semreport.to_wire(service.signals("p-1", caller=caller))
        _conforms("/projects/{project_id}/semantic/signals", "get", response)

    def test_find(self, client: TestClient, service: semreport.SemReport) -> None:
        criteria = {"text": "fire rated doors", "limit": 5}
        response = client.post("/projects/p-1/semantic/find", headers=AUTH, json=criteria)
        assert response.status_code == 200
        expected = service.find("p-1", criteria, caller=Principal.local())
        assert response.json() == semreport.to_wire(expected)
        assert response.json()["hits"]
        assert response.json()["scorer"]["model_inference"] is False
        assert response.json()["hits"][0]["highlights"][0]["spans"]
        _conforms("/projects/{project_id}/semantic/find", "post", response)

    def test_find_warns_about_unknown_names(self, client: TestClient) -> None:
        body = {"text": "fire", "filters": {"tags": ["no-such-tag"]}, "near": {"nope": 1}}
        response = client.post("/projects/p-1/semantic/find", headers=AUTH, json=body)
        assert response.status_code == 200
        warnings = response.json()["warnings"]
        assert [(w["field"], w["value"]) for w in warnings] == [
            ("filters.tags", "no-such-tag"),
            ("near", "nope"),
        ]
        _conforms("/projects/{project_id}/semantic/find", "post", response)

    def test_cursor_pages_over_http_visit_each_hit_once(self, client: TestClient) -> None:
        seen: list[str] = []
        body: dict[str, Any] = {"text": "timber steel fire", "limit": 4}
        for _ in range(50):
            page = client.post("/projects/p-1/semantic/find", headers=AUTH, json=body).json()
            seen.extend(hit["decision_id"] for hit in page["hits"])
            if not page["next_cursor"]:
                break
            body = {**body, "cursor": page["next_cursor"]}
        assert len(seen) == len(set(seen)) == page["total"]

    def test_similar(self, client: TestClient) -> None:
        response = client.post(
            "/projects/p-1/semantic/similar", headers=AUTH, json={"decision_id": "d-2"}
        )
        assert response.status_code == 200
        assert "d-2" not in [hit["decision_id"] for hit in response.json()["hits"]]
        _conforms("/projects/{project_id}/semantic/similar", "post", response)

    def test_similar_to_an_unknown_decision(self, client: TestClient) -> None:
        response = client.post(
            "/projects/p-1/semantic/similar", headers=AUTH, json={"decision_id": "d-999"}
        )
        assert response.status_code == 404
        assert response.json()["code"] == "DECISION_NOT_FOUND"

    @pytest.mark.parametrize(
        ("body", "path"),
        [
            ({"text": "x" * 4097}, "$.text"),
            ({"limit": 101}, "$.limit"),
            ({"filters": {"tags": [f"t{i}" for i in range(257)]}}, "$.filters"),
            ({"unknown": 1}, "$"),
            ({"limit": "10"}, "$.limit"),
        ],
    )
    def test_limits_and_bad_fields_are_400_with_paths(
        self, client: TestClient, body: dict[str, Any], path: str
    ) -> None:
        response = client.post("/projects/p-1/semantic/find", headers=AUTH, json=body)
        assert response.status_code == 400, response.text
        problem = response.json()
        assert problem["code"] == "INVALID_REQUEST"
        assert any(error["path"].startswith(path) for error in problem["errors"]), problem


class TestReports:
    """The report JSON and its HTML export with the digest."""

    def test_report(self, client: TestClient, service: semreport.SemReport) -> None:
        response = client.get("/projects/p-1/report", headers=AUTH)
        assert response.status_code == 200
        assert response.json() == semreport.to_wire(service.report("p-1", caller=Principal.local()))
        _conforms("/projects/{project_id}/report", "get", response)

    def test_export_carries_the_digest_in_headers(
        self, client: TestClient, service: semreport.SemReport
    ) -> None:
        response = client.post("/projects/p-1/report/export", headers=AUTH)
        assert response.status_code == 200
        assert response.headers["content-type"] == "text/html; charset=utf-8"
        digest = semreport.to_wire(service.report("p-1", caller=Principal.local()).digest)
        assert response.headers["semreport-digest-records-root"] == digest["records_root"]
        assert response.headers["semreport-digest-report-sha256"] == digest["report_sha256"]
        assert response.headers["semreport-digest-scheme"] == digest["scheme"]
        assert digest["records_root"] in response.text
        assert semreport.verify(response.text).ok

    def test_export_json_envelope(self, client: TestClient) -> None:
        headers = {**AUTH, "Accept": "application/json"}
        response = client.post("/projects/p-1/report/export", headers=headers)
        assert response.json()["digest"]["scheme"] == "semreport-digest/1"
        assert response.json()["html"].lstrip().lower().startswith("<!doctype html")
        _conforms("/projects/{project_id}/report/export", "post", response)

    def test_as_of(self, client: TestClient) -> None:
        response = client.get("/projects/p-1/report?as_of=3", headers=AUTH)
        assert response.json()["as_of_sequence"] == 3


class TestSessionExports:
    """Exports with their media type and file name."""

    @pytest.mark.parametrize(
        ("fmt", "query", "media", "start"),
        [
            ("json", "", "application/json", b"{"),
            ("graph", "", "application/json", b"{"),
            ("graph", "?graph_format=graphml", "application/graphml+xml", b"<?xml"),
            ("pdf", "", "application/pdf", b"%PDF"),
        ],
    )
    def test_formats(
        self, client: TestClient, fmt: str, query: str, media: str, start: bytes
    ) -> None:
        response = client.post(f"/sessions/s-1/export/{fmt}{query}", headers=AUTH)
        assert response.status_code == 200, response.text
        assert response.headers["content-type"].startswith(media)
        assert response.content.startswith(start)
        assert response.headers["content-disposition"].startswith('attachment; filename="')

    def test_unknown_format_and_session(self, client: TestClient) -> None:
        response = client.post("/sessions/s-1/export/docx", headers=AUTH)
        assert (response.status_code, response.json()["code"]) == (
            404,
            "UNSUPPORTED_EXPORT_FORMAT",
        )
        response = client.post("/sessions/s-404/export/json", headers=AUTH)
        assert (response.status_code, response.json()["code"]) == (404, "SESSION_NOT_FOUND")
