"""The runner: serve() and ``python -m semreport.http`` option handling."""

from __future__ import annotations

import asyncio
import functools
import json
import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from starlette.testclient import TestClient

import semreport
from semreport import ConfigurationError, Principal
from semreport.http import (
    CURSOR_KEY_ENV,
    AuthSettings,
    OIDCAuthenticator,
    StaticTokenAuthenticator,
    build_authenticator,
    create_app,
    read_cursor_key,
)
from semreport.http import _serve as serve_module
from semreport.search import HeuristicScorer
from semreport.testing.samples import sample_decisions


@pytest.fixture(autouse=True)
def _keep_the_switch_interval() -> Iterator[None]:
    """serve() and worker_app() set the process's GIL switch interval: restore it."""
    before = sys.getswitchinterval()
    yield
    sys.setswitchinterval(before)


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
        sys.setswitchinterval(0.005)
        seen: dict[str, Any] = {}

        def fake_run(app: Any, **options: Any) -> None:
            seen["app"] = app
            seen.update(options)

        monkeypatch.setattr(serve_module.uvicorn, "run", fake_run)
        auth = StaticTokenAuthenticator({"t": Principal.local()})
        serve_module.serve("memory://", authenticator=auth, port=8123)
        assert sys.getswitchinterval() == pytest.approx(0.001)
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
        assert serve_module.main([*argv, "--timeout-worker-healthcheck", "7"]) == 0
        assert calls[0]["url"] == "memory://"
        assert calls[0]["port"] == 9000
        assert calls[0]["timeout_worker_healthcheck"] == 7
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

    @pytest.mark.parametrize(
        ("option", "message"),
        [
            (["--workers", "0"], "workers must be at least 1"),
            (["--timeout-worker-healthcheck", "0"], "at least 1 second"),
        ],
    )
    def test_main_refuses_options_out_of_range(
        self, option: list[str], message: str, capsys: pytest.CaptureFixture[str]
    ) -> None:
        with pytest.raises(SystemExit) as exc:
            serve_module.main(["--url", "memory://", "--dev-token", "tok", *option])
        assert exc.value.code == 2
        assert message in capsys.readouterr().err


