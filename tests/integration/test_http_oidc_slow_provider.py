"""OpenID Connect against a real (loopback) identity provider that is slow, down or hostile.

The JWKS is served over HTTP by a server the test controls: it can stall a
request until released, answer errors, or drip the body a byte at a time.
Requests go through the ASGI application, with the default urllib fetcher.
Ordering is proven with events; the only time limits are fail-safes (and,
for the dripping provider, the fetch timeout under test).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from joserfc.jwk import RSAKey
from starlette.testclient import TestClient

import semreport
from semreport import Principal
from semreport.http import OIDCAuthenticator, create_app
from semreport.http.testing import LocalIdentityProvider
from semreport.testing.samples import sample_decisions

T0 = 1_800_000_000.0
FAILSAFE = 10.0
SIGNALS = "/projects/p-1/semantic/signals"


class Clock:
    """A clock that moves only when the test says so."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


class SlowProvider:
    """A JWKS endpoint on a loopback port whose answers the test controls.

    Args:
        document: The JWKS served (replace it to rotate keys).
        status: The HTTP status answered (anything but 200 sends no JWKS).
        drip: Send the body one byte at a time, for ever (until the fail-safe).
    """

    def __init__(self, document: dict[str, Any], *, status: int = 200, drip: bool = False) -> None:
        self.document = document
        self.status = status
        self.drip = drip
        self.requests = 0
        self.served = 0
        self.stuck = False
        self.dripped_out = False
        self._gate = threading.Event()
        self._gate.set()
        self._stop = threading.Event()
        self._changed = threading.Condition()
        self.url = ""

    def hold(self) -> None:
        """Stall every request until :meth:`release`."""
        self._gate.clear()

    def release(self) -> None:
        """Answer the stalled requests, and later ones at once."""
        self._gate.set()

    def reached(self, count: int) -> bool:
        """Wait until ``count`` requests have arrived (False at the fail-safe)."""
        with self._changed:
            return self._changed.wait_for(lambda: self.requests >= count, FAILSAFE)

    def _answer(self, handler: BaseHTTPRequestHandler) -> None:
        with self._changed:
            self.requests += 1
            self._changed.notify_all()
        if not self._gate.wait(FAILSAFE):
            self.stuck = True
        body = json.dumps(self.document).encode("utf-8") if self.status == 200 else b"{}"
        handler.send_response(self.status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body) + (10**6 if self.drip else 0)))
        handler.end_headers()
        if self.drip:
            self._drip(handler)
        else:
            handler.wfile.write(body)
        with self._changed:
            self.served += 1
            self._changed.notify_all()

    def _drip(self, handler: BaseHTTPRequestHandler) -> None:
        steps = 0
        # Each byte comes well within any socket timeout, so only a total
        # deadline ends the read; the server gives up at the fail-safe.
        while not self._stop.wait(0.02):
            try:
                handler.wfile.write(b" ")
                handler.wfile.flush()
            except OSError:
                return  # the client hung up: what a bounded fetch does
            steps += 1
            if steps * 0.02 > FAILSAFE:
                self.dripped_out = True
                return

    def __enter__(self) -> SlowProvider:
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                provider._answer(self)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/realms/design/jwks.json"
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._gate.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


