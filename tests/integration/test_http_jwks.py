"""OIDC keys from a JWKS file and from a (loopback) JWKS URL, with caching."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from joserfc.jwk import RSAKey

from semreport import Unauthenticated
from semreport.http import OIDCAuthenticator
from semreport.http._errors import ServiceUnavailable
from semreport.http.testing import LocalIdentityProvider, serve_jwks


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(autouse=True)
def _no_fetch_outlives_its_test() -> Iterator[None]:
    """Join the background JWKS fetches, so none logs into the next test."""
    yield
    for thread in threading.enumerate():
        if thread.name == "semreport-jwks":
            thread.join(10.0)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def idp(clock: Clock) -> LocalIdentityProvider:
    return LocalIdentityProvider(clock=clock)


def _auth(idp: LocalIdentityProvider, jwks: str, clock: Clock, **options: Any) -> OIDCAuthenticator:
    return OIDCAuthenticator(
        issuer=idp.issuer, audience=idp.audience, jwks=jwks, clock=clock, **options
    )


class TestJwksFile:
    """Keys read from a file."""

    def test_tokens_verify_against_a_jwks_file(
        self, idp: LocalIdentityProvider, clock: Clock, tmp_path: Path
    ) -> None:
        path = tmp_path / "jwks.json"
        path.write_text(json.dumps(idp.jwks()))
        auth = _auth(idp, str(path), clock)
        assert auth.authenticate(idp.token("alice")).subject == "alice"

    def test_a_missing_file_is_unavailable_and_logged(
        self,
        idp: LocalIdentityProvider,
        clock: Clock,
        tmp_path: Path,
        caplog: pytest.LogCaptureFixture,
    ) -> None:
        path = tmp_path / "absent.json"
        auth = _auth(idp, str(path), clock)
        with (
            caplog.at_level(logging.WARNING, "semreport.http.auth"),
            pytest.raises(ServiceUnavailable) as raised,
        ):
            auth.authenticate(idp.token())
        # The operator's log names the file; the caller's answer does not.
        assert str(path) in caplog.text
        assert str(tmp_path) not in str(raised.value)

    def test_a_key_without_kid_is_named_by_its_thumbprint(
        self, idp: LocalIdentityProvider, clock: Clock, tmp_path: Path
    ) -> None:
        key = RSAKey.generate_key(2048)
        public = dict(key.as_dict(private=False))
        public.pop("kid", None)
        path = tmp_path / "jwks.json"
        path.write_text(json.dumps({"keys": [public]}))
        auth = _auth(idp, str(path), clock)
        token = idp.sign(idp.claims(), key=key, header={"kid": key.thumbprint()})
        assert auth.authenticate(token).subject == "alice"

    def test_an_oversized_file_is_refused(
        self,
        idp: LocalIdentityProvider,
        clock: Clock,
        tmp_path: Path,
        caplog: pytest.LogCaptureFixture,
    ) -> None:
        path = tmp_path / "jwks.json"
        path.write_text(json.dumps({"keys": [], "pad": "x" * (1024 * 1024)}))
        with (
            caplog.at_level(logging.WARNING, "semreport.http.auth"),
            pytest.raises(ServiceUnavailable),
        ):
            _auth(idp, str(path), clock).keys()
        assert "larger than 1 MiB" in caplog.text


class TestJwksUrl:
    """Keys fetched over HTTP from a loopback server, cached, refreshed on rotation."""

    def test_keys_are_fetched_once_and_cached(
        self, idp: LocalIdentityProvider, clock: Clock
    ) -> None:
        with serve_jwks(idp.jwks()) as (url, hits):
            auth = _auth(idp, url, clock, cache_seconds=300)
            for _ in range(5):
                assert auth.authenticate(idp.token()).subject == "alice"
            assert hits[0] == 1
            clock.now += 301
            # Served from the cache; the refresh it starts runs in the background.
            auth.authenticate(idp.token())
            auth.keys(refresh=True)  # waits for that refresh (and starts none)
            assert hits[0] == 2

    def test_an_unknown_kid_refetches_at_most_once_per_interval(
        self, idp: LocalIdentityProvider, clock: Clock
    ) -> None:
        stranger = RSAKey.generate_key(2048, parameters={"kid": "stranger"})
        with serve_jwks(idp.jwks()) as (url, hits):
            auth = _auth(idp, url, clock, min_refresh_seconds=30)
            auth.authenticate(idp.token())
            clock.now += 31
            for _ in range(10):
                with pytest.raises(Unauthenticated, match="does not list"):
                    auth.authenticate(idp.sign(idp.claims(), key=stranger))
            assert hits[0] == 2

    def test_rotated_keys_are_picked_up(self, idp: LocalIdentityProvider, clock: Clock) -> None:
        document = idp.jwks()
        with serve_jwks(document) as (url, hits):
            auth = _auth(idp, url, clock, min_refresh_seconds=0)
            auth.authenticate(idp.token())
            idp.rsa = RSAKey.generate_key(2048, parameters={"kid": "rsa-2"})
            document["keys"] = idp.jwks()["keys"]
            assert auth.authenticate(idp.token("bob")).subject == "bob"
            assert hits[0] == 2

    def test_cached_keys_survive_an_unreachable_provider(
        self, idp: LocalIdentityProvider, clock: Clock
    ) -> None:
        with serve_jwks(idp.jwks()) as (url, _):
            auth = _auth(idp, url, clock, cache_seconds=10, timeout=1)
            auth.authenticate(idp.token())
        clock.now += 60
        assert auth.authenticate(idp.token()).subject == "alice"

    def test_an_unreachable_provider_without_cache_is_unavailable(
        self, idp: LocalIdentityProvider, clock: Clock
    ) -> None:
        with serve_jwks(idp.jwks()) as (url, _):
            pass
        auth = _auth(idp, url, clock, timeout=1)
        with pytest.raises(ServiceUnavailable) as raised:
            auth.authenticate(idp.token())
        assert url not in str(raised.value)

    def test_a_non_json_answer_is_unavailable_and_logged(
        self, idp: LocalIdentityProvider, clock: Clock, caplog: pytest.LogCaptureFixture
    ) -> None:
        with serve_jwks({"not": "a jwks"}) as (url, _):
            auth = _auth(idp, url, clock)
            with (
                caplog.at_level(logging.WARNING, "semreport.http.auth"),
                pytest.raises(ServiceUnavailable),
            ):
                auth.authenticate(idp.token())
        assert "'keys' list" in caplog.text
        assert url in caplog.text

    def test_an_oversized_answer_is_refused(
        self, idp: LocalIdentityProvider, clock: Clock, caplog: pytest.LogCaptureFixture
    ) -> None:
        with serve_jwks({"keys": [], "pad": "x" * (1024 * 1024)}) as (url, _):
            auth = _auth(idp, url, clock)
            with (
                caplog.at_level(logging.WARNING, "semreport.http.auth"),
                pytest.raises(ServiceUnavailable),
            ):
                auth.authenticate(idp.token())
        assert "larger than 1 MiB" in caplog.text
