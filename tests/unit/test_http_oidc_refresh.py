"""OpenID Connect under a slow or hostile identity provider: how the JWKS is fetched.

Every test runs the authenticator with a fake clock and an in-memory fetcher
that the test can hold (a fetch blocked on an event), make fail, or count.
Ordering is proven with events and log records, never with timings: the only
waits with a time limit are fail-safes, so a wrong implementation fails the
test instead of hanging it.
"""

from __future__ import annotations

import functools
import json
import logging
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from joserfc.jwk import RSAKey
from starlette.testclient import TestClient

import semreport
from semreport import ConfigurationError, Unauthenticated
from semreport.http import OIDCAuthenticator, create_app
from semreport.http._errors import ServiceUnavailable
from semreport.http.testing import LocalIdentityProvider

T0 = 1_800_000_000.0
URL = "https://idp.internal.example:8443/realms/design/protocol/openid-connect/certs"
# What an answer must never reveal: the URL, its host, port or path.
SECRETS = (URL, "idp.internal.example", "8443", "/realms/design", "openid-connect/certs")
# Fail-safes only: a correct implementation never comes near them.
FAILSAFE = 10.0
PATIENT = 600.0  # a fetch timeout so long that any request waiting for a fetch would be caught


class Clock:
    """A clock that moves only when the test says so."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


class FakeProvider:
    """The identity provider's JWKS endpoint, in memory.

    Counts fetches, can fail them, and can hold them: while held, a fetch
    blocks until :meth:`release` (or the fail-safe, which it records).
    """

    def __init__(self, idp: LocalIdentityProvider) -> None:
        self.document = idp.jwks()
        self.fetches = 0
        self.error: Exception | None = None
        self.stuck = False
        self.sources: list[str] = []
        self._gate = threading.Event()
        self._gate.set()
        self._lock = threading.Lock()

    def __call__(self, source: str, timeout: float) -> bytes:
        with self._lock:
            self.fetches += 1
            self.sources.append(source)
        if not self._gate.wait(FAILSAFE):
            self.stuck = True
        if self.error is not None:
            raise self.error
        return json.dumps(self.document).encode()

    def hold(self) -> None:
        """Make fetches block until :meth:`release`."""
        self._gate.clear()

    def release(self) -> None:
        """Let held fetches (and later ones) finish."""
        self._gate.set()


class JwksEvents(logging.Handler):
    """Counts the authenticator's JWKS log events; tests wait on them."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.counts: Counter[str] = Counter()
        self._changed = threading.Condition()

    def emit(self, record: logging.LogRecord) -> None:
        event = getattr(record, "jwks", None)
        if isinstance(event, str):
            with self._changed:
                self.counts[event] += 1
                self._changed.notify_all()

    def reach(self, event: str, count: int) -> bool:
        """Wait until ``event`` was logged ``count`` times (False at the fail-safe)."""
        with self._changed:
            return self._changed.wait_for(lambda: self.counts[event] >= count, FAILSAFE)


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
def provider(idp: LocalIdentityProvider) -> Iterator[FakeProvider]:
    provider = FakeProvider(idp)
    yield provider
    provider.release()  # lets any background fetch still held finish


@pytest.fixture
def events() -> Iterator[JwksEvents]:
    handler = JwksEvents()
    logger = logging.getLogger("semreport.http.auth")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    yield handler
    logger.removeHandler(handler)
    logger.setLevel(level)


AuthFactory = Callable[..., OIDCAuthenticator]


@pytest.fixture
def make(idp: LocalIdentityProvider, provider: FakeProvider, clock: Clock) -> AuthFactory:
    def make(**options: Any) -> OIDCAuthenticator:
        options.setdefault("timeout", PATIENT)
        return OIDCAuthenticator(
            issuer=idp.issuer,
            audience=idp.audience,
            jwks=URL,
            clock=clock,
            fetcher=provider,
            **options,
        )

    return make


def _rotate(idp: LocalIdentityProvider, provider: FakeProvider) -> RSAKey:
    """The provider starts signing with a new key and publishes it next to the old one."""
    old = idp.rsa
    new = RSAKey.generate_key(2048, parameters={"kid": "rsa-2", "use": "sig"})
    provider.document = {
        "keys": [key.as_dict(private=False) for key in (new, old, idp.ec)],
    }
    return new


