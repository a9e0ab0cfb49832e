"""``python -m semreport.http`` serves the contract on a loopback port."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

import semreport


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class TestRunner:
    """The module runner starts uvicorn with the given storage and credentials."""

    def test_serves_until_terminated(self, tmp_path: Path) -> None:
        # The server only reads: it never creates a storage, so make the file first.
        semreport.open(f"sqlite:///{tmp_path / 'project.db'}").close()
        port = _free_port()
        env = {**os.environ, "SEMREPORT_DEV_TOKEN": "dev-secret"}
        command = [
            sys.executable,
            "-m",
            "semreport.http",
            "--url",
            f"sqlite:///{tmp_path / 'project.db'}",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ]
        process = subprocess.Popen(command, env=env, cwd=tmp_path)
        try:
            base = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 30
            while True:
                try:
                    response = httpx.get(
                        f"{base}/gnn/status",
                        timeout=1,
                        headers={"Authorization": "Bearer dev-secret"},
                    )
                    break
                except httpx.HTTPError:
                    assert process.poll() is None, "the runner exited"
                    assert time.monotonic() < deadline, "the runner did not start"
                    time.sleep(0.2)
            assert response.status_code == 200
            assert response.json()["loaded"] is False
            assert httpx.get(f"{base}/gnn/status", timeout=5).status_code == 401
            assert httpx.post(f"{base}/gnn/infer", timeout=5).status_code == 404
        finally:
            process.terminate()
            # uvicorn shuts down gracefully, then re-raises the signal it caught.
            assert process.wait(timeout=15) in (0, -signal.SIGTERM)
