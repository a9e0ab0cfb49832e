"""Authenticators: OpenID Connect bearer tokens and static development tokens."""

from __future__ import annotations

import hmac
import json
import logging
import math
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Collection, Iterable, Mapping
from pathlib import Path
from typing import Any, Final, TypeAlias

from joserfc import jws, jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

from semreport.domain import ConfigurationError, Principal, Role, Unauthenticated
from semreport.http._errors import ServiceUnavailable

__all__ = [
    "ASYMMETRIC_ALGORITHMS",
    "OIDCAuthenticator",
    "StaticTokenAuthenticator",
]

logger = logging.getLogger("semreport.http.auth")

# Reads a JWKS document: given its URL (or file path) and a timeout, returns its bytes.
_Fetcher: TypeAlias = Callable[[str, float], bytes]

ASYMMETRIC_ALGORITHMS: Final[tuple[str, ...]] = (
    "RS256",
    "RS384",
    "RS512",
    "PS256",
    "PS384",
    "PS512",
    "ES256",
    "ES384",
    "ES512",
    "EdDSA",
)
"""The signature algorithms :class:`OIDCAuthenticator` accepts by default."""

_SYMMETRIC: Final = frozenset({"HS256", "HS384", "HS512"})
_MAX_TOKEN: Final = 16 * 1024
_MAX_JWKS: Final = 1024 * 1024
_CHUNK: Final = 64 * 1024
# What a client is told when no keys are cached: deliberately no URL, host or
# path (those go to the log), so an error page never maps the internal network.
_NO_KEYS: Final = (
    "the identity provider's signing keys are not available at the moment, "
    "so no token can be verified; try again later"
)


class StaticTokenAuthenticator:
    """Fixed tokens mapped to callers, for development and tests.

    Args:
        tokens: Each accepted token and the caller it stands for.

    Example:
        >>> from semreport import Principal
        >>> auth = StaticTokenAuthenticator({"dev-token": Principal.local("dev")})
        >>> auth.authenticate("dev-token").subject
        'dev'
    """

    def __init__(self, tokens: Mapping[str, Principal]) -> None:
        if not tokens:
            raise ConfigurationError("StaticTokenAuthenticator needs at least one token")
        for token, principal in tokens.items():
            if not _is_text(token):
                raise ConfigurationError("static tokens must be non-empty strings")
            if not isinstance(principal, Principal):
                raise ConfigurationError("each static token must map to a Principal")
        self._tokens = [(token.encode("utf-8"), principal) for token, principal in tokens.items()]

    def __repr__(self) -> str:
        return f"StaticTokenAuthenticator(<{len(self._tokens)} token(s)>)"

    def authenticate(self, token: str) -> Principal:
        """Return the caller of a known token (compared in constant time)."""
        given = token.encode("utf-8", "surrogateescape")
        found: Principal | None = None
        for known, principal in self._tokens:
            # Compare against every token so the time taken does not say which one matched.
            if hmac.compare_digest(given, known):
                found = principal
        if found is None:
            raise Unauthenticated("the bearer token is not valid")
        return found