@functools.cache
def _stranger_key() -> RSAKey:
    return RSAKey.generate_key(2048, parameters={"kid": "stranger"})


def _stranger(idp: LocalIdentityProvider) -> str:
    """A well-formed token signed by a key the provider never lists."""
    return idp.sign(idp.claims("mallory"), key=_stranger_key())


def _in_threads(count: int, work: Callable[[], Any]) -> tuple[list[Any], list[threading.Thread]]:
    """Start ``count`` threads that pass a barrier together, then run ``work``.

    Returns the list their results (or exceptions) land in, and the threads.
    """
    barrier = threading.Barrier(count)
    results: list[Any] = []
    lock = threading.Lock()

    def run() -> None:
        barrier.wait()
        try:
            outcome: Any = work()
        except Exception as exc:  # noqa: BLE001 - the test inspects it
            outcome = exc
        with lock:
            results.append(outcome)

    threads = [threading.Thread(target=run, daemon=True) for _ in range(count)]
    for thread in threads:
        thread.start()
    return results, threads


def _join(threads: list[threading.Thread]) -> bool:
    for thread in threads:
        thread.join(FAILSAFE)
    return not any(thread.is_alive() for thread in threads)


class TestCachedKeysNeverWait:
    """While a refresh runs, a token signed by a cached key is answered at once."""

    def test_a_stale_cache_is_refreshed_in_the_background(
        self,
        make: AuthFactory,
        idp: LocalIdentityProvider,
        provider: FakeProvider,
        clock: Clock,
        events: JwksEvents,
    ) -> None:
        auth = make(cache_seconds=300)
        assert auth.authenticate(idp.token()).subject == "alice"
        provider.hold()
        clock.now += 300
        # This request finds the cache stale and starts the refresh, which is
        # held: it still returns, with the cached key.
        assert auth.authenticate(idp.token("bob")).subject == "bob"
        assert events.reach("start", 2)
        assert provider.fetches == 2
        assert not provider.stuck
        assert events.counts["wait"] == 1  # only the very first request, with no keys, waited

    def test_many_requests_go_through_while_the_refresh_is_held(
        self,
        make: AuthFactory,
        idp: LocalIdentityProvider,
        provider: FakeProvider,
        clock: Clock,
        events: JwksEvents,
    ) -> None:
        auth = make(cache_seconds=300)
        auth.authenticate(idp.token())
        provider.hold()
        clock.now += 301
        token = idp.token("carol")
        results, threads = _in_threads(8, lambda: auth.authenticate(token).subject)
        # Every request finishes while the fetch is still held...
        assert _join(threads)
        assert results == ["carol"] * 8
        assert not provider.stuck
        # ...and together they started exactly one refresh.
        assert events.reach("start", 2)
        assert provider.fetches == 2
        new = _rotate(idp, provider)
        provider.release()
        # A token signed by the new key waits for that same fetch: no third one.
        assert auth.authenticate(idp.sign(idp.claims("dave"), key=new)).subject == "dave"
        assert provider.fetches == 2

    def test_a_cached_key_is_served_while_unknown_kids_wait(
        self,
        make: AuthFactory,
        idp: LocalIdentityProvider,
        provider: FakeProvider,
        clock: Clock,
        events: JwksEvents,
    ) -> None:
        auth = make()
        auth.authenticate(idp.token())
        new = _rotate(idp, provider)
        provider.hold()
        clock.now += 30
        fresh = idp.sign(idp.claims("erin"), key=new)
        results, threads = _in_threads(4, lambda: auth.authenticate(fresh).subject)
        assert events.reach("wait", 1 + 4)  # the first request (no keys yet), then these four
        # They wait for the held fetch; a token with a cached key does not.
        assert auth.authenticate(idp.token("frank")).subject == "frank"
        assert all(thread.is_alive() for thread in threads)
        provider.release()
        assert _join(threads)
        assert results == ["erin"] * 4
        assert provider.fetches == 2
        assert not provider.stuck


