"""``semreport serve``: builds the authenticator and calls ``semreport.http.serve``."""

from __future__ import annotations

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
            "--workers",
            "2",
        )
        assert result.exit_code == 0, result.stderr
        (call,) = calls
        # The command opens the facade itself (no default caller) and serves it.
        with pytest.raises(Unauthenticated):
            call["service"].gnn_status()
        assert (call["host"], call["port"], call["workers"]) == ("127.0.0.1", 8123, 2)
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