class OIDCAuthenticator:
    """Bearer tokens from an OpenID Connect identity provider, verified against its JWKS.

    The token must be a signed JWT (JWS compact form) whose header names a
    key (``kid``) of the JWKS and an allowed algorithm, whose signature
    verifies with that key, and whose claims carry the expected issuer and
    audience, an expiry in the future and, when present, a not-before time in
    the past. Unsigned tokens (``alg: none``) and HMAC tokens are refused
    unless HMAC is explicitly allowed, so a public key can never be used as
    an HMAC secret.

    Keys read from a URL or a file are cached and survive a slow or hostile
    identity provider:

    * at most one fetch runs at a time, on a background thread. A token
      signed by a cached key never waits for it, even when the cache is
      older than ``cache_seconds`` and the fetch is the refresh it started;
    * only a request that cannot be served without new keys (none cached
      yet, or a ``kid`` the cached set does not list) waits for the fetch in
      flight, at most ``timeout`` seconds, and every such request shares
      that one fetch;
    * fetches start at most once every ``min_refresh_seconds``, counted from
      the last attempt whether it succeeded or not, so neither unknown
      ``kid`` values nor a provider that is down can make the service fetch
      more often; in between, a token whose key is not cached is refused as
      unauthenticated without fetching;
    * a failed fetch keeps the keys already cached (and is logged, naming
      the source); with no keys cached, verification raises
      ``ServiceUnavailable`` (code ``SERVICE_UNAVAILABLE``, HTTP 503), whose message
      names no URL, host or path.

    Args:
        issuer: The expected ``iss`` claim.
        audience: The expected ``aud`` claim (the token's ``aud`` may be a
            list containing it).
        jwks: Where the keys are: an ``https://`` or ``http://`` URL, a file
            path, or the JWKS itself as a mapping.
        algorithms: The signature algorithms accepted (asymmetric ones by default).
        roles_claim: The claim holding the caller's roles; a dotted path
            reaches into objects (``realm_access.roles`` for Keycloak).
        projects_claim: The claim holding the projects the caller may read.
        all_projects_value: A value of the projects claim granting every project.
        role_aliases: Maps the identity provider's role names to semreport
            roles (``{"semreport-operator": "operator"}``); ``user`` and
            ``operator`` are always understood.
        subject_claim: The claim naming the caller.
        leeway: Seconds of clock skew tolerated for ``exp`` and ``nbf``.
        cache_seconds: How long fetched keys are used before a background
            refresh is started (default 300).
        min_refresh_seconds: The least time between the starts of two
            fetches (default 30), so unknown ``kid`` values and an
            unreachable provider cannot make the service hammer it.
        timeout: Seconds a fetch may take, and the longest a request waits
            for one (default 5).
        clock: Returns the current time in seconds (tests pass their own).
        fetcher: Reads the JWKS document from ``jwks`` (a URL or file path)
            within a timeout and returns its bytes; the default uses urllib
            for URLs and reads anything else as a file. Give your own to use
            another HTTP client, or in tests.

    Raises:
        ConfigurationError: a setting is out of range (no issuer or
            audience, no algorithm or ``none``, a negative interval, a
            timeout that is not positive, an unusable JWKS mapping).
    """

    def __init__(
        self,
        *,
        issuer: str,
        audience: str,
        jwks: str | Path | Mapping[str, Any],
        algorithms: Collection[str] = ASYMMETRIC_ALGORITHMS,
        roles_claim: str = "roles",
        projects_claim: str = "projects",
        all_projects_value: str | None = "*",
        role_aliases: Mapping[str, str] | None = None,
        subject_claim: str = "sub",
        leeway: int = 30,
        cache_seconds: float = 300.0,
        min_refresh_seconds: float = 30.0,
        timeout: float = 5.0,
        clock: Callable[[], float] = time.time,
        fetcher: Callable[[str, float], bytes] | None = None,
    ) -> None:
        if not issuer or not audience:
            raise ConfigurationError("OIDCAuthenticator needs an issuer and an audience")
        algorithms = tuple(algorithms)
        if not algorithms or "none" in {a.lower() for a in algorithms}:
            raise ConfigurationError("allowed algorithms must be non-empty and exclude 'none'")
        _check_seconds("cache_seconds", cache_seconds, positive=False)
        _check_seconds("min_refresh_seconds", min_refresh_seconds, positive=False)
        _check_seconds("timeout", timeout, positive=True)
        self._issuer = issuer
        self._audience = audience
        self._algorithms = algorithms
        self._roles_claim = roles_claim.split(".")
        self._projects_claim = projects_claim.split(".")
        self._all_projects_value = all_projects_value
        aliases = {role.value: role for role in Role}
        for name, role in (role_aliases or {}).items():
            aliases[name] = Role(role)
        self._aliases = aliases
        self._subject_claim = subject_claim
        self._leeway = leeway
        self._clock = clock
        self._cache_seconds = cache_seconds
        self._min_refresh = min_refresh_seconds
        self._timeout = timeout
        self._fetcher: _Fetcher = fetcher if fetcher is not None else _read_jwks
        # Guards the four fields below; never held while fetching or waiting.
        self._lock = threading.Lock()
        self._source: str | None
        if isinstance(jwks, Mapping):
            self._source = None
            self._keys: KeySet | None = _key_set(jwks)
        else:
            self._source = str(jwks)
            self._keys = None
        self._fetched_at = -math.inf  # when the cached keys were fetched
        self._attempted_at = -math.inf  # when the last fetch started, successful or not
        self._inflight: _Fetch | None = None

    def __repr__(self) -> str:
        return f"OIDCAuthenticator(issuer={self._issuer!r}, audience={self._audience!r})"

    # -- keys ------------------------------------------------------------------------

    def keys(self, *, refresh: bool = False) -> KeySet:
        """Return the cached JWKS, fetching it only when it must.

        Cached keys are returned at once; when they are older than
        ``cache_seconds`` a background refresh is started first. With no
        keys cached, or when ``refresh`` asks for newer ones, this waits (at
        most ``timeout`` seconds) for the fetch in flight, starting one
        unless the last fetch started less than ``min_refresh_seconds`` ago.

        Raises:
            ServiceUnavailable: no keys are cached and none could be fetched
                (the message names no URL or path; the log does).
        """
        if self._source is None:
            assert self._keys is not None
            return self._keys
        keys = self._current_keys(need_new=refresh)
        if keys is None:
            raise ServiceUnavailable(_NO_KEYS)
        return keys

    def _current_keys(self, *, need_new: bool) -> KeySet | None:
        with self._lock:
            now = self._clock()
            keys = self._keys
            fetch = self._inflight
            started = False
            if fetch is None and _passed(now, self._attempted_at, self._min_refresh):
                stale = _passed(now, self._fetched_at, self._cache_seconds)
                if keys is None or need_new or stale:
                    # Decided under the lock, so only one fetch is ever in flight.
                    fetch = self._inflight = _Fetch()
                    self._attempted_at = now
                    started = True
        if started:
            assert fetch is not None
            logger.debug("fetching the JWKS from %s", self._source, extra={"jwks": "start"})
            threading.Thread(
                target=self._run_fetch, args=(fetch,), name="semreport-jwks", daemon=True
            ).start()
        if fetch is None or (keys is not None and not need_new):
            # Either no fetch may start yet (the interval has not passed), or the
            # cached keys will do: a refresh never holds a request it need not.
            return keys
        logger.debug(
            "waiting up to %s s for the JWKS fetch in flight",
            self._timeout,
            extra={"jwks": "wait"},
        )
        if not fetch.done.wait(self._timeout):
            logger.warning(
                "the JWKS fetch from %s has not finished within %s s; answering without it",
                self._source,
                self._timeout,
                extra={"jwks": "gave-up"},
            )
        with self._lock:
            return self._keys

    def _run_fetch(self, fetch: _Fetch) -> None:
        source = self._source
        assert source is not None
        keys: KeySet | None = None
        error: Exception | None = None
        try:
            keys = self._load(source)
        # The fetcher is pluggable, so anything it raises is a failed fetch:
        # the cached keys stay, and the thread must never die with the slot taken.
        except Exception as exc:  # noqa: BLE001
            error = exc
        finally:
            with self._lock:
                if keys is not None:
                    self._keys = keys
                    self._fetched_at = self._clock()
                self._inflight = None
                cached = self._keys is not None
            try:
                # Logged once the outcome is in place and before the waiters
                # wake, so the log tells the story in the order it happened.
                self._log_outcome(source, keys, error, cached=cached)
            finally:
                fetch.done.set()

    @staticmethod
    def _log_outcome(
        source: str, keys: KeySet | None, error: Exception | None, *, cached: bool
    ) -> None:
        if keys is not None:
            logger.info(
                "fetched the JWKS from %s (%d keys)",
                source,
                len(keys.keys),
                extra={"jwks": "fetched"},
            )
        else:
            logger.warning(
                "cannot fetch the JWKS from %s: %s; %s",
                source,
                error,
                "keeping the cached keys"
                if cached
                else "no keys are cached, so no token can be verified (503)",
                extra={"jwks": "failed"},
            )

    def _load(self, source: str) -> KeySet:
        text = self._fetcher(source, self._timeout)
        if len(text) > _MAX_JWKS:
            raise ValueError("the JWKS is larger than 1 MiB")
        return _key_set(json.loads(text))

    # -- tokens ----------------------------------------------------------------------

    def authenticate(self, token: str) -> Principal:
        """Verify a bearer token and return its caller.

        Raises:
            Unauthenticated: the token cannot be verified (the message says why,
                without echoing the token).
        """
        if not _is_text(token) or len(token) > _MAX_TOKEN:
            raise Unauthenticated("the bearer token is missing or too long")
        try:
            header = jws.extract_compact(token.encode("ascii")).headers()
        except (JoseError, ValueError, UnicodeError) as exc:
            raise Unauthenticated("the bearer token is not a signed JWT") from exc
        alg = header.get("alg")
        if not isinstance(alg, str) or alg not in self._algorithms:
            raise Unauthenticated(f"the token's algorithm {alg!r} is not accepted")
        kid = header.get("kid")
        if not isinstance(kid, str):
            raise Unauthenticated("the token's header names no key ('kid')")
        key = self._find_key(kid)
        try:
            verified = jwt.decode(token, key, algorithms=[alg])
        except (JoseError, ValueError, TypeError) as exc:
            raise Unauthenticated("the token's signature does not verify") from exc
        claims: dict[str, Any] = dict(verified.claims)
        self._check_claims(claims)
        return self._principal(claims)

    def _find_key(self, kid: str) -> Any:
        key = _lookup(self.keys(), kid)
        if key is None and self._source is not None:
            # Perhaps the provider rotated its keys: ask again, within the interval.
            key = _lookup(self.keys(refresh=True), kid)
        if key is None:
            raise Unauthenticated(
                "the token was signed by a key the identity provider does not list"
            )
        return key

    def _check_claims(self, claims: dict[str, Any]) -> None:
        registry = jwt.JWTClaimsRegistry(
            now=int(self._clock()),
            leeway=self._leeway,
            iss={"essential": True, "value": self._issuer},
            aud={"essential": True, "value": self._audience},
            exp={"essential": True},
        )
        try:
            registry.validate(claims)
        except JoseError as exc:
            raise Unauthenticated(f"the token's claims are not accepted: {exc}") from exc

    def _principal(self, claims: Mapping[str, Any]) -> Principal:
        subject = claims.get(self._subject_claim)
        if not isinstance(subject, str) or not subject.strip():
            raise Unauthenticated(f"the token has no {self._subject_claim!r} claim")
        roles = self._roles(claims)
        granted = _strings(_claim(claims, self._projects_claim), "projects")
        all_projects = self._all_projects_value is not None and self._all_projects_value in granted
        projects = [p for p in granted if p != self._all_projects_value]
        try:
            return Principal(subject, roles=roles, projects=projects, all_projects=all_projects)
        except (TypeError, ValueError) as exc:
            raise Unauthenticated(f"the token's claims do not describe a caller: {exc}") from exc

    def _roles(self, claims: Mapping[str, Any]) -> set[Role]:
        names = _strings(_claim(claims, self._roles_claim), "roles")
        return {self._aliases[name] for name in names if name in self._aliases}


