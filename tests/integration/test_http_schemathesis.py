"""schemathesis against the running application: real uvicorn on 127.0.0.1, valid tokens.

Every operation of the served document is fuzzed with positive and negative
data: no 5xx (except the documented 501 of the reserved rows), no response
that violates the document, no schema-breaking input accepted and no input
the document calls valid refused; the stateful phase follows the document's
links (a page's ``next_cursor`` to the next page). The
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
from semreport import CONTRACT, Principal, limits
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
        "positive_data_acceptance",
    ]
)

HOOKS = """
from datetime import datetime

import hypothesis.strategies as st
import schemathesis

# A cursor is an opaque token the service signs: the only valid ones come from a page's
# next_cursor, which the stateful phase follows through the document's links. Generated
# positive data therefore leaves it null; negative data still sends made-up ones.
schemathesis.openapi.format("semreport-cursor", st.nothing())
# A tag's format (the document says it in words): printable text, no surrounding whitespace.
schemathesis.openapi.format(
    "semreport-tag",
    st.text(min_size=1, max_size=128).filter(lambda t: t.isprintable() and t == t.strip()),
)

LIMIT = {limit}


def _time(text):
    if not isinstance(text, str):
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def _keeps_rules(value):
    # The rules the document states in words (x-rule) that JSON Schema cannot: they span
    # several members. A generated body breaking one is not a valid request.
    if isinstance(value, list):
        return all(_keeps_rules(item) for item in value)
    if not isinstance(value, dict):
        return True
    low, high = value.get("min"), value.get("max")
    if isinstance(low, (int, float)) and isinstance(high, (int, float)) and low > high:
        return False
    after, before = _time(value.get("after")), _time(value.get("before"))
    if after is not None and before is not None:
        try:
            if after > before:
                return False
        except TypeError:
            pass
    counted = [value.get(k) for k in ("domain", "status", "agent", "tags", "attributes")]
    if sum(len(v) for v in counted if isinstance(v, (list, dict))) > LIMIT:
        return False
    tags = value.get("tags")
    if isinstance(tags, list) and not all(
        isinstance(t, str) and t.isprintable() and t == t.strip() for t in tags
    ):
        return False
    text = [value.get(k) for k in ("title", "statement", "rationale")]
    if sum(len(t) for t in text if isinstance(t, str)) > {exemplar_text}:
        return False
    return all(_keeps_rules(item) for item in value.values())


@schemathesis.hook
def filter_body(ctx, body):
    return _keeps_rules(body)
"""

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
    (tmp_path / "semreport_hooks.py").write_text(
        HOOKS.format(limit=limits.MAX_FILTER_VALUES, exemplar_text=limits.MAX_EXEMPLAR_TEXT)
    )
    env = {**os.environ, "SCHEMATHESIS_HOOKS": "semreport_hooks", "PYTHONPATH": str(tmp_path)}
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
        "examples,coverage,fuzzing,stateful",
        "--workers",
        "1",
        "--seed",
        "20261121",
        "--output-truncate",
        "false",
    ]
    result = subprocess.run(
        command, capture_output=True, text=True, timeout=900, check=False, cwd=tmp_path, env=env
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