class TestSingleFlight:
    """At most one fetch is in flight; every request that needs new keys shares it."""

    def test_concurrent_unknown_kids_cause_exactly_one_fetch(
        self,
        make: AuthFactory,
        idp: LocalIdentityProvider,
        provider: FakeProvider,
        clock: Clock,
        events: JwksEvents,
    ) -> None:
        auth = make()
        auth.authenticate(idp.token())
        new = _rotate(idp, provider)
        provider.hold()
        clock.now += 60
        token = idp.sign(idp.claims("grace"), key=new)
        results, threads = _in_threads(16, lambda: auth.authenticate(token).subject)
        # All sixteen are waiting (the fetch cannot finish before release)...
        assert events.reach("wait", 1 + 16)
        assert provider.fetches == 2
        provider.release()
        # ...and all are answered by that one fetch.
        assert _join(threads)
        assert results == ["grace"] * 16
        assert provider.fetches == 2

    def test_the_first_requests_share_the_first_fetch(
        self,
        make: AuthFactory,
        idp: LocalIdentityProvider,
        provider: FakeProvider,
        events: JwksEvents,
    ) -> None:
        auth = make()
        provider.hold()
        token = idp.token("heidi")
        results, threads = _in_threads(16, lambda: auth.authenticate(token).subject)
        assert events.reach("wait", 16)
        assert provider.fetches == 1
        provider.release()
        assert _join(threads)
        assert results == ["heidi"] * 16
        assert provider.fetches == 1

    def test_a_request_waits_at_most_the_timeout(
        self,
        make: AuthFactory,
        idp: LocalIdentityProvider,
        provider: FakeProvider,
        events: JwksEvents,
    ) -> None:
        auth = make(timeout=0.01)
        provider.hold()
        with pytest.raises(ServiceUnavailable):
            auth.authenticate(idp.token())
        # The held fetch is still the one in flight: the next request waits
        # for it again rather than starting another.
        with pytest.raises(ServiceUnavailable):
            auth.authenticate(idp.token())
        assert events.counts["gave-up"] == 2
        assert provider.fetches == 1
        provider.release()
        assert events.reach("fetched", 1)
        assert auth.authenticate(idp.token("ivan")).subject == "ivan"
        assert provider.fetches == 1

    def test_an_unknown_kid_that_outwaits_the_timeout_is_unauthenticated(
        self,
        make: AuthFactory,
        idp: LocalIdentityProvider,
        provider: FakeProvider,
        clock: Clock,
        events: JwksEvents,
    ) -> None:
        auth = make(timeout=0.01)
        auth.authenticate(idp.token())
        provider.hold()
        clock.now += 30
        with pytest.raises(Unauthenticated, match="does not list"):
            auth.authenticate(_stranger(idp))
        assert events.counts["gave-up"] == 1
        assert provider.fetches == 2


class TestMinimumInterval:
    """Unknown key ids cannot make the service fetch more often than the minimum interval."""

    def test_unknown_kids_fetch_at_most_once_per_interval(
        self,
        make: AuthFactory,
        idp: LocalIdentityProvider,
        provider: FakeProvider,
        clock: Clock,
    ) -> None:
        auth = make(min_refresh_seconds=60)
        auth.authenticate(idp.token())
        assert provider.fetches == 1
        for offset in (0, 1, 30, 59.5):
            clock.now = T0 + offset
            for _ in range(25):
                with pytest.raises(Unauthenticated, match="does not list"):
                    auth.authenticate(_stranger(idp))
        assert provider.fetches == 1  # within the interval: zero fetches
        clock.now = T0 + 60
        with pytest.raises(Unauthenticated, match="does not list"):
            auth.authenticate(_stranger(idp))
        assert provider.fetches == 2  # after it: one
        clock.now = T0 + 119
        for _ in range(25):
            with pytest.raises(Unauthenticated):
                auth.authenticate(_stranger(idp))
        assert provider.fetches == 2
        clock.now = T0 + 120
        with pytest.raises(Unauthenticated):
            auth.authenticate(_stranger(idp))
        assert provider.fetches == 3

    def test_a_rotated_key_is_picked_up_after_the_interval(
        self,
        make: AuthFactory,
        idp: LocalIdentityProvider,
        provider: FakeProvider,
        clock: Clock,
    ) -> None:
        auth = make(min_refresh_seconds=60)
        auth.authenticate(idp.token())
        new = _rotate(idp, provider)
        clock.now = T0 + 59
        with pytest.raises(Unauthenticated):
            auth.authenticate(idp.sign(idp.claims("judy"), key=new))
        assert provider.fetches == 1
        clock.now = T0 + 60
        assert auth.authenticate(idp.sign(idp.claims("judy"), key=new)).subject == "judy"
        assert provider.fetches == 2

    def test_the_default_interval_is_thirty_seconds(
        self,
        make: AuthFactory,
        idp: LocalIdentityProvider,
        provider: FakeProvider,
        clock: Clock,
    ) -> None:
        auth = make()
        auth.authenticate(idp.token())
        clock.now = T0 + 29.9
        with pytest.raises(Unauthenticated):
            auth.authenticate(_stranger(idp))
        assert provider.fetches == 1
        clock.now = T0 + 30
        with pytest.raises(Unauthenticated):
            auth.authenticate(_stranger(idp))
        assert provider.fetches == 2

    def test_the_periodic_refresh_stays(
        self,
        make: AuthFactory,
        idp: LocalIdentityProvider,
        provider: FakeProvider,
        clock: Clock,
        events: JwksEvents,
    ) -> None:
        auth = make(cache_seconds=300, min_refresh_seconds=30)
        auth.authenticate(idp.token())
        new = _rotate(idp, provider)
        clock.now = T0 + 299
        auth.authenticate(idp.token())
        assert provider.fetches == 1
        clock.now = T0 + 300
        auth.authenticate(idp.token())
        assert events.reach("fetched", 2)
        assert provider.fetches == 2
        # The refreshed set already lists the new key: no fetch for it.
        assert auth.authenticate(idp.sign(idp.claims("kim"), key=new)).subject == "kim"
        assert provider.fetches == 2
        clock.now = T0 + 600
        auth.authenticate(idp.token())
        assert events.reach("fetched", 3)
        assert provider.fetches == 3


