"""schemathesis against the running application: real uvicorn on 127.0.0.1, valid tokens.

Every operation of the served document is fuzzed with positive and negative
data: no 5xx (except the documented 501 of the reserved rows), no response
that violates the document, and no schema-breaking input accepted. The
number of examples follows the Hypothesis profile (``SEMREPORT_HYPOTHESIS_PROFILE``).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn

import semreport
from semreport import CONTRACT, Principal
from semreport.http import create_app
from semreport.http.testing import LocalIdentityProvider
from semreport.testing.samples import sample_decisions, sample_session

EXAMPLES = {"default": 25, "ci": 50, "thorough": 300}.get(
    os.environ.get("SEMREPORT_HYPOTHESIS_PROFILE", "default"), 25
)


class LiveServer:
    """uvicorn serving the app on a loopback port, in a background thread."""

    def __init__(self, app: Any) -> None:
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind(("127.0.0.1", 0))
        self.port = self.socket.getsockname()[1]
        config = uvicorn.Config(app, log_level="warning", lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline:  # pragma: no cover - a broken environment
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *_exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.socket.close()


@pytest.fixture(scope="module")
def idp() -> LocalIdentityProvider:
    return LocalIdentityProvider()


@pytest.fixture(scope="module")
def live(idp: LocalIdentityProvider) -> Iterator[LiveServer]:
    with semreport.open("memory://", require_caller=True) as service:
        seeder = Principal.local("seeder")
        service.record(sample_decisions(), caller=seeder)
        service.record_sessions(
            [sample_session(2, session_id="s-1", project_id="p-1")], caller=seeder
        )
        with LiveServer(create_app(service, idp.authenticator())) as server:
            yield server


@pytest.fixture(scope="module")
def token(idp: LocalIdentityProvider) -> str:
    # Both roles and every project: fuzzing reaches past authorisation everywhere.
    return idp.token("fuzzer", roles=["user", "operator"], projects=["*"], lifetime=3600)


CHECKS = ",".join(
    [
        "not_a_server_error",
        "status_code_conformance",
        "content_type_conformance",
        "response_headers_conformance",
        "response_schema_conformance",
        "negative_data_rejection",
        "unsupported_method",
        "ignored_auth",
    ]
)

CONFIG = """
[generation]
max-examples = {examples}
database = "none"

# The reserved rows answer 501 by contract: that one 5xx is expected there, and only there.
[[operations]]
include-operation-id = [{reserved}]
checks.not_a_server_error.expected-statuses = ["2xx", "3xx", "4xx", "501"]
"""


def test_the_running_app_conforms(live: LiveServer, token: str, tmp_path: Path) -> None:
    """Fuzz every operation, positive and negative, with a valid token."""
    reserved = ", ".join(f'"{row.operation}"' for row in CONTRACT if row.reserved)
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG.format(examples=EXAMPLES, reserved=reserved))
    command = [
        sys.executable,
        "-m",
        "schemathesis.cli",
        "--config-file",
        str(config),
        "--no-color",
        "run",
        f"{live.url}/openapi.json",
        "--header",
        f"Authorization: Bearer {token}",
        "--mode",
        "all",
        "--checks",
        CHECKS,
        "--phases",
        "examples,coverage,fuzzing",
        "--workers",
        "1",
        "--seed",
        "20261121",
        "--output-truncate",
        "false",
    ]
    result = subprocess.run(
        command, capture_output=True, text=True, timeout=900, check=False, cwd=tmp_path
    )
    assert result.returncode == 0, result.stdout[-20000:] + result.stderr[-5000:]
    assert f"{len(CONTRACT)} selected" in result.stdout, result.stdout


class TestOverTheWire:
    """Limits and refusals hold on a real socket, not just through ASGI."""

    def _raw(self, live: LiveServer, request: bytes, *, body_chunks: int = 0) -> bytes:
        with socket.create_connection(("127.0.0.1", live.port), timeout=10) as conn:
            conn.sendall(request)
            try:
                for _ in range(body_chunks):
                    conn.sendall(b"10000\r\n" + b"x" * 0x10000 + b"\r\n")
            except OSError:
                pass  # the server answered and closed: exactly what is tested
            answer = b""
            while b"\r\n\r\n" not in answer:
                data = conn.recv(65536)
                if not data:
                    break
                answer += data
            return answer

    def test_a_chunked_body_over_a_mebibyte_is_413(self, live: LiveServer, token: str) -> None:
        request = (
            b"POST /catalogue/match HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Authorization: Bearer " + token.encode() + b"\r\n"
            b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        answer = self._raw(live, request, body_chunks=40)
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]

    def test_a_declared_length_over_a_mebibyte_is_413_without_a_body(
        self, live: LiveServer, token: str
    ) -> None:
        request = (
            b"POST /catalogue/match HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Authorization: Bearer " + token.encode() + b"\r\n"
            b"Content-Type: application/json\r\nContent-Length: 50000000\r\n\r\n"
        )
        assert self._raw(live, request).startswith(b"HTTP/1.1 413")

    def test_gnn_infer_is_404_over_the_wire(self, live: LiveServer) -> None:
        request = (
            b"POST /gnn/infer HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/xml\r\nContent-Length: 50000000\r\n\r\n<x>"
        )
        assert self._raw(live, request).startswith(b"HTTP/1.1 404")