class TestWorkers:
    """Several worker processes: one key for all, each opening the storage itself."""

    def _serve_workers(
        self, monkeypatch: pytest.MonkeyPatch, url: str, **options: Any
    ) -> dict[str, Any]:
        seen: dict[str, Any] = {}

        def fake_run(app: str, workers: int, options: dict[str, Any]) -> None:
            seen.update(options, app=app, workers=workers)
            seen["config"] = os.environ[serve_module._WORKER_ENV]

        monkeypatch.setattr(serve_module, "run_workers", fake_run)
        monkeypatch.delenv(serve_module._WORKER_ENV, raising=False)
        serve_module.serve(url, authenticator=AuthSettings(dev_token="tok"), workers=3, **options)
        return seen

    def test_the_supervisor_gets_the_factory_and_the_workers(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        seen = self._serve_workers(monkeypatch, "memory://")
        assert seen["app"] == "semreport.http._serve:worker_app"
        assert seen["workers"] == 3
        assert seen["access_log"] is False  # ours replaces uvicorn's
        assert seen["limit_concurrency"] == serve_module.DEFAULT_LIMIT_CONCURRENCY
        assert seen["http"].keywords == {"header_timeout": serve_module.DEFAULT_HEADER_TIMEOUT}
        assert seen["timeout_worker_healthcheck"] == 5
        assert json.loads(seen["config"])["switch_interval"] == 0.001

    def test_the_health_check_timeout_is_handed_to_the_supervisor(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        seen = self._serve_workers(monkeypatch, "memory://", timeout_worker_healthcheck=12)
        assert seen["timeout_worker_healthcheck"] == 12
        with pytest.raises(ConfigurationError, match="at least 1 second"):
            self._serve_workers(monkeypatch, "memory://", timeout_worker_healthcheck=0)

    def test_workers_share_one_cursor_key(
        self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
    ) -> None:
        url = f"sqlite:///{tmp_path / 'shared.db'}"
        with semreport.open(url) as seed:
            seed.record(sample_decisions("p-1", 30))
        self._serve_workers(monkeypatch, url)
        # Two workers built from the same hand-over: a cursor of one is valid at the other.
        first, second = (TestClient(serve_module.worker_app()) for _ in range(2))
        with first, second:
            auth = {"Authorization": "Bearer tok"}
            page = first.post("/projects/p-1/semantic/find", headers=auth, json={"limit": 5})
            cursor = page.json()["next_cursor"]
            assert cursor is not None
            following = second.post(
                "/projects/p-1/semantic/find", headers=auth, json={"limit": 5, "cursor": cursor}
            )
            assert following.status_code == 200, following.text
            ids = {h["decision_id"] for h in page.json()["hits"]}
            assert ids.isdisjoint(h["decision_id"] for h in following.json()["hits"])

    def test_a_given_key_is_handed_over(self, monkeypatch: pytest.MonkeyPatch) -> None:
        seen = self._serve_workers(monkeypatch, "memory://", cursor_key="k" * 20)
        assert json.loads(seen["config"])["cursor_key"] == (b"k" * 20).hex()

    def test_several_workers_need_a_url_and_settings(self) -> None:
        auth = StaticTokenAuthenticator({"t": Principal.local()})
        with pytest.raises(ConfigurationError, match="AuthSettings"):
            serve_module.serve("memory://", authenticator=auth, workers=2)
        with pytest.raises(ConfigurationError, match="url"):
            serve_module.serve(
                service=object(), authenticator=AuthSettings(dev_token="t"), workers=2
            )
        with pytest.raises(ConfigurationError, match="at least 1"):
            serve_module.serve("memory://", authenticator=auth, workers=0)

    def test_storage_options_must_be_json(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(serve_module, "run_workers", lambda *a, **k: None)
        with pytest.raises(ConfigurationError, match="JSON"):
            serve_module.serve(
                "memory://", authenticator=AuthSettings(dev_token="t"), workers=2, clock=object()
            )

    def test_worker_app_outside_serve_is_refused(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.delenv(serve_module._WORKER_ENV, raising=False)
        with pytest.raises(ConfigurationError, match="workers started by serve"):
            serve_module.worker_app()


class TestCursorKey:
    """The shared key: a file, the environment, or none."""

    def test_file_environment_or_none(self, tmp_path: Path) -> None:
        key = tmp_path / "key"
        key.write_bytes(b"0123456789abcdef0123\r\n")
        assert read_cursor_key(key, {}) == b"0123456789abcdef0123"
        assert read_cursor_key(None, {CURSOR_KEY_ENV: "x" * 16}) == b"x" * 16
        assert read_cursor_key(None, {}) is None

    def test_bad_keys(self, tmp_path: Path) -> None:
        with pytest.raises(ConfigurationError, match="cannot read"):
            read_cursor_key(tmp_path / "missing", {})
        with pytest.raises(ConfigurationError, match="16 or more"):
            read_cursor_key(None, {CURSOR_KEY_ENV: "short"})

    def test_open_takes_a_cursor_key(self) -> None:
        with pytest.raises(semreport.InvalidRequest, match="16 bytes"):
            semreport.open("memory://", cursor_key=b"short")
        with pytest.raises(semreport.InvalidRequest, match="not both"):
            semreport.open("memory://", cursor_key=b"k" * 16, scorer=HeuristicScorer())
        with pytest.raises(semreport.InvalidRequest, match="bytes or text"):
            semreport.open("memory://", cursor_key=16 * 3)  # type: ignore[arg-type]
        # Two facades with one key accept each other's cursors.
        facades = [semreport.open("memory://", cursor_key="k" * 16) for _ in range(2)]
        for facade in facades:
            facade.record(sample_decisions("p-1", 12))
        page = facades[0].find("p-1", {"limit": 5})
        assert page.next_cursor is not None
        assert facades[1].find("p-1", {"limit": 5, "cursor": page.next_cursor}).hits


class TestHeaderTimeout:
    """A client that never finishes its headers is disconnected."""

    def test_slow_headers_close_the_connection(self) -> None:
        async def scenario() -> bytes:
            app = create_app(
                semreport.open("memory://", require_caller=True),
                StaticTokenAuthenticator({"t": Principal.local()}),
            )
            config = uvicorn.Config(
                app,
                http=functools.partial(serve_module.HeaderTimeoutProtocol, header_timeout=0.05),
                log_level="warning",
                lifespan="off",
            )
            server = uvicorn.Server(config)
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            task = asyncio.ensure_future(server.serve(sockets=[sock]))
            while not server.started:
                await asyncio.sleep(0)
            reader, writer = await asyncio.open_connection(*sock.getsockname())
            writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # never the blank line
            await writer.drain()
            closed = await reader.read()  # returns once the server closes the connection
            writer.close()
            # A complete request on a new connection is still served.
            reader, writer = await asyncio.open_connection(*sock.getsockname())
            writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            answer = await reader.read()
            writer.close()
            server.should_exit = True
            await task
            assert answer.startswith(b"HTTP/1.1 200")
            return closed

        assert asyncio.run(scenario()) == b""


class TestNoDelay:
    """Every connection sends without waiting for the peer's ACK (TCP_NODELAY)."""

    def test_set_even_when_the_listening_socket_hides_its_protocol(self) -> None:
        async def scenario() -> int:
            # uvicorn binds its workers' socket like this: proto 0, so asyncio skips NODELAY.
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.bind(("127.0.0.1", 0))
            listener.listen()
            assert listener.proto == 0
            accepted: asyncio.Future[int] = asyncio.get_running_loop().create_future()

            class Probe(serve_module.HeaderTimeoutProtocol):
                def connection_made(self, transport: asyncio.BaseTransport) -> None:
                    super().connection_made(transport)
                    sock = transport.get_extra_info("socket")
                    accepted.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

            config = uvicorn.Config(
                create_app(
                    semreport.open("memory://", require_caller=True),
                    StaticTokenAuthenticator({"t": Principal.local()}),
                ),
                http=functools.partial(Probe, header_timeout=5),
                log_level="warning",
                lifespan="off",
            )
            server = uvicorn.Server(config)
            task = asyncio.ensure_future(server.serve(sockets=[listener]))
            while not server.started:
                await asyncio.sleep(0)
            _reader, writer = await asyncio.open_connection(*listener.getsockname())
            flag = await accepted
            writer.close()
            server.should_exit = True
            await task
            return flag

        assert asyncio.run(scenario()) == 1