class TestFailedFetches:
    """A failed fetch keeps the old keys and is retried no more often than the interval."""

    def test_a_failed_refresh_keeps_the_cached_keys(
        self,
        make: AuthFactory,
        idp: LocalIdentityProvider,
        provider: FakeProvider,
        clock: Clock,
        events: JwksEvents,
    ) -> None:
        auth = make(cache_seconds=300, min_refresh_seconds=30)
        auth.authenticate(idp.token())
        provider.error = OSError(f"connection refused by {URL}")
        clock.now = T0 + 300
        assert auth.authenticate(idp.token("leo")).subject == "leo"
        assert events.reach("failed", 1)
        assert provider.fetches == 2
        # Stale and failing: still served, and not asked again within the interval.
        for offset in (301, 310, 329.9):
            clock.now = T0 + offset
            assert auth.authenticate(idp.token("leo")).subject == "leo"
            with pytest.raises(Unauthenticated):
                auth.authenticate(_stranger(idp))
        assert provider.fetches == 2
        clock.now = T0 + 330
        assert auth.authenticate(idp.token("leo")).subject == "leo"
        assert events.reach("failed", 2)
        assert provider.fetches == 3
        provider.error = None
        clock.now = T0 + 360
        auth.authenticate(idp.token())
        assert events.reach("fetched", 2)
        assert provider.fetches == 4

    @pytest.mark.parametrize(
        "error",
        [
            OSError(f"[Errno 111] Connection refused: {URL}"),
            TimeoutError("timed out"),
            ValueError("Expecting value: line 1 column 1 (char 0)"),
            RuntimeError(f"a custom fetcher broke on {URL}"),
        ],
        ids=["refused", "timeout", "not json", "fetcher bug"],
    )
    def test_any_fetch_failure_keeps_the_cached_keys(
        self,
        make: AuthFactory,
        idp: LocalIdentityProvider,
        provider: FakeProvider,
        clock: Clock,
        events: JwksEvents,
        error: Exception,
    ) -> None:
        auth = make(cache_seconds=300)
        auth.authenticate(idp.token())
        provider.error = error
        clock.now = T0 + 300
        assert auth.authenticate(idp.token()).subject == "alice"
        assert events.reach("failed", 1)
        assert auth.authenticate(idp.token()).subject == "alice"

    def test_with_no_keys_the_provider_is_asked_once_per_interval(
        self,
        make: AuthFactory,
        idp: LocalIdentityProvider,
        provider: FakeProvider,
        clock: Clock,
    ) -> None:
        auth = make(min_refresh_seconds=30)
        provider.error = OSError(f"connection refused by {URL}")
        for offset in (0, 1, 29.9):
            clock.now = T0 + offset
            for _ in range(10):
                with pytest.raises(ServiceUnavailable):
                    auth.authenticate(idp.token())
        assert provider.fetches == 1
        clock.now = T0 + 30
        with pytest.raises(ServiceUnavailable):
            auth.authenticate(idp.token())
        assert provider.fetches == 2
        provider.error = None
        clock.now = T0 + 60
        assert auth.authenticate(idp.token("mia")).subject == "mia"
        assert provider.fetches == 3

    def test_a_clock_stepped_back_does_not_freeze_the_keys(
        self,
        make: AuthFactory,
        idp: LocalIdentityProvider,
        provider: FakeProvider,
        clock: Clock,
    ) -> None:
        auth = make(min_refresh_seconds=30)
        provider.error = OSError("unreachable")
        with pytest.raises(ServiceUnavailable):
            auth.authenticate(idp.token())
        provider.error = None
        clock.now = T0 - 3600  # corrected by an hour: no wait of an hour for keys
        assert auth.authenticate(idp.token("nina")).subject == "nina"
        assert provider.fetches == 2