class FetchOutcome(logging.Handler):
    """Records how the authenticator's first JWKS fetch ended, from its log."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.done = threading.Event()
        self.event = ""
        self.message = ""

    def emit(self, record: logging.LogRecord) -> None:
        event = getattr(record, "jwks", None)
        if event in {"fetched", "failed"} and not self.done.is_set():
            self.event, self.message = str(event), record.getMessage()
            self.done.set()


@pytest.fixture(autouse=True)
def _no_fetch_outlives_its_test() -> Iterator[None]:
    """Join the background JWKS fetches, so none logs into the next test."""
    yield
    for thread in threading.enumerate():
        if thread.name == "semreport-jwks":
            thread.join(FAILSAFE)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def idp(clock: Clock) -> LocalIdentityProvider:
    return LocalIdentityProvider(clock=clock)


@pytest.fixture
def service() -> Iterator[Any]:
    with semreport.open("memory://", require_caller=True) as service:
        service.record(sample_decisions("p-1"), caller=Principal.local("seeder"))
        yield service


@contextmanager
def _client(service: Any, auth: OIDCAuthenticator) -> Iterator[TestClient]:
    with TestClient(create_app(service, auth)) as client:
        yield client


def _auth(idp: LocalIdentityProvider, jwks: str, clock: Clock, **options: Any) -> OIDCAuthenticator:
    return OIDCAuthenticator(
        issuer=idp.issuer, audience=idp.audience, jwks=jwks, clock=clock, **options
    )


def _get(client: TestClient, token: str) -> Any:
    return client.get(SIGNALS, headers={"Authorization": f"Bearer {token}"})


def _assert_names_no_source(response: Any, *secrets: str) -> None:
    assert response.status_code == 503, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    problem = response.json()
    assert problem["code"] == "SERVICE_UNAVAILABLE"
    assert problem["status"] == 503
    answer = response.text + json.dumps(dict(response.headers))
    for secret in secrets:
        assert secret not in answer, secret


class TestAStalledRefresh:
    """A refresh stalled by the provider never holds a request signed by a cached key."""

    def test_cached_keys_answer_through_the_app_while_the_refresh_is_stalled(
        self, idp: LocalIdentityProvider, clock: Clock, service: Any
    ) -> None:
        with SlowProvider(idp.jwks()) as provider:
            auth = _auth(idp, provider.url, clock, cache_seconds=300, timeout=60)
            with _client(service, auth) as client:
                token = idp.token("ulla", projects=["p-1"])
                assert _get(client, token).status_code == 200
                assert provider.served == 1
                provider.hold()
                clock.now += 301
                # The cache is stale: this request starts the refresh, which stalls...
                assert _get(client, token).status_code == 200
                assert provider.reached(2)
                # ...and it, and the requests after it, are answered during the stall.
                for _ in range(3):
                    assert _get(client, token).status_code == 200
                assert provider.served == 1
                assert not provider.stuck
                # The stalled fetch brings a rotated key; a token signed by it
                # waits for that same fetch, and nothing fetches a third time.
                new = RSAKey.generate_key(2048, parameters={"kid": "rsa-2", "use": "sig"})
                provider.document = {
                    "keys": [k.as_dict(private=False) for k in (new, idp.rsa, idp.ec)]
                }
                provider.release()
                fresh = idp.sign(idp.claims("vera", projects=["p-1"]), key=new)
                assert _get(client, fresh).status_code == 200
                assert provider.requests == 2


class TestNoKeys:
    """With no keys cached the answer is a 503 problem that names no URL, host or path."""

    def test_a_provider_that_is_down(
        self,
        idp: LocalIdentityProvider,
        clock: Clock,
        service: Any,
        caplog: pytest.LogCaptureFixture,
    ) -> None:
        with SlowProvider(idp.jwks()) as provider:
            url = provider.url
        port = url.split(":")[2].split("/")[0]
        with (
            _client(service, _auth(idp, url, clock, timeout=5)) as client,
            caplog.at_level(logging.WARNING, "semreport.http.auth"),
        ):
            response = _get(client, idp.token(projects=["p-1"]))
        _assert_names_no_source(response, url, "127.0.0.1", f":{port}", "/realms/design")
        assert url in caplog.text  # the operator's log says where

    def test_a_missing_jwks_file(
        self, idp: LocalIdentityProvider, clock: Clock, service: Any, tmp_path: Path
    ) -> None:
        path = tmp_path / "secret-dir" / "jwks.json"
        with _client(service, _auth(idp, str(path), clock)) as client:
            response = _get(client, idp.token(projects=["p-1"]))
        _assert_names_no_source(response, str(tmp_path), "secret-dir", "jwks.json")

    def test_a_failing_provider_is_asked_once_per_interval(
        self, idp: LocalIdentityProvider, clock: Clock, service: Any
    ) -> None:
        with SlowProvider(idp.jwks(), status=500) as provider:
            auth = _auth(idp, provider.url, clock, min_refresh_seconds=30, timeout=5)
            with _client(service, auth) as client:
                token = idp.token(projects=["p-1"])
                responses = [_get(client, token) for _ in range(10)]
                assert provider.requests == 1
                for response in responses:
                    _assert_names_no_source(response, provider.url, "127.0.0.1")
                clock.now += 30
                _assert_names_no_source(_get(client, token), provider.url)
                assert provider.requests == 2
                provider.status = 200
                clock.now += 30
                assert _get(client, token).status_code == 200
                assert provider.requests == 3


class TestADrippingProvider:
    """A provider dripping its answer cannot keep the one fetch in flight for ever."""

    def test_the_fetch_ends_at_its_timeout(self, idp: LocalIdentityProvider, clock: Clock) -> None:
        outcome = FetchOutcome()
        logger = logging.getLogger("semreport.http.auth")
        logger.addHandler(outcome)
        try:
            with SlowProvider(idp.jwks(), drip=True) as provider:
                auth = _auth(idp, provider.url, clock, timeout=0.5)
                with pytest.raises(semreport.SemReportError) as raised:
                    auth.authenticate(idp.token())
                assert raised.value.code == "SERVICE_UNAVAILABLE"
                # The fetch itself gave up while the provider was still dripping.
                assert outcome.done.wait(FAILSAFE)
                assert not provider.dripped_out
        finally:
            logger.removeHandler(outcome)
        assert outcome.event == "failed"
        assert "longer than 0.5 s" in outcome.message
