"""Operations: health, readiness, metrics, the access log, conditional requests, no redirects."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import attrs
import pytest
from http_support import Client, Digest, Report
from starlette.testclient import TestClient

import semreport
from semreport import Principal, Role
from semreport.http import StaticTokenAuthenticator, create_app
from semreport.http._routing import etag_matches, version_of
from semreport.testing.samples import sample_decisions

USER = Principal("alice", roles={Role.USER, Role.OPERATOR}, projects={"p-1"})
AUTH = {"Authorization": "Bearer t"}


@attrs.frozen
class Export:
    html: str
    digest: Digest


class Facade:
    """A facade whose report has a version the test sets."""

    def __init__(self) -> None:
        self.version = "a" * 64
        self.calls: list[str] = []
        self.hits = 0

    def report(
        self, project_id: str, *, as_of: int | None = None, caller: Principal | None = None
    ) -> Report:
        self.calls.append("report")
        return Report(project_id, Digest("semreport-digest/1", self.version))

    def export_report(
        self, project_id: str, *, as_of: int | None = None, caller: Principal | None = None
    ) -> Export:
        self.calls.append("export_report")
        return Export("<p>report</p>", Digest("semreport-digest/1", self.version))

    def cache_info(self) -> dict[str, int]:
        return {"hits": self.hits, "misses": 1, "entries": 2, "size_bytes": 4096}


def _client(facade: Any = None, **options: Any) -> TestClient:
    app = create_app(
        facade if facade is not None else Facade(),
        StaticTokenAuthenticator({"t": USER}),
        **options,
    )
    return TestClient(app, raise_server_exceptions=False)


class TestConditionalRequests:
    """ETag from the report digest; If-None-Match answered 304."""

    def test_get_report_has_a_strong_etag_and_answers_304(self) -> None:
        facade = Facade()
        client = _client(facade)
        first = client.get("/projects/p-1/report", headers=AUTH)
        etag = first.headers["etag"]
        assert etag == f'"{facade.version}"'
        assert first.headers["cache-control"] == "private, no-cache"
        again = client.get("/projects/p-1/report", headers={**AUTH, "If-None-Match": etag})
        assert (again.status_code, again.content) == (304, b"")
        assert again.headers["etag"] == etag
        facade.version = "b" * 64  # an append: a new report
        changed = client.get("/projects/p-1/report", headers={**AUTH, "If-None-Match": etag})
        assert changed.status_code == 200
        assert changed.headers["etag"] == f'"{"b" * 64}"'

    def test_the_rendered_report_is_reused_while_unchanged(self) -> None:
        client = _client()
        bodies = {client.get("/projects/p-1/report", headers=AUTH).content for _ in range(3)}
        assert len(bodies) == 1

    def test_the_export_answers_304_from_the_report_alone(self) -> None:
        facade = Facade()
        client = _client(facade)
        first = client.post("/projects/p-1/report/export", headers=AUTH)
        etag = first.headers["etag"]
        assert etag == f'W/"{facade.version}"'
        assert first.headers["vary"] == "Accept"
        facade.calls.clear()
        again = client.post("/projects/p-1/report/export", headers={**AUTH, "If-None-Match": etag})
        assert again.status_code == 304
        assert facade.calls == ["report"]  # the HTML was never built
        json_etag = client.post(
            "/projects/p-1/report/export", headers={**AUTH, "Accept": "application/json"}
        ).headers["etag"]
        assert json_etag == f'W/"{facade.version}-json"'

    def test_a_real_report_round_trip(self) -> None:
        with semreport.open("memory://", require_caller=True) as service:
            service.record(sample_decisions("p-1", 5), caller=Principal.local("seed"))
            client = _client(service)
            first = client.get("/projects/p-1/report", headers=AUTH)
            digest = first.json()["digest"]["report_sha256"]
            assert first.headers["etag"] == f'"{digest}"'
            conditional = {**AUTH, "If-None-Match": f'W/"x", {first.headers["etag"]}'}
            assert client.get("/projects/p-1/report", headers=conditional).status_code == 304
            service.record(sample_decisions("p-1", 6)[5:], caller=Principal.local("seed"))
            assert client.get("/projects/p-1/report", headers=conditional).status_code == 200

    @pytest.mark.parametrize(
        ("header", "etag", "matches"),
        [
            ("*", '"a"', True),
            ('"a"', '"a"', True),
            ('W/"a"', '"a"', True),
            ('"b", W/"a"', 'W/"a"', True),
            ('"b"', '"a"', False),
        ],
    )
    def test_weak_comparison(self, header: str, etag: str, matches: bool) -> None:
        assert etag_matches(header, etag) is matches

    def test_versions_must_be_printable_text(self) -> None:
        assert version_of(Report("p", Digest("s", "v\n")), "digest.report_sha256") is None
        assert version_of(object(), "digest.report_sha256") is None


class TestHealth:
    """/healthz and /readyz answer without credentials."""

    def test_healthz(self) -> None:
        response = _client().get("/healthz")
        assert (response.status_code, response.json()) == (200, {"status": "ok"})

    def test_readyz_asks_the_storage(self, tmp_path: Path) -> None:
        url = f"sqlite:///{tmp_path / 'ready.db'}"
        with semreport.open(url, require_caller=True) as service:
            client = _client(service)
            assert client.get("/readyz").json() == {"status": "ready"}
        # Closed: the storage refuses every read.
        response = client.get("/readyz")
        assert response.status_code == 503
        assert response.json()["code"] == "SERVICE_UNAVAILABLE"
        assert response.headers["retry-after"] == "5"

    def test_a_custom_readiness_check(self) -> None:
        def broken() -> None:
            raise OSError("down")

        assert _client(readiness=broken).get("/readyz").status_code == 503
        assert _client(readiness=lambda: None).get("/readyz").status_code == 200


class TestMetrics:
    """Prometheus metrics, opt-in."""

    def test_off_by_default(self) -> None:
        assert _client().get("/metrics").status_code == 404

    def test_counts_latency_lanes_and_cache(self) -> None:
        facade = Facade()
        facade.hits = 7
        client = _client(facade, metrics=True)
        client.get("/projects/p-1/report", headers=AUTH)
        client.get("/projects/p-1/report")  # 401
        text = client.get("/metrics").text
        route = 'route="/projects/{project_id}/report"'
        assert f'semreport_http_requests_total{{method="GET",{route},status="200"}} 1.0' in text
        assert f'semreport_http_requests_total{{method="GET",{route},status="401"}} 1.0' in text
        assert "semreport_http_request_duration_seconds_bucket" in text
        assert 'semreport_http_lane_queued{lane="heavy"} 0.0' in text
        assert 'semreport_http_lane_running{lane="light"} 0.0' in text
        assert "semreport_report_cache_hits_total 7.0" in text
        assert "semreport_report_cache_misses_total 1.0" in text
        assert "semreport_report_cache_evictions_total 0.0" in text
        assert "semreport_report_cache_size_bytes 4096.0" in text


class TestAccessLog:
    """One structured line per request, with its request id."""

    def test_one_line_per_request(self, caplog: pytest.LogCaptureFixture) -> None:
        client = _client()
        with caplog.at_level(logging.INFO, logger="semreport.http.access"):
            response = client.get("/projects/p-1/report", headers=AUTH)
            client.get("/nowhere")
        lines = [r for r in caplog.records if r.name == "semreport.http.access"]
        assert len(lines) == 2
        first = json.loads(lines[0].getMessage())
        assert first["request_id"] == response.headers["x-request-id"]
        assert first["route"] == "/projects/{project_id}/report"
        assert first["status"] == 200
        assert first["bytes"] == len(response.content)
        assert lines[0].semreport["request_id"] == first["request_id"]  # type: ignore[attr-defined]
        assert json.loads(lines[1].getMessage())["route"] == "(unmatched)"

    def test_can_be_switched_off(self, caplog: pytest.LogCaptureFixture) -> None:
        with caplog.at_level(logging.INFO, logger="semreport.http.access"):
            _client(access_log=False).get("/healthz")
        assert not [r for r in caplog.records if r.name == "semreport.http.access"]


class TestNoRedirects:
    """A trailing slash is a 404; nothing is built from the Host header."""

    @pytest.mark.parametrize("path", ["/gnn/status/", "/projects/p-1/report/", "/healthz/"])
    def test_trailing_slash_is_404(self, path: str) -> None:
        answer = asyncio.run(
            Client("GET", path, headers=[("Host", "evil.example"), ("Authorization", "Bearer t")])(
                create_app(Facade(), StaticTokenAuthenticator({"t": USER}))
            )
        )
        assert answer.status == 404
        assert "location" not in answer.headers
        assert b"evil.example" not in answer.body