class _Fetch:
    """One JWKS fetch in flight; every request that needs new keys waits on it."""

    __slots__ = ("done",)

    def __init__(self) -> None:
        self.done = threading.Event()


def _passed(now: float, then: float, seconds: float) -> bool:
    # A clock stepped back (an NTP correction) counts as time passed: it must
    # not freeze the keys, or keep a service without keys answering 503.
    return not 0 <= now - then < seconds


def _check_seconds(name: str, value: float, *, positive: bool) -> None:
    if math.isnan(value) or value < 0:
        raise ConfigurationError(f"{name} must be a number of seconds, at least 0")
    if positive and (value == 0 or math.isinf(value)):
        raise ConfigurationError(f"{name} must be a positive, finite number of seconds")


def _read_jwks(source: str, timeout: float) -> bytes:
    """The default fetcher: an HTTP(S) GET bounded in total time, or a file read."""
    if not source.startswith(("https://", "http://")):
        with Path(source).open("rb") as file:
            return file.read(_MAX_JWKS + 1)
    # The socket timeout bounds each read; the deadline bounds them all, so a
    # provider dripping one byte at a time cannot hold the one fetch slot for ever.
    deadline = time.monotonic() + timeout
    request = urllib.request.Request(  # noqa: S310 - the scheme is checked above
        source, headers={"Accept": "application/json"}
    )
    chunks: list[bytes] = []
    size = 0
    try:
        response = urllib.request.urlopen(request, timeout=timeout)  # noqa: S310
    except urllib.error.HTTPError as exc:
        exc.close()  # an error status still holds its connection open
        raise
    with response:
        while chunk := response.read1(_CHUNK):
            size += len(chunk)
            if size > _MAX_JWKS:
                raise ValueError("the JWKS is larger than 1 MiB")
            chunks.append(chunk)
            if time.monotonic() > deadline:
                raise TimeoutError(f"the JWKS took longer than {timeout} s to arrive")
    return b"".join(chunks)


def _lookup(keys: KeySet, kid: str) -> Any:
    for key in keys.keys:
        if key.kid == kid:
            return key
    return None


def _is_text(value: object) -> bool:
    return isinstance(value, str) and bool(value)


def _claim(claims: Mapping[str, Any], path: Iterable[str]) -> object:
    value: object = claims
    for step in path:
        if not isinstance(value, Mapping):
            return None
        value = value.get(step)
    return value


def _strings(value: object, what: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return list(value)
    raise Unauthenticated(f"the token's {what} claim must be a list of strings")


def _key_set(data: object) -> KeySet:
    if not isinstance(data, Mapping) or not isinstance(data.get("keys"), list):
        raise ConfigurationError("a JWKS is a JSON object with a 'keys' list")
    try:
        keys = KeySet.import_key_set(dict(data))  # type: ignore[arg-type]
    except (JoseError, ValueError, TypeError, KeyError) as exc:
        raise ConfigurationError(f"the JWKS holds an unusable key: {exc}") from exc
    # joserfc names a key without "kid" by its RFC 7638 thumbprint.
    return keys
