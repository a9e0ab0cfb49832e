"""The runner: serve() and ``python -m semreport.http`` option handling."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import semreport
from semreport import ConfigurationError, Principal
from semreport.http import OIDCAuthenticator, StaticTokenAuthenticator, build_authenticator
from semreport.http import _serve as serve_module


class TestBuildAuthenticator:
    """Command-line options become an authenticator."""

    def test_dev_token(self) -> None:
        auth = build_authenticator(dev_token="secret")
        assert isinstance(auth, StaticTokenAuthenticator)
        assert auth.authenticate("secret").all_projects

    def test_oidc(self) -> None:
        auth = build_authenticator(
            oidc_issuer="https://id.example.org",
            oidc_audience="semreport",
            oidc_jwks="/nonexistent/jwks.json",
        )
        assert isinstance(auth, OIDCAuthenticator)

    @pytest.mark.parametrize(
        "options",
        [
            {},
            {"oidc_issuer": "https://id.example.org"},
            {"dev_token": "x", "oidc_issuer": "https://id.example.org"},
        ],
    )
    def test_incomplete_or_conflicting(self, options: dict[str, Any]) -> None:
        with pytest.raises(ConfigurationError):
            build_authenticator(**options)


class TestServe:
    """serve() opens the facade with require_caller, runs uvicorn, closes it."""

    def test_serve_a_url(self, monkeypatch: pytest.MonkeyPatch) -> None:
        seen: dict[str, Any] = {}

        def fake_run(app: Any, **options: Any) -> None:
            seen["app"] = app
            seen.update(options)

        monkeypatch.setattr(serve_module.uvicorn, "run", fake_run)
        auth = StaticTokenAuthenticator({"t": Principal.local()})
        serve_module.serve("memory://", authenticator=auth, port=8123)
        assert seen["host"] == "127.0.0.1"
        assert seen["port"] == 8123
        assert seen["app"] is not None

    def test_serve_an_open_service_leaves_it_open(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(serve_module.uvicorn, "run", lambda app, **_: None)
        closed: list[bool] = []
        service = semreport.open("memory://", require_caller=True)
        monkeypatch.setattr(service, "close", lambda: closed.append(True))
        serve_module.serve(
            service=service, authenticator=StaticTokenAuthenticator({"t": Principal.local()})
        )
        assert closed == []

    def test_a_missing_storage_is_refused_not_created(
        self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
    ) -> None:
        ran: list[Any] = []
        monkeypatch.setattr(serve_module.uvicorn, "run", lambda app, **_: ran.append(app))
        missing = tmp_path / "typo.db"
        auth = StaticTokenAuthenticator({"t": Principal.local()})
        with pytest.raises(semreport.StorageNotFound, match=r"typo\.db"):
            serve_module.serve(f"sqlite:///{missing}", authenticator=auth)
        assert ran == []
        assert sorted(tmp_path.iterdir()) == []

    def test_storage_options_may_still_ask_to_create(
        self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
    ) -> None:
        monkeypatch.setattr(serve_module.uvicorn, "run", lambda app, **_: None)
        auth = StaticTokenAuthenticator({"t": Principal.local()})
        serve_module.serve(f"sqlite:///{tmp_path / 'new.db'}", authenticator=auth, create=True)
        assert (tmp_path / "new.db").exists()

    def test_url_or_service(self) -> None:
        auth = StaticTokenAuthenticator({"t": Principal.local()})
        with pytest.raises(ConfigurationError):
            serve_module.serve(authenticator=auth)
        with pytest.raises(ConfigurationError):
            serve_module.serve("memory://", service=object(), authenticator=auth)

    def test_the_facade_refuses_calls_without_a_caller(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        captured: list[Any] = []
        monkeypatch.setattr(
            serve_module, "create_app", lambda service, auth, **_: captured.append(service)
        )
        monkeypatch.setattr(serve_module.uvicorn, "run", lambda app, **_: None)
        serve_module.serve(
            "memory://", authenticator=StaticTokenAuthenticator({"t": Principal.local()})
        )
        with pytest.raises(semreport.Unauthenticated):
            captured[0].gnn_status()


class TestMain:
    """``python -m semreport.http`` parses its options."""

    def test_main_with_a_dev_token(self, monkeypatch: pytest.MonkeyPatch) -> None:
        calls: list[dict[str, Any]] = []
        monkeypatch.setattr(
            serve_module, "serve", lambda url, **kw: calls.append({"url": url, **kw})
        )
        argv = ["--url", "memory://", "--port", "9000", "--dev-token", "tok"]
        assert serve_module.main(argv) == 0
        assert calls[0]["url"] == "memory://"
        assert calls[0]["port"] == 9000
        assert isinstance(calls[0]["authenticator"], StaticTokenAuthenticator)

    def test_main_reads_the_environment(self, monkeypatch: pytest.MonkeyPatch) -> None:
        calls: list[dict[str, Any]] = []
        monkeypatch.setattr(serve_module, "serve", lambda url, **kw: calls.append(kw))
        monkeypatch.setenv("SEMREPORT_OIDC_ISSUER", "https://id.example.org")
        monkeypatch.setenv("SEMREPORT_OIDC_AUDIENCE", "semreport")
        monkeypatch.setenv("SEMREPORT_OIDC_JWKS", "https://id.example.org/jwks")
        assert serve_module.main(["--url", "memory://"]) == 0
        assert isinstance(calls[0]["authenticator"], OIDCAuthenticator)

    def test_main_without_authentication_fails(
        self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        for name in ("SEMREPORT_OIDC_ISSUER", "SEMREPORT_DEV_TOKEN"):
            monkeypatch.delenv(name, raising=False)
        with pytest.raises(SystemExit) as exc:
            serve_module.main(["--url", "memory://"])
        assert exc.value.code == 2
        assert "authentication" in capsys.readouterr().err
