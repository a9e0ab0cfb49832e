"""``semreport serve``: builds the authenticator and calls ``semreport.http.serve``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cli_support import run

from semreport import Unauthenticated, http
from semreport.cli import EXIT_REFUSED


class TestServe:
    """The command configures the HTTP adapter; it does not reimplement it."""

    def test_dev_token(self, monkeypatch: pytest.MonkeyPatch) -> None:
        calls: list[dict[str, Any]] = []
        monkeypatch.setattr(http, "serve", lambda **kwargs: calls.append(kwargs))
        result = run(
            "serve",
            "--url",
            "memory://",
            "--port",
            "8123",
            "--dev-token",
            "s3cret",
            "--threads",
            "2",
            "--heavy-queue",
            "5",
        )
        assert result.exit_code == 0, result.stderr
        (call,) = calls
        # The command opens the facade itself (no default caller) and serves it.
        with pytest.raises(Unauthenticated):
            call["service"].gnn_status()
        assert (call["host"], call["port"]) == ("127.0.0.1", 8123)
        assert (call["light"].threads, call["light"].queue) == (2, 256)
        assert (call["heavy"].threads, call["heavy"].queue) == (1, 5)
        assert call["switch_interval"] == 0.001
        assert (call["limit_concurrency"], call["timeout_keep_alive"]) == (1024, 5)
        assert call["header_timeout"] == 10.0
        assert call["timeout_worker_healthcheck"] == 5
        assert call["authenticator"].authenticate("s3cret").subject == "dev"
        assert "serving memory:// on http://127.0.0.1:8123" in result.stderr

    def test_oidc_options(self, monkeypatch: pytest.MonkeyPatch) -> None:
        calls: list[Any] = []
        monkeypatch.setattr(http, "serve", lambda **kwargs: calls.append(kwargs))
        monkeypatch.setenv("SEMREPORT_OIDC_ISSUER", "https://id.example.org")
        result = run(
            "serve",
            "--url",
            "memory://",
            "--oidc-audience",
            "semreport",
            "--oidc-jwks",
            '{"keys": []}',
            "--roles-claim",
            "realm_access.roles",
        )
        assert result.exit_code == 0, result.stderr
        assert type(calls[0]["authenticator"]).__name__ == "OIDCAuthenticator"

    def test_no_authentication_is_one_line(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(http, "serve", lambda *_a, **_k: None)
        result = run("serve", "--url", "memory://")
        assert result.exit_code == EXIT_REFUSED
        assert result.stderr.startswith("semreport: error: CONFIGURATION_ERROR: configure")
        assert result.stderr.count("\n") == 1

    def test_workers_get_the_url_settings_and_one_key(
        self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
    ) -> None:
        calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
        monkeypatch.setattr(http, "serve", lambda *a, **kw: calls.append((a, kw)))
        key_file = tmp_path / "cursor.key"
        key_file.write_bytes(b"k" * 32 + b"\n")
        result = run(
            "serve",
            "--url",
            "memory://",
            "--dev-token",
            "s3cret",
            "--workers",
            "3",
            "--cursor-key-file",
            str(key_file),
            "--limit-concurrency",
            "0",
        )
        assert result.exit_code == 0, result.stderr
        ((args, kwargs),) = calls
        assert args == ("memory://",)
        assert kwargs["workers"] == 3
        assert kwargs["cursor_key"] == b"k" * 32
        assert kwargs["limit_concurrency"] is None
        assert kwargs["authenticator"] == http.AuthSettings(dev_token="s3cret")
        assert "with 3 workers" in result.stderr

    def test_the_cursor_key_comes_from_the_environment(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        calls: list[dict[str, Any]] = []
        monkeypatch.setattr(http, "serve", lambda *a, **kw: calls.append(kw))
        monkeypatch.setenv("SEMREPORT_CURSOR_KEY", "x" * 20)
        result = run("serve", "--url", "memory://", "--dev-token", "t", "--workers", "2")
        assert result.exit_code == 0, result.stderr
        assert calls[0]["cursor_key"] == b"x" * 20

    def test_a_short_cursor_key_is_refused(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(http, "serve", lambda *a, **kw: None)
        monkeypatch.setenv("SEMREPORT_CURSOR_KEY", "short")
        result = run("serve", "--url", "memory://", "--dev-token", "t")
        assert result.exit_code == EXIT_REFUSED
        assert "16 or more" in result.stderr