class TestNoKeysIsServiceUnavailable:
    """With no keys cached the answer is 503 SERVICE_UNAVAILABLE, naming no URL, host or path."""

    def test_the_error_names_no_source_and_the_log_does(
        self,
        make: AuthFactory,
        idp: LocalIdentityProvider,
        provider: FakeProvider,
        caplog: pytest.LogCaptureFixture,
    ) -> None:
        provider.error = OSError(f"[Errno 111] Connection refused: {URL}")
        auth = make()
        with (
            caplog.at_level(logging.WARNING, "semreport.http.auth"),
            pytest.raises(ServiceUnavailable) as raised,
        ):
            auth.authenticate(idp.token())
        assert raised.value.code == "SERVICE_UNAVAILABLE"
        for secret in SECRETS:
            assert secret not in str(raised.value)
        assert URL in caplog.text
        assert provider.sources == [URL]

    def test_keys_raises_it_too(self, make: AuthFactory, provider: FakeProvider) -> None:
        provider.error = OSError("unreachable")
        with pytest.raises(ServiceUnavailable):
            make().keys()

    def test_over_http_it_is_a_503_problem(
        self, make: AuthFactory, idp: LocalIdentityProvider, provider: FakeProvider
    ) -> None:
        provider.error = OSError(f"[Errno 111] Connection refused: {URL}")
        with (
            semreport.open("memory://", require_caller=True) as service,
            TestClient(create_app(service, make())) as client,
        ):
            response = client.get(
                "/projects/p-1/semantic/signals",
                headers={"Authorization": f"Bearer {idp.token(projects=['p-1'])}"},
            )
        assert response.status_code == 503
        assert response.headers["content-type"].startswith("application/problem+json")
        problem = response.json()
        assert problem["code"] == "SERVICE_UNAVAILABLE"
        assert problem["status"] == 503
        answer = response.text + json.dumps(dict(response.headers))
        for secret in SECRETS:
            assert secret not in answer


class TestConfiguration:
    """The fetch settings are checked when the authenticator is built."""

    @pytest.mark.parametrize(
        "options",
        [
            {"timeout": 0},
            {"timeout": -1},
            {"timeout": float("inf")},
            {"timeout": float("nan")},
            {"min_refresh_seconds": -1},
            {"cache_seconds": -0.5},
            {"cache_seconds": float("nan")},
        ],
    )
    def test_out_of_range_settings(self, make: AuthFactory, options: dict[str, float]) -> None:
        with pytest.raises(ConfigurationError):
            make(**options)

    def test_a_zero_interval_is_allowed(
        self, make: AuthFactory, idp: LocalIdentityProvider, provider: FakeProvider
    ) -> None:
        auth = make(min_refresh_seconds=0)
        auth.authenticate(idp.token())
        for _ in range(3):
            with pytest.raises(Unauthenticated):
                auth.authenticate(_stranger(idp))
        assert provider.fetches == 1 + 3

    def test_a_mapping_is_never_fetched(
        self, idp: LocalIdentityProvider, provider: FakeProvider
    ) -> None:
        auth = idp.authenticator(fetcher=provider, min_refresh_seconds=0)
        with pytest.raises(Unauthenticated):
            auth.authenticate(_stranger(idp))
        assert auth.keys(refresh=True) is auth.keys()
        assert provider.fetches == 0
